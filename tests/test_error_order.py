"""Which error comes first: a template holding several errors that Jinja2 raises while it compiles
(Environment.from_string) must raise the one Jinja2 raises — its class, and its message where ours is Jinja2's.

Jinja2's parser stops at the first error in the source (an extension's tag the environment lacks, a private name
in {% from %} included); its code generator then raises the first TemplateAssertionError in the order it
generates code: `block defined twice` before anything, the root function, then every block's function in the
document's order; a for loop's filter before its iterable and body (a recursive loop's iterable after its body
and else); a filter or test checked before its value; a macro's defaults before its body; a call block's body
before its call; a filter block's body before its filter; `*args` before the keywords when a keyword is named as
a Python keyword. Python's compiler last refuses what it refuses in the generated code (a duplicate macro
parameter in its symbol table pass first; then a repeated keyword, before the callee and the arguments, and
`break` outside a loop), in the order it compiles that code: `*args` before the keyword values.

Data-driven cases (tests/cases/error_order) pin each rule with the class and the location; here the messages are
compared with Jinja2's, on the templates of those rules and on a sweep placing two errors in every pair of
positions of each construct. Skipped without jinja2 (the package never needs it).
"""

import itertools
import re

import pytest

jinja2 = pytest.importorskip("jinja2")

import differential_ref  # noqa: E402
import minijinja_py as mj  # noqa: E402


def first_error(env, source):
    """(kind, message, line) of the error compiling source raises, or None. Python's SyntaxError (Jinja2's) and
    our PythonSyntaxTwin compare by message, Jinja2's names for variables taken out; the parser's other syntax
    errors by class and line (our parser words some of them its own way)."""
    try:
        env.from_string(source)
    except SyntaxError as exc:
        message = getattr(exc, "message", None) or exc.msg
        message = re.sub(r"duplicate argument 'l_\d+_(\w+)' in function definition", r"duplicate parameter '\1'",
                         message)   # (ours does not name Jinja2's variables: README, known differences)
        return ("python", message, None)
    except (jinja2.TemplateSyntaxError, mj.TemplateSyntaxError) as exc:
        kind = type(exc).__name__
        message = exc.message if kind == "TemplateAssertionError" else \
            exc.message.partition(". ")[0] if "unknown tag" in exc.message else ""
        return (kind, message, exc.lineno)
    return None


def check(source):
    ref = first_error(differential_ref.reference_env(), source)
    mine = first_error(differential_ref.mj_env(), source)
    assert mine == ref, f"{source!r}: Jinja2 {ref}, minijinja_py {mine}"


