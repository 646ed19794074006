"""The general loop's direct walk (compile/loops.py: _direct_run, for a loop of one name without filter or `loop`),
its lazy walk of a pair target (`for key, value in d|items`), and namespace reads in line (a variable's key read,
the sandbox's getattr_) against Jinja2, kernels on and off: a lattice of iterables — list, tuple, dict, string,
range, `|items` of a dict, empty ones, none, a number, an undefined — with else, break and continue, under the
chat profile's configuration (tests/support/differential_ref.py).
"""

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402

ITERABLES = {
    "list": ["a", "b", "c"], "tuple": ("a", "b"), "dict": {"k": 1, "j": 2}, "str": "xyz", "empty list": [],
    "empty dict": {}, "empty str": "", "none": None, "keyed": {"items": [1], "keys": "k"}, "int": 3, "pairs": [("a", 1), ["b", 2]],
    "strings of two": ["ab", "cd"], "triples": [(1, 2, 3)], "nested": [{"k": [1, 2]}, {"k": []}],
}

SNIPPETS = [
    "{% for x in v %}[{{ x }}]{% endfor %}",
    "{% for x in v %}[{{ x }}]{% else %}E{% endfor %}",
    "{% for x in v %}{% if x == 'b' or x == 'j' %}{% break %}{% endif %}{{ x }}{% else %}E{% endfor %}",
    "{% for x in v %}{% if loop is defined %}L{% endif %}{% continue %}{% else %}E{% endfor %}",
    "{% for x in v|list %}{{ x }}{% endfor %}{% for x in range(v|length) if v is iterable %}{{ x }}{% endfor %}",
    "{% for a, b in v %}{{ a }}={{ b }};{% else %}E{% endfor %}",
    "{% for a, b in v|items %}{{ a }}={{ b }};{% if b == 1 %}{% break %}{% endif %}{% else %}E{% endfor %}",
    "{% for a, b in v.items() %}{{ a }}={{ b }};{% endfor %}",
    "{% for a in v.keys() %}{{ a }}{% endfor %}{{ v.values()|list }}{{ v.items() is iterable }}",
    "{% for a, b in {'items': 1, 'keys': 2}.items() %}{{ a }}{{ b }}{% endfor %}{{ {'items': 1}.items()|list }}",
    "{% for m in ms %}{% for k, w in m|items %}{{ k }}:{% for i in w %}{{ i }}{% endfor %}{% endfor %}{% endfor %}",
    "{% set g = v|items %}{% for a in g %}{{ a }}{% endfor %}{% for a in g %}{{ a }}{% endfor %}",
]


def _outcome(render):
    try:
        return "ok", render()
    except Exception:  # what must agree is that both fail (the classes are named differently)
        return ("error",)


@pytest.mark.parametrize("source", SNIPPETS)
def test_loops_match_jinja2(source, general_only):
    env, reference = mj.chat_environment(), reference_env()
    ours, theirs = env.from_string(source), reference.from_string(source)
    for name, value in ITERABLES.items():
        context = {"v": value, "ms": [{"k": "ab", "j": ()}, {}]}
        assert _outcome(lambda: ours.render(**context)) == _outcome(lambda: theirs.render(**context)), (source, name)
    assert _outcome(lambda: ours.render()) == _outcome(lambda: theirs.render()), (source, "undefined")


@pytest.mark.parametrize("source", [
    "{% set ns = namespace(a='x', b=none) %}{{ ns.a }}|{{ ns.b }}|{{ ns.c }}|{{ ns.c is defined }}",
    "{% set ns = namespace(a='x') %}{% macro f() %}{{ ns.a }}{{ ns.z }}{% endmacro %}{{ f() }}",
    "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}",
    "{% set ns = namespace(a=1) %}{% if ns.a %}A{% endif %}{% if ns.b %}B{% endif %}{{ ns['a'] }}",
    "{% set ns = namespace(a=1) %}{{ ns._a }}",
    "{% set ns = namespace(a=1) %}{{ ns.items }}",
])
def test_namespace_reads_match_jinja2(source, general_only):
    env, reference = mj.chat_environment(), reference_env()
    assert _outcome(lambda: env.from_string(source).render()) == \
        _outcome(lambda: reference.from_string(source).render())


def test_a_dict_changed_during_its_items_loop_fails_as_in_jinja2():
    # not immutable: the body may change the dict it walks; the loop walks it live, and Python's RuntimeError
    # ends it, located at the loop's iterable
    source = "{% for k, v in d|items %}{% set _ = d.update({k ~ 'x': v}) %}{{ k }}{% endfor %}"
    env = mj.Environment(immutable=False)
    reference = jinja2.sandbox.SandboxedEnvironment()
    with pytest.raises(RuntimeError):
        reference.from_string(source).render(d={"a": 1})
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(d={"a": 1})
    assert "changed size during iteration" in str(info.value)
    assert info.value.lineno == 1


@pytest.mark.parametrize("undefined", ["Undefined", "StrictUndefined", "ChainableUndefined", "DebugUndefined"])
def test_a_missing_key_tested_in_line_matches_jinja2(undefined, general_only):
    # {% if m.x %} and `m.x is defined` of a plain dict without the key answered without making the undefined
    # (only for the plain undefined classes; d['update'] is the sandbox's method, refused or not a key)
    tests = ["{% if m.x %}T{% else %}F{% endif %}", "{% if not m.x %}N{% endif %}", "{% if m['x'] %}T{% endif %}",
             "{{ m.x is defined }}{{ m.x is not defined }}{{ m['x'] is undefined }}{{ m.x is none }}",
             "{{ m.x is string }}{{ m.x is iterable }}{{ m.x is sequence }}{{ m.x is callable }}",
             "{{ m['items'] is callable }}",
             "{% if m.y %}Y{% endif %}{{ m.y is defined }}{% if m.z %}Z{% endif %}"]
    ours = mj.Environment(undefined=getattr(mj, undefined))
    theirs = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=getattr(jinja2, undefined))
    for source in tests:
        for m in ({"y": 1, "z": ""}, {"x": "a"}, {"x": None}, {"x": []}, "text", None):
            loop = "{% for m in ms %}" + source + "{% endfor %}"
            assert _outcome(lambda: ours.from_string(loop).render(ms=[m])) == \
                _outcome(lambda: theirs.from_string(loop).render(ms=[m])), (undefined, source, m)
    for source in ("{% if m['update'] %}U{% endif %}", "{{ m['update'] is defined }}"):
        # stricter than Jinja2 (README, Security model): the mutator is refused at access, never read as a key
        with pytest.raises(mj.SecurityError):
            ours.from_string(source).render(m={"y": 1})
