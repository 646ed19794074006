"""Syntax errors worded and located as Jinja2's: a parse that stopped (lalr.UnexpectedInput) → TemplateSyntaxError."""

# What the parser leaves when it stops (the terminals its state expects, its value stack of tokens and values still
# open) says where Jinja2's recursive-descent parser would be; the tag is re-read as Jinja2's expression lexer reads
# it (bodyerrors.py: brackets kept balanced, a tag's opener read as `{`, characters it refuses), since its lexer's
# errors come before its parser's. Where Jinja2's parser reads more than ours before it fails (a list or dict literal
# where a target may stand, any expression as a call block's), that part of the template is parsed again as a
# {{ }}'s expression (parse.py hands describe a function for it). Jinja2's wording: "Expected an expression, got X",
# "expected token X, got Y", "unexpected X", the lexer's "unexpected char X at N", "can't assign to 'const'",
# "expected call", "invalid syntax for function call expression"; errors in the body ("Encountered unknown tag X.
# Jinja was looking for ...") in bodyerrors.py. (parse.py calls describe with the parser tables: the terminals'
# literal text names them.)

import re

from ..core.errors import TemplateError, TemplateSyntaxError
from .builder import call_refused, tag_span, token_span
from . import lalr, nodes
from .delimiters import TAG_TERMINALS as _TAG_TERMINALS
from .lexer import token_class
from .bodyerrors import (
    assignable, block_message, block_tag_end, constant_refused, equals_for_assign, last_comma, lexed_as_jinja,
    node_kind, open_blocks, refused_argument, refused_before, target_first, target_start, unreadable,
)

__all__ = ["describe"]


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


_AFTER_ITEM = {")": ")", ":": ":"}   # what Jinja2 expect()s after an item in a bracket, if not a comma


def _innermost_tag(exc):
    # The opening token of the innermost open tag ({{ or a statement's tag) on the parser's value stack, or None.
    for value in reversed(exc.values):
        if isinstance(value, token_class()) and (value.type == "VAR_OPEN" or value.type in _TAG_TERMINALS):
            return value
    return None


def _current_tag_end(exc):
    # 'end of print statement' inside {{ }}, 'end of statement block' inside {% %}.
    tag = _innermost_tag(exc)
    return "end of print statement" if tag is not None and tag.type == "VAR_OPEN" else "end of statement block"


# Where Jinja2's parser wants an expression: the terminals every expression may start with.
_EXPRESSION_STARTS = frozenset({"NAME", "STRING", "INT", "FLOAT", "LPAR", "LSQB", "LBRACE"})
_TAG_ENDS = frozenset({"VAR_CLOSE", "VAR_CLOSE_STRIP", "_BLOCK_CLOSE", "_COLON_CLOSE"})
# The tokens after which Jinja2 parses a tuple (parse_tuple, which says "Expected an expression" when the tag
# ends at once): {{, {% if %}, {% elif %}, the targets of {% for %} and {% set %}; {% for %}'s `in` and
# {% set %}'s `=` (two symbols after the tag).
_TUPLE_AFTER = frozenset({"VAR_OPEN", "IF", "ELIF", "FOR", "SET"})
_TUPLE_AFTER_TAG = {"IN": "FOR", "_ASSIGN": "SET"}
_BINARY = frozenset({"+", "-", "*", "/", "//", "%", "**", "~"})
_TARGET_STARTS = frozenset({"NAME", "LPAR"})
# the keyword that follows a tag's target or template: {% for x in %}, {% with x = %}, {% from 'a' import %},
# {% import 'a' as %}
_AFTER_TARGET = {"FOR": "IN", "WITH": "_ASSIGN", "FROM": "_KW_IMPORT", "IMPORT": "_AS"}
_CLOSERS = frozenset({"RPAR", "RSQB", "RBRACE"})
_PAIRS = {"NOT": "IN", "_KW_WITH": "_CONTEXT", "_WITHOUT": "_CONTEXT", "_IGNORE": "_MISSING"}
_NOISE = frozenset({"RBRACES"})   # (`}` in a block tag, expected by the postlexer's merged states)


