"""Expression trees are Jinja2's: unary minus and plus, `**`, filters, tests and postfix operators, combined,
parse to the tree Jinja2's parser builds (what binds to what: `-2 ** 2|float` is (-2) ** (2|float), `-x|abs` is
abs(-x), `x is divisibleby 3|abs` is abs(x is divisibleby 3)). Every combination of a small grammar of operands
and operators, parsed by both, compared as trees (node kinds, operators, names and constants; not positions).
"""

import itertools
import random

import pytest

jinja2 = pytest.importorskip("jinja2")
from jinja2 import nodes as j  # noqa: E402

import minijinja_py as mj  # noqa: E402
from minijinja_py.syntax import nodes as n  # noqa: E402

PREFIXES = ["", "-", "+", "- -", "-+", "not "]
ATOMS = ["2", "x", "(x)", "[1]", "'s'", "2.5", "none"]
POSTFIXES = ["", ".a", "[0]", "(1)", "[1:]", ".a(1)"]
SUFFIXES = ["", "|abs", "|f(1)", " is odd", " is divisibleby 3", " is not none", "|f(1)(2)", "|abs|f",
            " is odd|f", "|f is odd", " is divisibleby 3|f", " is t(1)(2)"]
OPERATORS = ["**", "*", "~", "+", "-", "//", " in ", " == ", " and ", " if y else "]

_J2_BINARY = {j.Pow: "**", j.Mul: "*", j.Div: "/", j.FloorDiv: "//", j.Mod: "%", j.Add: "+", j.Sub: "-"}
_J2_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">=", "in": "in",
               "notin": "not in"}
_parser_env = mj.Environment()
_j2_env = jinja2.Environment()


def _j2_tree(node):
    """A Jinja2 expression node as nested tuples, in the vocabulary of _our_tree."""
    kind = type(node)
    if kind is j.Const:
        return ("Const", node.value)
    if kind is j.Name:
        return ("Name", node.name)
    if kind in (j.Neg, j.Pos):
        return ("UnaryOp", "-" if kind is j.Neg else "+", _j2_tree(node.node))
    if kind is j.Not:
        return ("Not", _j2_tree(node.node))
    if kind in _J2_BINARY:
        return ("BinOp", _J2_BINARY[kind], _j2_tree(node.left), _j2_tree(node.right))
    if kind in (j.And, j.Or):
        return (kind.__name__, _j2_tree(node.left), _j2_tree(node.right))
    if kind is j.Concat:
        return ("Concat", tuple(map(_j2_tree, node.nodes)))
    if kind is j.Compare:
        return ("Compare", _j2_tree(node.expr), tuple((_J2_COMPARE[op.op], _j2_tree(op.expr)) for op in node.ops))
    if kind is j.CondExpr:
        return ("CondExpr", _j2_tree(node.test), _j2_tree(node.expr1),
                None if node.expr2 is None else _j2_tree(node.expr2))
    if kind in (j.Filter, j.Test):
        return (kind.__name__, _j2_tree(node.node), node.name, _j2_args(node))
    if kind is j.Call:
        return ("Call", _j2_tree(node.node), _j2_args(node))
    if kind is j.Getattr:
        return ("Getattr", _j2_tree(node.node), node.attr)
    if kind is j.Getitem:
        return ("Getitem", _j2_tree(node.node), _j2_tree(node.arg))
    if kind is j.Slice:
        return ("Slice", *(None if x is None else _j2_tree(x) for x in (node.start, node.stop, node.step)))
    if kind in (j.List, j.Tuple):
        return (kind.__name__, tuple(map(_j2_tree, node.items)))
    raise AssertionError(f"no tree for {node!r}")


def _j2_args(node):
    return (tuple(map(_j2_tree, node.args)), tuple((k.key, _j2_tree(k.value)) for k in node.kwargs))


