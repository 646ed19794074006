"""Errors raised while rendering, compared with Jinja2's: the probe behind tests/test_render_errors.py.

Each snippet is a construct given bad data (a wrong type, zero, None, an undefined, a wrong argument); each
placement puts it somewhere in a template (line 1, a later line, a macro, a loop, an if branch, an include, a set
or call or filter block), and every combination is rendered in both engines: Jinja2 as transformers configures it
(differential_ref) and minijinja_py's chat profile. What is compared, for a template that fails in Jinja2:

  kind      differential_ref's kinds (the TemplateError class, or the Python built-in our twin must also be);
  message   the text (Jinja2's `.message`, or str() of a built-in), which transformers shows to its users;
  where     (template, line): the innermost template frame of Jinja2's traceback (its debug rewriting gives a
            template's frames the template's name and line), or `.lineno` of an error Jinja2 locates itself
            (a TemplateSyntaxError); ours `.name` and `.lineno`.

A "multiline" variant of every combination also writes each space inside the tags as a newline, so the parts of
an expression stand on lines of their own (Jinja2 locates an error by the line of the node its generated code
line was written for: an output's expression, a statement's tag). The sweeps add, on a later line, every value of
the context through every filter and test of Jinja2's environment with a few arguments, and every method of the
allowlist called with wrong ones. `known` names the differences README.md lists (Known differences).

    python tests/support/render_errors.py            # the summary: combinations, differences by field
    python tests/support/render_errors.py -v         # and every difference

Imports jinja2 (the test imports it only after pytest.importorskip("jinja2")).
"""

import builtins
import itertools
import re
import sys
import traceback

import jinja2

import differential_ref
import minijinja_py as mj

CONTEXT = {"s": "abc", "n": 1, "f": 1.5, "l": [1, 2], "d": {"a": 1}, "none": None, "e": [], "mixed": [1, "a"],
           "objs": [{"a": 1}, {"b": 2}], "nested": [[1, 2, 3]], "t": True, "x": b"ab"}

