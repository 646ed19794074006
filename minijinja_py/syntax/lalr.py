"""LALR(1) driver: prebuilt tables + text → the value the start rule's callback returns.

Generic, with no knowledge of Jinja. The tables (built ahead of time by Lark from the grammar, see
tests/grammar_tables.py) hold the parse table, the terminal set of each parser state and the order its lexer
tries them in, and for each rule how its children are shaped before its callback sees them. The driver
reproduces what Lark's LALR parser with its contextual lexer and its tree builder (maybe_placeholders=True)
would do, without building a tree:

  lexing      each parser state lexes with its own terminals only (a contextual lexer), alternatives tried in
              the tables' order (priority first), ignored terminals (%ignore) skipped; when nothing of the state
              matches, the whole grammar's terminals are tried to name what was found there.
  reducing    a rule's callback (named by its alias, else by the rule) gets the children with `_TOKENS`
              dropped, the values of inlined `_rules` spliced in and None for each missing [optional] part;
              a `?rule` left with one child passes that child up without a callback.

Nothing recurses, whatever the nesting of the input; lexing and parsing are linear in the text (given terminal
patterns that are). Chains of single-child `?rule` reductions (an atom climbs a dozen precedence levels) are
remembered per (state below, state, lookahead) and taken in one step.
"""

import re
from collections import namedtuple
from operator import itemgetter

__all__ = ["Token", "Tables", "Parser", "UnexpectedInput", "UnexpectedToken", "UnexpectedCharacters"]

FORMAT = 5


Token = namedtuple("Token", "type value start_pos line column end_line end_column end_pos")
Token.__doc__ = """A terminal matched in the text: its name, its text, the offsets [start_pos, end_pos) and the 1-based
line/column of its first character and of the position just after it. A tuple: one is made per token, and the
lexer builds it with tuple.__new__ (the named tuple's own constructor is Python code)."""
_new_tuple = tuple.__new__


class UnexpectedInput(Exception):
    """The parse stopped. `state` is the parser state there and `values` its value stack (tokens and callback
    results of what is still open, outermost first)."""


class UnexpectedToken(UnexpectedInput):
    """`token` cannot follow here; `expected` names the terminals that could. Also raised by the lexer when none
    of the state's terminals matches but another terminal of the grammar does: `token` is that one and
    `expected` the state's terminals."""

    def __init__(self, token, expected, state, values):
        super().__init__(f"unexpected {token.type} at {token.line}:{token.column}")
        self.token, self.expected, self.state, self.values = token, expected, state, values


class UnexpectedCharacters(UnexpectedInput):
    """No terminal of the grammar matches at pos_in_stream."""

    def __init__(self, pos_in_stream, line, column, allowed, state, values):
        super().__init__(f"no terminal matches at {line}:{column}")
        self.pos_in_stream, self.line, self.column = pos_in_stream, line, column
        self.allowed, self.state, self.values = allowed, state, values


