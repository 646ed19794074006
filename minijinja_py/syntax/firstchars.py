"""A regular expression → the characters a match of it can start with (a superset: (ASCII characters, whether a
non-ASCII one may))."""

# The lexer tries only the terminals that can start with the character at hand. tools/grammar_tables.py records
# each grammar terminal's set in the tables; syntax/delimiters.py computes them for the terminals it rewrites for
# other delimiters. Read off Python's own parse of the regexp (re._parser); what this does not follow counts as
# "any character".

import re

try:  # the regular expression parser of the running Python (its own module before 3.11); `re` has loaded it
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse

__all__ = ["ASCII", "ANYTHING", "Unknown", "class_chars", "first_chars"]

# the 128 ASCII characters, as a str (a set of them held ~8 KiB from the import on, for analyses that run when
# a template has other delimiters, if ever)
ASCII = "".join(map(chr, range(128)))
ANYTHING = (ASCII, True)
_CATEGORIES = {"CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w",
               "CATEGORY_NOT_WORD": r"\W", "CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D"}


class Unknown(Exception):
    # A construct this analysis does not follow; the caller falls back to 'any character'.
    pass


def class_chars(op, av):
    # (ASCII set, non-ASCII?) of a single-character item of a parsed regexp (op is its opcode's name).
    if op == "LITERAL":
        return ({chr(av)} if av < 128 else set()), av >= 128
    if op in ("NOT_LITERAL", "ANY"):
        return set(ASCII), True
    if op != "IN":
        raise Unknown(op)
    chars, non_ascii, negate = set(), False, False
    for sub_op, sub_av in av:
        name = sub_op.name
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars |= {chr(sub_av)} if sub_av < 128 else set()
            non_ascii |= sub_av >= 128
        elif name == "RANGE":
            lo, hi = sub_av
            chars |= {chr(c) for c in range(lo, min(hi, 127) + 1)}
            non_ascii |= hi >= 128
        elif name == "CATEGORY":
            if sub_av.name not in _CATEGORIES:
                raise Unknown(sub_av.name)
            chars |= {c for c in ASCII if re.match(_CATEGORIES[sub_av.name], c)}
            non_ascii = True
        else:
            raise Unknown(name)
    if negate:
        return set(ASCII) - chars, True
    return chars, non_ascii


def _first(items):
    # (ASCII set, non-ASCII?, nullable) of what a sequence of parsed items can start with.
    chars, non_ascii = set(), False
    for op, av in items:
        name = op.name
        if name in ("ASSERT", "ASSERT_NOT", "AT"):
            continue  # zero width (ignoring what a lookaround demands keeps the set a superset)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            c, n = class_chars(name, av)
            return chars | c, non_ascii or n, False
        if name == "SUBPATTERN":
            parts, nullable = [av[-1]], False
            if av[1] & re.IGNORECASE:
                raise Unknown("IGNORECASE")
        elif name == "BRANCH":
            parts, nullable = av[1], False
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            parts, nullable = [av[2]], av[0] == 0
        elif name == "ATOMIC_GROUP":
            parts, nullable = [av], False
        else:
            raise Unknown(name)
        for part in parts:
            c, n, part_nullable = _first(part)
            chars, non_ascii, nullable = chars | c, non_ascii or n, nullable or part_nullable
        if not nullable:
            return chars, non_ascii, False
    return chars, non_ascii, True


def first_chars(regexp):
    # What a match of regexp can start with: (ASCII characters, whether a non-ASCII one may); ANYTHING, whose
    # characters are the str ASCII, when any character may.
    try:
        parsed = sre_parse.parse(regexp)
        if parsed.state.flags & re.IGNORECASE:
            return ANYTHING
        chars, non_ascii, nullable = _first(list(parsed))
    except Unknown:
        return ANYTHING
    return ANYTHING if nullable else (frozenset(chars), non_ascii)
