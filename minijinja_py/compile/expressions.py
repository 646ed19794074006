"""Expressions: AST expression nodes → `ev(f)` closures with Jinja2's value semantics and their costs."""

# Every closure that can fail attaches its node's span to the error (errors.located), so the innermost location
# wins. Attribute and item reads of a plain dict are done in line — the shape of nearly every read in a chat
# template — and everything else goes through sandbox.py. A variable is a slot of the frame (symbols.py).
#
# These are the general closures: kernels (kernels/) fall back to them.

import operator
from operator import itemgetter

from ..analysis.symbols import PARAM, node_count
from .calls import compile_call, compile_filter, compile_test
from .comparisons import condition, e_compare
from .context import (
    constant_index, constant_key, constant_literal, constant_reader, dict_key, folded_by_jinja2, local_slot, two_keys_reader,
)
from .operators import e_binop
from ..core.budget import charge_result, guard
from ..core.errors import located, location
from ..core.state import CHAR_SHIFT, MISSING, check_str_size, out_of_fuel
from ..runtime.markup import Markup, escape
from ..runtime.objects import ChatNamespace, LoopContext
from ..runtime.printing import to_str
from ..runtime.sandbox import DICT_ATTRS, DICT_MUTATORS, getattr_, getitem_
from ..runtime.undefined import Undefined
from ..syntax import nodes as n

__all__ = ["EXPRESSIONS", "LOOP_FIELDS", "truth", "truth_of", "DICT_ATTRS", "DICT_MUTATORS", "e_binop", "e_compare",
           "lookup_steps"]

# loop attributes that are plain properties (loop.cycle and loop.changed are methods: the sandbox wraps those)
LOOP_FIELDS = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth", "depth0",
                          "previtem", "nextitem"})


def truth(c, node):
    # ev(f) → bool(value), located at node if truth-testing fails (StrictUndefined).
    return truth_of(c.expr(node), node)


def truth_of(ev, node):
    # truth for node's closure ev, compiled already.
    if isinstance(node, (n.Not, n.Test)):
        return ev   # already a bool
    span = node.span

    def test(f, ev=ev, span=span):
        try:
            return True if ev(f) else False
        except Exception as exc:
            raise located(exc, span)
    return test


# --------------------------------------------------------------------------------------------- atoms
def e_const(c, node):
    return _constant(c, node.value)


def _constant(c, value):
    key = ("const", constant_key(value))
    found = c.shared.get(key)   # one closure per constant of the template
    if found is None:
        found = c.shared[key] = constant_reader(value)
    return found


def e_name(c, node):
    name = node.name
    depth, slot, kind = c.variable(name)
    key = ("name", depth, slot, kind == PARAM, name)
    found = c.shared.get(key)   # one closure per variable read the same way (in any frame of the template)
    if found is None:
        found = c.shared[key] = _name_reader(name, depth, slot, kind)
    return found


def _name_reader(name, depth, slot, kind):
    if depth == 0 and kind == PARAM:
        return itemgetter(slot)
    if depth == 0:
        def ev_local(f, name=name, slot=slot):
            value = f[slot]
            if value is MISSING:   # not assigned yet, or not found: a new undefined for each read, as Jinja2
                return f[0].undefined(name=name)
            return value
        return ev_local

    def ev(f, depth=depth, name=name, slot=slot):
        frame = f
        for _ in range(depth):
            frame = frame[1]
        value = frame[slot]
        if value is MISSING:
            return f[0].undefined(name=name)
        return value
    return ev


def e_tuple(c, node):
    folded = constant_literal(c, node)
    if folded is not MISSING:
        return constant_reader(folded)   # immutable: the same tuple every time
    items = tuple(map(c.expr, node.items))
    return lambda f, items=items: tuple([ev(f) for ev in items])


