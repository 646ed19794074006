"""AST: frozen dataclasses, one per construct, each with a Span. No behaviour lives here.

parse tree (builder.py) → these nodes → compiler.py
"""

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional, Tuple


class Span(NamedTuple):
    """Where a node starts (1-based line and column) and the offsets [start, end) in the normalised source.
    A named tuple, not a dataclass: compiled templates keep one per closure that can fail, so it is kept small."""
    line: int
    col: int
    start: int = 0
    end: int = 0
    end_line: int = 0
    end_col: int = 0


NO_SPAN = Span(0, 0)


@dataclass(frozen=True)
class Node:
    span: Span = field(repr=False, compare=False)


# --------------------------------------------------------------------------------------------------- statements

@dataclass(frozen=True)
class Template(Node):
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class Text(Node):
    """Literal template data (already whitespace-controlled by the lexer)."""
    value: str


@dataclass(frozen=True)
class Output(Node):
    """{{ expr }} and {% print expr %}"""
    expr: Node


@dataclass(frozen=True)
class If(Node):
    """{% if test %}body{% elif test %}body{% else %}else_{% endif %}"""
    test: Node
    body: Tuple[Node, ...]
    elifs: Tuple[Tuple[Node, Tuple[Node, ...]], ...]
    else_: Tuple[Node, ...]


@dataclass(frozen=True)
class For(Node):
    """{% for target in iter if filter recursive %}body{% else %}else_{% endfor %}"""
    target: Node
    iter: Node
    body: Tuple[Node, ...]
    else_: Tuple[Node, ...]
    filter: Optional[Node]
    recursive: bool


@dataclass(frozen=True)
class Assign(Node):
    """{% set target = value %}"""
    target: Node
    value: Node


@dataclass(frozen=True)
class AssignBlock(Node):
    """{% set target | filters %}body{% endset %}"""
    target: Node
    filters: Tuple[Node, ...]
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class Param(Node):
    """A macro or call-block parameter: `name` or `name=default`."""
    name: str
    default: Optional[Node]


@dataclass(frozen=True)
class Macro(Node):
    """{% macro name(params) %}body{% endmacro %}"""
    name: str
    params: Tuple[Param, ...]
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class CallBlock(Node):
    """{% call(params) macro(args) %}body{% endcall %}"""
    call: Node
    params: Tuple[Param, ...]
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class FilterBlock(Node):
    """{% filter f(args) | g %}body{% endfilter %}; `filters` are FilterCall nodes applied in order."""
    filters: Tuple[Node, ...]
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class With(Node):
    """{% with a = 1, b = 2 %}body{% endwith %}"""
    targets: Tuple[Node, ...]
    values: Tuple[Node, ...]
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class ExprStmt(Node):
    """{% do expr %}"""
    expr: Node


@dataclass(frozen=True)
class Break(Node):
    """{% break %}"""


@dataclass(frozen=True)
class Continue(Node):
    """{% continue %}"""


@dataclass(frozen=True)
class Generation(Node):
    """{% generation %}body{% endgeneration %} (transformers' assistant-token tracking)"""
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class Block(Node):
    """{% block name [scoped] [required] %}body{% endblock %} (rendered in place: nothing extends a string)"""
    name: str
    scoped: bool
    required: bool
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class Autoescape(Node):
    """{% autoescape value %}body{% endautoescape %}"""
    value: Node
    body: Tuple[Node, ...]


@dataclass(frozen=True)
class Load(Node):
    """{% include t %}, {% import t as name %}, {% from t import a, b as c %}, {% extends t %}: `kind` is the tag,
    `names` the (name, alias) pairs a from-import binds, `alias` what an import binds."""
    kind: str
    template: Node
    names: Tuple[Tuple[str, str], ...] = ()
    alias: Optional[str] = None


# ---------------------------------------------------------------------------------------------- assign targets

@dataclass(frozen=True)
class NameTarget(Node):
    name: str


@dataclass(frozen=True)
class NamespaceTarget(Node):
    """ns.attr on the left of {% set %}"""
    name: str
    attr: str


@dataclass(frozen=True)
class TupleTarget(Node):
    items: Tuple[Node, ...]


# -------------------------------------------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Const(Node):
    value: Any


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class TupleExpr(Node):
    items: Tuple[Node, ...]


@dataclass(frozen=True)
class ListExpr(Node):
    items: Tuple[Node, ...]


@dataclass(frozen=True)
class DictExpr(Node):
    pairs: Tuple[Tuple[Node, Node], ...]


@dataclass(frozen=True)
class Getattr(Node):
    """obj.attr: attribute first, then item"""
    obj: Node
    attr: str


@dataclass(frozen=True)
class Getitem(Node):
    """obj[key] and obj.0: item first, then attribute"""
    obj: Node
    key: Node


@dataclass(frozen=True)
class Slice(Node):
    """start:stop:step inside []"""
    start: Optional[Node]
    stop: Optional[Node]
    step: Optional[Node]


@dataclass(frozen=True)
class Args:
    """Call arguments: positional, keyword (name, node) pairs, *args and **kwargs."""
    positional: Tuple[Node, ...] = ()
    keywords: Tuple[Tuple[str, Node], ...] = ()
    star: Optional[Node] = None
    dstar: Optional[Node] = None


NO_ARGS = Args()


@dataclass(frozen=True)
class Call(Node):
    func: Node
    args: Args


@dataclass(frozen=True)
class Filter(Node):
    """value | name(args); `value` is None inside {% filter %} and {% set %} blocks."""
    value: Optional[Node]
    name: str
    args: Args


@dataclass(frozen=True)
class Test(Node):
    """value is [not] name(args)"""
    value: Node
    name: str
    args: Args
    negated: bool


@dataclass(frozen=True)
class BinOp(Node):
    """left op right for + - * / // % **"""
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class UnaryOp(Node):
    """-x and +x"""
    op: str
    operand: Node


@dataclass(frozen=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True)
class And(Node):
    left: Node
    right: Node


@dataclass(frozen=True)
class Or(Node):
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare(Node):
    """a < b == c ... : `ops` are (operator, operand) pairs, operators include 'in' and 'not in'."""
    first: Node
    ops: Tuple[Tuple[str, Node], ...]


@dataclass(frozen=True)
class Concat(Node):
    """a ~ b ~ c"""
    items: Tuple[Node, ...]


@dataclass(frozen=True)
class CondExpr(Node):
    """then if test else else_ (else_ may be None)"""
    test: Node
    then: Node
    else_: Optional[Node]
