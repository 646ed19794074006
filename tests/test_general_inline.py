"""The general closures that read their operands in line (compile/output.py's print run of reads and `+` chains,
operators.py's short chains, comparisons.py's `in`, statements.py's {% set %} of a read or of a str-method filter
of one) against Jinja2, with the kernels off (kernels.select.configure(general_only=True)) so that the general
closures run: a lattice of values — plain strings short and long, numbers, None, a missing key, an undefined
variable, Markup, a caller's str subclass, a dict, a list — for each snippet, under the chat profile's
configuration (tests/support/differential_ref.py). A value the in-line read does not take goes to the general
closure, which must answer (or fail) as Jinja2 does.
"""

import pytest

import minijinja_py as mj
from minijinja_py.kernels import select
from minijinja_py.runtime.markup import Markup

jinja2 = pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402


class Text(str):
    """A caller's str subclass (not a plain str: the in-line paths leave it to the general closure)."""


VALUES = {
    "short": "user", "long": "x" * 1500, "empty": "", "int": 7, "none": None, "markup": Markup("<b>"),
    "subclass": Text("sub"), "dict": {"a": 1}, "list": ["</think>"], "think": "a</think>b",
}

SNIPPETS = [
    "{% for m in ms %}{{ '<r>' + m['v'] + '</r>' + m['w'] }}{% endfor %}",
    "{% for m in ms %}{{ '<r>' + m.v + '\n' }}{% endfor %}",
    "{{ '<r>' + v + '|' + w }}",
    "{{ v + w }}",
    "{% for m in ms %}<|im_start|>{{ m.v }}\n{{ m['w'] }}<|im_end|>\n{% endfor %}",
    "{% for m in ms %}[{{ '<r>' + m.v }}|{{ 1 }}]{% endfor %}",
    "<{{ v }}>{{ w }}",
    "{% set s = '[' + v + ']' %}{{ s }}",
    "{% for m in ms %}{% if '</think>' in m['v'] %}T{% else %}F{% endif %}{% endfor %}",
    "{% if 'a' in v %}T{% endif %}{% if w not in v %}N{% endif %}",
    "{% for m in ms %}{% set r = m['v'] | lower %}{% set r = r | upper %}{{ r }}{% endfor %}",
    "{% for m in ms %}{% set r = m['v'] %}{% set q = r %}{{ q }}{% endfor %}",
]


def _context(first, second):
    v, w = VALUES[first], VALUES[second]
    messages = [{"v": v, "w": w}, {"w": w}, {"v": w, "w": v}]
    return {"ms": messages, "v": v, "w": w}


def _outcome(render):
    try:
        return "ok", render()
    except Exception as exc:  # the kind of failure, as each engine names it
        return "error", type(exc).__name__


def _kind(outcome):
    """An error's class name differs between the engines (TemplateError subclasses here, Python's there):
    what must agree is that both fail."""
    return outcome if outcome[0] == "ok" else ("error",)


@pytest.fixture(autouse=True, scope="module")
def general_only():
    previous = select.configure(general_only=True)
    yield
    select.configure(general_only=previous[0])


@pytest.mark.parametrize("source", SNIPPETS)
@pytest.mark.parametrize("first", sorted(VALUES))
def test_in_line_reads_match_jinja2(source, first):
    _renders_as_jinja2(source, (first,))


def _renders_as_jinja2(source, firsts=tuple(sorted(VALUES))):
    env, reference = mj.chat_environment(), reference_env()
    ours, theirs = env.from_string(source), reference.from_string(source)
    for first in firsts:
        for second in sorted(VALUES):
            context = _context(first, second)
            mine = _outcome(lambda: ours.render(**context))
            expected = _outcome(lambda: theirs.render(**context))
            assert _kind(mine) == _kind(expected), (source, first, second, mine, expected)


