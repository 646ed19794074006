"""The security model's promises that are not one-template cases: the Limits API, each limit named with its
value and location, error text people can act on, the caller's data left untouched, identical renders."""

import copy
import pickle

import sys

import pytest

import minijinja_py as mj

MESSAGES = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": "ok", "tool_calls": [{"function": {"name": "f", "arguments": {"a": [1, 2]}}}]},
    {"role": "tool", "content": "42"},
    {"role": "user", "content": "again"},
]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
DOCUMENTS = [{"title": "t", "text": "body"}]


# ------------------------------------------------------------------------------------------------- Limits
def test_limit_defaults():
    assert mj.Limits() == mj.Limits(max_template_size=262_144, max_nesting=100, max_call_depth=100,
                                    max_range=100_000, max_steps=5_000_000, max_output=50_000_000,
                                    max_string=10_000_000, max_items=1_000_000, max_int_bits=100_000,
                                    max_data_depth=200, steps_per_message=2_000, steps_per_character=40)


def test_limits_replace_and_validation():
    small = mj.Limits().replace(max_steps=10)
    assert small.max_steps == 10 and small.max_output == mj.Limits().max_output
    with pytest.raises(TypeError):
        mj.Limits().replace(max_stepz=1)
    with pytest.raises(TypeError):
        mj.Limits(max_steps="10")
    with pytest.raises(TypeError):
        mj.Limits(max_steps=True)
    with pytest.raises(ValueError):
        mj.Limits(max_output=-1)
    with pytest.raises(TypeError):
        mj.Environment(limits={"max_steps": 1})


@pytest.mark.parametrize("limit,value,source,where", [
    ("max_template_size", 20, "{{ 'this template is too long' }}", None),
    ("max_nesting", 3, "{{ [[[[1]]]] }}", (1, 7)),
    ("max_call_depth", 3, "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", (1, 19)),
    ("max_range", 10, "{{ range(11) }}", (1, 4)),
    ("max_steps", 100, "{% for i in range(1000) %}{% endfor %}", (1, 13)),
    ("max_output", 10, "{{ 'x' * 11 }}", (1, 1)),
    ("max_string", 10, "{{ 'x' * 11 }}", (1, 4)),
    ("max_items", 10, "{{ [1] * 11 }}", (1, 4)),
    ("max_int_bits", 64, "{{ 2 ** 65 }}", (1, 4)),
    ("max_data_depth", 3, "{{ [[[[1]]]]|tojson }}", (1, 4)),
])
def test_each_limit_is_named_with_its_value_and_location(limit, value, source, where):
    env = mj.Environment(limits=mj.Limits().replace(**{limit: value}))
    with pytest.raises(mj.LimitExceeded) as info:
        env.from_string(source, name="t.jinja").render()
    err = info.value
    assert (err.limit, err.value) == (limit, value)
    assert f"{limit}={value}" in err.message
    if where is not None:
        assert (err.lineno, err.colno) == where
        assert f"t.jinja:{where[0]}:{where[1]}" in str(err)


def test_limits_reach_every_entry_point():
    tight = mj.Limits(max_steps=50, steps_per_message=0, steps_per_character=0)
    source = "{% for m in messages * 100 %}{{ m.role }}{% endfor %}"
    for render in (lambda: mj.ChatTemplate(source, limits=tight).render(MESSAGES),
                   lambda: mj.chat_environment(limits=tight).from_string(source).render(messages=MESSAGES),
                   lambda: mj.Environment(limits=tight).from_string(source).render(messages=MESSAGES)):
        with pytest.raises(mj.LimitExceeded) as info:
            render()
        assert info.value.limit == "max_steps"
    assert mj.ChatTemplate(source).render(MESSAGES).count("user") == 200


def test_range_limit_is_also_jinja2s_overflow_error():
    with pytest.raises(OverflowError) as info:
        mj.Environment().from_string("{{ range(100001) }}").render()
    assert isinstance(info.value, mj.LimitExceeded) and info.value.limit == "max_range"
    again = pickle.loads(pickle.dumps(info.value))
    assert (type(again), again.limit, again.lineno) == (type(info.value), "max_range", 1)
    assert mj.Environment().from_string("{{ range(100000)|length }}").render() == "100000"


