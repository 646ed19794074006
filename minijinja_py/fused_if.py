"""Fused if statements: the tests a chat template's message loop repeats, read and decided in line (see fused.py
for in-line reads). A single {% if %} whose test is an atom — a read's truth, `read == 'x'`, `'x' in read`,
`read is defined`, `read is none`, `loop.first`... — or an and/or of atoms; an if/elif chain that compares one
subject with constants (a switch). Each falls back to the statement's general run (statements.if_runner) whenever
a value is not plain data.
"""

from functools import partial

from . import nodes as n
from .base import BIG_STR, MISSING
from .expressions import lookup_steps, truth
from .nodes import dump as nodes_dump
from .places import cheap_constant, constant_set, dict_key, key_path
from .runtime import ChatNamespace, LoopContext, Namespace
from .sandbox import DICT_ATTRS, DICT_MUTATORS, undefined_on_str
from .statements import if_parts, if_runner
from .tests import TESTS as _BUILTIN_TESTS
from .undefined import PLAIN_UNDEFINED

__all__ = ["s_if", "static_text", "switch_case"]


def _place(c, node):
    """(slot, key) of an in-line read (see inline_read) without compiling it, or None."""
    if isinstance(node, n.Name):
        depth, slot = c.where(node.name)
        return (slot, None) if depth == 0 else None
    if isinstance(node, (n.Getattr, n.Getitem)) and isinstance(node.obj, n.Name):
        key = dict_key(node)
        if key is None:
            return None
        depth, slot = c.where(node.obj.name)
        return (slot, key) if depth == 0 else None
    return None


def switch_case(c, test):
    """A branch test of the form `subject == 'const'`, `subject == 'a' or subject == 'b' ...` or
    `subject == 'const' and extra` → (subject place, its constants, extra, the subject node) with extra the test's
    right side or None; None for any other test."""
    extra = None
    if isinstance(test, n.And):
        test, extra = test.left, test.right
    parts = [test]
    while extra is None and isinstance(parts[0], n.Or):   # a left-deep chain of or
        parts[:1] = [parts[0].left, parts[0].right]
    if not all(isinstance(part, n.Compare) and len(part.ops) == 1 and part.ops[0][0] == "==" for part in parts):
        return None
    constants = tuple(part.ops[0][1] for part in parts)
    if not all(isinstance(x, n.Const) and type(x.value) in (str, int, bool) and cheap_constant(x.value)
               for x in constants):
        return None
    subjects = {nodes_dump(part.first) for part in parts}
    if len(subjects) != 1:
        return None
    subject = parts[0].first
    place = _place(c, subject)
    if place is None and lookup_steps(c, subject) is not None:
        place = ("lookup", nodes_dump(subject))   # a chain of lookups: read once, through one closure
    return None if place is None else (place, tuple(x.value for x in constants), extra, subject)


def s_if(c, node):
    """{% if %}: see s_if_switch and s_if_inline, else the general run (statements.if_runner)."""
    tests, else_ = if_parts(c, node)
    c.if_bodies[id(node)] = [body for _, _, body in tests] + [else_]   # for fused_loop's item plans
    general = if_runner(tests, else_)
    if node.elifs:
        return s_if_switch(c, node, general, [body for _, _, body in tests], else_)
    return s_if_inline(c, node, general, tests[0][2], else_)


# The tests a single {% if %} evaluates in line on a plain value ("atoms"): (kind, constant)
_TRUTHY, _FALSY, _EQ, _NE, _DEFINED, _UNDEFINED, _NONE, _NOT_NONE, _IN, _NOT_IN, _TYPE_IS, _TYPE_IS_NOT, _ONE_OF, \
    _NONE_OF = range(14)
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), list, dict, tuple})
# a dict's methods: d['items'] of a dict without that key is the method, not undefined
_DICT_NAMES = DICT_ATTRS | DICT_MUTATORS
_NEGATION = {_TRUTHY: _FALSY, _FALSY: _TRUTHY, _EQ: _NE, _NE: _EQ, _DEFINED: _UNDEFINED, _UNDEFINED: _DEFINED,
             _NONE: _NOT_NONE, _NOT_NONE: _NONE, _IN: _NOT_IN, _NOT_IN: _IN, _TYPE_IS: _TYPE_IS_NOT,
             _TYPE_IS_NOT: _TYPE_IS, _ONE_OF: _NONE_OF, _NONE_OF: _ONE_OF}
