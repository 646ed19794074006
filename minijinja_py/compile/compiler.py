"""Compiler: AST (nodes.py) → Python closures, once per template. No Python source is generated: each node becomes
a closure over the closures of its children (the glossary of the interpreter's names is in context.py)."""

# Statements become `run(f, out)` (statements.py, loops.py, conditionals.py, composition.py), expressions `ev(f)`
# (expressions.py, calls.py). Node classes are dispatched through the explicit tables STATEMENTS and EXPRESSIONS (a
# test checks that every node class has its entry). Variables are slots of a frame, resolved here with symbols.py:
# every scope is analysed when the compiler reaches it, with its parent complete, as Jinja2 does. The whole compile
# is linear in the template's size: each node is compiled once, and the analyses answer in one pass
# (symbols.Summaries). What Jinja2 does outside its language proper (finalize, newline_sequence, its constant
# folder's negative powers and slices, output checks around a conditional extends) is rewritten in the AST first
# (transforms.py), only for the templates that need it; the compile side of the folding (the closures
# of its nodes, the evaluator it computes constant values with while the template compiles) is here.

import re
from functools import partial
from operator import itemgetter

from ..analysis.folderrors import (
    INT_DIGITS, LONG_LITERAL, FoldError, checked_names, fold_errors, has_checked_names,
)
from ..analysis.symbols import Function, Summaries
from ..analysis.transforms import (
    FINALIZE, FoldedSlice, NoParentYet, NotConstant, check_outputs, finalize_outputs, fold_like_jinja2,
    fold_string_filters, folds_string_filters, has_conditional_extends, may_fold, with_newline_sequence,
)
from ..analysis.treescan import Effects
from .context import CompileContext, place
from .expressions import EXPRESSIONS as GENERAL_EXPRESSIONS, e_slice
from .composition import (
    compile_blocks, function_layout, s_block, s_call_block, s_generation, s_load, s_macro, template_blocks,
)
from .loops import compile_for
from .lower import block
from .statements import STATEMENT_COMPILERS, charging, compile_body, in_scope, nothing
from ..kernels import select
from ..builtins.filters import FILTERS
from ..builtins.tests import TESTS
from ..core.budget import charge_result
from ..core.errors import MAX_POSITION, located
from ..core.state import RenderState, enter_render, gc_paused, leave_render
from ..runtime.composition import context_at
from ..runtime.printing import to_str
from ..runtime.sandbox import getitem_
from ..syntax import nodes as n

__all__ = ["compile_template", "CompiledTemplate", "STATEMENTS", "EXPRESSIONS"]


# ------------------------------------------------------------------------------------------- constant folding
# The steps all the constant expressions of one template may take to evaluate while it compiles (what runs past
# it is left to the render, which is what Jinja2 does with an expression its folder fails on)
_FOLDING_FUEL = 20_000


# What evaluating an expression Jinja2's folder cannot evaluate raises (the folder then gives up on it, as on any
# error): a built-in nothing an evaluation runs catches by name, rather than a class of its own (~0.07 M instructions
# of a cold start's import).
_NotConstantError = NotImplementedError


def e_not_constant(c, node):
    def ev(f):
        raise _NotConstantError
    return ev


def e_folded_slice(c, node):
    # obj[a:b] through the sandbox's item lookup: an undefined where the subscript fails.
    obj_ev, key_ev = c.expr(node.obj), e_slice(c, node.key)
    span = node.span

    def ev(f, key_ev=key_ev, obj_ev=obj_ev, span=span):
        obj, key = obj_ev(f), key_ev(f)
        try:
            return charge_result(f[0], getitem_(obj, key, f[0]))
        except Exception as exc:
            raise located(exc, span)
    return ev


def e_fold_error(c, node):
    # where Jinja2's constant folder fails while compiling: so does the compile
    raise located(node.error, node.span)


FOLDING_EXPRESSIONS = {NotConstant: e_not_constant, FoldedSlice: e_folded_slice, FoldError: e_fold_error}
# a long int literal, decimal or not (a hex, octal or binary one int() reads, for Jinja2's code generator to fail
# on writing it in decimal; one pattern that starts with a class of characters: searched faster), and the sources
# it can be in (a hex digit makes 1.2 decimal digits). Searched only in a source long enough to hold one, and
# which has a run of the pattern's characters as long as a long literal (most have none: then no regexp is
# compiled, the first of a cold process costing 120-170 us).
_long_literal = None
_SHORTEST_LONG_INT_SOURCE = int(INT_DIGITS / 1.21)
_LITERAL_CHARACTERS = "0123456789abcdefABCDEF_xXoObB"   # the pattern's class
_LITERAL_CHARACTER = frozenset(_LITERAL_CHARACTERS)


def _has_long_literal(source):
    global _long_literal
    if not _has_literal_run(source):
        return False
    if _long_literal is None:
        _long_literal = re.compile(r"\d[\da-fA-F_xXoObB]{%d}" % (LONG_LITERAL - 1))
    return _long_literal.search(source) is not None


