"""The tags that load other templates → run(f, out): {% include %}, {% import %}, {% from ... import %} and
{% extends %}, checked as Jinja2 checks them when the template compiles."""

# When they run they ask the environment's loader, as Jinja2 does (Environment.get_template and friends), so with
# no loader — a template is a string, as in transformers — they fail with Jinja2's "no loader for this
# environment specified" TypeError, after evaluating the name. With one, composition.py does the rest.
#
# The AST does not record `ignore missing` and `with context` / `without context` (the parser drops them), so they
# are read back from the tag's source, after the name expression up to the end of the tag (the block end, or the
# end of the line for a line statement): what can be there is keywords, names and commas only.

import re

from ..core.errors import TemplateAssertionError, TemplateNotFound, TemplateRuntimeError, error_at, located
from ..runtime.composition import (
    context_at, default_module, extend, imported_name, include, load, make_module, variables_reader,
)
from ..runtime.objects import join_output
from ..syntax import nodes as n
from ..syntax.delimiters import DEFAULT, line_statement_at

__all__ = ["s_load", "tag_modifiers"]

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
            if rs.generation_spans is not None and (out is yielded or type(yielded) is _Yielded
                                                    and out is yielded.pieces):
                # Jinja2 yields an included template's pieces as they come: a {% generation %} span in it starts
                # after them (transformers counts what the render has yielded)
                rs.generation_output = _Yielded(yielded, inner)
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


class _Yielded:
    # The output yielded so far while an include renders where the render yields: what was yielded before it,
    # then the included template's pieces (as a list of pieces to s_generation: len() and iteration).

    __slots__ = ("before", "pieces")

    def __init__(self, before, pieces):
        self.before, self.pieces = before, pieces

    def __len__(self):
        return len(self.before) + len(self.pieces)

    def __iter__(self):
        yield from self.before
        yield from self.pieces


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