_TYPE_TESTS = {("defined", False): _DEFINED, ("defined", True): _UNDEFINED, ("undefined", False): _UNDEFINED,
               ("undefined", True): _DEFINED, ("none", False): _NONE, ("none", True): _NOT_NONE}
# `is string`, `is mapping` on plain data: the one plain type each is true of
_CLASS_TESTS = {"string": str, "mapping": dict}


def _atom(c, test):
    """(slot, key, kind, constant) for a test evaluated in line on one in-line read, or None."""
    kind, constant = _TRUTHY, None
    if isinstance(test, n.Not):
        # `not read`, and `not x is defined` (Jinja's precedence: not (x is defined)): the inner atom negated
        inner = _atom(c, test.operand)
        return None if inner is None else inner[:2] + (_NEGATION[inner[2]], inner[3])
    if isinstance(test, n.Compare) and len(test.ops) == 1:
        name, other = test.ops[0]
        if name in ("==", "!=") and isinstance(other, n.Const) and type(other.value) in (str, int, bool) and \
                cheap_constant(other.value):
            kind, constant, test = (_EQ if name == "==" else _NE), other.value, test.first
        elif name in ("in", "not in") and isinstance(test.first, n.Const) and type(test.first.value) is str and \
                cheap_constant(test.first.value):
            kind, constant, test = (_IN if name == "in" else _NOT_IN), test.first.value, other
        elif name in ("in", "not in") and constant_set(other) is not None:
            # `message.role in ['tool', 'tool_results']`: (the constants, their one type)
            kind, constant, test = (_ONE_OF if name == "in" else _NONE_OF), constant_set(other), test.first
        else:
            return None
    elif isinstance(test, n.Test) and test.args.empty and (test.name, test.negated) in _TYPE_TESTS and \
            c.tests.get(test.name) is _BUILTIN_TESTS.get(test.name):
        kind, test = _TYPE_TESTS[(test.name, test.negated)], test.value
    elif isinstance(test, n.Test) and test.args.empty and test.name in _CLASS_TESTS and \
            c.tests.get(test.name) is _BUILTIN_TESTS.get(test.name):
        kind, constant, test = (_TYPE_IS_NOT if test.negated else _TYPE_IS), _CLASS_TESTS[test.name], test.value
    place = _place(c, test)
    return None if place is None else place + (kind, constant)


def _holds(atom, f):
    """An atom's outcome: True or False, or None when its value is not plain data (the general path decides)."""
    slot, key, kind, constant = atom   # one tuple argument: a call with *atom costs twice as much
    obj = f[slot]
    if key is None:
        if obj is MISSING:
            return None
        value = obj
    elif type(obj) is not dict:
        value = _other_value(obj, key)
        if value is MISSING:
            return None
    elif key in obj:
        value = obj[key]
    elif key in _DICT_NAMES:
        return None   # m['items'] of a dict without the key: its method (the general path)
    elif kind == _DEFINED or kind == _UNDEFINED:
        return kind == _UNDEFINED   # a plain dict without the key: undefined
    elif (kind == _TRUTHY or kind == _FALSY) and f[0].undefined in PLAIN_UNDEFINED:
        return kind == _FALSY   # undefined, and false
    else:
        return None
    if type(value) not in _PLAIN_TYPES:
        return None
    if kind == _TRUTHY:
        return True if value else False
    if kind == _FALSY:
        return False if value else True
    if kind == _NOT_NONE or kind == _NONE:
        return (value is None) is (kind == _NONE)
    if kind == _EQ or kind == _NE:
        if type(value) is not type(constant):
            return None
        return (value == constant) is (kind == _EQ)
    if kind == _IN or kind == _NOT_IN:
        if not (type(value) is str and len(value) < BIG_STR or type(value) is dict):
            return None
        return (constant in value) is (kind == _IN)
    if kind == _DEFINED:
        return True
    if kind == _UNDEFINED:
        return False
    if kind == _TYPE_IS or kind == _TYPE_IS_NOT:
        return (type(value) is constant) is (kind == _TYPE_IS)
    # _ONE_OF, _NONE_OF: `message.role in ['tool', 'tool_results']`
    if type(value) is not constant[1]:
        return None
    return (value in constant[0]) is (kind == _ONE_OF)


