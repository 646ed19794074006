"""The grammar and its prebuilt tables: no LALR conflicts or terminal collisions, the committed
grammar/jinja.tables.marshal is what the grammar builds today (tools/grammar_tables.py), and the option edits
(trim_blocks/lstrip_blocks off) really change the terminals they target."""

import importlib.util
import os

import pytest

from minijinja_py.syntax import parse as syntax

lark = pytest.importorskip("lark")  # a build-time tool: the package itself never imports it
import grammar_tables  # noqa: E402  (tools/ is on sys.path, see conftest.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTION_SETS = [(tb, lb) for tb in (True, False) for lb in (True, False)]


def test_tables_match_a_fresh_build():
    committed = grammar_tables.committed()
    built_with = committed["lark"]
    if built_with != lark.__version__:
        # another Lark may number or order things differently; test_parser_vs_lark.py still checks the driver
        # against this Lark's own parser
        pytest.skip(f"the tables were built with lark {built_with}, this is lark {lark.__version__}")
    assert grammar_tables.build() == committed, "stale tables: run python tools/grammar_tables.py --write"


def test_tables_file_holds_each_text_once():
    """The committed file writes each text once (marshal refers back to it): loaded, every name is one str object
    wherever it occurs, which loads faster and lets lookups between the tables match by identity."""
    texts = {}

    def walk(value):
        if isinstance(value, str):
            assert texts.setdefault(value, value) is value, value
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
    walk(grammar_tables.committed())
    assert len(texts) > 300


@pytest.fixture(scope="module")
def built():
    """Lark's analysis of the grammar and the driver's tables, fresh from the committed file."""
    from minijinja_py.syntax import lalr
    return grammar_tables.analyse(), lalr.Tables(grammar_tables.committed())


def test_starting_names_the_terminals_each_character_may_start(built):
    """Tables.starting (the build's character classes and their terminals) names, for every ASCII character and for
    any non-ASCII one, the terminals whose regexp's match may start with it (delimiters.first_chars), and
    Tables.first_chars turns that back into each terminal's characters."""
    from minijinja_py.syntax.delimiters import first_chars
    _, tables = built
    first = {name: first_chars(pattern) for name, pattern in tables.terminals.items()}
    for key in [chr(c) for c in range(128)] + [None]:
        assert tables.starting(key) == {name for name, (chars, non_ascii) in first.items()
                                        if (key in chars if key is not None else non_ascii)}, key
    assert tables.first_chars() == {name: (set(chars), non_ascii) for name, (chars, non_ascii) in first.items()}


def test_rows_are_larks_parse_table(built):
    """Each state's row, read from the dense table, is Lark's parse table for the state (a unit reduction coded by
    its origin, as the build writes it)."""
    from minijinja_py.syntax import lalr
    parser, tables = built
    table = parser.parser.parser._parse_table
    order = grammar_tables._canonical_states(table)
    state_id = {old: new for new, old in enumerate(order)}
    rule_id = {rule: i for i, rule in enumerate(parser.rules)}

    def reduction(rule):
        if grammar_tables._rule_entry(rule).split(" ")[2] == "U":
            return lalr.UNITS - tables.symbols.index(rule.origin.name)
        return ~rule_id[rule]
    for new, old in enumerate(order):
        assert tables.row(new) == {str(symbol): state_id[arg] if action.name == "Shift" else reduction(arg)
                                   for symbol, (action, arg) in table.states[old].items()}, new


def test_units_are_what_each_lexer_tries(built):
    """Tables.units (built ahead by Lexer._units) gives, for every state's lexer and every character, the terminals
    of Lark's contextual lexer for the state, in its order, that may start with the character (delimiters.first_chars), grouped
    as the lexer tries them: a family's members as one (with the members the lexer has, when not all), consecutive
    literals as one, any other terminal alone."""
    from minijinja_py.syntax import natives
    from minijinja_py.syntax.delimiters import first_chars
    parser, tables = built
    order = grammar_tables._canonical_states(parser.parser.parser._parse_table)
    contextual = grammar_tables._contextual_lexer(parser)
    first = {name: first_chars(pattern) for name, pattern in tables.terminals.items()}
    family_of = {name: tuple(names) for _, names, _ in tables.families for name in names}
    literal = natives.literals(tables.terminals)
    checked = set()
    for new, old in enumerate(order):
        names = tuple(grammar_tables._match_order(contextual.lexers[old]))
        if names in checked:
            continue
        checked.add(names)
        for key in [chr(c) for c in range(128)] + [None]:
            expected = []
            for name in names:
                chars, non_ascii = first[name]
                if not (key in chars if key is not None else non_ascii):
                    continue
                family = family_of.get(name)
                if family is not None:
                    if not expected or expected[-1][0] != family:
                        mine = frozenset(family).intersection(names)
                        expected.append((family, None if len(mine) == len(family) else mine, False))
                elif name not in literal:
                    expected.append(((name,), None, False))
                elif expected and expected[-1][2]:
                    expected[-1] = (expected[-1][0] + (name,), None, True)
                else:
                    expected.append(((name,), None, True))
            assert tables.units(tables.lexer_of_state[new], key) == tuple(expected), (new, key)


