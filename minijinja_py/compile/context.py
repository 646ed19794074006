"""The state of one compile: the environment it compiles for, where the compiler is (the current scope, the
flags of the constructs around it), and the dispatch to the node compilers (filled in by compiler.py, so the
expression and statement modules below it can compile their children without importing it); and its operands:
where a general closure reads a child's value in line, decided at compile time — a variable of the frame (its
slot), a chain of constant keys from one (a plain dict's items, as the general lookup reads them), a loop variable
indexing a list — and which constants compare in constant time; the child's own closure reads anything else; and
which expressions Jinja2's optimizer folds to a constant."""

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
#            of one: (slot, key, ev) (operand, below)

from operator import itemgetter

from ..analysis.symbols import PARAM
from ..analysis.transforms import CONTEXT_FILTERS
from ..builtins.tests import test_false, test_true
from ..core.errors import MAX_POSITION
from ..core.state import MISSING
from ..runtime.sandbox import DICT_ATTRS, DICT_MUTATORS
from ..syntax import nodes as n

# A compiled closure takes what it captures as default parameters (`def ev(f, slot=slot, key=key):`), not as cells
# of the function that makes it: a template keeps a few hundred closures, and cells made them about twice the
# objects (memory, allocation, deallocation, the collector's passes), and were made on every call of their maker
# whether or not the closure needing them was; a default is also read faster (a local). Callers never pass more
# arguments than the closure's own (f; f, out).

__all__ = ["CompileContext", "place", "DICT_NAMES", "operand", "in_line_place", "cheap_constant", "local_slot",
           "key_path", "read_path", "path_reader", "two_keys_reader", "dict_key", "constant_index",
           "constant_literal", "constant_key", "folded_by_jinja2", "type_answers"]


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

    def soft_frame(self):
        # flags(soft=True), the frame of an if's branches (entered for every if: its changes made once).
        return _Flags(self, _SOFT)

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


_SOFT = {"soft": True, "rootlevel": False}   # (read only: _Flags never changes its changes)


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


# --------------------------------------------------------------------------------------------------- operands

def cheap_constant(value):
    # Is comparing with value constant time (a short string, a small number, None, a bool)?
    cls = type(value)
    if cls is str:
        return len(value) < 1024
    if cls is int:
        return -0xFFFFFFFFFFFFFFFF <= value <= 0xFFFFFFFFFFFFFFFF
    return cls is float or cls is bool or value is None


def type_answers(func, negated):
    # {plain class: what the type test func (one of builtins.tests.TYPE_TESTS; negated: `is not`) answers for a value
    # of that class}: such a test looks at the class alone (`is true` and `is false`, which look at the value: none),
    # so a closure that reads a plain value in line answers it without calling the test. Made once per test, the
    # first time a template uses it (_TYPE_ANSWERS: empty at import).
    answers = _TYPE_ANSWERS.get((func, negated))
    if answers is None:
        answers = {} if func is test_true or func is test_false else \
            {type(sample): bool(func(sample)) is not negated for sample in ("", 0, 0.5, False, None, [], (), {})}
        _TYPE_ANSWERS[(func, negated)] = answers
    return answers


_TYPE_ANSWERS = {}   # (test, negated) -> type_answers'


# a dict's methods: d['items'] of a plain dict without that key is the method, not undefined
DICT_NAMES = DICT_ATTRS | DICT_MUTATORS
_GETATTR, _GETITEM, _CONST, _NAME = n.Getattr, n.Getitem, n.Const, n.Name


def operand(c, node):
    # (slot, key, ev) of an expression a parent closure evaluates: ev its closure; slot the variable of this frame
    # it is (key None) or whose constant key it reads (`message['content']`, `m.role`: see dict_key), for a parent
    # that reads it in line (`f[slot]`, not MISSING; or the key of a plain dict that has it) and calls ev for
    # anything else; slot None where it is neither.
    ev = c.expr(node)
    if node.__class__ is _GETATTR or node.__class__ is _GETITEM:
        key = dict_key(node)
        slot = local_slot(c, node.obj) if key is not None else None
        return (slot, key, ev) if slot is not None else (None, None, ev)
    return local_slot(c, node) if node.__class__ is _NAME else None, None, ev   # (no call for what is no name)


