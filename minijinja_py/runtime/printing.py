"""Printing: a template value → its text, the way {{ }}, ~, |string, %s, {!r}, |pprint and |tojson show it.

Python's str()/repr()/pformat() for plain data (json.dumps: tojson.py), byte for byte, with three differences that make
printing safe for untrusted templates:
  * nothing shows a memory address: functions, methods, generators, classes and the caller's objects without
    a __repr__ of their own print as `<function lipsum>`, `<generator object do_map>`, `<mod.Thing object>`;
  * the text is bounded: printing stops with LimitExceeded('max_string') as soon as it passes limits.max_string
    characters, and it is charged to the render's fuel — a list that holds one big string a million times
    fails at once instead of building terabytes;
  * nesting deeper than limits.max_data_depth fails with LimitExceeded('max_data_depth'); data that contains
    itself prints like Python's ([[...]]), and a sub-list shared many times is printed once and reused.

The limits and fuel come from the render in progress (state.current_state()); outside a render the default
Limits apply and nothing is charged. The engine's own runtime objects (objects.py, undefined.py) sit above this
module: printing knows them by markers, not by importing them — a class with `mj_safe_repr = True` prints with its
own (address-free, bounded) str()/repr(), one with an `mj_print(printer, depth)` method prints itself through the
printer (a namespace prints its attributes as a dict), and |pprint shows one with `mj_pprint_by_repr = True` by its
repr, on one line (pprint does not know its class: groupby's groups).
"""

import types
from functools import lru_cache, partial

from ..core.budget import tree_size
from ..core.errors import LimitExceeded
from ..core.state import CHAR_SHIFT, DEFAULT_LIMITS, check_str_size, current_state, limit_exceeded, out_of_fuel
from .textcache import recall, remember

__all__ = ["to_str", "subclass_str", "safe_repr", "short_repr", "safe_pformat", "opaque_repr", "OPAQUE_TYPES"]

_SCALARS = (str, int, float, bool, type(None))
_VIEW_TYPES = (type({}.keys()), type({}.values()), type({}.items()))
# printing one value in Python costs about as long as _VISIT_STEPS steps, and a container (or reusing its text)
# _CONTAINER_STEPS more
_VISIT_STEPS = 4
_CONTAINER_STEPS = 24
# a tree of plain data with at most this many containers is printed by repr() after one check (_plain_text)
_PLAIN_CONTAINERS = 256
_SMALL_INT = 0xFFFFFFFFFFFFFFFF   # repr() of a larger int costs more than its digits (and is bounded by them)

# Objects that expose no attributes to a template and print without their address.
OPAQUE_TYPES = (
    types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType, types.ModuleType,
    type, types.CodeType, types.FrameType, types.TracebackType, types.GeneratorType, types.CoroutineType,
    types.AsyncGeneratorType, types.WrapperDescriptorType, types.MethodWrapperType, types.MethodDescriptorType,
    types.ClassMethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType,
    partial, property, staticmethod, classmethod,
)


