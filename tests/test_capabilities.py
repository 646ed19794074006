"""ChatTemplate.capabilities (issue 9): the Capabilities value, the probes' decision on small templates written to
exercise every field both ways (expected answers stated by hand, and checked against Jinja2 as transformers
configures it), the shipped seed templates against Jinja2, the frozen clock, limits, caching, named templates and
the `check --json` command. The reference parts skip without jinja2."""

import contextlib
import datetime
import io
import json
import os
import pickle
import re

import pytest

import minijinja_py as mj
from minijinja_py.chat.capabilities import Capabilities, decide
from minijinja_py.cli import main

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)   # the reference clock

NOTHING = Capabilities(**{name: False for name in Capabilities.FIELDS if name != "tool_call_arguments"},
                       tool_call_arguments="none")


def capabilities(source, **options):
    return mj.ChatTemplate(source, now=lambda: FIXED_NOW, **options).capabilities


def reference_capabilities(source):
    pytest.importorskip("jinja2")
    import capabilities_ref
    template = capabilities_ref.compile_reference(source)
    assert not isinstance(template, Exception), f"Jinja2 did not compile it: {template}"
    return decide(*capabilities_ref.reference_renderers(template))


# ------------------------------------------------------------------------------------- the Capabilities value
def test_capabilities_has_the_18_fields_of_the_issue_typed():
    assert Capabilities.fields() == (
        "string_content", "typed_content", "system_role", "add_generation_prompt", "alternating_roles", "tools",
        "requires_tools", "tool_calls", "tool_call_arguments", "tool_responses", "tool_call_id",
        "parallel_tool_calls", "non_null_content", "reasoning", "reasoning_in_history", "enable_thinking",
        "documents", "generation_tag")
    assert Capabilities.__annotations__ == {name: (str if name == "tool_call_arguments" else bool)
                                            for name in Capabilities.FIELDS}
    assert mj.Capabilities is Capabilities


def test_capabilities_is_frozen_comparable_hashable_and_readable():
    caps = NOTHING.replace(tools=True, tool_call_arguments="both")
    with pytest.raises(AttributeError):
        caps.tools = False
    with pytest.raises(AttributeError):
        del caps.tools
    with pytest.raises(AttributeError):
        caps.extra = 1
    assert caps == NOTHING.replace(tool_call_arguments="both", tools=True) and caps != NOTHING
    assert caps != caps.as_dict() and hash(caps) == hash(NOTHING.replace(tools=True, tool_call_arguments="both"))
    assert repr(caps).startswith("Capabilities(string_content=False, ") and "tool_call_arguments='both'" in repr(caps)
    assert list(caps.as_dict()) == list(Capabilities.FIELDS) and caps.as_dict()["tools"] is True
    assert pickle.loads(pickle.dumps(caps)) == caps


@pytest.mark.parametrize("values, error", [
    ({"tools": 1}, TypeError),                      # a bool field takes a bool only
    ({"tool_call_arguments": "dict"}, ValueError),   # one of object, string, both, none
    ({"tooling": True}, TypeError),                 # no such field
])
def test_capabilities_refuses_bad_values(values, error):
    with pytest.raises(error):
        NOTHING.replace(**values)


def test_capabilities_needs_every_field():
    with pytest.raises(TypeError, match="missing: tools"):
        Capabilities(**{k: v for k, v in NOTHING.as_dict().items() if k != "tools"})


# ---------------------------------------------------------------------------- probe templates, each field both ways
PLAIN = """{% for m in messages %}{{ m.role }}: {{ m.content }}
{% endfor %}"""

FULL = """
{%- if messages[0].role == 'system' %}<sys>{{ messages[0].content }}</sys>
{% endif %}
{%- if tools %}<tools>{% for t in tools %}{{ t.function.name }}: {{ t.function.description }}{% endfor %}</tools>
{% endif %}
{%- if documents %}<docs>{% for d in documents %}{{ d.title }}: {{ d.text }}{% endfor %}</docs>
{% endif %}
{%- set ns = namespace(last='') %}
{%- for m in messages if m.role != 'system' %}
{%- if m.role == 'user' and ns.last == 'user' %}{{ raise_exception('roles must alternate') }}{% endif %}
{%- set ns.last = m.role %}
{%- if m.role == 'user' %}<user>
{%- if m.content is string %}{{ m.content }}{% else %}
{%- for part in m.content %}{% if part.type == 'text' %}{{ part.text }}{% endif %}{% endfor %}{% endif %}</user>
{% elif m.role == 'assistant' %}<assistant>{% generation %}
{%- if m.reasoning_content and loop.last %}<think>{{ m.reasoning_content }}</think>{% endif %}
{%- if m.tool_calls and m.content is not defined %}{{ raise_exception('content is required') }}{% endif %}
{{- m.content }}
{%- for call in m.tool_calls or [] %}<call id="{{ call.id }}">{{ call.function.name }} {# -#}
{% if call.function.arguments is string %}{{ call.function.arguments }}{% else %}{{ call.function.arguments | tojson }}{% endif %}</call>{% endfor %}
{%- endgeneration %}</assistant>
{% elif m.role == 'tool' %}<result id="{{ m.tool_call_id }}">{{ m.content }}</result>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<assistant>{% if enable_thinking is defined and not enable_thinking %}<think></think>
{%- endif %}{% endif %}"""

