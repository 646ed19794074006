"""Every kernel entry, tested two ways (issue 22, point 5) — the entries of kernels/select.py's REGISTRY and the
enumerated from the package itself, so a new entry without tests fails here:

- selection: a snippet → the entries its compile chooses (select.recording()), and a near miss that must not
  choose the entry (its nodes run their general closures);
- lattice: snippets of each entry rendered three ways — with kernels (the default), with general_only, and by
  Jinja2 configured as transformers configures it (tests/support/differential_ref.py) — over values of every
  kind a read meets: plain str, int, float, bool, None, lists and dicts, a missing key, an undefined variable,
  Markup, a str subclass, a caller's dict subclass, Mapping and object with attributes; in the chat profile and
  with StrictUndefined, ChainableUndefined, DebugUndefined and autoescape. The three outcomes are equal, or the
  same kind of error (kernels and general: the same error, message, line and column): tests/support/kernel_lattice.py.
  Rebinding, mutation between reads, namespaces and loops whose list grows: test_kernels_dynamic.py.
- limits: kernels and general closures run out of output or steps at the same point.
"""

import functools
import os
import subprocess
import sys
from collections.abc import Mapping

import pytest

import minijinja_py as mj
from kernel_lattice import chosen_by, compile_chat, differences, entry_names, our_environment, outcome, three_ways
from minijinja_py.kernels import select

try:
    import jinja2.sandbox
    from markupsafe import Markup
except ImportError:  # the reference is optional: the comparisons with it are skipped
    jinja2 = None
    Markup = mj.Markup


# ------------------------------------------------------------------------------------------------ selection
# entry → (snippet, the entries its compile chooses, near miss, the entries the near miss chooses)
# (a print, an if or a switch chooses nothing: the kernels text_reads, if_tests and branches' switch, and the
# peephole rule switch, went by issue 22's rule 5; their snippets run three ways below, as general/text, general/if,
# general/switch)
SELECTION = {
    "walks/walk": ("{% for m in ms %}{{ m }}{% endfor %}", {"walks/walk"},
                   "{% for m in ms if m %}{{ m }}{% endfor %}", set()),   # a loop filter
}


def test_every_entry_has_a_selection_case():
    assert sorted(SELECTION) == entry_names()


@pytest.mark.parametrize("name", sorted(SELECTION))
def test_the_snippet_selects_the_entry(name):
    source, chosen, _, _ = SELECTION[name]
    assert chosen_by(source) == chosen


def test_a_set_then_a_compare_on_the_item_is_walked_in_line():
    # walks._walk_key_compare with a set before the compare (`{% set c = m.content|trim %}{% if m.role == 'u' %}`):
    # the set's Set.in_line handed over where it sets another variable; an if/elif chain (seallms-v3's `{% set content
    # = m['content'] %}{% if m['role'] == 'user' %}...{% elif ... %}`) is no compare the walk decides (the peephole
    # rule switch went by issue 22's rule 5): its general closure runs per item
    from minijinja_py.kernels import walks
    calls = []
    original = walks._walk_key_compare

    def spy(*args):
        calls.append(args[6][0] is not None)
        return original(*args)
    walks._walk_key_compare = spy
    try:
        for source in ("{% for m in ms %}{% set c = m['content'] %}{% if m['role'] == 'u' %}<{{ c }}>{% elif "
                       "m['role'] == 'a' %}{{ c + '!' }}{% endif %}{% endfor %}",
                       "{% for m in ms %}{% set c = m.content|trim %}{% if m.role == 'u' %}<{{ c }}>{% endif %}"
                       "{{ c }}{% endfor %}",
                       "{% for m in ms %}{% if m.role == 'u' %}<{{ m.c }}>{% endif %}{{ m.d }}{% endfor %}",
                       "{% for m in ms %}{% set m = m['x'] %}{% if m.role == 'u' %}<{{ m }}>{% endif %}{% endfor %}",
                       "{% for m in ms %}{% set c = m['content'] %}{{ c }}{% if m.role == 'u' %}!{% endif %}"
                       "{% endfor %}"):
            assert "walks/walk" in chosen_by(source)
    finally:
        walks._walk_key_compare = original
    assert calls == [True, False]   # (a chain, the loop variable set again, a set then a print: not)


def test_an_or_of_one_reads_str_equalities_in_a_chain_runs_its_general_closure():
    # `m.role == 'user' or m.role == 'system'` in an if/elif chain was a switch's branch (the peephole rule switch,
    # gone by issue 22's rule 5): the chain chooses nothing now, its general closure runs it (three ways: the
    # lattice's general/switch)
    chosen = [chosen_by(source + "{% elif m.role == 'tool' %}T{% endif %}")
              for source in ("{% if m.role == 'user' or m.role == 'system' %}U",
                             "{% if m.role == 'user' or x == 'system' %}U",
                             "{% if m.role == 'user' or m.role == 1 %}U")]
    assert chosen == [set(), set(), set()]


def test_index_reads_are_left_to_the_general_closures():
    # `messages[i]['role']` is no Read (lower.read_of): the general closures read it in line for less than a kernel
    # reader did, so a print or an if of it chooses no text or atom kernel
    for source in ("{% for i in range(ms|length) %}{{ ms[i]['content'] }}{% endfor %}",
                   "{% for i in range(ms|length) %}{% if ms[i]['role'] == 'user' %}U{% endif %}{% endfor %}"):
        assert chosen_by(source) == {"walks/walk"}


