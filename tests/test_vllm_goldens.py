"""vLLM's pythonic (Llama 3.2, Llama 4) and ToolACE tool templates, given tool-call arguments as JSON strings,
render byte for byte as Jinja2 does (tests/vllm_tools/: templates, conversations, goldens; see SOURCES.md)."""

import datetime
import json
import os
import sys

import pytest

import minijinja_py as mj

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vllm_tools")
FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)   # the oracle's frozen clock
TEMPLATES = ("llama3.2_pythonic", "llama4_pythonic", "toolace")
CONTEXTS = ("json_args_underscores", "tools_string_args")


def _read(*parts):
    with open(os.path.join(HERE, *parts), encoding="utf-8", newline="") as f:
        return f.read()


def _context(name):
    return {k: v for k, v in json.loads(_read("contexts", name + ".json")).items() if not k.startswith("_")}


def _render(template, context):
    rest = dict(context)
    return mj.ChatTemplate(_read("templates", template + ".jinja"), now=lambda: FIXED_NOW).render(
        rest.pop("messages"), tools=rest.pop("tools", None),
        add_generation_prompt=rest.pop("add_generation_prompt", False), **rest)


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("context", CONTEXTS)
def test_renders_as_jinja2(template, context):
    assert _render(template, _context(context)) == _read("goldens", f"{template}__{context}.txt")


def test_goldens_read_underscores_of_the_json_string():
    # the case the goldens are for: arguments[character] with the character '_' is undefined, not refused
    golden = _read("goldens", "toolace__json_args_underscores.txt")
    assert "_=, n=, a=, m=, e=" in golden and "_=, _=, c=, l=, a=, s=, s=, _=, _=" in golden


ORACLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared", "oracle")


@pytest.mark.skipif(not os.path.isdir(ORACLE), reason="../shared/oracle is not here")
@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("context", CONTEXTS)
def test_goldens_are_the_oracles(template, context):
    """The goldens are still what the reference (Jinja2 as transformers' apply_chat_template configures it)
    renders."""
    pytest.importorskip("jinja2")
    sys.path.insert(0, ORACLE)
    try:
        import hf_env
    finally:
        sys.path.pop(0)
    hf_env.set_fixed_now(FIXED_NOW)
    rest = _context(context)
    reference = hf_env.render_chat(_read("templates", template + ".jinja"), rest.pop("messages"),
                                   tools=rest.pop("tools", None),
                                   add_generation_prompt=rest.pop("add_generation_prompt", False), **rest)
    assert reference == _read("goldens", f"{template}__{context}.txt")
