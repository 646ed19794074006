"""Statements that run in the frame they appear in: statement lists and their cost, text and {{ }}, if, set (the
block form; the inline form and assignment targets: assignment.py), with, filter blocks, autoescape, do,
break/continue — and the scopes some of them open.

Each compiler here takes (c, node) and returns run(f, out) (see the glossary in context.py).
"""

from contextlib import contextmanager

from ..analysis.symbols import Scope, analyze, target_names
from .assignment import assigner, namespace_check, s_assign
from .calls import compile_filter_step
from .output import s_output, s_text
from .operands import cheap_constant, in_line_place
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


@contextmanager
def in_scope(c, statements, params=(), function=None, parent=_CURRENT):
    """Open a new scope for `statements` (in `function`, default the current one), with `params` declared,
    analysed now with `parent` (default: the current scope; None: no parent) around it; it is the current scope
    inside the `with`."""
    scope = Scope(function or c.scope.function, c.scope if parent is _CURRENT else parent)
    for name in params:
        scope.declare_parameter(name)
    analyze(scope, statements)
    scope.localize_resolved_stores()
    saved, c.scope = c.scope, scope
    try:
        yield scope
    finally:
        c.scope = saved


def scope_start(scope):
    """How starting scope sets its variables (symbols.py): (the slots that start undefined, (slot, source) pairs
    of those that start as another variable of this frame, copy(f) for those that start as a variable of an
    outer frame or None). Undefined slots hold MISSING: reads make the undefined."""
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

    def copy(f):
        for slot, depth, source in copies:
            frame = f
            for _ in range(depth):
                frame = frame[1]
            f[slot] = frame[source]
    return tuple(resets), tuple(local), copy


def enter_actions(c, scope):
    """enter(f) that starts scope's variables (see scope_start), or None when nothing needs doing."""
    resets, local, copy = scope_start(scope)
    if not resets and not local:
        return copy

    def enter(f):
        for slot in resets:
            f[slot] = MISSING
        for slot, source in local:
            f[slot] = f[source]
        if copy is not None:
            copy(f)
    return enter


# ----------------------------------------------------------------------------------------- statement lists
def compile_body(c, statements):
    """A statement list → (run(f, out), weight): its Block's (lower.py, through the compile context). Running the
    statements costs `weight`; the caller charges it, where it already touches the budget."""
    made = c.block(statements)
    return made.run, made.weight


def charging(run, weight):
    """run(f, out) that first charges `weight` steps to the render."""
    def charged_run(f, out):
        rs = f[0]
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        run(f, out)
    return charged_run


# ---------------------------------------------------------------------------------------------------- if
def s_if(c, node):
    return if_parts(c, node)[2]


def if_parts(c, node):
    """The compiled parts of an if statement: (branches, the else's Block or None, run(f, out)). A branch is (its
    test node, the test's closure, its span, parts, its body's Block): the closure is the expression's own, the
    if takes its truth (and locates a failure of that); but for a test that is a chain of one kind of and/or
    (`a and b and c`), parts is ((operand, its closure, its span), ...) and the closure the truth of the chain,
    each operand's truth taken once, in order, up to the one that decides, as Python's `if a and b` does."""
    branches = []
    with c.flags(soft=True):
        for test, body in [(node.test, node.body)] + list(node.elifs):
            operands = and_or_parts(test) if isinstance(test, (n.And, n.Or)) else None
            if operands is not None:
                parts = tuple((operand, c.expr(operand), operand.span) for operand in operands)
                ev = _chain_truth(tuple((ev, span) + (_equality_of(c, operand) or (None, None, None, True))
                                        for operand, ev, span in parts), isinstance(test, n.Or))
            else:
                parts, ev = None, c.expr(test)
            branches.append((test, ev, test.span, parts, c.block(body)))
        else_ = c.block(node.else_) if node.else_ else None
    return branches, else_, _if_run(c, node, branches, else_)


