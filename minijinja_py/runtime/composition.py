"""Composition: how templates use one another while a render runs — Jinja2's template context, the blocks of an
inheritance chain with `self` and `super()`, and what {% include %}, {% import %}, {% from %} and {% extends %}
do once a loader has found the template."""

# A TemplateContext is Jinja2's Context: one per render, per include and per imported module. It holds the
# variables its templates resolve names from (after their own top-level variables), the {% block %} functions
# by name (the most derived first), and the root frames of the templates it has run: a template's top-level
# variables, assigned so far, are what Jinja2 keeps in `context.vars`, read by its blocks, by the templates
# it extends and by the templates it includes. The outermost frame of every function a template runs (the root,
# a block) holds the context in its parent slot, f[1] (context_at finds it; a function's free names are
# resolved there: objects.FrameLayout).
#
# Templates are duck-typed here (environment.py sits above): what this module uses of one is `_compiled` (the
# compiler's CompiledTemplate), `name`, `_origin` (name, filename, source: what errors located in it carry),
# `_autoescape` and `_full_globals()`.
# Every nested template shares the render's RenderState — limits, step budget, output count — and counts as
# one level of max_call_depth while it runs, so a template that includes, imports or extends itself ends with
# LimitExceeded.

from operator import attrgetter

from ..core.errors import TemplateError, TemplateRuntimeError, as_template_error, claim
from ..core.state import MISSING, enter_render, leave_render, limit_exceeded
from .markup import Markup
from .objects import Macro, captured_text, join_output

__all__ = [
    "TemplateContext", "TemplateReference", "BlockReference", "TemplateModule", "run_template", "render_chunks",
    "extend", "include", "make_module", "default_module", "load", "imported_name", "context_at", "variables_reader",
]


class TemplateContext:
    # Jinja2's Context: see the module docstring. `parent` and `globals` are dicts of the variables resolved
    # after the templates' own; `roots` the (root frame, {name: slot} of its top-level variables) of each template
    # run in this context, in order; `blocks` {name: [block function, ...]}, the most derived first; `extends` the
    # template an {% extends %} has chosen and whose root has not started; `cache` what the render has loaded and
    # the modules it has made, shared by every context of the render (load()).

    __slots__ = ("rs", "name", "parent", "globals", "roots", "blocks", "extends", "cache")

    def __init__(self, rs, name, parent, globals_, blocks, cache):
        self.rs = rs
        self.name = name
        self.parent = parent
        self.globals = globals_
        self.roots = []
        self.blocks = {block: [run] for block, run in blocks.items()}
        self.extends = None
        self.cache = cache

    def lookup(self, name):
        # A name as the context resolves it: the top-level variable assigned last, then parent, then globals;
        # MISSING when none has it.
        for frame, exports in reversed(self.roots):
            slot = exports.get(name)
            if slot is not None:
                value = frame[slot]
                if value is not MISSING:
                    return value
        value = self.parent.get(name, MISSING)
        if value is MISSING:
            return self.globals.get(name, MISSING)
        return value

    def top_level(self, exported_only=False):
        # {name: value} of the top-level variables assigned so far (Jinja2's context.vars, or only the exported
        # ones: names without a leading underscore).
        found = {}
        for frame, exports in self.roots:
            for name, slot in exports.items():
                value = frame[slot]
                if value is not MISSING and not (exported_only and name[:1] == "_"):
                    found[name] = value
        return found

    def everything(self):
        # Jinja2's context.get_all(): globals, then parent, then the top-level variables.
        return {**self.globals, **self.parent, **self.top_level()}

    def super_block(self, name, current, derived=None):
        # `super` in the block function `current`: the next block of that name up the chain, or undefined;
        # derived are the variables a scoped block sees, which that block sees too (as in Jinja2).
        chain = self.blocks.get(name, ())
        for index, run in enumerate(chain):
            if run is current and index + 1 < len(chain):
                return BlockReference(name, self, index + 1, derived)
        return self.rs.undefined(f"there is no parent block called {name!r}.", name="super")


# ------------------------------------------------------------------------------------------------------ self
class TemplateReference:
    # `self`: `self.name()` renders the most derived {% block name %} of the context's chain.

    __slots__ = ("_context", "_derived")
    mj_safe_repr = True

    def __init__(self, context, derived=None):
        self._context, self._derived = context, derived

    def __getitem__(self, name):
        if name not in self._context.blocks:
            raise KeyError(name)
        return BlockReference(name, self._context, 0, self._derived)

    def __repr__(self):
        return f"<TemplateReference {self._context.name!r}>"


