"""Sandbox: the one policy for what a template may do with a value — read an attribute or item, call it,
print it, format with it.

A template sees the values the caller passed, plus an allowlist of pure methods of str, dict, list, tuple,
set, int and float. Names starting with '_' are refused. Methods that mutate a known mutable type (list.append,
dict.update, ...) raise SecurityError, as in Jinja2's ImmutableSandboxedEnvironment. Functions, modules, classes,
code, frames and generators expose no attributes at all, and nothing prints with a memory address. Methods that
build strings (center, zfill, replace, join, format, ...) are wrapped so their size is checked before allocating.
"""

import collections
import string
import types
from collections import abc
from functools import partial

from .errors import SecurityError, TemplateRuntimeError
from .markup import EscapeFormatter, Markup
from .runtime import (
    MISSING, ChainableUndefined, Cycler, DictFactory, GroupTuple, Joiner, LoopContext, Macro, Namespace,
    Undefined, limit_exceeded,
)

__all__ = [
    "getattr_", "getitem_", "attribute_only", "unsafe_undefined", "to_str", "safe_repr", "safe_format",
    "percent_format", "check_str_size", "soft_str",
]

# ------------------------------------------------------------------------------------------- the allowlists
_STR_ATTRS = frozenset("""
    capitalize casefold center count encode endswith expandtabs find format format_map index isalnum isalpha
    isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower
    lstrip maketrans partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split
    splitlines startswith strip swapcase title translate upper zfill
""".split())
_MARKUP_ATTRS = _STR_ATTRS | {"escape", "unescape", "striptags"}
_DICT_ATTRS = frozenset({"copy", "fromkeys", "get", "items", "keys", "values"})
_LIST_ATTRS = frozenset({"copy", "count", "index"})
_TUPLE_ATTRS = frozenset({"count", "index"})
_SET_ATTRS = frozenset({"copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset",
                        "symmetric_difference", "union"})
_INT_ATTRS = frozenset({"bit_length", "bit_count", "conjugate", "as_integer_ratio", "real", "imag", "numerator",
                        "denominator", "is_integer"})
_FLOAT_ATTRS = frozenset({"is_integer", "as_integer_ratio", "conjugate", "hex", "real", "imag"})
_BYTES_ATTRS = frozenset({"decode", "hex"})
_VIEW_ATTRS = frozenset({"isdisjoint"})

# Checked in MRO order, so Markup (a str) and bool (an int) find their own entry first.
_ALLOWED_BY_TYPE = {
    Markup: _MARKUP_ATTRS, str: _STR_ATTRS, dict: _DICT_ATTRS, list: _LIST_ATTRS, tuple: _TUPLE_ATTRS,
    set: _SET_ATTRS, frozenset: _SET_ATTRS, bool: _INT_ATTRS, int: _INT_ATTRS, float: _FLOAT_ATTRS,
    bytes: _BYTES_ATTRS, type({}.keys()): _VIEW_ATTRS, type({}.items()): _VIEW_ATTRS,
    type({}.values()): frozenset(), range: frozenset({"start", "stop", "step", "count", "index"}),
    LoopContext: frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth",
                            "depth0", "previtem", "nextitem", "cycle", "changed"}),
    Macro: frozenset({"name", "arguments", "defaults", "catch_kwargs", "catch_varargs", "caller"}),
    Cycler: frozenset({"items", "pos", "reset", "current", "next"}),
    Joiner: frozenset({"sep"}),
    GroupTuple: _TUPLE_ATTRS | {"grouper", "list"},
    DictFactory: frozenset({"fromkeys"}),
}

# Jinja2's ImmutableSandboxedEnvironment refuses these on the matching abstract types.
_MUTATORS = (
    (abc.MutableSet, frozenset({"add", "clear", "difference_update", "discard", "pop", "remove",
                                "symmetric_difference_update", "update", "intersection_update"})),
    (abc.MutableMapping, frozenset({"clear", "pop", "popitem", "setdefault", "update"})),
    (abc.MutableSequence, frozenset({"append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove"})),
    (collections.deque, frozenset({"append", "appendleft", "clear", "extend", "extendleft", "pop", "popleft",
                                   "remove", "rotate"})),
)

