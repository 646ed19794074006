"""AST: one plain slotted class per construct, each with a Span. No behaviour lives here."""

# parse tree (builder.py) → these nodes → compiler.py
#
# Plain classes rather than dataclasses: a compile builds thousands of nodes, and `dataclasses` (with the `inspect`
# it imports) would cost a cold start more than the whole parser. Each class lists its fields in FIELDS, in
# constructor order after the span; walkers (symbols.py) and dump() read them.

from collections import _tuplegetter   # a named tuple's field reader (a C descriptor)
from itertools import repeat

__all__ = ["Span", "NO_SPAN", "Node", "Args", "NO_ARGS", "dump", "field_values"]


class Span(tuple):
    # Where a node starts (1-based line and column), the offsets [start, end) in the normalised source, and where
    # it ends. A tuple: compiled templates keep one per closure that can fail. Made as Span((line, col, start, end,
    # end_line, end_col)), tuple's own constructor (a Python __new__ taking the fields, or tuple.__new__ called as a
    # function, cost ~300 machine instructions more: the builder makes one for most nodes). Written out rather than
    # made by collections.namedtuple, which compiles Python source for its constructor (a cold start's cost).

    __slots__ = ()
    _fields = ("line", "col", "start", "end", "end_line", "end_col")

    def __getnewargs__(self):
        return (tuple(self),)

    def __repr__(self):
        return f"Span({', '.join(map('{}={!r}'.format, self._fields, self))})"

    line, col, start, end, end_line, end_col = (_tuplegetter(i, None) for i in range(6))


NO_SPAN = Span((0, 0, 0, 0, 0, 0))


class Node:
    __slots__ = ("span",)
    FIELDS = ()

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(map(repr, field_values(self)))})"


def field_values(node):
    # A node's (or Args') field values in FIELDS order, lazily: one iterator for the walkers that read them all.
    return map(getattr, repeat(node), node.FIELDS)


def dump(value):
    # A node as nested tuples of its class name and fields (spans left out): two parses are the same AST exactly
    # when their dumps are equal.
    if isinstance(value, (Node, Args)):
        return (type(value).__name__,) + tuple(map(dump, field_values(value)))
    if isinstance(value, (tuple, list)):
        return tuple(map(dump, value))
    return value


# --------------------------------------------------------------------------------------------------- statements

class Template(Node):
    __slots__ = FIELDS = ("body",)

    def __init__(self, span, body):
        self.span, self.body = span, body


class Text(Node):
    # Literal template data (already whitespace-controlled by the lexer).
    __slots__ = FIELDS = ("value",)

    def __init__(self, span, value):
        self.span, self.value = span, value


class Output(Node):
    # {{ expr }} and {% print expr %}
    __slots__ = FIELDS = ("expr",)

    def __init__(self, span, expr):
        self.span, self.expr = span, expr


class If(Node):
    # {% if test %}body{% elif test %}body{% else %}else_{% endif %}; elifs are (test, body) pairs.
    __slots__ = FIELDS = ("test", "body", "elifs", "else_")

    def __init__(self, span, test, body, elifs, else_):
        self.span, self.test, self.body, self.elifs, self.else_ = span, test, body, elifs, else_


class For(Node):
    # {% for target in iter if filter recursive %}body{% else %}else_{% endfor %}
    __slots__ = FIELDS = ("target", "iter", "body", "else_", "filter", "recursive")

    def __init__(self, span, target, iter, body, else_, filter, recursive):
        self.span, self.target, self.iter, self.body = span, target, iter, body
        self.else_, self.filter, self.recursive = else_, filter, recursive


class Assign(Node):
    # {% set target = value %}
    __slots__ = FIELDS = ("target", "value")

    def __init__(self, span, target, value):
        self.span, self.target, self.value = span, target, value


class AssignBlock(Node):
    # {% set target | filters %}body{% endset %}
    __slots__ = FIELDS = ("target", "filters", "body")

    def __init__(self, span, target, filters, body):
        self.span, self.target, self.filters, self.body = span, target, filters, body


class Param(Node):
    # A macro or call-block parameter: `name` or `name=default`.
    __slots__ = FIELDS = ("name", "default")

    def __init__(self, span, name, default):
        self.span, self.name, self.default = span, name, default


class Macro(Node):
    # {% macro name(params) %}body{% endmacro %}
    __slots__ = FIELDS = ("name", "params", "body")

    def __init__(self, span, name, params, body):
        self.span, self.name, self.params, self.body = span, name, params, body


