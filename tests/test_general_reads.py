"""The general closures' reads in line (compile/expressions.py, operators.py, comparisons.py, conditionals.py,
output.py) against Jinja2, kernels on and off: a constant negative index (`x[-1]`, `messages[-1]['role']`,
`s.split(x)[-1]`); an if/elif chain of == tests of one indexed or two-step read (`messages[idx]['role'] == 'user'`,
`tool_call['function']['name'] == 'python'`), read once where it is plain data; a printed `+` chain or run whose
value has a str-method filter (`'User: ' + message['content']|trim`) or is a key of a key (`t.function.name`);
and/or operands that are a key of a variable, read for their truth without making the undefined of a missing key, or
type tests of a read answered by the value's class; an if of a type test (`m.content is string`, maybe printing its
read) or of a string constant in a read (`'</think>' in content`) read in line; type tests of unset variables. Each
over a lattice of data — plain dicts and lists, tuples, strings, none, numbers, caller objects with __getitem__ and
__getattr__ (which count their reads: Jinja2's number of reads must be ours), undefined — under the chat profile
(tests/support/differential_ref.py), under every undefined class, and with data changed between reads where the
environment allows it.
"""

import pytest

import minijinja_py as mj

jinja2 = pytest.importorskip("jinja2")
from differential_ref import mj_kind, reference_env, reference_kind  # noqa: E402


class Counted:
    # A caller's object read by item and by attribute, each read counted (what it prints shows how often it was read).
    def __init__(self, role="user"):
        self.role_value, self.reads = role, 0

    def __getitem__(self, key):
        self.reads += 1
        if key in ("role", "name"):
            return self.role_value
        if key == "function":
            return {"name": self.role_value, "arguments": "{}"}
        if key in (0, -1):
            return {"role": self.role_value, "content": " c "}
        raise KeyError(key)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return "attr-" + name


def _messages():
    return [{"role": "system", "content": " s "}, {"role": "user", "content": "  Hi \n"},
            {"role": "assistant", "content": "a</think>b", "tool_calls": [{"function": {"name": "python",
                                                                                        "arguments": "x"}}]},
            {"role": "assistant", "content": None}, {"role": "tool", "content": ["l"]}, {"content": "c"}, {}]


DATA = {
    "messages": _messages(), "tuple": tuple(_messages()[:2]), "empty": [], "string": "ab", "none": None, "int": 3,
    "counted": [Counted(), Counted("system"), Counted("other")], "one counted": Counted(),
    "mixed": [{"role": "user", "content": "x"}, Counted(), ["user"], "user", None, {"role": 1}, {"role": True},
              {"role": {"name": "n"}}, {"function": {"name": "python"}}, {"function": Counted()}, {"function": "s"}],
    "long": [{"role": "user", "content": " y" * 40000}],
    "dict": {0: {"role": "user", "content": "k"}, -1: {"role": "system"}, "a": 1},
    "markup": [{"role": "user", "content": mj.Markup(" <b> ")}],
}

