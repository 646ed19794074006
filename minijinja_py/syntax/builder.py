"""Builder: grammar reductions → AST nodes (nodes.py)."""

# The parser's callbacks (lalr.py): each method is called when the parser reduces the grammar rule of the same
# name (or alias), with the already-built children (tokens and nodes, shaped as the grammar says). No parse tree is
# materialised and nothing recurses, so a deeply nested template cannot overflow the Python stack here; every
# method is linear in its children. The builder keeps no state between templates.

import codecs
import re
from operator import itemgetter

from ..core.errors import TemplateAssertionError, TemplateSyntaxError, python_syntax_twin, twin_of
from . import nodes as n
from .lexer import END_COLUMN, END_LINE, END_POS, START_COLUMN, START_LINE, START_POS, TYPE, VALUE, is_token

CONSTANT_NAMES = {"true": True, "True": True, "false": False, "False": False, "none": None, "None": None}
# Spans are made for most tokens and nodes, as Span((fields)); the commonest callbacks, which know which of their
# parts are tokens and which nodes, build theirs in line.
_Span = n.Span
# a token's fields (lexer.token_class: type value start_pos line column end_line end_column end_pos) in a Span's order,
# and those of where it starts and where it ends: one C call per span instead of six attribute reads
_SPAN_OF_TOKEN = itemgetter(3, 4, 2, 7, 5, 6)
_TOKEN_START = itemgetter(3, 4, 2)
_TOKEN_END = itemgetter(7, 5, 6)
_SPAN_START = itemgetter(0, 1, 2)
_SPAN_END = itemgetter(3, 4, 5)
_VALUE = itemgetter(VALUE)   # a token's text


def token_span(tok):
    return _Span(_SPAN_OF_TOKEN(tok))


def tag_span(tok):
    # Span of a tag token starting at its `{`: tag terminals absorb the whitespace they strip before the tag.
    value = tok[VALUE]
    skip = len(value) - len(value.lstrip())
    if skip == 0:
        return token_span(tok)
    stripped = value[:skip]
    newlines = stripped.count("\n")
    if newlines:
        line, col = tok[START_LINE] + newlines, skip - stripped.rindex("\n")
    else:
        line, col = tok[START_LINE], tok[START_COLUMN] + skip
    return _Span((line, col, tok[START_POS] + skip, tok[END_POS], tok[END_LINE], tok[END_COLUMN]))


def keyword_span(tok):
    # Span of a tag token from its keyword where the keyword is on a later line than the tag's `{%`: Jinja2 gives a
    # statement the line of its keyword (for the errors its compiler raises: a block defined twice, an extends out
    # of the top level), else tag_span.
    span = tag_span(tok)
    end_line, end_column, end_pos = tok[END_LINE], tok[END_COLUMN], tok[END_POS]
    if span.line == end_line:
        return span
    width = len(tok[VALUE]) - len(tok[VALUE].rstrip("abcdefghijklmnopqrstuvwxyz"))
    return _Span((end_line, end_column - width, end_pos - width, end_pos, end_line, end_column))


def join_spans(first, last):
    # From where first starts to where last ends (each a node, an intermediate or a token).
    start = _SPAN_START(first.span) if isinstance(first, _SPANNED) else _TOKEN_START(first)
    return _Span(start + (_SPAN_END(last.span) if isinstance(last, _SPANNED) else _TOKEN_END(last)))


def syntax_error(message, span, cls=TemplateSyntaxError):
    return cls(message, span.line, span.col, end=(span.end_line, span.end_col))


def _int_literal(tok):
    # An int literal's value. Past Python's digit limit int() refuses it, which Jinja2's lexer lets out as the
    # ValueError it is (not a syntax error).
    try:
        return int(tok[VALUE].replace("_", ""), 0)
    except ValueError as exc:
        raise syntax_error(str(exc), token_span(tok), twin_of(ValueError)) from None


