"""The fused shapes (minijinja_py/compile/fused.py: reads and tests done in line when the value is plain data) against
Jinja2, on every kind of value they may meet: a key present, missing, None, a number, a list, a dict, a Markup,
a long string; the container not a dict (a list, a string, an undefined, a caller's object); strict undefined;
loops over lists and lazy loops. Each shape must render what Jinja2 renders, or fail with the same kind of
error, whichever path (in line or general) the value takes.

Skipped without jinja2 (the package never needs it).
"""

import itertools

import pytest

jinja2 = pytest.importorskip("jinja2")

import differential_ref  # noqa: E402
import minijinja_py as mj  # noqa: E402
from jinja2.sandbox import ImmutableSandboxedEnvironment  # noqa: E402

SHAPES = [
    # if/elif over one subject (a switch), with and without `and`
    "{% if x.k == 'a' %}A{% elif x.k == 'b' %}B{% else %}C{% endif %}",
    "{% if x['k'] == 'a' and x.v %}A{% elif x['k'] == 'b' %}B{% endif %}.",
    "{% if x.k == 1 %}one{% elif x.k == 2 %}two{% endif %}.",
    "{% if x.k == 'a' or x.k == 'b' %}AB{% elif x.k == 'c' %}C{% else %}E{% endif %}",
    "{% if x['k'] == 'b' or x.k == 'a' or x.k == 'b' %}AB{% elif x.k == 'a' %}never{% endif %}.",
    "{% if x.k == 'a' or x.v == 'b' %}mixed{% elif x.k == 'c' %}C{% endif %}.",
    "{% if x.k == 1 or x.k == True %}1{% elif x.k == 2 %}2{% endif %}.",
    # a switch whose branches may also test something else after the compares (`or other`)
    "{% if x.k == 'a' %}A{% elif x.k == 'b' or x.v is defined %}B{% elif x.k == 'c' or x.k == 'd' %}C{% else %}E"
    "{% endif %}",
    "{% if x.k == 'a' or x.v %}A{% elif x.k == 'b' %}B{% elif x.k == 'a' or x.v is none %}N{% else %}E{% endif %}",
    "{% if x.k == 'a' or x.k == 'b' or x['v'] == 'ab' or y %}O{% elif x.k == 'c' and x.v %}C{% endif %}.",
    "{% set ns = namespace(n=0) %}{% macro m() %}{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}"
    "{% if x.k == 'a' or m() == '9' %}A{% elif x.k == 'b' or m() %}B{% elif x.k == 'a' or m() %}C{% endif %}"
    "{{ ns.n }}",
    "{% if x.k == 'a' %}A{% elif x.k == 'b' or x.v.z.q %}B{% else %}E{% endif %}",
    # an if/elif chain that is not a switch: atoms decided in line, other tests as they are, in order
    "{% if x.k == 'a' %}A{% elif 'k' in x %}K{% elif x.v is defined and x.v %}V{% else %}E{% endif %}",
    "{% if x.k is mapping or x.k is iterable and x.k is not string %}M{% elif y in ['a', 'b'] %}Y{% elif x.k %}T"
    "{% endif %}.",
    "{% set c = x.k %}{% if c is mapping %}M{% elif c is string and 'a' in c %}S{% elif c == 1 %}1{% elif 'a' not in "
    "x %}N{% else %}E{% endif %}",
    "{% set ns = namespace(n=0) %}{% macro m() %}{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}{% if x.k == 'z' %}"
    "Z{% elif m() == '1' or x.k %}M{% elif x.v or m() %}V{% endif %}{{ ns.n }}",
    # single if, one atom
    "{% if x.k %}T{% else %}F{% endif %}", "{% if not x.k %}T{% else %}F{% endif %}",
    "{% if x.k == 'a' %}T{% endif %}.", "{% if x.k != 'a' %}T{% else %}F{% endif %}",
    "{% if x.k is defined %}D{% else %}U{% endif %}", "{% if x.k is not defined %}U{% endif %}.",
    "{% if x.k is none %}N{% endif %}.", "{% if x.k is not none %}V{% endif %}.",
    "{% if 'a' in x.k %}I{% endif %}.", "{% if 'a' not in x.k %}O{% endif %}.",
    "{% if x.k is defined and x.k.a is defined %}A{% else %}N{% endif %}",
    # a key's presence, then its value (looked up once)
    "{% if 'k' in x and x['k'] %}T{% else %}F{% endif %}", "{% if 'k' in x and x.k is not none %}T{% endif %}.",
    "{% if x.k is defined and x.k is not none %}T{% else %}F{% endif %}",
    "{% if x['k'] is defined and x['k'] %}T{% endif %}.", "{% if 'items' in x and x['items'] %}T{% endif %}.",
    "{% if x['items'] is defined and x['items'] is not none %}T{% else %}F{% endif %}",
    "{% if 'k' in x and x.k %}{% for t in x.k %}{{ t }},{% endfor %}{% else %}E{% endif %}",
    "{% if x.k is defined and x.k is not none %}{% for t in x['k'] %}{{ t }};{% else %}none{% endfor %}{% endif %}.",
    "{% if y and x.k|length > 0 %}L{% else %}E{% endif %}", "{% if x.v or x.k.a == 1 or y %}O{% endif %}.",
    "{% if x.k.a is not defined and not x.v and x.k != 'a' %}M{% endif %}.",
    "{% if not y is defined %}N{% else %}D{% endif %}", "{% if not z is defined %}Z{% endif %}.",
    "{% if y is defined %}D{% endif %}.", "{% if not x.k is string and not x.v is none %}B{% endif %}.",
    "{% set w = x.k %}{% if w is defined and not q is defined %}W{% endif %}{% if not w %}F{% endif %}",
    "{% if x.k is string %}S{% else %}N{% endif %}", "{% if x.k is not string %}N{% endif %}.",
    "{% if x.k is mapping %}M{% else %}N{% endif %}", "{% if y is string and x.k is not mapping %}B{% endif %}.",
    "{% if not (x.k is string or x.v is mapping) %}N{% else %}E{% endif %}",
    "{% if x.k in ['a', 'b'] %}I{% else %}O{% endif %}", "{% if x.k not in ('a',) and x.v %}N{% endif %}.",
    "{% if x.k in [1, 2] or x.k not in ['a'] %}T{% else %}F{% endif %}", "{% if y in ['a', 'b'] %}Y{% endif %}.",
    "{% if 'k' in x %}I{% else %}O{% endif %}", "{% if 'k' not in x %}O{% endif %}.",
    "{% if 'k' in x and x.k %}K{% else %}E{% endif %}", "{% if 'a' in x.k or x.v %}K{% else %}E{% endif %}",
    "{% if 'k' not in x or x.k is none %}N{% else %}V{% endif %}",
    "{% if y == 'a' %}Y{% endif %}.", "{% if y %}Y{% else %}N{% endif %}",
    # an int compared with an int constant
    "{% if x.k > 1 %}G{% elif x.k <= 0 %}L{% else %}E{% endif %}", "{% if not x.k >= 1 %}N{% endif %}.",
    "{% set i = 3 %}{% if i > 2 %}B{% else %}N{% endif %}{% if not i < 3 and x.k %}K{% endif %}{% set d = x.k %}"
    "{% if d < 2 %}S{% endif %}",
    # single if, combinations
    "{% if y and x.k is defined %}D{% endif %}{% if y and x.k is not mapping %}M{% endif %}{% if y and x.k == 1 %}1"
    "{% endif %}{% if y and x['items'] is defined %}I{% endif %}{% if y and x.k is none %}N{% endif %}"
    "{% if y and x.k is undefined %}U{% endif %}{% if y and x.k != 'a' %}A{% endif %}",
    "{% if x.k == 'a' and x.v is not none %}B{% else %}E{% endif %}",
    "{% if x.k or x.v %}O{% else %}E{% endif %}", "{% if not (x.k or x.v) %}N{% else %}E{% endif %}",
    "{% if not (x.k == 'a' or 'b' in x.v) %}N{% else %}E{% endif %}",
    # output
    "{{ x.k }}|{{ x['k'] }}|{{ y }}", "a{{ x.k }}b{{ y }}c", "{{ 'a' + x.k + 'b' }}", "{{ x.k|trim }}",
    "{{ 'a' + x.k|upper + x.v }}", "{{ x.k|lower }}|{{ 'p' + y }}",
    # a set and the if that tests the variable it set, run as one (sequences.py)
    "{% set t = x.k|lower %}{% if t == 'a' %}{% set t = 'B' %}{% endif %}{{ t }}",
    "{% set t = x.k %}{% if t is not string %}{% set t = t|tojson %}{% endif %}{{ t }}",
    "{% set t = x.k %}{% if t == 'a' %}A{% else %}E{% endif %}{{ t }}|{% set u = y|upper %}{% if u is string %}S"
    "{% endif %}{{ u }}|{% set v = x.v %}{% if v == 1 %}1{% elif v %}V{% endif %}{% set w = y %}{% if w is mapping %}"
    "M{% else %}{{ w }}{% endif %}",
    # literals of constants: equal tuples one object (as Jinja2's), a list literal a new list each time
    "{% set t = ('a', 1) %}{% set u = ('a', 1) %}{{ t is sameas u }}{% set a = [1, ('x', 2)] %}{% set b = [1, ('x', "
    "2)] %}{{ a is sameas b }}{{ a[1] is sameas b[1] }}{{ a }}{% for k, v in [('a', 1), ('b', 2)] %}{{ k }}{{ v }}"
    "{% endfor %}{% set e = [] %}{{ e|length }}{{ (1,) is sameas (1.0,)|first }}{% set s = 'c' %}{{ s ~ x.k }}",
    # set
    "{% set z = x.k %}{{ z }}", "{% set z = x.k|trim %}{{ z }}", "{% set z = 'p' + x.k + y %}{{ z }}",
    # expressions
    "{{ x.k.a }}|{{ x['k']['a'] }}|{{ x.v.k.a }}", "{% if x.k.a == 1 %}A{% elif x.k.a == 2 %}B{% endif %}.",
    "{{ 'k' in x }}|{{ 'a' not in x.k }}|{{ 'a' in x.k.a }}|{{ 'a' in y }}",
    "{{ x.get('k') }}|{{ x.get('k', 'd') }}|{{ x.get('j', 1) }}|{{ x.get('j', []) }}|{{ x.get('j', {}) }}|"
    "{{ x.get('k', none) }}|{{ x.get('_k', 2) }}|{{ y.get('a') }}|{{ x.k.get('a', 0) }}",
    "{{ x.k == 'a' }}|{{ x.k != 'a' }}",
    # str methods called in line on a plain str, the general getattr and call on anything else
    "{{ x.k.strip() }}|{{ y.upper() }}|{{ x.k.replace('a', 'b').split('b')|length }}|{{ x.k.startswith('a') }}",
    "{{ (x.k ~ '').lstrip('a').center(3, y) }}|{{ x.k.index('a') if x.k is string and 'a' in x.k }}",
    "{{ y.format(x.k) }}|{{ y.join([x.k, x.k]) }}|{{ x.strip() }}|{{ x.k.maketrans('a', 'b') }}",
    # + chains of one, two and more operands that are not string constants; each operand evaluated once, in order
    "{{ x.k + '.' }}|{{ y + x.k }}|{{ x.k + y + x.v + '.' }}|{{ 1 + x.k }}|{{ x.k + 1 + y }}|{{ '' + x.v }}",
    "{% set ns = namespace(n=0) %}{% macro m() %}{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}"
    "{{ 'a' + m() + x.k + m() }}{{ ns.n }}|{{ m() + x.k }}{{ ns.n }}|{{ x.k + m() + y + m() + x.k }}{{ ns.n }}", "{{ (x.k|capitalize) ~ '!' }}", "{{ [x.k == 'a'] }}",
    # string filters of constants, folded while compiling as Jinja2 does
    "{{ '{\\n'|indent(4, first=true) }}{{ 'a\\nb'|indent(2) ~ x.k }}{{ ' x '|trim|upper }}{{ 'A'|lower(1) }}",
    # a key that names a dict method: the method where the dict lacks the key
    "{% if x['items'] is defined %}D{% else %}U{% endif %}{% if x['keys'] %}T{% endif %}{% if not x['get'] %}N"
    "{% endif %}{% if x['values'] is undefined or x.v %}V{% endif %}{% if x.k and x['copy'] %}C{% endif %}",
    "{% if x.j %}J{% else %}E{% endif %}{% if not x.j %}N{% endif %}{% if x.j or x.k %}O{% endif %}"
    "{% if x.v and not x.j %}A{% endif %}",
]

