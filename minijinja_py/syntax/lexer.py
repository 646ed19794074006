"""Contextual lexer: a Lexicon (terminal patterns) + text + the parser's state stack → tokens."""

# Generic, with no knowledge of Jinja, reproducing Lark's contextual lexer: each parser state lexes with its own
# terminals only, alternatives tried in the tables' order (priority first), ignored terminals (%ignore) skipped;
# when nothing of the state matches, the whole grammar's terminals are tried to name what was found there. The
# state is read from the parser's stack when the next token is asked for (lalr.py drives it).

import re
from collections import _tuplegetter   # a named tuple's field reader (a C descriptor)
from operator import itemgetter

from .natives import KNOWN, NAME_CHAR, TAG_END, KeywordFamily, alternatives, kind_and_end, literals, texts_matcher

__all__ = ["token_class", "TYPE", "VALUE", "START_POS", "START_LINE", "START_COLUMN", "END_LINE", "END_COLUMN",
           "END_POS", "is_token", "UnexpectedInput", "unexpected_token", "unexpected_characters", "Lexicon", "lexicon",
           "Lexer", "lex_modes"]


def token_class():
    # Token: a terminal matched in the text, as a tuple of its name, its text, the offsets [start_pos, end_pos) and
    # the 1-based line/column of its first character and of the position just after it, with these fields by name.
    # The lexer and the postlexers make tokens as plain tuples of these fields (read by index: TYPE, VALUE, ...): a
    # tuple subclass's constructor and its instances' deallocation cost a first parse ~0.4 M instructions more.
    # Tokens are what the errors carry (unexpected_token, unexpected_characters: the messages read their fields by
    # name). The class is made on first use (a tuple subclass costs a cold start's import ~0.08 M instructions).
    # Written out rather than made by collections.namedtuple, which compiles Python source for its constructor.
    global _token_class
    if _token_class is None:
        fields = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")

        def __getnewargs__(token):
            return (tuple(token),)

        def __repr__(token):
            return f"Token({', '.join(map('{}={!r}'.format, fields, token))})"
        members = dict(zip(fields, (_tuplegetter(i, None) for i in range(8))), __slots__=(), _fields=fields,
                       __getnewargs__=__getnewargs__, __repr__=__repr__, __module__=__name__)
        _token_class = type("Token", (tuple,), members)
    return _token_class


_token_class = None


# a token's fields by index (see token_class: its line and column are those of its start)
TYPE, VALUE, START_POS, START_LINE, START_COLUMN, END_LINE, END_COLUMN, END_POS = range(8)


def is_token(value):
    # Whether a value of the parser's stack is a token (a tuple of a Token's fields: the builder's tuples are of
    # nodes, or shorter).
    return value.__class__ is tuple and len(value) == 8 and value[0].__class__ is str and value[2].__class__ is int


def _named(value):
    # A value of the parser's stack with its tokens as Tokens: itself, or in the lists (an inlined rule's) and
    # tuples (a callback's: `(args, rpar)`) it holds.
    if value.__class__ is list:
        return [_named(item) for item in value]
    if value.__class__ is tuple:
        return token_class()(value) if is_token(value) else tuple([_named(item) for item in value])
    return value


class UnexpectedInput(Exception):
    # The parse stopped, at a token that cannot follow there (`token`; `expected` names the terminals that could;
    # also made by the lexer when none of the state's terminals matches but another terminal of the grammar does:
    # `token` is that one and `expected` the state's terminals), or where no terminal of the grammar matches
    # (`token` None; pos_in_stream, line and column say where, `allowed` names the state's terminals). `state` is
    # the parser state there and `values` its value stack (tokens and callback results of what is still open,
    # outermost first). One class for both (unexpected_token, unexpected_characters): an exception class costs a
    # cold start's import ~0.1 M instructions.
    token = pos_in_stream = line = column = allowed = None
    expected = ()


