"""Loading: a path or a model id → (chat template source or {name: source}, special tokens).

What transformers' tokenizer loading and llama.cpp read, without either: a model folder (chat_template.jinja and
additional_chat_templates/*.jinja, else chat_template.json, else the chat_template of tokenizer_config.json;
special tokens from tokenizer_config.json and special_tokens_map.json), one of those files on its own (with the
special tokens of that file and of its folder), a .jinja file, a GGUF file (gguf.py), or a model id in the local
Hugging Face cache. Files are told apart by content (the GGUF magic, a JSON object), not only by extension.
Never touches the network. Every failure is a TemplateLoadError naming the file and the problem.
"""

from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations stay strings (PEP 563)
    from typing import Any, Union
    Found = Union[str, "dict[str, str]"]

from .gguf import GGUFFormatError, is_gguf, read_chat_metadata
from ..core.errors import TemplateLoadError

__all__ = ["TemplateLoadError", "load_chat_template", "hub_cache_dir", "choose_named"]

SPECIAL_TOKEN_NAMES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_FOLDER_FILES = ("chat_template.jinja", "chat_template.json", "tokenizer_config.json")
_MODEL_ID = r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$"   # compiled on first use (re's cache), not at import
_MAX_FILE = 256 * 1024 * 1024  # a JSON or template file past this is not one (tokenizer.json is not read)


def _fail(path: str, problem: str) -> TemplateLoadError:
    return TemplateLoadError(f"{path}: {problem}", path=str(path))


def load_chat_template(path: "Union[str, os.PathLike[str]]", name: "str | None" = None) -> "tuple[Found, dict[str, str]]":
    """(source, special_tokens) for a model folder, a template/config/GGUF file, or a cached model id.

    source is a str, or {name: source} when the file has several named templates (transformers' list form,
    additional_chat_templates/, tokenizer.chat_template.<name> in a GGUF). With `name`, only that template's
    source (a str) is returned: "default" names the unnamed one. special_tokens maps bos_token, eos_token, ...
    to their text. Raises TemplateLoadError for a missing, unreadable, malformed or template-less input and for
    an unknown name.
    """
    path = str(os.fspath(path))
    found: Found
    if os.path.isdir(path):
        found, special = _load_folder(path)
    elif os.path.exists(path):
        found, special = _load_file(path)
    else:
        folder = _hub_snapshot(path)
        found, special = _load_folder(folder)
    if name is not None:
        found = choose_named(found, name, path)
    return found, special


def choose_named(found: Found, name: str, where: str) -> str:
    """The source called `name` among found (a str is the template "default"); TemplateLoadError otherwise."""
    named = found if isinstance(found, dict) else {"default": found}
    if name not in named:
        raise _fail(where, f"no chat template named {name!r}; the names are {', '.join(sorted(named))}")
    return named[name]


# ----------------------------------------------------------------------------------------------- file reading
def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > _MAX_FILE:
                raise _fail(path, f"{size} bytes is too large for a template or tokenizer config file")
            return file.read()
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None


