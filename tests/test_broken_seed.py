"""The broken seed: templates/qwen3_flat.jinja has two bare " inside a double-quoted string
(`"... <tool_call> {"name": <function-name>, ...}"`), so the string ends before `name` and Jinja2 refuses the
template ("expected token 'end of print statement', got 'name'"). qwen3_flat_fixed.jinja escapes them."""

import os

import pytest

import minijinja_py as mj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _seed(name):
    with open(os.path.join(ROOT, "templates", name + ".jinja"), encoding="utf-8", newline="") as f:
        return f.read()


@pytest.fixture(scope="module")
def broken():
    source = _seed("qwen3_flat")
    with pytest.raises(mj.TemplateSyntaxError) as info:
        mj.ChatTemplate(source)
    return source, info.value


def test_location_is_the_name_token(broken):
    source, err = broken
    assert "\n" not in source.rstrip("\n")            # the whole template is on line 1
    col = source.index('{"name"') + len('{"') + 1      # 1-based column of `name`
    assert (err.lineno, err.colno) == (1, col)
    assert source[col - 1:col - 1 + len("name")] == "name"


def test_message_is_jinja2s_plus_an_escaping_hint(broken):
    _, err = broken
    assert err.message.startswith("expected token 'end of print statement', got 'name'")
    assert 'escape it as \\"' in err.message
    assert "inside the string" in err.message


def test_str_shows_location_source_and_caret(broken):
    _, err = broken
    text = str(err)
    assert f"<template>:1:{err.colno}" in text
    lines = text.split("\n")
    excerpt, caret = lines[-2], lines[-1]
    assert excerpt.startswith("1 | ")
    assert set(caret.strip()) == {"^"}
    start = caret.index("^")
    # the caret sits under the whole offending token, just after the quote that closed the string early
    assert excerpt[start:start + len(caret.strip())] == "name"
    assert excerpt[start - 2:start] == '{"'


def test_error_is_raised_at_compile_time_not_render_time():
    with pytest.raises(mj.TemplateSyntaxError):
        mj.chat_environment().from_string(_seed("qwen3_flat"))


def test_escaped_version_compiles_and_renders_the_quotes():
    out = mj.ChatTemplate(_seed("qwen3_flat_fixed")).render(
        [{"role": "user", "content": "hi"}],
        tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}])
    assert '<tool_call> {"name": <function-name>, "arguments": <args-json-object>} </tool_call>' in out
