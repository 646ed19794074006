"""Loaders: a template name → (source, filename, uptodate), as Jinja2's loaders answer Environment.get_template.

A loader is anything with get_source(environment, name) returning (source, filename or None, uptodate or None)
and raising TemplateNotFound; uptodate() says whether a cached compile of it is still current (auto_reload).
The classes here are Jinja2's: DictLoader, FileSystemLoader, FunctionLoader, ChoiceLoader, PrefixLoader, and
BaseLoader to derive others from. Template names are "/"-separated whatever the platform.

FileSystemLoader stays inside its search path: a name with a ".." segment, an absolute name, a drive or a
backslash is not found (Jinja2 refuses ".." and reads "/etc/x" as "etc/x"; here both are refused), and neither
is a file that a symbolic link leads out of the search path to. A file larger than the environment's
max_template_size could hold is refused before it is read.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations stay strings (PEP 563)
    from typing import Any, Callable, Optional, Union
    # what get_source returns: (source, filename or None, uptodate or None)
    Source = tuple[str, Optional[str], Optional[Callable[[], bool]]]

from .core.errors import LimitExceeded, TemplateNotFound

__all__ = ["BaseLoader", "DictLoader", "FileSystemLoader", "FunctionLoader", "ChoiceLoader", "PrefixLoader",
           "split_template_path", "Source"]

if not TYPE_CHECKING:
    def __getattr__(name):
        """The type alias Source at run time, made on first use (PEP 562): it needs typing, which import
        minijinja_py does not load. Type checkers read it from the TYPE_CHECKING block above."""
        if name != "Source":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from typing import Callable, Optional
        globals()[name] = tuple[str, Optional[str], Optional[Callable[[], bool]]]
        return globals()[name]


def split_template_path(template: str) -> "list[str]":
    """A template name → its path segments; TemplateNotFound for a name that could leave the search path."""
    if not isinstance(template, str) or "\x00" in template or "\\" in template:
        raise TemplateNotFound(template)
    if template.startswith("/") or (len(template) > 1 and template[1] == ":"):
        raise TemplateNotFound(template)
    pieces = []
    for piece in template.split("/"):
        if piece == "..":
            raise TemplateNotFound(template)
        if piece and piece != ".":
            pieces.append(piece)
    return pieces


class BaseLoader:
    """The loader interface: get_source(environment, name) → (source, filename, uptodate); list_templates()."""

    has_source_access = True

    def get_source(self, environment: Any, template: str) -> Source:
        """Raises TemplateNotFound when there is no such template."""
        raise TemplateNotFound(template)

    def list_templates(self) -> "list[str]":
        raise TypeError("this loader cannot iterate over all templates")

    def load(self, environment: Any, name: str, globals: Optional[Mapping[str, Any]] = None) -> Any:
        """The compiled template `name` (what Environment.get_template uses, without its cache). Raises
        TemplateNotFound, TemplateSyntaxError."""
        source, filename, uptodate = self.get_source(environment, name)
        return environment._template_from_source(source, name, filename, globals, uptodate)


class DictLoader(BaseLoader):
    """Templates from a dict of name → source."""

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = mapping

    def get_source(self, environment: Any, template: str) -> Source:
        try:
            source = self.mapping[template]
        except (KeyError, TypeError):
            raise TemplateNotFound(template) from None
        return source, None, lambda: source == self.mapping.get(template)

    def list_templates(self) -> "list[str]":
        return sorted(self.mapping)


class FunctionLoader(BaseLoader):
    """Templates from a function: name → source, or (source, filename, uptodate), or None when there is none."""

    def __init__(self, load_func: Callable[[str], Union[None, str, Source]]) -> None:
        self.load_func = load_func

    def get_source(self, environment: Any, template: str) -> Source:
        found = self.load_func(template)
        if found is None:
            raise TemplateNotFound(template)
        if isinstance(found, str):
            return found, None, None
        return found


class PrefixLoader(BaseLoader):
    """Loaders by prefix: "app/index.html" is "index.html" of mapping["app"]."""

    def __init__(self, mapping: Mapping[str, BaseLoader], delimiter: str = "/") -> None:
        self.mapping = mapping
        self.delimiter = delimiter

    def get_loader(self, template: str) -> "tuple[BaseLoader, str]":
        try:
            prefix, name = template.split(self.delimiter, 1)
            return self.mapping[prefix], name
        except (ValueError, KeyError, TypeError, AttributeError):
            raise TemplateNotFound(template) from None

    def get_source(self, environment: Any, template: str) -> Source:
        loader, name = self.get_loader(template)
        try:
            return loader.get_source(environment, name)
        except TemplateNotFound:
            raise TemplateNotFound(template) from None   # the name asked for, not the loader's part of it

    def list_templates(self) -> "list[str]":
        return [prefix + self.delimiter + name for prefix, loader in self.mapping.items()
                for name in loader.list_templates()]


class ChoiceLoader(BaseLoader):
    """The first of several loaders that has the template."""

    def __init__(self, loaders: Iterable[BaseLoader]) -> None:
        self.loaders = loaders

    def get_source(self, environment: Any, template: str) -> Source:
        for loader in self.loaders:
            try:
                return loader.get_source(environment, template)
            except TemplateNotFound:
                pass
        raise TemplateNotFound(template)

    def list_templates(self) -> "list[str]":
        found = set()
        for loader in self.loaders:
            found.update(loader.list_templates())
        return sorted(found)


class FileSystemLoader(BaseLoader):
    """Templates from files under one or more folders (searched in order), read with `encoding`."""

    def __init__(self, searchpath: "Union[str, os.PathLike[str], Iterable[Union[str, os.PathLike[str]]]]",
                 encoding: str = "utf-8", followlinks: bool = False) -> None:
        if isinstance(searchpath, (str, os.PathLike)):
            searchpath = [searchpath]
        self.searchpath = [os.fspath(p) for p in searchpath]
        self.encoding = encoding
        self.followlinks = followlinks

    def get_source(self, environment: Any, template: str) -> Source:
        pieces = split_template_path(template)
        for folder in self.searchpath:
            filename = os.path.normpath(os.path.join(folder, *pieces))
            if os.path.isfile(filename) and _inside(filename, folder):
                break
        else:
            # Jinja2's message: the name and where it was looked for
            paths = ", ".join(repr(os.fspath(p)) for p in self.searchpath)
            plural = "" if len(self.searchpath) == 1 else "s"
            raise TemplateNotFound(template, f"{template!r} not found in search path{plural}: {paths}")
        source = _read(filename, self.encoding, getattr(environment, "limits", None))
        mtime = os.path.getmtime(filename)

        def uptodate():
            try:
                return os.path.getmtime(filename) == mtime
            except OSError:
                return False
        return source, filename, uptodate

    def list_templates(self) -> "list[str]":
        found = set()
        for folder in self.searchpath:
            for root, _, files in os.walk(folder, followlinks=self.followlinks):
                for name in files:
                    path = os.path.join(root, name)
                    if _inside(path, folder):
                        found.add(os.path.relpath(path, folder).replace(os.path.sep, "/"))
        return sorted(found)


def _inside(path, folder):
    """Is the file at path (symbolic links followed) inside folder (followed too)?"""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return posixpath.commonpath([real, root]) == root if os.path.sep == "/" else \
        os.path.commonpath([real, root]) == root


def _read(filename, encoding, limits):
    """The text of a template file, refused before reading when it is too big for max_template_size."""
    if limits is not None:
        size = os.path.getsize(filename)
        # a character takes at most 4 bytes in UTF-8 (the common encodings take fewer)
        if size > 4 * limits.max_template_size:
            raise LimitExceeded(f"template file of {size} bytes exceeds the limit max_template_size="
                                f"{limits.max_template_size}", limit="max_template_size",
                                value=limits.max_template_size)
    with open(filename, encoding=encoding) as f:
        return f.read()