def _other_value(obj, key):
    """An atom's value when its variable holds something other than a plain dict: loop.first/last/index0/index
    of a loop over a list, a namespace's attribute (`ns.found`); MISSING for anything else (the general path)."""
    cls = type(obj)
    if cls is LoopContext and obj._length is not None and key in _LOOP_FLAGS:
        index0 = obj.index0
        return index0 == 0 if key == "first" else index0 == obj._length - 1 if key == "last" else \
            index0 if key == "index0" else index0 + 1
    if cls is ChatNamespace or cls is Namespace:
        return obj._attrs.get(key, MISSING)
    return MISSING


_LOOP_FLAGS = frozenset({"first", "last", "index0", "index"})


def _tester(atom):
    """test(f) → an atom's outcome (see _holds): the commonest atoms (a loop flag, a key's truth) with a closure
    of their own, the others through _holds."""
    slot, key, kind, _ = atom
    if key in ("first", "last") and kind in (_TRUTHY, _FALSY):
        first, want = key == "first", kind == _TRUTHY

        def test_loop_flag(f):
            lc = f[slot]
            if type(lc) is LoopContext and lc._length is not None:
                return (lc.index0 == 0 if first else lc.index0 == lc._length - 1) is want
            return _holds(atom, f)
        return test_loop_flag
    if key is not None and kind in (_TRUTHY, _FALSY):
        want = kind == _TRUTHY

        def test_truth(f):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
                if type(value) in _PLAIN_TYPES:
                    return (True if value else False) is want
            return _holds(atom, f)
        return test_truth
    return partial(_holds, atom)


def _inline_test(c, test):
    """A single if's test as (combine, atoms): combine "and"/"or"/None over one or more atoms; None when the test
    is not of that shape. `not (a or b)` is read as `not a and not b` when a and b are atoms that negate."""
    if isinstance(test, n.Not) and isinstance(test.operand, (n.And, n.Or)):
        inner = _inline_test(c, test.operand)
        if inner is None or any(atom[2] not in _NEGATION for atom in inner[1]):
            return None
        return ("or" if inner[0] == "and" else "and",
                tuple(atom[:2] + (_NEGATION[atom[2]], atom[3]) for atom in inner[1]))
    if isinstance(test, (n.And, n.Or)):
        combine = "and" if isinstance(test, n.And) else "or"
        parts, stack = [], [test]
        while stack:
            current = stack.pop()
            if type(current) is type(test):
                stack.extend((current.right, current.left))
            else:
                parts.append(current)
        atoms = [_atom(c, part) for part in parts]
        return None if any(a is None for a in atoms) else (combine, tuple(atoms))
    atom = _atom(c, test)
    return None if atom is None else (None, (atom,))


