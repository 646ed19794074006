"""Syntax: template source → AST (nodes.Template), or TemplateSyntaxError."""

# Steps: normalise newlines → the LALR(1) driver (lalr.py) with its contextual lexer, running the tables built
# ahead of time from grammar/jinja.lark (tokens arrive already whitespace-trimmed, with true line/column) → the
# postlexer (postlex.py) → builder.Builder callbacks → AST. Every parse error becomes a TemplateSyntaxError worded
# and located as Jinja2's (messages.py).
#
# Here: the trim_blocks/lstrip_blocks edits of the grammar's terminal patterns, the parser of each option set (with
# other delimiters, the lexer modes of delimiters.py). The tables
# (grammar/jinja.tables.marshal, written by `python tools/grammar_tables.py --write`; a test checks they are current)
# load lazily, once per process; each option set's lexers compile on first use.

import marshal
import os
import re
from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms

from ..core.state import gc_paused
from .builder import Builder
from . import delimiters as syntax_options
from . import lalr
from .messages import describe
from .postlex import ModalPostlexer, Postlexer, refused_tags

__all__ = ["parse", "normalize_newlines", "Postlexer"]

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
                    _tables = lalr.Tables(marshal.loads(f.read()))
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
                    found = lalr.Parser(load_tables(), Builder(), edit)
                else:
                    modes = syntax_options.lexicons(load_tables(), delimiters, *key[:2])
                    found = lalr.Parser(load_tables(), Builder(), modes=modes)
                    others = [other for other in _parsers if other[2] is not None]
                    if len(others) >= _MAX_DELIMITED_PARSERS:
                        del _parsers[others[0]]
                _parsers[key] = found
    return found


# ---------------------------------------------------------------------------------------------------- parse
def parse(source, trim_blocks=False, lstrip_blocks=False, max_nesting=None, delimiters=None, extensions=None):
    # Parse normalised template source into a nodes.Template. delimiters: None (Jinja2's), or the
    # delimiters.Delimiters the template is written with. extensions: the names of the environment's extensions
    # (the tags of the others are unknown tags, as for Jinja2's parser), None to know every tag. Raises
    # TemplateSyntaxError (or LimitExceeded).
    options = (trim_blocks, lstrip_blocks, max_nesting, delimiters, refused_tags(extensions))
    try:
        return _parsed(source, *options)
    except lalr.UnexpectedInput as exc:
        # (the messages re-parse parts of the template as Jinja2 reads them, with the same options)
        raise describe(exc, source, delimiters or syntax_options.DEFAULT, load_tables(),
                       lambda text: _parsed(text, *options)) from None


def _parsed(source, trim_blocks, lstrip_blocks, max_nesting, delimiters, refused):
    # The tree, or the parser's lalr.UnexpectedInput as it stopped.
    with gc_paused():
        if delimiters is None:
            postlexer = Postlexer(max_nesting, source.isascii(), refused)
            return parser(trim_blocks, lstrip_blocks).parse(source, postlexer.process)
        mode = [syntax_options.BODY]
        return parser(trim_blocks, lstrip_blocks, delimiters).parse(
            source, ModalPostlexer(delimiters, mode, max_nesting, refused).process, mode)
