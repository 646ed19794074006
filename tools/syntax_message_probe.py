"""Probe: syntax error messages against Jinja2's.

Generates broken templates (every statement tag and expression position with a token missing, an extra token or
a wrong token, unclosed brackets, bad filter/test/macro/for/set/call syntax, unterminated strings, comments and
raw blocks), compiles each with the reference Jinja2 environment and with minijinja_py's
(tests/support/differential_ref.py), and counts the templates whose error differs in class, message or line,
grouped by Jinja2's message with quoted parts generalised.

    python tools/syntax_message_probe.py [--show N] [--pattern TEXT] [--mutations N | --cuts N] [--seed S]
                                         [--newlines] [--markers]

--mutations N probes N random one-token edits (a token deleted, replaced or inserted) of the templates in
templates/ and tests/cases/ instead; --cuts N as many random character edits (cut there, a few characters deleted,
one inserted). --newlines probes each template with its spaces turned into newlines (tags over several lines: the
line Jinja2 gives each error); --markers with whitespace control on every tag (`{%-`, `-%}`, `{{-`, `-}}`), and
again with `{%+`, `+%}`.

An error that is no template error to Jinja2 (Python's, from the code it generates: `keyword argument repeated`,
`unhashable type`, the digit limit) is compared by its class and message, without Python's line in that code; a
minijinja_py error that is a subclass of that class (TemplateTypeError, PythonSyntaxTwin) is the same kind. Also
counted apart: templates Jinja2 accepts that minijinja_py refuses.
"""

import argparse
import collections
import glob
import os
import random
import re
import sys
import warnings

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_ROOT, "tests", "support"))

import jinja2  # noqa: E402

import differential_ref  # noqa: E402
import minijinja_py as mj  # noqa: E402

# Where a hole `@` stands: every statement tag and expression position.
CONTEXTS = [
    "{{ @ }}", "{{ x @ }}", "{{ @", "{% if @ %}{% endif %}", "{% if x @ %}{% endif %}",
    "{% if x %}{% elif @ %}{% endif %}", "{% if x %}{% else @ %}{% endif %}", "{% if x %}{% endif @ %}",
    "{% for x in @ %}{% endfor %}", "{% for @ in y %}{% endfor %}", "{% for x @ y %}{% endfor %}",
    "{% for x, @ in y %}{% endfor %}", "{% for x in y @ %}{% endfor %}", "{% for x in y if @ %}{% endfor %}",
    "{% for x in y recursive @ %}{% endfor %}", "{% for x in y %}{% endfor @ %}",
    "{% for x in y %}{% break @ %}{% endfor %}", "{% for x in y %}{% continue @ %}{% endfor %}",
    "{% set @ = 1 %}", "{% set x = @ %}", "{% set x @ %}", "{% set x = 1 @ %}", "{% set x.@ = 1 %}",
    "{% set @ %}a{% endset %}", "{% set x | @ %}a{% endset %}", "{% set x %}a{% endset @ %}",
    "{% set @, y = 1, 2 %}", "{% set x, @ = 1, 2 %}",
    "{% macro @ %}{% endmacro %}", "{% macro m(@) %}{% endmacro %}", "{% macro m(a, @) %}{% endmacro %}",
    "{% macro m(a=@) %}{% endmacro %}", "{% macro m @ %}{% endmacro %}", "{% macro m() @ %}{% endmacro %}",
    "{% macro m() %}{% endmacro @ %}",
    "{% call @ %}{% endcall %}", "{% call(@) m() %}{% endcall %}", "{% call m(@) %}{% endcall %}",
    "{% call m() @ %}{% endcall %}", "{% call @() %}{% endcall %}",
    "{% filter @ %}{% endfilter %}", "{% filter f @ %}{% endfilter %}", "{% filter f(@) %}{% endfilter %}",
    "{% with @ %}{% endwith %}", "{% with x = @ %}{% endwith %}", "{% with x @ %}{% endwith %}",
    "{% include @ %}", "{% include 'a' @ %}", "{% import @ %}", "{% import 'a' @ %}", "{% import 'a' as @ %}",
    "{% from @ import x %}", "{% from 'a' import @ %}", "{% from 'a' @ x %}", "{% from 'a' import x @ %}",
    "{% extends @ %}", "{% block @ %}{% endblock %}", "{% block b @ %}{% endblock %}",
    "{% block b %}{% endblock @ %}", "{% generation @ %}{% endgeneration %}", "{% raw @ %}{% endraw %}",
    "{{ x|@ }}", "{{ x|f(@) }}", "{{ x|f @ }}", "{{ x is @ }}", "{{ x is t(@) }}", "{{ x is not @ }}",
    "{{ f(@) }}", "{{ f(a, @) }}", "{{ f(a=@) }}", "{{ f(@=1) }}", "{{ f(*@) }}", "{{ f(**@) }}",
    "{{ x[@] }}", "{{ x[1:@] }}", "{{ x[@:] }}", "{{ x.@ }}", "{{ [@] }}", "{{ [1, @] }}", "{{ {@} }}",
    "{{ {'a': @} }}", "{{ {'a' @} }}", "{{ {@: 1} }}", "{{ (@) }}", "{{ (1, @) }}", "{{ a if @ }}",
    "{{ a if b else @ }}", "{{ a if b @ }}", "{{ 1 + @ }}", "{{ 1 * @ }}", "{{ not @ }}", "{{ a ~ @ }}",
    "{{ a and @ }}", "{{ a == @ }}", "{{ a in @ }}", "{{ a not @ }}", "{{ -@ }}", "{{ a ** @ }}",
    "{% if x %}@{% endif %}", "{% for x in y %}@", "{% macro m() %}@", "{% raw %}@",
]

