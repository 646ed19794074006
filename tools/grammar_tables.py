#!/usr/bin/env python3
"""Build time: grammar/jinja.lark → grammar/jinja.tables.marshal, the tables minijinja_py/syntax/lalr.py runs.

    python tools/grammar_tables.py --write      # after editing the grammar (tests/test_grammar.py checks it)
    python tools/grammar_tables.py --check      # exit 1 when the committed tables are stale

Lark does the analysis: it builds the LALR(1) parse table, the terminal set of each parser state for its
contextual lexer (and the order in which a state's lexer tries them: priority, then width, then pattern length),
and compiles the grammar's EBNF into plain rules, each with how its children are shaped into the callback's
arguments (filtered `_TOKENS`, inlined `_rules`, `?rule` single-child inlining, `-> alias`, None for a missing
`[optional]`). This module reads all that off a Lark instance and writes it out as plain data; nothing here runs
at render time, and the package never imports lark.

The output is canonical (states numbered breadth-first from the start state, symbols visited in name order), so
the same grammar always gives the same tables and a test can tell current tables from stale ones. The file is the
tables' data (a dict of strings, bytes, numbers, lists and dicts) in marshal's format, version 4, which every
Python 3.4+ reads: a cold start loads it in half of JSON's time (a test compares the loaded data, not the bytes:
marshal may write shared strings as references or not; each text is one object, written once). The grammar is
analysed once per trim_blocks/lstrip_blocks option set (syntax.py edits two terminal fragments for them); the
tables must not depend on the options beyond those terminal patterns, and the build fails if they do.
"""

import marshal
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import lark  # noqa: E402

from minijinja_py.syntax import lalr, lexer as contextual, natives, parse as syntax  # noqa: E402
from minijinja_py.syntax.delimiters import (  # noqa: E402
    ASCII, Unknown as _Unknown, class_chars as _class_chars, first_chars, sre_parse,
)

GRAMMAR = os.path.join(ROOT, "grammar", "jinja.lark")
TABLES = os.path.join(ROOT, "grammar", "jinja.tables.marshal")
MARSHAL_VERSION = 4
OPTION_SETS = [(tb, lb) for tb in (True, False) for lb in (True, False)]
FORMAT = 12
_FIRST_MARK = lalr.ACCEPTED   # symbol codes stay below the bytes that mark a unit list's parts


def grammar_text():
    with open(GRAMMAR, encoding="utf-8", newline="") as f:
        return f.read()


def analyse(trim_blocks=True, lstrip_blocks=True, strict=False):
    """Lark's LALR(1) analysis of the grammar with the option edits applied to the terminals."""
    def edit(term):
        term.pattern.value = syntax.edit_pattern(term.pattern.value, trim_blocks, lstrip_blocks)
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=True, strict=strict,
                     postlex=syntax.Postlexer(), edit_terminals=edit)


# ------------------------------------------------------------------------------------ lexer acceleration data
# A contextual lexer tries a state's terminals in order and takes the first that matches. Two facts let the
# driver do less work with the same result, both established here, by reading each terminal's regexp:
#   first characters: a terminal whose match cannot start with the character at hand need not be tried (every
#     terminal consumes at least one character; Lark refuses empty ones);
#   families: consecutive terminals X·s1, X·s2, ... that share a prefix X may be tried as one regexp
#     X(?:s1|s2|...) when X can end in only one place where any s_i could start (then X·s_i matches exactly
#     where s_i matches after that end, and the order of the s_i is kept).
# Character sets are (ASCII characters, whether any non-ASCII character may be in), always a superset
# (syntax/delimiters.py).


def _op(item):
    return item[0].name


def _consumed(items):
    """Every character a sequence of parsed items may consume (lookarounds consume nothing)."""
    chars, non_ascii = set(), False
    for op, av in items:
        name = op.name
        if name in ("ASSERT", "ASSERT_NOT", "AT"):
            continue
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            c, n = _class_chars(name, av)
        elif name == "SUBPATTERN":
            c, n = _consumed(av[-1])
        elif name == "BRANCH":
            c, n = set(), False
            for part in av[1]:
                pc, pn = _consumed(part)
                c, n = c | pc, n or pn
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            c, n = _consumed(av[2])
        elif name == "ATOMIC_GROUP":
            c, n = _consumed(av)
        else:
            raise _Unknown(name)
        chars, non_ascii = chars | c, non_ascii or n
    return chars, non_ascii


