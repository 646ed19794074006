"""Statements that run in the frame they appear in: statement lists and their cost, text and {{ }}, if
(conditionals.py), set (the block form; the inline form and assignment targets: assignment.py), with, filter
blocks, autoescape, do, break/continue — and the scopes some of them open.

Each compiler here takes (c, node) and returns run(f, out) (see the glossary in context.py).
"""

from ..analysis.symbols import Scope, analyze, target_names
from .assignment import assigner, namespace_check, s_assign
from .calls import compile_filter_step
from .conditionals import and_or_parts, if_parts, if_runner, s_if
from .output import s_output, s_text
from ..core.errors import PythonSyntaxTwin, TemplateSyntaxError, error_at, located
from ..core.state import MISSING, out_of_fuel
from ..runtime.markup import Markup
from ..runtime.objects import BreakLoop, ContinueLoop, NotText, join_output
from ..syntax import nodes as n

__all__ = [
    "in_scope", "scope_start", "enter_actions", "compile_body", "charging", "nothing", "LoopControlOutsideLoop", "assigner",
    "if_parts", "if_runner", "and_or_parts", "s_assign", "STATEMENT_COMPILERS",
]


class LoopControlOutsideLoop(PythonSyntaxTwin):
    """{% break %} / {% continue %} outside a for loop (Jinja2 lets Python's SyntaxError escape here)."""


def nothing(f, out):
    """The run of an empty statement list."""


# --------------------------------------------------------------------------------------------------- scopes
_CURRENT = object()


class in_scope:
    # `with in_scope(c, statements, params, function, parent) as scope:` opens a new scope for `statements` (in
    # `function`, default the current one), with `params` declared, analysed now with `parent` (default: the current
    # scope; None: no parent) around it; it is the current scope inside the `with`. (A class rather than a
    # generator-based context manager: every loop, macro, block and with opens one, and contextlib's machinery cost
    # more than the rest of opening it.)

    __slots__ = ("c", "scope", "saved")

    def __init__(self, c, statements, params=(), function=None, parent=_CURRENT):
        scope = Scope(function or c.scope.function, c.scope if parent is _CURRENT else parent)
        for name in params:
            scope.declare_parameter(name)
        analyze(scope, statements)
        scope.localize_resolved_stores()
        self.c, self.scope = c, scope

    def __enter__(self):
        c = self.c
        self.saved, c.scope = c.scope, self.scope
        return self.scope

    def __exit__(self, *exc_info):
        self.c.scope = self.saved


def scope_start(scope):
    # How starting scope sets its variables (symbols.py): (the slots that start undefined, (slot, source) pairs
    # of those that start as another variable of this frame, copy(f) for those that start as a variable of an
    # outer frame or None). Undefined slots hold MISSING: reads make the undefined.
    resets, local, copies = [], [], []
    for slot, kind, arg in scope.entry_actions():
        if kind == "undefined":
            resets.append(slot)
        elif arg[0] == 0:
            local.append((slot, arg[1]))
        else:
            copies.append((slot, arg[0], arg[1]))
    if not copies:
        return tuple(resets), tuple(local), None
    copies = tuple(copies)

    def copy(f, copies=copies):
        for slot, depth, source in copies:
            frame = f
            for _ in range(depth):
                frame = frame[1]
            f[slot] = frame[source]
    return tuple(resets), tuple(local), copy


def enter_actions(c, scope):
    # enter(f) that starts scope's variables (see scope_start), or None when nothing needs doing.
    resets, local, copy = scope_start(scope)
    if not resets and not local:
        return copy

    def enter(f, copy=copy, local=local, resets=resets):
        for slot in resets:
            f[slot] = MISSING
        for slot, source in local:
            f[slot] = f[source]
        if copy is not None:
            copy(f)
    return enter


# ----------------------------------------------------------------------------------------- statement lists
def compile_body(c, statements):
    # A statement list → (run(f, out), weight): its Block's (lower.py, through the compile context). Running the
    # statements costs `weight`; the caller charges it, where it already touches the budget.
    made = c.block(statements)
    return made.run, made.weight


def charging(run, weight):
    # run(f, out) that first charges `weight` steps to the render.
    def charged_run(f, out, run=run, weight=weight):
        rs = f[0]
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        run(f, out)
    return charged_run


def _captured_scope_body(c, node, filters=()):
    # Compile a block that captures its output in a scope of its own (set block, filter block): →
    # (enter, body, apply) where apply(f, value) runs the block's filters.
    with c.flags(counted_by_loop=False), in_scope(c, node.body) as scope:
        for f_node in filters:
            analyze_expression_loads(scope, f_node)
        body, weight = compile_body(c, node.body)
        body = charging(body, weight)
        steps = tuple(compile_filter_step(c, f_node) for f_node in filters)
        enter = enter_actions(c, scope)

    def apply(f, value):
        for step in steps:
            value = step(f, value)
        return value
    return enter, body, apply


