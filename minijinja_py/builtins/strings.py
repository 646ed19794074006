"""String filters: `text | name(args)` → new text, with Jinja2's signatures, defaults and quirks; each sized (and
its work paid for) before it builds its result. The HTML, URL and JSON ones among them: escape/e, forceescape, safe,
striptags, urlencode, urlize, xmlattr, and the two tojson filters (Jinja2's HTML-safe one, and transformers'
json.dumps one for the chat profile)."""

# Registered with the other builtins in filters.FILTERS; same conventions (one `do_*` per filter, @pass_state
# when the render state is needed).

import _collections_abc as abc   # collections.abc itself, without the module that re-exports it
import operator
import re

from ..core.budget import charge_result, general_unary, take, unary_form
from ..core.errors import FilterArgumentError, jinja2_named, state_not_counted
from ..core.state import BIG_STR, CHAR_SHIFT, check_items, check_str_size, out_of_fuel, pass_state
from ..runtime.markup import Markup, new_markup, escape, soft_str
from ..runtime.methods import percent_format
from ..runtime.printing import to_str
from ..runtime.tojson import plain_json, safe_json_dumps
from ..runtime.undefined import Undefined

__all__ = ["do_upper", "do_lower", "do_capitalize", "do_title", "do_trim", "do_center", "do_replace", "do_indent",
           "do_truncate", "do_wordcount", "do_wordwrap", "do_format", "do_string", "do_escape", "do_forceescape",
           "do_safe", "do_striptags", "do_urlencode", "do_urlize", "do_xmlattr", "do_tojson", "chat_tojson"]


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


def do_lower(s):
    """Lowercase the string."""
    return soft_str(s).lower()


def do_capitalize(s):
    """First character uppercase, the rest lowercase."""
    return soft_str(s).capitalize()


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


# The built-in filters that are a str method on a plain string when given no arguments, with that method
_STR_METHODS = ((do_trim, str.strip), (do_upper, str.upper), (do_lower, str.lower), (do_capitalize, str.capitalize))


def str_method(func):
    # The str method the filter func is on a plain string (_STR_METHODS), which a compiled filter may apply in line,
    # or None. Known by identity (a caller's filter may not hash): a caller's filter wrapping one, or named like one,
    # is called.
    return next((method for builtin, method in _STR_METHODS if builtin is func), None)


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
        html_old, html_new, html_s = hasattr(old, "__html__"), hasattr(new, "__html__"), hasattr(s, "__html__")
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


@jinja2_named("soft_str")
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
    # The charged_unary form of a filter that is a str method on a plain string (str_method: trim, upper, lower,
    # capitalize): the method applied in line, anything else through general_unary.
    method, general = str_method(func), general_unary(func)

    def kernel(rs, value):
        if type(value) is not str:
            return general(rs, value)
        rs.fuel -= 1 if len(value) <= BIG_STR else 1 + (len(value) >> CHAR_SHIFT)
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        text = method(value)
        return text if len(text) < 16 else charge_result(rs, text)
    unary_form(func, kernel)
    return func


_string_general = general_unary(do_string)
unary_form(do_string, _string_unary)
for _func, _ in _STR_METHODS:
    _str_method_unary(_func)


# ---------------------------------------------------------------------------------------- HTML, URL, JSON
def _escape(value):
    # markupsafe's escape(), printing non-strings the sandbox's way (no memory addresses).
    return escape(value if isinstance(value, str) or hasattr(value, "__html__") else to_str(value))


@jinja2_named("escape")
def do_escape(s):
    """HTML-escape (unless already Markup)."""
    return _escape(s)


def do_forceescape(value):
    """HTML-escape even Markup."""
    if hasattr(value, "__html__"):
        value = value.__html__()
    return escape(str(soft_str(value)))


@jinja2_named("do_mark_safe")
def do_safe(value):
    """Mark the value safe: autoescape leaves it alone."""
    if type(value) is str:
        return new_markup(Markup, value)
    if hasattr(value, "__html__"):
        return Markup(value)   # its __html__() text, as markupsafe's Markup(value) reads it (not its str())
    return Markup(soft_str(value))


def _safe_unary(rs, value):
    # {{ x|safe }} of a plain string in one Python call, charged as budget.general_unary charges it.
    if type(value) is not str or len(value) > BIG_STR or len(value) > rs.limits.max_string:
        return _safe_general(rs, value)
    rs.fuel -= 1 + (len(value) >> CHAR_SHIFT)   # the call, and the Markup handed back
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    return new_markup(Markup, value)