def test_a_walked_loop_reads_its_list_in_line_where_it_is_a_variable_or_a_key_of_one():
    # select.Loop.source: the Read a walked loop's iterable is (walks.walk reads a variable or one key in line)
    from minijinja_py.kernels.select import Loop
    entry, sources = select.REGISTRY[(Loop, "walk")], []
    original = entry.factory

    def spy(node):
        sources.append(node.source and (len(node.source.keys), node.source.keys[-1:]))
        return original(node)
    entry.factory = spy
    try:
        for source in ("{% for m in ms %}{% for t in m.tool_calls %}{{ t }}{% endfor %}{% endfor %}",
                       "{% for t in m['tool_calls'] %}{% endfor %}{% for t in m.a.b %}{% endfor %}",
                       "{% for t in m.tool_calls or [] %}{% endfor %}{% for i in range(n) %}{% endfor %}"
                       "{% for t in m.items() %}{% endfor %}{% for t in m.tool_calls if t %}{% endfor %}"):
            chosen_by(source)
    finally:
        entry.factory = original
    assert sources == [(1, ("tool_calls",)), (0, ()), (1, ("tool_calls",)), (2, ("b",)), None, None, None]


def test_a_text_after_a_walked_loop_is_appended_by_the_walk():
    # lower._chosen: a loop followed by a short constant text in a loop body (`{% endfor %}{{ '<|eom_id|>' }}`) is
    # given the text (Loop.after) and the walk appends it, the text's own run gone; with the walk turned off, or
    # where the text is counted by its own run (no loop around it), the text keeps its run
    from minijinja_py.compile import lower
    lists = []
    original = lower._chosen

    def spy(nodes):
        kept, runs = original(nodes)
        lists.append((len(nodes), len(kept)))
        return kept, runs
    lower._chosen = spy
    try:
        body = "{% for m in ms %}{% for t in m.tool_calls %}{{ t }}{% endfor %}{{ '<|eom_id|>' }}{% endfor %}"
        chosen_by(body)
        assert (2, 1) in lists
        lists.clear()
        previous = select.configure(disabled={"walks/walk"})
        try:
            chosen_by(body)
        finally:
            select.configure(*previous)
        assert (2, 1) not in lists and (2, 2) in lists
        lists.clear()
        chosen_by("{% for t in ts %}{{ t }}{% endfor %}!")
        assert (2, 1) not in lists
    finally:
        lower._chosen = original


def test_a_chat_namespace_attribute_in_a_test_is_read_as_jinja2_reads_it():
    # a chat namespace's attribute, a missing one, a `_` name and a loop field tested in a walked loop
    source = ("{% set ns = namespace(a=1, b='x') %}{% for m in ms %}{% if ns.a %}A{% endif %}{% if 'x' in ns.b %}"
              "B{% endif %}{% if ns.b == 'x' %}E{% endif %}{% if ns.a and not ns.c %}C{% endif %}{% if ns._d %}D"
              "{% endif %}{% if loop.index %}I{% endif %}{% endfor %}")
    assert chosen_by(source) == {"walks/walk"}
    assert mj.chat_environment().from_string(source).render(ms=[1, 2]) == "ABECIABECI"


@pytest.mark.parametrize("name", sorted(SELECTION))
def test_the_near_miss_does_not_select_it(name):
    _, _, near_miss, chosen = SELECTION[name]
    assert name not in chosen
    assert chosen_by(near_miss) == chosen


@pytest.mark.parametrize("name", sorted(SELECTION))
def test_general_only_selects_nothing(name):
    source, _, _, _ = SELECTION[name]
    assert chosen_by(source, general=True) == set()


@pytest.mark.parametrize("name", sorted(SELECTION))
def test_a_disabled_entry_is_not_selected(name):
    source, chosen, _, _ = SELECTION[name]
    previous = select.configure(disabled=(name,))
    try:
        assert name not in chosen_by(source)
    finally:
        select.configure(*previous)


