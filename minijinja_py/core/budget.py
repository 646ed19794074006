"""Budget: an operation on template data → the steps it costs, charged to the render before the work is done."""

# A render starts with `limits.max_steps` of fuel (RenderState.burn spends it; running dry raises LimitExceeded
# naming max_steps). The price list, chosen so that fuel bounds both time and the memory a render can build:
#
#   * running a statement: its own template nodes (tags, expressions; the blocks nested in it charge when they
#     run), so the budget follows the work actually done; a loop iteration: 1 more; a macro or caller() call: 10
#     and its parameters; a recursive loop() call: 20;
#   * a filter, test, method or function call: its node, plus what it reads and builds as declared on the filter
#     itself (@costs below: it walks its input, compares or hashes its items, compares or looks up its argument);
#   * data an operation reads or builds: 1 per item of a list/tuple/dict/set, 1 per 16 characters of a string,
#     1 per 64 bits of a big integer — so one render builds at most max_steps × 16 characters, whatever it keeps;
#   * comparing or hashing nested data, or serialising it: 1 per node of the data *seen as a tree* (a tuple shared
#     n times counts n times, as Python's ==, hash() or json.dumps would visit it). tree_size() measures that
#     without walking a shared part twice, so `(t, t)` nested 80 deep is refused at once instead of hashing for
#     ages, and data nested deeper than limits.max_data_depth (or containing itself) is refused before Python's C
#     code would recurse into it (hash() of a 400 000-deep tuple overflows the C stack);
#   * work done in Python per item costs what it takes in time (a step is one loop iteration's time, ~70 ns):
#     the walk 16 per container it looks at, printing 4 per value and 24 per container, a **mapping 8 per
#     keyword, map/select by name 8 per item, ... (each price is defined where it is charged).
#   * {% set x = x ~ piece %} (or ns.x, or +) is refunded the copy of the old value when nothing else holds it:
#     the render kept only the growth, and pays for it and for the copying time (1 step per 1024 characters).
#
# guard() is the one gate in front of Python's hashing and comparison of template values: every operator, filter,
# test, method and global that hashes or compares goes through it (directly, or through the cost its function
# declares). take() is the one way a star-argument or an iterable becomes a list: size-checked as it is built.

import types
from collections import deque
from itertools import chain, islice
from operator import length_hint

from .state import BIG_STR, CHAR_SHIFT, check_items, check_str_size, current_state, limit_exceeded, out_of_fuel

__all__ = [
    "ITERATES", "TREE", "COMPARE", "CONTAINS", "HASHES", "costs", "declared_cost", "DECLARED_COSTS", "shallow_steps",
    "charge_result", "charged_generator", "charges_own_items", "charge_item", "tree_size", "guard", "charge_compare",
    "charge_contains", "charge_int_op", "take", "charged", "charged_unary", "unary_form", "UNARY_FORMS",
    "general_unary", "unary_result", "charged_forms", "listed", "metered", "member",
]

_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_VALUES_VIEW = type({}.values())
_ITEMS_VIEW = type({}.items())
_MAPPING_PROXY = types.MappingProxyType
# what Python's comparison or hash walks: containers, a dict's views (a keys or items view compares as a set of
# them), a read-only mapping, a deque
_CONTAINERS = (list, tuple, dict, set, frozenset, _MAPPING_PROXY, deque) + _VIEWS
_SEQUENCES = frozenset({list, tuple})
_WALK_STEPS = 16   # looking at one container in Python (tree_size) takes about as long as 16 steps
_DICT_ONLY = {dict}
_SCALARS = frozenset({str, int, float, bool, type(None)})
_SMALL_INT = 0xFFFFFFFFFFFFFFFF
_SHALLOW_SIZED = (list, tuple, dict, set, frozenset, range) + _VIEWS
_PLAIN_CONTAINERS = frozenset(_CONTAINERS)   # the types themselves: a caller's subclass is measured by its storage
_STORING = (list, tuple, dict, str, set, frozenset)
_SIZED_BY_STORAGE = (list, tuple, set, frozenset)   # (and dict: _flat_size reads a subclass's storage)


