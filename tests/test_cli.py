"""The command line: render, batch, check, list, limits, --version; exit status 0/1/2 with one stderr line per
failure and never a traceback."""

import json
import os
import re
import subprocess
import sys

import pytest

import minijinja_py as mj
from minijinja_py.chat.template import _shipped_text
from minijinja_py.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "tool_call.json")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")

with open(EXAMPLE, encoding="utf-8") as _f:
    CONVERSATION = json.load(_f)
TOOLS = CONVERSATION["tools"]
SPECIAL = {"bos_token": CONVERSATION["bos_token"], "eos_token": CONVERSATION["eos_token"]}


def run(capsysbinary, *argv):
    status = main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode("utf-8")


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
    return str(path)


def expected_prompt(**overrides):
    data = {k: v for k, v in CONVERSATION.items() if not k.startswith("_")}
    data.update(overrides)
    messages = data.pop("messages")
    return mj.ChatTemplate(mj.seed_template("hermes4")).render(messages, **data)


# --------------------------------------------------------------------------------------------------- render
def test_render_writes_the_prompt_exactly(capsysbinary, tmp_path):
    status, out, err = run(capsysbinary, "render", "hermes4", EXAMPLE)
    assert (status, err) == (0, "")
    assert out == expected_prompt().encode("utf-8")
    prefill = dict(CONVERSATION, messages=CONVERSATION["messages"] + [{"role": "assistant", "content": "Пож"}],
                   add_generation_prompt=False)
    status, out, err = run(capsysbinary, "render", "hermes4", write_json(tmp_path / "p.json", prefill),
                           "--continue-final-message")
    assert status == 0 and out.endswith("Пож".encode("utf-8"))  # no newline added after a prefill


def test_render_a_bare_list_with_tools_file_and_vars(capsysbinary, tmp_path):
    messages = write_json(tmp_path / "m.json", CONVERSATION["messages"])
    tools = write_json(tmp_path / "t.json", TOOLS)
    out_file = tmp_path / "prompt.txt"
    status, out, err = run(capsysbinary, "render", "hermes4", messages, "--tools", tools, "--add-generation-prompt",
                           "--var", 'bos_token="<|begin_of_text|>"', "--var", "eos_token=<|eot_id|>", "-o",
                           str(out_file))
    assert (status, out, err) == (0, b"", "")
    assert out_file.read_bytes() == expected_prompt().encode("utf-8")


def test_render_with_a_template_name(capsysbinary, tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    write_json(folder / "tokenizer_config.json", {"chat_template": [
        {"name": "default", "template": "D{{ messages | length }}"},
        {"name": "tool_use", "template": "T{{ tools | length }}"}]})
    conv = write_json(tmp_path / "c.json", CONVERSATION["messages"])
    tools = write_json(tmp_path / "t.json", {"tools": TOOLS})
    assert run(capsysbinary, "render", str(folder), conv)[1] == b"D6"
    assert run(capsysbinary, "render", str(folder), conv, "--tools", tools)[1] == b"T1"
    assert run(capsysbinary, "render", str(folder), conv, "--tools", tools, "--template-name", "default")[1] == b"D6"
    status, out, err = run(capsysbinary, "render", str(folder), conv, "--template-name", "rag")
    assert status == 1 and "no chat template named 'rag'" in err and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------- exit status
@pytest.mark.parametrize("argv, status, message", [
    (["render", "no-such-template", "x.json"], 2, "cannot read the conversation"),
    (["render", "nope/nope", EXAMPLE], 2, "nope/nope: no such file or folder, nor a model in the local"),
    (["render"], 2, "the following arguments are required"),
    (["frobnicate"], 2, "invalid choice"),
    (["render", "hermes4", EXAMPLE, "--limit", "max_steps=10", "--limit", "steps_per_message=0",
      "--limit", "steps_per_character=0"], 1,
     "exceeds the limit max_steps=10"),
    (["render", "hermes4", EXAMPLE, "--max-steps", "10", "--steps-per-message", "0",
      "--steps-per-character", "0"], 1,
     "exceeds the limit max_steps=10"),
    (["render", "hermes4", EXAMPLE, "--limit", "max_bananas=10"], 2, "--limit takes NAME=N"),
    (["render", "hermes4", EXAMPLE, "--max-output", "-1"], 2, "bad limit"),
    (["render", "hermes4", EXAMPLE, "--var", "novalue"], 2, "--var takes NAME=VALUE"),
    (["check", "nope/nope"], 2, "no such file"),
])
def test_exit_status_and_one_line(capsysbinary, argv, status, message):
    got, out, err = run(capsysbinary, *argv)
    assert got == status
    assert message in err and err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_bad_inputs_are_status_2(capsysbinary, tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "num.json").write_text("3")
    (tmp_path / "nomsg.json").write_text('{"tools": []}')
    for name, message in (("bad.json", "not valid JSON"), ("num.json", "not int"), ("nomsg.json", "no \"messages\"")):
        status, out, err = run(capsysbinary, "render", "hermes4", str(tmp_path / name))
        assert status == 2 and message in err and err.count("\n") == 1, err


def test_template_errors_are_status_1(capsysbinary, tmp_path):
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% for m in messages %}{{ m.content | nosuchfilter }}{% endfor %}")
    status, out, err = run(capsysbinary, "render", str(bad), EXAMPLE)
    assert status == 1 and "nosuchfilter" in err and err.count("\n") == 1


