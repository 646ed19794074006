"""The fast paths read once what Jinja2 reads again only where nothing in between can change it (issue 22, point
1): a caller's function, a caller's method, filter or test, a macro calling one, or the mutable profile
(Environment(immutable=False)) changing the data a switch, an item plan, a loop's filter, items or `loop`
already read. Each case renders as Jinja2 renders it — configured as transformers configures it
(tests/support/differential_ref.py), or Jinja2's SandboxedEnvironment for the mutable profile. The expected
outputs are Jinja2's (checked against it again where it is installed); the data-driven cases of
tests/cases/early_decisions are the same questions without the caller's code. Also analysis/treescan.py's Effects answers,
which decide where the fast paths may read once.
"""

import pytest

import minijinja_py as mj
from minijinja_py.analysis.treescan import Effects
from minijinja_py.analysis.transforms import folds_string_filters
from minijinja_py.analysis.treescan import scan_tree
from minijinja_py.syntax.parse import parse

try:
    import jinja2.sandbox
    from differential_ref import reference_env
except ImportError:  # the reference is optional: the comparisons with it are skipped
    jinja2 = None


class Counter:
    """A caller's object whose `a` property counts its reads."""

    def __init__(self, value):
        self.reads, self._value = 0, value

    @property
    def a(self):
        self.reads += 1
        return self._value


class Message:
    """A caller's message object: a property counting reads of `role`."""

    def __init__(self, role, counter):
        self._role, self._counter = role, counter

    @property
    def role(self):
        self._counter.reads += 1
        return self._role


class Box:
    """A caller's object whose method changes the data it is handed."""

    def relabel(self, message, role="b"):
        message["role"] = role
        return ""


def _mutating(items):
    """Callables closing over items (a list or dict): they change it and print nothing."""
    def grow(value=9):
        items.append(value)
        return ""

    def shrink():
        items.pop()
        return ""

    def add_key(key="z"):
        items[key] = 1
        return ""
    return {"grow": grow, "shrink": shrink, "add_key": add_key}


def _relabel(message, role="b"):
    message["role"] = role
    return ""


def ctx_roles():
    return {"ms": [{"role": "a"}, {"role": "b"}], "hook": _relabel, "box": Box()}


def ctx_dict():
    d = {"k": "a", "c": {"k": "a"}}

    def flip(key="k"):
        (d if key == "k" else d["c"])["k"] = "b"
        return ""
    return {"d": d, "flip": flip}


def ctx_list(*values):
    def make():
        xs = list(values)
        return {"xs": xs, **_mutating(xs)}
    return make


def ctx_map():
    d = {"a": 1, "b": 2}
    return {"d": d, **_mutating(d), "set_b": lambda: d.update(b=9) or ""}


def ctx_counter():
    counter = Counter({"role": "z"})
    return {"o": counter, "w": {"o": counter}, "reads": lambda: counter.reads}


def ctx_messages():
    counter = Counter(None)
    return {"ms": [Message("a", counter), Message("b", counter)], "reads": lambda: counter.reads}


def ctx_items():
    ms = [{"n": 1, "keep": True}, {"n": 2, "keep": True}, {"n": 3, "keep": True}]

    def drop(index):
        ms[index]["keep"] = False
        return ""
    return {"ms": ms, "drop": drop}