# What goes in the hole: nothing, a token of each type, end of template (the template cut at the hole).
FILLERS = ["", "x", "'s'", "1", "1.5", "+", "-", "*", "/", "==", "<", "~", "|", "(", ")", "[", "]", "{", "}",
           ",", ":", ".", "=", "}}", "%}", "{{", "{%", "in", "not", "is", "if", "else", "recursive", "and",
           "import", "with", "'unterminated", "\"unterminated", "{#", "x x", "1 1", ",,", "()", "[]", "@", "$",
           "\n"]
CUT = object()

# Whole templates for the other kinds of breakage.
EXTRA = [
    "{{ (1 }}", "{{ [1 }}", "{{ {'a': 1 }}", "{{ f(1 }}", "{{ x[1 }}", "{{ (1] }}", "{{ [1) }}", "{{ (1, 2",
    "{{ 'a", "{% if 'a %}{% endif %}", "{# a", "{# a #", "{% raw %}a", "{% raw %}a{% endraw", "{{ x }",
    "{% if x }{% endif %}", "{% if x %}", "{% for x in y %}", "{% macro m() %}", "{% call m() %}",
    "{% filter f %}", "{% with %}", "{% set x %}", "{% block b %}", "{% if x %}{% else %}{% else %}{% endif %}",
    "{% endfor %}", "{% endif %}", "{% else %}", "{% elif x %}", "{% %}", "{%  %}", "{{ }}", "{% - %}",
    "{{ x|f|@ }}", "{{ x is }}", "{{ x | }}", "{{ x|1 }}", "{{ x is 1 }}", "{{ x is 'a' }}", "{{ x.1a }}",
    "{{ x.'a' }}", "{{ 1.a }}", "{{ x..y }}", "{% macro m(a=1, b) %}{% endmacro %}", "{% macro m(1) %}{% endmacro %}",
    "{% macro m('a') %}{% endmacro %}", "{% macro m(a.b) %}{% endmacro %}", "{% macro m(*a) %}{% endmacro %}",
    "{% for 1 in y %}{% endfor %}", "{% for x.y in z %}{% endfor %}", "{% for x[0] in z %}{% endfor %}",
    "{% for (x) in z %}{% endfor %}", "{% for f() in z %}{% endfor %}", "{% set 1 = 2 %}", "{% set x[0] = 2 %}",
    "{% set f() = 2 %}", "{% set x.y %}{% endset %}", "{% set (x) = 1 %}", "{% set x + 1 = 2 %}",
    "{% call m %}{% endcall %}", "{% call x.y %}{% endcall %}", "{% call(1) m() %}{% endcall %}",
    "{% call(a=) m() %}{% endcall %}", "{% call() %}{% endcall %}", "{% call 1 %}{% endcall %}",
    "{{ f(a=1, 2) }}", "{{ f(**a, b) }}", "{{ f(**a, *b) }}", "{{ f(a=1, *b, c) }}", "{{ f(1=2) }}",
    "{% if x %}\n\n{% endfor %}", "a\n{{ 1 +\n}}", "a\n{% if\n%}{% endif %}", "{{ x\n\n", "{{ 'a\n\n' }}",
    "{% with a, b %}{% endwith %}", "{% with a = 1, %}{% endwith %}", "{% import 'a' as 1 %}",
    "{% from 'a' import 1 %}", "{% from 'a' import x as %}", "{% from 'a' import x as 1 %}",
    "{% extends %}", "{% include %}", "{% block %}{% endblock %}", "{% block 1 %}{% endblock %}",
    "{% for x in y %}{% else %}{% else %}{% endfor %}", "{{ x if }}", "{{ x if y else }}", "{{ lambda }}",
    "{{ 1 2 }}", "{{ 'a' 'b' }}", "{{ x y }}", "{{ x = 1 }}", "{{ x != }}", "{{ x ! y }}", "{{ x && y }}",
    "{{ x ? }}", "{{ x ; }}", "{{ x\\y }}", "{{ `x` }}", "{{ 1e }}", "{{ 0x1 }}", "{{ 1_ }}", "{{ 1__0 }}",
    "{{ x }}{{", "{{ x }}{%", "{{ x }}{% if", "{% if x %}{% endif", "{% for %}{% endfor %}",
]


