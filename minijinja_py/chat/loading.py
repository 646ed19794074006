"""Loading: a path or a model id → (chat template source or {name: source}, special tokens); GGUF: a model file → the
metadata a chat template needs (its templates, the text of its special tokens)."""

# What transformers' tokenizer loading and llama.cpp read, without either: a model folder (chat_template.jinja and
# additional_chat_templates/*.jinja, else chat_template.json, else the chat_template of tokenizer_config.json;
# special tokens from tokenizer_config.json and special_tokens_map.json), one of those files on its own (with the
# special tokens of that file and of its folder), a .jinja file, a GGUF file (read below), or a model id in the local
# Hugging Face cache. Files are told apart by content (the GGUF magic, a JSON object), not only by extension.
# Never touches the network. Every failure is a TemplateLoadError naming the file and the problem.
#
# What a model folder or the cache holds is untrusted, and the file-system rules say what is read of it:
#   * only regular files, each read without blocking and never past its cap (core/files.py): a template file
#     16 MiB, a JSON config 32 MiB and 3 million values (what JSON of that size could inflate to is bounded by
#     its values, counted before parsing), a refs file 1 KiB;
#   * a model folder's files (and what their links lead to) stay inside the folder, or inside the repository
#     folder for a snapshot of the Hugging Face cache (whose files link to ../../blobs); a cached model's revision
#     is a name listed in its snapshots/ folder, nothing that could lead elsewhere;
#   * at most 256 named templates and 32 MiB of template text for one model.

import json
import os
import re
import types

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, BinaryIO, Union
    Found = Union[str, "dict[str, str]"]

from ..core.errors import TemplateLoadError
from ..core.files import FileRefused, decode_text, file_too_large, is_entry_name, open_regular_file, \
    read_open_file, read_regular_file

__all__ = ["TemplateLoadError", "load_chat_template", "hub_cache_dir", "choose_named", "GGUF_MAGIC", "GGUFFormatError",
           "is_gguf", "read_chat_metadata", "metadata_of"]

SPECIAL_TOKEN_NAMES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_FOLDER_FILES = ("chat_template.jinja", "chat_template.json", "tokenizer_config.json")
_MODEL_ID = r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$"   # compiled on first use (re's cache), not at import
_JINJA = (".jinja", ".jinja2", ".j2")
MAX_TEMPLATE_FILE = 16 << 20     # bytes of a template file (64 times the default max_template_size at 1 byte each)
MAX_CONFIG_FILE = 32 << 20       # bytes of a JSON config (tokenizer.json, the big one, is never read)
MAX_CONFIG_VALUES = 3_000_000    # JSON values of a config: a real one holds a few thousand, and each costs memory
MAX_NAMED = 256                  # named templates of one model (real models have one to three)
MAX_TEMPLATE_TEXT = 32 << 20     # characters of all the templates of one model together
_MAX_REF = 1024                  # bytes of a refs file (a 40-character commit hash)
_MAX_LISTED = 10_000             # entries of additional_chat_templates/ looked at


def _fail(path: str, problem: str) -> "TemplateLoadError":
    return TemplateLoadError(f"{path}: {problem}", path=str(path))


def load_chat_template(path: "Union[str, os.PathLike[str]]", name: "str | None" = None) -> "tuple[Found, dict[str, str]]":
    """(source, special_tokens) for a model folder, a template/config/GGUF file, or a cached model id.

    source is a str, or {name: source} when the file has several named templates (transformers' list form,
    additional_chat_templates/, tokenizer.chat_template.<name> in a GGUF). With `name`, only that template's
    source (a str) is returned: "default" names the unnamed one. special_tokens maps bos_token, eos_token, ...
    to their text. Raises TemplateLoadError for a missing, unreadable, malformed, oversized or template-less
    input, for a file that is not a regular file or that leads out of its model folder, and for an unknown name.
    """
    path = str(os.fspath(path))
    try:
        found, special = _load(path)
    except MemoryError:
        raise _fail(path, "too large to load (out of memory)") from None
    except RecursionError:
        raise _fail(path, "nested too deeply to load") from None
    if name is not None:
        found = choose_named(found, name, path)
    return found, special


