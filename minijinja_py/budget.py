"""Budget: an operation on template data → the steps it costs, charged to the render before the work is done.

A render starts with `limits.max_steps` of fuel (RenderState.burn spends it; running dry raises LimitExceeded
naming max_steps). The price list, chosen so that fuel bounds both time and the memory a render can build:

  * running a statement: its own template nodes (tags, expressions; the blocks nested in it charge when they
    run), so the budget follows the work actually done;
  * a loop iteration: 1; a macro or caller() call: 10 and its parameters; a recursive loop() call: 20;
  * a filter, test, method or function call: 1;
  * data an operation reads or builds: 1 per item of a list/tuple/dict/set, 1 per 16 characters of a string,
    1 per 64 bits of a big integer — so one render builds at most max_steps × 16 characters, whatever it keeps;
  * comparing, hashing or serialising nested data: 1 per node of the data *seen as a tree* (a list shared n
    times counts n times, as Python's == or json.dumps would visit it). tree_size() measures that without
    walking a shared part twice, so `(t, t)` nested 80 deep is refused at once instead of hashing for ages.
  * {% set x = x ~ piece %} (or ns.x, or +) is refunded the copy of the old value when nothing else holds it:
    the render kept only the growth, and pays for it and for the copying time (1 step per 1024 characters).

Data nested deeper than limits.max_data_depth, or containing itself, is refused by the same walk
(LimitExceeded naming max_data_depth) before Python's own recursion would fail on it.
"""

import types
from itertools import chain
from operator import length_hint

from .runtime import limit_exceeded

__all__ = [
    "CHAR_SHIFT", "text_steps", "shallow_steps", "charge_result", "charged_generator", "tree_size",
    "charge_tree", "charge_compare", "charge_contains", "charge_hash", "charge_int_op", "charged", "charged_unary",
    "charged_call",
    "check_str_size", "check_items", "check_depth",
]

CHAR_SHIFT = 4                 # 1 step per 2**4 characters
_BIG_STR = 1 << 10             # shorter strings are not worth a charge where they are only compared
_CONTAINERS = (list, tuple, dict, set, frozenset)
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


def text_steps(size):
    return size >> CHAR_SHIFT


def shallow_steps(value):
    """What reading or building value costs, not looking inside its items."""
    cls = type(value)
    if cls is str:
        return len(value) >> CHAR_SHIFT
    if cls is list or cls is tuple or cls is dict:
        return len(value)
    if isinstance(value, str):
        return len(value) >> CHAR_SHIFT
    if isinstance(value, (list, tuple, dict, set, frozenset, range) + _VIEWS):
        return len(value)
    if cls is int and (value > 0xFFFFFFFFFFFFFFFF or value < -0xFFFFFFFFFFFFFFFF):
        return value.bit_length() >> 6
    return 0


# --------------------------------------------------------------------------------------------- size checks
def check_str_size(limits, size, what="a string"):
    if size > limits.max_string:
        raise limit_exceeded(limits, "max_string", f"{what} of {size} characters")


def check_items(limits, count, what="a list"):
    if count > limits.max_items:
        raise limit_exceeded(limits, "max_items", f"{what} of {count} items")


def check_depth(limits, depth):
    if depth > limits.max_data_depth:
        raise limit_exceeded(limits, "max_data_depth", "data nested this deep")


# ----------------------------------------------------------------------------------------------- results
def charge_result(rs, value):
    """Charge what a call handed back and check its size; a generator is wrapped so that its items are charged
    as they are pulled. Returns the value to use."""
    cls = type(value)
    if cls is str or isinstance(value, str):
        size = len(value)
        if size > rs.limits.max_string:
            check_str_size(rs.limits, size)
        rs.burn(size >> CHAR_SHIFT)
    elif cls is list or cls is tuple or cls is dict:
        size = len(value)
        if size > rs.limits.max_items:
            check_items(rs.limits, size)
        rs.burn(size)
    elif cls is types.GeneratorType:
        return charged_generator(rs, value)
    elif cls is bytes or cls is bytearray:
        rs.burn(len(value) >> CHAR_SHIFT)
    elif cls is int:
        rs.burn(shallow_steps(value))
    return value


