"""Sandbox: the one policy for what a template may do with a value — read an attribute or item, call it,
print it, format with it."""

# A template sees the values the caller passed, plus an allowlist of pure methods of str, dict, list, tuple,
# set, int and float. Names starting with '_' are refused. Methods that mutate a known mutable type (list.append,
# dict.update, ...) raise SecurityError, as in Jinja2's ImmutableSandboxedEnvironment. Functions, modules, classes,
# code, frames and generators expose no attributes at all, and nothing prints with a memory address (printing.py).
# Every method a template gets is wrapped: the call is charged to the render's fuel by what it reads and returns
# (budget.py), and methods that build strings (center, zfill, replace, join, format, ...) check the size of what
# they would build before building it.

import _string
import collections
import types
import _collections_abc as abc   # collections.abc itself, without the module that re-exports it
from enum import Enum

from ..core.budget import charge_result, guard, shallow_steps
from ..core.errors import SecurityError
from ..core.state import CHAR_SHIFT, MISSING, check_items, check_str_size, limit_exceeded, out_of_fuel
from .composition import BlockReference, TemplateModule, TemplateReference
from .markup import Markup, check_format_spec, converted_field, escape, escape_formatter, escaped_size, \
    field_least_size, formatter, literal_size
from .methods import (
    BYTES_METHOD_CHECKS, STR_METHOD_CHECKS, check_keywords, named_field, mapping_item, sequence_index,
)
from .globalfuncs import Cycler, DictFactory, Joiner, jinja2_has, jinja2_type_name
from .objects import GroupTuple, LoopContext, Macro, Namespace
from .printing import OPAQUE_TYPES, safe_repr, to_str
from .undefined import ChainableUndefined, Undefined

__all__ = ["getattr_", "getitem_", "undefined_on_str", "attribute_only", "safe_format", "str_method_call",
           "DICT_ATTRS", "DICT_MUTATORS", "CHECKED_METHODS"]

# ------------------------------------------------------------------------------------------- the allowlists
_STR_ATTRS = frozenset("""
    capitalize casefold center count encode endswith expandtabs find format format_map index isalnum isalpha
    isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower
    lstrip maketrans partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split
    splitlines startswith strip swapcase title translate upper zfill
""".split())
_MARKUP_ATTRS = _STR_ATTRS | {"escape", "unescape", "striptags"}
DICT_ATTRS = frozenset({"copy", "fromkeys", "get", "items", "keys", "values"})
_LIST_ATTRS = frozenset({"copy", "count", "index"})
_TUPLE_ATTRS = frozenset({"count", "index"})
_SET_ATTRS = frozenset({"copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset",
                        "symmetric_difference", "union"})
_INT_ATTRS = frozenset({"bit_length", "bit_count", "conjugate", "as_integer_ratio", "real", "imag", "numerator",
                        "denominator", "is_integer"})
_FLOAT_ATTRS = frozenset({"is_integer", "as_integer_ratio", "conjugate", "hex", "real", "imag"})
# (Jinja2 hands out all of them: none changes the bytes it reads; bytearray's mutators are _MUTATORS')
_BYTES_ATTRS = frozenset("""
    capitalize center count decode endswith expandtabs find fromhex hex index isalnum isalpha isascii isdigit
    islower isspace istitle isupper join ljust lower lstrip maketrans partition removeprefix removesuffix replace
    rfind rindex rjust rpartition rsplit rstrip split splitlines startswith strip swapcase title translate upper zfill
""".split())
_VIEW_ATTRS = frozenset({"isdisjoint"})