def unexpected_token(token, expected, state, values):
    token, values = token_class()(token), [_named(value) for value in values]
    exc = UnexpectedInput(f"unexpected {token.type} at {token.line}:{token.column}")
    exc.token, exc.expected, exc.state, exc.values = token, expected, state, values
    return exc


def unexpected_characters(pos_in_stream, line, column, allowed, state, values):
    values = [_named(value) for value in values]
    exc = UnexpectedInput(f"no terminal matches at {line}:{column}")
    exc.pos_in_stream, exc.line, exc.column = pos_in_stream, line, column
    exc.allowed, exc.state, exc.values = allowed, state, values
    return exc


class Lexicon:
    # The terminals as one lexer reads them: patterns {name: regexp}, with what speeds lexing them: where a match
    # may start, either as starting (a function: a character, None for any non-ASCII one → a frozenset of the names
    # a match may start with there) or, when starting is None, as first {name: (the ASCII characters a match may
    # start with (a str or a set), whether a non-ASCII one may)} (supersets both); the families, [(prefix, [member
    # names], [each member's lead literal])], where every member's regexp starts with the prefix (see
    # tools/grammar_tables.py), and the literals {name: text} (natives.literals of the patterns; None: the lexer
    # works them out); units, if given, what Lexer._units would give, built ahead: a pair of functions, (lexer,
    # key) → the number of a unit list (Tables.unit_list), and that number → the list (Tables.listed_units).

    __slots__ = ("patterns", "first", "families", "literals", "starting", "units")

    def __init__(self, patterns, first, families, literals=None, starting=None, units=None):
        self.patterns, self.first, self.families, self.literals = patterns, first, families, literals
        self.starting, self.units = starting, units


def _units_of(tables):
    # A Lexicon's units: the tables' unit lists.
    return tables.unit_list, tables.listed_units


def lexicon(tables, edit=None):
    # The Lexicon of the tables' own terminals, each regexp passed through edit (a function, regexp → regexp,
    # that keeps the families: edit(prefix) + edit(rest) is edit(prefix + rest), and the literals, as the build
    # checks for the option edits; None: the tables' patterns as they are, not copied). Where a match may start,
    # and what each lexer tries for a character: the tables' own (the edits keep both, as the build checks).
    if edit is None:
        return Lexicon(tables.terminals, None, tables.families, tables.literals, tables.starting, _units_of(tables))
    return Lexicon({name: edit(p) for name, p in tables.terminals.items()}, None,
                   [(edit(prefix), names, leads) for prefix, names, leads in tables.families], tables.literals,
                   tables.starting, _units_of(tables))


_WORD = f"{NAME_CHAR}+"   # a run of name characters: a keyword matches where the run at hand is its text
# a name terminal's pattern: the run, not from an ASCII digit (a keyword starts with a letter, so where the run
# starts with a digit no keyword matches either way: its regexp serves the keywords too, one regexp fewer to compile)
_NAME = f"(?![0-9]){_WORD}"