def charged_generator(rs, generator):
    """A generator yielding what `generator` yields, charging each item; prints as the original does."""
    def pull():
        limits = rs.limits
        count = 0
        for item in generator:
            count += 1
            if count > limits.max_items:
                check_items(limits, count, "an iteration")
            rs.burn(1 + shallow_steps(item))
            yield item
    wrapped = pull()
    wrapped.__name__ = generator.__name__
    wrapped.__qualname__ = generator.__qualname__
    return wrapped


# ------------------------------------------------------------------------------------------ nested data
def _children(value):
    if isinstance(value, dict):
        return chain.from_iterable(value.items())
    return iter(value)


def tree_size(rs, value, limit=None):
    """The number of nodes of value seen as a tree (shared parts counted every time they are reached), found
    without walking a shared part twice. Raises LimitExceeded('max_steps') as soon as the count passes `limit`
    (default: the fuel left), and LimitExceeded('max_data_depth') for data too deep or containing itself."""
    if not isinstance(value, _CONTAINERS):
        return 1
    if limit is None:
        limit = max(rs.fuel, 0)
    limits = rs.limits
    max_depth = limits.max_data_depth
    known = {}                 # id → size of a container already measured in this walk
    on_path = {id(value)}      # ids of the containers being measured (a repeat is a cycle)
    stack = [[value, _children(value), 1]]
    while True:
        frame = stack[-1]
        for child in frame[1]:
            if isinstance(child, _CONTAINERS) and len(child):
                key = id(child)
                size = known.get(key)
                if size is None:
                    if key in on_path:
                        raise limit_exceeded(limits, "max_data_depth", "data that contains itself (cyclic data)")
                    if len(stack) >= max_depth:
                        raise limit_exceeded(limits, "max_data_depth", f"data nested more than {max_depth} deep")
                    on_path.add(key)
                    stack.append([child, _children(child), 1])
                    break
                frame[2] += size
            else:
                frame[2] += 1
            if frame[2] > limit:
                raise limit_exceeded(limits, "max_steps", "the work of this render")
        else:
            stack.pop()
            key = id(frame[0])
            on_path.discard(key)
            known[key] = frame[2]
            if not stack:
                return frame[2]
            stack[-1][2] += frame[2]
            if stack[-1][2] > limit:
                raise limit_exceeded(limits, "max_steps", "the work of this render")


def charge_tree(rs, value):
    """Charge a walk over all of value (comparison, hashing, serialisation)."""
    if isinstance(value, _CONTAINERS):
        rs.burn(tree_size(rs, value))


def charge_compare(rs, a, b):
    """a == b, a < b, ...: strings cost their shared length, nested data its tree size."""
    ta, tb = type(a), type(b)
    if ta is str and tb is str:
        size = min(len(a), len(b))
        if size > _BIG_STR:
            rs.burn(size >> CHAR_SHIFT)
        return
    if isinstance(a, _CONTAINERS) and isinstance(b, _CONTAINERS):
        charge_tree(rs, a)
        charge_tree(rs, b)
    elif ta is int and tb is int:
        rs.burn(shallow_steps(a))


def charge_contains(rs, item, container):
    """item in container: a scan of a string or sequence, a hash for a mapping or set."""
    cls = type(container)
    if cls is str or isinstance(container, str):
        if len(container) > _BIG_STR:
            rs.burn(len(container) >> CHAR_SHIFT)
    elif isinstance(container, (list, tuple)):
        rs.burn(len(container))
        if isinstance(item, _CONTAINERS):
            charge_tree(rs, item)
            charge_tree(rs, container)
    elif isinstance(container, (dict, set, frozenset) + _VIEWS):
        charge_hash(rs, item)


def charge_hash(rs, key):
    """hash(key): Python re-hashes a tuple's items every time, so a nested tuple costs its tree size."""
    if isinstance(key, (tuple, frozenset)):
        charge_tree(rs, key)


def charge_int_op(rs, a, b):
    """Arithmetic on big integers costs by their size (division by the product of the sizes)."""
    rs.burn(((a.bit_length() >> 6) + 1) * ((b.bit_length() >> 6) + 1) >> 6)


