"""A for loop's filter, `{% for x in items if test %}`: the test run in a scope of its own for each item as the
loop pulls it (loops.py's lazy runner), as Jinja2 filters: lazily, so the test sees what the body changed.
"""

from ..analysis.symbols import node_count, target_names
from .conditionals import condition
from .statements import analyze_expression_loads, assigner, enter_actions, in_scope
from ..core.state import out_of_fuel
from ..syntax import nodes as n

__all__ = ["compile_filter"]


def compile_filter(c, node, function):
    # admitted(f, items) for the loop's `if` test, run in a scope of its own where
    # the target is assigned (Jinja2 runs it in a generator function of its own); in a recursive loop's function,
    # whose frame it is given. admitted is the lazy filter: an iterator of the items the test admits, each a
    # tuple of the values it unpacked for a tuple target (Jinja2 unpacks an item once, and yields the values: a
    # caller's iterator item is not read twice).
    weight = 2 + node_count(node.filter)  # the test's nodes and the scope it needs
    with c.flags(soft=False, in_loop=True), in_scope(c, (), target_names(node.target), function) as scope:
        analyze_expression_loads(scope, node.filter)
        assign = assigner(c, node.target)
        cond = condition(c, node.filter)
        enter = enter_actions(c, scope)
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
    return admitted


def _repacker(scope, target):
    # repack(f) → the values a tuple target's names were assigned, as nested tuples of its shape.
    parts = tuple(_repacker(scope, x) if not isinstance(x, n.NameTarget) else scope.refs[x.name]
                  for x in target.items)
    return lambda f: tuple([f[part] if type(part) is int else part(f) for part in parts])