def stored_len(value):
    # len(value) as the built-in type it derives from counts what it stores: what Python's own +, *, ==, `in`
    # and hash() of a caller's list/tuple/dict/str/set subclass work on, whatever its own __len__ says (or raises).
    cls = type(value)
    if cls is list or cls is tuple or cls is dict or cls is str:
        return len(value)
    for base in _STORING:
        if isinstance(value, base):
            return base.__len__(value)
    return len(value)


def shallow_steps(value):
    # What reading or building value costs, not looking inside its items.
    cls = type(value)
    if cls is str:
        return len(value) >> CHAR_SHIFT
    if cls is int:   # (the common cases first: this runs for every item a filter's generator hands out)
        return value.bit_length() >> 6 if value > _SMALL_INT or value < -_SMALL_INT else 0
    if cls is list or cls is tuple or cls is dict:
        return len(value)
    if cls is float or cls is bool or value is None:
        return 0
    if isinstance(value, str):
        return str.__len__(value) >> CHAR_SHIFT
    if isinstance(value, _SHALLOW_SIZED):
        return stored_len(value)
    return 0


# ----------------------------------------------------------------------------------------------- results
_GENERATOR = types.GeneratorType


def charge_result(rs, value):
    # Charge what a call handed back and check its size; a generator is wrapped so that its items are charged
    # as they are pulled. Returns the value to use.
    cls = type(value)
    if cls is str:
        size = len(value)
        if size > rs.limits.max_string:
            check_str_size(rs.limits, size)
        rs.fuel -= size >> CHAR_SHIFT   # rs.burn in line: this runs for most calls of a render
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
    elif cls is list or cls is tuple or cls is dict:
        size = len(value)
        if size > rs.limits.max_items:
            check_items(rs.limits, size)
        rs.fuel -= size
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
    elif value is None or cls is bool or cls is float:
        return value   # nothing to charge: the commonest of the rest (a missing key's default)
    elif cls is int:
        if value > _SMALL_INT or value < -_SMALL_INT:   # a length: nothing to charge
            rs.burn(value.bit_length() >> 6)
    elif isinstance(value, str):   # a Markup
        size = len(value)
        if size > rs.limits.max_string:
            check_str_size(rs.limits, size)
        rs.burn(size >> CHAR_SHIFT)
    elif cls is _GENERATOR:
        return value if value.gi_code in _SELF_CHARGING else charged_generator(rs, value)
    elif cls is bytes or cls is bytearray:
        rs.burn(len(value) >> CHAR_SHIFT)
    return value


_SELF_CHARGING = set()   # the code of filters' generator functions that charge their own items


def charges_own_items(func):
    # Mark a filter's generator function whose generators charge each item as charged_generator charges it (1
    # step and its shallow_steps, the count checked against max_items) before handing it out: charge_result hands
    # them out as they are, without a second generator around them.
    _SELF_CHARGING.add(func.__code__)
    return func


def charge_item(rs, item, count):
    # Charge the count-th item a generator hands out as charged_generator charges it (for charges_own_items).
    limits = rs.limits
    if count > limits.max_items:
        check_items(limits, count, "an iteration")
    rs.fuel -= 1 + shallow_steps(item)
    if rs.fuel < 0:
        raise out_of_fuel(limits)


def charged_generator(rs, generator):
    # A generator yielding what `generator` yields, charging each item; prints as the original does.
    def pull():
        limits = rs.limits
        count = 0
        for item in generator:
            count += 1
            if count > limits.max_items:
                check_items(limits, count, "an iteration")
            rs.fuel -= 1 + shallow_steps(item)
            if rs.fuel < 0:
                raise out_of_fuel(limits)
            yield item
    wrapped = pull()
    wrapped.__name__ = generator.__name__
    wrapped.__qualname__ = generator.__qualname__
    return wrapped


