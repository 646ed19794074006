"""Operands: where a general closure reads a child's value in line, decided at compile time — a variable of the
frame (its slot), a chain of constant keys from one (a plain dict's items, as the general lookup reads them), a
loop variable indexing a list — and which constants compare in constant time; the child's own closure reads
anything else; and which expressions Jinja2's optimizer folds to a constant. Used by the general compilers
(expressions, operators, comparisons, calls, output, statements) and by lower.py.
"""

from operator import itemgetter

from ..analysis.symbols import PARAM
from ..analysis.transforms import CONTEXT_FILTERS
from ..builtins.tests import test_false, test_true
from ..core.state import MISSING
from ..runtime.sandbox import DICT_ATTRS, DICT_MUTATORS
from ..syntax import nodes as n

__all__ = ["DICT_NAMES", "operand", "in_line_place", "cheap_constant", "local_slot", "key_path",
           "read_path", "path_reader", "two_keys_reader", "dict_key", "constant_index", "constant_literal",
           "constant_key", "folded_by_jinja2", "type_answers"]


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
    return local_slot(c, node), None, ev


def in_line_place(c, node):
    # operand's (slot, key) for node without compiling it ((None, None) when it is not one).
    if node.__class__ is _GETATTR or node.__class__ is _GETITEM:
        key = dict_key(node)
        slot = local_slot(c, node.obj) if key is not None else None
        return (slot, key) if slot is not None else (None, None)
    return local_slot(c, node), None


def local_slot(c, node):
    # The slot of node when it is a variable of this frame (read in line by the closure that consumes it: the
    # slot holds its value, or MISSING when it is undefined), else None.
    if node.__class__ is _NAME:
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
    slot = local_slot(c, node)
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