def _type_at(values, back):
    # The terminal of the value `back` places from the stack's top (None: a rule's value, or no value there).
    return getattr(values[-back], "type", None) if len(values) >= back else None


def _at_tuple_start(exc):
    # Whether the parser stopped where Jinja2's parse_tuple starts (see _TUPLE_AFTER), the `-` or `+` of a tag's
    # end (`-%}`, `+%}`, which ours read as a sign) left out.
    minus = exc.values[-1] if _type_at(exc.values, 1) in ("MINUS", "PLUS") else None
    back = 2 if minus is not None and minus.end_pos == exc.token.start_pos else 1
    last = _type_at(exc.values, back)
    if last == "_COMMA":   # {% with a = 1, %}: each target is a tuple (after a value: a tuple, on our stack)
        tag = _innermost_tag(exc)
        return tag is not None and tag.type == "WITH" and type(exc.values[-back - 1]) is tuple
    return last in _TUPLE_AFTER or (last in _TUPLE_AFTER_TAG and _type_at(exc.values, back + 2) ==
                                     _TUPLE_AFTER_TAG[last])


def _expected_token(exc, tables, in_brackets=False):
    # What Jinja2's expect() names where the parser stopped: the tag's end where it may come, the one terminal
    # the state reads (in brackets, besides the closing bracket, which Jinja2's loops test first), else None.
    expected = set(exc.expected) - (_NOISE | _CLOSERS if in_brackets else _NOISE)
    if expected & _TAG_ENDS:
        tag = _innermost_tag(exc)
        # ({% print %} and {% with %} read expressions until the tag's end, a comma between each two)
        if tag is not None and tag.type in ("PRINT", "WITH"):
            return "," if exc.values[-1] is not tag else None
        return _current_tag_end(exc)
    literals = tables.literals
    if "NAME" in expected:   # (a keyword is a name to Jinja2's lexer: `is` reads `not` or the test's name)
        expected = {name for name in expected if not literals.get(name, "").isidentifier()}
    if len(expected) == 1:
        (name,) = expected
        return _DESCRIPTIONS.get(name) or literals.get(name) or name.lower()
    return None


def _pair_cut_short(exc):
    # Whether the parser stopped after the first word of a pair Jinja2 takes only whole, looking a token past the
    # first (_PAIRS: `not in` after an operand, `with context`, `without context`).
    first = _type_at(exc.values, 1)
    return first in _PAIRS and set(exc.expected) - _NOISE == {_PAIRS[first]}


def _pending_keyword(exc):
    # The terminal of the keyword the innermost tag still wants after its target or template (for's `in`, import's
    # `as`, ...), or None
    tag = _innermost_tag(exc)
    after_target = _AFTER_TARGET.get(tag.type) if tag is not None else None
    if after_target is None or \
            any(getattr(value, "type", None) == after_target for value in exc.values[exc.values.index(tag):]):
        return None
    return after_target


