"""Comparisons and the and/or chains conditions are made of. Jinja2's `a == b`, `x in y`, `a < b < c` → ev(f),
each charged what comparing its operands costs (budget.charge_compare, charge_contains) unless both are short
scalars, and an operand that is a variable of the frame or a short constant read in line; `{% if 'x' in y %}`
decided in line (if_contains). And/or chains where an if, an elif, a conditional expression or a loop filter tests
them (condition): each operand's truth taken once, in order, up to the one that decides, as CPython's jumps do; an
operand that is an equality with a short constant (`m.role == 'user'`) compared in line, as a comparison is, a key
of a variable of this frame read for its truth in line (chain_operand).
"""

import operator

from .context import DICT_NAMES, cheap_constant, constant_literal, in_line_place, local_slot, operand, type_answers
from ..builtins.tests import TYPE_TESTS
from ..core.budget import charge_compare, charge_contains, member
from ..core.errors import located
from ..core.state import BIG_STR, MISSING, out_of_fuel
from ..runtime.objects import ChatNamespace
from ..runtime.sandbox import undefined_on_str
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["COMPARE", "e_compare", "if_contains", "condition", "and_or_parts", "is_chain", "operand_condition",
           "chain_operand", "chain_truth", "chain_two", "equality_of", "attribute_of", "truth_at"]


# ------------------------------------------------------------------------------------------------ comparisons
COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": member, "not in": lambda a, b: not member(a, b),
}
_COMPARE_COST = dict.fromkeys(COMPARE, charge_compare)
_CHEAP = 0xFFFFFFFFFFFFFFFF   # (context.cheap_constant's bound)
_COMPARE_COST["in"] = _COMPARE_COST["not in"] = charge_contains


def _equality(slot, key, first, constant, equal, span):
    # `x == 'user'`, `m.role != 'tool'` (a short scalar constant): Python's == in line, the operand read in line
    # where it is a variable of this frame or a key of one (context.operand); a str's key that is no str attribute
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
    # read in line where it is a variable of this frame or a key of one (context.operand); anything else charged
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


# ---------------------------------------------------------------------------------------------- and/or chains
def chain_operand(c, operand, ev, span):
    # (closure, span, slot, key, constant, equal) of an and/or operand for chain_truth, ev its closure: an equality
    # compared in line (equality_of); a type test of a variable of this frame or a key of one (calls.type_test)
    # answered in line for a plain value (constant: context.type_answers, equal None); a key of a variable of this
    # frame read for its truth (_key_truth); else ev.
    equality = equality_of(c, operand)
    if equality is not None:
        return (ev, span) + equality
    if operand.__class__ is n.Test and operand.args.empty and c.tests.get(operand.name) in TYPE_TESTS:
        slot, key = in_line_place(c, operand.value)
        answers = type_answers(c.tests[operand.name], operand.negated) if slot is not None else None
        if answers:   # `m.content is not none`: a plain value's answer by its class (equal None marks a type test)
            return ev, span, slot, key, answers, None
    slot, key = in_line_place(c, operand)
    if key is not None and key not in DICT_NAMES and operand.obj.name != "loop":   # (obj: a Name, as key is set)
        ev = _key_truth(slot, key, ev, attribute_of(operand, key))   # (not `loop.first`: its closure reads it)
    return ev, span, None, None, None, True


def _key_truth(slot, key, ev, attr):
    # An and/or operand `m.tool_calls` read for its truth: a plain dict's key in line, or False where it lacks it (the
    # plain undefineds' truth, none made); a namespace's attribute as conditionals._if_operand reads it; else ev.
    def key_truth(f, attr=attr, ev=ev, key=key, slot=slot):
        obj = f[slot]
        if type(obj) is dict:
            value = obj.get(key, MISSING)
            if value is MISSING and f[0].undefined in PLAIN_UNDEFINED:
                return False
        else:
            value = obj._attrs.get(attr, MISSING) if type(obj) is ChatNamespace else MISSING
        return ev(f) if value is MISSING else value
    return key_truth


def and_or_parts(test):
    # The operands of a chain of one kind of and/or (`a and b and c`), in Jinja2's order of evaluation.
    parts, stack = [], [test]
    while stack:
        current = stack.pop()
        if type(current) is type(test):
            stack.extend((current.right, current.left))
        else:
            parts.append(current)
    return parts


def condition(c, node):
    # f → bool: node's truth where Jinja2's Python tests it (an if or elif, a conditional expression's test, a
    # loop filter). CPython compiles `and`, `or` and `not` there into jumps: each operand's truth is taken once, in
    # order, up to the one that decides (as a value, `a or b` takes a's truth to choose it, and the test takes it
    # again), and `not (a or b)` is the negated chain, not the truth of a value.
    if isinstance(node, (n.And, n.Or)):
        return _chain_of(c, node)
    if isinstance(node, n.Not) and is_chain(node.operand):
        inner = condition(c, node.operand)
        return lambda f, inner=inner: not inner(f)
    if isinstance(node, (n.Not, n.Test)) or node.__class__ is n.Compare and len(node.ops) == 1 and \
            node.ops[0][0] in ("in", "not in"):
        return c.expr(node)   # already a bool (`not x`: not the truth of x; `in` makes a bool of any answer)
    ev, span = c.expr(node), node.span

    def test(f, ev=ev, span=span):
        try:
            return True if ev(f) else False
        except Exception as exc:   # a truth test can fail (StrictUndefined)
            raise located(exc, span)
    return test


