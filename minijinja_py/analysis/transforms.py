"""Transforms: rewrites of a template's AST (nodes.py → nodes.py) the compiler makes before compiling, for what
Jinja2 does in its lexer, constant folder or code generator rather than in the language itself:"""

#   finalize          Environment(finalize=fn): every {{ }} value goes through fn before it is printed;
#   newline_sequence  template text (and the newlines written inside string literals) use "\r\n" or "\r";
#   output checks     a template with {% extends %} inside an {% if %} writes its text and {{ }} only while no
#                     extends has run (Jinja2's `if parent_template is None` around each output);
#   constant folding  where Jinja2's folder gives a result that differs from evaluating the expression when it
#                     runs (below).
#
# Each applies only when the template needs it (the compiler asks), so a plain template pays nothing. The tree has
# passed symbols.check_nesting, so the recursion here is bounded by max_nesting.
#
# Constant folding. Jinja2's optimizer evaluates, while compiling, each expression whose operands are constants (its
# `as_const`: literals, operators, attribute and item reads, conditional expressions, filters and tests that are not
# given the render context) and writes the value into the Python code it generates when it can spell it there. Two
# things then differ from evaluating the expression when the template runs, and the template sees them:
#
#   negative powers   `c ** x` where c folds to a negative number and x does not fold: the generated code reads
#                     `-2 ** x`, and Python's minus binds looser than `**` there: -(2 ** x). (When x folds too, the
#                     whole power is folded to its value: `-2 ** 2|float` is 4.0.)
#   constant slices   a folded slice goes through the sandbox's item lookup, which gives an undefined where the
#                     subscript fails (`none[:-1]`); a slice evaluated at run time subscripts directly and raises.
#                     The undefined shows where Jinja2 keeps a folded value: an enclosing constant expression whose
#                     value it can write into its code (`none[:-1] is boolean` is False), or the {{ }} that prints it
#                     (`{{ none[1:] }}` prints nothing); anywhere else the slice runs, and fails, with the template.
#
# The values are computed by the engine itself: evaluate(node, printed=False), which the compiler provides, compiles
# an expression and runs it in a render of its own (on a budget shared by the whole template), so a value here is
# the value the template would compute. The expression evaluated is Jinja2's view of a node (_Folder.image): what its
# folder cannot evaluate (a variable, a call, a filter given the render context, a conditional expression without
# an else taking that branch) replaced by NotConstant, which raises; constant slices as FoldedSlice.

import math
import re
from operator import is_not
from types import SimpleNamespace

from ..builtins.strings import do_indent, do_lower, do_trim, do_upper
from ..core.state import context_of
from .treescan import NODE_FIELDS
from ..syntax import nodes as n

__all__ = ["FINALIZE", "NoParentYet", "finalize_outputs", "with_newline_sequence", "fold_string_filters",
           "folds_string_filters", "CONTEXT_FILTERS", "has_conditional_extends", "check_outputs", "NotConstant",
           "FoldedSlice", "fold_like_jinja2", "may_fold", "safe_repr"]

FINALIZE = "\x00finalize"   # the filter name the finalize function is compiled under (no template can spell it)


class NoParentYet(n.Node):
    # An expression: no {% extends %} of the running template has chosen a parent yet.
    __slots__ = ()

    def __init__(self, span):
        self.span = span


def _map(value, change):
    # value with every node rebuilt bottom-up through change(node) → node (unchanged parts kept as they are).
    # (Loops, not comprehensions: those made two cells on every call, and this runs once per node.)
    if isinstance(value, n.Node):
        new = _mapped(value, value.FIELDS, change)
        return change(value if new is None else type(value)(value.span, *new))
    if isinstance(value, n.Args):
        new = _mapped(value, value.FIELDS, change)
        return value if new is None else value.rebuilt(*new)
    if isinstance(value, (tuple, list)):
        new = _mapped(value, None, change)
        if new is not None:
            return type(value)(new)
    return value


def _mapped(value, fields, change):
    # the fields of value (its items when fields is None) mapped by _map, or None when none changed
    items = value
    if fields is not None:
        items = []
        for f in fields:
            items.append(getattr(value, f))
    new, changed = [], False
    for x in items:
        y = _map(x, change)
        new.append(y)
        changed = changed or y is not x
    return new if changed else None


def _body(template, change):
    return n.Template(template.span, _map(template.body, change))


