"""Syntax: template source → AST (nodes.Template), or TemplateSyntaxError."""

# Steps: normalise newlines → the LALR(1) driver (lalr.py) with its contextual lexer, running the tables built
# ahead of time from grammar/jinja.lark (tokens arrive already whitespace-trimmed, with true line/column) → the
# postlexer (below) → builder.Builder callbacks → AST. Every parse error becomes a TemplateSyntaxError worded and
# located as Jinja2's (messages.py).
#
# Here: the trim_blocks/lstrip_blocks edits of the grammar's terminal patterns, the parser of each option set (with
# other delimiters, the lexer modes of delimiters.py), the postlexers (the lexer's tokens → the tokens the parser
# reads). The tables
# (grammar/jinja.tables.marshal, written by `python tools/grammar_tables.py --write`; a test checks they are current)
# load lazily, once per process; each option set's lexers compile on first use.

import marshal
import os
import re
from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms

from ..core.errors import LimitExceeded, TemplateSyntaxError
from ..core.state import gc_paused
from .builder import Builder
from .delimiters import BLOCK, BODY, BRACKETS, DEFAULT, LINE, TAG_TERMINALS, VARIABLE, lexicons
from .lalr import Parser, Tables, UnexpectedInput
from .lexer import END_COLUMN, END_LINE, END_POS, START_COLUMN, START_LINE, START_POS, TYPE, VALUE
from .messages import describe

__all__ = ["parse", "normalize_newlines", "Postlexer", "modal_postlexed", "refused_tags", "EXTENSION_TAGS",
           "UNKNOWN_TAG"]


_NEWLINES = r"\r\n|\r|\n"   # here and below, compiled on first use (re's cache), not at import


def normalize_newlines(source, keep_trailing_newline=False):
    # \r\n and \r become \n; one trailing newline is dropped unless keep_trailing_newline (as Jinja2).
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
    # A terminal pattern of the grammar as the option set needs it.
    if not lstrip_blocks:
        for fragment in _LSTRIP_FRAGMENTS:
            pattern = pattern.replace(fragment, _NEVER[fragment])
    if not trim_blocks:
        for fragment, replacement in _TRIM_FRAGMENTS:
            pattern = pattern.replace(fragment, replacement)
    return pattern


# -------------------------------------------------------------------------------------------- parser tables
_TABLES_NAME = "jinja.tables.marshal"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# installed: minijinja_py/grammar/ (pyproject maps grammar/ into the package); a source checkout: ../grammar/
_TABLES_PATHS = (os.path.join(_PACKAGE, "grammar", _TABLES_NAME),
                 os.path.join(os.path.dirname(_PACKAGE), "grammar", _TABLES_NAME))
_lock = allocate_lock()
_tables = None
_parsers = {}
_MAX_DELIMITED_PARSERS = 32   # parsers kept for environments with other delimiters (the oldest goes first)


def load_tables():
    # The parser tables (grammar/jinja.tables.marshal: plain data in marshal's format, which loads in half
    # of JSON's time), read once per process.
    global _tables
    if _tables is None:
        for path in _TABLES_PATHS:
            if os.path.exists(path):
                with open(path, "rb") as f:
                    _tables = Tables(marshal.loads(f.read()))
                break
        else:
            raise FileNotFoundError(f"the parser tables are missing: {' or '.join(_TABLES_PATHS)}")
    return _tables


def parser(trim_blocks, lstrip_blocks, delimiters=None):
    # The parser of an option set, made on first use and shared. delimiters: None for Jinja2's defaults (the
    # grammar's own terminals), else a delimiters.Delimiters (the lexer modes delimiters.py writes for it).
    key = (bool(trim_blocks), bool(lstrip_blocks), delimiters)
    found = _parsers.get(key)
    if found is None:
        with _lock:
            found = _parsers.get(key)
            if found is None:
                if delimiters is None:   # (the grammar's terminals are the transformers profile's: no edit)
                    edit = None if key[:2] == (True, True) else lambda pattern: edit_pattern(pattern, *key[:2])
                    found = Parser(load_tables(), Builder(), edit)
                else:
                    modes = lexicons(load_tables(), delimiters, *key[:2])
                    found = Parser(load_tables(), Builder(), modes=modes)
                    others = [other for other in _parsers if other[2] is not None]
                    if len(others) >= _MAX_DELIMITED_PARSERS:
                        del _parsers[others[0]]
                _parsers[key] = found
    return found


# ------------------------------------------------------------------------------------------------ postlexers
# Postlexer serves the default delimiters: it splits runs of `}` by the brackets open (a dict literal's `}` or the
# end of a {{ }}), counts bracket nesting (max_nesting), and follows `is [not] name` as Jinja2's parser reads it.
# modal_postlexed serves other delimiters (delimiters.py): the same, and it sets the lexer's mode before each
# token, from the tag it is in and the brackets open there.

