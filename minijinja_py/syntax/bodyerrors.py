"""Errors in a template's body as Jinja2 words them, and a tag's text as Jinja2's expression lexer reads it, for the
syntax error messages (messages.py).

In the body: a tag Jinja2 does not know or that closes no open block ("Encountered unknown tag X. Jinja was looking
for the following tags: ... The innermost block that needs to be closed is Y."), a comment or raw block never
closed, a tag with no name, a string never closed; the blocks still open where the parser stopped, read from its
value stack; and what Jinja2 refuses of a statement before it reads as far as ours (a call block's expression, a
block's end, an import name).

In a tag: Jinja2's lexer raises its errors (a bracket that does not match, a character no token starts with) before
its parser sees the tokens after them, and its tokens are not always ours (`{%` is `{` and `%` to it, `==` one token
where ours read an assignment's `=`). Also what Jinja2's parser checks of a call's arguments as it reads them, and
where the tuple of a target it reads has its last comma (the line it gives the tuple)."""

import re

from ..core.errors import TemplateSyntaxError
from .builder import (
    CONSTANT_NAMES, Clause, block_end_refused, call_refused, private_import, syntax_error, tag_span, token_span,
)
from . import delimiters as syntax_options, nodes
from .delimiters import TAG_TERMINALS as _TAG_TERMINALS
from .lexer import token_class

__all__ = ["open_blocks", "block_message", "unreadable", "refused_before", "target_start", "target_first",
           "constant_refused", "assignable", "node_kind", "lexed_as_jinja", "block_tag_end", "refused_argument",
           "equals_for_assign", "last_comma"]


# --------------------------------------------------------------------------- a tag as Jinja2's lexer reads it
# The expression lexer's view of text inside a tag (Jinja2's): a number, a name, a whole string, an operator
# (the longest first), else a character it refuses (an unterminated string's quote among them). (No float right
# after a dot: x.1.5 is two lookups.)
_EXPRESSION_TEXT = (r"(?P<float>(?<!\.)\d[\d_]*(?:\.\d[\d_]*(?:[eE][+-]?\d[\d_]*)?|[eE][+-]?\d[\d_]*))"
                    r"|(?P<integer>0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|[1-9](?:_?\d)*|0(?:_?0)*)"
                    r"|(?P<name>[^\W0-9]\w*)"
                    r"|(?P<string>'[^'\\]*(?:\\.[^'\\]*)*'|\"[^\"\\]*(?:\\.[^\"\\]*)*\")"
                    r"|(?P<operator>//|\*\*|[=!<>]=|[-+/*%~\[\](){}<>=.:|,;])|(?P<char>.)")


_CLOSING = {"(": ")", "[": "]", "{": "}"}
_OPERAND_ENDS = frozenset({"name", "string", "integer", "float", ")", "]", "}"})
_WORD_OPERATORS = frozenset({"in", "not", "and", "or", "is", "if", "else"})


def _name_end(source, pos):
    # The end of the name at pos as Jinja2's lexer reads one: a run of \w and of the other characters an identifier
    # may go on with (·, combining marks), any digit but an ASCII one first (after a number, a name starts).
    end = pos + 1
    while end < len(source) and (source[end].isalnum() or ("a" + source[end]).isidentifier()):   # (linear)
        end += 1
    return end


def block_tag_end(d):
    # (pattern, description) of a block tag's end for lexed_as_jinja (d: the delimiters)
    return re.compile("[-+]?" + re.escape(d.block_end)), "end of statement block"


