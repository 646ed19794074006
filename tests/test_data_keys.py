"""The caller's mappings are data: their items are read before any attribute rule (`{'_id': 1}._id` is 1, `d['__class__']`
with such a key is its value), by every read path (attributes, subscripts, the attribute= filters, tests, str.format
fields), while the attributes objects have themselves stay refused; a mapping whose own __contains__ answers
yes for every key gives undefined for a key it lacks, as in Jinja2, not a KeyError; and a key a dict subclass lacks
reads as its __missing__ answers (a Counter's 0, a defaultdict's default), without the key being inserted. Checked against Jinja2's sandbox
(as transformers configures it) on the caller objects the case files cannot spell: dict subclasses, Mapping classes,
OrderedDict, defaultdict."""

from collections import Counter, OrderedDict, defaultdict
from collections.abc import Mapping

import pytest

import minijinja_py as mj

pytest.importorskip("jinja2")
from differential_edges import LyingDict, LyingMapping  # noqa: E402  (mappings that say they have every key)
from differential_ref import reference_env  # noqa: E402  (Jinja2 as transformers configures it)


class LyingDefaultDict(defaultdict):
    def __contains__(self, key):
        return True


class Record(Mapping):
    """A caller's mapping class with `_` keys and a private attribute of its own."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


class Tagged(dict):
    _tag = "attribute"


def context():
    return {
        "ld": LyingDict(a=1, _id=2), "lm": LyingMapping({"a": 1, "_id": 2}),
        "msgs": [LyingDict(role="user", content="x"), LyingMapping({"role": "assistant", "content": "y"})],
        "od": OrderedDict([("_id", 5), ("__class__", "k"), ("n", "od")]),
        "rec": Record({"_id": 7, "__typename": "T", "_meta": {"_x": 1}}),
        "tagged": Tagged(_tag="item", _other=3),
        "rows": [Record({"_id": 2, "n": "b"}), OrderedDict(_id=1, n="a"), {"_id": 1, "n": "c"}],
    }


SAME_AS_JINJA2 = [
    # a lying __contains__: undefined for what it lacks, on every path
    "[{{ ld.b }}][{{ ld['b'] }}][{{ ld._b }}][{{ ld['_b'] }}][{{ lm.b }}][{{ lm['b'] }}]",
    "{{ ld.b is defined }} {{ lm['b'] is defined }} {{ ld.a }} {{ ld._id }} {{ lm._id }} {{ 'b' in ld }}",
    "{% for m in msgs %}[{{ m.x }}{{ m['y'] }}{% if m.z %}z{% endif %}{{ m.role }}]{% endfor %}",
    "{{ msgs|map(attribute='q')|list }} {{ msgs|selectattr('q')|list|length }} {{ msgs|rejectattr('q')|list|length }}",
    "{{ msgs|map(attribute='q', default='-')|join }} {{ msgs|map(attribute='q')|select('defined')|list }}",
    "{{ msgs|sort(attribute='q')|map(attribute='role')|join }} [{{ '{0[b]}'.format(ld) }}] {{ ld|attr('b') is defined }}",
    "{{ ld|dictsort }} {{ ld|tojson }} {{ ld.get('b') }} {{ ld|length }}",
    # `_` keys of mappings that are not plain dicts
    "{{ od._id }} {{ od['_id'] }} {{ od['__class__'] }} {{ od.n }} {{ rec._id }} {{ rec['_id'] }} {{ rec.__typename }}",
    "{{ rec._meta._x }} {{ rec['_meta']['_x'] }} {{ rec._nope is defined }} {{ tagged['_tag'] }} {{ tagged._other }}",
    "{{ rows|map(attribute='_id')|list }} {{ rows|sort(attribute='_id')|map(attribute='n')|join }}",
    "{{ rows|selectattr('_id', 'equalto', 1)|map(attribute='n')|join }} {{ rows|sum(attribute='_id') }}",
    "{% for g in rows|groupby('_id') %}{{ g.grouper }}={{ g.list|map(attribute='n')|join }} {% endfor %}",
    "{% for r in rows %}{{ r._id }}{{ r['_id'] }}{% if r._id == 1 %}!{% endif %}{% endfor %}",
    "{{ '{0._id}/{0[_id]}'.format(rec) }} {{ rows|map(attribute='_nope')|list|length }}",
]

# refused where Jinja2 hands out an undefined that fails when used (the object has the attribute itself)
REFUSED = ["{{ od.__class__ }}", "{{ tagged._tag }}", "{{ rec._data }}", "{{ rec['_data'] }}", "{{ ld.__len__ }}",
           "{{ rows|map(attribute='_data')|list }}"]


def _ours(source, ctx):
    try:
        return ("ok", mj.chat_environment().from_string(source).render(ctx))
    except mj.TemplateError as exc:
        return ("error", type(exc))


def _jinja2(source, ctx):
    try:
        return ("ok", reference_env().from_string(source).render(ctx))
    except Exception as exc:  # noqa: BLE001 - the reference's error is the expectation
        return ("error", exc)


@pytest.mark.parametrize("source", SAME_AS_JINJA2)
def test_same_as_jinja2(source):
    ours, theirs = _ours(source, context()), _jinja2(source, context())
    assert theirs[0] == "ok", theirs
    assert ours == theirs


@pytest.mark.parametrize("source", REFUSED)
def test_attributes_the_object_has_stay_refused(source):
    assert _ours(source, context()) == ("error", mj.SecurityError)


def test_a_lying_defaultdict_reads_its_default_and_is_not_grown():
    dd = LyingDefaultDict(list, a=1)
    source = "[{{ dd.b }}][{{ dd['b'] }}]{{ dd.a }}"
    assert mj.chat_environment().from_string(source).render(dd=dd) == "[[]][[]]1"
    assert dict(dd) == {"a": 1}
    theirs = LyingDefaultDict(list, a=1)
    assert reference_env().from_string(source).render(dd=theirs) == "[[]][[]]1"
    assert dict(theirs) == {"a": 1, "b": []}   # Jinja2 inserts 'b' through __missing__; we never change the caller's data


class Fallback(dict):
    """A caller's dict with a __missing__ of its own: what it answers is the value of a key the dict lacks."""

    def __missing__(self, key):
        if key == "refused":
            raise KeyError(key)
        if key == "broken":
            raise ValueError("broken key")
        return f"<{key}>"