# Keywords that Jinja2's parser takes as the bare argument of a test when they follow the test's name: it reads
# `x is defined if y` as `x is defined(if) y` (a syntax error), `x is odd recursive` as `x is odd(recursive)` and
# `{% import x is defined as m %}` as `x is defined(as) m` (a syntax error: before any compile error).
_TEST_ARG_KEYWORDS = frozenset({"_KW_IF", "IN", "NOT", "RECURSIVE", "_AS", "_KW_IMPORT", "_IGNORE", "_KW_WITH",
                                "_WITHOUT"})
_OPENERS = frozenset({"LBRACE", "LPAR", "LSQB"})
_CLOSERS = frozenset({"_BLOCK_CLOSE", "VAR_CLOSE_STRIP"})  # the end of a tag: nothing stays open
_BRACKET_KINDS = _OPENERS | _CLOSERS | {"RPAR", "RSQB", "RBRACES"}
# the tokens Postlexer looks at when it is not following a test (the others pass as they are): in ASCII text a
# NAME needs no check
_WATCHED_ASCII = _BRACKET_KINDS | {"IS"}
_WATCHED = _WATCHED_ASCII | {"NAME"}
# The tags of extensions (the terminal of each, by the extension's name): where the environment lacks the
# extension, the tag is an unknown tag for Jinja2's parser, which says so where it reads it (before anything
# after it, and before any compile error): the postlexer turns the tag into a token no parser state accepts.
EXTENSION_TAGS = {"do": ("DO",), "loopcontrols": ("BREAK", "CONTINUE"), "generation": ("GENERATION",)}
UNKNOWN_TAG = "UNKNOWN_TAG"
_watched_sets = {}   # (ascii text, the refused tags) → the tokens Postlexer looks at
_refused = {None: frozenset()}   # extensions → refused_tags(extensions)


def refused_tags(extensions):
    # The tag terminals an environment with these extensions (a frozenset of names) does not know; None: every tag
    # is known.
    found = _refused.get(extensions)
    if found is None:
        found = _refused[extensions] = frozenset(kind for name, kinds in EXTENSION_TAGS.items()
                                                 if name not in extensions for kind in kinds)
    return found


def _unknown_tag(tok):
    return (UNKNOWN_TAG,) + tok[1:]


def _follow_test(tok, kind, test):
    # One step through `is [not] name(.name)*`: (the token, its kind, where we are next). After the test's
    # name, a keyword of _TEST_ARG_KEYWORDS is a name (the test's argument) and another `is` is an error.
    if test == "name" and kind in _TEST_ARG_KEYWORDS:
        return ("NAME", tok[VALUE], tok[START_POS], tok[START_LINE], tok[START_COLUMN], tok[END_LINE], tok[END_COLUMN],
                tok[END_POS]), "NAME", None
    if kind == "IS":
        if test == "name":
            raise TemplateSyntaxError("You cannot chain multiple tests with is", tok[START_LINE], tok[START_COLUMN],
                                      end=(tok[END_LINE], tok[END_COLUMN]))
        return tok, kind, "is"
    if test == "is" and kind == "NOT":
        return tok, kind, "not"
    if test in ("is", "not", "dot") and kind in ("NAME", "IN"):
        return tok, kind, "name"
    if test == "name" and kind == "_DOT":
        return tok, kind, "dot"
    return tok, kind, None


def _jinja_name(tok):
    # A name Python's identifiers refuse, as Jinja2's lexer reads it: its name pattern (\w, and the other
    # characters that may go on an identifier) takes the longest run, which must be an identifier; a character it
    # does not take starts no token of its. Yields the name it reads first, if any (Jinja2's parser may refuse
    # that name before its lexer reads on), then raises the error after it.
    value = tok[VALUE]
    end = 0
    while end < len(value) and (value[end].isalnum() or ("a" + value[end]).isidentifier()):
        end += 1
    if end and (end == len(value) or not value[:end].isidentifier()):
        raise TemplateSyntaxError("Invalid character in identifier", tok[START_LINE], tok[START_COLUMN],
                                  end=(tok[END_LINE], tok[START_COLUMN] + end))
    refused = TemplateSyntaxError(f"unexpected char {value[end]!r} at {tok[START_POS] + end}", tok[START_LINE],
                                  tok[START_COLUMN] + end, end=(tok[START_LINE], tok[START_COLUMN] + end + 1))
    if end:
        yield (tok[TYPE], value[:end], tok[START_POS], tok[START_LINE], tok[START_COLUMN], tok[START_LINE],
               tok[START_COLUMN] + end, tok[START_POS] + end)
    raise refused


