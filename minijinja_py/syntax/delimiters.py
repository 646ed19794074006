"""Jinja2's syntax options (the block, variable and comment delimiters, the line statement and line comment
prefixes) → the lexer modes that read a template written with them: one lexer.Lexicon per mode; and the
characters a regular expression's match can start with (first_chars), by which a lexer picks the terminals to try."""

# The grammar's terminals are spelt with the default delimiters, and parse.py lexes with them as they are while an
# environment keeps those. Other delimiters keep the grammar and its tables (the same tokens, the same parser):
# only the patterns of the terminals that spell a delimiter change, written here from Jinja2's lexing rules. What
# closes a tag depends on how it was opened, so there are five lexer modes (modal_postlexed in parse.py follows
# the tags and brackets and sets the mode before each token is lexed):
#
#   BODY      between tags: only the openers, text and comments are lexed (no whitespace is skipped)
#   BLOCK     inside a block tag: the block end closes
#   VARIABLE  inside a variable tag: the variable end closes (lexed as RBRACES, which the postlexer makes VAR_CLOSE)
#   LINE      inside a line statement: the end of the line closes, and whitespace stops before a newline
#   BRACKETS  inside any tag while a bracket is open: nothing closes (Jinja2 looks for an end only while brackets
#             are balanced, which also lets a line statement go on over several lines)
#
# Jinja2's rules, as followed here:
# - where several openers could start at one place, Jinja2 tries them longest delimiter first (then by name:
#   variable, line statement, line comment, comment, block), {% raw %} before all: an opener is written as
#   `(?!longer)opener` for each longer delimiter it is a prefix of (`<%` does not start a block where `<%=`
#   starts a variable);
# - a line statement starts a line (after spaces, tabs or vertical tabs) and its end takes the whitespace up to and
#   including the line's last newline (all of it at the end of the template); a line comment starts a line or
#   follows a non-space character, takes the spaces before it, and ends before the newline;
# - `-` after an opener strips all whitespace before it (a line statement's or line comment's too), `+` keeps it;
#   lstrip_blocks strips the indentation before a block, comment or raw opener (never a variable's); `-` before a
#   closer strips the whitespace after it, and trim_blocks one newline after a block or comment end (not after
#   {% raw %}).
# Not followed: openers that start at different places of one line, where one takes the indentation and the other
# starts after it (a line statement prefix that also starts a block delimiter, say): Jinja2 takes the earlier.
# Start delimiters and prefixes must not start with whitespace (check).

import re
from operator import itemgetter

try:  # the regular expression parser of the running Python (its own module before 3.11); `re` has loaded it
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse

from . import lexer

__all__ = ["Delimiters", "DEFAULT", "OPTIONS", "BODY", "BLOCK", "VARIABLE", "LINE", "BRACKETS", "check",
           "line_statement_at", "lexicons", "ASCII", "ANYTHING", "Unknown", "class_chars", "first_chars",
           "TAG_TERMINALS"]


class Delimiters(tuple):
    # The eight syntax options, in Jinja2's order (a tuple: hashable, compared by value; a named tuple would cost
    # a cold start ~0.15 ms).

    __slots__ = ()

    def __new__(cls, block_start: str, block_end: str, variable_start: str, variable_end: str, comment_start: str,
                comment_end: str, line_statement_prefix: "str | None" = None,
                line_comment_prefix: "str | None" = None) -> "Delimiters":
        return tuple.__new__(cls, (block_start, block_end, variable_start, variable_end, comment_start,
                                   comment_end, line_statement_prefix, line_comment_prefix))

    block_start, block_end, variable_start, variable_end, comment_start, comment_end, line_statement_prefix, \
        line_comment_prefix = (property(itemgetter(i)) for i in range(8))

    def __repr__(self):
        return f"Delimiters{tuple.__repr__(self)}"

    def __reduce__(self):
        return (Delimiters, tuple(self))


DEFAULT = Delimiters("{%", "%}", "{{", "}}", "{#", "#}", None, None)
# Jinja2's names of the options, in its order (Environment's first eight positional parameters)
OPTIONS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
           "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix")
