"""Formatting: `fmt % args` (the `%` operator and the |format filter) with the sandbox's printing and its size
bounded before anything is built.

Python's own %-formatting is used for the result, so every quirk is Python's; what this module adds is a scanner
that reads the format as Python does (a `%(key)` balances its parentheses, widths and precisions may be `*`), to
know the exact fields and bound the result — every width, precision and field value — before Python allocates it.
Values that are not plain data are printed the sandbox's way (no addresses, bounded).
"""

import _string

from ..core.state import CHAR_SHIFT, check_str_size, current_state, limit_exceeded
from .markup import Markup
from .printing import safe_repr, to_str
from .undefined import Undefined

__all__ = ["percent_format", "spec_numbers", "field_least_size", "literal_size", "escaped_size"]

_FLAGS = frozenset("-+ #0")
_LENGTH_MODIFIERS = frozenset("hlL")
_CONVERSIONS = frozenset("diouxXeEfFgGcrsa%")
_FIELD_STEPS = 4    # reading a % field costs about as much as 4 steps of the budget (see budget.py)
_MAX_DIGITS = 12    # a width or precision longer than this is refused as it is read


def percent_format(limits, fmt, args):
    # fmt % args with the sandbox's printing, its size bounded before anything is built.
    rs = current_state()
    if type(args) is tuple and len(args) == 1 and fmt == "%s" and type(fmt) is str:
        # "%s"|format(x), the commonest use: a string is itself; an undefined, a bool or a float prints short
        # text of its own (an undefined as Jinja2 prints it, or its error)
        value = args[0]
        if type(value) is str:
            return value
        if isinstance(value, Undefined) or type(value) is float or type(value) is bool:
            return fmt % args
    if isinstance(args, tuple):
        args = tuple(_plain_or_safe(a, rs) for a in args)
    elif isinstance(args, dict):
        args = {k: _plain_or_safe(v, rs) for k, v in args.items()}
    elif not isinstance(args, (str, Undefined)) and hasattr(type(args), "__getitem__"):
        # Python takes any non-tuple with __getitem__ as the mapping of %(key)s fields (so 'x' % [] is 'x'): its
        # fields are looked up here, once, so that their size is known before formatting
        args = _MappingFields(args, rs)
    else:
        args = _plain_or_safe(args, rs)
    if rs is not None:
        # the scan below reads each field in Python (and Python's formatting each one again): paid for first
        rs.burn(_FIELD_STEPS * fmt.count("%") + (len(fmt) >> CHAR_SHIFT))
    spec_chars, fields_size = _fields_size(limits, fmt, args)
    size = len(fmt) - spec_chars + fields_size * (6 if isinstance(fmt, Markup) else 1)
    check_str_size(limits, size, "a formatted string")
    if rs is not None:
        rs.burn(size >> CHAR_SHIFT)
    result = fmt % args
    check_str_size(limits, len(result), "a formatted string")
    return result


def _specs(fmt):
    # (key, width, precision, conversion, length of the spec) of each % field of fmt, read as Python reads it:
    # key None or the text of a balanced %(...), width/precision None, '*' or their digits. Stops where Python
    # would raise.
    i, end = fmt.find("%"), len(fmt)
    while 0 <= i < end:
        begin = i
        i += 1
        key = width = precision = None
        if i < end and fmt[i] == "(":
            depth, start = 1, i + 1
            i += 1
            while i < end and depth:
                depth += {"(": 1, ")": -1}.get(fmt[i], 0)
                i += 1
            if depth:
                return   # "incomplete format key": Python raises
            key = fmt[start:i - 1]
        while i < end and fmt[i] in _FLAGS:
            i += 1
        i, width = _number(fmt, i, end)
        if i < end and fmt[i] == ".":
            i, precision = _number(fmt, i + 1, end)
            precision = precision or "0"
        while i < end and fmt[i] in _LENGTH_MODIFIERS:
            i += 1
        if i >= end or fmt[i] not in _CONVERSIONS:
            return   # "incomplete format" / "unsupported format character": Python raises
        yield key, width, precision, fmt[i], i + 1 - begin
        i = fmt.find("%", i + 1)


def _number(fmt, i, end):
    if i < end and fmt[i] == "*":
        return i + 1, "*"
    start = i
    while i < end and "0" <= fmt[i] <= "9":
        i += 1
    return i, (fmt[start:i] or None)


_NUMERIC = frozenset("diueEfFgG")   # the fields CPython reads through __int__ or __float__ (x, o, c: __index__)


