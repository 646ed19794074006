"""Loading model files from hostile folders and caches: the hub cache's revision is a snapshot entry, a model
folder's files stay inside it, only regular files are read and never past their caps, GGUF counts are held to
what a real file holds. (test_surfaces.py runs these attacks and more in capped child processes.)"""

import json
import os
import struct
import time

import pytest

import minijinja_py as mj
from minijinja_py.chat import loading
from gguf_writer import gguf_bytes, llama_like_entries
from hostile_surface_scenes import sparse, write

SECRET = "SECRET-OUTSIDE-THE-MODEL"
TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}"
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _load_fails(path, *needles):
    with pytest.raises(mj.TemplateLoadError) as info:
        mj.load_chat_template(path)
    text = str(info.value)
    assert SECRET not in text
    for needle in needles:
        assert needle in text, text
    return info.value


# ------------------------------------------------------------------------------------------------ the hub cache
@pytest.fixture
def hub(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    repo = cache / "models--acme--chat"
    write(repo / "blobs" / "abc", json.dumps({"chat_template": TEMPLATE, "bos_token": "<s>"}))
    os.makedirs(repo / "snapshots" / "c0ffee")
    os.symlink("../../blobs/abc", repo / "snapshots" / "c0ffee" / "tokenizer_config.json")
    write(repo / "refs" / "main", "c0ffee\n")
    write(tmp_path / "outside" / "tokenizer_config.json", json.dumps({"chat_template": SECRET}))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    return repo


def test_a_cached_model_with_blob_links_loads(hub):
    assert mj.load_chat_template("acme/chat") == (TEMPLATE, {"bos_token": "<s>"})
    # the snapshot folder given as a path: its files link to ../../blobs, inside the repository folder
    assert mj.load_chat_template(str(hub / "snapshots" / "c0ffee"))[0] == TEMPLATE


@pytest.mark.parametrize("ref", ["../../../outside", "../../..", "PLACEHOLDER", "c0ffee/../../..", "", ".",
                                 "..", "nope"])
def test_refs_main_must_name_a_snapshot_entry(hub, tmp_path, ref):
    ref = ref.replace("PLACEHOLDER", str(tmp_path / "outside"))
    write(hub / "refs" / "main", ref)
    _load_fails("acme/chat", "refs/main names snapshot")


def test_a_snapshot_that_links_out_is_refused(hub, tmp_path):
    os.symlink(str(tmp_path / "outside"), hub / "snapshots" / "evil")
    write(hub / "refs" / "main", "evil")
    _load_fails("acme/chat", "leads outside")


def test_a_file_of_a_snapshot_that_links_out_is_refused(hub, tmp_path):
    os.remove(hub / "snapshots" / "c0ffee" / "tokenizer_config.json")
    os.symlink(str(tmp_path / "outside" / "tokenizer_config.json"),
               hub / "snapshots" / "c0ffee" / "tokenizer_config.json")
    _load_fails("acme/chat", "leads outside")


def test_a_refs_file_that_is_not_a_revision(hub):
    write(hub / "refs" / "main", b"\xff\xfe")
    _load_fails("acme/chat", "refs", "not ASCII")
    sparse(hub / "refs" / "main", 1 << 30)
    _load_fails("acme/chat", "larger than the 1024 bytes allowed for a refs file")


@posix_only
def test_a_refs_fifo_does_not_block(hub):
    os.remove(hub / "refs" / "main")
    os.mkfifo(hub / "refs" / "main")
    _load_fails("acme/chat", "not a regular file (a FIFO)")


# ----------------------------------------------------------------------------------------------- model folders
def test_a_model_folder_file_that_links_out_is_refused(tmp_path):
    folder = tmp_path / "model"
    os.makedirs(folder / "additional_chat_templates")
    secret = write(tmp_path / "secret.jinja", SECRET)
    os.symlink(secret, folder / "chat_template.jinja")
    _load_fails(str(folder), "leads outside")
    os.remove(folder / "chat_template.jinja")
    write(folder / "chat_template.jinja", TEMPLATE)
    os.symlink(secret, folder / "additional_chat_templates" / "x.jinja")
    _load_fails(str(folder), "x.jinja", "leads outside")
    os.remove(folder / "additional_chat_templates" / "x.jinja")
    os.symlink(write(tmp_path / "map.json", json.dumps({"bos_token": SECRET})), folder / "special_tokens_map.json")
    _load_fails(str(folder), "special_tokens_map.json", "leads outside")


@posix_only
@pytest.mark.parametrize("name", ["chat_template.jinja", "additional_chat_templates/x.jinja", "tokenizer_config.json",
                                  "special_tokens_map.json", "chat_template.json"])
def test_a_fifo_in_a_model_folder_is_refused(tmp_path, name):
    folder = tmp_path / "model"
    os.makedirs(folder / "additional_chat_templates")
    os.mkfifo(folder / name)
    _load_fails(str(folder), name, "not a regular file (a FIFO)")


@posix_only
def test_a_fifo_or_device_as_the_model_path(tmp_path):
    os.mkfifo(tmp_path / "m.gguf")
    _load_fails(str(tmp_path / "m.gguf"), "not a regular file (a FIFO)")
    if os.path.exists("/dev/zero"):
        _load_fails("/dev/zero", "not a regular file (a character device)")


def test_files_past_their_caps_are_refused_before_reading(tmp_path):
    started = time.process_time()
    _load_fails(sparse(tmp_path / "big.jinja", 255 << 20), "larger than the 16777216 bytes allowed")
    _load_fails(sparse(tmp_path / "big.json", 255 << 20, b"{"), "larger than the 33554432 bytes allowed")
    _load_fails(sparse(tmp_path / "big", 255 << 20, b"{{ x }}"), "larger than")
    assert time.process_time() - started < 1


def test_json_that_would_inflate_is_refused_before_parsing(tmp_path):
    path = write(tmp_path / "tokenizer_config.json", b"[" + b"[]," * 3_000_000 + b"[]]")
    _load_fails(path, "more than the 3000000 JSON values allowed")
    path = write(tmp_path / "other", b'{"a": [' + b'"ab",' * 3_000_000 + b'"ab"]}')
    _load_fails(path, "more than the 3000000 JSON values allowed")


def test_named_templates_are_capped(tmp_path):
    many = [{"name": f"t{i}", "template": "x"} for i in range(loading.MAX_NAMED + 1)]
    _load_fails(write(tmp_path / "a" / "tokenizer_config.json", json.dumps({"chat_template": many})),
                "named chat templates, more than the 256 allowed")
    folder = tmp_path / "b"
    for i in range(loading.MAX_NAMED + 1):
        write(folder / "additional_chat_templates" / f"t{i}.jinja", "x")
    _load_fails(str(folder), "templates, more than the 256 allowed")


def test_a_model_with_many_large_named_templates_compiles_only_what_it_uses(tmp_path):
    body = "{% if messages %}{{ messages[0].content }}{% endif %}" * 4000
    named = [{"name": "default", "template": "D{{ messages[0].content }}"}] + \
        [{"name": f"t{i}", "template": body + f"{i}"} for i in range(30)]
    path = write(tmp_path / "tokenizer_config.json", json.dumps({"chat_template": named}))
    started = time.process_time()
    ct = mj.ChatTemplate.from_pretrained(path)
    assert ct.render([{"role": "user", "content": "hi"}]) == "Dhi"
    assert time.process_time() - started < 1
    assert len(ct.template_names) == 31
    assert ct.render([{"role": "user", "content": "hi"}], chat_template="t7").endswith("hi7")


def test_a_nul_in_the_path(tmp_path):
    _load_fails(str(tmp_path / "a\0b"))


# ------------------------------------------------------------------------------------------------------- GGUF
def _header(kv_count, order="<"):
    return b"GGUF" + struct.pack(order + "IQQ", 3, 0, kv_count)


def _string(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def test_gguf_counts_are_held_to_what_a_real_file_holds(tmp_path):
    started = time.process_time()
    _load_fails(sparse(tmp_path / "kv.gguf", 1 << 32, _header(1 << 63)), "key/value pairs, more than the 65536")
    # a token array of 2**28 empty strings (zeros of a sparse file), and the bos token asked at its end
    tokens = _string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1 << 28)
    bos = _string("tokenizer.ggml.bos_token_id") + struct.pack("<II", 4, (1 << 28) - 1)
    body = _header(2) + bos + tokens
    _load_fails(sparse(tmp_path / "tok.gguf", len(body) + (8 << 28), body), "4194304 string and array items")
    merges = _header(1) + _string("tokenizer.ggml.merges") + struct.pack("<IIQ", 9, 8, 1 << 28)
    _load_fails(sparse(tmp_path / "merges.gguf", len(merges) + (8 << 28), merges), "4194304 string and array items")
    nested = _header(1) + _string("x") + struct.pack("<IIQ", 9, 9, 1 << 27)
    _load_fails(sparse(tmp_path / "nested.gguf", len(nested) + (12 << 27), nested), "4194304 string and array items")
    assert time.process_time() - started < 2


def test_gguf_keys_and_templates_are_capped(tmp_path):
    long_key = _header(1) + _string("k" * 5000) + struct.pack("<I", 4) + b"\0" * 4
    _load_fails(write(tmp_path / "key.gguf", long_key), "more than the 1024 this reader keeps")
    entries = [(f"tokenizer.chat_template.t{i}", "str", "x") for i in range(300)]
    _load_fails(write(tmp_path / "many.gguf", gguf_bytes(entries)), "more than 256 chat templates")
    big = "x" * (12 << 20)
    entries = [(f"tokenizer.chat_template.t{i}", "str", big) for i in range(3)]
    _load_fails(write(tmp_path / "big.gguf", gguf_bytes(entries)), "bytes of templates and token texts")


def test_a_real_sized_vocabulary_is_quick(tmp_path):
    tokens = [f"tok{i}" for i in range(150_000)]
    entries = llama_like_entries(TEMPLATE, tokens=tokens)
    entries.insert(7, ("tokenizer.ggml.merges", ("array", "str"), [f"a{i} b{i}" for i in range(300_000)]))
    entries = [e if e[0] != "tokenizer.ggml.eos_token_id" else (e[0], "u32", 149_999) for e in entries]
    path = write(tmp_path / "real.gguf", gguf_bytes(entries))
    started = time.process_time()
    metadata = loading.read_chat_metadata(path)
    assert time.process_time() - started < 1
    assert metadata["special_tokens"]["eos_token"] == "tok149999" and metadata["templates"] == {"default": TEMPLATE}
