"""Syntax: template source → AST (nodes.Template), or TemplateSyntaxError.

Steps: normalise newlines → the LALR(1) driver (lalr.py) with its contextual lexer, running the tables built
ahead of time from grammar/jinja.lark (tokens arrive already whitespace-trimmed, with true line/column) → the
brace postlexer → builder.Builder callbacks → AST. Every parse error becomes a TemplateSyntaxError that names
what was found, what would fit and the innermost open block.

The Jinja specifics live here: the trim_blocks/lstrip_blocks edits of the terminal patterns, the postlexer and
the error messages. The tables (grammar/jinja.tables.json, written by `python tests/grammar_tables.py --write`;
a test checks they are current) load lazily, once per process; each option set's lexers compile on first use.
"""

import json
import os
import re
from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms

from ..core.errors import LimitExceeded, TemplateSyntaxError
from ..core.state import gc_paused
from .builder import Builder, tag_span, token_span
from . import lalr
from .lalr import Token
from . import nodes as n

_new_tuple = tuple.__new__   # a Token from its fields, without namedtuple's argument handling

__all__ = ["parse", "normalize_newlines"]

_NEWLINES = r"\r\n|\r|\n"   # here and below, compiled on first use (re's cache), not at import


def normalize_newlines(source, keep_trailing_newline=False):
    """\\r\\n and \\r become \\n; one trailing newline is dropped unless keep_trailing_newline (as Jinja2)."""
    if "\r" in source:
        source = re.sub(_NEWLINES, "\n", source)
    if not keep_trailing_newline and source.endswith("\n"):
        source = source[:-1]
    return source


# ------------------------------------------------------------------------------------------ option variants
# The grammar is written for trim_blocks + lstrip_blocks (the transformers profile). The other option sets edit
# the compiled terminal patterns (see the header of grammar/jinja.lark).
_LSTRIP_FRAGMENTS = (r"\{%(?![+-])", r"\{#(?![+-])", r"\{[%#](?![+-])")
# lstrip_blocks off: each fragment becomes one that never matches, `(?!)` (an empty lookahead, which always fails)
# in front of the same characters, so that Lark's width analysis still sees a non-empty terminal.
_NEVER = {fragment: "(?!)" + fragment[:fragment.index("(?!")] for fragment in _LSTRIP_FRAGMENTS}
# Lark turns the \n escape of a /regex/ literal into a newline character, so that is what the patterns hold.
_TRIM_FRAGMENTS = (("%\\}\n?", "%\\}"), ("#\\}\n?", "#\\}"))


def edit_pattern(pattern, trim_blocks, lstrip_blocks):
    """A terminal pattern of the grammar as the option set needs it."""
    if not lstrip_blocks:
        for fragment in _LSTRIP_FRAGMENTS:
            pattern = pattern.replace(fragment, _NEVER[fragment])
    if not trim_blocks:
        for fragment, replacement in _TRIM_FRAGMENTS:
            pattern = pattern.replace(fragment, replacement)
    return pattern


# ------------------------------------------------------------------------------------------------ postlexer
# Keywords that Jinja2's parser takes as the bare argument of a test when they follow the test's name: it reads
# `x is defined if y` as `x is defined(if) y` (a syntax error) and `x is odd recursive` as `x is odd(recursive)`.
_TEST_ARG_KEYWORDS = frozenset({"_KW_IF", "IN", "NOT", "RECURSIVE"})
_OPENERS = frozenset({"LBRACE", "LPAR", "LSQB"})
_CLOSERS = frozenset({"_BLOCK_CLOSE", "VAR_CLOSE_STRIP"})  # the end of a tag: nothing stays open
_BRACKET_KINDS = _OPENERS | _CLOSERS | {"RPAR", "RSQB", "RBRACES"}


def _follow_test(tok, kind, test):
    """One step through `is [not] name(.name)*`: (the token, its kind, where we are next). After the test's
    name, a keyword of _TEST_ARG_KEYWORDS is a name (the test's argument) and another `is` is an error."""
    if test == "name" and kind in _TEST_ARG_KEYWORDS:
        return Token("NAME", tok.value, tok.start_pos, tok.line, tok.column, tok.end_line, tok.end_column,
                     tok.end_pos), "NAME", None
    if kind == "IS":
        if test == "name":
            raise TemplateSyntaxError("You cannot chain multiple tests with is", tok.line, tok.column,
                                      end=(tok.end_line, tok.end_column))
        return tok, kind, "is"
    if test == "is" and kind == "NOT":
        return tok, kind, "not"
    if test in ("is", "not", "dot") and kind in ("NAME", "IN"):
        return tok, kind, "name"
    if test == "name" and kind == "_DOT":
        return tok, kind, "dot"
    return tok, kind, None


