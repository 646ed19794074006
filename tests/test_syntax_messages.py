"""Syntax error messages: Jinja2's wording where Jinja2 has one (the data-driven cases pin class and location
only), with the innermost open block, and a caret under the offending text in str(error)."""

import re

import pytest

import minijinja_py as mj

MESSAGES = [
    ("line one\n  {% frobnicate x %}", (2, 3), "Encountered unknown tag 'frobnicate'."),
    ("{% if x %}\n{% endfi %}{% endif %}", (2, 1),
     "Encountered unknown tag 'endfi'. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. "
     "The innermost block that needs to be closed is 'if' (opened on line 1)."),
    ("{% if a %}{% else %}{% elif b %}{% endif %}", (1, 21),
     "Encountered unknown tag 'elif'. Jinja was looking for the following tags: 'endif'. "
     "The innermost block that needs to be closed is 'if' (opened on line 1)."),
    ("{% for x in y %}\n{% if x %}\n{% endfor %}", (3, 1),
     "Encountered unknown tag 'endfor'. You probably made a nesting mistake. Jinja is expecting this tag, but "
     "currently looking for 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if' "
     "(opened on line 2)."),
    ("{% for m in messages %}\n{{ m }}", (2, 8),
     "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or 'else'. "
     "The innermost block that needs to be closed is 'for' (opened on line 1)."),
    ("{% endif %}", (1, 1), "Encountered unknown tag 'endif'."),
    ("a {# never closed", (1, 3), "Missing end of comment tag"),
    ("x\n{% raw %}{{ y }}", (2, 1), "Missing end of raw directive"),
    # Jinja2's lexer refuses the quote of a string that is never closed as any character no token starts with
    ("{{ 'abc }}", (1, 4), "unexpected char \"'\" at 3"),
    ("{{ 1 + }}", (1, 8), "unexpected 'end of print statement'"),
    ("{{ name", (1, 8), "unexpected end of template, expected 'end of print statement'."),
    ("{% do x %}", (1, 1), "Encountered unknown tag 'do'."),
    ("{% block foo-bar-baz %}", (1, 13), "Block names in Jinja have to be valid Python identifiers and may not "
     "contain hyphens, use an underscore instead."),
    ("{% from 'x' import a, with foo %}", (1, 28), "expected token 'end of statement block', got 'foo'"),
    ("{% from 'x' import with foo %}", (1, 25), "expected token 'end of statement block', got 'foo'"),
    # a word no terminal of the state reads is named by itself, as Jinja2 names a name token
    ("{% include 'x' with context with %}", (1, 29), "expected token 'end of statement block', got 'with'"),
    # a whole string where none may come is a string, not an unterminated one
    ("{{ x 'y' }}", (1, 6), "expected token 'end of print statement', got 'string'"),
    ('{% if x "a\\"b" %}{% endif %}', (1, 9), "expected token 'end of statement block', got 'string'"),
    # where Jinja2 parses a tuple that is empty: {{ }}, if, elif, for's iterable, set's value
    ("{% if %}{% endif %}", (1, 7), "Expected an expression, got 'end of statement block'"),
    ("{{ }}", (1, 4), "Expected an expression, got 'end of print statement'"),
    ("{% set x = %}", (1, 12), "Expected an expression, got 'end of statement block'"),
    ("{% for x in %}{% endfor %}", (1, 13), "Expected an expression, got 'end of statement block'"),
    # where one token may come, expect()'s wording; after a dot, its own
    ("{{ x | }}", (1, 8), "expected token 'name', got 'end of print statement'"),
    ("{% if x is %}{% endif %}", (1, 12), "expected token 'name', got 'end of statement block'"),
    ("{{ x . }}", (1, 8), "expected name or number"),
    ("{{ x.", (1, 6), "expected name or number"),
    ("{{ ", (1, 4), "unexpected 'end of template'"),
    # a token as Jinja2's expression lexer reads it: a float, the longest operator, `{` of a tag's opener
    ("{{ x 1.5 }}", (1, 6), "expected token 'end of print statement', got 'float'"),
    ("{{ x {{ y }}", (1, 6), "expected token 'end of print statement', got '{'"),
    ("{% if x %}{% else == %}{% endif %}", (1, 19), "expected token 'end of statement block', got '=='"),
    ("{{ == }}", (1, 4), "unexpected '=='"),
    ("{{ x # }}", (1, 6), "unexpected char '#' at 5"),
    ("{{ x\n  $ }}", (2, 3), "unexpected char '$' at 7"),
    # Jinja2's lexer keeps brackets balanced and reads a tag's end only where none is open
    ("{{ ( }}", (1, 6), "unexpected '}', expected ')'"),
    ("{{ f(1] }}", (1, 7), "unexpected ']', expected ')'"),
    ("{{ [1, (2] }}", (1, 10), "unexpected ']', expected ')'"),
    ("{{ x ) }}", (1, 6), "unexpected ')'"),
    ("{% if (x %}{% endif %}", (1, 11), "unexpected '}', expected ')'"),
    # the other kind of tag's end is operators there: `}` after `}`, `%` (modulo) before `}`
    ("{% if x }} %}{% endif %}", (1, 9), "unexpected '}'"),
    ("{{ x %} }}", (1, 7), "unexpected '}'"),
    ("{{ %} }}", (1, 4), "unexpected '%'"),
    # after an item in brackets, the loops over a call's arguments, a list's items, a signature's names want a comma
    ("{{ f(1 1) }}", (1, 8), "expected token ',', got 'integer'"),
    ("{{ [x y] }}", (1, 7), "expected token ',', got 'y'"),
    ("{% macro m({) %}{% endmacro %}", (1, 12), "expected token 'name', got '{'"),
    # the template ends inside a tag: what the tag wants, whatever block is open around it
    ("{% for x in y %}{% if x", (1, 24), "unexpected end of template, expected 'end of statement block'."),
    ("{% if x %}{{ y", (1, 15), "unexpected end of template, expected 'end of print statement'."),
    # a raw tag with more in it is a tag Jinja2 does not know; one that is never closed is its own error
    ("{% raw x %}{% endraw %}", (1, 1), "Encountered unknown tag 'raw'."),
    ("{% raw -%}a", (1, 1), "Missing end of raw directive"),
    # `not` is an operator only before `in`: the expression ended before it (the lexer looks one token past it)
    ("{{ x not }}", (1, 6), "expected token 'end of print statement', got 'not'"),
    ("{{ f(a not) }}", (1, 8), "expected token ',', got 'not'"),
    ("{{ a not $ }}", (1, 10), "unexpected char '$' at 9"),
    # {% for %} and {% with %}: what follows a target
    ("{% for x x in y %}{% endfor %}", (1, 10), "expected token 'in', got 'x'"),
    ("{% for x, y = z %}{% endfor %}", (1, 13), "expected token 'in', got '='"),
    ("{% with x %}{% endwith %}", (1, 11), "expected token '=', got 'end of statement block'"),
    # where a target may start, Jinja2 parses a primary, then refuses to assign to a literal (or its tuple)
    ("{% with + %}{% endwith %}", (1, 9), "unexpected '+'"),
    ("{% set x, + = 1, 2 %}", (1, 11), "unexpected '+'"),
    ("{% for 1 in y %}{% endfor %}", (1, 8), "can't assign to 'const'"),
    ("{% set 1.5 = 2 %}", (1, 8), "can't assign to 'const'"),
    ("{% for x, 'a' in y %}{% endfor %}", (1, 11), "can't assign to 'tuple'"),
    ("{% set 1, x = 1, 2 %}", (1, 8), "can't assign to 'tuple'"),
    ("{% for %} in y %}{% endfor %}", (1, 8), "Expected an expression, got 'end of statement block'"),
    ("{% set %}a{% endset %}", (1, 8), "Expected an expression, got 'end of statement block'"),
    # the keyword after {% from %}'s and {% import %}'s template
    ("{% from x x import x %}", (1, 11), "expected token 'import', got 'x'"),
    ("{% import 'a' x %}", (1, 15), "expected token 'as', got 'x'"),
    # parentheses that group want `)` after an item; a call's (a call block's signature too) want a comma
    ("{{ (x x) }}", (1, 7), "expected token ')', got 'x'"),
    ("{{ x in (1 2) }}", (1, 12), "expected token ')', got 'integer'"),
    ("{% call(x x) m() %}{% endcall %}", (1, 11), "expected token ',', got 'x'"),
    # `%` of `%}` is an operator only after an operand; Jinja2 steps past the token after a dot first
    ("{% macro m(%}) %}{% endmacro %}", (1, 12), "expected token 'name', got '%'"),
    ("{{ x.%} }}", (1, 7), "unexpected '}'"),
    # the template ends inside a tag: expect()'s wording for the token wanted there
    ("{% for x ", (1, 10), "unexpected end of template, expected 'in'."),
    ("{% macro m(", (1, 12), "unexpected end of template, expected 'name'."),
    ("{{ (1, 2", (1, 9), "unexpected end of template, expected ')'."),
    ("{{ a not ", (1, 10), "expected token 'end of print statement', got 'not'"),
    # a dict's key wants its colon
    ("{{ {x x} }}", (1, 7), "expected token ':', got 'x'"),
    ("{% from { import x %}", (1, 18), "expected token ':', got 'x'"),
    ("{{ {'a': 1 2} }}", (1, 12), "expected token ',', got 'integer'"),
    # {% with %}'s targets after a comma; a trailing comma only in a block set
    ("{% with a = 1, %}{% endwith %}", (1, 16), "Expected an expression, got 'end of statement block'"),
    ("{% set x, = 1 %}", (1, 11), "unexpected '='"),
    # a stray end or continuation tag outside any block
    ("{{ x }}{% else %}", (1, 8), "Encountered unknown tag 'else'."),
    # a tag with no name: the lexer reads the token there first
    ("{% ] b %}", (1, 4), "unexpected ']'"),
    ("{% 1 %}", (1, 1), "tag name expected"),
    # after a filter's or a test's name the expression may end: what does not go on wants the tag's end
    ("{{ x|f = }}", (1, 8), "expected token 'end of print statement', got '='"),
    ("{{ x is odd = }}", (1, 13), "expected token 'end of print statement', got '='"),
    ("{{ d|tojson ", (1, 13), "unexpected end of template, expected 'end of print statement'."),
    # after a comma, an item
    ("{{ x ,, }}", (1, 7), "unexpected ','"),
    ("{{ (1, *) }}", (1, 8), "unexpected '*'"),
    # a statement the parser has not reduced when the next tag fails is no open block: a set with `=`, a block
    # closed by its end tag
    ("{% set x = 1 %}{% do x %}", (1, 16), "Encountered unknown tag 'do'."),
    ("{% macro g() %}{% endmacro %}{% g() %}", (1, 30), "Encountered unknown tag 'g'."),
    # whitespace control: `{%-` before a missing name, `-%}` after a missing expression
    ("{%- ) endif -%}", (1, 5), "unexpected ')'"),
    ("a\n{%- if -%}{%- endif -%}", (2, 8), "Expected an expression, got 'end of statement block'"),
    ("{{ - }}", (1, 6), "unexpected 'end of print statement'"),
    # {% print %} and {% with %} read expressions until the tag's end, with commas between
    ("{% with a = 1: %}{% endwith %}", (1, 14), "expected token ',', got ':'"),
    ("{% print 1 else %}", (1, 12), "expected token ',', got 'else'"),
    ("{{ {'a' not 1} }}", (1, 9), "expected token ':', got 'not'"),
    # a name that starts with a character \w does not take (Python's identifiers, as Jinja2's lexer's)
    ("{% set \u2118 = | 2 %}", (1, 12), "unexpected '|'"),
    # `with` and `without` are modifiers only before `context` (Jinja2 looks a token past them)
    ("{% import 'm' as m without %}", (1, 20), "expected token 'end of statement block', got 'without'"),
    ("{% include 'a' with %}", (1, 16), "expected token 'end of statement block', got 'with'"),
    # a list or dict literal where a target may stand: Jinja2 parses it (its errors inside it first), then refuses
    # to assign to it, or to the tuple it is an item of
    ("{% for [] in y %}{% endfor %}", (1, 8), "can't assign to 'list'"),
    ("{% set {'a': 1} = 1 %}", (1, 8), "can't assign to 'dict'"),
    ("{% set x, [] = 1, 2 %}", (1, 11), "can't assign to 'tuple'"),
    ("{% for x, {'a': [1, 2]}\n in y %}{% endfor %}", (1, 11), "can't assign to 'tuple'"),
    ("{% for [ in y %}{% endfor %}", (1, 13), "expected token ',', got 'y'"),
    ("{% set { = 1 %}", (1, 10), "unexpected '='"),
    ("{% with {# %}{% endwith %}", (1, 10), "unexpected char '#' at 9"),
    ("{% set [ %}a{% endset %}", (1, 10), "unexpected '%'"),
    ("{% set [1 2] = x %}", (1, 11), "expected token ',', got 'integer'"),
    # a call block's expression is any expression to Jinja2 (its own errors first), which must be a call; checked
    # before the block's body is read; `not` is the operator there, not a name
    ("{% call x x %}{% endcall %}", (1, 9), "expected call"),
    ("{% call ()() %}{% endcall %}", (1, 11), "expected call"),
    ("{% call x, y %}{% endcall %}", (1, 9), "expected call"),
    ("{% call m() + %}{% endcall %}", (1, 16), "unexpected 'end of statement block'"),
    ("{% call x +, y %}{% endcall %}", (1, 12), "unexpected ','"),
    ("{% call foo %}x{% endcall not", (1, 9), "expected call"),
    ("{% call m|default(m) %}b{% endcall {%\n", (1, 9), "expected call"),
    ("{% call not() %}{% endcall %}", (1, 9), "expected call"),
    ("{% call not %}{% endcall %}", (1, 13), "unexpected 'end of statement block'"),
    # ... on the line of the tag's end (or of its colon); also where the template ends right after the tag
    ("{% call not\n  %}x{% endcall %}", (2, 3), "unexpected 'end of statement block'"),
    ("{% call not\n: %}x{% endcall %}", (2, 1), "unexpected ':'"),
    ("{% call not \n\n %}", (3, 2), "unexpected 'end of statement block'"),
    ("{% call x %}", (1, 9), "expected call"),
    # `==` is one token to Jinja2's lexer where ours read an assignment's `=`
    ("{% set x == %}", (1, 10), "expected token 'end of statement block', got '=='"),
    ("{% with x == %}{% endwith %}", (1, 11), "expected token '=', got '=='"),
    ("{% macro m(a==) %}{% endmacro %}", (1, 13), "expected token ',', got '=='"),
    ("{% set x, == = 1, 2 %}", (1, 11), "unexpected '=='"),
    # Jinja2 checks a call's argument before it parses it: a positional one after a keyword one or *args, ...
    ("{{ f(a=1, { a=2) }}", (1, 5), "invalid syntax for function call expression"),
    ("{% set ns = namespace(_a=1, %}", (1, 22), "invalid syntax for function call expression"),
    ("{{ f(**a, *b x) }}", (1, 5), "invalid syntax for function call expression"),
    ("{{ f(x,\n  a=1, 2 +) }}", (1, 5), "invalid syntax for function call expression"),
    # a signature's parameters are no call's arguments: one with no default after one with a default, at once
    ("{% macro m(a=1, b x) %}{% endmacro %}", (1, 17), "non-default argument follows default argument"),
    # (after a parameter a comma is wanted: `%` of a tag's end is no operator there)
    ("{% macro m(a %}{{ a }}{% endmacro %}", (1, 14), "expected token ',', got '%'"),
    ("{% call(a, b %}{% endcall %}", (1, 14), "expected token ',', got '%'"),
    # (after a name it reads the next token to tell a keyword argument: the lexer's error there comes first)
    ("{% for i in g(k1=1, k1=2)\n   if g(k2=1, k2}}2) %}{% endfor %}", (2, 17), "unexpected '}', expected ')'"),
    # a target tuple ends at the tag's end after its comma: for's `in`, with's `=` is expected there
    ("{% for x, %} in y %}{% endfor %}", (1, 11), "expected token 'in', got 'end of statement block'"),
    ("{% with x , %}{% endwith %}", (1, 13), "expected token '=', got 'end of statement block'"),
    # no float right after a dot (x.1.5 is two lookups); `=` after a set's trailing comma is refused at once
    ("{% set x.1.5 = 1 %}", (1, 10), "expected token 'name', got 'integer'"),
    ("{% set a, = [1 %}", (1, 11), "unexpected '='"),
    ("{% set x, | = 1, 2 %}", (1, 11), "unexpected '|'"),
    # `not` with no `in` after it ends the expression where import's `as`, from's `import` is expected
    ("{% import 'a' not %}", (1, 15), "expected token 'as', got 'not'"),
    ("{% from 'a' not x %}", (1, 13), "expected token 'import', got 'not'"),
    # `: %}` is a colon and `%` inside brackets (ours read a tag's end)
    ("{{ {'a': %}} }}", (1, 10), "unexpected '%'"),
    ("{{ x[1:%}] }}", (1, 8), "unexpected '%'"),
    # where a block's opening tag may end, Jinja2 steps past a colon before it wants the tag's end
    ("{% set xs : = [1] %}", (1, 13), "expected token 'end of statement block', got '='"),
    ("{% if x :{% endif %}", (1, 10), "expected token 'end of statement block', got '{'"),
    ("{% if x :", (1, 10), "unexpected end of template, expected 'end of statement block'."),
    ("{% set x, : = 1, 2 %}", (1, 11), "unexpected ':'"),
    # the end of the template inside a tag is on the line of the token before it, not on blank lines after it
    ("{{ x\n\n\n  ", (1, 5), "unexpected end of template, expected 'end of print statement'."),
    # ... in a block's body: where the text at the end starts, else right after the last tag
    ("{% if true %}\n\nsecond endif %}", (2, 1), "Unexpected end of template. Jinja was looking for the following "
     "tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if' (opened on line 1)."),
    ("{% for x in y %}{{ x }}\n\n\n", (1, 24), "Unexpected end of template. Jinja was looking for the following "
     "tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for' (opened on line 1)."),
    # `()` is a target (an empty tuple): what follows it is checked as after any other
    ("{% with () %}{% endwith %}", (1, 12), "expected token '=', got 'end of statement block'"),
    ("{% for (), in y %}{% endfor %}", (1, 15), "expected token 'in', got 'y'"),
    # in a target's parentheses Jinja2 parses any expression (its errors first), then refuses to assign to what
    # is not names: to the tuple, or to the expression's kind
    ("{% set (a, 1) = 1, 2 %}", (1, 8), "can't assign to 'tuple'"),
    ("{% for (ns.x, y) in z %}{% endfor %}", (1, 8), "can't assign to 'tuple'"),
    ("{% set (ns.x) = 1 %}", (1, 8), "can't assign to 'getattr'"),
    ("{% set ((1)) = 1 %}", (1, 8), "can't assign to 'const'"),
    ("{% set (x|f) = 1 %}", (1, 8), "can't assign to 'filter'"),
    ("{% set (x - y) = 1 %}", (1, 8), "can't assign to 'sub'"),
    ("{% set (a, ns.x, [) = 1, 2 %}", (1, 19), "unexpected ')', expected ']'"),
    ("{% set (a, 1 2) = 1 %}", (1, 14), "expected token ')', got 'integer'"),
    ("{% for a, b, (c, f(1)) in 3 %}{% endfor %}", (1, 14), "can't assign to 'tuple'"),
    ("{% with a = 1, (c, 1) = 3 %}{% endwith %}", (1, 16), "can't assign to 'tuple'"),
    ("{% set a,\n (b, 1) = 1 %}", (1, 9), "can't assign to 'tuple'"),
    ("{% set (\n1) = 1 %}", (2, 1), "can't assign to 'const'"),
    # a constant's name is a constant to Jinja2 where a target stands, whatever follows it
    ("{% for none  [1] %}{% endfor %}", (1, 8), "can't assign to 'const'"),
    ("{% for a, none x in y %}{% endfor %}", (1, 8), "can't assign to 'tuple'"),
    ("{% set a, b, none x %}", (1, 8), "can't assign to 'tuple'"),
    # a set's trailing comma only right before the tag's end: no colon, `=` or filter after it (before the body)
    ("{% set x, : %}a{% endset %}", (1, 11), "unexpected ':'"),
    ("{% set x, : %}{% if %}{% endset %}", (1, 11), "unexpected ':'"),
    ("{% set x, | f %}{% if %}{% endset %}", (1, 11), "unexpected '|'"),
    ("{% set x, \n = 1, 2 %}", (2, 2), "unexpected '='"),
    # {% from %}: Jinja2 reads no second name after an import name (but `with context`), and refuses a private one
    # as it reads it; {% include %}: `ignore` is a modifier only before `missing`
    ("{% from 'm' import f in context %}", (1, 22), "expected token 'end of statement block', got 'in'"),
    ("{% from 'a' import a b as c %}", (1, 22), "expected token 'end of statement block', got 'b'"),
    ("{% from 'a' import _x y %}", (1, 20), "names starting with an underline can not be imported"),
    ("{% from 'a' import a, _b =", (1, 23), "names starting with an underline can not be imported"),
    ("{% include 'a' ignore { missing %}", (1, 16), "expected token 'end of statement block', got 'ignore'"),
    ("{% include ['a'] ignore %}", (1, 18), "expected token 'end of statement block', got 'ignore'"),
    # a block's end tag: a required block's body is checked first (where the token after `endblock` is), then
    # the name after it
    ("{% block b %}x{% endblock c ] %}", (1, 27), "expected token 'end of statement block', got 'c'"),
    ("{% block b required %}x{% endblock (", (1, 24), "Required blocks can only contain comments or whitespace"),
    ("{% block b required %}\nx\n{% endblock %}", (3, 1), "Required blocks can only contain comments or whitespace"),
    ("{% block b required %}x{% endblock c %}", (1, 36), "Required blocks can only contain comments or whitespace"),
    # a macro's name and a signature's parameters are names: a constant's name is refused at once
    ("{% macro m(true( ) %}{% endmacro %}", (1, 12), "can't assign to 'name'"),
    ("{% macro true x %}{% endmacro %}", (1, 10), "can't assign to 'name'"),
    ("{% call(a, none x) m() %}{% endcall %}", (1, 12), "can't assign to 'name'"),
    # a raw block never closed: on the line where its opening tag ends (after the whitespace `-%}` strips)
    ("a\n  {%- raw -%}  \n  b", (3, 3), "Missing end of raw directive"),
    ("{% raw\n %}a", (2, 4), "Missing end of raw directive"),
    # after {% else %} (the parser has reduced its clause), only the end tag
    ("{% for m in ms %}{% if m %}A{% else %}E{% endfor %}", (1, 40), "Encountered unknown tag 'endfor'. You "
     "probably made a nesting mistake. Jinja is expecting this tag, but currently looking for 'endif'. The "
     "innermost block that needs to be closed is 'if' (opened on line 1)."),
    # a call block's expression where Jinja2's parser stops before its lexer reaches what it refuses, or the end
    ("{% call foo x{% endcall %}", (1, 9), "expected call"),
    ("{% call foo", (1, 9), "expected call"),
    ("{% call foo + {", (1, 16), "unexpected 'end of template'"),
    ("{% call foo() + ] %}", (1, 17), "unexpected ']'"),
    ("{% call m|default(m) %=}b{% endcall %}", (1, 23), "unexpected '='"),
    ("{% call foo + $", (1, 15), "unexpected char '$' at 14"),
    # {% print %}'s first expression may not start with a comma
    ("{% print , 2 %}", (1, 10), "unexpected ','"),
    # a colon where no slice or dict wants one, before a tag's end: what the bracket wants after an item
    ("{% for i in [1: %}{% endfor %}", (1, 15), "expected token ',', got ':'"),
    ("{% if (x: %}{% endif %}", (1, 9), "expected token ')', got ':'"),
    ("{% macro m(v: %}{% endmacro %}", (1, 13), "expected token ',', got ':'"),
    # the end of the template after a string over several lines: on the line where the string starts
    ('{{ "a\n\nb" ', (1, 4), "unexpected end of template, expected 'end of print statement'."),
    ('{{ x ~ "a\n\nb"\n\n', (1, 8), "unexpected end of template, expected 'end of print statement'."),
    # a tag with no name: on the line of the token where the name should be
    ("{%\n  1 %}", (2, 3), "tag name expected"),
    ("a\n{%\n\n%}", (4, 1), "tag name expected"),
    # a tag over several lines: the part read again as an expression keeps its lines; an unknown tag and
    # "expected call" on the line of the tag's name; "can't assign to 'tuple'" on the tuple's last comma's
    ("{%\nfor\n{%\nin\ny\n%}{%\nendfor\n%}", (3, 2), "unexpected '%'"),
    ("{%\nset\n(\n=\n1\n%}", (4, 1), "unexpected '='"),
    ("{%\ncall\nm(x\nx)\n%}{%\nendcall\n%}", (4, 1), "expected token ',', got 'x'"),
    ("{%\nraw\nx\n%}{%\nendraw\n%}", (2, 1), "Encountered unknown tag 'raw'."),
    ("{% if x %}{%\nelse\n%}{%\nelse\n%}{% endif %}", (4, 1), "Encountered unknown tag 'else'. Jinja was looking "
     "for the following tags: 'endif'. The innermost block that needs to be closed is 'if' (opened on line 1)."),
    ("x\n{%- endraw -%}\n\nb", (2, 1), "Encountered unknown tag 'endraw'."),
    ("{%\nendraw\n%}", (2, 1), "Encountered unknown tag 'endraw'."),
    ("{%\ncall\nx\n%}{%\nendcall\n%}", (2, 1), "expected call"),
    ("{% call\nfoo x{% endcall %}", (1, 4), "expected call"),
    ("{%\nfor\nx,\n1\nin\ny\n%}{%\nendfor\n%}", (3, 2), "can't assign to 'tuple'"),
    ("{%\nfor\nx,\n[]\nin\ny\n%}{%\nendfor\n%}", (3, 2), "can't assign to 'tuple'"),
    ("{% for a,\n b,\n 1 in y %}{% endfor %}", (2, 3), "can't assign to 'tuple'"),
    ("{% for a,\n b,\n none x in y %}{% endfor %}", (2, 3), "can't assign to 'tuple'"),
    ("{% set (a,\n 1,\n b) = 1 %}", (2, 3), "can't assign to 'tuple'"),
    # the other kind of tag's end read as operators: a sign where an operand may start, a binary operator only
    # after an expression's value (not a keyword, a target, a signature, a filter block's filters); `+%}` is a
    # tag's end
    ("{%- if x -%}{%- else -}} -%}{%- endif -%}", (1, 22), "expected token 'end of statement block', got '-'"),
    ("{%- for x -}} y -%}{%- endfor -%}", (1, 11), "expected token 'in', got '-'"),
    ("{%- macro m() -}} -%}{%- endmacro -%}", (1, 15), "expected token 'end of statement block', got '-'"),
    ("{% filter f(1) -}}", (1, 16), "expected token 'end of statement block', got '-'"),
    ("{%+ if +%}{%+ endif +%}", (1, 8), "Expected an expression, got 'end of statement block'"),
    ("{%- call -}} -%}{%- endcall -%}", (1, 11), "unexpected '}'"),
    ("{{- (1, -}}) -}}", (1, 10), "unexpected '}', expected ')'"),
    ("{% set a = [1, 2 %}", (1, 19), "unexpected '}', expected ']'"),
    # a name Jinja2's lexer reads up to a character its name pattern does not take, which starts no token
    ("{{ \uff5cAssistant\uff5c }}", (1, 4), "unexpected char '\uff5c' at 3"),
    ("{% set a\u2581b = 1 %}", (1, 9), "unexpected char '\u2581' at 8"),
    ("{{ 1 a\uff5c }}", (1, 6), "expected token 'end of print statement', got 'a'"),
    ("{{ a\u00b2\uff5c }}", (1, 4), "Invalid character in identifier"),
    # a string's escape the codec refuses: its message
    ("{{ '\\U0001' }}", (1, 4), "truncated \\UXXXXXXXX escape"),
    # the end of the template after a long text (ours in pieces): where the text starts; after comments: before them
    ("{% if x %}\n" + "a b\n" * 300, (2, 1), "Unexpected end of template. Jinja was looking for the following tags: "
     "'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if' (opened on line 1)."),
    ("{% for x in y -%}\n\n  {# c #}\n {# d #}", (1, 18), "Unexpected end of template. Jinja was looking for the "
     "following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for' (opened on line 1)."),
    # the lexer's error right after a literal target comes first; at the end, an error before it where it is
    ("{% set e,9] %}{{ e }}", (1, 11), "unexpected ']'"),
    ("{{ f(k=g(a=1, a=2),\n ", (1, 5), "invalid syntax for function call expression"),
    # after a trailing comma in a test or a loop's iterable Jinja2 wants an item or the tag's end: `if` (and
    # `recursive`) is a name there, a colon unexpected
    ("{% for x in xs, if x > 1 %}{% endfor %}", (1, 20), "expected token 'end of statement block', got 'x'"),
    ("{% for x in [1], : %}{{ x }}{% endfor %}", (1, 18), "unexpected ':'"),
    ("{% if x, : %}{% endif %}", (1, 10), "unexpected ':'"),
    ("{% if 0 %}{% elif 1, : %}{% endif %}", (1, 22), "unexpected ':'"),
    # a required block's body is refused on the line of the token after `endblock`
    ("{% block b required %}x{% endblock \n\n%}", (3, 1), "Required blocks can only contain comments or whitespace"),
    # Jinja2's compiler gives a statement the line of its keyword, where the tag spans lines
    ("{% block b %}{% endblock %}{%\n block b %}{% endblock %}", (2, 2), "block 'b' defined twice"),
    ("{% for x in y %}{%\n\nextends 'a' %}{% endfor %}", (3, 1), "cannot use extend from a non top-level scope"),
    # a call block's signature is read as a macro's: a name after each comma (the signature's items are no callee)
    ("{% call(x, y,) f() %}{% endcall %}", (1, 14), "expected token 'name', got ')'"),
    # a target's parenthesis closed before a token that does not go on: the keyword is still wanted; inside
    # parentheses Jinja2 reads any expression
    ("{% for x, (): in y %}{% endfor %}", (1, 13), "expected token 'in', got ':'"),
    ("{% for ((x)(,), y) in z %}{% endfor %}", (1, 13), "unexpected ','"),
    ("{% for ((x)(1), y) in z %}{% endfor %}", (1, 8), "can't assign to 'tuple'"),
    # a test's name, `in` too, takes its arguments in parentheses: a comma is wanted after an item
    ("{{ 1 is in (1{,) }}", (1, 14), "expected token ',', got '{'"),
    # a name as Jinja2's lexer reads one, after a number too: a run of \w (any digit but an ASCII one first) and of
    # the characters an identifier goes on with, refused unless an identifier
    ("{{ 1\u00b2 }}", (1, 5), "Invalid character in identifier"),
    ("{{ \u0660 }}", (1, 4), "Invalid character in identifier"),
    ("{{ x.\u0660 }}", (1, 6), "Invalid character in identifier"),
    ("{{ 0x\u00b2 }}", (1, 5), "Invalid character in identifier"),
    ("{{ 1e\u00b7 }}", (1, 5), "expected token 'end of print statement', got 'e\u00b7'"),
    # `not` names a keyword argument before `=` (f(not=1) is accepted), before `==` it is the operator
    ("{{ f(not==1) }}", (1, 9), "unexpected '=='"),
    # a comment's opener that ends the template is no token to Jinja2: the end is after what comes before it
    ("  \n \n  {% for x in y %}\n {#", (3, 19), "Unexpected end of template. Jinja was looking for the following "
     "tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for' (opened on line 3)."),
]