SNIPPETS = [
    # constant negative indexes
    "{{ x[-1] is defined }}|{{ x[-1]['role'] }}|{{ x[-1].role }}|{{ x[0]['role'] }}|{{ x[-9]['role'] is defined }}",
    "{% for m in x %}{{ x[-1]['role'] }}{{ m[-1] is defined }}{% endfor %}{{ -1 }}{{ -1.5 }}{{ -0.0 }}{{ - -2 }}",
    "{% for m in x %}{% if m.content is string %}{{ m.content.split('</think>')[-1] }}{% endif %}{% endfor %}",
    "{% set y = x %}{{ y[-1]['content'] is defined }}{{ x[- -1]['role'] is defined }}{{ x[-1]['items'] is defined }}",
    # if/elif chains of an indexed or two-step read
    "{% for i in range(x|length) %}{% if x[i]['role'] == 'user' %}U{{ x[i]['content'] }}{% elif x[i]['role'] == "
    "'system' %}S{% elif x[i]['role'] == 'user' %}U2{% else %}E{% endif %}{% endfor %}",
    "{% for i in [0, 1, -1, 9, 'role', none, 1.0, true] %}{% if x[i]['role'] == 'user' %}U{% endif %}"
    "{{ x[i]['role'] != 'user' }}{{ x[i]['role'] == 'user' }}{% endfor %}",
    "{% for i in range(x|length) %}{% if x[i]['role'] == 1 %}one{% elif x[i]['role'] == 2 %}two{% endif %}{% endfor %}",
    "{% for m in x %}{% for t in m.tool_calls %}{% if t['function']['name'] == 'python' %}P{% else %}O{% endif %}"
    "{% endfor %}{% if m['function']['name'] == 'python' %}p{% elif m['function']['name'] == 'user' %}u{% endif %}"
    "{% endfor %}",
    # + chains and runs with a str-method filter
    "{% for m in x %}{{ 'User: ' + m['content']|trim + '\\n\\n' }}{% endfor %}",
    "{% for m in x %}<{{ m.role }}>{{ m.content|trim }}|{{ m.content|upper }}{% endfor %}",
    "{% for m in x %}{{ '<|s|>' + m['role'] + '<|e|>' + m['content'] | trim + '<|eot|>' }}{{ m.content|lower + "
    "m.role|capitalize }}{% endfor %}",
    # and/or operands read for their truth
    "{% for m in x %}{% if m.tool_calls and m.role == 'assistant' %}T{% endif %}{% if m.role == 'x' or m.content %}"
    "O{% endif %}{% if m.a and m.b and m.c %}3{% endif %}{% if m.a or m.content or m['items'] %}o{% endif %}"
    "{% if not (m.tool_calls or m.zz) %}n{% endif %}{% endfor %}",
    "{% for m in x %}{% if m.role == 'user' %}U{% elif m.tool_calls and m.content %}TC{% elif m['items'] and m.role %}"
    "I{% endif %}{{ 'y' if m.tool_calls and m.content else 'n' }}{% endfor %}",
    "{% set ns = namespace(a=1, b=none) %}{% for m in x %}{% if ns.a and ns.b %}B{% endif %}{% if ns.c or loop.first"
    " and ns['a'] %}C{% endif %}{% if loop.last and ns.a %}L{% set ns.b = 1 %}{% endif %}{% endfor %}{{ ns.b }}"
    "{% if ns.a %}A{% endif %}{% if not ns.zz %}Z{% endif %}{% if ns['a'] %}I{% endif %}{% if not ns.b %}b{% endif %}"
    "{% for m in x %}{% if m.role %}r{% endif %}{% if not m.zz %}z{% endif %}{% if not loop.last %},{% endif %}"
    "{% endfor %}",
    # an if of a type test read in line
    "{% for m in x %}{% if m.content is string %}S{% else %}N{% endif %}{% if m['content'] is not none %}n{% endif %}"
    "{% if m.tool_calls is defined %}D{% endif %}{% if m is mapping %}M{% endif %}{% if m.content is escaped %}E"
    "{% endif %}{% if m['items'] is callable %}C{% endif %}{% endfor %}",
    # an if of a string constant in a read
    "{% for m in x %}{% set content = m.content %}{% if '</think>' in content %}T{% else %}F{% endif %}{% if '<x>' not "
    "in m.content %}N{% endif %}{% if 'a' in m['content'] %}A{% endif %}{% if 'role' in m %}K{% endif %}{% endfor %}"
    "{% if 'a' in z %}Z{% endif %}{% if 'a' not in z %}z{% endif %}",
    # type tests answered by a plain value's class (context.type_answers): in an if, a value, an and/or operand
    "{% for m in x %}{% for v in [m.content, m['role'], 0, 1, 1.5, true, false, none, [], (), {}, '', m] %}"
    "{% if v is string %}s{% endif %}{% if v is not mapping %}M{% endif %}{% if v is number %}n{% endif %}"
    "{% if v is integer %}i{% endif %}{% if v is boolean %}b{% endif %}{% if v is true %}T{% endif %}"
    "{% if v is not false %}F{% endif %}{% if v is sequence %}q{% endif %}{% if v is iterable %}t{% endif %}"
    "{% if v is float %}f{% endif %}{% if v is none %}0{% endif %}{% if v is escaped %}e{% endif %}"
    "{% if v is callable %}c{% endif %}{% if v is defined and v is not none %}d{% endif %}{% if m.content is not "
    "string %}S{% endif %}|{{ v is string }}{{ v is not true }}{{ v is sequence }}{{ m['role'] is mapping }};"
    "{% endfor %}{% endfor %}",
    # type tests of unset variables
    "{{ z is defined }}{{ z is not defined }}{{ z is none }}{{ z is string }}{{ z is undefined }}{{ z is iterable }}"
    "{% for m in x %}{{ w is defined }}{% set w = 1 %}{{ w is defined }}{% endfor %}",
    # printed keys of one list item indexed by a loop variable (output._print_item_reads), the item read once
    "{% for i in range(x|length) %}{{ x[i]['role'] + ': ' + x[i]['content'] }}|{{ '<' + x[i]['content'] + '>' }}"
    "<{{ x[i]['role'] }}>{{ x[i]['content'] }}\n{{ x[i]['role'] + x[i]['role'] }}{% endfor %}",
    "{% for i in [0, -1, 2, 9, -9, true, 1.0, 'role', none] %}{{ '[' + x[i]['role'] + '|' + x[i]['name'] + ']' }}"
    "{{ x[i]['role'] + '.' }}{% endfor %}",
    "{% macro p(i) %}{{ x[i]['role'] + '|' + x[i]['content'] }}{% endmacro %}{{ p(0) }}{{ p(-1) }}{{ p(1) }}",
    # an if of a key there and true, one lookup (conditionals._if_key_there)
    "{% for m in x %}{% if 'tool_calls' in m and m['tool_calls'] %}T{% else %}F{% endif %}{% if 'content' in m and "
    "m.content %}C{% endif %}{% if 'role' in m and m['role'] %}R{% endif %}{% if 'items' in m and m.items %}I"
    "{% endif %}{% if 'a' in m and m['a'] %}A{% endif %}{% endfor %}{% if 'role' in x and x.role %}X{% endif %}",
    # a set of another variable then a compare on a key of the item (walks._walk_key_compare with a set before it)
    "{% for m in x %}{% set c = m['content'] %}{% if m['role'] == 'user' %}<{{ c }}>{% elif m['role'] == 'system' %}"
    "{{ c ~ '!' }}{% else %}[{{ c }}]{% endif %}{{ c }}{% endfor %}{{ c }}",
    "{% for m in x %}{% set c = m.content|trim %}{% if m.role == 'user' %}<{{ c }}>{% endif %}{% if loop.first %}"
    "{% endif %}{% endfor %}{% for m in x %}{% set c = m.role %}{% if m.role == 'user' %}{{ c }}{% endif %}{% if c "
    "== 'other' %}!{% endif %}{{ '.' }}{% endfor %}",
    "{% set c = 'outer' %}{% for m in x %}{% set c = m['role'] %}{% if m['function']['name'] == 'python' %}P{% elif "
    "m['function']['name'] == 's' %}{{ c }}{% endif %}{% endfor %}{{ c }}",
    # ... its branches a constant text appended in line (in a loop, which counts it), or not (at the top level, in a
    # macro, a branch that is more than a text)
    "{% for m in x %}{% for n in [m, 1] %}{% if 'role' in n and n['role'] %}<{{ '|' }}>{% else %}[none]{% endif %}"
    "{% endfor %}{% if 'content' in m and m.content %}{{ m.content }}!{% else %}{{ '?' }}{% endif %}{% endfor %}"
    "{% set m = x|first %}{% if 'role' in m and m.role %}top{% else %}bottom{% endif %}"
    "{% macro k(m) %}{% if 'role' in m and m.role %}R{% else %}N{% endif %}{% endmacro %}{{ k(x|last) }}",
    # and/or operands that are type tests of a read, answered by a plain value's class (comparisons.chain_operand)
    "{% for m in x %}{% if m.role == 'assistant' and m.content is not none %}A{% endif %}{% if m['content'] is string "
    "or m.role == 'tool' %}S{% endif %}{% if m.content is none or m.tool_calls is defined or m.role == 'x' %}3{% endif %}"
    "{% if m.role == 'user' %}U{% elif m.role == 'assistant' and m.content is string %}a{% elif m.role == 'assistant' "
    "and m.tool_calls is not defined and m['items'] is not none %}b{% endif %}{% if m.items is defined and m.zz is "
    "undefined %}I{% endif %}{% if m.content is true or m.content is not false %}t{% endif %}{{ 'm' if m is mapping and "
    "m.role is string else 'n' }}{% endfor %}{% if x is sequence and z is not defined %}Q{% endif %}",
    # an if of a type test that prints its read between constants, in a loop (conditionals._if_type_print)
    "{% for m in x %}{% if m['content'] is string %}{{ '[INST]' + m['content'] + '[/INST]' }}{% else %}E{% endif %}"
    "{% if m.content is not none %}<{{ m.content }}>{% endif %}{% if m.role is defined %}{{ m.role }}{% endif %}"
    "{% if m.content is not string %}{{ m.content }}{% endif %}{% if m.content is string %}{{ m.content + m.content }}"
    "{% endif %}{% if m['items'] is defined %}{{ m['items'] + '!' }}{% endif %}{% set c = m.content %}"
    "{% if c is string %}{{ 'c:' }}{{ c }}{{ ';' + '\n' }}{% endif %}{% endfor %}"
    "{% if x is string %}{{ '<' + x + '>' }}{% endif %}",
    # an if of a key's truth that prints it between constants, in a loop (conditionals._if_echo)
    "{% for m in x %}{% if m['content'] %}{{ '>>>all\\n' + m['content'] }}{% else %}-{% endif %}{% if m.role %}"
    "[{{ m.role }}]{% endif %}{% if m.content %}{{ m.content + '|' + m.role }}{% endif %}{% if m['items'] %}{{ '<' + "
    "m['items'] }}{% endif %}{% if m.content %}\n{{ m.content }}{{ '!' }}{% elif m.role %}r{% endif %}{% endfor %}"
    "{% if x.role %}{{ '<' + x.role }}{% endif %}",
    # printed `+` chains and runs whose values are keys of a key of a variable (output._print_paths)
    "{% for m in x %}{{ '<f=' + m['function']['name'] + '>' + m.function.arguments + '</f>' }}|{{ '<' + "
    "m.function.name }}|{{ m['function']['name'] + m.role + '.' }}|<{{ m.function.name }}>{% set z = 1 %}{{ '<' + "
    "m.function['items'] }}{{ m.function['items'] }}"
    "{{ m.function.name + m.function.name }}{% endfor %}{% for t in x %}{% for c in t.tool_calls %}{{ '[' + "
    "c.function.name + ']' }}{% endfor %}{% endfor %}{% macro p(m) %}{{ '(' + m.function.name + ')' }}{% endmacro %}"
    "{{ p(x|first) }}{{ '-' + x.function.name }}",
]