class Tables:
    """The decoded tables file (see tools/grammar_tables.py for its fields). The parts a parse needs per state or
    per lexer are kept as the file's texts and split when first used (a template visits a fraction of them):
    decoding the file and holding it are a cold start's cost."""

    def __init__(self, data):
        if data.get("format") != FORMAT:
            raise ValueError(f"parser tables of format {data.get('format')!r}, this driver reads {FORMAT}")
        self.terminals = data["terminals"]          # name → regexp
        self.first = data["first"]                  # name → [ASCII characters a match may start with, non-ASCII?]
        self.families = data["families"]            # [[shared prefix, [names], [lead literals]], ...]
        self.ignore = frozenset(data["ignore"])
        self.runs = data["runs"]                    # ignored terminal → ASCII characters of its run (C+)
        self.rules = data["rules"]                  # "origin size callback expand1 plan", split on first use
        self.callbacks = data["callbacks"]          # the rule names and aliases the parser calls back
        self.lexer_of_state = data["state_lexers"]
        self.lexer_count = len(data["lexers"])
        # lexer → its terminal names in match order ([0] has them all), a tuple once split
        self._lexers = data["lexers"]
        # per state: symbol → state (shift or goto, >= 0) or ~rule (reduce, < 0); None until made by row(),
        # when the parser first reaches the state
        self.actions = [None] * len(data["states"])
        self._states, self._lookaheads = data["states"], data["lookaheads"]
        self._symbols = {}   # one str per terminal name, shared by the lexers and the lookahead sets
        self.start, self.end = data["start"], data["end"]

    def lexer(self, number):
        """The terminal names of a lexer, in match order."""
        names = self._lexers[number]
        if names.__class__ is str:
            names = names.split()
            names = self._lexers[number] = tuple(map(self._symbols.setdefault, names, names))
        return names

    def row(self, state):
        """The actions of a state, made from its moves and reductions on first use."""
        row = self.actions[state]
        if row is None:
            moves, _, reductions = self._states[state].partition(";")
            moves = moves.split()   # "SYMBOL state SYMBOL state ..."
            row = dict(zip(moves[::2], map(int, moves[1::2])))
            reductions = reductions.split()   # "action lookahead action lookahead ..."
            for action, lookahead in zip(map(int, reductions[::2]), map(int, reductions[1::2])):
                row.update(dict.fromkeys(self._lookahead(lookahead), action))
            self.actions[state] = row
        return row

    def _lookahead(self, number):
        """A set of lookahead terminals, stored once for the states that share it."""
        names = self._lookaheads[number]
        if names.__class__ is str:
            names = names.split()
            names = self._lookaheads[number] = tuple(map(self._symbols.setdefault, names, names))
        return names


# What a reduction does, by rule
_UNIT = 0      # a `?rule` with one child: the value stays, only the state changes
_CALL = 1      # the callback gets the shaped children
_INLINE = 2    # an inlined `_rule`: the shaped children go to the parent as a list
_EXPAND1 = 3   # a `?rule` whose shaping may leave one child (passed up) or several (callback)


class Lexicon:
    """The terminals as one lexer reads them: patterns {name: regexp}, with what speeds lexing them: first {name:
    (the ASCII characters a match may start with, whether a non-ASCII one may)} (a superset) and the families,
    [(prefix, [member names], [each member's lead literal])], where every member's regexp starts with the prefix
    (see tools/grammar_tables.py)."""

    __slots__ = ("patterns", "first", "families")

    def __init__(self, patterns, first, families):
        self.patterns, self.first, self.families = patterns, first, families


def lexicon(tables, edit=None):
    """The Lexicon of the tables' own terminals, each regexp passed through edit (a function, regexp → regexp,
    that keeps the families: edit(prefix) + edit(rest) is edit(prefix + rest), as the build checks)."""
    edit = edit or (lambda pattern: pattern)
    sets = {chars: frozenset(chars) for chars, _ in tables.first.values()}   # terminals that start alike share one
    first = {name: (sets[chars], bool(non_ascii)) for name, (chars, non_ascii) in tables.first.items()}
    return Lexicon({name: edit(p) for name, p in tables.terminals.items()}, first,
                   [(edit(prefix), names, leads) for prefix, names, leads in tables.families])