@pytest.mark.parametrize("source,where,message", MESSAGES, ids=[m[2][:40] for m in MESSAGES])
def test_message_and_location(source, where, message):
    with pytest.raises(mj.TemplateSyntaxError) as info:
        mj.chat_environment().from_string(source)
    assert info.value.message == message
    assert (info.value.lineno, info.value.colno) == where


@pytest.mark.parametrize("source,where,message", MESSAGES, ids=[m[2][:40] for m in MESSAGES])
def test_jinja2_says_so(source, where, message):
    """Each message above is Jinja2's (as transformers configures it), on the same line; what minijinja_py adds,
    the line an open block was opened on, left out."""
    jinja2 = pytest.importorskip("jinja2")
    from differential_ref import reference_env   # (needs jinja2)
    with pytest.raises(jinja2.TemplateSyntaxError) as info:
        reference_env().from_string(source)
    assert (info.value.message, info.value.lineno) == (re.sub(r" \(opened on line \d+\)", "", message), where[0])


@pytest.mark.parametrize("source", ["{% from 'a' import _x y %}", "{% from 'a' import a, _b =", "{% from 'm' import _y "])
def test_private_import_name_is_an_assertion_error(source):
    """Jinja2's parser raises its TemplateAssertionError (a TemplateSyntaxError) for a private import name."""
    with pytest.raises(mj.TemplateAssertionError):
        mj.chat_environment().from_string(source)
    jinja2 = pytest.importorskip("jinja2")
    from differential_ref import reference_env   # (needs jinja2)
    with pytest.raises(jinja2.TemplateAssertionError):
        reference_env().from_string(source)