def _ours_taken_out(message):
    # What minijinja_py adds to Jinja2's wording on purpose: the line an open block was opened on, and the hint
    # about a quote that ends a string literal early.
    message = re.sub(r"(is '\w+') \(opened on line \d+\)", r"\1", message)
    return message.split(". The ")[0] if ". The " in message and "just before it ends" in message else message


# Python's location of an error in Jinja2's generated code (or in a literal it has Python read), no template's
_PYTHON_LOCATION = re.compile(r" \((?:<template>|<unknown>), line \d+\)$")


def _builtin_twin(exc):
    # The built-in class a minijinja_py error is also an instance of (its twin of TypeError, ValueError,
    # SyntaxError: PythonSyntaxTwin, ...), or None
    if not isinstance(exc, mj.TemplateError):
        return None
    return next((cls for cls in type(exc).__mro__ if cls.__module__ == "builtins"
                 and cls not in (Exception, BaseException, object)), None)


def error_of(env, source):
    # (class, message, line) of the error compiling source raises, or None. An error that is not a template error
    # to Jinja2 (Python's, from its generated code or its folder) is told by its class and message alone, without
    # Python's location in that code; minijinja_py's twin of that class (a subclass of it) is the same kind.
    try:
        env.from_string(source)
    except Exception as exc:  # noqa: BLE001 - any outcome is compared
        twin = _builtin_twin(exc)
        if twin is not None:
            return (twin.__name__, exc.message, None)
        if isinstance(exc, (jinja2.TemplateSyntaxError, mj.TemplateSyntaxError)):
            return (type(exc).__name__, _ours_taken_out(exc.message), exc.lineno)
        return (type(exc).__name__, _PYTHON_LOCATION.sub("", str(exc)), None)
    return None


def templates():
    seen = set()
    for context in CONTEXTS:
        for filler in FILLERS + [CUT]:
            source = context[:context.index("@")] if filler is CUT else context.replace("@", filler, 1)
            if source not in seen:
                seen.add(source)
                yield source
    for source in EXTRA:
        if source not in seen:
            seen.add(source)
            yield source


_TOKEN = re.compile(r"\w+|'[^']*'|\"[^\"]*\"|\{\{|\}\}|\{%|%\}|\S")
_EDITS = ["x", "1", "'s'", "(", ")", "[", "]", "{", "}", ",", ":", "=", "|", ".", "%}", "}}", "{%", "{{", "not", "in",
          "is", "if", "else", "+", "=="]


