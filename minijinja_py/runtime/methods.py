"""Methods: the size checks of the str and bytes methods a template may call, made before the method runs.

Each check looks at the arguments it understands and bounds the result; the real method then runs with the
original arguments, so argument errors are Python's own, but for keyword arguments, which a method of a built-in
type refuses as CPython 3.11 does (check_keywords) on every interpreter. Encoding and
decoding go through an allowlist of codecs (the UTF family and single-byte ones: linear, and none of them kept in
Python's codec cache under a name a template made up) and of error handlers, with the expansion each can cause.
sandbox.py hands these out with the methods (its _CheckedMethod).
"""

import codecs
import collections
import encodings
from encodings import normalize_encoding
from encodings.aliases import aliases as _ALIASES
from operator import index, indexOf

from ..core.budget import take
from ..core.errors import SecurityError
from ..core.state import check_items, check_str_size

__all__ = ["STR_METHOD_CHECKS", "BYTES_METHOD_CHECKS", "sequence_index", "check_keywords"]


def _check_width(limits, s, width=0, *args, **kwargs):
    if isinstance(width, int):
        check_str_size(limits, width)


def _check_expandtabs(limits, s, tabsize=8, **kwargs):
    if isinstance(tabsize, int):
        check_str_size(limits, len(s) + s.count("\t") * max(tabsize, 0))


def _check_replace(limits, s, old="", new="", count=-1, **kwargs):
    count = kwargs.get("count", count)
    if type(count) is not int:
        index(count)   # (CPython's TypeError, not PyPy's reading through __int__)
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        occurrences = s.count(old) if old else len(s) + 1
        if isinstance(count, int) and count >= 0:
            occurrences = min(occurrences, count)
        check_str_size(limits, len(s) + occurrences * (len(new) - len(old)))


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
    return sum(s.count(c) for c in chars)


def _check_split(limits, s, sep=None, maxsplit=-1, *args, **kwargs):
    if isinstance(sep, str) and sep:
        items = s.count(sep) + 1
    else:
        items = _count_any(s, _SPACES) + 1
    if isinstance(maxsplit, int) and maxsplit >= 0:
        items = min(items, maxsplit + 1)
    check_items(limits, items, "a split")


def _check_splitlines(limits, s, *args, **kwargs):
    check_items(limits, _count_any(s, _LINE_BREAKS) + 1, "a split")


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


def _codec_name(encoding, role):
    # The module name of an allowed codec; LookupError (Python's) for a name Python does not know either,
    # SecurityError for a codec Python has that templates may not use.
    if not isinstance(encoding, str):
        raise TypeError(f"{role}() argument 'encoding' must be str, not {type(encoding).__name__}")
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
    # (Python only looks a handler up when a character needs it).
    if not isinstance(errors, str):
        raise TypeError(f"argument 'errors' must be str, not {type(errors).__name__}")
    expansion = _ERROR_HANDLERS.get(errors)
    if expansion is None:
        try:
            codecs.lookup_error(errors)
        except LookupError:
            return None
        raise SecurityError(f"the error handler {errors[:60]!r} is not available to templates "
                            f"({', '.join(_ERROR_HANDLERS)} are)")
    return expansion


def _encode(rs, s, encoding="utf-8", errors="strict"):
    name = _codec_name(encoding, "encode")
    expansion = _handler_expansion(errors)
    per_char = max(_CODECS[name], (expansion or 1) * _UNIT.get(name, 1))
    # an ASCII character is four bytes at most in every allowed codec (UTF-32, '\\x00'); a BOM four more
    check_str_size(rs.limits, len(s) * (4 if s.isascii() else per_char) + 4, "an encoded string")
    if expansion is None:
        try:
            return s.encode(name)
        except UnicodeError:
            raise LookupError(f"unknown error handler name {errors[:60]!r}") from None
    return s.encode(name, errors)


def _decode(rs, b, encoding="utf-8", errors="strict"):
    name = _codec_name(encoding, "decode")
    expansion = _handler_expansion(errors)
    # a byte decodes to one character at most, or to what the handler makes of it (backslashreplace: \xff)
    check_str_size(rs.limits, len(b) * (4 if errors == "backslashreplace" else 1), "a decoded string")
    if expansion is None:
        try:
            return b.decode(name)
        except UnicodeError:
            raise LookupError(f"unknown error handler name {errors[:60]!r}") from None
    return b.decode(name, errors)


# ------------------------------------------------------------------------------------------------ the table
def _checked(check, name):
    def method(rs, s, *args, **kwargs):
        check(rs.limits, s, *args, **kwargs)
        return getattr(s, name)(*args, **kwargs)
    return method


def _join(rs, s, iterable):
    items = take(rs, iterable, "a join")
    if all(isinstance(x, str) for x in items):
        check_str_size(rs.limits, sum(map(len, items)) + len(s) * max(len(items) - 1, 0))
    return s.join(items)


STR_METHOD_CHECKS = {
    "center": _checked(_check_width, "center"), "ljust": _checked(_check_width, "ljust"),
    "rjust": _checked(_check_width, "rjust"), "zfill": _checked(_check_width, "zfill"),
    "expandtabs": _checked(_check_expandtabs, "expandtabs"), "replace": _checked(_check_replace, "replace"),
    "translate": _checked(_check_translate, "translate"), "join": _join,
    "split": _checked(_check_split, "split"), "rsplit": _checked(_check_split, "rsplit"),
    "splitlines": _checked(_check_splitlines, "splitlines"), "encode": _encode,
}
BYTES_METHOD_CHECKS = {"decode": _decode}


def sequence_index(seq, value, *args):
    # list.index / tuple.index with Python's result and errors, except that a missing value that is not a short
    # scalar is reported as `sequence.index(x): x not in sequence`: list.index puts repr(value) in its message, built
    # before anything could check its size.
    if type(seq) is tuple or value is None or type(value) in (int, float, bool) or \
            type(value) is str and len(value) <= 200:
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
_TAKES_KEYWORDS = {str: frozenset({"encode", "expandtabs", "split", "rsplit", "splitlines", "format",
                                   "format_map"}),
                   bytes: frozenset({"decode", "hex"}), bytearray: frozenset({"decode", "hex"}),
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
    if name in _NAMED_ALONE and type(obj) in (str, set, frozenset):
        raise TypeError(f"{name}() takes no keyword arguments")
    raise TypeError(f"{'bool' if type(obj) is bool else base.__name__}.{name}() takes no keyword arguments")
