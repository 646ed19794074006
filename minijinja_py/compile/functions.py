"""Statements whose body is a function with a frame of its own: {% macro %}, {% call %} (its caller),
{% generation %} (transformers' assistant-token tracking: a caller called without arguments) and {% block %}."""

# A macro's frame has the frame it was defined in as its parent (symbols.py): it reads the variables of the
# scopes around its definition, live, as Jinja2's closures do, and the caller's never.

from ..analysis.symbols import Function, node_count
from .calls import call_value, compile_args
from .statements import charging, compile_body, emitter, in_scope, nothing
from ..core.errors import (
    PythonSyntaxTwin, TemplateAssertionError, TemplateError, TemplateRuntimeError, claim, error_at, located, location,
)
from ..core.state import MISSING
from ..runtime.composition import TemplateReference, context_at, variables_reader
from ..runtime.objects import FrameLayout, Macro, MacroCode, call_macro
from ..syntax import nodes as n

__all__ = ["s_macro", "s_call_block", "s_generation", "s_block", "template_blocks", "compile_blocks", "function_layout"]


def function_layout(c, function, scope):
    # The FrameLayout of a compiled function: its own scope's undefined names start in place, the names it
    # resolves are looked up and the ones it aliases copied when a frame is made.
    actions = scope.entry_actions()   # first: it may give the function a slot for a name to resolve
    initial = [MISSING] * (function.size - 2)   # undefined until assigned (symbols.py)
    copies = [(slot, arg[0], arg[1]) for slot, kind, arg in actions if kind == "copy"]
    return FrameLayout(tuple(initial), tuple(function.resolve_slots.items()), tuple(copies))


def _macro_code(c, name, params, body, span):
    # A MacroCode for a macro or a caller. As in Jinja2, a parameter named kwargs or varargs is an ordinary
    # parameter (no catch-all), and one named caller must have a default when the body uses caller.
    used = c.summaries.reads(body, ("caller", "kwargs", "varargs"))
    names = tuple(p.name for p in params)
    if len(set(names)) < len(names):
        p = next(p for i, p in enumerate(params) if p.name in names[:i])
        c.python_refuses(error_at(PythonSyntaxTwin, f"duplicate parameter {p.name!r}", p.span), symbol_pass=True)
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
        run, weight = compile_body(c, body)
        layout = function_layout(c, function, scope)
    # a call costs ten loop iterations' time (a frame, its parameters bound, its output joined, the interpreter's
    # own calls below it), and up to four times that when recursion straddles a chunk of CPython 3.11's frame
    # stack, which then pays an mmap and an munmap per call: forty steps, charged with its body's statements when
    # it starts
    return MacroCode(name, names, param_slots, defaults, run, layout, special_slots,
                     _CALL_STEPS + node_count(params) + weight, c.origin)


_CALL_STEPS = 40


def s_macro(c, node):
    code = _macro_code(c, node.name, node.params, node.body, node.span)
    slot = c.scope.refs[node.name]

    def run(f, out, code=code, slot=slot):
        f[slot] = Macro(code, f)
    return run


def s_call_block(c, node):
    if not isinstance(node.call, n.Call):
        raise error_at(TemplateAssertionError, "expected call", node.call.span)
    # a call block's caller is anonymous, as in Jinja2 (name None, "<Macro anonymous>")
    code = _macro_code(c, None, node.params, node.body, node.span)
    call = node.call
    start = len(c.late_errors)   # (Python compiles the call after the caller's body: see compile_args)
    func = c.expr(call.func)
    collect = compile_args(c, call.args, start=start, caller_span=call.span)
    output = emitter(c, node.span)
    span = call.span

    def run(f, out, code=code, collect=collect, func=func, output=output, span=span):
        caller = Macro(code, f)
        try:
            func_value = func(f)
            args, kwargs = collect(f)
            kwargs["caller"] = caller
            if type(func_value) is Macro:   # (call_value would only call it, a frame more)
                value = call_macro(func_value, *args, **kwargs)
            else:
                value = call_value(func_value, args, kwargs, f[0])
        except Exception as exc:
            raise located(exc, span)
        output(f, out, value)
    return run


