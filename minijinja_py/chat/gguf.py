"""GGUF: a model file → the metadata a chat template needs (its templates, the text of its special tokens).

Pure Python, reading only the header and the key/value section (never the tensors, which follow it and are
most of the file). GGUF versions 2 and 3, little- and big-endian. A GGUF file is:

    magic b"GGUF" | version u32 | tensor count u64 | key/value count u64 | key/values | tensor infos | tensors

each key/value is `key: string, type: u32, value`, a string is `length: u64, UTF-8 bytes`, an array is
`item type: u32, count: u64, items`. Every size is checked against what is left of the file before anything
is read or allocated, so a corrupt or hostile file fails with a GGUFFormatError, never a MemoryError or a hang.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations stay strings (PEP 563)
    from typing import Any, BinaryIO

__all__ = ["GGUF_MAGIC", "GGUFFormatError", "is_gguf", "read_chat_metadata"]

GGUF_MAGIC = b"GGUF"

# value type → (struct code, size) for the fixed-size scalars
_SCALARS = {
    0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4), 6: ("f", 4), 7: ("?", 1),
    10: ("Q", 8), 11: ("q", 8), 12: ("d", 8),
}
_STRING, _ARRAY = 8, 9
_MAX_ARRAY_NESTING = 8  # arrays of arrays: the format allows them, no tokenizer uses more than one level
_MAX_KEPT_STRING = 16 * 1024 * 1024  # a template or token text past this is not one: refused before reading it

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
    """Do these first bytes of a file start a GGUF file?"""
    return head[:4] == GGUF_MAGIC


class _Reader:
    """Sequential reads from a binary file in one byte order, each checked against the file's size."""

    def __init__(self, file: BinaryIO, size: int) -> None:
        import struct   # only GGUF files need it: not imported at start-up (a cold start's time)
        self.unpack = struct.unpack
        self.file = file
        self.size = size
        self.order = "<"

    def left(self) -> int:
        return self.size - self.file.tell()

    def take(self, count: int, what: str) -> bytes:
        if count > self.left():
            raise GGUFFormatError(f"truncated: {what} needs {count} bytes at offset {self.file.tell()}, "
                                  f"{self.left()} left")
        return self.file.read(count)

    def scalar(self, kind: int, what: str) -> Any:
        code, size = _SCALARS[kind]
        return self.unpack(self.order + code, self.take(size, what))[0]

    def u32(self, what: str) -> int:
        return int(self.scalar(4, what))

    def u64(self, what: str) -> int:
        return int(self.scalar(10, what))

    def string(self, what: str) -> str:
        length = self.u64(f"the length of {what}")
        if _MAX_KEPT_STRING < length <= self.left():
            raise GGUFFormatError(f"{what} is {length} bytes long, more than the {_MAX_KEPT_STRING} this reader keeps")
        data = self.take(length, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GGUFFormatError(f"{what} is not UTF-8 ({exc.reason} at byte {exc.start})") from None

    def skip_string(self, what: str) -> None:
        length = self.u64(f"the length of {what}")
        if length > self.left():
            raise GGUFFormatError(f"truncated: {what} of {length} bytes at offset {self.file.tell()}, "
                                  f"{self.left()} left")
        self.file.seek(length, os.SEEK_CUR)


def _check_type(kind: int, key: str) -> None:
    if kind not in _SCALARS and kind not in (_STRING, _ARRAY):
        raise GGUFFormatError(f"unknown value type {kind} for key {key!r}")


def _skip_value(reader: _Reader, kind: int, key: str, depth: int = 0) -> None:
    """Move past one value without keeping it."""
    _check_type(kind, key)
    if kind in _SCALARS:
        size = _SCALARS[kind][1]
        reader.take(size, f"the value of {key!r}")
    elif kind == _STRING:
        reader.skip_string(f"the value of {key!r}")
    else:
        _skip_array(reader, key, depth)


def _skip_array(reader: _Reader, key: str, depth: int) -> None:
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
    for _ in range(count):
        _skip_value(reader, item_kind, key, depth + 1)


def _read_header(reader: _Reader) -> "tuple[int, int]":
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
    return version, reader.u64("the key/value count")


def read_chat_metadata(path: str) -> "dict[str, Any]":
    """{"templates": {name: source}, "special_tokens": {bos_token: text, ...}, "version": 2 or 3} from a GGUF file.

    The unnamed template `tokenizer.chat_template` is under the name "default", each `tokenizer.chat_template.<name>`
    under its name. Special tokens are the texts that tokenizer.ggml.tokens holds at the ids of the bos, eos, unk
    and pad keys, as llama.cpp hands them to a template. Raises OSError when the file cannot be read and
    GGUFFormatError when it is not a (supported, intact) GGUF file.
    """
    with open(path, "rb") as file:
        reader = _Reader(file, os.fstat(file.fileno()).st_size)
        version, kv_count = _read_header(reader)
        templates: "dict[str, str]" = {}
        token_ids: "dict[str, int]" = {}
        tokens_at = None
        for index in range(kv_count):
            key = reader.string(f"key number {index + 1}")
            kind = reader.u32(f"the type of {key!r}")
            if key == _TEMPLATE_KEY or key.startswith(_TEMPLATE_KEY + "."):
                if kind != _STRING:
                    raise GGUFFormatError(f"{key!r} is not a string (type {kind})")
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


def _token_texts(reader: _Reader, tokens_at: int, token_ids: "dict[str, int]") -> "dict[str, str]":
    """The texts of the tokens at these ids, read from the tokens array at file offset tokens_at."""
    reader.file.seek(tokens_at)
    if reader.u32(f"the item type of {_TOKENS_KEY!r}") != _STRING:
        return {}
    count = reader.u64(f"the length of {_TOKENS_KEY!r}")
    wanted: "dict[int, list[str]]" = {}
    for name, token_id in token_ids.items():
        if 0 <= token_id < count:
            wanted.setdefault(token_id, []).append(name)
    texts: "dict[str, str]" = {}
    last = max(wanted, default=-1)
    for token_id in range(last + 1):
        if token_id in wanted:
            text = reader.string(f"token {token_id}")
            for name in wanted[token_id]:
                texts[name] = text
        else:
            reader.skip_string(f"token {token_id}")
    return {name: texts[name] for name in _TOKEN_ID_KEYS.values() if name in texts}