def take(rs, iterable, what="an iteration"):
    # list(iterable), built item by item: at most limits.max_items items, each charged, so that a caller's
    # endless iterator or a star-argument of a huge range fails at the limit instead of filling memory.
    cls = type(iterable)
    limits = rs.limits
    if cls is list or cls is tuple or cls is str or cls is dict or cls is range or cls in _VIEWS:
        size = len(iterable)
        check_items(limits, size, what)
        rs.burn(size)
        return list(iterable)
    if cls is _GENERATOR and iterable.gi_code in _SELF_CHARGING:
        # a filter's generator that charges (and counts against max_items) each item before handing it out:
        # listed at C speed, at most one past the limit, its items' 1 step each paid at once
        items = list(islice(iterable, limits.max_items + 1))
        check_items(limits, len(items), what)
        rs.burn(len(items))
        return items
    items = []
    append = items.append
    count = 0
    for item in iterable:
        count += 1
        if count > limits.max_items:
            check_items(limits, count, what)
        rs.fuel -= 1
        if rs.fuel < 0:
            raise out_of_fuel(limits)
        append(item)
    return items


_SIZED = (list, tuple, str, dict, range, set, frozenset) + _VIEWS


def listed(rs, iterable, what):
    # The items of iterable as a list or tuple to read (not to change), for a filter whose declared cost
    # (ITERATES, TREE) paid for a sized input already; any other iterable (a caller's iterator, maybe endless) is
    # taken item by item (take).
    cls = type(iterable)
    if cls is list or cls is tuple:
        return iterable
    if cls in _SIZED:
        check_items(rs.limits, len(iterable), what)
        return list(iterable)
    return take(rs, iterable, what)


def metered(rs, iterable):
    # iterable as a function consumes it without keeping its items (sum, min, max, in): a sized input as it is
    # (its declared cost paid for it), any other iterable (a caller's iterator or subclass, maybe endless)
    # charged an item at a time, at most max_items of them.
    if type(iterable) in _SIZED:
        return iterable
    return _metered(rs, iterable)


def _metered(rs, iterable):
    limits = rs.limits
    count = 0
    for item in iterable:
        count += 1
        if count > limits.max_items:
            check_items(limits, count, "an iteration")
        rs.fuel -= 1
        if rs.fuel < 0:
            raise out_of_fuel(limits)
        yield item


def member(item, container):
    # `item in container`; a container Python would scan by iterating it (no __contains__: a generator, a
    # caller's iterator) is scanned here, each item charged to the render under way.
    cls = type(container)
    if cls is str or cls is list or cls is dict or cls is tuple or hasattr(cls, "__contains__"):
        return item in container
    rs = current_state()
    if rs is None:
        return item in container
    if not hasattr(cls, "__iter__") and not hasattr(cls, "__getitem__"):
        # what Python's `in` says (iter() would say "'int' object is not iterable")
        raise TypeError(f"argument of type {cls.__name__!r} is not iterable")
    for candidate in _metered(rs, iter(container)):
        if candidate is item or candidate == item:
            return True
    return False


# ------------------------------------------------------------------------------------------ nested data
def _children(value):
    # What Python's comparison or hash of value walks: the storage of a list, tuple, dict or set (a caller's
    # subclass's own __iter__ or items() is not called: they may lie or never end, and C code does not call them).
    if isinstance(value, dict):
        return chain.from_iterable(dict.items(value))
    if isinstance(value, list):
        return list.__iter__(value)
    if isinstance(value, tuple):
        return tuple.__iter__(value)
    if isinstance(value, set):
        return set.__iter__(value)
    if isinstance(value, frozenset):
        return frozenset.__iter__(value)
    if isinstance(value, _MAPPING_PROXY):
        return chain.from_iterable(value.items())
    if type(value) is _ITEMS_VIEW:
        return chain.from_iterable(value)
    return iter(value)