class Parser:
    """One set of tables, with the terminal patterns passed through edit (a function, pattern → pattern), bound
    to callbacks (an object with one method per rule name or alias). Reusable and thread-safe: the lexers are
    compiled on first use and shared, each parse keeps its own stacks.

    modes, if given, replaces edit: a list of Lexicons, one per lexer mode, of which a parse lexes each token with
    the one its `mode` names when the token is lexed (see parse)."""

    def __init__(self, tables, callbacks, edit=None, modes=None):
        self.tables = tables
        lexicons = modes or [lexicon(tables, edit)]
        self.patterns = lexicons[0].patterns
        self._ignore = tables.ignore
        self._actions = tables.actions
        self._end = tables.end
        missing = [name for name in tables.callbacks if not hasattr(callbacks, name)]
        if missing:
            raise ValueError(f"no callback for the rules {', '.join(missing)}")
        self._callbacks = callbacks
        self._rules = [None] * len(tables.rules)  # rule number → how its reduction goes, made on first use
        self._lexers = [_Lexer(tables, lexicon) for lexicon in lexicons]
        self._lexer = self._lexers[0]
        # (state below, state, lookahead) → (the state after the chain of unit reductions, its action then)
        self._chains = {}

    def _rule(self, number):
        """(kind, origin, size, callback, shaper) of a rule, where shaper is None when the children pass
        unchanged; made when the rule is first reduced (a template uses a fraction of them)."""
        rule = self._rules[number]
        if rule is None:
            rule = self._rules[number] = self._bind(self.tables.rules[number], self._callbacks)
        return rule

    @staticmethod
    def _bind(rule, callbacks):
        origin, size, name, expand1, plan = rule.split(" ")
        size = int(size)
        if plan == "-":
            plan = shaper = None
        else:
            include, nones = plan.split(";")
            plan = (tuple(tuple(map(int, entry.split("."))) for entry in include.split(",") if entry), int(nones))
            shaper = _shaper(plan)
        if expand1 == "1" and size == 1 and plan is None:
            return (_UNIT, origin, size, None, None)
        if name == "-":
            return (_INLINE, origin, size, None, shaper)
        return (_EXPAND1 if expand1 == "1" else _CALL, origin, size, getattr(callbacks, name), shaper)

    # ----------------------------------------------------------------------------------------------- parsing
    def parse(self, text, postlex=None, mode=None):
        """The start rule's value for text. postlex, if given, maps the token stream to the one parsed (a
        generator over the lexer's tokens; the lexer reads the parser state when the next token is asked for).
        mode: for a parser made with modes, a list whose one item is the number of the mode the next token is
        lexed in (the postlexer sets it as it goes; it starts as it is given)."""
        state = self.tables.start
        states, values = [state], []
        if mode is None:
            stream = self._lexer.lex(text, states, values)
        else:
            stream = _lex_modes(self._lexers, mode, text, states, values)
        if postlex is not None:
            stream = postlex(stream)
        actions, rules, chains = self._actions, self._rules, self._chains
        token = None
        row = self.tables.row
        for token in stream:
            kind = token.type
            action = (actions[state] or row(state)).get(kind)
            while action is None or action < 0:  # reduce until the token can be shifted
                if action is None:
                    raise UnexpectedToken(token, _expected(actions[state]), state, values)
                how, origin, size, callback, shaper = rules[~action] or self._rule(~action)
                if how is _UNIT:  # a chain of them, taken in one step, with the action that follows it
                    key = (states[-2], state, kind)
                    found = chains.get(key)
                    if found is None:
                        after = self._follow_units(key[0], key[1], kind)
                        found = chains[key] = (after, (actions[after] or row(after)).get(kind))
                    state, action = found
                    states[-1] = state
                    continue
                else:  # as _reduce, in line: this is the parser's inner loop
                    if size == 1:
                        children = [values.pop()]
                        states.pop()
                    elif size:
                        children = values[-size:]
                        del values[-size:]
                        del states[-size:]
                    else:
                        children = []
                    if shaper is not None:
                        children = shaper(children)
                    if how is _CALL:
                        children = callback(children)
                    elif how is _EXPAND1:
                        children = children[0] if len(children) == 1 else callback(children)
                    state = actions[states[-1]][origin]
                    states.append(state)
                    values.append(children)
                action = (actions[state] or row(state)).get(kind)
            states.append(action)
            values.append(token)
            state = action
        return self._finish(token, states, values)

    def _reduce(self, rule, states, values):
        """Pop the rule's symbols, push its value (the callback's result, the shaped children of an inlined rule,
        or the one child of a `?rule`) and the state it leads to, which is returned."""
        how, origin, size, callback, shaper = rule
        if size:
            children = values[-size:]
            del values[-size:]
            del states[-size:]
        else:
            children = []
        if shaper is not None:
            children = shaper(children)
        if how is _CALL:
            value = callback(children)
        elif how is _INLINE:
            value = children
        else:
            value = children[0] if len(children) == 1 else callback(children)
        state = self._actions[states[-1]][origin]
        states.append(state)
        values.append(value)
        return state

    def _finish(self, last, states, values):
        """Feed the end of the input ($END, placed where the last token is, as Lark places it): reduce until the
        start rule is complete and return its value."""
        if last is None:
            end = Token("$END", "", 0, 1, 1, None, None, None)
        else:
            end = Token("$END", "", last.start_pos, last.line, last.column, last.end_line, last.end_column,
                        last.end_pos)
        actions, state = self._actions, states[-1]
        while True:
            action = self.tables.row(state).get("$END")
            if action is None or action >= 0:  # nothing is shifted at the end; it completes the parse or fails
                raise UnexpectedToken(end, _expected(actions[state]), state, values)
            rule = self._rule(~action)
            if rule[0] is _UNIT:
                state = states[-1] = self._follow_units(states[-2], state, "$END")
            else:
                state = self._reduce(rule, states, values)
            if state == self._end:
                return values[-1]

    def _follow_units(self, below, state, kind):
        """The state after the unit reductions that `kind` calls for in `state` (on top of `below`); stops
        before any other action (or an error, which then shows in that state as Lark would show it)."""
        actions = self._actions
        while True:
            action = self.tables.row(state).get(kind)
            if action is None or action >= 0 or self._rule(~action)[0] is not _UNIT or state == self._end:
                return state
            state = actions[below][self._rule(~action)[1]]