RULES = [
    # the parser's errors first, in the source's order
    "{{ x|f1 }}\n{% do x %}",
    "{% for i in x %}{{ i|f1 }}\n{% do i %}{% endfor %}",
    "{% do x %}\n{% if %}{% endif %}",
    "{{ x|f1 }}\n{% from 'a' import b, _c %}",
    "{% from 'a' import _c %}\n{% if %}{% endif %}",
    # blocks: twice first, then the root, then every block in the document's order
    "{% block b %}{{ x|a }}{% endblock %}{{ y|b }}",
    "{{ x|f1 }}\n{% block b %}{% endblock %}{% block b %}{% endblock %}",
    "{% block a %}{% block b %}{{ x|f1 }}{% endblock %}{{ x|f2 }}{% endblock %}",
    "{% block a %}{% block b %}{{ x|f1 }}{% endblock %}{% endblock %}{% block c %}{{ x|f2 }}{% endblock %}",
    "{% macro m() %}{% block b %}{{ x|f1 }}{% endblock %}{% endmacro %}{{ x is t2 }}",
    "{% block b %}{% break %}{% endblock %}{{ f(k=1, k=2) }}",
    # for loops: the filter, the target, the iterable, the body, the else block; a recursive loop's iterable last
    "{% for i in x if i|a %}{{ i|b }}{% endfor %}",
    "{% for i in x|f1 if i is t2 %}{% endfor %}",
    "{% for loop in x if x|f1 %}{% endfor %}",
    "{% for i in x|f1 recursive %}{% else %}{{ x|f2 }}{% endfor %}",
    "{% for i in g(a=1, a=2) recursive %}{{ g(b=1, b=2) }}{% endfor %}",
    # filters and tests: the name before the value
    "{{ x|f1 is t2 }}",
    "{{ x|f1|f2 }}",
    "{{ x|default(a=1, a=2)|default(b=1, b=2) }}",
    "{{ x|default(a=1, a=2) is sameas(b=1, b=2) }}",
    # calls: Python's first repeated keyword, before the callee; *args before the keyword values
    "{{ f(a=1, b=1, b=2, a=2) }}",
    "{{ g(a=1, a=2)(b=1, b=2) }}",
    "{{ f(k=g(a=1, a=2), *g(b=1, b=2)) }}",
    "{{ f(k=x|f1, *x|f2) }}",
    "{% call g(caller=1) %}{% endcall %}",
    "{% call g(a=1, a=2, caller=1) %}{% endcall %}",
    "{% call g(caller=1, a=1, a=2) %}{% endcall %}",
    # a keyword named as a Python keyword: one ** dict, *args first, nothing repeated
    "{{ g(if=1, a=1, a=2) }}",
    "{{ g(if=1, a=x|f1, *x|f2) }}",
    "{{ g(True=1, a=g(b=1, b=2), *g(c=1, c=2)) }}",
    "{% call g(if=1, caller=1) %}{% endcall %}",
    # the output check around the root's output where an extends may come is no soft frame
    "{{ x|f1 }}{% if x %}{% extends 'p' %}{% endif %}",
    "{% if x %}{% extends 'p' %}{% endif %}{{ x is t1 }}",
    # the symbol table pass first
    "{{ f(k=1, k=2) }}{% macro m(a, a) %}{% endmacro %}",
    "{% break %}{% call(b, b) g() %}{% endcall %}",
    # Python's own words for each loop control outside a loop: `continue` is "not properly in loop"
    "{% continue %}",
    "a\n{% if x %}{% continue %}{% endif %}",
    "{% macro m() %}{% continue %}{% endmacro %}",
]


@pytest.mark.parametrize("source", RULES)
def test_rule(source):
    check(source)


# ---------------------------------------------------------------------------------------------------- the sweep
# Constructs with holes for an expression (@E) or statements (@S); two holes of each get an error.
CONSTRUCTS = {
    "output": "{{ @E }}{{ @E }}",
    "block": "{% block b %}@S{% endblock %}@S",
    "macro": "{% macro m(a=@E, b=@E) %}@S{% endmacro %}",
    "call": "{% call(a=@E) g(@E, k=@E, *@E, **@E) %}@S{% endcall %}",
    "for": "{% for i in @E if @E %}@S{% else %}@S{% endfor %}",
    "recursive": "{% for i in @E if @E recursive %}@S{% else %}@S{% endfor %}",
    "if": "{% if @E %}@S{% elif @E %}@S{% else %}@S{% endif %}",
    "if_loop": "{% if x %}{% for i in @E %}@S{% endfor %}{% endif %}@S",
    "filter_block": "{% filter default(@E) %}@S{% endfilter %}",
    "set_block": "{% set v %}@S{% endset %}{% set w = @E %}",
    "with": "{% with a = @E, b = @E %}@S{% endwith %}",
    "loads": "{% include @E %}{% import @E as m %}{% from @E import z %}",
    "expressions": "{{ @E|default(@E) ~ (@E if @E else @E) }}",
    "call_expression": "{{ @E(@E, k=@E, *@E, **@E) }}",
    "call_keyword_dict": "{{ g(if=@E, a=@E, *@E) }}",
    "items": "{{ {@E: @E}[@E] }}{{ [@E, @E][@E:@E] }}",
    "test": "{{ @E is divisibleby(@E) }}",
    "outer_names": "{{ (@E)|fo(@E) }}{{ (@E) is to(@E) }}",
    "conditional_extends": "{{ @E }}{% if x %}{% extends 'p' %}@S{% endif %}@S{% if y %}@S{% endif %}{{ @E }}",
    "known_extends": "{{ @E }}{% extends 'p' %}@S{% if y %}{% extends @E %}@S{% endif %}{% set a = @E %}",
}
ERRORS = {"E": ("x|f@i", "x is t@i", "g(k@i=1, k@i=2)"),
          "S": ("{{ x|f@i }}", "{% break %}", "{% for loop in x %}{% endfor %}",
                "{% macro c@i(caller) %}{{ caller() }}{% endmacro %}", "{% extends 'p' %}")}