def test_unit_reductions_are_the_unit_rules(built):
    """The table codes a reduction by its origin (what Parser._follow_units follows a chain of unit reductions by,
    without binding the rules) exactly when the driver's reduction of the rule is a unit's."""
    from minijinja_py.syntax import lalr
    parser, tables = built

    class Named:   # every callback: its name
        def __getattr__(self, name):
            return name

    driver = lalr.Parser(tables, Named())
    coded = {action for action in tables.table if action <= lalr.UNITS}
    units = {number for number in range(len(parser.rules)) if driver._rule(number)[0] is lalr._UNIT}
    assert len(units) > 10 and all(len(parser.rules[number].expansion) == 1 for number in units)
    assert coded == {lalr.UNITS - driver._rule(number)[1] for number in units}
    assert not any(~action in units for action in tables.table if lalr.UNITS < action < 0)


def test_bound_rules_shape_as_larks_plans(built):
    """How the driver reduces each rule, bound from the build's text of it (kind, size, callback, shaper), does
    what the rule's child plan says (lalr._shape, in turn), as Lark's tree builder shapes children."""
    from minijinja_py.syntax import lalr
    parser, tables = built

    class Named:   # every callback: its name
        def __getattr__(self, name):
            return name

    driver = lalr.Parser(tables, Named())
    for number, rule in enumerate(parser.rules):
        how, origin, size, callback, shaper = driver._rule(number)
        origin = tables.symbols[origin]   # (the driver keeps its symbol's number)
        plan = grammar_tables._child_plan(rule)
        inlined, expand1 = origin.startswith("_"), bool(rule.options.expand1) and not rule.alias
        assert origin == rule.origin.name

        def values():   # each symbol's value as the parser holds it: an inlined rule's is a list
            return [[f"{i}a", f"{i}b"] if not symbol.is_term and symbol.name.startswith("_") else f"v{i}"
                    for i, symbol in enumerate(rule.expansion)]
        expected = values() if plan is None else lalr._shape(values(), ([tuple(e) for e in plan[:-1]], plan[-1]))
        if how is lalr._UNIT:   # the one value passes up: a ?rule's one child, or an inlined rule's list whole
            assert len(rule.expansion) == 1, rule
            assert plan is None and expand1 or inlined and plan == [[0, 1, 0], 0], rule
            continue
        assert how is (lalr._INLINE if inlined else lalr._EXPAND1 if expand1 else lalr._CALL), rule
        assert callback == (None if inlined else str(rule.alias or origin)), rule
        if size == lalr._SAME:   # the one value, a list, is the children as it is
            assert len(rule.expansion) == 1 and shaper is None and expected == values()[0], rule
            continue
        assert size == len(rule.expansion), rule
        assert list(values() if shaper is None else shaper(values())) == expected, rule


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_grammar_has_no_conflicts_or_collisions(trim_blocks, lstrip_blocks):
    if importlib.util.find_spec("interegular") is None:
        pytest.skip("Lark's strict mode needs interegular to check terminal collisions; it is not installed")
    # strict=True raises on any shift/reduce conflict and on terminals whose regexps can match the same text
    grammar_tables.analyse(trim_blocks, lstrip_blocks, strict=True)


def _patterns(trim_blocks, lstrip_blocks):
    return syntax.parser(trim_blocks, lstrip_blocks).patterns


