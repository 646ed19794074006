"""Loaders: a template name → (source, filename, uptodate), as Jinja2's loaders answer Environment.get_template."""

# A loader is anything with get_source(environment, name) returning (source, filename or None, uptodate or None)
# and raising TemplateNotFound; uptodate() says whether a cached compile of it is still current (auto_reload).
# The classes here are Jinja2's: DictLoader, FileSystemLoader, FunctionLoader, ChoiceLoader, PrefixLoader, and
# BaseLoader to derive others from. Template names are "/"-separated whatever the platform.
#
# FileSystemLoader stays inside its search path: a name with a ".." segment, an absolute name, a drive or a
# backslash is not found (Jinja2 refuses ".." and reads "/etc/x" as "etc/x"; here both are refused), and neither
# is a file that a symbolic link leads out of the search path to. Where a name leads is checked on the file it
# opened (the descriptor's real path), so a link flipped between a check and the open cannot lead out either.
# Only regular files are templates (a FIFO, a device or a folder under the name is not found, and opening never
# blocks), and no more of a file is read than max_template_size allows (core/files.py). A file that cannot be
# read or is not text in `encoding` is a TemplateLoadError naming it; so is any failure of a loader
# (checked_source: a loader that raises something other than TemplateNotFound, returns something other than
# (source, filename, uptodate), or contains itself).

import errno
import os
from _collections_abc import Iterable, Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Callable, Optional, Union
    # what get_source returns: (source, filename or None, uptodate or None)
    Source = tuple[str, Optional[str], Optional[Callable[[], bool]]]

from .core.errors import LimitExceeded, TemplateError, TemplateLoadError, TemplateNotFound, scrub_message
from .core.files import FileRefused, decode_text, file_too_large, open_regular_file, read_open_file, within
from .core.state import DEFAULT_LIMITS

__all__ = ["BaseLoader", "DictLoader", "FileSystemLoader", "FunctionLoader", "ChoiceLoader", "PrefixLoader",
           "split_template_path", "checked_source", "Source"]


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
    # A template name → its path segments; TemplateNotFound for a name that could leave the search path.
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

    def get_source(self, environment: "Any", template: str) -> "Source":
        """Raises TemplateNotFound when there is no such template."""
        raise TemplateNotFound(template)

    def list_templates(self) -> "list[str]":
        raise TypeError("this loader cannot iterate over all templates")

    def load(self, environment: "Any", name: str, globals: "Optional[Mapping[str, Any]]" = None) -> "Any":
        """The compiled template `name` (what Environment.get_template uses, without its cache). Raises
        TemplateNotFound, TemplateSyntaxError."""
        source, filename, uptodate = checked_source(self, environment, name)
        return environment._template_from_source(source, name, filename, globals, uptodate)


class DictLoader(BaseLoader):
    """Templates from a dict of name → source."""

    def __init__(self, mapping: "Mapping[str, str]") -> None:
        self.mapping = mapping

    def get_source(self, environment: "Any", template: str) -> "Source":
        try:
            source = self.mapping[template]
        except (KeyError, TypeError):
            raise TemplateNotFound(template) from None
        return source, None, lambda: source == self.mapping.get(template)

    def list_templates(self) -> "list[str]":
        return sorted(self.mapping)


class FunctionLoader(BaseLoader):
    """Templates from a function: name → source, or (source, filename, uptodate), or None when there is none."""

    def __init__(self, load_func: "Callable[[str], Union[None, str, Source]]") -> None:
        self.load_func = load_func

    def get_source(self, environment: "Any", template: str) -> "Source":
        found = self.load_func(template)
        if found is None:
            raise TemplateNotFound(template)
        if isinstance(found, str):
            return found, None, None
        return found