LOOP_SHAPES = [
    "{% for i in items %}{% if loop.first %}F{% endif %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}",
    "{% for i in items %}{% if loop.last %}L{% endif %}{% if not loop.first %}-{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}A{% elif m.k == 'b' %}B{% endif %}{{ m.k }}{% endfor %}",
    "{% for m in items if m %}{% if loop.last %}L{% endif %}{% endfor %}",
    "{% for i in range(items|length) %}{% if items[i]['k'] == 'a' %}A{% elif items[i]['k'] == 'b' %}B"
    "{% else %}{{ items[i].k }}{% endif %}{% endfor %}",
    "{% for m in items %}{% set t = m.k %}{% if t == 'a' %}{% set t = 'A' %}{% endif %}{{ t }}{% endfor %}",
    "{% for m in items %}{% set t = m.k %}{{ '<' + t + '|' + m['k'] + '>' }}{% endfor %}",
    # + chains printed in a loop body: each operand evaluated once, whatever its value
    "{% set ns = namespace(n=0) %}{% macro m() %}{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}"
    "{% for i in items %}{{ m() + x.k }}{{ x.k + m() + '.' }}{{ '<' + m() + '>' }}{% endfor %}{{ ns.n }}",
    "{% for i in range(items|length) %}{{ '<' + items[i] + '>' }}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}{% if m.v %}{% set t = 1 %}{% endif %}{{ t is defined }}{% endif %}"
    "{% endfor %}{% for m in items %}{% if m.k == 'a' %}{% if m %}{% set t, u = 1, 2 %}{% endif %}{{ u }}{% endif %}"
    "{% endfor %}",
    # an if on a key that prints the same key
    "{% for m in items %}{% if m.k %}{{ '<' + m.k + '>' }}{% else %}E{% endif %}{% if m['k'] %}[{{ m.k }}]"
    "{% endif %}{% if m.k %}{{ m.k ~ '!' }}{% endif %}{% endfor %}",
    "{% for m in items %}{% set t = m.k|lower %}{% if t == 'a' %}{% set t = 'B' %}{% endif %}{{ t }}{% endfor %}",
    # a set-then-test pair and the set of its variable through a str method after it (one closure)
    "{% for m in items %}{% set t = m.k|lower %}{% if t == 'a' %}{% set t = 'b' %}{% endif %}{% set t = t|upper %}"
    "{{ '<' + t + '>' + m.k }}{% endfor %}",
    "{% set t = x.k|lower %}{% if t != 'a' %}{% set t = 1 %}{% else %}{% set t = none %}{% endif %}{% set t = t|trim %}"
    "{{ t }}|{% set u = x.k|trim %}{% if u == 'a' %}{% else %}{% set u = x.v %}{% endif %}{% set u = u|lower %}{{ u }}",
    # a set and a membership test of its variable
    "{% for m in items %}{% set c = m['k'] %}{% if 'a' in c %}{% set c = c ~ '!' %}{% endif %}{{ c }}"
    "{% set d = m.k %}{% if 'b' not in d %}N{% else %}B{% endif %}{% endfor %}",
    "{% for m in items %}{% set t = m.k %}{% if t is not string %}{% continue %}{% endif %}{{ t }}{% endfor %}",
    "{% for m in items %}{% if 'k' in m and m['k'] %}{% for t in m['k'] %}<{{ t }}>{% endfor %}{% endif %}"
    "{% if m.k is defined and m.k is not none %}{% for t in m.k %}[{{ loop.index }}{{ t }}]{% endfor %}{% endif %}"
    "{% endfor %}",
    # a branch that prints its own subject (the branch's constant)
    "{% for m in items %}{% if m.k == 'a' %}<{{ m.k }}|{{ m.v }}>{% elif m.k == 'b' %}[{{ m['k'] }}]{% else %}"
    "({{ m.k }}){% endif %}{% endfor %}",
    "{% for m in items %}{% if m['k'] == 'a' %}{{ m.v ~ '' }}{{ '<' + m.k + '|' + m.k|upper + '>' }}{% endif %}"
    "{% endfor %}",
    # bodies of two to five statements, with break and continue
    "{% for m in items %}{% set t = m.k %}{% if t == 'b' %}{% continue %}{% endif %}{{ t }}{% endfor %}",
    "{% for m in items %}{% set t = m.k %}{% if t == 'a' %}{% set t = 'A' %}{% endif %}{{ t }}{% if m.k == 'b' %}"
    "{% break %}{% endif %}{% set u = t %}{% endfor %}{{ t }}{{ u }}",
    "{% for i in range(items|length) %}{{ '<' + items[i]['k'] + '|' + items[i].k ~ '>' }}{% endfor %}",
    "{% for i in items %}{{ '<' + items[i]['k'] + '>' if i is number }}{% endfor %}",
    "{% for i in range(-1, items|length + 1) %}{{ items[i]['k'] + '|' }}{{ '<' + items[i] + '>' }}"
    "{{ y + items[i].k + '>' }}{{ items[i].k + items[i]['k'] + y + items[i].k }}{% endfor %}",
    "{{ items|selectattr('k', 'equalto', 'a')|list }}|{{ items|rejectattr('k', 'defined')|list|length }}|"
    "{{ items|selectattr('k', 'undefined')|list|length }}|{{ items|rejectattr('k', '==', 1)|list|length }}",
    # item plans (fused_loop.py): one print run, or a switch over one key whose branches are print runs
    "{% for m in items %}{{ '<' + m['k'] + '|' + m.k + '>' }}{% endfor %}",
    "{% for m in items %}<{{ m.k }}|{{ m['k']|trim }}>{% endfor %}", "{% for m in items %}[{{ m.k }}]{% endfor %}",
    "{% for m in items %}{% set t = 1 %}{{ '<' + m.k + '|' + y + '>' }}{% endfor %}{% for m in items %}{% if m.k == "
    "'a' %}{{ 'A' + m['k'] + y }}{% elif m.k == 'b' %}{{ m.k + '.' }}{% endif %}{% endfor %}",
    "{% for m in items %}{% set t = 1 %}{{ '<' + m.k + '|' + m['k']|trim + '>' }}{% set t = 2 %}{{ '<' + m.k|upper + "
    "'|' + y + '>' }}{% set t = 3 %}{{ y|lower + m.k|trim }}{% endfor %}",
    "{% for m in items %}{{ m.k ~ '' }}{{ m.k + m.k + m.k }}{% endfor %}", "{% for m in items %}-{% endfor %}",
    "{% for m in items %}{{ '' }}{% endfor %}.", "{% for m in items %}{% raw %}{% endraw %}{% endfor %}.",
    "{% for m in items %}{{ m.k + m.k|trim + '.' + m.k }}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}A{{ m.k }}{% elif m.k == 'b' or m.k == 'x' %}{{ 'B' + m.k|upper }}"
    "{% endif %}{% endfor %}",
    "{% for m in items %}{% if m['k'] == 'a' %}{{ m.k }}{% else %}{% if m.k == 'b' %}B{% else %}{{ 'E' + m.k }}"
    "{% endif %}{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'b' %}1{% elif m.k == 'b' %}2{% elif m.k == 'c' %}{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}{% set t = m.k %}{{ t }}!{% elif m.k == 'b' %}B{% else %}"
    "{% if m.v %}V{% endif %}{{ m.k }}{% endif %}{% endfor %}",
    "{% for m in items %}{{ m.k.a }}|{{ m['k']['a']|trim + m.k.a }}{% endfor %}",
    "{% for m in items %}{{ '>' + m['k']['a'] + '|' + m.k.a }}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' and m.v %}{{ 'A' + m.k }}{% elif m.k == 'b' %}{{ m.k }}{% elif m.k == 'a' %}"
    "second{% else %}E{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}A{% else %}{{ '<' + m.k + '>' }}{% if m.v %}V{% endif %}{% if m.k %}K"
    "{% endif %}{{ '.' }}{% endif %}{% endfor %}",
    # a print of a key, then an if that prints another key when it is true (one closure)
    "{% for m in items %}{{ '<' + m.k + '>' }}{% if m.v %}{{ '[' + m.v + ']' }}{% endif %}{% set t = 1 %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'z' %}Z{% else %}{{ '<' + m.k + '>' }}{% if m.k %}{{ m.k + '!' }}{% endif %}"
    "{{ '.' }}{% endif %}{% endfor %}{{ '(' + x.k + ')' }}{% if x.v %}{{ x.v ~ '' }}{% endif %}",
    # several switches on one key, variables set in the body (reset, or copied from outside, per item)
    "{% for m in items %}{% if m.k == 'a' %}{{ 'A' + m.k }}{% endif %}{% if m.k == 'b' and m.k is not none %}"
    "{% set t = m.k %}{% if 'b' in t %}{% set t = t ~ '!' %}{% endif %}{{ t }}{% endif %}{% if m.k == 'a' %}again"
    "{{ t is defined }}{% endif %}{% endfor %}{{ t }}",
    "{% set t = 'outer' %}{% for m in items %}{% if m.k == 'a' %}{{ t }}{% set t = m.k %}{{ t }}{% endif %}"
    "{% if m.k == 'b' %}B{{ t }}{% endif %}{% endfor %}{{ t }}",
    "{% for m in items %}{% if m.k == 'a' %}{% break %}{% elif m.k == 'b' %}B{% else %}{{ m.k }}{% endif %}"
    "{% endfor %}",
    "{% for m in items %}{% if m.k == 'b' %}{% for i in m.k %}{% continue %}{% endfor %}{% else %}{% if m.k %}"
    "{{ m.k }}{% endif %}{% endif %}{% endfor %}",
    # a string walked character by character: a key of a character is undefined (unless it names a method)
    "{% for c in y %}{% if c['type'] == 'a' %}T{% else %}F{% endif %}{% if c.k != 'a' %}N{% endif %}"
    "{% if c['upper'] == 'a' %}U{% endif %}{% if c['_k'] == 'a' %}P{% endif %}{% if c[0] == 'a' %}0{% endif %}"
    "{% endfor %}",
    # item plans whose branches read `loop`
    "{% for m in items %}{% if m.k == 'a' and loop.first %}F{{ m.k }}{% elif m.k == 'a' %}A{% elif m.k == 'b' %}"
    "{{ loop.index }}{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}{{ m.k }}{% else %}{% if loop.last %}L{% endif %}{{ loop.index0 }}"
    "{{ loop.length }}{% endif %}{% endfor %}",
    "{% for m in items %}{% if m.k == 'a' %}{% for x in loop %}<{{ x }}>{% endfor %}{% elif m.k == 'b' %}B"
    "{{ loop.revindex }}{% endif %}{% endfor %}",
    "{% for m in items %}{% if loop.index0 > 0 %},{% endif %}{{ loop.index }}{% if loop.index >= 2 and m %}T{% endif %}"
    "{% if not loop.revindex0 < 1 %}R{% endif %}{% endfor %}",
    # loop flags and a namespace's attributes as atoms of an and/or
    "{% set ns = namespace(found=false, k='a', n=none) %}{% for i in items %}{% if i and not ns.found %}"
    "{% set ns.found = true %}F{% endif %}{% if loop.last and ns.k == 'a' %}L{% endif %}{% if not loop.first and "
    "loop.index0 == 1 or loop.index == 3 %}I{% endif %}{% if ns.missing or ns.k %}M{% endif %}{% if ns.n is none "
    "and i %}N{% endif %}{% endfor %}{% for i in items|select %}{% if loop.last and i %}l{% endif %}{% endfor %}",
    # filtered loops: a filter of atoms on the target decided for every item first (a list then walked)
    "{% for k, v in x.items() if k != 'v' %}{{ k }}={{ v }}{% if not loop.last %},{% endif %}{% endfor %}.",
    "{% for i in items if i != 'b' %}{{ i }}{{ loop.length }}{{ loop.last }}{% else %}E{% endfor %}",
    "{% for m in items if m.k == 'a' or m.k is none %}{{ loop.index }}/{{ loop.revindex }}{% else %}E{% endfor %}",
    "{% for m in items if m.k is defined and m.k %}{{ m.k }}{% if loop.first %}F{% endif %}{% endfor %}.",
    "{% for k in x.keys() if k %}{{ k }}{% endfor %}{% for v in x.values() %}{{ v }}{% endfor %}",
    "{% for i in items if i != 'a' %}{% if loop.index > 1 %}{% break %}{% endif %}{{ i }}{% endfor %}.",
    "{% set ns = namespace(n=0) %}{% for i in items if ns.n < 1 %}{% set ns.n = ns.n + 1 %}{{ i }}{% endfor %}"
    "{% set ns2 = namespace(on=true) %}{% for i in items if ns2.on %}{% set ns2.on = false %}{{ i }}{% endfor %}",
    "{% for i in items if i %}{% for j in loop %}<{{ j }}>{% endfor %}{{ loop.index }}{% endfor %}.",
    "{% set ns = namespace(a=1) %}{% for n in [ns, ns, x] if n.a == 1 %}{% set ns.a = 2 %}{{ loop.index }}{% endfor %}"
    "{% set ns.a = 1 %}{% for n in [ns, ns] if n.a == 1 %}{% set ns.a = 2 %}{{ loop.length }}{% endfor %}.",
    "{% for m in items %}{% if m == 'b' %}{% break %}{% endif %}{{ m }}{% endfor %}{% for m in items %}"
    "{% if m == 'a' %}{% continue %}{% endif %}{{ m }}{% if m %}{% break %}{% endif %}{% endfor %}",
]


