"""Methods: the str and bytes methods a template may call — their size checks, and `fmt % args` (the `%`
operator and the |format filter) — each bounded before anything is built."""

# Each check looks at the arguments it understands and bounds the result; the real method then runs with the
# original arguments, so argument errors are Python's own, but for keyword arguments, which a method of a built-in
# type refuses as CPython 3.11 does (check_keywords) on every interpreter. Encoding and
# decoding go through an allowlist of codecs (the UTF family and single-byte ones: linear, and none of them kept in
# Python's codec cache under a name a template made up) and of error handlers, with the expansion each can cause.
# sandbox.py hands these out with the methods (its _CheckedMethod); it bounds str.format with the field sizes
# markup.py measures.
#
# `%`-formatting: Python's own is used for the result, so every quirk is Python's; what this module adds is a
# scanner that reads the format as Python does (a `%(key)` balances its parentheses, widths and precisions may be
# `*`), to know the exact fields and bound the result — every width, precision and field value — before Python
# allocates it. Values that are not plain data are printed the sandbox's way (no addresses, bounded).

import codecs
import collections
import encodings
from encodings import normalize_encoding
from encodings.aliases import aliases as _ALIASES
from operator import index, indexOf

from ..core.budget import take
from ..core.errors import SecurityError, jinja2_named
from ..core.state import CHAR_SHIFT, MISSING, check_items, check_str_size, current_state, limit_exceeded
from .markup import Markup
from .printing import safe_repr, to_str
from .undefined import Undefined

__all__ = ["STR_METHOD_CHECKS", "BYTES_METHOD_CHECKS", "sequence_index", "check_keywords", "percent_format",
           "mapping_item", "named_field"]


def _check_width(limits, s, width=0, *args, **kwargs):
    if isinstance(width, int):
        check_str_size(limits, width)


@jinja2_named("expandtabs", "at_most", uncounted=2)
def _check_expandtabs(limits, s, tabsize=8, **kwargs):
    if isinstance(tabsize, int):
        check_str_size(limits, len(s) + s.count("\t" if isinstance(s, str) else b"\t") * max(tabsize, 0))


@jinja2_named("replace", "method", uncounted=2)
def _check_replace(limits, s, old="", new="", count=-1, **kwargs):
    count = kwargs.get("count", count)
    if type(count) is not int:
        index(count)   # (CPython's TypeError, not PyPy's reading through __int__)
    if isinstance(old, str) and isinstance(new, str):
        old_size, new_size = len(old), len(new)
    elif isinstance(s, str):
        return   # (str.replace's own TypeError)
    else:
        old_size, new_size = _byte_size(old), _byte_size(new)
        if old_size is None or new_size is None:
            return   # (bytes.replace's own TypeError)
    if new_size > old_size:
        occurrences = s.count(old) if old_size else len(s) + 1
        if isinstance(count, int) and count >= 0:
            occurrences = min(occurrences, count)
        check_str_size(limits, len(s) + occurrences * (new_size - old_size))


def _byte_size(value):
    # The size of a bytes-like argument of a bytes method; None for anything else (the method raises then).
    try:
        return memoryview(value).nbytes
    except TypeError:
        return None


def _check_translate(limits, s, table=None, *args):
    # A table maps ordinals to strings: a dict (its values), a list or tuple (its items), a str (one character
    # each). The longest replacement bounds the result.
    if isinstance(table, dict):
        entries = table.values()
    elif isinstance(table, (list, tuple)):
        entries = table
    else:
        return
    longest = max((len(v) if isinstance(v, str) else 1 for v in entries), default=1)
    check_str_size(limits, len(s) * longest)


# every character str.isspace() accepts (written out: computing it walks 12 000 characters, ~1 ms of a cold start;
# tests/test_security.py checks it against the running Python)
_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
           "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _count_any(s, chars):
    if s.isascii():
        chars = [c for c in chars if c < "\x80"]
    return sum(map(s.count, chars))


