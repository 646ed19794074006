"""Binary operators: Jinja2's `+ - * / // % **` → ev(f), their sizes checked and their work charged before it is
done."""

# The `+` chains prompts are built with (a dozen strings added in turn) are gathered and joined once; comparisons are
# comparisons.py's.

import operator

from .context import constant_reader, key_path, path_reader, place
from ..core.budget import charge_int_op, guard, stored_len
from ..core.errors import located
from ..core.state import BIG_STR, CHAR_SHIFT, MISSING, check_items, check_str_size, limit_exceeded
from ..runtime.methods import percent_format
from ..runtime.markup import Markup, escaped_text, new_markup
from ..syntax import nodes as n

__all__ = ["e_binop", "checked_add", "CHECKED", "PLAIN", "sum_items", "sum_chain", "joined_text"]

_SMALL = 0xFFFFFFFF   # ints up to this size: operators on them are not worth charging or checking


def e_binop(c, node):
    if node.op == "+" and not _numeric_sum(node):
        return _sum_chain(c, node)
    checked, plain = CHECKED[node.op], PLAIN[node.op]
    if node.op != "**" and isinstance(node.right, n.Const) and type(node.right.value) is int and \
            -_SMALL <= node.right.value <= _SMALL:
        return _int_right(c.expr(node.left), node.right.value, checked, plain, node.span)
    left, right = c.expr(node.left), c.expr(node.right)
    span = node.span
    small_ints_are_cheap = node.op != "**"   # 2 ** 100000 is small ints too

    def ev(f, checked=checked, left=left, plain=plain, right=right, small_ints_are_cheap=small_ints_are_cheap,
            span=span):
        a = left(f)
        b = right(f)
        try:
            if small_ints_are_cheap and type(a) is int and type(b) is int and -_SMALL <= a <= _SMALL \
                    and -_SMALL <= b <= _SMALL:
                return plain(a, b)  # loop.index0 % 2: nothing worth charging or checking
            if type(a) is float and type(b) is float:
                return plain(a, b)
            return checked(f[0], a, b)
        except Exception as exc:
            raise located(exc, span)
    return ev


def _int_right(left, constant, checked, plain, span):
    # ev(f) of `x - 1`, `loop.index0 % 2`, `(messages|length - 1)`: a small int constant on the right, used as
    # it is; any other left operand checked and charged as e_binop checks it.
    def ev_int_right(f, checked=checked, constant=constant, left=left, plain=plain, span=span):
        a = left(f)
        try:
            if type(a) is int and -_SMALL <= a <= _SMALL:
                return plain(a, constant)  # nothing worth charging or checking
            return checked(f[0], a, constant)
        except Exception as exc:
            raise located(exc, span)
    return ev_int_right


def _numeric_sum(node):
    # `x + 1`, `loop.index0 + 1`: a sum of two operands, one a number constant — numbers, not text, added by the
    # plain binary operator rather than the string chain.
    if isinstance(node.left, n.BinOp):
        return False
    for x in (node.left, node.right):   # (a loop, not a generator: a first compile pays dearly for each)
        if isinstance(x, n.Const) and type(x.value) in (int, float):
            return True
    return False


def _sum_chain(c, node):
    spans = []
    operands, places = sum_items(node, spans), []
    for x in operands:   # (a loop, not a comprehension: a first compile pays for each)
        places.append(key_path(c, x, indexes=True))
    return sum_chain(operands, places, list(map(c.expr, operands)), spans)


def checked_add(rs, a, b):
    limits = rs.limits
    # (sizes as the built-in types count what they store: a caller's subclass's own __len__ may lie or fail)
    if isinstance(a, str) and isinstance(b, str):
        size = stored_len(a) + stored_len(b)
        check_str_size(limits, size)
        rs.burn(size >> CHAR_SHIFT)
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        size = stored_len(a) + stored_len(b)
        check_items(limits, size)
        rs.burn(size)
    elif type(a) is int and type(b) is int and (a.bit_length() > 64 or b.bit_length() > 64):
        if max(a.bit_length(), b.bit_length()) > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", "an integer sum")
        rs.burn(max(a.bit_length(), b.bit_length()) >> 6)
    elif isinstance(a, _SET_LIKE) or isinstance(b, _SET_LIKE):
        _charge_set_operation(rs, a, b)
    try:
        return a + b
    except TypeError:
        cls = type(a)
        if cls in _CONCATENATED and type(b) is not cls and not hasattr(type(b), "__radd__"):
            # CPython's message on every interpreter (PyPy's: "unsupported operand type(s) for +")
            raise TypeError(f'can only concatenate {cls.__name__} (not "{type(b).__name__}") to {cls.__name__}') \
                from None
        raise