def _load(path: str) -> "tuple[Found, dict[str, str]]":
    if os.path.isdir(path):
        return _load_folder(path, folder_root(path))
    if os.path.lexists(path):
        return _load_file(path)
    repo, snapshot = _hub_snapshot(path)
    return _load_folder(snapshot, repo)


def choose_named(found: "Found", name: str, where: str) -> str:
    # The source called `name` among found (a str is the template "default"); TemplateLoadError otherwise.
    named = found if isinstance(found, dict) else {"default": found}
    if name not in named:
        raise _fail(where, f"no chat template named {name!r}; the names are {', '.join(sorted(named))}")
    return named[name]


def folder_root(folder: str) -> str:
    # The folder a model folder's files must resolve into: the folder itself, or for a snapshot of the Hugging
    # Face cache (.../models--org--name/snapshots/<revision>, whose files link to ../../blobs/) its repository
    # folder.
    real = os.path.realpath(folder)
    parent = os.path.dirname(real)
    if os.path.basename(parent) == "snapshots" and os.path.basename(os.path.dirname(parent)).startswith("models--"):
        return os.path.dirname(parent)
    return real


# ----------------------------------------------------------------------------------------------- file reading
def _refused(path: str, exc: "OSError") -> "TemplateLoadError":
    if isinstance(exc, FileRefused):
        return _fail(path, exc.strerror)
    return _fail(path, f"cannot be read ({exc.strerror or exc})")


def _read_bytes(path: str, limit: int, what: str, root: "str | None" = None) -> bytes:
    try:
        return read_regular_file(path, limit, what, root)
    except OSError as exc:
        raise _refused(path, exc) from None


def _decode(path: str, data: bytes) -> str:
    try:
        return decode_text(data, path, "UTF-8")
    except FileRefused as exc:
        raise _refused(path, exc) from None


def _read_template(path: str, root: "str | None" = None) -> str:
    return _decode(path, _read_bytes(path, MAX_TEMPLATE_FILE, "a template file", root))