# ------------------------------------------------------------------------------------------------- finalize
def finalize_outputs(template):
    # Every {{ expr }} → {{ expr | <finalize> }}.
    def change(node):
        if type(node) is n.Output:
            return n.Output(node.span, n.Filter(node.expr.span, node.expr, FINALIZE, n.NO_ARGS))
        return node
    return _body(template, change)


# ----------------------------------------------------------------------------------------- newline sequence
def with_newline_sequence(template, source, sequence):
    # Text, and string literals that span lines without escapes in them, with their newlines as sequence.
    def change(node):
        if type(node) is n.Text and "\n" in node.value:
            return n.Text(node.span, node.value.replace("\n", sequence))
        if type(node) is n.Const and type(node.value) is str and "\n" in node.value:
            written = source[node.span.start:node.span.end]
            if "\\" not in written and "\n" in written:
                return n.Const(node.span, node.value.replace("\n", sequence))
        return node
    return _body(template, change)


# ---------------------------------------------------------------------------------------- string filters
# The builtin string filters whose result depends on their arguments alone (and on max_string, which a short
# result cannot reach): Jinja2's constant folder computes them on constants while compiling
_STRING_FILTERS = {"indent": do_indent, "upper": do_upper, "lower": do_lower, "trim": do_trim}
_SHORT_TEXT = 1024


def folds_string_filters(runners):
    # Might fold_string_filters change anything in a template whose tree scan found these runners
    # (treescan.Index.runners: its calls, filters, ...)? Only where one of these filters is applied to a string
    # literal (its walk over the tree is then worth it).
    for x in runners:
        if type(x) is n.Filter and x.name in _STRING_FILTERS and type(x.value) is n.Const and \
                type(x.value.value) is str:
            return True
    return False


def fold_string_filters(template, filters, limits):
    """`'{\n'|indent(4, first=true)`, `'Tools'|upper`: a builtin string filter of a short string literal with
    constant arguments (small numbers, short strings, booleans) → the text it gives, as Jinja2 folds it. Only
    the engine's own filters (a filter the environment replaced runs when the template does), and only short
    results; anything that fails is left to fail where it runs."""
    state = SimpleNamespace(limits=limits)   # what do_indent reads of a render state: the limits

    def plain(arg):
        return type(arg) is n.Const and (type(arg.value) is bool or type(arg.value) is int and -256 <= arg.value <= 256
                                         or type(arg.value) is str and len(arg.value) < 64)

    def change(node):
        if type(node) is not n.Filter or node.name not in _STRING_FILTERS or \
                filters.get(node.name) is not _STRING_FILTERS[node.name]:
            return node
        value, args = node.value, node.args
        if not (type(value) is n.Const and type(value.value) is str and len(value.value) < _SHORT_TEXT) or \
                args.star is not None or args.dstar is not None or not all(map(plain, args.positional)) or \
                not all(plain(x) for _, x in args.keywords):
            return node
        func = filters[node.name]
        positional = [x.value for x in args.positional]
        keywords = {name: x.value for name, x in args.keywords}
        try:
            text = func(state, value.value, *positional, **keywords) if getattr(func, "mj_pass_state", False) \
                else func(value.value, *positional, **keywords)
        except Exception:   # noqa: BLE001 - it fails where it runs, with its location
            return node
        return n.Const(node.span, text) if type(text) is str and len(text) < _SHORT_TEXT else node
    return _body(template, change)


# ------------------------------------------------------------------------------------------- output checks
def has_conditional_extends(template):
    # Is there an {% extends %} inside an {% if %} at the template's top level (where one may stand)?
    return _extends_in(template.body, False)


def _extends_in(body, nested):
    # a module-level function, not a closure: a closure calling itself is a reference cycle, which leaves the
    # compile's garbage to the cyclic collector
    for node in body:
        if type(node) is n.Load and node.kind == "extends" and nested:
            return True
        if type(node) is n.If and any(_extends_in(b, True) for b in _branches(node)):
            return True
    return False


def _branches(node):
    return (node.body, *(body for _, body in node.elifs), node.else_)


# the statements whose bodies Jinja2 checks as well (they inherit the root's output check); macros, call and set
# blocks and blocks do not
_CHECKED_BODIES = (n.If, n.For, n.With, n.FilterBlock, n.Autoescape)


