"""And/or chains where an if, an elif, a conditional expression or a loop filter tests them (condition): each
operand's truth taken once, in order, up to the one that decides, as CPython's jumps do; an operand that is an
equality with a short constant (`m.role == 'user'`) compared in line, a key of a variable of this frame read for its
truth in line (chain_operand).
"""

from .operands import DICT_NAMES, in_line_place, cheap_constant
from ..core.errors import located
from ..core.state import MISSING
from ..runtime.objects import ChatNamespace
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["condition", "and_or_parts", "is_chain", "operand_condition", "chain_operand", "chain_truth", "chain_two",
           "equality_of", "attribute_of"]


def chain_operand(c, operand, ev, span):
    # (closure, span, slot, key, constant, equal) of an and/or operand for chain_truth, ev its closure: an equality
    # compared in line (equality_of); a key of a variable of this frame read for its truth (_key_truth); else ev.
    equality = equality_of(c, operand)
    if equality is not None:
        return (ev, span) + equality
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
    operands = tuple(operand + (type(operand[4]),) for operand in operands)

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
    constant_type, constant_type2 = type(constant), type(constant2)   # (no equality: slot None, never compared)

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
        else:
            value = part(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
        if chosen is not want:   # the first operand does not decide: the second's truth is the test's
            value = MISSING if slot2 is None else f[slot2]
            if key2 is not None:
                try:
                    value = value[key2] if type(value) is dict else MISSING
                except KeyError:
                    value = MISSING
            if type(value) is constant_type2:
                chosen = (value == constant2) is equal2
            else:
                value = part2(f)
                try:
                    chosen = True if value else False
                except Exception as exc:
                    raise located(exc, span2)
        if body is None:
            return chosen
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return two_operands


def attribute_of(node, key):
    # _if_operand's attr: the key of an attribute read (`ns.found`); None (no namespace's) for an item `ns['found']`
    return key if node.__class__ is n.Getattr else None


def equality_of(c, test):
    # (slot, key, constant, equal) of `x == 'user'`, `m.role != 'tool'` (a short scalar constant, the operand a
    # variable of this frame or a key of one: operands.operand), else None.
    if test.__class__ is not n.Compare or len(test.ops) != 1:
        return None
    (op, other), = test.ops
    if op not in ("==", "!=") or other.__class__ is not n.Const or not cheap_constant(other.value):
        return None
    slot, key = in_line_place(c, test.first)
    return None if slot is None else (slot, key, other.value, op == "==")
