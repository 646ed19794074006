"""Atoms: the tests an if decides in line on one read (ir.Atom) — its truth, `== 'x'`, `'x' in`, `is defined`,
`is none`, `is string`, `in ['a', 'b']`, `> 1` — and the if kernels built on them."""

# decide() is the one definition of what an atom's outcome is on the value its read gave: True or False where the
# value is plain data (reads.py) or a missing key (undefined), None where the general path must decide. Every test of
# an if kernel keeps its general closure: an atom that gives None is decided by the truth of its value (truth():
# reading again is exact, the read in line ran nothing), so a kernel never runs a test twice nor falls back past a
# test that ran code.

import operator
from functools import partial

from .ir import Atom, Emit, If, Test
from .reads import ABSENT, BIG_STR, MISSING, PLAIN, attribute, spec
from .select import kernel
from ..core.errors import located
from ..runtime.objects import ChatNamespace, LoopContext
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["TRUTHY", "FALSY", "EQ", "NE", "DEFINED", "UNDEFINED", "NONE", "NOT_NONE", "IN", "NOT_IN", "TYPE_IS",
           "TYPE_IS_NOT", "ONE_OF", "NONE_OF", "LT", "LE", "GT", "GE", "ORDER", "NEGATION", "decide", "truth",
           "decider"]

TRUTHY, FALSY, EQ, NE, DEFINED, UNDEFINED, NONE, NOT_NONE, IN, NOT_IN, TYPE_IS, TYPE_IS_NOT, ONE_OF, \
    NONE_OF, LT, LE, GT, GE = range(18)
# `idx > 1`: an int against an int constant (for ints, not < is >=: the negations are exact)
ORDER = {LT: operator.lt, LE: operator.le, GT: operator.gt, GE: operator.ge}
NEGATION = {TRUTHY: FALSY, FALSY: TRUTHY, EQ: NE, NE: EQ, DEFINED: UNDEFINED, UNDEFINED: DEFINED,
            NONE: NOT_NONE, NOT_NONE: NONE, IN: NOT_IN, NOT_IN: IN, TYPE_IS: TYPE_IS_NOT,
            TYPE_IS_NOT: TYPE_IS, ONE_OF: NONE_OF, NONE_OF: ONE_OF, LT: GE, GE: LT, LE: GT, GT: LE}
# what an undefined (a missing key) gives, where the undefined class compares and tests as Jinja2's default one
_ON_UNDEFINED = {DEFINED: False, UNDEFINED: True, TRUTHY: False, FALSY: True, EQ: False, NE: True, NONE: False,
                 NOT_NONE: True}


def decide(kind, constant, value, rs):
    # An atom's outcome on the value its read gave (MISSING: not plain; ABSENT: undefined): True, False, or None
    # where the general path decides.
    if value is ABSENT:
        if kind == DEFINED or kind == UNDEFINED or rs.undefined in PLAIN_UNDEFINED:
            return _ON_UNDEFINED.get(kind)
        return None
    if value is MISSING:
        return None
    if kind == NONE or kind == NOT_NONE:
        return (value is None) is (kind == NONE)   # an identity: exact on any value
    cls = type(value)
    if cls not in PLAIN:
        return None
    if kind == TRUTHY or kind == FALSY:
        return (True if value else False) is (kind == TRUTHY)
    if kind == EQ or kind == NE:
        return (value == constant) is (kind == EQ) if cls is type(constant) else None
    if kind == IN or kind == NOT_IN:
        if cls is dict or cls is str and len(value) < BIG_STR:
            return (constant in value) is (kind == IN)
        return None
    if kind == DEFINED or kind == UNDEFINED:
        return kind == DEFINED
    if kind == TYPE_IS or kind == TYPE_IS_NOT:
        return (cls is constant) is (kind == TYPE_IS)
    if kind in ORDER:
        return ORDER[kind](value, constant) if cls is int else None
    members, member_type = constant   # ONE_OF, NONE_OF: `role in ['tool', 'tool_results']`
    return (value in members) is (kind == ONE_OF) if cls is member_type else None


def truth(f, ev, span):
    # The truth of a test's general value (ev(f)), a failure located at span: what decides where an atom cannot
    # (reading again is exact: the atom's read in line ran nothing).
    value = ev(f)
    try:
        return True if value else False
    except Exception as exc:   # a truth test can fail (StrictUndefined)
        raise located(exc, span)


