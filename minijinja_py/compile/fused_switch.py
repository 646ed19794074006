"""If/elif chains over one subject (a switch): `{% if message.role == 'user' %}...{% elif message.role ==
'assistant' %}...`, the subject read once, in line, and the branch found by its value in a table. A branch may also
test `subject == 'c' and extra` or `subject == 'c' or other`; the extras and alternatives are decided in Jinja2's
order. Anything that is not a plain value of the constants' type runs the chain's general run
(statements.if_runner).
"""

from .atoms import and_or_parts, atom_of, atom_tester, inline_test, read_place
from .expressions import lookup_steps, truth, truth_of
from .places import cheap_constant, key_path
from ..core.state import MISSING
from ..syntax import nodes as n
from ..syntax.nodes import dump as nodes_dump

__all__ = ["switch_case", "constant_branch_run", "s_if_switch", "part_pairs"]


def switch_case(c, test, alternatives=False):
    """A branch test of the form `subject == 'const'`, `subject == 'a' or subject == 'b' ...` or
    `subject == 'const' and extra` → (subject place, its constants, extra, the subject node) with extra the test's
    right side or None; None for any other test. With alternatives, `subject == 'a' or other or ...` (the
    compares first) is one too, and the result has a fifth item: the other operands of the or (or None)."""
    extra = alternative = None
    if isinstance(test, n.And):
        test, extra = test.left, test.right
    parts = [test]
    while extra is None and isinstance(parts[0], n.Or):   # a left-deep chain of or
        parts[:1] = [parts[0].left, parts[0].right]
    if alternatives:
        compares = 0
        while compares < len(parts) and _is_equality(parts[compares]):
            compares += 1
        if 0 < compares < len(parts):   # Jinja2 tests the others only when no compare holds
            parts, alternative = parts[:compares], tuple(parts[compares:])
    if not all(_is_equality(part) for part in parts):
        return None
    constants = tuple(part.ops[0][1] for part in parts)
    if not all(isinstance(x, n.Const) and type(x.value) in (str, int, bool) and cheap_constant(x.value)
               for x in constants):
        return None
    subjects = {nodes_dump(part.first) for part in parts}
    if len(subjects) != 1:
        return None
    subject = parts[0].first
    place = read_place(c, subject)
    if place is None and lookup_steps(c, subject) is not None:
        place = ("lookup", nodes_dump(subject))   # a chain of lookups: read once, through one closure
    if place is None:
        return None
    case = (place, tuple(x.value for x in constants), extra, subject)
    return case + (alternative,) if alternatives else case