def in_line_place(c, node):
    # operand's (slot, key) for node without compiling it ((None, None) when it is not one).
    if node.__class__ is _GETATTR or node.__class__ is _GETITEM:
        key = dict_key(node)
        slot = local_slot(c, node.obj) if key is not None else None
        return (slot, key) if slot is not None else (None, None)
    return local_slot(c, node) if node.__class__ is _NAME else None, None


def local_slot(c, node):
    # The slot of node when it is a variable of this frame (read in line by the closure that consumes it: the
    # slot holds its value, or MISSING when it is undefined), else None.
    if node.__class__ is _NAME:
        refs = c.scope.refs
        if node.name in refs:   # a variable of the current scope (most reads): of this frame
            return refs[node.name]
        found = c.scope.find_variable(node.name) or c.variable(node.name)   # (context.where, in line: per operand)
        if found[0] == 0:
            return found[1]
    return None


def key_path(c, node, indexes=False):
    # (slot, keys) when node is a variable of this frame (keys empty) or a chain of constant keys read from one
    # (`tool_call.function.name`: keys ('function', 'name'); see dict_key), for a consumer that reads it in line
    # while every step is a plain dict with the key; else None. With indexes, a step may also be a loop variable
    # indexing a list (`messages[idx]['content']`): that step is the variable's slot, an int.
    keys = []
    while node.__class__ is _GETATTR or node.__class__ is _GETITEM:
        key = dict_key(node)
        if key is None and indexes and isinstance(node, n.Getitem) and isinstance(node.key, n.Name):
            depth, slot, kind = c.variable(node.key.name)
            key = slot if depth == 0 and kind == PARAM else None
        if key is None:
            return None
        keys.append(key)
        node = node.obj
    slot = local_slot(c, node) if node.__class__ is _NAME else None
    return None if slot is None else (slot, tuple(reversed(keys)))


def constant_reader(value):
    # The closure of a constant: value itself every time.
    return lambda f, value=value: value


def path_reader(place, fallback):
    # f -> the value of place, a key_path (with indexes) or None, for a consumer that reads its operands through
    # one call each: the common shapes read in line while every step is a plain dict with the key or a plain list
    # with the index in range, fallback(f) (the operand's general closure) otherwise or when place is None.
    if place is None or not place[1]:
        return fallback   # a variable's own closure reads its slot (or is not a place)
    slot, keys = place
    if len(keys) == 1:
        key, = keys
        if type(key) is int:
            def read_item(f, fallback=fallback, key=key, slot=slot):   # messages[i], i a loop variable
                items, index = f[slot], f[key]
                if type(items) is list and type(index) is int:
                    try:
                        return items[index]
                    except IndexError:   # out of range: the general path's undefined
                        pass
                return fallback(f)
            return read_item

        def read_key(f, fallback=fallback, key=key, slot=slot):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                return obj[key]
            return fallback(f)
        return read_key
    if len(keys) == 2 and type(keys[0]) is int and type(keys[1]) is str:
        index_slot, key = keys

        def read_item_key(f, fallback=fallback, index_slot=index_slot, key=key, slot=slot):
            # messages[i]['content'], i a loop variable
            items, index = f[slot], f[index_slot]
            if type(items) is list and type(index) is int:
                try:
                    item = items[index]
                except IndexError:   # out of range: the general path's undefined
                    return fallback(f)
                if type(item) is dict and key in item:
                    return item[key]
            return fallback(f)
        return read_item_key
    if len(keys) == 2 and type(keys[0]) is str and type(keys[1]) is str:
        return two_keys_reader(itemgetter(slot), *keys, fallback)
    if not any(type(key) is int for key in keys):
        def read_keys(f, fallback=fallback, keys=keys, slot=slot):
            value = read_path(f, slot, keys)
            return value if value is not MISSING else fallback(f)
        return read_keys
    return fallback


def two_keys_reader(root, first, second, fallback):
    # f -> root(f)[first][second] (`tool_call['function']['name']`) while each step is a plain dict with the key,
    # fallback(f) (the read's general closure) otherwise. (second may be any key a plain dict holds.)
    def read_two_keys(f, fallback=fallback, first=first, root=root, second=second):
        obj = root(f)
        if type(obj) is dict and first in obj:
            obj = obj[first]
            if type(obj) is dict and second in obj:
                return obj[second]
        return fallback(f)
    return read_two_keys