# Checked in MRO order, so Markup (a str) and bool (an int) find their own entry first.
_ALLOWED_BY_TYPE = {
    Markup: _MARKUP_ATTRS, str: _STR_ATTRS, dict: DICT_ATTRS, list: _LIST_ATTRS, tuple: _TUPLE_ATTRS,
    set: _SET_ATTRS, frozenset: _SET_ATTRS, bool: _INT_ATTRS, int: _INT_ATTRS, float: _FLOAT_ATTRS,
    bytes: _BYTES_ATTRS, type({}.keys()): _VIEW_ATTRS, type({}.items()): _VIEW_ATTRS,
    type({}.values()): frozenset(), range: frozenset({"start", "stop", "step", "count", "index"}),
    LoopContext: frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth",
                            "depth0", "previtem", "nextitem", "cycle", "changed"}),
    Macro: frozenset({"name", "arguments", "catch_kwargs", "catch_varargs", "caller", "explicit_caller"}),
    Cycler: frozenset({"items", "pos", "reset", "current", "next"}),
    Joiner: frozenset({"sep", "used"}),
    GroupTuple: _TUPLE_ATTRS | {"grouper", "list"},
    DictFactory: frozenset({"fromkeys"}),
    TemplateReference: frozenset(),   # self.name: the item fallback finds the block
    BlockReference: frozenset({"name", "super"}),
    TemplateModule: frozenset(),      # module.name: the item fallback finds the exported name
    # built-in containers a caller may pass: their pure methods only (the ones that build something bigger,
    # bytearray.center(10**9), checked first: methods.BYTES_METHOD_CHECKS)
    bytearray: _BYTES_ATTRS | {"copy"}, memoryview: frozenset({"hex", "tolist", "nbytes", "readonly", "ndim"}),
    collections.deque: frozenset({"count", "index", "maxlen", "copy"}),
    # a caller's read-only mapping (types.MappingProxyType): read as a dict is, through its pure methods and its
    # items (a template cannot reach a class's __dict__, the other place one comes from)
    types.MappingProxyType: frozenset({"get", "items", "keys", "values", "copy"}),
}

# Jinja2's ImmutableSandboxedEnvironment refuses these on the matching abstract types.
_MUTATORS = (
    (abc.MutableSet, frozenset({"add", "clear", "difference_update", "discard", "pop", "remove",
                                "symmetric_difference_update", "update", "intersection_update"})),
    (abc.MutableMapping, frozenset({"clear", "pop", "popitem", "setdefault", "update"})),
    (abc.MutableSequence, frozenset({"append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove"})),
    (collections.deque, frozenset({"append", "appendleft", "clear", "extend", "extendleft", "pop", "popleft",
                                   "remove", "rotate"})),
    # the standard library's containers that add mutators of their own (stricter than Jinja2, which hands these
    # out): a template reads their other public attributes as it reads any caller object's
    (collections.OrderedDict, frozenset({"move_to_end"})),
    (collections.Counter, frozenset({"subtract"})),
)
# and array.array's (checked in _is_mutator: the array module is imported only when a template names one of
# these, not by import minijinja_py, a cold start's ~0.6 ms)
_ARRAY_MUTATORS = frozenset({"byteswap", "frombytes", "fromfile", "fromlist", "fromunicode"})

# Objects that expose no attributes to a template (functions, modules, classes, generators, ...).
_OPAQUE = OPAQUE_TYPES


def _is_engine_internal(obj):
    module = type(obj).__module__
    return module == "minijinja_py" or module.startswith("minijinja_py.")


def _allowed_attrs(obj):
    for cls in type(obj).__mro__:
        allowed = _ALLOWED_BY_TYPE.get(cls)
        if allowed is not None:
            if allowed is _STR_ATTRS and cls is not type(obj) and hasattr(type(obj), "__html__"):
                return _MARKUP_ATTRS  # markupsafe's Markup (code written for Jinja2 passes it): ours' methods
            return allowed
    return None


def _builtin_base(obj):
    # The class of obj's MRO whose allowlist applies (str for a str Enum, tuple for a namedtuple).
    return next(filter(_ALLOWED_BY_TYPE.__contains__, type(obj).__mro__))