_CONCATENATED = frozenset({str, list, tuple})


def _checked_sub(rs, a, b):
    if isinstance(a, _SET_LIKE) or isinstance(b, _SET_LIKE):
        _charge_set_operation(rs, a, b)
    return a - b


def _checked_mul(rs, a, b):
    limits = rs.limits
    for seq, count in ((a, b), (b, a)):
        if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
            size = stored_len(seq) * count
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
    # keys() - [x], a set | a list...: every item of both sides is hashed (and compared on a collision).
    for side in (a, b):
        if hasattr(side, "__len__"):
            rs.burn(stored_len(side))
        if isinstance(side, (list, tuple, set, frozenset)):
            guard(rs, side)


CHECKED = {"+": checked_add, "-": _checked_sub, "*": _checked_mul, "**": _checked_pow, "%": _checked_mod,
            "//": _checked_floordiv, "/": _checked_truediv}
PLAIN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "**": operator.pow, "%": operator.mod,
          "//": operator.floordiv, "/": operator.truediv}


def sum_items(node, spans=None):
    # The operands of a + b + c ... in order (the chain is left-deep); and, into spans when given, the span of each
    # `+` (the callers that only look at the operands pack none).
    operands = []
    while node.__class__ is n.BinOp and node.op == "+":
        operands.append(node.right)
        if spans is not None:
            spans.append(place(node.span))
        node = node.left
    operands.append(node)
    operands.reverse()
    if spans is not None:
        spans.reverse()
    return operands


def sum_chain(operands, places, evs, spans):
    # a + b + c ... (left-associative) as one closure that adds the operands in Jinja2's order, each step with
    # its own location: prompts are built this way, often a dozen strings long. While every operand is a plain
    # string they are gathered and joined once (the same text as adding them in turn); the first that is not one
    # is added, as are the rest, step by step from the text so far (_Chain.resume). Each operand is evaluated once,
    # in order.
    # the text's pieces with the string constants in place; every other operand is read by its reader
    # (context.path_reader: `messages[i]['content']` in line), one call each, and fills its piece
    # (one loop, not three comprehensions: each is a call of its own, and a first compile pays dearly for calls)
    template, readers, inline = [], [], []
    for x, place, ev in zip(operands, places, evs):
        constant = isinstance(x, n.Const)
        if constant and type(x.value) is str:
            template.append(x.value)
            continue
        readers.append((len(template), constant_reader(x.value) if constant else path_reader(place, ev)))
        template.append(None)
        if not constant:
            inline.append(_in_line(place))
    readers, inline = tuple(readers), tuple(inline)
    chain = _Chain(template, (None,) + tuple(spans), readers)
    if len(inline) != len(readers):   # (a constant that is not a string is read by its reader)
        inline = ((None, None),) * len(readers)
    return _short_chain(template, readers, chain, inline) or _any_chain(readers, chain)


def _in_line(place):
    # (slot, key or None) of an operand that is a variable of this frame or one constant key of one (a key_path
    # without indexes), which a short chain reads in line before calling its reader; (None, None) else.
    if place is None or len(place[1]) > 1 or place[1] and type(place[1][0]) is not str:
        return None, None
    return place[0], (place[1][0] if place[1] else None)