def decider(part, value):
    # f → bool (or None) of one part of a test: an Atom read and decided in line, a Test (an and/or of parts)
    # decided part by part in Jinja2's order up to the part that decides, or anything else (None) by the truth of
    # its value. value is the part's general (closure, span): where an atom cannot decide (decide() gives None), its
    # truth decides; a part of a Test of atoms only has none, and gives None then (its Test is decided whole).
    ev, span = value if value is not None else (None, None)
    if part is None:
        return partial(truth, ev=ev, span=span)
    if type(part) is Test:
        parts = tuple(decider(sub, sub_value) for sub, sub_value in part.parts)
        return _any_of(parts, part.want, ev, span)
    slot, key, _, read_path = spec(part.read, variables=True)
    kind, constant = part.kind, part.constant
    if kind == EQ or kind == NE:
        want, constant_type = kind == EQ, type(constant)

        def decide_compare(f):
            if read_path is None:
                value = f[slot]
                if key is not None:
                    value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
            else:
                value = read_path(f)
            if type(value) is constant_type:
                return want if value == constant else not want
            outcome = decide(kind, constant, value, f[0])
            return outcome if outcome is not None or ev is None else truth(f, ev, span)
        return decide_compare
    family, want = _FAMILY.get(kind), kind in (TRUTHY, DEFINED, TYPE_IS, NONE, IN, ONE_OF)

    def decide_atom(f, constant=constant, ev=ev, family=family, key=key, kind=kind, read_path=read_path, slot=slot,
            span=span, want=want):
        if read_path is None:
            value = f[slot]
            if key is not None:
                value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        else:
            value = read_path(f)
        if type(value) in PLAIN:   # the commonest kinds, on plain data: as decide() decides them
            if family is TRUTHY:
                return want if value else not want
            if family is DEFINED:
                return want
            if family is TYPE_IS:
                return want if type(value) is constant else not want
            if family is NONE:
                return want if value is None else not want
            if family is IN and (type(value) is dict or type(value) is str and len(value) < BIG_STR):
                return want if constant in value else not want   # `'tool_calls' in m`
            if family is ONE_OF and type(value) is constant[1]:
                return want if value in constant[0] else not want   # `m.role in ['user', 'system']`
        elif value is ABSENT and (family is TRUTHY or family is DEFINED or family is NONE) and \
                f[0].undefined in PLAIN_UNDEFINED:
            return not want   # a missing key: undefined, false, not defined, not none
        outcome = decide(kind, constant, value, f[0])
        return outcome if outcome is not None or ev is None else truth(f, ev, span)
    return decide_atom


def _namespace(key):
    # The chat namespace's class where a kernel may read its attribute `key` in line (not a `_` name), else None.
    return ChatNamespace if key is not None and key[:1] != "_" else None


# the kinds decider() decides in line on plain data, by family (the first kind of each: the one wanted true)
_FAMILY = {TRUTHY: TRUTHY, FALSY: TRUTHY, DEFINED: DEFINED, UNDEFINED: DEFINED, TYPE_IS: TYPE_IS,
           TYPE_IS_NOT: TYPE_IS, NONE: NONE, NOT_NONE: NONE, IN: IN, NOT_IN: IN, ONE_OF: ONE_OF, NONE_OF: ONE_OF}


def _any_of(parts, want, ev, span):
    # f → the and (want False) or or (want True) of parts (deciders), in order up to the part that decides;
    # where one gives None, the truth of the whole (ev), or None when there is none.
    if len(parts) == 1 and ev is None:
        return parts[0]
    if len(parts) == 2:
        first, second = parts

        def decide_two(f, ev=ev, first=first, second=second, span=span, want=want):
            outcome = first(f)
            if outcome is not want:
                outcome = second(f) if outcome is not None else None
            if outcome is None:
                return truth(f, ev, span) if ev is not None else None
            return outcome
        return decide_two

    def decide_parts(f, ev=ev, parts=parts, span=span, want=want):
        for part in parts:
            outcome = part(f)
            if outcome is None:
                return truth(f, ev, span) if ev is not None else None
            if outcome is want:
                return want
        return not want
    return decide_parts