def s_if_inline(c, node, general, body, else_):
    """{% if read %}, {% if read == 'x' and other.y is defined %}, {% if 'x' in read %}...: every atom read and
    tested in line on plain data; general is the statement's general run, used whenever an atom is not."""
    shape = _inline_test(c, node.test)
    if shape is None:
        return _if_mixed(c, node, general, body, else_)
    combine, atoms = shape
    if combine is None:
        return _if_atom(c, node, general, atoms[0], body, else_)
    want = combine == "or"   # the outcome that decides the whole test
    (slot, key, kind, constant), rest = atoms[0], tuple(_tester(atom) for atom in atoms[1:])
    if kind in (_EQ, _NE, _IN, _NOT_IN):
        # `message.role == 'assistant' and ...`, `'tool_calls' in message and ...`: the first atom (the one that
        # usually decides) in line
        const_type, equal, compares = type(constant), kind in (_EQ, _IN), kind in (_EQ, _NE)

        def run_first_inline(f, out):
            value = f[slot]
            if key is not None:
                if type(value) is not dict or key not in value:
                    return general(f, out)
                value = value[key]
            if compares:
                if type(value) is not const_type:
                    return general(f, out)
                chosen = (value == constant) is equal
            elif type(value) is dict or type(value) is str and len(value) < BIG_STR:
                chosen = (constant in value) is equal
            else:
                return general(f, out)
            if chosen is not want:
                for test in rest:
                    outcome = test(f)
                    if outcome is None:
                        return general(f, out)
                    if outcome is want:
                        chosen = want
                        break
            if chosen:
                body(f, out)
            elif else_ is not None:
                else_(f, out)
        return run_first_inline

    tests = tuple(_tester(atom) for atom in atoms)

    def run(f, out):
        chosen = not want
        for test in tests:
            outcome = test(f)
            if outcome is None:
                return general(f, out)
            if outcome is want:
                chosen = want
                break
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run


def _if_mixed(c, node, general, body, else_):
    """An and/or whose parts are atoms and other tests (`message.content is defined and
    message.content.content is defined`): each atom in line, any other part (or an atom whose value is not plain
    data) through its own truth closure, in Jinja2's order, stopping at the part that decides."""
    test = node.test
    if not isinstance(test, (n.And, n.Or)):
        return general
    parts, stack = [], [test]
    while stack:
        current = stack.pop()
        if type(current) is type(test):
            stack.extend((current.right, current.left))
        else:
            parts.append(current)
    atoms = [_atom(c, part) for part in parts]
    if all(atom is None for atom in atoms):
        return general
    with c.flags(soft=True):
        parts = tuple(zip([atom and _tester(atom) for atom in atoms], [truth(c, part) for part in parts]))
    want = isinstance(test, n.Or)   # the outcome that decides the whole test

    def run_mixed(f, out):
        chosen = not want
        for atom_test, part_truth in parts:
            outcome = atom_test(f) if atom_test is not None else None
            if outcome is None:
                outcome = part_truth(f)
            if outcome is want:
                chosen = want
                break
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_mixed


def _if_atom(c, node, general, atom, body, else_):
    """A single if whose test is one atom: all in line (this is the commonest statement of a chat template's
    message loop); a body of plain text, inside a loop, appended in place."""
    slot, key, kind, constant = atom
    # (after a known extends, text is not compiled at all: statements.py)
    text = static_text(node.body) if not c.autoescape and c.counted_by_loop and not (
        c.known_extends and c.output_check) else None
    if text is not None:
        def body(f, out):
            out.append(text)
    if key is not None and kind in (_EQ, _NE):
        return _if_key_compare(general, atom, text, body, else_)
    if key is None and kind in (_EQ, _NE):
        const_type, equal = type(constant), kind == _EQ

        def run_var_compare(f, out):
            value = f[slot]
            if type(value) is const_type:
                if (value == constant) is equal:
                    if text is None:
                        body(f, out)
                    else:
                        out.append(text)
                elif else_ is not None:
                    else_(f, out)
                return
            general(f, out)
        return run_var_compare
    if key in ("first", "last") and kind in (_TRUTHY, _FALSY):
        return _if_loop_flag(general, slot, key == "first", kind == _TRUTHY, text, body, else_)
    if key is not None and kind in (_TRUTHY, _FALSY):
        want = kind == _TRUTHY

        def run_truth(f, out):
            obj = f[slot]
            if type(obj) is not dict:
                return general(f, out)
            if key in obj:
                value = obj[key]
                if type(value) not in _PLAIN_TYPES:
                    return general(f, out)
                chosen = (True if value else False) is want
            elif key not in _DICT_NAMES and f[0].undefined in PLAIN_UNDEFINED:
                chosen = not want   # {% if message.tool_calls %} without the key: undefined, false
            else:
                return general(f, out)
            if chosen:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
        return run_truth

    if kind in (_IN, _NOT_IN, _DEFINED, _UNDEFINED):
        return _if_membership(general, atom, text, body, else_)
    if kind in (_TYPE_IS, _TYPE_IS_NOT):
        return _if_type(general, atom, text, body, else_)

    test = _tester(atom)

    def run(f, out):
        chosen = test(f)
        if chosen is None:
            general(f, out)
        elif chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run


