"""LALR(1) driver: prebuilt tables + text → the value the start rule's callback returns."""

# Generic, with no knowledge of Jinja. The tables (built ahead of time by Lark from the grammar, see
# tools/grammar_tables.py) hold the parse table, the terminal set of each parser state and the order its lexer
# tries them in, and for each rule how its children are shaped before its callback sees them. The driver
# reproduces what Lark's LALR parser with its contextual lexer and its tree builder (maybe_placeholders=True)
# would do, without building a tree:
#
#   lexing      each parser state lexes with its own terminals only (the contextual lexer of lexer.py).
#   reducing    a rule's callback (named by its alias, else by the rule) gets the children with `_TOKENS`
#               dropped, the values of inlined `_rules` spliced in and None for each missing [optional] part;
#               a `?rule` left with one child passes that child up without a callback.
#
# Nothing recurses, whatever the nesting of the input; lexing and parsing are linear in the text (given terminal
# patterns that are). Chains of single-child `?rule` reductions (an atom climbs a dozen precedence levels) are
# remembered per (state below, state, lookahead) and taken in one step.

from itertools import chain
from operator import itemgetter
from sys import byteorder

from .lexer import Lexer, UnexpectedInput, lex_modes, lexicon, unexpected_characters, unexpected_token

__all__ = ["Tables", "Parser", "UnexpectedInput", "unexpected_token", "unexpected_characters"]

FORMAT = 12
_BIG_ENDIAN = byteorder == "big"   # (the tables write two-byte numbers low byte first)
# the bytes that mark a unit list's parts (see Tables.units), above every symbol's code: between units, in front of
# a unit of literals or of other terminals, and in front of the members a lexer accepts of a family
UNIT_BREAK, LITERALS, TERMINALS, ACCEPTED = 0xFF, 0xFE, 0xFD, 0xFC
# a unit reduction's action in the parse table: UNITS - its origin's code (below every other action; the rule
# itself is never bound: a chain of them is followed by the origins, see Parser._follow_units)
UNITS = -0x400


