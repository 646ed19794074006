"""Symbols: the statements of one scope (a "frame") → the names that start that scope *undefined*; and the other
static questions the compiler asks of the AST (nesting depth, node counts for the step budget, assigned names).

Jinja2 resolves names statically. A name that a scope assigns (set, macro, block set), before it reads it at that
level, is a local of that scope from the scope's start: until the assignment runs it is undefined there and in every
scope nested in it — neither the context variable of that name nor a global shows through. So in

    {% for m in messages %}{{ greeting }}{% endfor %}{% set greeting = 'hi' %}

the loop prints nothing even when the caller passes `greeting`. compiler.py asks this module, for every scope it
compiles (the template, for bodies, macro and caller bodies, filter/with/set blocks), which names to start as
undefined. The rules follow Jinja2's symbol analysis: a scope's own level includes its if-branches but not nested
scopes; a name stored in only some branches of an if is read from outside instead; a name the enclosing scopes
know is inherited from them, not undefined.
"""

from . import nodes as n
from .errors import LimitExceeded

__all__ = [
    "frame_symbols", "undeclared", "check_nesting", "walk", "node_count", "own_node_count", "store_to_loop",
    "target_names", "assigns_in_scope",
]

_PARAM, _RESOLVE, _ALIAS, _UNDEFINED = "param", "resolve", "alias", "undefined"


def frame_symbols(statements, params=(), outer=frozenset(), loads_first=()):
    """(names that start undefined, every name this scope refers to) for a scope made of `statements`.

    params: names the scope declares (loop targets, macro parameters, with targets); outer: the names the
    enclosing scopes refer to; loads_first: expressions read at the scope's start (macro defaults)."""
    table = _Symbols(outer, params)
    for expr in loads_first:
        table.read(expr)
    for stmt in statements:
        table.statement(stmt)
    undefined = tuple(sorted(name for name, kind in table.refs.items() if kind == _UNDEFINED))
    return undefined, frozenset(table.refs)


class _Symbols:
    def __init__(self, outer, params=()):
        self.outer = outer
        self.refs = {name: _PARAM for name in params}   # name -> how the scope gets its first value
        self.stores = set()

    def copy(self):
        other = _Symbols(self.outer)
        other.refs = dict(self.refs)
        other.stores = set(self.stores)
        return other

    def load(self, name):
        if name not in self.refs and name not in self.outer:
            self.refs[name] = _RESOLVE

    def store(self, name):
        self.stores.add(name)
        if name not in self.refs:
            self.refs[name] = _ALIAS if name in self.outer else _UNDEFINED

    def read(self, expr):
        if expr is None:
            return
        for node in _expression_nodes(expr):
            if isinstance(node, n.Name):
                self.load(node.name)

    def target(self, target):
        if isinstance(target, n.NameTarget):
            self.store(target.name)
        elif isinstance(target, n.NamespaceTarget):
            self.load(target.name)          # {% set ns.attr %} reads ns
        elif isinstance(target, n.TupleTarget):
            for item in target.items:
                self.target(item)

    def statement(self, stmt):
        """One statement at this scope's level (nested scopes are left to their own analysis)."""
        if isinstance(stmt, (n.Output, n.ExprStmt)):
            self.read(stmt.expr)
        elif isinstance(stmt, n.If):
            self.branches(stmt.test, stmt.body, stmt.elifs, stmt.else_)
        elif isinstance(stmt, n.For):
            self.read(stmt.iter)
        elif isinstance(stmt, n.Assign):
            self.read(stmt.value)
            self.target(stmt.target)
        elif isinstance(stmt, n.AssignBlock):
            self.target(stmt.target)
        elif isinstance(stmt, n.Macro):
            self.store(stmt.name)
        elif isinstance(stmt, n.CallBlock):
            self.read(stmt.call)
        elif isinstance(stmt, n.FilterBlock):
            for f in stmt.filters:
                self.read(f)
        elif isinstance(stmt, n.With):
            for value in stmt.values:
                self.read(value)
        elif isinstance(stmt, n.Autoescape):
            self.read(stmt.value)
        elif isinstance(stmt, n.Load):
            self.read(stmt.template)
            if stmt.alias is not None:
                self.store(stmt.alias)
            for _, alias in stmt.names:
                self.store(alias)

    def branches(self, test, body, elifs, else_):
        # Jinja2 analyses three branches on copies (the body, all elifs together, the else) and merges them
        self.read(test)
        visited = []
        for part in ("body", "elifs", "else"):
            branch = self.copy()
            if part == "body":
                for stmt in body:
                    branch.statement(stmt)
            elif part == "elifs":
                for elif_test, elif_body in elifs:
                    branch.branches(elif_test, elif_body, (), ())
            else:
                for stmt in else_:
                    branch.statement(stmt)
            visited.append(branch)
        counts = {}
        for branch in visited:
            for name in branch.stores - self.stores:
                counts[name] = counts.get(name, 0) + 1
        for branch in visited:
            self.refs.update(branch.refs)
            self.stores.update(branch.stores)
        for name, count in counts.items():
            if count < len(visited):      # not assigned on every path: read from outside until assigned
                self.refs[name] = _ALIAS if name in self.outer else _RESOLVE