def _sweep(construct):
    # Every template of the construct with errors in two of its holes (a statement on a line of its own, so that
    # Jinja2's line tells them apart), nothing in the others.
    kinds = re.findall("@([ES])", construct)
    pieces = re.split("@[ES]", construct)
    for p, q in itertools.combinations(range(len(kinds)), 2):
        for first, second in itertools.product(ERRORS[kinds[p]], ERRORS[kinds[q]]):
            parts = ["x" if kind == "E" else "" for kind in kinds]
            parts[p] = first.replace("@i", "1") if kinds[p] == "E" else "\n" + first.replace("@i", "1")
            parts[q] = second.replace("@i", "2") if kinds[q] == "E" else "\n" + second.replace("@i", "2")
            yield "".join(piece + part for piece, part in zip(pieces, parts + [""]))


@pytest.mark.parametrize("name", CONSTRUCTS)
def test_sweep(name):
    for source in _sweep(CONSTRUCTS[name]):
        check(source)


@pytest.mark.parametrize("source", ["{{ %s }}" % ("1" * 5000), "{{ x.%s }}" % ("1" * 5000), "{{ %s + }}" % ("1" * 5000),
                                    "{{ %s }}{%% if %%}" % ("1" * 5000), "{%% if %%}{{ %s }}" % ("1" * 5000),
                                    "{{ 0x%s }}" % ("f" * 4000), "{{ 0b%s }}{%% if %%}" % ("1" * 15000),
                                    "{%% if false %%}{{ 0o%s }}{%% endif %%}" % ("7" * 5000), "{{ 0x%s }}" % ("f" * 3500),
                                    "{%% set x = 0x%s %%}" % ("f" * 3600), "{{ f(0x%s) }}" % ("f" * 3600),
                                    "{{ 0x%s > 1 }}" % ("f" * 3600), "{%% macro m(a=[0x%s]) %%}{%% endmacro %%}" % ("f" * 3600)])
def test_int_literal_past_the_digit_limit(source):
    """Jinja2's lexer lets int()'s ValueError out for an int literal past Python's digit limit (where there is
    one: CPython 3.11 and later), where its token is read; ours raises its ValueError twin there. A hex, octal or
    binary literal int() reads, but Jinja2's code generator writes it in decimal: its ValueError after the parse."""
    def outcome(env):
        try:
            env.from_string(source)
        except ValueError as exc:
            return ("ValueError", getattr(exc, "message", None) or str(exc))
        except (jinja2.TemplateSyntaxError, mj.TemplateSyntaxError):
            return ("TemplateSyntaxError", "")
        return None
    assert outcome(differential_ref.mj_env()) == outcome(differential_ref.reference_env())


@pytest.mark.parametrize("source", ["{{ (10 ** 5000)|n }}", "{{ (10 ** 5000) is n }}", "{{ 1|n(10 ** 5000) }}",
                                    "{% for x in y %}{{ (10 ** 5000)|n }}{% endfor %}",
                                    "{% if x %}{% with %}{{ (10 ** 5000)|n }}{% endwith %}{% endif %}",
                                    "{% if x %}{{ (10 ** 5000)|n }}{% endif %}", "{{ x if y else (10 ** 5000)|n }}",
                                    "{% if (10 ** 5000)|n %}{% endif %}", "{{ {[1]: 2}|n }}"])
def test_unknown_filter_before_the_int_its_folder_writes(source):
    """Jinja2's code generator refuses an unknown filter or test before it writes the value its folder made of the
    operand (an int past the digit limit: repr's ValueError), except in a soft frame (an if, a conditional
    expression: refused when it runs); a dict literal its folder cannot make fails first."""
    def outcome(env):
        try:
            env.from_string(source)
        except (ValueError, TypeError) as exc:
            return ("ValueError" if isinstance(exc, ValueError) else "TypeError",   # (ours: the twin of that class)
                    getattr(exc, "message", None) or str(exc))
        except (jinja2.TemplateSyntaxError, mj.TemplateSyntaxError) as exc:
            return ("TemplateAssertionError", exc.message)
        return None
    assert outcome(differential_ref.mj_env()) == outcome(differential_ref.reference_env())
