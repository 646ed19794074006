"""Atoms: the tests an if decides in line on one read (ir.Atom) — its truth, `== 'x'`, `'x' in`, `is defined`,
`is none`, `is string`, `in ['a', 'b']`, `> 1` — and the deciders a switch's extras are tested by (branches.py)."""

# decide() is the one definition of what an atom's outcome is on the value its read gave: True or False where the
# value is plain data (reads.py) or a missing key (undefined), None where the general path must decide. A decider
# keeps its test's general closure: an atom that gives None is decided by the truth of its value (truth(): reading
# again is exact, the read in line ran nothing), so a test never runs twice nor falls back past a test that ran code.
# (The if kernels once built on them (if_tests) went: the general closures of conditionals.py cost no more.)

import operator
from functools import partial

from .ir import Test
from .reads import ABSENT, BIG_STR, MISSING, PLAIN, attribute, spec
from ..core.errors import located
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["TRUTHY", "FALSY", "EQ", "NE", "DEFINED", "UNDEFINED", "NONE", "NOT_NONE", "IN", "NOT_IN", "TYPE_IS",
           "TYPE_IS_NOT", "ONE_OF", "NONE_OF", "LT", "LE", "GT", "GE", "ORDER", "NEGATION", "decide", "truth",
           "decider"]

TRUTHY, FALSY, EQ, NE, DEFINED, UNDEFINED, NONE, NOT_NONE, IN, NOT_IN, TYPE_IS, TYPE_IS_NOT, ONE_OF, \
    NONE_OF, LT, LE, GT, GE = range(18)
# `idx > 1`: an int against an int constant (for ints, not < is >=: the negations are exact)
ORDER = {LT: operator.lt, LE: operator.le, GT: operator.gt, GE: operator.ge}
NEGATION = {TRUTHY: FALSY, FALSY: TRUTHY, EQ: NE, NE: EQ, DEFINED: UNDEFINED, UNDEFINED: DEFINED,
            NONE: NOT_NONE, NOT_NONE: NONE, IN: NOT_IN, NOT_IN: IN, TYPE_IS: TYPE_IS_NOT,
            TYPE_IS_NOT: TYPE_IS, ONE_OF: NONE_OF, NONE_OF: ONE_OF, LT: GE, GE: LT, LE: GT, GT: LE}
# what an undefined (a missing key) gives, where the undefined class compares and tests as Jinja2's default one
_ON_UNDEFINED = {DEFINED: False, UNDEFINED: True, TRUTHY: False, FALSY: True, EQ: False, NE: True, NONE: False,
                 NOT_NONE: True}


def decide(kind, constant, value, rs):
    # An atom's outcome on the value its read gave (MISSING: not plain; ABSENT: undefined): True, False, or None
    # where the general path decides.
    if value is ABSENT:
        if kind == DEFINED or kind == UNDEFINED or rs.undefined in PLAIN_UNDEFINED:
            return _ON_UNDEFINED.get(kind)
        return None
    if value is MISSING:
        return None
    if kind == NONE or kind == NOT_NONE:
        return (value is None) is (kind == NONE)   # an identity: exact on any value
    cls = type(value)
    if cls not in PLAIN:
        return None
    if kind == TRUTHY or kind == FALSY:
        return (True if value else False) is (kind == TRUTHY)
    if kind == EQ or kind == NE:
        return (value == constant) is (kind == EQ) if cls is type(constant) else None
    if kind == IN or kind == NOT_IN:
        if cls is dict or cls is str and len(value) < BIG_STR:
            return (constant in value) is (kind == IN)
        return None
    if kind == DEFINED or kind == UNDEFINED:
        return kind == DEFINED
    if kind == TYPE_IS or kind == TYPE_IS_NOT:
        return (cls is constant) is (kind == TYPE_IS)
    if kind in ORDER:
        return ORDER[kind](value, constant) if cls is int else None
    members, member_type = constant   # ONE_OF, NONE_OF: `role in ['tool', 'tool_results']`
    return (value in members) is (kind == ONE_OF) if cls is member_type else None


