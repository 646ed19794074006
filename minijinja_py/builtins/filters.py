"""Filters: `value | name(args)` → new value. One `do_*` function per Jinja2 builtin filter, registered in FILTERS,
with Jinja2's signatures, defaults and quirks (several return generators, as Jinja2's do). The string filters
(HTML, URL and JSON ones included) live in strings.py."""

# A filter receives the value and its arguments. Filters that need the render state (environment, limits,
# undefined class, autoescape) are marked @pass_state and receive it first. Attribute paths ("user.name", "0")
# go through the sandbox's item-then-attribute lookup.

import math
from operator import length_hint
import _collections_abc as abc   # collections.abc itself, without the module that re-exports it
from itertools import chain, groupby

from .strings import (
    do_upper, do_lower, do_capitalize, do_title, do_trim, do_center, do_replace, do_indent, do_truncate,
    do_wordcount, do_wordwrap, do_format, do_string, do_escape, do_forceescape, do_safe, do_striptags, do_tojson,
    do_urlencode, do_urlize, do_xmlattr,
)
from .itemwise import (
    do_map, do_reject, do_rejectattr, do_select, do_selectattr, ignore_case, make_attrgetter, make_multi_attrgetter,
)
from ..core.budget import (
    ITERATES, TREE, costs, general_unary, guard, listed, metered, size_hint, take, tree_size, unary_form,
    unary_result)
from ..core.errors import FilterArgumentError, jinja2_named, state_not_counted
from ..core.state import BIG_STR, check_items, check_str_size, limit_exceeded, out_of_fuel, pass_state
from ..runtime.markup import escape, soft_str
from ..runtime.objects import GroupTuple, Namespace
from ..runtime.pformat import safe_pformat
from ..runtime.printing import to_str
from ..runtime.sandbox import attribute_only, getattr_
from ..runtime.undefined import Undefined

__all__ = ["FILTERS", "DICT_PAIRS_CODE"]

_STR_ONLY = frozenset({str})
_SCALARS = frozenset({str, int, float, bool, type(None)})


# ------------------------------------------------------------------------------------------------- strings
@jinja2_named("sync_do_join")
@costs(ITERATES)
@pass_state
def do_join(rs, value, d="", attribute=None):
    """Join the items with d (optionally an attribute of each)."""
    if attribute is not None:
        value = map(make_attrgetter(rs, attribute), value)
    items = listed(rs, value, "a join")
    if not rs.autoescape:
        if _STR_ONLY.issuperset(map(type, items)):   # plain strings (the commonest), told apart at C speed
            parts = items
        else:
            parts = [x if type(x) is str else to_str(x, rs) for x in items]   # str() of each, as Jinja2's
        sep = d if type(d) is str else str(soft_str(d))
        check_str_size(rs.limits, sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0))
        return sep.join(parts)
    parts = [x if hasattr(x, "__html__") else soft_str(x) for x in items]
    check_str_size(rs.limits, sum(map(len, parts)) * 6 + len(soft_str(d)) * max(len(parts) - 1, 0))
    if not hasattr(d, "__html__"):
        if any(hasattr(x, "__html__") for x in items):
            d = escape(d)
        else:
            return str(soft_str(d)).join(x if type(x) is str else to_str(x, rs) for x in items)
    return d.join(items)


# -------------------------------------------------------------------------------------------------- numbers
def do_filesizeformat(value, binary=False):
    """Human-readable file size: 13.0 kB, 1.0 MiB (binary)."""
    size = float(value)
    base = 1024 if binary else 1000
    prefixes = [("KiB" if binary else "kB"), ("MiB" if binary else "MB"), ("GiB" if binary else "GB"),
                ("TiB" if binary else "TB"), ("PiB" if binary else "PB"), ("EiB" if binary else "EB"),
                ("ZiB" if binary else "ZB"), ("YiB" if binary else "YB")]
    if size == 1:
        return "1 Byte"
    if size < base:
        return f"{int(size)} Bytes"
    for i, prefix in enumerate(prefixes):
        unit = base ** (i + 2)
        if size < unit:
            return f"{base * size / unit:.1f} {prefix}"
    return f"{base * size / unit:.1f} {prefix}"