def _unsafe_message(obj, name):
    # the type of what Jinja2 hands out there (a method's type, not the wrapper's)
    kind = jinja2_type_name(obj, (obj.method, obj.name, obj.obj) if type(obj) is _CheckedMethod else None)
    return f"access to attribute {name!r} of {kind!r} object is unsafe."


def _unsafe(obj, name):
    return SecurityError(_unsafe_message(obj, name))


def _is_mutator(obj, name):
    # (one the object lacks is no mutator of it: bytearray.sort is undefined, as in Jinja2, which looks it up first)
    for kind, names in _MUTATORS:
        if name in names and isinstance(obj, kind):
            return _has_attribute(obj, name)
    if name in _ARRAY_MUTATORS:
        import array
        return isinstance(obj, array.array)
    return False


# ----------------------------------------------------------------------------------------- attribute access
def getattr_(obj, name, rs):
    # obj.name — attribute first, then item (Jinja2's order): `d.items` is the method, `d.role` the key.
    cls = type(obj)
    if cls is dict:
        if name in DICT_ATTRS or name in DICT_MUTATORS:
            return _dict_attribute(obj, name, rs)
        if name in obj and (name[:1] != "_" or name not in _DICT_OWN):
            return obj[name]   # data: `_id`, `_meta` keys too (what dict has itself, `__class__`, is refused)
        if name[:1] == "_":
            return _private(obj, name, rs)
        return rs.undefined(obj=obj, name=name)
    if isinstance(obj, Namespace) and name[:1] != "_":   # `ns.found` (a `_` name: refused where it is an attribute)
        value = obj._attrs.get(name, MISSING)
        return rs.undefined(obj=obj, name=name) if value is MISSING else value
    if name[:1] == "_":
        return _private(obj, name, rs)
    if cls is str and undefined_on_str(name):
        return rs.undefined(obj=obj, name=name)   # message.content.content of a string content
    if isinstance(obj, Undefined):
        if isinstance(obj, ChainableUndefined):
            return obj
        return obj._fail_with_undefined_error()
    return _attribute(obj, name, rs, item_fallback=True)


def _dict_attribute(obj, name, rs):
    if name in DICT_MUTATORS:
        return _mutator(obj, name, rs)
    return _bound(obj, name, rs)


def _mutator(obj, name, rs):
    # A method that changes obj: refused in an immutable environment (the default, as Jinja2's
    # ImmutableSandboxedEnvironment); with immutable=False (Jinja2's SandboxedEnvironment) handed out, charged as
    # any method, and the size it leaves obj at checked against max_items.
    if rs.env.immutable:
        raise _unsafe(obj, name)
    if _CheckedMethod == ():
        _make_checked_methods()
    return _CheckedMutator(None, getattr(obj, name), obj, rs, name)


def _private(obj, name, rs, item_fallback=True):
    # obj._name: refused when obj has that attribute; else the item of that name, as Jinja2 reads it (a mapping's
    # `_id` key is data), or undefined where there is none (a template looping over a JSON string's characters
    # reads `arguments['_']`).
    if isinstance(obj, Undefined):
        if jinja2_has(obj, name):
            raise _unsafe(obj, name)
        return obj._fail_with_undefined_error()
    if type(obj) is _CheckedMethod:
        if name == "__wrapped__" and obj.name in ("format", "format_map") and isinstance(obj.obj, str):
            return obj   # Jinja2 hands out its wrapper around str.format; what it wraps is wrapped again
        exists = jinja2_has(obj, name, (obj.method, obj.name, obj.obj))
    else:
        exists = jinja2_has(obj, name)
    if exists is None:
        exists = _has_attribute(obj, name)
    if exists:
        raise _unsafe(obj, name)
    if item_fallback and not isinstance(obj, (_OPAQUE, Namespace, LoopContext, Macro, _CheckedMethod)) \
            and not _is_engine_internal(obj):
        found = mapping_item(obj, name)
        if found is not MISSING:
            return found
    return rs.undefined(obj=obj, name=name)