def analyze_expression_loads(scope, expr):
    # The names an expression evaluated in `scope` reads (the filters of a set or filter block).
    analyze(scope, (n.ExprStmt(n.NO_SPAN, expr),))


def s_assign_block(c, node):
    with c.flags(soft=False, output_check=False):
        enter, body, apply = _captured_scope_body(c, node, node.filters)
    assign = assigner(c, node.target)
    check = namespace_check(c, node.target)
    autoescape = c.autoescape

    def run(f, out):
        captured = []
        if enter is not None:
            enter(f)
        body(f, captured)
        if check is not None:
            check(f)
        value = join_output(captured)
        if autoescape:
            value = Markup(value)
        assign(f, apply(f, value))
    return run


def emitter(c, span):
    # emit(f, out, value): write the value of a {% filter %} or {% call %} block.
    #
    # Jinja2 quirk: these blocks write their value as it is, neither converted nor escaped (autoescape or not), so a
    # value that is not a string makes the join of the enclosing output fail with TypeError — at the end of the
    # template, macro or captured block, after everything before it has run. Appending it as a NotText reproduces
    # that (join_output reports it at this block).
    counted = not c.counted_by_loop

    def emit(f, out, value, counted=counted, span=span):
        if not isinstance(value, str):
            out.append(NotText(value, span))
            return
        out.append(value)
        if counted:
            try:
                f[0].grow_output(len(value))
            except Exception as exc:
                raise located(exc, span)
    return emit


def s_filter_block(c, node):
    with c.flags(soft=False):
        enter, body, apply = _captured_scope_body(c, node, node.filters)
    emit = emitter(c, node.span)
    autoescape = c.autoescape

    def run(f, out):
        captured = []
        if enter is not None:
            enter(f)
        body(f, captured)
        value = join_output(captured)
        emit(f, out, apply(f, Markup(value) if autoescape else value))
    return run


def s_with(c, node):
    values = tuple(c.expr(v) for v in node.values)
    params = tuple(name for t in node.targets for name in target_names(t))
    with c.flags(soft=False), in_scope(c, node.body, params) as scope:
        assigns = tuple(assigner(c, t) for t in node.targets)
        body = charging(*compile_body(c, node.body))
        enter = enter_actions(c, scope)

    def run(f, out):
        evaluated = [v(f) for v in values]
        if enter is not None:
            enter(f)
        for assign, value in zip(assigns, evaluated):
            assign(f, value)
        body(f, out)
    return run


def s_autoescape(c, node):
    span = node.value.span
    # compiled both ways; the value (read in the block's own scope) decides when it runs
    with c.flags(soft=False), in_scope(c, node.body) as scope:
        analyze_expression_loads(scope, node.value)
        value = c.expr(node.value)
        with c.flags(autoescape=True):
            escaped = charging(*compile_body(c, node.body))
        with c.flags(autoescape=False):
            plain = charging(*compile_body(c, node.body))
        enter = enter_actions(c, scope)

    def run(f, out):
        if enter is not None:
            enter(f)
        try:
            on = True if value(f) else False
        except Exception as exc:
            raise located(exc, span)
        # and while it runs, it is the render's setting (Jinja2's eval context): what the filters (xmlattr, join,
        # replace...), pass_eval_context functions and the macros called in the block see
        rs = f[0]
        saved, rs.autoescape = rs.autoescape, on
        try:
            (escaped if on else plain)(f, out)
        finally:
            rs.autoescape = saved
    return run


def s_expr(c, node):
    if "do" not in c.extensions:
        raise error_at(TemplateSyntaxError, "Encountered unknown tag 'do'.", node.span)
    ev = c.expr(node.expr)

    def run(f, out, ev=ev):
        ev(f)
    return run


def _loop_control(c, node, name, signal):
    if "loopcontrols" not in c.extensions:
        raise error_at(TemplateSyntaxError, f"Encountered unknown tag {name!r}.", node.span)
    if not c.in_loop:
        raise error_at(LoopControlOutsideLoop, f"'{name}' outside loop", node.span)

    def run(f, out, signal=signal):
        raise signal()
    return run


def s_break(c, node):
    return _loop_control(c, node, "break", BreakLoop)


def s_continue(c, node):
    return _loop_control(c, node, "continue", ContinueLoop)


STATEMENT_COMPILERS = {
    n.Text: s_text, n.Output: s_output, n.If: s_if, n.Assign: s_assign, n.AssignBlock: s_assign_block,
    n.FilterBlock: s_filter_block, n.With: s_with, n.Autoescape: s_autoescape, n.ExprStmt: s_expr,
    n.Break: s_break, n.Continue: s_continue,
}
