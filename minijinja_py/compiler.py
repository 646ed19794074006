"""Compiler: AST (nodes.py) → Python closures, once per template. No Python source is generated: each node becomes
a closure over the closures of its children (the glossary of the interpreter's names is in compile_context.py).

Statements become `run(f, out)` (statements.py, loops.py, functions.py), expressions `ev(f)` (expressions.py,
calls.py). Node classes are dispatched through the explicit tables STATEMENTS and EXPRESSIONS (a test checks that
every node class has its entry). Variables are slots of a frame, resolved here with symbols.py: every scope is
analysed when the compiler reaches it, with its parent complete, as Jinja2 does. The whole compile is linear in
the template's size: each node is compiled once, and the analyses answer in one pass (symbols.Summaries).
"""

from . import nodes as n
from .base import gc_paused
from .compile_context import CompileContext
from .errors import TemplateAssertionError, error_at, twin_of
from .expressions import EXPRESSIONS as GENERAL_EXPRESSIONS
from .fused import FUSED_ASSIGN, FUSED_EXPRESSIONS
from .fused_if import s_if
from .fused_print import print_run
from .functions import function_layout, s_block, s_call_block, s_generation, s_macro
from .loops import compile_for
from .statements import STATEMENT_COMPILERS, LoopControlOutsideLoop, charging, compile_body, in_scope
from .symbols import Function, Summaries, check_nesting

__all__ = ["compile_template", "CompiledTemplate", "LoopControlOutsideLoop", "STATEMENTS", "EXPRESSIONS"]


def s_load(c, node):
    """{% include %}, {% import %}, {% from ... import %}, {% extends %}: checked as Jinja2 checks them, then,
    with no loader (a template is a string, as in transformers), failing when they run as Jinja2 fails."""
    for name, _ in node.names:
        if name.startswith("_"):
            raise error_at(TemplateAssertionError, "names starting with an underline can not be imported", node.span)
    if node.kind == "extends":
        if not c.toplevel:
            raise error_at(TemplateAssertionError, "cannot use extend from a non top-level scope", node.span)
        if c.rootlevel:
            c.known_extends = True
    template = c.expr(node.template)
    span = node.span

    def run(f, out):
        template(f)  # evaluated first, as in Jinja2: an undefined attribute there is an UndefinedError
        raise error_at(twin_of(TypeError), "no loader for this environment specified", span)
    return run


EXPRESSIONS = {**GENERAL_EXPRESSIONS, **FUSED_EXPRESSIONS}
STATEMENTS = {
    **STATEMENT_COMPILERS, n.For: compile_for, n.Macro: s_macro, n.CallBlock: s_call_block,
    n.Generation: s_generation, n.Block: s_block, n.Load: s_load, n.If: s_if, **FUSED_ASSIGN,
}


class CompiledTemplate:
    """What a template compiles to: its root run(f, out), the layout of its frame, the slot of `self` (None when
    the template does not use it) and its {% block %} bodies by name (for `self.name()`)."""

    __slots__ = ("run", "layout", "self_slot", "blocks")

    def __init__(self, run, layout, self_slot, blocks):
        self.run, self.layout, self.self_slot, self.blocks = run, layout, self_slot, blocks


def compile_template(template, env, autoescape):
    """nodes.Template → CompiledTemplate. Raises TemplateSyntaxError (TemplateAssertionError...) or
    LimitExceeded for a template that cannot compile."""
    with gc_paused():
        return _compile(template, env, autoescape)


def _compile(template, env, autoescape):
    check_nesting(template, env.limits.max_nesting)
    c = CompileContext(env, autoescape, Summaries())
    c.expr = lambda node: EXPRESSIONS[type(node)](c, node)
    c.stmt = lambda node: STATEMENTS[type(node)](c, node)
    c.print_run = lambda nodes: print_run(c, nodes)
    c.root_exports = {}
    root_self = "self" in c.summaries.reads(template.body, ("self",))
    c.uses_self = root_self
    function = Function(None)
    with in_scope(c, template.body, ("self",) if root_self else (), function, None) as scope:
        run = charging(*compile_body(c, template.body))
        layout = function_layout(c, function, scope)
    # the top-level variables Jinja2's context carries (a {% block %} reads them once assigned)
    for name in scope.stores:
        c.root_exports[name] = scope.refs[name]
    return CompiledTemplate(run, layout, scope.refs["self"] if root_self else None,
                            dict(c.blocks) if c.uses_self else None)