BODY, BLOCK, VARIABLE, LINE, BRACKETS = range(5)
# The terminals of the block tags → the tag's name (a keyword tag's terminal includes its opener): the tags the
# postlexer (parse.py) follows and the messages (messages.py, bodyerrors.py) name.
TAG_TERMINALS = {
    "IF": "if", "ELIF": "elif", "ELSE": "else", "ENDIF": "endif", "FOR": "for", "ENDFOR": "endfor",
    "SET": "set", "ENDSET": "endset", "MACRO": "macro", "ENDMACRO": "endmacro", "CALL": "call",
    "ENDCALL": "endcall", "FILTER": "filter", "ENDFILTER": "endfilter", "WITH": "with", "ENDWITH": "endwith",
    "PRINT": "print", "DO": "do", "BREAK": "break", "CONTINUE": "continue", "GENERATION": "generation",
    "ENDGENERATION": "endgeneration", "RAW_OPEN": "raw", "RAW_CLOSE": "endraw", "BLOCK": "block",
    "ENDBLOCK": "endblock", "AUTOESCAPE": "autoescape", "ENDAUTOESCAPE": "endautoescape", "INCLUDE": "include",
    "IMPORT": "import", "FROM": "from", "EXTENDS": "extends",
}

_STARTS = ("block_start_string", "variable_start_string", "comment_start_string", "line_statement_prefix",
           "line_comment_prefix")
_TAG_FAMILY_MEMBER = "IF"              # the family of the block tags (a prefix and their keywords)
# in that family, but only a block delimiter opens them
_RAW_TERMINALS = ("RAW_OPEN", "RAW_OPEN_AT_END", "RAW_CLOSE")


def check(delimiters: Delimiters) -> None:
    # Raise TypeError or ValueError for delimiters Jinja2 refuses or this lexer cannot read.
    for name, value in zip(OPTIONS, delimiters):
        if value is None and name.startswith("line_"):
            continue
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string" + (" or None" if name.startswith("line_") else ""))
        if not value:
            raise ValueError(f"{name} must not be empty")
        if name in _STARTS and value[0].isspace():
            raise ValueError(f"{name}={value!r}: a start delimiter or prefix must not start with whitespace")
    if delimiters.block_start == delimiters.variable_start or \
            delimiters.variable_start == delimiters.comment_start:
        raise ValueError("block, variable and comment start strings must be different")


def line_statement_at(d, source, pos):
    # Does a line statement start at pos: its prefix there, at the start of a line (after spaces, tabs or vertical
    # tabs), and not a longer block delimiter (which Jinja2 tries first)?
    prefix = d.line_statement_prefix
    if prefix is None or not source.startswith(prefix, pos) or \
            source.startswith(d.block_start, pos) and len(d.block_start) > len(prefix):
        return False
    return not source[source.rfind("\n", 0, pos) + 1:pos].strip(" \t\v")


# ------------------------------------------------------------------------------------------------- openers
def _openers(d):
    # Jinja2's openers in the order it tries them at one place: [(name, delimiter, regexp of the opener where
    # it starts)].
    e = re.escape
    found = [("comment_begin", d.comment_start, e(d.comment_start)),
             ("block_begin", d.block_start, e(d.block_start)),
             ("variable_begin", d.variable_start, e(d.variable_start))]
    if d.line_statement_prefix is not None:
        found.append(("linestatement_begin", d.line_statement_prefix,
                      r"(?m:^)[ \t\v]*" + e(d.line_statement_prefix)))
    if d.line_comment_prefix is not None:
        found.append(("linecomment_begin", d.line_comment_prefix,
                      r"(?:(?m:^)|(?<=\S))[^\S\n]*" + e(d.line_comment_prefix)))
    return sorted(found, key=lambda opener: (len(opener[1]), opener[0]), reverse=True)


def _winning(openers):
    # {name: regexp of that opener where it starts and no opener Jinja2 tries before it does}.
    found = {}
    for i, (name, delimiter, regexp) in enumerate(openers):
        first = "".join(f"(?!{other})" for _, longer, other in openers[:i] if longer.startswith(delimiter))
        found[name] = first + regexp
    return found


def _class(chars):
    # A regexp character class body for these characters.
    return "".join(map(re.escape, sorted(chars)))


# ----------------------------------------------------------------------------------------------- terminals
def _tag_prefix(d, w, lstrip_blocks):
    # What opens a block tag, up to its keyword (the block tags' family prefix).
    block = w["block_begin"]
    alternatives = [rf"\s*{block}-"] + ([rf"(?m:^)[^\S\n]*{block}(?![+-])"] if lstrip_blocks else []) + \
        [rf"{block}\+?"]
    prefix = "(?:" + "|".join(alternatives) + r")\s*"
    if d.line_statement_prefix is None:
        return prefix
    line = w["linestatement_begin"]
    # inside a line statement, whitespace stops before a newline (the newline would end it)
    return rf"(?:{prefix}|(?:\s*{line}-|{line}\+?)[^\S\n]*)"


