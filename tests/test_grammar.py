"""The grammar stays LALR(1) without conflicts, and the shipped parse tables are built from it."""

import json

import lark
import pytest

from minijinja_py import _resources, syntax


def test_grammar_has_no_lalr_conflicts():
    # strict mode makes Lark refuse shift/reduce conflicts instead of resolving them silently
    lark.Lark(syntax._grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=True, strict=True)


def test_tables_match_the_grammar():
    tables = json.loads(_resources.read_text("grammar", "jinja.tables.json"))
    if tables.get("lark_version") != lark.__version__:
        pytest.skip("tables built with another Lark version (the parser falls back to analysing the grammar)")
    assert tables["grammar_sha256"] == syntax._grammar_digest(syntax._grammar_text()), \
        "grammar/jinja.tables.json is stale: run python -m minijinja_py.syntax --write-tables"
