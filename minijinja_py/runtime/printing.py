"""Printing: a template value → its text, the way {{ }}, ~, |string, %s and {!r} show it (|pprint: pformat.py, which
lays out this module's safe reprs; |tojson: tojson.py)."""

# Python's str()/repr() for plain data, byte for byte, with three differences that make
# printing safe for untrusted templates:
#   * nothing shows a memory address: functions, methods, generators, classes and the caller's objects without
#     a __repr__ of their own print as `<function lipsum>`, `<generator object do_map>`, `<mod.Thing object>`,
#     any other object as its repr without the address: `<unlocked _thread.lock object>`, `<memory>`;
#   * the text is bounded: printing stops with LimitExceeded('max_string') as soon as it passes limits.max_string
#     characters, and it is charged to the render's fuel — a list that holds one big string a million times
#     fails at once instead of building terabytes;
#   * nesting deeper than limits.max_data_depth fails with LimitExceeded('max_data_depth'); data that contains
#     itself prints like Python's ([[...]]), and a sub-list shared many times is printed once and reused.
#
# The limits and fuel come from the render in progress (state.current_state()); outside a render the default
# Limits apply and nothing is charged. The engine's own runtime objects (objects.py, undefined.py) sit above this
# module: printing knows them by markers, not by importing them — a class with `mj_safe_repr = True` prints with its
# own (address-free, bounded) str()/repr(), one with an `mj_print(printer, depth)` method prints itself through the
# printer (a namespace prints its attributes as a dict), and |pprint (pformat.py) shows one with `mj_pprint_by_repr =
# True` by its repr, on one line (pprint does not know its class: groupby's groups).

import sys
import types
from _collections import defaultdict   # (the C half of collections, which the package imports anyway)
from functools import partial
from operator import length_hint

from ..core.errors import LimitExceeded, without_addresses
from ..core.state import CHAR_SHIFT, DEFAULT_LIMITS, check_str_size, current_state, limit_exceeded, out_of_fuel
from .textcache import recall, remember

__all__ = ["to_str", "subclass_str", "safe_repr", "short_repr", "opaque_repr", "OPAQUE_TYPES"]