def test_caret_spans_the_unknown_tag():
    with pytest.raises(mj.TemplateSyntaxError) as info:
        mj.chat_environment().from_string("ok\n  {%- frobnicate x %}")
    *_, shown, caret = str(info.value).split("\n")
    assert shown == "2 |   {%- frobnicate x %}"
    assert caret == " " * len("2 |   ") + "^" * len("{%- frobnicate")


def test_error_has_template_name():
    with pytest.raises(mj.TemplateSyntaxError) as info:
        mj.chat_environment().from_string("{% if %}", name="chat.jinja")
    assert "--> chat.jinja:1:7" in str(info.value)


def test_line_statement_cut_short_before_a_comment():
    """A line statement whose expression stops at the newline: what is unexpected there is the newline that ends
    the statement (Jinja2's wording), though a `{#-` comment on the next line would take that newline too."""
    env = mj.Environment(line_statement_prefix="#", line_comment_prefix="##")
    for source in ("# if x +\n{#- c #}\n# endif\n", "# if x +\n  {#- c #}\n# endif"):
        with pytest.raises(mj.TemplateSyntaxError) as info:
            env.from_string(source)
        assert info.value.message == "unexpected 'end of statement block'"


@pytest.mark.parametrize("source", ["{{ 1.\u0660 }}", "{{ \u0660.5 }}", "{{ x if false else 1.5e\u0660 }}"])
def test_float_with_other_digits_is_pythons_syntax_error(source):
    """A float literal with digits of another script: Jinja2's lexer has Python's parser read it, whose
    SyntaxError (this Python's wording) comes out of from_string."""
    with pytest.raises(SyntaxError) as ours:
        mj.chat_environment().from_string(source)
    jinja2 = pytest.importorskip("jinja2")
    from differential_ref import reference_env   # (needs jinja2)
    with pytest.raises(SyntaxError) as theirs:
        reference_env().from_string(source)
    assert not isinstance(theirs.value, jinja2.TemplateError)
    assert ours.value.message == theirs.value.msg