# Objects that expose no attributes to a template.
_OPAQUE = (
    types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType, types.ModuleType,
    type, types.CodeType, types.FrameType, types.TracebackType, types.GeneratorType, types.CoroutineType,
    types.AsyncGeneratorType, types.WrapperDescriptorType, types.MethodWrapperType, types.MethodDescriptorType,
    types.ClassMethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType,
    types.MappingProxyType, partial, property, staticmethod, classmethod,
)


def _allowed_attrs(obj):
    for cls in type(obj).__mro__:
        allowed = _ALLOWED_BY_TYPE.get(cls)
        if allowed is not None:
            return allowed
    return None


def _unsafe_message(obj, name):
    return f"access to attribute {name!r} of {type(obj).__name__!r} object is unsafe."


def _unsafe(obj, name):
    return SecurityError(_unsafe_message(obj, name))


def unsafe_undefined(obj, name, rs):
    """What ImmutableSandboxedEnvironment gives for a mutating method (list.append, dict.update, ...): an
    undefined that prints as '' and fails `is defined`, but raises SecurityError once it is called or used."""
    return rs.undefined(_unsafe_message(obj, name), obj=obj, name=name, exc=SecurityError)


def _is_mutator(obj, name):
    for kind, names in _MUTATORS:
        if name in names and isinstance(obj, kind):
            return True
    return False


# ----------------------------------------------------------------------------------------- attribute access
def getattr_(obj, name, rs):
    """obj.name — attribute first, then item (Jinja2's order): `d.items` is the method, `d.role` the key."""
    cls = type(obj)
    if cls is dict:
        if name in _DICT_ATTRS:
            return _bound(obj, name, rs)
        if name in _DICT_MUTATORS:
            return unsafe_undefined(obj, name, rs)
        if name[:1] == "_":
            raise _unsafe(obj, name)
        try:
            return obj[name]
        except KeyError:
            return rs.undefined(obj=obj, name=name)
    if isinstance(obj, Undefined):
        if isinstance(obj, ChainableUndefined):
            return obj
        return obj._fail_with_undefined_error()
    if name[:1] == "_":
        raise _unsafe(obj, name)
    if isinstance(obj, Namespace):
        value = obj._attrs.get(name, MISSING)
        return rs.undefined(obj=obj, name=name) if value is MISSING else value
    return _attribute(obj, name, rs, item_fallback=True)


_DICT_MUTATORS = _MUTATORS[1][1]


def _attribute(obj, name, rs, item_fallback):
    """The attribute `name` of obj under the policy; the item of that name when there is no such attribute."""
    allowed = _allowed_attrs(obj)
    if allowed is not None:
        if name in allowed:
            return _bound(obj, name, rs)
        if _is_mutator(obj, name):
            return unsafe_undefined(obj, name, rs)
    elif isinstance(obj, _OPAQUE):
        # Functions, modules, classes, generators...: an attribute that exists is refused (Jinja2 would hand out
        # some of them); one that does not is undefined, as in Jinja2.
        if hasattr(obj, name):
            raise _unsafe(obj, name)
        return rs.undefined(obj=obj, name=name)
    elif _is_mutator(obj, name):
        return unsafe_undefined(obj, name, rs)
    else:
        # an object of the caller's own class: its public attributes are what the caller chose to pass
        try:
            value = getattr(obj, name)
        except AttributeError:
            pass
        else:
            if isinstance(value, types.ModuleType) or (isinstance(value, type) and value is not type(obj)):
                raise _unsafe(obj, name)
            return value
    if item_fallback:
        try:
            return obj[name]
        except (TypeError, LookupError):
            pass
        except Exception:
            pass
    return rs.undefined(obj=obj, name=name)


def attribute_only(obj, name, rs):
    """obj.name without the item fallback (the attr filter)."""
    return _attribute(obj, name, rs, item_fallback=False)