def _outcome(render):
    try:
        return "ok", render()
    except Exception as exc:  # what must agree is the kind of error (the classes are named differently)
        return "error", mj_kind(exc) if isinstance(exc, mj.TemplateError) else reference_kind(exc)


@pytest.mark.parametrize("source", SNIPPETS)
def test_reads_match_jinja2(source, general_only):
    env, reference = mj.chat_environment(), reference_env()
    ours, theirs = env.from_string(source), reference.from_string(source)
    for name in DATA:
        # (each side its own copy: the counted objects count each side's reads)
        mine, expected = _outcome(lambda: ours.render(x=_fresh(name))), _outcome(lambda: theirs.render(x=_fresh(name)))
        assert mine == expected, (source, name)
    assert _outcome(lambda: ours.render()) == _outcome(lambda: theirs.render()), (source, "undefined")


def _fresh(name):
    if name == "messages":
        return _messages()
    if name == "counted":
        return [Counted(), Counted("system"), Counted("other")]
    if name == "one counted":
        return Counted()
    return DATA[name]


COUNTING = [
    "{% for i in range(3) %}{% if x[i]['role'] == 'user' %}U{% elif x[i]['role'] == 'system' %}S{% elif "
    "x[i]['role'] == 'none' %}N{% endif %}{% endfor %}{{ x|map(attribute='reads')|join(',') }}",
    "{% for m in x %}{% if m['function']['name'] == 'user' %}U{% elif m['function']['name'] == 's' %}S{% endif %}"
    "{% if m.role and m.role == 'user' %}r{% endif %}{% endfor %}{{ x|map(attribute='reads')|join(',') }}",
    "{% for i in range(3) %}{{ x[i]['role'] + ':' + x[i]['name'] }}{% endfor %}{{ x|map(attribute='reads')|join(',') }}",
    "{% for m in x %}{% set r = m['name'] %}{% if m['role'] == 'user' %}U{{ r }}{% elif m['role'] == 'system' %}S"
    "{% endif %}{% endfor %}{{ x|map(attribute='reads')|join(',') }}",
]