class Tables:
    # The decoded tables file (see tools/grammar_tables.py for its fields). The parts a parse needs per rule or
    # lexer are kept as the file's bytes (a symbol's code a byte, a number two), one bytes per table (the rules: one
    # text) with its entries' offsets, and decoded when first used (a template visits a fraction of them); the parse
    # table is read in place: decoding the file and holding it are a cold start's cost, and one object per entry
    # held ~55 KiB more.

    def __init__(self, data):
        if data.get("format") != FORMAT:
            raise ValueError(f"parser tables of format {data.get('format')!r}, this driver reads {FORMAT}")
        self.terminals = data["terminals"]          # name → regexp
        # where a terminal's match may start: a character's class (a byte per ASCII character, then one for every
        # non-ASCII one) → the terminals a match may start with there (symbol codes; a frozenset once decoded)
        self.class_of_char = data["char_classes"]
        self._starters, self._starter_offsets = _unpacked(data["starters"])
        self._starting = [None] * (len(self._starter_offsets) - 1)
        self.families = data["families"]            # [[shared prefix, [names], [lead literals]], ...]
        self.literals = data["literals"]            # name → its fixed text (see natives.literals)
        self.ignore = frozenset(data["ignore"])
        self.runs = data["runs"]                    # ignored terminal → ASCII characters of its run (C+)
        # rule → "origin size callback expand1 plan" (split by the parser on first use)
        self._rules, self._rule_offsets = _unpacked(data["rules"])
        self.rule_count = len(self._rule_offsets) - 1
        self.callbacks = data["callbacks"]          # the rule names and aliases the parser calls back
        self.lexer_of_state = data["state_lexers"]
        # what a lexer tries for a character of a class, as Lexer._units makes it: the distinct unit lists (a
        # tuple once decoded), and for each lexer and class the number of its list (bytes, lexer by lexer)
        self._unit_texts, self._unit_offsets = _unpacked(data["units"])
        self._unit_lists = [None] * (len(self._unit_offsets) - 1)
        self._units = {}   # a unit's text → the unit
        self._lexer_units = data["lexer_units"]
        self._class_count = len(self._starter_offsets) - 1
        # lexer → its terminal names in match order ([0] has them all), a tuple once decoded
        self._lexers, self._lexer_offsets = _unpacked(data["lexers"])
        self.lexer_count = len(self._lexer_offsets) - 1
        self._lexer_names = [None] * self.lexer_count
        # a number's symbol (one str per symbol, shared by the rows and lexers), and a symbol's number
        self.symbols = data["symbols"]
        self.code_of = dict(zip(self.symbols, range(len(self.symbols))))
        # the parse table, dense: the action of state s on the symbol of number c at s * width + c, a state (shift
        # or goto, >= 0) or ~rule (reduce, < 0), or `error` (~rule_count: none). Read in place, one view of signed
        # numbers: nothing is decoded, where rows made on first use cost a first parse a tenth of its time
        self.width = len(self.symbols)
        self.table = _shorts(data["actions"], "h")
        self.error = ~self.rule_count
        self.state_count = len(self.table) // self.width
        self.rows = [None] * self.state_count   # a state's actions (its part of table), made by view() on first use
        self.start, self.end = data["start"], data["end"]

    def view(self, state):
        # The actions of a state, a view of table indexed by the symbols' numbers.
        row = self.rows[state] = self.table[state * self.width:(state + 1) * self.width]
        return row

    def rule(self, number):
        # The text of a rule.
        offsets = self._rule_offsets
        return self._rules[offsets[number]:offsets[number + 1]]

    def lexer(self, number):
        # The terminal names of a lexer, in match order.
        names = self._lexer_names[number]
        if names is None:
            text = _entry(self._lexers, self._lexer_offsets, number)
            names = self._lexer_names[number] = self._symbols_of(text)
        return names

    def starting(self, char):
        # The terminals a match may start with at char (None: a non-ASCII character), a frozenset.
        number = self.class_of_char[128 if char is None else ord(char)]
        found = self._starting[number]
        if found is None:
            found = self._starting[number] = frozenset(self._symbols_of(
                _entry(self._starters, self._starter_offsets, number)))
        return found

    def units(self, lexer, key):
        # The units lexer (a number) tries for key (a character, None for a non-ASCII one), in order (see
        # Lexer._units): a tuple of (names, accepted, literals?), decoded on first use.
        return self.listed_units(self.unit_list(lexer, key))

    def unit_list(self, lexer, key):
        # The number of the unit list lexer tries for key (lexers share lists: a lexer's match function for a
        # character is made once per list, see Lexer.candidates).
        return self._lexer_units[lexer * self._class_count + self.class_of_char[128 if key is None else ord(key)]]

    def listed_units(self, number):
        # Unit list `number` (see units).
        found = self._unit_lists[number]
        if found is None:
            units, unit = self._units, self._unit
            text = _entry(self._unit_texts, self._unit_offsets, number)
            found = self._unit_lists[number] = tuple([units.get(part) or unit(part) for part in text.split(
                _BREAK)]) if text else ()
        return found

    def _unit(self, text):
        # A unit of a unit list (see tools/grammar_tables.py: _units), decoded once (lists share units).
        names, _, accepted = text[1:].partition(_ACCEPTED)
        found = self._units[text] = (self._symbols_of(names), frozenset(self._symbols_of(accepted)) if accepted
                                     else None, text[0] == LITERALS)
        return found

    def first_chars(self):
        # {terminal: (the ASCII characters a match may start with, whether a non-ASCII one may)}, from starting
        # (for the lexicons made at run time: other delimiters).
        first = {name: (set(), False) for name in self.terminals}
        for key in map(chr, range(128)):
            for name in self.starting(key):
                first[name][0].add(key)
        for name in self.starting(None):
            first[name] = (first[name][0], True)
        return first

    def row(self, state):
        # The actions of a state: {symbol: action}, for the symbols it has one for.
        start = state * self.width
        return {symbol: action for symbol, action in zip(self.symbols, self.table[start:start + self.width])
                if action != self.error}

    def _symbols_of(self, codes):
        # The symbols of codes (bytes), a tuple (picked by _picker's itemgetter: a tenth of map's cost per symbol).
        return _picker(codes)(self.symbols) if codes else ()