def test_version_and_list(capsysbinary):
    assert main(["--version"]) == 0  # argparse's SystemExit is the status main() returns: it never raises
    assert capsysbinary.readouterr().out == f"minijinja-py {mj.__version__}\n".encode()
    status, out, err = run(capsysbinary, "list")
    assert status == 0 and out.decode().split() == mj.seed_template_names()


def test_python_dash_m_never_prints_a_traceback(tmp_path):
    gguf = tmp_path / "broken.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00\x00")
    result = subprocess.run([sys.executable, "-m", "minijinja_py", "render", str(gguf), EXAMPLE],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"error: {gguf}: corrupt or unsupported GGUF file: truncated: the tensor count needs 8 " \
                            f"bytes at offset 8, 1 left\n"


# ---------------------------------------------------------------------------------------------------- check
def test_check_lists_the_variables(capsysbinary):
    status, out, err = run(capsysbinary, "check", "hermes4")
    assert status == 0 and err == ""
    assert out.decode() == ("hermes4: ok\n  variables: thinking, keep_cots, tools, bos_token, messages, "
                            "add_generation_prompt\n")
    status, out, err = run(capsysbinary, "check", "hermes4", "--json")
    report = json.loads(out)
    assert report["ok"] is True
    assert report["templates"]["default"]["variables"] == ["thinking", "keep_cots", "tools", "bos_token", "messages",
                                                           "add_generation_prompt"]


def test_check_shows_the_caret(capsysbinary, tmp_path):
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% if x %}\n{{ y + }}\n{% endif %}")
    status, out, err = run(capsysbinary, "check", str(bad))
    assert status == 1
    assert err == "error: unexpected 'end of print statement'\n  --> bad.jinja:2:8\n2 | {{ y + }}\n           ^^\n"
    status, out, err = run(capsysbinary, "check", str(bad), "--json")
    report = json.loads(out)
    assert status == 1 and report["ok"] is False
    assert report["templates"]["default"]["error"]["line"] == 2


# ---------------------------------------------------------------------------------------------------- batch
def _jsonl(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False))
            f.write("\n")
    return str(path)


def _conversations(count):
    for i in range(count):
        yield dict(CONVERSATION, messages=CONVERSATION["messages"] + [{"role": "user", "content": f"#{i}"}])