def _has_attribute(obj, name):
    try:
        # a method handed to a template stands for the method: what the method has counts
        return hasattr(obj.method if type(obj) is _CheckedMethod else obj, name)
    except Exception:   # a caller's __getattr__ that fails otherwise than with AttributeError
        return True


DICT_MUTATORS = _MUTATORS[1][1]
_DICT_OWN = frozenset(dict.__dict__).union(object.__dict__)   # the attributes a dict has: its own, not its keys
# (dir(dict)'s names, without the sort of a list of them)


def _attribute(obj, name, rs, item_fallback):
    # The attribute `name` of obj under the policy; the item of that name when there is no such attribute.
    allowed = _allowed_attrs(obj)
    if allowed is not None:
        if name in allowed:
            return _bound(obj, name, rs)
        if _is_mutator(obj, name):
            return _mutator(obj, name, rs)
        if (type(obj) not in _ALLOWED_BY_TYPE and not _is_engine_internal(obj)
                and not hasattr(_builtin_base(obj), name)):
            # the caller's subclass of a built-in (a namedtuple's fields, a str Enum's value, a list subclass's
            # own attributes): what the subclass adds is the caller's, as a plain object's attributes are; what
            # the built-in has stays under the built-in's allowlist
            value = _caller_attribute(obj, name)
            if value is not MISSING:
                return value
    elif type(obj) is _CheckedMethod:
        return _attribute(obj.method, name, rs, item_fallback)  # it stands for the method: the method's rules
    elif _is_engine_internal(obj):
        # the engine's own objects (the render state, environment, scopes...) should never reach a template; if
        # one does, it shows nothing of itself
        if hasattr(obj, name):
            raise _unsafe(obj, name)
        return rs.undefined(obj=obj, name=name)
    elif isinstance(obj, _OPAQUE):
        # Functions, modules, classes, generators...: an attribute that exists is refused (Jinja2 would hand out
        # some of them); one that does not is undefined, as in Jinja2.
        if hasattr(obj, name):
            raise _unsafe(obj, name)
        return rs.undefined(obj=obj, name=name)
    elif _is_mutator(obj, name):
        return _mutator(obj, name, rs)
    else:
        # an object of the caller's own class: its public attributes are what the caller chose to pass
        value = _caller_attribute(obj, name)
        if value is not MISSING:
            return value
    if item_fallback:
        found = mapping_item(obj, name)   # (what the caller's __getitem__ raises, but a lookup error, goes through)
        if found is not MISSING:
            return found
    return rs.undefined(obj=obj, name=name)


def _caller_attribute(obj, name):
    # The public attribute `name` of the caller's object, or MISSING; a module or a class other than the
    # object's own is refused (a class would hand out constructors, a module everything in it).
    try:
        value = getattr(obj, name)
    except AttributeError:
        return MISSING
    if isinstance(value, types.ModuleType) or (isinstance(value, type) and value is not type(obj)):
        raise _unsafe(obj, name)
    return value


def attribute_only(obj, name, rs):
    # obj.name without the item fallback (the attr filter).
    if isinstance(obj, Undefined):
        # as Python's getattr() on Jinja2's undefined answers: what it has (refused, for a '_' name), a dunder it
        # lacks (AttributeError: |attr gives an undefined), anything else (it fails; a chainable one is itself)
        if name[:1] == "_" and jinja2_has(obj, name):
            raise _unsafe(obj, name)
        if name[:2] == "__":
            return rs.undefined(obj=obj, name=name)
        return obj if isinstance(obj, ChainableUndefined) else obj._fail_with_undefined_error()
    if name[:1] == "_":
        return _private(obj, name, rs, item_fallback=False)
    return _attribute(obj, name, rs, item_fallback=False)


def undefined_on_str(key):
    # Whether some_str[key] (and some_str.key) is undefined for every str: a public name that is no str method
    # (a str has no mutators).
    return key not in _STR_ATTRS and key[:1] != "_"