def _message_for(exc, tables, got, at_tag_end, in_brackets=False):
    # Jinja2's wording for an unexpected token described as got, inside a tag (at its end: at_tag_end; inside a
    # bracket: in_brackets).
    expected = set(exc.expected)
    keyword = tables.literals[_pending_keyword(exc)] if _pending_keyword(exc) is not None else None
    # (where the expression may also end, after a filter's or a test's name: what does not go on it ends; after
    # a comma, an item is parsed unless the tuple ends there)
    may_end = expected & _TAG_ENDS and _type_at(exc.values, 1) != "_COMMA"
    if _EXPRESSION_STARTS <= expected and not may_end:
        if at_tag_end and _at_tuple_start(exc):
            return f"Expected an expression, got {got!r}"
        return f"unexpected {got!r}"
    if expected - _NOISE == {"INT", "NAME"}:
        return "expected name or number"   # after a dot
    if _TARGET_STARTS <= expected and not _EXPRESSION_STARTS <= expected:   # a target's start: a primary
        if at_tag_end and _at_tuple_start(exc):
            return f"Expected an expression, got {got!r}"
        if not at_tag_end:
            return f"unexpected {got!r}"
        tag = _innermost_tag(exc)
        if _type_at(exc.values, 1) == "_COMMA" and tag is not None and tag.type in ("FOR", "WITH"):
            # (the target tuple ends at the tag's end after its comma: Jinja2 expect()s the tag's keyword there)
            return f"expected token {tables.literals[_AFTER_TARGET[tag.type]]!r}, got {got!r}"
    if _pair_cut_short(exc):
        # Jinja2 reads `not` as an operator only before `in` (`with` a modifier only before `context`): what
        # came before ended there
        wanted = _AFTER_ITEM.get(in_brackets, ",") if in_brackets else keyword or _current_tag_end(exc)
        return f"expected token {wanted!r}, got {tables.literals[exc.values[-1].type]!r}"
    if not in_brackets and keyword and _AFTER_TARGET[_innermost_tag(exc).type] in expected:
        # (the tag's keyword is still to come: Jinja2 expect()s it after the target)
        return f"expected token {keyword!r}, got {got!r}"
    if in_brackets and "_COMMA" in expected:
        # after an item in brackets, Jinja2's loops over the items want a comma unless the bracket closes; in
        # parentheses (not a call's), a tuple ends without one; a dict's key wants its colon
        return f"expected token {_AFTER_ITEM.get(in_brackets, ',')!r}, got {got!r}"
    wanted = _expected_token(exc, tables, in_brackets)
    return f"expected token {wanted!r}, got {got!r}" if wanted else f"unexpected {got!r}"


def _in_body(exc):
    # Whether the parser stopped in a template's body, not inside a tag (a body's state reads text or tags, or
    # the template's end).
    return any(name in ("DATA", "$END") or name in _TAG_TERMINALS for name in exc.expected)


def _end_of_template(exc, source, stack, d, tables, reparse):
    # The error for a template that ends where the parser wants more. d: the delimiters; reparse: see describe.
    pos = len(source)
    line = source.count("\n") + 1
    col = pos - (source.rfind("\n") + 1) + 1
    if stack and stack[-1][0] == "raw":
        span = tag_span(stack[-1][1])
        if span.end_line != span.line:   # (Jinja2's line is where the tag ends, after the whitespace `-%}` strips)
            return TemplateSyntaxError("Missing end of raw directive", span.end_line, span.end_col)
        return TemplateSyntaxError("Missing end of raw directive", span.line, span.col,
                                   end=(span.end_line, span.end_col))
    if stack and _in_body(exc):
        line, col = _before_the_end(exc, source, line, col, d)
        return TemplateSyntaxError(block_message("Unexpected end of template.", stack), line, col)
    found = _in_tag(exc, source, token_class()(("$END", "", pos, line, col, line, col, pos)), d, tables, reparse)
    msg = found[0] if found else _message_for(exc, tables, "end of template", False)
    wanted = re.match(r"expected token ('.*'), got 'end of template'$", msg)
    if wanted:   # (expect() says so at the end)
        msg = f"unexpected end of template, expected {wanted.group(1)}."
    if found and "end of template" not in msg:   # (an error before the end: where it is)
        return TemplateSyntaxError(msg, found[1], found[2], end=found[3])
    if not found or (found[1], found[2]) >= (line, col):
        line, col = _before_the_end(exc, source, line, col, d)   # (not on the blank lines after the last token)
    return TemplateSyntaxError(msg, line, col)


