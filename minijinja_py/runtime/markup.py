"""Markup: a str subclass marking text as safe for HTML, and escape(); what autoescape and |safe build on. And
str.format's base (formatter) with the sizes of what a format writes, measured before it is formatted."""

# Behaves like markupsafe 3.0's Markup, quirks included: an operation that combines a Markup with plain text
# escapes the plain side and returns Markup, but only where markupsafe does (replace escapes `new`, not `old`;
# center/ljust/rjust escape the fill character; strip and friends escape nothing).

import _string
from _collections_abc import Iterable, Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Optional

from ..core.state import check_str_size, limit_exceeded
from .printing import safe_repr, subclass_str, to_str

__all__ = ["Markup", "new_markup", "escape", "escaped_text", "soft_str", "formatter", "escape_formatter",
           "spec_numbers", "field_least_size", "literal_size", "escaped_size", "check_format_spec", "converted_field"]



def _escaped(text):
    # text with HTML's five special characters replaced. A chain of str.replace: each is one C pass that returns
    # its argument when nothing matches, about 15x faster than str.translate's per-character table lookups.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;") \
        .replace("'", "&#39;")


_RECENT_MIN, _RECENT_MAX, _RECENT_ENTRIES = 128, 1 << 14, 32   # (at most ~3.7M characters held: an escape is <= 6x)
_recent = {}   # id(text) → (text, its escape), for long texts: held, so that the id is not reused while it is here


def escaped_text(text):
    # What Markup + a plain str escapes the str with (operators.py's Markup chains): _escaped, a long text's escape
    # found again when the same str object comes back (`'...'|safe + tool|tojson` in every render: the JSON text
    # is one object from render to render, textcache.py). A str cannot change, so the same object has the same
    # escape; at most _RECENT_ENTRIES are kept (all dropped when full), each at most _RECENT_MAX characters.
    if len(text) < _RECENT_MIN or len(text) > _RECENT_MAX:
        return _escaped(text)
    known = _recent.get(id(text))
    if known is not None and known[0] is text:
        return known[1]
    escaped = _escaped(text)
    if len(_recent) >= _RECENT_ENTRIES:
        _recent.clear()
    _recent[id(text)] = (text, escaped)
    return escaped


def _text(value):
    # str(value) as the sandbox prints it: bounded, and never with a memory address.
    if isinstance(value, str):
        return subclass_str(value)
    return to_str(value)


def escape(value: "Any") -> "Markup":
    """HTML-escape value unless it is already safe (has __html__); returns Markup."""
    if type(value) is str:
        return new_markup(Markup, _escaped(value))
    if type(value) is Markup:
        return new_markup(Markup, value)   # a new object, as markupsafe's Markup(value.__html__())
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    return Markup(_escaped(_text(value)))


def soft_str(value: "Any") -> str:
    # str(value), but Markup stays Markup.
    return value if isinstance(value, str) else to_str(value)