def check_outputs(template):
    # Wraps each text and {{ }} of the root function (and the blocks placed at the top level after the first
    # extends) in `{% if <no parent yet> %}`, up to the first extends placed directly in the template's body:
    # after it the compiler drops them anyway. (Functions sharing a one-item list, extends_seen, rather than a
    # class: a class costs a cold start's import ~0.07 M instructions.)
    return n.Template(template.span, _checked_body(template.body, True, True, [False]))


def _guarded(node):
    return n.If(node.span, NoParentYet(node.span), [node], (), ())


def _checked_body(statements, toplevel, root, extends_seen):
    new = []
    for i, node in enumerate(statements):
        kind = type(node)
        if kind is n.Load and node.kind == "extends":
            extends_seen[0] = True
            if root:
                return new + list(statements[i:])
            new.append(node)
        elif kind is n.Text or kind is n.Output:
            new.append(_guarded(node))
        elif kind is n.Block and toplevel and extends_seen[0]:
            new.append(_guarded(node))
        elif kind in _CHECKED_BODIES:
            new.append(_checked_statement(node, toplevel and kind is n.If, extends_seen))
        else:
            new.append(node)
    return new


def _checked_statement(node, toplevel, extends_seen):
    if type(node) is n.If:
        return n.If(node.span, node.test, _checked_body(node.body, toplevel, False, extends_seen),
                    tuple((test, _checked_body(body, toplevel, False, extends_seen)) for test, body in node.elifs),
                    _checked_body(node.else_, toplevel, False, extends_seen))
    changes = {f: _checked_body(getattr(node, f), False, False, extends_seen)
               for f in ("body", "else_") if f in node.FIELDS}
    return type(node)(node.span, *(changes.get(f, getattr(node, f)) for f in node.FIELDS))


# ---------------------------------------------------------------------------------- Jinja2's constant folding
class NotConstant(n.Node):
    # An expression Jinja2's constant folder cannot evaluate: evaluating it raises.
    __slots__ = FIELDS = ()

    def __init__(self, span):
        self.span = span


class FoldedSlice(n.Node):
    # obj[start:stop:step] as Jinja2's folder evaluates it: through the sandbox's item lookup (an undefined where
    # the subscript fails). key is a nodes.Slice.
    __slots__ = FIELDS = ("obj", "key")

    def __init__(self, span, obj, key):
        self.span, self.obj, self.key = span, obj, key


# the filters Jinja2 gives the render context (pass_context): its folder leaves them to run with the template
CONTEXT_FILTERS = frozenset({"map", "select", "reject", "selectattr", "rejectattr", "random"})
# the expressions Jinja2's folder evaluates when their operands are constants
_FOLDABLE = (n.Const, n.TupleExpr, n.ListExpr, n.DictExpr, n.Getattr, n.Getitem, n.Slice, n.BinOp, n.UnaryOp,
             n.Not, n.And, n.Or, n.Compare, n.Concat, n.CondExpr, n.Filter, n.Test)
_EXPRESSION_FIELDS = {cls: NODE_FIELDS[cls] for cls in _FOLDABLE + (n.Call,)}   # the walk's expressions
_LEAVES = frozenset({n.Const, n.Name, n.Text, bool})


# A subscript with a colon or another bracket in it (looking at most 300 characters ahead; a longer one counts),
# and what may stand before the subscript of a constant: a closing bracket or quote, or a word that is a constant
# name, a number or an attribute (compiled on first use)
_SUBSCRIPT_WITH_COLON = r"\[(?=[^\]:\[]{0,300}[:\[]|[^\]:\[]{300})"
_CONSTANT_BEFORE = r"""(?:[)\]}'"]|\.\s*\w+|(?<!\w)(?:\d\w*|none|None|true|True|false|False))\s*\Z"""
_spellings = None


def may_fold(source):
    # Might fold_like_jinja2 change a template with this source? (A power, or a slice of something that may be
    # a constant: `none[:1]`, `'abc'[1:]`, `(x)[1:]`, `{'a': x}.a[1:]`.) Its walk over the tree is then worth it.
    global _spellings
    if "**" in source:
        return True
    if ":" not in source:
        return False
    if _spellings is None:
        _spellings = re.compile(_SUBSCRIPT_WITH_COLON), re.compile(_CONSTANT_BEFORE)
    subscript, before = _spellings
    return any(before.search(source, max(0, match.start() - 64), match.start())
               for match in subscript.finditer(source))