def _url_quote(rs, obj, for_qs=False):
    if not isinstance(obj, bytes):
        obj = soft_str(obj).encode("utf-8")
    check_str_size(rs.limits, 3 * len(obj), "a URL-encoded string")   # a byte becomes %XX at most
    rs.burn(len(obj) >> CHAR_SHIFT)
    rv = _quote_from_bytes()(obj, b"" if for_qs else b"/")
    return rv.replace("%20", "+") if for_qs else rv


def _quote_from_bytes():
    global _quote
    if _quote is None:
        from urllib.parse import quote_from_bytes   # only |urlencode needs it: not imported at start-up
        _quote = quote_from_bytes
    return _quote


_quote = None


@state_not_counted
@pass_state
def do_urlencode(rs, value):
    """URL-encode a string, or a dict / list of pairs as a query string."""
    if isinstance(value, str) or not isinstance(value, abc.Iterable):
        return _url_quote(rs, value)
    items = take(rs, value.items() if isinstance(value, dict) else value, "a query string")
    rs.burn(32 * len(items))   # a pair quoted (two calls of _url_quote) and joined, in Python: ~4 µs
    parts = [f"{_url_quote(rs, k, for_qs=True)}={_url_quote(rs, v, for_qs=True)}" for k, v in items]
    check_str_size(rs.limits, sum(map(len, parts)) + len(parts), "a query string")
    return "&".join(parts)


# What urlize links: a scheme or "www." plus a host name, a bare host under a classic top-level domain, or a
# scheme plus an IP address; then an optional port and path. Same language as Jinja2's pattern.
# (patterns given to re's functions as text: compiled on first use and kept in re's cache, not at import)
_LINKABLE = r"""(?ix)
    ^(?:
        (?:https?://|www\.) (?:[\w%-]+\.)* (?:[a-z]{2,63} | xn--[\w%]{2,59})
      | (?:[\w%-]{2,63}\.)+ (?:com|net|int|edu|gov|org|info|mil)
      | https?:// (?: \d{1,3}(?:\.\d{1,3}){3} | \[(?:[\da-f]{0,4}:){2}(?:[\da-f]{0,4}:?){1,6}\] )
    )
    (?::\d{1,5})?
    (?:[/?#]\S*)?
    $"""
_EMAIL = r"^\S+@\w[\w.-]*\.\w+$"
_SCHEME = r"[\w.+-]{2,}:/{0,2}"
_LEADING_PUNCT = ("(", "<", "&lt;")
_TRAILING_PUNCT = (")", ">", ".", ",", "\n", "&gt;")
_BRACKETS = (("(", ")"), ("<", ">"), ("&lt;", "&gt;"))


def _split_punctuation(word):
    # '(www.a.com).' → ('(', 'www.a.com', ').'): opening punctuation, the candidate, closing punctuation.
    start = 0
    while True:
        opener = next((p for p in _LEADING_PUNCT if word.startswith(p, start)), None)
        if opener is None:
            break
        start += len(opener)
    end = len(word)
    while end > start:
        closer = next((p for p in _TRAILING_PUNCT if word.endswith(p, start, end)), None)
        if closer is None:
            break
        end -= len(closer)
    head, middle, tail = word[:start], word[start:end], word[end:]
    # a closing bracket that balances one inside the URL belongs to it: http://a.com/(x)
    for opener, closer in _BRACKETS:
        opened = middle.count(opener)
        if opened <= middle.count(closer):
            continue
        for _ in range(min(opened, tail.count(closer))):
            cut = tail.index(closer) + len(closer)
            middle, tail = middle + tail[:cut], tail[cut:]
    return head, middle, tail