def is_chain(node):
    # Is node an and/or, or a `not` of one at any depth (what condition() compiles into its own jumps)?
    while node.__class__ is n.Not:
        node = node.operand
    return node.__class__ is n.And or node.__class__ is n.Or


def operand_condition(c, operand):
    # The closure of an operand of an and/or chain whose truth the chain takes: its own condition where it is a
    # chain itself (the jumps go on inside it), else its value's.
    return condition(c, operand) if is_chain(operand) else c.expr(operand)


def _chain_of(c, chain):
    # condition() of an and/or: chain_truth's, or where no operand is read in line (chain_operand), the plain
    # loop over the operands' truths (lighter to keep).
    operands, want = and_or_parts(chain), isinstance(chain, n.Or)
    parts = tuple(chain_operand(c, operand, operand_condition(c, operand), operand.span) for operand in operands)
    if any(part[2] is not None for part in parts) or len(operands) == 2:
        return chain_truth(parts, want)
    parts = tuple(part[:2] for part in parts)

    def truths(f, parts=parts, want=want):
        for part, span in parts:
            value = part(f)
            try:
                if (True if value else False) is want:
                    return want
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
        return not want
    return truths


def chain_truth(operands, want):
    # f → bool of the and (want False) or the or (want True) of the operands ((closure, span, slot, key,
    # constant, equal), ...): an operand that is an equality (equality_of: slot not None) read again and compared
    # in line as _if_equal does, the others through their closures.
    if len(operands) == 2:
        return chain_two(*operands, want)
    operands = tuple(operand + (None if operand[5] is None else type(operand[4]),) for operand in operands)

    def chain(f, operands=operands, want=want):
        for part, span, slot, key, constant, equal, constant_type in operands:
            if slot is not None:
                value = f[slot]
                if key is not None:
                    value = value[key] if type(value) is dict and key in value else MISSING
                if type(value) is constant_type:
                    if ((value == constant) is equal) is want:
                        return want
                    continue
                if equal is None and type(value) in constant:   # a type test's answer for a plain value
                    if constant[type(value)] is want:
                        return want
                    continue
            value = part(f)
            try:
                if (True if value else False) is want:
                    return want
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
        return not want
    return chain


def chain_two(first, second, want, body=None, else_=None):
    # chain_truth of two operands (`a and b`, `m.role == 'user' or x`: the commonest chain), written out: the
    # same reads, comparisons and truths in the same order, without the loop over operands. With a body, the run(f,
    # out) of an if of that test ({% if m.role == 'user' and m.content %}): the decision made in the if itself, one
    # closure less per run.
    part, span, slot, key, constant, equal = first
    part2, span2, slot2, key2, constant2, equal2 = second
    # (no equality: slot None, never compared; a type test: None, no value's type, its answers looked up instead)
    constant_type = None if equal is None else type(constant)
    constant_type2 = None if equal2 is None else type(constant2)

    def two_operands(f, out=None, body=body, constant=constant, constant2=constant2, constant_type=constant_type,
            constant_type2=constant_type2, else_=else_, equal=equal, equal2=equal2, key=key, key2=key2, part=part,
            part2=part2, slot=slot, slot2=slot2, span=span, span2=span2, want=want):
        value = MISSING if slot is None else f[slot]
        if key is not None:
            try:   # (an equality's key is there: a subscript, cheaper than `in` and a subscript)
                value = value[key] if type(value) is dict else MISSING
            except KeyError:
                value = MISSING
        if type(value) is constant_type:
            chosen = (value == constant) is equal
        elif equal is None and type(value) in constant:
            chosen = constant[type(value)]
        else:
            chosen = truth_at(part(f), span)
        if chosen is not want:   # the first operand does not decide: the second's truth is the test's
            value = MISSING if slot2 is None else f[slot2]
            if key2 is not None:
                try:
                    value = value[key2] if type(value) is dict else MISSING
                except KeyError:
                    value = MISSING
            if type(value) is constant_type2:
                chosen = (value == constant2) is equal2
            elif equal2 is None and type(value) in constant2:
                chosen = constant2[type(value)]
            else:
                chosen = truth_at(part2(f), span2)
        if body is None:
            return chosen
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return two_operands


def truth_at(value, span):
    # The truth of a test's value, a failure located at the test (a truth test can fail: StrictUndefined).
    try:
        return True if value else False
    except Exception as exc:
        raise located(exc, span)


def attribute_of(node, key):
    # _if_operand's attr: the key of an attribute read (`ns.found`); None (no namespace's) for an item `ns['found']`
    return key if node.__class__ is n.Getattr else None


def equality_of(c, test):
    # (slot, key, constant, equal) of `x == 'user'`, `m.role != 'tool'` (a short scalar constant, the operand a
    # variable of this frame or a key of one: context.operand), else None.
    if test.__class__ is not n.Compare or len(test.ops) != 1:
        return None
    (op, other), = test.ops
    if op not in ("==", "!=") or other.__class__ is not n.Const or not cheap_constant(other.value):
        return None
    slot, key = in_line_place(c, test.first)
    return None if slot is None else (slot, key, other.value, op == "==")