# ------------------------------------------------------------------------------------------------- snippets
# Expressions, each printed as {{ E }} (and used as a statement's value where a placement needs one).
EXPRESSIONS = """
s + n | n + s | l * s | s * l | s * s | l + n | d + d | l - l | s - s | s / n | n / s | -s | +s | -l | n ** s
none < n | n < none | s < n | n > s | l < d | d < d | none <= none | n in n | n in none | s in n | l in s
d in l | n not in n
n / 0 | n // 0 | n % 0 | f / 0 | f // 0 | f % 0 | 0 ** -1 | n / (n - 1)
n() | s() | none() | undef() | undef.x() | d.a() | l[0]() | t() | (n)(1) | s.upper()() | d.items()()
none.a | none.a.b | undef.a | undef.a.b | undef['a'] | undef['a'].b | none['a'] | none[0] | n.a.b | n[0].a
l[10].a | d.b.c | d['b']['c'] | l['x'].y | s[0][0][0].x | undef.a() | none.a() | objs[1].a.b | (undef).x
undef + 1 | undef < 1 | undef * 2 | -undef | undef ~ 1 | undef|first | undef|list | undef[0] | 1 in undef
undef|int + 's' | undef|join | undef|length + 's' | undef|tojson | undef|sum | undef|abs | undef|round
n|join | n|join(',') | [1, 2]|join(1) | l|join(none) | objs|join | n|length | n|count | none|length
s|int(base=1) | '12'|int(base=1) | '12'|int(base=99) | '12'|int(base='x') | '12'|int(0, 'x') | s|int('x')
s|float('x') | s|round | none|round | f|round(s) | f|round(2, 'x') | f|round(method='x') | n|round('a', 'b')
s|replace(1, 2) | s|replace('a', 1) | s|replace('a', 'b', 's') | n|replace('a', 'b') | none|replace('a', 'b')
s|indent(s) | s|indent(width=none) | n|indent | l|indent | s|indent(2, s, 1)
s|wordwrap(s) | s|wordwrap(0) | s|wordwrap(-1) | n|wordwrap | s|wordwrap(2, s, s)
s|truncate(s) | s|truncate(-1) | n|truncate | s|truncate(2, 1, 1, s) | s|truncate(1, end=n)
l|dictsort | n|dictsort | s|dictsort | d|dictsort(by='x') | d|dictsort(false, 'x') | objs|dictsort
l|items|list | n|items|list | s|items|list | none|items|list
l|map(attribute='x')|list | l|map('nosuch')|list | l|select('nosuch')|list | l|reject('nosuch')|list
l|selectattr('x')|list | l|selectattr('real', 'nosuch')|list | l|rejectattr('real', 'nosuch')|list
objs|selectattr('a', 'gt', 0)|list | objs|map(attribute='a.b')|list | l|map('int', 'x')|list | l|map|list
n|map('int')|list | n|select|list | l|map(s)|list | l|select(n)|list | objs|map('upper')|list
mixed|sum | mixed|min | mixed|max | mixed|sort | mixed|unique|list | s|sum | n|sum | l|sum(attribute='x')
objs|sum(attribute='a') | objs|sort(attribute='a') | objs|min(attribute='a') | objs|unique(attribute='a')|list
e|first | n|first | e|last | n|last | n|min | n|max | e|min | e|max | none|first | n|sort | n|unique|list
l|batch(0)|list | l|batch(-1)|list | l|slice(0)|list | l|slice(-1)|list | n|batch(2)|list | n|slice(2)|list
l|batch(s)|list | l|slice(s)|list | l|batch(2, fill_with=none)|list
'%d'|format(s) | '%s %s'|format(n) | '%(a)s'|format(n) | '%s'|format | '%'|format(1) | s|format(1)
'{}'|format(1) | '%d'|format(a=1) | '%z'|format(1) | n|format(1)
l|tojson(indent=s) | (undef, 1)|tojson | range|tojson | d|tojson(sort_keys=s) | {1: 2, 'a': 3}|tojson(sort_keys=true)
s|center(s) | s|center(1, 2) | n|reverse | n|list | n|title | n|upper | n|capitalize | n|lower | n|trim
s|attr(n) | s|abs | n|wordcount | n|striptags | n|urlencode | s|urlencode(1) | l|urlencode
l|groupby('x') | mixed|groupby(0)|list | objs|groupby('a')|list | d|groupby('a') | n|groupby('a')
s|filesizeformat | n|filesizeformat(s) | n|xmlattr | l|xmlattr | d|xmlattr(s) | s|default(1, 2, 3)
s|pprint(1) | n|string(1) | s|safe(1) | n|escape(1) | n|forceescape | s|title(1) | s|list(1)
n|truncate(5) | l|random(1) | n|random | e|random | n|dictsort(true)
n is divisibleby 0 | n is divisibleby s | s is divisibleby 2 | f is divisibleby 0 | n is divisibleby(0.0)
n is sameas | n is sameas(1, 2) | n is in n | n is in none | s is lower(1) | n is lower | n is upper
n is eq | n is lt(s) | s is gt(n) | n is callable(1) | n is defined(1) | n is number(1) | n is odd | s is even
f is odd | none is ge(1) | n is in(undef) | s is string(s) | n is equalto | n is ne(1, 2)
s.split(1) | s.join(none) | s.join(n) | s.join([1]) | s.startswith(1) | s.endswith(n) | s.startswith()
'{}{}'.format(1) | '{0}'.format() | '{a}'.format() | '{'.format(1) | '{:d}'.format(s) | '{0.x}'.format(n)
'{0[5]}'.format(l) | '{0[x]}'.format(d) | '{:>{}}'.format(s) | '{!z}'.format(1) | '{0:{1}}'.format(1)
s.replace(1) | s.strip(1) | s.center(s) | s.count() | s.find(1) | s.index('z') | s.rindex('z') | s.zfill(s)
s.ljust() | s.encode(1) | s.splitlines(s) | s.title(1) | s.upper(1) | s.lower(x=1) | s.partition('')
s.rsplit('') | s.split('') | s.split(none, s) | s.format_map(1) | s.capitalize(1) | s.expandtabs(s)
s.removeprefix(1) | s.rjust(-1, 'ab') | s.translate(1) | s.isdigit(1) | s.nosuch() | s.strip(none, 1)
d.get() | d.get(1, 2, 3) | d.items(1) | d.keys(1) | d.values(1) | d.pop('a') | d.update({}) | d.setdefault('a')
l.append(1) | l.index(9) | l.count() | l.pop() | l.sort() | d.clear() | l.extend(n) | d.copy(1) | l.copy(1)
d.get(l) | d[l] | d.x.y | l.index() | l.nosuch()
raise_exception('boom') | raise_exception() | raise_exception(1) | raise_exception('a', 'b')
range() | range(s) | range(1, 2, 0) | range(1, 2, 3, 4) | range(none) | range(f) | range(undef) | range(n=1)
namespace(1) | namespace(_a=1) | namespace(a=1).b.c | namespace(l) | namespace(1, 2) | namespace(none)
dict(1) | dict([1]) | dict(n, n) | dict([[1, 2, 3]]) | dict.fromkeys(n) | dict.fromkeys() | dict(none)
joiner(1, 2) | cycler().next() | cycler(1).next(1) | lipsum(s) | lipsum(1, 2, 3, 4, 5)
strftime_now() | strftime_now(1) | strftime_now('%Q', 1)
undef.a ~ none.b | [none.a] | {'a': none.a} | (n, s + n) | l[s + n] | (s + n) if t else 1 | 1 if s + n else 2
s ~ (1 if t else undef.x) | d[undef.x] | (l|first).x.y
'%s' % () | s % n | '%d' % s | '%(a)s' % l | n % s | '%s %s' % (1,) | '%(a)s' % d | '%c' % s | '%.*f' % (s, 1)
'{a}{b}'.format(**d) | '{0}{1}'.format(*l, 1) | '{}'.format(*n) | s.format(**l) | '{0!r:>{1}}'.format(s, s)
l|batch(2.5)|list | l|batch('2')|list | l|slice(2.5)|list | l|sum(start='a') | s|center(-1) | s|truncate(leeway=s)
s|wordwrap(5, wrapstring=1) | l|join(attribute='x') | objs|map(attribute='a', default=undef)|list
s|indent(first=1, blank=1, width=s) | s|int(default=s, base=8) | s|float(1, 2) | s|trim(1) | s|capitalize(1)
s|filesizeformat | f|round(1.5) | f|int(base=2) | d|xmlattr(autospace=s) | s|xmlattr | l|sort(attribute=1)
mixed|sort(reverse=true) | [none, 1]|max | [none, 1]|unique|list | l|groupby(none) | [d, d]|unique|list
d|items|list|sort | [[1], 'a']|sort | l|map('default', 1, 2, 3)|list | l|select('divisibleby', 0)|list
l|select('in', n)|list | objs|selectattr('a', 'equalto')|list | l|map('round', 's')|list | e|sum(attribute='a')
d.items()[0] | d.keys()[0] | (d.values()|list)[5].x | d['a']['b'] | l[1:s] | l[::0] | s[::0] | l[none:none:0]
s[1.5] | l[1.5] | l[[]] | d[[]] | d[{}] | (1, 2)[s] | range(3)[s] | range(3)[::0] | s[-9].x | {}[n]
n.real.x.y | s.upper.x | l.append.x | f.is_integer(1) | n.bit_length(1) | n.to_bytes() | s.encode('nosuch')
l|first(**l) | n is eq(**l) | l|first(*n) | n is odd(*n) | range(**l) | {{}} | [1, 2].index(s) | [[]].count(none, 1) | namespace(a=1).a.b | joiner()(1) | cycler(1, 2).next(1)
"""