@jinja2_named("abs", "one")
def do_abs(*args):
    """Absolute value."""
    if len(args) != 1:   # (Jinja2's abs filter is the built-in: its message)
        raise TypeError(f"abs() takes exactly one argument ({len(args)} given)")
    return abs(args[0])


@state_not_counted
@pass_state
def do_int(rs, value, default=0, base=10):
    """Convert to int ("42.23" gives 42); default when impossible. A string may give a base (0x, 0o, 0b)."""
    if isinstance(value, str) and isinstance(base, int) and len(value) > 64:
        _check_int_digits(rs.limits, value, base)
    try:
        return int(value, base) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        pass
    # "42.23" and "1e3" go through float; a string too long for int() (Python's 4300-digit limit) ends up
    # here too, and overflows to the default
    try:
        return int(float(value))
    except (TypeError, ValueError, OverflowError):
        return default


_BITS_PER_DIGIT = {2: 1, 4: 2, 8: 3, 16: 4, 32: 5}


def _check_int_digits(limits, text, base):
    # int(text, base) for a base that is a power of two (or 0: a 0x/0o/0b prefix) has no digit limit in
    # Python: refuse a number longer than max_int_bits before converting it (other bases stop at 4300 digits).
    text = text.strip()
    if base == 0:
        prefix = text.lstrip("+-")[:2].lower()
        base = {"0x": 16, "0o": 8, "0b": 2}.get(prefix, 10)
    bits = _BITS_PER_DIGIT.get(base, 0)
    if bits and len(text) * bits > limits.max_int_bits + 64:
        raise limit_exceeded(limits, "max_int_bits", "an integer of this many digits")


