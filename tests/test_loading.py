"""Loading chat templates from every file form: each gives the same prompt; broken files give a TemplateLoadError
that names the file and the problem."""

import json
import os

import pytest

import minijinja_py as mj
from gguf_writer import gguf_bytes, llama_like_entries

TEMPLATE = ("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
TOOL_TEMPLATE = "{{ bos_token }}TOOLS:{{ tools | map(attribute='function.name') | join(',') }}|{{ messages[-1].content }}"
MESSAGES = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
SPECIAL = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
EXPECTED = "<s><|user|>Hi</s><|assistant|>Hello</s><|assistant|>"


def added_token(text):
    return {"__type": "AddedToken", "content": text, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": True}


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(path, mode, **({} if isinstance(content, bytes) else {"encoding": "utf-8", "newline": ""})) as f:
        f.write(content)
    return str(path)


def tokenizer_config(chat_template, tokens_as_dicts=False):
    tokens = {k: (added_token(v) if tokens_as_dicts else v) for k, v in SPECIAL.items()}
    return json.dumps({"model_max_length": 4096, "tokenizer_class": "LlamaTokenizer", **tokens,
                       "chat_template": chat_template})


def render(path, name=None):
    return mj.ChatTemplate.from_pretrained(path, name=name).render(MESSAGES, add_generation_prompt=True)


# ---------------------------------------------------------------------------------------------- the file forms
def forms(tmp_path):
    """Every way to store TEMPLATE with the special tokens: name → path."""
    named_list = [{"name": "default", "template": TEMPLATE}, {"name": "tool_use", "template": TOOL_TEMPLATE}]
    paths = {
        "tokenizer_config string": write(tmp_path / "a" / "tokenizer_config.json", tokenizer_config(TEMPLATE)),
        "tokenizer_config AddedToken": write(tmp_path / "b" / "tokenizer_config.json",
                                             tokenizer_config(TEMPLATE, tokens_as_dicts=True)),
        "tokenizer_config named list": write(tmp_path / "c" / "tokenizer_config.json", tokenizer_config(named_list)),
        "GGUF v3": write(tmp_path / "m3.gguf", gguf_bytes(llama_like_entries(TEMPLATE), version=3)),
        "GGUF v2": write(tmp_path / "m2.gguf", gguf_bytes(llama_like_entries(TEMPLATE), version=2)),
        "GGUF v3 big-endian": write(tmp_path / "be.gguf",
                                    gguf_bytes(llama_like_entries(TEMPLATE), version=3, big_endian=True)),
        "GGUF without extension": write(tmp_path / "model-q4", gguf_bytes(llama_like_entries(TEMPLATE))),
    }
    # chat_template.json beside a special_tokens_map.json; the folder forms
    folder = tmp_path / "d"
    write(folder / "chat_template.json", json.dumps({"chat_template": TEMPLATE}))
    write(folder / "special_tokens_map.json", json.dumps({k: added_token(v) for k, v in SPECIAL.items()}))
    paths["chat_template.json"] = str(folder / "chat_template.json")
    paths["folder with chat_template.json"] = str(folder)
    jinja_folder = tmp_path / "e"
    write(jinja_folder / "chat_template.jinja", TEMPLATE)
    write(jinja_folder / "tokenizer_config.json", tokenizer_config("ignored: chat_template.jinja comes first"))
    paths["folder with chat_template.jinja"] = str(jinja_folder)
    paths["folder with tokenizer_config.json"] = str(tmp_path / "a")
    paths[".jinja file in a model folder"] = str(jinja_folder / "chat_template.jinja")
    return paths


def test_every_form_gives_the_same_prompt(tmp_path):
    paths = forms(tmp_path)
    prompts = {form: render(path) for form, path in paths.items()}
    assert prompts == {form: EXPECTED for form in paths}


def test_the_special_tokens_of_the_file_itself_are_read(tmp_path):
    path = write(tmp_path / "tokenizer_config.json", tokenizer_config(TEMPLATE))
    source, special = mj.load_chat_template(path)
    assert source == TEMPLATE and special == SPECIAL


def test_a_model_id_in_the_local_hub_cache(tmp_path, monkeypatch):
    repo = tmp_path / "hub" / "models--acme--tiny-chat"
    write(repo / "refs" / "main", "0123abcd")
    write(repo / "snapshots" / "0123abcd" / "tokenizer_config.json", tokenizer_config(TEMPLATE))
    write(repo / "snapshots" / "old" / "tokenizer_config.json", tokenizer_config("old snapshot"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert render("acme/tiny-chat") == EXPECTED
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert render("acme/tiny-chat") == EXPECTED
    with pytest.raises(mj.TemplateLoadError, match="acme/other.*local Hugging Face cache"):
        mj.load_chat_template("acme/other")


def test_named_templates_tool_use_with_tools_default_without(tmp_path):
    named = [{"name": "default", "template": TEMPLATE}, {"name": "tool_use", "template": TOOL_TEMPLATE}]
    entries = llama_like_entries(TEMPLATE, named={"tool_use": TOOL_TEMPLATE})
    paths = [write(tmp_path / "c" / "tokenizer_config.json", tokenizer_config(named)),
             write(tmp_path / "named.gguf", gguf_bytes(entries))]
    extra = tmp_path / "f"
    write(extra / "chat_template.jinja", TEMPLATE)
    write(extra / "additional_chat_templates" / "tool_use.jinja", TOOL_TEMPLATE)
    write(extra / "tokenizer_config.json", tokenizer_config(None))
    paths.append(str(extra))
    for path in paths:
        ct = mj.ChatTemplate.from_pretrained(path)
        assert sorted(ct.template_names) == ["default", "tool_use"], path
        assert ct.render(MESSAGES, add_generation_prompt=True) == EXPECTED
        assert ct.render(MESSAGES, tools=TOOLS) == "<s>TOOLS:get_weather|Hello"
        assert ct.render(MESSAGES, tools=TOOLS, chat_template="default").startswith("<s><|user|>Hi")
        assert render(path, name="tool_use") == "<s>TOOLS:|Hello"
        with pytest.raises(mj.TemplateError, match="no chat template named 'rag'.*'default', 'tool_use'"):
            ct.render(MESSAGES, chat_template="rag")
        with pytest.raises(mj.TemplateLoadError, match="no chat template named 'rag'; the names are default, tool_use"):
            mj.load_chat_template(path, name="rag")


def test_gguf_reads_only_the_header_and_metadata(tmp_path):
    """The tensor data after the metadata is never read: a file whose tensor section is garbage loads."""
    path = write(tmp_path / "m.gguf", gguf_bytes(llama_like_entries(TEMPLATE), tensor_count=3,
                                                 tensor_bytes=os.urandom(4096)))
    source, special = mj.load_chat_template(path)
    assert source == TEMPLATE and special == SPECIAL


# ---------------------------------------------------------------------------------------------- broken inputs
def broken_files(tmp_path):
    good = gguf_bytes(llama_like_entries(TEMPLATE))
    return {
        "truncated GGUF": (write(tmp_path / "t.gguf", good[:200]), "truncated"),
        "wrong magic": (write(tmp_path / "w.gguf", b"GGML" + good[4:]), "not a GGUF file"),
        "GGUF version 1": (write(tmp_path / "v1.gguf", b"GGUF" + (1).to_bytes(4, "little") + good[8:]),
                           "version 1 is not supported"),
        "GGUF without a template": (write(tmp_path / "n.gguf", gguf_bytes(llama_like_entries(TEMPLATE)[:-2])),
                                    "no chat template"),
        "GGUF with a huge string length": (write(tmp_path / "h.gguf", good[:24] + b"\xff" * 8 + good[32:]),
                                           "truncated"),
        "JSON without a template": (write(tmp_path / "x" / "tokenizer_config.json", json.dumps({"bos_token": "<s>"})),
                                    "has no chat_template"),
        "malformed JSON": (write(tmp_path / "y" / "tokenizer_config.json", '{"chat_template": "x",'),
                           "malformed JSON"),
        "JSON that is not an object": (write(tmp_path / "l.json", "[1, 2]"), "expected a JSON object"),
        "invalid UTF-8 template": (write(tmp_path / "bad.jinja", b"{{ messages }}\xff\xfe"), "not UTF-8"),
        "invalid UTF-8 config": (write(tmp_path / "z" / "tokenizer_config.json", b'{"chat_template": "\xff"}'),
                                 "not UTF-8"),
        "missing file": (str(tmp_path / "nothing" / "here.jinja"), "no such file"),
        "folder whose config has no template": (str(tmp_path / "x"), "no chat template found"),
        "folder without a template": (str(tmp_path / "emptydir"), "no chat template found"),
    }


def test_broken_files_give_one_error_naming_the_file(tmp_path):
    os.makedirs(tmp_path / "emptydir")
    for what, (path, problem) in broken_files(tmp_path).items():
        with pytest.raises(mj.TemplateLoadError) as info:
            mj.load_chat_template(path)
        assert info.value.path == path, what
        assert str(info.value).startswith(path + ": "), what
        assert problem in str(info.value), (what, str(info.value))
        with pytest.raises(mj.TemplateLoadError):
            mj.ChatTemplate.from_pretrained(path)


def test_every_truncation_of_a_gguf_file_is_a_load_error(tmp_path):
    good = gguf_bytes(llama_like_entries(TEMPLATE, tokens=[f"t{i}" for i in range(50)]), tensor_bytes=b"")
    path = str(tmp_path / "cut.gguf")
    for size in range(0, len(good), 7):
        write(path, good[:size])
        with pytest.raises(mj.TemplateLoadError):
            mj.load_chat_template(path)


def test_load_errors_pickle(tmp_path):
    import pickle
    with pytest.raises(mj.TemplateLoadError) as info:
        mj.load_chat_template(str(tmp_path / "missing.json"))
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is mj.TemplateLoadError and str(copy) == str(info.value) and copy.path == info.value.path
