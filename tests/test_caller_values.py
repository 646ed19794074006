"""Values of the caller's own classes that the case files cannot spell, read as Jinja2 reads them: an object with
__html__ marked safe is its __html__() text (markupsafe's Markup(value)), not its str(); classes, built-in
functions and the methods of objects print as Python prints them where Python's repr shows no address. Compared with Jinja2's
sandbox as transformers configures it."""

import collections
import enum
import functools
import math
import re
import threading
import types
import weakref
from decimal import Decimal

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
from differential_ref import assert_renders_as_reference, reference_env  # noqa: E402  (Jinja2, as transformers has it)


class Html:
    def __html__(self):
        return "<b>html</b>"

    def __str__(self):
        return "<i>str</i>"


@pytest.mark.parametrize("source", [
    "{{ h|safe }} {{ h|e }} {{ h }} {{ h|string }}",
    "{{ (h|safe) ~ '<' }} {{ [h|safe]|join }} {{ h|safe|length }} {{ (h|safe).striptags() }}",
])
def test_an_object_with_html_marked_safe(source):
    ours = mj.chat_environment().from_string(source).render(h=Html())
    assert ours == reference_env().from_string(source).render(h=Html())


def test_an_object_with_html_marked_safe_under_autoescape():
    source = "{{ h|safe }}|{{ h }}|{{ '<' ~ (h|safe) }}"
    ours = mj.Environment(autoescape=True).from_string(source).render(h=Html())
    assert ours == jinja2.Environment(autoescape=True).from_string(source).render(h=Html())


class Shown:
    def __repr__(self):
        return "Shown()"

    def method(self):
        return 1


class Color(enum.Enum):
    RED = 1


def _printables():
    return {"cls": Shown, "enum": Color, "builtin": len, "floor": math.floor, "types": [int, dict, Decimal],
            "obj": Shown()}


@pytest.mark.parametrize("source", [
    "{{ cls }} {{ enum }} {{ builtin }} {{ floor }} {{ types }}",
    "{{ obj.method }} {{ [obj.method] }} {{ '%s' % obj.method }}",
    "{% for x in [1] %}{{ loop.cycle }} {{ loop.changed|string }}{% endfor %}",
])
def test_printed_without_an_address_as_python_prints_them(source):
    # classes, built-in functions and the methods of objects with their own repr: no address in Python's repr,
    # so the same text as Jinja2's
    ours = mj.chat_environment().from_string(source).render(_printables())
    assert ours == reference_env().from_string(source).render(_printables())


class Level(enum.IntEnum):
    LOW = 1


class Shade(float, enum.Enum):
    HALF = 0.5


class Tagged(int):
    def __repr__(self):
        return "Tagged()"


def test_pprint_orders_keys_as_pprint_compares_them():
    # keys of mixed kinds: pprint sorts by the keys themselves (an IntEnum compares with a float), not by the
    # text they print as
    source = "{{ d|pprint }}"
    data = lambda: {"d": {Level.LOW: Shade.HALF, 2.5: "f", Tagged(4): "t", "s": 1, "a": Level.LOW}}  # noqa: E731
    assert mj.chat_environment().from_string(source).render(data()) == \
        reference_env().from_string(source).render(data())


def byte_values():
    return {"ba": bytearray(b"ab\tca"), "bs": b"ab\tca", "pat": b"a", "rep": b"xyz", "sep": b"c"}