# Statements: whole tags. `@E` is replaced by a failing expression in the sweep of EXPRESSIONS' places.
STATEMENTS = """
{% for i in n %}{% endfor %} | {% for i in none %}{% endfor %} | {% for a, b in l %}{% endfor %}
{% for a, b in nested %}{% endfor %} | {% for a, b in ['abc'] %}{% endfor %} | {% for a, b in [[1]] %}{% endfor %}
{% for i in l %}{{ loop.cycle() }}{% endfor %} | {% for i in l %}{{ loop(l) }}{% endfor %}
{% for i in l recursive %}{{ loop(n) }}{% endfor %} | {% for i in l recursive %}{{ loop() }}{% endfor %}
{% for i in l recursive %}{{ loop(l, l) }}{% endfor %} | {% for i in l %}{{ loop.cycle(1, 2, x=1) }}{% endfor %}
{% for i in l if i.x.y %}{% endfor %} | {% for i in l %}{{ loop.changed() }}{{ loop.nosuch() }}{% endfor %}
{% for i in [l] recursive %}{{ loop(i) }}{% endfor %} | {% for i in l %}{{ i.x.y }}{% endfor %}
{% for i in l %}{% else %}{{ n() }}{% endfor %} | {% for i in e %}{% else %}{{ n() }}{% endfor %}
{% for i in [1] recursive %}{{ loop([1]) }}{% endfor %} | {% for i in l %}{{ loop.cycle(*n) }}{% endfor %}
{% for i in l %}{{ loop.changed(*n) }}{% endfor %} | {% for i in l %}{% break %}{{ n() }}{% endfor %}{{ n() }}
{% for a, b, c in d.items() %}{% endfor %} | {% for (a, b), c in [[1, 2]] %}{% endfor %} | {% for i in l|map('x') %}{% endfor %}
{% for i in s recursive %}{{ loop(i) }}{% endfor %} | {% for i in l %}{{ loop.previtem.x }}{% endfor %}
{% for k, v in d %}{% endfor %} | {% for k, v in d.items() %}{{ v.a.b }}{% endfor %}
{% set a, b = n %} | {% set a, b = [1, 2, 3] %} | {% set a, b = s %} | {% set ns.x = 1 %} | {% set s.x = 1 %}
{% set ns = namespace() %}{% set ns._x = 1 %} | {% set ns = namespace() %}{{ ns.a.b }}
{% set ns = namespace() %}{{ ns.x() }} | {% set x %}{{ n() }}{% endset %} | {% set x|int(base=1) %}1{% endset %}
{% set x = n %}{{ x() }} | {% set d2 = dict(a=1) %}{{ d2.a.b.c }}
{% set a, b = none %} | {% set (a, b), c = [1, 2] %} | {% set ns = namespace(x=1) %}{% set ns.x.y = 1 %}
{% set ns = namespace() %}{% set ns = ns.x.y %} | {% set l.x = 1 %} | {% set none.x = 1 %}
{% set ns = namespace() %}{% for i in l %}{% set ns.a = ns.a + 1 %}{% endfor %}
{% macro m(a) %}{% endmacro %}{{ m(1, 2) }} | {% macro m(a) %}{% endmacro %}{{ m(b=1) }}
{% macro m(a) %}{% endmacro %}{{ m(1, a=1) }} | {% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}
{% macro m() %}{% endmacro %}{{ m(caller=1) }} | {% macro m() %}{% endmacro %}{{ m(1) }}
{% macro m(a) %}{{ a.b.c }}{% endmacro %}{{ m(none) }} | {% macro m() %}{% endmacro %}{{ m.x.y }}
{% macro m(a, b) %}{% endmacro %}{{ m(1, 2, 3, x=4) }} | {% macro m() %}{{ varargs[0] }}{% endmacro %}{{ m() }}
{% macro m() %}{{ kwargs.a.b }}{% endmacro %}{{ m() }} | {% macro m() %}{{ m() }}{% endmacro %}{{ m() }}
{% macro m() %}{{ caller(1) }}{% endmacro %}{% call m() %}{% endcall %}
{% macro m() %}{{ caller() }}{% endmacro %}{% call(a) m() %}{{ a.b }}{% endcall %}
{% macro m() %}{{ caller(1, 2) }}{% endmacro %}{% call(a) m() %}{% endcall %}
{% macro m() %}{{ caller(b=1) }}{% endmacro %}{% call(a) m() %}{% endcall %}
{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{{ n() }}{% endcall %}
{% macro m(a, a2=a.x.y) %}{% endmacro %}{{ m(1) }} | {% macro m(a=n()) %}{% endmacro %}{{ m() }}
{% macro m() %}{{ caller.x.y }}{% endmacro %}{% call m() %}{% endcall %} | {{ caller() }}
{% macro m(*a) %}{% endmacro %}{{ m(x=1) }} | {% macro m(a) %}{% endmacro %}{{ m(*n) }} | {% macro m(a) %}{% endmacro %}{{ m(**l) }}
{% macro m() %}{% endmacro %}{{ m(*l) }} | {% macro m() %}{{ caller(1, x=2) }}{% endmacro %}{% call(a, x) m() %}{{ x.y.z }}{% endcall %}
{% call n() %}{% endcall %} | {% call undef() %}{% endcall %} | {% call none.x() %}{% endcall %}
{% filter n %}x{% endfilter %} | {% filter int(base=1) %}1{% endfilter %} | {% filter replace(1, 2) %}x{% endfilter %}
{% include undef %} | {% include n %} | {% include 'nosuch' %} | {% include none %} | {% import 'nosuch' as m %}
{% from 'nosuch' import a %} | {% include ['a', 'b'] %} | {% include [] %}
{% with a = n %}{{ a() }}{% endwith %} | {% with a = n() %}{% endwith %}
{% if n() %}{% endif %} | {% if t %}{% elif n() %}{% endif %} | {% if false %}{% elif n() %}{% endif %}
{% print n() %} | {% if s < n %}{% endif %} | {% generation %}{{ n() }}{% endgeneration %}
{{ n|nosuch }} | {{ n is nosuch }} | {{ n is not nosuch(1) }} | {% if t %}{{ n|nosuch }}{% endif %}
{% if t %}{{ n is nosuch }}{% endif %} | {{ n|nosuch if t }} | {{ 1 if n is nosuch }} | {{ n|default|nosuch|list }}
{% set x = n|nosuch %} | {% for i in l|nosuch %}{% endfor %} | {% if n is nosuch %}{% endif %}
"""