def test_python_recursion_is_a_limit_not_a_crash():
    source = ("{% macro m(n) %}" + "{% if 1 %}" * 90 + "{{ m(n + 1) }}" + "{% endif %}" * 90
              + "{% endmacro %}{{ m(0) }}")
    with pytest.raises(mj.LimitExceeded) as info:
        mj.Environment().from_string(source).render()
    assert info.value.limit == "recursion_limit" and info.value.lineno is not None


# ------------------------------------------------------------------------------------------------- errors
def test_error_text_has_message_location_source_and_caret():
    with pytest.raises(mj.TemplateError) as info:
        mj.chat_environment().from_string("hello\n  {{ x + 1 }} tail", name="t.jinja").render(x="s")
    assert str(info.value) == ('can only concatenate str (not "int") to str\n'
                               "  --> t.jinja:2:6\n"
                               "2 |   {{ x + 1 }} tail\n"
                               "         ^^^^^")


def test_caret_counts_terminal_columns_and_escapes_control_characters():
    with pytest.raises(mj.TemplateError) as info:
        mj.Environment().from_string("\u202e\x1b[2J '中文' {{ 1/0 }}").render()
    text = str(info.value).splitlines()
    assert text[2] == "1 | \\u202e\\u001b[2J '中文' {{ 1/0 }}"
    # gutter (4) + "\\u202e\\u001b[2J" (15) + " '中文' " (8 columns: CJK characters take two) + "{{ " (3)
    assert text[3] == " " * (4 + 15 + 8 + 3) + "^^^"


def test_long_lines_are_cropped_around_the_column():
    source = "x" * 5000 + "{{ 1/0 }}" + "y" * 5000
    with pytest.raises(mj.TemplateError) as info:
        mj.Environment().from_string(source).render()
    line, caret = str(info.value).splitlines()[2:4]
    assert len(line) < 140 and line.startswith("1 | …") and line.endswith("…")
    assert line[caret.index("^"):caret.index("^") + 3] == "1/0"


def test_raise_exception_message_is_verbatim():
    message = "bad input \x1b[31m at 0x7fffdeadbeef <x>"
    with pytest.raises(mj.TemplateError) as info:
        mj.ChatTemplate("{{ raise_exception(m) }}").render(MESSAGES, m=message)
    assert type(info.value) is mj.TemplateError and info.value.message == message
    with pytest.raises(mj.TemplateError) as info:
        mj.chat_environment().from_string("{{ raise_exception(lipsum) }}").render()
    assert info.value.message == "<function lipsum>"


def test_python_error_messages_never_show_addresses():
    with pytest.raises(mj.TemplateError) as info:
        mj.chat_environment().from_string("{{ [1].index(lipsum) }}").render()
    assert "0x" not in str(info.value) and isinstance(info.value, ValueError)


def test_a_hidden_address_is_not_kept_in_the_cause():
    with pytest.raises(mj.TemplateError) as info:
        mj.Environment().from_string("{{ f(lipsum) }}").render(f=lambda x: [].index(x))
    chain, error = [], info.value
    while error is not None:
        chain.append(str(error))
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    assert not any("0x" in text for text in chain), chain


def test_every_failure_is_a_template_error():
    with pytest.raises(mj.TemplateError):
        mj.Environment().from_string(b"{{ 1 }}")
    with pytest.raises(TypeError):
        mj.Environment().from_string(None)
    with pytest.raises(mj.TemplateError) as info:   # int()'s ValueError where Python limits the digits
        mj.Environment().from_string("{{ 1" + "0" * 5000 + " }}")
    assert isinstance(info.value, ValueError) == hasattr(sys, "set_int_max_str_digits")
    for bad in ("hi", None, 5, {"role": "user"}, ["hi"], [None], [[1, 2]]):
        with pytest.raises(mj.TemplateError):
            mj.ChatTemplate("{{ messages }}").render(bad)
    with pytest.raises(TypeError) as info:
        mj.Environment().from_string("x").render(5)
    assert isinstance(info.value, mj.TemplateError)
    with pytest.raises(mj.TemplateError):
        mj.Environment().from_string("x", globals=5)