def _flat_size(value, rows=True):
    # The tree size of a container found at C speed, without a walk, where its shape allows — or None. Such
    # containers are most data (a message dict, a list of them, a dict's items), and walking each small one in
    # Python would cost many times the steps charged for it. Flat: every item (key and value of a dict) is a
    # plain scalar. Rows (when `rows`, i.e. one more level is within max_data_depth): a list, tuple or set of flat
    # lists and tuples, or of flat dicts. Only the built-in types themselves, and a caller's flat subclass of one
    # (its rows are walked).
    cls = type(value)
    if cls not in _PLAIN_CONTAINERS:
        # a caller's subclass of a built-in container (an OrderedDict, a Counter, a list subclass) of scalars: its
        # storage read by the built-in's own methods, what the walk (_children) reads; nothing of the subclass's
        # is called
        if isinstance(value, dict):
            if _SCALARS.issuperset(map(type, dict.keys(value))) and \
                    _SCALARS.issuperset(map(type, dict.values(value))):
                return 1 + 2 * dict.__len__(value)
        else:
            for base in _SIZED_BY_STORAGE:
                if isinstance(value, base):
                    return 1 + base.__len__(value) if _SCALARS.issuperset(map(type, base.__iter__(value))) else None
        return None
    if cls is dict or cls is _MAPPING_PROXY:
        if _SCALARS.issuperset(map(type, value)) and _SCALARS.issuperset(map(type, value.values())):
            return 1 + 2 * len(value)
        return None
    kinds = set(map(type, value))
    if _SCALARS.issuperset(kinds):
        return 1 + len(value)
    if not rows:
        return None
    if _SEQUENCES.issuperset(kinds):
        if _SCALARS.issuperset(map(type, chain.from_iterable(value))):
            return 1 + len(value) + sum(map(len, value))
    elif kinds == _DICT_ONLY:
        if _SCALARS.issuperset(map(type, chain.from_iterable(value))) and \
                _SCALARS.issuperset(map(type, chain.from_iterable(map(dict.values, value)))):
            return 1 + len(value) + 2 * sum(map(len, value))
    return None


def tree_size(rs, value, limit=None):
    # The number of nodes of value seen as a tree (shared parts counted every time they are reached), found
    # without walking a shared part twice. Raises LimitExceeded('max_steps') as soon as the count passes `limit`
    # (default: the fuel left), and LimitExceeded('max_data_depth') for data too deep or containing itself.
    # The walk itself is charged here: _WALK_STEPS for each container below the top that is looked at in Python
    # (once each: the flat ones and rows of them at C speed, the others item by item), and counted against the
    # limit as it goes.
    if not isinstance(value, _CONTAINERS):
        return 1
    if limit is None:
        limit = max(rs.fuel, 0)
    limits = rs.limits
    max_depth = limits.max_data_depth
    size = _flat_size(value, max_depth > 1)
    if size is not None:
        if size > limit and stored_len(value):   # (an empty container is one node, whatever the limit)
            raise out_of_fuel(limits)
        return size
    walked = 0                 # the steps the walk has cost so far (charged at the end)
    known = {}                 # id → size of a container already measured in this walk
    on_path = {id(value)}      # ids of the containers being measured (a repeat is a cycle)
    stack = [[value, _children(value), 1]]
    while True:
        frame = stack[-1]
        for child in frame[1]:
            if isinstance(child, _CONTAINERS) and \
                    (len(child) if type(child) in _PLAIN_CONTAINERS else stored_len(child)):
                key = id(child)
                size = known.get(key)
                if size is None:
                    if key in on_path:
                        raise limit_exceeded(limits, "max_data_depth", "data that contains itself (cyclic data)")
                    if len(stack) >= max_depth:
                        raise limit_exceeded(limits, "max_data_depth", f"data nested more than {max_depth} deep")
                    walked += _WALK_STEPS
                    limit -= _WALK_STEPS
                    if limit < 0:
                        raise out_of_fuel(limits)
                    size = known[key] = _flat_size(child, len(stack) + 1 < max_depth)
                    if size is None:
                        on_path.add(key)
                        stack.append([child, _children(child), 1])
                        break
                frame[2] += size
            else:
                frame[2] += 1
            if frame[2] > limit:
                raise out_of_fuel(limits)
        else:
            stack.pop()
            key = id(frame[0])
            on_path.discard(key)
            known[key] = frame[2]
            if not stack:
                rs.burn(walked)
                return frame[2]
            stack[-1][2] += frame[2]
            if stack[-1][2] > limit:
                raise out_of_fuel(limits)


