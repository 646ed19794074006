"""The statements that compose a template of functions and of other templates → run(f, out): those whose body is a
function with a frame of its own — {% macro %}, {% call %} (its caller), {% generation %} (transformers'
assistant-token tracking: a caller called without arguments) and {% block %} — and the tags that load other
templates — {% include %}, {% import %}, {% from ... import %} and {% extends %}, checked as Jinja2 checks them when
the template compiles. What they build when they run is runtime/composition.py's (the template context, block
chains, modules)."""

import re

from ..analysis.symbols import Function, node_count
from .calls import call_value, compile_args
from .statements import charging, compile_body, emitter, in_scope, nothing
from ..core.errors import (
    TemplateAssertionError, TemplateError, TemplateNotFound, TemplateRuntimeError, claim, error_at,
    located, location, python_syntax_twin,
)
from ..core.state import MISSING
from ..runtime.composition import (
    TemplateReference, context_at, default_module, extend, imported_name, include, load, make_module,
    variables_reader,
)
from ..runtime.objects import FrameLayout, Macro, MacroCode, call_macro, join_output
from ..syntax import nodes as n
from ..syntax.delimiters import DEFAULT, line_statement_at

__all__ = ["s_macro", "s_call_block", "s_generation", "s_block", "template_blocks", "compile_blocks", "function_layout",
           "s_load", "tag_modifiers"]


# -------------------------------------------------------------------------------------------------- functions
# A macro's frame has the frame it was defined in as its parent (symbols.py): it reads the variables of the
# scopes around its definition, live, as Jinja2's closures do, and the caller's never.


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
        c.python_refuses(error_at(python_syntax_twin(), f"duplicate parameter {p.name!r}", p.span), symbol_pass=True)
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
    # (without the generation extension, the parser refused the tag: parse.EXTENSION_TAGS)
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


# ------------------------------------------------------------------------------------------------------ loads
# When they run they ask the environment's loader, as Jinja2 does (Environment.get_template and friends), so with
# no loader — a template is a string, as in transformers — they fail with Jinja2's "no loader for this
# environment specified" TypeError, after evaluating the name. With one, runtime/composition.py does the rest.
#
# The AST does not record `ignore missing` and `with context` / `without context` (the parser drops them), so they
# are read back from the tag's source, after the name expression up to the end of the tag (the block end, or the
# end of the line for a line statement): what can be there is keywords, names and commas only.

# (patterns given to re's functions as text: compiled on first use and kept in re's cache, not at import)
_IGNORE_MISSING = r"\s*ignore\s+missing\b"
_CONTEXT = r"(?<!\w)\s*(with|without)\s+context\s*[-+]?$"


def tag_modifiers(source, node, delimiters=None):
    # (ignore_missing, with_context) of a load tag as written: with_context is True, False or None (not said).
    # delimiters: the syntax.delimiters.Delimiters the source is written with, None for Jinja2's.
    if source is None:
        return False, None
    d = delimiters or DEFAULT
    start = node.template.span.end
    end = source.find("\n" if line_statement_at(d, source, node.span.start) else d.block_end, start)
    tail = source[start:end if end >= 0 else len(source)]
    ignore_missing = node.kind == "include" and re.match(_IGNORE_MISSING, tail) is not None
    found = re.search(_CONTEXT, tail)
    return ignore_missing, None if found is None else found.group(1) == "with"


def _check(c, node):
    if node.kind == "extends":
        if not c.toplevel:
            raise error_at(TemplateAssertionError, "cannot use extend from a non top-level scope", node.span)


def s_load(c, node):
    _check(c, node)
    c.needs_context = True
    compile_kind = {"include": _include, "import": _import, "from": _import, "extends": _extends}[node.kind]
    # (read off the name expression's span before it compiles: once, as an {% autoescape %} body compiles twice)
    modifiers = c.load_modifiers.get(id(node))
    if modifiers is None:
        modifiers = c.load_modifiers[id(node)] = tag_modifiers(c.origin[2], node, c.env._delimiters)
    # (after a known extends, Jinja2 generates a second one as a bare raise: not its name, nor what it refuses there)
    template_ev = None if node.kind == "extends" and c.known_extends else c.expr(node.template)
    run = compile_kind(c, node, template_ev, c.context_depth(), modifiers)
    span = node.span

    def run_located(f, out, run=run, span=span):
        try:
            run(f, out)
        except Exception as exc:
            raise located(exc, span)
    return run_located


