"""GGUF: a model file → the metadata a chat template needs (its templates, the text of its special tokens)."""

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

import os

from ..core.files import open_regular_file

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, BinaryIO

__all__ = ["GGUF_MAGIC", "GGUFFormatError", "is_gguf", "read_chat_metadata", "metadata_of"]

GGUF_MAGIC = b"GGUF"

# value type → (struct code, size) for the fixed-size scalars
_SCALARS = {
    0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4), 6: ("f", 4), 7: ("?", 1),
    10: ("Q", 8), 11: ("q", 8), 12: ("d", 8),
}
_STRING, _ARRAY = 8, 9
_MAX_ARRAY_NESTING = 8  # arrays of arrays: the format allows them, no tokenizer uses more than one level
_MAX_KEPT_STRING = 16 * 1024 * 1024  # a template or token text past this is not one: refused before reading it
_MAX_KEPT_TOTAL = 32 * 1024 * 1024   # all the templates and token texts kept from one file
_MAX_KEYS = 1 << 16                  # key/value pairs (a real file has a few dozen)
_MAX_KEY = 1024                      # bytes of one key (a real one is under 100)
_MAX_ITEMS = 1 << 22                 # string and array items walked in one file (a vocabulary is under 300 000)
_MAX_TEMPLATES = 256
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


class _Reader:
    # Sequential reads from a binary file in one byte order, each checked against the file's size and against
    # what one file may hold (the items walked, the text kept).

    def __init__(self, file: "BinaryIO", size: int) -> None:
        import struct   # only GGUF files need it: not imported at start-up (a cold start's time)
        self.unpack = struct.unpack
        self.lengths = {"<": struct.Struct("<Q").unpack_from, ">": struct.Struct(">Q").unpack_from}
        self.file = file
        self.size = size
        self.order = "<"
        self.items = 0   # string and array items walked so far
        self.kept = 0    # characters of text kept so far

    def left(self) -> int:
        return self.size - self.file.tell()

    def take(self, count: int, what: str) -> bytes:
        if count > self.left():
            raise GGUFFormatError(f"truncated: {what} needs {count} bytes at offset {self.file.tell()}, "
                                  f"{self.left()} left")
        return self.file.read(count)

    def scalar(self, kind: int, what: str) -> "Any":
        code, size = _SCALARS[kind]
        return self.unpack(self.order + code, self.take(size, what))[0]

    def u32(self, what: str) -> int:
        return int(self.scalar(4, what))

    def u64(self, what: str) -> int:
        return int(self.scalar(10, what))

    def string(self, what: str, most: int = _MAX_KEPT_STRING, kept: bool = True) -> str:
        # The next string; `kept` strings (templates, token texts) count towards what one file may hold.
        length = self.u64(f"the length of {what}")
        if length > self.left():
            raise GGUFFormatError(f"truncated: {what} needs {length} bytes at offset {self.file.tell()}, "
                                  f"{self.left()} left")
        if length > most:
            raise GGUFFormatError(f"{what} is {length} bytes long, more than the {most} this reader keeps")
        if kept:
            self.kept += length
            if self.kept > _MAX_KEPT_TOTAL:
                raise GGUFFormatError(f"more than {_MAX_KEPT_TOTAL} bytes of templates and token texts")
        data = self.file.read(length)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GGUFFormatError(f"{what} is not UTF-8 ({exc.reason} at byte {exc.start})") from None

    def count_items(self, count: int, what: str) -> None:
        # Charge count items to what one file may hold (_MAX_ITEMS), before walking them.
        self.items += count
        if self.items > _MAX_ITEMS:
            raise GGUFFormatError(f"{what} takes the file past {_MAX_ITEMS} string and array items, more than "
                                  "a real model file holds")

    def skip_strings(self, count: int, what: str) -> None:
        # Move past count strings by their lengths alone, reading the file a chunk at a time.
        self.count_items(count, what)
        file, end, length_at = self.file, self.size, self.lengths[self.order]
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


def _skip_value(reader: "_Reader", kind: int, key: str, depth: int = 0) -> None:
    # Move past one value without keeping it.
    _check_type(kind, key)
    if kind in _SCALARS:
        size = _SCALARS[kind][1]
        reader.take(size, f"the value of {key!r}")
    elif kind == _STRING:
        reader.skip_strings(1, f"the value of {key!r}")
    else:
        _skip_array(reader, key, depth)


