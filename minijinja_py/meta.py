"""meta: questions about a parsed template (Environment.parse), as jinja2.meta answers them."""

#     ast = env.parse(source)
#     meta.find_undeclared_variables(ast)   # the names the template reads from its context: {'user', ...}
#     meta.find_referenced_templates(ast)   # the templates it includes, imports or extends (None: not constant)
#
# The names are those the compiler's scope analysis (symbols.py, Jinja2's) resolves from the render's variables,
# without the environment's globals: the template is compiled to answer, as Jinja2 runs its code generator, so a
# template that cannot compile (an unknown filter outside an if...) raises here too.

from .compile.compiler import compile_template
from .environment import Environment
from .syntax import nodes as n

__all__ = ["find_undeclared_variables", "find_referenced_templates"]


def find_undeclared_variables(ast):
    """The set of names the template looks up in its context when it renders (ast from Environment.parse; an AST
    from elsewhere is read with a default Environment)."""
    env = getattr(ast, "environment", None) or Environment()
    compiled = compile_template(ast, env, False)
    return {name for name in compiled.resolved if name not in env.globals}


def find_referenced_templates(ast):
    """An iterator over the names of the templates ast extends, includes or imports, in order; None for one
    whose name is computed when it renders."""
    stack = [ast.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (list, tuple)):
            stack.extend(reversed(current))
        elif isinstance(current, n.Load):
            yield from _names(current)
        elif isinstance(current, n.Node):
            stack.extend(reversed(list(n.field_values(current))))


def _names(node):
    template = node.template
    if isinstance(template, n.Const) and isinstance(template.value, str):
        yield template.value
    elif node.kind == "include" and isinstance(template, (n.TupleExpr, n.ListExpr)):
        for item in template.items:
            yield item.value if isinstance(item, n.Const) and isinstance(item.value, str) else None
    elif node.kind == "include" and isinstance(template, n.Const) and isinstance(template.value, (tuple, list)):
        for item in template.value:
            yield item if isinstance(item, str) else None
    else:
        yield None
