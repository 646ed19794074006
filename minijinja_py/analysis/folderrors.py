"""Folding errors: a template's AST → the errors Jinja2's constant folder raises while it compiles the template (so
that from_string fails, even where the expression would never run), each at the expression the compiler meets it
in, as {id(node): replacement maker} for transforms.fold_like_jinja2 to put a FoldError there (its compile raises);
and the parts it folds away."""

# Jinja2's code generator hands each expression of these kinds (the outermost, in a frame whose autoescape is known)
# to its folder before it writes its code: operators, ~, comparisons, attribute and item reads, filters, tests,
# conditional expressions and calls; a literal list, tuple or dict is written as it stands. The folder evaluates
# every expression inside, innermost first (both branches of a conditional, both sides of `and`), and gives up on one
# quietly only when it is not constant; two operations of its own raise instead:
#
#   a dict literal  whose keys and values, up to a key that is not hashable, are constants: TypeError, as dict()
#                   (`{[1]: 2}.x`, `{{1: 2}: 3}|length`, `f({(1, [2]): 3})`; not `{x: 1, [1]: 2}`,
#                   not `{{ {[1]: 2} }}`);
#   a ~             of constants up to one str() refuses (an int past Python's digit limit): ValueError.
#
# A folded value the generator writes into its code as a literal (the outermost constant part of an expression that
# is not constant as a whole, or all of it) fails the same way when repr() refuses it: ValueError. The value of
# {{ expr }} is computed once more before that (when it is constant and its text can be made, it is written as text
# and nothing in it is compiled); an {% autoescape %} value is computed directly after its expressions are compiled
# (a dict literal there fails too). Nothing is compiled, so nothing fails, in a {{ }} after an {% extends %} at the
# template's top level, nor anywhere under an {% autoescape %} whose value is not constant.
#
# What the folder folds whole is never compiled, so neither checked: an unknown filter or test, a keyword argument
# given twice (`true or x|nosuch`). In a template holding such names, each folded part holding one becomes its
# constant (when the value is immutable; else its parts are looked at).
#
# Values are the engine's own, computed as transforms.py computes them (value(node, printed) → (ok, value)).

from ..syntax import nodes as n
from .transforms import safe_repr
from .treescan import NODE_FIELDS

__all__ = ["FoldError", "fold_errors", "checked_names", "has_checked_names", "INT_DIGITS", "LONG_LITERAL"]

# the expressions Jinja2's code generator folds (its visitors marked @optimizeconst)
_FOLDED = frozenset({n.BinOp, n.UnaryOp, n.Not, n.And, n.Or, n.Concat, n.Compare, n.Getattr, n.Getitem, n.Filter,
                     n.Test, n.CondExpr, n.Call})
# the literals whose value Jinja2 computes by computing their parts (a dict and a ~ then fail themselves)
_LITERALS = (n.DictExpr, n.ListExpr, n.TupleExpr, n.Concat)
# the statements whose {{ }} inherit the root's output check (compiled only until a top-level extends)
_CHECKED_BODIES = (n.If, n.For, n.With, n.FilterBlock, n.Autoescape)
# Python's limit on the digits of an int str() and repr() write (its default), and a run of digits past which a
# source may hold the makings of a longer int without `**` (short of 43 products or sums of 99-digit literals)
INT_DIGITS, LONG_LITERAL = 4300, 100


class FoldError(n.Node):
    # An expression whose compile raises error (what Jinja2's folder raised there).
    __slots__ = ("error",)
    FIELDS = ()

    def __init__(self, span, error):
        self.span, self.error = span, error


def _expressions(value, found):
    # The expression nodes held by a field's value, in order, appended to found.
    if isinstance(value, n.Node):
        found.append(value)
    elif isinstance(value, n.Args):
        for x in (value.positional, value.keywords, value.star, value.dstar):
            _expressions(x, found)
    elif isinstance(value, (tuple, list)):
        for x in value:
            _expressions(x, found)
    return found


def _children(node):
    found = []
    for f in NODE_FIELDS.get(type(node), ()):
        _expressions(getattr(node, f), found)
    return found


