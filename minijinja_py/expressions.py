"""Expressions: AST expression nodes → `ev(scope)` closures, Jinja2's operators and their costs.

The expression half of the compiler (compiler.py compiles statements and mixes this class in): every closure
that can fail attaches its span to the error, so the innermost location wins; attributes, items and calls go
through sandbox.py.
"""

import operator
from operator import itemgetter

from . import nodes as n
from .budget import (
    CHAR_SHIFT, charge_compare, charge_contains, charge_hash, charge_int_op, charge_result, charge_tree, charged,
    charged_unary, check_items, check_str_size,
)
from .errors import SecurityError, TemplateAssertionError, TemplateRuntimeError, as_template_error
from .markup import Markup, escape
from .runtime import DictFactory, LoopContext, Macro, Namespace, Undefined, limit_exceeded
from .sandbox import _DICT_ATTRS, _DICT_MUTATORS, getattr_, getitem_, percent_format, to_str
from .tests import BOOL_TESTS, TYPE_TESTS


def _located(exc, span):
    return as_template_error(exc, span.line, span.col, (span.end_line, span.end_col))


def _error_at(cls, message, span):
    return cls(message, span.line, span.col, end=(span.end_line, span.end_col))


# ------------------------------------------------------------------------------------------------ operators
_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow,
}
_COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}
_COMPARE_COST = {op: charge_compare for op in _COMPARE}
_COMPARE_COST["in"] = _COMPARE_COST["not in"] = charge_contains


# loop attributes that are plain properties (loop.cycle and loop.changed are methods: the sandbox wraps those)
_LOOP_FIELDS = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth", "depth0",
                          "previtem", "nextitem"})


def _sandboxed_item(obj, key, rs, span):
    """obj[key] through the sandbox (item, then attribute), once the dict/list fast path did not apply."""
    try:
        return getitem_(obj, key, rs)
    except Exception as exc:
        raise _located(exc, span)


def _cheap_operand(value):
    """Is comparing with value constant time (a short string, a small number, None, a bool)?"""
    cls = type(value)
    if cls is str:
        return len(value) < 1024
    if cls is int:
        return -0xFFFFFFFFFFFFFFFF <= value <= 0xFFFFFFFFFFFFFFFF
    return cls is float or cls is bool or value is None


def _checked_add(rs, a, b):
    limits = rs.limits
    if isinstance(a, str) and isinstance(b, str):
        size = len(a) + len(b)
        check_str_size(limits, size)
        rs.burn(size >> CHAR_SHIFT)
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        size = len(a) + len(b)
        check_items(limits, size)
        rs.burn(size)
    elif type(a) is int and type(b) is int and (a.bit_length() > 64 or b.bit_length() > 64):
        if max(a.bit_length(), b.bit_length()) > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", "an integer sum")
        rs.burn(max(a.bit_length(), b.bit_length()) >> 6)
    return a + b


def _checked_mul(rs, a, b):
    limits = rs.limits
    for seq, count in ((a, b), (b, a)):
        if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
            size = len(seq) * count
            if isinstance(seq, str):
                check_str_size(limits, size)
                rs.burn(max(size, 0) >> CHAR_SHIFT)
            else:
                check_items(limits, size)
                rs.burn(max(size, 0))
            return a * b
    if isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", "an integer product")
        charge_int_op(rs, a, b)
    return a * b


def _checked_pow(rs, a, b):
    limits = rs.limits
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        if (a.bit_length() - 1) * b > limits.max_int_bits:
            raise limit_exceeded(limits, "max_int_bits", f"the integer {a} ** {b}")
        rs.burn((a.bit_length() * b) >> 6)
    return a ** b


def _checked_mod(rs, a, b):
    if isinstance(a, str):
        return percent_format(rs.limits, a, b)
    if type(a) is int and type(b) is int:
        charge_int_op(rs, a, b)
    return a % b


def _checked_floordiv(rs, a, b):
    if type(a) is int and type(b) is int:
        charge_int_op(rs, a, b)
    return a // b


_CHECKED_BINOPS = {"+": _checked_add, "*": _checked_mul, "**": _checked_pow, "%": _checked_mod,
                   "//": _checked_floordiv}

