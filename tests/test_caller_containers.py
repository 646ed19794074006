"""The caller's subclasses of list, tuple, dict and str whose own __len__, __iter__ or items() fail, lie or never
end: printed as Python's repr of the built-in prints them (Jinja2's `{{ x }}`: the items themselves, none of those
methods called), pretty-printed as pprint reads them (through those methods), serialised as json.dumps serialises a
str subclass (its text), and never a hang: where the engine must iterate such an object (|pprint, |slice,
|urlencode), an endless one stops at max_items. Compared with Jinja2's
sandbox as transformers configures it; CPython's own subclass behaviour, so pytest tests, not case files."""

import pytest

import minijinja_py as mj

pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402  (Jinja2 as transformers configures it)


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
    def __len__(self):
        return 42


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


@pytest.mark.parametrize("source", PRINTED)
def test_printed_as_jinja2_prints_them(source):
    ours = mj.chat_environment().from_string(source).render(context())
    assert ours == reference_env().from_string(source).render(context())


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