class Lexer:
    # The contextual lexer: each parser state tries its own terminals, in the tables' order, and takes the first
    # that matches. Three shortcuts with the same result: only the terminals that can start with the character at
    # hand are tried, and a family of terminals sharing a prefix is tried as one regexp (tools/grammar_tables.py
    # establishes both; a family of keywords is first read without it, see KeywordFamily); the terminals of one
    # fixed text of which at most one can match at any place (natives.literals: punctuation and keywords) are all
    # tried by one matcher without a regexp of theirs (a text compared where it would start; a keyword is the run
    # of name characters at hand when the run is its text), which serves every state: a state takes its match when
    # it is one of the state's own, and knows that none of its own matches otherwise. Each regexp is compiled on
    # first use and shared by all states (compiling is a cold start's largest part of a first parse); while a
    # family is read natively, the terminals natives.KNOWN has (numbers, strings, delimiters) are read by Python
    # functions.
    # Once its families read with their regexps (_tier_up), a lexer tries the units a state has for a character
    # with one regexp of them all (_combined) instead of in turn.

    def __init__(self, tables, lexicon):
        patterns = lexicon.patterns
        self.tables, self.patterns = tables, patterns
        self._literal = lexicon.literals                           # name → its text
        if self._literal is None:
            self._literal = literals(patterns)
        self._literal_first = {}                                   # character → the literals starting with it
        self._punctuation = {}                                     # character → ((text, name), ...) starting so
        self._keywords = {}                                        # keyword text → name
        for name, text in self._literal.items():
            first = text[0]
            self._literal_first.setdefault(first, []).append(name)
            if text.isalpha():
                self._keywords[text] = name
            else:
                self._punctuation.setdefault(first, []).append((text, name))
        self._punctuation = {first: tuple(texts) for first, texts in self._punctuation.items()}
        # member → (prefix, {member: its alternative} (made when the family's regexp is: _alternatives), all
        # members in order, their lead literals)
        self._family = {}
        self._native = {}   # members → their KeywordFamily, until it has read its share of tags
        for prefix, names, leads in lexicon.families:
            family = (prefix, {}, tuple(names), leads)
            for name in names:
                self._family[name] = family
            native = KeywordFamily.of(self, prefix, names, patterns, NATIVE_FAMILY_TAGS)
            if native is not None:
                self._native[family[2]] = native
        # a terminal's Python function for its regexp while a family is read natively (natives.py): names → it, or
        # None (looked up on first use, see _known_match)
        self._known = {}
        self._first = lexicon.first
        self._starting = lexicon.starting or self._starting_of_first
        # (lexer, key) → what the lexer tries, as a unit list's number (its units: _listed_units), or as the units
        self._unit_list, self._listed_units = lexicon.units or (self._unit_tuple, _same)
        self._starting_of = {}                                     # (key → names, when worked out from first)
        self._accepted_of = {}                                     # (lexer, family) → see _accepted
        self._shared = {}                                          # (unit list, character) → match function
        self._by_lexer = by_lexer = [{} for _ in range(tables.lexer_count)]   # {character: match function}
        # (each state's lexer's, picked by one itemgetter in C; it gives one item alone, not in a tuple)
        self._candidates_of_state = itemgetter(*tables.lexer_of_state)(by_lexer) if len(
            tables.lexer_of_state) > 1 else [by_lexer[tables.lexer_of_state[0]]]
        self._matchers = {}                                        # terminal names → compiled match
        self._word = self._word_matcher()                          # a run of name characters (keywords)

    def _word_matcher(self):
        # The match method finding the run of name characters at a place (where it does not start with a digit):
        # the one regexp of the grammar's name terminal (made as _matcher_regexp makes it), when there is one.
        for name, pattern in self.patterns.items():
            if pattern == _NAME:
                found = self._matchers[(name,)] = re.compile(f"(?P<{name}>{pattern})").match
                return found
        return re.compile(_WORD).match

    def _literals_matcher(self, text, pos):
        # The literal terminal that matches at pos, as (name, end) (natives.kind_and_end), or
        # None. No regexp of theirs: a punctuation text is compared where it would start, a keyword is the run of
        # name characters at pos when the run is its text (at most one literal can match at any place, see
        # natives.literals).
        found = self._punctuation.get(text[pos:pos + 1])
        if found is None:
            return self._keyword_matcher(text, pos)
        for literal, name in found:
            if text.startswith(literal, pos):
                return (name, pos + len(literal))
        return None

    def _keyword_matcher(self, text, pos):
        # The keyword terminal whose text is the run of name characters at pos, or None.
        word = self._word(text, pos)
        name = self._keywords.get(word.group()) if word is not None else None
        return None if name is None else (name, word.end())

    def _matcher(self, names):
        # The match function trying the terminals `names` in turn (terminals of no family, or members of one
        # family): a family's KeywordFamily while it reads natively (and a terminal natives.KNOWN has, while the
        # lexer reads any family natively), else one regexp's match method.
        native = self._native.get(names)
        if native is not None:
            return native.match
        return self._known_match(names) or self._matcher_regexp(names)

    def _known_match(self, names):
        # The natives.KNOWN function of one terminal's regexp while the lexer reads a family natively, else None.
        if not self._native or len(names) != 1:
            return None
        found = self._known.get(names, names)
        if found is names:
            make = KNOWN.get(self.patterns[names[0]])
            found = self._known[names] = None if make is None else make(names[0])
        return found

    def _alternatives(self, family):
        # {member: its alternative} of a family's regexp: each member's rest of pattern, its leading literal (if
        # any) in front of its group (made when first needed: the first regexp of the family).
        prefix, rests, names, leads = family
        if not rests:
            patterns = self.patterns
            rests.update((name, f"{lead}(?P<{name}>{patterns[name][len(prefix) + len(lead):]})")
                         for name, lead in zip(names, leads))
        return rests

    def _matcher_regexp(self, names):
        # The match method of one regexp trying the terminals `names` in turn (for one terminal whose regexp is
        # fixed texts in alternation, `==|!=|<`, a function comparing them in that order: no regexp to compile).
        found = self._matchers.get(names)
        if found is None:
            family = self._family.get(names[0])
            texts = alternatives(self.patterns[names[0]]) if family is None and len(names) == 1 else None
            if texts:
                found = texts_matcher(names[0], texts)
            elif family is None:
                found = re.compile("|".join(f"(?P<{name}>{self.patterns[name]})" for name in names)).match
            else:
                rests = self._alternatives(family)
                found = re.compile(family[0] + "(?:" + _shared_ends([rests[name] for name in names]) + ")").match
            self._matchers[names] = found
        return found

    def _tier_up(self, native):
        # A family has read its share of tags natively: from now on its regexp (compiled on its next use) reads
        # them (and, the last family gone, the known terminals' regexps read theirs), and the lexer's entries are
        # made again to use them.
        if self._native.pop(native.names, None) is not None:
            if not self._native:
                self._known.clear()
            for table in self._by_lexer:
                table.clear()
            self._shared.clear()

    def _starting_of_first(self, key):
        # The names a match may start with at key (a character, None for a non-ASCII one), worked out from the
        # first characters (a lexicon the build has not done this for: other delimiters).
        found = self._starting_of.get(key)
        if found is None:
            found = self._starting_of[key] = frozenset(
                name for name, (chars, non_ascii) in self._first.items() if (key in chars if key else non_ascii))
        return found

    def _accepted(self, lexer, members, names):
        # What a lexer accepts of a family (its names: all of the lexer's): None when it has every member, else its
        # members.
        key = (lexer, members)
        found = self._accepted_of.get(key, key)
        if found is key:
            mine = frozenset(members).intersection(names)
            found = self._accepted_of[key] = None if len(mine) == len(members) else mine
        return found

    def _units(self, lexer, key):
        # The lexer's terminals that may start with key (a character, None for a non-ASCII one), grouped into what
        # is tried in one go, in order: [(names, accepted, literals?)], consecutive literals as one, a family's
        # members as one (they are consecutive in every lexer), where accepted is None, or this lexer's members of
        # a family it does not have all of.
        names = self.tables.lexer(lexer)
        units = []
        for name in filter(self._starting(key).__contains__, names):
            family = self._family.get(name)
            if family is not None:
                if not units or units[-1][0] is not family[2]:
                    units.append((family[2], self._accepted(lexer, family[2], names), False))
            elif name not in self._literal:
                units.append(((name,), None, False))
            elif units and units[-1][2]:
                units[-1] = (units[-1][0] + (name,), None, True)
            else:
                units.append(((name,), None, True))
        return units

    def _unit_tuple(self, lexer, key):
        # _units as a tuple (a lexicon without the tables' unit lists: they are their own key).
        return tuple(self._units(lexer, key))

    def candidates(self, state, char):
        # The match function of the state's lexer for text starting with char: one compiled regexp's match when
        # the terminals that can start with char make one unit, else a function trying the units in turn (each
        # regexp serves every state: combining a state's candidates into one would compile the same terminals
        # into many regexps).
        table = self._candidates_of_state[state]
        key = char if char < "\x80" else None  # one entry for all non-ASCII characters
        found = table.get(key)
        if found is None:
            # the states whose lexers have the same units for the character share the function
            listed = self._unit_list(self.tables.lexer_of_state[state], key)
            shared = (listed, key)
            found = self._shared.get(shared)
            if found is None:
                found = self._shared[shared] = self._match_function(self._listed_units(listed), char, key)
            table[key] = found
        return found

    def _match_function(self, units, char, key):
        # candidates' match function of units (see _units) for text starting with char (key: char, None for any
        # non-ASCII one).
        if len(units) == 1 and not units[0][2] and units[0][1] is None:
            names = units[0][0]
            run = self.tables.runs.get(names[0]) if key is not None and len(names) == 1 else None
            if not run:
                return self._matcher(names)
            # an ignored run (whitespace) is all that can start here: skip one character without it
            ends = _RUN_ENDS.get(run)
            if ends is None:
                ends = _RUN_ENDS[run] = frozenset(map(chr, range(128))).difference(run)
            found = _Skip(None, ends)
            found.match = self._later(names, lambda compiled, skip=found: setattr(skip, "match", compiled))
            return found
        if len(units) == 1 and units[0][2] and set(units[0][0]) == set(self._literal_first.get(char, ())):
            # what a literal finds is one of the state's own; one punctuation text needs no search (nor the check
            # of lex() for an ignored terminal, which it is not)
            texts = self._punctuation.get(char, ())
            fixed = len(texts) == 1 and texts[0][1] not in self.tables.ignore
            return _Fixed(*texts[0]) if fixed else self._literals_matcher
        found = None if self._native or not units else self._combined(units)
        if found is None:
            literal = self._literals_matcher if char in self._punctuation else self._keyword_matcher
            found = self._trier([[literal, frozenset(names), False] if literals
                                 else self._deferred(names, accepted) for names, accepted, literals in units])
        return found

    def _combined(self, units):
        # The match method of one regexp trying units [(names, accepted, literals?), ...] as _trier tries them,
        # in one call: each unit's alternatives in turn, a family with only the members the state accepts (where
        # the family's regexp finds another member, _trier tries the state's own, which is what the first way to
        # match of the accepted ones alone is), a literal unit with the state's own literals (at most one literal
        # matches at any place). For a warm lexer only (no family read natively): one regexp per state and
        # character costs a first parse more compiling than it saves.
        parts = []
        for names, accepted, literals in units:
            family = None if literals else self._family.get(names[0])
            if family is None:
                parts.extend(f"(?P<{name}>{self.patterns[name]})" for name in names)
            else:
                rests = self._alternatives(family)
                mine = [rests[name] for name in names if accepted is None or name in accepted]
                parts.append(family[0] + "(?:" + _shared_ends(mine) + ")")
        regexp = "|".join(parts)
        found = self._matchers.get(regexp)
        if found is None:
            try:
                found = self._matchers[regexp] = re.compile(regexp).match
            except re.error:   # (a pattern with flags of its own for the whole regexp: tried in turn)
                return None
        return found

    def _deferred(self, names, accepted):
        # A trier's entry [match, accepted, True] for the terminals `names` (see _later: a trier stops at the
        # first unit that matches, so a template that never gets past the earlier ones never compiles this one's).
        entry = [None, accepted, True]
        entry[0] = self._later(names, lambda compiled: entry.__setitem__(0, compiled))
        return entry

    def _later(self, names, put):
        # The match function of `names` (_matcher) where it costs nothing yet, else one that compiles the regexp
        # when first called and hands the compiled match method to put, which stores it in its own place (a first
        # parse compiles only the regexps the text reaches: compiling is most of a cold start's first parse).
        if names in self._native or names in self._matchers or self._known_match(names) is not None:
            return self._matcher(names)

        def match(text, pos):
            compiled = self._matcher(names)
            put(compiled)
            return compiled(text, pos)
        return match

    def _trier(self, units):
        # A match function trying units [[match, accepted, family?], ...] in turn: the first that matches (a
        # re.Match or natives' (name, end)), or None; accepted is None, or the terminals the state accepts when the
        # regexp may find another: a family's members (the state's own are then tried without the others) or
        # literals (then none of the state's own matches here).
        def match(text, pos):
            for match, accepted, family in units:
                m = match(text, pos)
                if m is not None:
                    if accepted is None:
                        return m
                    kind = m[0] if m.__class__ is tuple else m.lastgroup
                    if kind in accepted:
                        return m
                    if family:  # the family's regexp found a member this state does not accept: try its own
                        m = self._matcher(tuple(n for n in self._family[kind][2] if n in accepted))(text, pos)
                        if m is not None:
                            return m
            return None
        return match

    def lex(self, text, states, values):
        # Tokens of text, each lexed with the terminals of the parser state on top of `states` when it is asked
        # for (the parser's stacks, shared). A column is the offset from `origin`, the offset before the first
        # character of the line (one subtraction per column, not two).
        by_state, ignore, candidates = self._candidates_of_state, self.tables.ignore, self.candidates
        pos, line, origin, size = 0, 1, -1, len(text)
        while pos < size:
            state = states[-1]
            table = by_state[state]
            char = text[pos]
            match = table.get(char) or candidates(state, char)
            while match.__class__ is _Skip:   # skipped whitespace leaves the state as it is: on to what follows
                pos += 1
                try:
                    after = text[pos]
                except IndexError:   # (the end of the text)
                    return
                if after not in match.ends:
                    pos -= 1
                    match = match.match  # a longer run (or one that may go on in non-ASCII): the regexp
                    break
                if char == "\n":   # a run of one character: skip it
                    line, origin = line + 1, pos - 1
                char = after
                match = table.get(char) or candidates(state, char)
            if match.__class__ is _Fixed:   # (its text is the token's: the first character is, and the rest checked)
                end = pos + match.size
                if match.size > 1 and not text.startswith(match.text, pos):
                    raise self._unmatched(text, pos, line, origin + 1, state, values)
                # punctuation, one line, not an ignored terminal (see candidates)
                yield (match.name, match.text, pos, line, pos - origin, line, end - origin, end)
                pos = end
                continue
            m = match(text, pos)
            if m is None:
                raise self._unmatched(text, pos, line, origin + 1, state, values)
            if m.__class__ is tuple:   # (a native function's (name, end): no method call)
                kind, end = m
            else:
                end = m.end()
                kind = m.lastgroup
            value = text[pos:end]
            if kind in ignore:
                if end == pos:
                    raise ValueError(f"terminal {kind} matched the empty string")
                if "\n" in value:
                    line, origin = line + value.count("\n"), pos + value.rindex("\n")
                pos = end
                continue
            if "\n" in value:
                end_line, end_origin = line + value.count("\n"), pos + value.rindex("\n")
                yield (kind, value, pos, line, pos - origin, end_line, end - end_origin, end)
                line, origin = end_line, end_origin
            else:
                yield (kind, value, pos, line, pos - origin, line, end - origin, end)
            pos = end

    def _root_match(self, text, pos):
        # The first terminal of the whole grammar that matches at pos, or None.
        char = text[pos]
        return self._trier([(self._matcher(names), None, False)
                            for names, _, _ in self._units(0, char if char < "\x80" else None)])(text, pos)

    def _unmatched(self, text, pos, line, line_start, state, values):
        # The error for text no terminal of the state matches: what the whole grammar's terminals find there
        # (ignored ones skipped), as an unexpected token, else as unexpected characters.
        allowed = set(self.tables.lexer(self.tables.lexer_of_state[state])) - self.tables.ignore
        allowed = allowed or {"<END-OF-FILE>"}
        at, at_line, at_start = pos, line, line_start
        while at < len(text):
            m = self._root_match(text, at)
            if m is None:
                break
            kind, end = kind_and_end(m)
            if end == at:
                break
            value = text[at:end]
            newlines = value.count("\n")
            end_line = at_line + newlines
            end_start = at + value.rindex("\n") + 1 if newlines else at_start
            if kind not in self.tables.ignore:
                token = token_class()((kind, value, at, at_line, at - at_start + 1, end_line, end - end_start + 1, end))
                return unexpected_token(token, allowed, state, values)
            at, at_line, at_start = end, end_line, end_start
        return unexpected_characters(pos, line, pos - line_start + 1, allowed, state, values)