def _expected(actions):
    """The terminals a state has an action for (Lark's `expected`: the upper-case symbols, $END included)."""
    return {symbol for symbol in actions if symbol.isupper()}


# A keyword terminal's pattern: lowercase letters, then this (no name character of the grammar's may follow)
_WORD_END = "(?![^\x00-/:-@[-^`{-\x7f\\s])"
_TAG_END = "(?!\\w)"   # how a family member (a block tag's keyword) ends
_SPECIAL = frozenset(".^$*+?{}[]()|\\")


def _fixed_text(pattern):
    """The text a pattern matches when it is a fixed string of punctuation (escaped or not), else None."""
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


def _literals(patterns):
    """{name: text} of the terminals matched by one fixed text, at most one of which can match at any place: the
    punctuation terminals none of whose texts starts another's, and the keywords (a keyword ends where a name
    character cannot follow, so one that starts another cannot match where that one does); a text that two
    terminals share is left out."""
    punctuation, keywords = {}, {}
    for name, pattern in patterns.items():
        word = pattern[:-len(_WORD_END)] if pattern.endswith(_WORD_END) else ""
        if word and word.isascii() and word.isalpha() and word.islower():
            keywords[name] = word
        else:
            text = _fixed_text(pattern)
            if text is not None:
                punctuation[name] = text
    starts = {text[:i] for text in punctuation.values() for i in range(1, len(text))}   # of a longer one
    found = {**{name: text for name, text in punctuation.items() if text not in starts}, **keywords}
    texts = list(found.values())
    return {name: text for name, text in found.items() if texts.count(text) == 1}