# (template, context factory, Jinja2's output); the chat profile, the caller's callables in the context
CHAT_CASES = [
    # an item plan's switches: a branch's call changes the item a later switch tests
    ("{% for m in ms %}{% if m.role == 'a' %}{{ hook(m) }}A{% endif %}{% if m.role == 'b' %}B{% endif %}{% endfor %}",
     ctx_roles, "ABB"),
    ("{% for m in ms %}{% if m.role == 'a' %}{{ box.relabel(m, 'c') }}{% elif m.role == 'x' %}X{% endif %}"
     "{% if m.role == 'c' %}C{% elif m.role == 'b' %}B{% endif %}{% endfor %}", ctx_roles, "CB"),
    ("{% macro touch(m) %}{{ hook(m) }}{% endmacro %}{% for m in ms %}{% if m.role == 'a' %}{{ touch(m) }}A"
     "{% endif %}{% if m.role == 'b' %}B{% endif %}{% endfor %}", ctx_roles, "ABB"),
    ("{% for m in ms %}{% if m.role == 'a' %}{{ m|relabel }}A{% endif %}{% if m.role == 'b' %}B{% endif %}"
     "{% endfor %}", ctx_roles, "ABB"),
    ("{% for m in ms %}{% if m.role == 'a' and m is relabelled %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}"
     "{% endfor %}", ctx_roles, "BB"),
    ("{% for m in ms %}{% if m.role == 'a' and hook(m) %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}"
     "{% endfor %}", ctx_roles, "BB"),
    ("{% for m in ms %}{% if m.role == 'a' %}{{ hook(m) }}{{ loop.index }}{% endif %}{% if m.role == 'b' %}B"
     "{{ loop.last }}{% endif %}{% endfor %}", ctx_roles, "1BFalseBTrue"),
    # a switch: an extra or alternative changes its subject, which the next test reads again
    ("{% if d.k == 'a' and flip() %}A{% elif d.k == 'b' %}B{% else %}E{% endif %}", ctx_dict, "B"),
    ("{% if d.k == 'x' or flip() %}X{% elif d.k == 'b' %}B{% else %}E{% endif %}", ctx_dict, "B"),
    ("{% if d.c.k == 'a' and flip('c') %}A{% elif d.c.k == 'b' %}B{% else %}E{% endif %}", ctx_dict, "B"),
    ("{% set ms = [d] %}{% for i in range(1) %}{% if ms[i].k == 'a' and flip() %}A{% elif ms[i].k == 'b' %}B"
     "{% else %}E{% endif %}{% endfor %}", ctx_dict, "B"),
    # ... and reads a caller's object once per test
    ("{% if o.a.role == 'x' %}X{% elif o.a.role == 'y' %}Y{% elif o.a.role == 'z' %}Z{% endif %}{{ reads() }}",
     ctx_counter, "Z3"),
    ("{% if w.o.a.role == 'x' %}X{% elif w.o.a.role == 'z' %}Z{% endif %}{{ reads() }}", ctx_counter, "Z2"),
    ("{% for m in ms %}{% if m.role == 'b' %}B{% elif m.role == 'a' %}A{% endif %}{% if m.role == 'a' %}a"
     "{% endif %}{% endfor %}{{ reads() }}", ctx_messages, "AaB5"),
    # a loop's filter is decided as the loop reaches each item
    ("{% for x in xs if x != 0 %}{{ grow() if x == 1 }}{{ x }}{{ loop.last }},{% endfor %}", ctx_list(1, 2),
     "1False,2False,9True,"),
    ("{% for x in xs if x > 0 %}{{ shrink() }}{{ x }},{% endfor %}", ctx_list(1, 2, 3, 4), "1,2,"),
    ("{% for m in ms if m.keep %}{{ drop(1) }}{{ m.n }},{% endfor %}", ctx_items, "1,3,"),
    ("{% for m in ms if m.keep %}{{ drop(2) if loop.first }}{{ m.n }}{{ loop.last }},{% endfor %}", ctx_items,
     "1False,2True,"),
    # a dict or view the body changes is iterated live
    ("{% for k, v in d.items() %}{{ set_b() if k == 'a' }}{{ k }}={{ v }},{% endfor %}", ctx_map, "a=1,b=9,"),
    ("{% for v in d.values() %}{{ set_b() }}{{ v }}{{ loop.length }}{{ loop.last }},{% endfor %}", ctx_map,
     "12False,92True,"),
    # loop.length, last, revindex, nextitem, previtem as the list changes
    ("{% for x in xs %}{{ grow() if loop.first }}{{ x }}{{ loop.last }}{{ loop.length }},{% endfor %}",
     ctx_list(1, 2), "1False3,2False3,9True3,"),
    ("{% for x in xs %}{{ loop.length }}{{ grow() if loop.first }}{{ x }}{{ loop.last }},{% endfor %}",
     ctx_list(1, 2), "21False,22False,29True,"),
    ("{% for x in xs %}{{ shrink() }}{{ x }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }},{% endfor %}",
     ctx_list(1, 2, 3, 4), "1False33,2True32,"),
    ("{% for x in xs %}{{ grow(x * 10) if x < 3 }}{{ loop.previtem|default('-') }}<{{ x }}>"
     "{{ loop.nextitem|default('-') }}:{{ loop.revindex0 }},{% endfor %}", ctx_list(1, 2),
     "-<1>2:2,1<2>10:1,2<10>20:0,10<20>-:-1,"),
    ("{% for x in xs %}{% if loop.last %}{{ grow() }}{% endif %}{{ x }},{% endfor %}", ctx_list(1, 2), "1,2,"),
    ("{% for x in xs %}{% if x == 1 %}{{ grow() }}{% endif %}{{ x }},{% endfor %}", ctx_list(1, 2), "1,2,9,"),
    ("{% for x in xs %}{% for y in xs %}{{ grow() if x == 1 and y == 1 }}{{ y }}{{ loop.last }}{% endfor %}/"
     "{{ loop.length }};{% endfor %}", ctx_list(1, 2),
     "1False2False9True/3;1False2False9True/3;1False2False9True/3;"),
]


