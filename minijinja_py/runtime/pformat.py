"""Pretty printing: a template value → the text of Jinja2's |pprint (pprint.pformat), bounded and address-free."""

# pprint itself lays the text out, over a copy of the value in which every non-data leaf is replaced by its safe
# text (printing.safe_repr), cycles by a marker without an id and the standard library's containers by copies of
# their kind; dicts come sorted in pprint's order, and sets whose order would change from run to run are sorted, so
# the text is the same in every process. Sizes are checked before pformat runs (it is slow pure Python).

import types
from functools import cmp_to_key, lru_cache

from ..core.budget import tree_size
from ..core.state import DEFAULT_LIMITS, check_str_size, current_state, limit_exceeded
from .printing import safe_repr

__all__ = ["safe_pformat"]


_SHOWN = []   # [the class _shown makes], once made


def _shown():
    # The class that stands in for a non-data value inside a pformat: prints as the sandbox prints it. Made by the
    # first pformat: few renders pprint, and a class costs a cold start ~0.07 M instructions.
    if not _SHOWN:
        class _Shown:
            __slots__ = ("text",)

            def __init__(self, text):
                self.text = text

            def __repr__(self):
                return self.text

            def __lt__(self, other):  # dict keys are sorted: keep the order stable, never by address
                if isinstance(other, _Shown):
                    return self.text < other.text
                return NotImplemented
        _SHOWN.append(_Shown)   # (threads racing here append equal classes: each uses the first)
    return _SHOWN[0]


def _pprint_less(a, b):
    # pprint's order of dict items (its _safe_key: `<` where the two compare, else the type names, then...),
    # with a last resort that does not change from run to run: the text of the key instead of its id().
    # -1 where a comes first, else 1, never 0: a key made by cmp_to_key asks `<` (cmp < 0), and never equals
    # another (cmp == 0), as objects without __eq__ do not (a dict item's (key, value) pair of keys is compared
    # by its key alone).
    try:
        less = a < b
    except TypeError:
        less = (str(type(a)), safe_repr(a)) < (str(type(b)), safe_repr(b))
    return -1 if less else 1


# _PprintKey(value): value's key in that order (functools' key class, written in C: a class of ours would cost a
# cold start ~0.07 M instructions)
_PprintKey = cmp_to_key(_pprint_less)


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
            return _shown()(safe_repr(v, rs))
        if isinstance(v, (list, tuple, dict, set, frozenset)) and cls.__repr__ in (
                list.__repr__, tuple.__repr__, dict.__repr__, set.__repr__, frozenset.__repr__):
            key = id(v)
            cache_key = (key, True) if hashed else key
            if cache_key in copies:
                return copies[cache_key]
            if key in on_path:
                kind = next(b for b in (list, tuple, dict, set, frozenset) if isinstance(v, b)).__name__
                return _shown()(f"<Recursion on {kind}>")
            on_path.add(key)
            try:
                if isinstance(v, dict):
                    # in pprint's order already (see _PprintKey), so that it need not sort: its fallback for keys
                    # that do not compare orders them by id(), which differs from run to run
                    # (sorted by the originals, which compare as pprint compares them: a copy shown by its text
                    # would not, an IntEnum key with a float one)
                    pairs = sorted(_own_items(v, limits), key=_pprint_order)
                    kind = dict if cls.__len__ is dict.__len__ else _named("dict", dict, True)
                    result = _copy_of(kind, ((copy(k, depth + 1, "key"), copy(x, depth + 1)) for k, x in pairs), v)
                elif isinstance(v, list):
                    result = [copy(x, depth + 1) for x in _own_items(v, limits)]
                elif isinstance(v, tuple):
                    result = tuple(copy(x, depth + 1, hashed) for x in _own_items(v, limits))
                else:
                    kind = set if isinstance(v, set) else frozenset
                    if cls is not kind:   # pprint names a subclass: S({...}), as its repr does
                        kind = _named(cls.__name__, kind, cls.__len__ is not kind.__len__)
                    result = _copy_of(kind, (copy(x, depth + 1, "item") for x in v), v)
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
            return _shown()(safe_repr(v, rs))
        if key in on_path:
            return _shown()(f"<Recursion on {cls.__name__}>")
        on_path.add(key)
        try:
            copied = _std_copy(v, cls, lambda item, hashed=False: copy(item, depth + 1, hashed), bool(hashed))
        finally:
            on_path.discard(key)
        if copied is None:
            return _shown()(safe_repr(v, rs))
        result, contents = copied
        if result is not v:
            one_line[id(result)] = safe_repr(v, rs)   # pprint's text for it on one line: its repr()
        hidden.append(contents)
        return result

    return copy(value, 0), deepest, one_line, hidden


def _own_items(container, limits):
    # The items of a list, tuple or dict as pprint reads them: a caller's subclass through its own __iter__ or
    # items() (which may never end: stopped at max_items), once pprint has asked it whether it is empty (its
    # __bool__ or __len__; a tuple its len() first, for the comma of one item): what that raises goes through,
    # and one that says it is empty prints empty.
    if type(container) in (list, tuple, dict):
        return container.items() if type(container) is dict else container
    if isinstance(container, tuple):
        len(container)
    if not container:
        return ()
    return _bounded(container.items() if isinstance(container, dict) else container, limits)


def _bounded(items, limits):
    for count, item in enumerate(items, 1):
        if count > limits.max_items:
            raise limit_exceeded(limits, "max_items", "pretty-printed data")
        yield item


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
        result.default_factory = _shown()(safe_repr(value.default_factory))
        return result, ()
    if cls is types.MappingProxyType:
        return types.MappingProxyType(dict(pairs(value))), ()
    if std is UserDict or std is UserList:
        result = kind()
        result.data = copy_item(value.data)
        return result, result.data
    if std is ChainMap:
        maps = list(map(copy_item, value.maps))
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
def _named(name, base, asks_length=False):
    # A subclass of base with a caller's class's name, for a copy that pprint prints under that name (made once).
    # asks_length: the copy of a caller's dict or set whose __len__ is its own, which pprint asks (what it raises
    # goes through) where it lays one out over lines, and only there: the copy's len() is its `original`'s, its
    # truth its own items' (the original was asked whether it is empty when it was copied: _own_items).
    if not asks_length:
        return type(name, (base,), {})
    return type(name, (base,), {"__slots__": ("original",), "__len__": lambda copy: len(copy.original),
                                "__bool__": lambda copy: base.__len__(copy) > 0})


def _copy_of(kind, items, original):
    # kind(items), made to ask the original's length where pprint asks it if kind is one that does (_named)
    result = kind(items)
    if hasattr(kind, "original"):   # (a slot of the kinds that ask)
        result.original = original
    return result


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
    rs = rs if rs is not None else current_state()
    limits = rs.limits if rs is not None else DEFAULT_LIMITS
    flat = len(safe_repr(value, rs))          # checks max_string, depth and charges the walk
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