class _Lexer:
    """The contextual lexer: each parser state tries its own terminals, in the tables' order, and takes the first
    that matches. Three shortcuts with the same result: only the terminals that can start with the character at
    hand are tried, and a family of terminals sharing a prefix is tried as one regexp (tests/grammar_tables.py
    establishes both); the terminals of one fixed text of which at most one can match at any place (_literals:
    punctuation and keywords) are all tried by one regexp, which serves every state: a state takes its match
    when it is one of the state's own, and knows that none of its own matches otherwise. Each regexp is
    compiled on first use and shared by all states (compiling is a cold start's largest part of a first parse:
    one regexp for ~35 literals instead of one each)."""

    def __init__(self, tables, lexicon):
        patterns = lexicon.patterns
        self.tables, self.patterns = tables, patterns
        self._literal = _literals(patterns)                        # name → its text
        self._literal_match = None                                 # their regexp's match, compiled on first use
        self._literal_first = {}                                   # character → the literals starting with it
        for name, text in self._literal.items():
            self._literal_first[text[0]] = self._literal_first.get(text[0], frozenset()) | {name}
        self._family = {}   # member → (prefix, {member: its alternative}, all members in order)
        for prefix, names, leads in lexicon.families:
            # each member's rest of pattern, its leading literal (if any) in front of its group
            alternatives = {name: f"{lead}(?P<{name}>{patterns[name][len(prefix) + len(lead):]})"
                            for name, lead in zip(names, leads)}
            family = (prefix, alternatives, tuple(names))
            for name in names:
                self._family[name] = family
        self._first = lexicon.first
        self._units_of_lexer = [None] * tables.lexer_count
        by_lexer = [{} for _ in range(tables.lexer_count)]                     # {character: match function}
        self._candidates_of_state = [by_lexer[lexer] for lexer in tables.lexer_of_state]
        self._matchers = {}                                        # terminal names → compiled match

    def _literals_matcher(self):
        """The match method of the regexp of all the literal terminals: each one's first character outside its
        group (the regexp then passes over a branch after one comparison), the keywords' common end after them."""
        if self._literal_match is None:
            branches = {True: [], False: []}   # keyword?
            for name, text in self._literal.items():
                branches[text.isalpha()].append(f"{re.escape(text[0])}(?P<{name}>{re.escape(text[1:])})")
            keywords = f"(?:{'|'.join(branches[True])}){_WORD_END}" if branches[True] else None
            self._literal_match = re.compile("|".join(filter(None, branches[False] + [keywords]))).match
        return self._literal_match

    def _matcher(self, names):
        """The match method of one regexp trying the terminals `names` in turn (terminals of no family, or members
        of one family)."""
        found = self._matchers.get(names)
        if found is None:
            family = self._family.get(names[0])
            if family is None:
                regexp = "|".join(f"(?P<{name}>{self.patterns[name]})" for name in names)
            else:
                regexp = family[0] + "(?:" + _shared_ends([family[1][name] for name in names]) + ")"
            found = self._matchers[names] = re.compile(regexp).match
        return found

    def _units(self, lexer):
        """The lexer's terminals grouped into what is tried in one go, in order: [(names, accepted, ASCII
        characters they may start with, whether a non-ASCII one)], where accepted is None, or this lexer's
        members of a family it does not have all of."""
        units = self._units_of_lexer[lexer]
        if units is None:
            units, done = [], set()
            names = self.tables.lexer(lexer)
            for name in names:
                family = self._family.get(name)
                if family is None:
                    chars, non_ascii = self._first[name]
                    units.append(((name,), None, chars, non_ascii))
                elif family[2] not in done:
                    done.add(family[2])
                    mine = frozenset(n for n in names if n in family[1])
                    chars = frozenset().union(*(self._first[n][0] for n in family[2]))
                    non_ascii = any(self._first[n][1] for n in family[2])
                    units.append((family[2], None if len(mine) == len(family[2]) else mine, chars, non_ascii))
            self._units_of_lexer[lexer] = units
        return units

    def candidates(self, state, char):
        """The match function of the state's lexer for text starting with char: one compiled regexp's match when
        the terminals that can start with char make one unit, else a function trying the units in turn (each
        regexp serves every state: combining a state's candidates into one would compile the same terminals
        into many regexps)."""
        table = self._candidates_of_state[state]
        key = char if char < "\x80" else None  # one entry for all non-ASCII characters
        found = table.get(key)
        if found is None:
            units = []   # (names, accepted, literals?), consecutive literals as one
            for names, accepted, chars, non_ascii in self._units(self.tables.lexer_of_state[state]):
                if char in chars if key is not None else non_ascii:
                    if names[0] not in self._literal:
                        units.append((names, accepted, False))
                    elif units and units[-1][2]:
                        units[-1] = (units[-1][0] + names, None, True)
                    else:
                        units.append((names, None, True))
            if len(units) == 1 and not units[0][2] and units[0][1] is None:
                names = units[0][0]
                found = self._matcher(names)
                run = self.tables.runs.get(names[0]) if key is not None and len(names) == 1 else None
                if run:  # an ignored run (whitespace) is all that can start here: skip one character without it
                    found = _Skip(found, frozenset(run))
            elif len(units) == 1 and units[0][2] and set(units[0][0]) == self._literal_first.get(char):
                found = self._literals_matcher()   # what it finds is one of the state's own
            else:
                found = self._trier(tuple((self._literals_matcher(), frozenset(names), False) if literals
                                          else (self._matcher(names), accepted, True)
                                          for names, accepted, literals in units))
            table[key] = found
        return found

    def _trier(self, units):
        """A match function trying units ((match, accepted, family?), ...) in turn: the first that matches (a
        re.Match), or None; accepted is None, or the terminals the state accepts when the regexp may find
        another: a family's members (the state's own are then tried without the others) or literals (then none
        of the state's own matches here)."""
        def match(text, pos):
            for match, accepted, family in units:
                m = match(text, pos)
                if m is not None:
                    if accepted is None or m.lastgroup in accepted:
                        return m
                    if family:  # the family's regexp found a member this state does not accept: try its own
                        m = self._matcher(tuple(n for n in self._family[m.lastgroup][2] if n in accepted))(text,
                                                                                                           pos)
                        if m is not None:
                            return m
            return None
        return match

    def lex(self, text, states, values):
        """Tokens of text, each lexed with the terminals of the parser state on top of `states` when it is asked
        for (the parser's stacks, shared)."""
        by_state, ignore, candidates = self._candidates_of_state, self.tables.ignore, self.candidates
        pos, line, line_start, size = 0, 1, 0, len(text)
        while pos < size:
            state = states[-1]
            char = text[pos]
            match = by_state[state].get(char)
            if match is None:
                match = candidates(state, char)
            if match.__class__ is _Skip:
                after = text[pos + 1:pos + 2]
                if after < "\x80" and after not in match.chars:  # a run of one character: skip it
                    if char == "\n":
                        line, line_start = line + 1, pos + 1
                    pos += 1
                    continue
                match = match.match  # a longer run (or one that may go on in non-ASCII): the regexp
            m = match(text, pos)
            if m is None:
                raise self._unmatched(text, pos, line, line_start, state, values)
            end = m.end()
            value = text[pos:end]
            kind = m.lastgroup
            if kind in ignore:
                if end == pos:
                    raise ValueError(f"terminal {kind} matched the empty string")
                if "\n" in value:
                    line, line_start = line + value.count("\n"), pos + value.rindex("\n") + 1
                pos = end
                continue
            if "\n" in value:
                end_line, end_line_start = line + value.count("\n"), pos + value.rindex("\n") + 1
                yield _new_tuple(Token, (kind, value, pos, line, pos - line_start + 1, end_line,
                                         end - end_line_start + 1, end))
                line, line_start = end_line, end_line_start
            else:
                yield _new_tuple(Token, (kind, value, pos, line, pos - line_start + 1, line, end - line_start + 1,
                                         end))
            pos = end

    def _root_match(self, text, pos):
        """The first terminal of the whole grammar that matches at pos, or None."""
        char = text[pos]
        return self._trier([(self._matcher(names), None, False) for names, _, chars, non_ascii in self._units(0)
                            if (char in chars if char < "\x80" else non_ascii)])(text, pos)

    def _unmatched(self, text, pos, line, line_start, state, values):
        """The error for text no terminal of the state matches: what the whole grammar's terminals find there
        (ignored ones skipped), as an UnexpectedToken, else UnexpectedCharacters."""
        allowed = set(self.tables.lexer(self.tables.lexer_of_state[state])) - self.tables.ignore
        allowed = allowed or {"<END-OF-FILE>"}
        at, at_line, at_start = pos, line, line_start
        while at < len(text):
            m = self._root_match(text, at)
            if m is None or m.end() == at:
                break
            value = m.group()
            newlines = value.count("\n")
            end_line = at_line + newlines
            end_start = at + value.rindex("\n") + 1 if newlines else at_start
            if m.lastgroup not in self.tables.ignore:
                token = Token(m.lastgroup, value, at, at_line, at - at_start + 1, end_line, m.end() - end_start + 1,
                              m.end())
                return UnexpectedToken(token, allowed, state, values)
            at, at_line, at_start = m.end(), end_line, end_start
        return UnexpectedCharacters(pos, line, pos - line_start + 1, allowed, state, values)