_BREAK, _ACCEPTED = bytes([UNIT_BREAK]), bytes([ACCEPTED])


def _unpacked(table):
    # (joined, offsets) of a table the build packed as [its entries joined, their offsets as two-byte numbers].
    joined, offsets = table
    return joined, _shorts(offsets)


def _entry(text, offsets, number):
    # Entry `number` of a packed table.
    return text[offsets[number]:offsets[number + 1]]


def _shorts(data, kind="H"):
    # The numbers of bytes of two each, low byte first: unsigned (kind "H") or signed ("h"), a view of data
    # (of a swapped copy on a big-endian machine).
    if _BIG_ENDIAN:
        data = bytearray(data)
        data[::2], data[1::2] = data[1::2], data[::2]
    return memoryview(data).cast(kind)


# What a reduction does, by rule
_UNIT = 0      # a `?rule` with one child: the value stays, only the state changes
_CALL = 1      # the callback gets the shaped children
_INLINE = 2    # an inlined `_rule`: the shaped children go to the parent as a list
_EXPAND1 = 3   # a `?rule` whose shaping may leave one child (passed up) or several (callback)
_ERROR = 4     # no action: the end of the parse, or a syntax error
_SAME = -1     # a rule's size when its one symbol's value, a list, is the callback's children as it is
_STOP = -2     # the size of no action's entry (checked last: the reductions do not pay for it)
_HOW = {"U": _UNIT, "C": _CALL, "I": _INLINE, "E": _EXPAND1}   # as the tables write them