class Postlexer:
    """Splits runs of `}` by whether a `{` is open: `{{ {'a': {'b': 1}} }}` closes two dicts before the tag ends,
    `{{ x }}}` ends the tag and prints "}". Jinja2's lexer does the same with its bracket balancing.
    Also counts bracket nesting so a pathological template fails cleanly instead of exhausting the stack, and
    follows `is [not] name` to reproduce how Jinja2 reads the token after a test name (_TEST_ARG_KEYWORDS; a
    second `is` there is an error), and refuses names that are not identifiers."""

    always_accept = ("RBRACES",)  # offered by the lexer in every state (the tables are built with it)

    def __init__(self, max_nesting=None):
        self.max_nesting = max_nesting

    def process(self, stream):
        depth = 0          # open `{` inside the current tag
        brackets = 0       # all open brackets inside the current tag
        test = None        # where we are in `is [not] name(.name)*`: "is", "not", "dot", "name" or None
        limit = self.max_nesting
        for tok in stream:
            kind = tok.type
            if kind == "NAME" and not tok.value.isascii() and not tok.value.isidentifier():
                raise TemplateSyntaxError("Invalid character in identifier", tok.line, tok.column,
                                          end=(tok.end_line, tok.end_column))
            if test is not None or kind == "IS":
                tok, kind, test = _follow_test(tok, kind, test)
            if kind not in _BRACKET_KINDS:
                yield tok
            elif kind == "RBRACES" and not depth and tok.value == "}}":
                yield _new_tuple(Token, ("VAR_CLOSE",) + tok[1:])   # the commonest: `}}` closing a {{ }}
                brackets = 0
            elif kind == "RBRACES":
                yield from self._split(tok, depth)
                closed = min(depth, len(tok.value))
                depth -= closed
                brackets = max(0, brackets - closed)
                if closed < len(tok.value):
                    depth = brackets = 0
            elif kind in _CLOSERS:
                depth = brackets = 0
                yield tok
            elif kind in _OPENERS:
                brackets += 1
                if kind == "LBRACE":
                    depth += 1
                if limit is not None and brackets > limit:
                    raise LimitExceeded(f"brackets nested deeper than the limit max_nesting={limit}",
                                        tok.line, tok.column, limit="max_nesting", value=limit)
                yield tok
            else:  # ) or ]
                brackets = max(0, brackets - 1)
                yield tok

    @staticmethod
    def _split(tok, depth):
        value = tok.value
        pos, line, col = tok.start_pos, tok.line, tok.column
        for i in range(len(value)):
            if i < depth:
                yield Token("RBRACE", "}", pos + i, line, col + i, line, col + i + 1, pos + i + 1)
                continue
            rest = len(value) - i
            if rest >= 2:
                yield Token("VAR_CLOSE", "}}", pos + i, line, col + i, line, col + i + 2, pos + i + 2)
                if rest > 2:
                    # the braces after the tag are template text (the lexer resumes after this token)
                    yield Token("DATA", "}" * (rest - 2), pos + i + 2, line, col + i + 2, line,
                                col + len(value), pos + len(value))
            else:
                yield Token("RBRACE", "}", pos + i, line, col + i, line, col + i + 1, pos + i + 1)
            return


# -------------------------------------------------------------------------------------------- parser tables
_TABLES_NAME = "jinja.tables.json"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# installed: minijinja_py/grammar/ (pyproject maps grammar/ into the package); a source checkout: ../grammar/
_TABLES_PATHS = (os.path.join(_PACKAGE, "grammar", _TABLES_NAME),
                 os.path.join(os.path.dirname(_PACKAGE), "grammar", _TABLES_NAME))
_lock = allocate_lock()
_tables = None
_parsers = {}


def load_tables():
    """The parser tables (grammar/jinja.tables.json), read once per process."""
    global _tables
    if _tables is None:
        for path in _TABLES_PATHS:
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    _tables = lalr.Tables(json.load(f))
                break
        else:
            raise FileNotFoundError(f"the parser tables are missing: {' or '.join(_TABLES_PATHS)}")
    return _tables


def parser(trim_blocks, lstrip_blocks):
    """The parser of an option set, made on first use and shared."""
    key = (bool(trim_blocks), bool(lstrip_blocks))
    found = _parsers.get(key)
    if found is None:
        with _lock:
            found = _parsers.get(key)
            if found is None:
                found = _parsers[key] = lalr.Parser(load_tables(), Builder(),
                                                    lambda pattern: edit_pattern(pattern, *key))
    return found


# ---------------------------------------------------------------------------------------------------- parse
def parse(source, trim_blocks=False, lstrip_blocks=False, max_nesting=None):
    """Parse normalised template source into a nodes.Template. Raises TemplateSyntaxError (or LimitExceeded)."""
    try:
        with gc_paused():
            return parser(trim_blocks, lstrip_blocks).parse(source, Postlexer(max_nesting).process)
    except lalr.UnexpectedInput as exc:
        raise describe(exc, source) from None


