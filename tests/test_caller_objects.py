"""The caller's own objects in the sandbox (issue 8): what a template reads of plain objects, namedtuples, str
enums and other subclasses of built-in types, what it may call, and what stays refused.

Jinja2's sandbox reads the public attributes of the caller's objects, through `.name` and through the filters that
take attribute=; so does minijinja_py, keeping its own stricter rules: no '_' names, no mutating methods of known
containers, nothing of the engine's own objects. Where Jinja2 is installed, outputs are compared with its
ImmutableSandboxedEnvironment (the package never imports it).
"""

import array
import collections
import enum
import types

import pytest

import minijinja_py as mj

try:
    import jinja2.sandbox
    import markupsafe
except ImportError:  # the reference is optional: the comparisons are skipped
    jinja2 = markupsafe = None

needs_jinja2 = pytest.mark.skipif(jinja2 is None, reason="jinja2 (the reference) is not installed")

User = collections.namedtuple("User", "name id")


class Role(str, enum.Enum):
    USER = "user"


class Level(enum.IntEnum):
    HIGH = 3


class Page(list):
    """A list subclass with attributes and a method of its own."""

    def __init__(self, items, title):
        super().__init__(items)
        self.title = title

    def head(self):
        return self[:1]


class Record(dict):
    @property
    def size(self):
        return len(self)


class Account:
    name = "acc"

    def balance(self):
        return 10

    def delete(self):
        self.name = "deleted"
        return "gone"
    delete.alters_data = True   # Django's mark

    def reset(self):
        return "reset"
    reset.unsafe_callable = True   # Jinja2's mark


def render(source, **context):
    return mj.Environment().from_string(source).render(**context)


SAME_AS_JINJA2 = [
    ("{{ u.name }}|{{ u['id'] }}|{{ u|attr('name') }}|{{ u.count('a') }}|{{ u.nope is defined }}", {"u": User("a", 1)}),
    ("{{ users|map(attribute='name')|join(',') }}|{{ users|selectattr('id')|map(attribute='name')|first }}",
     {"users": [User("a", 0), User("b", 1)]}),
    ("{{ r.value }}|{{ r.name }}|{{ r }}|{{ r|upper }}|{{ [r, r]|join(',') }}|{{ r ~ '!' }}", {"r": Role.USER}),
    ("{{ n.value }}|{{ n.name }}|{{ n }}|{{ n + 1 }}", {"n": Level.HIGH}),
    ("{{ p.title }}|{{ p.head() }}|{{ p|length }}|{{ p.count(1) }}", {"p": Page([1, 2], "T")}),
    ("{{ d.size }}|{{ d.a }}|{{ d['a'] }}|{{ d.items()|list }}", {"d": Record(a=1)}),
    ("{{ c.most_common(1) }}|{{ o.a }}|{{ arr.tolist() }}",
     {"c": collections.Counter("aab"), "o": collections.OrderedDict(a=1), "arr": array.array("i", [1, 2])}),
    ("{{ acc.balance() }}|{{ acc.name }}", {"acc": Account()}),
    # a read-only mapping (types.MappingProxyType) is read as the mapping it is: items, pure methods, printing
    # (chat campaign, tools/chat_campaign.py: messages passed as proxies read as empty)
    ("{{ m.role }}|{{ m['content'] }}|{{ m.get('role') }}|{{ m.get('x', 'd') }}|{{ m.items()|list }}|{{ m|length }}|"
     "{{ 'role' in m }}|{{ m is mapping }}|{{ m.keys()|list }}|{{ m.values()|list }}|{{ m|dictsort }}|"
     "{{ m.nope is defined }}|{{ m._id }}|{{ m.copy() }}|{{ m.pop is defined }}",
     {"m": types.MappingProxyType({"role": "user", "content": "hi", "_id": 3})}),
    ("{{ m }}|{{ [m] }}|{{ m|string }}|{{ m|pprint }}|{{ m ~ '!' }}|{{ {'a': m} }}|{{ m|e }}|{{ m|join(',') }}|"
     "{{ ms|map(attribute='role')|join(',') }}|{{ ms|selectattr('role', 'equalto', 'a')|list|length }}",
     {"m": types.MappingProxyType({"role": "user", "q": "'<"}), "ms": [types.MappingProxyType({"role": "a"})]}),
]


@needs_jinja2
@pytest.mark.parametrize("source,context", SAME_AS_JINJA2, ids=range(len(SAME_AS_JINJA2)))
def test_the_callers_objects_read_as_in_jinja2(source, context):
    expected = jinja2.sandbox.ImmutableSandboxedEnvironment().from_string(source).render(**context)
    assert render(source, **context) == expected


@pytest.mark.parametrize("source", ["{{ acc.delete() }}", "{{ acc.reset() }}", "{{ f() }}"])
def test_functions_marked_unsafe_are_not_called(source):
    """Jinja2's sandbox refuses to call what has alters_data or unsafe_callable set; so does this one."""
    acc = Account()
    with pytest.raises(mj.SecurityError, match="is not safely callable"):
        render(source, acc=acc, f=acc.delete)
    assert acc.name == "acc"


