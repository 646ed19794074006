"""The caller's subclasses of list, tuple, dict and str whose own __len__, __iter__ or items() fail, lie or never
end: printed as Python's repr of the built-in prints them (Jinja2's `{{ x }}`: the items themselves, none of those
methods called), pretty-printed as pprint reads them (through those methods), serialised as json.dumps serialises a
str subclass (its text), and never a hang: where the engine must iterate such an object (|pprint, |slice,
|urlencode), an endless one stops at max_items. Compared with Jinja2's
sandbox as transformers configures it; CPython's own subclass behaviour, so pytest tests, not case files."""

import pytest

import minijinja_py as mj

pytest.importorskip("jinja2")
from differential_ref import assert_renders_as_reference, reference_env  # noqa: E402  (Jinja2, as transformers has it)


class FailingLen(list):
    def __len__(self):
        raise ValueError("no length")


class NegativeLen(list):
    def __len__(self):
        return -1


class LyingIter(list):
    def __iter__(self):
        return iter([9, 9, 9])


class LyingTuple(tuple):
    def __iter__(self):
        return iter(["lie"])

    def __len__(self):
        raise ValueError("no length")


class LyingItems(dict):
    def items(self):
        return [("lie", 0)]

    def __iter__(self):
        return iter(["lie"])

    def __len__(self):
        raise ValueError("no length")


class LongerThanItIs(str):
    # far longer than it is: random.choice() (Jinja2's, from the unseeded global generator) then all but surely
    # picks an index past its 2 characters, so the two engines' random draws agree
    def __len__(self):
        return 10 ** 12


class FailingStrLen(str):
    def __len__(self):
        raise ValueError("no length")


class Endless(list):
    def __iter__(self):
        while True:
            yield 1


class EndlessItems(dict):
    def items(self):
        while True:
            yield ("a", 1)


def context():
    return {"bad": FailingLen([1, 2]), "neg": NegativeLen(["a"]), "lie": LyingIter([1, 2]),
            "tup": LyingTuple((1, "x")), "dct": LyingItems(a=1), "text": FailingStrLen("ab"),
            "long": LongerThanItIs("ab")}


PRINTED = [
    "{{ bad }} {{ neg }} {{ lie }} {{ tup }} {{ dct }}",
    "{{ bad|string }} {{ [bad, neg] }} {{ lie ~ '' }} {{ {'k': tup} }} {{ [dct] }}",
    "{{ '%s|%r' % (bad, lie) }} {{ '%s' % (neg,) }} {{ bad|upper }} {{ lie|wordcount }} {{ tup|e }}",
    "{{ dct|string }} {{ dct|e }} {{ tup|trim }} {{ lie|center(12) }} {{ lie|string|length }}",
    "{{ text|tojson }} {{ [text]|tojson }} {{ {'k': text}|tojson }} {{ text|tojson(indent=2) }}",
    # pprint reads a subclass through its own __iter__ / items(), as Python's pprint does
    "{{ lie|pprint }} {{ [lie, {'k': lie}]|pprint }}",
    # random.choice() trusts __len__: an index past the end is Jinja2's undefined
    "{{ long|random is defined }}",
]


def assert_as_jinja2(source, make_context):
    ours = mj.chat_environment().from_string(source).render(make_context())
    assert ours == reference_env().from_string(source).render(make_context())


@pytest.mark.parametrize("source", PRINTED)
def test_printed_as_jinja2_prints_them(source):
    assert_as_jinja2(source, context)


@pytest.mark.parametrize("source", ["{{ x|pprint }}", "{{ x|slice(2)|list }}", "{{ [x]|pprint }}"])
def test_an_endless_list_subclass_stops(source):
    # Jinja2 runs until memory runs out
    try:
        out = mj.chat_environment().from_string(source).render(x=Endless([1, 2]))
    except mj.LimitExceeded:
        return
    assert out in ("[1, 2]", "[[1, 2]]")


@pytest.mark.parametrize("source", ["{{ x|urlencode }}", "{{ x|pprint }}"])
def test_a_dict_subclass_with_endless_items_stops(source):
    try:
        out = mj.chat_environment().from_string(source).render(x=EndlessItems(a=1))
    except mj.LimitExceeded:
        return
    assert out == "{'a': 1}"