class Markup(str):
    """A string that is safe to insert into HTML without escaping."""

    __slots__ = ()

    def __new__(cls, base: "Any" = "", encoding: "Optional[str]" = None, errors: str = "strict") -> "Markup":
        if type(base) is str and encoding is None:
            return new_markup(cls, base)   # the commonest: no __html__ to ask
        if hasattr(base, "__html__"):
            base = base.__html__()
        if encoding is None:
            return new_markup(cls, base)
        return new_markup(cls, base, encoding, errors)

    def __html__(self):
        return self

    def __html_format__(self, format_spec):
        if format_spec:
            raise ValueError("Unsupported format specification for Markup.")
        return self

    def __repr__(self):
        return f"{type(self).__name__}({str.__repr__(self)})"

    def __add__(self, other):
        # (a plain str or a Markup on the other side, the commonest, joined without the general escape's calls)
        cls = type(other)
        if cls is str:
            text = str.__add__(self, _escaped(other))
        elif cls is Markup:
            text = str.__add__(self, other)
        elif isinstance(other, str) or hasattr(other, "__html__"):
            text = str.__add__(self, self.escape(other))
        else:
            return NotImplemented
        return new_markup(Markup, text) if type(self) is Markup else type(self)(text)

    def __radd__(self, other):
        if type(other) is str and type(self) is Markup:
            return new_markup(Markup, str.__add__(_escaped(other), self))
        if isinstance(other, str) or hasattr(other, "__html__"):
            return self.escape(other).__add__(self)
        return NotImplemented

    def __mul__(self, count):
        result = str.__mul__(self, count)
        if result is NotImplemented:   # (PyPy's str says so where CPython's raises)
            raise TypeError(f"can't multiply sequence by non-int of type {type(count).__name__!r}")
        return type(self)(result)

    __rmul__ = __mul__

    def __mod__(self, arg):
        escaping = _escaping()
        if isinstance(arg, tuple):
            arg = tuple(map(escaping, arg))
        elif hasattr(type(arg), "__getitem__") and not isinstance(arg, str):
            arg = escaping(arg)   # a mapping: each looked-up value is escaped
        else:
            arg = (escaping(arg),)
        return type(self)(str.__mod__(self, arg))

    def __getitem__(self, key):
        return type(self)(str.__getitem__(self, key))

    def join(self, iterable: "Iterable[Any]", /) -> "Markup":
        return type(self)(str.join(self, map(self.escape, iterable)))

    def split(self, sep: "Optional[str]" = None, maxsplit: int = -1) -> "list[Markup]":  # type: ignore[override]
        return list(map(type(self), str.split(self, sep, maxsplit)))

    def rsplit(self, sep: "Optional[str]" = None, maxsplit: int = -1) -> "list[Markup]":  # type: ignore[override]
        return list(map(type(self), str.rsplit(self, sep, maxsplit)))

    def splitlines(self, keepends: bool = False) -> "list[Markup]":  # type: ignore[override]
        return list(map(type(self), str.splitlines(self, keepends)))

    def partition(self, sep: str, /) -> "tuple[Markup, Markup, Markup]":  # type: ignore[override]
        return tuple(map(type(self), str.partition(self, sep)))

    def rpartition(self, sep: str, /) -> "tuple[Markup, Markup, Markup]":  # type: ignore[override]
        return tuple(map(type(self), str.rpartition(self, sep)))

    def replace(self, old: str, new: "Any", count: int = -1, /) -> "Markup":  # type: ignore[override]
        return type(self)(str.replace(self, old, self.escape(new), count))

    def center(self, width: int, fillchar: str = " ", /) -> "Markup":
        return type(self)(str.center(self, width, self.escape(fillchar)))

    def ljust(self, width: int, fillchar: str = " ", /) -> "Markup":
        return type(self)(str.ljust(self, width, self.escape(fillchar)))

    def rjust(self, width: int, fillchar: str = " ", /) -> "Markup":
        return type(self)(str.rjust(self, width, self.escape(fillchar)))

    def format(self, *args: "Any", **kwargs: "Any") -> "Markup":
        return type(self)(formatter(escape_formatter)().vformat(self, args, kwargs))

    def format_map(self, mapping: "Mapping[str, Any]") -> "Markup":  # type: ignore[override]
        return type(self)(formatter(escape_formatter)().vformat(self, (), mapping))

    def unescape(self) -> str:
        """The text with HTML entities decoded, as a plain str."""
        import html   # only unescape() needs it: not imported at start-up
        return html.unescape(str(self))

    def striptags(self) -> str:
        """Comments and tags removed, whitespace collapsed, entities decoded: a plain str."""
        return type(self)(" ".join(_without_tags(str(self)).split())).unescape()

    @classmethod
    def escape(cls, s: "Any") -> "Markup":
        rv = escape(s)
        return rv if type(rv) is cls else cls(rv)


new_markup = str.__new__   # new_markup(Markup, text): a Markup of a str, without Markup.__new__'s checks (a C call)


def _rewrap(name):
    # A str method that keeps its arguments as they are and returns Markup.
    original = getattr(str, name)

    def method(self: "Markup", *args: "Any") -> "Markup":
        return type(self)(original(self, *args))
    method.__name__ = name
    method.__doc__ = original.__doc__
    return method


for _name in ("capitalize", "title", "lower", "upper", "lstrip", "rstrip", "strip", "translate", "expandtabs",
              "swapcase", "zfill", "casefold", "removeprefix", "removesuffix"):
    setattr(Markup, _name, _rewrap(_name))