class _Chain:
    # What a chain's closure needs when an operand is not a plain string: the pieces (constants in place, None
    # for a read), the span of each `+`, the readers ((index, read(f)), ...).
    __slots__ = ("template", "spans", "readers", "read_at", "escaped", "constants_size", "markup_plans")

    def __init__(self, template, spans, readers):
        self.template, self.spans, self.readers = template, spans, readers
        self.read_at = [None] * len(template)   # index → the reader of the operand there (None: a constant)
        for index, read in readers:
            self.read_at[index] = read
        self.escaped = None   # each string constant as a Markup total takes it, escaped: made on first use
        self.constants_size = sum(map(len, filter(None, template)))   # (the string constants': no generator)
        self.markup_plans = None   # start → markup_sum's steps from there: made on first use

    def add_from(self, f, total, start):
        # total + the operands from the start-th on, added in turn (a Markup total: markup_sum, the same sum).
        if type(total) is Markup:
            return self.markup_sum(f, total, start)
        return self._add_steps(f, total, start)

    def markup_sum(self, f, total, start):
        # Markup total + the operands from the start-th on (`"Use '"|safe + name + "' to '"|safe + ...`): while
        # each is a str or a Markup, and each step's size fits the limits, the texts are gathered and joined once,
        # each plain str escaped (as Markup + str escapes it), each step checked and charged before it as
        # checked_add checks and charges it; at the first that is not, the pieces so far are joined and the rest
        # added by _add_steps from that operand (read once, here).
        plans = self.markup_plans
        if plans is None:
            plans = self.markup_plans = {}
        plan = plans.get(start)
        if plan is None:
            plan = plans[start] = self._markup_plan(start)
        rs = f[0]
        max_string = rs.limits.max_string
        pieces, size = [total], len(total)
        for index, read, value, text in plan:
            if read is not None:   # (else a string constant: value its text, text that escaped)
                value = read(f)
                cls = type(value)
                if cls is str:
                    text = None
                elif cls is Markup:
                    text = value
                else:
                    break
            step = size + len(value)
            cost = step >> CHAR_SHIFT
            if step > max_string or rs.fuel < cost:
                break
            if cost:
                rs.fuel -= cost
            if text is None:
                text = escaped_text(value)
            pieces.append(text)
            size += len(text)
        else:
            return new_markup(Markup, "".join(pieces))
        total = new_markup(Markup, "".join(pieces))
        try:
            total = checked_add(rs, total, value)
        except Exception as exc:
            raise located(exc, self.spans[index])
        return self._add_steps(f, total, index + 1)

    def _markup_plan(self, start):
        # (index, read, constant, its escaped text) for each operand from the start-th on: read None for a string
        # constant, the constants None for a read.
        template, read_at = self.template, self.read_at
        return tuple((index, read_at[index], template[index],
                      None if template[index] is None else escaped_text(template[index]))
                     for index in range(start, len(template)))

    def _add_steps(self, f, total, start):
        # total + the operands from the start-th on, added in turn. Texts added to a Markup (`"<x>"|safe +
        # name + "'"|safe`) are gathered and joined once: each plain str escaped, as Markup + str escapes it, each
        # step's size checked and charged as checked_add checks and charges it (where a step fails, the pieces
        # are joined and checked_add fails it).
        template, read_at, escaped, spans, rs = self.template, self.read_at, self.escaped, self.spans, f[0]
        if escaped is None:
            escaped = self.escaped = [None if piece is None else escaped_text(piece) for piece in template]
        max_string = rs.limits.max_string
        pieces = size = None   # the Markup total's pieces, not joined yet, and their size
        for index in range(start, len(template)):
            value = template[index]
            if value is None:
                value = read_at[index](f)
                cls = type(value)
                text = None
            else:   # a string constant
                cls, text = str, escaped[index]
            if (cls is str or cls is Markup) and (pieces is not None or type(total) is Markup):
                if pieces is None:
                    pieces, size = [total], len(total)
                step = size + len(value)
                if step <= max_string and rs.fuel >= step >> CHAR_SHIFT:
                    rs.fuel -= step >> CHAR_SHIFT
                    if text is None:
                        text = escaped_text(value) if cls is str else value
                    pieces.append(text)
                    size += len(text)
                    continue
            if pieces is not None:
                total, pieces = new_markup(Markup, "".join(pieces)), None
            try:
                total = checked_add(rs, total, value)
            except Exception as exc:
                raise located(exc, spans[index])
        return total if pieces is None else new_markup(Markup, "".join(pieces))

    def resume(self, f, got, value):
        # The chain from its len(got)-th read on: got holds the strings the reads before it returned, value
        # what that read returned (None when got holds them all).
        readers = self.readers
        values, size = self.template[:], self.constants_size
        for (index, _), text in zip(readers, got):
            values[index] = text
            size += len(text)
        for position in range(len(got), len(readers)):
            index, read = readers[position]
            if position > len(got):
                value = read(f)
            if type(value) is str:
                values[index] = value
                size += len(value)
                continue
            if index == 0:
                return self.add_from(f, value, 1)
            before = values[:index]
            total = joined_text(f[0], before, sum(map(len, before)))
            try:
                total = checked_add(f[0], total, value)
            except Exception as exc:
                raise located(exc, self.spans[index])
            return self.add_from(f, total, index + 1)
        return joined_text(f[0], values, size)