def getitem_(obj, key, rs):
    # obj[key] — item first, then attribute (Jinja2's order). Plain containers are looked into without raising
    # (a string indexed by a string key is common: templates that walk a JSON string).
    cls = type(obj)
    if cls is dict:
        if type(key) is str:
            if key in obj:
                return obj[key]   # data first: d['__class__'] is the key's value when d has that key
        else:
            try:
                if key in obj:
                    return obj[key]
            except TypeError:   # unhashable
                return rs.undefined(obj=obj, name=key)
    elif cls is list or cls is tuple or cls is str:
        if type(key) is int:
            if -len(obj) <= key < len(obj):
                return obj[key]
            return rs.undefined(obj=obj, name=key)
        if type(key) is not str:
            try:
                return obj[key]   # bool, or an object with __index__
            except (TypeError, LookupError):
                pass
        elif cls is str and undefined_on_str(key):
            # content['type'] of a message whose content is a string (templates that walk it character by
            # character): undefined without the policy's walk
            return rs.undefined(obj=obj, name=key)
    elif cls is int or cls is float or cls is bool or obj is None:
        if type(key) is str and key[:1] != "_" and not hasattr(cls, key):
            # a number's (or None's) `key` when it has no attribute of that name: no item either, so undefined,
            # what the policy's walk below finds, without it (selectattr('a') over numbers asks once per item)
            return rs.undefined(obj=obj, name=key)
    elif isinstance(obj, Undefined):
        # an undefined's item fails (a chainable one is itself), whatever the key: Jinja2 never gets to the
        # attribute of that name
        if isinstance(obj, ChainableUndefined):
            return obj
        return obj._fail_with_undefined_error()
    elif isinstance(obj, (_OPAQUE, Namespace, LoopContext, Macro)):
        pass
    else:
        found = mapping_item(obj, key)
        if found is not MISSING:
            return found
    if isinstance(key, str):
        if key[:1] == "_":
            return _private(obj, key, rs, item_fallback=False)   # (the item was looked for first)
        if isinstance(obj, Namespace):
            value = obj._attrs.get(key, MISSING)
            if value is not MISSING:
                return value
        elif cls is not dict:
            return _attribute(obj, key, rs, item_fallback=False)
        elif key in DICT_ATTRS or key in DICT_MUTATORS:
            return _dict_attribute(obj, key, rs)
    return rs.undefined(obj=obj, name=key)


# -------------------------------------------------------------------------------------- methods with limits
def _bound(obj, name, rs):
    value = getattr(obj, name)
    if not callable(value) or isinstance(value, Undefined):
        return value  # loop.index, range.start, int.real, loop.previtem (undefined on the first item) ...
    if isinstance(obj, str):
        checked = _SIZE_CHECKED.get(name)
    elif isinstance(obj, (bytes, bytearray)):
        checked = BYTES_METHOD_CHECKS.get(name)
        rs.burn(len(obj) >> CHAR_SHIFT)   # what the method reads (shallow_steps does not size bytes)
    else:
        checked = None
    if _CheckedMethod == ():
        _make_checked_methods()
    return _CheckedMethod(checked, value, obj, rs, name)


# Methods that take constant time whatever the size of their object.
_CONSTANT_TIME = frozenset({"get", "items", "keys", "values", "cycle", "next", "reset",
                            "append", "appendleft", "add", "discard", "popleft", "popitem", "setdefault"})


# The methods handed to a template (_bound, _mutator): their classes made on first use (_make_checked_methods), as
# many renders call no method the sandbox hands out (a str's are called without one: str_method_call) and a class
# costs every cold start ~0.07 M instructions. Until then no object is one, and the type checks read ().
_CheckedMethod = _CheckedMutator = ()
_MADE = []   # [(CheckedMethod, CheckedMutator)] once made: racing threads all take the first made


