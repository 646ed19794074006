"""Statements whose body is a function with a frame of its own: {% macro %}, {% call %} (its caller),
{% generation %} (transformers' assistant-token tracking: a caller called without arguments) and {% block %}.

A macro's frame has the frame it was defined in as its parent (symbols.py): it reads the variables of the
scopes around its definition, live, as Jinja2's closures do, and the caller's never.
"""

from . import nodes as n
from .base import MISSING
from .calls import call_value, compile_args
from .errors import TemplateAssertionError, TemplateRuntimeError, TemplateSyntaxError, error_at, located
from .runtime import FrameLayout, Macro, MacroCode, TemplateReference, resolve
from .statements import charging, compile_body, emitter, in_scope
from .symbols import Function, node_count

__all__ = ["s_macro", "s_call_block", "s_generation", "s_block", "function_layout"]


def function_layout(c, function, scope):
    """The FrameLayout of a compiled function: its own scope's undefined names start in place, the names it
    resolves are looked up and the ones it aliases copied when a frame is made."""
    actions = scope.entry_actions()   # first: it may give the function a slot for a name to resolve
    initial = [MISSING] * (function.size - 2)   # undefined until assigned (symbols.py)
    copies = [(slot, arg[0], arg[1]) for slot, kind, arg in actions if kind == "copy"]
    return FrameLayout(tuple(initial), tuple(function.resolve_slots.items()), tuple(copies))


def _macro_code(c, name, params, body, span):
    """A MacroCode for a macro or a caller. As in Jinja2, a parameter named kwargs or varargs is an ordinary
    parameter (no catch-all), and one named caller must have a default when the body uses caller."""
    used = c.summaries.reads(body, ("caller", "kwargs", "varargs"))
    names = tuple(p.name for p in params)
    if "caller" in used and any(p.name == "caller" and p.default is None for p in params):
        raise error_at(TemplateAssertionError, 'When defining macros or call blocks the special "caller" argument '
                       "must be omitted or be given a default.", span)
    specials = tuple(s for s in ("caller", "kwargs", "varargs") if s in used and s not in names)
    function = Function(c.scope)
    # Jinja2 analyses the parameters, then the defaults, then the body, all in the macro's own scope
    analysed = tuple(n.ExprStmt(p.span, p.default) for p in params if p.default is not None) + tuple(body)
    with c.flags(soft=False, in_loop=False, output_check=False, counted_by_loop=False), \
            in_scope(c, analysed, names + specials, function) as scope:
        param_slots = tuple(scope.refs[p] for p in names)
        special_slots = tuple(scope.refs[s] if s in specials else None for s in ("caller", "kwargs", "varargs"))
        defaults = tuple(c.expr(p.default) if p.default is not None else None for p in params)
        run = charging(*compile_body(c, body))
        layout = function_layout(c, function, scope)
    # a call costs about ten loop iterations' time (a frame, its parameters bound, its output joined); the body
    # charges when it runs
    return MacroCode(name, names, param_slots, defaults, run, layout, special_slots, 10 + node_count(params))


def s_macro(c, node):
    code = _macro_code(c, node.name, node.params, node.body, node.span)
    slot = c.scope.refs[node.name]

    def run(f, out):
        f[slot] = Macro(code, f)
    return run


def s_call_block(c, node):
    if not isinstance(node.call, n.Call):
        raise error_at(TemplateAssertionError, "expected call", node.call.span)
    # a call block's caller is anonymous, as in Jinja2 (name None, "<Macro anonymous>")
    code = _macro_code(c, None, node.params, node.body, node.span)
    call = node.call
    func = c.expr(call.func)
    collect = compile_args(c, call.args)
    output = emitter(c, node.span)
    span = call.span

    def run(f, out):
        caller = Macro(code, f)
        try:
            func_value = func(f)
            args, kwargs = collect(f)
            kwargs["caller"] = caller
            value = call_value(func_value, args, kwargs, f[0])
        except Exception as exc:
            raise located(exc, span)
        output(f, out, value)
    return run