def e_list(c, node):
    values = tuple(constant_literal(c, x) for x in node.items)
    if MISSING not in values:   # `[('maximum', 'Maximum'), ...]`: a new list of the constants each time
        return lambda f, values=values: list(values)
    items = tuple(map(c.expr, node.items))
    if len(items) == 1:   # `parts + [item]`: no comprehension (a Python frame: a level of the recursion limit)
        only, = items
        return lambda f, only=only: [only(f)]
    return lambda f, items=items: [ev(f) for ev in items]


def e_dict(c, node):
    pairs = tuple((c.expr(k), c.expr(v)) for k, v in node.pairs)
    span = node.span

    def ev(f, pairs=pairs, span=span):
        # as a Python dict display (Jinja2 compiles to one): every key and value is computed before any key is
        # hashed, so an error in a later value comes before an unhashable key
        items = [(k(f), v(f)) for k, v in pairs]
        try:
            for key, _ in items:
                if type(key) is tuple:
                    guard(f[0], key)
            return dict(items)
        except Exception as exc:
            raise located(exc, span)
    return ev


# ------------------------------------------------------------------------------------------------ lookups
def e_lookup(c, node):
    # x.a.b, x['a'][i], messages[idx]['role'], tool_call.function.arguments...: a chain of lookups from a variable
    # — constant keys, or an int variable indexing a list — walked in one closure while every step is a plain dict
    # that has the key or a list that has the index; else the general lookups, step by step.
    general = e_getattr(c, node) if node.__class__ is n.Getattr else e_getitem(c, node)
    if node.obj.__class__ is n.Name:
        return general   # one lookup (`m.role`, the commonest): no chain for lookup_steps, which takes two or more
    steps = lookup_steps(c, node)
    if steps is None:
        return general
    root, steps = steps
    root_slot = local_slot(c, _lookup_root(node))
    if root_slot is not None:
        root = itemgetter(root_slot)   # MISSING (undefined) is neither dict nor list: the general path takes it
    if len(steps) == 2 and steps[1][1] is None:
        return _two_lookups(root, steps, general)
    if all(index is None for _, index in steps):
        return _constant_lookups(root, steps, general)

    def ev(f, general=general, root=root, steps=steps):
        obj = root(f)
        for key, index in steps:
            if index is not None:
                key = f[index]
            if type(key) is int:   # a list's item (a constant index, or a loop variable's)
                if type(obj) is list and -len(obj) <= key < len(obj):
                    obj = obj[key]
                    continue
                return general(f)
            if type(obj) is not dict or type(key) is not str or key not in obj:
                return general(f)
            obj = obj[key]
        return obj
    return ev


def lookup_steps(c, node):
    # (root ev, ((key, None) or (None, slot of the index variable), ...)) for a chain of at least two lookups
    # e_lookup can walk, else None. A key is a str, or an int: a constant index (`messages[-1]['role']`).
    steps = []
    current = node
    while current.__class__ is n.Getattr or current.__class__ is n.Getitem:
        key = dict_key(current)
        if key is None and current.__class__ is n.Getitem:
            key = constant_index(current.key)
        if key is not None:
            steps.append((key, None))
        elif current.__class__ is n.Getitem and current.key.__class__ is n.Name:
            depth, slot, kind = c.variable(current.key.name)
            if depth != 0 or kind != PARAM:
                return None
            steps.append((None, slot))
        else:
            return None
        current = current.obj
    if len(steps) < 2 or current.__class__ is not n.Name:
        return None
    return c.expr(current), tuple(reversed(steps))