# Jinja2's sandbox hands out the methods of bytes and bytearray but for the ones that change a mutable sequence
# (MutableSequence's append, extend, insert, pop, remove, reverse, clear, sort): the rest build new objects,
# which print as Python's repr writes them
BYTE_METHODS = [
    "{{ ba.replace(pat, rep) }} {{ ba.upper() }} {{ ba.decode() }} {{ ba.startswith(pat) }} {{ ba.find(sep) }}",
    "{{ ba.count(pat) }} {{ ba.hex() }} {{ ba.hex(':', 2) }} {{ ba.center(11) }} {{ ba.split(sep) }} {{ ba.copy() }}",
    "{{ ba.title() }} {{ ba.partition(sep) }} {{ [ba.strip()] }} {{ ba.isalpha() }} {{ ba.join([pat, rep]) }}",
    "{{ ba.fromhex('6162') }} {{ ba.zfill(8) }} {{ ba.expandtabs(2) }} {{ ba.splitlines() }} {{ ba.ljust(7) }}",
    "{{ ba.translate(none, pat) }} {{ ba.removeprefix(pat) }} {{ ba.rsplit() }} {{ ba.index(sep) }} {{ ba.lower() }}",
    "{{ ba.upper() ~ '' }} {{ '%s|%r' % (ba.upper(), ba.copy()) }} {{ {'k': ba.swapcase()} }} {{ ba.upper()|string }}",
    "{{ bs.replace(pat, rep) }} {{ bs.upper() }} {{ bs.split() }} {{ bs.center(9) }} {{ bs.join([pat, rep]) }}",
    "{{ bs.rjust(7) }} {{ bs.expandtabs() }} {{ bs.maketrans(pat, sep)|length }} {{ bs.endswith(sep) }}",
    "{{ ba.replace('a', 'b') }}", "{{ ba.append(1) }}", "{{ ba.pop() }}", "{{ ba.extend(pat) }}",
    "{{ ba.insert(0, 1) }}", "{{ ba.remove(97) }}", "{{ ba.reverse() }}", "{{ ba.clear() }}", "{{ ba.sort() }}",
    "{{ bs.copy() }}", "{{ bs.append(1) }}", "{{ ba.center(width=3) }}", "{{ ba.count(x=1) }}",
    "{{ ba.split(sep=sep) }} {{ bs.splitlines(keepends=true) }} {{ ba.translate(none, delete=pat) }}",
]


@pytest.mark.parametrize("source", BYTE_METHODS)
def test_bytes_methods_as_jinja2_hands_them_out(source):
    assert_renders_as_reference(source, byte_values)


class Text(str):
    pass


class Data(bytes):
    pass


# join called with the wrong arguments fails with Python's message, which names the object's type (a subclass's
# own name; a Markup's join is markupsafe's Python function, with its own messages)
@pytest.mark.parametrize("source", [
    "{{ bs.join() }}", "{{ bs.join(pat, rep) }}", "{{ ba.join() }}", "{{ ba.join([pat], 2) }}", "{{ 'x'.join() }}",
    "{{ text.join() }}", "{{ data.join(1, 2) }}", "{{ ('<i>'|safe).join() }}", "{{ ('<i>'|safe).join(1, 2) }}",
    "{{ ('<i>'|safe).join(iterable=['<']) }}", "{{ ('<i>'|safe).join(['<', text]) }} {{ text.join(['a', 'b']) }}",
])
def test_join_with_the_wrong_arguments_fails_as_python_says(source):
    assert_renders_as_reference(source, lambda: {**byte_values(), "text": Text("-"), "data": Data(b"-")})


def test_bytes_methods_leave_the_callers_bytes_unchanged_and_build_within_the_limits():
    values = byte_values()
    env = mj.chat_environment(limits=mj.Limits(max_string=1000))
    for source in ("{{ ba.append(1) }}", "{{ ba.clear() }}", "{{ ba.reverse() }}"):
        with pytest.raises(mj.SecurityError):
            env.from_string(source).render(values)
    assert values["ba"] == bytearray(b"ab\tca")
    for source in ("{{ ba.center(2000) }}", "{{ bs.ljust(2000) }}", "{{ ba.replace(pat, big) }}",
                   "{{ ba.zfill(10**12) }}", "{{ big.expandtabs(100) }}", "{{ big.join([big, big]) }}",
                   "{{ big.hex() }}", "{{ big|string }}", "{{ [big] }}"):
        with pytest.raises(mj.LimitExceeded):
            env.from_string(source).render(values, big=bytearray(b"\t" * 600))
    # printed as long as the text fits, measured before it is made when it might not
    assert env.from_string("{{ b }}").render(b=b"a" * 300) == repr(b"a" * 300)