def undeclared(statements, names):
    """Which of `names` (caller, kwargs, varargs, loop) the statements read before anything declares them — the
    test Jinja2 uses to give a macro its caller/kwargs/varargs and a loop its `loop`. In Jinja2's visiting order,
    nested scopes included: reading the name counts, and an assignment or parameter of that name seen first
    hides it from the rest (`{% for caller in x %}{{ caller }}` does not make the macro take a caller)."""
    looking = set(names)
    found = set()
    stack = [statements]
    while stack and looking - found:
        item = stack.pop()
        if isinstance(item, (tuple, list)):
            stack.extend(reversed(item))
        elif isinstance(item, n.Name):
            if item.name in looking:
                found.add(item.name)
        elif isinstance(item, (n.NameTarget, n.Param)):
            if item.name not in found:
                looking.discard(item.name)
            if isinstance(item, n.Param) and item.default is not None:
                stack.append(item.default)
        elif isinstance(item, n.Macro):
            # Jinja2 visits all parameter names, then the defaults, then the body
            stack.append(item.body)
            stack.append(tuple(p.default for p in item.params if p.default is not None))
            stack.append(tuple(n.NameTarget(p.span, p.name) for p in item.params))
        elif isinstance(item, n.CallBlock):
            stack.append(item.body)
            stack.append(tuple(p.default for p in item.params if p.default is not None))
            stack.append(tuple(n.NameTarget(p.span, p.name) for p in item.params))
            stack.append(item.call)
        elif isinstance(item, n.FilterBlock):
            stack.append(item.filters)      # Jinja2's FilterBlock visits its body first
            stack.append(item.body)
        elif isinstance(item, n.Node):
            stack.extend(reversed([getattr(item, f) for f in item.FIELDS]))
        elif isinstance(item, n.Args):
            stack.extend(reversed((item.positional, tuple(v for _, v in item.keywords), item.star, item.dstar)))
    return found


def _expression_nodes(expr):
    stack = [expr]
    while stack:
        current = stack.pop()
        if isinstance(current, n.Node):
            yield current
            stack.extend(getattr(current, f) for f in current.FIELDS)
        elif isinstance(current, (tuple, list)):
            stack.extend(current)
        elif isinstance(current, n.Args):
            stack.extend((current.positional, tuple(v for _, v in current.keywords), current.star, current.dstar))


# ------------------------------------------------------------------------------- other static questions
def check_nesting(template, limit):
    """Refuse a template whose nodes nest deeper than limits.max_nesting, before any recursive pass over it (the
    symbol analysis and the compiler recurse once per level)."""
    stack = [(template.body, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, n.Node):
            depth += 1
            if depth > limit:
                raise LimitExceeded(f"template nested deeper than the limit max_nesting={limit}", current.span.line,
                                    current.span.col, limit="max_nesting", value=limit)
            stack.extend((getattr(current, f), depth) for f in current.FIELDS)
        elif isinstance(current, (tuple, list)):
            stack.extend((x, depth) for x in current)
        elif isinstance(current, n.Args):
            stack.extend((x, depth) for x in (current.positional, tuple(v for _, v in current.keywords),
                                               current.star, current.dstar))


# --------------------------------------------------------------------------------------- static name analysis
def walk(node):
    """All nodes below node (iteratively: templates can be deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, n.Node):
            stack.extend(getattr(current, f) for f in current.FIELDS)
        elif isinstance(current, (tuple, list)):
            stack.extend(current)
        elif isinstance(current, n.Args):
            stack.extend((current.positional, tuple(v for _, v in current.keywords), current.star, current.dstar))


def node_count(*parts):
    """The number of template nodes in parts."""
    return sum(1 for x in walk(parts) if isinstance(x, n.Node))


def own_node_count(stmt):
    """The nodes of a statement without the statement lists nested in it (bodies charge when they run)."""
    nested = [getattr(stmt, f, None) for f in ("body", "else_")]
    nested.extend(b for _, b in getattr(stmt, "elifs", ()))
    return max(1, node_count(stmt) - node_count(*[b for b in nested if b]))


def store_to_loop(node):
    """The first assignment target named `loop` anywhere in a for loop (its target, body, else, nested macros),
    or None. Jinja2 refuses the whole loop at compile time; `with` targets and parameters are not stores."""
    for x in walk(node):
        if isinstance(x, (n.For, n.Assign, n.AssignBlock)):
            for target in walk(x.target):
                if isinstance(target, n.NameTarget) and target.name == "loop":
                    return target
    return None


def target_names(target):
    """The names an assignment target binds, in order."""
    if isinstance(target, n.NameTarget):
        return (target.name,)
    if isinstance(target, n.TupleTarget):
        return tuple(name for item in target.items for name in target_names(item))
    return ()


def assigns_in_scope(body):
    """Does this statement list bind names in its own scope (set, macro, set-block), looking through `if`s?"""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (n.Assign, n.AssignBlock, n.Macro)):
            return True
        if isinstance(stmt, n.If):
            stack.extend(stmt.body)
            stack.extend(stmt.else_)
            for _, b in stmt.elifs:
                stack.extend(b)
    return False