def _has_literal_run(source, length=LONG_LITERAL):
    # Might source have a run of `length` characters of the pattern's class? Such a run holds a position that is
    # a multiple of length: only the runs through those are measured (by strip, in C; not a split of the whole
    # source into words, which made a string per word). The class's \d is any Unicode digit: a source that is
    # not ASCII is asked for a run without whitespace.
    if not source.isascii():
        return len(max(source.split(), key=len, default="")) >= length
    for k, character in enumerate(source[::length]):
        if character in _LITERAL_CHARACTER:
            at = k * length
            ahead, behind = source[at:at + length], source[max(0, at - length + 1):at]
            if len(ahead) - len(ahead.lstrip(_LITERAL_CHARACTERS)) + \
                    len(behind) - len(behind.rstrip(_LITERAL_CHARACTERS)) >= length:
                return True
    return False


def fold_constants(c, template, powers_and_slices, odd_keys, long_literals, names):
    # transforms.fold_like_jinja2 with this compile's evaluator, and folderrors.fold_errors where Jinja2's folder
    # may fail: on a dict literal with an odd key (odd_keys), or on an int too long for str(), made by ** or from
    # long literals; or where it may fold away names the compile checks (names).
    env = c.env
    rs = RenderState(env, {}, {}, c.autoescape, fuel=_FOLDING_FUEL)

    def evaluate(node, printed, c=c, env=env, rs=rs):
        if rs.fuel <= 0 or printed and env.finalize is not None:
            raise _NotConstantError   # (a finalize function is not folded into {{ }} here)
        ev = c.expr(node)
        token = enter_render(rs)
        try:
            value = ev([rs, None])
            return to_str(value, rs) if printed else value
        finally:
            leave_render(token)
    def errors(tree, value, powers):
        long_ints = powers or long_literals
        unchecked = checked_names(env.filters, env.tests) if names else None
        return fold_errors(tree, value, long_ints, unchecked) if odd_keys or long_ints or names else {}
    return fold_like_jinja2(template, evaluate, env.filters, env.tests, FILTERS, TESTS, powers_and_slices, errors)


# ------------------------------------------------------------------------------------------------- the tables
def e_no_parent_yet(c, node):
    depth = c.context_depth()
    return lambda f: context_at(f, depth).extends is None


EXPRESSIONS = {**GENERAL_EXPRESSIONS, **FOLDING_EXPRESSIONS, NoParentYet: e_no_parent_yet}
STATEMENTS = {
    **STATEMENT_COMPILERS, n.For: compile_for, n.Macro: s_macro, n.CallBlock: s_call_block,
    n.Generation: s_generation, n.Block: s_block, n.Load: s_load,
}


def _dispatchers(c):
    # (expr(node), stmt(node)): compile a node by the tables, its span first replaced by its packed location
    # (context.place): the closures made for it keep that (the tree is dropped when the compile ends). A load tag
    # keeps its Span: it reads the source around it. (Called for every node compiled: the check is in line.)
    expressions, statements = EXPRESSIONS, STATEMENTS

    def expr(node, c=c, expressions=expressions):
        span = node.span
        if span.__class__ is not int:
            # context.place in line (a call per node compiled): the packed location, or the Span past 20 bits
            line, col, _, _, end_line, end_col = span
            if col <= MAX_POSITION and end_line <= MAX_POSITION and end_col <= MAX_POSITION:
                # line << 60 | col << 40 | end_line << 20 | end_col, with fewer operations on multi-digit ints
                node.span = (line << 20 | col) << 40 | (end_line << 20 | end_col)
        return expressions[type(node)](c, node)

    def stmt(node, c=c, statements=statements):
        if node.span.__class__ is not int and type(node) is not n.Load:
            node.span = place(node.span)
        return statements[type(node)](c, node)
    return expr, stmt


class CompiledTemplate:
    # What a template compiles to: its root run(f, out), the same as `steps` (one run per top-level statement,
    # for Template.generate: made from chunks, the (run, weight) of each, when first asked for; most templates
    # are only rendered), the layout of its root frame, the slot of `self` (None
    # when the template does not use it), its {% block %} functions by name, its top-level variables
    # {name: slot} (Jinja2's exported context variables), whether a render needs a template context
    # (composition.py: blocks, `self`, load tags) and the names its functions resolve from the render's
    # variables and the globals, in the order first met (meta.find_undeclared_variables).

    __slots__ = ("run", "chunks", "_steps", "layout", "self_slot", "blocks", "exports", "needs_context", "resolved")

    def __init__(self, run, chunks, layout, self_slot, blocks, exports, needs_context, resolved):
        self.run, self.chunks, self._steps, self.layout, self.self_slot = run, chunks, None, layout, self_slot
        self.blocks, self.exports, self.needs_context, self.resolved = blocks, exports, needs_context, resolved

    @property
    def steps(self):
        # One run(f, out) per chunk, each charging its own weight. (Two threads asking at once make equal tuples.)
        if self._steps is None:
            self._steps = tuple(charging(run, weight) for run, weight in self.chunks)
        return self._steps


