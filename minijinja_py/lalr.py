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

__all__ = ["Token", "Tables", "Parser", "UnexpectedInput", "UnexpectedToken", "UnexpectedCharacters"]

FORMAT = 1


class Token:
    """A terminal matched in the text: its name, its text, the offsets [start_pos, end_pos) and the 1-based
    line/column of its first character and of the position just after it."""
    __slots__ = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")

    def __init__(self, type, value, start_pos, line, column, end_line, end_column, end_pos):
        self.type, self.value, self.start_pos, self.end_pos = type, value, start_pos, end_pos
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r}, {self.start_pos})"


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
    """The decoded tables file (see tests/grammar_tables.py for its fields)."""

    def __init__(self, data):
        if data.get("format") != FORMAT:
            raise ValueError(f"parser tables of format {data.get('format')!r}, this driver reads {FORMAT}")
        self.terminals = data["terminals"]          # name → regexp
        self.ignore = frozenset(data["ignore"])
        self.lexers = data["lexers"]                # terminal names in match order; [0] has them all
        self.rules = data["rules"]                  # [origin, size, callback name, expand1, child plan]
        self.lexer_of_state = [lexer for lexer, _ in data["states"]]
        self.actions = [actions for _, actions in data["states"]]  # symbol → state (>= 0) or ~rule (< 0)
        self.start, self.end = data["start"], data["end"]


# What a reduction does, by rule
_UNIT = 0      # a `?rule` with one child: the value stays, only the state changes
_CALL = 1      # the callback gets the shaped children
_INLINE = 2    # an inlined `_rule`: the shaped children go to the parent as a list
_EXPAND1 = 3   # a `?rule` whose shaping may leave one child (passed up) or several (callback)


