"""Terminal regexps → Python functions that find what they find, for a lexer that has not compiled them yet."""

# Compiling a regexp is most of a cold start's first parse. A lexer (lexer.py) reads some terminals without one:
# fixed texts of punctuation and keywords (literals), and, while its block tags are read natively, the number and
# string literals and the delimiters whose regexps the grammar spells as KNOWN has them: the function of a pattern
# finds the same match (the same end, or none) at every place, which tests/test_grammar.py checks against the regexp
# on generated text. A family of block tags is read by its KeywordFamily until its lexer has read enough tags to
# compile the family's regexp (the largest of a first parse), finding what that regexp finds.
# What a function finds is the tuple (terminal name, end), where a regexp's match method gives a re.Match (see
# kind_and_end; a function that hands over to a regexp gives its re.Match).
# A pattern spelt otherwise is compiled as usual.

import re

__all__ = ["kind_and_end", "KNOWN", "NAME_CHAR", "WORD_END", "TAG_END", "KeywordFamily", "fixed_text", "alternatives",
           "texts_matcher", "literals"]


def kind_and_end(m):
    # (terminal name, end) of what a match function found: a native function's own tuple (name, end), made by
    # tuple's own syntax and read without a method call (most tokens of a first parse), or a re.Match.
    return m if m.__class__ is tuple else (m.lastgroup, m.end())


# ----------------------------------------------------------------------------------- fixed texts (literals)
_SPECIAL = frozenset(".^$*+?{}[]()|\\")
# A keyword terminal's pattern: lowercase letters, then this (no name character of the grammar's may follow)
NAME_CHAR = "[^\x00-/:-@[-^`{-\x7f\\s]"
WORD_END = f"(?!{NAME_CHAR})"
TAG_END = "(?!\\w)"   # how a family member (a block tag's keyword) ends


def fixed_text(pattern):
    # The text a pattern matches when it is a fixed string of punctuation (escaped or not), else None.
    chars, escaped = [], False
    for char in pattern:
        if escaped or char not in _SPECIAL:
            if char.isalnum() or char == "_" or char.isspace():
                return None
            chars.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            return None
    return "".join(chars) if chars and not escaped else None


def alternatives(pattern):
    # The texts of a pattern that is fixed texts of punctuation in alternation (`a|b`, `(?:a|b)`), in order,
    # else None.
    body = pattern[3:-1] if pattern.startswith("(?:") and pattern.endswith(")") else pattern
    texts = list(map(fixed_text, body.split("|")))
    return None if None in texts else texts


def texts_matcher(name, texts):
    # A terminal's match function for its texts in alternation: the first that is at pos, as its regexp finds.
    def match(text, pos):
        for fixed in texts:
            if text.startswith(fixed, pos):
                return (name, pos + len(fixed))
        return None
    return match


def literals(patterns):
    # {name: text} of the terminals matched by one fixed text, at most one of which can match at any place: the
    # punctuation terminals none of whose texts starts another's, and the keywords (a keyword ends where a name
    # character cannot follow, so one that starts another cannot match where that one does); a text that two
    # terminals share is left out.
    punctuation, keywords = {}, {}
    for name, pattern in patterns.items():
        word = pattern[:-len(WORD_END)] if pattern.endswith(WORD_END) else ""
        if word and word.isascii() and word.isalpha() and word.islower():
            keywords[name] = word
        else:
            text = fixed_text(pattern)
            if text is not None:
                punctuation[name] = text
    starts = {text[:i] for text in punctuation.values() for i in range(1, len(text))}   # of a longer one
    found = {**{name: text for name, text in punctuation.items() if text not in starts}, **keywords}
    texts = list(found.values())
    return {name: text for name, text in found.items() if texts.count(text) == 1}


# ------------------------------------------------------------------------------------ numbers and strings
# \d of a str regexp is str.isdecimal (Unicode's decimal digits); a run `(?:\d+_)*\d+` or `X(?:_?X)*` takes
# single underscores between digits, never a trailing one (backtracking gives the same end: what can follow a run
# is never a digit or an underscore).

def _run(text, at, digit):
    # The end of `(?:_?D)*` from at, D the characters digit() accepts.
    size = len(text)
    while at < size:
        if digit(text[at]):
            at += 1
        elif text[at] == "_" and at + 1 < size and digit(text[at + 1]):
            at += 2
        else:
            break
    return at


def _decimals(text, at):
    # The end of `(?:\d+_)*\d+` from at, or -1.
    return _run(text, at + 1, str.isdecimal) if at < len(text) and text[at].isdecimal() else -1


def _exponent(text, at):
    # The end of `[eE][+\-]?(?:\d+_)*\d+` from at, or -1.
    if text[at:at + 1] not in ("e", "E"):
        return -1
    at += 1
    if text[at:at + 1] in ("+", "-"):
        at += 1
    return _decimals(text, at)


def _float(name):
    def match(text, pos):
        if pos and text[pos - 1] == ".":   # (?<!\.)
            return None
        end = _decimals(text, pos)
        if end < 0:
            return None
        fraction = _decimals(text, end + 1) if text.startswith(".", end) else -1
        found = _exponent(text, end if fraction < 0 else fraction)
        if found < 0:
            found = fraction
        return None if found < 0 else (name, found)
    return match