class NamedOrderedDict(collections.OrderedDict):
    pass


class NamedDeque(collections.deque):
    pass


class NamedCounter(collections.Counter):
    pass


def function():
    pass


def standard_containers():
    moved = collections.OrderedDict(a=1, b="x", c=[None])
    moved.move_to_end("a")
    looped = collections.OrderedDict(k=1)
    looped["self"] = looped
    ring = collections.deque([1])
    ring.append(ring)
    return {"od": moved, "dq": collections.deque([1, "a", (2,)]), "ct": collections.Counter("abbccc"),
            "dd": collections.defaultdict(list, a=[1]), "bounded": collections.deque([1], maxlen=3),
            "empty": [collections.OrderedDict(), collections.deque(), collections.Counter()],
            "named": [NamedOrderedDict(a=1), NamedDeque([2]), NamedCounter(b=2)], "looped": looped, "ring": ring,
            "mixed": collections.Counter({"a": "x", "b": 1}), "nested": collections.deque([collections.OrderedDict(
                a=collections.Counter(z=1))]),
            "functions": [collections.OrderedDict(f=function), collections.deque([function, len]),
                          collections.Counter({function: 2}), collections.defaultdict(lambda: 0, k=function)]}


# the standard library's containers print as Python's repr writes them (Jinja2's `{{ x }}`), inside other data
# too, their items printed by the sandbox's rules
@pytest.mark.parametrize("source", [
    "{{ [od] }} {{ od }} {{ {'a': dq} }} {{ dq }} {{ [ct] }} {{ ct }} {{ [dd] }} {{ [bounded] }} {{ empty }}",
    "{{ '%s|%r' % ([od], dq) }} {{ [od]|string }} {{ [ct] ~ '' }} {{ '{}'.format([dq]) }} {{ named }}",
    "{{ [looped] }} {{ [ring] }} {{ {'k': mixed} }} {{ [nested] }} {{ [od, od] }} {{ nested|string }}",
])
def test_standard_containers_print_as_jinja2_prints_them(source):
    assert_renders_as_reference(source, standard_containers)


@pytest.mark.parametrize("source", ["{{ functions }}", "{{ view }} {{ [view] }} {{ {'k': view} }}"])
def test_printed_without_the_address_python_shows(source):
    # as the project prints a function or a memoryview anywhere (printing.py): Python's repr without ` at 0x...`
    def context():
        return {**standard_containers(), "view": memoryview(b"ab")}
    expected = reference_env().from_string(source).render(context())
    expected = re.sub(r" at 0x[0-9a-f]+>", ">", expected)
    expected = expected.replace("<function standard_containers.<locals>.<lambda>>", "<function <lambda>>")
    assert mj.chat_environment().from_string(source).render(context()) == expected


class Referent:
    pass


REFERENT = Referent()   # (kept alive: the weak references below point to it)


def address_showing():
    return {"lock": threading.Lock(), "rlock": threading.RLock(), "ref": weakref.ref(REFERENT),
            "proxy": weakref.proxy(REFERENT), "dead": weakref.ref(Referent()), "event": threading.Event(),
            "condition": threading.Condition(), "semaphore": threading.Semaphore(),
            "cell": (lambda x: lambda: x)(1).__closure__[0], "weak_values": weakref.WeakValueDictionary(),
            "finalizer": weakref.finalize(REFERENT, int), "view": memoryview(b"ab"),
            "partial": functools.partial(function, 1, key=[2, "x"]), "static": staticmethod(function),
            "wrapper": REFERENT.__str__, "descriptor": list.append, "slot": object.__init__}