class BlockReference:
    # self.name or super: calling it renders that block; `.super` is the next one up the chain.

    __slots__ = ("name", "_context", "_index", "_derived")
    mj_safe_repr = True

    def __init__(self, name, context, index, derived=None):
        self.name, self._context, self._index, self._derived = name, context, index, derived

    @property
    def super(self):
        chain = self._context.blocks[self.name]
        if self._index + 1 < len(chain):
            return BlockReference(self.name, self._context, self._index + 1, self._derived)
        return self._context.rs.undefined(f"there is no parent block called {self.name!r}.", name="super")

    def __call__(self):
        context = self._context
        rs = context.rs
        rs.burn(10)  # as a macro call: a frame, the body's output joined
        if rs.depth >= rs.limits.max_call_depth:
            raise limit_exceeded(rs.limits, "max_call_depth", "the depth of block calls through self")
        out = []
        rs.depth += 1
        try:
            context.blocks[self.name][self._index](context, out, self._derived)
        finally:
            rs.depth -= 1
        return captured_text(out, rs)

    def __repr__(self):
        return f"<BlockReference {self.name!r}>"


# ------------------------------------------------------------------------------------------------- running
def _enter(rs, what):
    if rs.depth >= rs.limits.max_call_depth:
        raise limit_exceeded(rs.limits, "max_call_depth", f"the depth of {what}")
    rs.depth += 1


def _root_frame(context, template):
    # A new root frame of template in context (its free names resolved there), registered as one of its
    # roots.
    compiled = template._compiled
    f = compiled.layout.new(context.rs, context)
    context.roots.append((f, compiled.exports))
    if compiled.self_slot is not None:
        f[compiled.self_slot] = TemplateReference(context)
    return f


def run_template(context, template, out):
    # Render template in context into out, then the templates it extends, as Jinja2 does: the root runs to its
    # end, then the parent's root in the same context, with the blocks of the whole chain.
    rs = context.rs
    saved_autoescape, depth = rs.autoescape, rs.depth
    try:
        while template is not None:
            rs.autoescape = template._autoescape
            template._compiled.run(_root_frame(context, template), out)
            template, context.extends = context.extends, None
            if template is not None:
                _enter(rs, "templates extending templates")
    except TemplateError as exc:
        claim(exc, template._origin)   # located in this template's root, unless a function in it claimed it
        raise
    finally:
        rs.autoescape, rs.depth = saved_autoescape, depth


def _steps(context, template, out):
    # run_template as a generator: it stops after each top-level statement of each template of the chain and
    # yields where in out that statement's output starts.
    rs = context.rs
    while template is not None:
        rs.autoescape = template._autoescape
        f = _root_frame(context, template)
        for step in template._compiled.steps:
            start = len(out)
            try:
                step(f, out)
            except TemplateError as exc:
                claim(exc, template._origin)
                raise
            yield start
        template, context.extends = context.extends, None
        if template is not None:
            _enter(rs, "templates extending templates")


def render_chunks(context, template, out):
    # The render of template in context as the pieces of text it writes (each text and each {{ }} value, as
    # Jinja2 yields them, where the compiler did not join them), those of one top-level statement (or of one of the
    # templates it extends) made when the first of them is asked for (Template.generate). The render is entered for
    # each step only: the caller's code between two steps is not part of it.
    rs = context.rs
    steps = _steps(context, template, out)
    while True:
        token = enter_render(rs)
        try:
            start = next(steps, None)
        finally:
            leave_render(token)
        if start is None:
            return
        pieces = out[start:]
        del out[start:]
        join_output(pieces)   # raises, located, for a piece that is not text
        yield from filter(None, pieces)


def extend(context, template):
    # {% extends %} once the loader found the parent: its blocks join the chain; its root runs when this
    # template's root has finished (run_template).
    if context.extends is not None:
        raise TemplateRuntimeError("extended multiple times")
    rs = context.rs
    if rs.depth + len(context.roots) >= rs.limits.max_call_depth:   # refused here, where the tag is
        raise limit_exceeded(rs.limits, "max_call_depth", "the depth of templates extending templates")
    context.extends = template
    for name, run in template._compiled.blocks.items():
        context.blocks.setdefault(name, []).append(run)


def include(context, template, out, variables):
    # {% include %}: template rendered in a context of its own, seeing `variables` (with context: everything the
    # includer sees) or only its globals (None: without context).
    rs = context.rs
    _enter(rs, "templates including templates")
    try:
        inner = _context_for(context, template, variables)
        run_template(inner, template, out)
    finally:
        rs.depth -= 1


def _context_for(context, template, variables):
    globals_ = template._full_globals()
    parent = {} if variables is None else variables
    return TemplateContext(context.rs, template.name, parent, globals_, template._compiled.blocks, context.cache)


def context_at(f, depth):
    # The template context of the frame f, whose outermost function frame is depth frames up.
    for _ in range(depth):
        f = f[1]
    return f[1]


def variables_reader(visible):
    # read(f) → {name: value} of the variables at visible ({name: (depth, slot)}, compile_context's
    # visible_stores) assigned by now: the locals Jinja2 passes to an include, an import with context or a scoped
    # block.
    where = tuple((name, depth, slot) for name, (depth, slot) in visible.items())

    def read(f):
        found = {}
        for name, depth, slot in where:
            frame = f
            for _ in range(depth):
                frame = frame[1]
            value = frame[slot]
            if value is not MISSING:
                found[name] = value
        return found
    return read