def and_or_parts(test):
    """The operands of a chain of one kind of and/or (`a and b and c`), in Jinja2's order of evaluation."""
    parts, stack = [], [test]
    while stack:
        current = stack.pop()
        if type(current) is type(test):
            stack.extend((current.right, current.left))
        else:
            parts.append(current)
    return parts


def _chain_truth(operands, want):
    """f → bool of the and (want False) or the or (want True) of the operands ((closure, span, slot, key,
    constant, equal), ...): an operand that is an equality (_equality_of: slot not None) read again and compared
    in line as _if_equal does, the others through their closures."""
    operands = tuple(operand + (type(operand[4]),) for operand in operands)

    def chain(f):
        for part, span, slot, key, constant, equal, constant_type in operands:
            if slot is not None:
                value = f[slot]
                if key is not None:
                    value = value[key] if type(value) is dict and key in value else MISSING
                if type(value) is constant_type:
                    if ((value == constant) is equal) is want:
                        return want
                    continue
            value = part(f)
            try:
                if (True if value else False) is want:
                    return want
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
        return not want
    return chain


def _if_run(c, node, branches, else_):
    else_run = else_.run if else_ is not None else None
    if len(branches) == 1 and branches[0][3] is None:
        _, test, span, _, body = branches[0]
        slot, key = in_line_place(c, node.test)
        if slot is not None:
            return _if_operand(slot, key, test, span, body.run, else_run)
        equality = _equality_of(c, node.test)
        if equality is not None:
            return _if_equal(*equality, test, span, body.run, else_run)
    if len(branches) > 1:
        equalities = [_equality_of(c, branch[0]) if branch[3] is None else None for branch in branches]
        if all(equalities) and len({equality[:2] for equality in equalities}) == 1 and \
                all(equality[3] for equality in equalities) and len({type(e[2]) for e in equalities}) == 1 and \
                type(equalities[0][2]) in (str, int):
            return _one_subject(equalities, if_runner(tuple((test, span, body.run) for _, test, span, _, body in
                                                            branches), else_run), branches, else_run)
        if any(equalities):
            return _equality_chain(tuple(
                (equality or (None, None, None, True)) + (type(equality[2]) if equality else None, test, span, body.run)
                for equality, (_, test, span, _, body) in zip(equalities, branches)), else_run)
    return if_runner(tuple((test, span, body.run) for _, test, span, _, body in branches), else_run)


def _one_subject(equalities, general, branches, else_):
    """{% if m.role == 'system' %}...{% elif m.role == 'user' %}...{% else %}: every test an == of one subject
    (_equality_of) with a constant of one type, str or int. Nothing runs between the tests and reading a variable of
    this frame or a plain dict's key runs nothing, so the subject read once is what each test reads: a value of
    the constants' type picks the first branch with its constant by a dict (== of two strs or two ints is the
    dict's key equality); any other value through general, the chain's closures in turn."""
    (slot, key, constant, _), constant_type, bodies = equalities[0], type(equalities[0][2]), {}
    for equality, (_, _, _, _, body) in zip(equalities, branches):
        bodies.setdefault(equality[2], body.run)

    def run_one_subject(f, out):
        value = f[slot]
        if key is not None:
            value = value[key] if type(value) is dict and key in value else MISSING
        if type(value) is not constant_type:
            return general(f, out)
        body = bodies.get(value)
        if body is not None:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_one_subject


def _equality_chain(branches, else_):
    """{% if m.role == 'system' %}...{% elif m.role == 'user' %}...: an if with elifs some of whose tests are
    equalities (_equality_of): each of those read again and compared in line as _if_equal does, in turn; the
    other tests through their closures. branches: ((slot or None, key, constant, equal, the constant's type, test,
    span, body run), ...)."""
    def run_equalities(f, out):
        for slot, key, constant, equal, constant_type, test, span, body in branches:
            if slot is not None:
                value = f[slot]
                if key is not None:
                    value = value[key] if type(value) is dict and key in value else MISSING
                if type(value) is constant_type:
                    if (value == constant) is equal:
                        return body(f, out)
                    continue
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
            if chosen:
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_equalities