def _chooser(template):
    # The Environment method Jinja2's include calls, chosen by the shape of the name expression.
    if isinstance(template, n.Const):
        return "get_template" if isinstance(template.value, str) else \
            "select_template" if isinstance(template.value, (tuple, list)) else "get_or_select_template"
    return "select_template" if isinstance(template, (n.TupleExpr, n.ListExpr)) else "get_or_select_template"


def _include(c, node, template_ev, depth, modifiers):
    ignore_missing, with_context = modifiers
    choose, importer = _chooser(node.template), c.template_name
    read_locals = variables_reader(c.visible_stores()) if with_context is not False else None
    counted = not c.counted_by_loop

    def run(f, out, choose=choose, counted=counted, depth=depth, ignore_missing=ignore_missing, importer=importer,
            read_locals=read_locals, template_ev=template_ev):
        value = template_ev(f)
        context = context_at(f, depth)
        if type(value) is list or type(value) is tuple:
            context.rs.burn(10 * len(value))   # a loader lookup for each name, at worst
        try:
            template = load(context, choose, value, importer)
        except TemplateNotFound:
            if ignore_missing:
                return
            raise
        if read_locals is None:
            # without context Jinja2 prints the body of the template's module, made once (as an import's)
            text = str(default_module(context, template, importing=False))
        else:
            variables = context.everything()
            variables.update(read_locals(f))
            # rendered into a list of its own and appended as one piece, as a macro's output is
            inner = []
            rs = context.rs
            yielded = rs.generation_output
            if rs.generation_spans is not None and (out is yielded or getattr(yielded, "pieces", None) is out):
                # Jinja2 yields an included template's pieces as they come: a {% generation %} span in it starts
                # after them (transformers counts what the render has yielded)
                rs.generation_output = _yielded(yielded, inner)
                try:
                    include(context, template, inner, variables)
                finally:
                    rs.generation_output = yielded
            else:
                include(context, template, inner, variables)
            try:
                text = join_output(inner)
            except TypeError:
                # a piece that is no text ({% filter list %}): Jinja2 yields the included pieces into the output,
                # so the render fails where the whole output is joined (unless something fails before that)
                out.extend(inner)
                return
        out.append(text)
        if counted:
            context.rs.grow_output(len(text))
    return run


_YIELDED = []   # [the class _yielded makes], once made


def _yielded(before, pieces):
    # The output yielded so far while an include renders where the render yields: what was yielded before it,
    # then the included template's pieces (as a list of pieces to s_generation: len() and iteration).
    # Its class is made on first use: few renders include a template inside {% generation %}, and a class costs a
    # cold start ~0.07 M instructions.
    if not _YIELDED:
        class Yielded:
            __slots__ = ("before", "pieces")

            def __init__(self, before, pieces):
                self.before, self.pieces = before, pieces

            def __len__(self):
                return len(self.before) + len(self.pieces)

            def __iter__(self):
                yield from self.before
                yield from self.pieces
        _YIELDED.append(Yielded)   # (threads racing here append equal classes: each uses the first)
    return _YIELDED[0](before, pieces)


def _import(c, node, template_ev, depth, modifiers):
    _, with_context = modifiers
    importer = c.template_name
    read_locals = variables_reader(c.visible_stores()) if with_context else None
    line = node.span.line
    if node.kind == "import":
        slot = c.scope.refs[node.alias]
        bind = None
    else:
        bind = tuple((name, c.scope.refs[alias]) for name, alias in node.names)

    def run(f, out):
        value = template_ev(f)
        context = context_at(f, depth)
        rs = context.rs
        template = load(context, "get_template", value, importer)
        if read_locals is not None:
            variables = context.everything()
            variables.update(read_locals(f))
            module = make_module(context, template, variables)
        else:
            module = default_module(context, template)
        if bind is None:
            f[slot] = module
            return
        for name, target in bind:
            f[target] = imported_name(rs, module, name, template.name, line, importer)
    return run


def _extends(c, node, template_ev, depth, modifiers):
    importer = c.template_name
    if c.known_extends:
        # Jinja2 compiles a second extends after a known one to this, and nothing after it (statements.py)
        def run_twice(f, out):
            raise TemplateRuntimeError("extended multiple times")
        return run_twice
    if c.rootlevel:
        c.known_extends = True

    def run(f, out, depth=depth, importer=importer, template_ev=template_ev):
        context = context_at(f, depth)
        if context.extends is not None:
            raise TemplateRuntimeError("extended multiple times")
        extend(context, load(context, "get_template", template_ev(f), importer))
    return run