def e_getattr(c, node):
    attr, span = node.attr, node.span
    if not (attr in LOOP_FIELDS or attr in DICT_ATTRS or attr in DICT_MUTATORS or attr[:1] == "_"):
        slot = local_slot(c, node.obj)
        if slot is not None:
            return _local_key(slot, node.obj.name, attr, span)
    obj_ev = c.expr(node.obj)
    if attr in LOOP_FIELDS:
        slot = local_slot(c, node.obj)
        if slot is not None and attr in _LOOP_COUNTERS:
            return _loop_counter(slot, attr, obj_ev, span)

        def ev_loop(f, attr=attr, obj_ev=obj_ev, span=span):
            obj = obj_ev(f)
            if type(obj) is LoopContext:
                return getattr(obj, attr)  # loop.index and friends: plain properties the sandbox allows
            try:
                return getattr_(obj, attr, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_loop
    if not (attr in DICT_ATTRS or attr in DICT_MUTATORS or attr[:1] == "_"):
        def ev_key(f, attr=attr, obj_ev=obj_ev, span=span):
            obj = obj_ev(f)
            if type(obj) is dict:
                if attr in obj:
                    return obj[attr]
                return f[0].undefined(obj=obj, name=attr)
            try:
                return getattr_(obj, attr, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_key

    def ev(f, attr=attr, obj_ev=obj_ev, span=span):
        obj = obj_ev(f)
        try:
            return getattr_(obj, attr, f[0])
        except Exception as exc:
            raise located(exc, span)
    return ev


def e_getitem(c, node):
    span = node.span
    key = node.key.value if node.key.__class__ is n.Const else constant_index(node.key)
    if type(key) is str and key[:1] != "_":
        slot = local_slot(c, node.obj)
        if slot is not None:
            return _local_key(slot, node.obj.name, key, span, item=True)
    obj_ev = c.expr(node.obj)
    if isinstance(node.key, n.Slice):
        return _slice_item(c, obj_ev, node.key, span)
    if type(key) is int or type(key) is str and key[:1] != "_":
        # a plain dict without the key: undefined, as the sandbox's lookup decides when no dict method has the name
        undefined_if_missing = type(key) is str and key not in DICT_ATTRS and key not in DICT_MUTATORS
        if type(key) is str:
            def ev_str(f, key=key, obj_ev=obj_ev, span=span, undefined_if_missing=undefined_if_missing):
                obj = obj_ev(f)
                if type(obj) is dict:
                    if key in obj:
                        return obj[key]
                    if undefined_if_missing:
                        return f[0].undefined(obj=obj, name=key)
                try:
                    return getitem_(obj, key, f[0])
                except Exception as exc:
                    raise located(exc, span)
            return ev_str

        def ev_int(f, key=key, obj_ev=obj_ev, span=span):
            obj = obj_ev(f)
            if type(obj) is list and -len(obj) <= key < len(obj):
                return obj[key]
            try:
                return getitem_(obj, key, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_int
    key_ev = c.expr(node.key)

    def ev(f, key_ev=key_ev, obj_ev=obj_ev, span=span):
        obj = obj_ev(f)
        key = key_ev(f)
        kind = type(key)
        if kind is int:
            if type(obj) is list and -len(obj) <= key < len(obj):
                return obj[key]   # messages[loop.index0 - 1]
        elif kind is str:
            if type(obj) is dict and key in obj and key[:1] != "_":
                return obj[key]
        else:
            try:
                guard(f[0], key)  # hashed by a dict lookup
            except Exception as exc:
                raise located(exc, span)
        try:
            return getitem_(obj, key, f[0])
        except Exception as exc:
            raise located(exc, span)
    return ev


def _loop_field(obj, attr, span, f):
    # obj.<attr> for loop.index and friends: a loop context's plain properties (the sandbox allows them), read
    # directly; anything else through the sandbox.
    if type(obj) is LoopContext:
        return getattr(obj, attr)
    try:
        return getattr_(obj, attr, f[0])
    except Exception as exc:
        raise located(exc, span)


_LOOP_COUNTERS = frozenset({"index", "index0", "first", "last"})


def _loop_counter(slot, attr, obj_ev, span):
    # ev(f) of loop.index, loop.index0, loop.first or loop.last where `loop` is a variable of this frame: the
    # loop context's count read in line (its properties compute no more than this; loop.last before the end of a
    # list, else its property, which spends the walk); anything else the variable holds through _loop_field.
    if attr == "last":
        def ev_last(f, obj_ev=obj_ev, slot=slot, span=span):
            loop = f[slot]
            if type(loop) is not LoopContext:
                return _loop_field(obj_ev(f), "last", span, f)
            items = loop._items
            return False if items is not None and loop.index0 + 1 < len(items) else loop.last
        return ev_last
    if attr == "index0":
        def ev_index0(f, obj_ev=obj_ev, slot=slot, span=span):
            loop = f[slot]
            return loop.index0 if type(loop) is LoopContext else _loop_field(obj_ev(f), "index0", span, f)
        return ev_index0
    if attr == "index":
        def ev_index(f, obj_ev=obj_ev, slot=slot, span=span):
            loop = f[slot]
            return loop.index0 + 1 if type(loop) is LoopContext else _loop_field(obj_ev(f), "index", span, f)
        return ev_index

    def ev_first(f, obj_ev=obj_ev, slot=slot, span=span):
        loop = f[slot]
        return loop.index0 == 0 if type(loop) is LoopContext else _loop_field(obj_ev(f), "first", span, f)
    return ev_first


def _local_key(slot, name, key, span, item=False):
    # ev(f) of `var.key` / `var['key']` (a str key: for an attribute, not a dict method's name) of a variable of
    # this frame: a plain dict's key read in line, a plain dict without it undefined (for an item named as a dict
    # method, the method: the sandbox's lookup); anything else through the sandbox (the variable unassigned: an
    # undefined of its name, as its own read makes).
    if item and (key in DICT_ATTRS or key in DICT_MUTATORS):
        def ev_local_method_name(f, key=key, name=name, slot=slot, span=span):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                return obj[key]
            try:
                return getitem_(obj if obj is not MISSING else f[0].undefined(name=name), key, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_local_method_name
    lookup = getitem_ if item else getattr_

    def ev_local_key(f, key=key, lookup=lookup, name=name, slot=slot, span=span):
        obj = f[slot]
        if type(obj) is dict:
            if key in obj:
                return obj[key]
            return f[0].undefined(obj=obj, name=key)
        if type(obj) is ChatNamespace and lookup is getattr_ and key[:1] != "_":
            # `ns.found`: an attribute a namespace holds read in line, as the sandbox reads it (not an item,
            # which the sandbox looks up another way, nor a `_` name, which it checks first)
            value = obj._attrs.get(key, MISSING)
            if value is not MISSING:
                return value
        try:
            return lookup(obj if obj is not MISSING else f[0].undefined(name=name), key, f[0])
        except Exception as exc:
            raise located(exc, span)
    return ev_local_key


def _slice_item(c, obj_ev, key, span):
    # Jinja2 quirk: slices bypass the sandbox's item-then-attribute lookup and subscript directly, so none[1:]
    # and generator[1:] raise TypeError instead of giving undefined
    slice_ev = e_slice(c, key)

    def ev(f, obj_ev=obj_ev, slice_ev=slice_ev, span=span):
        obj = obj_ev(f)
        key = slice_ev(f)
        try:
            if isinstance(obj, Undefined):
                return getitem_(obj, key, f[0])
            return charge_result(f[0], obj[key])
        except Exception as exc:
            raise located(exc, span)
    return ev


def e_slice(c, node):
    start, stop, step = (c.expr(x) if x is not None else None for x in (node.start, node.stop, node.step))
    return lambda f: slice(start(f) if start else None, stop(f) if stop else None, step(f) if step else None)


def _lookup_root(node):
    while isinstance(node, (n.Getattr, n.Getitem)):
        node = node.obj
    return node


def _two_lookups(root, steps, general):
    # e_lookup of x['a']['b'], x[i]['b'] (messages[idx]['role']) or x[-1]['b']: both steps in line.
    (key1, index), (key2, _) = steps
    if type(key1) is str:
        return two_keys_reader(root, key1, key2, general)

    def ev_index(f, general=general, index=index, key1=key1, key2=key2, root=root):
        obj = root(f)
        i = key1 if index is None else f[index]
        if type(obj) is list and type(i) is int:
            try:
                obj = obj[i]
            except IndexError:   # out of range: the general path's undefined
                return general(f)
            if type(obj) is dict and key2 in obj:
                return obj[key2]
        return general(f)
    return ev_index


def _constant_lookups(root, steps, general):
    # e_lookup of a chain of constant keys and indexes (`m['tool_calls'][0]['function']['name']`), any length: each
    # step's container class known when it compiles (a str key's a dict, an int's a list), checked before it is
    # read; a plain dict without the key or a list without the index raises (nothing else can: no caller's code
    # runs) and takes the general path, which reads again and finds what Jinja2 finds.
    kinds = tuple((list if type(key) is int else dict, key) for key, _ in steps)

    def ev_constant(f, general=general, kinds=kinds, root=root):
        obj = root(f)
        try:   # (general called outside: a caller's LookupError from it is its own)
            for kind, key in kinds:
                if type(obj) is not kind:
                    break
                obj = obj[key]
            else:
                return obj
        except LookupError:
            pass
        return general(f)
    return ev_constant


def e_unary(c, node):
    op = operator.neg if node.op == "-" else operator.pos
    if node.operand.__class__ is n.Const and type(node.operand.value) in (int, float):
        return _constant(c, op(node.operand.value))   # `-1`: a constant, as Jinja2's optimizer folds it
    operand_ev = c.expr(node.operand)
    span = node.span

    def ev(f, op=op, operand_ev=operand_ev, span=span):
        v = operand_ev(f)
        try:
            return op(v)
        except Exception as exc:
            raise located(exc, span)
    return ev


# ---------------------------------------------------------------------------------------------- logic
def e_not(c, node):
    # `not loop.last` (in an and/or chain, an output): where the variable of this frame holds a loop context, its
    # count read in line as _loop_counter reads it; anything else (and any other operand) through its truth.
    test, operand = truth(c, node.operand), node.operand
    slot = local_slot(c, operand.obj) if operand.__class__ is n.Getattr and operand.attr in ("first", "last") else None
    if slot is None:
        return lambda f, test=test: not test(f)

    def not_loop_flag(f, first=operand.attr == "first", slot=slot, test=test):
        loop = f[slot]
        if type(loop) is not LoopContext:
            return not test(f)
        items = loop._items
        return loop.index0 != 0 if first else items is not None and loop.index0 + 1 < len(items) or not loop.last
    return not_loop_flag


def e_and(c, node):
    left, right = c.expr(node.left), c.expr(node.right)
    span = node.left.span

    def ev(f, left=left, right=right, span=span):
        a = left(f)
        try:
            if not a:
                return a
        except Exception as exc:
            raise located(exc, span)
        return right(f)
    return ev


def e_or(c, node):
    left, right = c.expr(node.left), c.expr(node.right)
    span = node.left.span

    def ev(f, left=left, right=right, span=span):
        a = left(f)
        try:
            if a:
                return a
        except Exception as exc:
            raise located(exc, span)
        return right(f)
    return ev


def e_cond(c, node):
    # the whole expression, test included, is a "soft" place as in Jinja2: an unknown filter or test there fails
    # only when it is evaluated
    with c.flags(soft=True, rootlevel=c.rootlevel, toplevel=c.toplevel):
        test = condition(c, node.test)
        then = c.expr(node.then)
        else_ = c.expr(node.else_) if node.else_ is not None else None
    # the weight of the statement around this expression counts its test; a branch pays for its nodes when taken
    then = _paying(then, node_count(node.then))
    if else_ is None:
        hint = (f"the inline if-expression on line {location(node.span)[0]} evaluated to false and no else section was "
                "defined.")
        # Jinja2 quirk: the missing else is always the default Undefined, whatever the environment's class
        return lambda f, then=then, test=test, hint=hint: then(f) if test(f) else Undefined(hint)
    else_ = _paying(else_, node_count(node.else_))
    return lambda f, then=then, test=test, else_=else_: then(f) if test(f) else else_(f)


def _paying(ev, steps):
    # ev, charging `steps` to the render each time it runs (none: ev itself).
    if not steps:
        return ev

    def ev_paid(f, ev=ev, steps=steps):
        rs = f[0]
        rs.fuel -= steps
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        return ev(f)
    return ev_paid


# ------------------------------------------------------------------------------------------------- concat


def e_concat(c, node):
    items = tuple((None, x.value) if isinstance(x, n.Const) else (c.expr(x), None) for x in node.items)
    span = node.span
    # Jinja2 quirk: a `~` of constants is folded at compile time by joining str() of each part, so under
    # autoescape {{ '<b>'|safe ~ 'x' }} loses its Markup and is escaped whole, while {{ b ~ 'x' }} is not
    if c.autoescape and not all(folded_by_jinja2(c, x) for x in node.items):
        return _escaping_concat(items, span)
    # the constants laid out once, the operands evaluated into their places (every one, in order, as Jinja2),
    # then each printed (str() of it, as Jinja2's str_join) where it is not text yet and the whole sized before
    # it is joined
    values_start = tuple(constant for _, constant in items)
    operands = tuple((index, item) for index, (item, _) in enumerate(items) if item is not None)
    printed = tuple(index for index, (item, constant) in enumerate(items) if item is not None or
                    type(constant) is not str)
    constant_size = sum(len(constant) for item, constant in items if item is None and type(constant) is str)

    def ev_concat(f, values_start=values_start, operands=operands, printed=printed, constant_size=constant_size,
                  span=span):
        values = [*values_start]
        for index, item in operands:
            values[index] = item(f)
        try:
            rs, total = f[0], constant_size
            for index in printed:
                value = values[index]
                if type(value) is not str:
                    value = values[index] = to_str(value, rs)
                total += len(value)
            if total > rs.limits.max_string:
                check_str_size(rs.limits, total)
            rs.fuel -= total >> CHAR_SHIFT
            if rs.fuel < 0:
                raise out_of_fuel(rs.limits)
            return "".join(values)
        except Exception as exc:
            raise located(exc, span)
    return ev_concat


def _escaping_concat(items, span):
    # e_concat under autoescape: pieces with an __html__ make the whole a Markup, the others escaped.
    def ev(f, items=items, span=span):
        values = [constant if item is None else item(f) for item, constant in items]
        try:
            rs = f[0]
            if any(hasattr(v, "__html__") for v in values):
                parts = [escape(v if isinstance(v, str) or hasattr(v, "__html__") else to_str(v, rs))
                         for v in values]
                total = sum(map(len, parts))
                check_str_size(rs.limits, total)
                rs.burn(total >> CHAR_SHIFT)
                return Markup("".join(parts))
            # str() of each part; under autoescape Jinja2 joins a str subclass's own text (a (str, Enum))
            parts = [v if isinstance(v, str) else to_str(v, rs) for v in values]
            total = sum(map(len, parts))
            if total > rs.limits.max_string:
                check_str_size(rs.limits, total)
            rs.burn(total >> CHAR_SHIFT)
            return "".join(parts)
        except Exception as exc:
            raise located(exc, span)
    return ev


def e_filter(c, node):
    return compile_filter(c, node)[0]


EXPRESSIONS = {
    n.Const: e_const, n.Filter: e_filter, n.Name: e_name, n.TupleExpr: e_tuple, n.ListExpr: e_list, n.DictExpr: e_dict,
    n.Getattr: e_lookup, n.Getitem: e_lookup, n.Slice: e_slice, n.Call: compile_call,
    n.Test: compile_test, n.BinOp: e_binop, n.UnaryOp: e_unary, n.Not: e_not, n.And: e_and, n.Or: e_or,
    n.Compare: e_compare, n.Concat: e_concat, n.CondExpr: e_cond,
}