def _raw_patterns(d, trim_blocks, lstrip_blocks):
    # {% raw %}, its body and {% endraw %}: only a block delimiter opens them, and Jinja2 tries raw first.
    e = re.escape
    block, end = e(d.block_start), e(d.block_end)
    opener = "(?:" + "|".join([rf"\s*{block}-"] + ([rf"(?m:^)[^\S\n]*{block}(?![+-])"] if lstrip_blocks else [])
                              + [rf"{block}\+?"]) + r")\s*"
    raw_open = rf"{opener}raw\s*(?:-{end}\s*|{end})"
    tail = rf"\s*endraw\s*[-+]?{end}"            # what follows the opener of an {% endraw %}
    pieces = [rf"[^{_class(d.block_start[0])}\s]+", rf"(?!{block}[-+]?{tail}){e(d.block_start[0])}"]
    strip = rf"(?!{block}-{tail})"
    if lstrip_blocks:
        lead = rf"{block}(?![+-]){tail}"
        guard = rf"(?!(?<=\n)[^\S\n]+{lead})"
        pieces += [rf"{guard}\s*\n(?=[^\S\n]*{lead})", rf"{guard}\s+(?:(?=\S){strip}|\Z)"]
    else:
        pieces.append(rf"\s+(?:(?=\S){strip}|\Z)")
    return {
        "RAW_OPEN": raw_open,
        "RAW_OPEN_AT_END": raw_open + r"\Z",
        "RAW_CLOSE": rf"{opener}endraw\s*(?:\+{end}|-{end}\s*|{end}{_newline(trim_blocks)})",
        "RAW_BODY": "(?:" + "|".join(pieces) + "){1,256}",
    }


def _newline(trim_blocks):
    return r"\n?" if trim_blocks else ""


def _comment(d, w, trim_blocks, lstrip_blocks):
    # A comment, and a line comment.
    e = re.escape
    start, end = w["comment_begin"], e(d.comment_end)
    # A `-` or `+` after the opener is its sign, whatever follows (Jinja2 finds the opener first, the end after
    # it): `<!---->` with `-->` as the end is `<!--` `-` and no end yet
    opener = [rf"\s*{start}-"] + ([rf"(?m:^)[^\S\n]*{start}(?![+-])"] if lstrip_blocks else []) + \
        [rf"{start}(?:\+|(?!-))"]
    # as the grammar's COMMENT: an opener that ends the template is no error (Jinja2's quirk)
    comment = rf"(?:{'|'.join(opener)})(?:(?s:.*?)(?:\+{end}|-{end}\s*|{end}{_newline(trim_blocks)})|\Z)"
    if d.line_comment_prefix is None:
        return comment
    line = w["linecomment_begin"]
    return rf"{comment}|(?:\s*{line}-|{line}\+?)[^\n]*"


def _data(d, w, lstrip_blocks):
    # Template text up to the next opener, piece by piece as the grammar's DATA (see its comment): runs of
    # characters that start no delimiter; a character that starts one but no opener there; whitespace, unless an
    # opener takes it (all of it before a `-`, the indentation of a line for lstrip_blocks, a line statement or a
    # line comment).
    openers = [re.escape(d.block_start), re.escape(d.comment_start), re.escape(d.variable_start)]
    starts = {d.block_start[0], d.comment_start[0], d.variable_start[0]}
    indented, guards, strips = [], [], [f"(?:{w['block_begin']}|{w['comment_begin']}|{w['variable_begin']})-"]
    if lstrip_blocks:
        lead = f"(?:{w['block_begin']}|{w['comment_begin']})(?![+-])"
        indented.append(rf"[^\S\n]*{lead}")
        guards.append(rf"(?<=\n)[^\S\n]+{lead}")
    for name, prefix, at in (("linestatement_begin", d.line_statement_prefix, "(?m:^)"),
                             ("linecomment_begin", d.line_comment_prefix, r"(?:(?m:^)|(?<=\S))")):
        if prefix is not None:
            openers.append(at + re.escape(prefix))
            starts.add(prefix[0])
            indented.append(w[name] + "(?!-)")
            guards.append(w[name])
            strips.append(w[name] + "-")
    chars = _class(starts)
    guard = f"(?!{'|'.join(guards)})" if guards else ""
    pieces = [rf"[^{chars}\s]+", f"(?!{'|'.join(openers)})[{chars}]"]
    if indented:
        pieces.append(rf"{guard}\s*\n(?={'|'.join(indented)})")
    pieces.append(rf"{guard}(?!\s*(?:{'|'.join(strips)}))\s+")
    return "(?:" + "|".join(pieces) + "){1,256}"