class Parser:
    # One set of tables, with the terminal patterns passed through edit (a function, pattern → pattern), bound
    # to callbacks (an object with one method per rule name or alias). Reusable and thread-safe: the lexers are
    # compiled on first use and shared, each parse keeps its own stacks.
    #
    # modes, if given, replaces edit: a list of Lexicons, one per lexer mode, of which a parse lexes each token with
    # the one its `mode` names when the token is lexed (see parse).

    def __init__(self, tables, callbacks, edit=None, modes=None):
        self.tables = tables
        lexicons = modes or [lexicon(tables, edit)]
        self.patterns = lexicons[0].patterns
        self._ignore = tables.ignore
        self._end = tables.end
        # (that callbacks has every rule's method is a test's to check, tests/test_grammar.py: a check here cost each
        # first parse ~80 lookups)
        self._callbacks = callbacks
        # rule number → how its reduction goes, made on first use; the last, ~tables.error, no action's
        self._rules = [None] * tables.rule_count + [(_ERROR, None, _STOP, None, None)]
        self._lexers = [Lexer(tables, one) for one in lexicons]
        self._lexer = self._lexers[0]
        # (state below, state, lookahead) → (the state after the chain of unit reductions, its action then)
        self._chains = {}

    def _rule(self, number):
        # (kind, origin, size, callback, shaper) of a rule, where shaper is None when the children pass
        # unchanged; made when the rule is first reduced (a template uses a fraction of them), from its text as
        # the build wrote it (see tools/grammar_tables.py: _rule_entry).
        rule = self._rules[number]
        if rule is None:
            origin, size, how, name, shaper = self.tables.rule(number).split(" ")
            rule = self._rules[number] = (_HOW[how], self.tables.code_of[origin], int(size),
                                          None if name == "-" else getattr(self._callbacks, name),
                                          None if shaper == "-" else _shaper(shaper))
        return rule

    # ----------------------------------------------------------------------------------------------- parsing
    def parse(self, text, postlex=None, mode=None):
        # The start rule's value for text. postlex, if given, maps the token stream to the one parsed (a
        # generator over the lexer's tokens; the lexer reads the parser state when the next token is asked for).
        # mode: for a parser made with modes, a list whose one item is the number of the mode the next token is
        # lexed in (the postlexer sets it as it goes; it starts as it is given).
        tables = self.tables
        state = tables.start
        states, values = [state], []
        rows, view, codes, error = tables.rows, tables.view, tables.code_of, tables.error
        # top: the index of values' top, states' one below (states[top + 1] is state, written when the token is
        # shifted: the reductions before it keep the state in hand): the interpreter specialises non-negative list
        # indexes, not [-1] or [-2] (these took ~2% of a parse)
        rules, chains, top = self._rules, self._chains, -1
        for token in self._tokens(text, states, values, postlex, mode):
            kind = token[0]   # its type (see lexer.token_class)
            try:
                code = codes[kind]
            except KeyError:   # (a token no state accepts)
                code = None
                action = error
            else:
                action = (rows[state] or view(state))[code]
            if action < 0:   # reduce until the token can be shifted
                while True:
                    if action <= UNITS:  # a chain of unit reductions, taken in one step, with the action after it
                        key = (states[top], state, code)
                        found = chains.get(key)
                        if found is None:
                            found = chains[key] = self._follow_units(key[0], state, code)
                        state, action = found
                        if action >= 0:
                            break
                        continue
                    how, origin, size, callback, shaper = rules[~action] or self._rule(~action)
                    # a reduction, in line: this is the parser's inner loop
                    if size == 1:   # the rule's symbol's slots take its value and the state after it
                        children = [values[top]]
                    elif size == 2:   # (popped one by one: no slice objects)
                        children = [values[top - 1], values.pop()]
                        top -= 1
                        states.pop()
                    elif size == 3:
                        last = values.pop()
                        middle = values.pop()
                        top -= 2
                        children = [values[top], middle, last]
                        states.pop()
                        states.pop()
                    elif size > 3:
                        children = values[-size:]
                        del values[1 - size:]
                        del states[1 - size:]
                        top -= size - 1
                    elif size == _SAME:   # (in place as size 1) the one child is the shaped list itself
                        children = values[top]
                    elif size == 0:
                        children = []
                        states[top + 1] = state
                        states.append(state)
                        values.append(None)
                        top += 1
                    else:   # no action (the last entry of rules): the end of the parse, or a syntax error
                        return self._stopped(token, state, values)
                    if shaper is not None:
                        children = shaper(children)
                    if how is _CALL:
                        children = callback(children)
                    elif how is _EXPAND1:
                        children = children[0] if len(children) == 1 else callback(children)
                    state = rows[states[top]][origin]
                    values[top] = children
                    action = (rows[state] or view(state))[code]
                    if action >= 0:
                        break
                states[top + 1] = state
            states.append(action)
            values.append(token)
            state = action
            top += 1
        raise AssertionError("the tables shift no $END")   # (they never do: tools/grammar_tables.py)

    def _tokens(self, text, states, values, postlex, mode):
        # The tokens the parser reads (see parse): the last, $END, is reduced as the others are, up to the end
        # state, where it completes the parse.
        stream = (self._lexer.lex(text, states, values) if mode is None
                  else lex_modes(self._lexers, mode, text, states, values))
        if postlex is not None:
            stream = postlex(stream)
        return chain(stream, _end_of(values))

    def _stopped(self, token, state, values):
        # The parse's value where token has no action in state: at its end, else a syntax error.
        if state == self._end and token[0] == "$END":
            return values[-1]
        raise unexpected_token(token, _expected(self.tables.row(state)), state, values)

    def _follow_units(self, below, state, code):
        # (the state after the unit reductions that the symbol numbered code calls for in `state`, on top of
        # `below`; the action there): stops before any other action (or an error, which then shows in that state
        # as Lark would show it; the end state has no action, tests/test_grammar.py).
        rows, view, goto = self.tables.rows, self.tables.view, self.tables.rows[below]
        action = rows[state][code]
        while action <= UNITS:
            state = goto[UNITS - action]
            action = (rows[state] or view(state))[code]
        return state, action


