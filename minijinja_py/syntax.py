"""Syntax: template source → AST (nodes.Template), or TemplateSyntaxError.

The only module that imports lark. Steps: normalise newlines → Lark LALR(1) with the contextual lexer over
grammar/jinja.lark (tokens arrive already whitespace-trimmed, with true line/column) → the brace postlexer →
builder.Builder callbacks → AST. Every Lark error becomes a TemplateSyntaxError that names what was found, what
would fit and the innermost open block.

Grammar analysis costs ~0.2 s, so the LALR tables are built once, ahead of time, into grammar/jinja.tables.json
(`python -m minijinja_py.syntax --write-tables`); a test checks they match the grammar. Loading them takes ~25 ms
and happens lazily, once per process and option set.
"""

import hashlib
import json
import re
import sys
import threading
from collections import deque
from contextvars import ContextVar

import lark
from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.grammar import Rule
from lark.lexer import TerminalDef

from . import _resources
from . import nodes as n
from .builder import Builder, tag_span, token_span
from .errors import LimitExceeded, TemplateSyntaxError

__all__ = ["parse", "normalize_newlines"]

_NEWLINES = re.compile(r"\r\n|\r|\n")
# The environment's nesting limit for the parse under way (the parser objects are shared between environments).
_max_nesting = ContextVar("max_nesting", default=None)


def normalize_newlines(source, keep_trailing_newline=False):
    """\\r\\n and \\r become \\n; one trailing newline is dropped unless keep_trailing_newline (as Jinja2)."""
    if "\r" in source:
        source = _NEWLINES.sub("\n", source)
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


def _edit_pattern(pattern, trim_blocks, lstrip_blocks):
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


class _Postlexer:
    """Splits runs of `}` by whether a `{` is open: `{{ {'a': {'b': 1}} }}` closes two dicts before the tag ends,
    `{{ x }}}` ends the tag and prints "}". Jinja2's lexer does the same with its bracket balancing.
    Also counts bracket nesting so a pathological template fails cleanly instead of exhausting the stack, and
    follows `is [not] name` to reproduce how Jinja2 reads the token after a test name (_TEST_ARG_KEYWORDS; a
    second `is` there is an error), and refuses names that are not identifiers."""

    always_accept = ("RBRACES",)

    def process(self, stream):
        depth = 0          # open `{` inside the current tag
        brackets = 0       # all open brackets inside the current tag
        test = None        # where we are in `is [not] name(.name)*`: "is", "not", "dot", "name" or None
        limit = _max_nesting.get()
        for tok in stream:
            kind = tok.type
            if kind == "NAME" and not tok.value.isascii() and not tok.value.isidentifier():
                raise TemplateSyntaxError("Invalid character in identifier", tok.line, tok.column,
                                          end=(tok.end_line, tok.end_column))
            if test == "name" and kind in _TEST_ARG_KEYWORDS:
                tok = Token.new_borrow_pos("NAME", tok.value, tok)
                kind, test = "NAME", None
            elif kind == "IS":
                if test == "name":
                    raise TemplateSyntaxError("You cannot chain multiple tests with is", tok.line, tok.column,
                                              end=(tok.end_line, tok.end_column))
                test = "is"
            elif test == "is" and kind == "NOT":
                test = "not"
            elif test in ("is", "not", "dot") and kind in ("NAME", "IN"):
                test = "name"
            elif test == "name" and kind == "_DOT":
                test = "dot"
            else:
                test = None
            if kind == "RBRACES":
                yield from self._split(tok, depth)
                closed = min(depth, len(tok.value))
                depth -= closed
                brackets = max(0, brackets - closed)
                if closed < len(tok.value):
                    depth = brackets = 0
                continue
            if kind in ("LBRACE", "LPAR", "LSQB"):
                brackets += 1
                if kind == "LBRACE":
                    depth += 1
                if limit is not None and brackets > limit:
                    raise LimitExceeded(f"brackets nested deeper than the limit max_nesting={limit}",
                                        tok.line, tok.column, limit="max_nesting", value=limit)
            elif kind in ("RPAR", "RSQB"):
                brackets = max(0, brackets - 1)
            elif kind in ("_BLOCK_CLOSE", "VAR_CLOSE_STRIP"):
                depth = brackets = 0
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