# --------------------------------------------------------------------------------------------------- modules
class TemplateModule:
    # What {% import %} binds and Template.module returns: a template's exported top-level variables and macros,
    # read as attributes; printed, the template's output.

    __slots__ = ("_name", "_exports", "_body", "_outside")
    mj_safe_repr = True

    def __init__(self, name, exports, body, outside):
        self._name = name
        self._exports = exports
        self._body = body         # the output's pieces, joined when first printed (as Jinja2 keeps its stream: a
        self._outside = outside   # piece that is not text fails there, not at the import); (render state,
        #                           annotate) for macros called from Python, or None

    def __getitem__(self, name):
        # The exported name (how the sandbox reads `module.name` in a template).
        return self._exports[name]

    __iter__ = None   # not iterable (as Jinja2's): __getitem__ is not a sequence's

    def __getattr__(self, name):
        # The exported name, from Python: a macro is wrapped so that calling it runs as a render of its own.
        try:
            value = self._exports[name]
        except KeyError:
            raise AttributeError(name) from None
        if type(value) is Macro and self._outside is not None:
            return _outside_macro()(value, *self._outside)
        return value

    def __dir__(self):
        return sorted(self._exports)

    def __str__(self):
        body = self._body
        if type(body) is not str:
            body = self._body = join_output(body)
        return body

    def __html__(self):
        return Markup(str(self))

    def __repr__(self):
        return f"<TemplateModule {self._name!r}>" if self._name is not None else "<TemplateModule from_string>"


_OUTSIDE_MACRO = []   # [the class _outside_macro makes], once made


def _outside_macro():
    # The class of a module's macro called from Python (Template.module.macro(...)): a render of its own, with a
    # fresh step budget each call, and its errors TemplateErrors as a render's. Made on first use: few programs
    # call a template's macros from Python, and a class costs a cold start ~0.08 M instructions.
    if not _OUTSIDE_MACRO:
        class _OutsideMacro:
            __slots__ = ("_macro", "_rs", "_annotate")

            def __init__(self, macro, rs, annotate):
                self._macro, self._rs, self._annotate = macro, rs, annotate

            def __call__(self, *args, **kwargs):
                rs = self._rs
                rs.fuel, rs.output_size, rs.depth = rs.limits.max_steps, 0, 0
                token = enter_render(rs)
                try:
                    return self._macro(*args, **kwargs)
                except TemplateError as exc:
                    raise self._annotate(exc) from None
                except Exception as exc:
                    error = as_template_error(exc)
                    raise self._annotate(error) from error.__cause__
                finally:
                    leave_render(token)

            def __repr__(self):
                return repr(self._macro)

            # what Python code reads of a macro, as of Jinja2's (Template.module.name.arguments, ...)
            name = property(attrgetter("_macro.name"))
            arguments = property(attrgetter("_macro.arguments"))
            catch_kwargs = property(attrgetter("_macro.catch_kwargs"))
            catch_varargs = property(attrgetter("_macro.catch_varargs"))
            caller = property(attrgetter("_macro.caller"))
            explicit_caller = property(attrgetter("_macro.explicit_caller"))
        _OUTSIDE_MACRO.append(_OutsideMacro)   # (threads racing here append equal classes: each uses the first)
    return _OUTSIDE_MACRO[0]


def make_module(context, template, variables, outside=None):
    # A TemplateModule of template: its root (and the templates it extends) rendered in a context of its own
    # that sees `variables` (with context) or its globals only (None).
    rs = context.rs
    _enter(rs, "templates importing templates")
    try:
        inner = _context_for(context, template, variables)
        out = []
        run_template(inner, template, out)
        return TemplateModule(template.name, inner.top_level(exported_only=True), out, outside)
    finally:
        rs.depth -= 1


def default_module(context, template, importing=True):
    # The module {% import %} without context binds (and whose body an {% include %} without context prints):
    # made once per render for each template. As in Jinja2, an import passes the importer's own globals that the
    # imported template lacks (from_string(..., globals=)) as its variables; a module that gets some is made for
    # that import alone.
    own = template._full_globals()
    extra = {name: value for name, value in context.globals.items() if name not in own} \
        if importing and context.globals is not own else None
    if extra:
        return make_module(context, template, extra)
    key = ("module", id(template))
    module = context.cache.get(key)
    if module is None:
        module = context.cache[key] = make_module(context, template, None)
    return module


def load(context, method, name, importer):
    # env.<method>(name, importer) (get_template and friends), asked once per render for each name: a render
    # sees one version of each template, and a tag in a loop does not pay the environment's cache every time.
    if type(name) is not str:
        return getattr(context.rs.env, method)(name, importer)
    key = (method, name, importer)
    template = context.cache.get(key)
    if template is None:
        template = context.cache[key] = getattr(context.rs.env, method)(name, importer)
    return template


def imported_name(rs, module, name, template_name, line, importer):
    # {% from x import name %}: the module's exported name, or an undefined saying it is not there.
    value = module._exports.get(name, MISSING)
    if value is MISSING:
        where = f"imported on line {line}" + (f" in {importer!r}" if importer is not None else "")
        return rs.undefined(f"the template {template_name!r} ({where}) does not export the requested name "
                            f"{name!r}", name=name)
    return value

