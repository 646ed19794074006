"""loop.first and loop.last read in line (compile/conditionals._if_loop_flag: an if of `loop.last`, `not loop.first`,
`loop.index0 == 0`, `loop.index != 1`; expressions.e_not: `not loop.last` in an and/or chain or an output) against
Jinja2, kernels on and off: over lists, tuples, strings, dicts, a caller's generator (a lazy loop: loop.last peeks),
filtered and recursive loops, nested loops, a list that grows while it is walked, a variable named `loop` that is no
loop context (`{% with %}`, a macro's parameter, a top-level set, a caller's object, undefined) and every undefined
class; and the long int literal regexp compiled only when a source can hold one.
"""

import subprocess
import sys

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
from differential_ref import mj_kind, reference_env, reference_kind  # noqa: E402


class Flags:
    # A caller's object passed as `loop`: its first and last attributes are what it says, its truth its own.
    first, last, index0, index = "", [0], 0, 7

    def __bool__(self):
        return True


DATA = {
    "list": [1, 2, 3], "one": [1], "empty": [], "tuple": (1, 2), "string": "ab", "dict": {"a": 1, "b": 2},
    "generator": None, "none": None, "int": 3, "flags": Flags(), "mapping": {"first": 0, "last": "yes", "index0": 0},
}

IFS = "".join("{%% if %s %%}%s{%% else %%}-{%% endif %%}" % (test, mark) for test, mark in [
    ("loop.last", "L"), ("not loop.last", "n"), ("loop.first", "F"), ("not loop.first", "f"), ("not not loop.last", "N"),
    ("loop.index0 == 0", "Z"), ("loop.index0 != 0", "z"), ("loop.index == 1", "I"), ("loop.index != 1", "i"),
    ("not loop.index0 == 0", "q"), ("loop.index0 == 1", "1"), ("loop.index0 == 0.0", "0"), ("loop.index0 == false", "b"),
])
CHAINS = "{{ not loop.last }}{{ not loop.first }}{% if not loop.last and loop.index %}A{% endif %}" \
         "{% if loop.first or not loop.last %}O{% endif %}{{ 'y' if not loop.first else 'n' }}"

SNIPPETS = [
    "{% for m in x %}" + IFS + CHAINS + "{% endfor %}",
    "{% for m in x if m %}" + IFS + CHAINS + "{% endfor %}",
    "{% for m in x %}{% for k in [1, 2] %}" + IFS + "{% endfor %}" + CHAINS + "{% endfor %}",
    "{% for m in x %}{% set l = loop %}{% for k in [1, 2] %}{{ l.last }}{% if l.last %}L{% endif %}{% if not l.first %}"
    "f{% endif %}{{ not l.last }}{% endfor %}{% endfor %}",
    "{% for m in x recursive %}" + IFS + "{% if m is iterable and m is not string %}[{{ loop(m) }}]{% endif %}"
    "{% endfor %}",
    "{% with loop = x %}" + IFS + CHAINS + "{% endwith %}",
    "{% macro m(loop) %}" + IFS + CHAINS + "{% endmacro %}{{ m(x) }}",
    "{% set loop = x %}" + IFS + CHAINS,
    IFS + CHAINS,
]


def _outcome(render):
    try:
        return "ok", render()
    except Exception as exc:  # what must agree is the kind of error (the classes are named differently)
        return "error", mj_kind(exc) if isinstance(exc, mj.TemplateError) else reference_kind(exc)


def _fresh(name):
    if name == "generator":
        return (item for item in [1, [2, 3], 4])
    return DATA[name]


@pytest.mark.parametrize("source", SNIPPETS)
def test_loop_flags_match_jinja2(source, general_only):
    ours, theirs = mj.chat_environment().from_string(source), reference_env().from_string(source)
    for name in DATA:
        mine, expected = _outcome(lambda: ours.render(x=_fresh(name))), _outcome(lambda: theirs.render(x=_fresh(name)))
        assert mine == expected, (source, name)
    assert _outcome(lambda: ours.render()) == _outcome(lambda: theirs.render()), (source, "undefined")


UNDEFINED_CLASSES = [
    (mj.Undefined, jinja2.Undefined), (mj.StrictUndefined, jinja2.StrictUndefined),
    (mj.ChainableUndefined, jinja2.ChainableUndefined), (mj.DebugUndefined, jinja2.DebugUndefined),
]


@pytest.mark.parametrize("classes", UNDEFINED_CLASSES, ids=["plain", "strict", "chainable", "debug"])
@pytest.mark.parametrize("source", SNIPPETS)
def test_loop_flags_under_every_undefined_class(source, classes, general_only):
    ours = mj.Environment(undefined=classes[0]).from_string(source)
    theirs = jinja2.Environment(undefined=classes[1]).from_string(source)
    for name in ("list", "mapping", "none", "flags"):
        mine, expected = _outcome(lambda: ours.render(x=_fresh(name))), _outcome(lambda: theirs.render(x=_fresh(name)))
        assert mine == expected, (source, name)
    assert _outcome(lambda: ours.render()) == _outcome(lambda: theirs.render()), (source, "undefined")


@pytest.mark.parametrize("source", [
    # the list grows while it is walked: loop.last is asked of the list as it is then
    "{% for m in x %}{% if not loop.last %},{% endif %}{% if loop.index0 == 1 %}{% do x.append(9) %}{% endif %}"
    "{{ m }}{% if loop.last %}L{% endif %}{{ not loop.last }}{% if loop.index > 5 %}{% break %}{% endif %}{% endfor %}",
    "{% for m in x %}{% if loop.first %}{% do x.clear() %}{% endif %}{% if not loop.last %}n{% endif %}{% endfor %}",
    "{% for m in x %}{% if loop.last %}{% break %}{% endif %}{% if not loop.first %}{% continue %}{% endif %}F"
    "{% endfor %}",
])
def test_loop_flags_after_changes_match_jinja2(source, general_only):
    ours = mj.Environment(immutable=False, extensions=["loopcontrols", "do"]).from_string(source)
    theirs = jinja2.Environment(extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"]).from_string(source)
    assert ours.render(x=[1, 2, 3]) == theirs.render(x=[1, 2, 3])


def test_a_set_of_loop_in_a_loop_fails_as_in_jinja2():
    source = "{% for m in x %}{% set loop = {'last': 1} %}{% if loop.last %}L{% endif %}{% endfor %}"
    assert _outcome(lambda: mj.chat_environment().from_string(source)) == \
        _outcome(lambda: reference_env().from_string(source))


def test_the_long_literal_regexp_is_compiled_only_for_a_source_that_can_hold_one():
    # (a fresh process: no other test has compiled a long source yet)
    code = "\n".join([
        "import minijinja_py as mj", "from minijinja_py.compile import compiler",
        "assert mj.Environment().from_string('{{ 12 }}{{ 0x1f }}').render() == '1231'",
        "assert compiler._long_literal is None",
        "mj.Environment().from_string('{{ 1 }}' + ' ' * 5000)",   # long, but no run without spaces as long as one
        "assert compiler._long_literal is None",
        "mj.Environment().from_string('{{ 1 }}' + ' ' * 5000 + 'x' * 100)", "print(compiler._long_literal is not None)",
    ])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr
