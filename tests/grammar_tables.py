#!/usr/bin/env python3
"""Build time: grammar/jinja.lark → grammar/jinja.tables.json, the tables minijinja_py/lalr.py runs.

    python tests/grammar_tables.py --write      # after editing the grammar (tests/test_grammar.py checks it)
    python tests/grammar_tables.py --check      # exit 1 when the committed tables are stale

Lark does the analysis: it builds the LALR(1) parse table, the terminal set of each parser state for its
contextual lexer (and the order in which a state's lexer tries them: priority, then width, then pattern length),
and compiles the grammar's EBNF into plain rules, each with how its children are shaped into the callback's
arguments (filtered `_TOKENS`, inlined `_rules`, `?rule` single-child inlining, `-> alias`, None for a missing
`[optional]`). This module reads all that off a Lark instance and writes it out as plain data; nothing here runs
at render time, and the package never imports lark.

The output is canonical (states numbered breadth-first from the start state, symbols visited in name order), so
the same grammar always gives the same file and a test can tell current tables from stale ones. The grammar is
analysed once per trim_blocks/lstrip_blocks option set (syntax.py edits two terminal fragments for them); the
tables must not depend on the options beyond those terminal patterns, and the build fails if they do.
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import lark  # noqa: E402

from minijinja_py import syntax  # noqa: E402

GRAMMAR = os.path.join(ROOT, "grammar", "jinja.lark")
TABLES = os.path.join(ROOT, "grammar", "jinja.tables.json")
OPTION_SETS = [(tb, lb) for tb in (True, False) for lb in (True, False)]
FORMAT = 1


def grammar_text():
    with open(GRAMMAR, encoding="utf-8", newline="") as f:
        return f.read()


def analyse(trim_blocks=True, lstrip_blocks=True, strict=False):
    """Lark's LALR(1) analysis of the grammar with the option edits applied to the terminals."""
    def edit(term):
        term.pattern.value = syntax.edit_pattern(term.pattern.value, trim_blocks, lstrip_blocks)
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=True, strict=strict,
                     postlex=syntax.Postlexer(), edit_terminals=edit)


def _contextual_lexer(parser):
    lexer = parser.parser.lexer
    return getattr(lexer, "lexer", lexer)  # under a postlexer, Lark wraps it in a PostLexConnector


def _match_order(basic_lexer):
    """Terminal names in the order the lexer tries them. Lark folds a string terminal into a regexp terminal that
    matches it in full (checking the string after the regexp matched); this driver does not do that, so the build
    refuses a grammar where it happens."""
    scanner = basic_lexer.scanner
    if basic_lexer.callback or [t.name for t in scanner.terminals] != [t.name for t in basic_lexer.terminals]:
        raise SystemExit("a string terminal is folded into a regexp terminal (Lark's 'unless' callbacks): "
                         f"{sorted(basic_lexer.callback)}; give it a priority of its own or make it a regexp")
    return [t.name for t in basic_lexer.terminals]


def _canonical_states(table):
    """Old state numbers in canonical order: breadth-first from the start state, symbols in name order."""
    order, seen = [], set()
    queue = [table.start_states["start"]]
    while queue:
        state = queue.pop(0)
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        for symbol in sorted(table.states[state]):
            action, arg = table.states[state][symbol]
            if action.name == "Shift":
                queue.append(arg)
    return order + sorted(set(table.states) - seen)


def _child_plan(rule):
    """How the popped values become the callback's arguments, as Lark's tree builder shapes them: None when they
    pass unchanged, else [[index, splice, nones before], ..., nones at the end] where splice marks an inlined
    `_rule` (its list of values is spliced in) and the Nones stand for a missing [optional] part."""
    empty = rule.options.empty_indices or ()
    nones = [0] * (len(rule.expansion) + 1)
    if empty:
        # empty_indices has one flag per symbol of the written expansion, True where an optional part is missing
        slot = 0
        for missing in empty:
            if missing:
                nones[slot] += 1
            else:
                slot += 1
    include, pending = [], 0
    for i, sym in enumerate(rule.expansion):
        pending += nones[i]
        if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out):
            include.append([i, int(not sym.is_term and sym.name.startswith("_")), pending])
            pending = 0
    pending += nones[len(rule.expansion)]
    if not empty and len(include) == len(rule.expansion) and not any(splice for _, splice, _ in include):
        return None
    return include + [pending]


def _rule_entry(rule):
    """[origin, number of symbols, callback name or None (an inlined _rule: its values go to the parent),
    1 when a single resulting child is passed up as it is (`?rule` without alias), child plan]."""
    if rule.options.template_source is not None:
        raise SystemExit(f"rule templates are not supported by the driver: {rule}")
    origin = str(rule.origin.name)
    callback = None if origin.startswith("_") else str(rule.alias or origin)
    expand1 = int(bool(rule.options.expand1) and not rule.alias)
    return [origin, len(rule.expansion), callback, expand1, _child_plan(rule)]


def extract(parser):
    """The tables of one Lark instance as plain data (option-dependent parts: the terminal patterns)."""
    table = parser.parser.parser._parse_table
    contextual = _contextual_lexer(parser)
    order = _canonical_states(table)
    state_id = {old: new for new, old in enumerate(order)}
    rule_id = {rule: i for i, rule in enumerate(parser.rules)}
    lexers, lexer_id = [_match_order(contextual.root_lexer)], {}
    lexer_id[tuple(lexers[0])] = 0
    states = []
    for old in order:
        names = tuple(_match_order(contextual.lexers[old]))
        if names not in lexer_id:
            lexer_id[names] = len(lexers)
            lexers.append(list(names))
        actions = {}
        for symbol, (action, arg) in sorted(table.states[old].items()):
            actions[str(symbol)] = state_id[arg] if action.name == "Shift" else -1 - rule_id[arg]
        states.append([lexer_id[names], actions])
    return {
        "format": FORMAT,
        "terminals": {t.name: t.pattern.to_regexp() for t in sorted(parser.terminals, key=lambda t: t.name)},
        "ignore": sorted(parser.ignore_tokens),
        "lexers": lexers,
        "rules": [_rule_entry(rule) for rule in parser.rules],
        "states": states,
        "start": state_id[table.start_states["start"]],
        "end": state_id[table.end_states["start"]],
    }


def build():
    """The tables as JSON text (the transformers profile's terminal patterns; syntax.py derives the others)."""
    built = {options: extract(analyse(*options)) for options in OPTION_SETS}
    base = built[(True, True)]
    for options, tables in built.items():
        for key in base:
            if key != "terminals" and tables[key] != base[key]:
                raise SystemExit(f"the option set trim_blocks={options[0]}, lstrip_blocks={options[1]} changes "
                                 f"the tables' {key!r}, not only terminal patterns")
        edited = {name: syntax.edit_pattern(p, *options) for name, p in base["terminals"].items()}
        if edited != tables["terminals"]:
            raise SystemExit(f"syntax.edit_pattern on the final patterns differs from Lark's edit for {options}")
    return json.dumps(base, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"


def main(argv):
    if argv == ["--write"]:
        text = build()
        with open(TABLES, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        print(f"wrote {TABLES} ({len(text)} bytes)")
        return 0
    if argv == ["--check"]:
        with open(TABLES, encoding="utf-8", newline="") as f:
            stale = f.read() != build()
        print("stale: run python tests/grammar_tables.py --write" if stale else "tables are current")
        return int(stale)
    print(__doc__.split("\n\n")[1])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