def _is_slice(node):
    return type(node) is n.Getitem and type(node.key) is n.Slice


def _takes_context(func):
    make = getattr(func, "make", None) or getattr(getattr(type(func), "__call__", None), "make", None)
    return make is context_of


def _needs_variables(img):
    # Does evaluating this image always reach a NotConstant (not only through a branch it may skip)?
    cls = type(img)
    if cls is NotConstant:
        return True
    if img is None or cls is n.Const:
        return False
    if cls is n.And or cls is n.Or:
        return _needs_variables(img.left)
    if cls is n.CondExpr:
        return _needs_variables(img.test)
    if cls is n.Compare:
        return _needs_variables(img.first) or _needs_variables(img.ops[0][1])
    if cls is n.Args:
        return any(map(_needs_variables, img.positional)) or any(_needs_variables(v) for _, v in img.keywords) \
            or _needs_variables(img.star) or _needs_variables(img.dstar)
    if cls is tuple or cls is list:
        return any(map(_needs_variables, img))
    if cls is n.DictExpr:
        return any(_needs_variables(k) or _needs_variables(v) for k, v in img.pairs)
    return any(_needs_variables(getattr(img, f)) for f in img.FIELDS if f in NODE_FIELDS.get(cls, img.FIELDS)) \
        if isinstance(img, n.Node) else False


def safe_repr(value):
    # Can Jinja2 write value into its generated code (compiler.has_safe_repr)?
    if value is None or type(value) in (bool, int, float, complex, range, str):
        return True
    if hasattr(value, "__html__") and isinstance(value, str):
        return type(value).__name__ == "Markup"
    if type(value) in (tuple, list, set, frozenset):
        return all(map(safe_repr, value))
    if type(value) is dict:
        return all(safe_repr(k) and safe_repr(v) for k, v in value.items())
    return False