def do_float(value, default=0.0):
    """Convert to float; default when impossible."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


@state_not_counted
@pass_state
def do_round(rs, value, precision=0, method="common"):
    """Round: 'common' (Python round), 'ceil' or 'floor', to precision digits."""
    if type(method) is not str and not isinstance(method, set):
        # Jinja2 looks the method up in a set, where hashing fails for an unhashable one (a list also inside a
        # tuple, a strict undefined; a set is looked up as a frozenset); guarded first, as a deep or shared tuple
        # would make hashing unbounded
        hash(guard(rs, method))
    if type(method) is not str or method not in {"common", "ceil", "floor"}:
        raise FilterArgumentError("method must be common, ceil or floor")
    # 10 ** |precision| is made by ceil and floor, and by Python's round of an int to a negative precision only
    # (an int rounded to a positive one is itself, at once)
    powers = isinstance(precision, int) and (method != "common" or isinstance(value, int) and precision < 0)
    if powers and abs(precision) * 10 // 3 > rs.limits.max_int_bits:
        raise limit_exceeded(rs.limits, "max_int_bits", f"10 ** {abs(precision)}")
    if powers and type(value) is int and type(precision) is int:
        # 10 ** |precision| is computed (about quadratic in its size) and divides value: paid for by the sizes,
        # as big-integer arithmetic is (budget.py)
        power_words = (abs(precision) * 10 // 3 >> 6) + 1
        rs.burn(power_words * max(power_words, (value.bit_length() >> 6) + 1) >> 6)
    if method == "common":
        return round(value, precision)
    func = getattr(math, method)
    return func(value * (10 ** precision)) / (10 ** precision)


@jinja2_named("sync_do_sum")
@costs(ITERATES)
@pass_state
def do_sum(rs, iterable, attribute=None, start=0):
    """Sum of the items (or of an attribute of each), plus start."""
    if attribute is not None:
        iterable = map(make_attrgetter(rs, attribute), iterable)
    iterable = metered(rs, iterable)
    if not isinstance(start, (list, tuple)):
        return sum(iterable, start)  # numbers (and sum's own refusal of strings)
    total = start
    for item in iterable:
        if isinstance(item, (list, tuple)):
            check_items(rs.limits, len(total) + len(item))
            rs.burn(len(total) + len(item))
        total = total + item
    return total


def _min_or_max(rs, value, func, case_sensitive, attribute):
    it = iter(metered(rs, value))
    try:
        first = next(it)
    except StopIteration:
        return rs.undefined("No aggregated item, sequence was empty.")
    key = make_attrgetter(rs, attribute, postprocess=None if case_sensitive else ignore_case)
    return func(chain([first], it), key=key)


@costs(TREE)
@pass_state
def do_min(rs, value, case_sensitive=False, attribute=None):
    """Smallest item (case-insensitive for strings unless case_sensitive)."""
    return _min_or_max(rs, value, min, case_sensitive, attribute)


@costs(TREE)
@pass_state
def do_max(rs, value, case_sensitive=False, attribute=None):
    """Largest item."""
    return _min_or_max(rs, value, max, case_sensitive, attribute)


# -------------------------------------------------------------------------------------------- collections
@jinja2_named("len", "one")
def do_length(obj):
    """Number of items."""
    return len(obj)


@jinja2_named("sync_do_list")
@state_not_counted
@pass_state
def do_list(rs, value):
    """Convert to a list (a string gives its characters, a dict its keys)."""
    return take(rs, _hinted(value), "a list")


def do_items(value):
    """The (key, value) pairs of a mapping; nothing for undefined."""
    if isinstance(value, Undefined):
        return
    if not isinstance(value, abc.Mapping):
        raise TypeError("Can only get item pairs from a mapping.")
    yield from value.items()


@jinja2_named("sync_do_first")
@pass_state
def do_first(rs, seq):
    """The first item."""
    try:
        return next(iter(seq))
    except StopIteration:
        return rs.undefined("No first item, sequence was empty.")


@pass_state
def do_last(rs, seq):
    """The last item."""
    try:
        return next(iter(reversed(seq)))
    except StopIteration:
        return rs.undefined("No last item, sequence was empty.")


# ----------------------------------------------------- the unary forms (budget.charged_unary): plain values
# Each takes a plain str, list, tuple or dict in one Python call, charged as budget.general_unary charges the
# call and its result (a string argument over BIG_STR characters is never taken in line: it is charged its
# length there); any other value goes through general_unary.
def _length_unary(rs, value):
    cls = type(value)
    if cls is list or cls is dict or cls is tuple or cls is str and len(value) <= BIG_STR:
        rs.fuel -= 1
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        return len(value)
    return _length_general(rs, value)


def _list_unary(rs, value):
    cls = type(value)
    if cls is list or cls is tuple or cls is dict or cls is str and len(value) <= BIG_STR:
        size = len(value)
        check_items(rs.limits, size, "a list")
        rs.fuel -= 1 + 2 * size   # the call, take()'s items, then the list handed back
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        return list(value)
    return _list_general(rs, value)


def _end_unary(func, index):
    # |first (index 0) or |last (index -1) of a plain list or tuple: the item read in line.
    general = general_unary(func)

    def kernel(rs, value):
        if (type(value) is list or type(value) is tuple) and value:
            rs.fuel -= 1
            if rs.fuel < 0:
                raise out_of_fuel(rs.limits)
            item = value[index]
            return item if type(item) is str and len(item) < 16 else unary_result(rs, item)
        return general(rs, value)
    return kernel


def _items_unary(rs, value):
    # A plain dict's pairs, each charged at the call as budget.charged_generator would charge it when pulled
    # (1 step, and 2 for the pair): checked against max_items before the first is made.
    if type(value) is not dict:
        return _items_general(rs, value)
    size = len(value)
    check_items(rs.limits, size, "an iteration")
    rs.fuel -= 1 + 3 * size
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    return _dict_pairs(value)


def _pairs_of():
    def do_items(value):   # (named as the filter: its generators print as do_items' own do)
        yield from value.items()
    return do_items


_dict_pairs = _pairs_of()
DICT_PAIRS_CODE = _dict_pairs.__code__   # what a generator of a plain dict's pairs runs (compile/loops.py)
_length_general, _list_general, _items_general = map(general_unary, (do_length, do_list, do_items))
unary_form(do_length, _length_unary)
unary_form(do_list, _list_unary)
unary_form(do_items, _items_unary)
unary_form(do_first, _end_unary(do_first, 0))
unary_form(do_last, _end_unary(do_last, -1))


@pass_state
def do_random(rs, seq):
    """A random item: from Python's `random` module as Jinja2, or seeded per render by random_seed."""
    # Environment's random_seed is None by default (random.seed() decides, as in Jinja2); the chat profile's is 0:
    # a generator seeded per render, so the same inputs give the same output
    if rs.random is None:
        import random   # ~1.5 ms of a cold start: imported by the first |random
        seed = rs.env.random_seed
        rs.random = random if seed is None else random.Random(seed)
    if not len(seq):   # (before choice(): Python 3.9's indexes an empty sequence, an undefined too)
        return rs.undefined("No random item, sequence was empty.")
    try:
        return rs.random.choice(seq)
    except IndexError:   # a caller's sequence whose __len__ says more than it has, as Jinja2 takes it
        return rs.undefined("No random item, sequence was empty.")