def guard(rs, value):
    # The gate before Python hashes or compares a template value: a container is walked (tree_size: depth,
    # cycles, size charged) so the C code that follows can neither recurse past max_data_depth nor run longer
    # than the fuel paid; a long string costs its length. Returns value.
    cls = type(value)
    if cls in _SCALARS:
        if cls is str and len(value) > BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
        elif cls is int and (value > _SMALL_INT or value < -_SMALL_INT):
            rs.burn(value.bit_length() >> 6)
    elif isinstance(value, _CONTAINERS):
        rs.burn(tree_size(rs, value))
    elif isinstance(value, str):
        if len(value) > BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
    return value


def charge_compare(rs, a, b):
    # a == b, a < b, ...: strings cost their shared length, nested data its tree size.
    ta, tb = type(a), type(b)
    if ta is str and tb is str:
        size = min(len(a), len(b))
        if size > BIG_STR:
            rs.burn(size >> CHAR_SHIFT)
        return
    if ta is int and tb is int:
        rs.burn(shallow_steps(a))
        return
    guard(rs, a)
    guard(rs, b)


def charge_contains(rs, item, container):
    # item in container: a scan of a string, sequence, range or dict values, a hash for a mapping or set.
    cls = type(container)
    if cls is dict and type(item) is str:   # `'tool_calls' in message`: a hash, a long key's paid
        if len(item) > BIG_STR:
            rs.burn(len(item) >> CHAR_SHIFT)
    elif (cls is list or cls is tuple) and type(item) in _SCALARS:   # `key not in ['type', 'name']`: a scan
        rs.fuel -= len(container)
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
    elif cls is str or isinstance(container, str):
        if str.__len__(container) > BIG_STR:
            rs.burn(str.__len__(container) >> CHAR_SHIFT)
    elif isinstance(container, (list, tuple)) or cls is _VALUES_VIEW:
        rs.burn(stored_len(container))   # (a caller's subclass: Python's `in` scans what it stores)
        if not type(item) in _SCALARS:
            guard(rs, item)
            guard(rs, container)
    elif cls is range:
        if type(item) is not int and type(item) is not bool:
            rs.burn(len(container))   # only an int is found by arithmetic; anything else is compared in turn
    elif isinstance(container, (dict, set, frozenset)) or cls in _VIEWS:
        guard(rs, item)
    else:
        guard(rs, item)


def charge_int_op(rs, a, b):
    # Arithmetic on big integers costs by their size (division by the product of the sizes).
    rs.burn(((a.bit_length() >> 6) + 1) * ((b.bit_length() >> 6) + 1) >> 6)


# --------------------------------------------------------------------------------------- filters and tests
# What a builtin filter or test reads besides its own node, declared on the function with @costs(...):
ITERATES = "iterates"           # walks its input once
TREE = "tree"                   # compares or hashes the items of its input (sort, unique, groupby, ...)
COMPARE = "compare"             # compares its input with its first argument
CONTAINS = "contains"           # looks its input up in its first argument
HASHES = "hashes"               # hashes its input (a registry lookup by name, a set member)


DECLARED_COSTS = {}   # a builtin filter or test (the function itself) → what it declares it reads (costs)


def costs(kind):
    # Declare what a filter or test reads (ITERATES, TREE, COMPARE, CONTAINS, HASHES): the call charges it
    # before the function runs. Functions without a declaration pay for their call and their result only.
    def declare(func):
        DECLARED_COSTS[func] = kind
        return func
    return declare


def declared_cost(func):
    # What func declared it reads (costs), or None. Known by the function itself, not by an attribute on it: a
    # caller's function wrapping a builtin (functools.wraps copies attributes) declares nothing.
    return DECLARED_COSTS.get(func) if type(func) is types.FunctionType else None   # (a caller's may not hash)


