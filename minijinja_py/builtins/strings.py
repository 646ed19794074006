"""String filters: `text | name(args)` → new text, with Jinja2's signatures, defaults and quirks; each sized (and
its work paid for) before it builds its result. Registered in filters.FILTERS with the others."""

import operator
import re

from ..core.budget import charge_result, general_unary
from ..core.errors import FilterArgumentError, state_not_counted
from ..core.state import BIG_STR, CHAR_SHIFT, check_str_size, out_of_fuel, pass_state
from ..runtime.formatting import percent_format
from ..runtime.markup import Markup, escape, soft_str

__all__ = ["do_upper", "do_lower", "do_capitalize", "do_title", "do_trim", "do_center", "do_replace", "do_indent",
           "do_truncate", "do_wordcount", "do_wordwrap", "do_format", "do_string"]



_wrapper_class = None


def _wrapper(**options):
    # A textwrap.TextWrapper that breaks a long word as Python 3.10 and later do, on every interpreter: after the
    # last hyphen that fits, when something other than hyphens comes before it (3.9's breaks at the width).
    global _wrapper_class
    if _wrapper_class is None:
        import textwrap   # only |wordwrap needs it: imported on first use, not at start-up

        class Wrapper(textwrap.TextWrapper):
            def _handle_long_word(self, reversed_chunks, cur_line, cur_len, width):
                chunk, room = reversed_chunks[-1], 1 if width < 1 else width - cur_len
                if self.break_long_words and self.break_on_hyphens and len(chunk) > room:
                    cut = chunk.rfind("-", 0, room)
                    if cut > 0 and chunk[:cut].strip("-"):
                        cur_line.append(chunk[:cut + 1])
                        reversed_chunks[-1] = chunk[cut + 1:]
                        return
                super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)
        _wrapper_class = Wrapper
    return _wrapper_class(**options)

def do_upper(s):
    """Uppercase the string."""
    return soft_str(s).upper()


do_upper.mj_str_method = str.upper


def do_lower(s):
    """Lowercase the string."""
    return soft_str(s).lower()


do_lower.mj_str_method = str.lower


def do_capitalize(s):
    """First character uppercase, the rest lowercase."""
    return soft_str(s).capitalize()


do_capitalize.mj_str_method = str.capitalize


_WORD_BEGINNING = r"([-\s({\[<]+)"   # compiled on first use (re's cache), not at import


@state_not_counted
@pass_state
def do_title(rs, s):
    """Titlecase: words start uppercase (words begin after whitespace, '-', and opening brackets)."""
    s = soft_str(s)
    if len(s) <= _TITLE_CHUNK:
        return _title(s)
    check_str_size(rs.limits, len(s) * (1 if s.isascii() else 3), "a title")  # 'ﬃ'.upper() is 'FFI'
    rs.burn(len(s) >> CHAR_SHIFT)
    # by chunks that end where a run of word-beginning characters starts (their case never changes, and the
    # word after them starts uppercase in either chunk): a string per word is made for one chunk at a time
    pieces = []
    start = 0
    while start < len(s):
        run = re.compile(_WORD_BEGINNING).search(s, start + _TITLE_CHUNK)
        end = run.start() if run is not None else len(s)
        pieces.append(_title(s[start:end]))
        start = end
    return "".join(pieces)


_TITLE_CHUNK = 1 << 12


def _title(s):
    return "".join(item[0].upper() + item[1:].lower() for item in re.split(_WORD_BEGINNING, s) if item)


def do_trim(value, chars=None):
    """Strip leading and trailing whitespace (or chars)."""
    return soft_str(value).strip(chars)


do_trim.mj_str_method = str.strip


@state_not_counted
@pass_state
def do_center(rs, value, width=80):
    """Center the string in a field of width."""
    if isinstance(width, int):
        check_str_size(rs.limits, width)
    return soft_str(value).center(width)


@pass_state
def do_replace(rs, s, old, new, count=None):
    """Replace occurrences of old by new (only the first count ones when count is given)."""
    if count is None:
        count = -1
    elif type(count) is not int:
        count = operator.index(count)   # (CPython's reading, and its TypeError, on every interpreter)
    if not rs.autoescape:
        if type(s) is not str or type(old) is not str or type(new) is not str:   # (plain strings as they are)
            s, old, new = str(soft_str(s)), str(soft_str(old)), str(soft_str(new))
    else:
        # Jinja2's rule: safe text on either side makes the result Markup (then Markup.replace escapes `new`),
        # except that a safe `new` alone leaves a Markup `s` as it is
        html_old, html_new, html_s = (hasattr(x, "__html__") for x in (old, new, s))
        s = escape(soft_str(s)) if html_old or (html_new and not html_s) else soft_str(s)
        old, new = soft_str(old), soft_str(new)
    if len(new) > len(old):
        occurrences = s.count(old) if old else len(s) + 1
        if isinstance(count, int) and count >= 0:  # another count (an undefined) is str.replace's TypeError
            occurrences = min(occurrences, count)
        check_str_size(rs.limits, len(s) + occurrences * (len(new) - len(old)))
    return s.replace(old, new, count)


