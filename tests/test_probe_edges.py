"""Edge cases found by probing filters, methods and statements against Jinja2 (the transformers configuration,
and plain Environment() where it says so): each pins the same output, or the same kind of error, as Jinja2's.
"""

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
import jinja2.ext  # noqa: E402
import jinja2.sandbox  # noqa: E402
from differential_ref import mj_env, reference_env  # noqa: E402


def _outcome(render):
    try:
        return ("ok", render())
    except Exception as exc:  # noqa: BLE001 - the kind of error is the expectation
        return ("error", type(exc))


def assert_same(source, context=None):
    context = context or {}
    expected = _outcome(lambda: reference_env().from_string(source).render(context))
    got = _outcome(lambda: mj_env().from_string(source).render(context))
    if expected[0] == "ok":
        assert got == expected
    else:
        assert got[0] == "error" and issubclass(got[1], mj.TemplateError), got
        builtin = next((c for c in expected[1].__mro__ if c.__module__ == "builtins" and c is not Exception), None)
        if builtin is not None and builtin is not BaseException:
            assert issubclass(got[1], builtin), (got, expected)


# markupsafe's striptags: one pass from each "<": a comment runs from "<!--" to a "-->" after it (not inside the
# opener: "<!-->" is no comment), anything else to the next ">"; an opener without its closer ends the stripping
STRIPTAGS = ["a<b>c", "<<!-- c -->x", "a<!-->b-->c", "a<!--x<b>y-->z", "<b>a<c", "a<!-- x <b>b</b>",
             "x<!---->y", "<!-- a --><!-- b -->c", "a < b > c < d", "a<b<c>d>e", "<a href='>'>x</a>", "&lt;b&gt;<i>"]


@pytest.mark.parametrize("text", STRIPTAGS)
def test_striptags_as_markupsafe(text):
    assert_same("{{ t|striptags }}|{{ (t|safe).striptags() }}", {"t": text})


# Python rounds an int to a positive precision at once (it is its own value): no 10 ** precision is made, so no
# limit applies; a negative precision, or ceil/floor, makes the power and stays bounded by max_int_bits
@pytest.mark.parametrize("source", ["{{ 42|round(10 ** 6) }}", "{{ true|round(10 ** 7) }}", "{{ (10 ** 30)|round(10 ** 6) }}",
                                    "{{ 1234|round(-2) }}", "{{ 2.5|round(10 ** 6) }}", "{{ 42|round(3, 'floor') }}"])
def test_round_int_to_positive_precision(source):
    assert_same(source)


@pytest.mark.parametrize("source", ["{{ 42|round(-(10 ** 6)) }}", "{{ 42|round(10 ** 6, 'ceil') }}"])
def test_round_power_stays_limited(source):
    with pytest.raises(mj.LimitExceeded):
        mj_env().from_string(source).render()


# a group of |groupby is a tuple pprint does not know (Jinja2's has a __repr__ of its own): printed by repr, on one
# line however long, its dicts in their own order
@pytest.mark.parametrize("source", ["{{ users|groupby('a')|pprint }}", "{{ (users|groupby('a'))[0]|pprint }}",
                                    "{{ [users|groupby('a'), {'z': 1, 'b': users}]|pprint }}",
                                    "{{ users|groupby('a')|list|pprint }}", "{{ users|groupby('a')|map('list')|list|pprint }}"])
def test_pprint_of_groups(source):
    users = [{"name": "user number %d" % i, "a": i % 2, "text": "x" * 30} for i in range(4)]
    assert_same(source, {"users": users})


