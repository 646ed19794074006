"""The reference the parser is tested against: Lark's own LALR(1) parser and contextual lexer, built from the same
grammar with the same option edits, postlexer and builder callbacks (tree-less, as syntax.py used it before it
had a driver of its own).

outcome(parse) runs one parse and describes what came out, comparably between the two parsers:
  ("ok", tokens, ast)          the postlexed token stream and the AST, spans included;
  ("stop", tokens, info, err)  the parser stopped: which token or position, the expected terminals, the value
                               stack, and the TemplateSyntaxError messages.describe makes of it (message, place);
  ("error", tokens, err)       a callback or the postlexer raised (TemplateSyntaxError, LimitExceeded, ...).
"""

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

import grammar_tables
from minijinja_py.syntax import lalr, messages
from minijinja_py.syntax import nodes
from minijinja_py.syntax import delimiters, parse as syntax
from minijinja_py.syntax.builder import Builder
from minijinja_py.syntax.lexer import token_class

Token = token_class()

_parsers = {}


class _RecordingPostlexer:
    """syntax.Postlexer over our own tokens, recording what it hands to the parser."""
    always_accept = syntax.Postlexer.always_accept

    def __init__(self):
        self.max_nesting = None
        self.tokens = None

    def process(self, stream):
        ours = (Token((t.type, str(t), t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos))
                for t in stream)
        for tok in syntax.Postlexer(self.max_nesting).process(ours):
            tok = Token(tok)   # (the postlexer's own tokens are plain tuples; Lark reads tok.type)
            self.tokens.append(tok)
            yield tok


def _lark(trim_blocks, lstrip_blocks):
    key = (trim_blocks, lstrip_blocks)
    if key not in _parsers:
        postlex = _RecordingPostlexer()

        def edit(term):
            term.pattern.value = syntax.edit_pattern(term.pattern.value, trim_blocks, lstrip_blocks)
        parser = lark.Lark(grammar_tables.grammar_text(), parser="lalr", lexer="contextual",
                           maybe_placeholders=True, transformer=Builder(), postlex=postlex, edit_terminals=edit)
        _parsers[key] = (parser, postlex)
    return _parsers[key]


def _our_token(t):
    return Token((t.type, str(t.value), t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos))


def lark_parse(source, trim_blocks, lstrip_blocks, max_nesting=None, tokens=None):
    """The AST, with Lark doing the lexing and parsing (its errors become the driver's exceptions); the postlexed
    tokens are appended to `tokens`."""
    parser, postlex = _lark(trim_blocks, lstrip_blocks)
    postlex.max_nesting, postlex.tokens = max_nesting, tokens if tokens is not None else []
    try:
        return parser.parse(source)
    except UnexpectedToken as exc:
        state = exc.interactive_parser.parser_state
        raise lalr.unexpected_token(_our_token(exc.token), set(exc.expected), state.position,
                                    list(state.value_stack)) from None
    except UnexpectedCharacters as exc:
        state = exc.interactive_parser.parser_state
        raise lalr.unexpected_characters(exc.pos_in_stream, exc.line, exc.column, set(exc.allowed), state.position,
                                         list(state.value_stack)) from None


def our_parse(source, trim_blocks, lstrip_blocks, max_nesting=None, tokens=None):
    """The AST, with minijinja_py's driver; the postlexed tokens are appended to `tokens`."""
    tokens = tokens if tokens is not None else []

    def recording(stream):
        for tok in syntax.Postlexer(max_nesting).process(stream):
            tokens.append(Token(tok))   # (the driver's tokens are plain tuples)
            yield tok
    return syntax.parser(trim_blocks, lstrip_blocks).parse(source, recording)


def token_fields(tok):
    return (tok.type, tok.value, tok.start_pos, tok.end_pos, tok.line, tok.column, tok.end_line, tok.end_column)


def with_spans(value):
    """nodes.dump with every node's span kept."""
    if isinstance(value, nodes.Node):
        return (type(value).__name__, tuple(value.span)) + tuple(with_spans(getattr(value, f)) for f in value.FIELDS)
    if isinstance(value, nodes.Args):
        return ("Args",) + tuple(with_spans(getattr(value, f)) for f in value.FIELDS)
    if isinstance(value, Token):
        return ("token",) + token_fields(value)
    if isinstance(value, (tuple, list)):
        return tuple(with_spans(x) for x in value)
    slots = getattr(type(value), "__slots__", None)
    if slots:  # the builder's intermediates (_Named, _Clause, ...)
        return (type(value).__name__,) + tuple(with_spans(getattr(value, s)) for s in slots)
    return value


def _stack_entry(value):
    if isinstance(value, lark.Tree):  # Lark's value of an inlined _rule; ours is a list
        return ("inlined", with_spans(value.children))
    if isinstance(value, list):
        return ("inlined", with_spans(value))
    return ("value", with_spans(value))


def _error(err):
    return (type(err).__name__, err.message, err.lineno, err.colno, err.end_pos)


def outcome(parse, source, trim_blocks, lstrip_blocks, max_nesting=None):
    tokens = []
    try:
        ast = parse(source, trim_blocks, lstrip_blocks, max_nesting, tokens)
    except lalr.UnexpectedInput as exc:
        if exc.token is not None:
            where = ("token",) + token_fields(exc.token)
            expected = exc.expected
        else:
            where = ("chars", exc.pos_in_stream, exc.line, exc.column)
            expected = exc.allowed
        info = (where, sorted(expected), [_stack_entry(v) for v in exc.values])
        err = messages.describe(exc, source, delimiters.DEFAULT, syntax.load_tables())
        return ("stop", _fields(tokens), info, _error(err))
    except Exception as exc:  # noqa: BLE001 - what a callback raised, compared by class and text
        return ("error", _fields(tokens), _error(exc) if hasattr(exc, "message") else (type(exc).__name__, str(exc)))
    return ("ok", _fields(tokens), with_spans(ast))


def _fields(tokens):
    return [token_fields(t) for t in tokens]