# Where a snippet S goes: (name, template with @S, {name: source} of other templates).
PLACEMENTS = [
    ("line1", "@S", {}),
    ("later", "a\nb\n\n@S", {}),
    ("after_output", "{{ s }}\n{{ n }}\n@S\nz", {}),
    ("macro", "{% macro mm() %}\nx\n@S{% endmacro %}\n\n{{ mm() }}", {}),
    ("loop", "{% for i in [1] %}\n\n@S{% endfor %}", {}),
    ("if", "{% if true %}\n@S\n{% endif %}", {}),
    ("elif", "{% if false %}{% elif true %}\n\n\n@S{% endif %}", {}),
    ("include", "a\n{% include 'inc' %}", {"inc": "\nb\n@S"}),
    ("import", "{% import 'lib' as lib %}\n{{ lib.mm() }}", {"lib": "{% macro mm() %}\n\n@S{% endmacro %}"}),
    ("set_block", "{% set v %}\n\n@S{% endset %}{{ v }}", {}),
    ("call_block", "{% macro mm() %}{{ caller() }}{% endmacro %}\n{% call mm() %}\n@S{% endcall %}", {}),
    ("filter_block", "{% filter upper %}\n\n@S{% endfilter %}", {}),
    ("extends", "{% extends 'base' %}{% block b %}\n@S{% endblock %}", {"base": "x\n{% block b %}{% endblock %}"}),
]