@pytest.mark.parametrize("source", COUNTING)
def test_caller_objects_are_read_as_often_as_jinja2_reads_them(source, general_only):
    ours = mj.chat_environment().from_string(source).render(x=[Counted(), Counted("system"), Counted("other")])
    theirs = reference_env().from_string(source).render(x=[Counted(), Counted("system"), Counted("other")])
    assert ours == theirs


UNDEFINED_CLASSES = [
    (mj.Undefined, jinja2.Undefined), (mj.StrictUndefined, jinja2.StrictUndefined),
    (mj.ChainableUndefined, jinja2.ChainableUndefined), (mj.DebugUndefined, jinja2.DebugUndefined),
]


class _TruthyOurs(mj.Undefined):
    def __bool__(self):
        return True


class _TruthyTheirs(jinja2.Undefined):
    def __bool__(self):
        return True


@pytest.mark.parametrize("classes", UNDEFINED_CLASSES + [(_TruthyOurs, _TruthyTheirs)],
                         ids=["plain", "strict", "chainable", "debug", "caller's"])
@pytest.mark.parametrize("source", SNIPPETS[4:8] + SNIPPETS[11:])   # (the undefined-sensitive ones)
def test_undefined_classes_keep_their_behaviour(source, classes, general_only):
    ours = mj.Environment(undefined=classes[0]).from_string(source)
    theirs = jinja2.Environment(undefined=classes[1]).from_string(source)
    for name in ("messages", "mixed", "empty", "none"):
        mine, expected = _outcome(lambda: ours.render(x=_fresh(name))), _outcome(lambda: theirs.render(x=_fresh(name)))
        assert mine == expected, (source, name)