def _before_the_end(exc, source, line, col, d=None):
    # (line, column) of the template's end (at line:col) as Jinja2 places it: its end token has the line where the
    # token before it starts (a string may span lines: where it starts, in a tag; comments at the end are none: d,
    # the delimiters, given), a text (where the text starts) at the end of a block's body, else right after the
    # last character that is not whitespace; line:col where that is on the same line.
    body = exc.values[-1] if exc.values and type(exc.values[-1]) is tuple else ()
    if body and type(body[-1]) is nodes.Text:
        first = len(body) - 1   # (a long text comes in pieces: Jinja2's token is where the first starts)
        while first and type(body[first - 1]) is nodes.Text and body[first - 1].span.end == body[first].span.start:
            first -= 1
        before = body[first].span.line, body[first].span.col
    else:
        last = len(source.rstrip())
        if d is not None and _in_body(exc):
            last = _before_comments(source, last, d)
        if d is not None and source[last - 1:last] in ("'", '"'):
            last = _string_start(exc, source, d, last)
        before = source.count("\n", 0, last) + 1, last - source.rfind("\n", 0, last)
    return (line, col) if before[0] == line else before


def _before_comments(source, last, d):
    # Where the text up to last ends without the comments at its end (and a comment's opener that ends the
    # template): no tokens to Jinja2. d: the delimiters.
    while True:
        text = source[:last]
        if text.endswith(d.comment_end) and d.comment_start in text:
            start = text.rfind(d.comment_start)
        else:
            opener = re.search(re.escape(d.comment_start) + r"[-+]?$", text)
            if opener is None:
                return last
            start = opener.start()
        last = len(source[:start].rstrip())


def _string_start(exc, source, d, end):
    # Where the innermost tag's last token starts if it is a string that ends at end, else end
    tag = _innermost_tag(exc)
    tag_end = _tag_end(tag, d)
    last = None
    for error, got, pos, width, _ in lexed_as_jinja(source, tag.end_pos, tag_end) if tag_end else ():
        if error or got == "end of template":
            break
        last = (got, pos, width)
    return last[1] if last is not None and last[0] == "string" and last[1] + last[2] == end else end


def _unassignable(exc, after):
    # Jinja2 parses a literal where a target may stand, then refuses to assign to what it parsed: the tuple the
    # literal is an item of (a comma before or after it), else the constant. after: the lexed token after it.
    if _type_at(exc.values, 1) != "_COMMA":
        if after is None or after[1] != ",":
            return "can't assign to 'const'"
    return "can't assign to 'tuple'"


def _where_jinja2_stops(exc, source, tok, tag, tokens):
    # The token of the tag (tokens: lexed_as_jinja's, from the tag's start) where Jinja2 stops, ours having
    # stopped at tok: (error message or None, description, position, width, innermost bracket's closer), and the
    # tokens seen up to it (see refused_argument). The lexer may refuse the text before tok; Jinja2 reads `==`
    # where ours read an assignment's `=`, a colon and `%` where ours read `: %}` as a tag's end, steps past a
    # colon where a block's opening tag may end.
    assign = exc.values[-1].start_pos if _type_at(exc.values, 1) == "_ASSIGN" else -1
    assign = assign if source.startswith("==", assign) else -1
    seen = []
    for error, got, pos, width, inside in tokens:
        if error:
            break
        seen.append((got, pos, width, inside))
        if pos >= tok.start_pos or pos == assign:
            break
    if error is None and pos == assign:
        # (after an argument's `not`, `==` is the operator's operand to Jinja2: not a keyword argument's `=`)
        error = "unexpected '=='" if _type_at(exc.values, 2) == "NOT" else \
            equals_for_assign(tag.type, seen[-2][0] if len(seen) > 1 else None)
    elif error is None and tok.type == "_COLON_CLOSE" and got == ":" and inside and "COLON" in exc.expected:
        error, pos = "unexpected '%'", source.index("%", pos)   # (a slice's or a dict's colon: it wants an operand)
    elif error is None and got == ":" and not inside and "_COLON_CLOSE" in exc.expected and \
            _type_at(exc.values, 1) != "_COMMA" and _pending_keyword(exc) is None:
        error, got, pos, width, inside = next(tokens, (None, "end of template", len(source), 0, None))
        error = error or (f"expected token 'end of statement block', got {got!r}" if got != "end of template" else
                          "unexpected end of template, expected 'end of statement block'.")
    return (error, got, pos, width, inside), seen


