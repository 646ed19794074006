"""Filters that apply something to each item: `items | map(...)`, `select`, `reject`, `selectattr`, `rejectattr`
→ generators, and what they (and sort, groupby, unique, sum, join, min, max) are built from: attribute getters
("user.name", "items.0") and filters or tests called by name for each item."""

# Jinja2 looks a named filter or test up for every item and calls it through its environment: the same here (the
# registry may change between two items, while a loop body runs), in two Python calls per item — the named call
# and the function's charged form (budget.charged_forms) — charged _NAMED_CALL_STEPS besides what the call costs.
# selectattr/rejectattr with the engine's own equalto or (un)defined on plain dicts and strings decide in line,
# at that same price.

from ..core.budget import charge_item, charged_forms, charges_own_items, guard, metered, shallow_steps
from ..core.errors import FilterArgumentError, TemplateRuntimeError
from ..core.state import CHAR_SHIFT, MISSING, check_items, out_of_fuel, pass_state
from ..runtime.printing import safe_repr
from ..runtime.sandbox import DICT_ATTRS, DICT_MUTATORS, getitem_, undefined_on_str
from ..runtime.undefined import PLAIN_UNDEFINED, Undefined
from .tests import TESTS

__all__ = ["make_attrgetter", "make_multi_attrgetter", "ignore_case", "named_caller", "do_map", "do_select",
           "do_reject", "do_selectattr", "do_rejectattr"]


def ignore_case(value):
    return value.lower() if isinstance(value, str) else value


def _attribute_parts(rs, attribute):
    if attribute is None:
        return []
    if isinstance(attribute, str):
        return [int(x) if x.isdigit() else x for x in attribute.split(".")]
    if type(attribute) is not int:
        guard(rs, attribute)  # every item's lookup hashes it: a template-built tuple is walked (and paid for) once
    return [attribute]


def make_attrgetter(rs, attribute, postprocess=None, default=None):
    # item → item[part1][part2]... for a dotted attribute path ("user.name", "items.0").
    return _attrgetter(rs, attribute, postprocess, default)[0]


def _attrgetter(rs, attribute, postprocess=None, default=None):
    # (make_attrgetter's getter, the str key it reads a plain dict item by in line, or None).
    parts = _attribute_parts(rs, attribute)
    if len(parts) == 1 and postprocess is None and default is None:
        return _key_getter(rs, parts[0])

    def attrgetter(item):
        for part in parts:
            item = getitem_(item, part, rs)
            if default is not None and isinstance(item, Undefined):
                item = default
        if postprocess is not None:
            item = postprocess(item)
        return item
    return attrgetter, None


def _key_getter(rs, part):
    # (item → item[part], the key read in line or None), one part: a plain dict's str key read in line (as getitem_
    # reads it), anything else through getitem_.
    if type(part) is not str or part[:1] == "_":
        return (lambda item: getitem_(item, part, rs)), None

    def get_key(item):
        if type(item) is dict and part in item:
            return item[part]
        return getitem_(item, part, rs)
    return get_key, part


def make_multi_attrgetter(rs, attribute, postprocess=None):
    # item → [value per comma-separated attribute path], for sort(attribute='a,b').
    split = attribute.split(",") if isinstance(attribute, str) else [attribute]
    parts = [_attribute_parts(rs, x) for x in split]

    def attrgetter(item):
        items = [None] * len(parts)
        for i, path in enumerate(parts):
            value = item
            for part in path:
                value = getitem_(value, part, rs)
            if postprocess is not None:
                value = postprocess(value)
            items[i] = value
        return items
    return attrgetter


# ------------------------------------------------------------------------------------------- named calls
# A filter or test called by name for each item (map('upper'), select('odd')) takes about as long as this many
# steps besides its own charge (the lookup, the charged form, the call)
_NAMED_CALL_STEPS = 8


def named_caller(rs, registry, kind, name, args, kwargs):
    # call(item) → the filter or test `name` of registry applied to item (with args and kwargs), looked up for
    # each item; a name not found is a TemplateRuntimeError when the first item comes.
    found = [MISSING, None]   # the function found last, and its charged form
    unary = not args and not kwargs

    def call(item):
        rs.fuel -= _NAMED_CALL_STEPS
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        if type(name) is not str:
            guard(rs, name)  # a template-built tuple is hashed by the lookup: walked (and paid for) first
        func = registry.get(name)  # an unhashable name is a TypeError, as in Jinja2 (its lookup is a dict.get too)
        if func is not found[0]:
            if func is None:
                raise _not_found(kind, name)
            forms = charged_forms(func)
            found[0], found[1] = func, forms[2] if unary else forms[1]
        return found[1](rs, item) if unary else found[1](rs, item, args, kwargs)
    return call


def _not_found(kind, name):
    message = f"No {kind} named {safe_repr(name)}."
    if isinstance(name, Undefined):
        try:
            name._fail_with_undefined_error()
        except Exception as exc:  # noqa: BLE001 - only its message is wanted
            message = f"{message} ({exc.message}; did you forget to quote the callable name?)"
    return TemplateRuntimeError(message)


# ----------------------------------------------------------------------------------------------------- map
@charges_own_items
@pass_state
def do_map(rs, value, *args, **kwargs):
    """Apply a filter to each item (map('upper')), or take an attribute (map(attribute='name', default=...))."""
    if value:
        func, key = _prepare_map(rs, args, kwargs)
        limits = rs.limits
        count = 0
        for item in value:
            # map(attribute='role') over plain dicts: the key read in line, as _key_getter reads it
            result = item[key] if key is not None and type(item) is dict and key in item else func(item)
            count += 1
            if count > limits.max_items:
                check_items(limits, count, "an iteration")
            rs.fuel -= 1 + (len(result) >> CHAR_SHIFT if type(result) is str else shallow_steps(result))
            if rs.fuel < 0:
                raise out_of_fuel(limits)
            yield result