@pytest.mark.parametrize("source", [
    "{{ '<r>' + v + '</r>' + w }}", "{{ '<r>' + v }}", "<r>{{ v }}</r>{{ w }}",
    "{% for m in ms %}{{ '<r>' + m['v'] + '</r>' + m['w'] }}{% endfor %}",
])
def test_the_in_line_print_is_counted_against_max_output(source):
    env = mj.Environment(limits=mj.Limits(max_output=60))
    short = {"v": "abcdefghij", "w": "klmnopqrst", "ms": [{"v": "abcdefghij", "w": "klmnopqrst"}]}
    assert env.from_string(source).render(**short).startswith("<r>abcdefghij")
    long = {"v": "a" * 70, "w": "b", "ms": [{"v": "a" * 20, "w": "b" * 20}] * 3}
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(**long)
    assert info.value.limit == "max_output"


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m['v'] == 'user' %}U{% endif %}{% if m.w != 7 %}W{% else %}-{% endif %}{% endfor %}",
    "{% if v == 'user' %}U{% else %}O{% endif %}{% if w == none %}N{% endif %}{% if v != true %}T{% endif %}",
])
def test_if_equal_matches_jinja2(source):
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m['v'] == 'user' %}U{% elif m.w == 7 %}S{% elif m.v %}T{% else %}-{% endif %}{% endfor %}",
    "{% if v == 'user' %}U{% elif v != none %}N{% endif %}{% if w is string %}s{% elif w == 7 %}7{% endif %}",
])
def test_if_chain_of_equalities_matches_jinja2(source):
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m['v'] == 'user' and m.w %}A{% elif m.w != 7 or m.v == none %}O{% endif %}{% endfor %}",
    "{% if v == 'user' and w == 7 and v %}A{% endif %}{% if v != 'x' or w == 'user' %}O{% endif %}",
])
def test_and_or_of_equalities_matches_jinja2(source):
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m['v'] == 'user' %}U{% elif m['v'] == 'sub' %}S{% elif m['v'] == 'user' %}X"
    "{% else %}-{% endif %}{% endfor %}",
    "{% if w == 7 %}7{% elif w == 8 %}8{% endif %}{% if v == 'user' %}U{% elif v == '' %}E{% else %}O{% endif %}",
])
def test_if_chain_of_one_subject_matches_jinja2(source):
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% for x in m.v %}[{{ x }}]{% endfor %}|{% endfor %}",
    "{% for m in ms %}{% for x in m['v'] %}{{ loop.index }}{% else %}E{% endfor %}{% endfor %}",
    "{% for x in v %}{{ x }}{% endfor %}{% for x in nothing %}y{% else %}n{% endfor %}{% for x in w %}{% endfor %}",
])
def test_loops_over_nothing_match_jinja2(source):
    """A loop over an undefined or an empty list, dict or string runs nothing (loops.py returns at once where
    there is no else); any other value iterates, or fails, as in Jinja2."""
    _renders_as_jinja2(source)


def test_a_loop_over_a_strict_undefined_still_fails():
    env = mj.Environment(undefined=mj.StrictUndefined)
    with pytest.raises(mj.UndefinedError):
        env.from_string("{% for m in ms %}{% for x in m.tool_calls %}{% endfor %}{% endfor %}").render(ms=[{}])


@pytest.mark.parametrize("source", [
    "{{ '<a>'|safe + v + \"'\"|safe + w }}",
    "{% for m in ms %}{{ \"&'\"|safe + m['v'] + '\"' + m.w + '<'|safe }}{% endfor %}",
    "{{ v + '<b>'|safe + w + '>' }}",
    "{{ '<'|safe + ' x '|trim + v|safe + w }}",
])
def test_markup_chains_match_jinja2(source):
    """`+` chains that reach a Markup: the texts after it escaped and joined once (operators.py), |safe and
    str-method filters of string constants computed when the template compiles (calls.py)."""
    _renders_as_jinja2(source)


def test_a_markup_chain_is_sized_before_it_is_joined():
    env = mj.Environment(limits=mj.Limits(max_string=100))
    source = "{{ '<a>'|safe + v + w + v }}"
    assert env.from_string(source).render(v="x" * 30, w="&" * 5) == "<a>" + "x" * 30 + "&amp;" * 5 + "x" * 30
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(v="x" * 40, w="y" * 40)
    assert info.value.limit == "max_string"


def test_a_loop_asks_nothing_of_a_callers_object_before_iterating_it():
    """The loop's shortcut for nothing to iterate looks at the type first: a caller's object is only iterated."""
    asked = []

    class Items:
        def __bool__(self):
            asked.append("bool")
            return False

        def __iter__(self):
            asked.append("iter")
            return iter(["a"])

    assert mj.Environment().from_string("{% for x in v %}{{ x }}{% endfor %}").render(v=Items()) == "a"
    assert asked == ["iter"]


