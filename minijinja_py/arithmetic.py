"""Arithmetic: Jinja2's binary operators with their sizes checked and their work charged before it is done, and
the `+` chains prompts are built with (a dozen strings added in turn) gathered and joined once."""

import operator

from . import nodes as n
from .base import BIG_STR, CHAR_SHIFT, MISSING, check_items, check_str_size, limit_exceeded
from .budget import charge_int_op, guard
from .errors import located
from .formatting import percent_format

__all__ = ["checked_add", "CHECKED", "PLAIN", "sum_operands", "sum_chain", "joined_text"]

def checked_add(rs, a, b):
    limits = rs.limits
    if isinstance(a, str) and isinstance(b, str):
        size = len(a) + len(b)
        check_str_size(limits, size)
        rs.burn(size >> CHAR_SHIFT)
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        size = len(a) + len(b)
        check_items(limits, size)
        rs.burn(size)
    elif type(a) is int and type(b) is int and (a.bit_length() > 64 or b.bit_length() > 64):
        if max(a.bit_length(), b.bit_length()) > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", "an integer sum")
        rs.burn(max(a.bit_length(), b.bit_length()) >> 6)
    elif isinstance(a, _SET_LIKE) or isinstance(b, _SET_LIKE):
        _charge_set_operation(rs, a, b)
    return a + b


def _checked_sub(rs, a, b):
    if isinstance(a, _SET_LIKE) or isinstance(b, _SET_LIKE):
        _charge_set_operation(rs, a, b)
    return a - b


def _checked_mul(rs, a, b):
    limits = rs.limits
    for seq, count in ((a, b), (b, a)):
        if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
            size = len(seq) * count
            if isinstance(seq, str):
                check_str_size(limits, size)
                rs.burn(max(size, 0) >> CHAR_SHIFT)
            else:
                check_items(limits, size)
                rs.burn(max(size, 0))
            return a * b
    if isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", "an integer product")
        charge_int_op(rs, a, b)
    return a * b


def _checked_pow(rs, a, b):
    limits = rs.limits
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        if (a.bit_length() - 1) * b > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", f"the integer {a} ** {b}")
        rs.burn((a.bit_length() * b) >> 6)
    return a ** b


def _checked_mod(rs, a, b):
    if isinstance(a, str):
        return percent_format(rs.limits, a, b)
    if type(a) is int and type(b) is int:
        charge_int_op(rs, a, b)
    return a % b


def _checked_floordiv(rs, a, b):
    if type(a) is int and type(b) is int:
        charge_int_op(rs, a, b)
    return a // b


def _checked_truediv(rs, a, b):
    if type(a) is int and type(b) is int:
        charge_int_op(rs, a, b)
    return a / b


_SET_LIKE = (set, frozenset, type({}.keys()), type({}.items()))


def _charge_set_operation(rs, a, b):
    """keys() - [x], a set | a list...: every item of both sides is hashed (and compared on a collision)."""
    for side in (a, b):
        if hasattr(side, "__len__"):
            rs.burn(len(side))
        if isinstance(side, (list, tuple, set, frozenset)):
            guard(rs, side)


CHECKED = {"+": checked_add, "-": _checked_sub, "*": _checked_mul, "**": _checked_pow, "%": _checked_mod,
            "//": _checked_floordiv, "/": _checked_truediv}
PLAIN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "**": operator.pow, "%": operator.mod,
          "//": operator.floordiv, "/": operator.truediv}


def sum_operands(node):
    """The operands of a + b + c ... in order, and the span of each `+` (the chain is left-deep)."""
    operands, spans = [], []
    while isinstance(node, n.BinOp) and node.op == "+":
        operands.append(node.right)
        spans.append(node.span)
        node = node.left
    operands.append(node)
    operands.reverse()
    spans.reverse()
    return operands, spans


def sum_chain(operands, places, evs, spans):
    """a + b + c ... (left-associative) as one closure that adds the operands in Jinja2's order, each step with
    its own location: prompts are built this way, often a dozen strings long. While every operand is a plain
    string they are gathered and joined once (the same text as adding them in turn); the first that is not one
    is added, as are the rest, step by step from the text so far."""
    # how each operand is fetched without a call where it can be: a constant's value; a variable of this frame,
    # or a chain of constant keys from one (places[i] = (slot, keys), see places.key_path), read in line
    # while every step is a plain dict that has the key; else (or when it is not) its closure
    steps = tuple((index, _CONSTANT, x.value, ev, span) if isinstance(x, n.Const) else
                  (index, _PATH, place, ev, span) if place is not None else
                  (index, _CLOSURE, None, ev, span)
                  for index, (x, place, ev, span) in enumerate(zip(operands, places, evs, (None,) + tuple(spans))))

    def add_from(f, total, start):
        for _, kind, payload, operand_ev, span in steps[start:]:
            b = _operand(f, kind, payload, operand_ev)
            try:
                total = checked_add(f[0], total, b)
            except Exception as exc:
                raise located(exc, span)
        return total

    # the text's pieces with the string constants in place: each run fills in the rest, in order
    template = [payload if kind is _CONSTANT and type(payload) is str else None
                for _, kind, payload, _, _ in steps]
    # (a variable of the frame, `bos_token`: its slot read first, without a path's loop)
    filled = tuple((index, _VARIABLE, payload[0], operand_ev, span) if kind is _PATH and not payload[1] else
                   (index, kind, payload, operand_ev, span)
                   for (index, kind, payload, operand_ev, span), piece in zip(steps, template) if piece is None)
    constants_size = sum(len(piece) for piece in template if piece is not None)

    def ev(f):
        values, size = template[:], constants_size
        for index, kind, payload, operand_ev, span in filled:
            if kind is _VARIABLE:
                b = f[payload]
                if b is MISSING:
                    b = operand_ev(f)
            elif kind is _PATH:
                slot, keys = payload
                b = f[slot]
                for key in keys:
                    if type(key) is str:
                        if type(b) is not dict or key not in b:
                            b = MISSING
                            break
                        b = b[key]
                    else:   # a loop variable's slot: its int indexes a list
                        index0 = f[key]
                        if type(b) is not list or type(index0) is not int or not -len(b) <= index0 < len(b):
                            b = MISSING
                            break
                        b = b[index0]
                if b is MISSING:
                    b = operand_ev(f)
            elif kind is _CONSTANT:
                b = payload
            else:
                b = operand_ev(f)
            if type(b) is str:
                values[index] = b
                size += len(b)
                continue
            if index == 0:
                return add_from(f, b, 1)
            before = values[:index]
            total = joined_text(f[0], before, sum(map(len, before)))
            try:
                total = checked_add(f[0], total, b)
            except Exception as exc:
                raise located(exc, span)
            return add_from(f, total, index + 1)
        return "".join(values) if size < BIG_STR else joined_text(f[0], values, size)
    return ev


_CONSTANT, _PATH, _VARIABLE, _CLOSURE = "constant", "path", "variable", "closure"


def _operand(f, kind, payload, ev):
    if kind is _CONSTANT:
        return payload
    if kind is _PATH and not payload[1]:
        value = f[payload[0]]
        return value if value is not MISSING else ev(f)
    return ev(f)


def joined_text(rs, values, size):
    """"".join(values) of plain strings (size: their length), sized (and paid for) first when it is long."""
    if size >= BIG_STR:
        check_str_size(rs.limits, size)
        rs.burn(size >> CHAR_SHIFT)
    return "".join(values)