@pytest.mark.parametrize("workers", ["1", "2"])
def test_batch_output_equals_rendering_each_line_alone(capsysbinary, tmp_path, workers):
    conversations = list(_conversations(300))
    source = _jsonl(tmp_path / "in.jsonl", conversations)
    out_path = tmp_path / "out.jsonl"
    status, out, err = run(capsysbinary, "batch", "hermes4", source, "-o", str(out_path), "--workers", workers)
    assert status == 0 and err.startswith("batch: 300 rendered, 0 skipped, ")
    lines = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    ct = mj.ChatTemplate(mj.seed_template("hermes4"))
    assert lines == [{"line": i + 1, "prompt": ct.render(c.pop("messages"), **{k: v for k, v in c.items()
                                                                                if not k.startswith("_")})}
                     for i, c in enumerate(conversations)]


def test_batch_skip_reports_bad_lines_by_number(capsysbinary, tmp_path):
    good = list(_conversations(3))
    source = _jsonl(tmp_path / "in.jsonl", [good[0], "{broken", good[1], "", {"no": "messages"},
                                             [{"role": "user", "content": 5}], good[2]])
    out_path = tmp_path / "out.jsonl"
    status, out, err = run(capsysbinary, "batch", "hermes4", source, "-o", str(out_path), "--on-error", "skip",
                           "--text")
    assert status == 0
    err_lines = err.splitlines()
    assert err_lines[0].startswith(f"error: {source}:2: not a conversation: Expecting property name")
    assert err_lines[1] == f"error: {source}:5: not a conversation: the conversation object has no \"messages\""
    assert err_lines[2].startswith(f"error: {source}:6: ")
    assert err_lines[3].startswith("batch: 3 rendered, 3 skipped, ")
    prompts = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert prompts == [expected_prompt(messages=c["messages"]) for c in good]  # --text: the prompt strings


def test_batch_fail_stops_at_the_first_bad_line(capsysbinary, tmp_path):
    """A failed run leaves the final name as it was (absent, or the old file) and no temporary file; on stdout
    the lines before the bad one were written."""
    source = _jsonl(tmp_path / "in.jsonl", list(_conversations(2)) + ["[1]"] + list(_conversations(2)))
    (tmp_path / "old.jsonl").write_text("old\n")
    for workers in ("1", "2"):
        for out_path in (tmp_path / f"out{workers}.jsonl", tmp_path / "old.jsonl"):
            status, out, err = run(capsysbinary, "batch", "hermes4", source, "-o", str(out_path), "--workers",
                                   workers, "--quiet")
            assert status == 1 and err.startswith(f"error: {source}:3: Chat messages should be dicts")
            assert err.count("\n") == 1
        assert not (tmp_path / f"out{workers}.jsonl").exists()
        assert (tmp_path / "old.jsonl").read_text() == "old\n"
        status, out, err = run(capsysbinary, "batch", "hermes4", source, "-o", "-", "--workers", workers, "--quiet")
        assert status == 1 and len(out.splitlines()) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "old.jsonl"]
    (tmp_path / "bad.jsonl").write_text("nope\n")
    status, out, err = run(capsysbinary, "batch", "hermes4", str(tmp_path / "bad.jsonl"), "-o", "-", "--quiet")
    assert status == 2