def test_printing_limits_follow_each_render_in_its_own_thread():
    import threading
    results = {}
    tight = mj.Environment(limits=mj.Limits(max_string=100)).from_string("{{ x }}")
    roomy = mj.Environment().from_string("{{ x }}")

    def run(name, template):
        try:
            results[name] = len(template.render(x=list(range(1000))))
        except mj.LimitExceeded as exc:
            results[name] = exc.limit
    threads = [threading.Thread(target=run, args=(f"{kind}{i}", t))
               for i in range(4) for kind, t in (("tight", tight), ("roomy", roomy))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {k: v for k, v in results.items() if k.startswith("tight")} == {f"tight{i}": "max_string" for i in range(4)}
    assert {k: v for k, v in results.items() if k.startswith("roomy")} == {f"roomy{i}": 4890 for i in range(4)}


# ------------------------------------------------------------------------------------- the caller's data
HOSTILE = [
    "{{ messages.append(1) }}",
    "{{ messages[1].content.append(1) }}",
    "{{ messages[2].tool_calls[0].function.arguments.update({'a': 0}) }}",
    "{{ tools[0].function.pop('name') }}",
    "{% set ns = namespace(m=messages[0]) %}{% set ns.m = 1 %}{{ messages[0] }}",
    "{% for m in messages %}{% set m = 1 %}{% endfor %}{{ messages[0]['role'] }}",
    "{{ (messages|attr('clear'))() }}",
    "{{ messages|sort(attribute='role')|list }}{{ messages|reverse|list }}{{ tools|map(attribute='type')|list }}",
    "{{ messages[0]|dictsort }}{{ messages|groupby('role') }}{{ documents|tojson }}",
    "{% set x = messages + [1] %}{{ x|length }}{{ 1/0 }}",
    "{{ messages|map('tojson')|join }}{{ raise_exception('halfway') }}",
    "{{ 'a' * 10**9 }}",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_renders_never_change_the_callers_data(source):
    messages, tools, documents = copy.deepcopy(MESSAGES), copy.deepcopy(TOOLS), copy.deepcopy(DOCUMENTS)
    extra = {"custom": {"nested": [1, {"k": "v"}]}}
    extra_before = copy.deepcopy(extra)
    try:
        mj.ChatTemplate(source).render(messages, tools=tools, documents=documents, **extra)
    except mj.TemplateError:
        pass
    assert (messages, tools, documents, extra) == (MESSAGES, TOOLS, DOCUMENTS, extra_before)


def test_continue_final_message_leaves_the_conversation_untouched():
    messages = copy.deepcopy(MESSAGES) + [{"role": "assistant", "content": [{"type": "text", "text": "partial"}]}]
    before = copy.deepcopy(messages)
    source = ("{% for m in messages %}{{ m.content if m.content is string else m.content[0].text }}|{% endfor %}"
              "{{ raise_exception('x') if false }}")
    text = mj.ChatTemplate(source).render(messages, continue_final_message=True)
    assert text.endswith("partial") and messages == before


def test_identical_inputs_give_identical_output():
    source = ("{{ lipsum(2) }}{{ range(50)|random }}{{ messages|map(attribute='role')|unique|list }}"
              "{{ messages|tojson }}{{ messages|pprint }}")
    ct = mj.ChatTemplate(source)
    assert ct.render(MESSAGES) == ct.render(MESSAGES) == mj.ChatTemplate(source).render(copy.deepcopy(MESSAGES))


def test_a_chat_render_budget_grows_with_its_conversation():
    """Limits.steps_per_message: a long conversation gets the steps its length needs (a template cannot give
    itself more: its inputs are the caller's); steps_per_message=0 makes max_steps a fixed cap."""
    source = mj.seed_template("hermes4")
    messages = [{"role": ("user", "assistant")[i % 2], "content": f"turn {i}"} for i in range(2_000)]
    tight = mj.Limits(max_steps=50_000)
    assert mj.ChatTemplate(source, limits=tight).render(messages, bos_token="<s>").count("turn ") == 2_000
    with pytest.raises(mj.LimitExceeded) as caught:
        mj.ChatTemplate(source, limits=tight.replace(steps_per_message=0, steps_per_character=0)).render(messages, bos_token="<s>")
    assert caught.value.limit == "max_steps"


def test_split_size_check_knows_every_whitespace_character():
    """str.split() with no separator splits at any character str.isspace() accepts; methods.py writes them out
    (computing them at import cost a cold start ~1 ms), so the list must match the running Python's."""
    import sys
    from minijinja_py.runtime import methods
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    assert methods._SPACES == every
