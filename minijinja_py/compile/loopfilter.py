"""A for loop's filter, `{% for x in items if test %}`: admits(f, item), the test run in a scope of its own for
each item as the loop pulls it (loops.py's lazy runner), and for a filter made of in-line tests on the loop's
own target, prefilter(f, items), which decides it for every item of a list before the first iteration.
"""

from ..analysis.symbols import node_count, target_names
from .atoms import PLAIN_TYPES, atom_tester, inline_test
from .expressions import truth
from .statements import analyze_expression_loads, assigner, enter_actions, in_scope
from ..core.state import out_of_fuel
from ..syntax import nodes as n

__all__ = ["compile_filter"]


def compile_filter(c, node, function):
    """(admitted(f, items), prefilter(f, items) or None) for the loop's `if` test, run in a scope of its own where
    the target is assigned (Jinja2 runs it in a generator function of its own); in a recursive loop's function,
    whose frame it is given. admitted is the lazy filter: an iterator of the items the test admits, each a
    tuple of the values it unpacked for a tuple target (Jinja2 unpacks an item once, and yields the values: a
    caller's iterator item is not read twice). See _prefilter."""
    weight = 2 + node_count(node.filter)  # the test's nodes and the scope it needs
    with c.flags(soft=False, in_loop=True), in_scope(c, (), target_names(node.target), function) as scope:
        analyze_expression_loads(scope, node.filter)
        assign = assigner(c, node.target)
        cond = truth(c, node.filter)
        enter = enter_actions(c, scope)
        shape = inline_test(c, node.filter)
        targets = {scope.refs[name] for name in target_names(node.target)}
        flat = not isinstance(node.target, n.NameTarget) and \
            all(isinstance(x, n.NameTarget) for x in node.target.items)
        slots = tuple(scope.refs[x.name] for x in node.target.items) if flat else ()
        repack = _repacker(scope, node.target) if not flat and not isinstance(node.target, n.NameTarget) else None

    def admits(f, item):
        rs = f[0]
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        if enter is not None:
            enter(f)
        assign(f, item)
        return cond(f)

    if slots:
        def admitted(f, items):
            for item in items:
                if admits(f, item):
                    yield tuple([f[slot] for slot in slots])
    elif repack is not None:   # `(a, b), c`: the values rebuilt in the target's shape
        def admitted(f, items):
            for item in items:
                if admits(f, item):
                    yield repack(f)
    else:
        def admitted(f, items):
            return (item for item in items if admits(f, item))
    # how many values the target unpacks: 0 for one name; None for a nested tuple (not decided up front)
    size = 0 if isinstance(node.target, n.NameTarget) else len(slots) if slots else None
    pure = shape is not None and enter is None and not node.recursive and size is not None and \
        all(atom[0] in targets for atom in shape[1]) and not c.effects.changes_data(node.body)
    return admitted, (_prefilter(assign, size, shape, weight) if pure else None)


def _repacker(scope, target):
    """repack(f) → the values a tuple target's names were assigned, as nested tuples of its shape."""
    parts = tuple(_repacker(scope, x) if not isinstance(x, n.NameTarget) else scope.refs[x.name]
                  for x in target.items)
    return lambda f: tuple([f[part] if type(part) is int else part(f) for part in parts])


def _prefilter(assign, size, shape, weight):
    """kept(f, items) → the items of a list the loop's filter admits, or None when the filter is not decided on
    one of them in line. For a filter made of atoms on the loop's own target (`for key, val in d.items() if key
    != 'return'`), which reads nothing the body can change and cannot fail: deciding it for every item before
    the first iteration is what Jinja2's lazy filtering decides, and the loop then walks a list (its loop.last
    and loop.length known). Only for a body that cannot change data (analysis/effects.py: no caller's function,
    no mutating method of the mutable profile, which could change, add or remove items the filter has not
    reached yet), only while the target holds plain data, which nothing else can change (a namespace the body
    sets, `n.found`, is filtered lazily), and for a tuple target (`key, val`) while each
    item is a plain tuple or list of its length: unpacking anything else runs code or fails, which must happen
    when Jinja2's loop reaches the item. Charged as the lazy filter charges each item, before the work."""
    combine, atoms = shape
    testers, want = tuple(atom_tester(atom) for atom in atoms), combine == "or"
    slots = tuple({atom[0] for atom in atoms})

    def kept(f, items):
        rs, cost = f[0], weight * len(items)
        rs.fuel -= cost
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        admitted = decided(f, items)
        if admitted is None:
            rs.fuel += cost   # the lazy runner filters (and charges) them instead
        return admitted

    def decided(f, items):
        admitted = []
        for item in items:
            if size and not ((type(item) is tuple or type(item) is list) and len(item) == size):
                return None
            assign(f, item)
            for slot in slots:
                if type(f[slot]) not in PLAIN_TYPES:
                    return None
            chosen = not want
            for test in testers:
                outcome = test(f)
                if outcome is None:
                    return None
                if outcome is want:
                    chosen = want
                    break
            if chosen:
                admitted.append(item if not size or type(item) is tuple else tuple(item))   # as Jinja2 yields it
        return admitted
    return kept
