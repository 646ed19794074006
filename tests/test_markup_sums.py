"""`+` chains that start with (or reach) a Markup — `"Use the function '"|safe + name + "' to '"|safe + text + ...`
(functionary's tools section) — against Jinja2: operators.py gathers their texts and joins them once
(_Chain.markup_sum), each plain str escaped as Markup + str escapes it, each step sized and charged as one
checked `+` is. Every operand kind in every position (plain and special-character strings, Markup, a caller's
str subclass, an object with __html__, one with __radd__, numbers, None, undefined), autoescape off (the chat
profile) and on, and the sandbox's limits at each step.
"""

import itertools

import pytest

import minijinja_py as mj
from minijinja_py.runtime.markup import Markup

jinja2 = pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402


class Text(str):
    """A caller's str subclass."""


class Html:
    """A caller's object that is safe HTML (not a str)."""

    def __html__(self):
        return "<html-obj>"

    def __str__(self):
        return "plain-obj"


class Adds:
    """A caller's object that takes part in `+` from the right."""

    def __radd__(self, other):
        return f"radd({other})"

    def __str__(self):
        return "adds"


VALUES = {
    "plain": "user", "special": "a<b & 'c' \"d\">", "empty": "", "markup": Markup("<m>"), "subclass": Text("<s>"),
    "html": Html(), "radd": Adds(), "int": 7, "none": None,
}

CHAINS = [
    "{{ '<a>'|safe + x }}",
    "{{ '<a>'|safe + x + y }}",
    "{{ '<a>'|safe + x + '<c>' + y + '>'|safe }}",
    "{{ \"Use '\"|safe + x + \"' to '\"|safe + y + \"'\\n\"|safe + z|tojson }}",
    "{{ x + '<a>'|safe + y + '&' }}",
    "{{ m + x + y + m }}",
    "{{ '<a>'|safe + x + undefined_name + y }}",
    "{{ '<a>'|safe + x + y.missing + '!' }}",
    "{% for t in ts %}{{ \"Use '\"|safe + t.x + \"' to '\"|safe + t.y + \"'\\n\"|safe + t|tojson }}{% endfor %}",
]


def _outcome(render):
    try:
        return "ok", render()
    except Exception:  # noqa: BLE001 - what must agree is that both fail
        return "error", None


def _context(first, second):
    x, y = VALUES[first], VALUES[second]
    return {"x": x, "y": y, "z": {"k": "<v>"}, "m": Markup("<&>"), "ts": [{"x": x, "y": y}, {"x": y, "y": x}]}


def _jsonable(value):
    return type(value) in (str, int, Markup, type(None))


@pytest.mark.parametrize("source", CHAINS)
@pytest.mark.parametrize("autoescape", [False, True])
def test_markup_chains_render_as_jinja2(source, autoescape):
    if autoescape:
        ours = mj.Environment(autoescape=True).from_string(source)
        theirs = jinja2.Environment(autoescape=True).from_string(source)
    else:
        ours, theirs = mj.chat_environment().from_string(source), reference_env().from_string(source)
    for first, second in itertools.product(sorted(VALUES), repeat=2):
        if "tojson" in source and not (_jsonable(VALUES[first]) and _jsonable(VALUES[second])):
            continue   # (a caller's object in tojson: not what these chains are about)
        context = _context(first, second)
        mine, expected = _outcome(lambda: ours.render(**context)), _outcome(lambda: theirs.render(**context))
        assert mine == expected, (source, first, second)


class Sub(Markup):
    """A caller's Markup subclass: its sums go through the checked `+` one step at a time."""


def _fails_on(env, source, limit, **context):
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(**context)
    assert info.value.limit == limit
    return info.value


@pytest.mark.parametrize("at", range(1, 5))
def test_each_step_of_a_markup_chain_is_sized_before_it_is_joined(at):
    """The step that makes the text longer than max_string fails, located at its `+`, as adding in turn (a
    caller's Markup subclass) fails it."""
    env = mj.Environment(limits=mj.Limits(max_string=100))
    source = "{{ m + a + b + c + d }}"
    context = {name: ("x" * 100 if index == at else "&" * 5) for index, name in enumerate("abcd", 1)}
    gathered = _fails_on(env, source, "max_string", m=Markup("<a>"), **context)
    in_turn = _fails_on(env, source, "max_string", m=Sub("<a>"), **context)
    assert str(gathered) == str(in_turn)
    assert "  " + "^" * (1 + 4 * at) + "\n" in str(gathered) + "\n"   # the span of the at-th `+`