# --------------------------------------------------------------------------------------- filters and tests
# How a builtin filter or test reads its input, by (module, function name): user-registered functions are not
# in this table and only pay for their call and their result.
_ITERATES = "iterates"          # walks the input once
_TREE = "tree"                  # compares or hashes the items (sort, unique, ...)
_COMPARE = "compare"            # compares value with its first argument
_CONTAINS = "contains"          # value in argument
_FILTERS = "minijinja_py.filters"
_POLICIES = {
    (_FILTERS, "do_list"): _ITERATES, (_FILTERS, "do_join"): _ITERATES, (_FILTERS, "do_sum"): _ITERATES,
    (_FILTERS, "do_batch"): _ITERATES, (_FILTERS, "do_slice"): _ITERATES, (_FILTERS, "do_reverse"): _ITERATES,
    (_FILTERS, "do_sort"): _TREE, (_FILTERS, "do_unique"): _TREE, (_FILTERS, "do_dictsort"): _TREE,
    (_FILTERS, "do_groupby"): _TREE, (_FILTERS, "do_min"): _TREE, (_FILTERS, "do_max"): _TREE,
    ("minijinja_py.tests", "test_in"): _CONTAINS,
}
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _POLICIES[("minijinja_py.tests", "test_" + _name)] = _COMPARE
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _POLICIES[("_operator", _name)] = _POLICIES[("operator", _name)] = _COMPARE
_policy_cache = {}


def _policy(func):
    try:
        return _policy_cache[func]
    except KeyError:
        pass
    except TypeError:  # an unhashable callable
        return None
    policy = _POLICIES.get((getattr(func, "__module__", None), getattr(func, "__name__", None)))
    if len(_policy_cache) < 4096:
        _policy_cache[func] = policy
    return policy


def charged(func):
    """func (a filter or test) as the template calls it: call(rs, value, args, kwargs) → its result, charged by
    what it reads and what it returns."""
    policy = _policy(func)
    state = getattr(func, "mj_pass_state", False)

    def call(rs, value, args, kwargs):
        rs.fuel -= 1
        if rs.fuel < 0:
            rs.burn(0)
        if type(value) is str and len(value) > _BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
        for arg in args:
            if type(arg) is str and len(arg) > _BIG_STR:
                rs.burn(len(arg) >> CHAR_SHIFT)
        if policy is not None:
            _charge_policy(rs, policy, func, value, args)
        result = func(rs, value, *args, **kwargs) if state else func(value, *args, **kwargs)
        if result is True or result is False or result is None:
            return result
        return charge_result(rs, result)
    return call


def charged_unary(func):
    """func (a filter or test) called with its value alone ({{ x|trim }}, {% if x is defined %}):
    call(rs, value) → its result, charged as charged() would, without the argument handling."""
    if _policy(func) is not None:
        call = charged(func)
        return lambda rs, value: call(rs, value, (), {})
    state = getattr(func, "mj_pass_state", False)

    def call_unary(rs, value):
        rs.fuel -= 1
        if rs.fuel < 0:
            rs.burn(0)
        if type(value) is str and len(value) > _BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
        result = func(rs, value) if state else func(value)
        if result is True or result is False or result is None or (type(result) is str and len(result) < 16):
            return result
        return charge_result(rs, result)
    return call_unary


def _charge_policy(rs, policy, func, value, args):
    if policy is _ITERATES:
        size = length_hint(value) if not isinstance(value, str) else len(value)
        if func.__name__ == "do_list" and size > rs.limits.max_items:
            check_items(rs.limits, size)
        rs.burn(size)
    elif policy is _TREE:
        size = tree_size(rs, value)
        rs.burn(size * max(1, length_hint(value).bit_length()))  # a sort compares about n log n times
    elif policy is _COMPARE and args:
        charge_compare(rs, value, args[0])
    elif policy is _CONTAINS and args:
        charge_contains(rs, value, args[0])


_charged_cache = {}


def charged_call(rs, func, value, args, kwargs):
    """func(value, *args, **kwargs) for a filter or test looked up at run time (map, select, ...), charged."""
    try:
        call = _charged_cache[func]
    except (KeyError, TypeError):
        call = charged(func)
        try:
            if len(_charged_cache) < 4096:
                _charged_cache[func] = call
        except TypeError:
            pass
    return call(rs, value, args, kwargs)
