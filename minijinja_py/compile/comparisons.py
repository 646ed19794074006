"""Comparisons: Jinja2's `a == b`, `x in y`, `a < b < c` → ev(f), each charged what comparing its operands costs
(budget.charge_compare, charge_contains) unless both are short scalars, and an operand that is a variable of the
frame or a short constant read in line; `{% if 'x' in y %}` decided in line (if_contains).
"""

import operator

from .operands import cheap_constant, constant_literal, in_line_place, local_slot, operand
from ..core.budget import charge_compare, charge_contains, member
from ..core.errors import located
from ..core.state import BIG_STR, MISSING, out_of_fuel
from ..runtime.sandbox import undefined_on_str
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["COMPARE", "e_compare", "if_contains"]

COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": member, "not in": lambda a, b: not member(a, b),
}
_COMPARE_COST = dict.fromkeys(COMPARE, charge_compare)
_CHEAP = 0xFFFFFFFFFFFFFFFF   # (operands.cheap_constant's bound)
_COMPARE_COST["in"] = _COMPARE_COST["not in"] = charge_contains


def _equality(slot, key, first, constant, equal, span):
    # `x == 'user'`, `m.role != 'tool'` (a short scalar constant): Python's == in line, the operand read in line
    # where it is a variable of this frame or a key of one (operands.operand); a str's key that is no str attribute
    # (`c['type']` of a str content's character) is undefined, equal to no constant where the undefined class
    # compares as Jinja2's default one. (An `==` a caller's object defines may fail: located here.)
    if key is not None:
        def ev_key_equal(f, constant=constant, equal=equal, first=first, key=key, slot=slot, span=span,
                         str_undefined=type(key) is str and undefined_on_str(key)):
            obj = f[slot]
            a = obj.get(key, MISSING) if type(obj) is dict else MISSING
            if a is MISSING:
                if str_undefined and type(obj) is str and f[0].undefined in PLAIN_UNDEFINED:
                    return not equal
                a = first(f)
            try:
                return a == constant if equal else a != constant
            except Exception as exc:
                raise located(exc, span)
        return ev_key_equal
    if slot is not None:
        def ev_var_equal(f, constant=constant, equal=equal, first=first, slot=slot, span=span):
            a = f[slot]
            if a is MISSING:
                a = first(f)
            try:
                return a == constant if equal else a != constant
            except Exception as exc:
                raise located(exc, span)
        return ev_var_equal

    def ev_equal(f, constant=constant, equal=equal, first=first, span=span):
        a = first(f)
        try:
            return a == constant if equal else a != constant
        except Exception as exc:
            raise located(exc, span)
    return ev_equal


def _contains(c, node, first, right, want, span):
    # `x in y`, `x not in y`: a string in a short string or a dict decided in line (Python's `in`, nothing to
    # charge: budget.charge_contains), a constant or literal list on either side taken as it is and the right side
    # read in line where it is a variable of this frame or a key of one (operands.operand); anything else charged
    # and tested by budget.charge_contains and member.
    other = node.ops[0][1]
    members = _literal_members(c, other)   # `x in ['tool', 'ipython']`: the constants, not a new list each time
    literal = node.first.value if isinstance(node.first, n.Const) and type(node.first.value) is str else MISSING
    slot, key = in_line_place(c, other) if members is MISSING else (None, None)

    def ev1_contains(f, first=first, key=key, literal=literal, members=members, right=right, slot=slot, span=span,
            want=want):
        a = first(f) if literal is MISSING else literal
        if members is not MISSING:
            b = members
        elif slot is None:
            b = right(f)
        else:
            b = f[slot] if key is None else f[slot][key] if type(f[slot]) is dict and key in f[slot] else MISSING
            if b is MISSING:
                b = right(f)
        if type(a) is str:
            if type(b) is str and len(b) <= BIG_STR or type(b) is dict and len(a) <= BIG_STR:
                return (a in b) is want
            if type(b) is tuple or type(b) is list:   # `key not in ['type', 'name']`: charge_contains's scan
                rs = f[0]
                rs.fuel -= len(b)
                if rs.fuel < 0:
                    raise located(out_of_fuel(rs.limits), span)
                return (a in b) is want
        try:
            charge_contains(f[0], a, b)   # (a container on the right: cheap_constant could not spare it)
            return member(a, b) is want
        except Exception as exc:
            raise located(exc, span)
    return ev1_contains