def lexed_as_jinja(source, pos, tag_end, previous=None):
    # Jinja2's expression lexer run over source from pos (inside a tag): yields (error message or None, the
    # token's description, its position, its width, the innermost open bracket's closing one or None) for each
    # token up to the tag's end or an error. It keeps brackets balanced as it goes (a closing one that does not
    # match is its error) and reads the tag's end (tag_end: a compiled pattern, its description) only where no
    # bracket is open; a name or an operator is described by itself, as Jinja2's describe_token does ("got
    # 'with'"). previous: what comes before pos ("name", or None).
    token = re.compile(_EXPRESSION_TEXT, re.S)
    # the closing brackets wanted, innermost last ("call" for a call's `)`, ":" for a dict's `}` before a colon)
    brackets = []
    test_name = False   # whether a test's name comes next (after `is`, `is not`)
    while True:
        while pos < len(source) and source[pos].isspace():
            pos += 1
        end = None if brackets else tag_end[0].match(source, pos)
        if pos >= len(source) or end:
            yield (None, tag_end[1], pos, end.end() - pos, None) if end else \
                (None, "end of template", pos, 0, brackets[-1] if brackets else None)
            return
        m = token.match(source, pos)
        kind, text = m.lastgroup, m.group()
        end = m.end()
        if kind == "name" or kind == "char" and ("a" + text).isidentifier():
            end = _name_end(source, pos)
            kind, text = "name", source[pos:end]
        inside = brackets[-1] if brackets else None
        error = f"unexpected char {text!r} at {pos}" if kind == "char" else \
            "Invalid character in identifier" if kind == "name" and not text.isidentifier() else None
        if text in _CLOSING:
            # (a `(` after an operand is a call's, whose arguments Jinja2 reads as a list's items, not a tuple's)
            brackets.append(_CLOSING[text] if text != "(" or previous not in _OPERAND_ENDS else "call")
            if text == "{":
                brackets[-1] = ":"   # (a dict's key comes first, then its colon)
        elif text in ":," and brackets and brackets[-1] in ":}":
            brackets[-1] = "}" if text == ":" else ":"
        elif kind == "operator" and text in ")]}":
            wanted = {"call": ")", ":": "}"}.get(brackets[-1], brackets[-1]) if brackets else None
            if brackets:
                brackets.pop()
            if wanted != text:
                error = f"unexpected {text!r}" + (f", expected {wanted!r}" if wanted else "")
        yield error, kind if kind in ("float", "integer", "string") else text, pos, end - pos, inside
        if error:
            return
        pos = end
        if test_name and text != "not":   # (a test's name, even `in`: a `(` after it opens the test's arguments)
            previous, test_name = "name", False
        else:
            test_name = text == "is" or text == "not" and previous == "is"
            previous = text if kind == "operator" or text in _WORD_OPERATORS else kind


def refused_argument(seen, source, error_next=False, tag_kind=None):
    # Jinja2 checks each argument of a call before it parses it: a positional one after a keyword one, *args or
    # **kwargs, a keyword one after **kwargs, a second *args or **kwargs are "invalid syntax for function call
    # expression" at the call's `(`; in a signature (a macro's follows its name, a call block's comes first:
    # tag_kind is the tag's terminal), a parameter with no default after one with a default is "non-default
    # argument follows default argument". seen: the tag's tokens as lexed_as_jinja reads them, (text, position,
    # width, the innermost bracket's closer before it), up to where ours stopped; error_next: whether the lexer
    # refuses the text after them (Jinja2 reads the token after a name before it tells a keyword argument or a
    # default). (message, position) or None.
    at = {"MACRO": 1, "CALL": 0}.get(tag_kind)
    signature = seen[at][1] if at is not None and len(seen) > at and seen[at][0] == "(" else None
    calls = []   # for each open bracket: [its position, a keyword argument (a default) seen, *args, **kwargs seen]
    before = None
    for at, (got, pos, width, inside) in enumerate(seen):
        if inside == "call" and before in ("(", ",") and got != ")":   # (an argument starts)
            lpar, keyword, star, dstar = calls[-1]
            name = source[pos:pos + width].isidentifier()
            if name and error_next and at == len(seen) - 1:
                return None
            assign = name and re.compile(r"\s*=(?!=)").match(source, pos + width)
            if lpar == signature:
                if name and not assign and keyword:
                    return "non-default argument follows default argument", pos
                calls[-1][1] = keyword or bool(assign)
                refused = False
            elif got == "*":
                refused, calls[-1][2] = star or dstar, True
            elif got == "**":
                refused, calls[-1][3] = dstar, True
            elif assign:
                refused, calls[-1][1] = dstar, True
            else:
                refused = keyword or star or dstar
            if refused:
                return "invalid syntax for function call expression", lpar
        if got in _CLOSING:
            calls.append([pos, False, False, False])
        elif got in (")", "]", "}") and calls:
            calls.pop()
        before = got
    return None


def equals_for_assign(tag_kind, previous):
    # Jinja2's error for `==` where an assignment's `=` may come (after a set's or a with's target, a parameter's
    # name; tag_kind: the tag's terminal), previous: the token before it
    if previous == ",":
        return "unexpected '=='"   # (a target tuple's next item)
    wanted = {"SET": "end of statement block", "WITH": "="}.get(tag_kind, ",")   # (a signature's next name)
    return f"expected token {wanted!r}, got '=='"