@pytest.mark.parametrize("source,context", [
    ("{{ o.move_to_end('a') }}", {"o": collections.OrderedDict(a=1, b=2)}),
    ("{{ c.subtract('a') }}", {"c": collections.Counter("aab")}),
    ("{{ arr.byteswap() }}", {"arr": array.array("i", [1, 2])}),
    ("{{ arr.fromlist([3]) }}", {"arr": array.array("i", [1, 2])}),
    ("{{ p.append(3) }}", {"p": Page([1, 2], "T")}),
    ("{{ d.update({'b': 2}) }}", {"d": Record(a=1)}),
])
def test_mutators_of_the_standard_librarys_containers_are_refused(source, context):
    """Stricter than Jinja2, which hands these out: a render never changes the caller's data."""
    before = {k: list(v) if isinstance(v, array.array) else type(v)(v) for k, v in context.items()
              if not isinstance(v, Page)}
    with pytest.raises(mj.SecurityError, match="unsafe"):
        render(source, **context)
    for key, value in before.items():
        assert (list(context[key]) if isinstance(value, list) else context[key]) == value


def test_mutators_are_handed_out_with_immutable_false():
    o = collections.OrderedDict(a=1, b=2)
    assert mj.Environment(immutable=False).from_string("{{ o.move_to_end('a') }}{{ o|list }}").render(o=o) == \
        "None['b', 'a']"


def test_a_subclass_keeps_the_built_ins_allowlist_for_what_the_built_in_has():
    # int has to_bytes, which the sandbox does not hand out: an IntEnum does not open it; its own attributes are
    # readable
    assert render("{{ n.to_bytes is defined }}{{ n.name }}", n=Level.HIGH) == "FalseHIGH"
    with pytest.raises(mj.SecurityError):
        render("{{ p.sort() }}", p=Page([2, 1], "T"))
    with pytest.raises(mj.SecurityError):
        render("{{ p.__dict__ }}", p=Page([1], "T"))
    with pytest.raises(mj.SecurityError):
        render("{{ u._asdict() }}", u=User("a", 1))
    with pytest.raises(mj.SecurityError):
        render("{{ u.__class__ }}", u=User("a", 1))


def test_an_attribute_that_is_a_class_or_a_module_is_refused():
    class Holder(tuple):
        kind = dict
        mod = enum
    with pytest.raises(mj.SecurityError, match="'kind'"):
        render("{{ h.kind }}", h=Holder())
    with pytest.raises(mj.SecurityError, match="'mod'"):
        render("{{ h.mod }}", h=Holder())


def test_the_engines_own_objects_still_show_nothing():
    # groupby's pairs are the engine's tuple subclass: only its allowlisted names
    out = render("{% for g in [{'a': 1}]|groupby('a') %}{{ g.grouper }}{{ g.list|length }}{{ g.nope is defined }}"
                 "{% endfor %}")
    assert out == "11False"
    with pytest.raises(mj.SecurityError):
        render("{% for g in [{'a': 1}]|groupby('a') %}{{ g.__class__ }}{% endfor %}")
    # an object of the engine's that subclasses a built-in (none reaches a template today): nothing of its own
    internal = type("Internal", (tuple,), {"__module__": "minijinja_py.runtime.objects", "secret": "s"})
    assert render("{{ x.secret is defined }}{{ x.count(1) }}", x=internal((1,))) == "False1"


@pytest.mark.skipif(markupsafe is None, reason="markupsafe (installed with jinja2) is not installed")
@pytest.mark.parametrize("autoescape", [False, True])
@pytest.mark.parametrize("source", [
    "{{ m|indent(2) }}", "{{ m|indent(2, true, true) }}", "{{ m|indent('<>') }}", "{{ m.format(s) }}",
    "{{ m.striptags() }}", "{{ m.unescape() }}", "{{ m.escape(s) }}", "{{ m.replace('<', s) }}",
    "{{ {'a': m, 'b': s}|xmlattr }}", "{{ [m, s]|join(', ') }}",
])
def test_markupsafe_markup_from_the_caller_is_markup(source, autoescape):
    context = {"m": markupsafe.Markup("a<b>\n<i>{}</i>"), "s": "<x>"}
    expected = jinja2.sandbox.ImmutableSandboxedEnvironment(autoescape=autoescape).from_string(source).render(**context)
    assert mj.Environment(autoescape=autoescape).from_string(source).render(**context) == expected


class Iterable:
    """A caller's iterable that records each time it is asked for an iterator."""

    def __init__(self, items):
        self.items, self.iterators = items, 0

    def __iter__(self):
        self.iterators += 1
        return iter(self.items)


@needs_jinja2
@pytest.mark.parametrize("source", [
    "{{ ', '.join(x) }}", "{{ x|join(',') }}", "{{ x|list }}", "{{ x|map('upper')|join }}",
    "{% for i in x %}{{ i }}{{ loop.index }}{% endfor %}", "{% for i in x if i != 'b' %}{{ i }}{% endfor %}",
])
def test_a_callers_iterable_is_asked_for_its_items_as_often_as_jinja2_asks(source):
    # a caller's __iter__ may do work or hand out a one-shot iterator: str.join asked twice (differential probe)
    ours, theirs = Iterable(["a", "b", "c"]), Iterable(["a", "b", "c"])
    expected = jinja2.sandbox.ImmutableSandboxedEnvironment().from_string(source).render(x=theirs)
    assert render(source, x=ours) == expected
    assert ours.iterators == theirs.iterators