def _constant_pieces(template, readers):
    # The constants before, between and after the reads, each joined.
    pieces, start = [], 0
    for index, _ in readers:   # (a loop, not comprehensions: a first compile pays dearly for each)
        pieces.append("".join(template[start:index]))
        start = index + 1
    pieces.append("".join(template[start:]))
    return pieces


def _short_chain(template, readers, chain, inline):
    """The chain's closure when it has two operands or fewer that are not string constants (most do:
    `'<|im_start|>' + message['role'] + '\n'`): the constants around them joined at compile time. None else."""
    if len(readers) > 2:
        return None
    if not readers:
        text = "".join(template)   # constants only: the template's own text (a long one paid for each time)
        return (lambda f: text) if len(text) < BIG_STR else (lambda f: joined_text(f[0], template, len(text)))
    pieces = _constant_pieces(template, readers)
    if len(readers) == 1:
        (_, read), = readers
        (slot, key), = inline
        before, after = pieces
        room = BIG_STR - len(before) - len(after)

        def ev_one(f, after=after, before=before, chain=chain, key=key, read=read, room=room, slot=slot):
            # the operand read in line (a plain dict's key, a variable that is set) or by its reader
            value = MISSING if slot is None else f[slot] if key is None else \
                f[slot][key] if type(f[slot]) is dict and key in f[slot] else MISSING
            if value is MISSING:
                value = read(f)
            if type(value) is str:   # (a plain str: one string built; a long one sized and charged first)
                return f"{before}{value}{after}" if len(value) < room else \
                    joined_text(f[0], (before, value, after), BIG_STR - room + len(value))
            return chain.resume(f, (), value)
        return ev_one
    (first_index, read_first), (_, read_second) = readers
    (slot, key), (slot2, key2) = inline
    before, between, after = pieces
    room = BIG_STR - len(before) - len(between) - len(after)

    def ev_two(f, after=after, before=before, between=between, chain=chain, first_index=first_index, key=key, key2=key2,
            read_first=read_first, read_second=read_second, room=room, slot=slot, slot2=slot2):
        first = MISSING if slot is None else f[slot] if key is None else \
            f[slot][key] if type(f[slot]) is dict and key in f[slot] else MISSING
        if first is MISSING:
            first = read_first(f)
        if type(first) is not str:
            if first_index == 0:
                # `"<x>"|safe + name`, `parts + [item]`: the chain from here, the step resume would take, without
                # resume's Python frame (a recursive macro gathering its results so pays it at every level)
                return chain.add_from(f, first, 1)
            return chain.resume(f, (), first)
        second = MISSING if slot2 is None else f[slot2] if key2 is None else \
            f[slot2][key2] if type(f[slot2]) is dict and key2 in f[slot2] else MISSING
        if second is MISSING:
            second = read_second(f)
        if type(second) is str:   # (plain strs: one string built, no tuple; a long one sized and charged first)
            return f"{before}{first}{between}{second}{after}" if len(first) + len(second) < room else \
                joined_text(f[0], (before, first, between, second, after), BIG_STR - room + len(first) + len(second))
        return chain.resume(f, (first,), second)
    return ev_two


def _any_chain(readers, chain):
    first_index = readers[0][0]

    def ev(f, chain=chain, first_index=first_index, readers=readers):
        got = []
        for _, read in readers:
            value = read(f)
            if type(value) is not str:
                if type(value) is Markup and not got and first_index == 0:   # `"<x>"|safe + name + ...`
                    return chain.markup_sum(f, value, 1)
                return chain.resume(f, got, value)
            got.append(value)
        return chain.resume(f, got, None)   # every read gave a string: resume joins them
    return ev


def joined_text(rs, values, size):
    # "".join(values) of plain strings (size: their length), sized (and paid for) first when it is long.
    if size >= BIG_STR:
        check_str_size(rs.limits, size)
        rs.burn(size >> CHAR_SHIFT)
    return "".join(values)