# ------------------------------------------------------------------------------------------ error messages
_TAG_TERMINALS = {
    "IF": "if", "ELIF": "elif", "ELSE": "else", "ENDIF": "endif", "FOR": "for", "ENDFOR": "endfor",
    "SET": "set", "ENDSET": "endset", "MACRO": "macro", "ENDMACRO": "endmacro", "CALL": "call",
    "ENDCALL": "endcall", "FILTER": "filter", "ENDFILTER": "endfilter", "WITH": "with", "ENDWITH": "endwith",
    "PRINT": "print", "DO": "do", "BREAK": "break", "CONTINUE": "continue", "GENERATION": "generation",
    "ENDGENERATION": "endgeneration", "RAW_OPEN": "raw", "RAW_CLOSE": "endraw", "BLOCK": "block",
    "ENDBLOCK": "endblock", "AUTOESCAPE": "autoescape", "ENDAUTOESCAPE": "endautoescape", "INCLUDE": "include",
    "IMPORT": "import", "FROM": "from", "EXTENDS": "extends",
}
# Block tags and the tags that may close or continue them.
_BLOCK_ENDS = {
    "if": ("elif", "else", "endif"), "for": ("endfor", "else"), "set": ("endset",), "macro": ("endmacro",),
    "call": ("endcall",), "filter": ("endfilter",), "with": ("endwith",), "generation": ("endgeneration",),
    "raw": ("endraw",), "block": ("endblock",), "autoescape": ("endautoescape",),
}
_DESCRIPTIONS = {
    "NAME": "name", "STRING": "string", "INT": "integer", "FLOAT": "float", "VAR_CLOSE": "end of print statement",
    "VAR_CLOSE_STRIP": "end of print statement", "_BLOCK_CLOSE": "end of statement block",
    "$END": "end of template", "DATA": "template data", "VAR_OPEN": "begin of print statement",
    "COMMENT": "comment", "_COLON_CLOSE": ":",
}


def _describe_token(tok):
    kind = tok.type
    if kind in _TAG_TERMINALS:
        return f"tag '{_TAG_TERMINALS[kind]}'"
    if kind == "NAME":
        return tok.value  # as Jinja2: "got 'y'" names the name
    if kind in _DESCRIPTIONS:
        return _DESCRIPTIONS[kind]
    return tok.value.strip() or kind


_TEXT_TOKENS = r"(?P<name>[^\W\d]\w*)|(?P<number>\d+)|(?P<string>[\"'])|(?P<other>\S+?)"


def _describe_text_at(source, pos):
    """(description, length) of the token at pos the way the expression lexer would see it."""
    m = re.compile(_TEXT_TOKENS).match(source, pos)
    if m is None:
        return "end of template", 0
    return {"name": "name", "number": "integer", "string": "string"}.get(m.lastgroup, m.group()), m.end() - pos


def _current_tag_end(exc):
    """'end of print statement' inside {{ }}, 'end of statement block' inside {% %}: the innermost open tag
    token on the parser's value stack tells which."""
    for value in reversed(exc.values):
        if isinstance(value, Token) and (value.type == "VAR_OPEN" or value.type in _TAG_TERMINALS):
            return "end of print statement" if value.type == "VAR_OPEN" else "end of statement block"
    return "end of statement block"


def _open_blocks(exc):
    """The block tags still open where the parser stopped, outermost first, from the parser's value stack:
    (name, opening tag token, the tags that may continue or close it)."""
    stack = []
    for value in exc.values:
        if isinstance(value, Token) and value.type in _TAG_TERMINALS:
            name = _TAG_TERMINALS[value.type]
            if name in _BLOCK_ENDS:
                stack.append((name, value, _BLOCK_ENDS[name]))
            elif name == "else" and stack:
                # after {% else %} only the end tag may come
                block, tok, ends = stack[-1]
                stack[-1] = (block, tok, tuple(e for e in ends if e.startswith("end")))
    return stack


def _block_message(prefix, stack, found=None):
    """Jinja2's wording: what was found, the tags the innermost block was waiting for, and that block.
    (Not the parser's expected terminals: LALR merges the states of all block bodies, so those name every end
    tag of the grammar.)"""
    parts = [prefix]
    if stack:
        name, tok, looking = stack[-1]
        wanted = " or ".join(repr(x) for x in looking)
        outer = {e for _, _, ends in stack[:-1] for e in ends}
        if found is not None and found in outer:
            parts.append("You probably made a nesting mistake. Jinja is expecting this tag, but currently "
                         f"looking for {wanted}.")
        else:
            parts.append(f"Jinja was looking for the following tags: {wanted}.")
        parts.append(f"The innermost block that needs to be closed is {name!r} (opened on line {tag_span(tok).line}).")
    return " ".join(parts)


