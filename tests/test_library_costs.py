"""The library's fast exits cost what the general path costs: for each, a template renders the same text, and needs
the same step budget, whether the fast exit is taken or not (the general path forced by an undefined class the
fast exits do not know, or by a filter or test that is not the engine's own). The budget a render needs is found
by bisection on max_steps; a render past its limit fails with LimitExceeded('max_steps')."""

import collections

import pytest

import minijinja_py as mj
from minijinja_py.core.budget import UNARY_FORMS


class OwnUndefined(mj.Undefined):
    """Behaves as the default undefined, but is not one of the classes the fast exits decide for."""

    __slots__ = ()


def _outcome(source, context, max_steps, options):
    """The output, or (error class, message) for an error that is not max_steps, or None when max_steps ran out."""
    profile = options.pop("profile", None)
    try:
        limits = mj.Limits(max_steps=max_steps, steps_per_message=0)
        env = mj.chat_environment(limits=limits) if profile == "chat" else mj.Environment(limits=limits, **options)
        return env.from_string(source).render(context)
    except mj.LimitExceeded as exc:
        if exc.limit == "max_steps":
            return None
        return type(exc).__name__, exc.message
    except mj.TemplateError as exc:
        return type(exc).__name__, exc.message
    finally:
        if profile is not None:
            options["profile"] = profile


def steps_needed(source, context, **options):
    """(the outcome, the smallest max_steps that gives it)."""
    outcome = _outcome(source, context, 10 ** 8, options)
    low, high = 0, 10 ** 8   # runs out with low, not with high
    while high - low > 1:
        middle = (low + high) // 2
        if _outcome(source, context, middle, options) is None:
            low = middle
        else:
            high = middle
    assert _outcome(source, context, high, options) == outcome
    return outcome, high


SELECTIONS = [
    "{{ s|selectattr('type', 'equalto', 'image')|list }}",
    "{{ s|rejectattr('type', 'equalto', 'image')|list|length }}",
    "{{ s|selectattr('type', 'defined')|list }}|{{ s|selectattr('type', 'undefined')|first }}",
    "{{ s|rejectattr('type', 'undefined')|list }}|{{ s|rejectattr('type', 'defined')|join }}",
    "{% for m in ms %}{{ m.content|selectattr('type', 'equalto', 'image')|list|length }}{% endfor %}",
    "{{ ms|selectattr('role', 'equalto', 'user')|list|length }}|{{ ms|rejectattr('tool', 'defined')|list }}",
]
CONTEXT = {"s": "abc" * 300, "ms": [{"role": "user", "content": "x" * 500},
                                    {"role": "user", "content": [{"type": "image"}, "y" * 40, {"type": "text"}]},
                                    {"role": "tool", "tool": 1, "content": ""}]}


@pytest.mark.parametrize("source", SELECTIONS)
def test_selectattr_decided_in_line_costs_what_the_test_costs(source):
    fast = steps_needed(source, CONTEXT)
    general = steps_needed(source, CONTEXT, undefined=OwnUndefined)
    assert fast == general


@pytest.mark.parametrize("source", [
    "{{ items|select('odd')|list|length }}", "{{ items|reject('equalto', 2)|list|length }}",
    "{{ items|map('string')|join }}", "{{ items|map('abs')|sum }}",
])
def test_a_named_call_costs_steps_for_each_item(source):
    short = steps_needed(source, {"items": list(range(100))})[1]
    long = steps_needed(source, {"items": list(range(200))})[1]
    assert long - short >= 9 * 100   # the named call's 8 and the call's own 1, for each of 100 more items


VALUES = {"short": "abc", "padded": "  some text, long enough to be charged  ", "long": "x" * 2000 + " ",
          "list": [1, "two", [3]], "tuple": (1, 2), "dict": {"a": 1, "b": [1, 2], "c": {"d": None}}, "empty": [],
          "big": 12345678901234567890123, "float": 1.5, "true": True, "none": None, "markup": mj.Markup("<b> x")}
UNARY = [("string", None), ("trim", None), ("upper", None), ("lower", None), ("capitalize", None),
         ("length", None), ("list", None), ("first", None), ("last", None), ("safe", None), ("tojson", "chat"),
         ("items", None)]


@pytest.mark.parametrize("name,profile", UNARY)
@pytest.mark.parametrize("value", sorted(VALUES) + ["missing"])
def test_unary_forms_cost_what_the_general_call_costs(name, profile, value, monkeypatch):
    source = "{% for k in x|items %}{{ k }}{% endfor %}" if name == "items" else "{{ x|" + name + " }}"
    context = {} if value == "missing" else {"x": VALUES[value]}
    options = {"profile": profile} if profile else {}
    fast = steps_needed(source, context, **options)
    func = (mj.chat_environment() if profile == "chat" else mj.Environment()).filters[name]
    assert func in UNARY_FORMS
    monkeypatch.delitem(UNARY_FORMS, func)
    assert steps_needed(source, context, **options) == fast


