"""Atoms: the tests a fused if (fused_if.py) decides in line on a plain value — a read's truth, `read == 'x'`,
`'x' in read`, `read is defined`, `read is none`, `read is string`, `idx > 1`, `loop.first`, `ns.found` — each as
(slot, key, kind, constant), read from a variable of the frame or a constant key of one; and their outcome on a
frame: True, False, or None when the value is not plain data (the general path then decides).
"""

import operator
from functools import partial

from ..builtins.tests import TESTS as _BUILTIN_TESTS
from .places import cheap_constant, constant_set, dict_key
from ..core.state import BIG_STR, MISSING
from ..runtime.objects import ChatNamespace, LoopContext, Namespace
from ..runtime.sandbox import DICT_ATTRS, DICT_MUTATORS
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["read_place", "atom_of", "holds", "atom_tester", "and_or_parts", "inline_test", "TRUTHY", "FALSY", "EQ",
           "NE", "DEFINED", "UNDEFINED", "NONE", "NOT_NONE", "IN", "NOT_IN", "TYPE_IS", "TYPE_IS_NOT", "ONE_OF",
           "NONE_OF", "LT", "LE", "GT", "GE", "ORDER", "PLAIN_TYPES", "DICT_NAMES", "NEGATION"]


def read_place(c, node):
    """(slot, key) of an in-line read (see inline_read) without compiling it, or None."""
    if isinstance(node, n.Name):
        depth, slot = c.where(node.name)
        return (slot, None) if depth == 0 else None
    if isinstance(node, (n.Getattr, n.Getitem)) and isinstance(node.obj, n.Name):
        key = dict_key(node)
        if key is None:
            return None
        depth, slot = c.where(node.obj.name)
        return (slot, key) if depth == 0 else None
    return None


# The tests a single {% if %} evaluates in line on a plain value ("atoms"): (kind, constant)
TRUTHY, FALSY, EQ, NE, DEFINED, UNDEFINED, NONE, NOT_NONE, IN, NOT_IN, TYPE_IS, TYPE_IS_NOT, ONE_OF, \
    NONE_OF, LT, LE, GT, GE = range(18)
# `idx > 1`, `depth >= 1`: an int compared with an int constant (for ints, not < is >=: the negations are exact)
ORDER = {LT: operator.lt, LE: operator.le, GT: operator.gt, GE: operator.ge}
_ORDER_KINDS = {"<": LT, "<=": LE, ">": GT, ">=": GE}
PLAIN_TYPES = frozenset({str, int, float, bool, type(None), list, dict, tuple})
# a dict's methods: d['items'] of a dict without that key is the method, not undefined
DICT_NAMES = DICT_ATTRS | DICT_MUTATORS
NEGATION = {TRUTHY: FALSY, FALSY: TRUTHY, EQ: NE, NE: EQ, DEFINED: UNDEFINED, UNDEFINED: DEFINED,
            NONE: NOT_NONE, NOT_NONE: NONE, IN: NOT_IN, NOT_IN: IN, TYPE_IS: TYPE_IS_NOT,
            TYPE_IS_NOT: TYPE_IS, ONE_OF: NONE_OF, NONE_OF: ONE_OF, LT: GE, GE: LT, LE: GT, GT: LE}
_TYPE_TESTS = {("defined", False): DEFINED, ("defined", True): UNDEFINED, ("undefined", False): UNDEFINED,
               ("undefined", True): DEFINED, ("none", False): NONE, ("none", True): NOT_NONE}
# `is string`, `is mapping` on plain data: the one plain type each is true of
_CLASS_TESTS = {"string": str, "mapping": dict}