def last_comma(source, start, tag_end, namespaced):
    # Where the last comma after an item is in the target that starts at start (Jinja2's simplified tuple: names,
    # literals, bracketed groups; `ns.attr` if namespaced, as in {% set %}), or None. tag_end: as lexed_as_jinja's
    comma = None
    item_done = False
    previous = None
    for error, got, pos, _, inside in lexed_as_jinja(source, start, tag_end):
        if error:
            break
        if inside is None and item_done:
            if got == ",":
                comma, item_done = pos, False
            elif not (got == previous == "string" or namespaced and "." in (got, previous)):
                break
        elif inside is None:
            item_done = True
        previous = got
    return comma


# ----------------------------------------------------------------------- the body as Jinja2's parser reads it
# Block tags and the tags that may close or continue them.
_BLOCK_ENDS = {
    "if": ("elif", "else", "endif"), "for": ("endfor", "else"), "set": ("endset",), "macro": ("endmacro",),
    "call": ("endcall",), "filter": ("endfilter",), "with": ("endwith",), "generation": ("endgeneration",),
    "raw": ("endraw",), "block": ("endblock",), "autoescape": ("endautoescape",),
}


def open_blocks(exc):
    # The block tags still open where the parser stopped, outermost first, from the parser's value stack:
    # (name, opening tag token, the tags that may continue or close it).
    # (statements the parser has not reduced yet are on the stack too: a block closed by its end tag, a set with
    # `=` in its tag)
    stack = []
    in_tag = None   # the name of the tag the tokens are in
    for value in exc.values:
        if type(value) is Clause and value.kind == "else" and stack:   # (reduced before the tag after it)
            block, tok, ends = stack[-1]
            stack[-1] = (block, tok, tuple(e for e in ends if e.startswith("end")))
        if not isinstance(value, token_class()):
            continue
        if value.type in ("_BLOCK_CLOSE", "_COLON_CLOSE", "VAR_OPEN"):
            in_tag = None
        elif value.type == "_ASSIGN" and in_tag == "set" and stack and stack[-1][0] == "set":
            stack.pop()
            in_tag = None
        elif value.type in _TAG_TERMINALS:
            name = in_tag = _TAG_TERMINALS[value.type]
            if name in _BLOCK_ENDS:
                stack.append((name, value, _BLOCK_ENDS[name]))
            elif name.startswith("end") and stack and stack[-1][0] == name[3:]:
                stack.pop()
            elif name == "else" and stack:
                # after {% else %} only the end tag may come
                block, tok, ends = stack[-1]
                stack[-1] = (block, tok, tuple(e for e in ends if e.startswith("end")))
    return stack


def block_message(prefix, stack, found=None):
    # Jinja2's wording: what was found, the tags the innermost block was waiting for, and that block.
    # (Not the parser's expected terminals: LALR merges the states of all block bodies, so those name every end
    # tag of the grammar.)
    parts = [prefix]
    if stack:
        name, tok, looking = stack[-1]
        wanted = " or ".join(map(repr, looking))
        outer = {e for _, _, ends in stack[:-1] for e in ends}
        if found is not None and found in outer:
            parts.append("You probably made a nesting mistake. Jinja is expecting this tag, but currently "
                         f"looking for {wanted}.")
        else:
            parts.append(f"Jinja was looking for the following tags: {wanted}.")
        parts.append(f"The innermost block that needs to be closed is {name!r} (opened on line {tag_span(tok).line}).")
    return " ".join(parts)


_TAG_NAME = {"block": r"[-+]?\s*(\w*)", "line": r"[-+]?[^\S\n]*(\w*)"}   # after the opener


def _opener(source, at, d):
    # (kind, width) of the opener the text at `at` starts ("comment", "block", "variable", or "line": a line
    # statement prefix at the start of a line), the longest first as Jinja2 tries them; (None, 0) for none.
    if syntax_options.line_statement_at(d, source, at):
        return "line", len(d.line_statement_prefix)
    kinds = [("comment", d.comment_start), ("block", d.block_start), ("variable", d.variable_start)]
    for kind, delimiter in sorted(kinds, key=lambda k: len(k[1]), reverse=True):
        if source.startswith(delimiter, at):
            return kind, len(delimiter)
    return None, 0


def _no_tag_name(source, pos, line, col, width, d):
    # A tag with no name at pos (after its opener, at line:col, width wide): Jinja2's lexer reads the token
    # there before its parser finds it is no name, and may refuse it first (a closing bracket, a character).
    error, got, at, _, _ = next(lexed_as_jinja(source, pos, block_tag_end(d)))
    if error is None and (got == "end of template" or source.count("\n", 0, at) + 1 == line):
        return TemplateSyntaxError("tag name expected", line, col, end=(line, col + width))
    error = error or "tag name expected"   # (on the line of the token where the name should be)
    line = source.count("\n", 0, at) + 1
    col = at - source.rfind("\n", 0, at)
    return TemplateSyntaxError(error, line, col, end=(line, col + 1))