def _float_refused(tok):
    # A float literal with digits of another script (1.٠, which \d reads): Jinja2's lexer has Python's parser read
    # it, whose SyntaxError it lets out (worded by this Python)
    import ast   # (only here: heavy, and needed for nothing else)
    try:
        ast.literal_eval(tok[VALUE].replace("_", ""))
    except SyntaxError as exc:
        return syntax_error(exc.msg, token_span(tok), python_syntax_twin())
    return syntax_error("invalid decimal literal", token_span(tok), python_syntax_twin())


class _Named:
    # A dotted filter/test name with its span (an intermediate, never part of the AST).
    __slots__ = ("name", "span")

    def __init__(self, name, span):
        self.name, self.span = name, span


_SPANNED = (n.Node, _Named)


class Clause:
    # elif/else clauses on their way into If/For (an intermediate).
    __slots__ = ("kind", "test", "body", "span")

    def __init__(self, kind, test, body, span):
        self.kind, self.test, self.body, self.span = kind, test, body, span


class Builder:
    # One method per grammar rule/alias; see grammar/jinja.lark for the surface syntax of each.

    # ------------------------------------------------------------------------------------------ statements
    def start(self, c):
        body = c[0]
        return n.Template(n.Span((1, 1, 0, 0, 0, 0)), body)

    def body(self, c):
        stmts = []
        for x in c:
            if type(x) is tuple:  # {% print a, b %}
                stmts.extend(x)
            elif x is not None:
                stmts.append(x)
        return tuple(stmts)

    def text(self, c):
        return n.Text(token_span(c[0]), c[0][VALUE])

    def comment(self, c):
        return None

    def raw(self, c):
        opener, bodies = c[0], c[1:-1]  # the body comes in pieces (RAW_BODY tokens are bounded)
        return n.Text(tag_span(opener), "".join(map(_VALUE, bodies)))

    def output(self, c):
        return n.Output(tag_span(c[0]), c[1])

    def print_stmt(self, c):
        # a tuple of statements, spliced into the enclosing body
        return tuple(n.Output(x.span, x) for x in c[1:])

    def if_block(self, c):
        # IF test body elif_clause* else_clause-or-None ENDIF
        tag, test, body, else_ = c[0], c[1], c[2], c[-2]
        elifs = tuple((cl.test, cl.body) for cl in c[3:-2])
        return n.If(tag_span(tag), test, body, elifs, else_.body if else_ is not None else ())

    def elif_clause(self, c):
        return Clause("elif", c[1], c[2], tag_span(c[0]))

    def else_clause(self, c):
        return Clause("else", None, c[1], tag_span(c[0]))

    def for_block(self, c):
        # FOR target IN iter [if-expr] [RECURSIVE] body [else] ENDFOR (neither after a trailing comma)
        if len(c) == 7:
            c = c[:4] + [None, None] + c[4:]
        tag, target, _in, iterable, cond, recursive, body, else_ = c[:8]
        return n.For(tag_span(tag), target, iterable, body, else_.body if else_ is not None else (),
                     cond, recursive is not None)

    def target_name(self, c):
        _check_assignable(c[0], "const")
        return n.NameTarget(token_span(c[0]), c[0][VALUE])

    def ns_target(self, c):
        _check_assignable(c[0], "const")
        return n.NamespaceTarget(join_spans(c[0], c[1]), c[0][VALUE], c[1][VALUE])

    def target_tuple(self, c):
        items = tuple(x for x in c if x is not None)
        return n.TupleTarget(join_spans(items[0], items[-1]), items)

    def paren_target(self, c):
        return c[1]

    def empty_target(self, c):
        # `()`: Jinja2 assigns to an empty tuple (the value must then be empty, checked when it runs)
        return n.TupleTarget(join_spans(c[0], c[1]), ())

    def set_tuple(self, c):
        # {% set a, b ... %}, and {% set a, %} (the grammar allows the trailing comma only right before the %} of a
        # block set, as Jinja2)
        return self.target_tuple(c)

    def set_stmt(self, c):
        return n.Assign(tag_span(c[0]), c[1], c[2])

    def set_block(self, c):
        tag, target = c[0], c[1]
        filters = c[2] if len(c) == 5 else ()
        return n.AssignBlock(tag_span(tag), target, filters, c[-2])

    def filter_chain(self, c):
        return tuple(c)

    def filter_call(self, c):
        named, args = c[0], c[1]
        if args is None:
            return n.Filter(named.span, None, named.name, n.NO_ARGS)
        return n.Filter(join_spans(named, args[1]), None, named.name, args[0], named.span)

    def macro_block(self, c):
        tag, name, _lpar, params, _rpar, body = c[:6]
        _check_assignable(name, "name")
        return n.Macro(tag_span(tag), name[VALUE], params or (), body)

    def params(self, c):
        seen_default = False
        for p in c:
            if p.default is not None:
                seen_default = True
            elif seen_default:
                raise syntax_error("non-default argument follows default argument", p.span)
        return tuple(c)   # (a duplicate name: Python's error where Jinja2 generates the macro, composition.py)

    def param(self, c):
        _check_assignable(c[0], "name")
        return n.Param(token_span(c[0]), c[0][VALUE], c[1])

    def call_block(self, c):
        tag, body = c[0], c[-2]
        params = next((x for x in c[1:-2] if type(x) is tuple and not is_token(x)), ())  # (tokens are tuples too)
        call = [x for x in c[1:-2] if isinstance(x, n.Node)][-1]
        refused = call_refused(call, tag, c[-3][0])
        if refused is not None:
            raise refused
        return n.CallBlock(tag_span(tag), call, params, body)

    def call_close(self, c):
        return c   # (a list: the tag's end on the parser's stack, bodyerrors.refused_before)

    def filter_block(self, c):
        tag, body = c[0], c[-2]
        return n.FilterBlock(tag_span(tag), tuple(c[1:-2]), body)

    def with_block(self, c):
        tag, body = c[0], c[-2]
        pairs = c[1:-2]
        return n.With(tag_span(tag), tuple(map(itemgetter(0), pairs)), tuple(map(itemgetter(1), pairs)), body)

    def with_assign(self, c):
        return (c[0], c[1])

    def do_stmt(self, c):
        return n.ExprStmt(tag_span(c[0]), c[1])

    def break_stmt(self, c):
        return n.Break(tag_span(c[0]))

    def continue_stmt(self, c):
        return n.Continue(tag_span(c[0]))

    def block_block(self, c):
        tag, name, scoped, required, body, (end, end_name, close) = c
        refused = block_end_refused(required is not None, body, name, end, end_name or close)
        if refused is not None:
            raise refused
        return n.Block(keyword_span(tag), name[VALUE], scoped is not None, required is not None, body)

    def block_end(self, c):
        return c   # ENDBLOCK, its NAME or None, the tag's end

    def autoescape_block(self, c):
        return n.Autoescape(tag_span(c[0]), c[1], c[2])

    def include_stmt(self, c):
        return n.Load(tag_span(c[0]), "include", c[1])

    def import_stmt(self, c):
        return n.Load(tag_span(c[0]), "import", c[1], alias=c[2][VALUE])

    def from_stmt(self, c):
        names = tuple(x for x in c[2:] if type(x) is tuple)
        return n.Load(tag_span(c[0]), "from", c[1], names=names)

    def import_name(self, c):
        # Jinja2's parser refuses a private name as it reads it (an error of its parser: before any compile error)
        name, alias = c
        if name[VALUE].startswith("_"):
            raise private_import(name)
        return (name[VALUE], (alias or name)[VALUE])

    def extends_stmt(self, c):
        return n.Load(keyword_span(c[0]), "extends", c[1])

    def context_modifier(self, c):
        return None  # with/without context: read back from the source by compile/composition.py

    def names_context(self, c):
        # `with context` / `without context` after a comma, lexed as two names (grammar: from_stmt).
        first, second = c
        if first[VALUE] in ("with", "without") and second[VALUE] == "context":
            return None
        if first[VALUE].startswith("_"):   # (the first is an import name to Jinja2, refused as it reads it)
            raise private_import(first)
        raise syntax_error(f"expected token 'end of statement block', got {second[VALUE]!r}", token_span(second))

    def generation_block(self, c):
        return n.Generation(tag_span(c[0]), c[1])

    # ----------------------------------------------------------------------------------------- expressions
    def tuple(self, c):
        items = tuple(x for x in c if x is not None)
        return n.TupleExpr(join_spans(items[0], items[-1]), items)

    def cond_expr(self, c):
        then, test = c[0], c[1]
        else_ = c[2] if len(c) > 2 else None
        return n.CondExpr(join_spans(then, c[-1]), test, then, else_)

    def or_op(self, c):
        return n.Or(join_spans(c[0], c[1]), c[0], c[1])

    def and_op(self, c):
        return n.And(join_spans(c[0], c[1]), c[0], c[1])

    def not_op(self, c):
        return n.Not(join_spans(c[0], c[1]), c[1])

    def compare(self, c):
        first = c[0]
        return n.Compare(_Span(_SPAN_START(first.span) + _SPAN_END(c[-1][1].span)), first, tuple(c[1:]))

    def comparison(self, c):
        op = c[0][VALUE]
        return (op, c[1])

    def not_in(self, c):
        return ("not in", c[2])

    def binop(self, c):
        left, op, right = c
        return n.BinOp(_Span(_SPAN_START(left.span) + _SPAN_END(right.span)), op[VALUE], left, right)

    def concat(self, c):
        # first ~ a ~ b ...: one flat Concat; a parenthesised chain first is flattened in, as Jinja2's parser does
        first = c[0]
        items = (first.items if isinstance(first, n.Concat) else (first,)) + tuple(c[2::2])
        return n.Concat(join_spans(first, c[-1]), items)

    def unary_op(self, c):
        op, operand = c
        return n.UnaryOp(join_spans(op, operand), op[VALUE], operand)

    def filter(self, c):
        value, f = c
        return n.Filter(_Span(_SPAN_START(value.span) + _SPAN_END(f.span)), value, f.name, f.args, f.at)

    def test(self, c):
        value, _is, negated, named, args = c
        at = join_spans(_is, named)
        if args is None:
            return n.Test(join_spans(value, named), value, named.name, n.NO_ARGS, negated is not None, at)
        return n.Test(join_spans(value, args[1]), value, named.name, args[0], negated is not None, at)

    def filter_then_call(self, c):
        # x|f(a)(b)(c): the calls apply to the filter's result.
        value, named, (args, rpar) = c[0], c[1], c[2]
        node = n.Filter(join_spans(value, rpar), value, named.name, args, named.span)
        return _calls(node, c[3:])

    def test_then_call(self, c):
        # x is t(a)(b): the calls apply to the test's result.
        value, _is, negated, named, (args, rpar) = c[:5]
        node = n.Test(join_spans(value, rpar), value, named.name, args, negated is not None, join_spans(_is, named))
        return _calls(node, c[5:])

    def dotted_name(self, c):
        return _Named(".".join(map(_VALUE, c)), join_spans(c[0], c[-1]))

    def single_arg(self, c):
        return (n.Args(positional=(c[0],)), c[0])

    def getattr(self, c):
        obj, name = c
        return n.Getattr(_Span(_SPAN_START(obj.span) + _TOKEN_END(name)), obj, name[VALUE])

    def getitem_dot(self, c):
        obj, index = c
        return n.Getitem(join_spans(obj, index), obj, n.Const(token_span(index), _int_literal(index)))

    def getitem(self, c):
        obj, _lsqb, subs, rsqb = c
        if len(subs) == 1:
            key = subs[0]
        else:
            key = n.TupleExpr(join_spans(_lsqb, rsqb), tuple(subs))
        return n.Getitem(_Span(_SPAN_START(obj.span) + _TOKEN_END(rsqb)), obj, key)

    def call(self, c):
        func, (args, rpar) = c
        return n.Call(_Span(_SPAN_START(func.span) + _TOKEN_END(rpar)), func, args)

    def subscripts(self, c):
        return list(c)

    def slice(self, c):
        start, colon, stop, _colon2, step = (list(c) + [None] * 5)[:5]
        first = start if start is not None else colon
        last = next((x for x in (step, _colon2, stop) if x is not None), colon)
        return n.Slice(join_spans(first, last), start, stop, step)

    def call_args(self, c):
        # (a, b, k=v, *args, **kwargs) with Jinja2's ordering rules.
        lpar, rpar = c[0], c[-1]
        positional, keywords, star, dstar = [], [], None, None
        for kind, a, b in c[1:-1]:
            if kind == "pos":
                if star is not None or dstar is not None or keywords:
                    raise _bad_call(lpar)
                positional.append(a)
            elif kind == "kw":
                if dstar is not None:
                    raise _bad_call(lpar)
                keywords.append((a, b))
            elif kind == "star":
                if star is not None or dstar is not None:
                    raise _bad_call(lpar)
                star = a
            else:
                if dstar is not None:
                    raise _bad_call(lpar)
                dstar = a
        repeated, keyword_dict = None, False
        if keywords:
            from keyword import iskeyword   # (Jinja2 asks the running Python; a cold start without keywords skips it)
            names = [name for name, _ in keywords]
            keyword_dict = any(map(iskeyword, names))
            name = None if keyword_dict else n.first_repeated(names)
            if name is not None:
                # Python refuses the call Jinja2 generates for this, where it generates one (compile/calls.py)
                repeated = (name, lpar[START_LINE], lpar[START_COLUMN])
        return (n.Args(tuple(positional), tuple(keywords), star, dstar, repeated, keyword_dict), rpar)

    def pos_arg(self, c):
        return ("pos", c[0], None)

    def kw_arg(self, c):
        return ("kw", c[0][VALUE], c[1])

    def star_arg(self, c):
        return ("star", c[1], None)

    def dstar_arg(self, c):
        return ("dstar", c[1], None)

    def name(self, c):
        tok = c[0]
        value = tok[VALUE]
        if value in CONSTANT_NAMES:
            return n.Const(token_span(tok), CONSTANT_NAMES[value])
        return n.Name(_Span(_SPAN_OF_TOKEN(tok)), value)

    def string(self, c):
        if len(c) == 1:
            tok = c[0]
            value = tok[VALUE]
            if "\\" in value:
                value = _unescape(tok)
            else:
                value = value[1:-1]
            return n.Const(_Span(_SPAN_OF_TOKEN(tok)), value)
        return n.Const(join_spans(c[0], c[-1]), "".join(map(_unescape, c)))  # 'a' "b": adjacent literals

    def int(self, c):
        return n.Const(token_span(c[0]), _int_literal(c[0]))

    def float(self, c):
        if not c[0][VALUE].isascii():
            raise _float_refused(c[0])
        return n.Const(token_span(c[0]), float(c[0][VALUE].replace("_", "")))

    def empty_tuple(self, c):
        return n.TupleExpr(join_spans(c[0], c[1]), ())

    def paren(self, c):
        return c[1]

    def paren_tuple(self, c):
        items = tuple(x for x in c[1:-1] if x is not None)
        return n.TupleExpr(join_spans(c[0], c[-1]), items)

    def list(self, c):
        return n.ListExpr(join_spans(c[0], c[-1]), tuple(c[1:-1]))

    def dict(self, c):
        return n.DictExpr(join_spans(c[0], c[-1]), tuple(c[1:-1]))

    def pair(self, c):
        return (c[0], c[2])