def truth(f, ev, span):
    # The truth of a test's general value (ev(f)), a failure located at span: what decides where an atom cannot
    # (reading again is exact: the atom's read in line ran nothing).
    value = ev(f)
    try:
        return True if value else False
    except Exception as exc:   # a truth test can fail (StrictUndefined)
        raise located(exc, span)


def decider(part, value):
    # f → bool (or None) of one part of a test: an Atom read and decided in line, a Test (an and/or of parts)
    # decided part by part in Jinja2's order up to the part that decides, or anything else (None) by the truth of
    # its value. value is the part's general (closure, span): where an atom cannot decide (decide() gives None), its
    # truth decides; a part of a Test of atoms only has none, and gives None then (its Test is decided whole).
    ev, span = value if value is not None else (None, None)
    if part is None:
        return partial(truth, ev=ev, span=span)
    if type(part) is Test:
        parts = tuple(decider(sub, sub_value) for sub, sub_value in part.parts)
        return _any_of(parts, part.want, ev, span)
    slot, key, _, read_path = spec(part.read, variables=True)
    kind, constant = part.kind, part.constant
    if kind == EQ or kind == NE:
        want, constant_type = kind == EQ, type(constant)

        def decide_compare(f):
            if read_path is None:
                value = f[slot]
                if key is not None:
                    value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
            else:
                value = read_path(f)
            if type(value) is constant_type:
                return want if value == constant else not want
            outcome = decide(kind, constant, value, f[0])
            return outcome if outcome is not None or ev is None else truth(f, ev, span)
        return decide_compare
    family, want = _FAMILY.get(kind), kind in (TRUTHY, DEFINED, TYPE_IS, NONE, IN, ONE_OF)

    def decide_atom(f, constant=constant, ev=ev, family=family, key=key, kind=kind, read_path=read_path, slot=slot,
            span=span, want=want):
        if read_path is None:
            value = f[slot]
            if key is not None:
                value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        else:
            value = read_path(f)
        if type(value) in PLAIN:   # the commonest kinds, on plain data: as decide() decides them
            if family is TRUTHY:
                return want if value else not want
            if family is DEFINED:
                return want
            if family is TYPE_IS:
                return want if type(value) is constant else not want
            if family is NONE:
                return want if value is None else not want
            if family is IN and (type(value) is dict or type(value) is str and len(value) < BIG_STR):
                return want if constant in value else not want   # `'tool_calls' in m`
            if family is ONE_OF and type(value) is constant[1]:
                return want if value in constant[0] else not want   # `m.role in ['user', 'system']`
        elif value is ABSENT and (family is TRUTHY or family is DEFINED or family is NONE) and \
                f[0].undefined in PLAIN_UNDEFINED:
            return not want   # a missing key: undefined, false, not defined, not none
        outcome = decide(kind, constant, value, f[0])
        return outcome if outcome is not None or ev is None else truth(f, ev, span)
    return decide_atom


# the kinds decider() decides in line on plain data, by family (the first kind of each: the one wanted true)
_FAMILY = {TRUTHY: TRUTHY, FALSY: TRUTHY, DEFINED: DEFINED, UNDEFINED: DEFINED, TYPE_IS: TYPE_IS,
           TYPE_IS_NOT: TYPE_IS, NONE: NONE, NOT_NONE: NONE, IN: IN, NOT_IN: IN, ONE_OF: ONE_OF, NONE_OF: ONE_OF}


def _any_of(parts, want, ev, span):
    # f → the and (want False) or or (want True) of parts (deciders), in order up to the part that decides;
    # where one gives None, the truth of the whole (ev), or None when there is none.
    if len(parts) == 1 and ev is None:
        return parts[0]
    if len(parts) == 2:
        first, second = parts

        def decide_two(f, ev=ev, first=first, second=second, span=span, want=want):
            outcome = first(f)
            if outcome is not want:
                outcome = second(f) if outcome is not None else None
            if outcome is None:
                return truth(f, ev, span) if ev is not None else None
            return outcome
        return decide_two

    def decide_parts(f, ev=ev, parts=parts, span=span, want=want):
        for part in parts:
            outcome = part(f)
            if outcome is None:
                return truth(f, ev, span) if ev is not None else None
            if outcome is want:
                return want
        return not want
    return decide_parts