def _tag_end(tag, d):
    # (pattern, description) of the end of the tag whose opening token is tag, for lexed_as_jinja; None in a line
    # statement (or no tag). d: the delimiters.
    if tag is None:
        return None
    if tag.type == "VAR_OPEN":
        return re.compile("-?" + re.escape(d.variable_end)), "end of print statement"
    if tag.value.lstrip().startswith(d.block_start):
        return block_tag_end(d)
    return None


def _in_tag(exc, source, tok, d, tables, reparse=None):
    # (message, line, column, end) of the error for a token inside a tag, as Jinja2 finds it: its expression
    # lexer may refuse the text first (a bracket that does not match, a character no token starts with), reads a
    # tag's opener as `{` and the other kind of tag's end as operators; None in a line statement. d: the
    # delimiters; reparse: see describe.
    tag = _innermost_tag(exc)
    tag_end = _tag_end(tag, d)
    if tag_end is None:
        return None
    if tag.type == "CALL" and reparse is not None:
        found = _call_expression(source, tag, tok, tag_end, d, tables, reparse)
        if found is not None:
            return found
    # ({% call(args) %}: a signature after the tag's name, a name token to Jinja2)
    tokens = lexed_as_jinja(source, tag.end_pos, tag_end, "name" if tag.type == "CALL" else None)
    (error, got, pos, width, inside), seen = _where_jinja2_stops(exc, source, tok, tag, tokens)
    refused = refused_argument(seen, source, error is not None, tag.type)
    if refused is not None:
        (error, pos), width = refused, 1
    if error is None and (_pair_cut_short(exc) or set(exc.expected) - _NOISE == {"INT", "NAME"}):
        # Jinja2's parser looks at the token after `not` (for `not in`) and steps past the one after a dot
        # before it checks it: the lexer's error there comes first
        after = next(tokens, None)
        if after is not None and after[0]:
            error, got, pos, width, inside = after
    target = target_start(exc.values, tag) if error is None else None
    if target is not None and reparse is not None:
        found = _parenthesised_target(exc, source, tag, target, tag_end, d, tables, reparse)
        if found is not None:
            return found
    refused = constant_refused(exc.values, tag, target) if error is None else None
    if refused is not None:
        (error, pos), width = refused, 1
    # (the line Jinja2 gives a target's tuple: where its last comma is)
    comma = last_comma(source, target_first(exc.values, target), tag_end, tag.type == "SET") if target is not None else None
    if error is None and got in ("integer", "float", "string") and not inside and \
            _TARGET_STARTS <= set(exc.expected):
        after = next(tokens, None)   # (the lexer's error there comes first)
        if after is not None and after[0]:
            error, got, pos, width, inside = after
        else:
            error = _unassignable(exc, after)
    if error is None and got in ("[", "{") and _TARGET_STARTS <= set(exc.expected) and \
            "LSQB" not in exc.expected and reparse is not None:
        found = _bracket_target(exc, source, tag, pos, tokens, d, tables, reparse,
                                _type_at(exc.values, 1) == "_COMMA", comma)
        if found is not None:
            return found
    if error is not None and error.endswith("'tuple'") and comma is not None and \
            source.count("\n", 0, comma) != source.count("\n", 0, pos):
        pos, width = comma, 1
    operand = not isinstance(exc.values[-1], token_class()) and target is None and not _in_block_filters(exc, tag)
    binary = operand and "NAME" not in exc.expected and set(exc.expected) - _NOISE != {"RPAR", "_ASSIGN", "_COMMA"}
    sign = got in ("-", "+") and _EXPRESSION_STARTS <= set(exc.expected)   # (where an operand may start)
    if error is None and got in _BINARY and tok.type in _TAG_ENDS and (binary or sign):
        # Jinja2 reads the other kind of tag's end as two tokens, the first an operator after a whole operand (`%`
        # of `%}` in {{ }}; not a target, a keyword, a signature) or a sign before one, which its parser takes: the
        # second is where it stops, wanting an operand
        error, got, pos, width, inside = next(tokens, (None, "end of template", len(source), 0, None))
        error = error or f"unexpected {got!r}"
    line = source.count("\n", 0, pos) + 1
    col = pos - source.rfind("\n", 0, pos)
    end = (line, col + max(1, width)) if "\n" not in source[pos:pos + width] else (line, col + 1)
    return error or _message_for(exc, tables, got, got == tag_end[1], inside), line, col, end