REQUIRES_TOOLS = """{% if not tools %}{{ raise_exception('this template needs tools') }}{% endif %}
{%- for m in messages %}{{ m.content }}
{% endfor %}"""

# arguments printed as they are (a dict prints as Python's repr); reasoning read through transformers' alias
# `thinking`; system messages dropped; only the first call of a turn shown
RAW_ARGUMENTS = """{% for m in messages if m.role != 'system' %}
{%- if m.thinking %}[{{ m.thinking }}]{% endif %}
{%- if m.tool_calls %}{{ m.tool_calls[0].function.name }}({{ m.tool_calls[0].function.arguments }})
{%- else %}{{ m.content }}{% endif %}
{% endfor %}
{%- if add_generation_prompt %}>>{% endif %}"""

# arguments always through tojson (a string is encoded a second time); calls shown by id only
JSON_ARGUMENTS = """{% for m in messages %}
{%- for call in m.tool_calls or [] %}<{{ call.id }}>{{ call.function.arguments | tojson }}</{{ call.id }}>{% endfor %}
{{- m.content }}
{% endfor %}"""

# arguments + '' fails for a dict: only the string form renders (the form that works is then "string")
STRING_ARGUMENTS_ONLY = """{% for m in messages %}
{%- for call in m.tool_calls or [] %}{{ call.function.name }} {{ call.function.arguments + '' }}{% endfor %}
{%- if m.role == 'tool' %}{{ m.tool_call_id }}={{ m.content }}{% else %}{{ m.content + '' }}{% endif %}
{% endfor %}"""

NO_TOOL_CALLS = """{% for m in messages %}
{%- if m.tool_calls %}{{ raise_exception('no tool calls here') }}{% endif %}
{{- m.role }} {{ m.content }}
{% endfor %}
{%- if tools %}{{ tools | tojson }}{% endif %}"""

# a generation block that no probe reaches; the generation prompt only shows with enable_thinking
UNUSED_GENERATION = """{% for m in messages %}
{%- if m.role == 'model' %}{% generation %}{{ m.content }}{% endgeneration %}
{%- else %}{{ m.content if m.content is string else m.content[0].text }}{% endif %}
{% endfor %}
{%- if add_generation_prompt and enable_thinking %}<think>{% endif %}"""

PROBE_TEMPLATES = {
    "plain": (PLAIN, dict(string_content=True, system_role=True, tool_responses=True)),
    "full": (FULL, dict(string_content=True, typed_content=True, system_role=True, add_generation_prompt=True,
                        alternating_roles=True, tools=True, tool_calls=True, tool_call_arguments="both",
                        tool_responses=True, tool_call_id=True, parallel_tool_calls=True, non_null_content=True,
                        reasoning=True, enable_thinking=True, documents=True, generation_tag=True)),
    "requires_tools": (REQUIRES_TOOLS, dict(requires_tools=True, tool_responses=True)),
    "raw_arguments": (RAW_ARGUMENTS, dict(string_content=True, add_generation_prompt=True, tool_calls=True,
                                          tool_call_arguments="string", tool_responses=True, reasoning=True,
                                          reasoning_in_history=True)),
    "json_arguments": (JSON_ARGUMENTS, dict(string_content=True, system_role=True, tool_calls=True,
                                            tool_call_arguments="object", tool_responses=True, tool_call_id=True,
                                            parallel_tool_calls=True)),
    "string_arguments_only": (STRING_ARGUMENTS_ONLY, dict(string_content=True, system_role=True, tool_calls=True,
                                                          tool_call_arguments="string", tool_responses=True,
                                                          tool_call_id=True, parallel_tool_calls=True,
                                                          non_null_content=True)),
    "no_tool_calls": (NO_TOOL_CALLS, dict(string_content=True, system_role=True, tools=True)),
    "unused_generation": (UNUSED_GENERATION, dict(string_content=True, typed_content=True, system_role=True,
                                                  tool_responses=True, non_null_content=True,
                                                  enable_thinking=True)),
}


