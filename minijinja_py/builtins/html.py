"""HTML, URL and JSON filters: escape/e, forceescape, safe, striptags, urlencode, urlize, xmlattr, and the two
tojson filters (Jinja2's HTML-safe one, and transformers' json.dumps one for the chat profile).

Registered with the other builtins in filters.FILTERS; same conventions (one `do_*` per filter, @pass_state
when the render state is needed).
"""

import re
import _collections_abc as abc   # collections.abc itself, without the module that re-exports it

from ..core.budget import charge_result, general_unary, take
from ..core.errors import FilterArgumentError, state_not_counted
from ..core.state import BIG_STR, CHAR_SHIFT, check_items, check_str_size, out_of_fuel, pass_state
from ..runtime.markup import Markup, new_markup, escape, soft_str
from ..runtime.printing import to_str
from ..runtime.tojson import plain_json, safe_json_dumps
from ..runtime.undefined import Undefined

__all__ = [
    "do_escape", "do_forceescape", "do_safe", "do_striptags", "do_urlencode", "do_urlize", "do_xmlattr",
    "do_tojson", "chat_tojson",
]


def _escape(value):
    # markupsafe's escape(), printing non-strings the sandbox's way (no memory addresses).
    return escape(value if isinstance(value, str) or hasattr(value, "__html__") else to_str(value))


def do_escape(s):
    """HTML-escape (unless already Markup)."""
    return _escape(s)


def do_forceescape(value):
    """HTML-escape even Markup."""
    if hasattr(value, "__html__"):
        value = value.__html__()
    return escape(str(soft_str(value)))


def do_safe(value):
    """Mark the value safe: autoescape leaves it alone."""
    if type(value) is str:
        return new_markup(Markup, value)
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
    items = list(value.items()) if isinstance(value, dict) else take(rs, value, "a query string")
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
    rel_words = set((rel or "").split()) | set((policies["urlize.rel"] or "").split())
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
do_safe.mj_unary, chat_tojson.mj_unary = _safe_unary, _chat_tojson_unary