_RADIX = {"b": "01", "B": "01", "o": "01234567", "O": "01234567", "x": "abcdefABCDEF", "X": "abcdefABCDEF"}


def _int(name):
    def match(text, pos):
        first = text[pos:pos + 1]
        if first == "0":
            digits = _RADIX.get(text[pos + 1:pos + 2])
            if digits is not None:
                hex_digits = digits[0] == "a"
                end = _run(text, pos + 2, lambda c: c in digits or hex_digits and c.isdecimal())
                if end > pos + 2:
                    return (name, end)
            return (name, _run(text, pos + 1, "0".__eq__))
        if "1" <= first <= "9":
            return (name, _run(text, pos + 1, str.isdecimal))
        return None
    return match


def _string(name):
    def match(text, pos):
        quote = text[pos:pos + 1]
        if quote not in ("'", '"'):
            return None
        end = text.find(quote, pos + 1)
        while end >= 0:
            # a quote ends the string unless the run of backslashes right before it is odd: each backslash escapes
            # the next character, and a run starts unescaped (what precedes it, at worst the opening quote, is no
            # backslash), so its pairs escape each other (one search per quote, not per escape)
            before = end - 1
            while text[before] == "\\":
                before -= 1
            if (end - before) % 2:
                return (name, end + 1)
            end = text.find(quote, end + 1)
        return None
    return match


# ------------------------------------------------------------------------------------ delimiters
# \s of a str regexp is what str.isspace and str.lstrip() take (all ask Py_UNICODE_ISSPACE); a run \s* is greedy,
# and backtracking it never helps: what must follow it is never whitespace.
_WINDOW = 64   # characters of text stripped at a time (a run of indentation is mostly shorter)


def _spaces(text, at):
    # The end of `\s*` from at (a window of the text stripped in one call: a Python step per character costs ~10
    # times as much).
    while True:
        window = text[at:at + _WINDOW]
        rest = window.lstrip()
        if rest or len(window) < _WINDOW:
            return at + len(window) - len(rest)
        at += _WINDOW


_ASCII_WORD = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"   # \w's ASCII characters


def _word_end(text, at):
    # The end of `\w*` from at: the ASCII characters above, and the others str.isalnum takes (\w of a str regexp
    # is Py_UNICODE_ISALNUM or `_`, as str.isalnum asks), a window at a time.
    while True:
        window = text[at:at + _WINDOW]
        rest = window.lstrip(_ASCII_WORD)
        at += len(window) - len(rest)
        if rest:
            if rest[0] < "\x80" or not rest[0].isalnum():
                return at
            at += 1
        elif len(window) < _WINDOW:
            return at


def _braces(name):
    def match(text, pos):   # \}+
        end = pos
        while text.startswith("}", end):
            end += 1
        return (name, end) if end > pos else None
    return match


def _close_strip(name):
    def match(text, pos):   # -\}\}\s*
        return (name, _spaces(text, pos + 3)) if text.startswith("-}}", pos) else None
    return match


def _var_open(name):
    def match(text, pos):   # \s*\{\{-|\{\{\+?
        end = _spaces(text, pos)
        if text.startswith("{{-", end):
            return (name, end + 3)
        if text.startswith("{{", pos):
            return (name, pos + 3 if text.startswith("+", pos + 2) else pos + 2)
        return None
    return match


def _block_close(newline):
    def of(name):
        def match(text, pos):   # -%\}\s*|\+%\}|%\}, then \n? when newline
            # (the ways start with different characters: the commonest, `%}`, is tried first)
            if text.startswith("%}", pos):
                end = pos + 3 if newline and text[pos + 2:pos + 3] == "\n" else pos + 2
                return (name, end)
            if text.startswith("-%}", pos):
                return (name, _spaces(text, pos + 3))
            if text.startswith("+%}", pos):
                return (name, pos + 3)
            return None
        return match
    return of


# pattern → (name → its match function)
KNOWN = {
    r"(?<!\.)(?:\d+_)*\d+(?:(?:\.(?:\d+_)*\d+)?[eE][+\-]?(?:\d+_)*\d+|\.(?:\d+_)*\d+)": _float,
    r"0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|[1-9](?:_?\d)*|0(?:_?0)*": _int,
    r"""(?s:'[^'\\]*(?:\\.[^'\\]*)*'|"[^"\\]*(?:\\.[^"\\]*)*")""": _string,
    r"\}+": _braces,
    r"-\}\}\s*": _close_strip,
    r"\s*\{\{-|\{\{\+?": _var_open,
    "-%\\}\\s*|\\+%\\}|%\\}\n?": _block_close(True),
    r"-%\}\s*|\+%\}|%\}": _block_close(False),
}


# ------------------------------------------------------------------------------------ block tags
_LOWERCASE = "abcdefghijklmnopqrstuvwxyz"   # a member's keyword: the lowercase letters its rest of pattern starts with


