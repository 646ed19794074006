"""Transforms: rewrites of a template's AST (nodes.py → nodes.py) the compiler makes before compiling, for what
Jinja2 does in its lexer, constant folder or code generator rather than in the language itself:

  finalize          Environment(finalize=fn): every {{ }} value goes through fn before it is printed;
  newline_sequence  template text (and the newlines written inside string literals) use "\\r\\n" or "\\r";
  output checks     a template with {% extends %} inside an {% if %} writes its text and {{ }} only while no
                    extends has run (Jinja2's `if parent_template is None` around each output).

Each applies only when the template needs it (the compiler asks), so a plain template pays nothing. The tree has
passed symbols.check_nesting, so the recursion here is bounded by max_nesting.
"""

from ..builtins.strings import do_indent, do_lower, do_trim, do_upper
from ..syntax import nodes as n

__all__ = ["FINALIZE", "NoParentYet", "finalize_outputs", "with_newline_sequence", "fold_string_filters",
           "folds_string_filters", "has_conditional_extends", "check_outputs"]

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
        return value if new is None else n.Args(*new)
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


class _FoldState:
    # What do_indent reads of a render state: the limits.
    __slots__ = ("limits",)

    def __init__(self, limits):
        self.limits = limits


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
    state = _FoldState(limits)

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


class _OutputChecks:
    # Wraps each text and {{ }} of the root function (and the blocks placed at the top level after the first
    # extends) in `{% if <no parent yet> %}`, up to the first extends placed directly in the template's body:
    # after it the compiler drops them anyway.

    def __init__(self):
        self.extends_seen = False

    def guard(self, node):
        return n.If(node.span, NoParentYet(node.span), [node], (), ())

    def body(self, statements, toplevel, root):
        new = []
        for i, node in enumerate(statements):
            kind = type(node)
            if kind is n.Load and node.kind == "extends":
                self.extends_seen = True
                if root:
                    return new + list(statements[i:])
                new.append(node)
            elif kind is n.Text or kind is n.Output:
                new.append(self.guard(node))
            elif kind is n.Block and toplevel and self.extends_seen:
                new.append(self.guard(node))
            elif kind in _CHECKED_BODIES:
                new.append(self.statement(node, toplevel and kind is n.If))
            else:
                new.append(node)
        return new

    def statement(self, node, toplevel):
        if type(node) is n.If:
            return n.If(node.span, node.test, self.body(node.body, toplevel, False),
                        tuple((test, self.body(body, toplevel, False)) for test, body in node.elifs),
                        self.body(node.else_, toplevel, False))
        changes = {f: self.body(getattr(node, f), False, False) for f in ("body", "else_") if f in node.FIELDS}
        return type(node)(node.span, *(changes.get(f, getattr(node, f)) for f in node.FIELDS))


def check_outputs(template):
    return n.Template(template.span, _OutputChecks().body(template.body, True, True))