def unreadable(exc, source, pos, line, col, stack, d, tables):
    # The error for text at pos (whitespace skipped) that no terminal reads: a comment that is never closed, an
    # unknown tag, a string that is never closed; None for anything else. d: the delimiters.
    rest = source[pos:]
    stripped = rest.lstrip()
    skipped = rest[:len(rest) - len(stripped)]
    if skipped:
        newlines = skipped.count("\n")
        line += newlines
        col = (len(skipped) - skipped.rindex("\n")) if newlines else col + len(skipped)
    kind, width = _opener(source, pos + len(skipped), d)
    if kind == "comment":
        return TemplateSyntaxError("Missing end of comment tag", line, col, end=(line, col + width))
    if kind in _TAG_NAME:
        m = re.compile(_TAG_NAME[kind]).match(stripped, width)
        name = m.group(1)
        raw_open = re.compile(r"\s*-?" + re.escape(d.block_end)).match(stripped, m.end())
        if name == "raw" and kind == "block" and raw_open:
            # (a raw tag with more in it than `raw` is a block tag Jinja2 does not know)
            return TemplateSyntaxError("Missing end of raw directive", line, col, end=(line, col + width))
        if not name or name[0].isdigit():
            return _no_tag_name(source, pos + len(skipped) + m.start(1), line, col, width, d)
        message = block_message(f"Encountered unknown tag {name!r}.", stack, found=name)
        if "\n" in m.group(0):   # (on the name's line, as Jinja2)
            line += m.group(0).count("\n")
            col = m.start(1) - stripped.rindex("\n", 0, m.start(1))
            return TemplateSyntaxError(message, line, col, end=(line, col + len(name)))
        return TemplateSyntaxError(message, line, col, end=(line, col + m.end(1)))
    quote = stripped[:1]
    # (a whole string, the grammar's STRING, may stand there: it may run past the tag's end)
    if quote and quote in "\"'" and not re.match(tables.terminals["STRING"], stripped):
        # (Jinja2's lexer refuses the quote as a character no token starts with)
        return TemplateSyntaxError(f"unexpected char {quote!r} at {pos + len(skipped)}", line, col,
                                   end=(line, col + 1))
    return None


_HEAD_CLOSES = ("_BLOCK_CLOSE", "_COLON_CLOSE")


def _head_close(value):
    return value[0] if type(value) is list and len(value) == 1 else value


def _kind(value):
    return value.type if isinstance(value, token_class()) else None


def _lexer_refuses(source, pos, d):
    # Whether Jinja2's lexer refuses the token at pos, in a block tag (its error comes first where its parser
    # looks at that token before it fails)
    return next(lexed_as_jinja(source, pos, block_tag_end(d)))[0] is not None


def refused_before(exc, source, d):
    # What Jinja2 refuses before it reads on to where ours stopped (a TemplateSyntaxError, or None): a call block
    # still open whose expression is no call (checked before the block's body is parsed), a block's end tag (see
    # block_end_refused), an import name of {% from %}'s. d: the delimiters.
    values = exc.values
    for at, value in enumerate(values):
        if _kind(value) == "CALL":
            # (the tag's end on the stack after the expression: a list of its token (grammar: call_close), or the
            # token itself before the body's first statement comes; other lists there are a signature's parts)
            close = next((i for i in range(at + 1, len(values)) if _kind(_head_close(values[i])) in _HEAD_CLOSES),
                         None)
            if close is not None and isinstance(values[close - 1], nodes.Node):
                refused = call_refused(values[close - 1], value, _head_close(values[close]))
                if refused is not None:
                    return refused
    end = len(values) - (1 if _kind(values[-1]) == "ENDBLOCK" else 2) if values else -1
    if end > 0 and _kind(values[end]) == "ENDBLOCK" and (end == len(values) - 1 or _kind(values[-1]) == "NAME"):
        start = max((at for at in range(end) if _kind(values[at]) == "BLOCK"), default=0)
        required = any(_kind(value) == "REQUIRED" for value in values[start:end])
        end_name = values[end + 1] if end + 1 < len(values) else None
        if required and end_name is None and _lexer_refuses(source, values[end].end_pos, d):
            return None
        end_name = end_name or getattr(exc, "token", None)   # (the token after `endblock`: where Jinja2 stops)
        body = values[end - 1] if type(values[end - 1]) is tuple else ()
        return block_end_refused(required, body, values[start + 1], values[end], end_name)
    return _import_name_refused(values, source, d)


