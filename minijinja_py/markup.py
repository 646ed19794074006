"""Markup: a str subclass marking text as safe for HTML, and escape(); what autoescape and |safe build on.

Behaves like markupsafe.Markup: operations with plain strings escape the plain side and return Markup.
"""

__all__ = ["Markup", "escape", "soft_str"]

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _text(value):
    """str(value) as the sandbox prints it: bounded, and never with a memory address."""
    if isinstance(value, str):
        return str.__str__(value)
    from .printing import to_str  # printing builds on this module
    return to_str(value)


def escape(value):
    """HTML-escape value unless it is already safe (has __html__); returns Markup."""
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    return Markup(_text(value).translate(_ESCAPES))


def soft_str(value):
    """str(value), but Markup stays Markup."""
    return value if isinstance(value, str) else _text(value)


class Markup(str):
    """A string that is safe to insert into HTML without escaping."""

    __slots__ = ()

    def __new__(cls, base="", encoding=None, errors="strict"):
        if hasattr(base, "__html__"):
            base = base.__html__()
        if encoding is None:
            return super().__new__(cls, base)
        return super().__new__(cls, base, encoding, errors)

    def __html__(self):
        return self

    def __repr__(self):
        return f"{type(self).__name__}({str.__repr__(self)})"

    def __add__(self, other):
        if isinstance(other, str) or hasattr(other, "__html__"):
            return Markup(str.__add__(self, escape(other)))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str) or hasattr(other, "__html__"):
            return Markup(str.__add__(escape(other), self))
        return NotImplemented

    def __mul__(self, count):
        if isinstance(count, int):
            return Markup(str.__mul__(self, count))
        return NotImplemented

    __rmul__ = __mul__

    def __mod__(self, arg):
        if isinstance(arg, tuple):
            arg = tuple(_EscapingArg(x) for x in arg)
        elif hasattr(type(arg), "__getitem__") and not isinstance(arg, str):
            arg = _EscapingMapping(arg)
        else:
            arg = _EscapingArg(arg)
        return Markup(str.__mod__(self, arg))

    def join(self, seq):
        return Markup(str.join(self, (escape(x) for x in seq)))

    def split(self, sep=None, maxsplit=-1):
        return [Markup(x) for x in str.split(self, sep, maxsplit)]

    def rsplit(self, sep=None, maxsplit=-1):
        return [Markup(x) for x in str.rsplit(self, sep, maxsplit)]

    def splitlines(self, keepends=False):
        return [Markup(x) for x in str.splitlines(self, keepends)]

    def unescape(self):
        import html
        return html.unescape(str(self))

    def striptags(self):
        text = _cut_spans(str(self), "<!--", "-->")
        text = _cut_spans(text, "<", ">")
        return Markup(" ".join(text.split())).unescape()

    @classmethod
    def escape(cls, s):
        rv = escape(s)
        return rv if type(rv) is cls else cls(rv)


def _cut_spans(text, opener, closer):
    """text without the spans opener...closer (an unclosed opener keeps the rest), comments before tags as
    markupsafe 3 does: one left-to-right pass, where a regex like <[^>]*> rescans the rest of the text from every
    unclosed '<'."""
    out = []
    pos = 0
    while True:
        start = text.find(opener, pos)
        if start < 0:
            break
        end = text.find(closer, start)  # markupsafe: '<!-->' is a whole comment
        if end < 0:
            break
        out.append(text[pos:start])
        pos = end + len(closer)
    out.append(text[pos:])
    return "".join(out)


def _wrap_str_method(name):
    original = getattr(str, name)

    def method(self, *args, **kwargs):
        args = tuple(escape(a) if isinstance(a, str) else a for a in args)
        kwargs = {k: escape(v) if isinstance(v, str) else v for k, v in kwargs.items()}
        return Markup(original(self, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = original.__doc__
    return method


for _name in ("__getitem__", "capitalize", "title", "lower", "upper", "replace", "ljust", "rjust", "lstrip",
              "rstrip", "center", "strip", "translate", "expandtabs", "swapcase", "zfill", "casefold",
              "removeprefix", "removesuffix"):
    setattr(Markup, _name, _wrap_str_method(_name))


def _wrap_partition(name):
    original = getattr(str, name)

    def method(self, sep):
        return tuple(Markup(x) for x in original(self, escape(sep)))
    method.__name__ = name
    return method


Markup.partition = _wrap_partition("partition")
Markup.rpartition = _wrap_partition("rpartition")


class _EscapingArg:
    """Escapes its value when %-formatting asks for str/repr."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __getitem__(self, key):
        return _EscapingArg(self.value[key])

    def __str__(self):
        return str(escape(self.value))

    def __repr__(self):
        from .printing import safe_repr
        return str(escape(safe_repr(self.value)))

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __index__(self):
        return self.value.__index__()


class _EscapingMapping:
    __slots__ = ("mapping",)

    def __init__(self, mapping):
        self.mapping = mapping

    def __getitem__(self, key):
        return _EscapingArg(self.mapping[key])