@pytest.mark.parametrize("name", sorted(PROBE_TEMPLATES))
def test_probe_template(name):
    source, expected = PROBE_TEMPLATES[name]
    assert capabilities(source) == NOTHING.replace(**expected)


@pytest.mark.parametrize("name", sorted(PROBE_TEMPLATES))
def test_probe_template_against_jinja2(name):
    source, expected = PROBE_TEMPLATES[name]
    assert reference_capabilities(source) == NOTHING.replace(**expected)


def test_every_field_is_exercised_both_ways():
    answers = [NOTHING.replace(**expected) for _, expected in PROBE_TEMPLATES.values()]
    for name in Capabilities.FIELDS:
        seen = {getattr(caps, name) for caps in answers}
        wanted = {"object", "string", "both", "none"} if name == "tool_call_arguments" else {True, False}
        assert seen == wanted, name


# ------------------------------------------------------------------------------------- shipped seed templates
SEEDS = mj.seed_template_names()


@pytest.mark.parametrize("name", SEEDS)
def test_seed_template_against_jinja2(name):
    source = mj.seed_template(name)
    pytest.importorskip("jinja2")
    import capabilities_ref
    reference = capabilities_ref.compile_reference(source)
    if isinstance(reference, Exception):   # qwen3_flat is not valid Jinja: neither engine compiles it
        with pytest.raises(mj.TemplateSyntaxError):
            mj.ChatTemplate(source)
        return
    assert capabilities(source) == decide(*capabilities_ref.reference_renderers(reference))


def test_hermes4_answers():
    caps = capabilities(mj.seed_template("hermes4"))
    assert caps.tools and caps.tool_calls and caps.tool_call_arguments == "object" and caps.parallel_tool_calls
    assert not caps.tool_call_id and not caps.typed_content and not caps.enable_thinking


# --------------------------------------------------------------------------------------- clock, limits, cache
CLOCK = "{{ strftime_now('%H:%M:%S.%f') }}|{% for m in messages %}{{ m.content }}{% endfor %}"


def test_probes_share_one_clock_reading_of_a_ticking_clock():
    readings = []

    def now():   # a clock that moves on every reading: only a frozen reading makes the probes agree
        readings.append(None)
        return FIXED_NOW + datetime.timedelta(microseconds=len(readings))

    ct = mj.ChatTemplate(CLOCK, now=now)
    caps = ct.capabilities
    assert not caps.add_generation_prompt and not caps.enable_thinking and caps.string_content
    assert len(readings) == 1
    first, second = ct.render([{"role": "user", "content": "x"}]), ct.render([{"role": "user", "content": "x"}])
    assert first != second and len(readings) == 3   # outside the probes, the clock is read on every render


def test_probes_read_the_chat_templates_own_frozen_clock():
    source = """{% if strftime_now('%Y-%m-%d %H:%M') != '2030-02-03 04:05' %}{{ raise_exception('clock') }}{% endif %}
{{- messages[0].content }}"""
    assert mj.ChatTemplate(source, now=datetime.datetime(2030, 2, 3, 4, 5)).capabilities.string_content
    assert mj.ChatTemplate(source, now=lambda: datetime.datetime(2030, 2, 3, 4, 5)).capabilities.string_content
    assert not mj.ChatTemplate(source, now=FIXED_NOW).capabilities.string_content


def test_probes_share_one_clock_reading_of_the_real_clock():
    caps = mj.ChatTemplate(CLOCK).capabilities
    assert not caps.add_generation_prompt and not caps.enable_thinking


def test_a_probe_that_exceeds_a_limit_counts_as_no_and_limits_stay():
    source = """{% if tools %}{% for i in range(100) %}{{ 'x' * 1000 }}{% endfor %}{% endif %}
{%- for m in messages %}{{ m.content }}|{% endfor %}"""
    limits = mj.Limits(max_output=50_000)
    ct = mj.ChatTemplate(source, limits=limits)
    assert ct.capabilities == NOTHING.replace(string_content=True, system_role=True)
    assert ct.environment.limits is limits and limits == mj.Limits(max_output=50_000)
    assert mj.ChatTemplate(source).capabilities.tools is False   # it never shows the tool: no limit needed
    assert mj.ChatTemplate(source).capabilities.tool_responses is True