# ------------------------------------------------------------------------------------------- parser loading
_TABLES_NAME = "jinja.tables.json"


def _grammar_text():
    return _resources.read_text("grammar", "jinja.lark")


def _grammar_digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _encode_int_keys(x):
    # JSON object keys are strings; Lark's tables use int keys. Tag such dicts so they round-trip.
    if isinstance(x, dict):
        if x and all(isinstance(k, int) for k in x):
            return {"#int": [[k, _encode_int_keys(v)] for k, v in x.items()]}
        return {k: _encode_int_keys(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_encode_int_keys(v) for v in x]
    return x


def _decode_int_keys(x):
    if isinstance(x, dict):
        if "#int" in x:
            return {k: _decode_int_keys(v) for k, v in x["#int"]}
        return {k: _decode_int_keys(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_decode_int_keys(v) for v in x]
    return x


def _analyse_grammar(text, **options):
    return Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=True, **options)


def _canonical_table(table):
    """Lark's serialised LALR table renumbered canonically: symbols by name, states breadth-first from the start
    state. Lark numbers both in the iteration order of sets of objects, which differs from run to run; with this
    the same grammar always gives the same file, so a test can tell current tables from stale ones."""
    name_of = table["tokens"]
    rows = {state: {name_of[sym]: action for sym, action in row.items()} for state, row in table["states"].items()}
    order, seen = [], set()
    queue = deque(sorted(set(table["start_states"].values())))
    while queue:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        for name in sorted(rows[state]):
            kind, arg = rows[state][name]
            if kind == 0:  # shift (or goto): arg is the next state
                queue.append(arg)
    order += sorted(set(rows) - seen)
    state_id = {old: new for new, old in enumerate(order)}
    symbol_id = {name: i for i, name in enumerate(sorted(set(name_of.values())))}
    return {
        "tokens": {i: name for name, i in symbol_id.items()},
        "states": {state_id[old]: {symbol_id[name]: (kind, state_id[arg] if kind == 0 else arg)
                                   for name, (kind, arg) in sorted(rows[old].items())}
                   for old in order},
        "start_states": {k: state_id[v] for k, v in table["start_states"].items()},
        "end_states": {k: state_id[v] for k, v in table["end_states"].items()},
    }


def build_tables():
    """Run Lark's LALR analysis on the grammar and return the tables as JSON text (what --write-tables writes)."""
    text = _grammar_text()
    # the postlexer's always_accept (RBRACES) is baked into the contextual lexer's per-state terminal sets
    data, memo = _analyse_grammar(text, postlex=_Postlexer()).memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k != "postlex"}  # passed again at load time
    data["parser"]["parser"] = _canonical_table(data["parser"]["parser"])
    return json.dumps({"grammar_sha256": _grammar_digest(text), "lark_version": lark.__version__,
                       "data": _encode_int_keys(data),
                       "memo": _encode_int_keys(memo)}, separators=(",", ":"), sort_keys=True)


_loaded_tables = None
_lock = threading.Lock()
_parsers = {}


def _tables():
    """The prebuilt tables when they match the grammar, else None (a grammar edited without --write-tables)."""
    global _loaded_tables
    if _loaded_tables is None:
        try:
            raw = json.loads(_resources.read_text("grammar", _TABLES_NAME))
        except (OSError, ValueError, ModuleNotFoundError):
            raw = {}
        # Tables are Lark's own serialisation: use them only with the grammar and the Lark they were built from.
        if raw.get("grammar_sha256") == _grammar_digest(_grammar_text()) and \
                raw.get("lark_version") == lark.__version__:
            _loaded_tables = (raw["data"], raw["memo"])
        else:
            _loaded_tables = False
    return _loaded_tables or None


def _parser(trim_blocks, lstrip_blocks):
    key = (bool(trim_blocks), bool(lstrip_blocks))
    parser = _parsers.get(key)
    if parser is not None:
        return parser
    with _lock:
        parser = _parsers.get(key)
        if parser is None:
            parser = _make_parser(*key)
            _parsers[key] = parser
    return parser