def _too_deep(tok, limit):
    return LimitExceeded(f"brackets nested deeper than the limit max_nesting={limit}", tok[START_LINE],
                         tok[START_COLUMN], limit="max_nesting", value=limit)


class Postlexer:
    # Splits runs of `}` by whether a `{` is open: `{{ {'a': {'b': 1}} }}` closes two dicts before the tag ends,
    # `{{ x }}}` ends the tag and prints "}". Jinja2's lexer does the same with its bracket balancing.
    # Also counts bracket nesting so a pathological template fails cleanly instead of exhausting the stack, and
    # follows `is [not] name` to reproduce how Jinja2 reads the token after a test name (_TEST_ARG_KEYWORDS; a
    # second `is` there is an error), and refuses names that are not identifiers.

    always_accept = ("RBRACES",)  # offered by the lexer in every state (the tables are built with it)

    def __init__(self, max_nesting=None, ascii_text=False, refused=frozenset()):
        # ascii_text: the text is known to be ASCII (then every NAME is an identifier: none is checked). refused:
        # the tag terminals of extensions the environment lacks (refused_tags).
        self.max_nesting, self.refused = max_nesting, refused
        key = (ascii_text, refused)
        watched = _watched_sets.get(key)
        if watched is None:
            watched = _watched_sets[key] = (_WATCHED_ASCII if ascii_text else _WATCHED) | refused
        self.watched = watched

    def process(self, stream):
        depth = 0          # open `{` inside the current tag
        brackets = 0       # all open brackets inside the current tag
        test = None        # where we are in `is [not] name(.name)*`: "is", "not", "dot", "name" or None
        limit, watched, refused = self.max_nesting, self.watched, self.refused
        for tok in stream:
            kind = tok[0]   # its type
            if test is None and kind not in watched:   # most tokens: nothing to do
                yield tok
                continue
            if kind in refused:
                yield _unknown_tag(tok)
                continue
            if kind == "NAME" and not tok[VALUE].isascii() and not tok[VALUE].isidentifier():
                yield from _jinja_name(tok)
            if test is not None or kind == "IS":
                tok, kind, test = _follow_test(tok, kind, test)
            if kind not in _BRACKET_KINDS:
                yield tok
            elif kind == "RBRACES" and not depth and tok[VALUE] == "}}":
                yield ("VAR_CLOSE",) + tok[1:]   # the commonest: `}}` closing a {{ }}
                brackets = 0
            elif kind == "RBRACES":
                yield from self._split(tok, depth)
                closed = min(depth, len(tok[VALUE]))
                depth -= closed
                brackets = max(0, brackets - closed)
                if closed < len(tok[VALUE]):
                    depth = brackets = 0
            elif kind in _CLOSERS:
                depth = brackets = 0
                yield tok
            elif kind in _OPENERS:
                brackets += 1
                if kind == "LBRACE":
                    depth += 1
                if limit is not None and brackets > limit:
                    raise _too_deep(tok, limit)
                yield tok
            else:  # ) or ]
                brackets = max(0, brackets - 1)
                yield tok

    @staticmethod
    def _split(tok, depth):
        value = tok[VALUE]
        pos, line, col = tok[START_POS], tok[START_LINE], tok[START_COLUMN]
        for i in range(len(value)):
            if i < depth:
                yield ("RBRACE", "}", pos + i, line, col + i, line, col + i + 1, pos + i + 1)
                continue
            rest = len(value) - i
            if rest >= 2:
                yield ("VAR_CLOSE", "}}", pos + i, line, col + i, line, col + i + 2, pos + i + 2)
                if rest > 2:
                    # the braces after the tag are template text (the lexer resumes after this token)
                    yield ("DATA", "}" * (rest - 2), pos + i + 2, line, col + i + 2, line,
                           col + len(value), pos + len(value))
            else:
                yield ("RBRACE", "}", pos + i, line, col + i, line, col + i + 1, pos + i + 1)
            return


_OPENING_TAGS = frozenset(TAG_TERMINALS) - {"RAW_OPEN", "RAW_CLOSE"}   # whole tokens, not tags left open
_TAG_CLOSERS = frozenset({"_BLOCK_CLOSE", "_COLON_CLOSE", "VAR_CLOSE_STRIP"})