def _reference_chat():
    env = reference_env()
    return _with_callers(env)


def _with_callers(env):
    env.filters["relabel"] = _relabel
    env.tests["relabelled"] = lambda m: _relabel(m) == "x"
    return env


def _ours_chat():
    return _with_callers(mj.chat_environment())


@pytest.mark.parametrize("source,make,expected", CHAT_CASES)
def test_a_callers_function_changing_the_data_renders_as_jinja2(source, make, expected):
    assert _ours_chat().from_string(source).render(make()) == expected


@pytest.mark.skipif(jinja2 is None, reason="jinja2 (the reference) is not installed")
@pytest.mark.parametrize("source,make,expected", CHAT_CASES)
def test_the_expected_outputs_are_jinja2s(source, make, expected):
    assert _reference_chat().from_string(source).render(make()) == expected


def test_a_dict_changing_size_under_the_loop_fails_as_in_jinja2():
    source = "{% for k in d %}{{ add_key() }}{{ k }},{% endfor %}"
    with pytest.raises(mj.TemplateError) as info:
        _ours_chat().from_string(source).render(ctx_map())
    assert isinstance(info.value, RuntimeError)
    assert info.value.message == "dictionary changed size during iteration"
    assert (info.value.lineno, info.value.colno) == (1, 13)
    if jinja2 is not None:
        with pytest.raises(RuntimeError, match="dictionary changed size during iteration"):
            _reference_chat().from_string(source).render(ctx_map())


# the mutable profile, through the Python API: the caller's data changes as in Jinja2's SandboxedEnvironment
MUTABLE_CASES = [
    ("{% for x in xs %}{% do xs.append(9) if loop.first %}{{ x }}{{ loop.last }}{{ loop.length }},{% endfor %}",
     "1False3,2False3,9True3,", [1, 2, 9]),
    ("{% for x in xs if x != 2 %}{% do xs.append(2) %}{% do xs.append(3) if x == 1 %}{{ x }},{% endfor %}",
     "1,3,", [1, 2, 2, 3, 2]),
    ("{% for x in xs %}{% do xs.pop() %}{{ x }}{{ loop.revindex }},{% endfor %}", "13,22,", [1, 2]),
]


@pytest.mark.parametrize("source,expected,after", MUTABLE_CASES)
def test_the_mutable_profile_changes_the_list_under_the_loop_as_jinja2(source, expected, after):
    items = [1, 2] if "pop" not in source else [1, 2, 3, 4]
    env = mj.Environment(immutable=False, extensions=["do"])
    assert env.from_string(source).render(xs=items) == expected
    assert items == after
    if jinja2 is not None:
        reference_items = [1, 2] if "pop" not in source else [1, 2, 3, 4]
        reference = jinja2.sandbox.SandboxedEnvironment(extensions=["jinja2.ext.do"])
        assert reference.from_string(source).render(xs=reference_items) == expected
        assert reference_items == after


def test_the_mutable_profile_fails_a_dict_changing_size_with_jinja2s_error():
    env = mj.Environment(immutable=False, extensions=["do"])
    with pytest.raises(mj.TemplateError) as info:
        env.from_string("{% for k in d.keys() %}\n{% do d.update({k + '2': 1}) %}{% endfor %}").render(d={"a": 1})
    assert isinstance(info.value, RuntimeError) and info.value.lineno == 1


# analysis/treescan.py (Effects): which code may change data (the fast paths read once only where none runs)
CHANGES = [
    ("{{ m.content.strip() ~ m.get('x', '')|tojson ~ d.items()|list|length }}", False),
    ("{{ raise_exception('bad') }}{{ range(3)|list }}{% set ns = namespace(a=1) %}{% set ns.a = 2 %}", False),
    ("{{ loop.cycle('a', 'b') }}{{ [1]|map('string')|join }}{{ [1]|select('odd')|list }}", False),
    ("{% macro m(x) %}{{ x|upper }}{% endmacro %}{{ m('a') }}", False),
    ("{% macro m(x) %}{{ m(x) }}{% endmacro %}{{ m('a') }}", False),
    ("{{ hook() }}", True),
    ("{{ box.relabel(m) }}", True),
    ("{% do xs.append(1) %}", True),
    ("{{ m|relabel }}", True),
    ("{{ m is relabelled }}", True),
    ("{{ xs|map('relabel')|list }}", True),
    ("{{ xs|select(name)|list }}", True),
    ("{% macro m() %}{{ hook() }}{% endmacro %}{{ m() }}", True),
    ("{% macro m(x=hook()) %}{% endmacro %}{{ m() }}", True),
    ("{% macro m() %}{% endmacro %}{% set m = hook %}{{ m() }}", True),
    ("{% include 'other' %}", True),
    ("{% call m() %}x{% endcall %}", True),
    ("{% filter relabel %}x{% endfilter %}", True),
    ("{{ fns[0]() }}", True),
]


