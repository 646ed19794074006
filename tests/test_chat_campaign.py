"""The chat-data campaign kept working (tools/chat_campaign.py, tests/support/chat_gen.py, chat_compare.py): a few
hundred random conversations over the 52 holdout chat templates, each rendered by Jinja2 in the transformers
configuration, by minijinja_py as shipped and with general_only, must agree (the same text or the same kind of
error; the two ways of minijinja_py the same error too). The campaign itself runs tens of thousands:

    python tools/chat_campaign.py -n 50000 --seed 3 -j 2 --corpus ../shared/corpus/templates

Skipped when jinja2 is not installed (the package never needs it).
"""

import collections
import os
import subprocess
import sys

import pytest

jinja2 = pytest.importorskip("jinja2")

from chat_compare import case_for, compare_chat, load_templates, render_three  # noqa: E402
from chat_gen import generate_chat_case  # noqa: E402

TEMPLATES = load_templates()
CASES = 400


def test_holdout_templates_are_loaded():
    assert len(TEMPLATES) == 52
    assert all(source for _, source, _ in TEMPLATES)


def test_random_conversations_render_alike():
    outcomes, differing = collections.Counter(), []
    for seed in range(CASES):
        outcome = compare_chat(case_for(seed, TEMPLATES))
        outcomes[outcome[0]] += 1
        if outcome[0] == "differ":
            differing.append(f"--case {seed}: {outcome[1]}\n{outcome[2]}")
    assert not differing, "\n\n".join(differing[:3])
    assert outcomes["same"] >= CASES * 0.95   # (not vacuous: known and excluded ones are rare)


def test_cases_cover_the_shapes_and_render_deep():
    # the generator reaches what it promises: outputs for most cases, tool calls, content parts, reasoning, non
    # plain data, both modes of input processing
    seen, rendered = collections.Counter(), 0
    for seed in range(CASES):
        case = case_for(seed, TEMPLATES)
        rendered += render_three(case)[0][0] == "ok"
        text = repr(case.context)
        seen["mode " + case.mode] += 1
        for mark in ("'tool_calls'", "'type': 'image'", "'reasoning_content'", "Markup", "'_meta'",
                     "'arguments': '{", "'arguments': {", "'tools': [{"):
            seen[mark] += mark in text
        messages = case.context["messages"]
        seen["a dict subclass"] += isinstance(messages, (list, tuple)) and any(
            isinstance(m, dict) and type(m) is not dict for m in messages)
    assert rendered >= CASES * 0.4
    assert all(seen[mark] > 0 for mark in ("mode transformers 5", "mode as given", "'tool_calls'", "'type': 'image'",
                                           "'reasoning_content'", "a dict subclass", "Markup",
                                           "'_meta'", "'arguments': '{", "'arguments': {", "'tools': [{")), seen


def test_a_case_regenerates_from_its_seed():
    name, source, variables = TEMPLATES[7]
    first, again = (generate_chat_case(70000123, name, source, variables) for _ in range(2))
    assert repr(first.context) == repr(again.context) and first.mode == again.mode


def test_a_mutating_render_is_a_difference(monkeypatch):
    # the comparison notices a render that changes the caller's data (none does: this checks the check)
    case = case_for(0, TEMPLATES)
    import chat_compare

    original = chat_compare._render

    def mutating(way, source, context):
        if way == "general":
            context["messages"].append({"role": "user", "content": "added"})
        return original(way, source, context)
    monkeypatch.setattr(chat_compare, "_render", mutating)
    assert compare_chat(case)[:2] == ("differ", "caller's data changed")


def test_the_tool_runs_a_case():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run([sys.executable, os.path.join(root, "tools", "chat_campaign.py"), "-n", "40", "-j", "1",
                             "--seed", "5"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "40 cases over 52 templates" in result.stdout


def _case(source, context):
    from chat_gen import ChatCase
    return ChatCase("snippet", source, 0, context, "as given")


def test_messages_passed_as_mapping_proxies_render_as_in_jinja2():
    # found by the campaign (seeds 50002324, 60019474): a read-only mapping was opaque, so its items read as empty
    import types
    source = "{% for m in messages %}{{ m.role }}:{{ m['content'] }}:{{ m.get('x', '-') }}|{% endfor %}{{ messages }}"
    proxy = {"messages": [types.MappingProxyType({"role": "user", "content": "hi"})]}
    assert compare_chat(_case(source, proxy)) == ("same", "output")


def test_python_recursion_before_call_depth_is_known_only_when_more_stack_gives_the_design_limit():
    # a recursive macro over data nested deeper than max_call_depth allows: LimitExceeded in both ways (or the
    # recursion limit first), Jinja2 renders
    source = ("{%- macro walk(a) -%}{%- if a is mapping -%}{%- for k, v in a|dictsort -%}{% set ns = namespace(x=k) %}"
              "{{ ns.x }}:{{ walk(v) }}{%- endfor -%}{%- else -%}{{ a }}{%- endif -%}{%- endmacro -%}{{ walk(x) }}")
    deep = "b"
    for _ in range(110):   # (Jinja2 renders it with ~600 Python frames)
        deep = {"d": deep}
    assert compare_chat(_case(source, {"x": deep}))[:2] == ("known", "design-limits")

    def called_deep(frames):   # the same render from a caller already deep in Python's stack
        return called_deep(frames - 1) if frames else compare_chat(_case(source, {"x": deep}))
    assert called_deep(250)[:2] == ("known", "recursion-before-call-depth")