@costs(ITERATES)
@state_not_counted
@pass_state
def do_reverse(rs, value):
    """Reverse a string, or iterate a sequence backwards."""
    if isinstance(value, str):
        return value[::-1]
    try:
        return reversed(value)
    except TypeError:
        try:
            rv = listed(rs, value, "a reversed sequence")
            rv.reverse()
            return rv
        except TypeError as e:
            raise FilterArgumentError("argument must be iterable") from e


@costs(TREE)
@pass_state
def do_sort(rs, value, reverse=False, case_sensitive=False, attribute=None):
    """Sorted list; attribute may be dotted and comma-separated ("age,name")."""
    key = make_multi_attrgetter(rs, attribute, postprocess=None if case_sensitive else ignore_case)
    return sorted(listed(rs, _hinted(value), "a sort"), key=key, reverse=reverse)


def _hinted(value):
    # value, its length hint asked first as list() and sorted() ask it of anything but a plain list or tuple: a
    # caller's __len__ that fails fails them, as in Jinja2 (the items are then taken within max_items: the
    # caller's __iter__ may never end).
    if type(value) is not list and type(value) is not tuple:
        length_hint(value)
    return value


@state_not_counted
@pass_state
def do_dictsort(rs, value, case_sensitive=False, by="key", reverse=False):
    """The items of a dict sorted by key (or by value)."""
    _charge_dictsort(rs, value, by)
    if by == "key":
        pos = 0
    elif by == "value":
        pos = 1
    else:
        raise FilterArgumentError('You can only sort by either "key" or "value"')

    def sort_func(item):
        v = item[pos]
        return v if case_sensitive else ignore_case(v)
    items = value.items()
    if type(value) is not dict:   # a caller's items() may never end
        items = listed(rs, _hinted(items), "a dictsort")
    return sorted(items, key=sort_func, reverse=reverse)


def _charge_dictsort(rs, value, by):
    # What sorting a dict's items compares, charged before: by key, a plain dict's keys only when they are
    # scalars (distinct keys: the values are never compared), as many times as a sort compares (n log n);
    # anything else as a TREE cost: the whole of it, nested values included.
    if type(value) is dict and by == "key" and _SCALARS.issuperset(map(type, value)):
        size = len(value)
        rs.burn((1 + 2 * size) * max(1, size.bit_length()))   # (what tree_size gives a flat dict)
    else:
        rs.burn(tree_size(rs, value) * max(1, size_hint(value).bit_length()))


@jinja2_named("sync_do_unique")
@costs(TREE)
@pass_state
def do_unique(rs, value, case_sensitive=False, attribute=None):
    """Items without duplicates (first occurrence kept)."""
    getter = make_attrgetter(rs, attribute, postprocess=None if case_sensitive else ignore_case)
    seen = set()
    for item in metered(rs, value):   # (a caller's iterator, or subclass's __iter__, may never end)
        key = getter(item)
        if key not in seen:
            seen.add(key)
            yield item


@costs(ITERATES)
@state_not_counted
@pass_state
def do_batch(rs, value, linecount, fill_with=None):
    """Lists of linecount items (the last filled with fill_with when given)."""
    if isinstance(linecount, int) and linecount > rs.limits.max_items:
        raise limit_exceeded(rs.limits, "max_items", f"a batch of {linecount} items")
    tmp = []
    for item in value:
        if len(tmp) == linecount:
            yield tmp
            tmp = []
        tmp.append(item)
    if tmp:
        if fill_with is not None and len(tmp) < linecount:
            tmp += [fill_with] * (linecount - len(tmp))
        yield tmp