def _make_checked_methods():
    global _CheckedMethod, _CheckedMutator

    class CheckedMethod:
        # A method handed to a template: charged to the render by what it reads and returns, and for the str
        # methods that build strings, checked for the size of the result before it is built.

        __slots__ = ("checked", "method", "obj", "rs", "name")
        mj_safe_repr = True
        mj_guards_arguments = True   # __call__ guards them itself

        def __init__(self, checked, method, obj, rs, name):
            self.checked, self.method, self.obj, self.rs, self.name = checked, method, obj, rs, name

        def __call__(self, *args, **kwargs):
            rs, obj = self.rs, self.obj
            if kwargs:
                check_keywords(obj, self.name)
            if self.name not in _CONSTANT_TIME:
                rs.burn(1 + shallow_steps(obj))
            for arg in args:
                _charge_argument(rs, arg)
            for arg in kwargs.values():
                _charge_argument(rs, arg)
            if self.checked is not None:
                result = self.checked(rs, obj, *args, **kwargs)
            elif self.name == "index" and isinstance(obj, (list, tuple)):
                result = sequence_index(obj, *args, **kwargs)
            else:
                result = self.method(*args, **kwargs)
            return charge_result(rs, result)

        def __repr__(self):
            if type(self.method) is types.MethodType:   # a method written in Python (loop.cycle): Python's repr
                return f"<bound method {type(self.obj).__name__}.{self.name} of {safe_repr(self.obj, self.rs)}>"
            return f"<built-in method {self.name} of {type(self.obj).__name__} object>"

    class CheckedMutator(CheckedMethod):
        # A method that changes its object (immutable=False only): the object may not grow past max_items.

        __slots__ = ()

        def __call__(self, *args, **kwargs):
            result = CheckedMethod.__call__(self, *args, **kwargs)
            check_items(self.rs.limits, len(self.obj), "a list, dict or set grown by a template")
            return result

    _MADE.append((CheckedMethod, CheckedMutator))
    CHECKED_METHODS.update(_MADE[0])
    _CheckedMutator, _CheckedMethod = reversed(_MADE[0])   # _CheckedMethod last: the one _bound looks at


def str_method_call(name):
    # call(rs, text, args) → text.name(*args) for a plain str text, as calling the method the sandbox hands out
    # (getattr_ then calls.call_value) does it, without the method object: the call's step, the text and the
    # arguments paid for, the size of the result checked before it is built (STR_METHOD_CHECKS), the result
    # charged. None for a name that is no method of str the allowlist grants.
    method = getattr(str, name, None) if name in _STR_ATTRS else None
    if type(method) is not types.MethodDescriptorType:
        return None   # (str.maketrans is a static method: it takes no text)
    checked = _SIZE_CHECKED.get(name)

    def call(rs, text, args):
        rs.fuel -= 2 + (len(text) >> CHAR_SHIFT)   # the call, and the method's work on the text
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        for arg in args:
            if type(arg) is not str or len(arg) > 1024:   # (a short string argument costs nothing more)
                _charge_argument(rs, arg)
        result = checked(rs, text, *args) if checked is not None else method(text, *args)
        if type(result) is not str:
            return charge_result(rs, result)
        size = len(result)   # (charge_result's str case in line: strip, replace, lower...)
        if size > rs.limits.max_string:
            check_str_size(rs.limits, size)
        rs.fuel -= size >> CHAR_SHIFT
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        return result
    return call


# The types of the methods the sandbox hands out (calls.py calls them without looking for the caller's marks), once
# made
CHECKED_METHODS = set()


def _charge_argument(rs, arg):
    if type(arg) is str:
        if len(arg) > 1024:
            rs.burn(len(arg) >> CHAR_SHIFT)
    else:
        guard(rs, arg)  # compared or hashed by count/index/get/fromkeys/changed ...