class FailingTupleLen(tuple):
    def __len__(self):
        raise ValueError("no length")


class FailingDictLen(dict):
    def __len__(self):
        raise ValueError("no length")


class FailingSetLen(set):
    def __len__(self):
        raise ValueError("no length")


def failing_lengths():
    return {"bad": FailingLen([2, 1]), "btup": FailingTupleLen((2, 1)), "bdct": FailingDictLen(b=2, a=1),
            "bset": FailingSetLen({1}),
            "neg": NegativeLen([1]), "lie": LyingIter([1, 2]), "tup": LyingTuple((1, "x")), "dct": LyingItems(a=1)}


# The budget measures a caller's subclass by what it stores, as Python's own ==, `in`, +, * and hash() read it:
# its own __len__ (failing, negative) or __iter__ (lying) is not asked where Jinja2's operation does not ask it.
MEASURED_BY_STORAGE = [
    "{{ bad|join(',') }} {{ bad|sum }} {{ 1 in bad }} {{ bad == bad }} {{ bad + [3] }} {{ [3] + bad }}",
    "{{ bad|unique|list }} {{ bad|max }} {{ bad|min }} {{ bad * 2 }} {{ [bad] == [bad] }} {{ bad|tojson }}",
    "{{ btup + (3,) }} {{ btup == btup }} {{ btup in [btup] }} {{ [btup]|unique|list }} {{ btup|join }}",
    "{{ bdct == bdct }} {{ bdct|dictsort }} {{ 'a' in bdct }} {{ [bdct] == [bdct] }} {{ bdct|tojson }}",
    "{{ neg + [2] }} {{ neg == neg }} {{ neg|sum }} {{ lie == lie }} {{ lie + [3] }} {{ lie|max }}",
    "{{ bset == bset }} {{ 1 in bset }} {{ bset - bset }} {{ [bset] == [bset] }} {{ bset|join }} {{ bset|max }}",
    "{{ tup == tup }} {{ tup in [tup] }} {{ dct == dct }} {{ [dct, tup] == [dct, tup] }} {{ {'k': dct} == {'k': dct} }}",
]


@pytest.mark.parametrize("source", MEASURED_BY_STORAGE)
def test_measured_by_what_they_store(source):
    assert_as_jinja2(source, failing_lengths)


@pytest.mark.parametrize("source", ["{{ bad|sort }}", "{{ bad|groupby(0)|list }}", "{{ bad|length }}",
                                    "{{ neg|sort }}", "{{ bad|list }}", "{{ bset|list }}",
                                    "{{ bset - [1] }}"])
def test_a_failing_length_fails_where_jinja2_asks_it(source):
    # list() and sorted() (Jinja2's list, sort and groupby) ask the length hint of anything but a plain list or
    # tuple; set - list is no operation
    with pytest.raises(Exception) as expected:
        reference_env().from_string(source).render(failing_lengths())
    with pytest.raises(mj.TemplateError) as got:
        mj.chat_environment().from_string(source).render(failing_lengths())
    assert str(expected.value) in str(got.value)


class TypeErrorLen(list):
    def __len__(self):
        raise TypeError("no length")


class FalseList(list):
    def __bool__(self):
        return False


class TrueFailingLen(list):
    def __bool__(self):
        return True

    def __len__(self):
        raise ValueError("no length")


def asked_lengths():
    return {**failing_lengths(), "terr": TypeErrorLen([1, 2, 3]), "falsy": FalseList([1, 2]),
            "truthy": TrueFailingLen([1]), "long": FailingLen(range(40)), "one": FailingTupleLen((1,))}