class _Errors:
    # One walk over the template in Jinja2's compile order (blocks after the root): changes {id(node): maker}.

    def __init__(self, value, long_ints, unchecked):
        self.value, self.long_ints = value, long_ints
        self.unchecked, self.unknown = unchecked or (None, None)
        self.changes = {}
        self.failures = 0   # the FoldErrors among the changes
        self.known_extends = False
        self.blocks = []
        self.soft = False   # in an {% if %} (Jinja2's soft frame): an unknown filter or test is refused when it runs

    # ------------------------------------------------------------------------------------------ statements
    def body(self, statements, volatile, checked, root):
        for node in statements:
            kind = type(node)
            if kind is n.Output:
                if not (checked and self.known_extends or volatile):
                    self.output(node.expr)
            elif kind is n.Load and node.kind == "extends" and self.known_extends:
                return   # Jinja2 compiles nothing after it in this statement list
            elif kind is n.Block:
                self.blocks.append(node)
            else:
                self.statement(node, volatile, checked and kind in _CHECKED_BODIES)
                if kind is n.Load and node.kind == "extends" and root:
                    self.known_extends = True

    def statement(self, node, volatile, checked):
        kind = type(node)
        if kind is n.Autoescape:
            before = self.failures
            self.expression(node.value, volatile)
            if self.failures == before and type(node.value) in _LITERALS:   # (else it failed compiling it)
                error = self.own_error(node.value, True)
                if error is not None:
                    self.fail(node.value, error)
            self.body(node.body, volatile or not self.value(node.value)[0], checked, False)
            return
        outer = self.soft
        self.soft = outer or kind is n.If
        for f in NODE_FIELDS.get(kind, ()):
            value = getattr(node, f)
            if f in ("body", "else_"):
                self.soft = kind is n.If   # (the body of any other statement is a frame of its own)
                self.body(value, volatile, checked, False)
            elif f == "elifs":
                for test, body in value:
                    self.expression(test, volatile)
                    self.body(body, volatile, checked, False)
            elif f == "params":
                for param in value:
                    self.expression(param.default, volatile)
            elif f == "filters" or f == "call":
                # compiled as a filter chain / the call of a call block: a FoldError goes in their arguments
                for x in (value if f == "filters" else (value,)):
                    self.folded(x, volatile, inside=True)
            elif f not in ("target", "targets"):
                for x in _expressions(value, []):
                    self.expression(x, volatile)
        self.soft = outer

    def blocks_after_root(self):
        self.soft = False
        while self.blocks:
            block = self.blocks.pop(0)
            self.body(block.body, False, False, False)

    # ----------------------------------------------------------------------------------------- expressions
    def output(self, node):
        # {{ node }}: made into text at once when it is constant and printable, else compiled
        if not self.value(node, printed=True)[0]:
            self.expression(node, False)
        elif self.unchecked is not None and self.unchecked(node):
            value = self.value(node)[1]
            if not _immutable(value) and not hasattr(value, "__html__"):
                value = self.value(node, printed=True)[1]   # its text (a list's; an undefined's: nothing)
            self.fold_away(node, value)

    def expression(self, node, volatile):
        if node is None or volatile:
            return
        kind = type(node)
        if kind in _FOLDED:
            self.folded(node, False)
            return
        if kind is n.Const:   # written into the code as it stands: a hex literal may be too long for repr()
            if self.long_ints and type(node.value) is int:
                try:
                    repr(node.value)
                except ValueError as exc:
                    self.fail(node, exc)
            return
        for x in _children(node):
            self.expression(x, volatile)

    def folded(self, root, volatile, inside=False):
        # root handed to the folder; inside: the FoldError goes in the part of root that holds the failure.
        if volatile or root is None:
            return
        failed = self.fold(root)
        if failed is None and (self.long_ints or self.unchecked is not None):
            failed = self.written(root)
        if failed is None:
            return
        node, error = failed
        if inside:
            holders = [x for x in _children(root) if _holds(x, node)]
            node = holders[0] if holders else node
        else:
            node = root
        self.fail(node, error)

    def fail(self, node, error):
        self.changes[id(node)] = lambda new: FoldError(new.span, error)
        self.failures += 1

    def fold(self, node):
        # (node, error) of the first expression the folder fails on in node (innermost first), or None.
        for x in _children(node):
            failed = self.fold(x)
            if failed is not None:
                return failed
        kind = type(node)
        error = self.own_error(node) if kind is n.DictExpr or kind is n.Concat and self.long_ints else None
        return None if error is None else (node, error)

    def own_error(self, node, nested=False):
        # The error of node's own operation (a dict literal's, a ~'s) on constant operands, in their order; nested:
        # also of the literals among them, computed directly (an {% autoescape %} value is: what the folder did
        # not fold first).
        kind = type(node)
        values = []
        for x in _children(node):   # (a dict literal's keys and values in turn: a pair is made, then put in)
            if nested and type(x) in _LITERALS:
                error = self.own_error(x, True)
                if error is not None:
                    return error
            ok, value = self.value(x)
            if not ok:
                return None   # not constant: the folder gives up here
            values.append(value)
            try:
                if kind is n.DictExpr and len(values) % 2 == 0:
                    hash(values[-2])
                elif kind is n.Concat and self.long_ints:
                    str(value)
            except (TypeError, ValueError) as exc:
                return exc
        return None

    def written(self, node, soft=False):
        # (node, error) of the first folded part of node written into the code that repr() refuses (an int too
        # long), or None; the folded parts with names the compile would check in them are folded away. An unknown
        # filter or test outside a soft frame (soft: in a conditional expression) is refused before its parts are
        # written.
        if self.unknown is not None and not (soft or self.soft) and self.unknown(node):
            return None   # (the compile refuses it)
        ok, value = self.value(node)
        if ok and safe_repr(value):
            try:
                repr(value)
            except ValueError as exc:
                return node, exc
            if self.unchecked is not None and self.unchecked(node) and not self.fold_away(node, value):
                for x in _children(node):   # its parts then (a list, a dict: made again from them when it runs)
                    self.written(x)
            return None
        for x in _children(node):
            failed = self.written(x, soft or type(node) is n.CondExpr)
            if failed is not None:
                return failed
        return None

    def fold_away(self, node, value):
        # node folded into value: nothing in it is compiled (an unknown filter, a repeated keyword is no error).
        # A value it may change is left to be computed (a constant is one object for every render).
        if _immutable(value):
            self.changes[id(node)] = lambda new: n.Const(new.span, value)
            return True
        return False