def read_path(f, slot, keys):
    # What a key_path (without indexes) reads: the slot's value walked through its keys while each step is a
    # plain dict that has the key; MISSING where one is not (the consumer then takes its general path).
    value = f[slot]
    for key in keys:
        if type(value) is not dict or key not in value:
            return MISSING
        value = value[key]
    return value


def dict_key(node):
    # The key a Getattr/Getitem reads from a plain dict the way its general lookup would (a plain attribute
    # name, not a dict method; a constant string item), or None. A `_` name never: the sandbox refuses a dict's
    # `_` key (and the read is undefined where the dict lacks it).
    # (exact classes compared: a call per key read compiled, and no node class is subclassed)
    cls = node.__class__
    if cls is _GETATTR:
        key = node.attr
        if key in DICT_NAMES:
            return None
    elif cls is _GETITEM and node.key.__class__ is _CONST and node.key.value.__class__ is str:
        key = node.key.value
    else:
        return None
    return None if key[:1] == "_" else key


def constant_index(node):
    # The int a Getitem's key is when it is a constant one — `x[0]`, or `x[-1]`, which Jinja2's optimizer folds to
    # a constant — else None (a bool is no index here: the general lookup takes it).
    if node.__class__ is n.UnaryOp and node.op == "-":
        value = constant_index(node.operand)
        return None if value is None else -value
    return node.value if node.__class__ is _CONST and node.value.__class__ is int else None


def constant_literal(c, node):
    # The value of a literal that is an immutable constant — a Const, or a tuple literal of them — else MISSING.
    # Equal tuples of one template are one object, as Jinja2's are (Python's compiler merges equal constants):
    # `('a',) is sameas ('a',)` holds.
    if isinstance(node, n.Const):
        return node.value
    if not isinstance(node, n.TupleExpr):
        return MISSING
    return _constant_tuple(c, node)


def _constant_tuple(c, node):
    # (apart from constant_literal: its generator would make a cell for c on every call of constant_literal)
    values = tuple(constant_literal(c, x) for x in node.items)
    if MISSING in values:
        return MISSING
    return c.constants.setdefault(constant_key(values), values)


def constant_key(value):
    # A key for value that tells apart what == does not: 1, 1.0 and True; 0.0 and -0.0.
    if type(value) is tuple:
        return tuple, tuple(map(constant_key, value))
    return type(value), repr(value) if type(value) is float else value



def folded_by_jinja2(c, node):
    # Would Jinja2's optimizer fold this expression to a constant at compile time (when what it computes succeeds)?
    def folded(x, c=c):
        return folded_by_jinja2(c, x)
    if node is None or isinstance(node, n.Const):
        return True
    if isinstance(node, (n.TupleExpr, n.ListExpr, n.Concat)):
        return all(map(folded, node.items))
    if isinstance(node, n.DictExpr):
        return all(folded(k) and folded(v) for k, v in node.pairs)
    if isinstance(node, (n.BinOp, n.And, n.Or)):
        return folded(node.left) and folded(node.right)
    if isinstance(node, (n.UnaryOp, n.Not)):
        return folded(node.operand)
    if isinstance(node, n.Compare):
        return folded(node.first) and all(folded(x) for _, x in node.ops)
    if isinstance(node, n.CondExpr):
        return node.else_ is not None and folded(node.test) and folded(node.then) and folded(node.else_)
    if isinstance(node, n.Getattr):
        return folded(node.obj)
    if isinstance(node, n.Getitem):
        return folded(node.obj) and folded(node.key)
    if isinstance(node, n.Slice):
        return folded(node.start) and folded(node.stop) and folded(node.step)
    if isinstance(node, (n.Filter, n.Test)):
        known = c.filters if isinstance(node, n.Filter) else c.tests
        args = node.args
        return (node.name in known and node.name not in CONTEXT_FILTERS and node.value is not None
                and folded(node.value) and all(map(folded, args.positional))
                and all(folded(v) for _, v in args.keywords) and folded(args.star) and folded(args.dstar))
    return False