def test_a_probe_past_the_step_limit_counts_as_no():
    source = """{% if tools %}{% for i in range(10 ** 6) %}{% endfor %}{% endif %}
{%- for m in messages %}{{ m.content }}|{% endfor %}"""
    limits = mj.Limits(max_steps=20_000)
    ct = mj.ChatTemplate(source, limits=limits)
    with pytest.raises(mj.LimitExceeded):
        ct.render([{"role": "user", "content": "x"}], tools=[{"type": "function"}])
    caps = ct.capabilities
    assert caps.string_content and not caps.requires_tools and not caps.tools and not caps.tool_calls
    assert not caps.tool_responses and not caps.documents    # every probe with tools was past the limit
    assert ct.environment.limits is limits and limits == mj.Limits(max_steps=20_000)


def test_probes_do_not_touch_special_tokens():
    ct = mj.ChatTemplate("{{ bos_token }}{{ messages[0].content }}", special_tokens={"bos_token": "<B>"})
    assert ct.capabilities.string_content
    assert ct.special_tokens == {"bos_token": "<B>"}
    assert ct.render([{"role": "user", "content": "x"}]) == "<B>x"


def test_capabilities_are_computed_once():
    ct = mj.ChatTemplate(PLAIN)
    assert ct.capabilities is ct.capabilities
    assert ct.capabilities_for(None) is ct.capabilities and ct.capabilities_for("default") is ct.capabilities


def test_a_single_template_has_no_other_name():
    with pytest.raises(ValueError, match="tool_use"):
        mj.ChatTemplate(PLAIN).capabilities_for("tool_use")


def test_named_templates_answer_per_name():
    named = mj.ChatTemplate({"default": PLAIN, "tool_use": FULL}, now=FIXED_NOW)
    # without a name, transformers would render the probes with tools through "tool_use": every probe names its
    # template, so the default one's answer is PLAIN's alone
    assert named.capabilities == capabilities(PLAIN)
    assert named.capabilities_for("tool_use") == capabilities(FULL)
    assert named.capabilities_for("default") is named.capabilities
    assert named.capabilities_for("tool_use") is named.capabilities_for("tool_use")
    with pytest.raises(ValueError, match="'rag'"):
        named.capabilities_for("rag")
    no_default = mj.ChatTemplate({"tool_use": FULL}, now=FIXED_NOW)
    assert no_default.capabilities_for("tool_use") == capabilities(FULL)
    with pytest.raises(ValueError, match="'default'"):
        no_default.capabilities


def test_named_templates_from_a_model_folder_answer_as_check_json():
    named = mj.ChatTemplate.from_pretrained("examples/tiny-model")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "examples/tiny-model", "--json"]) == 0
    reports = json.loads(out.getvalue())["templates"]
    assert set(reports) == {"default", "tool_use"}
    for name, report in reports.items():
        assert report["capabilities"] == named.capabilities_for(name).as_dict()
    assert reports["tool_use"]["capabilities"]["requires_tools"] and not reports["default"]["capabilities"]["tools"]


# ---------------------------------------------------------------------------------------- the pinned probe inputs
def test_probes_see_exactly_the_pinned_variables_not_the_special_tokens():
    """bos_token "<s>" and eos_token "</s>" are given, and nothing else: a ChatTemplate's own special tokens
    (a tokenizer's pad_token, ...) do not reach the probes, so the answer depends on the template text alone (as
    `check TEMPLATE --json` and the reference decide it)."""
    source = """{% if pad_token is defined or bos_token != '<s>' or eos_token != '</s>' %}
{{- raise_exception('not the pinned tokens') }}{% endif %}
{%- for m in messages %}{{ m.content }}{% endfor %}"""
    plain = mj.ChatTemplate(source).capabilities
    assert plain.string_content
    tokens = {"bos_token": "<B>", "eos_token": "<E>", "pad_token": "<pad>"}
    ct = mj.ChatTemplate(source, special_tokens=tokens)
    assert ct.capabilities == plain
    assert ct.special_tokens == tokens    # and the ChatTemplate still renders with its own
    with pytest.raises(mj.TemplateError, match="not the pinned tokens"):
        ct.render([{"role": "user", "content": "x"}])