class Thing:
    """A caller's object (plain environment): attributes, no item access."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)


LONG = "a" * 1500 + " "
VALUES = {
    "str": "a", "other_str": "b", "padded": "  ab  ", "empty": "", "none": None, "int": 1, "zero": 0,
    "float": 2.0, "list": ["a", "b"], "empty_list": [], "tuple": ("a",), "dict": {"a": 1}, "str_dict": {"a": "b"}, "markup": mj.Markup("<a>"), "long": LONG, "bool": True,
}


def contexts():
    """Contexts for the shapes: x a dict with k (and v) of every kind, without k, or not a dict at all."""
    for (k_name, k), (v_name, v) in itertools.product(VALUES.items(), [("str", "ab"), ("none", None)]):
        yield f"k={k_name},v={v_name}", {"x": {"k": k, "v": v}, "y": "a", "items": ["a", "b"]}
    yield "k missing", {"x": {"v": "a"}, "y": 1, "items": []}
    yield "x list", {"x": ["a"], "y": None, "items": [{"k": "a"}, {"k": "b"}, {}]}
    yield "x str", {"x": "abc", "y": ["a"], "items": "ab"}
    yield "x missing", {"y": "b", "items": [{"k": "b"}, {"k": 3}]}
    yield "x none", {"x": None, "y": "", "items": [None, {"k": "a"}]}
    yield "items of every kind", {"x": {}, "y": "a", "items": [{"k": v} for v in VALUES.values()] + [{}, {"j": 1}]}


def _same(ref, mine):
    if ref[0] == "ok":
        return mine[0] == "ok" and mine[1] == ref[1]
    return mine[0] == "error" and differential_ref._errors_match(ref[1], mine[1])


def _render_pair(ref_env, mj_env, source, context):
    try:
        ref = ("ok", ref_env.from_string(source).render(differential_ref._copy(context)))
    except Exception as exc:  # noqa: BLE001 - the reference's error is the expectation
        ref = ("error", exc)
    try:
        mine = ("ok", mj_env.from_string(source).render(differential_ref._copy(context)))
    except Exception as exc:  # noqa: BLE001 - compared with the reference's
        mine = ("error", exc)
    return ref, mine


@pytest.mark.parametrize("source", SHAPES + LOOP_SHAPES)
def test_shape_renders_like_jinja2_in_the_chat_profile(source):
    failures = []
    for label, context in contexts():
        ref, mine = _render_pair(differential_ref.reference_env(), differential_ref.mj_env(), source, context)
        if not _same(ref, mine):
            failures.append(f"{label}: Jinja2 {ref[0]} {ref[1]!r:.120} / ours {mine[0]} {mine[1]!r:.160}")
    assert failures == []


@pytest.mark.parametrize("source", SHAPES)
def test_shape_with_strict_undefined_and_caller_objects(source):
    """A plain environment with StrictUndefined (undefined values fail where used), and a caller's object in
    place of the dict: the in-line paths must hand both to the general ones."""
    ref_env = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    mj_env = mj.Environment(undefined=mj.StrictUndefined)
    failures = []
    for label, context in [("dict", {"x": {"k": "a", "v": "b"}, "y": "a"}), ("missing", {"x": {}, "y": "a"}),
                           ("object", {"x": Thing(k="a", v=None), "y": "a"}), ("object without k", {"x": Thing()})]:
        ref, mine = _render_pair(ref_env, mj_env, source, context)
        if not _same(ref, mine):
            failures.append(f"{label}: Jinja2 {ref[0]} {ref[1]!r:.120} / ours {mine[0]} {mine[1]!r:.160}")
    assert failures == []


def test_lazy_loop_flags_take_the_general_path():
    """loop.last over an iterator needs a look-ahead: the in-line read applies only to lists."""
    source = "{% for i in items|select %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}"
    context = {"items": [1, 0, 2, 3]}
    ref, mine = _render_pair(differential_ref.reference_env(), differential_ref.mj_env(), source, context)
    assert mine == ref == ("ok", "1,2,3")


def test_item_plan_reads_chains_of_keys_like_jinja2():
    source = "{% for m in items %}{% if m.role == 'a' %}{{ '<' + m.f.name + '|' + m['f']['args']|trim }}" \
             "{% else %}{{ m.f.name }}.{% endif %}{% endfor %}"
    items = [{"role": "a", "f": {"name": "n", "args": " x "}}, {"role": "b", "f": {"name": "m"}},
             {"role": "a", "f": {"name": 1, "args": "y"}}, {"role": "a", "f": None}, {"role": "a"},
             {"role": "a", "f": {"name": "n", "args": mj.Markup("<b>")}}]
    ref, mine = _render_pair(differential_ref.reference_env(), differential_ref.mj_env(), source, {"items": items})
    assert _same(ref, mine), (ref, mine)


def test_loops_print_nothing_after_a_known_extends():
    sources = {"b": "B{% block x %}{% endblock %}",
               "c": "{% extends 'b' %}{% for m in items %}{{ m.k }}|{% endfor %}",
               "d": "{% extends 'b' %}{% for m in items %}{% if m.k == 'a' %}A{% else %}{{ m.k }}{% endif %}"
                    "{% endfor %}",
               "e": "{% extends 'b' %}{% for m in items %}{% if m.k == 'a' %}A{% endif %}{% endfor %}"}
    items = [{"k": "a"}, {"k": "z"}]
    for name in ("c", "d", "e"):
        ref = ImmutableSandboxedEnvironment(loader=jinja2.DictLoader(sources)).get_template(name).render(items=items)
        assert mj.Environment(loader=mj.DictLoader(sources)).get_template(name).render(items=items) == ref == "B"


def test_item_plan_with_an_and_in_a_branch_test():
    source = "{% for m in items %}{% if m.role == 'system' and m.content %}{{ '<s>' + m.content }}" \
             "{% elif m.role == 'user' %}{{ '<u>' + m.content }}{% elif m.role == 'system' %}[empty system]" \
             "{% endif %}{% endfor %}"
    items = [{"role": "system", "content": "x"}, {"role": "system", "content": ""}, {"role": "user", "content": "q"},
             {"role": "system"}, {"role": "tool", "content": "t"}]
    for context in ({"items": items}, {"items": items + [{"role": "user", "content": None}]}):
        ref, mine = _render_pair(differential_ref.reference_env(), differential_ref.mj_env(), source, context)
        assert _same(ref, mine), (ref, mine)
    assert ref[0] == "error" and mine[0] == "error"   # the second: '<u>' + None


def test_a_characters_missing_key_under_every_undefined():
    """content['type'] of a string's characters is undefined: compared in line only where the undefined class
    compares as Jinja2's default does; StrictUndefined fails as in Jinja2."""
    source = "{% for c in y %}{% if c['type'] == 'a' %}T{% else %}F{% endif %}{% if c.k != 'a' %}N{% endif %}" \
             "{% endfor %}"
    for name in ("Undefined", "StrictUndefined", "ChainableUndefined", "DebugUndefined"):
        ref_env = ImmutableSandboxedEnvironment(undefined=getattr(jinja2, name))
        mj_env = mj.Environment(undefined=getattr(mj, name))
        ref, mine = _render_pair(ref_env, mj_env, source, {"y": "ab"})
        assert _same(ref, mine), (name, ref, mine)
        assert ref[0] == ("error" if name == "StrictUndefined" else "ok")