class Parser:
    """One set of tables with one set of terminal patterns (patterns: name → regexp, overriding the tables'),
    bound to callbacks (an object with one method per rule name or alias). Reusable and thread-safe: the
    lexers are compiled on first use and shared, each parse keeps its own stacks."""

    def __init__(self, tables, callbacks, patterns=None):
        self.tables = tables
        self.patterns = dict(tables.terminals, **(patterns or {}))
        self._ignore = tables.ignore
        self._actions = tables.actions
        self._end = tables.end
        self._rules = [self._bind(rule, callbacks) for rule in tables.rules]
        missing = sorted({r[3] for r in self._rules if isinstance(r[3], str)})
        if missing:
            raise ValueError(f"no callback for the rules {', '.join(missing)}")
        self._scanner_of_lexer = [None] * len(tables.lexers)
        self._scanner_of_state = [None] * len(tables.actions)
        self._units = {}  # (state below, state, lookahead) → state after the chain of unit reductions

    @staticmethod
    def _bind(rule, callbacks):
        """(kind, origin, size, callback, plan); the callback's name in place of the callback when it is missing."""
        origin, size, name, expand1, plan = rule
        if plan is not None:
            plan = (tuple(tuple(entry) for entry in plan[:-1]), plan[-1])
        if expand1 and size == 1 and plan is None:
            return (_UNIT, origin, size, None, plan)
        if name is None:
            return (_INLINE, origin, size, None, plan)
        callback = getattr(callbacks, name, name)
        return (_EXPAND1 if expand1 else _CALL, origin, size, callback, plan)

    # ------------------------------------------------------------------------------------------------ lexing
    def _scanner(self, state):
        """The compiled lexer of a parser state (its `match` method), compiled on first use."""
        index = self.tables.lexer_of_state[state]
        scanner = self._scanner_of_lexer[index]
        if scanner is None:
            names = self.tables.lexers[index]
            pattern = "|".join(f"(?P<{name}>{self.patterns[name]})" for name in names)
            scanner = self._scanner_of_lexer[index] = re.compile(pattern).match
        self._scanner_of_state[state] = scanner
        return scanner

    def _root_scanner(self):
        scanner = self._scanner_of_lexer[0]
        if scanner is None:
            pattern = "|".join(f"(?P<{name}>{self.patterns[name]})" for name in self.tables.lexers[0])
            scanner = self._scanner_of_lexer[0] = re.compile(pattern).match
        return scanner

    def lex(self, text, states, values):
        """Tokens of text, each lexed with the terminals of the parser state on top of `states` when it is asked
        for (the parser's stacks, shared)."""
        scanners, ignore = self._scanner_of_state, self._ignore
        pos, line, line_start, size = 0, 1, 0, len(text)
        while pos < size:
            state = states[-1]
            m = (scanners[state] or self._scanner(state))(text, pos)
            if m is None:
                raise self._unmatched(text, pos, line, line_start, state, values)
            end = m.end()
            value = text[pos:end]
            newlines = value.count("\n")
            if newlines:
                end_line, end_line_start = line + newlines, pos + value.rindex("\n") + 1
            else:
                end_line, end_line_start = line, line_start
            kind = m.lastgroup
            if kind not in ignore:
                yield Token(kind, value, pos, line, pos - line_start + 1, end_line, end - end_line_start + 1, end)
            elif end == pos:
                raise ValueError(f"terminal {kind} matched the empty string")
            pos, line, line_start = end, end_line, end_line_start

    def _unmatched(self, text, pos, line, line_start, state, values):
        """The error for text no terminal of the state matches: what the whole grammar's terminals find there
        (ignored ones skipped), as an UnexpectedToken, else UnexpectedCharacters."""
        allowed = set(self.tables.lexers[self.tables.lexer_of_state[state]]) - self._ignore or {"<END-OF-FILE>"}
        scan, at, at_line, at_start = self._root_scanner(), pos, line, line_start
        while at < len(text):
            m = scan(text, at)
            if m is None or m.end() == at:
                break
            value = m.group()
            newlines = value.count("\n")
            end_line = at_line + newlines
            end_start = at + value.rindex("\n") + 1 if newlines else at_start
            if m.lastgroup not in self._ignore:
                token = Token(m.lastgroup, value, at, at_line, at - at_start + 1, end_line, m.end() - end_start + 1,
                              m.end())
                return UnexpectedToken(token, allowed, state, values)
            at, at_line, at_start = m.end(), end_line, end_start
        return UnexpectedCharacters(pos, line, pos - line_start + 1, allowed, state, values)

    # ----------------------------------------------------------------------------------------------- parsing
    def parse(self, text, postlex=None):
        """The start rule's value for text. postlex, if given, maps the token stream to the one parsed (a
        generator over the lexer's tokens; the lexer reads the parser state when the next token is asked for)."""
        states, values = [self.tables.start], []
        stream = self.lex(text, states, values)
        if postlex is not None:
            stream = postlex(stream)
        token = None
        feed = self._feed
        for token in stream:
            feed(states, values, token, False)
        if token is None:
            end = Token("$END", "", 0, 1, 1, None, None, None)
        else:
            end = Token("$END", "", token.start_pos, token.line, token.column, token.end_line, token.end_column,
                        token.end_pos)
        return feed(states, values, end, True)

    def _feed(self, states, values, token, is_end):
        """Shift token after the reductions it calls for; with is_end, reduce until the parse is complete and
        return its value."""
        kind, actions, rules = token.type, self._actions, self._rules
        state = states[-1]
        while True:
            action = actions[state].get(kind)
            if action is None:
                raise UnexpectedToken(token, {s for s in actions[state] if s.isupper()}, state, values)
            if action >= 0:
                states.append(action)
                values.append(token)
                return None
            how, origin, size, callback, plan = rules[~action]
            if how is _UNIT:
                key = (states[-2], state, kind)
                state = self._units.get(key)
                if state is None:
                    state = self._units[key] = self._follow_units(key[0], key[1], kind)
                states[-1] = state
            else:
                if size:
                    children = values[-size:]
                    del values[-size:]
                    del states[-size:]
                else:
                    children = []
                if plan is not None:
                    children = _shape(children, plan)
                if how is _CALL:
                    value = callback(children)
                elif how is _INLINE:
                    value = children
                else:
                    value = children[0] if len(children) == 1 else callback(children)
                state = actions[states[-1]][origin]
                states.append(state)
                values.append(value)
            if is_end and state == self._end:
                return values[-1]

    def _follow_units(self, below, state, kind):
        """The state after the unit reductions that `kind` calls for in `state` (on top of `below`); stops
        before any other action (or an error, which then shows in that state as Lark would show it)."""
        actions, rules = self._actions, self._rules
        while True:
            action = actions[state].get(kind)
            if action is None or action >= 0 or rules[~action][0] is not _UNIT or state == self._end:
                return state
            state = actions[below][rules[~action][1]]


def _shape(children, plan):
    """The callback's arguments from a rule's popped values, as Lark's tree builder shapes them (see Tables)."""
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
