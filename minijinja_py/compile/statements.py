"""Statements that run in the frame they appear in: statement lists and their cost, text and {{ }}, if
(conditionals.py), set, with, filter blocks, autoescape, do, break/continue — and the scopes some of them open."""

# {% set %} and assignment targets: a target node → assign(f, value) (a name, a namespace attribute, a tuple to
# unpack); the inline form → run(f, out) — a constant stored as it is, a read or a str-method filter of a read done
# in line, the accumulation refund of `{% set x = x ~ piece %}`; the block form captures its body's output.
#
# Each compiler here takes (c, node) and returns run(f, out) (see the glossary in context.py).

try:
    from sys import getrefcount
except ImportError:   # PyPy counts no references: the accumulation refund below is never given there
    def getrefcount(value):
        return 3   # (more than "our `old` and the argument": the value may be held elsewhere)

from ..analysis.symbols import Scope, analyze, target_names
from ..builtins.strings import str_method
from .calls import compile_filter_step
from .conditionals import if_parts, if_runner, s_if
from .context import constant_literal, dict_key, local_slot, operand
from .output import s_output, s_text
from ..core.errors import TemplateRuntimeError, error_at, located, python_syntax_twin
from ..core.state import BIG_STR, CHAR_SHIFT, MISSING, out_of_fuel
from ..runtime.markup import Markup
from ..runtime.objects import BreakLoop, ChatNamespace, ContinueLoop, Namespace, NotText, join_output, namespace_set
from ..syntax import nodes as n

__all__ = [
    "in_scope", "scope_start", "enter_actions", "compile_body", "charging", "nothing",
    "assigner", "if_parts", "if_runner", "s_assign", "STATEMENT_COMPILERS",
]


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
        analyze(scope, statements, c.summaries.index)
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
    # run(f, out) that first charges `weight` steps to the render. (A statement whose body a recursive macro runs
    # through at every level rather calls charge(f, weight) itself before it runs the body: a wrapper is a Python
    # frame more at every level, against the recursion limit.)
    def charged_run(f, out, run=run, weight=weight):
        rs = f[0]
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        run(f, out)
    return charged_run


def charge(f, weight):
    # Charge `weight` steps to the render (a body's statements, before it runs).
    rs = f[0]
    rs.fuel -= weight
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)


def _captured_scope_body(c, node, filters=()):
    # Compile a block that captures its output in a scope of its own (set block, filter block): →
    # (enter, body, weight, apply): body's statements cost weight (charge it first); apply(f, value) runs the
    # block's filters.
    with c.flags(counted_by_loop=False), in_scope(c, node.body) as scope:
        for f_node in filters:
            analyze_expression_loads(scope, f_node)
        body, weight = compile_body(c, node.body)
        steps = tuple(compile_filter_step(c, f_node) for f_node in filters)
        enter = enter_actions(c, scope)

    def apply(f, value):
        for step in steps:
            value = step(f, value)
        return value
    return enter, body, weight, apply


def analyze_expression_loads(scope, expr):
    # The names an expression evaluated in `scope` reads (the filters of a set or filter block).
    analyze(scope, (n.ExprStmt(n.NO_SPAN, expr),))


# -------------------------------------------------------------------------------------------------------- set
def assigner(c, target):
    # A target node → assign(f, value), in the current scope.
    if isinstance(target, n.NameTarget):
        slot = c.scope.refs[target.name]

        def assign(f, value, slot=slot):
            f[slot] = value
        return assign
    if isinstance(target, n.NamespaceTarget):
        return _namespace_assigner(c, target)
    return _tuple_assigner(c, target)


def _namespace_assigner(c, target):
    # assigner's assign(f, value) of `ns.attr`. (Apart from assigner, as _tuple_assigner: assigner makes no cell
    # for the plain name, its commonest target.)
    read = e_read(c, target.name)
    attr, span = target.attr, target.span

    def assign_ns(f, value, attr=attr, read=read, span=span):
        try:
            namespace_set(read(f), attr, value)
        except Exception as exc:
            raise located(exc, span)
    return assign_ns