# a standard-library container the caller passes: Jinja2's pformat prints it on one line by its repr (a defaultdict's
# items in their order) when it fits in 80 columns, else lays it out over lines (that defaultdict's items sorted)
def _std_values(wide):
    import collections
    import dataclasses
    import types

    @dataclasses.dataclass
    class Point:
        x: int
        y: object
        hidden: int = dataclasses.field(default=0, repr=False)

    class Box(types.SimpleNamespace):
        pass

    n = 30 if wide else 2
    items = {f"k{9 - i % 10}{i}": i for i in range(n)}
    return {
        "dataclass": Point(1, list(range(n))), "OrderedDict": collections.OrderedDict(items),
        "defaultdict": collections.defaultdict(list, items), "Counter": collections.Counter(items),
        "deque": collections.deque(range(n), maxlen=50), "SimpleNamespace": types.SimpleNamespace(**items),
        "namespace subclass": Box(a=list(range(n))), "mappingproxy": types.MappingProxyType(items),
        "UserDict": collections.UserDict(items), "UserList": collections.UserList(range(n)),
        "ChainMap": collections.ChainMap(items, {"b": 1}), "bytes": bytes(range(4 * n)),
        "bytearray": bytearray(b"ab " * 3 * n), "nested": Point(types.SimpleNamespace(a=items), [Point(2, 3)] * n),
    }


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("kind", sorted(_std_values(False)))
@pytest.mark.parametrize("source", ["{{ x|pprint }}", "{{ [x]|pprint }}", "{{ {'b': x, 'a': [x]}|pprint }}"])
def test_pprint_of_std_containers(source, kind, wide):
    value = _std_values(wide)[kind]
    assert_same(source, {"x": value})
    env = jinja2.Environment()
    assert mj.Environment().from_string(source).render(x=value) == env.from_string(source).render(x=value)


def test_pprint_of_dataclass_keys():
    import dataclasses

    # a key pprint prints on one line, however long (its copy must hash as the key does)
    @dataclasses.dataclass(frozen=True)
    class Key:
        name: str

    value = {Key("k" * 90): list(range(30)), (Key("a"), 1): 2}
    assert_same("{{ x|pprint }}", {"x": value})


def test_pprint_of_std_containers_stays_bounded():
    import collections

    # a deque holding itself prints as in Jinja2 (on one line, or wrapped), and a wide print stays within max_string
    looped = collections.deque([1])
    looped.append(looped)
    for source in ("{{ x|pprint }}", "{{ [x, '%s']|pprint }}" % ("y" * 80)):
        assert_same(source, {"x": looped})
    env = mj.Environment(limits=mj.Limits(max_string=5000))
    with pytest.raises(mj.LimitExceeded):
        env.from_string("{{ x|pprint }}").render(x=collections.deque([collections.deque(range(300))] * 10))