def _fields_size(limits, fmt, args):
    # (characters of the field specs, an upper bound of the characters the fields print) for fmt % args.
    total = spec_chars = 0
    positional = args if isinstance(args, tuple) else (args,)
    position = 0
    numbers_so_far = True   # every numeric field so far holds a number (Python gets to the next one)
    for key, width, precision, conversion, length in _specs(fmt):
        spec_chars += length
        if conversion == "%":
            total += 1
            continue
        for number in (width, precision):
            if number == "*":
                value = positional[position] if position < len(positional) else None
                position += 1
                number = abs(value) if isinstance(value, int) else 0
            elif number:
                if len(number) > _MAX_DIGITS:
                    raise limit_exceeded(limits, "max_string", "a format width")
                number = int(number)
            else:
                number = 0
            check_str_size(limits, number, "a format width")
            total += number
        if key is not None:
            value = args.lookup(key) if isinstance(args, _MappingFields) else \
                args.get(key) if isinstance(args, dict) else None
        else:
            value = positional[position] if position < len(positional) else None
            position += 1
        if conversion in _NUMERIC and numbers_so_far:
            if isinstance(value, Undefined):
                # CPython reads it as a number, and the undefined fails (PyPy's % refuses any non-number first)
                value._fail_with_undefined_error()
            numbers_so_far = isinstance(value, (int, float))
        total += _field_size(value, conversion)
    return spec_chars, total


def _field_size(value, conversion):
    if isinstance(value, _SafeText):
        value = value.text
    if isinstance(value, str):
        return len(value) * 10 + 2 if conversion in "ra" else len(value)   # a repr: quotes, escapes
    if isinstance(value, int):
        return value.bit_length() // 3 + 3
    if isinstance(value, float):
        return 330
    return 32


class _SafeText:
    # Stands in for a non-plain value in %-formatting so %s/%r use the sandbox's printing.

    __slots__ = ("value", "text", "rs")

    def __init__(self, value, rs):
        self.value, self.rs = value, rs
        self.text = to_str(value, rs)

    def __str__(self):
        return self.text

    def __repr__(self):
        return safe_repr(self.value, self.rs)


class _MappingFields:
    # The mapping of a fmt % mapping whose mapping is not a dict: each key looked up once, its value printed
    # safely, so the size check sees what formatting will use.

    __slots__ = ("mapping", "rs", "found")

    def __init__(self, mapping, rs):
        self.mapping, self.rs, self.found = mapping, rs, {}

    def lookup(self, key):
        if key not in self.found:
            self.found[key] = _plain_or_safe(self.mapping[key], self.rs)
        return self.found[key]

    __getitem__ = lookup

    def __str__(self):
        return to_str(self.mapping, self.rs)

    def __repr__(self):
        return safe_repr(self.mapping, self.rs)


def _plain_or_safe(value, rs):
    # an undefined is passed as it is: it prints as Jinja2's does, and %d/%f of it raise UndefinedError
    if value is None or isinstance(value, (str, int, float, Undefined)):
        return value
    return _SafeText(value, rs)


# --------------------------------------------------------------------------------------------- str.format
# `fmt.format(...)` / `format_map` on str and Markup (sandbox.safe_format): the widths and precisions written in
# the fields are added up with the literal text before anything is formatted, and each field is checked again,
# with its spec as formatting resolves it (`{0:>{1}}`), before it is formatted, and once more before a Markup
# escapes it (escaping can make text five times longer).
_ALIGNS = frozenset("<>=^")
_WIDTH_TYPES = frozenset("eEfF%")   # a precision of these (of a number) is digits written out


def spec_numbers(spec):
    # (width, precision) of a standard format spec, [[fill]align][sign][z][#][0][width][,_][.precision][type];
    # 0 where there is none.
    i = 2 if len(spec) > 1 and spec[1] in _ALIGNS else 1 if spec[:1] in _ALIGNS else 0
    while i < len(spec) and spec[i] in "+- z#0":
        i += 1
    start = i
    while i < len(spec) and spec[i].isdigit():
        i += 1
    width = int(spec[start:i]) if i > start else 0
    while i < len(spec) and spec[i] in ",_":
        i += 1
    precision = 0
    if spec[i:i + 1] == ".":
        start = i = i + 1
        while i < len(spec) and spec[i].isdigit():
            i += 1
        precision = int(spec[start:i]) if i > start else 0
    return width, precision


def field_least_size(spec, value):
    # The fewest characters format(value, spec) can write: its width, or the digits its precision asks of a
    # number.
    if len(spec) > 40:   # (a spec this long holds a number past any limit: _check_format_spec refuses it)
        return 0
    width, precision = spec_numbers(spec)
    if precision and spec[-1:] in _WIDTH_TYPES and isinstance(value, (int, float)):
        return max(width, precision)
    return width


def literal_size(limits, fmt):
    # The characters of fmt's literal text, checked with the widths written in its fields (`{0:>9000000}` a
    # hundred times is refused here, before the first is formatted); a malformed format is left to formatting,
    # which raises where Python does.
    literal = widths = 0
    try:
        for text, name, spec, _conversion in _string.formatter_parser(fmt):
            literal += len(text)
            if name is not None and spec and "{" not in spec:
                widths += field_least_size(spec, None)
    except ValueError:
        pass
    check_str_size(limits, literal + widths, "a formatted string")
    return literal


def escaped_size(text):
    # len(escape(text)): & ' " grow by 4 characters, < > by 3.
    return len(text) + 4 * (text.count("&") + text.count("'") + text.count('"')) + \
        3 * (text.count("<") + text.count(">"))