SWEPT_PLACEMENTS = ("later",)   # (a line past the first: the line is checked too)


def _split(text):
    return [part.strip() for line in text.strip().splitlines() for part in line.split(" | ") if part.strip()]


def _arities():
    # every filter and test of Jinja2's environment given too many arguments, and a keyword it does not take
    env = _reference_env()
    for name in sorted(env.filters):
        if name != "random":   # (its result is not deterministic)
            yield f"s|{name}(1, 2, 3, 4, 5, 6, 7)"
            yield f"l|{name}(nokey=1)"
    for name in sorted(name for name in env.tests if name.isidentifier()):   # (`is ==` does not parse)
        yield f"n is {name}(1, 2, 3, 4, 5, 6, 7)"
        yield f"n is {name}(nokey=1)"


_VALUES = ("s", "n", "f", "l", "d", "none", "e", "mixed", "objs", "undef", "t")
_ARGUMENTS = ("", "(s)", "(n)", "(none)", "(l)", "(-1)", "(0)", "(n, s)", "(attribute=n)")


_SWEPT = {"map", "select", "reject", "selectattr", "rejectattr", "batch", "slice", "items"}   # (lazy: listed)
_METHOD_ARGUMENTS = ("()", "(1)", "(none)", "(l)", "(s, 1)", "(1, 2, 3)", "(x=1)", "(s, s, s, s)", "(-1)", "('')",
                     "(errors=1)", "('utf-8', none)")