def atom_of(c, test):
    """(slot, key, kind, constant) for a test evaluated in line on one in-line read, or None."""
    kind, constant = TRUTHY, None
    if isinstance(test, n.Not):
        # `not read`, and `not x is defined` (Jinja's precedence: not (x is defined)): the inner atom negated
        inner = atom_of(c, test.operand)
        return None if inner is None else inner[:2] + (NEGATION[inner[2]], inner[3])
    if isinstance(test, n.Compare) and len(test.ops) == 1:
        name, other = test.ops[0]
        if name in ("==", "!=") and isinstance(other, n.Const) and type(other.value) in (str, int, bool) and \
                cheap_constant(other.value):
            kind, constant, test = (EQ if name == "==" else NE), other.value, test.first
        elif name in ("in", "not in") and isinstance(test.first, n.Const) and type(test.first.value) is str and \
                cheap_constant(test.first.value):
            kind, constant, test = (IN if name == "in" else NOT_IN), test.first.value, other
        elif name in _ORDER_KINDS and isinstance(other, n.Const) and type(other.value) is int and \
                cheap_constant(other.value):
            kind, constant, test = _ORDER_KINDS[name], other.value, test.first
        elif name in ("in", "not in") and constant_set(other) is not None:
            # `message.role in ['tool', 'tool_results']`: (the constants, their one type)
            kind, constant, test = (ONE_OF if name == "in" else NONE_OF), constant_set(other), test.first
        else:
            return None
    elif isinstance(test, n.Test) and test.args.empty and (test.name, test.negated) in _TYPE_TESTS and \
            c.tests.get(test.name) is _BUILTIN_TESTS.get(test.name):
        kind, test = _TYPE_TESTS[(test.name, test.negated)], test.value
    elif isinstance(test, n.Test) and test.args.empty and test.name in _CLASS_TESTS and \
            c.tests.get(test.name) is _BUILTIN_TESTS.get(test.name):
        kind, constant, test = (TYPE_IS_NOT if test.negated else TYPE_IS), _CLASS_TESTS[test.name], test.value
    place = read_place(c, test)
    return None if place is None else place + (kind, constant)


def holds(atom, f):
    """An atom's outcome: True or False, or None when its value is not plain data (the general path decides)."""
    slot, key, kind, constant = atom   # one tuple argument: a call with *atom costs twice as much
    obj = f[slot]
    if key is None:
        if obj is MISSING:
            return None
        value = obj
    elif type(obj) is not dict:
        value = _other_value(obj, key)
        if value is MISSING:
            return None
    elif key in obj:
        value = obj[key]
    elif key in DICT_NAMES:
        return None   # m['items'] of a dict without the key: its method (the general path)
    elif kind == DEFINED or kind == UNDEFINED:
        return kind == UNDEFINED   # a plain dict without the key: undefined
    elif (kind == TRUTHY or kind == FALSY) and f[0].undefined in PLAIN_UNDEFINED:
        return kind == FALSY   # undefined, and false
    else:
        return None
    if type(value) not in PLAIN_TYPES:
        return None
    if kind == TRUTHY:
        return True if value else False
    if kind == FALSY:
        return False if value else True
    if kind == NOT_NONE or kind == NONE:
        return (value is None) is (kind == NONE)
    if kind == EQ or kind == NE:
        if type(value) is not type(constant):
            return None
        return (value == constant) is (kind == EQ)
    if kind == IN or kind == NOT_IN:
        if not (type(value) is str and len(value) < BIG_STR or type(value) is dict):
            return None
        return (constant in value) is (kind == IN)
    if kind == DEFINED:
        return True
    if kind == UNDEFINED:
        return False
    if kind == TYPE_IS or kind == TYPE_IS_NOT:
        return (type(value) is constant) is (kind == TYPE_IS)
    if kind in ORDER:
        return ORDER[kind](value, constant) if type(value) is int else None
    # ONE_OF, NONE_OF: `message.role in ['tool', 'tool_results']`
    if type(value) is not constant[1]:
        return None
    return (value in constant[0]) is (kind == ONE_OF)


def _other_value(obj, key):
    """An atom's value when its variable holds something other than a plain dict: loop.first/last/index0/index
    of a loop over a list, a namespace's attribute (`ns.found`); MISSING for anything else (the general path)."""
    cls = type(obj)
    if cls is LoopContext and obj._length is not None and key in _LOOP_FLAGS:
        index0 = obj.index0
        return index0 == 0 if key == "first" else index0 == obj._length - 1 if key == "last" else \
            index0 if key == "index0" else index0 + 1
    if cls is ChatNamespace or cls is Namespace:
        return obj._attrs.get(key, MISSING)
    return MISSING


_LOOP_FLAGS = frozenset({"first", "last", "index0", "index"})