def _make_parser(trim_blocks, lstrip_blocks):
    tables = _tables()
    if tables is None:
        def edit(term):
            term.pattern.value = _edit_pattern(term.pattern.value, trim_blocks, lstrip_blocks)
        return _analyse_grammar(_grammar_text(), transformer=Builder(), postlex=_Postlexer(),
                                edit_terminals=edit)
    data, memo = tables
    memo = _decode_int_keys(memo)
    for entry in memo.values():
        if entry.get("__type__") == "TerminalDef" and entry["pattern"]["__type__"] == "PatternRE":
            entry["pattern"]["value"] = _edit_pattern(entry["pattern"]["value"], trim_blocks, lstrip_blocks)
    return Lark._load_from_dict(_decode_int_keys(data), memo, transformer=Builder(), postlex=_Postlexer())


# ---------------------------------------------------------------------------------------------------- parse
def parse(source, trim_blocks=False, lstrip_blocks=False, max_nesting=None):
    """Parse normalised template source into a nodes.Template. Raises TemplateSyntaxError (or LimitExceeded)."""
    parser = _parser(trim_blocks, lstrip_blocks)
    token = _max_nesting.set(max_nesting)
    try:
        return parser.parse(source)
    except VisitError as exc:  # a builder callback raised
        if isinstance(exc.orig_exc, (TemplateSyntaxError, LimitExceeded)):
            raise exc.orig_exc from None
        raise
    except UnexpectedInput as exc:
        raise _describe(exc, source) from None
    finally:
        _max_nesting.reset(token)


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


_TEXT_TOKENS = re.compile(r"(?P<name>[^\W\d]\w*)|(?P<number>\d+)|(?P<string>[\"'])|(?P<other>\S+?)")


def _describe_text_at(source, pos):
    """(description, length) of the token at pos the way the expression lexer would see it."""
    m = _TEXT_TOKENS.match(source, pos)
    if m is None:
        return "end of template", 0
    return {"name": "name", "number": "integer", "string": "string"}.get(m.lastgroup, m.group()), m.end() - pos


def _current_tag_end(exc):
    """'end of print statement' inside {{ }}, 'end of statement block' inside {% %}: the innermost open tag
    token on the parser's value stack tells which."""
    parser = getattr(exc, "interactive_parser", None)
    values = getattr(getattr(parser, "parser_state", None), "value_stack", None) or []
    for value in reversed(values):
        if isinstance(value, Token) and (value.type == "VAR_OPEN" or value.type in _TAG_TERMINALS):
            return "end of print statement" if value.type == "VAR_OPEN" else "end of statement block"
    return "end of statement block"


def _open_blocks(exc):
    """The block tags still open where the parser stopped, outermost first, from the parser's value stack:
    (name, opening tag token, the tags that may continue or close it)."""
    stack = []
    parser = getattr(exc, "interactive_parser", None)
    values = getattr(getattr(parser, "parser_state", None), "value_stack", None) or []
    for value in values:
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


_TAG_NAME = re.compile(r"\{%[-+]?\s*(\w*)")


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
        m = _TAG_NAME.match(stripped)
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


def _describe(exc, source):
    stack = _open_blocks(exc)
    if isinstance(exc, UnexpectedToken):
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
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        err = _unreadable(exc, source, pos, exc.line, exc.column, stack)
        if err is not None:
            return err
        ch = source[pos:pos + 1]
        if not ch.strip():
            return TemplateSyntaxError("unexpected end of template", exc.line, exc.column)
        return TemplateSyntaxError(f"unexpected char {ch!r}", exc.line, exc.column, end=(exc.line, exc.column + 1))
    return TemplateSyntaxError(str(exc), getattr(exc, "line", None), getattr(exc, "column", None))


def _main(argv):
    if argv[1:] == ["--write-tables"]:
        path = _resources.checkout_path("grammar", _TABLES_NAME)
        with open(path, "w", encoding="utf-8") as f:
            f.write(build_tables())
        print(f"wrote {path}")
        return 0
    print("usage: python -m minijinja_py.syntax --write-tables")
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