def modal_postlexed(stream, delimiters, mode, max_nesting=None, refused=frozenset()):
    # The postlexer of a template written with other delimiters (delimiters.py), a generator rather than a class
    # as Postlexer is (a class costs a cold start ~0.07 M instructions; the lexer offers it RBRACES in every state,
    # as Postlexer.always_accept says). It keeps `mode` (the lexer's: a list of one mode number) on the mode of the
    # tag the next token is in, BRACKETS while a bracket is open there, and turns RBRACES into what it is: the
    # variable end (VAR_CLOSE) in a variable tag with no bracket open, else one `}` (in these modes RBRACES is one
    # `}` or the variable end). A line statement left open at the end of the template is closed there (Jinja2's
    # line end matches the end of the text). As Postlexer: the nesting limit, `is [not] name`, names that are not
    # identifiers.
    limit, variable_end = max_nesting, delimiters.variable_end
    tag = BODY         # the mode of the tag we are in, BODY between tags
    brackets = 0       # brackets open inside it
    test = None        # where we are in `is [not] name(.name)*` (see _follow_test)
    tok = None
    for tok in stream:
        kind = tok[TYPE]
        if kind in refused:
            yield _unknown_tag(tok)
            continue
        if kind == "NAME" and not tok[VALUE].isascii() and not tok[VALUE].isidentifier():
            yield from _jinja_name(tok)
        if test is not None or kind == "IS":
            tok, kind, test = _follow_test(tok, kind, test)
        if kind in _OPENERS:
            brackets += 1
            if limit is not None and brackets > limit:
                raise _too_deep(tok, limit)
            mode[0] = BRACKETS
        elif kind == "RBRACES":
            closes = brackets == 0 and tag == VARIABLE and tok[VALUE] == variable_end
            tok = ("VAR_CLOSE" if closes else "RBRACE",) + tok[1:]
            if closes:
                tag = mode[0] = BODY
            elif brackets:
                brackets -= 1
                mode[0] = BRACKETS if brackets else tag
        elif kind in ("RPAR", "RSQB"):
            if brackets:
                brackets -= 1
                mode[0] = BRACKETS if brackets else tag
        elif kind in _TAG_CLOSERS:
            tag = mode[0] = BODY
            brackets = 0
        elif kind == "VAR_OPEN":
            tag = mode[0] = VARIABLE
        elif kind in _OPENING_TAGS:
            tag = mode[0] = LINE if _line_opened(tok, delimiters) else BLOCK
        yield tok
    if tag == LINE and not brackets and tok is not None:
        yield ("_BLOCK_CLOSE", "", tok[END_POS], tok[END_LINE], tok[END_COLUMN], tok[END_LINE], tok[END_COLUMN],
               tok[END_POS])


def _line_opened(tok, delimiters):
    # Was this block tag opened by the line statement prefix (at the start of a line, after spaces, tabs or
    # vertical tabs) rather than the block delimiter? The lexer chose (delimiters.py): whichever Jinja2 tries
    # first, the longer one, where both fit.
    prefix, block = delimiters.line_statement_prefix, delimiters.block_start
    value = tok[VALUE]
    stripped = value.lstrip()
    if prefix is None or not stripped.startswith(prefix) or \
            stripped.startswith(block) and len(block) > len(prefix):
        return False
    before = value[:len(value) - len(stripped)]
    indentation = before[before.rfind("\n") + 1:]
    return ("\n" in before or tok[START_COLUMN] == 1) and not indentation.strip(" \t\v")


# ---------------------------------------------------------------------------------------------------- parse
def parse(source, trim_blocks=False, lstrip_blocks=False, max_nesting=None, delimiters=None, extensions=None):
    # Parse normalised template source into a nodes.Template. delimiters: None (Jinja2's), or the
    # delimiters.Delimiters the template is written with. extensions: the names of the environment's extensions
    # (the tags of the others are unknown tags, as for Jinja2's parser), None to know every tag. Raises
    # TemplateSyntaxError (or LimitExceeded).
    options = (trim_blocks, lstrip_blocks, max_nesting, delimiters, refused_tags(extensions))
    try:
        return _parsed(source, *options)
    except UnexpectedInput as exc:
        # (the messages re-parse parts of the template as Jinja2 reads them, with the same options)
        raise describe(exc, source, delimiters or DEFAULT, load_tables(),
                       lambda text: _parsed(text, *options)) from None


def _parsed(source, trim_blocks, lstrip_blocks, max_nesting, delimiters, refused):
    # The tree, or the parser's UnexpectedInput as it stopped.
    with gc_paused():
        if delimiters is None:
            postlexer = Postlexer(max_nesting, source.isascii(), refused)
            return parser(trim_blocks, lstrip_blocks).parse(source, postlexer.process)
        mode = [BODY]
        return parser(trim_blocks, lstrip_blocks, delimiters).parse(
            source, lambda stream: modal_postlexed(stream, delimiters, mode, max_nesting, refused), mode)