def test_a_markup_chain_that_fits_is_joined_with_each_str_escaped():
    env = mj.Environment(limits=mj.Limits(max_string=200))
    out = env.from_string("{{ '<a>'|safe + a + '&'|safe + b + c }}").render(a="<" * 20, b=Markup("<b>"), c="'")
    assert out == "<a>" + "&lt;" * 20 + "&<b>&#39;"


def test_a_long_markup_chain_counts_against_max_output():
    env = mj.Environment(limits=mj.Limits(max_output=500))
    source = "{% for i in range(n) %}{{ '<a>'|safe + a + b }}{% endfor %}"
    assert env.from_string(source).render(n=2, a="x" * 100, b="&" * 10) == ("<a>" + "x" * 100 + "&amp;" * 10) * 2
    _fails_on(env, source, "max_output", n=4, a="x" * 100, b="&" * 10)


def _least_steps(source, **context):
    # The smallest max_steps the render fits in (the budget a render of this source and context is charged).
    low, high = 1, 1 << 16
    while low < high:
        middle = (low + high) // 2
        try:
            mj.Environment(limits=mj.Limits(max_steps=middle)).from_string(source).render(**context)
        except mj.TemplateError as exc:
            assert exc.limit == "max_steps"
            low = middle + 1
        else:
            high = middle
    return low


def test_a_markup_chain_is_charged_as_its_steps_one_at_a_time():
    """Gathering the texts of a Markup chain charges what adding them in turn does (a caller's Markup subclass
    is added in turn by the checked `+`)."""
    source = "{{ m + a + b + c + m }}"
    context = {"a": "x" * 700, "b": "<" * 300, "c": Markup("y" * 900)}
    gathered = _least_steps(source, m=Markup("<m>"), **context)
    in_turn = _least_steps(source, m=Sub("<m>"), **context)
    assert gathered == in_turn > 100


def test_a_printed_markup_sum_is_its_text_and_a_markup_subclass_prints_by_its_own_str():
    """Printing a Markup takes its text (output.py, without to_str's walk); a caller's Markup subclass that
    defines __str__ is printed by it, as Jinja2 prints markupsafe's."""
    import markupsafe

    def loud(base):
        return type("Loud", (base,), {"__slots__": (), "__str__": lambda self: base.__str__(self).upper()})

    source = "{{ m }}|{{ m + x }}|{{ '<a>'|safe + x + m }}|{{ '<a>'|safe + x }}"
    ours = mj.chat_environment().from_string(source).render(m=loud(Markup)("<m>"), x="<x>")
    theirs = reference_env().from_string(source).render(m=loud(markupsafe.Markup)("<m>"), x="<x>")
    assert ours == theirs == "<M>|<M>&LT;X&GT;|<a>&lt;x&gt;<M>|<a>&lt;x&gt;"


def test_a_long_text_escaped_again_is_found_by_its_identity():
    # markup.escaped_text: the escape of a long str (the JSON text textcache hands out again each render) is kept for
    # that object: the same object gives the same escape, another object of other content its own, at most
    # _RECENT_ENTRIES are kept, and a chain with it renders as Jinja2's in every render
    from minijinja_py.runtime import markup
    long_text = '{"a": "<b> & \'c\'"}' * 20
    first = markup.escaped_text(long_text)
    assert first == markup._escaped(long_text) and markup.escaped_text(long_text) is first
    other = long_text.replace("a", "x")
    assert markup.escaped_text(other) == markup._escaped(other)
    for number in range(3 * markup._RECENT_ENTRIES):
        markup.escaped_text(f"<{number}>" * 40)
        assert len(markup._recent) <= markup._RECENT_ENTRIES
    source = "{% for t in tools %}{{ \"Use '\"|safe + t.name + \"'\\n\"|safe + t|tojson }}{% endfor %}"
    tools = [{"name": "f<g>", "parameters": {"x": "<'&\">" * 30}}, {"name": "h", "parameters": {"y": "&" * 200}}]
    ours = mj.chat_environment().from_string(source)
    theirs = reference_env().from_string(source)
    for _ in range(3):
        assert ours.render(tools=tools) == theirs.render(tools=tools)
    tools[0]["parameters"]["x"] = "changed <>"
    assert ours.render(tools=tools) == theirs.render(tools=tools)