def _lex_modes(lexers, mode, text, states, values):
    """_Lexer.lex with one lexer per mode: each token is lexed by lexers[mode[0]] as mode[0] is when the token is
    asked for (the postlexer switches it). Without the one-character skip of _Lexer.lex: this serves the
    environments with other delimiters, not the hot path."""
    ignore = lexers[0].tables.ignore
    pos, line, line_start, size = 0, 1, 0, len(text)
    while pos < size:
        lexer = lexers[mode[0]]
        state = states[-1]
        char = text[pos]
        match = lexer._candidates_of_state[state].get(char) or lexer.candidates(state, char)
        m = (match.match if match.__class__ is _Skip else match)(text, pos)
        if m is None:
            raise lexer._unmatched(text, pos, line, line_start, state, values)
        end = m.end()
        value = text[pos:end]
        newlines = value.count("\n")
        end_line = line + newlines
        end_line_start = pos + value.rindex("\n") + 1 if newlines else line_start
        if m.lastgroup not in ignore:
            yield Token(m.lastgroup, value, pos, line, pos - line_start + 1, end_line, end - end_line_start + 1, end)
        elif end == pos:
            raise ValueError(f"terminal {m.lastgroup} matched the empty string")
        pos, line, line_start = end, end_line, end_line_start


def _shared_ends(alternatives):
    """The alternatives `lead(?P<name>rest)` joined by |, where consecutive ones whose rest ends in (?!\\w) (the
    block tags) have it once, after them: `(?:a|b)(?!\\w)` tries what `a(?!\\w)|b(?!\\w)` tries, in the same
    order, and compiles in ~60% of the time (each lookahead is a pattern of its own to compile)."""
    end = _TAG_END + ")"
    parts, run = [], []
    for alternative in alternatives + [None]:
        if alternative is not None and alternative.endswith(end):
            run.append(alternative[:-len(end)] + ")")
            continue
        if run:
            parts.append(f"(?:{'|'.join(run)}){_TAG_END}" if len(run) > 1 else run[0][:-1] + end)
            run = []
        if alternative is not None:
            parts.append(alternative)
    return "|".join(parts)