def opaque_repr(value):
    # An address-free stand-in for the repr of a function, method, generator, class, module ...
    name = getattr(value, "__name__", None)
    if not isinstance(name, str):
        name = "?"
    if isinstance(value, (types.BuiltinMethodType, types.MethodType)):
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            return f"<built-in method {name} of {type(owner).__name__} object>"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, partial)):
        return f"<function {name}>"
    if isinstance(value, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
        kind = {types.GeneratorType: "generator", types.CoroutineType: "coroutine"}.get(type(value),
                                                                                           "async_generator")
        return f"<{kind} object {name}>"
    if isinstance(value, type):
        return f"<class '{name}'>"
    if isinstance(value, types.ModuleType):
        return f"<module '{name}'>"
    return f"<{type(value).__name__} object>"


def _default_object_repr(value):
    cls = type(value)
    where = "" if cls.__module__ == "builtins" else f"{cls.__module__}."
    return f"<{where}{cls.__qualname__} object>"


def _plain_bound(value, max_depth, room):
    # (a bound of len(repr(value)), its items, containers and nesting) for a tree of plain data (dicts, lists
    # and tuples of strings, numbers, booleans and None; at most _PLAIN_CONTAINERS containers counted where they
    # are met, so that a part met twice counts twice and a cycle runs over; nested within max_depth) whose bound
    # is within room; None else. Walked level by level, the containers of a level gathered for the next.
    chars = items = containers = height = extra = 0   # chars: of the strings (10 characters each at most)
    level = [value]
    while level:
        height += 1
        containers += len(level)
        if height > max_depth or containers > _PLAIN_CONTAINERS:
            return None
        inner = []
        for container in level:
            if type(container) is dict:
                items += 2 * len(container)
                parts = (container, container.values())
            else:
                items += len(container)
                parts = (container,)
            if 3 * items > room:
                return None   # checked before the items are walked: each is at least `x, `
            for part in parts:
                for item in part:
                    cls = type(item)
                    if cls is str:
                        chars += len(item)
                    elif cls is dict or cls is list or cls is tuple:
                        inner.append(item)
                    elif cls is int:
                        if not -_SMALL_INT <= item <= _SMALL_INT:
                            extra += item.bit_length() // 3 + 2
                    elif cls is not float and cls is not bool and item is not None:
                        return None
        level = inner
    # repr() writes a character of a string in at most 10 (\U0001f600), any other item in at most 24, each
    # with its quotes and separator; a container its brackets (and a tuple of one its comma)
    bound = 10 * chars + extra + 26 * items + 3 * containers
    return None if bound > room else (bound, items, containers, height)


class _Printer:
    # One str()/repr() of a value: appends pieces to one list, counting their size against max_string.

    __slots__ = ("rs", "limits", "room", "parts", "size", "steps", "on_path", "reuse", "cycles")

    def __init__(self, rs):
        self.rs = rs
        self.limits = rs.limits if rs is not None else DEFAULT_LIMITS
        self.room = self.limits.max_string
        self.parts = []
        self.size = 0
        self.steps = 0           # what the values printed so far cost (charged at the end; containers at once)
        self.on_path = set()     # containers being printed: meeting one again prints [...] as Python does
        self.reuse = {}          # id → [start, end, text]: containers printed already (and without a [...])
        self.cycles = 0          # [...] markers written so far

    def text(self, value, for_str):
        cls = type(value)
        if cls is dict or cls is list or cls is tuple:
            text = self._plain_text(value)
            if text is not None:
                return text
        self.visit(value, 0, for_str)
        text = "".join(self.parts)
        if self.rs is not None:
            self.rs.burn(self.steps + (self.size >> CHAR_SHIFT))
        return text

    def _plain_text(self, value):
        # Python's repr() of value at C speed when value is a tree of plain data whose text surely fits (see
        # _plain_bound): paid as the walk would pay, before the text is made. None for anything else (the walk
        # then prints it). The text of the same unchanged object made before is found again (textcache).
        limits, room, rs = self.limits, self.room, self.rs
        known = recall(value, "repr")
        if known is not None and known[2] <= room and known[3] <= limits.max_data_depth:
            if rs is not None:
                rs.burn(known[1])
            return known[0]
        measured = _plain_bound(value, limits.max_data_depth, room)
        if measured is None:
            return None
        bound, items, containers, height = measured
        steps = _VISIT_STEPS * (items + 1) + _CONTAINER_STEPS * containers
        if rs is not None:
            rs.burn(steps)
        text = repr(value)
        if rs is not None:
            rs.burn(len(text) >> CHAR_SHIFT)
        remember(value, "repr", (text, steps + (len(text) >> CHAR_SHIFT), bound, height), items + containers,
                 len(text))
        return text

    def emit(self, text):
        self.size += len(text)
        if self.size > self.room:
            check_str_size(self.limits, self.size, "printed data")
        self.parts.append(text)

    def visit(self, value, depth, for_str):
        cls = type(value)
        self.steps += _VISIT_STEPS
        if cls is str:
            self.emit(value if for_str else self._repr_str(value))
            return
        if cls is int or cls is float or cls is bool or value is None:
            self.emit(repr(value))
            return
        if depth >= self.limits.max_data_depth:
            raise limit_exceeded(self.limits, "max_data_depth", "printed data nested this deep")
        if cls is list or cls is tuple or cls is dict or cls is set or cls is frozenset:
            self.container(value, cls, depth)
        elif isinstance(value, str):
            # Markup and other str subclasses: str() is the text, repr() their own (Markup('...')); a subclass
            # with its own __str__ (a (str, Enum) prints Role.USER) is printed with it, as Jinja2's str() does
            self.emit(subclass_str(value) if for_str else repr(value))
        elif isinstance(value, (int, float, complex)) and (cls.__repr__ in (int.__repr__, float.__repr__,
                                                                             complex.__repr__)):
            self.emit(str(value) if for_str else repr(value))
        elif getattr(cls, "mj_safe_repr", False):
            self.emit(str(value) if for_str else repr(value))
        elif cls is range:
            self.emit(repr(value))
        elif hasattr(cls, "mj_print"):
            value.mj_print(self, depth)
        elif cls in _VIEW_TYPES:
            self.emit(f"{cls.__name__}(")
            self.container(list(value), list, depth)
            self.emit(")")
        elif cls is types.MappingProxyType:   # a caller's read-only mapping: its str is its dict's, its repr
            self.emit("" if for_str else "mappingproxy(")   # mappingproxy({...})
            self.container(dict(value), dict, depth)
            self.emit("" if for_str else ")")
        elif isinstance(value, OPAQUE_TYPES):
            self.emit(opaque_repr(value))
        elif isinstance(value, (list, tuple, dict, set, frozenset)) and cls.__repr__ in (
                list.__repr__, tuple.__repr__, dict.__repr__, set.__repr__, frozenset.__repr__):
            # a subclass that prints as its base (groupby's pairs print as tuples); a set's is named: S({1})
            base = next(b for b in (list, tuple, dict, set, frozenset) if isinstance(value, b))
            self.container(value, cls if base is set or base is frozenset else base, depth)
        else:
            self.emit(self._caller_object(value, cls, for_str))

    def _repr_str(self, value):
        # repr() of a string can be 10 times longer than the string (\U000e0001): measure it piecewise first
        # when it might not fit
        if len(value) * (4 if value.isascii() else 10) + 2 > self.room - self.size:
            check_str_size(self.limits, self.size + _repr_length(value), "printed data")
        return repr(value)

    def _caller_object(self, value, cls, for_str):
        # The caller's own objects print with their own __str__/__repr__, unless that is object's default
        # (which shows an address).
        method = cls.__str__ if for_str else cls.__repr__
        if method is object.__str__ or method is object.__repr__:
            if cls.__repr__ is object.__repr__:
                return _default_object_repr(value)
            return repr(value)
        return str(value) if for_str else repr(value)

    def container(self, value, cls, depth):
        # each container met (printed, or its text reused) takes about as long as _CONTAINER_STEPS steps: paid
        # as the printing goes, so that a print of data shared many times stops when the fuel does
        rs = self.rs
        if rs is not None:
            rs.fuel -= _CONTAINER_STEPS
            if rs.fuel < 0:
                raise out_of_fuel(self.limits)
        key = id(value)
        if key in self.on_path:
            self.cycles += 1
            self.emit({list: "[...]", tuple: "(...)", dict: "{...}"}.get(cls, f"{cls.__name__}(...)"))
            return
        seen = self.reuse.get(key)
        if seen is not None:
            if seen[2] is None:
                seen[2] = "".join(self.parts[seen[0]:seen[1]])
            self.emit(seen[2])
            return
        if (cls is list or cls is tuple) and len(value) > 16 and self._flat(value):
            self.reuse[key] = [len(self.parts) - 1, len(self.parts), None]
            return
        self.on_path.add(key)
        start, cycles = len(self.parts), self.cycles
        try:
            self._items(value, cls, depth + 1)
        finally:
            self.on_path.discard(key)
        if self.cycles == cycles:  # printed the same wherever it is met again
            self.reuse[key] = [start, len(self.parts), None]

    def _flat(self, value):
        # A list/tuple of only strings, or only ints, or only floats: Python's repr at C speed, if it fits.
        kinds = set(map(type, value))
        if len(kinds) != 1:
            return False
        kind = kinds.pop()
        if kind is str:
            width = 4 if all(map(str.isascii, value)) else 10
            bound = sum(map(len, value)) * width + 4 * len(value) + 2
        elif kind is int:
            if not -10 ** 18 < min(value) <= max(value) < 10 ** 18:
                return False
            bound = 21 * len(value) + 2
        elif kind is float or kind is bool:
            bound = 26 * len(value) + 2
        else:
            return False
        if bound > self.room - self.size:
            return False
        self.steps += len(value)   # printed at C speed
        self.emit(repr(value))
        return True

    def _items(self, value, cls, depth):
        emit, visit = self.emit, self.visit
        if cls is dict:
            emit("{")
            first = True
            for k, v in value.items():
                if not first:
                    emit(", ")
                first = False
                visit(k, depth, False)
                emit(": ")
                visit(v, depth, False)
            emit("}")
            return
        if cls is not list and cls is not tuple:   # a set, a frozenset, or a subclass of one: S({1}), S()
            if not value:
                emit(f"{cls.__name__}()")
                return
            emit("{" if cls is set else f"{cls.__name__}({{")
        else:
            emit("[" if cls is list else "(")
        first = True
        for item in value:
            if not first:
                emit(", ")
            first = False
            visit(item, depth, False)
        if cls is list:
            emit("]")
        elif cls is tuple:
            emit(",)" if len(value) == 1 else ")")
        else:
            emit("}" if cls is set else "})")


def _repr_length(value, chunk=1 << 16):
    # len(repr(value)) for a string, built a chunk at a time.
    double_quoted = "'" in value and '"' not in value   # Python's choice of quotes for the whole string
    total = 2
    for i in range(0, len(value), chunk):
        piece = value[i:i + chunk]
        total += len(repr(piece)) - 2
        if not double_quoted and "'" in piece and '"' not in piece:
            total += piece.count("'")  # the piece alone chose "..." and left the ' unescaped
    return total


def _state(rs):
    return rs if rs is not None else current_state()


def subclass_str(value):
    # str() of a str subclass: the text itself, unless the subclass defines its own __str__ (the caller's code).
    if type(value).__str__ is str.__str__:
        return str.__str__(value)
    return str(value)


def to_str(value, rs=None):
    # How {{ value }} prints: Python's str(), bounded, and without memory addresses.
    cls = type(value)
    if cls is str:
        return value
    if cls is int or cls is float or cls is bool or value is None:
        return str(value)
    if cls is complex:
        return repr(value)   # (CPython's str; PyPy's str writes 12 digits)
    if isinstance(value, str):
        return subclass_str(value)
    if getattr(cls, "mj_safe_repr", False):
        return str(value)   # an undefined (prints '') and the engine's other objects: no walk, nothing charged
    return _Printer(_state(rs)).text(value, True)


def safe_repr(value, rs=None):
    # repr() for templates (%r, {!r}, items of printed containers): bounded, without memory addresses.
    return _Printer(_state(rs)).text(value, False)


def short_repr(value, width=200):
    # An address-free repr of at most about `width` characters, for error messages.
    printer = _Printer(None)
    printer.room = width
    try:
        return printer.text(value, False)
    except LimitExceeded:
        return "".join(printer.parts)[:width] + "…"


# ------------------------------------------------------------------------------------------------- pprint
class _Shown:
    # Stands in for a non-data value inside a pformat: prints as the sandbox prints it.

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def __lt__(self, other):  # dict keys are sorted: keep the order stable, never by address
        if isinstance(other, _Shown):
            return self.text < other.text
        return NotImplemented


class _PprintKey:
    # pprint's order of dict items (its _safe_key: `<` where the two compare, else the type names, then...),
    # with a last resort that does not change from run to run: the text of the key instead of its id().

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __lt__(self, other):
        try:
            return self.obj < other.obj
        except TypeError:
            return (str(type(self.obj)), safe_repr(self.obj)) < (str(type(other.obj)), safe_repr(other.obj))


def _pprint_order(pair):
    return _PprintKey(pair[0]), _PprintKey(pair[1])


def _plain_copy(value, rs, limits):
    # value with every non-data leaf replaced by its safe text (and cycles by a marker without an id), shared
    # parts shared in the copy too; a standard-library container pprint lays out (see _std_copy) copied as one
    # of its kind, with its one-line text (its safe repr) kept in `one_line` by the copy's id.
    # Returns (copy, depth, one_line, hidden): hidden holds what tree_size does not see inside those copies.
    copies = {}
    on_path = set()
    deepest = 0
    one_line = {}
    hidden = []

    def copy(v, depth, hashed=False):
        # hashed: v is (in) a dict key ("key": printed on one line, as pprint prints keys) or a set item ("item":
        # laid out as pprint lays out a set's items), so its copy must hash
        nonlocal deepest
        cls = type(v)
        if cls in (str, int, float, bool, complex) or v is None or isinstance(v, str):
            return v
        if depth > deepest:
            deepest = depth
            if depth >= limits.max_data_depth:
                raise limit_exceeded(limits, "max_data_depth", "printed data nested this deep")
        if getattr(cls, "mj_pprint_by_repr", False):
            return _Shown(safe_repr(v, rs))
        if isinstance(v, (list, tuple, dict, set, frozenset)) and cls.__repr__ in (
                list.__repr__, tuple.__repr__, dict.__repr__, set.__repr__, frozenset.__repr__):
            key = id(v)
            cache_key = (key, True) if hashed else key
            if cache_key in copies:
                return copies[cache_key]
            if key in on_path:
                kind = next(b for b in (list, tuple, dict, set, frozenset) if isinstance(v, b)).__name__
                return _Shown(f"<Recursion on {kind}>")
            on_path.add(key)
            try:
                if isinstance(v, dict):
                    # in pprint's order already (see _PprintKey), so that it need not sort: its fallback for keys
                    # that do not compare orders them by id(), which differs from run to run
                    pairs = [(copy(k, depth + 1, "key"), copy(x, depth + 1)) for k, x in v.items()]
                    result = dict(sorted(pairs, key=_pprint_order))
                elif isinstance(v, list):
                    result = [copy(x, depth + 1) for x in v]
                elif isinstance(v, tuple):
                    result = tuple(copy(x, depth + 1, hashed) for x in v)
                else:
                    kind = set if isinstance(v, set) else frozenset
                    if cls is not kind:   # pprint names a subclass: S({...}), as its repr does
                        kind = _named(cls.__name__, kind)
                    result = kind(copy(x, depth + 1, "item") for x in v)
                    if result and not any(map(_hash_varies, result)):
                        # on one line Python prints a set in its own order, which a copy may not keep (collisions)
                        one_line[id(result)] = safe_repr(v, rs)
            finally:
                on_path.discard(key)
            copies[cache_key] = result
            return result
        if getattr(cls, "mj_pprint_as_is", False):
            return v   # an undefined: pprint sorts keys with its own `<`, which raises as in Jinja2
        key = id(v)
        if hashed == "key":
            return _Shown(safe_repr(v, rs))
        if key in on_path:
            return _Shown(f"<Recursion on {cls.__name__}>")
        on_path.add(key)
        try:
            copied = _std_copy(v, cls, lambda item, hashed=False: copy(item, depth + 1, hashed), bool(hashed))
        finally:
            on_path.discard(key)
        if copied is None:
            return _Shown(safe_repr(v, rs))
        result, contents = copied
        if result is not v:
            one_line[id(result)] = safe_repr(v, rs)   # pprint's text for it on one line: its repr()
        hidden.append(contents)
        return result

    return copy(value, 0), deepest, one_line, hidden


def _std_copy(value, cls, copy_item, hashable=False):
    # A copy, for pprint, of a standard-library object its PrettyPrinter wraps over lines (a caller's subclass of
    # one, with the standard __repr__, copied as a class of the same name: pprint writes the subclass's name) with
    # copy_item applied to what it holds, and what of it tree_size does not count (bytes: a part per 4 bytes, the
    # most pprint puts on one line) — or None.
    # Dicts that pprint sorts when it wraps them are copied sorted; on one line the copy prints as the original.
    from collections import ChainMap, Counter, OrderedDict, UserDict, UserList, defaultdict, deque

    def pairs(mapping, in_order=False):
        copied = [(copy_item(k, "key"), copy_item(x)) for k, x in mapping.items()]
        return copied if in_order else sorted(copied, key=_pprint_order)

    std = next((base for base in (bytes, bytearray, deque, OrderedDict, Counter, defaultdict, UserDict, UserList,
                                  ChainMap) if issubclass(cls, base) and cls.__repr__ is base.__repr__), None)
    # (the caller's class itself is never called: its __init__ is the caller's code)
    kind = std if std is None or std is cls else _named(cls.__name__, std)
    if std is bytes or std is bytearray:
        return (value if kind is cls else kind(value)), [0] * (len(value) // 4)
    if std is deque:
        return kind(map(copy_item, value), value.maxlen), ()
    if std is OrderedDict or std is Counter:   # insertion order (Counter: most_common(), a stable sort)
        return kind(dict(pairs(value, True))), ()
    if std is defaultdict:
        result = kind(None, pairs(value))
        result.default_factory = _Shown(safe_repr(value.default_factory))
        return result, ()
    if cls is types.MappingProxyType:
        return types.MappingProxyType(dict(pairs(value))), ()
    if std is UserDict or std is UserList:
        result = kind()
        result.data = copy_item(value.data)
        return result, result.data
    if std is ChainMap:
        maps = [copy_item(m) for m in value.maps]
        return kind(*maps), maps
    if isinstance(value, types.SimpleNamespace) and cls.__repr__ is types.SimpleNamespace.__repr__:
        items = [(name, copy_item(x)) for name, x in vars(value).items()]
    elif _has_dataclass_repr(cls):
        from dataclasses import fields
        items = [(f.name, copy_item(getattr(value, f.name))) for f in fields(value) if f.repr]
    else:
        return None
    # pprint lays a dataclass out as it does a SimpleNamespace subclass: Name(field=value, ...); one in a set
    # (hashable) is copied to a copy that hashes and sorts as the original (a set's order on one line is its hashes',
    # laid out pprint sorts the items), and equals only itself
    if cls is types.SimpleNamespace:
        kind = cls
    elif hashable:
        kind = type(cls.__name__, (types.SimpleNamespace,), {
            "__hash__": _hash_as_original, "__eq__": object.__eq__, "__lt__": _lt_as_original,
            "__gt__": _gt_as_original, "mj_original": value})
    else:
        kind = _named(cls.__name__, types.SimpleNamespace)
    result = kind(**dict(items))
    return result, [x for _, x in items]


@lru_cache(maxsize=64)
def _named(name, base):
    # A subclass of base with a caller's class's name, for a copy that pprint prints under that name (made once)
    return type(name, (base,), {})


def _hash_as_original(copy):
    return hash(type(copy).mj_original)


def _lt_as_original(copy, other):
    # the originals' order; where they do not compare, _PprintKey's (pprint's own falls back to their id()),
    # both ways (`5 < copy` comes here reflected), so that a set's items sort the same from run to run
    return _PprintKey(type(copy).mj_original) < _PprintKey(getattr(type(other), "mj_original", other))


def _gt_as_original(copy, other):
    return _PprintKey(getattr(type(other), "mj_original", other)) < _PprintKey(type(copy).mj_original)


def _has_dataclass_repr(cls):
    # Does cls print with the __repr__ that @dataclass made (the one pprint lays out field by field)?
    params = getattr(cls, "__dataclass_params__", None)
    made = getattr(cls.__repr__, "__wrapped__", None)
    return (params is not None and params.repr and isinstance(cls, type) and made is not None
            and "__create_fn__" in getattr(made, "__qualname__", ""))


def safe_pformat(value, rs=None):
    # pprint.pformat(value) (Jinja2's |pprint), bounded and without memory addresses or ids.
    rs = _state(rs)
    limits = rs.limits if rs is not None else DEFAULT_LIMITS
    flat = len(_Printer(rs).text(value, False))          # checks max_string, depth and charges the walk
    plain, depth, one_line, hidden = _plain_copy(value, rs, limits)
    if rs is not None:
        nodes = tree_size(rs, [plain, hidden])
        rs.burn(8 * nodes)  # pformat is slow pure Python: a node costs ~8 loop iterations' time
        # pformat adds at most a newline and the indentation of its depth to each node
        check_str_size(limits, flat + nodes * (depth + 2), "pretty-printed data")
    text = _pretty_printer(one_line).pformat(plain)   # dicts come sorted (_plain_copy)
    check_str_size(limits, len(text), "pretty-printed data")
    return text


_printer_class = []


def _pretty_printer(one_line):
    # pprint's PrettyPrinter (dicts unsorted: they come sorted), except that a set whose order changes from
    # process to process (its items hash strings, or objects by address) prints on one line in _PprintKey order,
    # and a copy made by _std_copy prints on one line as its original does (one_line: id → text).
    # Made on first use: pprint takes ~20 ms to import (dataclasses, inspect).
    if not _printer_class:
        from pprint import PrettyPrinter

        class StablePrinter(PrettyPrinter):
            def format(self, object, context, maxlevels, level):
                text = self.one_line.get(id(object))
                if text is not None:
                    return text, False, False
                if isinstance(object, (set, frozenset)) and object and any(map(_hash_varies, object)):
                    items = sorted(object, key=_PprintKey)
                    text = ", ".join(self.format(x, context, maxlevels, level + 1)[0] for x in items)
                    kind = type(object)
                    return ("{%s}" if kind is set else kind.__name__ + "({%s})") % text, True, False
                return super().format(object, context, maxlevels, level)
        _printer_class.append(StablePrinter)
    printer = _printer_class[0](sort_dicts=False)
    printer.one_line = one_line
    return printer


def _hash_varies(value):
    # Does value's hash (so its place in a set) change from process to process?
    cls = type(value)
    if cls is tuple or cls is frozenset:
        return any(map(_hash_varies, value))
    if cls.__hash__ is _hash_as_original:   # pprint's copy of a dataclass in a set
        value = cls.mj_original
        cls = type(value)
    params = getattr(cls, "__dataclass_params__", None)
    code = getattr(cls.__hash__, "__code__", None)
    if params is not None and code is not None and code.co_filename == "<string>" and (
            params.unsafe_hash or params.eq and params.frozen):
        # the __hash__ @dataclass made (its code is exec'd text): the hash of the tuple of the hashed fields
        from dataclasses import fields
        return any(_hash_varies(getattr(value, f.name)) for f in fields(value)
                   if (f.compare if f.hash is None else f.hash))
    return not (cls is int or cls is float or cls is bool or cls is complex or value is None)