def _decode(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _read_json(path: str, data: "bytes | None" = None) -> "dict[str, Any]":
    text = _decode(path, _read_bytes(path) if data is None else data)
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise _fail(path, f"malformed JSON ({exc})") from None
    except RecursionError:
        raise _fail(path, "malformed JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise _fail(path, f"expected a JSON object, found {type(value).__name__}")
    return value


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(4)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None


def _load_file(path: str) -> "tuple[Found, dict[str, str]]":
    """One file: GGUF by its magic; JSON by its extension or by parsing as an object; a template otherwise."""
    if is_gguf(_head(path)):
        return _load_gguf(path)
    lower = path.lower()
    if lower.endswith((".jinja", ".jinja2", ".j2")):
        return _decode(path, _read_bytes(path)), _folder_special_tokens(os.path.dirname(path))
    data = _read_bytes(path)
    if lower.endswith(".json") or _looks_like_json_object(data):
        config = _read_json(path, data)
        found = _template_of_config(path, config)
        # the file's own tokens, unless its folder's tokenizer files say otherwise (the same as for the folder
        # when the file is that folder's tokenizer_config.json)
        return found, {**_special_tokens_of(config), **_folder_special_tokens(os.path.dirname(path))}
    if lower.endswith(".gguf"):
        raise _fail(path, f"not a GGUF file (starts with {data[:4]!r}, not b'GGUF')")
    return _decode(path, data), _folder_special_tokens(os.path.dirname(path))


def _looks_like_json_object(data: bytes) -> bool:
    if not data.lstrip()[:1] == b"{":
        return False
    try:
        return isinstance(json.loads(data), dict)
    except (ValueError, RecursionError):
        return False  # a template that starts with "{{" or "{%"


def _load_gguf(path: str) -> "tuple[Found, dict[str, str]]":
    try:
        metadata = read_chat_metadata(path)
    except GGUFFormatError as exc:
        raise _fail(path, f"corrupt or unsupported GGUF file: {exc}") from None
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None
    templates = metadata["templates"]
    if not templates:
        raise _fail(path, "this GGUF file has no chat template (no tokenizer.chat_template key)")
    found = templates["default"] if list(templates) == ["default"] else templates
    return found, metadata["special_tokens"]


def _template_of_config(path: str, config: "dict[str, Any]") -> Found:
    """The chat_template of a tokenizer_config.json or chat_template.json: a str, or its list form as a dict."""
    template = config.get("chat_template")
    if template is None:
        raise _fail(path, "has no chat_template")
    if isinstance(template, str):
        return template
    if isinstance(template, list):
        named = {}
        for entry in template:
            if not (isinstance(entry, dict) and isinstance(entry.get("name"), str)
                    and isinstance(entry.get("template"), str)):
                raise _fail(path, "chat_template is a list whose items are not {\"name\": ..., \"template\": ...}")
            named[entry["name"]] = entry["template"]
        if not named:
            raise _fail(path, "has an empty chat_template list")
        return named
    raise _fail(path, f"chat_template is a {type(template).__name__}, not a string or a list of named templates")


# ------------------------------------------------------------------------------------------------ special tokens
def _token_text(token: Any) -> "str | None":
    if isinstance(token, dict):  # an AddedToken, serialised
        token = token.get("content")
    return token if isinstance(token, str) else None


def _special_tokens_of(config: "dict[str, Any]") -> "dict[str, str]":
    special = {}
    for key in SPECIAL_TOKEN_NAMES:
        text = _token_text(config.get(key))
        if text is not None:
            special[key] = text
    return special


def _folder_special_tokens(folder: str) -> "dict[str, str]":
    """Special tokens of a folder's tokenizer_config.json, overridden by its special_tokens_map.json (the order
    transformers applies them in). Files that are missing are skipped; broken ones are errors."""
    special = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        file = os.path.join(folder or ".", name)
        if os.path.isfile(file):
            special.update(_special_tokens_of(_read_json(file)))
    return special


# ----------------------------------------------------------------------------------------------------- folders
def _load_folder(folder: str) -> "tuple[Found, dict[str, str]]":
    special = _folder_special_tokens(folder)
    jinja = os.path.join(folder, "chat_template.jinja")
    extra = _additional_templates(folder)
    if os.path.isfile(jinja):
        source = _decode(jinja, _read_bytes(jinja))
        return ({"default": source, **extra} if extra else source), special
    for name in ("chat_template.json", "tokenizer_config.json"):
        file = os.path.join(folder, name)
        if os.path.isfile(file):
            config = _read_json(file)
            if config.get("chat_template") is not None:
                return _template_of_config(file, config), special
    if extra:
        return extra, special
    raise _fail(folder, f"no chat template found (looked for {', '.join(_FOLDER_FILES)})")


def _additional_templates(folder: str) -> "dict[str, str]":
    """transformers' additional_chat_templates/<name>.jinja files: named templates beside chat_template.jinja."""
    extra_dir = os.path.join(folder, "additional_chat_templates")
    if not os.path.isdir(extra_dir):
        return {}
    named = {}
    for entry in sorted(os.listdir(extra_dir)):
        if entry.endswith(".jinja"):
            file = os.path.join(extra_dir, entry)
            named[entry[:-len(".jinja")]] = _decode(file, _read_bytes(file))
    return named


# --------------------------------------------------------------------------------------- the Hugging Face cache
def hub_cache_dir() -> str:
    """Where huggingface_hub keeps downloaded models: HF_HUB_CACHE, else $HF_HOME/hub, else
    $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub."""
    explicit = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return os.path.expanduser(explicit)
    home = os.environ.get("HF_HOME")
    if not home:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = os.path.join(cache, "huggingface")
    return os.path.join(os.path.expanduser(home), "hub")


def _hub_snapshot(model_id: str) -> str:
    """The folder of the refs/main snapshot of a model id in the local cache (no network, ever)."""
    if not re.match(_MODEL_ID, model_id):
        raise _fail(model_id, "no such file or folder")
    cache = hub_cache_dir()
    repo = os.path.join(cache, "models--" + model_id.replace("/", "--"))
    if not os.path.isdir(repo):
        raise _fail(model_id, f"no such file or folder, nor a model in the local Hugging Face cache ({cache}); "
                              "download it first, e.g. `hf download " + model_id + "`")
    ref = os.path.join(repo, "refs", "main")
    try:
        with open(ref, encoding="utf-8") as file:
            commit = file.read().strip()
    except OSError:
        raise _fail(model_id, f"the cached model has no refs/main ({ref})") from None
    snapshot = os.path.join(repo, "snapshots", commit)
    if not commit or not os.path.isdir(snapshot):
        raise _fail(model_id, f"refs/main names snapshot {commit!r}, which is not in {os.path.dirname(snapshot)}")
    return snapshot