@pytest.mark.parametrize("source", [
    "{% for k in v if k not in ['a', 'u'] %}[{{ k }}]{% else %}E{% endfor %}",
    "{% for k in w if k in v %}{{ k }}{% if k == 'e' %}{% break %}{% endif %}{% endfor %}|"
    "{% for m in ms if m.v is defined %}{{ m.w }}{% else %}E{% endfor %}",
    "{% macro r(d, h) %}{% for k in d if k not in h %}<{{ k }}={{ d[k] }}>{% endfor %}{% endmacro %}"
    "{{ r(v, ['a']) }}{{ r(w, ['user']) }}{{ r(ms[0], ['v']) }}",
    "{% for k in v if k != 'x' %}{% if k == 'u' %}{% continue %}{% endif %}{{ k }}{% else %}E{% endfor %}",
    "{% for k in v if k %}{% for m in ms if m.w != k %}{{ m.w }}{% endfor %};{% endfor %}",
    # two names (the pair yielded in line), with `loop`: through the filter's generator and the loop context
    "{% for k, x in v|items if k != 'b' %}{{ k }}={{ x }}{% if not loop.last %},{% endif %}{% endfor %}",
    "{% for a, b in [('u', 2), ('', 3), v] if a %}{{ a }}{{ b }}{{ loop.index }}/{{ loop.length }}{% endfor %}",
])
def test_filtered_loops_match_jinja2(source):
    """A loop filter of one name before a body without `loop` is tested in the walk itself (loops.py:
    _walk_filtered), item by item as the body runs, over every kind of iterable (a dict's keys, a string's
    characters, a list; an int or None fails)."""
    _renders_as_jinja2(source)


def test_a_filtered_loop_sees_what_its_body_changed():
    """The filter runs as the loop pulls each item: what the body appended is filtered, and a dict the body
    grows fails as Jinja2's does."""
    env = mj.Environment(immutable=False, extensions=["jinja2.ext.do"])
    reference = reference_env()
    source = "{% for x in xs if x != 2 %}{% do xs.append(2) %}{% do xs.append(3) if x == 1 %}{{ x }},{% endfor %}"
    assert env.from_string(source).render(xs=[1]) == "1,3,"
    grows = "{% for k in d if k != 'b' %}{% do d.update({k + k: 1}) %}{{ k }}{% endfor %}"
    with pytest.raises(mj.TemplateError, match="changed size during iteration"):
        env.from_string(grows).render(d={"a": 1})
    with pytest.raises(RuntimeError, match="changed size during iteration"):
        jinja2.sandbox.SandboxedEnvironment(extensions=["jinja2.ext.do"]).from_string(grows).render(d={"a": 1})
    assert reference.from_string("{% for k in d if k != 'b' %}{{ k }}{% endfor %}").render(d={"a": 1, "b": 2}) == \
        env.from_string("{% for k in d if k != 'b' %}{{ k }}{% endfor %}").render(d={"a": 1, "b": 2}) == "a"


@pytest.mark.parametrize("source", [
    "{{ 1 ~ v ~ none ~ '|' ~ w ~ 2.5 }}",
    "{{ '<' ~ v ~ '>' ~ (w|string) ~ '</' ~ v ~ '>' }}",
    "{% for m in ms %}{{ m.v ~ m['w'] ~ true }}{% endfor %}",
])
def test_concatenations_match_jinja2(source):
    """`~` lays its constants out once and prints each operand (str() of it) in place: constants that are not
    text (`1 ~ x`) are printed too."""
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% set h = [v, 'x'] %}{% if w in h %}I{% endif %}{% if 'user' not in [w] %}N{% endif %}"
    "{% for m in ms %}{% if m.v in ['user', 'sub'] %}S{% endif %}{% if m.w not in h %}O{% endif %}{% endfor %}",
])
def test_a_string_in_a_list_matches_jinja2(source):
    _renders_as_jinja2(source)


def test_a_string_in_a_list_pays_for_its_scan():
    env = mj.Environment(limits=mj.Limits(max_steps=40))
    source = "{% if 'z' in xs %}Y{% else %}N{% endif %}"
    assert env.from_string(source).render(xs=["a"] * 20) == "N"
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(xs=["a"] * 60)
    assert info.value.limit == "max_steps"