def s_generation(c, node):
    if "generation" not in c.extensions:
        raise error_at(TemplateSyntaxError, "Encountered unknown tag 'generation'.", node.span)
    # transformers' extension renders the body as a call block's caller, called without arguments: there `caller`
    # is undefined ("No caller defined"), `varargs` is () and `kwargs` is {} when the body uses them
    code = _macro_code(c, None, (), node.body, node.span)
    counted = not c.counted_by_loop

    def run(f, out):
        text = Macro(code, f)()
        rs = f[0]
        spans = rs.generation_spans
        if spans is not None:
            rs.burn(len(out))
            start = sum(map(len, out))
            spans.append((start, start + len(text)))
        out.append(text)
        if counted:
            rs.grow_output(len(text))
    return run


def s_block(c, node):
    """{% block name %}: rendered in place (nothing extends a string template), and kept for `self.name()`. As in
    Jinja2, a block is a function of its own that reads Jinja2's template context: the top-level variables the
    template has assigned so far, then the render's variables and the globals — not the loop or macro it sits in,
    unless it is `scoped`, which adds the variables assigned around it (Jinja2's derived context)."""
    if node.name in c.blocks:
        raise error_at(TemplateAssertionError, f"block {node.name!r} defined twice", node.span)
    name, span = node.name, node.span
    if node.required:
        def run_required(rs, out, derived=None):
            raise error_at(TemplateRuntimeError, f"Required block {name!r} not found", span)
        c.blocks[name] = run_required
        return lambda f, out: run_required(f[0], out)
    c.blocks[name] = None  # taken (a block of the same name nested in this one is a duplicate)
    function = Function(None)
    special = tuple(sorted(c.summaries.reads(node.body, ("self", "super"))))
    c.uses_self = c.uses_self or "self" in special
    with c.flags(soft=False, in_loop=False, output_check=False, counted_by_loop=False), \
            in_scope(c, node.body, special, function, None) as scope:
        body = charging(*compile_body(c, node.body))
        layout = function_layout(c, function, scope)
        self_slot, super_slot = (scope.refs.get(s) if s in special else None for s in ("self", "super"))
    exports = c.root_exports   # filled once the template's own scope is compiled
    super_hint = f"there is no parent block called {name!r}."

    def run_block(rs, out, derived=None):
        def lookup(name):
            if derived is not None and name in derived:
                return derived[name]
            slot = exports.get(name)
            if slot is not None:
                value = rs.root[slot]
                if value is not MISSING:   # assigned by now (or resolved from the render's variables)
                    return value
            return resolve(rs, name)
        f = layout.new(rs, None, lookup)
        if self_slot is not None:
            f[self_slot] = TemplateReference(rs.template_name, rs)
        if super_slot is not None:
            f[super_slot] = rs.undefined(super_hint, name="super")
        body(f, out)
    c.blocks[name] = run_block
    if not node.scoped:
        return lambda f, out: run_block(f[0], out)
    visible = _stored_names(c)

    def run_scoped(f, out):
        derived = {}
        for var, (depth, slot) in visible.items():
            frame = f
            for _ in range(depth):
                frame = frame[1]
            value = frame[slot]
            if value is not MISSING:
                derived[var] = value
        run_block(f[0], out, derived)
    return run_scoped


def _stored_names(c):
    """{name: (depth, slot)} of every variable assigned in the current scope and the scopes around it (the
    innermost wins), as Jinja2's derived context sees them."""
    visible = {}
    depth, scope = 0, c.scope
    while scope is not None:
        for name in scope.stores:
            if name not in visible:
                visible[name] = (depth, scope.refs[name])
        parent = scope.parent
        if parent is not None and parent.function is not scope.function:
            depth += 1
        scope = parent
    return visible