def test_the_environment_variable_turns_selection_off():
    """MINIJINJA_PY_GENERAL_ONLY=1, read at import: no entry chosen, the same output."""
    program = ("import minijinja_py as mj\nfrom minijinja_py.kernels import select\n"
               "with select.recording() as chosen:\n"
               "    t = mj.chat_environment().from_string(%r)\n"
               "print(sorted(chosen), t.render(ms=[{'role': 'a'}, {'role': 'b'}]))" % (
                   "{% for m in ms %}{% if m.role == 'a' %}A{% elif m.role == 'b' %}B{% endif %}{% endfor %}",))
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                            env={**os.environ, select.GENERAL_ONLY_VARIABLE: "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] AB"


def _callers_own(env):
    """env with a caller's filters and tests in place of the builtins a kernel decides in line, and a finalize."""
    env.filters["upper"] = lambda value: f"{value}!"
    env.filters["trim"] = lambda value: "T"
    env.tests["defined"] = lambda value: "D"
    env.tests["string"] = lambda value: False
    env.finalize = lambda value: f"<{value}>"
    return env


@pytest.mark.parametrize("source", [
    "{{ m.role|upper }}{{ m.role|trim }}{{ m.role }}",
    "{% if m.role|trim == 'T' %}Y{% elif m.role|trim == 'a' %}N{% endif %}",
    "{% if m.nope is defined %}D{% endif %}{% if m.role is string %}S{% endif %}",
    "{% for m in ms %}{% if m.role|upper == 'a!' %}Y{% elif m.role|upper == 'A' %}N{% endif %}{% endfor %}",
])
def test_a_callers_filter_test_or_finalize_is_not_decided_in_line(source):
    """Near misses by configuration: the kernels decide builtins only; the general closures call the caller's."""
    assert chosen_by(source, lambda: _callers_own(mj.chat_environment())) == set()
    text = _callers_own(mj.chat_environment()).from_string(source).render(context("dict", "a"))
    if jinja2 is not None:
        reference = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        assert text == _callers_own(reference).from_string(source).render(context("dict", "a"))


def _callers_wrapping(env, builtins):
    """env with caller's filters that wrap the builtins of those names (functools.wraps copies a function's
    attributes): what runs is the caller's function."""
    def wrapping(name):
        @functools.wraps(builtins[name])
        def wrapper(value):
            return f"[{builtins[name](value)}]"
        return wrapper
    for name in ("trim", "upper", "lower", "capitalize", "length", "safe", "string"):
        env.filters[name] = wrapping(name)
    return env


@pytest.mark.parametrize("source", [
    "{{ m.role|upper }}{{ m.role|trim }}{{ x|trim }}{{ ' a '|trim }}",
    "{{ ms|length }}{{ m.role|lower }}{{ m.role|capitalize }}{{ m.role|safe }}{{ m.role|string }}",
    "{% for m in ms %}{{ m.role|trim }}{{ '<' + m.role|upper + '>' }}{% endfor %}",
    "{% if m.role|trim == '[a]' %}Y{% endif %}{% set r = m.role|upper %}{{ r }}",
])
def test_a_callers_filter_wrapping_a_builtin_is_called(source):
    """A caller's function is known by what it is, not by attributes it carries: one wrapping a builtin filter is
    called, as Jinja2 calls it (not the builtin's form in line)."""
    builtins = mj.chat_environment().filters
    data = {**context("dict", "a"), "x": " b ", "ms": [{"role": " a "}]}
    text = _callers_wrapping(mj.chat_environment(), builtins).from_string(source).render(data)
    assert "[" in text
    if jinja2 is not None:
        reference = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        assert text == _callers_wrapping(reference, builtins).from_string(source).render(data)


# ------------------------------------------------------------------------------------------------- lattice
class StrSub(str):
    """A caller's str subclass (not plain: it may define what comparing or printing it does)."""


class DictSub(dict):
    """A caller's dict subclass."""


class Map(Mapping):
    """A caller's Mapping that is no dict."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"Map({self._items!r})"


class Attrs:
    """A caller's object whose fields are attributes."""

    def __init__(self, items):
        self.__dict__.update(items)

    def __repr__(self):
        return f"Attrs({sorted(self.__dict__)!r})"


ABSENT = object()   # the key is not there (the variable: not in the context)

VALUES = [("str", "a"), ("other str", "b"), ("empty", ""), ("spaces", " a "), ("html", "<a>"), ("none", None),
          ("zero", 0), ("one", 1), ("two", 2), ("negative", -1), ("float", 1.0), ("true", True), ("false", False),
          ("list", ["a"]), ("empty list", []), ("tuple", ("a", "b")), ("dict", {"a": 1}), ("empty dict", {}),
          ("markup", Markup("a")), ("markup html", Markup("<b>")), ("str subclass", StrSub("a")),
          ("absent", ABSENT)]

# how a message holds its keys: each is built from {key: value} (a value ABSENT: the key left out)
HOLDERS = {"dict": dict, "dict subclass": DictSub, "mapping": Map, "object": Attrs}
# a message that is not a holder (the value varies only x): m undefined, None, a str, a list
SUBJECTS = {"undefined": ABSENT, "none": None, "string": "text", "list": ["a"]}


def _holder(make, value):
    fields = {"role": value, "content": value, "a": {"b": value} if value is not ABSENT else {}}
    return make({key: item for key, item in fields.items() if item is not ABSENT})


def context(kind, value):
    """The context of one lattice point: m (a holder of value, or a subject that is no holder), ms (m then a
    holder of 'b'; for a subject, m twice), x (value), i (0), n (2); ABSENT values left out (an undefined m: no ms
    either)."""
    if kind in HOLDERS:
        make = HOLDERS[kind]
        m, other = _holder(make, value), make({"role": "b", "content": "c", "a": {"b": "b"}})
    else:
        m = SUBJECTS[kind]
        other = m
    found = {"m": m, "ms": [m, other] if m is not ABSENT else ABSENT, "x": value, "i": 0, "n": 2}
    return {key: item for key, item in found.items() if item is not ABSENT}


# entry → snippets (each compiled selects the entry: checked); general/text, general/if, general/switch: the
# snippets of the kernels and the rule that went by issue 22's rule 5 (text_reads, if_tests, branches' switch, the
# peephole rule switch), run now by the general closures (and the walks), kept three ways
LATTICE = {
    "general/text": [
        "<{{ x }}>",
        "<{{ m.role }}>",
        "<{{ m.content|trim }}|{{ m.role|upper }}>",
        "{{ m.role ~ ':' ~ m.content }}",
        "{{ '<' + m.role + '|' + x + '|' + m.content + '>' }}",
        "{{ m.role ~ 1 ~ x ~ none }}",
        # an index read is no Read (the general closures read it): beside reads in line, in a run of its own
        "{{ m.a.b }}/{% set y = 1 %}{{ ms[i].role }}",
        "{{ ms[x].role }}|{{ ms[x].a.b }}|{{ ms[i].a.b }}{% set y = 1 %}<{{ m.role }}>",   # x an index: any value
        "{% for m in ms %}[{{ m.role }}]{% endfor %}",
        "{% for m in ms %}[{{ m.content|capitalize }}]{% endfor %}",
        "{% for m in ms %}[{{ m.role }}:{{ m.content }}]{% endfor %}",
        "{% for m in ms %}{{ loop.index }}{{ m.role + m.content }}{{ loop.last }}{% endfor %}",
        "{% for m in ms %}\n  {{ m.role }}\n  {{ loop.index }}{{ m.role + m.content }}\n{% endfor %}\n{{ m.a.b }}",
        # a variable itself read in line (spec(variables=True)), alone, with a key, through a str method
        "{{ x ~ '|' ~ m.role }}<{{ x|trim }}>",
        "{% for m in ms %}[{{ m.role + x }}]{{ x }}{% endfor %}",
        # in a loop body: a variable and a key joined, a variable through a str method
        "{% for m in ms %}{% set r = m.role %}{{ '<' + r + '|' + m.content }}{% set y = r %}{{ x ~ m.role }}"
        "{% set y = r %}[{{ r|trim }}]{% set y = r %}{{ r + x }}{% endfor %}",
        "{% for m in ms %}{% set r = m.content %}{{ '(' + x|trim + ')' }}{% set y = r %}{{ r }}{% endfor %}",
        # a key of a key read in line, alone or with another read, in a loop body and counted (outside one)
        "{% for m in ms %}[{{ m.a.b }}|{{ '<' + m.a.b + '|' + m.role + '>' }}|{{ m.role ~ m.a.b }}|{{ m.a.b ~ x }}]"
        "{% endfor %}",
        "<{{ m.a.b }}|{{ m.role + m.a.b }}>{{ m['a']['b'] ~ x }}{{ '(' ~ m.a.b }}",
        # two keys of one key of a variable (output._print_sibling_paths: the key they share read once), a key
        # missing, in a loop body and counted
        "{% for m in ms %}{{ '<' + m.a.b + '|' + m['a']['b'] + '>' }}{{ m.a.b + m.a.c }}{% endfor %}"
        "{{ '[' + m.a.b + m['a'].b + ']' }}",
    ],
    "general/if": [
        # a body whose first statement sets a variable to a key of one: set by the statement list's run
        "{% if m %}{% set c = m.content|upper %}[{{ c }}]{% set c = m.role %}{{ c }}{% endif %}{{ c }}",
        "{% if x is defined %}{% set c = m['content'] %}{% if c %}T{% endif %}{{ c }}{% endif %}",
        "{% if m.role == 'a' %}A{% else %}E{% endif %}",
        # a variable compared: in a loop body, set from a key, or the context's
        "{% for m in ms %}{% set r = m.role %}{% if r == 'a' %}A{% endif %}{% if x == 'a' %}X{% else %}E{% endif %}"
        "{% if x != 1 %}N{% endif %}{% if r != 'b' %}{{ r }}{% endif %}{% endfor %}",
        # two parts decided from the if's own closure; a variable's atoms read in line
        "{% if m.content and x %}A{% else %}E{% endif %}{% if x or m.role is none %}O{% endif %}",
        "{% for m in ms %}{% if m.role and m.content is string %}<{{ m.role }}>{% endif %}{% endfor %}",
        "{% if x is string and 'a' in x %}S{% endif %}{% if m.role == 'a' and x %}A{% else %}E{% endif %}",
        # a key compare, then the truth or `is none` of a key, all in line
        "{% if m.role == 'a' and m.content is not none %}A{% endif %}{% if m.role == 'b' or not m.content %}B"
        "{% else %}E{% endif %}{% if m.role != 'a' and m.content is none %}N{% endif %}",
        "{% for m in ms %}{% if m.role == 'a' and m.content %}<{{ m.content }}>{% endif %}{% endfor %}",
        "{% if m.role != 'a' %}N{% endif %}",
        "{% if m.role %}T{% else %}F{% endif %}{% if not x %}!{% endif %}",
        "{% if 'a' in m.role %}I{% else %}O{% endif %}{% if 'a' not in x %}!{% endif %}",
        "{% if m.role is defined %}D{% endif %}{% if x is undefined %}U{% endif %}",
        "{% if m.role is none %}N{% endif %}{% if x is not none %}V{% endif %}",
        "{% if m.role is string %}S{% endif %}{% if x is not mapping %}M{% endif %}",
        "{% if m.role in ['a', 'b'] %}1{% endif %}{% if x not in [1, 2] %}2{% endif %}",
        # an or of one read's equalities with str constants: the truth of its `in [...]` (atom_of: ONE_OF)
        "{% if m.role == 'a' or m.role == 'b' %}O{% else %}E{% endif %}{% if not (x == 'a' or x == '') %}N{% endif %}"
        "{% if m.role == 'a' or m.role == 1 %}I{% endif %}",
        "{% if m.role > 0 %}G{% endif %}{% if x <= 1 %}L{% endif %}",
        "{% if x == 1 %}1{% endif %}{% if x == true %}T{% endif %}{% if x != false %}F{% endif %}",
        "{% if m.role == 'a' and m.content %}A{% else %}E{% endif %}",
        # a compare and a second key of the same dict, both read in line (atoms._compare_and)
        "{% for m in ms %}{% if m.role == 'a' and m.content is not none %}<{{ m.content }}>{% endif %}{% if m.role "
        "!= 'b' and not m.content %}N{% else %}Y{% endif %}{% if m['role'] == 'a' and m.content is none %}0{% endif %}"
        "{% endfor %}",
        "{% if m.role != 'b' or x %}O{% endif %}",
        "{% if m.role == 'a' %}A{% elif x %}X{% elif m.content is defined %}C{% else %}E{% endif %}",
        "{% if (m.role == 'a' or m.role == 'b') and not x %}Y{% else %}N{% endif %}",
        # `'k' in m and m['k']`, `m.k is defined and m.k`: one lookup on a plain dict
        "{% if 'role' in m and m['role'] %}K{% else %}N{% endif %}{% if m.content is defined and m.content %}C"
        "{% endif %}{% if 'a' in x and x.a %}X{% endif %}",
        "{% for m in ms %}{% if 'content' in m and m.content is not none %}<{{ m.content }}>{% endif %}{% endfor %}",
        "{% if m.content is defined and m.content is not none %}V{% else %}N{% endif %}{% if 'a' in x and x.a is not "
        "none %}X{% endif %}",
        # `{% if m.c is string %}{{ m.c }}`: one read for the test and the print
        "{% if m.content is string %}{{ m.content }}{% else %}E{% endif %}{% if m['role'] is string %}"
        "{{ m['role'] }}{% endif %}",
        "{% for m in ms %}<{% if m.content is string %}{{ m.content }}{% else %}{% for c in m.content %}"
        "[{{ c }}]{% endfor %}{% endif %}>{% endfor %}",
        "{% for m in ms %}<{% if m.content %}{{ m.content }}{% else %}E{% endif %}{% if m.role %}{{ m.role }}"
        "{% endif %}>{% endfor %}",
        # an if printing nothing but its test's key, in a loop body (conditionals._if_echo)
        "{% for m in ms %}{% if m.content %}{{ m.content }}{% endif %}{% if m['items'] %}I{{ m.items is callable }}"
        "{% endif %}"
        "{% if m.role %}\n{{ m.role }}{% else %}E{% endif %}{% if m.a %}{{ m['a'] }}{% endif %}{% endfor %}",
        # De Morgan: `not (a or b)` decided as `not a and not b`, at any depth
        "{% if not (m.role == 'a' or x is none or 'a' in m) %}Y{% else %}N{% endif %}",
        "{% if not (m.role == 'b' and not (x or m.content is string)) %}Y{% endif %}",
        "{% if ms[i].role == 'a' %}A{% endif %}{% if m.a.b %}B{% endif %}",
        "{% if ms[x].role == 'b' %}B{% endif %}{% if ms[x].a.b is string %}S{% endif %}{% if m.a.b %}B{% endif %}",
        "{% for m in ms %}{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %}{{ m.role }}{% endfor %}",
        # a namespace's attribute read in line (the chat namespace), a `_` name through the sandbox's read
        "{% set ns = namespace(a=x, b=m) %}{% if ns.a %}A{% endif %}{% if not ns.a %}N{% endif %}{% if 'a' in ns.a %}"
        "I{% endif %}{% if ns.a is string %}S{% endif %}{% if ns.c is defined %}C{% endif %}{% if ns.a and ns.b %}B"
        "{% endif %}{% if ns._a %}U{% endif %}{% if ns.a == 'a' %}E{% endif %}{% for v in [1, 2] %}"
        "{% if ns.a or v == 2 %}{{ v }}{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' %}A{% endif %}{% if m.role == 'b' %}B{% endif %}"
        "{% if m.role %}.{% endif %}{% endfor %}",
        "{% for m in ms %}\n{% if m.role > 1 %}G\n{% elif m.content < 'b' %}L{% endif %}\n   {% if m.a.b %}T{% endif %}"
        "{% endfor %}",
    ],
    "general/switch": [
        "{% if m.role == 'a' %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}",
        "{% if x == 1 %}1{% elif x == 2 %}2{% else %}E{% endif %}",
        "{% if x == true %}T{% elif x == false %}F{% endif %}",
        "{% if m.role == 'a' and m.content %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}",
        "{% if m.role == 'a' or m.role == 'b' %}AB{% elif m.role == '' %}0{% else %}E{% endif %}",
        "{% if m.role == 'x' or x %}X{% elif m.role == 'a' %}A{% else %}E{% endif %}",
        "{% if m.role == 'a' %}A{% else %}{% if m.role == 'b' %}B{% else %}E{% endif %}{% endif %}",
        "{% if ms[i].role == 'a' %}A{% elif ms[i].role == 'b' %}B{% endif %}{% if x == 1 %}1{% elif x == 2 %}2{% endif %}",
        "{% if ms[x].role == 'a' %}A{% elif ms[x].role == 'b' %}B{% else %}E{% endif %}{% if m.role == 'a' %}A"
        "{% elif m.role == 'b' %}B{% endif %}",
        "{% if m.role == 'a' and x %}A{% elif m.role == 'a' %}a{% elif m.role == 'b' or x %}B{% else %}E{% endif %}",
        "{% if m.a.b == 'a' %}A{% elif m.a.b == '' %}0{% endif %}",
        # chains in a row on one subject: each reads it
        "{% if true %}{% if m.role == 'a' %}A{% endif %}{% if m.role == 'b' %}B{% elif m.role == 'a' %}a{% endif %}"
        "{% endif %}",
        "{% if true %}{% if x == 1 %}1{% elif x == 2 %}2{% endif %}{% if x == 2 and m.role %}R{% else %}E{% endif %}"
        "{% endif %}",
        "\n\n  {% if m.a.b == 'a' %}A\n{% elif m.a.b == '' %}0\n{% elif m.a.b == 'b' %}B{% endif %}",
        # a key of a str (a str content's characters): undefined, equal to no constant (comparisons.ev_key_equal)
        "{% set ns = namespace(n=0) %}{% for c in m.content %}{% if c['type'] == 'text' %}T{% elif c.type != 'image' %}"
        "{% set ns.n = ns.n + 1 %}{% elif c.title == 'x' %}X{% endif %}{% endfor %}{{ ns.n }}",
        # in a walked loop: the switch per item (the walk calls it)
        "{% for m in ms %}{% if m.role == 'a' %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}{% endfor %}",
        "{% for v in x %}{% if v == 'a' %}A{% elif v == 'b' %}B{% else %}E{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' %}{{ loop.index }}{% elif m.role == 'b' %}B{{ loop.last }}{% endif %}"
        "{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' and m.content %}A{% elif m.role == 'b' %}B{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.role == 'b' %}{% break %}{% elif m.role == 'a' %}A{% endif %}{% endfor %}",
        "\n{% for v in m.content %}{% if v == 'a' %}\nA{% elif v == 'c' %}C{% else %}\n  {{ v.x }}{% endif %}"
        "{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' %}{% set r = m.content %}{{ r }}{% elif m.role == 'b' %}{{ r }}B"
        "{% endif %}{% endfor %}",
        "{% if m.content == 'a' %}A{% elif m.content == 'b' %}B{% elif m.content == 'a' %}X{% endif %}",
        "{% if x == 'a' %}A{% elif x == 'b' and m.role %}B{% elif x == 'b' %}b{% endif %}",
        # an or of one read's str equalities, of two reads, of constants of two types
        "{% if m.role == 'user' or m.role == 'system' %}U{% elif m.role == 'tool' %}T{% endif %}"
        "{% if m.role == 'user' or x == 'system' %}U{% elif m.role == 'tool' %}T{% endif %}"
        "{% if m.role == 'user' or m.role == 1 %}U{% elif m.role == 'tool' %}T{% endif %}",
    ],
    "walks/walk": [
        "{% for m in ms %}{{ m.role }},{{ x }}{% endfor %}",
        # variables the body starts per item: undefined, or as another of this frame; with a loop context
        "{% for m in ms %}{% if m.role == 'a' %}{% set c = m.content %}{% endif %}{{ c }}.{% endfor %}",
        "{% set c = 'o' %}{% for m in ms %}{{ c }}{% if m.role %}{% set c = m.role %}{% endif %}{{ c }}{% endfor %}{{ c }}",
        "{% for m in ms %}{% if loop.first %}{% set c = m.role %}{% endif %}{{ c }}{{ loop.index }}{% endfor %}",
        "{% for m in ms %}{{ m.role }},{% endfor %}",
        "{% for m in ms %}<{{ m.role|trim }}|{{ m.content }}>{% endfor %}",
        "{% for m in ms %}{{ '<' + m.role + '|' + m.content|upper + '>' }}{% endfor %}",
        "{% for m in ms %}{{ m.content|capitalize ~ m.role|lower }}{% endfor %}",
        "{% for v in x %}<{{ v.role }}>{% endfor %}",
        "{% for m in ms %}\n<{{ m.role }}>\n{% endfor %}",
        "{% for m in ms %}<{% if m.role %}A{% endif %}>{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' %}A{% elif m.role == 'b' %}B{% endif %}.{% endfor %}",
        # a chain with extras first in the body: its general closure per item
        "{% for m in ms %}{% if m.role == 'a' and m.content %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}"
        "{{ m.role }}{% endfor %}",
        "{% for m in ms %}{% if m.role == 'b' or x %}O{% elif m.role == 'a' and not m.content %}N{% endif %}"
        "{% endfor %}",
        "{% for m in ms %}[{% for v in m.content %}{{ v }}{% endfor %}{% endfor %}",
        "{% for m in ms %}{% if x %}<{% if m.role is string %}S{% endif %}>{% endif %}{% endfor %}",
        "{% for m in ms %}<{% if m.role == 'b' %}{% break %}{% endif %}>{% endfor %}",
        "{% for m in ms %}<{% if m.role == 'a' %}{% continue %}{% endif %}>{% endfor %}",
        "{% for m in ms %}<{% set y = m.role %}>{% endfor %}{{ y }}",
        "{% for v in x %}[{{ v }}]{% endfor %}",
        "{% for m in ms %}{{ m.role }}{% if m.content %}C{% endif %}{% endfor %}",
        "{% for m in ms %}{% if loop.first %}F{% endif %}{{ m.role }}{{ loop.index }}/{{ loop.length }}"
        "{% if not loop.last %},{% endif %}{% endfor %}",
        "{% for m in ms %}{% set y = m.role %}{{ y }}{% endfor %}{{ y }}",
        "{% for m in ms %}{% if m.role == 'b' %}{% break %}{% endif %}{{ m.role }}{% endfor %}",
        "{% for m in ms %}{% if m.role == 'a' %}{% continue %}{% endif %}{{ m.role }}{% endfor %}",
        "{% for i in range(n) %}{{ ms[i].role }}{% endfor %}",
        "{% for m in ms %}{{ loop.previtem }}{{ loop.cycle('<', '>') }}{% for v in ms %}{{ loop.index }}{% endfor %}"
        "{{ loop.revindex }}{% endfor %}",
        "{% for m in ms %}a{{ m.role }}{% if x %}b{% endif %}c{{ x }}{% if m %}d{% endif %}{{ m.content }}{% endfor %}",
        "x\n  {% for m in ms %}\n  {{ m.role }}\n{% for v in m.content %}{{ v }}{% endfor %}\n{% endfor %}",
        # a body that is one {% if item.key == c %}: the compare in the walk, the if's closure where it passes
        "{% for m in ms %}{% if m.role == 'a' %}A{{ m.content }}{% endif %}{% endfor %}"
        "{% for m in ms %}{% if m.role != 'b' %}<{{ m.role }}>{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.content == 1 %}{% break %}{% endif %}{% endfor %}{% for v in x %}"
        "{% if v.role == true %}T{% endif %}{% endfor %}",
        # one {% if %} with an else, on a key of the item or a key of its key: the compare in the walk
        "{% for m in ms %}{% if m.role == 'a' %}A{{ m.content }}{% else %}E{{ m.role }}{% endif %}{% endfor %}"
        "{% for m in ms %}{% if m.role != 'b' %}<{{ m.role }}>{% else %}N{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.a.b == 'a' %}A{% else %}E{{ m.a.b }}{% endif %}{% endfor %}"
        "{% for m in ms %}{% if m.a.b == 'b' %}B{% elif m.a.b == 'a' %}A{% else %}E{% endif %}{% endfor %}"
        "{% for v in x %}{% if v.a.b != 1 %}N{% endif %}{% endfor %}",
        # a first statement that sets a variable to a key of one (maybe through a str method): set in the walk
        "{% for m in ms %}{% set r = m.role|lower %}{% if r == 'a' %}{% set r = 'h' %}{% endif %}"
        "{% set r = r|upper %}{{ '<' + r + '>' + m.content }}{% endfor %}{{ r }}",
        "{% for m in ms %}{% set c = m['content']|trim %}[{{ c }}]{% set c = c ~ '!' %}{{ c }}{% endfor %}"
        "{% for v in x %}{% set c = v.role %}{{ c }}{% if c %}T{% endif %}{% endfor %}",
        # a switch whose every branch prints a key of the item: its output counted by the walk
        "{% for m in ms %}{% if m.role == 'a' %}<{{ m.content }}>{% elif m.role == 'b' %}{{ '[' + m.content|trim }}"
        "{% else %}{{ m.role }}{% endif %}{% endfor %}",
        "{% for m in ms %}{% if m.role != 'a' %}{{ m.content + '!' }}{% endif %}{% endfor %}{{ m.role }}",
        # a loop over a variable or a key of one: the list read in line, anything else through the iterable
        "{% for m in ms %}{% for v in m.content %}<{{ v }}>{% endfor %}|{% for v in m['a'].b %}[{{ v }}]{% endfor %}"
        "{% endfor %}{% for v in x %}({{ v }}){% endfor %}",
        "{% for m in ms %}{% if m.role %}{% for v in m['content'] %}{% if v == 'a' %}A{% else %}{{ v }}{% endif %}"
        "{% endfor %}{% endif %}{% endfor %}{% for v in m.role %}{{ v }}{% endfor %}",
        # a loop followed by a constant text in a loop body: the text appended by the walk, after a break too, after
        # an undefined or missing iterable, a range, or what the general loop walks (a string, a dict, a caller's
        # object)
        "{% for m in ms %}{% for v in m.content %}{% if v == 'b' %}{% break %}{% endif %}<{{ v }}>{% endfor %}!"
        "{% for v in m.nope %}{{ v }}{% endfor %}?{% for v in y %}{{ v }}{% endfor %}&{% for i in range(n) %}{{ i }}"
        "{% endfor %}.{% for v in x %}({{ v }}){% endfor %}#{% endfor %}",
        "{% for m in ms %}{% if m.role %}{% for v in m.a.b %}{{ v }}{% endfor %}{{ '|' }}{% endif %}"
        "{% for v in x %}{% continue %}{% endfor %}\n{% endfor %}",
    ],
}

LATTICE_CASES = [(name, source) for name in sorted(LATTICE) for source in LATTICE[name]]
ENTRY_CASES = [(name, source) for name, source in LATTICE_CASES if not name.startswith("general/")]
LATTICE_PROFILES = ("chat", "strict", "chainable", "debug", "autoescape")   # (kernel_lattice.py)


def _lattice_params():
    for name, source in LATTICE_CASES:
        for kind in (*HOLDERS, *SUBJECTS):
            yield pytest.param(name, source, kind, id=f"{name}-{LATTICE[name].index(source)}-{kind}")


def test_every_entry_has_lattice_snippets():
    assert sorted(name for name in LATTICE if not name.startswith("general/")) == entry_names()
    assert all(len(snippets) >= 2 for snippets in LATTICE.values())


@pytest.mark.parametrize("name,source", ENTRY_CASES)
def test_each_lattice_snippet_selects_its_entry_in_each_profile(name, source):
    for profile in LATTICE_PROFILES:
        assert name in chosen_by(source, lambda: our_environment(profile)), profile


@pytest.mark.parametrize("name,source,kind", list(_lattice_params()))
def test_kernels_general_and_jinja2_agree(name, source, kind):
    found = []
    for profile in LATTICE_PROFILES:
        for label, value in (VALUES if kind in HOLDERS else VALUES[:2] + VALUES[-1:]):
            for problem in three_ways(profile, source, lambda: context(kind, value)):
                found.append(f"{profile}, {label}: {problem}")
    assert not found, "\n".join(found)


# the limits: kernels and general closures run out at the same point (snippets that count output or pay steps)
LIMIT_SNIPPETS = [
    "<{{ x }}>", "<{{ m.role }}>", "<{{ m.content|trim }}|{{ m.role|upper }}>", "{{ m.role ~ ':' ~ m.content }}",
    "{% for m in ms %}{{ m.role }},{{ x }}{% endfor %}",
    "{% for m in ms %}{% if m.role == 'b' %}{% break %}{% endif %}{{ m.role }}{% endfor %}",
    "{% for i in range(n) %}{{ ms[i].role }}{% endfor %}",
    "{% for m in ms %}{% if m.role == 'a' %}A{% elif m.role == 'b' %}B{% else %}E{% endif %}{% endfor %}",
    "{% for m in ms %}<{{ m.role|trim }}|{{ m.content }}>{% endfor %}",
    "{% for m in ms %}<{% if m.role == 'b' %}{% break %}{% endif %}>{% endfor %}",
    "{% for x in ms %}{% for y in ms %}{{ y.role }}{% endfor %}{% endfor %}",
    "{% for m in ms %}{% set r = m.role|upper %}{{ r }},{{ m.content }}{% endfor %}",
    "{% for m in ms %}{% if m.role == 'a' %}<{{ m.content }}>{% elif m.role == 'b' %}{{ '[' + m.content }}{% endif %}"
    "{% endfor %}",
    "{% for m in ms %}{% if m.role != 'a' %}{{ m.content }}{% endif %}{% endfor %}",   # walked in line, bare
]


@pytest.mark.parametrize("source", LIMIT_SNIPPETS)
@pytest.mark.parametrize("max_output", [0, 1, 2, 3, 5, 8])
def test_the_output_limit_holds_with_kernels_as_without(source, max_output):
    kernels, general = (outcome(compile_chat(source, general, limits=mj.Limits(max_output=max_output)),
                                context("dict", "ab")) for general in (False, True))
    assert differences(kernels, general, None) == []


@pytest.mark.parametrize("source", LIMIT_SNIPPETS)
def test_the_step_budget_holds_with_kernels_as_without(source):
    found = []
    for max_steps in range(1, 120, 3):
        kernels, general = (outcome(compile_chat(source, general, limits=mj.Limits(max_steps=max_steps)),
                                    {"ms": [{"role": role, "content": "c"} for role in "abab" * 5], "n": 20, "i": 0})
                            for general in (False, True))
        found += [f"max_steps={max_steps}: {problem}" for problem in differences(kernels, general, None)]
    assert not found, "\n".join(found)


# long texts (BIG_STR characters or more: long messages), printed in walks: the same outcome at and around every
# limit's edge
LONG_SNIPPETS = [
    "{% for m in ms %}{{ '<|' + m.role + '|>' + m.content + '\n' }}{% endfor %}",   # one chain of both reads
    "{% for m in ms %}{{ '<|u|>' + m.content }}{% endfor %}",                        # one chain, one read
    "{% for m in ms %}<{{ m.role }}>{{ m.content }}{% endfor %}",                     # printed, no chain
    "{% for m in ms %}[{{ '<' + m.content }}]{% endfor %}",                           # constants outside the chain
    "{% for m in ms %}{{ m.role + ':' }}{{ m.content + '|' }}{% endfor %}",           # two chains
    "{% for m in ms %}{{ m.role + m.content + m.role }}{% endfor %}",                 # three reads
    "{% for m in ms %}{{ m.role ~ m.content }}{% endfor %}",                          # `~`
    # a switch per item whose branches print the content, printed or summed, or through a method
    "{% for m in ms %}{% if m.role == 'a' %}<{{ m.content }}>{% elif m.role == 'b' %}{{ '[' + m.content }}{% endif %}"
    "{% endfor %}",
    "{% for m in ms %}{% if m.role == 'a' %}{{ m.content }}{% else %}{{ '<' + m.content|trim }}{% endif %}{% endfor %}",
    "{% for m in ms %}{% if m.role != 'a' %}{{ m.content }}{% else %}<{{ m.content }}{% endif %}{% endfor %}",
    "{{ '<' + x + '>' }}", "<{{ x }}>{{ x }}",                                        # counted where they print
]


def _long_context():
    return {"ms": [{"role": "ab"[i % 2], "content": "c" * (1000 + 700 * i)} for i in range(4)], "x": "x" * 3000}


def _edge(source, field, low, high):
    # The smallest value of limits.<field> in [low, high] with which the general closures render source.
    while low < high:
        middle = (low + high) // 2
        rendered = outcome(compile_chat(source, True, limits=mj.Limits(**{field: middle})), _long_context())[0] == "ok"
        low, high = (low, middle) if rendered else (middle + 1, high)
    return low


@pytest.mark.parametrize("source", LONG_SNIPPETS)
@pytest.mark.parametrize("field, high", [("max_steps", 100_000), ("max_output", 100_000), ("max_string", 100_000)])
def test_long_texts_meet_the_limits_with_kernels_as_without(source, field, high):
    edge = _edge(source, field, 0, high)
    assert edge < high
    found = []
    for value in sorted({0, 1, edge - 1, edge, edge + 1, edge + 17} - {-1}):
        kernels, general = (outcome(compile_chat(source, general, limits=mj.Limits(**{field: value})),
                                    _long_context()) for general in (False, True))
        found += [f"{field}={value}: {problem}" for problem in differences(kernels, general, None)]
    assert not found, "\n".join(found)


def test_a_long_conversation_counts_its_output_as_a_short_one_does():
    # a loop's output past runtime.objects._JOINED_BYTES is summed, not joined, when the loop counts it
    source = "{% for m in ms %}{{ '<|' + m.role + '|>' + m.content }}\n{% endfor %}"
    ms = [{"role": "ab"[i % 2], "content": "é" * (300 + i)} for i in range(400)]
    expected = "".join(f"<|{m['role']}|>{m['content']}\n" for m in ms)
    for general in (False, True):
        assert compile_chat(source, general).render(ms=ms) == expected
        at_edge = compile_chat(source, general, limits=mj.Limits(max_output=len(expected)))
        assert at_edge.render(ms=ms) == expected
        with pytest.raises(mj.LimitExceeded):
            compile_chat(source, general, limits=mj.Limits(max_output=len(expected) - 1)).render(ms=ms)