def _in_block_filters(exc, tag):
    # Whether the parser stopped in the filters of a filter block or a block set, outside their arguments (no
    # operand ends there)
    after = [getattr(value, "type", None) for value in exc.values[exc.values.index(tag) + 1:]]
    return (tag.type == "FILTER" or tag.type == "SET" and "_PIPE" in after and "_ASSIGN" not in after) \
        and "LPAR" not in after


def _as_expression(source, tag, start, stop, d, closed):
    # The template with the tag's text from start to stop read as a {{ }}'s expression: the text before it blanked
    # (each character but a newline a space: positions, lines and columns stay), the variable opener where the tag's
    # opener stood, and if closed, its end after; None where the opener does not fit.
    opener = tag.start_pos + len(tag.value) - len(tag.value.lstrip())
    gap = start - opener - len(d.variable_start)
    if gap < 0:
        return None
    blank = re.compile(r"[^\n]")
    text = blank.sub(" ", source[:opener]) + d.variable_start + \
        blank.sub(" ", source[opener + len(d.variable_start):start]) + source[start:stop]
    return text + " " + d.variable_end if closed else text


def _reparsed(reparse, text, d, tables):
    # (tree, the parser's stop or None, the TemplateSyntaxError for text or None), parsed with reparse; all None
    # for another error (a limit the text reaches): the caller's message stands
    try:
        return reparse(text), None, None
    except lalr.UnexpectedInput as exc:
        return None, exc, describe(exc, text, d, tables)
    except TemplateSyntaxError as err:   # (the builder's)
        return None, None, err
    except TemplateError:
        return None, None, None


def _as_block_error(err):
    # (message, line, column, end) of an error found in a {{ }} standing for a statement tag
    message = err.message.replace("'end of print statement'", "'end of statement block'")
    return message, err.lineno, err.colno, err.end_pos


def _bracket_target(exc, source, tag, start, tokens, d, tables, reparse, comma_before, comma=None):
    # Where a target may stand Jinja2 parses a primary (ours: a name), a list or a dict literal among them, or any
    # expression in parentheses, and refuses to assign to it (unless it is names in parentheses): the literal's own
    # error (it is parsed as in {{ }}: read up to its closing bracket, or on to the end), else "can't assign", to
    # the tuple it is an item of (comma_before, or a comma after it), else to what it is. start: where its bracket
    # is; tokens: the lexed tokens after the bracket; comma: where the last comma of the target's tuple is (or
    # None), the line Jinja2 gives the tuple.
    stop = after = None
    inner = inner_comma = None   # where the first token in the bracket is, its last comma outside inner brackets
    depth = 0
    for error, got, pos, width, inside in tokens:
        if error or inside is None:   # (inside None: the token after the closing bracket)
            after = None if error else got
            break
        stop = pos + width
        inner = pos if inner is None else inner
        inner_comma = pos if got == "," and depth == 0 else inner_comma
        depth += (got in ("(", "[", "{")) - (got in (")", "]", "}"))
    text = _as_expression(source, tag, start, stop if after else len(source), d, after is not None)
    if text is None:
        return None
    tree, _, err = _reparsed(reparse, text, d, tables)
    if err is not None:
        return _as_block_error(err)
    if tree is None:
        return None
    expr = [node for node in tree.body if type(node) is nodes.Output][-1].expr
    if assignable(expr):
        return None
    tuple_item = comma_before or after == ","
    line = source.count("\n", 0, start) + 1
    col = start - source.rfind("\n", 0, start)
    # (Jinja2's line is its node's: a tuple's last comma, else where the expression in parentheses starts)
    at = comma if tuple_item else None if source[start] != "(" else inner_comma if type(expr) is nodes.TupleExpr \
        else inner
    if at is not None and source.count("\n", 0, at) + 1 != line:
        line, col = source.count("\n", 0, at) + 1, at - source.rfind("\n", 0, at)
    return f"can't assign to {'tuple' if tuple_item else node_kind(expr)!r}", line, col, (line, col + 1)


