"""A tag's text as Jinja2's expression lexer reads it, for the syntax error messages (messages.py): Jinja2's
lexer raises its errors (a bracket that does not match, a character no token starts with) before its parser sees
the tokens after them, and its tokens are not always ours (`{%` is `{` and `%` to it, `==` one token where ours
read an assignment's `=`). Also what Jinja2's parser checks of a call's arguments as it reads them, and where
the tuple of a target it reads has its last comma (the line it gives the tuple)."""

import re

__all__ = ["lexed_as_jinja", "block_tag_end", "refused_argument", "equals_for_assign", "last_comma"]


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