def sweeps():
    """{name: snippets} of the sweeps, each rendered on a later line: every value of the context given
    to each filter and test of Jinja2's environment with each of a few arguments, and each method of the allowlist
    (str, list, dict, bytes) called with each of a few wrong arguments."""
    env = _reference_env()
    found = {}
    for name in sorted(env.filters):
        if name != "random":
            listed = "|list" if name in _SWEPT else ""
            found[f"filter {name}"] = [f"{{{{ {value}|{name}{arguments}{listed} }}}}"
                                      for value in _VALUES for arguments in _ARGUMENTS]
    for name in sorted(name for name in env.tests if name.isidentifier()):
        found[f"test {name}"] = [f"{{{{ {value} is {name}{arguments} }}}}" for value in _VALUES
                                 for arguments in _ARGUMENTS]
    methods = {"s": [m for m in dir("") if not m.startswith("_")], "l": ["index", "count", "copy"],
               "d": ["get", "items", "keys", "values", "copy"], "x": ["decode", "hex"]}
    for value, names in methods.items():
        for name in names:
            found[f"method {value}.{name}"] = [f"{{{{ {value}.{name}{arguments} }}}}" for arguments in _METHOD_ARGUMENTS]
    return found


def snippets():
    """Every snippet: an expression printed, or a statement."""
    expressions = _split(EXPRESSIONS) + list(_arities())
    return ["{{ " + expr + " }}" for expr in expressions] + _split(STATEMENTS)


_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_STRING = re.compile(r"'[^']*'|\"[^\"]*\"")


def multiline(source):
    """source with every space inside its tags (not inside a string) a newline."""
    def spread(tag):
        pieces = _STRING.split(tag.group(0))
        strings = _STRING.findall(tag.group(0))
        pieces = [piece.replace(" ", "\n") for piece in pieces]
        return "".join(p + s for p, s in itertools.zip_longest(pieces, strings, fillvalue=""))
    return _TAG.sub(spread, source)


def combinations(chosen=None, placements=None, spreads=(False, True)):
    """(label, source, templates) of every snippet (or the chosen ones) in every placement (or the named ones),
    each also multi-line."""
    for snippet in chosen or snippets():
        for name, frame, templates in PLACEMENTS:
            if placements is not None and name not in placements:
                continue
            for spread in spreads:
                piece = multiline(snippet) if spread else snippet
                source = frame.replace("@S", piece)
                others = {k: v.replace("@S", piece) for k, v in templates.items()}
                yield (f"{name}{'/multiline' if spread else ''}: {snippet}", source, others)