def _parenthesised_target(exc, source, tag, target, tag_end, d, tables, reparse):
    # The error where the parser stopped inside parentheses of a target (from exc.values[target] on): Jinja2 reads
    # any expression there (see _bracket_target); None where no parenthesis is open
    values = exc.values
    lpar = next((at for at in range(target, len(values)) if getattr(values[at], "type", None) == "LPAR"), None)
    if lpar is None:
        return None
    tokens = lexed_as_jinja(source, values[lpar].start_pos, tag_end)
    next(tokens)   # (the parenthesis)
    return _bracket_target(exc, source, tag, values[lpar].start_pos, tokens, d, tables, reparse, lpar > target,
                           last_comma(source, target_first(values, target), tag_end, tag.type == "SET"))


def _call_expression(source, tag, tok, tag_end, d, tables, reparse):
    # A call block's expression as Jinja2 parses it, where ours stopped in it: any expression (ours: calls, lookups,
    # filters and tests), then it must be a call. The expression's own error, or "expected call"; None where it is a
    # call (the parser's message stands), and where the lexer refuses the text (or the template ends) before the
    # parser stops, or a comma ends it first.
    tokens = lexed_as_jinja(source, tag.end_pos, tag_end, "name")
    start = signature = None   # where the expression starts, after the signature's `(...)` if there is one
    outside = set()   # where tokens outside any bracket start
    # whether the lexer refuses the text (cut), or the template ends, before the tag's end (Jinja2's parser may
    # stop before)
    cut = ended = False
    for error, got, pos, width, inside in tokens:
        if error or got == "end of template":
            cut, ended = error is not None, error is None
            break
        if start is None and (signature is None and got != "(" or signature and inside is None):
            start = pos
        signature = signature or got == "("
        if inside is None:
            outside.add(pos)
        if start is not None and inside is None and got in (tag_end[1], ","):
            break
    stop = pos
    if start is None or tok.start_pos < start or stop == start:
        return None
    text = _as_expression(source, tag, start, stop, d, not ended)
    tree, stopped, err = _reparsed(reparse, text, d, tables) if text is not None else (None, None, None)
    if stopped is not None and err is not None:
        at = stopped.pos_in_stream if stopped.token is None else \
            stop if stopped.token.type == "$END" else stopped.token.start_pos
        if (at < stop and at in outside or ended and at == stop) and set(stopped.expected) & _TAG_ENDS:
            # (an expression ends there: Jinja2's parser stops before the token that does not go on)
            tree, stopped, err = _reparsed(reparse, _as_expression(source, tag, start, at, d, True), d, tables)
        elif cut and at >= stop:   # (the lexer refuses the text before the parser stops)
            return _lexer_error(source, error, stop)
        elif at >= stop and got == ",":   # (it wants more where the comma is: what it says of the tag's end)
            line, col = source.count("\n", 0, stop) + 1, stop - source.rfind("\n", 0, stop)
            return err.message.replace("'end of print statement'", "','"), line, col, (line, col + 1)
    elif cut:
        return _lexer_error(source, error, stop)
    if err is not None:
        return _as_block_error(err)
    if tree is None:
        return None
    head = [node for node in tree.body if type(node) is nodes.Output][-1].expr
    if call_refused(head, tag) is None:
        return None
    line, col = source.count("\n", 0, start) + 1, start - source.rfind("\n", 0, start)   # (under the expression)
    if line != tag.end_line:   # (on the line of the tag's name, as Jinja2)
        return "expected call", tag.end_line, tag.end_column - len("call"), (tag.end_line, tag.end_column)
    return "expected call", line, col, (line, col + len(source[start:stop].rstrip().split("\n")[0]))