# A backslash and the character after it (compiled on first use, re's cache: only a literal with an unknown escape
# needs it); the escapes Python's unicode-escape codec knows.
_ESCAPE = r"(?s)\\(.)"
_KNOWN_ESCAPES = frozenset("\n\\'\"abfnrtv01234567xNuU")


def _all_escapes_known(body):
    # Whether every backslash of body (a string literal's, with one) starts an escape of _KNOWN_ESCAPES (an escaped
    # backslash is one, and the character after it starts none).
    at = body.find("\\")
    while at >= 0:
        if body[at + 1:at + 2] not in _KNOWN_ESCAPES:
            return False
        at = body.find("\\", at + 2)
    return True


def _keep_unknown_escape(m):
    # Jinja quirk kept: backslashreplace turns '\\é' into '\\\\xe9', which decodes to a backslash and 'xe9'
    ch = m.group(1)
    return m.group(0) if ch in _KNOWN_ESCAPES or not ch.isascii() else "\\" + m.group(0)


_decode_escapes = codecs.unicode_escape_decode


def _calls(func, arg_lists):
    for args, rpar in arg_lists:
        func = n.Call(join_spans(func, rpar), func, args)
    return func


def _check_assignable(tok, what):
    # true/false/none (any spelling Jinja2 gives a constant) cannot be assigned: Jinja2 says "can't assign to
    # 'const'" for set/for/with targets and "can't assign to 'name'" for macro names and parameters.
    if tok[VALUE] in CONSTANT_NAMES:
        raise syntax_error(f"can't assign to {what!r}", token_span(tok))