def lex_modes(lexers, mode, text, states, values):
    # Lexer.lex with one lexer per mode: each token is lexed by lexers[mode[0]] as mode[0] is when the token is
    # asked for (the postlexer switches it). Without the one-character skip of _Lexer.lex: this serves the
    # environments with other delimiters, not the hot path.
    ignore = lexers[0].tables.ignore
    pos, line, line_start, size = 0, 1, 0, len(text)
    while pos < size:
        lexer = lexers[mode[0]]
        state = states[-1]
        char = text[pos]
        match = lexer._candidates_of_state[state].get(char) or lexer.candidates(state, char)
        if match.__class__ is _Skip:
            match = match.match
        elif match.__class__ is _Fixed:
            match = lexer._literals_matcher
        m = match(text, pos)
        if m is None:
            raise lexer._unmatched(text, pos, line, line_start, state, values)
        kind, end = kind_and_end(m)
        value = text[pos:end]
        newlines = value.count("\n")
        end_line = line + newlines
        end_line_start = pos + value.rindex("\n") + 1 if newlines else line_start
        if kind not in ignore:
            yield (kind, value, pos, line, pos - line_start + 1, end_line, end - end_line_start + 1, end)
        elif end == pos:
            raise ValueError(f"terminal {kind} matched the empty string")
        pos, line, line_start = end, end_line, end_line_start