# ------------------------------------------------------------------------------------------------- outcomes
class _NamedLoader(jinja2.BaseLoader):
    # A DictLoader whose templates' filename is their name, so a traceback tells which template a frame is in.
    def __init__(self, templates):
        self.templates = templates

    def get_source(self, environment, template):
        if template not in self.templates:
            raise jinja2.TemplateNotFound(template)
        return self.templates[template], template, lambda: True


_ref_env = None


def _reference_env():
    global _ref_env
    if _ref_env is None:
        _ref_env = differential_ref._build_reference_env(True, True)
    return _ref_env


def _jinja2_where(exc):
    # (template, line): Jinja2's own location for a syntax error; the innermost template frame otherwise
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return (exc.name, exc.lineno)
    where = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == "<template>":
            where = (None, frame.lineno)
        elif frame.filename in ("inc", "lib", "base"):
            where = (frame.filename, frame.lineno)
    return where


def _message(exc):
    message = getattr(exc, "message", None)
    return str(message) if message is not None else str(exc)   # (raise_exception(1): the int 1 in Jinja2)


# A generator printed: ours shows no memory address, and its function's name is not Jinja2's (README, Printing)
_GENERATOR = re.compile(r"<generator object \w+>", re.I)


def reference_outcome(source, templates):
    env = _reference_env()
    env.loader = _NamedLoader(templates)
    try:
        text = env.from_string(source).render(differential_ref._copy(CONTEXT))
        return ("ok", _GENERATOR.sub("<generator object>", differential_ref._ADDRESS.sub(r"\1", text)))
    except Exception as exc:  # noqa: BLE001 - the reference's error is the expectation
        return ("error", differential_ref.reference_kind(exc), _message(exc), _jinja2_where(exc))


def mj_outcome(source, templates):
    env = differential_ref.mj_env()
    env.loader = mj.DictLoader(templates)
    try:
        return ("ok", _GENERATOR.sub("<generator object>", env.from_string(source).render(differential_ref._copy(CONTEXT))))
    except Exception as exc:  # noqa: BLE001 - anything but a TemplateError is a difference
        if not isinstance(exc, mj.TemplateError):
            return ("error", "NOT-A-TemplateError", repr(exc), None)
        name = getattr(exc, "loading_template", None) if isinstance(exc, mj.TemplateNotFound) else exc.name
        # (str(): raise_exception(1) keeps the int 1 as its message, as Jinja2's does)
        return ("error", differential_ref.mj_kind(exc), str(exc.message), (name, exc.lineno), exc)


def _same_kind(ref, mine):
    if ref[1] == mine[1]:
        return True
    # a built-in in Jinja2: ours must be a TemplateError that is also that built-in (a subclass's name differs)
    builtin = getattr(builtins, ref[1], None)
    return isinstance(builtin, type) and len(mine) > 4 and isinstance(mine[4], builtin)


def differences(ref, mine):
    """The fields in which two outcomes differ: a subset of ("outcome", "kind", "message", "where")."""
    if ref[0] != mine[0] or ref[0] == "ok":
        return () if ref == mine[:2] else ("outcome",)
    found = []
    if not _same_kind(ref, mine):
        found.append("kind")
    if ref[2] != mine[2]:
        found.append("message")
    if ref[3] != mine[3]:
        found.append("where")
    return tuple(found)


# ------------------------------------------------------------------------------------------ known differences
# Each is in README.md ("Known differences") with its reason.
_ENGINE_OBJECT = r"'([\w.]+) object' has no attribute '(.*)'"
# Statements whose generated code Jinja2 writes before it marks the statement's line: its traceback gives the line
# of what came before (the namespace check of {% set x.attr %}, the values of {% with %}).
_UNMARKED = r"\{% set \w+\.\w+ = .*|\{% with .*"
_DOUBLE_STAR = r"\S+\(\) (argument after \*\* must be a mapping, not \w+)"