def _read_json(path: str, data: "bytes | None" = None, root: "str | None" = None) -> "dict[str, Any]":
    if data is None:
        data = _read_bytes(path, MAX_CONFIG_FILE, "a JSON config file", root)
    text = _decode(path, data)
    if _json_values(data) > MAX_CONFIG_VALUES:
        raise _fail(path, f"holds more than the {MAX_CONFIG_VALUES} JSON values allowed for a config file")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise _fail(path, f"malformed JSON ({exc})") from None
    except RecursionError:
        raise _fail(path, "malformed JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise _fail(path, f"expected a JSON object, found {type(value).__name__}")
    return value


def _json_values(data: bytes) -> int:
    # At most how many values JSON text holds (each one after the first in a container follows a comma, and each
    # container holds one first value): counted at C speed, before parsing builds them.
    return data.count(b",") + data.count(b"[") + data.count(b"{") + 1


def _load_file(path: str) -> "tuple[Found, dict[str, str]]":
    # One file: GGUF by its magic; JSON by its extension or by parsing as an object; a template otherwise.
    try:
        fd, status = open_regular_file(path)
    except OSError as exc:
        raise _refused(path, exc) from None
    with os.fdopen(fd, "rb") as file:
        try:
            head = os.read(fd, 4)
            os.lseek(fd, 0, os.SEEK_SET)
            if is_gguf(head):
                return _load_gguf(path, file, status.st_size)
            lower = path.lower()
            limit, what = (MAX_TEMPLATE_FILE, "a template file") if lower.endswith(_JINJA) else \
                (MAX_CONFIG_FILE, "a JSON config or template file")
            if status.st_size > limit:
                raise file_too_large(path, limit, what)
            data = read_open_file(fd, limit, path, what)
        except OSError as exc:
            raise _refused(path, exc) from None
    folder = os.path.dirname(path)
    if lower.endswith(_JINJA):
        return _decode(path, data), _folder_special_tokens(folder)
    if lower.endswith(".json") or _looks_like_json_object(data):
        config = _read_json(path, data)
        found = _template_of_config(path, config)
        # the file's own tokens, unless its folder's tokenizer files say otherwise (the same as for the folder
        # when the file is that folder's tokenizer_config.json)
        return found, {**_special_tokens_of(config), **_folder_special_tokens(folder)}
    if lower.endswith(".gguf"):
        raise _fail(path, f"not a GGUF file (starts with {data[:4]!r}, not b'GGUF')")
    if len(data) > MAX_TEMPLATE_FILE:
        raise _fail(path, f"larger than the {MAX_TEMPLATE_FILE} bytes allowed for a template file")
    return _decode(path, data), _folder_special_tokens(folder)


def _looks_like_json_object(data: bytes) -> bool:
    if not data.lstrip()[:1] == b"{":
        return False
    if _json_values(data) > MAX_CONFIG_VALUES:
        return True   # _read_json refuses it, naming the reason
    try:
        return isinstance(json.loads(data), dict)
    except (ValueError, RecursionError):
        return False  # a template that starts with "{{" or "{%"


def _load_gguf(path: str, file: "Any", size: int) -> "tuple[Found, dict[str, str]]":
    try:
        metadata = metadata_of(file, size)
    except GGUFFormatError as exc:
        raise _fail(path, f"corrupt or unsupported GGUF file: {exc}") from None
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None
    templates = metadata["templates"]
    if not templates:
        raise _fail(path, "this GGUF file has no chat template (no tokenizer.chat_template key)")
    found = templates["default"] if list(templates) == ["default"] else templates
    return found, metadata["special_tokens"]


def _template_of_config(path: str, config: "dict[str, Any]") -> "Found":
    # The chat_template of a tokenizer_config.json or chat_template.json: a str, or its list form as a dict.
    template = config.get("chat_template")
    if template is None:
        raise _fail(path, "has no chat_template")
    if isinstance(template, str):
        return template
    if isinstance(template, list):
        if len(template) > MAX_NAMED:
            raise _fail(path, f"has {len(template)} named chat templates, more than the {MAX_NAMED} allowed")
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
def _token_text(token: "Any") -> "str | None":
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


def _folder_special_tokens(folder: str, root: "str | None" = None) -> "dict[str, str]":
    # Special tokens of a folder's tokenizer_config.json, overridden by its special_tokens_map.json (the order
    # transformers applies them in). Files that are missing are skipped; broken ones are errors.
    folder = folder or "."
    root = folder_root(folder) if root is None else root
    special = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        file = os.path.join(folder, name)
        if os.path.lexists(file):
            special.update(_special_tokens_of(_read_json(file, root=root)))
    return special


# ----------------------------------------------------------------------------------------------------- folders
def _load_folder(folder: str, root: str) -> "tuple[Found, dict[str, str]]":
    # A model folder's template(s) and special tokens, every file read resolving inside root.
    special = _folder_special_tokens(folder, root)
    jinja = os.path.join(folder, "chat_template.jinja")
    extra = _additional_templates(folder, root)
    if os.path.lexists(jinja):
        source = _read_template(jinja, root)
        if extra and len(source) + sum(map(len, extra.values())) > MAX_TEMPLATE_TEXT:
            raise _fail(folder, f"holds more than the {MAX_TEMPLATE_TEXT} characters of templates allowed")
        return ({"default": source, **extra} if extra else source), special
    for name in ("chat_template.json", "tokenizer_config.json"):
        file = os.path.join(folder, name)
        if os.path.lexists(file):
            config = _read_json(file, root=root)
            if config.get("chat_template") is not None:
                return _template_of_config(file, config), special
    if extra:
        return extra, special
    raise _fail(folder, f"no chat template found (looked for {', '.join(_FOLDER_FILES)})")


def _additional_templates(folder: str, root: str) -> "dict[str, str]":
    # transformers' additional_chat_templates/<name>.jinja files: named templates beside chat_template.jinja.
    extra_dir = os.path.join(folder, "additional_chat_templates")
    if not os.path.isdir(extra_dir):
        return {}
    names = []
    try:
        with os.scandir(extra_dir) as entries:
            for count, entry in enumerate(entries):
                if count >= _MAX_LISTED:
                    raise _fail(extra_dir, f"holds more than {_MAX_LISTED} entries")
                if entry.name.endswith(".jinja"):
                    names.append(entry.name)
    except OSError as exc:
        raise _fail(extra_dir, f"cannot be listed ({exc.strerror or exc})") from None
    if len(names) > MAX_NAMED:
        raise _fail(extra_dir, f"holds {len(names)} templates, more than the {MAX_NAMED} allowed")
    named, total = {}, 0
    for entry in sorted(names):
        named[entry[:-len(".jinja")]] = text = _read_template(os.path.join(extra_dir, entry), root)
        total += len(text)
        if total > MAX_TEMPLATE_TEXT:
            raise _fail(extra_dir, f"holds more than the {MAX_TEMPLATE_TEXT} characters of templates allowed")
    return named


# --------------------------------------------------------------------------------------- the Hugging Face cache
def hub_cache_dir() -> str:
    # Where huggingface_hub keeps downloaded models: HF_HUB_CACHE, else $HF_HOME/hub, else
    # $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
    explicit = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return os.path.expanduser(explicit)
    home = os.environ.get("HF_HOME")
    if not home:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = os.path.join(cache, "huggingface")
    return os.path.join(os.path.expanduser(home), "hub")


def _hub_snapshot(model_id: str) -> "tuple[str, str]":
    # (repository folder, snapshot folder) of the refs/main revision of a model id in the local cache (no
    # network, ever). The revision must be a name in the repository's snapshots/ folder (as huggingface_hub uses
    # it), and the snapshot must resolve inside the repository folder.
    if not re.match(_MODEL_ID, model_id):
        raise _fail(model_id, "no such file or folder")
    cache = hub_cache_dir()
    repo = os.path.join(cache, "models--" + model_id.replace("/", "--"))
    if not os.path.isdir(repo):
        raise _fail(model_id, f"no such file or folder, nor a model in the local Hugging Face cache ({cache}); "
                              "download it first, e.g. `hf download " + model_id + "`")
    ref = os.path.join(repo, "refs", "main")
    try:
        data = read_regular_file(ref, _MAX_REF, "a refs file", repo)
    except FileNotFoundError:
        raise _fail(model_id, f"the cached model has no refs/main ({ref})") from None
    except OSError as exc:
        raise _refused(ref, exc) from None
    try:
        revision = data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise _fail(ref, "is not a revision (not ASCII text)") from None
    snapshots = os.path.join(repo, "snapshots")
    snapshot = os.path.join(snapshots, revision)
    if not is_entry_name(revision) or not os.path.isdir(snapshot):
        raise _fail(model_id, f"refs/main names snapshot {revision[:100]!r}, which is not in {snapshots}")
    real_repo = os.path.realpath(repo)
    if os.path.dirname(os.path.realpath(snapshot)) != os.path.join(real_repo, "snapshots"):
        raise _fail(model_id, f"the snapshot {snapshot} leads outside {repo}")
    return real_repo, snapshot


# ------------------------------------------------------------------------------------------------------ GGUF files
# Pure Python, reading only the header and the key/value section (never the tensors, which follow it and are
# most of the file). GGUF versions 2 and 3, little- and big-endian. A GGUF file is:
#
#     magic b"GGUF" | version u32 | tensor count u64 | key/value count u64 | key/values | tensor infos | tensors
#
# each key/value is `key: string, type: u32, value`, a string is `length: u64, UTF-8 bytes`, an array is
# `item type: u32, count: u64, items`. Every size is checked against what is left of the file before anything
# is read or allocated, so a corrupt or hostile file fails with a GGUFFormatError, never a MemoryError or a hang.
# A sparse file can be as long as it claims, so the counts are also held to what a real file holds: 65 536
# keys of at most 1 KiB each, 4 million string or array items in all (a vocabulary and its merges are under a
# million), 256 templates and 32 MiB of kept text. What the templates do not need is skipped without being
# decoded: scalar arrays by one seek, strings by their lengths alone (read a chunk at a time).

GGUF_MAGIC = b"GGUF"

# value type → (struct code, size) for the fixed-size scalars
_SCALARS = {0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4), 6: ("f", 4), 7: ("?", 1),
            10: ("Q", 8), 11: ("q", 8), 12: ("d", 8)}
