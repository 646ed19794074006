"""Tests: `x is name(args)` → bool. One `test_*` function per Jinja2 builtin test, registered in TESTS."""

# A test receives the value and its arguments. Tests that need the render state (to look up other tests or
# filters) are marked with @pass_state and receive it first.

import _collections_abc as abc   # collections.abc itself, without the module that re-exports it

from ..core.budget import COMPARE, CONTAINS, HASHES, costs, member
from ..core.errors import TemplateError, jinja2_named
from ..core.state import pass_state
from ..runtime.printing import to_str
from ..runtime.undefined import Undefined

__all__ = ["TESTS", "BOOL_TESTS", "TYPE_TESTS"]


def test_odd(value):
    """Is the number odd?"""
    return value % 2 == 1


def test_even(value):
    """Is the number even?"""
    return value % 2 == 0


def test_divisibleby(value, num):
    """Is value divisible by num?"""
    return value % num == 0


def test_defined(value):
    """Is the variable defined?"""
    return not isinstance(value, Undefined)


def test_undefined(value):
    """Is the variable undefined?"""
    return isinstance(value, Undefined)


@costs(HASHES)
@pass_state
def test_filter(rs, value):
    """Is there a filter of this name?"""
    return value in rs.env.filters


@costs(HASHES)
@pass_state
def test_test(rs, value):
    """Is there a test of this name?"""
    return value in rs.env.tests


def test_none(value):
    """Is the value None?"""
    return value is None


def test_boolean(value):
    """Is the value True or False?"""
    return value is True or value is False


def test_false(value):
    """Is the value False?"""
    return value is False


def test_true(value):
    """Is the value True?"""
    return value is True


def test_integer(value):
    """Is the value an int (not a bool)?"""
    return isinstance(value, int) and value is not True and value is not False


def test_float(value):
    """Is the value a float?"""
    return isinstance(value, float)


def test_lower(value):
    """Is the string lowercase?"""
    return to_str(value).islower()   # str() as the sandbox prints (bounded, address-free)


def test_upper(value):
    """Is the string uppercase?"""
    return to_str(value).isupper()


def test_string(value):
    """Is the value a string?"""
    return isinstance(value, str)


def test_mapping(value):
    """Is the value a mapping (dict)?"""
    return isinstance(value, abc.Mapping)


def test_number(value):
    """Is the value a number (bools count, as in Python)?"""
    if value.__class__ in (int, float, bool):
        return True
    from numbers import Number   # not imported at start-up (a cold start's time)
    return isinstance(value, Number)


def test_sequence(value):
    """Is the value a sequence (has a length and items)?"""
    try:
        len(value)
        value.__getitem__  # noqa: B018 - probing the protocol, as Jinja2 does
    except TemplateError:
        raise   # measuring a lazy loop ran the template's code: its errors (and a limit) are not an answer
    except Exception:
        return False
    return True


def test_sameas(value, other):
    """Is value the same object as other?"""
    return value is other


def test_iterable(value):
    """Can the value be iterated?"""
    try:
        iter(value)
    except TypeError:
        return False
    return True


def test_escaped(value):
    """Is the value marked safe (Markup)?"""
    return hasattr(value, "__html__")


@costs(CONTAINS)
def test_in(value, seq):
    """Is value in seq?"""
    return member(value, seq)


@jinja2_named("callable", "one")
def test_callable(value):
    """Can the value be called?"""
    return callable(value)


# The comparison tests take their operands positionally only, as Jinja2's (which are operator.eq, ...) do.
@jinja2_named("eq", "operator")
@costs(COMPARE)
def test_eq(value, other, /):
    """Is value == other?"""
    return value == other


@jinja2_named("ne", "operator")
@costs(COMPARE)
def test_ne(value, other, /):
    """Is value != other?"""
    return value != other


@jinja2_named("gt", "operator")
@costs(COMPARE)
def test_gt(value, other, /):
    """Is value > other?"""
    return value > other


@jinja2_named("ge", "operator")
@costs(COMPARE)
def test_ge(value, other, /):
    """Is value >= other?"""
    return value >= other


@jinja2_named("lt", "operator")
@costs(COMPARE)
def test_lt(value, other, /):
    """Is value < other?"""
    return value < other


@jinja2_named("le", "operator")
@costs(COMPARE)
def test_le(value, other, /):
    """Is value <= other?"""
    return value <= other


TESTS = {
    "odd": test_odd,
    "even": test_even,
    "divisibleby": test_divisibleby,
    "defined": test_defined,
    "undefined": test_undefined,
    "filter": test_filter,
    "test": test_test,
    "none": test_none,
    "boolean": test_boolean,
    "false": test_false,
    "true": test_true,
    "integer": test_integer,
    "float": test_float,
    "lower": test_lower,
    "upper": test_upper,
    "string": test_string,
    "mapping": test_mapping,
    "number": test_number,
    "sequence": test_sequence,
    "iterable": test_iterable,
    "callable": test_callable,
    "sameas": test_sameas,
    "escaped": test_escaped,
    "in": test_in,
    "==": test_eq,
    "eq": test_eq,
    "equalto": test_eq,
    "!=": test_ne,
    "ne": test_ne,
    ">": test_gt,
    "gt": test_gt,
    "greaterthan": test_gt,
    ">=": test_ge,
    "ge": test_ge,
    "<": test_lt,
    "lt": test_lt,
    "lessthan": test_lt,
    "<=": test_le,
    "le": test_le,
}

# Tests whose result is always a bool, whatever the value: the compiler need not convert it.
BOOL_TESTS = frozenset({
    test_defined, test_undefined, test_filter, test_test, test_none, test_boolean, test_false, test_true,
    test_integer, test_float, test_lower, test_upper, test_string, test_mapping, test_number, test_sequence,
    test_iterable, test_escaped, test_in, test_callable, test_sameas,
})

# Tests that look only at the value's type or protocols: constant time whatever the value's size, and a bool, so
# without arguments they are applied without the general argument and budget handling.
TYPE_TESTS = frozenset({
    test_defined, test_undefined, test_none, test_boolean, test_false, test_true, test_integer, test_float,
    test_string, test_mapping, test_number, test_sequence, test_iterable, test_escaped, test_callable,
})