@state_not_counted
@pass_state
def do_indent(rs, s, width=4, first=False, blank=False):
    """Indent every line but the first by width spaces (or the string width); first/blank indent those too."""
    if isinstance(width, int):
        check_str_size(rs.limits, width, "an indentation")
    indention = width if isinstance(width, str) else " " * width
    newline = "\n"
    if isinstance(s, str) and hasattr(s, "__html__"):
        # Markup, ours or markupsafe's (code written for Jinja2 passes that): the indentation is safe text too,
        # so the lines (Markup) are not escaped when joined
        indention, newline = Markup(indention), Markup(newline)
    if isinstance(s, str):
        check_str_size(rs.limits, len(s) + (s.count("\n") + 2) * len(indention))
    # Jinja2 quirk: the value gets a newline appended before splitlines(), so a trailing newline survives and
    # a non-string value fails on that `+`. Jinja2's `s += newline` extends a list in place before failing on
    # splitlines(); here the caller's list is left alone and the error is the same
    if isinstance(s, list):
        raise AttributeError("'list' object has no attribute 'splitlines'")
    s += newline   # (Jinja2's spelling, and its message for a value that cannot: "for +=")
    lines = s.splitlines()
    if blank:
        rv = (newline + indention).join(lines)
    else:
        rv = lines[0]
        if len(lines) > 1:
            rv += newline + newline.join(indention + line if line else line for line in lines[1:])
    return indention + rv if first else rv


@pass_state
def do_truncate(rs, s, length=255, killwords=False, end="...", leeway=None):
    """Cut the string to length (counting end), at a word boundary unless killwords; leeway (5) is slack."""
    # leeway's default is the environment's policy truncate.leeway (5 unless changed), as in Jinja2
    if leeway is None:
        leeway = rs.env.policies["truncate.leeway"]
    if not length >= len(end):
        raise AssertionError(f"expected length >= {len(end)}, got {length}")
    if not leeway >= 0:
        raise AssertionError(f"expected leeway >= 0, got {leeway}")
    if len(s) <= length + leeway:
        return s
    kept = s[:length - len(end)]
    if not killwords:
        kept = kept.rsplit(" ", 1)[0]
    return kept + end


_WORD = r"\w+"


def do_wordcount(s):
    """Count the words."""
    return len(re.findall(_WORD, soft_str(s)))


@pass_state
def do_wordwrap(rs, s, width=79, break_long_words=True, wrapstring=None, break_on_hyphens=True):
    """Wrap the text to width columns; each existing line is a paragraph wrapped on its own."""
    if wrapstring is None:
        wrapstring = "\n"
    # s is not coerced: Jinja2 fails on a non-string (and looks up wrapstring.join before s.splitlines)
    if isinstance(s, str) and isinstance(width, int) and width > 0 and isinstance(wrapstring, str):
        # every line ends at a space, a newline, or after `width` characters of a long word
        lines = s.count(" ") + s.count("\n") + len(s) // width + 1
        check_str_size(rs.limits, len(s) + lines * len(wrapstring), "wrapped text")
        rs.burn(4 * lines + (len(s) >> CHAR_SHIFT))  # textwrap works a chunk at a time, in Python
    return wrapstring.join(
        wrapstring.join(_wrapper(width=width, expand_tabs=False, replace_whitespace=False,
                                 break_long_words=break_long_words, break_on_hyphens=break_on_hyphens).wrap(line))
        for line in s.splitlines())


@pass_state
def do_format(rs, value, *args, **kwargs):
    """printf-style formatting: "%s, %s"|format(a, b) or "%(x)s"|format(x=1)."""
    if args and kwargs:
        raise FilterArgumentError("can't handle positional and keyword arguments at the same time")
    return percent_format(rs.limits, soft_str(value), kwargs or args)


def do_string(value):
    """Convert to a string (Markup stays Markup)."""
    return soft_str(value)


def _string_unary(rs, value):
    # {{ x|string }}: a str as it is, a number, bool or None by str() (as to_str prints them), charged as
    # general_unary charges the call; anything else through general_unary.
    cls = type(value)
    if cls is str:
        rs.fuel -= 1 if len(value) <= BIG_STR else 1 + (len(value) >> CHAR_SHIFT)
        text = value
    elif cls is int or cls is float or cls is bool or value is None:
        rs.fuel -= 1
        text = str(value)
    else:
        return _string_general(rs, value)
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    return text if len(text) < 16 else charge_result(rs, text)


def _str_method_unary(func):
    # The charged_unary form of a filter that is a str method on a plain string (func.mj_str_method: trim,
    # upper, lower, capitalize): the method applied in line, anything else through general_unary.
    method, general = func.mj_str_method, general_unary(func)

    def kernel(rs, value):
        if type(value) is not str:
            return general(rs, value)
        rs.fuel -= 1 if len(value) <= BIG_STR else 1 + (len(value) >> CHAR_SHIFT)
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        text = method(value)
        return text if len(text) < 16 else charge_result(rs, text)
    func.mj_unary = kernel
    return func


_string_general = general_unary(do_string)
do_string.mj_unary = _string_unary
for _func in (do_upper, do_lower, do_capitalize, do_trim):
    _str_method_unary(_func)