class Counts(Counter):
    pass


def missing_context():
    return {"c": Counter(a=1), "sub": Counts(a=2), "dd": defaultdict(int, a=1), "dl": defaultdict(list),
            "none": defaultdict(None, a=1), "fb": Fallback(a=1), "rows": [Counter(n=3), Counts(m=2)]}


MISSING_KEYS = [
    # a key the mapping lacks reads as its __missing__ answers (Counter: 0), through every read path
    "{{ c['x'] }} {{ c.x }} {{ c['x'] is defined }} {{ c.x.y is defined }} {{ c['x']|default('d') }} {{ sub.x }}",
    "{{ '%(x)s/%(a)s' % c }} {{ '%(x)d' % sub }} {{ '{x}/{a}'.format_map(c) }} {{ '{0[x]}'.format(c) }}",
    "{{ dd['x'] }} {{ dd.x }} {{ dl['x'] }} {{ dl.x is defined }} {{ '%(x)s' % dd }} {{ '{x}'.format_map(dl) }}",
    "[{{ none['x'] }}] {{ none.x is defined }} {{ none.a }}",
    "{{ fb['x'] }} {{ fb.x }} {{ fb.refused is defined }} {{ fb['refused'] is defined }} {{ '%(q)s' % fb }}",
    "{{ rows|map(attribute='z')|list }} {{ rows|selectattr('z')|list|length }} {{ rows|sum(attribute='n') }}",
    "{{ rows|map(attribute='m', default='-')|list }} {{ rows|sort(attribute='n')|map(attribute='n')|list }}",
    "{% for r in rows %}[{{ r.n }}{{ r['m'] }}]{% endfor %} {{ dd.most_common is defined }}",
    "{{ c.most_common() }} {{ c|length }} {{ dd|length }} {{ c }} {{ dd|tojson }} {{ [dd, dl] }} {{ '%s' % dd }}",
]


@pytest.mark.parametrize("source", MISSING_KEYS)
def test_a_missing_key_reads_as_jinja2_reads_it(source):
    ours, theirs = _ours(source, missing_context()), _jinja2(source, missing_context())
    assert theirs[0] == "ok", theirs
    assert ours == theirs


def test_an_autovivifying_tree_reads_and_prints_without_addresses():
    tree = lambda: defaultdict(tree)   # noqa: E731
    d = tree()
    d["a"]["b"] = 1
    out = mj.chat_environment().from_string("{{ d.x.y }}|{{ d }}|{{ d.a.c is defined }}").render(d=d)
    # Jinja2 prints the lambda's repr, with its address
    assert out == "defaultdict(<function <lambda>>, {})|" \
                  "defaultdict(<function <lambda>>, {'a': defaultdict(<function <lambda>>, {'b': 1})})|True"
    assert dict(d) == {"a": {"b": 1}}


@pytest.mark.parametrize("source", ["{{ fb.broken }}", "{{ fb['broken'] }}", "{{ [fb]|map(attribute='broken')|list }}"])
def test_what_a_missing_raises_goes_through_as_in_jinja2(source):
    # not a lookup error: Jinja2 lets it out of `.name` as out of `[key]`
    with pytest.raises(ValueError, match="broken key"):
        reference_env().from_string(source).render(missing_context())
    with pytest.raises(mj.TemplateError) as info:
        mj.chat_environment().from_string(source).render(missing_context())
    assert isinstance(info.value, ValueError) and info.value.lineno == 1


@pytest.mark.parametrize("make_context, sources", [(context, SAME_AS_JINJA2), (missing_context, MISSING_KEYS)])
def test_the_caller_data_is_unchanged(make_context, sources):
    ctx = make_context()
    before = repr(ctx)
    for source in sources:
        _ours(source, ctx)
    assert repr(ctx) == before