def _tuple_assigner(c, target):
    # assigner's assign(f, value) of a tuple of targets (`for key, value in ...`).
    subs = tuple(assigner(c, t) for t in target.items)
    count = len(subs)
    span = target.span

    def assign_tuple(f, value, count=count, span=span, subs=subs):
        try:
            items = _unpack(value, count)
        except Exception as exc:
            raise located(exc, span)
        for sub, item in zip(subs, items):
            sub(f, item)

    if count == 2 and all(isinstance(t, n.NameTarget) for t in target.items):
        first, second = (c.scope.refs[t.name] for t in target.items)

        def assign_pair(f, value, assign_tuple=assign_tuple, first=first, second=second):
            # `for key, value in d.items()`: a pair of the frame's variables from a 2-tuple in one go
            if type(value) is tuple and len(value) == 2:
                f[first], f[second] = value
            else:
                assign_tuple(f, value)
        return assign_pair
    return assign_tuple


def e_read(c, name):
    # ev(f) reading the variable `name` as seen from the current scope.
    return c.expr(n.Name(n.NO_SPAN, name))


def _unpack(value, count):
    # a, b = value with Python's errors, without trusting len(). A class with __getitem__ and no __iter__ is
    # iterable by the old sequence protocol, as for Python's unpacking (`self`: KeyError 0, as Jinja2 and {% for %}).
    if isinstance(value, (str, list, tuple, dict)) or hasattr(value, "__iter__") \
            or hasattr(type(value), "__getitem__"):
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


def namespace_check(c, target):
    # check(f) for {% set ns.attr ... %} and {% set ns.attr, y ... %}: as Jinja2, each `ns` must be a namespace
    # before the value is computed (None for other targets).
    items = target.items if isinstance(target, n.TupleTarget) else (target,)
    refs = tuple((e_read(c, t.name), t.span) for t in items if isinstance(t, n.NamespaceTarget))
    if not refs:
        return None

    def check(f, refs=refs):
        for read, span in refs:
            if not isinstance(read(f), Namespace):
                raise error_at(TemplateRuntimeError, "cannot assign attribute on non-namespace object", span)
    return check


def _accumulates(target, value):
    # Is it {% set x = x ~ ... %} / {% set ns.a = ns.a + ... %}: the target's old value the first operand?
    left = value
    while left.__class__ is n.Concat or left.__class__ is n.BinOp:
        if left.__class__ is n.Concat:
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
    # {% set ns.out = ns.out ~ piece %}: the engine charged building the whole new string, but once the target
    # is rebound the old one is freed (when nothing else holds it), so what the render keeps grew by the piece
    # only. Refund all but the copying time, so that the common accumulation costs in proportion to its result,
    # not to its square.
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
    check = namespace_check(c, target)
    if not accumulates:
        def run(f, out, assign=assign, check=check, ev=ev):
            if check is not None:
                check(f)
            assign(f, ev(f))
        return run
    slot = c.scope.refs[target.name]   # (a name: a namespace's `_private` attribute is not an accumulation)

    def run_accumulating(f, out, assign=assign, ev=ev, slot=slot):
        old = f[slot]
        old = old if type(old) in (str, list) else ""
        assign(f, ev(f))
        _refund(f[0], old)
    return run_accumulating


def _name_assignment(c, slot, value):
    # {% set name = value %}: a constant stored as it is (a scalar, or a tuple of them: one object, as Jinja2's);
    # a variable of this frame or a key of one (context.operand) read in line, its closure reading anything else.
    constant = constant_literal(c, value)
    if constant is not MISSING:
        def run_constant(f, out, slot=slot, constant=constant):   # (defaults: cheaper per call than free variables)
            f[slot] = constant
        return run_constant
    filtered = _str_method_of(c, value)
    if filtered is not None:
        return _name_from_str_method(c, slot, value, *filtered)
    source, key, ev = operand(c, value)
    if source is None:
        def run_name(f, out, slot=slot, ev=ev):
            f[slot] = ev(f)
        return run_name
    if key is None:
        def run_copy(f, out, slot=slot, source=source, ev=ev):   # {% set content = text %}
            found = f[source]
            f[slot] = found if found is not MISSING else ev(f)
        return run_copy

    def run_read(f, out, slot=slot, source=source, key=key, ev=ev):   # {% set content = message['content'] %}
        found = f[source]
        if type(found) is dict and key in found:
            f[slot] = found[key]
        else:
            f[slot] = ev(f)
    return run_read