class CallBlock(Node):
    # {% call(params) macro(args) %}body{% endcall %}
    __slots__ = FIELDS = ("call", "params", "body")

    def __init__(self, span, call, params, body):
        self.span, self.call, self.params, self.body = span, call, params, body


class FilterBlock(Node):
    # {% filter f(args) | g %}body{% endfilter %}; `filters` are Filter nodes (value None) applied in order.
    __slots__ = FIELDS = ("filters", "body")

    def __init__(self, span, filters, body):
        self.span, self.filters, self.body = span, filters, body


class With(Node):
    # {% with a = 1, b = 2 %}body{% endwith %}
    __slots__ = FIELDS = ("targets", "values", "body")

    def __init__(self, span, targets, values, body):
        self.span, self.targets, self.values, self.body = span, targets, values, body


class ExprStmt(Node):
    # {% do expr %}
    __slots__ = FIELDS = ("expr",)

    def __init__(self, span, expr):
        self.span, self.expr = span, expr


class Break(Node):
    # {% break %}
    __slots__ = ()

    def __init__(self, span):
        self.span = span


class Continue(Node):
    # {% continue %}
    __slots__ = ()

    def __init__(self, span):
        self.span = span


class Generation(Node):
    # {% generation %}body{% endgeneration %} (transformers' assistant-token tracking)
    __slots__ = FIELDS = ("body",)

    def __init__(self, span, body):
        self.span, self.body = span, body


class Block(Node):
    # {% block name [scoped] [required] %}body{% endblock %}
    __slots__ = FIELDS = ("name", "scoped", "required", "body")

    def __init__(self, span, name, scoped, required, body):
        self.span, self.name, self.scoped, self.required, self.body = span, name, scoped, required, body


class Autoescape(Node):
    # {% autoescape value %}body{% endautoescape %}
    __slots__ = FIELDS = ("value", "body")

    def __init__(self, span, value, body):
        self.span, self.value, self.body = span, value, body


class Load(Node):
    # {% include t %}, {% import t as name %}, {% from t import a, b as c %}, {% extends t %}: `kind` is the tag,
    # `names` the (name, alias) pairs a from-import binds, `alias` what an import binds.
    __slots__ = FIELDS = ("kind", "template", "names", "alias")

    def __init__(self, span, kind, template, names=(), alias=None):
        self.span, self.kind, self.template, self.names, self.alias = span, kind, template, names, alias


# ---------------------------------------------------------------------------------------------- assign targets

class NameTarget(Node):
    __slots__ = FIELDS = ("name",)

    def __init__(self, span, name):
        self.span, self.name = span, name


class NamespaceTarget(Node):
    # ns.attr on the left of {% set %}
    __slots__ = FIELDS = ("name", "attr")

    def __init__(self, span, name, attr):
        self.span, self.name, self.attr = span, name, attr


class TupleTarget(Node):
    __slots__ = FIELDS = ("items",)

    def __init__(self, span, items):
        self.span, self.items = span, items


# -------------------------------------------------------------------------------------------------- expressions

class Const(Node):
    __slots__ = FIELDS = ("value",)

    def __init__(self, span, value):
        self.span, self.value = span, value


class Name(Node):
    __slots__ = FIELDS = ("name",)

    def __init__(self, span, name):
        self.span, self.name = span, name


class TupleExpr(Node):
    __slots__ = FIELDS = ("items",)

    def __init__(self, span, items):
        self.span, self.items = span, items


class ListExpr(Node):
    __slots__ = FIELDS = ("items",)

    def __init__(self, span, items):
        self.span, self.items = span, items


class DictExpr(Node):
    # {k: v, ...}; pairs are (key, value) node pairs.
    __slots__ = FIELDS = ("pairs",)

    def __init__(self, span, pairs):
        self.span, self.pairs = span, pairs


class Getattr(Node):
    # obj.attr: attribute first, then item
    __slots__ = FIELDS = ("obj", "attr")

    def __init__(self, span, obj, attr):
        self.span, self.obj, self.attr = span, obj, attr


class Getitem(Node):
    # obj[key] and obj.0: item first, then attribute
    __slots__ = FIELDS = ("obj", "key")

    def __init__(self, span, obj, key):
        self.span, self.obj, self.key = span, obj, key


class Slice(Node):
    # start:stop:step inside []
    __slots__ = FIELDS = ("start", "stop", "step")

    def __init__(self, span, start, stop, step):
        self.span, self.start, self.stop, self.step = span, start, stop, step