def test_option_fragments_are_in_the_grammar():
    """The edits replace fixed fragments: each must be spelled in the grammar, or its edit silently does nothing."""
    patterns = "\n".join(_patterns(True, True).values())
    for fragment in syntax._LSTRIP_FRAGMENTS:
        assert fragment in patterns
    for fragment, _ in syntax._TRIM_FRAGMENTS:
        assert fragment in patterns


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_option_edits_take_effect(trim_blocks, lstrip_blocks):
    patterns = _patterns(trim_blocks, lstrip_blocks)
    closers = [patterns[name] for name in ("_BLOCK_CLOSE", "COMMENT", "RAW_CLOSE")]
    openers = [patterns[name] for name in ("IF", "COMMENT", "RAW_OPEN", "DATA")]
    for pattern in closers:
        assert any(f in pattern for f, _ in syntax._TRIM_FRAGMENTS) == trim_blocks
    for pattern in openers:
        assert any(f in pattern for f in syntax._LSTRIP_FRAGMENTS) == lstrip_blocks


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_options_render_as_named(trim_blocks, lstrip_blocks):
    import minijinja_py as mj
    source = "<ul>\n  {% for x in 'ab' %}\n  <li>{{ x }}\n  {% endfor %}\n</ul>"
    expected = {
        (True, True): "<ul>\n  <li>a\n  <li>b\n</ul>",
        (True, False): "<ul>\n    <li>a\n    <li>b\n  </ul>",
        (False, True): "<ul>\n\n  <li>a\n\n  <li>b\n\n</ul>",
        (False, False): "<ul>\n  \n  <li>a\n  \n  <li>b\n  \n</ul>",
    }[(trim_blocks, lstrip_blocks)]
    env = mj.Environment(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks)
    assert env.from_string(source).render() == expected