def _if_operand(slot, key, test, span, body, else_):
    """{% if x %}, {% if m.content %}: the value's truth, the value read in line where it is a variable of this frame
    or a key of one (operands.operand); test (its closure) otherwise."""
    def run_operand(f, out):
        value = f[slot]
        if key is not None:
            value = value.get(key, MISSING) if type(value) is dict else MISSING
        if value is MISSING:
            value = test(f)
        try:
            chosen = True if value else False
        except Exception as exc:   # a truth test can fail (StrictUndefined)
            raise located(exc, span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_operand


def _equality_of(c, test):
    """(slot, key, constant, equal) of `x == 'user'`, `m.role != 'tool'` (a short scalar constant, the operand a
    variable of this frame or a key of one: operands.operand), else None."""
    if not isinstance(test, n.Compare) or len(test.ops) != 1:
        return None
    (op, other), = test.ops
    if op not in ("==", "!=") or not isinstance(other, n.Const) or not cheap_constant(other.value):
        return None
    slot, key = in_line_place(c, test.first)
    return None if slot is None else (slot, key, other.value, op == "==")


def _if_equal(slot, key, constant, equal, test, span, body, else_):
    """{% if m.role == 'user' %}: a value of the constant's own type read in line compared with Python's == (what
    the comparison's closure does, whose truth cannot fail); anything else through test."""
    constant_type = type(constant)

    def run_equal(f, out):
        value = f[slot]
        if key is not None:
            value = value[key] if type(value) is dict and key in value else MISSING
        if type(value) is constant_type:
            chosen = (value == constant) is equal
        else:
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_equal


def if_runner(tests, else_):
    """run(f, out) of an if statement: tests are (test closure, its span, body run) per branch; the first branch
    whose test holds runs (its cost is in the weight of the statement list around the if:
    symbols.Summaries.weight)."""
    if len(tests) == 1:
        (test, span, body), = tests

        def run(f, out):
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
            if chosen:
                body(f, out)
            elif else_ is not None:
                else_(f, out)
        return run

    if len(tests) == 2:
        return _two_branches(tests, else_)

    def run_chain(f, out):
        for test, span, body in tests:
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:
                raise located(exc, span)
            if chosen:
                body(f, out)
                return
        if else_ is not None:
            else_(f, out)
    return run_chain


def _two_branches(tests, else_):
    """if_runner's form for an if with one elif, written out."""
    (test, span, body), (test2, span2, body2) = tests

    def run_two(f, out):
        value = test(f)
        try:
            chosen = True if value else False
        except Exception as exc:
            raise located(exc, span)
        if chosen:
            return body(f, out)
        value = test2(f)
        try:
            chosen = True if value else False
        except Exception as exc:
            raise located(exc, span2)
        if chosen:
            body2(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_two


def _captured_scope_body(c, node, filters=()):
    """Compile a block that captures its output in a scope of its own (set block, filter block): →
    (enter, body, apply) where apply(f, value) runs the block's filters."""
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
    """The names an expression evaluated in `scope` reads (the filters of a set or filter block)."""
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
    """emit(f, out, value): write the value of a {% filter %} or {% call %} block.

    Jinja2 quirk: these blocks write their value as it is, neither converted nor escaped (autoescape or not), so a
    value that is not a string makes the join of the enclosing output fail with TypeError — at the end of the
    template, macro or captured block, after everything before it has run. Appending it as a NotText reproduces
    that (join_output reports it at this block)."""
    counted = not c.counted_by_loop

    def emit(f, out, value):
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

    def run(f, out):
        ev(f)
    return run


def _loop_control(c, node, name, signal):
    if "loopcontrols" not in c.extensions:
        raise error_at(TemplateSyntaxError, f"Encountered unknown tag {name!r}.", node.span)
    if not c.in_loop:
        raise error_at(LoopControlOutsideLoop, f"'{name}' outside loop", node.span)

    def run(f, out):
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