@kernel(If, "tests")
def if_tests(node):
    # An if whose every branch test is an Atom or a Test: each decided in line (deciders), in Jinja2's order, the
    # first branch whose test holds run (an if of one branch and one atom: _if_atom, all in line).
    if len(node.bodies) == 1 and type(node.tests[0]) is Atom:
        return _if_atom(node.tests[0], node.values[0], node.bodies[0], node.else_)
    if len(node.bodies) == 1 and _compare_first(node.tests[0]):
        return _if_compare_first(node.tests[0], node.bodies[0], node.else_)
    if len(node.bodies) == 1 and type(node.tests[0]) is Test and len(node.tests[0].parts) == 2:
        run_two_parts = _if_two_parts(node.tests[0], node.values[0], node.bodies[0], node.else_)
        return _if_key_there(node.tests[0], node.bodies[0], node.else_, run_two_parts)
    branches = tuple((decider(test, value), body.run) for test, value, body in zip(node.tests, node.values,
                                                                                   node.bodies))
    else_ = node.else_.run if node.else_ is not None else None
    (test, body), text = branches[0], node.bodies[0].text
    if len(branches) == 1:
        def run_test(f, out):   # (text: the body's constant text, appended here)
            if test(f):
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
        return run_test

    def run_tests(f, out, branches=branches, else_=else_):
        for test, body in branches:
            if test(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_tests


def _compare_first(test):
    # Is test an and/or whose first part compares a key with a constant (`m.role == 'a' and ...`)?
    first = test.parts[0][0]
    return type(first) is Atom and first.kind in (EQ, NE) and spec(first.read)[3] is None and \
        test.parts[0][1] is not None


def _if_compare_first(test, body, else_block):
    # {% if m.role == 'assistant' and m.tool_calls %}...: the first part, a compare of a key, read and decided in
    # line, the others by their deciders, in Jinja2's order up to the part that decides (the commonest form:
    # _compare_and).
    (first, (ev, span)), rest = test.parts[0], tuple(decider(part, value) for part, value in test.parts[1:])
    slot, key, _, _ = spec(first.read)
    constant, constant_type, equal, want = first.constant, type(first.constant), first.kind == EQ, test.want
    rare = (first.kind, constant, ev, span)
    run_body, text, else_ = body.run, body.text, else_block.run if else_block is not None else None

    def run_compare_first(f, out, slot=slot, key=key, constant_type=constant_type, constant=constant, equal=equal,
                          rare=rare, want=want, rest=rest, text=text, run_body=run_body, else_=else_):
        value = f[slot]
        value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        if type(value) is constant_type:
            outcome = equal if value == constant else not equal
        else:
            outcome = _undecided(rare, f, value)
        if outcome is not want:
            for part in rest:
                outcome = part(f)
                if outcome is want:
                    break
        if outcome:
            return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    second = test.parts[1][0] if len(rest) == 1 else None
    if want or constant_type is not str or type(second) is not Atom or _FAMILY.get(second.kind) not in (TRUTHY, NONE):
        return run_compare_first
    return _compare_and(first, second, text, run_body, else_, run_compare_first)


def _compare_and(first, second, text, run_body, else_, run_compare_first):
    # `m.role == 'assistant' and m.content` (or !=; the second the truth or `is none` of a key of the same dict):
    # on a plain dict with a str there and a plain value there, both read and decided here, nothing run in between
    # (fewer free values per call than run_compare_first, which takes anything else and reads it all again).
    (slot, key, _, _), (slot2, key2, _, read_path) = spec(first.read), spec(second.read)
    if slot2 != slot or read_path is not None:
        return run_compare_first
    truths2, want2 = _FAMILY[second.kind] is TRUTHY, second.kind in (TRUTHY, NONE)

    def run_compare_and(f, out, slot=slot, key=key, constant=first.constant, equal=first.kind == EQ, key2=key2,
                        truths2=truths2, want2=want2, text=text, run_body=run_body, else_=else_,
                        general=run_compare_first):
        value = f[slot]
        if type(value) is not dict or type(compared := value.get(key)) is not str:
            return general(f, out)
        if (compared == constant) is equal:
            if type(value := value.get(key2, ABSENT)) not in PLAIN:
                return general(f, out)
            if want2 if (value if truths2 else value is None) else not want2:
                return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    return run_compare_and


def _if_two_parts(test, value, body, else_block):
    # {% if m.tool_calls and m.content %}: the two parts' deciders called from here (decide_two's order and
    # fallback, without its call).
    (first, second), want, (ev, span) = (decider(part, part_value) for part, part_value in test.parts), test.want, \
        value
    run_body, text, else_ = body.run, body.text, else_block.run if else_block is not None else None

    def run_two_parts(f, out):
        outcome = first(f)
        if outcome is not want:
            outcome = second(f) if outcome is not None else None
            if outcome is None:
                outcome = truth(f, ev, span)
        if outcome:
            return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    return run_two_parts


def _if_key_there(test, body, else_block, run_two_parts):
    # {% if 'k' in m and m['k'] %}, {% if m.k is defined and m.k is not none %} (the key there, then its truth
    # or not none): on a plain dict one lookup decides both parts (nothing runs between Jinja2's two reads of m and
    # of its key); anything else through run_two_parts, which is all where the test is not of that form.
    (first, _), (second, _) = test.parts
    if test.want or type(first) is not Atom or type(second) is not Atom or second.kind not in (TRUTHY, NOT_NONE):
        return run_two_parts
    slot, key, _, read_path = spec(second.read)
    there = (slot, None, None, None) if first.kind == IN and first.constant == key else (slot, key, None, None) \
        if first.kind == DEFINED else None   # (what spec() makes of the first part's read)
    if read_path is not None or spec(first.read, variables=True) != there:
        return run_two_parts
    if first.kind == IN and second.kind == TRUTHY:
        return None   # no kernel: the general closure of `'k' in m and m['k']` (conditionals.py) costs less per call
    truthy, run_body, text, else_ = second.kind == TRUTHY, body.run, body.text, else_block and else_block.run

    def run_key_there(f, out, slot=slot, key=key, truthy=truthy, run_two_parts=run_two_parts, text=text,
                      run_body=run_body, else_=else_):
        value = f[slot]
        value = value.get(key, ABSENT) if type(value) is dict else MISSING
        if value is not ABSENT and type(value) not in PLAIN:
            return run_two_parts(f, out)   # (not a plain dict, or not a plain value there)
        if value is not ABSENT and (value if truthy else value is not None):
            if text is None:
                run_body(f, out)
            else:
                out.append(text)
        elif else_ is not None:
            else_(f, out)
    return run_key_there


def _if_atom(atom, value, body, else_block):
    # {% if m.role == 'user' %}, {% if m.tool_calls %}, {% if 'x' in m %}...: the atom read and decided in line
    # (a compare or a truth of a key without a call; the other kinds and reads through decide() and a reader); a
    # body that is constant text appended here. (`want if test else not want`: a test and a jump, which CPython
    # specialises, where `(test) is want` makes a bool and compares it.)
    slot, key, _, read_path = spec(atom.read, variables=True)
    kind, constant = atom.kind, atom.constant
    text, run_body = body.text, body.run
    else_ = else_block.run if else_block is not None else None
    family, constant_type = _FAMILY.get(kind), type(constant)
    want = kind in (EQ, TRUTHY, DEFINED, TYPE_IS, NONE, IN, ONE_OF)
    rare = (kind, constant, *value)
    if read_path is None and (kind == EQ or kind == NE):
        return _compare(slot, key, constant, want, rare, text, run_body, else_)
    if read_path is None and family is IN:
        def run_contains(f, out, slot=slot, key=key, constant=constant, want=want, rare=rare, text=text,
                         run_body=run_body, else_=else_, ns=_namespace(key)):   # `'</think>' in content`
            value = f[slot]
            if key is not None:
                value = value.get(key, ABSENT) if type(value) is dict else value._attrs.get(key, ABSENT) if \
                    type(value) is ns else attribute(value, key)
            if type(value) is dict or type(value) is str and len(value) < BIG_STR:
                outcome = want if constant in value else not want
            else:
                outcome = _undecided(rare, f, value)
            if outcome:
                return run_body(f, out) if text is None else out.append(text)
            if else_ is not None:
                else_(f, out)
        return run_contains

    compares, order = kind == EQ or kind == NE, ORDER.get(kind)   # (`idx > 1`: ints only)

    def run_atom(f, out, compares=compares, constant=constant, constant_type=constant_type, else_=else_, family=family,
            key=key, order=order, rare=rare, read_path=read_path, run_body=run_body, slot=slot, text=text, want=want,
            ns=_namespace(key)):
        if read_path is None:
            value = f[slot]
            if key is not None:
                value = value.get(key, ABSENT) if type(value) is dict else value._attrs.get(key, ABSENT) if \
                    type(value) is ns else attribute(value, key)
        else:
            value = read_path(f)
        if family is TRUTHY and type(value) in PLAIN:
            outcome = want if value else not want
        elif family is TYPE_IS and type(value) in PLAIN:   # `is string`, `is mapping`: exact on plain values
            outcome = want if type(value) is constant else not want
        elif family is DEFINED and (value is ABSENT or type(value) in PLAIN):   # a missing key: undefined
            outcome = not want if value is ABSENT else want
        elif compares and type(value) is constant_type:
            outcome = want if value == constant else not want
        elif family is ONE_OF and type(value) is constant[1]:   # `m.role in ['a', 'b']`, `== 'a' or == 'b'`
            outcome = want if value in constant[0] else not want
        elif family is NONE and value is not MISSING and value is not ABSENT:
            outcome = want if value is None else not want
        elif family is TRUTHY and value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
            outcome = not want   # a missing key: undefined, false
        elif order is not None and type(value) is int:
            outcome = order(value, constant)
        else:
            outcome = _undecided(rare, f, value)
        if outcome:
            return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    return _narrowed(atom, body, else_, want, run_atom)


def _undecided(rare, f, value):
    # An atom's outcome where a kernel's form in line does not decide it: decide(), else the truth of the test's
    # general value. rare: (kind, constant, ev, span), one free variable of the kernel's closure for its rare path
    # (each costs every call of it), a tuple (a closure per kernel costs retained memory).
    kind, constant, ev, span = rare
    outcome = decide(kind, constant, value, f[0])
    return outcome if outcome is not None else truth(f, ev, span)


def _compare(slot, key, constant, want, rare, text, run_body, else_):
    # _if_atom's form for `== c` and `!= c` on a key of a variable (`m['role'] == 'user'`) or a variable (key None).
    def run_compare(f, out, slot=slot, key=key, constant_type=type(constant), constant=constant, want=want,
                    rare=rare, text=text, run_body=run_body, else_=else_, ns=_namespace(key)):
        value = f[slot]
        if key is not None:
            if type(value) is dict:
                try:   # (a compare's key is there: a subscript, cheaper than get(); a missing one raises)
                    value = value[key]
                except KeyError:
                    value = ABSENT
            else:
                value = value._attrs.get(key, ABSENT) if type(value) is ns else attribute(value, key)
        if type(value) is constant_type:
            outcome = want if value == constant else not want
        elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
            outcome = not want   # undefined equals no constant (`content['type']` of a string's character)
        else:
            outcome = _undecided(rare, f, value)
        if outcome:
            return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    return run_compare


def _narrowed(atom, body, else_, want, run_atom):
    # run_atom, or a form of it that skips a step (a loop flag read from the loop; a test whose body prints its
    # read: one read), with run_atom as its fallback.
    slot, key, _, read_path = spec(atom.read, variables=True)
    kind = atom.kind
    if _FAMILY.get(kind) is TRUTHY and (key == "first" or key == "last"):
        return _loop_flag(slot, key == "first", want, body.text, body.run, else_, run_atom)
    if (kind == TYPE_IS and atom.constant is str or kind == TRUTHY) and key is not None and read_path is None and \
            _echoes(body, atom.read):
        return _if_string_echo(slot, key, kind == TRUTHY, else_, body.run, run_atom)
    return run_atom


def _echoes(block, read):
    # Does block print nothing but read's value (one uncounted {{ read }}: a short str appended as it is)?
    node = block.nodes[0] if len(block.nodes) == 1 else None
    return type(node) is Emit and not node.counted and node.parts is not None and len(node.parts) == 1 and \
        node.parts[0] == read


def _if_string_echo(slot, key, truthy, else_, run_body, run_atom):
    # {% if m.content is string %}{{ m.content }}{% else %}..., {% if m.content %}{{ m.content }}{% endif %}
    # (truthy): the key read once for the test and the print (nothing runs between Jinja2's two reads); a short str
    # that passes appended, a plain value that fails to else_, anything else through run_atom (which reads again:
    # exact, the read in line ran nothing).
    def run_string_echo(f, out, slot=slot, key=key, truthy=truthy, else_=else_, run_body=run_body, run_atom=run_atom):
        value = f[slot]
        value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        if type(value) is str:
            if truthy and not value:
                if else_ is not None:
                    else_(f, out)
            elif len(value) < BIG_STR:
                out.append(value)
            else:
                run_body(f, out)
        elif type(value) in PLAIN and not (truthy and value):
            if else_ is not None:
                else_(f, out)
        else:
            run_atom(f, out)
    return run_string_echo


def _loop_flag(slot, first, want, text, run_body, else_, run_atom):
    # {% if loop.first %}, {% if not loop.last %}: the loop context's index read in line (for last, a list loop's
    # list as it is now); anything else in that variable through run_atom.
    def run_loop_flag(f, out):
        loop = f[slot]
        if type(loop) is not LoopContext or not first and loop._items is None:
            return run_atom(f, out)
        if first:
            outcome = loop.index0 == 0
        else:   # a list loop's list now; at its end, the walk spent (LoopContext.last, written out)
            outcome = loop.index0 + 1 >= len(loop._items)
            if outcome:
                next(loop._iter, None)
        if outcome is want:
            return run_body(f, out) if text is None else out.append(text)
        if else_ is not None:
            else_(f, out)
    return run_loop_flag
