"""Values of the caller's own classes that the case files cannot spell, read as Jinja2 reads them: an object with
__html__ marked safe is its __html__() text (markupsafe's Markup(value)), not its str(); classes, built-in
functions and the methods of objects print as Python prints them where Python's repr shows no address. Compared with Jinja2's
sandbox as transformers configures it."""

import enum
import math
from decimal import Decimal

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402  (Jinja2 as transformers configures it)


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