_U32, _STRING, _ARRAY, _U64 = 4, 8, 9, 10   # (u32 and u64: the types of the format's own counts and lengths)
_MAX_ARRAY_NESTING = 8  # arrays of arrays: the format allows them, no tokenizer uses more than one level
_MAX_KEPT_STRING = 16 * 1024 * 1024  # a template or token text past this is not one: refused before reading it
_MAX_KEPT_TOTAL = 32 * 1024 * 1024   # all the templates and token texts kept from one file
_MAX_KEYS = 1 << 16                  # key/value pairs (a real file has a few dozen)
_MAX_KEY = 1024                      # bytes of one key (a real one is under 100)
_MAX_ITEMS = 1 << 22                 # string and array items walked in one file (a vocabulary is under 300 000)
_MIN_KV_BYTES = 8 + 4 + 1            # a key's length, a type, the smallest value
_CHUNK = 1 << 16

_TEMPLATE_KEY = "tokenizer.chat_template"
_TOKENS_KEY = "tokenizer.ggml.tokens"
# the special tokens llama.cpp hands to a template, by the key that holds each one's id
_TOKEN_ID_KEYS = {
    "tokenizer.ggml.bos_token_id": "bos_token",
    "tokenizer.ggml.eos_token_id": "eos_token",
    "tokenizer.ggml.unknown_token_id": "unk_token",
    "tokenizer.ggml.padding_token_id": "pad_token",
}