@pytest.mark.parametrize("source, items", [
    # a later item that does not unpack: Jinja2's loop never reaches it after the break
    ("{% for k, v in items if k %}{{ k }}{% break %}{% endfor %}.", [("a", 1), "xyz"]),
    ("{% for k, v in items if k != 'b' %}{{ k }}{{ v }}{{ loop.last }}{% endfor %}", [("a", 1), ["b", 2], ("c", 3)]),
    ("{% for k, v in items if v %}{{ k }}{% endfor %}.", [("a", 1), ("b", 2, 3)]),
    ("{% for (k, v), w in items if w %}{{ k }}{{ v }}{% endfor %}.", [(("a", 1), 2), (("b", 2), 0)]),
    ("{% for m in items if m.k != 'b' %}{{ m.k }}{{ loop.length }}{% endfor %}", [{"k": "a"}, {"k": "b"}, {"k": 1}]),
    # what the body gets for a tuple target: the values, as a tuple (loop.previtem shows it)
    ("{% for k, v in items if k != 'z' %}{{ loop.previtem }}|{% endfor %}", [("a", 1), ["b", 2], ("c", 3)]),
    ("{% for k, v in items if k|length %}{{ loop.previtem }}{{ loop.nextitem }}|{% endfor %}", [("a", 1), ["b", 2]]),
    ("{% for k in items if k %}{{ loop.previtem }}|{% endfor %}", [["a"], ["b"]]),
    ("{% for (k, v), w in items if w %}{{ k }}{{ v }}{{ loop.previtem }}|{% endfor %}", [(["x", 1], 2), (("y", 2), 3)]),
    ("{% for k, (v, w) in items if k %}{{ v }}{{ w }}{{ loop.nextitem }}|{% endfor %}", [("a", [1, 2]), ("b", (3, 4))]),
])
def test_filtered_loops_are_decided_up_front_only_on_plain_items(source, items):
    """A filter of in-line tests on the target is decided for every item first only where that is what Jinja2's
    lazy filter decides: each item a plain value (a tuple target: a plain tuple or list of its length)."""
    ref, mine = _render_pair(differential_ref.reference_env(), differential_ref.mj_env(), source, {"items": items})
    assert _same(ref, mine), (ref, mine)


def test_a_filtered_loop_unpacks_each_item_once():
    """A caller's iterator as an item of a filtered loop with a tuple target: the filter unpacks it, the body gets
    the values (Jinja2's filter yields them); unpacking it again would find it empty."""
    def pair():
        yield "a"
        yield 1
    source = "{% for k, v in items if k %}{{ k }}{{ v }}{% endfor %}"
    ref = differential_ref.reference_env().from_string(source).render(items=[("a", 1), pair()])
    mine = differential_ref.mj_env().from_string(source).render(items=[("a", 1), pair()])
    assert mine == ref == "a1a1"
    nested = "{% for (k, v), w in items if w %}{{ k }}{{ v }}{{ w }}{% endfor %}"
    ref = differential_ref.reference_env().from_string(nested).render(items=[(pair(), 2)])
    mine = differential_ref.mj_env().from_string(nested).render(items=[(pair(), 2)])
    assert mine == ref == "a12"