def if_contains(c, node, test, body, else_):
    # run(f, out) of {% if '</think>' in content %} (a string constant in, or not in, a variable of this frame or a
    # key of one), or None for another test: a plain string up to BIG_STR read in line and searched here (what
    # _contains does with it, charging nothing), the test's closure deciding for anything else.
    (name, other), = node.ops
    literal = node.first.value if node.first.__class__ is n.Const else None
    slot, key = in_line_place(c, other) if type(literal) is str and name in ("in", "not in") else (None, None)
    if slot is None:
        return None

    def run_contains(f, out, body=body, else_=else_, key=key, literal=literal, slot=slot, test=test,
            want=name == "in"):
        text = f[slot]
        if key is not None:
            text = text.get(key, MISSING) if type(text) is dict else MISSING
        if type(text) is str and len(text) <= BIG_STR:
            chosen = (literal in text) is want
        else:
            chosen = test(f)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_contains


def _literal_members(c, node):
    # The constants of a list or tuple literal of constants, as a tuple (what `in` compares with, in order, as
    # it would the list's); MISSING for any other node.
    if not isinstance(node, (n.ListExpr, n.TupleExpr)):
        return MISSING
    values = tuple(constant_literal(c, x) for x in node.items)
    return MISSING if MISSING in values else values


def _compiled_ops(c, node):
    # (apart from e_compare: its generator would make a cell for c on every call of e_compare)
    return tuple((COMPARE[name], _COMPARE_COST[name], c.expr(x)) for name, x in node.ops)


def e_compare(c, node, first=None):
    span = node.span
    if first is None and len(node.ops) == 1 and node.ops[0][0] in ("==", "!=") and \
            isinstance(node.ops[0][1], n.Const) and cheap_constant(node.ops[0][1].value):
        # x == 'user', m.role != 'tool': comparing anything with a short scalar takes constant time
        return _equality(*operand(c, node.first), node.ops[0][1].value, node.ops[0][0] == "==", span)
    first = first or c.expr(node.first)
    if len(node.ops) == 1:
        (name, other), = node.ops
        op = COMPARE[name]
        if isinstance(other, n.Const) and cheap_constant(other.value) and name not in ("in", "not in"):
            # loop.index0 > 1: comparing anything with a short scalar takes constant time
            constant = other.value
            slot = local_slot(c, node.first)
            if slot is not None:
                def ev_var_const(f, constant=constant, first=first, op=op, slot=slot, span=span):
                    a = f[slot]
                    if a is MISSING:
                        a = first(f)
                    try:
                        return op(a, constant)
                    except Exception as exc:
                        raise located(exc, span)
                return ev_var_const

            def ev_const(f, constant=constant, first=first, op=op, span=span):
                a = first(f)
                try:
                    return op(a, constant)
                except Exception as exc:
                    raise located(exc, span)
            return ev_const
        cost = _COMPARE_COST[name]
        right = c.expr(other) if name not in ("in", "not in") or _literal_members(c, other) is MISSING else None
        if name not in ("in", "not in"):
            def ev1_order(f, cost=cost, first=first, op=op, right=right, span=span):
                a = first(f)
                b = right(f)
                try:
                    # two strings, one of them short: == and < stop within it (what charge_compare finds); two
                    # small ints (`loop.index0 > ns.last`): cheap_constant's test of them in line
                    ta, tb = type(a), type(b)
                    if not (ta is str and tb is str and (len(a) < 1024 or len(b) < 1024) or
                            ta is int and tb is int and -_CHEAP <= a <= _CHEAP and -_CHEAP <= b <= _CHEAP or
                            cheap_constant(a) and cheap_constant(b)):
                        cost(f[0], a, b)
                    return op(a, b)
                except Exception as exc:
                    raise located(exc, span)
            return ev1_order

        return _contains(c, node, first, right, name == "in", span)
    ops = _compiled_ops(c, node)

    def ev(f, first=first, ops=ops, span=span):
        a = first(f)
        for op, cost, right in ops:
            b = right(f)
            try:
                if not (cheap_constant(a) and cheap_constant(b)):
                    cost(f[0], a, b)
                if not op(a, b):
                    return False
            except Exception as exc:
                raise located(exc, span)
            a = b
        return True
    return ev