@pytest.mark.parametrize("source", [
    # the data changed between two reads of one chain: each if reads it again
    "{% for i in range(2) %}{% if x[i]['role'] == 'user' %}U{% do x[i].update({'role': 'system'}) %}{% endif %}"
    "{% if x[i]['role'] == 'system' %}S{% elif x[i]['role'] == 'user' %}u{% endif %}{% endfor %}",
    "{% for i in range(2) %}{% if x[i]['role'] == 'user' %}{% set x = [{'role': 'system'}, {'role': 'system'}] %}"
    "U{% elif x[i]['role'] == 'system' %}S{% endif %}{{ x[i]['role'] }}{% endfor %}",
    "{% for i in range(2) %}{{ x[i]['role'] + ':' }}{% do x[i].update({'role': 'system'}) %}{{ x[i]['role'] + '|' + "
    "x[i]['role'] }}{% do x.append({'role': 'z'}) %}{% endfor %}{{ x[-1]['role'] + x[-1]['role'] }}",
    "{% for m in x %}{% if m.tool_calls and m.role %}T{% endif %}{% do m.update({'tool_calls': [1]}) %}"
    "{% if m.tool_calls and m.role %}t{% endif %}{{ x[-1]['role'] }}{% do x.append({'role': 'z'}) %}"
    "{{ x[-1]['role'] }}{% if loop.index > 2 %}{% break %}{% endif %}{% endfor %}",
    "{% for m in x %}{% if 'k' in m and m['k'] %}K{% else %}k{% endif %}{% do m.update({'k': loop.index0}) %}"
    "{% if 'k' in m and m['k'] %}K{% else %}k{% endif %}{% do m.pop('k') %}{% if 'k' in m and m.k %}K{% else %}k"
    "{% endif %}{% endfor %}",
    "{% for m in x %}{% set r = m['role'] %}{% if m['role'] == 'user' %}U{{ r }}{% do x[loop.index0 + 1].update("
    "{'role': 'user'}) if not loop.last %}{% elif m['role'] == 'system' %}S{{ r }}{% endif %}{% endfor %}",
    "{% for m in x %}{% set r = x[0]['role'] %}{% do x[0].update({'role': 'system'}) %}{% if m['role'] == 'user' %}"
    "U{{ r }}{% else %}E{{ r }}{% endif %}{% endfor %}",
    "{% for m in x %}{% set r = m['role'] %}{% if m['role'] == 'user' %}{{ r }}{% continue %}{% elif m['role'] == "
    "'assistant' %}{% break %}{% endif %}.{% endfor %}",
])
def test_reads_after_changes_match_jinja2(source, general_only):
    ours = mj.Environment(immutable=False, extensions=["loopcontrols", "do"]).from_string(source)
    theirs = jinja2.Environment(extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"]).from_string(source)
    data = [{"role": "user"}, {"role": "assistant"}]
    assert ours.render(x=[dict(d) for d in data]) == theirs.render(x=[dict(d) for d in data])


def test_printed_item_reads_count_their_output_where_they_print(general_only):
    # output._print_item_reads in a macro's body (no loop counts it there): its text counted against max_output
    # where it prints, and again where the macro's text prints (as main counted it before this run read in line)
    source = "{% macro p(i) %}{{ x[i]['role'] + '|' + x[i]['content'] }}{% endmacro %}{{ p(0) }}{{ p(1) }}"
    x = [{"role": "a", "content": "bc"}, {"role": "d", "content": "e" * 3000}]
    expected = "a|bc" + "d|" + "e" * 3000
    assert mj.chat_environment().from_string(source).render(x=x) == expected
    edge = mj.chat_environment(limits=mj.Limits(max_output=2 * len(expected))).from_string(source)
    assert edge.render(x=x) == expected
    for max_output in (3, 2 * len(expected) - 1):
        with pytest.raises(mj.LimitExceeded):
            mj.chat_environment(limits=mj.Limits(max_output=max_output)).from_string(source).render(x=x)


class _FailingTruth:
    def __bool__(self):
        raise ValueError("no truth")


@pytest.mark.parametrize("value", [_FailingTruth(), [1], [], 0, "", None, mj.Markup("")])
def test_a_key_there_and_true_takes_the_value_truth_as_jinja2(value, general_only):
    source = "{% for m in x %}{% if 'k' in m and m['k'] %}T{% else %}F{% endif %}{% endfor %}"
    x = [{"k": value}, {}, {"k": 1}]
    ours = _outcome(lambda: mj.chat_environment().from_string(source).render(x=x))
    assert ours == _outcome(lambda: reference_env().from_string(source).render(x=x))


@pytest.mark.parametrize("max_output", [1, 8, 9, 10, 100])
def test_a_key_there_text_appended_in_line_is_counted_by_its_loop(max_output, general_only):
    # conditionals._if_key_there appends a branch's constant text itself: the loop counts it at its end, as the
    # branch's own run would be counted
    source = "{% for m in x %}{% if 'k' in m and m['k'] %}[yes]{% else %}[no]{% endif %}{% endfor %}"
    x = [{"k": 1}, {}]
    expected = "[yes][no]"   # 9 characters: refused below that
    env = mj.chat_environment(limits=mj.Limits(max_output=max_output))
    ours = _outcome(lambda: env.from_string(source).render(x=x))
    assert ours == (("ok", expected) if max_output >= len(expected) else ("error", "limit")), ours


class _Keyed(dict):
    # A caller's dict subclass whose reads are its own: Jinja2 calls them, and so must a chain of constant keys.
    def __getitem__(self, key):
        return "own-" + str(key) if key in ("f", "n") else dict.__getitem__(self, key)

    def __missing__(self, key):
        return "missing-" + str(key)


_CHAIN_VALUES = {
    "plain": {"tc": [{"f": {"n": "x", "a": {"k": [1, 2]}}}]}, "empty list": {"tc": []}, "no f": {"tc": [{}]},
    "tuple": {"tc": ({"f": {"n": "t"}},)}, "str": {"tc": "abc"}, "f str": {"tc": [{"f": "s"}]},
    "n none": {"tc": [{"f": {"n": None}}]}, "dict index": {"tc": {0: {"f": {"n": "d"}}, -1: {"f": {"n": "m"}}}},
    "counted": {"tc": [Counted()]}, "counted tc": Counted(), "subclass": {"tc": [_Keyed(f=_Keyed(n="s"))]},
    "subclass missing": {"tc": [{"f": _Keyed()}]}, "none": None, "list": [1], "markup": {"tc": [mj.Markup("<m>")]},
    "items": {"tc": [{"f": {"items": "i"}}]},
}


@pytest.mark.parametrize("source", [
    "{{ m['tc'][0]['f']['n'] }}|{{ m.tc[-1].f.n }}|{{ m['tc'][0]['f'] }}|{{ m['tc'][1]['f'] is defined }}",
    "{{ m['tc'][-2]['f'] is defined }}|{{ m['tc'][0]['f']['a']['k'][-1] }}|{{ m.tc[0].f['items'] }}",
    "{% for t in [m, m] %}{{ t['tc'][0]['f']['n'] ~ t['tc'][0]['function'] }}{% endfor %}",
])
@pytest.mark.parametrize("name", _CHAIN_VALUES)
def test_constant_chains_read_what_jinja2_reads(source, name, general_only):
    # expressions._constant_lookups: a chain of constant keys and indexes, any length, each step's class checked
    # before it is read; a caller's object or subclass read by its own code, as often as Jinja2 reads it
    ours = _outcome(lambda: mj.chat_environment().from_string(source).render(m=_CHAIN_VALUES[name]))
    assert ours == _outcome(lambda: reference_env().from_string(source).render(m=_CHAIN_VALUES[name])), name
    if name.startswith("counted"):
        mine, theirs = Counted(), Counted()
        _outcome(lambda: mj.chat_environment().from_string(source).render(m=mine if name == "counted tc" else
                                                                           {"tc": [mine]}))
        _outcome(lambda: reference_env().from_string(source).render(m=theirs if name == "counted tc" else
                                                                     {"tc": [theirs]}))
        assert mine.reads == theirs.reads


def test_constant_chains_read_again_after_a_change(general_only):
    source = ("{% for t in x %}{{ x[0]['tc'][0]['f']['n'] }}{% do x[0]['tc'][0]['f'].update({'n': 'y'}) %}"
              "{{ x[0]['tc'][0]['f']['n'] }}{% do x[0]['tc'].pop() %}{{ x[0]['tc'][0] is defined }}"
              "{% do x[0]['tc'].append({'f': 1}) %}{{ x[0]['tc'][0]['f'] }}{% endfor %}")
    data = lambda: [{"tc": [{"f": {"n": "x"}}]}]   # noqa: E731
    ours = mj.Environment(immutable=False, extensions=["do"]).from_string(source).render(x=data())
    assert ours == jinja2.Environment(extensions=["jinja2.ext.do"]).from_string(source).render(x=data())


# A number's or None's key (`n.a`, `n['a']`, selectattr('a') over numbers) is undefined without the policy's walk
# when the type has no attribute of that name (runtime/sandbox.py getitem_); what it has still goes the policy's way.
# Compared under every undefined class, whose text and messages name the object and the key.
_NUMBER_READS = [
    "{{ n.a }}|{{ n['a'] }}|{{ f.a }}|{{ b['a'] }}|{{ z.a }}|{{ z['a'] }}",
    "{{ n.a is defined }} {{ z['a'] is undefined }} {{ f.a ~ 'x' }} {{ n.a.b is defined }}",
    "{{ n.real }} {{ n['real'] }} {{ f.imag }} {{ b.real }} {{ n.bit_length() }} {{ f.is_integer() }}",
    "{{ n.a.b }}",
    "{{ values|selectattr('a')|list }} {{ values|rejectattr('a')|list|length }} {{ values|map(attribute='a')|list }}",
    "{{ n[0] }} {{ z[0] }} {{ n['0'] }}",
]


@pytest.mark.parametrize("classes", UNDEFINED_CLASSES, ids=["plain", "strict", "chainable", "debug"])
@pytest.mark.parametrize("source", _NUMBER_READS)
def test_keys_of_numbers_and_none_read_as_jinja2(source, classes, general_only):
    data = {"n": 7, "f": 2.5, "b": True, "z": None, "values": [1, 2.5, True, None, {"a": 1}, {"b": 2}]}
    ours = mj.Environment(undefined=classes[0]).from_string(source)
    theirs = jinja2.Environment(undefined=classes[1]).from_string(source)
    assert _outcome(lambda: ours.render(data)) == _outcome(lambda: theirs.render(data)), source
