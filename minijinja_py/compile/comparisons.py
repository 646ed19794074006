"""Comparisons: `a == b`, `x in y`, `a < b < c` → ev(f), each charged what comparing its operands costs
(budget.charge_compare, charge_contains) unless both are short scalars, and an operand that is a variable of
the frame or a short constant read in line."""

import operator

from .places import cheap_constant, local_slot
from ..core.budget import charge_compare, charge_contains, member
from ..core.errors import located
from ..core.state import MISSING
from ..syntax import nodes as n

__all__ = ["COMPARE", "e_compare"]

COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": member, "not in": lambda a, b: not member(a, b),
}
_COMPARE_COST = {op: charge_compare for op in COMPARE}
_COMPARE_COST["in"] = _COMPARE_COST["not in"] = lambda rs, a, b: charge_contains(rs, a, b)


def e_compare(c, node, first=None):
    first = first or c.expr(node.first)
    span = node.span
    if len(node.ops) == 1:
        (name, other), = node.ops
        op = COMPARE[name]
        if isinstance(other, n.Const) and cheap_constant(other.value) and name not in ("in", "not in"):
            # x == 'user', loop.index0 > 1: comparing anything with a short scalar takes constant time
            constant = other.value
            slot = local_slot(c, node.first)
            if slot is not None:
                def ev_var_const(f):
                    a = f[slot]
                    if a is MISSING:
                        a = first(f)
                    try:
                        return op(a, constant)
                    except Exception as exc:
                        raise located(exc, span)
                return ev_var_const

            def ev_const(f):
                a = first(f)
                try:
                    return op(a, constant)
                except Exception as exc:
                    raise located(exc, span)
            return ev_const
        right, cost = c.expr(other), _COMPARE_COST[name]
        if name not in ("in", "not in"):
            def ev1_order(f):
                a = first(f)
                b = right(f)
                try:
                    # two strings, one of them short: == and < stop within it (what charge_compare finds)
                    if not (type(a) is str and type(b) is str and (len(a) < 1024 or len(b) < 1024) or
                            cheap_constant(a) and cheap_constant(b)):
                        cost(f[0], a, b)
                    return op(a, b)
                except Exception as exc:
                    raise located(exc, span)
            return ev1_order

        def ev1_contains(f):
            a = first(f)
            b = right(f)
            try:
                cost(f[0], a, b)   # (a container on the right: cheap_constant could not spare it)
                return op(a, b)
            except Exception as exc:
                raise located(exc, span)
        return ev1_contains
    ops = tuple((COMPARE[name], _COMPARE_COST[name], c.expr(x)) for name, x in node.ops)

    def ev(f):
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