def size_hint(value):
    # How many items iterating value may give, for a price: a list/tuple/dict/str/set (a caller's subclass too) by
    # what it stores, anything else by its length hint (the filter's own iteration of it is bounded as it goes).
    return stored_len(value) if isinstance(value, _STORING) else length_hint(value)


def _charge_declared(rs, kind, value, args):
    if kind is ITERATES:
        rs.burn(size_hint(value))
    elif kind is TREE:
        size = tree_size(rs, value)
        rs.burn(size * max(1, size_hint(value).bit_length()))  # a sort compares about n log n times
    elif kind is COMPARE:
        if args:
            charge_compare(rs, value, args[0])
    elif kind is CONTAINS:
        if args:
            charge_contains(rs, value, args[0])
    elif kind is HASHES:
        guard(rs, value)


def charged(func):
    # func (a filter or test) as the template calls it: call(rs, value, args, kwargs) → its result, charged by
    # what it declares it reads and by what it returns.
    kind = declared_cost(func)
    state = getattr(func, "mj_pass_state", False)

    def call(rs, value, args, kwargs):
        rs.fuel -= 1
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        if type(value) is str and len(value) > BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
        for arg in args:
            if type(arg) is str and len(arg) > BIG_STR:
                rs.burn(len(arg) >> CHAR_SHIFT)
        if kind is not None:
            _charge_declared(rs, kind, value, args)
        result = func(rs, value, *args, **kwargs) if state else func(value, *args, **kwargs)
        if result is True or result is False or result is None:
            return result
        return charge_result(rs, result)
    return call


UNARY_FORMS = {}   # a builtin filter (the function itself) → its own charged_unary form (unary_form)


def unary_form(func, kernel):
    # Declare kernel(rs, value) the charged_unary form of the builtin func: the same result and the same charges as
    # general_unary's call, a plain value done in one Python call (general_unary(func) is its fallback for any
    # other). Known by the function itself, not by an attribute on it: a caller's function wrapping func
    # (functools.wraps copies its attributes) is the caller's, and is called.
    UNARY_FORMS[func] = kernel


def charged_unary(func):
    # func (a filter or test) called with its value alone ({{ x|trim }}, {% if x is defined %}):
    # call(rs, value) → its result, charged as charged() would, without the argument handling: a builtin's own
    # form (unary_form), or general_unary(func).
    kernel = UNARY_FORMS.get(func) if type(func) is types.FunctionType else None   # (a caller's may not hash)
    return kernel if kernel is not None else general_unary(func)


def general_unary(func):
    # charged_unary's form made for any function: the call charged 1 step and a long string argument its length,
    # then the function, then its result (unary_result).
    if declared_cost(func) is not None:
        call = charged(func)
        return lambda rs, value: call(rs, value, (), {})
    state = getattr(func, "mj_pass_state", False)

    def call_unary(rs, value):
        rs.fuel -= 1
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        if type(value) is str and len(value) > BIG_STR:
            rs.burn(len(value) >> CHAR_SHIFT)
        result = func(rs, value) if state else func(value)
        cls = type(result)
        if cls is str:
            if len(result) < 16:
                return result
        elif result is True or result is False or result is None or \
                cls is int and -_SMALL_INT <= result <= _SMALL_INT:   # a test's outcome, |length
            return result
        return charge_result(rs, result)
    return call_unary


def unary_result(rs, result):
    # What a unary call hands back, charged as general_unary charges it (nothing for a short string, a bool,
    # None or a small int).
    cls = type(result)
    if cls is str:
        if len(result) < 16:
            return result
    elif result is True or result is False or result is None or cls is int and -_SMALL_INT <= result <= _SMALL_INT:
        return result
    return charge_result(rs, result)


_charged_cache = {}


def charged_forms(func):
    # (func, charged(func), charged_unary(func)) for a filter or test looked up at run time (map, select, ...),
    # made once per function.
    key = (type(func), id(func))
    entry = _charged_cache.get(key)
    if entry is None or entry[0] is not func:
        entry = (func, charged(func), charged_unary(func))
        if len(_charged_cache) < 1024:
            _charged_cache[key] = entry   # keeps func alive: ids cannot be reused while it is cached
    return entry