def _lexer_error(source, error, pos):
    # (message, line, column, end) of the lexer's error at pos
    line, col = source.count("\n", 0, pos) + 1, pos - source.rfind("\n", 0, pos)
    return error, line, col, (line, col + 1)


def describe(exc, source, delimiters, tables, reparse=None):
    # The TemplateSyntaxError for a parse that stopped (a lalr.UnexpectedInput, at a token or not) in a
    # template written with delimiters (a delimiters.Delimiters). reparse: a function parsing another text with
    # the same options (the tree, or raising lalr.UnexpectedInput or the builder's TemplateSyntaxError), to read a
    # part of the template as Jinja2's parser does where ours refuses it earlier (None: not done).
    refused = refused_before(exc, source, delimiters)
    if refused is not None:
        return refused
    stack = open_blocks(exc)
    if exc.token is not None:
        tok = exc.token
        if tok.type == "$END":
            return _end_of_template(exc, source, stack, delimiters, tables, reparse)
        in_body = _in_body(exc)
        if tok.type in _TAG_TERMINALS and in_body:
            span = tag_span(tok)
            name = _TAG_TERMINALS[tok.type]
            msg = block_message(f"Encountered unknown tag {name!r}.", stack, found=name)
            at = tok.start_pos + tok.value.find(name, max(0, tok.value.find(delimiters.block_start)))
            if source.count("\n", span.start, at):   # (on the name's line, as Jinja2)
                line, col = source.count("\n", 0, at) + 1, at - source.rfind("\n", 0, at)
                return TemplateSyntaxError(msg, line, col, end=(line, col + len(name)))
            return TemplateSyntaxError(msg, span.line, span.col, end=(span.end_line, span.end_col))
        span = token_span(tok)
        if [getattr(value, "type", None) for value in exc.values[-2:]] == ["BLOCK", "NAME"] and \
                source.startswith("-", tok.start_pos):
            # Jinja2's parser says so for a `-` after a block's name ({% block foo-bar %})
            return TemplateSyntaxError("Block names in Jinja have to be valid Python identifiers and may not "
                                       "contain hyphens, use an underscore instead.", span.line, span.col,
                                       end=(span.line, span.col + 1))
        if in_body:
            # no terminal of this state read the text (an unknown tag, an unclosed comment) and the lexer's
            # fallback found some other token there
            err = unreadable(exc, source, tok.start_pos, tok.line, tok.column, stack, delimiters, tables)
            if err is not None:
                return err
        if _pair_cut_short(exc):
            tok = exc.values[-1]   # (where Jinja2 stops)
        found = None if in_body else _in_tag(exc, source, tok, delimiters, tables, reparse)
        if found is None:
            found = (_message_for(exc, tables, _describe_token(tok), tok.type in _TAG_ENDS), span.line, span.col,
                     (span.end_line, span.end_col))
        msg, line, col, end = found
        return TemplateSyntaxError(msg + _quote_hint(source, tok), line, col, end=end)
    # no terminal of the grammar matches the text there
    pos = exc.pos_in_stream
    err = unreadable(exc, source, pos, exc.line, exc.column, stack, delimiters, tables)
    if err is not None:
        return err
    ch = source[pos:pos + 1]
    if not ch.strip():
        return TemplateSyntaxError("unexpected end of template", exc.line, exc.column)
    return TemplateSyntaxError(f"unexpected char {ch!r} at {pos}", exc.line, exc.column,
                               end=(exc.line, exc.column + 1))


def _quote_hint(source, tok):
    # The usual cause of a name right after a quote: a bare quote inside a string literal ends it early
    # ('{"name": ...}' written inside "..."), so the rest of the intended string is read as expressions.
    before = source[tok.start_pos - 1] if tok.start_pos else ""
    if before and before in "\"'" and source[tok.start_pos:tok.start_pos + 1].isidentifier():
        other = "'" if before == '"' else '"'
        return (f". The {before} just before it ends the string literal there: if it belongs inside the "
                f"string, escape it as \\{before} (or quote the string with {other})")
    return ""