def _our_tree(node):
    kind = type(node)
    if kind is n.Const:
        return ("Const", node.value)
    if kind is n.Name:
        return ("Name", node.name)
    if kind is n.UnaryOp:
        return ("UnaryOp", node.op, _our_tree(node.operand))
    if kind is n.Not:
        return ("Not", _our_tree(node.operand))
    if kind is n.BinOp:
        return ("BinOp", node.op, _our_tree(node.left), _our_tree(node.right))
    if kind in (n.And, n.Or):
        return (kind.__name__, _our_tree(node.left), _our_tree(node.right))
    if kind is n.Concat:
        return ("Concat", tuple(map(_our_tree, node.items)))
    if kind is n.Compare:
        return ("Compare", _our_tree(node.first), tuple((op, _our_tree(x)) for op, x in node.ops))
    if kind is n.CondExpr:
        return ("CondExpr", _our_tree(node.test), _our_tree(node.then),
                None if node.else_ is None else _our_tree(node.else_))
    if kind is n.Filter:
        return ("Filter", _our_tree(node.value), node.name, _our_args(node.args))
    if kind is n.Test:
        test = ("Test", _our_tree(node.value), node.name, _our_args(node.args))
        return ("Not", test) if node.negated else test   # Jinja2: `x is not t` is not (x is t)
    if kind is n.Call:
        return ("Call", _our_tree(node.func), _our_args(node.args))
    if kind is n.Getattr:
        return ("Getattr", _our_tree(node.obj), node.attr)
    if kind is n.Getitem:
        return ("Getitem", _our_tree(node.obj), _our_tree(node.key))
    if kind is n.Slice:
        return ("Slice", *(None if x is None else _our_tree(x) for x in (node.start, node.stop, node.step)))
    if kind in (n.ListExpr, n.TupleExpr):
        return ("List" if kind is n.ListExpr else "Tuple", tuple(map(_our_tree, node.items)))
    raise AssertionError(f"no tree for {node!r}")


def _our_args(args):
    return (tuple(map(_our_tree, args.positional)), tuple((k, _our_tree(v)) for k, v in args.keywords))


def _trees(expression):
    """(our tree, Jinja2's) of the expression; "syntax error" for a parser that refuses it."""
    source = "{{ " + expression + " }}"
    try:
        theirs = _j2_tree(_j2_env.parse(source).body[0].nodes[0])
    except jinja2.TemplateSyntaxError:
        theirs = "syntax error"
    try:
        ours = _our_tree(_parser_env.parse(source).body[0].expr)
    except mj.TemplateSyntaxError:
        ours = "syntax error"
    return ours, theirs


def _operands():
    return ["".join(parts) for parts in itertools.product(PREFIXES, ATOMS, POSTFIXES, SUFFIXES)]


def _assert_all_same(expressions):
    different, parsed = [], 0
    for expression in expressions:
        ours, theirs = _trees(expression)
        parsed += theirs != "syntax error"
        if ours != theirs:
            different.append((expression, ours, theirs))
    assert not different, f"{len(different)} of {len(expressions)} differ; first: {different[0]}"
    assert parsed > len(expressions) * 0.8   # mostly trees compared, not errors


def test_single_operands():
    """Every prefix × atom × postfix × filter/test suffix: 3 024 expressions."""
    _assert_all_same(_operands())


def test_the_issue_examples():
    ours, theirs = _trees("-2 ** 2|float")
    assert ours == theirs == ("BinOp", "**", ("UnaryOp", "-", ("Const", 2)),
                              ("Filter", ("Const", 2), "float", ((), ())))
    assert _trees("- 2 ** 0|abs")[0] == ("BinOp", "**", ("UnaryOp", "-", ("Const", 2)),
                                         ("Filter", ("Const", 0), "abs", ((), ())))


def test_operand_pairs_and_chains():
    """Two and three operands joined by binary operators of every level (a fixed random sample)."""
    rng = random.Random(23)
    operands = _operands()
    expressions = []
    for _ in range(4000):
        count = rng.choice([2, 2, 3])
        parts = [rng.choice(operands)]
        for _ in range(count - 1):
            parts += [rng.choice(OPERATORS), rng.choice(operands)]
        expressions.append(" ".join(parts))
    _assert_all_same(expressions)