def _str_method_of(c, value):
    # (method, source, key) of `read|trim` (a filter that is a str method, applied to a variable of this frame or
    # a constant key of one: context.operand's), or None.
    if not isinstance(value, n.Filter) or not value.args.empty or value.value is None:
        return None
    method = str_method(c.filters.get(value.name))
    inner = value.value
    key = dict_key(inner) if isinstance(inner, (n.Getattr, n.Getitem)) else None
    source = local_slot(c, inner.obj if key is not None else inner)
    return None if method is None or source is None else (method, source, key)


def _name_from_str_method(c, slot, value, method, source, key):
    # {% set name = m.content|trim %}: a short plain str read in line gets the method (what the filter is on it,
    # uncharged as the filter's own form); anything else through the filter's closure.
    ev = c.expr(value)
    if key is None:
        def run_method_of_name(f, out, slot=slot, source=source, method=method, ev=ev):   # {% set role = role|upper %}
            found = f[source]
            f[slot] = method(found) if type(found) is str and len(found) < BIG_STR else ev(f)
        return run_method_of_name

    def run_method(f, out, slot=slot, source=source, key=key, method=method, ev=ev):   # {% set r = m.role|lower %}
        found = f[source]
        if type(found) is dict and key in found:
            found = found[key]
            if type(found) is str and len(found) < BIG_STR:
                f[slot] = method(found)
                return
        f[slot] = ev(f)
    return run_method


def _namespace_assignment(c, target, value, accumulates):
    # {% set ns.attr = value %} (attr not `_private`, which a chat namespace refuses): ns checked to be a
    # namespace first, as Jinja2 does, then the value computed (a constant as it is) and stored, with the
    # accumulation refund (_refund) when it is `ns.attr = ns.attr ~ ...`. ns is read in line where it is a
    # variable of this frame.
    read, attr, span = e_read(c, target.name), target.attr, target.span
    slot = local_slot(c, n.Name(target.span, target.name))
    constant = constant_literal(c, value)
    ev = c.expr(value) if constant is MISSING else None

    def run(f, out, accumulates=accumulates, attr=attr, constant=constant, ev=ev, read=read, slot=slot, span=span):
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


def s_assign_block(c, node):
    with c.flags(soft=False, output_check=False):
        enter, body, weight, apply = _captured_scope_body(c, node, node.filters)
    assign = assigner(c, node.target)
    check = namespace_check(c, node.target)
    autoescape = c.autoescape

    def run(f, out):
        captured = []
        if enter is not None:
            enter(f)
        charge(f, weight)
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
        enter, body, weight, apply = _captured_scope_body(c, node, node.filters)
    emit = emitter(c, node.span)
    autoescape = c.autoescape

    def run(f, out):
        captured = []
        if enter is not None:
            enter(f)
        charge(f, weight)
        body(f, captured)
        value = join_output(captured)
        emit(f, out, apply(f, Markup(value) if autoescape else value))
    return run


def s_with(c, node):
    values = tuple(map(c.expr, node.values))
    params = tuple(name for t in node.targets for name in target_names(t))
    with c.flags(soft=False), in_scope(c, node.body, params) as scope:
        assigns = tuple(assigner(c, t) for t in node.targets)
        body, weight = compile_body(c, node.body)
        enter = enter_actions(c, scope)

    def run(f, out):
        evaluated = [v(f) for v in values]
        if enter is not None:
            enter(f)
        for assign, value in zip(assigns, evaluated):
            assign(f, value)
        charge(f, weight)
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
    # (without the do extension, the parser refused the tag: parse.EXTENSION_TAGS)
    ev = c.expr(node.expr)

    def run(f, out, ev=ev):
        ev(f)
    return run


def _loop_control(c, node, name, signal):
    # (without the loopcontrols extension, the parser refused the tag: parse.EXTENSION_TAGS)
    if not c.in_loop:
        where = "outside loop" if name == "break" else "not properly in loop"   # (Python's words for each)
        c.python_refuses(error_at(python_syntax_twin(), f"'{name}' {where}", node.span))

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
