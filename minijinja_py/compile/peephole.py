"""Peephole rules: a statement list's IR (kernels/ir.py) rewritten before kernels are chosen for it — the idea of
Jinja2's optimizer, on a tree made for it. RULES is an ordered list; each rule is rule(c, nodes, i) →
(replacement nodes, how many it replaces) or None, tried at each position in order, and again on what it made.
Each says what it may assume. A rule that reads once what Jinja2 reads twice must prove nothing in between can
change it. A replacement keeps the general closure of what it replaces: nothing it decides is needed to run the
template right, only to choose a kernel.
"""

from ..kernels.ir import Atom, If, Switch, Test
from ..kernels.atoms import EQ, ONE_OF
from ..kernels.select import enabled, note

__all__ = ["RULES", "enabled_rules", "rewrite"]


def switch(c, nodes, i):
    # An if/elif chain whose every test compares one read with constants of one type (`m.role == 'user'`; maybe
    # `or m.role == 'tool'`, `and extra`, `or other` after the compares) → a Switch (kernels/branches.py), which a
    # walk over items reads the subject of once (walks.py); elsewhere it runs the chain's general closure. An {% else %} holding nothing but another if is read as more elifs (Jinja2 runs the
    # two the same way: an if starts no scope). Exact because between Jinja2's reads of the subject only compares of
    # that plain value run, and extras and alternatives that call nothing that changes data (Test.pure: atoms, or
    # operands analysis/effects.py clears) nor assign a variable (an expression assigns none); the subject is read
    # only through plain dicts and lists (branches.py: never a namespace's attribute, which a macro could set), and
    # read again after an extra that does not hold, which may have run a caller's object's code (branches.py).
    # The branches' whole tests go with it (Switch.values), for the rest of a chain whose subject that changed.
    node = nodes[i]
    if type(node) is not If:
        return None
    made = _switch_of(node)
    return ((made,), 1) if made is not None and len(made.groups[0][0]) >= 2 else None


def _switch_of(node):
    # node as a Switch of one chain (an if whose tests a switch decides: one branch or more, an else holding
    # nothing but another if read as more elifs), or None; a Switch as it is.
    if type(node) is Switch:
        return node
    if type(node) is not If:
        return None
    tests, values, bodies, else_ = node.tests, node.values, node.bodies, node.else_   # (tuples: ir.If)
    while else_ is not None and len(else_.nodes) == 1 and (type(else_.nodes[0]) is If or
                                                            type(else_.nodes[0]) is Switch and else_.nodes[0].chain):
        inner = else_.nodes[0] if type(else_.nodes[0]) is If else else_.nodes[0].chain
        tests, values, bodies, else_ = tests + inner.tests, values + inner.values, bodies + inner.bodies, inner.else_
    cases, subject = [], None
    for test, body in zip(tests, bodies):
        case = _case(test)
        if case is None or subject is not None and case[0] != subject:
            return None
        subject = case[0]
        cases.append(case[1:] + (body,))
    if len({type(constant) for constants, _, _, _ in cases for constant in constants}) != 1:
        return None
    return Switch(subject, ((cases, else_),), node.general, (values,), node)


def _case(test):
    # (read, constants, extra Test or None, alternative Test or None) of a branch test a switch decides, or
    # None. A compare is `subject == c` or `subject in [c1, c2]` (constants of one type: membership is equality
    # with one of them for a value of that type).
    if type(test) is Atom:
        return (test.read, _constants(test), None, None) if _constants(test) else None
    if type(test) is not Test:
        return None
    parts = test.parts
    if not test.want:   # `subject == 'c' and extra`
        first = parts[0][0]
        if type(first) is not Atom or not _constants(first) or not test.pure:
            return None
        return first.read, _constants(first), Test(False, parts[1:], True), None
    compares = 0   # `subject == 'a' or subject == 'b' or other`
    while compares < len(parts) and type(parts[compares][0]) is Atom and _constants(parts[compares][0]):
        compares += 1
    if compares == 0 or len({parts[k][0].read for k in range(compares)}) != 1 or \
            compares < len(parts) and not test.pure:
        return None
    alternative = Test(True, parts[compares:], True) if compares < len(parts) else None
    return parts[0][0].read, sum((_constants(parts[k][0]) for k in range(compares)), ()), None, alternative


def _constants(atom):
    # The constants an atom compares its read with for equality (`== c`: (c,); `in [c1, c2]`: (c1, c2)), or ().
    if atom.kind == EQ:
        return (atom.constant,)
    if atom.kind == ONE_OF:
        return tuple(sorted(atom.constant[0]))
    return ()


RULES = (switch,)
_NAMED = tuple((rule, "peephole/" + rule.__name__) for rule in RULES)   # (rule, its name for select.enabled)


def enabled_rules():
    # The (rule, name) pairs of RULES a compile starting now may use (select.enabled): asked once per compile.
    return tuple((rule, name) for rule, name in _NAMED if enabled(name))


def rewrite(c, nodes):
    # nodes with the compile's rules applied (c.rules: enabled_rules()).
    rules = c.rules
    if not rules:
        return nodes
    nodes, i = list(nodes), 0
    while i < len(nodes):
        for rule, name in rules:
            found = rule(c, nodes, i)
            if found:   # (then the rules again, on what it made)
                replacement, consumed = found
                nodes[i:i + consumed] = replacement
                note(name)
                break
        else:
            i += 1
    return nodes