def _import_name_refused(values, source, d):
    # Jinja2 refuses an import name of {% from %}'s as it reads it (the token after it lexed): a private one; and
    # reads no second name after it, unless the two are `with context` or `without context`
    keyword = next((at for at in range(len(values) - 1, -1, -1) if _kind(values[at]) == "_KW_IMPORT"), None)
    if keyword is None or not any(_kind(value) == "FROM" for value in values[:keyword]):
        return None
    at = next((at for at in range(len(values) - 1, keyword, -1)
               if _kind(values[at]) == "NAME" and _kind(values[at - 1]) in ("_KW_IMPORT", "_COMMA")), None)
    if at is None:
        return None
    name = values[at]
    if name.value.startswith("_"):
        return None if _lexer_refuses(source, name.end_pos, d) else private_import(name)
    second = values[at + 1] if at + 1 < len(values) and _kind(values[at + 1]) == "NAME" else None
    if second is None or name.value in ("with", "without") and second.value == "context":
        return None
    return syntax_error(f"expected token 'end of statement block', got {second.value!r}", token_span(second))


def target_start(values, tag):
    # Where on the parser's value stack (values) the target it stopped in starts (the index of its first value): a
    # target of {% for %}, {% set %} or {% with %} (tag: the innermost tag's token), which Jinja2 parses as
    # primaries, not names; None elsewhere.
    if tag is None or tag.type not in ("FOR", "SET", "WITH"):
        return None
    start = values.index(tag) + 1
    for at in range(start, len(values)):
        value = values[at]
        if type(value) is tuple or type(value) is list and type(value[0]) is tuple:
            start = at + 2   # ({% with %}'s assignments done, and the comma after them)
        elif type(value) is list:   # (a tuple's items so far, with the commas after them)
            continue
        elif isinstance(value, token_class()):
            if value.type not in ("NAME", "_DOT", "_COMMA", "LPAR", "RPAR"):
                return None
        elif not isinstance(value, (nodes.NameTarget, nodes.NamespaceTarget, nodes.TupleTarget)):
            return None
    return start if start < len(values) else None


def constant_refused(values, tag, target):
    # Jinja2 reads true/false/none as a constant where a target stands (from values[target] on, see target_start),
    # then refuses to assign to it, or to the tuple it is in; as a macro's name or a parameter's, to the name:
    # (message, position) where the parser stopped right after one (not an attribute's name), else None
    if _kind(values[-1]) != "NAME" or values[-1].value not in CONSTANT_NAMES or _kind(values[-2]) == "_DOT":
        return None
    if target is None:
        return ("can't assign to 'name'", values[-1].start_pos) if _at_parameter(values, tag) else None
    if type(values[target]) is not list and not any(_kind(value) == "_COMMA" for value in values[target:]):
        return "can't assign to 'const'", values[-1].start_pos
    return "can't assign to 'tuple'", target_first(values, target)


def target_first(values, target):
    # Where the target that starts at values[target] (see target_start) starts in the source
    first = values[target][0] if type(values[target]) is list else values[target]
    return first.span.start if isinstance(first, nodes.Node) else first.start_pos


def _at_parameter(values, tag):
    # Whether the name on top of the parser's stack is a macro's name or a parameter's name in a signature (a
    # macro's, a call block's), which Jinja2 reads as names to assign to
    if tag is None or tag.type not in ("MACRO", "CALL"):
        return False
    at = values.index(tag)
    if tag.type == "MACRO" and at == len(values) - 2:
        return True
    lpar = at + (2 if tag.type == "MACRO" else 1)
    return lpar < len(values) - 1 and _kind(values[lpar]) == "LPAR" and _kind(values[-2]) in ("LPAR", "_COMMA") \
        and not any(_kind(value) == "RPAR" for value in values[lpar:])


def assignable(expr):
    # Whether Jinja2 assigns to expr as a target: a name, or a tuple of such (a constant name is a constant)
    if type(expr) is nodes.TupleExpr:
        return all(map(assignable, expr.items))
    return type(expr) is nodes.Name


def node_kind(expr):
    # The name Jinja2's error gives an expression node (its class's, in lower case)
    kind = type(expr)
    if kind is nodes.BinOp:
        return {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod"}.get(expr.op, "pow")
    if kind is nodes.UnaryOp:
        return "neg" if expr.op == "-" else "pos"
    return {nodes.TupleExpr: "tuple", nodes.ListExpr: "list", nodes.DictExpr: "dict"}.get(kind) or \
        kind.__name__.lower()