def atom_tester(atom):
    """test(f) → an atom's outcome (see holds): the commonest atoms (a loop flag, a key's truth) with a closure
    of their own, the others through holds."""
    slot, key, kind, constant = atom
    if key in ("first", "last") and kind in (TRUTHY, FALSY):
        first, want = key == "first", kind == TRUTHY

        def test_loop_flag(f):
            lc = f[slot]
            if type(lc) is LoopContext and lc._length is not None:
                return (lc.index0 == 0 if first else lc.index0 == lc._length - 1) is want
            return holds(atom, f)
        return test_loop_flag
    if key is not None and kind in (TRUTHY, FALSY):
        want = kind == TRUTHY

        def test_truth(f):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
                if type(value) in PLAIN_TYPES:
                    return (True if value else False) is want
            return holds(atom, f)
        return test_truth
    if key is not None:
        return _key_tester(atom) or partial(holds, atom)
    if kind in (EQ, NE):
        constant_type, want = type(constant), kind == EQ

        def test_variable_equal(f):   # `key != 'return'`
            value = f[slot]
            if type(value) is constant_type:
                return (value == constant) is want
            return holds(atom, f)
        return test_variable_equal
    if kind in (IN, NOT_IN):
        want = kind == IN

        def test_variable_contains(f):   # `'tool_calls' in message`
            value = f[slot]
            if type(value) is dict or type(value) is str and len(value) < BIG_STR:
                return (constant in value) is want
            return holds(atom, f)
        return test_variable_contains
    if kind in (TYPE_IS, TYPE_IS_NOT):
        want = kind == TYPE_IS

        def test_variable_type(f):   # `content is mapping`
            value_type = type(f[slot])
            if value_type in PLAIN_TYPES:
                return (value_type is constant) is want
            return holds(atom, f)
        return test_variable_type
    if kind in ORDER:
        compare = ORDER[kind]

        def test_variable_order(f):   # `idx > 1`
            value = f[slot]
            if type(value) is int:
                return compare(value, constant)
            return holds(atom, f)
        return test_variable_order
    return partial(holds, atom)


def _key_tester(atom):
    """atom_tester for the atoms of a key of a variable that are decided on a plain dict holding it (`m.tool_calls
    is defined`, `is not none`, `m.role == 'user'`, `m.content is string`, `m.role in ['a', 'b']`); None for
    another kind."""
    slot, key, kind, constant = atom
    if kind in (NONE, NOT_NONE):
        want = kind == NONE

        def test_none(f):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                return (obj[key] is None) is want   # `is none` is an identity: exact on any value
            return holds(atom, f)
        return test_none
    if kind in (DEFINED, UNDEFINED) and key not in DICT_NAMES:
        want = kind == DEFINED

        def test_defined(f):
            obj = f[slot]
            if type(obj) is dict:
                if key not in obj:
                    return not want   # a plain dict without the key (no method of that name): undefined
                if type(obj[key]) in PLAIN_TYPES:
                    return want
            return holds(atom, f)
        return test_defined
    if kind in (EQ, NE):
        constant_type, want = type(constant), kind == EQ

        def test_equal(f):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
                if type(value) is constant_type:
                    return (value == constant) is want
            return holds(atom, f)
        return test_equal
    if kind in (TYPE_IS, TYPE_IS_NOT):
        want = kind == TYPE_IS

        def test_type(f):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value_type = type(obj[key])
                if value_type in PLAIN_TYPES:
                    return (value_type is constant) is want
            return holds(atom, f)
        return test_type
    if kind in (ONE_OF, NONE_OF):
        (members, member_type), want = constant, kind == ONE_OF

        def test_member(f):   # `message.role in ['tool', 'tool_results']`
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
                if type(value) is member_type:
                    return (value in members) is want
            return holds(atom, f)
        return test_member
    return None


def and_or_parts(test):
    """The operands of a chain of one kind of and/or (`a and b and c`), in Jinja2's order of evaluation."""
    parts, stack = [], [test]
    while stack:
        current = stack.pop()
        if type(current) is type(test):
            stack.extend((current.right, current.left))
        else:
            parts.append(current)
    return parts


def inline_test(c, test):
    """A single if's test as (combine, atoms): combine "and"/"or"/None over one or more atoms; None when the test
    is not of that shape. `not (a or b)` is read as `not a and not b` when a and b are atoms that negate."""
    if isinstance(test, n.Not) and isinstance(test.operand, (n.And, n.Or)):
        inner = inline_test(c, test.operand)
        if inner is None or any(atom[2] not in NEGATION for atom in inner[1]):
            return None
        return ("or" if inner[0] == "and" else "and",
                tuple(atom[:2] + (NEGATION[atom[2]], atom[3]) for atom in inner[1]))
    if isinstance(test, (n.And, n.Or)):
        combine = "and" if isinstance(test, n.And) else "or"
        atoms = [atom_of(c, part) for part in and_or_parts(test)]
        return None if any(a is None for a in atoms) else (combine, tuple(atoms))
    atom = atom_of(c, test)
    return None if atom is None else (None, (atom,))