def test_the_package_does_not_import_lark():
    """Lark builds the tables; parsing runs without it (a fresh interpreter where lark cannot be imported)."""
    import subprocess
    import sys
    code = ("import sys, importlib.abc\n"
            "class NoLark(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('lark', 'interegular'):\n"
            "            raise ImportError('blocked')\n"
            "sys.meta_path.insert(0, NoLark())\n"
            f"sys.path.insert(0, {ROOT!r})\n"
            "import minijinja_py as mj\n"
            f"assert mj.__file__.startswith({ROOT!r}), mj.__file__\n"
            "print(mj.Environment().from_string('{% for x in y %}{{ x }}{% endfor %}').render(y=[1, 2]))\n"
            "assert not any(m.split('.')[0] == 'lark' for m in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "12\n"


def test_name_character_class_is_word_or_other_non_space():
    """NAME (and the end of every keyword) is written as one character class, for speed; it must be exactly a word
    character or a non-ASCII character that is not whitespace, as Jinja2's name pattern reads them."""
    import re
    import sys
    patterns = syntax.parser(True, True).patterns
    assert patterns["NAME"].startswith("(?![0-9])")   # (a number's digits: any other digit may start a name)
    name_class = re.compile(patterns["NAME"].replace("(?![0-9])", "", 1)[:-1])  # the class, without `+`
    reference = re.compile(r"\w|[^\x00-\x7f\s]")
    wrong = [c for c in map(chr, range(sys.maxunicode + 1))
             if bool(name_class.fullmatch(c)) != bool(reference.fullmatch(c))]
    assert not wrong, wrong[:10]
    assert name_class.pattern in patterns["_KW_IF"]


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_literal_terminals_share_one_regexp_exactly(trim_blocks, lstrip_blocks):
    """The lexer tries the punctuation and keyword terminals with one matcher (natives.literals, found without a
    regexp of theirs): at any place it must find a terminal exactly when that terminal's own pattern matches
    there, with the same text, so that a state may take its match when the terminal is one of its own and
    otherwise know that none of its own matches."""
    import re
    from minijinja_py.syntax import natives
    parser = syntax.parser(trim_blocks, lstrip_blocks)
    literals = natives.literals(parser.patterns)
    assert parser._lexer._literal == literals   # (the tables' own, written by the build)
    assert {"LPAR", "_COMMA", "POW", "DSLASH", "IN", "_KW_IF", "_WITHOUT", "_KW_WITH"} <= set(literals)
    assert not {"STAR", "SLASH", "NAME", "CMP_OP", "VAR_OPEN"} & set(literals)  # a prefix of POW/DSLASH; regexps
    shared = parser._lexer._literals_matcher
    own = {name: re.compile(parser.patterns[name]).match for name in literals}
    texts = set(literals.values()) | {"*", "/", "-}}", "é", "_", "0", " ", "x", "—", ""}
    probes = {a + b for a in texts for b in texts} | {a + b + c for a in ("in", "is", "if", "with", "*", "-")
                                                      for b in texts for c in ("x", " ", "(")}
    for probe in probes:
        found = shared(probe, 0)
        for name, match in own.items():
            m = match(probe, 0)
            if m is None:
                assert found is None or natives.kind_and_end(found)[0] != name, (probe, name)
            else:
                assert found is not None and natives.kind_and_end(found) == (name, m.end()), (probe, name)


def test_known_terminals_read_without_their_regexp_exactly():
    """The number, string and delimiter terminals a cold lexer reads with Python functions (natives.KNOWN): at every
    place of generated text each finds what its regexp finds (the same end, or nothing), and the grammar's terminals
    are spelt as KNOWN has them under every option set (else they would be compiled, and this would test
    nothing)."""
    import random
    import re
    from minijinja_py.syntax import natives
    for trim_blocks, lstrip_blocks in OPTION_SETS:
        patterns = syntax.parser(trim_blocks, lstrip_blocks).patterns
        known = {name for name, pattern in patterns.items() if pattern in natives.KNOWN}
        assert known == {"FLOAT", "INT", "STRING", "RBRACES", "VAR_CLOSE_STRIP", "VAR_OPEN", "_BLOCK_CLOSE"}
    pieces = ["0", "1", "7", "9", "2", "8", "\u0663", "\uff10", "\u00b2", "_", "__", ".", "e", "E", "+", "-", "b",
              "B", "o", "O", "x", "X", "a", "f", "F", "g", "'", '"', "\\", "\n", " ", "é", "1_0", "0x", "0b", "0o",
              "1.5", "1e", "\\'", '\\"', "{", "}", "%", "{{", "}}", "%}", "{%", "-}}", "{{-", "{{+", "-%}", "+%}",
              "\t", "\r", "\x1c", "\x85", "\u3000", "  "]
    rng = random.Random(22)
    probes = {"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 9))) for _ in range(20000)}
    probes |= {a + b for a in pieces for b in pieces}
    checked = 0
    for pattern in natives.KNOWN:
        name = "T"
        regexp, native = re.compile(f"(?P<{name}>{pattern})").match, natives.KNOWN[pattern](name)
        for probe in probes:
            for pos in range(len(probe) + 1):
                want, got = regexp(probe, pos), native(probe, pos)
                assert (want is None) == (got is None), (pattern, probe, pos)
                if want is not None:
                    assert natives.kind_and_end(got) == (name, want.end()), (pattern, probe, pos)
                    checked += 1
    assert checked > 10000


def test_known_terminals_read_long_whitespace_exactly():
    """natives strips a run of whitespace a window of characters at a time: runs shorter than, as long as and
    longer than the window (and several windows), ended by text or by the end of the text, end where the regexps
    end them."""
    import re
    from minijinja_py.syntax import natives
    runs = [" " * size for size in (63, 64, 65, 128, 129, 200)] + ["\n\t \u3000\x85" * 30]
    probes = [lead + run + tail for lead in ("-}}", "{{-", "-%}", "") for run in runs for tail in ("", "x", "{{-", "{{")]
    checked = 0
    for pattern in natives.KNOWN:
        regexp, native = re.compile(f"(?P<T>{pattern})").match, natives.KNOWN[pattern]("T")
        for probe in probes:
            for pos in (0, 1, 3):
                want, got = regexp(probe, pos), native(probe, pos)
                assert (want is None) == (got is None), (pattern, probe, pos)
                if want is not None:
                    assert natives.kind_and_end(got)[1] == want.end(), (pattern, probe, pos)
                    checked += 1
    assert checked > 100


def test_known_strings_end_at_the_first_unescaped_quote():
    """natives reads a string literal by its quotes, a quote being escaped by an odd run of backslashes before it
    (not by scanning each escape): runs of every length before a quote, escaped newlines and the other quote, end
    where the STRING regexp ends them."""
    import re
    from minijinja_py.syntax import natives
    pattern = next(pattern for pattern, make in natives.KNOWN.items() if make is natives._string)
    regexp, native = re.compile(f"(?P<T>{pattern})").match, natives._string("T")
    pieces = ["\\" * run + quote for run in range(6) for quote in ("'", '"')] + ["x", "\\\n", "\n", " "]
    probes = {q + a + b + c + d for q in ("'", '"') for a in pieces for b in pieces for c in ("", "x", "'", '"')
              for d in ("", "'", '"')}
    for probe in probes:
        want, got = regexp(probe, 0), native(probe, 0)
        assert (want is None) == (got is None), probe
        if want is not None:
            assert natives.kind_and_end(got)[1] == want.end(), probe


@pytest.mark.parametrize("delimiters", [None, ("<%", "%>", "<<", ">>", "<#", "#>", "%", "##")])
@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_tag_families_read_without_their_regexp_exactly(trim_blocks, lstrip_blocks, delimiters, monkeypatch):
    """A family of block tags is first read without its regexp (natives.KeywordFamily: the prefix, then the keyword
    after it): at any place it must find what the family's regexp finds, the same member and the same end."""
    from minijinja_py.syntax import delimiters as syntax_options, natives
    options = None if delimiters is None else syntax_options.Delimiters(*delimiters)
    monkeypatch.setattr(syntax, "_parsers", {})   # a new parser, whose families have not tiered up yet
    parser = syntax.parser(trim_blocks, lstrip_blocks, options)
    words = ("if", "elif", "endif", "for", "endfor", "raw", "endraw", "set", "iff", "if_", "ifé", "if—", "end",
             "x", "", "IF", "endraw2", "raw-", "macro", "endmacro9", "i" * 70, "if\u0663")
    opens = ("{%", "{%-", "{%+", "  {%", "\n  {%", "x {%", "<%", "<%-", "\n%", " %", "%", "{{", "{#", "",
             " \n {%", "\u3000{%")
    ends = ("", " ", "%}", " %}", "-%}", "+%}", "%}\n", " -%}  x", "x", "\n", "%>", "-%>", " >>")
    probes = {o + s + w + e for o in opens for s in ("", " ", "  ", " " * 70, "\u3000") for w in words for e in ends}
    checked = 0
    for lexer in parser._lexers:
        for names, native in list(lexer._native.items()):
            # (the default delimiters' head is found without a regexp: natives.TAG_HEADS)
            assert (native.head in natives.TAG_HEADS.values()) == (delimiters is None)
            regexp = lexer._matcher_regexp(names)
            native.left = len(probes) * 4   # no tier-up while probing
            for probe in probes:
                for pos in range(min(len(probe), 3)):
                    want, got = regexp(probe, pos), native.match(probe, pos)
                    assert (want is None) == (got is None), (probe, pos)
                    if want is not None:
                        assert natives.kind_and_end(got) == (want.lastgroup, want.end()), (probe, pos)
                        checked += 1
    assert checked > 100


def test_a_tag_family_tiers_up_to_its_regexp(monkeypatch):
    """After NATIVE_FAMILY_TAGS tags read natively, a lexer reads its tag families with their regexps, and parses
    the same."""
    from minijinja_py.syntax import lexer as lexing
    source = "{% for m in ms %}{% if m %}{{ m }}{% elif not m %}-{% else %}{% raw %}{{x}}{% endraw %}{% endif %}" \
             "{% endfor %}"
    before = syntax.parse(source, True, True)
    monkeypatch.setattr(lexing, "NATIVE_FAMILY_TAGS", 3)
    monkeypatch.setattr(syntax, "_parsers", {})
    parser = syntax.parser(True, True)
    assert parser._lexer._native
    from minijinja_py.syntax import nodes
    assert nodes.dump(syntax.parse(source, True, True)) == nodes.dump(before)
    assert not parser._lexer._native   # tiered up
    assert nodes.dump(syntax.parse(source, True, True)) == nodes.dump(before)


def test_the_builder_has_every_callback_the_tables_name():
    """The parser binds each rule to the builder's method of its name when the rule is first reduced: the builder
    has one for every callback the tables name (checked here, not by each parser as it is made)."""
    from minijinja_py.syntax.builder import Builder
    from minijinja_py.syntax.parse import load_tables
    assert [name for name in load_tables().callbacks if not hasattr(Builder, name)] == []


def test_the_end_state_has_no_action():
    """The parser's end state (the start rule read) has no action in the table, a unit reduction least of all: the
    driver follows a chain of unit reductions until another action without checking for it (lalr._follow_units),
    and completes the parse there on $END."""
    from minijinja_py.syntax.parse import load_tables
    tables = load_tables()
    assert tables.row(tables.end) == {}
