"""The state of one compile: the environment it compiles for, where the compiler is (the current scope, the
flags of the constructs around it), and the dispatch to the node compilers (filled in by compiler.py, so the
expression and statement modules below it can compile their children without importing it)."""

# Glossary of the interpreter's names, used throughout compiler.py, loops.py, expressions.py and calls.py:
#
#   c        this CompileContext
#   f        a frame: the list of slots one template function runs with (symbols.py): f[0] the render state,
#            f[1] the parent frame, f[2:] the variables
#   rs       the render state (state.RenderState): limits, fuel, output size, call depth, undefined class
#   out      the list a statement appends its output to (joined once, at the end of a render, macro or capture)
#   ev(f)    a compiled expression: returns its value
#   run(f, out)  a compiled statement or statement list: appends its output
#   span     a node's location (nodes.Span; what a compiled closure keeps of it: an int, see place); errors are
#            located at the innermost span (errors.located)
#   weight   the steps a statement list costs to run (symbols.own_weight), charged when it runs
#   output   every piece appended to an output list is counted against max_output once, before any join: by the
#            statement that appends it, or, inside a loop body, by the outermost loop of that list when it ends
#            (one sum over the pieces the loop appended: per-piece counting would cost more than the printing)
#   operand  an expression a parent closure reads in line where it is a variable of this frame or a constant key
#            of one: (slot, key, ev) (operands.operand)

from ..core.errors import MAX_POSITION

# A compiled closure takes what it captures as default parameters (`def ev(f, slot=slot, key=key):`), not as cells
# of the function that makes it: a template keeps a few hundred closures, and cells made them about twice the
# objects (memory, allocation, deallocation, the collector's passes), and were made on every call of their maker
# whether or not the closure needing them was; a default is also read faster (a local). Callers never pass more
# arguments than the closure's own (f; f, out).

__all__ = ["CompileContext", "place"]


def place(span):
    # What a compiled closure keeps of a node's Span: its location as a located error reports it — line, col,
    # end_line, end_col — packed in one plain int (core/errors.location unpacks it): a Span of six ints is about
    # four times the size, a template keeps hundreds, and a plain int is neither made through a class call nor
    # tracked by the cyclic collector. An int is returned as it is; a position past what 20 bits hold stays a
    # Span. (compiler._dispatchers packs expressions' spans in line, the same way: a change here changes it.)
    if span.__class__ is int:
        return span
    line, col, _, _, end_line, end_col = span
    # (not max(): a call per node compiled)
    if col > MAX_POSITION or end_line > MAX_POSITION or end_col > MAX_POSITION:
        return span
    # line << 60 | col << 40 | end_line << 20 | end_col, with fewer operations on multi-digit ints
    return (line << 20 | col) << 40 | (end_line << 20 | end_col)