def getitem_(obj, key, rs):
    """obj[key] — item first, then attribute (Jinja2's order)."""
    cls = type(obj)
    if cls is dict or cls is list or cls is tuple or cls is str:
        try:
            return obj[key]
        except (TypeError, LookupError):
            pass
    elif isinstance(obj, Undefined):
        if isinstance(obj, ChainableUndefined):
            return obj
        return obj._fail_with_undefined_error()
    elif isinstance(obj, (_OPAQUE, Namespace, LoopContext, Macro)):
        pass
    else:
        try:
            return obj[key]
        except (TypeError, LookupError):
            pass
    if isinstance(key, str):
        if key[:1] == "_":
            raise _unsafe(obj, key)
        if isinstance(obj, Namespace):
            value = obj._attrs.get(key, MISSING)
            if value is not MISSING:
                return value
        elif cls is not dict:
            return _attribute(obj, key, rs, item_fallback=False)
        else:
            if key in _DICT_ATTRS:
                return _bound(obj, key, rs)
            if key in _DICT_MUTATORS:
                return unsafe_undefined(obj, key, rs)
    return rs.undefined(obj=obj, name=key)


# -------------------------------------------------------------------------------------- methods with limits
def _bound(obj, name, rs):
    checked = _SIZE_CHECKED.get(name)
    if checked is not None and isinstance(obj, str):
        return _CheckedMethod(checked, obj, rs, name)
    return getattr(obj, name)


class _CheckedMethod:
    """A str method whose result size is checked before it is built."""

    __slots__ = ("func", "obj", "rs", "name")

    def __init__(self, func, obj, rs, name):
        self.func, self.obj, self.rs, self.name = func, obj, rs, name

    def __call__(self, *args, **kwargs):
        return self.func(self.rs, self.obj, *args, **kwargs)

    def __repr__(self):
        return f"<built-in method {self.name} of {type(self.obj).__name__} object>"


def check_str_size(limits, size, what="a string"):
    if size > limits.max_string:
        raise limit_exceeded(limits, "max_string", f"{what} of {size} characters")


# Each check looks at the arguments it understands and estimates the result size; the real method then runs
# with the original arguments, so argument errors are Python's own (str.replace(count=1) on Python < 3.13, ...).
def _check_width(limits, s, width=0, *args, **kwargs):
    if isinstance(width, int):
        check_str_size(limits, width)


def _check_expandtabs(limits, s, tabsize=8, **kwargs):
    if isinstance(tabsize, int):
        check_str_size(limits, len(s) + s.count("\t") * max(tabsize, 0))


def _check_replace(limits, s, old="", new="", count=-1, **kwargs):
    count = kwargs.get("count", count)
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        occurrences = s.count(old) if old else len(s) + 1
        if isinstance(count, int) and count >= 0:
            occurrences = min(occurrences, count)
        check_str_size(limits, len(s) + occurrences * (len(new) - len(old)))


def _check_translate(limits, s, table=None, *args):
    if isinstance(table, dict) and table:
        longest = max((len(v) if isinstance(v, str) else 1) for v in table.values())
        check_str_size(limits, len(s) * longest)


def _checked(check, name):
    def method(rs, s, *args, **kwargs):
        check(rs.limits, s, *args, **kwargs)
        return getattr(s, name)(*args, **kwargs)
    return method


def _join(rs, s, iterable):
    items = list(iterable)
    if all(isinstance(x, str) for x in items):
        check_str_size(rs.limits, sum(map(len, items)) + len(s) * max(len(items) - 1, 0))
    return s.join(items)


_SIZE_CHECKED = {
    "center": _checked(_check_width, "center"), "ljust": _checked(_check_width, "ljust"),
    "rjust": _checked(_check_width, "rjust"), "zfill": _checked(_check_width, "zfill"),
    "expandtabs": _checked(_check_expandtabs, "expandtabs"), "replace": _checked(_check_replace, "replace"),
    "translate": _checked(_check_translate, "translate"), "join": _join,
    "format": lambda rs, s, *args, **kwargs: safe_format(rs, s, args, kwargs),
    "format_map": lambda rs, s, mapping: safe_format(rs, s, (), mapping),
}