def _format_map(rs, s, *args, **kwargs):
    # (with the messages of Jinja2's wrapper around format_map)
    if kwargs:
        raise TypeError("format_map() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"format_map() takes exactly one argument ({len(args)} given)")
    return safe_format(rs, s, (), args[0])


_SIZE_CHECKED = {
    **STR_METHOD_CHECKS,
    "format": lambda rs, s, *args, **kwargs: safe_format(rs, s, args, kwargs),
    "format_map": _format_map,
}


# ---------------------------------------------------------------------------------------------- formatting
def _sandboxed_formatter(base):
    # str.format with the sandbox's attribute/item policy, address-free printing and its size bounded before each
    # field is formatted (markup.py: the widths written in the format added up first, then each field's as it
    # comes). The class on top of `base` (string.Formatter, or a formatter built on it), made on first use:
    # formatter(_sandboxed_formatter) is the class (markup.formatter).

    class _SandboxedFormatter(base):
        def __init__(self, rs):
            self.rs = rs
            self.limits = rs.limits
            self.literal = 0   # characters of the format's literal text
            self.size = 0      # characters of the fields formatted so far

        def vformat(self, format_string, args, kwargs):
            self.literal = literal_size(self.limits, format_string)
            return super().vformat(format_string, args, kwargs)

        def get_value(self, key, args, kwargs):
            if isinstance(key, int):
                return args[key]
            return named_field(kwargs, key)   # format_map of a caller's defaultdict: the key is not inserted

        def get_field(self, field_name, args, kwargs):
            first, rest = _string.formatter_field_name_split(field_name)
            obj = self.get_value(first, args, kwargs)
            for is_attr, key in rest:
                obj = getattr_(obj, key, self.rs) if is_attr else getitem_(obj, key, self.rs)
            return obj, first

        def reserve(self, size):
            # Check that `size` more characters keep the result within max_string (before they are made).
            check_str_size(self.limits, self.literal + self.size + size, "a formatted string")

        def format_field(self, value, format_spec):
            check_format_spec(self.limits, format_spec)
            self.reserve(field_least_size(format_spec, value))
            text = self.format_plain(value, format_spec)
            self.size += len(text)
            self.reserve(0)
            return text

        def format_plain(self, value, format_spec):
            # An empty spec means str(value), which must not show an address; any other spec is the value's own
            # __format__ (so '{:>5}'.format([1]) fails as in Python).
            if not format_spec and not isinstance(value, (str, int, float, complex)):
                return to_str(value, self.rs)
            if isinstance(value, str) and isinstance(value, Enum):
                value = str(value)   # a (str, Enum) member formats as it prints (3.11's format; 3.9's: its value)
            return format(value, format_spec)

        def convert_field(self, value, conversion):
            return converted_field(value, conversion, self.rs)

    return _SandboxedFormatter


def _sandboxed_escape_formatter(base):
    # Markup.format in the sandbox: the sandbox's field lookup, markupsafe's escaping of each field, the size of
    # the escaped field checked before it is escaped (the methods of both, the sandbox's first).

    class _SandboxedEscapeFormatter(_sandboxed_formatter(escape_formatter(base))):
        def format_field(self, value, format_spec):
            check_format_spec(self.limits, format_spec)
            self.reserve(field_least_size(format_spec, value))
            text = self.field_text(value, format_spec)
            if not hasattr(text, "__html__"):
                self.reserve(escaped_size(text))
            text = str(escape(text))
            self.size += len(text)
            self.reserve(0)
            return text

    return _SandboxedEscapeFormatter


def safe_format(rs, fmt, args, kwargs):
    # fmt.format(*args, **kwargs) / fmt.format_map(kwargs) under the sandbox policy. On Markup each field is
    # escaped after formatting and the result is Markup.
    # string.Formatter works field by field in Python (~16 loop iterations' time each): paid before it starts
    rs.burn(16 * fmt.count("{") + (len(fmt) >> CHAR_SHIFT))
    if hasattr(fmt, "__html__"):   # Markup, ours or markupsafe's
        result = Markup(formatter(_sandboxed_escape_formatter)(rs).vformat(fmt, args, kwargs))
    else:
        result = formatter(_sandboxed_formatter)(rs).vformat(fmt, args, kwargs)
    check_str_size(rs.limits, len(result))
    return result