def prepare(c, template):
    # The AST rewrites this template needs (transforms.py).
    env, source, index = c.env, c.origin[2], c.summaries.index
    # (Jinja2's folder changes only powers and slices here: no slice in the tree, no power in the source, nothing;
    # it fails only on a dict literal with an odd key, or on an int too long for str(): see fold_constants)
    powers_and_slices = source is None or "**" in source or (index is None or index.slices) and may_fold(source)
    odd_keys = index is None or index.odd_keys
    long_literals = source is None or \
        len(source) > _SHORTEST_LONG_INT_SOURCE and _has_long_literal(source)
    names = index is None or has_checked_names(index.runners, env.filters, env.tests)
    if powers_and_slices or odd_keys or long_literals or names:
        template = fold_constants(c, template, powers_and_slices, odd_keys, long_literals, names)
    if env.finalize is not None:
        template = finalize_outputs(template)
    if env.newline_sequence != "\n" and source is not None:
        template = with_newline_sequence(template, source, env.newline_sequence)
    if index is None or folds_string_filters(index.runners):
        template = fold_string_filters(template, env.filters, env.limits)
    if c.summaries.in_source("extends") and has_conditional_extends(template):   # (no walk where none is spelt)
        template = check_outputs(template)
    return template


def compile_template(template, env, autoescape, origin=(None, None, None)):
    # nodes.Template → CompiledTemplate. origin is the template's (name, filename, normalised source). Raises
    # TemplateSyntaxError (TemplateAssertionError...) or LimitExceeded for a template that cannot compile.
    with gc_paused():
        c = CompileContext(env, autoescape, Summaries(origin[2]), origin)
        try:
            return _compile(c, template)
        finally:
            # the context and its helpers refer to each other: unlinked, the compile's garbage is freed at once
            # instead of waiting for the cyclic collector (which then walks every object the compile made)
            c.expr = c.stmt = c.block = None
            c.functions.clear()   # each function lists the others
            c.effects = None


def _compile(c, template):
    env = c.env
    c.summaries.scan(template, env.limits.max_nesting)   # refuses a template nested too deep
    c.expr = lambda node: EXPRESSIONS[type(node)](c, node)
    prepared = prepare(c, template)
    if prepared is not template:
        c.summaries.scan(prepared)
    template = prepared
    if env.finalize is not None:
        c.filters = {**c.filters, FINALIZE: env.finalize}
    c.general_only = select.general_only()
    c.effects = Effects(template, c.filters, c.tests, env.globals, c.summaries.in_source("macro"), c.summaries.index)
    c.expr, c.stmt = _dispatchers(c)
    c.block = partial(block, c)
    blocks = template_blocks(c)
    root_self = "self" in c.summaries.reads(template.body, ("self",))
    c.uses_self = root_self
    function = Function(None, family=c.functions)
    with in_scope(c, template.body, ("self",) if root_self else (), function, None) as scope:
        run, chunks = _compile_steps(c, template.body)
        layout = function_layout(c, function, scope)
    compile_blocks(c, blocks)
    if c.late_errors:
        raise next((error for symbol_pass, error in c.late_errors if symbol_pass), c.late_errors[0][1])
    exports = {name: scope.refs[name] for name in scope.stores}
    resolved = {}   # (the names in the order first met: a loop, not a generator, which a first compile pays for)
    for f in c.functions:
        resolved.update(f.resolve_slots)
    return CompiledTemplate(run, chunks, layout, scope.refs["self"] if root_self else None,
                            dict(c.blocks), exports, c.needs_context or c.uses_self, tuple(resolved))


def _chunks(body):
    # The top-level statements in chunks (Template.generate yields after each): a tag alone, consecutive texts
    # and {{ }} together (compiled as one print run: a template of many top-level prints compiles in one pass).
    chunks = []
    for node in body:
        if isinstance(node, (n.Text, n.Output)) and chunks and isinstance(chunks[-1][-1], (n.Text, n.Output)):
            chunks[-1].append(node)
        else:
            chunks.append([node])
    return chunks


def _compile_steps(c, body):
    # The root → (run(f, out), chunks): one uncharged run per chunk, run together under one charge of their
    # weight by run, and (run, weight) of each (CompiledTemplate.steps); nothing after a second extends but its
    # blocks (as Jinja2).
    chunks = _chunks(body)   # kept alive while compiling: the summaries remember statement lists by id
    runs = []
    for chunk in chunks:
        extended_before = c.known_extends
        run, weight = compile_body(c, chunk)
        if run is not nothing or weight:
            runs.append((run, weight))
        if extended_before and isinstance(chunk[0], n.Load) and chunk[0].kind == "extends":
            break
    return charging(_run_all(tuple(map(itemgetter(0), runs))), sum(map(itemgetter(1), runs))), tuple(runs)


def _run_all(runs):
    # One run(f, out) running runs in turn.
    if not runs:
        return nothing
    if len(runs) == 1:
        return runs[0]
    if len(runs) == 2:
        a, b = runs

        def run2(f, out, a=a, b=b):
            a(f, out)
            b(f, out)
        return run2

    def run(f, out, runs=runs):
        for r in runs:
            r(f, out)
    return run