def _check_split(limits, s, sep=None, maxsplit=-1, *args, **kwargs):
    # str.split and bytes.split (by ASCII whitespace when sep is None)
    if isinstance(s, str):
        items = s.count(sep) if isinstance(sep, str) and sep else _count_any(s, _SPACES)
    elif sep is None:
        items = sum(map(s.count, (b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c")))
    elif _byte_size(sep):
        items = s.count(sep)
    else:
        return   # (bytes.split's own error)
    if isinstance(maxsplit, int) and maxsplit >= 0:
        items = min(items, maxsplit)
    check_items(limits, items + 1, "a split")


def _check_splitlines(limits, s, *args, **kwargs):
    breaks = _count_any(s, _LINE_BREAKS) if isinstance(s, str) else s.count(b"\n") + s.count(b"\r")
    check_items(limits, breaks + 1, "a split")


def _check_hex(limits, b, *args, **kwargs):
    # two characters a byte, and a separator between groups of them
    check_str_size(limits, len(b) * (3 if args or kwargs else 2), "a hex string")


# ------------------------------------------------------------------------------------------------- codecs
# The codecs a template may use, by the module name Python's encodings package gives them → the most bytes one
# character can become (all of them linear). A name is spelled out as Python would (encodings.normalize_encoding
# and its aliases), and the codec is then called by that module name: Python's codec cache only ever sees these.
_CODECS = {
    "utf_8": 4, "utf_8_sig": 4, "utf_16": 4, "utf_16_le": 4, "utf_16_be": 4, "utf_32": 4, "utf_32_le": 4,
    "utf_32_be": 4, "utf_7": 8, "ascii": 1, "latin_1": 1, "unicode_escape": 10, "raw_unicode_escape": 10,
    **dict.fromkeys("""cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 cp437 cp850 iso8859_2
                       iso8859_15 koi8_r koi8_u mac_roman""".split(), 1),
}
_UNIT = {"utf_16": 2, "utf_16_le": 2, "utf_16_be": 2, "utf_32": 4, "utf_32_le": 4, "utf_32_be": 4}
# error handler → the most characters one offending character (or byte) can become
_ERROR_HANDLERS = {"strict": 1, "ignore": 1, "replace": 1, "surrogateescape": 1, "surrogatepass": 1,
                   "backslashreplace": 10, "xmlcharrefreplace": 10, "namereplace": 100}
_codec_modules = []   # the modules of Python's encodings package, listed the first time a name is not allowed


def _codec_name(encoding):
    # The module name of an allowed codec; LookupError (Python's) for a name Python does not know either,
    # SecurityError for a codec Python has that templates may not use.
    spelled = normalize_encoding(encoding.lower())
    name = _ALIASES.get(spelled) or _ALIASES.get(spelled.replace(".", "_")) or spelled
    if name in _CODECS:
        return name
    if not _codec_modules:
        import pkgutil   # only here: a name outside the allowlist is rare, and pkgutil costs start-up time
        _codec_modules.append(frozenset(module.name for module in pkgutil.iter_modules(encodings.__path__)))
    shown = repr(encoding) if len(encoding) <= 60 else repr(encoding[:60]) + "..."
    if name in _codec_modules[0]:
        raise SecurityError(f"the codec {shown} is not available to templates (the UTF codecs, ASCII, the "
                            "escapes and the single-byte ones are)")
    raise LookupError(f"unknown encoding: {shown[1:-1]}")


def _handler_expansion(errors):
    # What one offending character can become under this error handler; None for a name Python does not know
    # (Python only looks a handler up when a character needs it). errors is a str (_codec).
    expansion = _ERROR_HANDLERS.get(errors)
    if expansion is None:
        try:
            codecs.lookup_error(errors)
        except LookupError:
            return None
        raise SecurityError(f"the error handler {errors[:60]!r} is not available to templates "
                            f"({', '.join(_ERROR_HANDLERS)} are)")
    return expansion


def _codec(role, encoding, errors):
    # (the module name of an allowed codec, what one offending character can become under the error handler),
    # after Python's check of both arguments' types, made before it looks the codec up.
    for argument, value in (("encoding", encoding), ("errors", errors)):
        if not isinstance(value, str):
            shown = "None" if value is None else type(value).__name__
            raise TypeError(f"{role}() argument {argument!r} must be str, not {shown}")
    return _codec_name(encoding), _handler_expansion(errors)


def _coded(convert, name, errors, expansion):
    # convert(name, errors), where a handler Python does not know (expansion None) fails as Python fails when a
    # character needs it
    if expansion is not None:
        return convert(name, errors)
    try:
        return convert(name)
    except UnicodeError:
        raise LookupError(f"unknown error handler name {errors[:60]!r}") from None


@jinja2_named("encode", "at_most", uncounted=2)
def _encode(rs, s, encoding="utf-8", errors="strict"):
    name, expansion = _codec("encode", encoding, errors)
    per_char = max(_CODECS[name], (expansion or 1) * _UNIT.get(name, 1))
    # an ASCII character is four bytes at most in every allowed codec (UTF-32, '\\x00'); a BOM four more
    check_str_size(rs.limits, len(s) * (4 if s.isascii() else per_char) + 4, "an encoded string")
    return _coded(s.encode, name, errors, expansion)


@jinja2_named("decode", "at_most", uncounted=2)
def _decode(rs, b, encoding="utf-8", errors="strict"):
    name, expansion = _codec("decode", encoding, errors)
    # a byte decodes to one character at most, or to what the handler makes of it (backslashreplace: \xff)
    check_str_size(rs.limits, len(b) * (4 if errors == "backslashreplace" else 1), "a decoded string")
    return _coded(b.decode, name, errors, expansion)


# ------------------------------------------------------------------------------------------------ the table
def _checked(check, name):
    def method(rs, s, *args, **kwargs):
        check(rs.limits, s, *args, **kwargs)
        return getattr(s, name)(*args, **kwargs)
    return method


def _join(rs, s, *args, **kwargs):
    if kwargs or len(args) != 1:
        # Python's error: the built-in join's, named by the object's type (bytes.join()), or a Markup's own
        if type(s).join not in (str.join, bytes.join, bytearray.join):
            return s.join(*args, **kwargs)
        raise TypeError(f"{type(s).__name__}.join() takes exactly one argument ({len(args)} given)")
    iterable = args[0]
    try:
        iterator = iter(iterable)
    except TypeError:   # (str.join's own message, before take() would give iter()'s)
        raise TypeError("can only join an iterable") from None
    # str.join asks a caller's object for its iterator once, so take() gets that iterator; a built-in sequence
    # goes itself, for take() to size it before it lists it
    items = take(rs, iterable if type(iterable) in (list, tuple, str, dict, range) else iterator, "a join")
    if isinstance(s, str):
        if all(isinstance(x, str) for x in items):
            check_str_size(rs.limits, sum(map(len, items)) + len(s) * max(len(items) - 1, 0))
    else:   # bytes.join, of bytes-like items
        sizes = list(map(_byte_size, items))
        if None not in sizes:
            check_str_size(rs.limits, sum(sizes) + len(s) * max(len(items) - 1, 0))
    return s.join(items)


STR_METHOD_CHECKS = {
    "center": _checked(_check_width, "center"), "ljust": _checked(_check_width, "ljust"),
    "rjust": _checked(_check_width, "rjust"), "zfill": _checked(_check_width, "zfill"),
    "expandtabs": _checked(_check_expandtabs, "expandtabs"), "replace": _checked(_check_replace, "replace"),
    "translate": _checked(_check_translate, "translate"), "join": _join,
    "split": _checked(_check_split, "split"), "rsplit": _checked(_check_split, "rsplit"),
    "splitlines": _checked(_check_splitlines, "splitlines"), "encode": _encode,
}
# the methods of bytes and bytearray that build something bigger than what they read
BYTES_METHOD_CHECKS = {
    "decode": _decode, "join": _join, "hex": _checked(_check_hex, "hex"),
    **{name: STR_METHOD_CHECKS[name] for name in ("center", "ljust", "rjust", "zfill", "expandtabs", "replace",
                                                  "split", "rsplit", "splitlines")},
}


@jinja2_named("index", "method", uncounted=1)
def sequence_index(seq, value, *args):
    # list.index / tuple.index with Python's result and errors, except that a missing value that is not a short
    # scalar is reported as `sequence.index(x): x not in sequence`: list.index puts repr(value) in its message, built
    # before anything could check its size (an undefined's repr is its class's name).
    if type(seq) is tuple or value is None or type(value) in (int, float, bool) or \
            type(value) is str and len(value) <= 200 or isinstance(value, Undefined):
        return seq.index(value, *args)
    start = slice(*args[:2]).indices(len(seq))[0] if args else 0
    try:
        return indexOf(seq[slice(*args[:2])] if args else seq, value) + start
    except ValueError:
        raise ValueError("sequence.index(x): x not in sequence") from None


# The methods of the built-in types on the allowlists that take keyword arguments in CPython 3.11 (the reference's
# Python); the others refuse them, with CPython's message, also where the interpreter takes them (PyPy's
# dict.get(default=1), CPython 3.13's str.replace(count=1)); format and format_map are Jinja2's own wrappers,
# which check their arguments themselves. Methods named alone in CPython's message: _NAMED_ALONE.
_BYTES_KEYWORDS = frozenset({"decode", "hex", "expandtabs", "split", "rsplit", "splitlines", "translate"})
_TAKES_KEYWORDS = {str: frozenset({"encode", "expandtabs", "split", "rsplit", "splitlines", "format",
                                   "format_map"}),
                   bytes: _BYTES_KEYWORDS, bytearray: _BYTES_KEYWORDS,
                   memoryview: frozenset({"hex"}), dict: frozenset({"update"}), list: frozenset({"sort"})}
_NAMED_ALONE = frozenset({"count", "endswith", "find", "index", "rfind", "rindex", "startswith", "difference",
                          "intersection", "union"})
_BUILTIN_TYPES = frozenset({str, dict, list, tuple, set, frozenset, int, float, bytes, bytearray, range, memoryview,
                            collections.deque, type({}.keys()), type({}.items()), type({}.values())})


def check_keywords(obj, name):
    # Refuse keyword arguments to a method of a built-in type that takes none in CPython 3.11.
    base = next((cls for cls in type(obj).__mro__ if cls in _BUILTIN_TYPES), None)
    if base is None or name in _TAKES_KEYWORDS.get(base, ()) or getattr(type(obj), name, None) is not \
            getattr(base, name, None):
        return   # (not a built-in type's own method: a Markup's are Python functions that take keywords)
    if name in _NAMED_ALONE and type(obj) in (str, set, frozenset, bytes, bytearray):
        raise TypeError(f"{name}() takes no keyword arguments")
    raise TypeError(f"{'bool' if type(obj) is bool else base.__name__}.{name}() takes no keyword arguments")


# ------------------------------------------------------------------------------------------- % formatting
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
    elif type(args) is dict:
        args = {k: _plain_or_safe(v, rs) for k, v in args.items()}
    elif not isinstance(args, (str, Undefined)) and _subscriptable(type(args)):
        # Python takes any non-tuple with __getitem__ as the mapping of %(key)s fields (so 'x' % [] is 'x'): its
        # fields are looked up here, once, so that their size is known before formatting
        if _MappingFields == ():
            _make_mapping_fields()
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
_MAX_INT_DIGITS = 4300   # Python's own limit on the digits of an int printed as text (sys.int_info)


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
            numbers_so_far = isinstance(value, (int, float, _SafeNumber))
        total += _field_size(value, conversion)
    return spec_chars, total


def _field_size(value, conversion):
    if isinstance(value, _SafeNumber) and conversion in _NUMERIC:
        return 330   # as a float's (an int's digits are bounded by _SafeNumber.__int__, and checked after)
    if isinstance(value, _SafeText):
        value = value.text
    if isinstance(value, str):
        return len(value) * 10 + 2 if conversion in "ra" else len(value)   # a repr: quotes, escapes
    if isinstance(value, int):
        return value.bit_length() // 3 + 3
    if isinstance(value, float):
        return 330
    return 32


# The stand-ins %-formatting hands Python for values it must not print by itself: their classes are made on first
# use (_make_safe_text, _make_mapping_fields), as few templates %-format anything but plain values and a class costs
# every cold start ~0.07 M instructions. Until then no value is one, and the isinstance checks read ().
_SafeText = _SafeNumber = _MappingFields = ()
_SAFE_MADE, _FIELDS_MADE = [], []   # [(SafeText, SafeNumber)], [MappingFields] once made: racing threads all take
# the first made


def _make_safe_text():
    global _SafeText, _SafeNumber

    class SafeText:
        # Stands in for a non-plain value in %-formatting so %s/%r use the sandbox's printing.
        __slots__ = ("value", "text", "rs")

        def __init__(self, value, rs):
            self.value, self.rs = value, rs
            self.text = to_str(value, rs)

        def __str__(self):
            return self.text

        def __repr__(self):
            return safe_repr(self.value, self.rs)

    class SafeNumber(SafeText):
        # A caller's number that is not an int or a float: %s/%r print it the sandbox's way, %d/%x/%f convert it
        # with its own methods (one it lacks fails as in Python: a TypeError)
        __slots__ = ()

        def __int__(self):
            value = self.value
            adjusted = getattr(value, "adjusted", None)   # a Decimal's exponent: Decimal('1e999999999') is short
            if callable(adjusted) and getattr(value, "is_finite", bool)() and adjusted() >= _MAX_INT_DIGITS:
                # refused before int() builds it: Python builds it, then refuses to print it
                raise ValueError(f"Exceeds the limit ({_MAX_INT_DIGITS} digits) for integer string conversion; "
                                 "use sys.set_int_max_str_digits() to increase the limit")
            return int(value)

        def __float__(self):
            return float(self.value)

        def __index__(self):
            return index(self.value)

    _SAFE_MADE.append((SafeText, SafeNumber))
    _SafeText, _SafeNumber = _SAFE_MADE[0]


def _make_mapping_fields():
    global _MappingFields

    class MappingFields:
        # The mapping of a fmt % mapping whose mapping is not a dict: each key looked up once, its value printed
        # safely, so the size check sees what formatting will use.
        __slots__ = ("mapping", "rs", "found")

        def __init__(self, mapping, rs):
            self.mapping, self.rs, self.found = mapping, rs, {}

        def lookup(self, key):
            if key not in self.found:
                value = named_field(self.mapping, key)
                self.found[key] = _plain_or_safe(value, self.rs)
            return self.found[key]

        __getitem__ = lookup

        def __str__(self):
            return to_str(self.mapping, self.rs)

        def __repr__(self):
            return safe_repr(self.mapping, self.rs)

    _FIELDS_MADE.append(MappingFields)
    _MappingFields = _FIELDS_MADE[0]


def mapping_item(mapping, key):
    # mapping[key] as Python reads it, or MISSING (where Python raises KeyError, IndexError or TypeError), but that
    # a caller's dict is never changed by the read: a defaultdict's __missing__ inserts the key it makes up, so its
    # default_factory() is called for the value and the dict is left as it was (Jinja2 inserts it: a later
    # `|length` or loop there sees the key, here it does not). A Counter's 0 and a caller's own __missing__ are
    # what they answer. A dict subclass without a __getitem__ of its own is read from its own items, not through
    # a __contains__ that may say it has a key it has not.
    if isinstance(mapping, dict) and type(mapping).__getitem__ is dict.__getitem__:
        try:
            value = dict.get(mapping, key, MISSING)
            if value is not MISSING or not hasattr(type(mapping), "__missing__"):
                return value
            if type(mapping).__missing__ is collections.defaultdict.__missing__:
                factory = mapping.default_factory
                return MISSING if factory is None else factory()
            return type(mapping).__missing__(mapping, key)
        except (TypeError, LookupError):   # an unhashable key; a __missing__ that refuses the key
            return MISSING
    try:
        return mapping[key]
    except (TypeError, LookupError):
        return MISSING


def named_field(mapping, key):
    # mapping[key] for a `%(key)s` or format_map field: as Python reads it, but that a dict is read by
    # mapping_item (KeyError for a key it lacks), so that a caller's dict is never changed by the read
    if not isinstance(mapping, dict):
        return mapping[key]
    value = mapping_item(mapping, key)
    if value is MISSING:
        raise KeyError(key)
    return value


def _plain_or_safe(value, rs):
    # an undefined is passed as it is: it prints as Jinja2's does, and %d/%f of it raise UndefinedError
    if value is None or isinstance(value, (str, int, float, Undefined)):
        return value
    if _SafeNumber == ():
        _make_safe_text()
    cls = type(value)
    if hasattr(cls, "__int__") or hasattr(cls, "__float__") or hasattr(cls, "__index__"):
        return _SafeNumber(value, rs)   # a Decimal, a Fraction: %d and %f read it as a number, as Python does
    return _SafeText(value, rs)


def _subscriptable(cls):
    # Python's test for the mapping of %(key)s fields: the instances' type has __getitem__ (not its metaclass:
    # an IntEnum member is a number, though its Enum class has a __getitem__)
    return any("__getitem__" in vars(klass) for klass in cls.__mro__)