class Args:
    # Call arguments: positional, keyword (name, node) pairs, *args and **kwargs. `repeated` is (name, line,
    # column) of a keyword given twice (the one Python's compiler names: first_repeated), or None: Jinja2 parses
    # that, and Python refuses the code it generates for it only where that code is generated (the compiler
    # reports it, compile/calls.py). `keyword_dict`: a keyword's name is a Python keyword (`f(if=1)`), so Jinja2
    # passes the keywords as one `**{...}` dict after *args: no keyword is then "repeated" (the dict keeps the
    # last), and a key of **kwargs overrides one of them.
    FIELDS = ("positional", "keywords", "star", "dstar")
    __slots__ = FIELDS + ("repeated", "keyword_dict")

    def __init__(self, positional=(), keywords=(), star=None, dstar=None, repeated=None, keyword_dict=False):
        self.positional, self.keywords, self.star, self.dstar = positional, keywords, star, dstar
        self.repeated, self.keyword_dict = repeated, keyword_dict

    def rebuilt(self, positional, keywords, star, dstar):
        # The same arguments with their parts changed (a transform's): what was repeated still is.
        return Args(positional, keywords, star, dstar, self.repeated, self.keyword_dict)

    def __repr__(self):
        return f"Args({self.positional!r}, {self.keywords!r}, {self.star!r}, {self.dstar!r})"

    @property
    def empty(self):
        return not (self.positional or self.keywords) and self.star is None and self.dstar is None


NO_ARGS = Args()


class Call(Node):
    __slots__ = FIELDS = ("func", "args")

    def __init__(self, span, func, args):
        self.span, self.func, self.args = span, func, args


class Filter(Node):
    # value | name(args); `value` is None inside {% filter %} and {% set %} blocks. `at` is the name's Span, where
    # Jinja2 locates an unknown filter (the node's span starts with its value, maybe lines above).
    FIELDS = ("value", "name", "args")
    __slots__ = FIELDS + ("at",)

    def __init__(self, span, value, name, args, at=None):
        self.span, self.value, self.name, self.args, self.at = span, value, name, args, at or span


class Test(Node):
    # value is [not] name(args); `at` spans `is [not] name`, where Jinja2 locates an unknown test (on the line of
    # `is`).
    FIELDS = ("value", "name", "args", "negated")
    __slots__ = FIELDS + ("at",)

    def __init__(self, span, value, name, args, negated, at=None):
        self.span, self.value, self.name, self.args, self.negated = span, value, name, args, negated
        self.at = at or span


class BinOp(Node):
    # left op right for + - * / // % **
    __slots__ = FIELDS = ("op", "left", "right")

    def __init__(self, span, op, left, right):
        self.span, self.op, self.left, self.right = span, op, left, right


class UnaryOp(Node):
    # -x and +x
    __slots__ = FIELDS = ("op", "operand")

    def __init__(self, span, op, operand):
        self.span, self.op, self.operand = span, op, operand


class Not(Node):
    __slots__ = FIELDS = ("operand",)

    def __init__(self, span, operand):
        self.span, self.operand = span, operand


class And(Node):
    __slots__ = FIELDS = ("left", "right")

    def __init__(self, span, left, right):
        self.span, self.left, self.right = span, left, right


class Or(Node):
    __slots__ = FIELDS = ("left", "right")

    def __init__(self, span, left, right):
        self.span, self.left, self.right = span, left, right


class Compare(Node):
    # a < b == c ... : `ops` are (operator, operand) pairs, operators include 'in' and 'not in'.
    __slots__ = FIELDS = ("first", "ops")

    def __init__(self, span, first, ops):
        self.span, self.first, self.ops = span, first, ops


class Concat(Node):
    # a ~ b ~ c
    __slots__ = FIELDS = ("items",)

    def __init__(self, span, items):
        self.span, self.items = span, items


class CondExpr(Node):
    # then if test else else_ (else_ may be None)
    __slots__ = FIELDS = ("test", "then", "else_")

    def __init__(self, span, test, then, else_):
        self.span, self.test, self.then, self.else_ = span, test, then, else_


def first_repeated(names):
    # The first of names that a later one repeats, or None: the keyword Python's compiler says is repeated.
    if len(set(names)) == len(names):
        return None
    return next(name for i, name in enumerate(names) if name in names[i + 1:])