def test_a_null_key_counts_as_absent():
    """transformers 5 drops None-valued message keys: content None is the absent content the non_null_content
    probe gives, so a template that requires content refuses both."""
    caps = capabilities(FULL)
    assert caps.non_null_content
    call = {"id": "idneedle1", "type": "function", "function": {"name": "f", "arguments": {}}}
    ct = mj.ChatTemplate(FULL)
    for assistant in ({"role": "assistant", "tool_calls": [call]},
                      {"role": "assistant", "content": None, "tool_calls": [call]}):
        with pytest.raises(mj.TemplateError, match="content is required"):
            ct.render([{"role": "user", "content": "x"}, assistant])


def test_tool_call_ids_are_nine_characters():
    """Some templates insist on 9-character ids (Mistral's): every probe's ids are exactly 9 characters, and each
    tool message's tool_call_id is its call's id."""
    source = """{% for m in messages %}
{%- for call in m.tool_calls or [] %}{% if call.id | length != 9 %}{{ raise_exception('id') }}{% endif %}
{{- call.id }}:{{ call.function.name }} {% endfor %}
{%- if m.role == 'tool' %}{% if m.tool_call_id | length != 9 %}{{ raise_exception('id') }}{% endif %}
{{- m.tool_call_id }}={{ m.content }} {% else %}{{ m.content }} {% endif %}{% endfor %}"""
    caps = capabilities(source)
    assert caps.tool_calls and caps.tool_call_id and caps.tool_responses and caps.parallel_tool_calls


# ---------------------------------------------------------------------------------------------------- command line
def test_check_json_prints_the_capabilities():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "hermes4", "--json"]) == 0
    report = json.loads(out.getvalue())["templates"]["default"]
    assert report["capabilities"] == mj.ChatTemplate(mj.seed_template("hermes4")).capabilities.as_dict()


def test_check_json_of_a_broken_template_is_an_error():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "qwen3_flat", "--json"]) == 1
    report = json.loads(out.getvalue())["templates"]["default"]
    assert report["ok"] is False and "capabilities" not in report and report["error"]["line"] == 1


# --------------------------------------------------------------------------------------------------------- README
def _readme_answers():
    """The README's table of three shipped templates' answers: {template: {field: value}}."""
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md"),
              encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("Three of the shipped templates answer:"):].split("\n\n")[1]
    rows = [[cell.strip().strip("`*") for cell in line.strip("|").split("|")] for line in table.splitlines()]
    names = rows[0][1:]
    answers = {name: {} for name in names}
    for row in rows[2:]:
        for name, cell in zip(names, row[1:]):
            answers[name][row[0]] = json.loads(cell)
    return answers


def test_readme_table_of_three_templates_is_what_they_answer():
    answers = _readme_answers()
    assert len(answers) == 3
    for name, fields in answers.items():
        assert list(fields) == list(Capabilities.FIELDS), name
        assert fields == mj.ChatTemplate(mj.seed_template(name)).capabilities.as_dict(), name


def test_probes_keep_what_the_rules_need_not_the_outputs():
    """A template that prints megabytes per probe: deciding holds one probe's output at a time (issue 24)."""
    import tracemalloc
    padding = "x" * 4_000_000

    def render(messages, tools=None, documents=None, add_generation_prompt=False, **variables):
        return padding + "".join(str(m.get("content")) for m in messages) + str(add_generation_prompt)

    tracemalloc.start()
    try:
        caps = decide(render, lambda messages, **kw: [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caps.string_content and caps.add_generation_prompt and not caps.tools
    assert peak < 3 * len(padding)   # every probe's output kept would be about 25 times that


def test_capabilities_of_a_template_printing_megabytes_per_probe():
    ct = mj.ChatTemplate("{{ 'y' * 3000000 }}{% for m in messages %}{{ m.content }}{% endfor %}")
    caps = ct.capabilities
    assert caps.string_content and caps.system_role and not caps.tools


def test_each_needle_is_listed_under_the_first_marker_it_contains():
    from minijinja_py.chat.capabilities import _MARKED
    markers = [marker for marker, _ in _MARKED]
    for at, (marker, needles) in enumerate(_MARKED):
        for needle in needles:
            assert marker in needle and not any(m in needle for m in markers[:at]), (marker, needle)


def test_needles_are_found_around_their_markers_exactly():
    from minijinja_py.chat.capabilities import _MARKED, _seen
    for needle in (needle for _, needles in _MARKED for needle in needles):
        for text in (needle, "x" + needle + "y", needle[1:], needle[:-1], ("NEEDLE needle type " * 40) + needle):
            assert (needle in _seen(text).found) == (needle in text), (needle, text[:40])
    # a needle cut at the start of the text must not be matched from its end (negative offsets)
    assert "USER_NEEDLE" not in _seen("NEEDLE...USER_").found