class Flag:
    """A caller's object that counts how often its truth is taken."""

    def __init__(self, value, log):
        self.value, self.log = value, log

    def __bool__(self):
        self.log.append(self.value)
        return self.value

    def __str__(self):
        return f"Flag({self.value})"


@pytest.mark.parametrize("source", [
    "{% if not (a or b or c) %}N{% else %}Y{% endif %}",
    "{% if a and (b or not c) %}Y{% elif not (a and b) %}N{% endif %}",
    "{{ 'Y' if not (a or b) and c else 'N' }}",
    "{% for x in [1, 2] if a or b %}{{ x }}{% endfor %}",
])
@pytest.mark.parametrize("values", [(True, False, True), (False, False, False), (False, True, False),
                                    (True, True, True)])
def test_conditions_take_each_truth_as_jinja2_does(source, values):
    """In an if, a conditional expression or a loop filter, Jinja2's Python takes each operand's truth once, in
    order (CPython compiles and/or/not there into jumps), where the truth of a value `not (a or b)` took a's
    truth three times."""
    log, theirs = [], []
    ours = mj.chat_environment().from_string(source).render(**dict(zip("abc", (Flag(v, log) for v in values))))
    expected = reference_env().from_string(source).render(**dict(zip("abc", (Flag(v, theirs) for v in values))))
    assert (ours, log) == (expected, theirs)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.index0 % 2 }}{{ loop.index - 1 }}"
    "{% endfor %}",
    "{{ loop.index }}{% set loop = v %}{{ loop.first }}{{ v - 1 }}{{ w % 2 }}{{ v // 0 }}",
])
def test_loop_counters_and_int_constants_match_jinja2(source):
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{{ m.v|length }}|{{ m['w']|tojson }}|{{ m.v|string }}{% endfor %}",
    "{{ v|length }}{{ w|tojson }}{{ nothing|length }}{% for m in ms %}{{ m.missing|tojson }}{% endfor %}",
])
def test_filters_of_reads_match_jinja2(source):
    """x|f without arguments where x is a variable of this frame or a key of one: read in line (calls.py), every
    other value through the general read."""
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m['v'] == 'user' %}U{% else %}{% if m.v == 'sub' %}S{% else %}-{% endif %}{% endif %}"
    "{% endfor %}",
    "{% for m in ms %}{% if m.v == 7 %}7{% elif m.w == 'user' %}W{% else %}{% if m.v %}T{% elif m.w and m.v != 'x' %}"
    "A{% else %}{% if m.w == none %}N{% endif %}{% endif %}{% endif %}{% endfor %}",
    "{% if v == 'user' %}U{% else %}{% if w is string %}s{% endif %}{% endif %}"
    "{% if v %}T{% else %}{% if w %}W{% endif %}X{% endif %}",
    "{% for m in ms %}{% if m.v == 'user' %}{% set m = {'v': 'sub'} %}U{% else %}{% if m.v == 'sub' %}S{% endif %}"
    "{% endif %}{% if m.v == 'sub' %}!{% endif %}{% endfor %}",
])
def test_an_if_in_an_else_matches_jinja2(source):
    """`{% else %}{% if %}`: the inner if's branches compiled as the outer's elifs (conditionals.if_parts) — the
    same tests in the same order, and else blocks holding more than the if left alone."""
    _renders_as_jinja2(source)


class Counted(dict):
    """A caller's mapping that logs every key read (not a plain dict: every test reads it again)."""

    def __init__(self, log, **items):
        super().__init__(**items)
        self.log = log

    def __getitem__(self, key):
        self.log.append(key)
        return super().__getitem__(key)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m.role == 'a' %}A{% else %}{% if m.role == 'b' %}B{% else %}{% if m.role == 'c' %}C"
    "{% endif %}{% endif %}{% endif %}{% endfor %}",
    "{% for m in ms %}{% if m.role == 'a' and m.x %}A{% else %}{% if m.role == 'b' or m.x %}B{% endif %}{% endif %}"
    "{% endfor %}",
    "{% for m in ms %}{% if m.x and m.role %}A{% endif %}{% if m.role == 'b' or m.x %}B{% endif %}{% endfor %}",
])
def test_branch_tests_read_a_callers_mapping_as_jinja2_does(source):
    """Each test of a flattened if/else chain, and each operand of a two-operand and/or, reads a caller's
    mapping as often, and in the same order, as Jinja2's compiled Python does."""
    roles = ("a", "b", "c", "d")
    log, theirs = [], []
    ours = mj.chat_environment().from_string(source).render(
        ms=[Counted(log, role=r, x=r > "b") for r in roles])
    expected = reference_env().from_string(source).render(ms=[Counted(theirs, role=r, x=r > "b") for r in roles])
    assert (ours, log) == (expected, theirs)