class GGUFFormatError(ValueError):
    """The file is not a GGUF file this reader understands, or is truncated or corrupt."""


def is_gguf(head: bytes) -> bool:
    # Do these first bytes of a file start a GGUF file?
    return head[:4] == GGUF_MAGIC


def _reader(file: "BinaryIO", size: int) -> "Any":
    # The state of sequential reads from a binary file in one byte order, which the functions below check against
    # the file's size and what one file may hold (items: string and array items walked so far; kept: characters of
    # text kept so far). A namespace: a class of its own would cost every cold start ~0.08 M instructions.
    import struct   # only GGUF files need it: not imported at start-up (a cold start's time)
    return types.SimpleNamespace(unpack=struct.unpack, file=file, size=size, order="<", items=0, kept=0,
                                 lengths={"<": struct.Struct("<Q").unpack_from, ">": struct.Struct(">Q").unpack_from})


def _left(reader: "Any") -> int:
    return reader.size - reader.file.tell()


def _take(reader: "Any", count: int, what: str) -> bytes:
    if count > _left(reader):
        raise GGUFFormatError(f"truncated: {what} needs {count} bytes at offset {reader.file.tell()}, "
                              f"{_left(reader)} left")
    return reader.file.read(count)


def _scalar(reader: "Any", kind: int, what: str) -> "Any":
    # The next value of a fixed-size type (_U32 and _U64 for the format's own counts and types).
    code, size = _SCALARS[kind]
    return reader.unpack(reader.order + code, _take(reader, size, what))[0]


