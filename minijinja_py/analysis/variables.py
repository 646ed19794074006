"""Variables: template source → the names it reads from its context (what a caller must or may pass), as
Jinja2's meta.find_undeclared_variables answers it, for `minijinja-py check`."""

# A name is read from the context when it is loaded where no enclosing scope has bound it first: `set`, `for`
# targets (and `loop`), macro and call-block parameters (and `varargs`, `kwargs`, `caller`), `with` targets,
# imports. A name set in only some branches of an `if` may still come from the context after it, so it is not
# bound there. Walks the AST of nodes.py, read-only.

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any

from ..syntax import nodes as n
from ..syntax.parse import normalize_newlines, parse

__all__ = ["read_variables", "template_variables"]

_MACRO_NAMES = ("varargs", "kwargs", "caller")


class _Reads:
    # The walk: statements in order, with the set of names bound so far in the current scope.

    def __init__(self) -> None:
        self.found: "list[str]" = []

    def load(self, name: str, bound: "set[str]") -> None:
        if name not in bound and name not in self.found:
            self.found.append(name)

    def expr(self, node: "Any", bound: "set[str]") -> None:
        # Every Name an expression (or argument list, or tuple of them) loads.
        if isinstance(node, n.Name):
            self.load(node.name, bound)
        elif isinstance(node, (n.Node, n.Args)):
            for field in node.FIELDS:
                self.expr(getattr(node, field), bound)
        elif isinstance(node, (list, tuple)):
            for item in node:
                self.expr(item, bound)

    def body(self, statements: "Any", bound: "set[str]") -> "set[str]":
        # Walk statements in one scope; returns the names bound by the end of it.
        bound = set(bound)
        for stmt in statements:
            bound |= self.statement(stmt, bound)
        return bound

    def statement(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        # Record the loads of one statement; return the names it binds in the current scope.
        handler = getattr(self, "s_" + type(stmt).__name__, None)
        if handler is not None:
            bound_here: "set[str]" = handler(stmt, bound)
            return bound_here
        for field in stmt.FIELDS:  # Output, ExprStmt, Autoescape, Generation, Block, FilterBlock, ...
            value = getattr(stmt, field)
            if _is_statements(value):
                self.body(value, bound)
            else:
                self.expr(value, bound)
        return set()

    def s_Assign(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.value, bound)
        return self.target(stmt.target, bound)

    def s_AssignBlock(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.body(stmt.body, bound)
        self.expr(stmt.filters, bound)
        return self.target(stmt.target, bound)

    def target(self, target: "Any", bound: "set[str]") -> "set[str]":
        if isinstance(target, n.NamespaceTarget):
            self.load(target.name, bound)
            return set()
        return set(_target_names(target))

    def s_For(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.iter, bound)
        inner = set(bound) | set(_target_names(stmt.target)) | {"loop"}
        if stmt.filter is not None:
            self.expr(stmt.filter, inner)
        self.body(stmt.body, inner)
        if stmt.else_:
            self.body(stmt.else_, bound)
        return set()

    def s_If(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.test, bound)
        branches = [self.body(stmt.body, bound)]
        for test, body in stmt.elifs:
            self.expr(test, bound)
            branches.append(self.body(body, bound))
        if not stmt.else_:
            return set()
        branches.append(self.body(stmt.else_, bound))
        return set.intersection(*branches) - set(bound)

    def s_Macro(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        params = self.params(stmt.params, bound)
        self.body(stmt.body, set(bound) | params | set(_MACRO_NAMES) | {stmt.name})
        return {stmt.name}

    def s_CallBlock(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.call, bound)
        params = self.params(stmt.params, bound)
        self.body(stmt.body, set(bound) | params | set(_MACRO_NAMES))
        return set()

    def params(self, params: "Any", bound: "set[str]") -> "set[str]":
        for param in params:
            if param.default is not None:
                self.expr(param.default, bound)
        return {param.name for param in params}

    def s_With(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.values, bound)
        names = {name for target in stmt.targets for name in _target_names(target)}
        self.body(stmt.body, set(bound) | names)
        return set()

    def s_Load(self, stmt: "Any", bound: "set[str]") -> "set[str]":
        self.expr(stmt.template, bound)
        names = {alias or name for name, alias in stmt.names}
        if stmt.alias:
            names.add(stmt.alias)
        return names


def _is_statements(value: "Any") -> bool:
    return isinstance(value, (list, tuple)) and any(isinstance(item, n.Node) and not _is_expression(item)
                                                    for item in value)


_STATEMENTS = (n.Text, n.Output, n.If, n.For, n.Assign, n.AssignBlock, n.Macro, n.CallBlock, n.FilterBlock, n.With,
               n.ExprStmt, n.Break, n.Continue, n.Generation, n.Block, n.Autoescape, n.Load)


def _is_expression(node: "Any") -> bool:
    return not isinstance(node, _STATEMENTS)


def _target_names(target: "Any") -> "tuple[str, ...]":
    if isinstance(target, n.NameTarget):
        return (target.name,)
    if isinstance(target, n.TupleTarget):
        return tuple(name for item in target.items for name in _target_names(item))
    return ()


def read_variables(tree: "Any") -> "list[str]":
    # The names a parsed template (a nodes.Template) reads from its context, in the order first read.
    reads = _Reads()
    reads.body(tree.body, set())
    return reads.found


def template_variables(source: str, trim_blocks: bool = True, lstrip_blocks: bool = True) -> "list[str]":
    # The names template source reads from its context (chat-profile whitespace options by default).
    # Raises TemplateSyntaxError for a template that does not parse.
    return read_variables(parse(normalize_newlines(source, False), trim_blocks, lstrip_blocks))