def _shared_ends(alternatives):
    # The alternatives `lead(?P<name>rest)` joined by |, where consecutive ones whose rest ends in (?!\w) (the
    # block tags) have it once, after them: `(?:a|b)(?!\w)` tries what `a(?!\w)|b(?!\w)` tries, in the same
    # order, and compiles in ~60% of the time (each lookahead is a pattern of its own to compile).
    end = TAG_END + ")"
    parts, run = [], []
    for alternative in alternatives + [None]:
        if alternative is not None and alternative.endswith(end):
            run.append(alternative[:-len(end)] + ")")
            continue
        if run:
            parts.append(f"(?:{'|'.join(run)}){TAG_END}" if len(run) > 1 else run[0][:-1] + end)
            run = []
        if alternative is not None:
            parts.append(alternative)
    return "|".join(parts)


# Tags a lexer reads with a family's natives.KeywordFamily before it compiles the family's regexp: more than a long
# template has, so that a process rendering one template never compiles it, and one compiling many soon does.
NATIVE_FAMILY_TAGS = 512


def _same(value):
    # The units of a lexicon without the tables' unit lists, as they are (they are their own key).
    return value


class _Fixed:
    # A lexer's entry for a character where one punctuation terminal, of one fixed text, is all that can start
    # (and is the state's own): the token is that text when the text is there, with no regexp.
    __slots__ = ("name", "text", "size")

    def __init__(self, text, name):
        self.name, self.text, self.size = name, text, len(text)


class _Skip:
    # A lexer's entry for a character that only an ignored run of one character class (whitespace) can start:
    # its match function, and the ASCII characters that end the run (what follows a run of one character, skipped
    # without the regexp; any other character may go on with the run).
    __slots__ = ("match", "ends")

    def __init__(self, match, ends):
        self.match, self.ends = match, ends


_RUN_ENDS = {}   # an ignored run's ASCII characters → the other ASCII characters (made once: lexers share them)