class KeywordFamily:
    # A family every member of which is a keyword (lowercase letters) right after the shared prefix, ended as a
    # block tag ends (TAG_END) or by a pattern of its own (`raw`): matched without the family's regexp (the
    # largest regexp of a first parse) as that regexp would match it: its first way through the prefix and the run
    # of word characters there (its head: TAG_HEADS's, else the prefix's regexp), then the first member, in order, that
    # matches where the prefix ends: a member ended as a tag when the run is its keyword, another by its own
    # pattern. Where none does (a tag of no member), the family's regexp answers (it may find another way through
    # the prefix). After `left` tags its lexer tiers up to the regexp (lexer.NATIVE_FAMILY_TAGS).

    __slots__ = ("lexer", "names", "head", "tags", "special", "special_words", "order", "left")

    def __init__(self, lexer, names, head, tags, special, left):
        self.lexer, self.names, self.head, self.tags, self.special = lexer, names, head, tags, special
        self.special_words = tuple(keyword for keyword, _, _ in special)   # (for one str.startswith of them all)
        self.order = {name: i for i, name in enumerate(names)}
        self.left = left

    @classmethod
    def of(cls, lexer, prefix, names, patterns, left):
        # The KeywordFamily of a family (a lexer's: its _matcher_regexp and _tier_up serve it), reading `left` tags
        # before its lexer tiers up, or None when a member does not start with a keyword.
        tags, special = {}, []   # keyword → member ended as a tag; (keyword, its rest of pattern, member)
        start = len(prefix)
        for name in names:
            rest = patterns[name][start:]
            end = rest.lstrip(_LOWERCASE)
            if len(end) == len(rest):
                return None
            keyword = rest[:len(rest) - len(end)]
            if end == TAG_END and keyword not in tags:
                tags[keyword] = name
            else:
                special.append((keyword, rest, name))
        head = TAG_HEADS.get(prefix) or _regexp_head(prefix)   # the prefix's first way, the word after it
        return cls(lexer, tuple(names), head, tags, tuple(special), left)

    def match(self, text, pos):
        head = self.head(text, pos)
        if head is None:
            return None
        at, end = head
        word = text[at:end]
        best = self.tags.get(word)
        # a member of its own pattern where its keyword starts the run of word characters (a keyword is word
        # characters: the text starts with it there exactly when the run does)
        if word.startswith(self.special_words):
            for keyword, rest, member in self.special:
                if word.startswith(keyword) and (best is None or self.order[member] < self.order[best]):
                    m = _compiled(rest)(text, at)
                    if m is not None:
                        best, end = member, m.end()
        if best is None:   # no member where the prefix's first way ends: the regexp tries the others
            return self.lexer._matcher_regexp(self.names)(text, pos)
        self.left -= 1
        if self.left <= 0:
            self.lexer._tier_up(self)
        return (best, end)


def _regexp_head(prefix):
    # The head of a family whose prefix TAG_HEADS does not know (other delimiters, line statements): the prefix's
    # regexp, then \w*.
    match = re.compile(prefix + r"(?P<_keyword_>\w*)").match

    def head(text, pos):
        found = match(text, pos)
        return None if found is None else found.span("_keyword_")
    return head


def _tag_head(lstrip):
    def head(text, pos):
        # `(?:\s*\{%-|(?m:^)[^\S\n]*\{%(?![+-])|\{%\+?)\s*` (its middle way for lstrip_blocks only), then `\w*`:
        # (where the run of word characters starts, where it ends), or None.
        if text.startswith("{%", pos):   # (the commonest: each way then ends as the last does)
            at = pos + 3 if text[pos + 2:pos + 3] in ("-", "+") else pos + 2
        else:
            # the middle way's indentation is the run of whitespace \s* takes when no newline is in it (else it
            # stops at the newline, before no `{%`)
            at = _spaces(text, pos)
            if text.startswith("{%-", at):
                at += 3
            elif lstrip and text.startswith("{%", at) and text[at + 2:at + 3] not in ("+", "-") and (
                    pos == 0 or text[pos - 1] == "\n") and text.find("\n", pos, at) < 0:
                at += 2
            else:
                return None
        # \s* then \w*, in one window when both end in it (the commonest: one space, a keyword)
        window = text[at:at + _WINDOW]
        rest = window.lstrip()
        tail = rest.lstrip(_ASCII_WORD)
        if tail[:1] < "\x80" and (tail or len(window) < _WINDOW):
            at += len(window) - len(rest)
            return at, at + len(rest) - len(tail)
        at = _spaces(text, at)
        return at, _word_end(text, at)
    return head


# the block tags' family prefix of the default delimiters (with lstrip_blocks, and without: its middle way never
# matches) → its head, found without a regexp (that of the prefix was the first parse's largest to compile, ~0.6M
# machine instructions)
TAG_HEADS = {"(?:\\s*\\{%-|(?m:^)[^\\S\n]*\\{%(?![+-])|\\{%\\+?)\\s*": _tag_head(True),
             "(?:\\s*\\{%-|(?m:^)[^\\S\n]*(?!)\\{%|\\{%\\+?)\\s*": _tag_head(False)}


def _compiled(pattern):
    # The match method of a pattern (re's own cache keeps it).
    return re.compile(pattern).match