def _is_equality(test):
    return isinstance(test, n.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="


def constant_branch_run(c, entries, else_run, whole):
    """run(f, out) of an if/elif chain over one subject for a subject known to equal one constant: entries are the
    branches that test it, in order, as (the extra test of `subject == 'c' and extra`, or None; the branch's
    run); else_run the chain's else (or None). An extra whose value is not plain data hands over to whole, the
    whole if statement (the subject's test is a read: running it again changes nothing)."""
    with c.flags(soft=True):
        tests = tuple((_extra_test(c, extra) if extra is not None else None, run) for extra, run in entries)
    if len(tests) == 1 and tests[0][0] is not None and else_run is None:
        (test, body), = tests

        def run_guarded(f, out):   # `{% if message.role == 'assistant' and message.content is not none %}`
            outcome = test(f)
            if outcome:
                body(f, out)
            elif outcome is None:
                whole(f, out)
        return run_guarded

    def run_constant(f, out):
        for test, run in tests:
            if test is not None:
                outcome = test(f)
                if outcome is None:
                    return whole(f, out)
                if not outcome:
                    continue
            return run(f, out)
        if else_run is not None:
            else_run(f, out)
    return run_constant


def _extra_test(c, node):
    """test(f) → True, False, or None (not plain data: the general path decides) for an `and`'s right side."""
    atom = atom_of(c, node)
    return atom_tester(atom) if atom is not None else truth(c, node)


def _decider(c, parts):
    """test(f) → bool of `parts[0] or parts[1] ...`, in Jinja2's order (see _parts_test)."""
    return _parts_test(c, parts, True)


def part_pairs(c, parts):
    """((atom tester or None, truth closure) of each operand of an and/or): an atom is decided in line, and
    through its truth closure when its value is not plain data (an atom is a read: reading it again changes
    nothing); any other operand through its truth closure."""
    return tuple((atom_tester(atom) if atom is not None else None, truth(c, part))
                 for part, atom in ((part, atom_of(c, part)) for part in parts))


def _parts_test(c, parts, want):
    """test(f) → bool of the and (want False) or the or (want True) of parts, in Jinja2's order, stopping at the
    part that decides."""
    pairs = part_pairs(c, parts)
    if len(pairs) == 1:
        (tester, decide), = pairs
        return decide if tester is None else _atom_or(tester, decide)

    def test_parts(f):
        for tester, decide in pairs:
            outcome = tester(f) if tester is not None else None
            if outcome is None:
                outcome = decide(f)
            if outcome is want:
                return want
        return not want
    return test_parts


def _atom_or(tester, general):
    def decide(f):
        outcome = tester(f)
        return general(f) if outcome is None else outcome
    return decide


def s_if_switch(c, node, general, compiled, else_):
    """An if/elif chain whose every test compares one subject with a constant (`message.role == 'user'`, maybe
    `and` something, or `or` something after the compares): the subject is read once, in line, and the branch
    found by its value; general is the chain's general run, used whenever the subject is not a plain value of
    the constants' type. compiled: the branches' (test closure, its span, body), as statements.if_parts made
    them."""
    tests = [node.test] + [test for test, _ in node.elifs]
    bodies = [body for _, _, body in compiled]
    cases = [switch_case(c, test, alternatives=True) for test in tests]
    if any(case is None for case in cases) or len({case[0] for case in cases}) != 1 or \
            len({type(constant) for case in cases for constant in case[1]}) != 1 or \
            any(c.effects.changes_data(part) for case in cases for part in _extras(case)):
        # (an extra or alternative that may change the subject's data: each test reads it again, as Jinja2)
        return _chain_of_tests(c, tests, general, compiled, else_)
    (slot, key), kind = cases[0][0], type(cases[0][1][0])
    path = key_path(c, cases[0][3], indexes=True) if slot == "lookup" else None
    item_path = path is not None and len(path[1]) == 2 and type(path[1][0]) is int and type(path[1][1]) is str
    subject = _plain_lookup(c, cases[0][3]) if slot == "lookup" and not item_path else None
    table, default = _branch_table(c, cases, bodies)
    if item_path:
        # `messages[i]['role']` (i a loop variable): read in line, as a key of a variable is
        return _switch_on_item(general, else_, table, default, kind, path[0], path[1][0], path[1][1])
    if subject is None and key is not None and not default and \
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
        for extra, body in table.get(value, default):
            if extra is None or extra(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run


def _extras(case):
    """The tests a switch case runs besides its compares: its `and` extra, its `or` alternatives."""
    return ((case[2],) if case[2] is not None else ()) + (case[4] or ())


def _plain_lookup(c, node):
    """f → the value of a chain of lookups (`ns.d.k`, `tool.function.name`) while every step is a plain dict with
    the key, or a plain list indexed in range by an int variable; MISSING anywhere else (a namespace, a
    caller's object: the chain's general run then reads it for each test, as Jinja2 does)."""
    root, steps = lookup_steps(c, node)

    def read(f):
        value = root(f)
        for key, index_slot in steps:
            if key is not None:
                if type(value) is not dict or key not in value:
                    return MISSING
                value = value[key]
            else:
                index = f[index_slot]
                if type(value) is not list or type(index) is not int or not -len(value) <= index < len(value):
                    return MISSING
                value = value[index]
        return value
    return read


def _branch_table(c, cases, bodies):
    """({constant: the (test, body) entries a subject equal to it goes through, in order}, the entries of a
    subject equal to none of them). A test is None (the branch is taken), the extra of `subject == 'c' and
    extra`, or the alternatives of `subject == 'c' or other` (for a subject that is not 'c'). For one plain
    type, == is a dict lookup's equality."""
    with c.flags(soft=True):
        extras = [_decider(c, (case[2],)) if case[2] is not None else None for case in cases]
        alternatives = [_decider(c, case[4]) if case[4] is not None else None for case in cases]
    table = {}
    for case in cases:
        for constant in case[1]:
            table.setdefault(constant, [])
    for case, extra, alternative, body in zip(cases, extras, alternatives, bodies):
        for constant, entries in table.items():
            if constant in case[1]:
                entries.append((extra, body))
            elif alternative is not None:
                entries.append((alternative, body))
    default = tuple((alternative, body) for alternative, body in zip(alternatives, bodies) if alternative)
    return {constant: _until_taken(entries) for constant, entries in table.items()}, default


def _until_taken(entries):
    """entries up to the first that is taken unconditionally (none after it can be reached)."""
    for index, (test, _) in enumerate(entries):
        if test is None:
            return tuple(entries[:index + 1])
    return tuple(entries)


def _switch_on_item(general, else_, table, default, kind, slot, index_slot, key):
    """s_if_switch's run for a subject `list[i]['key']`, i an int variable: the item read in line while the list
    is a plain list, i in range and the item a plain dict with the key; else general."""
    if not default and all(len(entries) == 1 and entries[0][0] is None for entries in table.values()):
        bodies = {constant: entries[0][1] for constant, entries in table.items()}

        def run_plain_item_switch(f, out):   # no `and` in the chain: one body per constant
            items, index = f[slot], f[index_slot]
            if type(items) is list and type(index) is int:
                try:
                    item = items[index]
                except IndexError:   # out of range: undefined, as the general path says
                    return general(f, out)
                if type(item) is dict:
                    value = item.get(key)
                    if type(value) is kind:
                        body = bodies.get(value)
                        if body is not None:
                            body(f, out)
                        elif else_ is not None:
                            else_(f, out)
                        return
            general(f, out)
        return run_plain_item_switch

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
        for extra, body in table.get(value, default):
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


def _chain_of_tests(c, tests, general, compiled, else_):
    """An if/elif chain that is not a switch (`{% if m.role == 'tool' %}...{% elif 'tool_calls' in m %}`): each
    branch test made of atoms decided in line, through its truth closure where a value is not plain data (an
    atom is a read: reading it again changes nothing); general when no test has an atom."""
    with c.flags(soft=True):
        branches = tuple(_branch_test(c, test, ev) + (body,) for test, (ev, _, body) in zip(tests, compiled))
    if all(tester is decide for tester, decide, _ in branches):
        return general

    def run_tests(f, out):
        for tester, decide, body in branches:
            outcome = tester(f)
            if outcome is None:
                outcome = decide(f)
            if outcome:
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_tests


def _branch_test(c, test, ev):
    """(tester(f) → True, False or None, decide(f) → bool): the test's atoms in line, and the truth of its
    closure ev."""
    decide, shape = truth_of(ev, test), inline_test(c, test)
    if shape is None:
        if isinstance(test, (n.And, n.Or)) and any(atom_of(c, part) for part in and_or_parts(test)):
            return _mixed_test(c, test), decide
        return decide, decide
    combine, atoms = shape
    testers = tuple(atom_tester(atom) for atom in atoms)
    if combine is None:
        return testers[0], decide
    want = combine == "or"

    def test_atoms(f):
        for tester in testers:
            outcome = tester(f)
            if outcome is None or outcome is want:
                return outcome
        return not want
    return test_atoms, decide


def _mixed_test(c, test):
    """test(f) → bool of an and/or whose parts are atoms and other tests (see _parts_test)."""
    return _parts_test(c, and_or_parts(test), isinstance(test, n.Or))