def _without_tags(text):
    # markupsafe's one pass: from each "<", a comment runs to the first "-->" after its "<!--" (so "<!-->" opens
    # one), a tag to the next ">"; an opener without its closer leaves the rest of the text as it is.
    pieces = []
    pos = 0
    while True:
        start = text.find("<", pos)
        if start == -1:
            break
        if text.startswith("<!--", start):
            end = text.find("-->", start + 4)
            closer = 3
        else:
            end = text.find(">", start)
            closer = 1
        if end == -1:
            break
        pieces.append(text[pos:start])
        pos = end + closer
    pieces.append(text[pos:])
    return "".join(pieces)


_FORMATTERS = {}


def formatter(make):
    # The string.Formatter subclass make(string.Formatter) builds, made on first use and kept: importing string
    # costs a cold start ~1.3 ms (its Template compiles a regexp), and only a template's .format() needs it; the
    # classes are made then too, not at import (a class costs a cold start ~0.07 M instructions).
    found = _FORMATTERS.get(make)
    if found is None:
        import string
        found = _FORMATTERS[make] = make(string.Formatter)
    return found


def escape_formatter(base):
    # str.format for Markup: every field is formatted, then escaped (Markup fields are kept as they are). The class
    # on top of `base` (string.Formatter, or a formatter built on it); formatter(escape_formatter) is Markup's.

    class EscapeFormatter(base):
        def format_field(self, value, format_spec):
            return str(escape(self.field_text(value, format_spec)))

        def field_text(self, value, format_spec):
            # The field before escaping: an HTML-aware value's own Markup, or the text a plain one formats to.
            if hasattr(value, "__html_format__"):
                return value.__html_format__(format_spec)
            if hasattr(value, "__html__"):
                if format_spec:
                    raise ValueError(f"Format specifier {format_spec} given, but {type(value)} does not define "
                                     "__html_format__. A class that defines __html__ must define __html_format__ "
                                     "to work with format specifiers.")
                return value.__html__()
            return self.format_plain(value, str(format_spec))

        def format_plain(self, value, format_spec):
            # How a field that is not HTML-aware is formatted before it is escaped.
            return format(value, format_spec)   # what string.Formatter.format_field does

    return EscapeFormatter


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
    if len(spec) > 40:   # (a spec this long holds a number past any limit: check_format_spec refuses it)
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


def check_format_spec(limits, spec):
    # Each number written in a field's spec (a width, a precision) held to max_string before the field is formatted.
    digits = []
    for ch in spec:
        if ch.isdigit():
            digits.append(ch)
        else:
            if digits and len(digits) > 9:
                raise limit_exceeded(limits, "max_string", "a format width")
            if digits and int("".join(digits)) > limits.max_string:
                raise limit_exceeded(limits, "max_string", "a format width")
            digits = []
    if digits and (len(digits) > 9 or int("".join(digits)) > limits.max_string):
        raise limit_exceeded(limits, "max_string", "a format width")


def converted_field(value, conversion, rs):
    # A field's !r, !s, !a conversion, printed the sandbox's way.
    if conversion == "r":
        return safe_repr(value, rs)
    if conversion == "s":
        return to_str(value, rs)
    if conversion == "a":
        text = safe_repr(value, rs)
        check_str_size(rs.limits, len(text) * 10, "a formatted string")
        return text.encode("ascii", "backslashreplace").decode("ascii")
    if conversion is None:
        return value
    raise ValueError(f"Unknown conversion specifier {conversion}")


def escaped_size(text):
    # len(escape(text)): & ' " grow by 4 characters, < > by 3.
    return len(text) + 4 * (text.count("&") + text.count("'") + text.count('"')) + \
        3 * (text.count("<") + text.count(">"))


_ESCAPING = []   # [the class _escaping makes], once made


def _escaping():
    # The class a %-formatting argument of a Markup stands in as: escaped when printed (%s, %r), a number for
    # %d/%f. Made on first use: few renders %-format a Markup, and a class costs a cold start ~0.07 M instructions.
    if not _ESCAPING:
        class _Escaping:
            __slots__ = ("value",)

            def __init__(self, value):
                self.value = value

            def __getitem__(self, key):
                return _Escaping(self.value[key])

            def __str__(self):
                return str(escape(self.value))

            def __repr__(self):
                return str(escape(safe_repr(self.value)))

            def __int__(self):
                return int(self.value)

            def __float__(self):
                return float(self.value)
        _ESCAPING.append(_Escaping)   # (threads racing here append equal classes: each uses the first)
    return _ESCAPING[0]