def _closers(d, trim_blocks):
    # {mode: {terminal: regexp}} of the terminals that close a tag, and whitespace.
    e = re.escape
    end, variable_end = e(d.block_end), e(d.variable_end)
    close = rf"-{end}\s*|\+{end}|{end}{_newline(trim_blocks)}"
    never = {"_BLOCK_CLOSE": "(?!)" + end, "_COLON_CLOSE": "(?!):", "VAR_CLOSE_STRIP": "(?!)-" + variable_end,
             "RBRACES": r"\}", "WS": r"\s+"}
    return {
        # whitespace between tags is text or belongs to an opener (skipped, a line statement's indentation would
        # leave its prefix in the middle of a line)
        BODY: dict(never, WS=r"(?!)\s"),
        BLOCK: dict(never, _BLOCK_CLOSE=close, _COLON_CLOSE=rf":\s*(?:{close})"),
        # a variable end other than `}` is lexed as RBRACES, which the postlexer turns into VAR_CLOSE
        VARIABLE: dict(never, VAR_CLOSE_STRIP=rf"-{variable_end}\s*",
                       RBRACES=r"\}" if d.variable_end == "}" else rf"{variable_end}|\}}"),
        LINE: dict(never, _BLOCK_CLOSE=r"\s+\Z|\s*\n", _COLON_CLOSE=r":(?:\s*\Z|\s*\n)", WS=r"[^\S\n]+"),
        BRACKETS: never,
    }


def lexicons(tables, delimiters, trim_blocks, lstrip_blocks):
    # The lexer.Lexicon of each mode (BODY, BLOCK, VARIABLE, LINE, BRACKETS) for templates written with
    # delimiters.
    d = delimiters
    w = _winning(_openers(d))
    base = lexer.lexicon(tables)
    prefix, names, leads = next(family for family in base.families if _TAG_FAMILY_MEMBER in family[1])
    tag_prefix = _tag_prefix(d, w, lstrip_blocks)
    tags = [(name, lead) for name, lead in zip(names, leads) if name not in _RAW_TERMINALS]
    shared = {name: tag_prefix + base.patterns[name][len(prefix):] for name, _ in tags}
    shared.update(_raw_patterns(d, trim_blocks, lstrip_blocks))
    shared["COMMENT"] = _comment(d, w, trim_blocks, lstrip_blocks)
    shared["VAR_OPEN"] = rf"\s*{w['variable_begin']}-|{w['variable_begin']}\+?"
    shared["DATA"] = _data(d, w, lstrip_blocks)
    # the tags as one regexp (a family) while their prefix has one end where a keyword can start: no word
    # character in the delimiters that open them (see tools/grammar_tables.py)
    families = [family for family in base.families if family[0] != prefix]
    if not re.search(r"\w", d.block_start + (d.line_statement_prefix or "")):
        families.append((tag_prefix, [name for name, _ in tags], [lead for _, lead in tags]))
    firsts, base_first = {}, tables.first_chars()
    found = []
    for mode, closers in sorted(_closers(d, trim_blocks).items()):
        patterns = dict(base.patterns, **shared, **closers)
        first = dict(base_first)
        for name in (*shared, *closers):
            if patterns[name] not in firsts:
                firsts[patterns[name]] = first_chars(patterns[name])
            first[name] = firsts[patterns[name]]
        found.append(lexer.Lexicon(patterns, first, families))
    return found


# ------------------------------------------------------------------------------------------- first characters
# A regular expression → the characters a match of it can start with (a superset: (ASCII characters, whether a
# non-ASCII one may)). The lexer tries only the terminals that can start with the character at hand.
# tools/grammar_tables.py records each grammar terminal's set in the tables; lexicons() above computes them for the
# terminals it rewrites for other delimiters. Read off Python's own parse of the regexp (re._parser); what this
# does not follow counts as "any character".

# the 128 ASCII characters, as a str (a set of them held ~8 KiB from the import on, for analyses that run when
# a template has other delimiters, if ever)
ASCII = "".join(map(chr, range(128)))
ANYTHING = (ASCII, True)
_CATEGORIES = {"CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w",
               "CATEGORY_NOT_WORD": r"\W", "CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D"}


# A construct this analysis does not follow; the caller falls back to 'any character'. Python's own class, which
# nothing the analysis calls raises (a class of ours would cost a cold start ~0.1 M instructions).
Unknown = NotImplementedError


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
