"""Statements that run in the frame they appear in: statement lists and their cost, text and {{ }}, if, set (also
the block form), with, filter blocks, autoescape, do, break/continue — and the scopes some of them open.

Each compiler here takes (c, node) and returns run(f, out) (see the glossary in context.py).
"""

from contextlib import contextmanager

try:
    from sys import getrefcount
except ImportError:   # PyPy counts no references: the accumulation refund below is never given there
    def getrefcount(value):
        return 3   # (more than "our `old` and the argument": the value may be held elsewhere)

from ..analysis.symbols import Scope, analyze, target_names
from .calls import compile_filter_step
from .output import s_output, s_text
from .operands import constant_literal, dict_key, local_slot, operand
from ..core.errors import PythonSyntaxTwin, TemplateRuntimeError, TemplateSyntaxError, error_at, located
from ..core.state import BIG_STR, CHAR_SHIFT, MISSING, out_of_fuel
from ..runtime.markup import Markup
from ..runtime.objects import BreakLoop, ContinueLoop, ChatNamespace, Namespace, NotText, join_output, namespace_set
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
                ev = _chain_truth(tuple(part[1:] for part in parts), isinstance(test, n.Or))
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
    """f → bool of the and (want False) or the or (want True) of the operands ((closure, span), ...)."""
    def chain(f):
        for part, span in operands:
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
        slot, key, _ = operand_of(c, node.test)
        if slot is not None:
            _, test, span, _, body = branches[0]
            return _if_operand(slot, key, test, span, body.run, else_run)
    return if_runner(tuple((test, span, body.run) for _, test, span, _, body in branches), else_run)


def operand_of(c, node):
    """operands.operand's (slot, key) for node without compiling it (None, None, None when it is not one)."""
    if isinstance(node, (n.Getattr, n.Getitem)):
        key = dict_key(node)
        slot = local_slot(c, node.obj) if key is not None else None
        return (slot, key, None) if slot is not None else (None, None, None)
    return local_slot(c, node), None, None


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


# ------------------------------------------------------------------------------------------------ assignment
def assigner(c, target):
    """A target node → assign(f, value), in the current scope."""
    if isinstance(target, n.NameTarget):
        slot = c.scope.refs[target.name]

        def assign(f, value):
            f[slot] = value
        return assign
    if isinstance(target, n.NamespaceTarget):
        read = e_read(c, target.name)
        attr, span = target.attr, target.span

        def assign_ns(f, value):
            try:
                namespace_set(read(f), attr, value)
            except Exception as exc:
                raise located(exc, span)
        return assign_ns
    subs = tuple(assigner(c, t) for t in target.items)
    count = len(subs)
    span = target.span

    def assign_tuple(f, value):
        try:
            items = _unpack(value, count)
        except Exception as exc:
            raise located(exc, span)
        for sub, item in zip(subs, items):
            sub(f, item)

    if count == 2 and all(isinstance(t, n.NameTarget) for t in target.items):
        first, second = (c.scope.refs[t.name] for t in target.items)

        def assign_pair(f, value):
            # `for key, value in d.items()`: a pair of the frame's variables from a 2-tuple in one go
            if type(value) is tuple and len(value) == 2:
                f[first], f[second] = value
            else:
                assign_tuple(f, value)
        return assign_pair
    return assign_tuple


def e_read(c, name):
    """ev(f) reading the variable `name` as seen from the current scope."""
    return c.expr(n.Name(n.NO_SPAN, name))


def _unpack(value, count):
    """a, b = value with Python's errors, without trusting len()."""
    if isinstance(value, (str, list, tuple, dict)) or hasattr(value, "__iter__"):
        iterator = iter(value)
        items = []
        for item in iterator:
            items.append(item)
            if len(items) > count:
                break
    else:
        raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object")
    if len(items) < count:
        raise ValueError(f"not enough values to unpack (expected {count}, got {len(items)})")
    if len(items) > count:
        raise ValueError(f"too many values to unpack (expected {count})")
    return items


def _namespace_check(c, target):
    """check(f) for {% set ns.attr ... %} and {% set ns.attr, y ... %}: as Jinja2, each `ns` must be a namespace
    before the value is computed (None for other targets)."""
    items = target.items if isinstance(target, n.TupleTarget) else (target,)
    refs = tuple((e_read(c, t.name), t.span) for t in items if isinstance(t, n.NamespaceTarget))
    if not refs:
        return None

    def check(f):
        for read, span in refs:
            if not isinstance(read(f), Namespace):
                raise error_at(TemplateRuntimeError, "cannot assign attribute on non-namespace object", span)
    return check


def _accumulates(target, value):
    """Is it {% set x = x ~ ... %} / {% set ns.a = ns.a + ... %}: the target's old value the first operand?"""
    left = value
    while isinstance(left, (n.Concat, n.BinOp)):
        if isinstance(left, n.Concat):
            left = left.items[0]
        elif left.op == "+":
            left = left.left
        else:
            return False
    if isinstance(target, n.NameTarget):
        return isinstance(left, n.Name) and left.name == target.name
    return isinstance(target, n.NamespaceTarget) and isinstance(left, n.Getattr) and left.attr == target.attr \
        and isinstance(left.obj, n.Name) and left.obj.name == target.name