@pytest.mark.parametrize("source", [
    "{% if a and b %}Y{% else %}N{% endif %}",
    "{% if a or b %}Y{% endif %}{% if not a %}!{% endif %}",
    "{% if a and b %}Y{% elif b or c %}B{% endif %}",
    "{% if a is defined and b %}Y{% endif %}{% if nothing is defined %}D{% else %}U{% endif %}",
])
@pytest.mark.parametrize("values", [(True, False, True), (False, False, False), (False, True, False),
                                    (True, True, True)])
def test_two_operand_chains_take_each_truth_as_jinja2_does(source, values):
    """A two-operand and/or (conditionals._chain_two) and an if whose test is a bool (_if_boolean): each
    operand's truth taken once, in order, up to the one that decides."""
    log, theirs = [], []
    ours = mj.chat_environment().from_string(source).render(**dict(zip("abc", (Flag(v, log) for v in values))))
    expected = reference_env().from_string(source).render(**dict(zip("abc", (Flag(v, theirs) for v in values))))
    assert (ours, log) == (expected, theirs)


@pytest.mark.parametrize("source", [
    "{% if v == 'user' and w %}A{% endif %}{% if v or w == 7 %}B{% endif %}{% if w == none or v != 'x' %}C{% endif %}",
    "{% for m in ms %}{% if m.v and m['w'] == 'user' %}A{% elif m.w == 7 or m.v %}B{% else %}-{% endif %}{% endfor %}",
])
def test_two_operand_chains_match_jinja2(source):
    _renders_as_jinja2(source)


def test_a_strict_undefined_fails_in_a_two_operand_chain():
    env = mj.Environment(undefined=mj.StrictUndefined)
    for source in ("{% if v == 'a' and nothing %}A{% endif %}", "{% if nothing or v %}A{% endif %}",
                   "{% if v == 'b' %}B{% else %}{% if nothing %}N{% endif %}{% endif %}"):
        with pytest.raises(mj.UndefinedError):
            env.from_string(source).render(v="a")


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if not m.v %}E{% else %}F{% endif %}{% if not m['w'] %}W{% endif %}"
    "{% if not loop.last %},{% endif %}{{ loop.last }}{% endfor %}",
    "{% if not v %}N{% endif %}{% if not nothing %}U{% endif %}{% if not (v) == w %}Q{% endif %}"
    "{% if not w is string %}S{% else %}s{% endif %}",
])
def test_if_not_and_loop_last_match_jinja2(source):
    """{% if not x %} takes x's truth in the if (conditionals._if_operand); loop.last read in line before a list's end
    (expressions._loop_counter)."""
    _renders_as_jinja2(source)


@pytest.mark.parametrize("source", [
    "{% for x in xs %}{% do xs.append(9) if loop.first %}{{ x }}{% if not loop.last %},{% endif %}{{ loop.last }}"
    "{% endfor %}",
    "{% for x in xs %}{% do xs.pop() if loop.first %}{{ x }}{% if not loop.last %},{% else %}.{% endif %}"
    "{% endfor %}",
])
def test_loop_last_sees_the_list_change_under_it_as_jinja2(source):
    """The mutable profile: a list that grows or shrinks during the loop; loop.last read in line looks at it
    live, as Jinja2's does."""
    items, reference_items = [1, 2, 3], [1, 2, 3]
    ours = mj.Environment(immutable=False, extensions=["do"]).from_string(source).render(xs=items)
    theirs = jinja2.sandbox.SandboxedEnvironment(extensions=["jinja2.ext.do"]).from_string(source).render(
        xs=reference_items)
    assert (ours, items) == (theirs, reference_items)