# Filters that Jinja2 passes the render context, which its optimizer therefore never folds.
_CONTEXT_FILTERS = frozenset({"map", "select", "reject", "selectattr", "rejectattr", "random"})


# ------------------------------------------------------------------------------------------------ compiler
class ExpressionCompiler:
    """The e_* methods of the compiler (a mixin: dispatch, scoping flags and limits live in compiler._Compiler)."""

    def e_Const(self, node):
        value = node.value
        return lambda s: value

    def e_Name(self, node):
        return itemgetter(node.name)  # Scope.__missing__ falls back to globals, then undefined

    def e_TupleExpr(self, node):
        items = tuple(self.expr(x) for x in node.items)
        return lambda s: tuple([ev(s) for ev in items])

    def e_ListExpr(self, node):
        items = tuple(self.expr(x) for x in node.items)
        return lambda s: [ev(s) for ev in items]

    def e_DictExpr(self, node):
        pairs = tuple((self.expr(k), self.expr(v)) for k, v in node.pairs)
        span = node.span

        def ev(s):
            # as a Python dict display (Jinja2 compiles to one): every key and value is computed before any
            # key is hashed, so an error in a later value comes before an unhashable key
            items = [(k(s), v(s)) for k, v in pairs]
            try:
                for key, _ in items:
                    if type(key) is tuple:
                        charge_hash(s.rs, key)
                return dict(items)
            except Exception as exc:
                raise _located(exc, span)
        return ev

    def e_Getattr(self, node):
        obj_ev = self.expr(node.obj)
        attr = node.attr
        span = node.span
        plain_key = not (attr in _DICT_ATTRS or attr in _DICT_MUTATORS or attr[:1] == "_")
        loop_field = attr in _LOOP_FIELDS
        if isinstance(node.obj, n.Name) and plain_key and not loop_field:
            # message.role: the variable is read here, not through a closure of its own
            name = node.obj.name

            def ev_name(s):
                obj = s[name]
                if type(obj) is dict:
                    try:
                        return obj[attr]
                    except KeyError:
                        return s.rs.undefined(obj=obj, name=attr)
                try:
                    return getattr_(obj, attr, s.rs)
                except Exception as exc:
                    raise _located(exc, span)
            return ev_name

        def ev(s):
            obj = obj_ev(s)
            cls = type(obj)
            if plain_key and cls is dict:
                try:
                    return obj[attr]
                except KeyError:
                    return s.rs.undefined(obj=obj, name=attr)
            if loop_field and cls is LoopContext:
                return getattr(obj, attr)  # loop.index and friends: plain properties the sandbox allows
            try:
                return getattr_(obj, attr, s.rs)
            except Exception as exc:
                raise _located(exc, span)
        return ev

    def e_Getitem(self, node):
        obj_ev = self.expr(node.obj)
        span = node.span
        if isinstance(node.key, n.Slice):
            # Jinja2 quirk: slices bypass the sandbox's item-then-attribute lookup and subscript directly, so
            # none[1:] and generator[1:] raise TypeError instead of giving undefined.
            slice_ev = self._slice(node.key)

            def ev_slice(s):
                obj = obj_ev(s)
                key = slice_ev(s)
                try:
                    if isinstance(obj, Undefined):
                        return getitem_(obj, key, s.rs)
                    return charge_result(s.rs, obj[key])
                except Exception as exc:
                    raise _located(exc, span)
            return ev_slice
        if isinstance(node.key, n.Const) and type(node.key.value) in (str, int):
            # message['role'], messages[0]: a constant key needs no closure, nor the tuple-key charge
            key = node.key.value
            obj_name = node.obj.name if isinstance(node.obj, n.Name) else None

            def ev_const(s):
                obj = s[obj_name] if obj_name is not None else obj_ev(s)
                if type(obj) is dict or type(obj) is list:
                    try:
                        return obj[key]
                    except (LookupError, TypeError):
                        pass
                return _sandboxed_item(obj, key, s.rs, span)
            return ev_const
        key_ev = self.expr(node.key)

        def ev(s):
            obj = obj_ev(s)
            key = key_ev(s)
            cls = type(obj)
            if type(key) is tuple:
                try:
                    charge_hash(s.rs, key)
                except Exception as exc:
                    raise _located(exc, span)
            if cls is dict or cls is list:
                try:
                    return obj[key]
                except (LookupError, TypeError):
                    pass
            return _sandboxed_item(obj, key, s.rs, span)
        return ev

    def _slice(self, node):
        parts = tuple(self.expr(x) if x is not None else None for x in (node.start, node.stop, node.step))
        start, stop, step = parts

        def ev(s):
            return slice(start(s) if start else None, stop(s) if stop else None, step(s) if step else None)
        return ev

    def e_Slice(self, node):
        return self._slice(node)

    def _args(self, args):
        """Args → collect(scope) → (positional list, keyword dict)."""
        positional = tuple(self.expr(a) for a in args.positional)
        keywords = tuple((k, self.expr(v)) for k, v in args.keywords)
        star = self.expr(args.star) if args.star is not None else None
        dstar = self.expr(args.dstar) if args.dstar is not None else None

        def collect(s):
            pos = [a(s) for a in positional]
            kw = {k: v(s) for k, v in keywords}
            if star is not None:
                pos.extend(star(s))
            if dstar is not None:
                extra = dstar(s)
                for k in extra:
                    if k in kw:
                        raise TypeError(f"got multiple values for keyword argument {k!r}")
                kw.update(extra)
            return pos, kw
        return collect

    def e_Call(self, node):
        func_ev = self.expr(node.func)
        collect = self._args(node.args)
        span = node.span
        simple = not node.args.keywords and node.args.star is None and node.args.dstar is None
        positional = tuple(self.expr(a) for a in node.args.positional) if simple else None

        if simple:
            def ev(s):
                f = func_ev(s)
                args = [a(s) for a in positional]
                try:
                    return _call(f, args, {}, s.rs)
                except Exception as exc:
                    raise _located(exc, span)
            return ev

        def ev_general(s):
            f = func_ev(s)
            try:
                args, kwargs = collect(s)
                return _call(f, args, kwargs, s.rs)
            except Exception as exc:
                raise _located(exc, span)
        return ev_general

    def _filter_call(self, node, value_ev):
        """A Filter node → step(scope, value) (value_ev None) or ev(scope) (value from value_ev)."""
        name, span = node.name, node.span
        func = self.env.filters.get(name)
        if func is None:
            if not self.soft:
                raise _error_at(TemplateAssertionError, f"No filter named {name!r}.", span)
            func = _missing("filter", name, span)
        return self._apply(func, node.args, value_ev, span)

    def _apply(self, func, args, value_ev, span):
        no_args = not args.positional and not args.keywords and args.star is None and args.dstar is None
        if no_args and value_ev is not None:
            # the common case, x|trim or x is defined: one closure, no argument handling
            call_unary = charged_unary(func)

            def ev(s):
                value = value_ev(s)
                try:
                    return call_unary(s.rs, value)
                except Exception as exc:
                    raise _located(exc, span)
            return ev
        collect = None if no_args else self._args(args)
        call = charged(func)

        def step(s, value):
            try:
                if no_args:
                    return call(s.rs, value, (), {})
                pos, kw = collect(s)
                return call(s.rs, value, pos, kw)
            except Exception as exc:
                raise _located(exc, span)
        if value_ev is None:
            return step

        def ev_args(s):
            return step(s, value_ev(s))
        return ev_args

    def e_Filter(self, node):
        return self._filter_call(node, self.expr(node.value))

    def e_Test(self, node):
        name, span = node.name, node.span
        value_ev = self.expr(node.value)
        func = self.env.tests.get(name)
        if func is None:
            if not self.soft:
                raise _error_at(TemplateAssertionError, f"No test named {name!r}.", span)
            func = _missing("test", name, span)
        args = node.args
        if func in TYPE_TESTS and not (args.positional or args.keywords or args.star or args.dstar):
            return self._type_test(func, value_ev, node.negated, span)
        test = self._apply(func, args, value_ev, span)
        if node.negated:
            return lambda s: not test(s)
        if func in BOOL_TESTS:
            return test  # already a bool
        return lambda s: bool(test(s))

    @staticmethod
    def _type_test(func, value_ev, negated, span):
        """x is defined, x is not string...: one step, one call (chat templates test types in every loop)."""
        def ev(s):
            value = value_ev(s)
            rs = s.rs
            rs.fuel -= 1
            if rs.fuel < 0:
                rs.burn(0)
            try:
                result = func(value)
            except Exception as exc:
                raise _located(exc, span)
            return not result if negated else result
        return ev

    def _sum_chain(self, node):
        """a + b + c ... (left-associative) as one closure that adds the operands in Jinja2's order, each step
        with its own location: prompts are built this way, often a dozen strings long."""
        steps = []
        while isinstance(node, n.BinOp) and node.op == "+":
            steps.append((node.right, node.span))
            node = node.left
        first = self.expr(node)
        # a constant operand is kept as its value (None in place of a closure): no call to fetch it
        steps = tuple((None, right.value, span) if isinstance(right, n.Const) else (self.expr(right), None, span)
                      for right, span in reversed(steps))

        def ev(s):
            total = first(s)
            for operand, constant, span in steps:
                b = constant if operand is None else operand(s)
                try:
                    if type(total) is str and type(b) is str and len(total) + len(b) < 1024:
                        total = total + b  # short: nothing worth charging or checking
                    else:
                        total = _checked_add(s.rs, total, b)
                except Exception as exc:
                    raise _located(exc, span)
            return total
        return ev

    def e_BinOp(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        span = node.span
        checked = _CHECKED_BINOPS.get(node.op)
        if node.op == "+":
            return self._sum_chain(node)
        op = _BINOPS[node.op]
        if checked is not None:
            small_ints_are_cheap = node.op != "**"  # 2 ** 100000 is small ints too

            def ev(s):
                a = left(s)
                b = right(s)
                try:
                    if (small_ints_are_cheap and type(a) is int and type(b) is int
                            and -0xFFFFFFFF <= a <= 0xFFFFFFFF and -0xFFFFFFFF <= b <= 0xFFFFFFFF):
                        return op(a, b)  # loop.index0 % 2: nothing worth charging or checking
                    return checked(s.rs, a, b)
                except Exception as exc:
                    raise _located(exc, span)
            return ev

        def ev_plain(s):
            a = left(s)
            b = right(s)
            try:
                return op(a, b)
            except Exception as exc:
                raise _located(exc, span)
        return ev_plain

    def e_UnaryOp(self, node):
        operand = self.expr(node.operand)
        op = operator.neg if node.op == "-" else operator.pos
        span = node.span

        def ev(s):
            v = operand(s)
            try:
                return op(v)
            except Exception as exc:
                raise _located(exc, span)
        return ev

    def e_Not(self, node):
        operand = self._truth(node.operand)
        return lambda s: not operand(s)

    def e_And(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        span = node.left.span

        def ev(s):
            a = left(s)
            try:
                if not a:
                    return a
            except Exception as exc:
                raise _located(exc, span)
            return right(s)
        return ev

    def e_Or(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        span = node.left.span

        def ev(s):
            a = left(s)
            try:
                if a:
                    return a
            except Exception as exc:
                raise _located(exc, span)
            return right(s)
        return ev

    def e_Compare(self, node):
        first = self.expr(node.first)
        ops = tuple((_COMPARE[op], _COMPARE_COST[op], self.expr(x)) for op, x in node.ops)
        span = node.span
        if len(ops) == 1:
            (op, cost, right), = ops
            (name, other), = node.ops
            if isinstance(other, n.Const) and _cheap_operand(other.value) and name not in ("in", "not in"):
                # x == 'user', loop.index0 > 1: comparing anything with a short scalar takes constant time
                constant = other.value

                def ev_const(s):
                    a = first(s)
                    try:
                        return op(a, constant)
                    except Exception as exc:
                        raise _located(exc, span)
                return ev_const

            def ev1(s):
                a = first(s)
                b = right(s)
                try:
                    if not (type(a) is str and type(b) is str and len(a) < 1024 and len(b) < 1024
                            or _cheap_operand(a) and _cheap_operand(b)):
                        cost(s.rs, a, b)
                    return op(a, b)
                except Exception as exc:
                    raise _located(exc, span)
            return ev1

        def ev(s):
            a = first(s)
            for op, cost, right in ops:
                b = right(s)
                try:
                    if not (_cheap_operand(a) and _cheap_operand(b)):
                        cost(s.rs, a, b)
                    if not op(a, b):
                        return False
                except Exception as exc:
                    raise _located(exc, span)
                a = b
            return True
        return ev

    def _folded_by_jinja2(self, node):
        """Would Jinja2's optimizer fold this expression to a constant at compile time?"""
        folded = self._folded_by_jinja2
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
            known = self.env.filters if isinstance(node, n.Filter) else self.env.tests
            args = node.args
            return (node.name in known and node.name not in _CONTEXT_FILTERS and node.value is not None
                    and args.star is None and args.dstar is None and folded(node.value)
                    and all(map(folded, args.positional)) and all(folded(v) for _, v in args.keywords))
        return False

    def e_Concat(self, node):
        items = tuple((None, x.value) if isinstance(x, n.Const) else (self.expr(x), None) for x in node.items)
        span = node.span
        # Jinja2 quirk: a `~` of constants is folded at compile time by joining str() of each part, so under
        # autoescape {{ '<b>'|safe ~ 'x' }} loses its Markup and is escaped whole, while {{ b ~ 'x' }} is not
        autoescape = self.autoescape and not all(self._folded_by_jinja2(x) for x in node.items)

        def ev(s):
            values = [constant if item is None else item(s) for item, constant in items]
            try:
                rs = s.rs
                if autoescape and any(hasattr(v, "__html__") for v in values):
                    parts = [escape(v if isinstance(v, str) or hasattr(v, "__html__") else to_str(v, rs))
                             for v in values]
                    total = sum(map(len, parts))
                    check_str_size(rs.limits, total)
                    rs.burn(total >> CHAR_SHIFT)
                    return Markup("".join(parts))
                parts = [v if type(v) is str else to_str(v, rs) for v in values]
                total = 0
                for p in parts:
                    total += len(p)
                if total > rs.limits.max_string:
                    check_str_size(rs.limits, total)
                rs.burn(total >> CHAR_SHIFT)
                return "".join(parts)
            except Exception as exc:
                raise _located(exc, span)
        return ev

    def e_CondExpr(self, node):
        # the whole expression, test included, is a "soft" place as in Jinja2: an unknown filter or test there
        # fails only when it is evaluated
        with self._scoped(soft=True):
            test = self._truth(node.test)
            then = self.expr(node.then)
            else_ = self.expr(node.else_) if node.else_ is not None else None
        if else_ is None:
            hint = (f"the inline if-expression on line {node.span.line} evaluated to false and no else section "
                    "was defined.")
            # Jinja2 quirk: the missing else is always the default Undefined, whatever the environment's class
            return lambda s: then(s) if test(s) else Undefined(hint)
        return lambda s: then(s) if test(s) else else_(s)


def _missing(kind, name, span):
    """An unknown filter or test where Jinja2 defers the error to run time (inside an if): like Jinja2's stand-in,
    it fails when called, after the value and the arguments were evaluated (and, taking no keyword arguments,
    with a TypeError when given some)."""
    def missing(*args, **kwargs):
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        raise _error_at(TemplateRuntimeError, f"No {kind} named {name!r} found.", span)
    return missing


def _call(func, args, kwargs, rs):
    """Call a value from a template: macros, the sandbox's checked methods, globals, the caller's functions."""
    if isinstance(func, Undefined):
        return func._fail_with_undefined_error()
    if type(func) is Macro:
        return func(*args, **kwargs)  # charges its own body
    rs.burn(1)
    if func is Namespace or type(func) is DictFactory:
        for value in (*args, *kwargs.values()):
            charge_tree(rs, value)  # their keys are hashed
    if getattr(func, "mj_pass_state", False) and not isinstance(func, (Macro, Namespace, LoopContext)):
        return charge_result(rs, func(rs, *args, **kwargs))
    if isinstance(func, type) and issubclass(func, BaseException):
        raise SecurityError(f"{func.__name__!r} cannot be called from a template")
    return charge_result(rs, func(*args, **kwargs))