class PrefixLoader(BaseLoader):
    """Loaders by prefix: "app/index.html" is "index.html" of mapping["app"]."""

    def __init__(self, mapping: "Mapping[str, BaseLoader]", delimiter: str = "/") -> None:
        self.mapping = mapping
        self.delimiter = delimiter

    def get_loader(self, template: str) -> "tuple[BaseLoader, str]":
        try:
            prefix, name = template.split(self.delimiter, 1)
            return self.mapping[prefix], name
        except (ValueError, KeyError, TypeError, AttributeError):
            raise TemplateNotFound(template) from None

    def get_source(self, environment: "Any", template: str) -> "Source":
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

    def __init__(self, loaders: "Iterable[BaseLoader]") -> None:
        self.loaders = loaders

    def get_source(self, environment: "Any", template: str) -> "Source":
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
        self.searchpath = list(map(os.fspath, searchpath))
        self.encoding = encoding
        self.followlinks = followlinks

    def get_source(self, environment: "Any", template: str) -> "Source":
        pieces = split_template_path(template)
        limits = getattr(environment, "limits", None)
        for folder in self.searchpath:
            filename = os.path.normpath(os.path.join(folder, *pieces))
            opened = _open_inside(filename, folder)
            if opened is not None:
                break
        else:
            # Jinja2's message: the name and where it was looked for
            paths = ", ".join(repr(os.fspath(p)) for p in self.searchpath)
            plural = "" if len(self.searchpath) == 1 else "s"
            raise TemplateNotFound(template, f"{template!r} not found in search path{plural}: {paths}")
        fd, status = opened
        try:
            source = _read(fd, status.st_size, filename, self.encoding, limits)
        finally:
            os.close(fd)
        mtime = status.st_mtime

        def uptodate():
            try:
                return os.path.getmtime(filename) == mtime
            except OSError:
                return False
        return source, filename, uptodate

    def list_templates(self) -> "list[str]":
        """The names of the regular files under the search path that get_source would load: a folder is walked
        once however many links lead to it, and never one outside the search path (followlinks=True)."""
        found = set()
        for folder in self.searchpath:
            root = os.path.realpath(folder)
            visited = set()
            for here, folders, names in os.walk(folder, followlinks=self.followlinks):
                real = os.path.realpath(here)
                if real in visited or not within(real, root):
                    folders[:] = []   # a link cycle, or a link out of the search path: not walked
                    continue
                visited.add(real)
                for name in names:
                    path = os.path.join(here, name)
                    if within(os.path.realpath(path), root) and os.path.isfile(path):
                        found.add(os.path.relpath(path, folder).replace(os.path.sep, "/"))
        return sorted(found)


# what an open fails with when the name leads nowhere: the template is not there (a name too long, a link loop)
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG})


def _open_inside(filename, folder):
    # (descriptor, fstat) of the regular file at filename when what was opened is inside folder (symbolic links
    # followed), else None.
    try:
        return open_regular_file(filename, folder)
    except FileRefused:   # not a regular file, or one outside folder: not there
        return None
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise TemplateLoadError(f"{filename}: cannot be read ({exc.strerror or exc})", path=filename) from None


def _read(fd, size, filename, encoding, limits):
    # The text of an open template file of `size` bytes (as it says), refused before reading when that is more
    # than max_template_size allows, and having read no more than that when it says less.
    max_size = (limits or DEFAULT_LIMITS).max_template_size
    # a character takes at most 4 bytes in UTF-8 (the common encodings take fewer)
    try:
        if size > 4 * max_size:
            raise file_too_large(filename, 4 * max_size)
        data = read_open_file(fd, 4 * max_size, filename, "a template file")
    except FileRefused:   # (too large: the one refusal a read meets)
        raise LimitExceeded(f"template file {filename} is larger than the limit max_template_size={max_size} "
                            "allows", limit="max_template_size", value=max_size) from None
    except OSError as exc:
        raise TemplateLoadError(f"{filename}: cannot be read ({exc.strerror or exc})", path=filename) from None
    try:
        return decode_text(data, filename, encoding)
    except FileRefused as exc:   # (not text)
        raise TemplateLoadError(f"{filename}: {exc.strerror}", path=filename) from None


def checked_source(loader: "Any", environment: "Any", name: str) -> "Source":
    # loader.get_source(environment, name), held to its contract: (source str, filename str or None, uptodate
    # callable or None), and only TemplateErrors out (a loader that raised anything else, returned something else,
    # contains itself, ... is a TemplateLoadError naming the template; Jinja2's TemplateNotFound is ours).
    try:
        found = loader.get_source(environment, name)
    except TemplateError:
        raise
    except Exception as exc:
        if type(exc).__name__ in ("TemplateNotFound", "TemplatesNotFound"):   # a Jinja2 loader's
            raise TemplateNotFound(name) from None
        raise TemplateLoadError(f"{name}: the loader failed ({_describe(exc)})", path=name) from None
    if type(found) is not tuple or len(found) != 3:
        shape = f"a {len(found)}-tuple" if type(found) is tuple else type(found).__name__
        raise TemplateLoadError(f"{name}: the loader returned {shape}, not (source, filename, uptodate)", path=name)
    source, filename, uptodate = found
    if type(source) is not str or not (filename is None or type(filename) is str) \
            or not (uptodate is None or callable(uptodate)):
        raise TemplateLoadError(f"{name}: the loader returned ({type(source).__name__}, {type(filename).__name__}, "
                                f"{type(uptodate).__name__}), not (str, str or None, a callable or None)", path=name)
    return found


def _describe(exc):
    try:
        text = str(exc)
    except Exception:
        text = ""
    if isinstance(exc, RecursionError):
        text = "it calls itself without end"
    return scrub_message(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