_TAG_NAME = r"\{%[-+]?\s*(\w*)"


def _unreadable(exc, source, pos, line, col, stack):
    """The error for text at pos (whitespace skipped) that no terminal reads: a comment that is never closed, an
    unknown tag, a string that is never closed; None for anything else."""
    rest = source[pos:]
    stripped = rest.lstrip()
    skipped = rest[:len(rest) - len(stripped)]
    if skipped:
        newlines = skipped.count("\n")
        line += newlines
        col = (len(skipped) - skipped.rindex("\n")) if newlines else col + len(skipped)
    if stripped.startswith("{#"):
        return TemplateSyntaxError("Missing end of comment tag", line, col, end=(line, col + 2))
    if stripped.startswith("{%"):
        m = re.match(_TAG_NAME, stripped)
        name = m.group(1)
        if name == "raw":
            return TemplateSyntaxError("Missing end of raw directive", line, col, end=(line, col + 2))
        if not name:
            return TemplateSyntaxError("tag name expected", line, col, end=(line, col + 2))
        end = None if "\n" in m.group(0) else (line, col + m.end(1))
        return TemplateSyntaxError(_block_message(f"Encountered unknown tag {name!r}.", stack, found=name),
                                   line, col, end=end)
    quote = stripped[:1]
    if quote and quote in "\"'":
        return TemplateSyntaxError(f"unterminated string literal starting with {quote}", line, col,
                                   end=(line, col + 1))
    return None


def describe(exc, source):
    """The TemplateSyntaxError for a parse that stopped (a lalr.UnexpectedToken or UnexpectedCharacters)."""
    stack = _open_blocks(exc)
    if isinstance(exc, lalr.UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            pos = len(source)
            line = source.count("\n") + 1
            col = pos - (source.rfind("\n") + 1) + 1
            if stack and stack[-1][0] == "raw":
                span = tag_span(stack[-1][1])
                return TemplateSyntaxError("Missing end of raw directive", span.line, span.col,
                                           end=(span.end_line, span.end_col))
            if stack:
                return TemplateSyntaxError(_block_message("Unexpected end of template.", stack), line, col)
            return TemplateSyntaxError(f"unexpected end of template, expected {_current_tag_end(exc)!r}", line, col)
        if tok.type in _TAG_TERMINALS:
            span = tag_span(tok)
            name = _TAG_TERMINALS[tok.type]
            if tok.type == "RAW_OPEN" or stack or name.startswith(("end", "el")):
                msg = _block_message(f"Encountered unknown tag {name!r}.", stack, found=name)
            else:
                msg = f"unexpected tag {name!r} inside an expression"
            return TemplateSyntaxError(msg, span.line, span.col, end=(span.end_line, span.end_col))
        span = token_span(tok)
        if "DATA" in exc.expected or tok.type in ("DATA", "RAW_BODY"):
            # no terminal of this state read the text (an unknown tag, an unclosed comment or string) and the
            # lexer's fallback found some other token there
            err = _unreadable(exc, source, tok.start_pos, tok.line, tok.column, stack)
            if err is not None:
                return err
        if tok.type in ("DATA", "RAW_BODY"):
            # the contextual lexer fell back to the body terminals: describe what the expression lexer would see
            got, width = _describe_text_at(source, tok.start_pos)
            width = max(1, width)
            span = n.Span(span.line, span.col, span.start, span.start + width, span.line, span.col + width)
        else:
            got = _describe_token(tok)
        expected = set(exc.expected)
        if expected & {"VAR_CLOSE", "VAR_CLOSE_STRIP", "_BLOCK_CLOSE"}:
            msg = f"expected token {_current_tag_end(exc)!r}, got {got!r}"
        else:
            msg = f"unexpected {got!r}"
        before = source[tok.start_pos - 1] if tok.start_pos else ""
        if before and before in "\"'" and source[tok.start_pos:tok.start_pos + 1].isidentifier():
            # The usual cause: a bare quote inside a string literal ends it early ('{"name": ...}' written
            # inside "..."), so the rest of the intended string is read as expressions.
            other = "'" if before == '"' else '"'
            msg += (f". The {before} just before it ends the string literal there: if it belongs inside the "
                    f"string, escape it as \\{before} (or quote the string with {other})")
        return TemplateSyntaxError(msg, span.line, span.col, end=(span.end_line, span.end_col))
    # no terminal of the grammar matches the text there
    pos = exc.pos_in_stream
    err = _unreadable(exc, source, pos, exc.line, exc.column, stack)
    if err is not None:
        return err
    ch = source[pos:pos + 1]
    if not ch.strip():
        return TemplateSyntaxError("unexpected end of template", exc.line, exc.column)
    return TemplateSyntaxError(f"unexpected char {ch!r}", exc.line, exc.column, end=(exc.line, exc.column + 1))