def _holds(root, node):
    return root is node or any(_holds(x, node) for x in _children(root))


def _immutable(value):
    # (not Markup: where Jinja2's folder makes a plain string of one, `'<a>'|safe ~ 'b'`, the engine keeps it)
    return value is None or type(value) in (bool, int, float, str) or \
        type(value) is tuple and all(map(_immutable, value))


def has_checked_names(runners, filters, tests):
    # Does any of these nodes (a tree scan's runners: calls, filters, tests...) hold what checked_names finds?
    for x in runners:
        kind = type(x)
        if kind is n.Filter and x.name not in filters or kind is n.Test and x.name not in tests or \
                kind in (n.Call, n.Filter, n.Test) and x.args.repeated is not None:
            return True
    return False


def checked_names(filters, tests):
    # (unchecked, unknown): unchecked(node), does node hold what the compile checks, unless Jinja2's folder folds it
    # away (an unknown filter or test, a keyword argument given twice)? unknown(node), is node itself such a filter
    # or test?
    def unknown(node):   # (node itself: an unknown filter or test)
        kind = type(node)
        return kind is n.Filter and node.name not in filters or kind is n.Test and node.name not in tests

    def unchecked(node):
        if unknown(node):
            return True
        for f in NODE_FIELDS.get(type(node), ()):
            value = getattr(node, f)
            if isinstance(value, n.Args) and value.repeated is not None:
                return True
        return any(map(unchecked, _children(node)))
    return unchecked, unknown


def fold_errors(template, value, long_ints, unchecked=None):
    # {id(node): maker of its FoldError (or of its constant)} for the template (nodes.Template). long_ints: may an
    # int too long for str() be made (then ~ and written literals are checked too)? unchecked: checked_names's
    # pair of functions when the template has such names (then what folds whole is made a constant where it holds
    # them).
    errors = _Errors(value, long_ints, unchecked)
    errors.body(template.body, False, True, True)
    errors.blocks_after_root()
    return errors.changes