def test_a_strict_undefined_fails_under_if_not():
    with pytest.raises(mj.UndefinedError):
        mj.Environment(undefined=mj.StrictUndefined).from_string("{% if not nothing %}N{% endif %}").render()


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m.v == 'user' and m.w %}A{% elif m.v == 'sub' %}S{% elif m.v == 'user' %}U"
    "{% elif m.v == '' and m.w == 7 and m.v != 'x' %}E{% else %}-{% endif %}{% endfor %}",
    "{% for m in ms %}{% if m['v'] == 'user' and m.w == 'user' %}A{% elif m.w == 7 and m.v %}S{% elif m.v == 'sub' %}"
    "U{% endif %}{% endfor %}",
    "{% if w == 7 and v %}7{% elif w == 8 %}8{% elif w == 7 %}s{% endif %}",
    "{% for m in ms %}{% if m.v == 'user' or m.v == 'sub' %}A{% elif m.v == '' %}E"
    "{% elif m.v == 'x' or m.v == 'user' %}X{% else %}-{% endif %}{% endfor %}",
    "{% for m in ms %}{% if m.v == 'sub' and m.w %}S{% elif m.v == 'user' or m.v == 'sub' or m.v == '' %}O"
    "{% endif %}{% endfor %}",
])
def test_a_chain_of_one_subject_with_and_rests_matches_jinja2(source):
    """_one_subject with tests that go on after their equality (`m.role == 'assistant' and m.tool_calls`) or that
    are an or of equalities (`m.role == 'user' or m.role == 'system'`)."""
    _renders_as_jinja2(source)


SUBJECT_CHANGED_BY_A_REST = (
    "{% for m in ms %}{% if m.role == 'a' and flip(m) %}A{% elif m.role == 'b' %}B{% elif m.role == 'a' %}a"
    "{% else %}-{% endif %}{{ m.role }},{% endfor %}")


def test_a_rest_that_changes_the_subject_is_seen_by_the_later_tests():
    """A caller's function in the rest of a test changes the subject: the later tests read it again, as
    Jinja2's do (the subject is read once only up to the first test that runs more than a comparison)."""
    def flip(m):
        m["role"] = "b" if m["role"] == "a" else "a"
        return False

    def data():
        return [{"role": "a"}, {"role": "b"}, {"role": "c"}]

    ours = mj.chat_environment().from_string(SUBJECT_CHANGED_BY_A_REST).render(ms=data(), flip=flip)
    theirs = reference_env().from_string(SUBJECT_CHANGED_BY_A_REST).render(ms=data(), flip=flip)
    assert ours == theirs == "Bb,Bb,-c,"


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m.role == 'a' and m.x %}A{% elif m.role == 'b' %}B{% elif m.role == 'a' %}a"
    "{% elif m.role == 'c' and m.x %}C{% endif %}{% endfor %}",
    "{% for m in ms %}{% if m.role == 'a' and m.x %}A{% elif m.role == 'b' or m.role == 'a' %}B"
    "{% elif m.role == 'c' %}C{% endif %}{% endfor %}",
])
def test_a_chain_of_one_subject_reads_a_callers_mapping_as_jinja2_does(source):
    roles = ("a", "b", "c", "d")
    log, theirs = [], []
    ours = mj.chat_environment().from_string(source).render(ms=[Counted(log, role=r, x=r > "b") for r in roles])
    expected = reference_env().from_string(source).render(ms=[Counted(theirs, role=r, x=r > "b") for r in roles])
    assert (ours, log) == (expected, theirs)


@pytest.mark.parametrize("source", [
    "{% for m in ms %}{% if m.v is string %}S{% elif m['w'] is not none %}N{% endif %}{{ m.v is defined }}"
    "{{ m.w is not mapping }}{{ m.missing is undefined }}{% endfor %}",
    "{{ v is string }}{{ nothing is defined }}{{ w is number }}{% set x = v %}{{ x is not sequence }}",
])
def test_type_tests_of_reads_match_jinja2(source):
    """`m.content is string`: the operand read in line (calls.type_test), any other value through its closure."""
    _renders_as_jinja2(source)


def test_a_strict_undefined_under_a_type_test_of_a_read():
    source = "{{ m.x is defined }}{{ m.v is string }}{{ m.x is string }}{{ m.x is not none }}"
    ours = mj.Environment(undefined=mj.StrictUndefined).from_string(source).render(m={"v": "a"})
    theirs = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(source).render(m={"v": "a"})
    assert ours == theirs == "FalseTrueFalseTrue"