def _if_key_compare(general, atom, text, body, else_):
    """{% if message['role'] == 'user' %}: a plain dict's key compared with a constant in line. A key of a string
    is undefined (content['type'] of a message whose content is a string: a template looking for images walks
    it character by character), and equals no constant where the undefined class compares as Jinja2's."""
    slot, key, kind, constant = atom
    const_type, equal = type(constant), kind == _EQ
    undefined_on_strings = type(key) is str and undefined_on_str(key)

    def run_compare(f, out):
        obj = f[slot]
        if type(obj) is dict and key in obj:
            value = obj[key]
            if type(value) is not const_type:
                return general(f, out)
            matched = (value == constant) is equal
        elif type(obj) is str and undefined_on_strings and f[0].undefined in PLAIN_UNDEFINED:
            matched = not equal
        else:
            return general(f, out)
        if matched:
            if text is None:
                body(f, out)
            else:
                out.append(text)
        elif else_ is not None:
            else_(f, out)
    return run_compare


def _if_membership(general, atom, text, body, else_):
    """{% if 'x' in message %}, {% if 'x' in message.content %}, {% if message.x is defined %}: the membership
    test in line on a plain dict (or a short plain string, for `in`), anything else through the general path."""
    slot, key, kind, constant = atom
    want = kind in (_IN, _DEFINED)
    if kind in (_DEFINED, _UNDEFINED):
        def run_defined(f, out):
            obj = f[slot]
            if key is None:   # a variable: defined when it holds plain data (MISSING and the rest: general)
                if type(obj) not in _PLAIN_TYPES:
                    return general(f, out)
                chosen = want
            elif type(obj) is not dict:
                return general(f, out)
            elif key in obj:
                if type(obj[key]) not in _PLAIN_TYPES:
                    return general(f, out)   # an undefined kept in a dict, a caller's object...
                chosen = want
            elif key in _DICT_NAMES:
                return general(f, out)   # m['items'] of a dict without the key: its method
            else:
                chosen = not want
            if chosen:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
        return run_defined

    def run_contains(f, out):
        value = f[slot]
        if key is not None:
            if type(value) is not dict or key not in value:
                return general(f, out)
            value = value[key]
        if type(value) is dict or type(value) is str and len(value) < BIG_STR:
            if (constant in value) is want:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
            return
        general(f, out)
    return run_contains


def _if_type(general, atom, text, body, else_):
    """{% if message.content is string %}, `is not mapping`...: the value's type looked at in line when it is
    plain data, anything else through the general path."""
    slot, key, kind, cls = atom
    want = kind == _TYPE_IS

    def run_type(f, out):
        value = f[slot]
        if key is not None:
            if type(value) is not dict or key not in value:
                return general(f, out)
            value = value[key]
        if type(value) not in _PLAIN_TYPES:
            return general(f, out)
        if (type(value) is cls) is want:
            if text is None:
                body(f, out)
            else:
                out.append(text)
        elif else_ is not None:
            else_(f, out)
    return run_type