def private_import(name):
    return syntax_error("names starting with an underline can not be imported", token_span(name),
                        TemplateAssertionError)


def block_end_refused(required, body, name, end, end_name):
    # The TemplateSyntaxError Jinja2 raises at a block's end tag `end` (and the token after it, end_name: the name
    # or the tag's end), or None: a required block's body holds more than text that is whitespace (checked first:
    # where the token after `endblock` is), an end tag that names another block.
    if required and any(type(x) is not n.Text or x.value.strip() for x in body):
        # (under the end tag, or the name after it; on a later line, under the token there, Jinja2's line)
        after = end_name is not None and (end_name[TYPE] == "NAME" or end_name[START_LINE] != end[END_LINE])
        at = token_span(end_name) if after else tag_span(end)
        return syntax_error("Required blocks can only contain comments or whitespace", at)
    if end_name is not None and end_name[TYPE] == "NAME" and end_name[VALUE] != name[VALUE]:
        return syntax_error(f"expected token 'end of statement block', got {end_name[VALUE]!r}", token_span(end_name))
    return None


def call_refused(node, tag, close=None):
    # The TemplateSyntaxError Jinja2 raises for node as the expression of the call block opened by tag (its
    # token) and ended by close (the tag's end token, if known), or None: it must be a call (else an error under the
    # expression, on the line of the tag's name). A `not` where the expression starts (a name to our grammar there)
    # is the operator to Jinja2's parser, applied to what follows: no call, or, alone, an operator with no operand
    # (refused at the tag's end, or at its colon).
    first = node   # (the node the expression starts with: down the chain of calls, lookups, filters and tests)
    while True:
        if type(first) is n.Call:
            first = first.func
        elif type(first) is n.Getattr or type(first) is n.Getitem:
            first = first.obj
        elif type(first) is n.Filter or type(first) is n.Test:
            first = first.value
        else:
            break
    if type(first) is n.Name and first.name == "not":
        if first is node:
            if close is None:
                return syntax_error("unexpected 'end of statement block'", node.span)
            got = "':'" if close[VALUE].startswith(":") else "'end of statement block'"
            return TemplateSyntaxError(f"unexpected {got}", close[START_LINE], close[START_COLUMN],
                                       end=(close[START_LINE], close[START_COLUMN] + 1))
    elif isinstance(node, n.Call):
        return None
    if node.span.line != tag[END_LINE]:
        return TemplateSyntaxError("expected call", tag[END_LINE], tag[END_COLUMN] - len("call"),
                                   end=(tag[END_LINE], tag[END_COLUMN]))
    return syntax_error("expected call", node.span)


def _bad_call(lpar):
    return syntax_error("invalid syntax for function call expression", token_span(lpar))


def _unescape(tok):
    # A string literal's value: Python escape rules (\n, \x41, \u00e9, \N{...}; unknown escapes kept).
    body = tok[VALUE][1:-1]
    if "\\" not in body:
        return body
    # Unknown escapes (\\q, \\d) are kept as written, as the codec does, but doubled first: the codec warns about
    # them (a DeprecationWarning, an exception under -W error).
    if not _all_escapes_known(body):   # (rare: a Python call per escape only then)
        body = re.sub(_ESCAPE, _keep_unknown_escape, body)
    try:
        return _decode_escapes(body.encode("ascii", "backslashreplace"))[0]
    except UnicodeDecodeError as exc:
        # (Jinja2's message: the codec's, after its last colon)
        raise syntax_error(str(exc).split(":")[-1].strip(), token_span(tok)) from None