class _Folder:
    # Decides, in one walk over the template, the powers to rewrite and the slices Jinja2 folds.

    def __init__(self, filters, tests, builtin_filters, builtin_tests, evaluate):
        self.registries = {n.Filter: (filters, builtin_filters), n.Test: (tests, builtin_tests)}
        self.evaluate = evaluate
        self.changes = {}   # id of a node → its replacement maker (rebuilt node → node)
        self.powers = False   # any ** met (outside a volatile frame)

    def value(self, node, printed=False):
        # (True, value) of node as Jinja2's folder evaluates it, or (False, None) when it cannot.
        img = self.image(node)
        if _needs_variables(img):
            return False, None
        try:
            return True, self.evaluate(img, printed)
        except Exception:   # noqa: BLE001 - Jinja2's folder gives up on any error (the render meets it again)
            return False, None

    def walk(self, value, chain, printed, volatile):
        # chain: the expressions around value, outermost first (within one statement); printed: the outermost
        # is printed by {{ }}.
        cls = type(value)
        if cls is list or cls is tuple:
            for x in value:
                self.walk(x, chain, printed, volatile)
        elif cls is n.Args:
            for x in (value.positional, value.keywords, value.star, value.dstar):
                self.walk(x, chain, printed, volatile)
        elif cls in _LEAVES or value is None or cls is str:
            return
        elif cls in _EXPRESSION_FIELDS:
            if not volatile:
                if cls is n.BinOp and value.op == "**":
                    self.powers = True
                    self.power(value)
                elif cls is n.Getitem and type(value.key) is n.Slice:
                    self.slice(value, chain, printed)
            chain.append(value)
            for f in _EXPRESSION_FIELDS[cls]:
                self.walk(getattr(value, f), chain, printed, volatile)
            chain.pop()
        elif isinstance(value, n.Node):
            self.statement(value, volatile)

    def statement(self, node, volatile):
        if type(node) is n.Autoescape and not volatile:
            # Jinja2's folder stops inside an {% autoescape %} whose value it cannot fold ("volatile")
            self.walk(node.value, [], False, volatile)
            volatile = not self.value(node.value)[0]
            self.walk(node.body, [], False, volatile)
            return
        printed = type(node) is n.Output
        for f in NODE_FIELDS.get(type(node), node.FIELDS):
            self.walk(getattr(node, f), [], printed, volatile)

    def power(self, node):
        ok, base = self.value(node.left)
        if not ok or type(base) not in (int, float) or not math.isfinite(base) or math.copysign(1, base) > 0:
            return
        if self.value(node.right)[0]:
            return   # folded whole: the power of the two values, which the template computes too
        positive = n.Const(node.left.span, -base)
        self.changes[id(node)] = lambda new: n.UnaryOp(new.span, "-", n.BinOp(new.span, "**", positive, new.right))

    def slice(self, node, chain, printed):
        raw = n.Getitem(node.span, self.image(node.obj), self.image(node.key))
        if _needs_variables(raw) or self._runs(raw):
            return   # not constant, or it does not fail: as the template runs it
        if self._folded_around(node, chain, printed):
            self.changes[id(node)] = lambda new: FoldedSlice(new.span, new.obj, new.key)

    def _runs(self, img):
        try:
            self.evaluate(img, False)
            return True
        except Exception:   # noqa: BLE001
            return False

    def _folded_around(self, node, chain, printed):
        # Does Jinja2 fold node, or an expression around it, into a value (its own, or the text {{ }} prints)?
        for inner in [node, *reversed(chain)]:
            ok, value = self.value(inner)
            if ok and safe_repr(value):
                return True
            if _needs_variables(self.image(inner)):
                return False   # nothing further out evaluates node when Jinja2 compiles
        return printed and self.value(chain[0] if chain else node, printed=True)[0]

    def image(self, node):
        # Jinja2's view of node: the node its folder evaluates in place of it (see the module docstring).
        if node is None or type(node) is n.Const:
            return node
        if type(node) not in _FOLDABLE or type(node) in self.registries and not self._folds_call(node):
            return NotConstant(node.span)
        if _is_slice(node):
            return FoldedSlice(node.span, self.image(node.obj), self.image(node.key))
        if type(node) is n.CondExpr and node.else_ is None:
            # a missing else that is taken gives an undefined: Jinja2's folder leaves that to the render
            return n.CondExpr(node.span, self.image(node.test), self.image(node.then), NotConstant(node.span))
        return type(node)(node.span, *(self._field(getattr(node, f)) for f in node.FIELDS))

    def _field(self, value):
        if isinstance(value, n.Node):
            return self.image(value)
        if isinstance(value, n.Args):
            keywords = tuple((k, self.image(v)) for k, v in value.keywords)
            return value.rebuilt(tuple(map(self.image, value.positional)), keywords, self.image(value.star),
                                 self.image(value.dstar))
        if isinstance(value, (tuple, list)):
            return type(value)(map(self._field, value))
        return value

    def _folds_call(self, node):
        registry, builtins = self.registries[type(node)]
        func = registry.get(node.name)
        if func is None or node.value is None:
            return False
        if func is builtins.get(node.name):
            return type(node) is n.Test or node.name not in CONTEXT_FILTERS
        return not _takes_context(func)

def _rebuild(value, changes):
    # value with the changes applied (each to the node rebuilt from its changed parts).
    if isinstance(value, n.Node):
        fields = list(n.field_values(value))
        new = [_rebuild(x, changes) for x in fields]
        node = type(value)(value.span, *new) if any(map(is_not, new, fields)) else value
        change = changes.get(id(value))
        return change(node) if change is not None else node
    if isinstance(value, n.Args):
        fields = list(n.field_values(value))
        new = [_rebuild(x, changes) for x in fields]
        return value.rebuilt(*new) if any(map(is_not, new, fields)) else value
    if isinstance(value, (tuple, list)):
        new = [_rebuild(x, changes) for x in value]
        if any(map(is_not, new, value)):
            return type(value)(new)
    return value


def fold_like_jinja2(template, evaluate, filters, tests, builtin_filters, builtin_tests, powers_and_slices=True,
                     errors=None):
    # The template with Jinja2's negative powers rewritten (-(2 ** x)) and the slices it folds made FoldedSlice
    # (when powers_and_slices), and the changes errors(template, value, any ** met) gives (folderrors.py: where its
    # folder fails, what it folds away) made. evaluate(node, printed) → the value of an expression (its printed
    # text when printed), or raises.
    folder = _Folder(filters, tests, builtin_filters, builtin_tests, evaluate)
    if powers_and_slices:
        folder.walk(template.body, [], False, False)
    if errors is not None:
        folder.changes.update(errors(template, folder.value, folder.powers))
    if not folder.changes:
        return template
    return n.Template(template.span, _rebuild(template.body, folder.changes))