# ---------------------------------------------------------------------------------------------- formatting
class _SandboxedFormatter(string.Formatter):
    """str.format with the sandbox's attribute/item policy, address-free printing and a cap on field widths."""

    def __init__(self, rs):
        self.rs = rs
        self.limits = rs.limits

    def get_field(self, field_name, args, kwargs):
        first, rest = _formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = getattr_(obj, key, self.rs) if is_attr else getitem_(obj, key, self.rs)
        return obj, first

    def format_field(self, value, format_spec):
        _check_format_spec(self.limits, format_spec)
        return self.format_plain(value, format_spec)

    def format_plain(self, value, format_spec):
        # An empty spec means str(value), which must not show an address; any other spec is the value's own
        # __format__ (so '{:>5}'.format([1]) fails as in Python).
        if not format_spec and not isinstance(value, (str, int, float, complex)):
            return to_str(value)
        return format(value, format_spec)

    def convert_field(self, value, conversion):
        if conversion == "r":
            return safe_repr(value)
        if conversion == "s":
            return to_str(value)
        if conversion == "a":
            return safe_repr(value).encode("ascii", "backslashreplace").decode("ascii")
        if conversion is None:
            return value
        raise ValueError(f"Unknown conversion specifier {conversion}")


class _SandboxedEscapeFormatter(_SandboxedFormatter, EscapeFormatter):
    """Markup.format in the sandbox: the sandbox's field lookup, markupsafe's escaping of each field."""

    def format_field(self, value, format_spec):
        _check_format_spec(self.limits, format_spec)
        return EscapeFormatter.format_field(self, value, format_spec)


def _formatter_field_name_split(field_name):
    import _string
    return _string.formatter_field_name_split(field_name)


def _check_format_spec(limits, spec):
    digits = []
    for ch in spec:
        if ch.isdigit():
            digits.append(ch)
        else:
            if digits and len(digits) > 9:
                raise limit_exceeded(limits, "max_string", "a format width")
            if digits and int("".join(digits)) > limits.max_string:
                raise limit_exceeded(limits, "max_string", "a format width")
            digits = []
    if digits and (len(digits) > 9 or int("".join(digits)) > limits.max_string):
        raise limit_exceeded(limits, "max_string", "a format width")


def safe_format(rs, fmt, args, kwargs):
    """fmt.format(*args, **kwargs) / fmt.format_map(kwargs) under the sandbox policy. On Markup each field is
    escaped after formatting and the result is Markup."""
    if isinstance(fmt, Markup):
        result = Markup(_SandboxedEscapeFormatter(rs).vformat(fmt, args, kwargs))
    else:
        result = _SandboxedFormatter(rs).vformat(fmt, args, kwargs)
    check_str_size(rs.limits, len(result))
    return result


class _SafeText:
    """Stands in for a non-plain value in %-formatting so %s/%r use the sandbox's printing."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __str__(self):
        return to_str(self.value)

    def __repr__(self):
        return safe_repr(self.value)


_PERCENT_SPEC = __import__("re").compile(
    r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]")


def percent_format(limits, fmt, args):
    """fmt % args with sandboxed printing and width checks."""
    widths = 0
    for m in _PERCENT_SPEC.finditer(fmt):
        for group in m.groups():
            if group and group != "*":
                if len(group) > 9 or int(group) > limits.max_string:
                    raise limit_exceeded(limits, "max_string", "a format width")
                widths += int(group)
            elif group == "*":
                widths += 0
    if isinstance(args, tuple):
        stars = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
        if any(abs(a) > limits.max_string for a in stars) and "*" in fmt:
            raise limit_exceeded(limits, "max_string", "a format width")
        args = tuple(_plain_or_safe(a) for a in args)
    elif isinstance(args, dict):
        args = {k: _plain_or_safe(v) for k, v in args.items()}
    else:
        args = _plain_or_safe(args)
    result = fmt % args
    check_str_size(limits, len(result))
    return result


def _plain_or_safe(value):
    if value is None or isinstance(value, (str, int, float)):
        return value
    return _SafeText(value)


# ------------------------------------------------------------------------------------------------- printing
_PLAIN_SCALARS = (int, float, bool, type(None), complex)


def to_str(value):
    """How {{ value }} prints: Python's str(), except that nothing shows a memory address."""
    cls = type(value)
    if cls is str:
        return value
    if cls is int or cls is float or cls is bool or value is None:
        return str(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, Undefined):
        return str(value)
    return _repr(value, set(), 0, for_str=True)