def _sources():
    # the project's templates and the data-driven cases' templates
    sources = []
    for path in sorted(glob.glob(os.path.join(_ROOT, "templates", "*.jinja"))) + \
            sorted(glob.glob(os.path.join(_ROOT, "tests", "cases", "**", "*.txt"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read().split("\n---\n")[-1]
        if "{%" in text or "{{" in text:
            sources.append(text)
    return sources


def mutations(count, seed):
    # count random one-token edits of the project's templates and of the data-driven cases' templates
    sources = _sources()
    rnd = random.Random(seed)
    for _ in range(count):
        source = rnd.choice(sources)
        tokens = list(_TOKEN.finditer(source))
        if tokens:
            at, edit, other = rnd.choice(tokens), rnd.randrange(3), rnd.choice(_EDITS)
            before, after = source[:at.start()], source[at.end():]
            yield before + (other + " " + at.group() if edit == 2 else other if edit else "") + after


def cuts(count, seed):
    # count random character edits of the same templates: cut at a point, a few characters deleted, a bracket,
    # quote or other character inserted
    sources = _sources()
    rnd = random.Random(seed)
    for _ in range(count):
        source = rnd.choice(sources)
        at, edit = rnd.randrange(len(source)), rnd.randrange(3)
        yield source[:at] if edit == 0 else source[:at] + source[at + rnd.randrange(1, 8):] if edit == 1 else \
            source[:at] + rnd.choice("()[]{}%,'\n-:=") + source[at:]


def _with_markers(source):
    # the template with whitespace control markers on every tag: `-` on both sides, then `+` on block tags
    yield source.replace("{%", "{%-").replace("%}", "-%}").replace("{{", "{{-").replace("}}", "-}}")
    yield source.replace("{%", "{%+").replace("%}", "+%}")


def pattern(message):
    # Jinja2's message with its quoted parts generalised
    if message is None:
        return "(no error)"
    message = re.sub(r"\bat \d+$", "at N", message)
    return re.sub(r"'[^']*'|\"'\"", "X", message.split(". ")[0] if "unknown tag" in message else message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", type=int, default=2, help="examples shown per pattern")
    parser.add_argument("--pattern", default=None, help="show only patterns containing this text")
    parser.add_argument("--mutations", type=int, default=0, help="probe this many random edits of templates")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--newlines", action="store_true", help="spaces in each template turned into newlines")
    parser.add_argument("--markers", action="store_true", help="whitespace control markers on every tag")
    parser.add_argument("--cuts", type=int, default=0, help="probe this many random character edits of templates")
    args = parser.parse_args()
    warnings.simplefilter("ignore", SyntaxWarning)   # (Python's, compiling Jinja2's code for some mutations)
    ref_env, mj_env = differential_ref.reference_env(), differential_ref.mj_env()
    groups = collections.defaultdict(list)
    total = errors = 0
    for source in (mutations(args.mutations, args.seed) if args.mutations else
                   cuts(args.cuts, args.seed) if args.cuts else templates()):
        source = source.replace(" ", "\n") if args.newlines else source
        for variant in _with_markers(source) if args.markers else (source,):
            ref = error_of(ref_env, variant)
            mine = error_of(mj_env, variant)
            if ref is None:
                if mine is not None:   # (a template Jinja2 accepts must be accepted)
                    groups["(accepted by Jinja2)"].append((variant, ref, mine))
                continue
            total += 1
            if mine != ref:
                groups[pattern(ref[1])].append((variant, ref, mine))
    refused = groups.pop("(accepted by Jinja2)", [])
    if refused:
        groups["(accepted by Jinja2)"] = refused
    differing = sum(len(items) for key, items in groups.items() if key != "(accepted by Jinja2)")
    for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if args.pattern and args.pattern not in key:
            continue
        print(f"{len(items):5d}  {key}")
        for source, ref, mine in items[:args.show]:
            print(f"         {source!r}\n           jinja2: {ref}\n           ours:   {mine}")
    print(f"\n{total} templates Jinja2 refuses; {differing} differ in class, message or line; "
          f"{len(refused)} Jinja2 accepts refused")


if __name__ == "__main__":
    main()