def _string(reader: "Any", what: str, most: int = _MAX_KEPT_STRING, kept: bool = True) -> str:
    # The next string; `kept` strings (templates, token texts) count towards what one file may hold.
    length = _scalar(reader, _U64, f"the length of {what}")
    if length > _left(reader):
        raise GGUFFormatError(f"truncated: {what} needs {length} bytes at offset {reader.file.tell()}, "
                              f"{_left(reader)} left")
    if length > most:
        raise GGUFFormatError(f"{what} is {length} bytes long, more than the {most} this reader keeps")
    if kept:
        reader.kept += length
        if reader.kept > _MAX_KEPT_TOTAL:
            raise GGUFFormatError(f"more than {_MAX_KEPT_TOTAL} bytes of templates and token texts")
    data = reader.file.read(length)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GGUFFormatError(f"{what} is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _count_items(reader: "Any", count: int, what: str) -> None:
    # Charge count items to what one file may hold (_MAX_ITEMS), before walking them.
    reader.items += count
    if reader.items > _MAX_ITEMS:
        raise GGUFFormatError(f"{what} takes the file past {_MAX_ITEMS} string and array items, more than "
                              "a real model file holds")


def _skip_strings(reader: "Any", count: int, what: str) -> None:
    # Move past count strings by their lengths alone, reading the file a chunk at a time.
    _count_items(reader, count, what)
    file, end, length_at = reader.file, reader.size, reader.lengths[reader.order]
    position = base = file.tell()
    chunk = b""
    for number in range(count):
        offset = position - base
        if offset + 8 > len(chunk):
            file.seek(position)
            chunk, base, offset = file.read(_CHUNK), position, 0
            if len(chunk) < 8:
                raise GGUFFormatError(f"truncated: string {number + 1} of {what} at offset {position}")
        position += 8 + length_at(chunk, offset)[0]
        if position > end:
            raise GGUFFormatError(f"truncated: string {number + 1} of {what} ends past the end of the file")
    file.seek(position)


def _check_type(kind: int, key: str) -> None:
    if kind not in _SCALARS and kind not in (_STRING, _ARRAY):
        raise GGUFFormatError(f"unknown value type {kind} for key {key!r}")


def _skip_value(reader: "Any", kind: int, key: str, depth: int = 0) -> None:
    # Move past one value without keeping it.
    _check_type(kind, key)
    if kind in _SCALARS:
        size = _SCALARS[kind][1]
        _take(reader, size, f"the value of {key!r}")
    elif kind == _STRING:
        _skip_strings(reader, 1, f"the value of {key!r}")
    else:
        _skip_array(reader, key, depth)


def _skip_array(reader: "Any", key: str, depth: int) -> None:
    if depth >= _MAX_ARRAY_NESTING:
        raise GGUFFormatError(f"arrays nested more than {_MAX_ARRAY_NESTING} deep in {key!r}")
    item_kind = _scalar(reader, _U32, f"the item type of {key!r}")
    _check_type(item_kind, key)
    count = _scalar(reader, _U64, f"the length of {key!r}")
    if item_kind in _SCALARS:
        size = _SCALARS[item_kind][1] * count
        if size > _left(reader):
            raise GGUFFormatError(f"truncated: array {key!r} of {count} items needs {size} bytes, "
                                  f"{_left(reader)} left")
        reader.file.seek(size, os.SEEK_CUR)
        return
    # every string or array item takes at least 8 bytes: a count past that is corrupt, not a long loop
    if count * 8 > _left(reader):
        raise GGUFFormatError(f"truncated: array {key!r} claims {count} items, the file is too short")
    if item_kind == _STRING:
        _skip_strings(reader, count, f"array {key!r}")
        return
    _count_items(reader, count, f"array {key!r}")
    for _ in range(count):
        _skip_array(reader, key, depth + 1)


def _read_header(reader: "Any") -> "tuple[int, int]":
    magic = _take(reader, 4, "the magic number")
    if not is_gguf(magic):
        raise GGUFFormatError(f"not a GGUF file (starts with {magic!r}, not b'GGUF')")
    raw_version = _take(reader, 4, "the version")
    version = reader.unpack("<I", raw_version)[0]
    if version & 0xFFFF == 0 and version != 0:  # written big-endian: the version's low bytes are zero
        reader.order = ">"
        version = reader.unpack(">I", raw_version)[0]
    if version not in (2, 3):
        raise GGUFFormatError(f"GGUF version {version} is not supported (versions 2 and 3 are)")
    _scalar(reader, _U64, "the tensor count")
    count = _scalar(reader, _U64, "the key/value count")
    if count > _MAX_KEYS:
        raise GGUFFormatError(f"{count} key/value pairs, more than the {_MAX_KEYS} a real model file holds")
    if count * _MIN_KV_BYTES > _left(reader):
        raise GGUFFormatError(f"truncated: {count} key/value pairs claimed, the file is too short")
    return version, count


def read_chat_metadata(path: str) -> "dict[str, Any]":
    # {"templates": {name: source}, "special_tokens": {bos_token: text, ...}, "version": 2 or 3} from a GGUF file.
    # The unnamed template `tokenizer.chat_template` is under the name "default", each `tokenizer.chat_template.<name>`
    # under its name. Special tokens are the texts that tokenizer.ggml.tokens holds at the ids of the bos, eos, unk
    # and pad keys, as llama.cpp hands them to a template. Raises OSError when the file cannot be read or is not a
    # regular file and GGUFFormatError when it is not a (supported, intact) GGUF file.
    fd, status = open_regular_file(path)
    with os.fdopen(fd, "rb") as file:
        return metadata_of(file, status.st_size)


def metadata_of(file: "BinaryIO", size: int) -> "dict[str, Any]":
    # read_chat_metadata of a GGUF file open for binary reads (from its start), `size` bytes long.
    file.seek(0)
    reader = _reader(file, size)
    version, kv_count = _read_header(reader)
    templates: "dict[str, str]" = {}
    token_ids: "dict[str, int]" = {}
    tokens_at = None
    for index in range(kv_count):
        key = _string(reader, f"key number {index + 1}", _MAX_KEY, kept=False)
        kind = _scalar(reader, _U32, f"the type of {key!r}")
        if key == _TEMPLATE_KEY or key.startswith(_TEMPLATE_KEY + "."):
            if kind != _STRING:
                raise GGUFFormatError(f"{key!r} is not a string (type {kind})")
            if len(templates) >= MAX_NAMED:
                raise GGUFFormatError(f"more than {MAX_NAMED} chat templates")
            templates[key[len(_TEMPLATE_KEY) + 1:] or "default"] = _string(reader, f"the value of {key!r}")
        elif key in _TOKEN_ID_KEYS and kind in _SCALARS and kind not in (6, 7, 12):
            token_ids[_TOKEN_ID_KEYS[key]] = _scalar(reader, kind, f"the value of {key!r}")
        elif key == _TOKENS_KEY and kind == _ARRAY:
            tokens_at = file.tell()
            _skip_value(reader, kind, key)
        else:
            _skip_value(reader, kind, key)
    special = _token_texts(reader, tokens_at, token_ids) if tokens_at is not None else {}
    return {"templates": templates, "special_tokens": special, "version": version}


def _token_texts(reader: "Any", tokens_at: int, token_ids: "dict[str, int]") -> "dict[str, str]":
    # The texts of the tokens at these ids, read from the tokens array at file offset tokens_at.
    reader.file.seek(tokens_at)
    if _scalar(reader, _U32, f"the item type of {_TOKENS_KEY!r}") != _STRING:
        return {}
    count = _scalar(reader, _U64, f"the length of {_TOKENS_KEY!r}")
    wanted: "dict[int, list[str]]" = {}
    for name, token_id in token_ids.items():
        if 0 <= token_id < count:
            wanted.setdefault(token_id, []).append(name)
    texts: "dict[str, str]" = {}
    at = 0
    for token_id in sorted(wanted):   # the tokens before each wanted one skipped by their lengths alone
        _skip_strings(reader, token_id - at, repr(_TOKENS_KEY))
        text = _string(reader, f"token {token_id}")
        at = token_id + 1
        for name in wanted[token_id]:
            texts[name] = text
    return {name: texts[name] for name in _TOKEN_ID_KEYS.values() if name in texts}