def _if_loop_flag(general, slot, first, want, text, body, else_):
    """{% if loop.first %}, {% if not loop.last %}: read off the loop context in line (a loop over a list knows
    its length; a lazy one, or anything else in the variable, takes the general path)."""
    def run(f, out):
        lc = f[slot]
        if type(lc) is LoopContext and (first or lc._length is not None):
            flag = lc.index0 == 0 if first else lc.index0 == lc._length - 1
            if flag is want:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
            return
        general(f, out)
    return run


def static_text(statements):
    """The text a statement list writes when it is nothing but text (merged), else None."""
    if statements and all(isinstance(x, n.Text) for x in statements):
        return "".join(x.value for x in statements)
    return None


def s_if_switch(c, node, general, bodies, else_):
    """An if/elif chain whose every test compares one subject with a constant (`message.role == 'user'`, maybe
    `and` something): the subject is read once, in line, and the branch found by its value; general is the
    chain's general run, used whenever the subject is not a plain value of the constants' type."""
    tests = [node.test] + [test for test, _ in node.elifs]
    cases = [switch_case(c, test) for test in tests]
    if any(case is None for case in cases) or len({case[0] for case in cases}) != 1 or \
            len({type(constant) for case in cases for constant in case[1]}) != 1:
        return general
    (slot, key), kind = cases[0][0], type(cases[0][1][0])
    path = key_path(c, cases[0][3], indexes=True) if slot == "lookup" else None
    item_path = path is not None and len(path[1]) == 2 and type(path[1][0]) is int and type(path[1][1]) is str
    subject = c.expr(cases[0][3]) if slot == "lookup" and not item_path else None
    with c.flags(soft=True):
        extras = [truth(c, case[2]) if case[2] is not None else None for case in cases]
    # constant → the branches testing it, in order (for one plain type, == is a dict lookup's equality)
    table = {}
    for case, extra, body in zip(cases, extras, bodies):
        for constant in dict.fromkeys(case[1]):
            table.setdefault(constant, []).append((extra, body))
    table = {constant: tuple(entries) for constant, entries in table.items()}
    if item_path:
        # `messages[i]['role']` (i a loop variable): read in line, as a key of a variable is
        return _switch_on_item(general, else_, table, kind, path[0], path[1][0], path[1][1])
    if subject is None and key is not None and \
            all(len(entries) == 1 and entries[0][0] is None for entries in table.values()):
        return _switch_on_key(general, else_, {constant: entries[0][1] for constant, entries in table.items()},
                              kind, slot, key)

    def run(f, out):
        if subject is not None:
            value = subject(f)
        else:
            obj = f[slot]
            if key is None:
                value = obj
            elif type(obj) is dict and key in obj:
                value = obj[key]
            else:
                return general(f, out)
        if type(value) is not kind:
            return general(f, out)
        for extra, body in table.get(value, ()):
            if extra is None or extra(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run


def _switch_on_item(general, else_, table, kind, slot, index_slot, key):
    """s_if_switch's run for a subject `list[i]['key']`, i an int variable: the item read in line while the list
    is a plain list, i in range and the item a plain dict with the key; else general."""
    def run_item_switch(f, out):
        items, index = f[slot], f[index_slot]
        if type(items) is not list or type(index) is not int or not -len(items) <= index < len(items):
            return general(f, out)
        item = items[index]
        if type(item) is not dict or key not in item:
            return general(f, out)
        value = item[key]
        if type(value) is not kind:
            return general(f, out)
        for extra, body in table.get(value, ()):
            if extra is None or extra(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_item_switch


def _switch_on_key(general, else_, bodies, kind, slot, key):
    """s_if_switch's run for the commonest chain: `var.key == 'a'`, `elif var.key == 'b'`... with no `and`, one
    body per constant."""
    def run_key_switch(f, out):
        obj = f[slot]
        if type(obj) is dict and key in obj:
            value = obj[key]
            if type(value) is kind:
                body = bodies.get(value)
                if body is not None:
                    body(f, out)
                elif else_ is not None:
                    else_(f, out)
                return
        general(f, out)
    return run_key_switch