def test_the_shipped_example_batch_renders_every_valid_line(tmp_path):
    """The command a new user tries first (issue 21): a shipped name carries its model's special tokens."""
    out = tmp_path / "out.jsonl"
    example = os.path.join(ROOT, "examples", "conversations.jsonl")
    result = subprocess.run([sys.executable, "-m", "minijinja_py", "batch", "hermes4", example, "-o", str(out),
                             "--on-error", "skip"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0
    assert result.stderr.splitlines()[0].startswith(f"error: {example}:3: not a conversation: Expecting ','")
    assert result.stderr.splitlines()[1].startswith("batch: 3 rendered, 1 skipped, ")
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    with open(example, encoding="utf-8") as f:
        valid = [(number, json.loads(line)) for number, line in enumerate(f, 1) if number != 3]
    ct = mj.ChatTemplate(mj.seed_template("hermes4"), special_tokens=mj.seed_special_tokens("hermes4"))
    expected = []
    for number, data in valid:
        data = {"messages": data} if isinstance(data, list) else data
        expected.append({"line": number, "prompt": ct.render(data.pop("messages"), **data)})
    assert lines == expected and all(x["prompt"].startswith("<|begin_of_text|>") for x in lines)


def test_shipped_names_carry_their_special_tokens():
    assert mj.seed_special_tokens("hermes4") == {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
    assert mj.seed_special_tokens("falcon3") == {"eos_token": "<|endoftext|>"}
    assert mj.seed_special_tokens("qwen3_flat_fixed")["eos_token"] == "<|im_end|>"
    assert set(mj.seed_template_names()) <= set(json.loads(_shipped_text("special_tokens.json")))
    with pytest.raises(KeyError):
        mj.seed_special_tokens("nope")
    for name in mj.seed_template_names():  # the CLI renders a shipped name with them, every name
        tokens = mj.seed_special_tokens(name)
        if name != "qwen3_flat":  # not valid Jinja (test_broken_seed.py)
            conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
            assert mj.ChatTemplate(mj.seed_template(name), special_tokens=tokens).render(conversation) == \
                mj.ChatTemplate(mj.seed_template(name)).render(conversation, **tokens)


def test_batch_progress_lines_when_not_a_terminal(tmp_path):
    """stderr is a pipe here: plain progress lines (every 10 s normally; every chunk with the period set to 0)."""
    source = _jsonl(tmp_path / "in.jsonl", list(_conversations(200)))
    result = subprocess.run([sys.executable, "-c", "import sys; from minijinja_py import cli; from minijinja_py.chat import batch; "
                             "batch._PLAIN_PROGRESS_SECONDS = 0.0; sys.exit(cli.main(sys.argv[1:]))",
                             "batch", "hermes4", source, "-o", str(tmp_path / "o.jsonl")],
                            capture_output=True, text=True, cwd=ROOT)
    lines = result.stderr.splitlines()
    assert result.returncode == 0
    assert re.match(r"batch: \d+ lines, ", lines[0]) and "lines/s" in lines[0] and "ETA" in lines[0]
    assert lines[-1].startswith("batch: 200 rendered, 0 skipped")


# -------------------------------------------------------------------------- byte-identical to the reference
def _reference():
    if not os.path.isdir(SHARED):
        pytest.skip("../shared is not here")
    pytest.importorskip("jinja2")
    sys.path.insert(0, os.path.join(SHARED, "oracle"))
    try:
        import hf_env
    finally:
        sys.path.pop(0)
    return hf_env


def test_render_is_byte_identical_to_the_reference(capsysbinary, tmp_path):
    hf_env = _reference()
    source = mj.seed_template("hermes4")
    messages = CONVERSATION["messages"]
    reference = hf_env.render_chat(source, messages, tools=TOOLS, add_generation_prompt=True, **SPECIAL)
    bare = write_json(tmp_path / "bare.json", messages)
    tools = write_json(tmp_path / "tools.json", TOOLS)
    status, out, err = run(capsysbinary, "render", "hermes4", bare, "--tools", tools, "--add-generation-prompt",
                           "--var", "bos_token=<|begin_of_text|>", "--var", "eos_token=<|eot_id|>")
    assert status == 0 and out == reference.encode("utf-8")
    status, out, err = run(capsysbinary, "render", "hermes4", EXAMPLE)
    assert status == 0 and out == reference.encode("utf-8")


def test_batch_progress_redraws_one_line_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    source = _jsonl(tmp_path / "in.jsonl", list(_conversations(200)))
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-c", "import sys; from minijinja_py import cli; from minijinja_py.chat import batch; "
                                 "batch._TTY_PROGRESS_SECONDS = 0.0; sys.exit(cli.main(sys.argv[1:]))",
                                 "batch", "hermes4", source, "-o", str(tmp_path / "o.jsonl")],
                                stderr=terminal, stdout=subprocess.DEVNULL, cwd=ROOT)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    text = shown.decode("utf-8")
    assert result.returncode == 0
    assert re.match(r"\rbatch: \d+ lines, ", text) and "ETA" in text  # redrawn in place, not a new line
    assert text.count("\n") == 1 and text.rstrip().endswith("lines/s)") and "200 rendered" in text