def soft_str(value):
    """A string as it is (Markup stays Markup), anything else as {{ value }} prints it: Jinja2's soft_str()
    without memory addresses."""
    return value if isinstance(value, str) else to_str(value)


def safe_repr(value):
    """repr() for templates: Python's, for data; an address-free stand-in for functions and opaque objects."""
    return _repr(value, set(), 0, for_str=False)


def _repr(value, active, depth, for_str):
    cls = type(value)
    if cls is str or cls is int or cls is float or cls is bool or value is None:
        return str(value) if for_str else repr(value)
    if depth > 500:
        raise TemplateRuntimeError("data nested too deeply to print")
    if cls is GroupTuple:
        cls = tuple  # groupby's pairs print as plain tuples
    if cls is list or cls is tuple or cls is dict or cls is set or cls is frozenset:
        key = id(value)
        if key in active:
            return {list: "[...]", tuple: "(...)", dict: "{...}"}.get(cls, f"{cls.__name__}(...)")
        active.add(key)
        try:
            if cls is list:
                return "[" + ", ".join(_repr(x, active, depth + 1, False) for x in value) + "]"
            if cls is tuple:
                inner = ", ".join(_repr(x, active, depth + 1, False) for x in value)
                return "(" + inner + ("," if len(value) == 1 else "") + ")"
            if cls is dict:
                return "{" + ", ".join(f"{_repr(k, active, depth + 1, False)}: {_repr(v, active, depth + 1, False)}"
                                       for k, v in value.items()) + "}"
            if not value:
                return f"{cls.__name__}()"
            inner = ", ".join(_repr(x, active, depth + 1, False) for x in value)
            return "{" + inner + "}" if cls is set else f"frozenset({{{inner}}})"
        finally:
            active.discard(key)
    if isinstance(value, str):
        return str.__str__(value) if for_str else repr(value)
    if isinstance(value, _PLAIN_SCALARS):
        return str(value) if for_str else repr(value)
    if isinstance(value, (Undefined, LoopContext, Macro, Namespace, Cycler, Joiner, DictFactory, range,
                          _CheckedMethod)):
        return str(value) if for_str and isinstance(value, Undefined) else repr(value)
    if cls in (type({}.keys()), type({}.values()), type({}.items())):
        return f"{cls.__name__}({_repr(list(value), active, depth + 1, False)})"
    if isinstance(value, _OPAQUE):
        return _opaque_repr(value)
    # The caller's own objects: their __str__/__repr__, unless that is object's default (which shows an address).
    method = cls.__str__ if for_str else cls.__repr__
    if method is object.__str__ or method is object.__repr__:
        if cls.__repr__ is object.__repr__:
            where = "" if cls.__module__ == "builtins" else f"{cls.__module__}."
            return f"<{where}{cls.__qualname__} object>"
        return repr(value)
    return str(value) if for_str else repr(value)


def _opaque_repr(value):
    if isinstance(value, (types.BuiltinMethodType, types.MethodType)) and getattr(value, "__self__", None) \
            is not None and not isinstance(value.__self__, types.ModuleType):
        return f"<built-in method {value.__name__} of {type(value.__self__).__name__} object>"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return f"<function {getattr(value, '__name__', '?')}>"
    if isinstance(value, types.GeneratorType):
        return f"<generator object {value.__name__}>"
    if isinstance(value, type):
        return f"<class '{value.__name__}'>"
    if isinstance(value, types.ModuleType):
        return f"<module '{value.__name__}'>"
    return f"<{type(value).__name__} object>"
