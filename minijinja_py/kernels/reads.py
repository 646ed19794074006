"""Reads: the one guard vocabulary of the kernels — what "plain" is, and how a kernel reads a value in line."""

# Plain data is what a caller's JSON is made of: exactly str, int, float, bool, None, list, tuple and dict (no
# subclass: a subclass may define what reading, comparing or printing it does). A kernel reads a value in line only
# from a variable's slot (a value: not MISSING), a str key of a plain dict (dict.get: one lookup), a namespace's
# attribute or a loop field (attribute()), and decides only on plain values; where anything is not so, the reader
# gives MISSING (or ABSENT: a plain dict or a namespace without the key, an undefined value) and the kernel runs its
# general closure, which reads and decides everything again, as Jinja2 does.
# That is exact because a read in line runs no code: reading it again finds the same value.
#
# A Read (ir.py) is taken apart as spec(read) = (slot, key, method, reader): a one-key read of a variable (`m.role`,
# the commonest by far) is read in line — for a kernel that asks, through a str method too (`m.content|trim`) —
# and anything else (the variable itself, a longer chain, an index) through reader(f), one call. Written out:
#
#     if reader is None:
#         value = f[slot]
#         value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
#         if method is not None:   (a kernel that asked for methods in line)
#             value = method(value) if type(value) is str and len(value) < BIG_STR else MISSING
#     else:
#         value = reader(f)

from operator import itemgetter

from ..core.state import BIG_STR, MISSING
from ..runtime.objects import ChatNamespace, LoopContext, Namespace
from ..runtime.sandbox import undefined_on_str

__all__ = ["MISSING", "ABSENT", "BIG_STR", "attribute", "spec", "reader"]


class _Absent:
    __slots__ = ()

    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()   # a plain dict or namespace without the key read: the read is undefined

# the loop fields that are plain values of the loop context (loop.cycle and loop.changed are methods)
_STR_NAMES = frozenset(name for name in dir(str) if not undefined_on_str(name))   # what a str has (sandbox.py)
_LOOP_FIELDS = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth",
                          "depth0", "previtem", "nextitem"})


def attribute(obj, key):
    # A key read of something that is not a plain dict: a namespace's attribute, a loop field (`ns.found`,
    # `loop.first`): its value, ABSENT for a namespace without it or a plain str (`content['type']` of a message
    # whose content is a string: a str has no such item, nor such a method); MISSING for anything else (the general
    # read decides).
    cls = type(obj)
    if cls is str:
        return ABSENT if key not in _STR_NAMES and key[:1] != "_" else MISSING
    if cls is LoopContext:
        if key == "first":
            return obj.index0 == 0
        if key == "last" and obj._items is not None and obj.index0 + 1 < len(obj._items):
            return False   # (at the end, its property spends the walk; a lazy loop looks ahead)
        return getattr(obj, key) if key in _LOOP_FIELDS else MISSING
    if cls is Namespace or cls is ChatNamespace:
        return obj._attrs.get(key, ABSENT) if key[:1] != "_" else MISSING
    return MISSING


def spec(read, methods=False, variables=False):
    # (slot, key, method, reader) of a Read, as the module docstring reads it; methods: a one-key read through a
    # str method is read in line too (method None otherwise); variables: so is the variable itself (key None: a
    # kernel that asks reads `f[slot]` and no key).
    keys = read.keys
    if (len(keys) == 1 or variables and not keys) and (read.method is None or methods):
        return read.slot, keys[0] if keys else None, read.method, None
    return None, None, None, reader(read)


def reader(read):
    # f → the value of a Read, or MISSING where it is not plain, ABSENT where its last key is not there (see the
    # module docstring).
    slot, keys, method = read.slot, read.keys, read.method
    if not keys and method is None:
        return itemgetter(slot)   # the variable (MISSING where it is not assigned)
    step = attribute   # what a step that is not a plain dict's key reads
    if 1 <= len(keys) <= 2:
        return _steps(slot, keys[0], keys[1] if len(keys) == 2 else None, method, step)

    def read_path(f, keys=keys, method=method, slot=slot, step=step):
        value = f[slot]
        for key in keys:   # (ABSENT or MISSING on the way: neither has keys, the read is MISSING)
            if type(value) is dict:
                value = value.get(key, ABSENT)
            else:
                value = step(value, key)
        if method is not None:
            return method(value) if type(value) is str and len(value) < BIG_STR else MISSING
        return value
    return read_path


def _steps(slot, first, second, method, attribute):
    # reader()'s form for one step or two (second None: one), maybe through a str method (`m['content']|trim`,
    # `tool.function.name`): the same reads, written out (attribute: what a step that is not a plain dict's key
    # reads; defaults: cheaper per call than free variables).
    def read_steps(f, slot=slot, first=first, second=second, method=method, attribute=attribute):
        value = f[slot]
        value = value.get(first, ABSENT) if type(value) is dict else attribute(value, first)
        if second is not None:
            value = value.get(second, ABSENT) if type(value) is dict else attribute(value, second)
        if method is None:
            return value
        return method(value) if type(value) is str and len(value) < BIG_STR else MISSING
    return read_steps