def s_generation(c, node):
    # (without the generation extension, the parser refused the tag: postlex.EXTENSION_TAGS)
    # transformers' extension renders the body as a call block's caller, called without arguments: there `caller`
    # is undefined ("No caller defined"), `varargs` is () and `kwargs` is {} when the body uses them
    code = _macro_code(c, None, (), node.body, node.span)
    counted = not c.counted_by_loop

    def run(f, out, code=code, counted=counted):
        text = call_macro(Macro(code, f))
        rs = f[0]
        spans = rs.generation_spans
        if spans is not None:
            # transformers starts a span at the length of what the render has yielded so far: the render's own
            # output, not a buffer this block is written into (a macro's, a set or filter block's, a recursive loop's)
            yielded = rs.generation_output
            rs.burn(len(yielded))
            start = sum(map(len, yielded))
            spans.append((start, start + len(text)))
        out.append(text)
        if counted:
            rs.grow_output(len(text))
    return run


def s_block(c, node):
    # {% block name %} where it stands: the statement rendering the most derived block of that name (the block's
    # own function is compiled after the template's root: compile_blocks). As in Jinja2, a block reads the
    # template context (composition.TemplateContext: the top-level variables assigned so far, then the render's
    # variables and the globals) — not the loop or macro it sits in, unless it is `scoped`, which adds the
    # variables assigned around it. A `required` block fails when nothing overrides it.
    if c.toplevel and c.known_extends:
        return nothing   # Jinja2 renders no block in place after an extends (the parent renders them)
    name, depth = node.name, c.context_depth()
    if node.required:
        return _required_block(c, node, depth)
    if not node.scoped:
        def run(f, out, depth=depth, name=name):
            context = context_at(f, depth)
            context.blocks[name][0](context, out)
        return run
    read_locals = variables_reader(c.visible_stores())

    def run_scoped(f, out, depth=depth, name=name, read_locals=read_locals):
        context = context_at(f, depth)
        context.blocks[name][0](context, out, read_locals(f))
    return run_scoped


def template_blocks(c):
    # The {% block %}s of the template (the last scan's), in Jinja2's order: the document's, a nested block after
    # the block around it; refused if a name is defined twice, the first thing Jinja2's compiler checks (before
    # anything it refuses in the code). Each gets its place in c.blocks (filled in by compile_blocks).
    if not c.summaries.in_source("block"):
        return ()
    blocks = sorted((x for x in c.summaries.index.runners if type(x) is n.Block), key=lambda x: location(x.span))
    for node in blocks:
        if node.name in c.blocks:
            raise error_at(TemplateAssertionError, f"block {node.name!r} defined twice", node.span)
        c.blocks[node.name] = None
    if blocks:
        c.needs_context = True
    return blocks


def compile_blocks(c, blocks):
    # Every block's function (template_blocks' order), after the template's root: Jinja2 generates them so (what
    # it refuses in the root comes first), and all of them, wherever they stand (after a second extends too).
    for node in blocks:
        c.blocks[node.name] = _block_function(c, node)


def _required_block(c, node, depth):
    # s_block's run of a `required` block: as in Jinja2, it fails where the template reaches the block statement
    # with nothing overriding it, not when the block's function runs (`self.b()` and `super()` render it empty).
    name, span = node.name, node.span
    read_locals = variables_reader(c.visible_stores()) if node.scoped else None

    def run_required(f, out, depth=depth, name=name, span=span, read_locals=read_locals):
        context = context_at(f, depth)
        if len(context.blocks[name]) <= 1:
            raise error_at(TemplateRuntimeError, f"Required block {name!r} not found", span)
        context.blocks[name][0](context, out, None if read_locals is None else read_locals(f))
    return run_required


def _block_function(c, node):
    # run_block(context, out, derived=None): the block's body in a frame of its own; derived are the variables
    # of a scoped block's surroundings.
    name = node.name
    function = Function(None, family=c.functions)
    special = tuple(sorted(c.summaries.reads(node.body, ("self", "super"))))
    c.uses_self = c.uses_self or "self" in special
    with c.flags(soft=False, in_loop=False, output_check=False, counted_by_loop=False), \
            in_scope(c, node.body, special, function, None) as scope:
        body = charging(*compile_body(c, node.body))
        layout = function_layout(c, function, scope)
        self_slot, super_slot = (scope.refs.get(s) if s in special else None for s in ("self", "super"))
    origin = c.origin

    def run_block(context, out, derived=None):
        try:
            if derived is None:
                f = layout.new(context.rs, context, context.lookup)
            else:
                f = layout.new(context.rs, context, lambda var: derived[var] if var in derived
                               else context.lookup(var))
            if self_slot is not None:
                f[self_slot] = TemplateReference(context, derived)
            if super_slot is not None:
                f[super_slot] = context.super_block(name, run_block, derived)
            body(f, out)
        except TemplateError as exc:
            claim(exc, origin)
            raise
    return run_block