def _refund(rs, old):
    """{% set ns.out = ns.out ~ piece %}: the engine charged building the whole new string, but once the target
    is rebound the old one is freed (when nothing else holds it), so what the render keeps grew by the piece
    only. Refund all but the copying time, so that the common accumulation costs in proportion to its result,
    not to its square."""
    if len(old) > 4096 and getrefcount(old) <= 3:  # the caller's `old`, ours and getrefcount's argument
        size = len(old)
        rs.fuel += (size >> CHAR_SHIFT) - (size >> 10) if type(old) is str else size - (size >> 4)


def s_assign(c, node):
    target = node.target
    accumulates = _accumulates(target, node.value)
    if not accumulates and isinstance(target, n.NameTarget):
        return _name_assignment(c, c.scope.refs[target.name], node.value)
    if isinstance(target, n.NamespaceTarget) and target.attr[:1] != "_":
        return _namespace_assignment(c, target, node.value, accumulates)
    ev = c.expr(node.value)
    assign = assigner(c, target)
    check = _namespace_check(c, target)
    if not accumulates:
        def run(f, out):
            if check is not None:
                check(f)
            assign(f, ev(f))
        return run
    slot = c.scope.refs[target.name]   # (a name: a namespace's `_private` attribute is not an accumulation)

    def run_accumulating(f, out):
        old = f[slot]
        old = old if type(old) in (str, list) else ""
        assign(f, ev(f))
        _refund(f[0], old)
    return run_accumulating


def _name_assignment(c, slot, value):
    """{% set name = value %}: a constant stored as it is (a scalar, or a tuple of them: one object, as Jinja2's);
    a variable of this frame or a key of one (operands.operand) read in line, its closure reading anything else."""
    constant = constant_literal(c, value)
    if constant is not MISSING:
        def run_constant(f, out):
            f[slot] = constant
        return run_constant
    filtered = _str_method_of(c, value)
    if filtered is not None:
        return _name_from_str_method(c, slot, value, *filtered)
    source, key, ev = operand(c, value)
    if source is None:
        def run_name(f, out):
            f[slot] = ev(f)
        return run_name

    def run_read(f, out):
        found = f[source]
        if key is not None:
            found = found.get(key, MISSING) if type(found) is dict else MISSING
        f[slot] = found if found is not MISSING else ev(f)
    return run_read


def _str_method_of(c, value):
    """(method, source, key) of `read|trim` (a filter that is a str method, applied to a variable of this frame or
    a constant key of one: operands.operand's), or None."""
    if not isinstance(value, n.Filter) or not value.args.empty or value.value is None:
        return None
    method = getattr(c.filters.get(value.name), "mj_str_method", None)
    inner = value.value
    key = dict_key(inner) if isinstance(inner, (n.Getattr, n.Getitem)) else None
    source = local_slot(c, inner.obj if key is not None else inner)
    return None if method is None or source is None else (method, source, key)


def _name_from_str_method(c, slot, value, method, source, key):
    """{% set name = m.content|trim %}: a short plain str read in line gets the method (what the filter is on it,
    uncharged as the filter's own form); anything else through the filter's closure."""
    ev = c.expr(value)

    def run_method(f, out):
        found = f[source]
        if key is not None:
            found = found.get(key, MISSING) if type(found) is dict else MISSING
        f[slot] = method(found) if type(found) is str and len(found) < BIG_STR else ev(f)
    return run_method


def _namespace_assignment(c, target, value, accumulates):
    """{% set ns.attr = value %} (attr not `_private`, which a chat namespace refuses): ns checked to be a
    namespace first, as Jinja2 does, then the value computed (a constant as it is) and stored, with the
    accumulation refund (_refund) when it is `ns.attr = ns.attr ~ ...`. ns is read in line where it is a
    variable of this frame."""
    read, attr, span = e_read(c, target.name), target.attr, target.span
    slot = local_slot(c, n.Name(target.span, target.name))
    constant = constant_literal(c, value)
    ev = c.expr(value) if constant is MISSING else None

    def run(f, out):
        ns = f[slot] if slot is not None else MISSING
        if type(ns) is not ChatNamespace:
            if ns is MISSING:
                ns = read(f)
            if not isinstance(ns, Namespace):
                raise error_at(TemplateRuntimeError, "cannot assign attribute on non-namespace object", span)
        if not accumulates:
            ns._attrs[attr] = constant if ev is None else ev(f)
            return
        old = ns._attrs.get(attr, "")
        old = old if type(old) in (str, list) else ""
        ns._attrs[attr] = ev(f)
        _refund(f[0], old)
    return run


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
    check = _namespace_check(c, node.target)
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