def _skip_array(reader: "_Reader", key: str, depth: int) -> None:
    if depth >= _MAX_ARRAY_NESTING:
        raise GGUFFormatError(f"arrays nested more than {_MAX_ARRAY_NESTING} deep in {key!r}")
    item_kind = reader.u32(f"the item type of {key!r}")
    _check_type(item_kind, key)
    count = reader.u64(f"the length of {key!r}")
    if item_kind in _SCALARS:
        size = _SCALARS[item_kind][1] * count
        if size > reader.left():
            raise GGUFFormatError(f"truncated: array {key!r} of {count} items needs {size} bytes, "
                                  f"{reader.left()} left")
        reader.file.seek(size, os.SEEK_CUR)
        return
    # every string or array item takes at least 8 bytes: a count past that is corrupt, not a long loop
    if count * 8 > reader.left():
        raise GGUFFormatError(f"truncated: array {key!r} claims {count} items, the file is too short")
    if item_kind == _STRING:
        reader.skip_strings(count, f"array {key!r}")
        return
    reader.count_items(count, f"array {key!r}")
    for _ in range(count):
        _skip_array(reader, key, depth + 1)


def _read_header(reader: "_Reader") -> "tuple[int, int]":
    magic = reader.take(4, "the magic number")
    if not is_gguf(magic):
        raise GGUFFormatError(f"not a GGUF file (starts with {magic!r}, not b'GGUF')")
    raw_version = reader.take(4, "the version")
    version = reader.unpack("<I", raw_version)[0]
    if version & 0xFFFF == 0 and version != 0:  # written big-endian: the version's low bytes are zero
        reader.order = ">"
        version = reader.unpack(">I", raw_version)[0]
    if version not in (2, 3):
        raise GGUFFormatError(f"GGUF version {version} is not supported (versions 2 and 3 are)")
    reader.u64("the tensor count")
    count = reader.u64("the key/value count")
    if count > _MAX_KEYS:
        raise GGUFFormatError(f"{count} key/value pairs, more than the {_MAX_KEYS} a real model file holds")
    if count * _MIN_KV_BYTES > reader.left():
        raise GGUFFormatError(f"truncated: {count} key/value pairs claimed, the file is too short")
    return version, count


def read_chat_metadata(path: str) -> "dict[str, Any]":
    # {"templates": {name: source}, "special_tokens": {bos_token: text, ...}, "version": 2 or 3} from a GGUF file.
    #
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
    reader = _Reader(file, size)
    version, kv_count = _read_header(reader)
    templates: "dict[str, str]" = {}
    token_ids: "dict[str, int]" = {}
    tokens_at = None
    for index in range(kv_count):
        key = reader.string(f"key number {index + 1}", _MAX_KEY, kept=False)
        kind = reader.u32(f"the type of {key!r}")
        if key == _TEMPLATE_KEY or key.startswith(_TEMPLATE_KEY + "."):
            if kind != _STRING:
                raise GGUFFormatError(f"{key!r} is not a string (type {kind})")
            if len(templates) >= _MAX_TEMPLATES:
                raise GGUFFormatError(f"more than {_MAX_TEMPLATES} chat templates")
            templates[key[len(_TEMPLATE_KEY) + 1:] or "default"] = reader.string(f"the value of {key!r}")
        elif key in _TOKEN_ID_KEYS and kind in _SCALARS and kind not in (6, 7, 12):
            token_ids[_TOKEN_ID_KEYS[key]] = reader.scalar(kind, f"the value of {key!r}")
        elif key == _TOKENS_KEY and kind == _ARRAY:
            tokens_at = file.tell()
            _skip_value(reader, kind, key)
        else:
            _skip_value(reader, kind, key)
    special = _token_texts(reader, tokens_at, token_ids) if tokens_at is not None else {}
    return {"templates": templates, "special_tokens": special, "version": version}


def _token_texts(reader: "_Reader", tokens_at: int, token_ids: "dict[str, int]") -> "dict[str, str]":
    # The texts of the tokens at these ids, read from the tokens array at file offset tokens_at.
    reader.file.seek(tokens_at)
    if reader.u32(f"the item type of {_TOKENS_KEY!r}") != _STRING:
        return {}
    count = reader.u64(f"the length of {_TOKENS_KEY!r}")
    wanted: "dict[int, list[str]]" = {}
    for name, token_id in token_ids.items():
        if 0 <= token_id < count:
            wanted.setdefault(token_id, []).append(name)
    texts: "dict[str, str]" = {}
    at = 0
    for token_id in sorted(wanted):   # the tokens before each wanted one skipped by their lengths alone
        reader.skip_strings(token_id - at, repr(_TOKENS_KEY))
        text = reader.string(f"token {token_id}")
        at = token_id + 1
        for name in wanted[token_id]:
            texts[name] = text
    return {name: texts[name] for name in _TOKEN_ID_KEYS.values() if name in texts}