# The sandbox never shows a memory address, where Jinja2 prints Python's repr with it: the caller's objects of
# the standard library print as Jinja2 prints them with each ` at 0x...` left out (<unlocked _thread.lock object>,
# <weakref; to 'Referent'>, <threading.Event: unset>, functools.partial(<function function>, 1)), wherever they
# are printed
@pytest.mark.parametrize("source", [
    "{{ lock }} {{ [rlock] }} {{ {'k': ref} }} {{ dead|string }} {{ proxy }} {{ [proxy] }} {{ event }}",
    "{{ condition }} {{ semaphore ~ '' }} {{ [cell] }} {{ weak_values }} {{ finalizer }} {{ [view] }}",
    "{{ partial }} {{ [static] }} {{ wrapper }} {{ descriptor }} {{ [slot] }} {{ partial|pprint }}",
    "{{ '%s %r' % (lock, ref) }} {{ '{} {!r}'.format(event, [proxy]) }} {{ {'k': ref}|pprint }} {{ lock|pprint }}",
])
def test_standard_objects_print_their_repr_without_the_address(source):
    expected = reference_env().from_string(source).render(address_showing())
    ours = mj.chat_environment().from_string(source).render(address_showing())
    assert "0x" in expected and "0x" not in ours
    assert ours == re.sub(r" at 0x[0-9a-fA-F]+", "", expected)



# A caller's error whose message quotes such a repr: the message templates and callers see has no address either,
# wherever in the message it is (Python writes some of them before other words: <weakref at 0x...; to 'T'>).
@pytest.mark.parametrize("name", ["ref", "event", "lock"])
def test_error_messages_quote_reprs_without_the_address(name):
    values = address_showing()

    def fail(value):
        raise ValueError(f"cannot use {value!r} here, nor {value!r}")
    with pytest.raises(mj.TemplateError) as caught:
        mj.chat_environment().from_string("{{ fail(value) }}").render(fail=fail, value=values[name])
    message = str(caught.value)
    assert "cannot use <" in message and "0x" not in message
    assert re.sub(r" at 0x[0-9a-fA-F]+", "", repr(values[name])) in message


class Counted:
    shown = 0

    def __repr__(self):
        Counted.shown += 1
        return "Counted()"


@pytest.mark.parametrize("make", [collections.deque, lambda items: collections.OrderedDict(enumerate(items)),
                                  lambda items: collections.Counter(dict(enumerate(items)))])
def test_standard_containers_stop_printing_at_the_string_limit(make):
    Counted.shown = 0
    env = mj.chat_environment(limits=mj.Limits(max_string=1000))
    with pytest.raises(mj.LimitExceeded):
        env.from_string("{{ [x] }}").render(x=make([Counted() for _ in range(10_000)]))
    assert Counted.shown < 200   # Python's repr() would have made the whole text first


def dict_views():
    dicts = [{"x": i} for i in range(4)]
    looped = {}
    looped["v"] = looped.values()
    return {"items": [d.items() for d in dicts], "keys": [d.keys() for d in dicts],
            "values": [d.values() for d in dicts], "proxies": [types.MappingProxyType(d) for d in dicts],
            "looped": looped, "view": looped.values()}


@pytest.mark.parametrize("source", [
    "{{ items }} {{ keys }} {{ values }} {{ proxies }} {{ proxies|map('string')|join }}",
    "{{ looped }} {{ view }} {{ [view, view] }}",
])
def test_dict_views_print_each_their_own_items(source):
    # (each view's pairs are made as it is printed: one printed later may be a new object at the same address)
    assert_renders_as_reference(source, dict_views)


class Counter:
    # the caller's own class of a standard library container's name
    def __repr__(self):
        return "mine"


def test_a_callers_class_named_as_a_standard_container_prints_as_its_own():
    assert_renders_as_reference("{{ c }} {{ [c] }}", lambda: {"c": Counter()})