class _SpanTracker(jinja2.ext.Extension):
    """{% generation %} as transformers records it: a span starts at the length of what the render has yielded so
    far (text buffered in a macro, a set block or a recursive loop is not yielded yet)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_record", []), [], [], body).set_lineno(lineno)

    def _record(self, caller):
        text = caller()
        start = sum(map(len, self.environment.yielded))
        self.environment.spans.append((start, start + len(text)))
        return text


def _reference_spans(source, messages):
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                       extensions=[_SpanTracker, jinja2.ext.loopcontrols])
    env.yielded, env.spans = [], []
    for piece in env.from_string(source).generate(messages=messages):
        env.yielded.append(piece)
    return "".join(env.yielded), env.spans


GENERATION_SPANS = [
    # where the spans already agree: at the top level, in a plain loop, in a buffer with no output before it
    "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}"
    "{% else %}{{ m.content }}{% endif %}{% endfor %}",
    "{% set s %}{% generation %}abc{% endgeneration %}{% endset %}[{{ s }}]",
]
GENERATION_SPANS_IN_BUFFERS = [
    # in a buffer (a macro, a call, set or filter block, a recursive loop), a span starts at the length of the
    # output yielded before the buffer's (transformers counts what the render has yielded; compile/composition.py
    # s_generation reads the render's own output)
    "abc{% filter upper %}d{% generation %}x{% endgeneration %}{% endfilter %}",
    "abc{% set v %}d{% generation %}x{% endgeneration %}{% endset %}{{ v }}",
    "{% macro m() %}{{ caller() }}{% endmacro %}abc{% call m() %}d{% generation %}x{% endgeneration %}{% endcall %}",
    "{% macro g(x) %}{% generation %}{{ x }}{% endgeneration %}{% endmacro %}{{ g('a') }}{{ g('bb') }}",
    "{% macro turn(m) %}<{{ m.role }}>{% generation %}{{ m.content }}{% endgeneration %}{% endmacro %}"
    "{% for m in messages %}{{ turn(m) }}{% endfor %}",
    "{% for m in messages recursive %}{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}",
]
_MESSAGES = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"},
             {"role": "assistant", "content": "z"}]


@pytest.mark.parametrize("source", GENERATION_SPANS + GENERATION_SPANS_IN_BUFFERS)
def test_generation_spans_as_transformers_records_them(source):
    text, spans = mj.ChatTemplate(source).render_with_generation_spans(_MESSAGES)
    assert (text, [tuple(span) for span in spans]) == _reference_spans(source, _MESSAGES)


class _Level(__import__("enum").IntEnum):
    LOW = 1


class _Ratio(float, __import__("enum").Enum):
    HALF = 0.5


def _caller_numbers():
    import decimal
    import fractions
    import uuid
    return {"level": _Level.LOW, "ratio": _Ratio.HALF, "dec": decimal.Decimal("2.50"), "frac": fractions.Fraction(3, 2),
            "uid": uuid.UUID(int=5), "big": decimal.Decimal("1e5000"), "nan": decimal.Decimal("nan")}


# `%` of a caller's number: an IntEnum member is no mapping (its Enum class's __getitem__ is the metaclass's), and a
# Decimal, a Fraction or a UUID is converted by its own __int__/__float__ for %d and %f, as Python converts it
@pytest.mark.parametrize("source", [
    "{{ '%d' % level }}", "{{ '%x|%f|%s' % (level, level, level) }}", "{{ '%d %.2f' % (ratio, ratio) }}",
    "{{ 'x' % level }}",
    "{{ '%d' % dec }}", "{{ '%.1f|%s|%r' % (dec, dec, dec) }}", "{{ '%d %.3e' % (frac, frac) }}", "{{ '%d' % uid }}",
    "{{ '%(a)d' % {'a': dec} }}", "{{ '%5.1f'|format(dec) }}", "{{ '%x' % dec }}", "{{ '%c' % dec }}",
    "{{ '%d' % big }}",
    "{{ '%d' % nan }}", "{{ '%(a)s' % level }}", "{{ '%d' % [dec] }}"])
def test_percent_format_of_callers_numbers(source):
    assert_same(source, _caller_numbers())


def _caller_containers():
    from collections import ChainMap, Counter, OrderedDict, UserDict, UserList, defaultdict, deque

    class Tags(set):
        pass

    class Frozen(frozenset):
        pass

    class Ordered(OrderedDict):
        pass

    class Counts(Counter):
        pass

    class Defaults(defaultdict):
        pass

    class Queue(deque):
        pass

    class Chain(ChainMap):
        pass

    class Record(UserDict):
        pass

    class Rows(UserList):
        pass

    class Blob(bytes):
        pass

    class Buffer(bytearray):
        pass

    class Plain(dict):
        pass

    w = "w" * 30
    return {"tags": Tags([w, w + "1", w + "2"]), "ints": Frozen(range(40)), "one": Frozen([1]), "none": Tags(),
            "od": Ordered(a=w, b=w, c=w), "counts": Counts({w: 1, w + "x": 2, w + "y": 3}),
            "dd": Defaults(list, {"a": w, "b": w, "c": w}), "queue": Queue([w] * 3, 5),
            "chain": Chain({"a": w, "b": w}, {"c": w}), "record": Record(a=w, b=w, c=w), "rows": Rows([w] * 3),
            "blob": Blob(b"x" * 100), "buffer": Buffer(b"y" * 100),
            "plain": Plain(a=w, b=w, c=w), "empty": [Ordered(), Counts(), Queue(), Rows(), Frozen()]}


# a caller's subclass of a set prints with its name, as Python's repr writes it (S({1}), S()); pprint lays out a
# caller's subclass of a standard-library container as it lays out the container, under the subclass's name
@pytest.mark.parametrize("name", list(_caller_containers()))
def test_callers_subclasses_of_containers(name):
    assert_same("{{ x }}|{{ x|pprint }}|{{ [x, x]|pprint }}|{{ {'k': [x]} }}", {"x": _caller_containers()[name]})


@__import__("dataclasses").dataclass(frozen=True, order=True)
class _Point:
    x: int
    label: str = "a"


@__import__("dataclasses").dataclass(frozen=True)
class _Box:
    inner: object


@__import__("dataclasses").dataclass(frozen=True, order=True)
class _Pair:
    a: int
    b: int


_LONG = "q" * 60
# pprint lays out a set's items (a hashable dataclass in a set too, sorted by its own `<`) but prints a dict's keys
# on one line
SET_ITEMS = [{_Point(2, _LONG), _Point(1, _LONG), _Point(3)}, frozenset({_Point(2, _LONG), _Point(1, _LONG)}),
             {(_Point(1, _LONG), 2), (_Point(0, _LONG), 3)}, {_Point(1, _LONG): {_Point(2, _LONG)}},
             {frozenset({_Point(1, _LONG)}): 1}, {_Box(_Point(1, _LONG))},
             {_Box(frozenset({_Point(1, _LONG), _Point(2, _LONG)}))},
             [{_Point(1, _LONG)}, {_Point(2, _LONG)}], {_Point(1)},
             {_Pair(i, -i) for i in range(5)}, frozenset({_Pair(i, 0) for i in range(4)}),   # in their hashes' order
             {_Pair(i, i) for i in range(9)}]   # laid out: sorted


@pytest.mark.parametrize("value", SET_ITEMS)
def test_pprint_of_dataclasses_in_sets(value):
    assert_same("{{ x|pprint }}|{{ x }}|{{ {'a': x}|pprint }}", {"x": value})


_PARTS = {"turn": "<{{ m.content }}>{% generation %}{{ m.content }}{% endgeneration %}",
          "turns": "{% for m in messages %}[{% generation %}{{ m.content }}{% endgeneration %}]{% endfor %}",
          "nested": "a{% include 'turn' %}b",
          "recursive": "{% for m in messages recursive %}r{% include 'turn' %}{% endfor %}",
          "in_block": "{% extends 'base' %}{% block b %}c{% include 'turn' %}d{% endblock %}",
          "base": "pre{% set m = messages[1] %}{% block b %}{% endblock %}post",
          "plain": "x{% generation %}P{% endgeneration %}y"}
# an included template's pieces are yielded as they come (Jinja2): a span in it starts after them, and after
# what was yielded before the include; in a buffer (a macro, a filter block) the buffer's start counts
GENERATION_IN_INCLUDES = [
    "abc{% for m in messages %}{% include 'turn' %}{% endfor %}",
    "abc{% include 'turns' %}xyz{% include 'turns' %}",
    "abc{% for m in messages %}{% include 'nested' %}{% endfor %}",
    "ab{% for m in messages %}{% include ['missing', 'turn'] %}{% endfor %}",
    "ab{% include 'recursive' %}",
    "ab{% include 'in_block' %}",
    "{% macro w(m) %}({% include 'turn' %}){% endmacro %}abc{% for m in messages %}{{ w(m) }}{% endfor %}",
    "{% filter upper %}ab{% for m in messages %}{% include 'turn' %}{% endfor %}{% endfilter %}",
    "ab{% set m = messages[1] %}{% include 'plain' without context %}{% include 'turn' %}{% include 'plain' %}",
]


@pytest.mark.parametrize("source", GENERATION_IN_INCLUDES)
def test_generation_spans_in_includes(source):
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                       loader=jinja2.DictLoader(_PARTS),
                                                       extensions=[_SpanTracker, jinja2.ext.loopcontrols])
    env.yielded, env.spans = [], []
    env.yielded.extend(env.from_string(source).generate(messages=_MESSAGES))
    ours = mj.chat_environment()
    ours.loader = mj.DictLoader(_PARTS)
    text, spans = ours.from_string(source).render_with_generation_spans(messages=_MESSAGES)
    assert (text, [tuple(span) for span in spans]) == ("".join(env.yielded), env.spans)


# transformers' raise_exception raises TemplateError(message): .message is the value given, a number or None too
@pytest.mark.parametrize("value", [5, 2.5, True, None, "text"])
def test_raise_exception_keeps_a_plain_message(value):
    with pytest.raises(jinja2.TemplateError) as expected:
        reference_env().from_string("{{ raise_exception(v) }}").render(v=value)
    with pytest.raises(mj.TemplateError) as got:
        mj_env().from_string("{{ raise_exception(v) }}").render(v=value)
    assert type(got.value) is mj.TemplateError
    assert got.value.message == expected.value.message and type(got.value.message) is type(expected.value.message)
    assert str(got.value).startswith(str(value) + "\n  --> <template>:1:")
    with pytest.raises(mj.TemplateError) as direct:
        mj.raise_exception(value)
    assert str(direct.value) == str(value) and direct.value.message == value


def test_pprint_of_unordered_dataclasses_in_a_set_is_stable():
    # pprint orders items that do not compare by their id() (Jinja2's text changes from run to run): ours orders
    # them by type and text, the same whatever their addresses
    texts = {mj_env().from_string("{{ x|pprint }}").render(x={_Box(i) for i in (3, 1, 2)} | {5, "a", _Box(_LONG)})
             for _ in range(20)}
    assert len(texts) == 1
    assert texts.pop().startswith("{5,\n 'a',\n _Box(inner='qqq")   # by type name, then by text