def _effects(source):
    env = _ours_chat()
    env.extensions = env.extensions | {"do"}
    template = parse(source)
    return Effects(template, env.filters, env.tests, env.globals), template


@pytest.mark.parametrize("source,changes", CHANGES)
def test_what_may_change_data(source, changes):
    effects, template = _effects(source)
    assert effects.changes_data(template.body) is changes


@pytest.mark.parametrize("source,changes", CHANGES + [
    ("{% macro m() %}{{ hook() }}{% endmacro %}x", False),   # a definition runs nothing
    ("{% for x in xs %}{% macro m() %}{{ hook() }}{% endmacro %}{% endfor %}{{ y|relabel }}", True),
    ("{% for x in xs %}{% if x %}{{ x|relabel }}{% endif %}{% endfor %}", True),
])
def test_what_may_change_data_from_the_scan(source, changes):
    """The same answers from the tree scan's list of the nodes that may run code (each body's range of it), and
    for every statement list of the template the same as the walk's."""
    env = _ours_chat()
    env.extensions = env.extensions | {"do"}
    template = parse(source)
    index = scan_tree(template.body, None)
    effects = Effects(template, env.filters, env.tests, env.globals, index=index)
    assert effects.changes_data(template.body) is changes
    bodies = [template.body]
    while bodies:
        body = bodies.pop()
        walked = Effects(template, env.filters, env.tests, env.globals)
        assert Effects(template, env.filters, env.tests, env.globals, index=index).changes_data(body) is \
            walked.changes_data(body), body
        for stmt in body:
            bodies.extend(getattr(stmt, f) for f in ("body", "else_") if isinstance(getattr(stmt, f, None), tuple))


def test_the_scan_says_where_a_compile_time_fold_may_apply():
    """The compiler runs the string-filter folder only where the scan found a string filter of a string literal,
    and Jinja2's constant folder only where it found a slice of what may be a constant (or the source spells a
    power): not of a variable or a chain of its attributes and items, which Jinja2's folder never folds."""
    def index(source):
        return scan_tree(parse(source).body, None)
    assert folds_string_filters(index("{{ 'ab'|upper }}").runners)
    assert folds_string_filters(index("{% if x %}{{ 'a'|trim|indent(2) }}{% endif %}").runners)
    assert not folds_string_filters(index("{{ x|upper }}{{ 'a'|length }}{{ ('a' ~ x)|trim }}").runners)
    for may_fold in ("{% for m in ['a', 'b'][1:] %}{% endfor %}", "{{ none[1:] }}", "{{ (x or 'ab')[1:] }}",
                     "{{ ('a' if true else x)[1:] }}", "{{ {'a': none}.a[1:] }}", "{{ x[none[1:]:] }}",
                     "{{ ('ab'|upper)[1:] }}", "{{ range(3)[1:] }}"):
        assert index(may_fold).slices, may_fold
    for never in ("{{ x[1] }}{{ {'a': 1} }}{% if a %}:{% endif %}", "{% for m in ms[1:] %}{% endfor %}",
                  "{{ m.content[1:] }}", "{{ x[0]['a'][1:-1] }}", "{{ x[1:][0:] }}", "{{ x[1:2, 3] }}"):
        assert not index(never).slices, never


@pytest.mark.parametrize("source,assigns", [
    ("{% if x %}{% set m = 1 %}{% endif %}", True),
    ("{% set a, m = 1, 2 %}", True),
    ("{% set m %}x{% endset %}", True),
    ("{% for m in xs %}{% endfor %}", True),
    ("{% macro m() %}{% endmacro %}", True),
    ("{% set m.x = 1 %}", True),
    ("{% macro f() %}{% set m = 1 %}{% endmacro %}{% set n = m %}{{ m.x }}", False),
])
def test_what_assigns_a_variable(source, assigns):
    effects, template = _effects(source)
    assert effects.assigns(template.body, "m") is assigns