def test_dictsort_by_key_pays_for_the_keys_it_compares_and_by_value_for_the_values():
    small = {"b": 1, "a": 2, "c": 3}
    nested = {"b": [list(range(50))] * 20, "a": {"x": list(range(300))}, "c": 3}
    by_key = "{% for k, v in d|dictsort %}{{ k }}{% endfor %}"
    by_value = "{{ d|dictsort(false, 'value')|length }}"
    assert steps_needed(by_key, {"d": small})[1] == steps_needed(by_key, {"d": nested})[1]
    assert steps_needed(by_value, {"d": nested})[1] > steps_needed(by_value, {"d": small})[1] + 1000
    mixed = {(1, (2,)): "a", "b": [1] * 1000}   # a key that is no scalar: the whole tree, as before
    outcome, steps = steps_needed("{{ d|dictsort }}", {"d": mixed})
    assert outcome[0] == "TemplateTypeError" and steps > 1000


@pytest.mark.parametrize("source", [
    "{{ items|map('abs')|list|length }}", "{{ items|map(attribute='x')|join }}", "{{ items|select|list|length }}",
    "{% for i in items|reject('none') %}{% endfor %}", "{{ dicts|selectattr('x', 'equalto', 1)|list|length }}",
    "{{ dicts|rejectattr('y', 'defined')|map(attribute='x')|sum }}",
])
def test_filter_generators_charge_and_count_each_item_they_hand_out(source):
    context = {"items": list(range(1, 3001)), "dicts": [{"x": 1}] * 3000}
    env = mj.Environment(limits=mj.Limits(max_items=2000))
    with pytest.raises(mj.LimitExceeded) as info:
        env.from_string(source).render(context)
    assert info.value.limit == "max_items"
    small = steps_needed(source, {"items": list(range(1, 1001)), "dicts": [{"x": 1}] * 1000})[1]
    large = steps_needed(source, {"items": list(range(1, 2001)), "dicts": [{"x": 1}] * 2000})[1]
    assert large - small >= 1000 * 2   # each item: at least its own step and the consumer's


@pytest.mark.parametrize("loop", [
    "{% for k in d if k not in ['b'] %}{{ k }}{% if k == '_' %}{{ BODY }}{% endif %}{% endfor %}",
    "{% for x in xs if x %}{% if x == 'c' %}{% break %}{% endif %}{{ x }}{% if x == '_' %}{{ BODY }}{% endif %}"
    "{% else %}E{% endfor %}",
    "{% for x in xs if x != 'a' %}{% if x == '' %}{% continue %}{% endif %}{{ x }}{% if x == '_' %}{{ BODY }}"
    "{% endif %}{% endfor %}",
])
def test_a_filter_tested_in_the_walk_costs_what_its_generator_costs(loop):
    """A loop filter of one name before a body without `loop` is tested in the walk (loops.py: _walk_filtered);
    the same loop whose body names `loop` (never printed: the same weight) pulls its items through the filter's
    generator and the loop context: the two need the same budget and render the same."""
    context = {"d": {"a": 1, "b": 2, "c": 3, "u": 4}, "xs": ["a", "", "b", "c", "d"]}
    name = "k" if " k " in loop else "x"
    fast, lazy = (steps_needed(loop.replace("BODY", body), context, profile="chat") for body in (name, "loop"))
    assert fast == lazy and type(fast[0]) is str


class _Unread:
    """A container subclass whose own iteration and length fail: what guards a comparison must not call them
    (Python's comparison reads the storage)."""

    def __iter__(self):
        raise AssertionError("__iter__ called")

    def __len__(self):
        raise AssertionError("__len__ called")


class _Hidden(_Unread, dict):
    """A dict subclass whose views fail too."""

    def keys(self):
        raise AssertionError("keys() called")

    def values(self):
        raise AssertionError("values() called")

    def items(self):
        raise AssertionError("items() called")


class _HiddenList(_Unread, list):
    pass


class _Tuple(tuple):
    pass


class _Set(set):
    pass


@pytest.mark.parametrize("make", [collections.OrderedDict, collections.Counter, _Hidden,
                                  lambda items: collections.defaultdict(int, items)])
@pytest.mark.parametrize("source", ["{{ a == b }}", "{{ a != b }}", "{{ [a]|select('eq', b)|list|length }}"])
def test_a_caller_dict_subclass_compared_costs_what_a_dict_costs(make, source):
    # (its size found from its storage at C speed, as a dict's is: the same steps as the walk over it counts; inside
    # a list, looking at it costs the walk's steps for one container more than a list of plain dicts, read as rows)
    items = {str(i): i for i in range(300)}
    ours = steps_needed(source, {"a": make(items), "b": make(items)})
    plain = steps_needed(source, {"a": dict(items), "b": dict(items)})
    assert ours == plain


@pytest.mark.parametrize("make, plain", [(_HiddenList, list), (_Tuple, tuple), (_Set, set)])
@pytest.mark.parametrize("source", ["{{ a == b }}", "{{ [a]|select('eq', b)|list|length }}"])
def test_a_caller_sequence_or_set_subclass_compared_costs_what_its_base_costs(make, plain, source):
    items = [str(i) for i in range(300)]
    assert steps_needed(source, {"a": make(items), "b": make(items)}) == \
        steps_needed(source, {"a": plain(items), "b": plain(items)})