def run_chars(regexp):
    """For a regexp that is a run of one character class (C+): the ASCII characters of C, else "". The lexer
    skips a one-character run of an ignored terminal without its regexp."""
    try:
        items = list(sre_parse.parse(regexp))
        if len(items) != 1 or _op(items[0]) != "MAX_REPEAT":
            return ""
        low, high, body = items[0][1]
        if low != 1 or high != sre_parse.MAXREPEAT or len(body) != 1:
            return ""
        chars, _ = _class_chars(_op(body[0]), body[0][1])
    except (_Unknown, re.error):
        return ""
    return "".join(sorted(chars))


def _disjoint(a, b):
    return not (a[0] & b[0]) and not (a[1] and b[1])


def _parse_dump(regexp):
    """A comparable rendering of how Python parses regexp (non-capturing groups leave no trace)."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sre_parse.parse(regexp).dump()
    return out.getvalue()


def _family_ok(prefix, suffixes):
    """True when prefix·(s1|s2|...) matches exactly as prefix·s1 | prefix·s2 | ... for these suffixes: the
    prefix is Y·C* (a trailing run of one character class), no suffix can start with a C character or match
    empty, and Y never consumes a character a suffix can start with; so the prefix has one end where a suffix
    may start: after its whole trailing run."""
    try:
        for suffix in suffixes:
            re.compile(suffix)
            if _parse_dump(prefix + suffix) != _parse_dump(f"(?:{prefix})(?:{suffix})"):
                return False  # the split is not between two whole parts of the pattern
        items = list(sre_parse.parse(prefix))
        if sre_parse.parse(prefix).state.flags & re.IGNORECASE or not items:
            return False
        op, av = items[-1]
        if op.name != "MAX_REPEAT" or av[0] != 0 or len(av[2]) != 1 or av[2][0][0].name not in (
                "LITERAL", "NOT_LITERAL", "ANY", "IN"):
            return False
        run = _class_chars(av[2][0][0].name, av[2][0][1])
        starts = set(), False
        for suffix in suffixes:
            chars, non_ascii = first_chars(suffix)
            if non_ascii and len(chars) == len(ASCII):   # any character
                return False
            starts = starts[0] | chars, starts[1] or non_ascii
        return _disjoint(starts, run) and _disjoint(starts, _consumed(items[:-1]))
    except (re.error, _Unknown):
        return False


def _common_prefix(texts):
    prefix = texts[0]
    for text in texts[1:]:
        while not text.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _best_split(patterns):
    """The longest prefix the patterns share that makes a valid family, or None."""
    shared = _common_prefix(patterns)
    for cut in range(len(shared), 0, -1):
        prefix = shared[:cut]
        try:
            re.compile(prefix)
        except re.error:
            continue
        if all(len(p) > cut for p in patterns) and _family_ok(prefix, [p[cut:] for p in patterns]):
            return prefix
    return None


def lead_literal(rest):
    """The letter or digit a family member's rest starts with when it can be moved in front of the member's named
    group (Python's regexp engine skips a branch that starts with a literal not at hand without entering it), else
    "" (a plain literal character matches or not: moving it out of the group changes nothing but the group's
    span, which the driver does not use)."""
    lead = rest[:1]
    if not lead.isascii() or not lead.isalnum() or rest[1:2] in ("*", "+", "?", "{"):
        return ""
    try:
        same = _parse_dump(rest) == _parse_dump(f"{lead}(?:{rest[1:]})")
    except re.error:
        return ""
    return lead if same else ""


def families(order, patterns):
    """Maximal runs of consecutive terminals of the lexers' common order that form a family: [[prefix,
    [names], [lead literal of each member's rest]], ...]."""
    found, i = [], 0
    while i < len(order):
        j, prefix = i + 1, None
        while j < len(order):
            candidate = _best_split([patterns[name] for name in order[i:j + 1]])
            if candidate is None:
                break
            prefix, j = candidate, j + 1
        if prefix is not None:
            found.append([prefix, order[i:j], [lead_literal(patterns[name][len(prefix):]) for name in order[i:j]]])
            i = j
        else:
            i += 1
    return found


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
    """One line per rule (split when the driver first reduces it): the origin, the number of symbols (-1: the one
    symbol's value, a list, is the callback's children as it is), how the reduction goes (U: a unit, the value
    stays; C: the callback gets the shaped children; I: an inlined _rule, the shaped children go to the parent as a
    list; E: a `?rule` that passes one resulting child up, else calls back), the callback's name or -, and the
    shaper or - (see _shaper)."""
    if rule.options.template_source is not None:
        raise SystemExit(f"rule templates are not supported by the driver: {rule}")
    origin = str(rule.origin.name)
    inlined = origin.startswith("_")
    callback = "-" if inlined else str(rule.alias or origin)
    expand1 = bool(rule.options.expand1) and not rule.alias
    plan, size = _child_plan(rule), len(rule.expansion)
    if plan is None:
        if expand1 and size == 1:
            return f"{origin} {size} U - -"
        shaper = "-"
    else:
        include, trailing_nones = plan[:-1], plan[-1]
        if size == 1 and include == [[0, 1, 0]] and not trailing_nones:
            # one symbol, an inlined rule's list spliced whole: that list is the shaped children (Lark reuses it)
            if inlined:   # an inlined rule passing it up: the value stays, only the state changes
                return f"{origin} {size} U - -"
            size, shaper = -1, "-"
        elif not inlined and include and not trailing_nones and not any(splice or nones for _, splice, nones in
                                                                        include):
            shaper = "t:" + ",".join(str(index) for index, _, _ in include)   # the callback's children: a tuple
        else:
            shaper = _shaper(include, trailing_nones)
    how = "I" if inlined else "E" if expand1 else "C"
    return f"{origin} {size} {how} {callback} {shaper}"


def _shaper(include, trailing_nones):
    """How the driver makes the children from a rule's popped values (lalr._shaper reads it): e: none; t:i,j,...: a
    tuple of those values; l:i,j,...: a list of them; j:i,j,...: the lists of those inlined rules joined, the first
    extended; s:before;after;spliced: the values before and after one inlined rule's list (spliced, or none)
    picked, -1 standing for a None; g:plan: more than one inlined rule among other values, shaped in turn by
    lalr._shape (plan: index.splice.nones,... ;Nones at the end)."""
    indexes = ",".join(str(index) for index, _, _ in include)
    padded = trailing_nones or any(nones for _, _, nones in include)
    if not include and not padded:
        return "e"
    if not padded and all(splice for _, splice, _ in include):
        return "j:" + indexes
    if not padded and not any(splice for _, splice, _ in include):
        return "l:" + indexes
    splices = [index for index, splice, _ in include if splice]
    if len(splices) > 1:
        return "g:" + ",".join(".".join(map(str, entry)) for entry in include) + f";{trailing_nones}"
    before, after = [], []
    current = before
    for index, splice, nones in include:
        current.extend([-1] * nones)
        if splice:
            current = after
        else:
            current.append(index)
    current.extend([-1] * trailing_nones)
    return f"s:{','.join(map(str, before))};{','.join(map(str, after))};{''.join(map(str, splices))}"


def _callbacks(parser):
    """The names the driver calls back: every rule's alias or name, but inlined _rules and single-symbol ?rules
    (whose one child passes up as it is)."""
    names = set()
    for rule in parser.rules:
        origin, expand1 = str(rule.origin.name), rule.options.expand1 and not rule.alias
        if not origin.startswith("_") and not (expand1 and len(rule.expansion) == 1 and _child_plan(rule) is None):
            names.add(str(rule.alias or origin))
    return sorted(names)


def extract(parser):
    """The tables of one Lark instance as plain data (option-dependent parts: the terminal patterns)."""
    table = parser.parser.parser._parse_table
    contextual = _contextual_lexer(parser)
    order = _canonical_states(table)
    state_id = {old: new for new, old in enumerate(order)}
    rule_id = {rule: i for i, rule in enumerate(parser.rules)}
    lexers, lexer_id = [_match_order(contextual.root_lexer)], {}
    lexer_id[tuple(lexers[0])] = 0
    rows, state_lexers = [], []
    for old in order:
        names = tuple(_match_order(contextual.lexers[old]))
        if names not in lexer_id:
            lexer_id[names] = len(lexers)
            lexers.append(list(names))
        state_lexers.append(lexer_id[names])
        # symbol → state (shift or goto, >= 0) or ~rule (reduce on that lookahead, < 0)
        rows.append({str(symbol): state_id[arg] if action.name == "Shift" else ~rule_id[arg]
                     for symbol, (action, arg) in sorted(table.states[old].items())})
    symbols = sorted({symbol for row in rows for symbol in row} | {name for names in lexers for name in names})
    code = {symbol: bytes((i,)) for i, symbol in enumerate(symbols)}
    if (len(symbols) > _FIRST_MARK or max(len(parser.rules), len(order)) > 0x8000 or len(lexers) > 0x100):
        raise SystemExit("too many symbols (or actions, or lexers) for the tables' codes")
    error = ~len(parser.rules)   # (the action of a symbol a state has none for)
    if error <= lalr.UNITS:
        raise SystemExit("too many rules for the tables' codes of unit reductions")
    # a unit reduction's action: lalr.UNITS - its origin's code (the driver follows a chain of them by the origins)
    units = {~number: lalr.UNITS - code[str(rule.origin.name)][0] for number, rule in enumerate(parser.rules)
             if _rule_entry(rule).split(" ")[2] == "U"}

    def actions(row):
        # the row's action on every symbol, in the symbols' order, each a signed two-byte number, low byte first
        return b"".join(units.get(action, action).to_bytes(2, "little", signed=True)
                        for action in (row.get(symbol, error) for symbol in symbols))

    patterns = {t.name: t.pattern.to_regexp() for t in sorted(parser.terminals, key=lambda t: t.name)}
    first = {name: first_chars(pattern) for name, pattern in patterns.items()}
    classes, starters = _starters(first, code)
    _check_common_order(lexers)
    tables = {
        "format": FORMAT,
        "lark": lark.__version__,  # what built them (a test compares with a fresh build by the same version)
        "terminals": patterns,
        # where each terminal's match may start (delimiters.first_chars), for a lexer to pick the terminals a
        # character may start: the class of each ASCII character then of any non-ASCII one (a byte each),
        # and each class's terminals (symbol codes, packed)
        "char_classes": classes,
        "starters": _packed(starters),
        "families": families(lexers[0], patterns),
        # the terminals of one fixed text a lexer finds without their regexps (natives.literals: the same for every
        # option set, as build() checks, so that a lexer need not work them out)
        "literals": natives.literals(patterns),
        "ignore": sorted(parser.ignore_tokens),
        "runs": {name: run for name in sorted(parser.ignore_tokens) if (run := run_chars(patterns[name]))},
        "symbols": symbols,
        # in bytes: a symbol as its index in symbols (a byte), an action as two (see actions()). A lexer: its
        # terminals in match order (packed, see _packed: one bytes and its entries' offsets, not one object per
        # entry). The parse table dense, state by state, a row of every symbol's action (a unit reduction's by its
        # origin, see lalr.UNITS; ~rules for none): the driver reads it in place (a view of signed numbers), where
        # decoding the rows a parse reaches cost a cold start's first parse a tenth of its time
        "lexers": _packed([b"".join(map(code.__getitem__, names)) for names in lexers]),
        "actions": b"".join(actions(row) for row in rows),
        "rules": _packed([_rule_entry(rule) for rule in parser.rules]),
        "callbacks": _callbacks(parser),
        "state_lexers": bytes(state_lexers),   # a state's lexer number, a byte
        "start": state_id[table.start_states["start"]],
        "end": state_id[table.end_states["start"]],
    }
    tables.update(_units(tables))
    return tables


def _units(tables):
    """What each lexer tries, in order, for a character of each class (lexer.Lexer._units: its terminals a match
    may start with there, grouped: a family's members as one, consecutive literals as one): the distinct unit
    lists, packed, and the number of each (lexer, class)'s list, a byte each, lexer by lexer. A unit list is its
    units separated by lalr.UNIT_BREAK bytes, a unit lalr.LITERALS (literals) or lalr.TERMINALS (terminals or a
    family's members) then its names' symbol codes, then, for a family the lexer has only some members of,
    lalr.ACCEPTED and those members' codes. The driver decodes the lists a template needs instead of working them
    out per state and character."""
    driver = lalr.Tables(dict(tables, units=[b"", b"\0\0"], lexer_units=b""))
    lexer = contextual.Lexer(driver, contextual.lexicon(driver))
    count = len(driver._starter_offsets) - 1
    # a character of each class (None: the class of every non-ASCII character): the units depend on the class only
    key_of = {}
    for key in [chr(c) for c in range(128)] + [None]:
        key_of.setdefault(driver.class_of_char[128 if key is None else ord(key)], key)
    code = {symbol: i for i, symbol in enumerate(tables["symbols"])}

    def unit(names, accepted, literals):
        text = bytes([lalr.LITERALS if literals else lalr.TERMINALS, *map(code.__getitem__, names)])
        return text if accepted is None else text + bytes([lalr.ACCEPTED] + [code[name] for name in names
                                                                               if name in accepted])
    lists, numbers = {}, []
    for number in range(driver.lexer_count):
        for cls in range(count):
            units = bytes([lalr.UNIT_BREAK]).join(unit(*entry) for entry in lexer._units(number, key_of[cls]))
            numbers.append(lists.setdefault(units, len(lists)))
    if len(lists) > 0x100:
        raise SystemExit("too many unit lists for the tables' codes")
    return {"units": _packed(list(lists)), "lexer_units": bytes(numbers)}


def _starters(first, code):
    """(the class of each of the 128 ASCII characters then of any non-ASCII one, a byte each; each class's
    terminals that a match may start with, as symbol codes in name order), where a class is the characters that
    start the same terminals."""
    starting = [b"".join(code[name] for name, (chars, non_ascii) in sorted(first.items())
                        if (key in chars if key is not None else non_ascii))
                for key in [chr(c) for c in range(128)] + [None]]
    classes = list(dict.fromkeys(starting))
    if len(classes) > 0x100:
        raise SystemExit("too many character classes for the tables' codes")
    return bytes(map(classes.index, starting)), classes


def _packed(entries, size=1):
    """[the entries joined (bytes, or a text), their offsets in it]: the offsets (n + 1 of them, from 0 to the
    joined length, counted in items of size bytes) as bytes, two each, low byte first, entry i being
    joined[offsets[i]:offsets[i + 1]] (items)."""
    offsets = [0]
    for entry in entries:
        offsets.append(offsets[-1] + len(entry) // size)
    if offsets[-1] >= 0x10000:
        raise SystemExit("a table too long for two-byte offsets")
    joined = "".join(entries) if entries and isinstance(entries[0], str) else b"".join(entries)
    return [joined, b"".join(offset.to_bytes(2, "little") for offset in offsets)]


def _check_common_order(lexers):
    """Every state's lexer tries its terminals in the order of the lexer of all terminals (Lark sorts them all by
    the same key), which is what lets families span the lexers."""
    rank = {name: i for i, name in enumerate(lexers[0])}
    for names in lexers:
        if [rank[name] for name in names] != sorted(rank[name] for name in names):
            raise SystemExit(f"a state's lexer order differs from the common order: {names}")


def build():
    """The tables' data (the transformers profile's terminal patterns; syntax.py derives the others)."""
    built = {options: extract(analyse(*options)) for options in OPTION_SETS}
    base = built[(True, True)]
    for options, tables in built.items():
        def edit(pattern):
            return syntax.edit_pattern(pattern, *options)
        same = {key: tables[key] == base[key] for key in base if key not in ("terminals", "families")}
        if not all(same.values()):
            raise SystemExit(f"the option set trim_blocks={options[0]}, lstrip_blocks={options[1]} changes "
                             f"the tables' {[key for key, ok in same.items() if not ok]}, not only patterns")
        if {name: edit(p) for name, p in base["terminals"].items()} != tables["terminals"]:
            raise SystemExit(f"syntax.edit_pattern on the final patterns differs from Lark's edit for {options}")
        # the driver edits a family's prefix and each member's rest separately
        if tables["families"] != [[edit(prefix), names, leads] for prefix, names, leads in base["families"]] or any(
                edit(prefix) + edit(base["terminals"][name][len(prefix):]) != tables["terminals"][name]
                for prefix, names, _ in base["families"] for name in names):
            raise SystemExit(f"the families do not survive the option edits for {options}")
    return _one_of_each_text({key: base[key] for key in sorted(base)}, {})


def _one_of_each_text(value, seen):
    """value with each text (str) one object wherever it occurs (seen: text → that object), which marshal then
    writes once and refers to (the names of terminals recur in most tables: the driver loads one str per name)."""
    if isinstance(value, str):
        return seen.setdefault(value, value)
    if isinstance(value, list):
        return [_one_of_each_text(item, seen) for item in value]
    if isinstance(value, dict):
        return {_one_of_each_text(key, seen): _one_of_each_text(item, seen) for key, item in value.items()}
    return value


def committed():
    """The data of the committed tables file."""
    with open(TABLES, "rb") as f:
        return marshal.loads(f.read())


def main(argv):
    if argv == ["--write"]:
        data = marshal.dumps(build(), MARSHAL_VERSION)
        with open(TABLES, "wb") as f:
            f.write(data)
        print(f"wrote {TABLES} ({len(data)} bytes)")
        return 0
    if argv == ["--check"]:
        stale = committed() != build()
        print("stale: run python tools/grammar_tables.py --write" if stale else "tables are current")
        return int(stale)
    print(__doc__.split("\n\n")[1])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
