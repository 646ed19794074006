"""A minimal GGUF writer for the tests: header and key/value section (plus fake tensor bytes after them), in
either byte order, version 2 or 3. Written from the format's description; only what the loader tests need."""

import struct

_CODES = {"u8": (0, "B"), "i8": (1, "b"), "u16": (2, "H"), "i16": (3, "h"), "u32": (4, "I"), "i32": (5, "i"),
          "f32": (6, "f"), "bool": (7, "?"), "u64": (10, "Q"), "i64": (11, "q"), "f64": (12, "d")}
_STRING, _ARRAY = 8, 9


def _string(order, text):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return struct.pack(order + "Q", len(data)) + data


def _value(order, kind, value):
    """(type id, bytes) of a value: kind is "str", one of _CODES, or ("array", item kind)."""
    if kind == "str":
        return _STRING, _string(order, value)
    if isinstance(kind, tuple):
        item_kind = kind[1]
        item_type = _STRING if item_kind == "str" else _CODES[item_kind][0]
        body = b"".join(_value(order, item_kind, item)[1] for item in value)
        return _ARRAY, struct.pack(order + "IQ", item_type, len(value)) + body
    type_id, code = _CODES[kind]
    return type_id, struct.pack(order + code, value)


def gguf_bytes(entries, version=3, big_endian=False, tensor_count=0, tensor_bytes=b"\0" * 64):
    """entries: [(key, kind, value)] → the bytes of a GGUF file holding them."""
    order = ">" if big_endian else "<"
    out = [b"GGUF", struct.pack(order + "IQQ", version, tensor_count, len(entries))]
    for key, kind, value in entries:
        type_id, data = _value(order, kind, value)
        out.append(_string(order, key) + struct.pack(order + "I", type_id) + data)
    out.append(tensor_bytes)
    return b"".join(out)


def llama_like_entries(template, named=None, tokens=None):
    """The keys a llama.cpp conversion writes that the loader reads, with some it must skip around."""
    tokens = tokens or ["<unk>", "<s>", "</s>", "<pad>", "hello", "world"]
    entries = [
        ("general.architecture", "str", "llama"),
        ("general.name", "str", "test model"),
        ("llama.context_length", "u32", 4096),
        ("llama.rope.freq_base", "f32", 10000.0),
        ("general.file_type", "u32", 1),
        ("tokenizer.ggml.model", "str", "llama"),
        ("tokenizer.ggml.tokens", ("array", "str"), tokens),
        ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * len(tokens)),
        ("tokenizer.ggml.token_type", ("array", "i32"), [1] * len(tokens)),
        ("tokenizer.ggml.bos_token_id", "u32", 1),
        ("tokenizer.ggml.eos_token_id", "u32", 2),
        ("tokenizer.ggml.unknown_token_id", "u32", 0),
        ("tokenizer.ggml.padding_token_id", "u32", 3),
        ("tokenizer.ggml.add_bos_token", "bool", True),
        ("tokenizer.chat_template", "str", template),
    ]
    for name, source in (named or {}).items():
        entries.append((f"tokenizer.chat_template.{name}", "str", source))
    entries.append(("general.quantization_version", "u32", 2))
    return entries