class CompileContext:
    # Everything the node compilers share during one compile_template().

    def __init__(self, env, autoescape, summaries, origin=(None, None, None)):
        self.env = env
        # (name, filename, normalised source) of the template: errors located in it carry them, the load tags
        # read their modifiers in the source and pass the name to the loader as the parent of what they load
        self.origin = origin
        self.template_name = origin[0]
        self.limits = env.limits
        self.filters = env.filters
        self.tests = env.tests
        self.undefined_class = env.undefined
        self.autoescape = autoescape
        self.summaries = summaries
        self.general_only = False    # kernels/select.py: the general closures only, no fast path chosen
        self.effects = None          # analysis.treescan.Effects of the template: what running a part may change
        self.scope = None            # the symbols.Scope being compiled
        self.soft = False            # inside an if-branch: unknown filters/tests fail at run time, not now
        self.in_loop = False         # break/continue allowed here
        self.counted_by_loop = False # output here is counted by the enclosing loop when it ends (not per piece)
        self.blocks = {}             # {% block %} name → its compiled body (rs, out) → None
        self.uses_self = False       # the template or one of its blocks reads `self`
        self.needs_context = False   # a block, `self` or a load tag: the render needs a composition.TemplateContext
        self.functions = []          # the symbols.Function of the template and of its blocks, and theirs
        self.constants = {}          # expressions.constant_literal's tuples, one object per value (as Python's)
        self.shared = {}             # closures that depend on their key only (a constant's, a variable read's)
        self.load_modifiers = {}     # id of a load tag's node → its modifiers as written (composition.tag_modifiers)
        self.effects = None          # analysis.treescan.Effects of the template: what running a part may change
        # Jinja2's frame kinds, for {% extends %}: it may only stand at the top level (the template body or an
        # if-branch in it); one directly in the body is a "known" extends, after which Jinja2 compiles no
        # output of the template (text, {{ }}) outside macros, call and set blocks and {% block %} bodies
        self.toplevel = True
        self.rootlevel = True
        self.output_check = True
        self.known_extends = False
        # what Python's compiler would refuse in the code Jinja2 generates (a keyword given twice, a macro's
        # duplicate parameter, break outside a loop): Jinja2 raises it after generating all the code, so after
        # any TemplateAssertionError, and only for code it generates; first those of its symbol table pass, then
        # the rest, each pass in the order Python compiles the generated code (the root function's, then the
        # blocks'): late_errors holds (found by the symbol table pass, error) in that order, raised by compiler.py
        self.late_errors = []
        # set by compiler.py: compile one expression / statement node
        self.expr = None
        self.stmt = None

    def flags(self, **changes):
        # Set compile-time flags around a nested construct (`with c.flags(...):`). `soft` also says what frame
        # it opens: an if-branch (soft=True) leaves the template's root level, anything else its top level too.
        if "soft" in changes:
            changes["rootlevel"] = False
            if not changes["soft"]:
                changes["toplevel"] = False
        return _Flags(self, changes)

    def python_refuses(self, error, symbol_pass=False, at=None):
        # Note an error Python's compiler finds in the code Jinja2 generates here (see late_errors); at: its place
        # among those noted so far, where Python meets it before code compiled here earlier (default: the end).
        self.late_errors.insert(len(self.late_errors) if at is None else at, (symbol_pass, error))

    def where(self, name):
        # (depth, slot) of the variable `name` at this point of the template (the analysis has seen every
        # name the compiler asks for).
        found = self.scope.find_variable(name) or self.variable(name)   # (variable's lookup first, in line)
        return found[0], found[1]

    def context_depth(self):
        # How many frames up from the current scope's frame the outermost frame of its function chain is (the
        # template's root or a block), whose parent slot holds the template context (composition.py).
        depth, scope = 0, self.scope
        while scope.parent is not None:
            if scope.parent.function is not scope.function:
                depth += 1
            scope = scope.parent
        return depth

    def visible_stores(self):
        # {name: (depth, slot)} of every variable assigned in the current scope and the scopes around it, the
        # innermost first: what Jinja2 passes as the locals of a scoped block, an include or an import with
        # context.
        visible = {}
        depth, scope = 0, self.scope
        while scope is not None:
            for name in scope.stores:
                if name not in visible:
                    visible[name] = (depth, scope.refs[name])
            parent = scope.parent
            if parent is not None and parent.function is not scope.function:
                depth += 1
            scope = parent
        return visible

    def variable(self, name):
        # (depth, slot, how it starts: symbols.PARAM, RESOLVE, ALIAS or UNDEFINED) of the variable `name`. A
        # parameter always holds a value; any other slot may hold state.MISSING (not assigned yet, or not found when
        # resolved), which a read turns into an undefined, a new one each time, as in Jinja2.
        found = self.scope.find_variable(name)
        if found is None:
            self.scope.load(name)
            found = self.scope.find_variable(name)
        return found


class _Flags:
    # CompileContext.flags: the changes made on entry, the saved values put back on exit (a class rather than a
    # generator-based context manager: the compiler enters thousands per template).

    __slots__ = ("context", "changes", "saved")

    def __init__(self, context, changes):
        self.context, self.changes = context, changes

    def __enter__(self):
        values = self.context.__dict__   # (the flags are plain attributes: set and put back as one dict update)
        saved = self.saved = {}
        for name in self.changes:   # (a loop, not a comprehension: that would make a cell per flags() entered)
            saved[name] = values[name]
        values.update(self.changes)

    def __exit__(self, *exc_info):
        self.context.__dict__.update(self.saved)
