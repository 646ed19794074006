"""The grammar and its prebuilt tables: no LALR conflicts or terminal collisions, the committed
grammar/jinja.tables.json is what the grammar builds today, and the option edits (trim_blocks/lstrip_blocks off)
really change the terminals they target."""

import hashlib
import importlib.util
import json
import os

import lark
import pytest

from minijinja_py import syntax

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTION_SETS = [(tb, lb) for tb in (True, False) for lb in (True, False)]


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8", newline="") as f:
        return f.read()


def test_tables_were_built_from_this_grammar():
    tables = json.loads(_read("grammar", "jinja.tables.json"))
    digest = hashlib.sha256(_read("grammar", "jinja.lark").encode("utf-8")).hexdigest()
    assert tables["grammar_sha256"] == digest, "stale tables: run python -m minijinja_py.syntax --write-tables"


def test_tables_match_a_fresh_build():
    committed = _read("grammar", "jinja.tables.json")
    built_with = json.loads(committed)["lark_version"]
    if built_with != lark.__version__:
        pytest.skip(f"tables were built with lark {built_with}, this is lark {lark.__version__} (they are ignored "
                    "at run time and the parser is rebuilt; regenerate them with --write-tables)")
    assert syntax.build_tables() == committed, "stale tables: run python -m minijinja_py.syntax --write-tables"


def test_prebuilt_tables_are_used():
    assert syntax._tables() is not None


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", OPTION_SETS)
def test_grammar_has_no_conflicts_or_collisions(trim_blocks, lstrip_blocks):
    if importlib.util.find_spec("interegular") is None:
        pytest.skip("Lark's strict mode needs interegular to check terminal collisions; it is not installed")

    def edit(term):
        term.pattern.value = syntax._edit_pattern(term.pattern.value, trim_blocks, lstrip_blocks)
    # strict=True raises on any shift/reduce conflict and on terminals whose regexps can match the same text
    lark.Lark(syntax._grammar_text(), parser="lalr", lexer="contextual", strict=True, maybe_placeholders=True,
              postlex=syntax._Postlexer(), edit_terminals=edit)


def _patterns(trim_blocks, lstrip_blocks):
    return {t.name: t.pattern.value for t in syntax._parser(trim_blocks, lstrip_blocks).terminals}


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