# Jinja2's loop.length (and revindex, revindex0) is len() of what the loop walks, asked when first read: a
# caller's __len__ that fails fails there (but for a TypeError: the items are counted then); loop.last and
# nextitem look one item ahead, without len()
@pytest.mark.parametrize("source", [
    "{% for x in bad %}{{ loop.length }}{% endfor %}", "{% for x in bad %}{{ x }}{{ loop.revindex }}{% endfor %}",
    "{% for x in btup %}{{ loop.revindex0 }}{% endfor %}", "{% for x in bdct %}{{ loop.length }}{% endfor %}",
    "{% for x in bset %}{{ loop.length }}{% endfor %}", "{% for x in neg %}{{ loop.length }}{% endfor %}",
    "{% for x in bad recursive %}{{ loop.length }}{% endfor %}", "{% for x in lie %}{{ loop.length }}{% endfor %}",
    "{% for x in terr %}{{ loop.length }}{{ loop.revindex }}{% endfor %}",
    "{% for x in bad %}{{ loop.last }}{{ loop.nextitem }}{{ loop.index }}{% endfor %}",
    "{% for x in bad if x %}{{ loop.length }}{% endfor %}", "{% for x in bad|reverse %}{{ loop.length }}{% endfor %}",
])
def test_loop_length_asks_len_where_jinja2_asks_it(source):
    assert_renders_as_reference(source, asked_lengths)


# pprint asks a list or dict subclass whether it is empty (its __bool__, else its __len__) and a tuple subclass
# its len() first
@pytest.mark.parametrize("source", [
    "{{ bad|pprint }}", "{{ btup|pprint }}", "{{ one|pprint }}", "{{ bdct|pprint }}", "{{ neg|pprint }}",
    "{{ [bad]|pprint }}", "{{ {'k': bdct}|pprint }}", "{{ long|pprint }}", "{{ falsy|pprint }}",
    "{{ [falsy, {'k': falsy}]|pprint }}", "{{ truthy|pprint }}", "{{ bset|pprint }}", "{{ terr|pprint }}",
])
def test_pprint_asks_a_subclass_whether_it_is_empty(source):
    assert_renders_as_reference(source, asked_lengths)


class TruthyFailingLength:
    def __bool__(self):
        return True

    def __len__(self):
        raise ValueError("no length")


class TrueFailingDict(TruthyFailingLength, dict):
    pass


class TrueFailingSet(TruthyFailingLength, set):
    pass


class TypeErrorLenSet(frozenset):
    def __len__(self):
        raise TypeError("no length")


class ZeroLength:
    def __len__(self):
        return 0


class ZeroDict(ZeroLength, dict):
    def __bool__(self):
        return True


class ZeroSet(ZeroLength, set):
    pass


def wide_lengths():
    wide = {f"key{i}": "v" * 10 for i in range(8)}   # wider than pprint's 80 columns: laid out over lines
    return {"narrow": TrueFailingDict(a=1), "wide": TrueFailingDict(wide), "zero": ZeroDict(a=1),
            "zero_wide": ZeroDict(wide), "set": TrueFailingSet({1}), "set_wide": TrueFailingSet(range(40)),
            "empty_set": TrueFailingSet(), "hint": TypeErrorLenSet({1, 2}), "hint_wide": TypeErrorLenSet(range(40)),
            "zero_set": ZeroSet({1}), "zero_set_wide": ZeroSet(range(40))}


# pprint asks len() of a dict or set it lays out over lines (and a dict that says 0 prints {}), not of one it
# prints on one line; Python's repr of a set subclass asks its len() as a hint (a TypeError is passed over, what
# it answers is not believed), whatever its truth
@pytest.mark.parametrize("source", [
    "{{ narrow|pprint }} {{ [narrow]|pprint }} {{ zero|pprint }} {{ zero_wide|pprint }}",
    "{{ wide|pprint }}", "{{ {'k': [wide]}|pprint }}", "{{ [wide, 1]|pprint }}",
    "{{ set }}", "{{ set|pprint }}", "{{ set_wide|pprint }}", "{{ [set] }}", "{{ hint_wide|pprint }}",
    "{{ empty_set }} {{ empty_set|pprint }} {{ hint }} {{ hint|pprint }} {{ zero_set }} {{ [zero_set]|string }}",
    "{{ zero_set|pprint }} {{ zero_set_wide|pprint }} {{ [zero_set_wide]|pprint }} {{ '%r' % (zero_set,) }}",
])
def test_pprint_asks_the_length_of_what_it_lays_out_over_lines(source):
    assert_renders_as_reference(source, wide_lengths)