class _Skip:
    """A lexer's entry for a character that only an ignored run of one character class (whitespace) can start:
    its match function, and the run's ASCII characters, to skip a one-character run without the regexp."""
    __slots__ = ("match", "chars")

    def __init__(self, match, chars):
        self.match, self.chars = match, chars


def _shaper(plan):
    """A function making the callback's arguments from a rule's popped values, as Lark's tree builder shapes them:
    plan is ((index, splice, Nones before), ...), Nones at the end) (see tests/grammar_tables.py)."""
    include, trailing_nones = plan
    if trailing_nones or any(nones for _, _, nones in include):
        return lambda children: _shape(children, plan)
    if not include:
        return lambda children: []
    indexes = tuple(index for index, _, _ in include)
    if all(splice for _, splice, _ in include):  # inlined rules only: their lists, joined
        first, rest = indexes[0], indexes[1:]

        def joined(children):
            shaped = children[first]  # reused, as Lark does (left recursion: x*, x+ keep extending one list)
            for index in rest:
                shaped.extend(children[index])
            return shaped
        return joined
    if not any(splice for _, splice, _ in include):  # tokens and values only: pick them
        if len(indexes) == 1:
            index = indexes[0]
            return lambda children: [children[index]]
        pick = itemgetter(*indexes)
        return lambda children: list(pick(children))
    return lambda children: _shape(children, plan)


def _shape(children, plan):
    """The callback's arguments from a rule's popped values, as Lark's tree builder shapes them (see _shaper)."""
    include, trailing_nones = plan
    shaped = []
    for index, splice, nones in include:
        if nones:
            shaped.extend((None,) * nones)
        if splice:
            if shaped:
                shaped.extend(children[index])
            else:  # left recursion (x*, x+): keep extending the list the inlined rule built
                shaped = children[index]
        else:
            shaped.append(children[index])
    if trailing_nones:
        shaped.extend((None,) * trailing_nones)
    return shaped