def _end_of(values):
    # The $END token, after the last one (placed where the last token is, as Lark places it: values[-1] is that
    # token when the parser asks for the next one, having just shifted it).
    last = values[-1] if values else None
    if last is None:
        yield ("$END", "", 0, 1, 1, None, None, None)
    else:   # (start_pos, line, column, end_line, end_column, end_pos)
        yield ("$END", "") + last[2:]


def _expected(actions):
    # The terminals a state has an action for (Lark's `expected`: the upper-case symbols, $END included).
    return {symbol for symbol in actions if symbol.isupper()}


def _picker(indexes):
    # The shaper of a rule whose callback takes some of its symbols' values as they are: a tuple of them (a
    # callback's children are read, never extended: only an inlined rule's list is).
    if len(indexes) == 1:
        index = indexes[0]
        return lambda children: (children[index],)
    return itemgetter(*indexes)


def _indexes(text):
    # The numbers of a comma-separated text ("" for none).
    return tuple(map(int, text.split(","))) if text else ()


def _shaper(spec):
    # A function making the callback's arguments from a rule's popped values, as Lark's tree builder shapes them,
    # from the build's spec of it, kind:arguments (see tools/grammar_tables.py: _shaper).
    kind, _, arguments = spec.partition(":")
    if kind == "e":
        return _nothing
    if kind == "s":
        before, after, spliced = arguments.split(";")
        return _spliced_or_padded(_indexes(before), _indexes(after), int(spliced) if spliced else None)
    if kind == "g":
        include, nones = arguments.split(";")
        plan = (tuple(tuple(map(int, entry.split("."))) for entry in include.split(",")), int(nones))
        return lambda children: _shape(children, plan)
    indexes = _indexes(arguments)
    if kind == "t":
        return _picker(indexes)
    if kind == "j":   # inlined rules only: their lists, joined
        first, rest = indexes[0], indexes[1:]

        def joined(children):
            shaped = children[first]  # reused, as Lark does (left recursion: x*, x+ keep extending one list)
            for index in rest:
                shaped.extend(children[index])
            return shaped
        return joined
    if len(indexes) == 1:   # "l": tokens and values only, picked into a list
        index = indexes[0]
        return lambda children: [children[index]]
    pick = itemgetter(*indexes)
    return lambda children: list(pick(children))


def _nothing(children):
    return []


def _spliced_or_padded(before, after, spliced):
    # _shaper's function for Nones or one inlined rule's list among other values: the values before and after
    # that list (spliced: its index, or None) picked in one call each, an index -1 standing for each None (a None
    # is appended to the popped values, a fresh list); the list itself extended when it comes first, as _shape
    # does.
    padded = -1 in before or -1 in after
    pick_before = _picker(before) if before else None
    pick_after = _picker(after) if after else None
    if spliced is None:
        def picked(children):
            children.append(None)
            return list(pick_before(children))
        return picked

    def shaped(children):
        if padded:
            children.append(None)
        if pick_before is None:
            shaped = children[spliced]   # reused (left recursion: x*, x+ keep extending one list)
        else:
            shaped = list(pick_before(children))
            shaped.extend(children[spliced])
        if pick_after is not None:
            shaped.extend(pick_after(children))
        return shaped
    return shaped


def _shape(children, plan):
    # The callback's arguments from a rule's popped values, as Lark's tree builder shapes them: plan is ((index,
    # splice, Nones before), ...), Nones at the end).
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