def _known_message(ref, mine):
    if ref[1] != mine[1]:
        return None
    if ref[1] == "syntax":
        return "parser-wording"
    if ref[1] == "limit":
        return "design-limits"
    if ref[1] == "undefined":
        theirs, ours = re.fullmatch(_ENGINE_OBJECT, ref[2]), re.fullmatch(_ENGINE_OBJECT, mine[2])
        if theirs and ours and theirs.group(2) == ours.group(2) and ours.group(1).startswith("minijinja_py."):
            return "engine-object-names"
    if ref[1] == "ValueError" and ref[2].endswith(" is not in list") and \
            mine[2] == "sequence.index(x): x not in sequence":
        return "index-of-a-container"
    found = re.fullmatch(_DOUBLE_STAR, ref[2])
    if ref[1] == "TypeError" and found and mine[2] == found.group(1):
        return "double-star-callee"
    return None


def _known_where(placement, snippet, ref, mine):
    if placement.endswith("/multiline"):
        return "multi-line-location"
    if mine[2].startswith("sequence item ") and (ref[3] is None or ref[3][1] < mine[3][1]):
        return "output-not-text-first"   # (Jinja2 fails where it joins the output, ours where the piece is made)
    if re.fullmatch(_UNMARKED, snippet) and ref[3][1] < mine[3][1]:
        return "unmarked-statement-line"
    return None


def known(label, ref, mine, fields):
    """The README's names for a difference between these outcomes ("a+b" for two), or None if one is not known."""
    placement, _, snippet = label.partition(": ")
    if fields == ("outcome",):
        # a method minijinja_py does not hand out (README, Security model)
        return "method-allowlist" if ref[0] == "ok" and mine[1] == "undefined" and "has no attribute" in mine[2] \
            else None
    reasons = []
    for field in fields:
        reason = None if field == "kind" else _known_message(ref, mine) if field == "message" else \
            _known_where(placement, snippet, ref, mine)
        if reason is None:
            return None
        reasons.append(reason)
    return "+".join(reasons)


def probe(combos=None):
    """[(label, source, templates, reference outcome, our outcome, fields that differ)] over the combinations."""
    results = []
    for label, source, templates in combos or combinations():
        ref = reference_outcome(source, templates)
        mine = mj_outcome(source, templates)
        results.append((label, source, templates, ref, mine, differences(ref, mine)))
    return results


def main(argv):
    verbose = "-v" in argv or "-vv" in argv
    swept = [snippet for group in sweeps().values() for snippet in group]
    results = probe() + probe(combinations(swept, SWEPT_PLACEMENTS, spreads=(False,)))
    failing = [r for r in results if r[3][0] == "error"]
    differing = [r for r in results if r[5]]
    by_field, by_known = {}, {}
    for r in differing:
        for field in r[5]:
            by_field[field] = by_field.get(field, 0) + 1
        reason = known(r[0], r[3], r[4], r[5])
        by_known[reason] = by_known.get(reason, 0) + 1
    if verbose:
        seen = set()
        for label, source, templates, ref, mine, fields in differing:
            key = (label.partition(": ")[2], fields, "multiline" in label)
            if key in seen and "-vv" not in argv or known(label, ref, mine, fields) and "-vv" not in argv:
                continue
            seen.add(key)
            print(f"{'/'.join(fields)}  {label}\n    {source!r} {templates or ''}\n    Jinja2 {ref}\n"
                  f"    ours   {mine[:4]}")
    print(f"{len(results)} combinations, {len(failing)} fail in Jinja2, {len(differing)} differ: {by_field}; "
          f"known: {by_known}")


if __name__ == "__main__":
    main(sys.argv[1:])
