"""Peephole rules: a statement list's IR (kernels/ir.py) rewritten before kernels are chosen for it — the idea of
Jinja2's optimizer, on a tree made for it. RULES is an ordered list; each rule is rule(c, nodes, i) →
(replacement nodes, how many it replaces) or None, tried at each position in order, and again on what it made.
Each says what it may assume. A rule that reads once what Jinja2 reads twice must prove nothing in between can
change it. A replacement keeps the general closure of what it replaces: nothing it decides is needed to run the
template right, only to choose a kernel.
"""

from ..kernels.ir import Atom, If, Switch, Test
from ..kernels.atoms import EQ
from ..kernels.select import enabled, note

__all__ = ["RULES", "rewrite"]


def switch(c, nodes, i):
    """An if/elif chain whose every test compares one read with constants of one type (`m.role == 'user'`; maybe
    `or m.role == 'tool'`, `and extra`, `or other` after the compares) → a Switch (kernels/branches.py), which
    reads the subject once. Exact because between Jinja2's reads of the subject only compares of that plain
    value run, and extras and alternatives that cannot change data (Test.pure: atoms, or operands
    analysis/effects.py clears) nor a variable (an expression assigns none); the subject is read only through
    plain dicts and lists (branches.py: never a namespace's attribute, which a macro could set)."""
    node = nodes[i]
    if type(node) is not If or len(node.tests) < 2:
        return None
    found = _chain_cases(node)
    if found is None:
        return None
    subject, cases = found
    return (Switch(subject, cases, node.else_, node.general, node),), 1


def _chain_cases(node):
    """(subject, cases) of an if whose every test a switch decides (see switch), or None."""
    cases, subject = [], None
    for test, body in zip(node.tests, node.bodies):
        case = _case(test)
        if case is None:
            return None
        read, constants, extra, alternative = case
        if subject is None:
            subject = read
        if read != subject:
            return None
        cases.append((constants, extra, alternative, body))
    if len({type(constant) for constants, _, _, _ in cases for constant in constants}) != 1:
        return None
    return subject, tuple(cases)


def _case(test):
    """(read, constants, extra Test or None, alternative Test or None) of a branch test a switch decides, or
    None."""
    if type(test) is Atom:
        return (test.read, (test.constant,), None, None) if test.kind == EQ else None
    if type(test) is not Test:
        return None
    parts = test.parts
    if not test.want:   # `subject == 'c' and extra`
        first = parts[0][0]
        if type(first) is not Atom or first.kind != EQ or not test.pure:
            return None
        return first.read, (first.constant,), Test(False, parts[1:], True), None
    compares = 0   # `subject == 'a' or subject == 'b' or other`
    while compares < len(parts) and type(parts[compares][0]) is Atom and parts[compares][0].kind == EQ:
        compares += 1
    if compares == 0 or len({parts[k][0].read for k in range(compares)}) != 1 or \
            compares < len(parts) and not test.pure:
        return None
    alternative = Test(True, parts[compares:], True) if compares < len(parts) else None
    return parts[0][0].read, tuple(parts[k][0].constant for k in range(compares)), None, alternative


RULES = (switch,)


def rewrite(c, nodes):
    """nodes with RULES applied (those select.enabled allows)."""
    nodes, i = list(nodes), 0
    while i < len(nodes):
        applied = True
        while applied:
            applied = False
            for rule in RULES:
                name = "peephole/" + rule.__name__
                found = enabled(name) and rule(c, nodes, i)
                if found:
                    replacement, consumed = found
                    nodes[i:i + consumed] = replacement
                    note(name)
                    applied = True
        i += 1
    return nodes
