"""Methods: the size checks of the str and bytes methods a template may call, made before the method runs.

Each check looks at the arguments it understands and bounds the result; the real method then runs with the
original arguments, so argument errors are Python's own (str.replace(count=1) on Python < 3.13, ...). Encoding and
decoding go through an allowlist of codecs (the UTF family and single-byte ones: linear, and none of them kept in
Python's codec cache under a name a template made up) and of error handlers, with the expansion each can cause.
sandbox.py hands these out with the methods (its _CheckedMethod).
"""

from operator import indexOf

from .base import check_items, check_str_size
from .errors import SecurityError
from .budget import take

__all__ = ["STR_METHOD_CHECKS", "BYTES_METHOD_CHECKS", "sequence_index", "codec_allowed"]


def _check_width(limits, s, width=0, *args, **kwargs):
    if isinstance(width, int):
        check_str_size(limits, width)


def _check_expandtabs(limits, s, tabsize=8, **kwargs):
    if isinstance(tabsize, int):
        check_str_size(limits, len(s) + s.count("\t") * max(tabsize, 0))


def _check_replace(limits, s, old="", new="", count=-1, **kwargs):
    count = kwargs.get("count", count)
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        occurrences = s.count(old) if old else len(s) + 1
        if isinstance(count, int) and count >= 0:
            occurrences = min(occurrences, count)
        check_str_size(limits, len(s) + occurrences * (len(new) - len(old)))


def _check_translate(limits, s, table=None, *args):
    """A table maps ordinals to strings: a dict (its values), a list or tuple (its items), a str (one character
    each). The longest replacement bounds the result."""
    if isinstance(table, dict):
        entries = table.values()
    elif isinstance(table, (list, tuple)):
        entries = table
    else:
        return
    longest = max((len(v) if isinstance(v, str) else 1 for v in entries), default=1)
    check_str_size(limits, len(s) * longest)


_SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
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
# Python's normalised names (and aliases) of the codecs a template may use.
_CODECS = frozenset("""
    utf_8 utf8 u8 utf utf8_ucs2 utf8_ucs4 cp65001 utf_8_sig utf_16 utf16 utf_16_le utf_16le utf_16_be utf_16be
    utf_32 utf32 utf_32_le utf_32le utf_32_be utf_32be utf_7 utf7 ascii us_ascii us 646 latin_1 latin1 latin l1
    iso_8859_1 iso8859_1 8859 cp819 cp1252 windows_1252 cp1250 windows_1250 cp1251 windows_1251 cp1253
    windows_1253 cp1254 windows_1254 cp1255 windows_1255 cp1256 windows_1256 cp1257 windows_1257 cp1258
    windows_1258 cp437 437 ibm437 cp850 850 ibm850 iso_8859_2 iso8859_2 latin2 l2 iso_8859_15 iso8859_15 latin9
    l9 koi8_r koi8_u mac_roman macroman macintosh
""".split())
# error handler → the most characters (or bytes) one offending character can become
_ERROR_HANDLERS = {"strict": 1, "ignore": 1, "replace": 3, "surrogateescape": 1, "surrogatepass": 4,
                   "backslashreplace": 10, "xmlcharrefreplace": 10, "namereplace": 100}


def codec_allowed(encoding):
    """Is this codec name (as str.encode/bytes.decode take it) one of the allowed codecs?"""
    if not isinstance(encoding, str) or len(encoding) > 32:
        return False
    return encoding.strip().lower().replace("-", "_").replace(" ", "_") in _CODECS


def _codec_check(limits, size, encoding, errors, plain_ascii):
    if not codec_allowed(encoding):
        shown = repr(encoding[:40]) if isinstance(encoding, str) else f"of type {type(encoding).__name__}"
        raise SecurityError(f"the codec {shown} is not available to templates (the UTF codecs, ASCII and the "
                            "single-byte ones are)")
    expansion = _ERROR_HANDLERS.get(errors) if isinstance(errors, str) else None
    if expansion is None:
        shown = repr(errors[:40]) if isinstance(errors, str) else f"of type {type(errors).__name__}"
        raise SecurityError(f"the error handler {shown} is not available to templates ({', '.join(_ERROR_HANDLERS)}"
                            " are)")
    # every allowed codec writes an ASCII character as one byte (four at most: UTF-16/32), and another one as
    # four bytes at most, or what the error handler makes of it
    check_str_size(limits, size * 4 if plain_ascii else size * max(4, expansion), "an encoded string")


def _encode(rs, s, encoding="utf-8", errors="strict"):
    _codec_check(rs.limits, len(s), encoding, errors, s.isascii())
    return s.encode(encoding, errors)


def _decode(rs, b, encoding="utf-8", errors="strict"):
    _codec_check(rs.limits, len(b), encoding, errors, False)
    return b.decode(encoding, errors)


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
    """list.index / tuple.index with Python's result and errors, except that a missing value that is not a short
    scalar is reported as `sequence.index(x): x not in sequence`: list.index puts repr(value) in its message, built
    before anything could check its size."""
    if type(seq) is tuple or value is None or type(value) in (int, float, bool) or \
            type(value) is str and len(value) <= 200:
        return seq.index(value, *args)
    start = slice(*args[:2]).indices(len(seq))[0] if args else 0
    try:
        return indexOf(seq[slice(*args[:2])] if args else seq, value) + start
    except ValueError:
        raise ValueError("sequence.index(x): x not in sequence") from None