@jinja2_named("sync_do_slice")
@state_not_counted
@costs(ITERATES)
@pass_state
def do_slice(rs, value, slices, fill_with=None):
    """Split into `slices` columns."""
    if isinstance(slices, int) and slices > rs.limits.max_items:
        raise limit_exceeded(rs.limits, "max_items", f"{slices} slices")
    seq = list(listed(rs, value, "a slice"))   # (a caller's endless iterator stops at max_items)
    length = len(seq)
    per_slice = length // slices  # not divmod(): an undefined `slices` must fail as an undefined
    with_extra = length % slices
    offset = 0
    for number in range(slices):
        start = offset + number * per_slice
        if number < with_extra:
            offset += 1
        end = offset + (number + 1) * per_slice
        tmp = seq[start:end]
        if fill_with is not None and number >= with_extra:
            tmp.append(fill_with)
        yield tmp


@jinja2_named("sync_do_groupby")
@costs(TREE)
@pass_state
def do_groupby(rs, value, attribute, default=None, case_sensitive=False):
    """Group items by an attribute: a list of (grouper, items), sorted by grouper."""
    expr = make_attrgetter(rs, attribute, postprocess=None if case_sensitive else ignore_case, default=default)
    out = [GroupTuple(key, list(values))
           for key, values in groupby(sorted(listed(rs, _hinted(value), "a groupby"), key=expr), expr)]
    if not case_sensitive:
        output_expr = make_attrgetter(rs, attribute, default=default)
        out = [GroupTuple(output_expr(values[0]), values) for _, values in out]
    return out


@pass_state
def do_attr(rs, obj, name):
    """obj's attribute name (attributes only, never items: {'a': 1}|attr('a') is undefined)."""
    if not isinstance(name, str):
        hash(name)   # (Jinja2 first looks the name up in the class's dicts: an unhashable one fails there)
        raise TypeError(f"attribute name must be string, not {type(name).__name__!r}")
    if isinstance(obj, Undefined):
        return attribute_only(obj, name, rs)  # undefined's own rule
    if isinstance(obj, Namespace):
        return getattr_(obj, name, rs)  # a namespace's attributes are its values
    return attribute_only(obj, name, rs)


@state_not_counted
@pass_state
def do_pprint(rs, value):
    """Pretty-print (for debugging)."""
    return safe_pformat(value, rs)


# ------------------------------------------------------------------------------------------------ defaults
def do_default(value, default_value="", boolean=False):
    """default_value when value is undefined (or falsy, with boolean=true)."""
    if isinstance(value, Undefined) or (boolean and not value):
        return default_value
    return value


FILTERS = {
    "abs": do_abs,
    "attr": do_attr,
    "batch": do_batch,
    "capitalize": do_capitalize,
    "center": do_center,
    "count": do_length,
    "d": do_default,
    "default": do_default,
    "dictsort": do_dictsort,
    "e": do_escape,
    "escape": do_escape,
    "filesizeformat": do_filesizeformat,
    "first": do_first,
    "float": do_float,
    "forceescape": do_forceescape,
    "format": do_format,
    "groupby": do_groupby,
    "indent": do_indent,
    "int": do_int,
    "items": do_items,
    "join": do_join,
    "last": do_last,
    "length": do_length,
    "list": do_list,
    "lower": do_lower,
    "map": do_map,
    "max": do_max,
    "min": do_min,
    "pprint": do_pprint,
    "random": do_random,
    "reject": do_reject,
    "rejectattr": do_rejectattr,
    "replace": do_replace,
    "reverse": do_reverse,
    "round": do_round,
    "safe": do_safe,
    "select": do_select,
    "selectattr": do_selectattr,
    "slice": do_slice,
    "sort": do_sort,
    "string": do_string,
    "striptags": do_striptags,
    "sum": do_sum,
    "title": do_title,
    "tojson": do_tojson,
    "trim": do_trim,
    "truncate": do_truncate,
    "unique": do_unique,
    "upper": do_upper,
    "urlencode": do_urlencode,
    "urlize": do_urlize,
    "wordcount": do_wordcount,
    "wordwrap": do_wordwrap,
    "xmlattr": do_xmlattr,
}