@pass_state
def do_urlize(rs, value, trim_url_limit=None, nofollow=False, target=None, rel=None, extra_schemes=None):
    """Turn URLs (http, https, www., bare domains) and e-mail addresses in the text into links."""
    policies = rs.env.policies   # the defaults of rel, target and extra_schemes, as Jinja2's
    # update() rather than `set(..) | set(..)`: PyPy 7.3.11's JIT crashes (SIGSEGV) on that union once it is hot
    rel_words = set((policies["urlize.rel"] or "").split())
    rel_words.update((rel or "").split())
    if nofollow:
        rel_words.add("nofollow")
    if target is None:
        target = policies["urlize.target"]
    schemes = tuple(extra_schemes if extra_schemes is not None else policies["urlize.extra_schemes"] or ())
    for scheme in schemes:
        if re.fullmatch(_SCHEME, scheme) is None:
            raise FilterArgumentError(f"{scheme!r} is not a valid URI scheme prefix.")
    rel = " ".join(sorted(rel_words))
    link_attrs = (f' rel="{escape(rel)}"' if rel else "") + (f' target="{_escape(target)}"' if target else "")
    text = str(_escape(value))
    # every word may become a link: <a href="https://WORD" ATTRS>WORD</a>; each costs a few regexps in Python
    words = 2 * sum(1 for _ in re.finditer(_SPACE_RUNS, text)) + 1
    rs.burn(8 * words + (len(text) >> CHAR_SHIFT))   # paid for first: the work is the reason for the bound
    check_items(rs.limits, words, "the words urlize reads")
    check_str_size(rs.limits, 2 * len(text) + words * (len(link_attrs) + 40), "urlized text")

    def shown(url):
        if trim_url_limit is not None and len(url) > trim_url_limit:
            return f"{url[:trim_url_limit]}..."
        return url

    words = re.split(_SPACE_RUNS, text)
    for i, word in enumerate(words):
        head, middle, tail = _split_punctuation(word)
        if re.match(_LINKABLE, middle):
            href = middle if middle.startswith(("https://", "http://")) else "https://" + middle
            middle = f'<a href="{href}"{link_attrs}>{shown(middle)}</a>'
        elif middle.startswith("mailto:") and re.match(_EMAIL, middle[7:]):
            middle = f'<a href="{middle}">{middle[7:]}</a>'
        elif ("@" in middle and not middle.startswith(("www.", "@")) and ":" not in middle
              and re.match(_EMAIL, middle)):
            middle = f'<a href="mailto:{middle}">{middle}</a>'
        else:
            scheme = next((x for x in schemes if middle != x and middle.startswith(x)), None)
            if scheme is not None:
                middle = f'<a href="{middle}"{link_attrs}>{middle}</a>'
        words[i] = head + middle + tail
    rv = "".join(words)
    return Markup(rv) if rs.autoescape else rv


_SPACE_RUNS = r"(\s+)"
_ATTR_KEY = r"(?a)[\s/>=]"


@pass_state
def do_xmlattr(rs, d, autospace=True):
    """Render a dict as XML/HTML attributes (None and undefined values skipped)."""
    items = []
    rs.burn(8 * len(d) if hasattr(d, "__len__") else 0)   # an attribute checked and escaped, in Python
    size = 0
    for key, value in d.items():
        if value is None or isinstance(value, Undefined):
            continue
        if re.search(_ATTR_KEY, key) is not None:
            raise ValueError(f"Invalid character in attribute name: {key!r}")
        items.append(f'{_escape(key)}="{_escape(value)}"')
        size += len(items[-1]) + 1
        check_str_size(rs.limits, size, "XML attributes")
    rv = " ".join(items)
    if autospace and rv:
        rv = " " + rv
    return Markup(rv) if rs.autoescape else rv


def do_striptags(value):
    """Remove SGML/XML tags and collapse whitespace."""
    return Markup(str(soft_str(value))).striptags()


# ------------------------------------------------------------------------------------------------------ json
@pass_state
def do_tojson(rs, value, indent=None):
    """JSON for HTML (Jinja2's tojson): keys sorted, <>&' escaped, Markup (policies: json.dumps_*)."""
    # the environment's policies json.dumps_function and json.dumps_kwargs choose the serialiser and its options
    policies = rs.env.policies
    kwargs = dict(policies["json.dumps_kwargs"])
    if indent is not None:
        kwargs["indent"] = indent
    dumps = policies["json.dumps_function"]
    if dumps is None:
        text = safe_json_dumps(rs, value, **kwargs)
    else:   # the caller's own serialiser: its result is bounded once it is made
        text = dumps(value, **kwargs)
        check_str_size(rs.limits, len(text), "JSON")
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                  .replace("'", "\\u0027"))


@jinja2_named("tojson")   # (transformers' function, taking no state)
@state_not_counted
@pass_state
def chat_tojson(rs, x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' tojson: json.dumps(x, ensure_ascii=False, indent, separators, sort_keys), no escaping.
    if indent is None and separators is None and sort_keys is False and type(ensure_ascii) is bool:
        return plain_json(rs, x, ensure_ascii)   # the default layout (tojson(ensure_ascii=false))
    return safe_json_dumps(rs, x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                           sort_keys=sort_keys)


def _chat_tojson_unary(rs, value):
    # {{ x|tojson }} in the chat profile: json.dumps(x, ensure_ascii=False) in one Python call (plain_json),
    # charged as budget.general_unary charges it.
    if type(value) is str and len(value) > BIG_STR:
        return _chat_tojson_general(rs, value)
    rs.fuel -= 1
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    text = plain_json(rs, value, False)
    return text if len(text) < 16 else charge_result(rs, text)


_safe_general, _chat_tojson_general = general_unary(do_safe), general_unary(chat_tojson)
unary_form(do_safe, _safe_unary)
unary_form(chat_tojson, _chat_tojson_unary)