def _prepare_map(rs, args, kwargs):
    # (item → mapped item, the plain key a dict item is read by in line, or None).
    if not args and "attribute" in kwargs:
        attribute = kwargs.pop("attribute")
        default = kwargs.pop("default", None)
        if kwargs:
            raise FilterArgumentError(f"Unexpected keyword argument {next(iter(kwargs))!r}")
        return _attrgetter(rs, attribute, default=default)
    if not args:
        raise FilterArgumentError("map requires a filter argument")
    return named_caller(rs, rs.env.filters, "filter", args[0], args[1:], kwargs), None


# ---------------------------------------------------------------------------------------- select, reject
@charges_own_items
def _select_or_reject(rs, value, args, kwargs, keep, lookup_attr):
    if not value:
        return
    if lookup_attr:
        if not args:
            raise FilterArgumentError("Missing parameter for attribute name")
        transform = make_attrgetter(rs, args[0])
        off = 1
    else:
        transform = None
        off = 0
    if len(args) > off:
        test = named_caller(rs, rs.env.tests, "test", args[off], args[1 + off:], kwargs)
    else:
        test = bool
    plan = _inline_attr_test(rs, args, kwargs) if lookup_attr else None
    if plan is not None:
        yield from _select_planned(rs, value, plan, keep, test, transform)
        return
    count = 0
    for item in metered(rs, value):   # (items it skips cost a step: a caller's iterator may never end)
        if bool(test(item if transform is None else transform(item))) is keep:
            count += 1
            charge_item(rs, item, count)
            yield item


_EQUAL, _DEFINED, _UNDEFINED = "equal", "defined", "undefined"
_INLINE_TESTS = {"equalto": _EQUAL, "eq": _EQUAL, "==": _EQUAL, "defined": _DEFINED, "undefined": _UNDEFINED}
_PLAIN_VALUES = frozenset({str, int, float, bool, type(None), list, dict, tuple})


def _inline_attr_test(rs, args, kwargs):
    # (key, kind, constant) when selectattr/rejectattr's test can be decided in line on a plain dict: one plain
    # key (not a dict method's name, not `_`), the engine's own equalto (with a str or int) or (un)defined.
    if kwargs or len(args) < 2 or type(args[0]) is not str or type(args[1]) is not str:
        return None
    key, name = args[0], args[1]
    kind = _INLINE_TESTS.get(name)
    if kind is None or rs.env.tests.get(name) is not TESTS[name] or key[:1] == "_" or "." in key or \
            key.isdigit() or key in DICT_ATTRS or key in DICT_MUTATORS:
        return None
    if kind is _EQUAL:
        if len(args) != 3 or type(args[2]) not in (str, int):
            return None
        return key, kind, args[2]
    return (key, kind, None) if len(args) == 2 else None


def _select_planned(rs, value, plan, keep, test, transform):
    # selectattr('role', 'equalto', 'user'), rejectattr('tool_calls', 'defined'): decided in line for a plain
    # dict, and for a string (a message content walked character by character: the key is undefined on every
    # character, and an undefined of the plain classes equals no str or int and is not defined), at the price of
    # the named call each stands for; anything else through the test.
    key, kind, constant = plan
    steps = _NAMED_CALL_STEPS + 1
    on_str = undefined_on_str(key) and rs.undefined in PLAIN_UNDEFINED
    str_passes = (kind is _UNDEFINED) is keep    # what every character of a string gets
    if type(value) is str and on_str and not str_passes:
        rs.burn(steps * len(value))   # no character passes: the walk's price, paid before it is skipped
        return
    count = 0
    for item in metered(rs, value):
        cls = type(item)
        passes = None   # not decided in line: the test decides
        if cls is dict:
            rs.fuel -= steps
            if rs.fuel < 0:
                raise out_of_fuel(rs.limits)
            if key not in item:
                if kind is not _EQUAL:
                    passes = (kind is _UNDEFINED) is keep
            elif type(item[key]) in _PLAIN_VALUES and (kind is not _EQUAL or type(item[key]) is type(constant)):
                passes = (item[key] == constant if kind is _EQUAL else kind is _DEFINED) is keep
        elif cls is str and on_str:
            rs.fuel -= steps
            if rs.fuel < 0:
                raise out_of_fuel(rs.limits)
            passes = str_passes
        if passes is None:
            passes = bool(test(transform(item))) is keep
        if passes:
            count += 1
            charge_item(rs, item, count)
            yield item


@pass_state
def do_select(rs, value, *args, **kwargs):
    """Items that pass a test (select('odd')), or are truthy."""
    return _select_or_reject(rs, value, args, kwargs, True, False)


@pass_state
def do_reject(rs, value, *args, **kwargs):
    """Items that fail a test."""
    return _select_or_reject(rs, value, args, kwargs, False, False)


@pass_state
def do_selectattr(rs, value, *args, **kwargs):
    """Items whose attribute passes a test (selectattr('role', 'equalto', 'user')), or is truthy."""
    return _select_or_reject(rs, value, args, kwargs, True, True)


@pass_state
def do_rejectattr(rs, value, *args, **kwargs):
    """Items whose attribute fails a test."""
    return _select_or_reject(rs, value, args, kwargs, False, True)