_SCALARS = (str, int, float, bool, type(None))
# Python 3.12 prints an OrderedDict as OrderedDict({...}), earlier ones as a list of pairs
_ORDERED_DICT_AS_DICT = sys.version_info >= (3, 12)
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
    if isinstance(value, types.BuiltinMethodType):
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            return f"<built-in method {name} of {type(owner).__name__} object>"
        return f"<built-in function {name}>"   # len, math.floor: Python's repr shows no address
    if isinstance(value, (types.FunctionType, partial)):
        return f"<function {name}>"
    if isinstance(value, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
        kind = {types.GeneratorType: "generator", types.CoroutineType: "coroutine"}.get(type(value),
                                                                                           "async_generator")
        return f"<{kind} object {name}>"
    if isinstance(value, type):
        return _class_repr(value, name)
    if isinstance(value, types.ModuleType):
        return f"<module '{name}'>"
    if isinstance(value, (types.WrapperDescriptorType, types.MethodWrapperType, types.MethodDescriptorType,
                          types.ClassMethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType)):
        # Python's repr, of names only: <method 'append' of 'list' objects>, <method-wrapper '__str__' of T object>
        return without_addresses(repr(value))
    return f"<{type(value).__name__} object>"


def _class_repr(cls, name):
    # Python's repr of a class (no address in it): <class 'module.Qualified'>, an enum's <enum 'Name'>; the
    # engine's own classes by their name alone (Jinja2's are other modules' classes)
    module = cls.__module__
    if type(type(cls).__repr__) is types.FunctionType:   # a metaclass's own repr: Enum's (or the caller's)
        return repr(cls)
    if not isinstance(module, str) or module == "minijinja_py" or module.startswith("minijinja_py."):
        return f"<class '{name}'>"
    qualname = cls.__qualname__
    return f"<class '{qualname}'>" if module == "builtins" else f"<class '{module}.{qualname}'>"


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


def _plain_text(value, rs, limits, room):
    # Python's repr() of value at C speed when value is a tree of plain data whose text surely fits in room (see
    # _plain_bound): paid as the walk would pay, before the text is made. None for anything else (the walk then
    # prints it). The text of the same unchanged object made before is found again (textcache).
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
        rs.fuel -= steps   # (rs.burn in line, before the text is made and for its size after)
        if rs.fuel < 0:
            raise out_of_fuel(limits)
    text = repr(value)
    if rs is not None:
        rs.fuel -= len(text) >> CHAR_SHIFT
        if rs.fuel < 0:
            raise out_of_fuel(limits)
    remember(value, "repr", (text, steps + (len(text) >> CHAR_SHIFT), bound, height), items + containers,
             len(text))
    return text


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

    def walked(self, value, for_str):
        self.visit(value, 0, for_str)
        text = "".join(self.parts)
        if self.rs is not None:
            self.rs.burn(self.steps + (self.size >> CHAR_SHIFT))
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
            self.standard(value, cls, depth)
        elif cls is types.MappingProxyType:   # a caller's read-only mapping: its str is its dict's, its repr
            self.emit("" if for_str else "mappingproxy(")   # mappingproxy({...})
            self._mapped(value.items(), depth + 1)
            self.emit("" if for_str else ")")
        elif cls is types.MethodType:
            # a caller's object's method: Python's <bound method Class.name of ...>, the object printed here
            self.emit(f"<bound method {getattr(value.__func__, '__qualname__', '?')} of ")
            self.visit(value.__self__, depth + 1, False)
            self.emit(">")
        elif isinstance(value, OPAQUE_TYPES):
            self._opaque(value, cls, depth)
        elif isinstance(value, defaultdict) and cls.__repr__ is defaultdict.__repr__:
            # Python's defaultdict(<factory>, {...}) with its factory and items printed here: a lambda factory
            # (an autovivifying tree) would show its address, and the items are bounded as any dict's
            self.emit(f"{cls.__name__}(")
            self.visit(value.default_factory, depth + 1, False)
            self.emit(", ")
            self.container(value, dict, depth)
            self.emit(")")
        elif cls is bytes or cls is bytearray:   # (str() is repr(): b'...', bytearray(b'...'))
            if 4 * len(value) + 14 > self.room - self.size:   # \x00: four characters a byte
                check_str_size(self.limits, self.size + _repr_length(value), "printed data")
            self.emit(repr(value))
        elif isinstance(value, (list, tuple, dict, set, frozenset)) and cls.__repr__ in (
                list.__repr__, tuple.__repr__, dict.__repr__, set.__repr__, frozenset.__repr__):
            # a subclass that prints as its base (groupby's pairs print as tuples); a set's is named: S({1})
            base = next(b for b in (list, tuple, dict, set, frozenset) if isinstance(value, b))
            self.container(value, cls if base is set or base is frozenset else base, depth)
        elif _prints_as_standard(cls):
            self.standard(value, cls, depth)
        else:
            self.emit(self._caller_object(value, cls, for_str))

    def _opaque(self, value, cls, depth):
        # A function, class, generator, descriptor ... by opaque_repr; a partial, staticmethod or classmethod as
        # Python's repr writes it, what it wraps printed here: functools.partial(<function f>, 1, b=2)
        emit, visit = self.emit, self.visit
        if cls is partial:
            emit("functools.partial(")
            visit(value.func, depth + 1, False)
            for arg in value.args:
                emit(", ")
                visit(arg, depth + 1, False)
            for key, arg in value.keywords.items():
                emit(f", {key}=")
                visit(arg, depth + 1, False)
            emit(")")
        elif cls is staticmethod or cls is classmethod:
            emit(f"<{cls.__name__}(")
            visit(value.__func__, depth + 1, False)
            emit(")>")
        else:
            emit(opaque_repr(value))

    def _repr_str(self, value):
        # repr() of a string can be 10 times longer than the string (\U000e0001): measure it piecewise first
        # when it might not fit
        if len(value) * (4 if value.isascii() else 10) + 2 > self.room - self.size:
            check_str_size(self.limits, self.size + _repr_length(value), "printed data")
        return repr(value)

    def _caller_object(self, value, cls, for_str):
        # The caller's own objects print with their own __str__/__repr__, unless that is object's default
        # (which shows an address); the addresses a repr shows are left out, as everywhere: a lock's, a weakref's,
        # a memoryview's, an Event's (<memory>, <weakref; to 'Thing'>, <threading.Event: unset>).
        method = cls.__str__ if for_str else cls.__repr__
        if method is object.__str__ or method is object.__repr__:
            if cls.__repr__ is object.__repr__:
                return _default_object_repr(value)
            text = repr(value)
        else:
            text = str(value) if for_str else repr(value)
        return text if " at 0x" not in text else without_addresses(text)

    def standard(self, value, cls, depth):
        # A dict's view, an OrderedDict, deque or Counter (or a subclass printed by its repr) as Python's repr
        # writes it, its items printed here (bounded, without addresses): dict_items([(k, v), ...]),
        # OrderedDict([(k, v), ...]) (OrderedDict({k: v}) from Python 3.12), deque([...], maxlen=n),
        # Counter({k: v, ...}) most common first.
        from collections import Counter, OrderedDict, deque   # (loaded already: the package imports it)
        self.steps += _CONTAINER_STEPS   # (paid with the text: what it prints again is bounded by max_string)
        key = id(value)
        if key in self.on_path:
            self.cycles += 1
            self.emit("[...]" if isinstance(value, deque) else "...")
            return
        self.on_path.add(key)
        try:
            self.emit(f"{cls.__name__}(")
            if cls in _VIEW_TYPES:
                self._listed(value, depth + 1, cls is _VIEW_TYPES[2])
            elif isinstance(value, deque):
                self._listed(value, depth + 1, False)
                if value.maxlen is not None:
                    self.emit(f", maxlen={value.maxlen}")
            elif isinstance(value, Counter):
                if value:
                    try:
                        counted = dict(value.most_common())
                    except TypeError:   # counts that do not compare: Counter's repr falls back to its dict
                        counted = dict(value)
                    self._mapped(counted.items(), depth + 1)
            elif dict.__len__(value):
                items = OrderedDict.items(value) if cls is OrderedDict else value.items()
                if _ORDERED_DICT_AS_DICT:
                    self._mapped(dict(items).items(), depth + 1)
                else:
                    self._listed(items, depth + 1, True)
            self.emit(")")
        finally:
            self.on_path.discard(key)

    def _listed(self, items, depth, of_pairs):
        # [a, b, ...], the items printed at depth; of_pairs: the items are an iterator's (key, value) tuples, made
        # as it goes (printed here, not as containers: a new one may reuse the id of one printed before)
        emit, visit = self.emit, self.visit
        emit("[")
        for count, item in enumerate(items):
            if count:
                emit(", ")
            if of_pairs and type(item) is tuple and tuple.__len__(item) == 2:
                emit("(")
                visit(item[0], depth, False)
                emit(", ")
                visit(item[1], depth, False)
                emit(")")
            else:
                visit(item, depth, False)
        emit("]")

    def _mapped(self, pairs, depth):
        # {k: v, ...}, the keys and values printed at depth
        emit, visit = self.emit, self.visit
        emit("{")
        for count, (key, value) in enumerate(pairs):
            if count:
                emit(", ")
            visit(key, depth, False)
            emit(": ")
            visit(value, depth, False)
        emit("}")

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
        if (cls is list or cls is tuple) and type(value) is cls and len(value) > 16 and self._flat(value):
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
        # the items as the built-in's repr reads them: a subclass's own __len__, __iter__ or items() (which may
        # fail or lie) are not called, but for a set's (Python's set repr iterates it)
        if cls is dict:
            self._mapped(dict.items(value), depth)
            return
        emit, visit = self.emit, self.visit
        if cls is not list and cls is not tuple:   # a set, a frozenset, or a subclass of one: S({1}), S()
            # empty by what it stores; a subclass's items listed as Python's repr lists them, its len() asked
            # first (what that raises goes through, but a TypeError; what it answers is only a hint)
            if not (set.__len__ if isinstance(value, set) else frozenset.__len__)(value):
                emit(f"{cls.__name__}()")
                return
            if cls is not set and cls is not frozenset:
                length_hint(value)
            emit("{" if cls is set else f"{cls.__name__}({{")
        else:
            emit("[" if cls is list else "(")
        first = True
        for item in value if type(value) is cls or (cls is not list and cls is not tuple) else cls.__iter__(value):
            if not first:
                emit(", ")
            first = False
            visit(item, depth, False)
        if cls is list:
            emit("]")
        elif cls is tuple:
            emit(",)" if tuple.__len__(value) == 1 else ")")
        else:
            emit("}" if cls is set else "})")


def _prints_as_standard(cls):
    # Does cls print with the repr of OrderedDict, deque or Counter (which _Printer.standard writes itself)?
    if getattr(cls.__repr__, "__qualname__", None) not in ("OrderedDict.__repr__", "deque.__repr__",
                                                           "Counter.__repr__"):
        return False   # (the caller's classes, without looking further)
    from collections import Counter, OrderedDict, deque
    return cls.__repr__ in (OrderedDict.__repr__, deque.__repr__, Counter.__repr__)


def _repr_length(value, chunk=1 << 16):
    # len(repr(value)) for a str, bytes or bytearray, built a chunk at a time.
    quote, double = ("'", '"') if type(value) is str else (b"'", b'"')
    # Python's choice of quotes for the whole string (a bytearray's escapes ' in either)
    double_quoted = type(value) is bytearray or quote in value and double not in value
    total = empty = len(repr(value[:0]))   # the quotes (and b, bytearray())
    for i in range(0, len(value), chunk):
        piece = value[i:i + chunk]
        total += len(repr(piece)) - empty
        if not double_quoted and quote in piece and double not in piece:
            total += piece.count(quote)  # the piece alone chose "..." and left the ' unescaped
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
    if cls is dict or cls is list or cls is tuple:
        return _text(value, _state(rs), True)
    if isinstance(value, str):
        return subclass_str(value)
    if getattr(cls, "mj_safe_repr", False):
        return str(value)   # an undefined (prints '') and the engine's other objects: no walk, nothing charged
    return _text(value, _state(rs), True)


def safe_repr(value, rs=None):
    # repr() for templates (%r, {!r}, items of printed containers): bounded, without memory addresses.
    return _text(value, _state(rs), False)


def _text(value, rs, for_str, printer=None):
    # The text of value: plain data by repr() (_plain_text: no printer made for it, as for most printed
    # containers), anything else by the printer's walk (a printer of rs's limits, unless one is given).
    cls = type(value)
    if cls is dict or cls is list or cls is tuple:
        limits = rs.limits if rs is not None else DEFAULT_LIMITS
        text = _plain_text(value, rs, limits, limits.max_string if printer is None else printer.room)
        if text is not None:
            return text
    return (printer or _Printer(rs)).walked(value, for_str)


def short_repr(value, width=200):
    # An address-free repr of at most about `width` characters, for error messages.
    printer = _Printer(None)
    printer.room = width
    try:
        return _text(value, None, False, printer)
    except LimitExceeded:
        return "".join(printer.parts)[:width] + "…"
