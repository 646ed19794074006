"""For loops: `{% for target in iter if test recursive %}body{% else %}else{% endfor %}` → run(f, out)."""

# The body is a scope of its own (symbols.py), in the same frame as the loop, unless the loop is recursive: then
# every loop(...) call runs the body in a frame of its own, as Jinja2 compiles a recursive loop into a function.
# One choice of walker (walker) drives every kind of loop: over a list or tuple (walked by index, the loop context
# only told where it is), or over anything else — an iterator, a filtered loop — pulled lazily through the loop
# context, so the filter sees the state the body changed and an error in a later item comes after the earlier
# iterations ran, as in Jinja2. A loop's filter (`{% for x in items if test %}`) runs its test in a scope of its
# own for each item as the loop pulls it, as Jinja2 filters: lazily, so the test sees what the body changed.

from itertools import filterfalse
from operator import itemgetter, length_hint
from types import GeneratorType

from ..analysis.symbols import Function, node_count, target_names
from .comparisons import condition
from .statements import (
    analyze_expression_loads, assigner, charging, compile_body, enter_actions, in_scope, scope_start,
)
from ..builtins.filters import DICT_PAIRS_CODE
from ..core.errors import LimitExceeded, TemplateAssertionError, error_at, located
from ..core.state import MISSING, check_items, limit_exceeded, out_of_fuel
from ..runtime.objects import (
    BreakLoop, ContinueLoop, FrameLayout, LoopContext, captured_text, count_output, join_output,
)
from ..runtime.undefined import PLAIN_UNDEFINED, Undefined
from ..syntax import nodes as n

__all__ = ["compile_for", "loop_parts"]


class _Loop:
    # The compiled parts of one for loop, shared by its runs (and by every loop(...) call of a recursive one).

    __slots__ = ("target_slot", "assign", "resets", "local_copies", "enter", "body", "step", "loop_slot",
                 "filtered", "simple", "stable", "else_", "iter_span", "recurse_layout", "span", "counts_output",
                 "listed", "filter_test", "pair")


def compile_for(c, node):
    return loop_parts(c, node)[-1]


def loop_parts(c, node):
    # (plan, the body's Block, over(f, out, iterable), the iterable's closure, walkable, run(f, out)) of a for
    # loop: over runs the loop on an iterable already evaluated; walkable says that a kernel may walk a list for it
    # (kernels/walks.py: a plain loop — one target name, no filter, else or recursion, a body whose variables start
    # undefined or as another variable of this frame, and that cannot change the data it walks).
    # Jinja2 compiles a recursive loop into a function (else block included): there break/continue cannot reach
    # an outer loop, and every loop(...) call that renders nothing runs the else block
    function = Function(c.scope, reentered=True) if node.recursive else None
    # the parts in the order Jinja2 generates them, so that what it refuses first is refused first: the filter's
    # function, the target (no `loop` in it), the iterable of a loop that is not recursive, the body, the else
    # block, and a recursive loop's iterable (its first call, after the function)
    filtered, filter_test = compile_filter(c, node, function) if node.filter is not None else (None, None)
    store = c.summaries.loop_store(node)
    if store is not None:
        raise error_at(TemplateAssertionError, "Can't assign to special loop variable in for-loop target",
                       store.span)
    iter_ev = c.expr(node.iter) if not node.recursive else None
    uses_loop = node.recursive or "loop" in c.summaries.reads(node.body, ("loop",)) or _has_scoped_block(c, node)
    params = target_names(node.target) + (("loop",) if uses_loop else ())
    plan = _Loop()
    plan.span, plan.iter_span = node.span, node.iter.span
    # the outermost loop of an output list counts what its run appended (context.py: output)
    plan.counts_output = node.recursive or not c.counted_by_loop
    with c.flags(soft=False, in_loop=True, counted_by_loop=True), in_scope(c, node.body, params, function) as scope:
        plan.assign = assigner(c, node.target)
        plan.target_slot = scope.refs[node.target.name] if isinstance(node.target, n.NameTarget) else None
        plan.pair = _pair_slots(scope, node.target)
        plan.loop_slot = scope.refs["loop"] if uses_loop else None
        block = c.block(node.body)
        plan.body, plan.step = block.run, 1 + block.weight   # an iteration, then the statements of the body
        resets, local_copies, plan.enter = scope_start(scope)
        plan.resets, plan.local_copies = _fresh_starts(c, node, scope, resets, local_copies)
        plan.simple = plan.target_slot is not None and not plan.resets and not plan.local_copies and \
            plan.enter is None
        # can the body (or the filter) change the data the loop walks? Then it walks it live, as Jinja2 does
        plan.stable = not c.effects.changes_data(node.body) and \
            (node.filter is None or not c.effects.changes_data(node.filter))
    plan.filtered = filtered
    # a filter of one name before a body of that name without `loop`: _walk_filtered runs its test in line
    plan.filter_test = filter_test if plan.simple and plan.loop_slot is None else None
    plan.listed = plan.filtered is None and plan.loop_slot is None   # a list or tuple is walked as it is
    plan.else_ = None
    if node.else_:
        with c.flags(soft=False, in_loop=c.in_loop and not node.recursive, counted_by_loop=True), \
                in_scope(c, node.else_, (), function) as else_scope:
            else_run = charging(*compile_body(c, node.else_))
            else_enter = enter_actions(c, else_scope)
        plan.else_ = _with_entry(else_enter, else_run)
    if node.recursive:
        iter_ev = c.expr(node.iter)
        plan.recurse_layout = FrameLayout((None,) * (function.size - 2), tuple(function.resolve_slots.items()))
        return plan, block, None, iter_ev, False, _recursive_run(plan, iter_ev, not c.counted_by_loop)
    walkable = plan.target_slot is not None and plan.enter is None and plan.stable and node.filter is None and \
        not node.else_
    over, run = _run(plan, iter_ev)
    return plan, block, over, iter_ev, walkable, run


def _fresh_starts(c, node, scope, resets, local_copies):
    # scope_start's resets and local copies for a loop body, less the variables it assigns before anything can read
    # them: they need no fresh start per iteration. (No comprehensions: a first compile pays for each as for a call.)
    starting = set(resets).union(map(itemgetter(0), local_copies))
    if not starting:
        return resets, local_copies
    refs, wanted, assigned = scope.refs, set(), set()
    for name, slot in refs.items():
        if slot in starting:
            wanted.add(name)
    for name in c.summaries.assigned_first(node.body, frozenset(wanted)):
        if name in refs:
            assigned.add(refs[name])
    kept_copies = []
    for pair in local_copies:
        if pair[0] not in assigned:
            kept_copies.append(pair)
    return tuple(filterfalse(assigned.__contains__, resets)), tuple(kept_copies)

def _pair_slots(scope, target):
    # The slots of a target of two names (`for key, value in ...`), else (None, None).
    if isinstance(target, n.TupleTarget) and len(target.items) == 2 and \
            all(isinstance(x, n.NameTarget) for x in target.items):
        return tuple(scope.refs[x.name] for x in target.items)
    return None, None


def _has_scoped_block(c, node):
    # Is there a {% block ... scoped %} inside the loop? Jinja2 gives the loop its `loop` variable then, for the
    # block to see (the block's body is not searched for reads: Jinja2 stops at blocks).
    source = c.origin[2]
    if source is not None and "scoped" not in source:
        return False   # the common case, at no cost (without the source, e.g. meta's compile, the walk decides)
    stack = [node.body, node.else_]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, n.Block):
            if x.scoped:
                return True
            stack.append(x.body)
        elif isinstance(x, n.Node):
            stack.extend(n.field_values(x))
    return False


def _with_entry(enter, run):
    if enter is None:
        return run

    def entered(f, out, enter=enter, run=run):
        enter(f)
        run(f, out)
    return entered


def _run(plan, iter_ev):
    # (over(f, out, iterable), run(f, out)) of a loop that is not recursive: one closure, which evaluates the
    # iterable when it is not given (run) — the direct one (_direct_run) for the commonest loop.
    if plan.filter_test is not None or plan.listed and (plan.simple or plan.pair[0] is not None and not plan.resets
                                                        and not plan.local_copies and plan.enter is None):
        direct = _direct_run(plan, iter_ev)
        return direct, direct
    span, else_, counts_output = plan.span, plan.else_, plan.counts_output

    def over(f, out, iterable=_UNEVALUATED, counts_output=counts_output, else_=else_, iter_ev=iter_ev, plan=plan,
            span=span):
        if iterable is _UNEVALUATED:
            try:
                iterable = iter_ev(f)
            except Exception as exc:
                raise located(exc, span)
        if else_ is None and (type(iterable) in PLAIN_UNDEFINED or type(iterable) in _EMPTY_AT_ONCE and not iterable):
            return   # nothing to iterate and no else: `for tc in m.tool_calls` where m has none (Jinja2: no work)
        start = len(out)
        try:
            walk, items, loop = walker(plan, f, iterable, 0, None)
            if not walk(plan, f, out, items, loop) and else_ is not None:
                else_(f, out)
            if counts_output:
                count_output(f[0], out, start)
        except LimitExceeded as exc:
            raise located(exc, span)  # the budget ran out on an iteration (not in a statement of it)
    return over, over


def _direct_run(plan, iter_ev):
    # over's form for the commonest loops (one target name or two, a body that starts no scope of its own, no
    # `loop`, no filter but one tested in line), walker's choice made here: a tuple, a list the body cannot change,
    # or the list a loop makes of a string, a range or a dict (_iteration_items: paid for as it pays) paid for up
    # front and walked by _walk_items (a pair of names: _walk_general); anything else (an iterator, what the body
    # may change) lazily, by _walk_lazy; a filtered loop by _walk_filtered (`for key in d if key not in handled`).
    # Without over's and walker's frames: an inner loop per message costs mostly its set-up, and each Python frame
    # between a loop and its body is a level of the recursion limit a macro recursing through loops pays.
    span, iter_span, else_, counts_output = plan.span, plan.iter_span, plan.else_, plan.counts_output
    stable, step = plan.stable, plan.step
    single, filtered = plan.target_slot is not None, plan.filter_test is not None

    def run_direct(f, out, iterable=_UNEVALUATED, counts_output=counts_output, else_=else_, filtered=filtered,
            iter_ev=iter_ev, iter_span=iter_span, plan=plan, single=single, span=span, stable=stable, step=step):
        if iterable is _UNEVALUATED:
            try:
                iterable = iter_ev(f)
            except Exception as exc:
                raise located(exc, span)
        cls = type(iterable)
        if else_ is None and (cls in PLAIN_UNDEFINED or cls in _EMPTY_AT_ONCE and not iterable):
            return   # (over's test)
        rs = f[0]
        if cls is tuple or cls is list:
            items = iterable   # (a list the body may change: walked live)
        else:
            try:
                items = _iteration_items(iterable, rs, iter_span, stable)
            except Exception as exc:
                raise located(exc, iter_span)
        start = len(out)
        try:
            if filtered:
                completed = _walk_filtered(plan, f, out, items, None)
            elif type(items) is not tuple and (type(items) is not list or items is iterable and not stable):
                completed = _walk_lazy(plan, f, out, iter(items), None)
            else:
                rs.fuel -= len(items) * step   # paid for up front; what a break skips is refunded
                if rs.fuel < 0:
                    raise out_of_fuel(rs.limits)
                completed = _walk_items(plan, f, out, items, None) if single else \
                    _walk_general(plan, f, out, items, None)
            if not completed and else_ is not None:
                else_(f, out)
            if counts_output:
                count_output(rs, out, start)
        except LimitExceeded as exc:
            raise located(exc, span)
    return run_direct


def _recursive_run(plan, iter_ev, counts_output):
    span, layout, else_ = plan.span, plan.recurse_layout, plan.else_

    def call(parent, iterable, depth0):
        # One run of the body over iterable in a frame of its own: the loop's first run (depth0 0: returns the
        # text it rendered, joined as Jinja2 joins a function's output) or a loop(...) call one level deeper
        # (its text as a macro's, charged and bounded as a call). The loop context holds (call, parent) and
        # calls this directly: each Python frame here is a level of Python's recursion limit per loop level.
        rs = parent[0]
        if depth0:
            rs.burn(20)  # more than a macro call: a frame, a loop context, its output joined
            if rs.depth >= rs.limits.max_call_depth:
                raise limit_exceeded(rs.limits, "max_call_depth", "the depth of recursive loop() calls")
            rs.depth += 1
        try:
            f = layout.new(rs, parent)
            out = []
            walk, items, loop = walker(plan, f, iterable, depth0, call)
            if not walk(plan, f, out, items, loop) and else_ is not None:
                else_(f, out)
            count_output(rs, out, 0)
        finally:
            if depth0:
                rs.depth -= 1
        text = join_output(out)
        return captured_text([text], rs) if depth0 else text

    def run(f, out, call=call, counts_output=counts_output, iter_ev=iter_ev, span=span):
        try:
            iterable = iter_ev(f)
        except Exception as exc:
            raise located(exc, span)
        try:
            text = call(f, iterable, 0)
            out.append(text)
            if counts_output:
                f[0].grow_output(len(text))
        except LimitExceeded as exc:
            raise located(exc, span)
    return run


def walker(plan, f, iterable, depth0, recursive_call):
    # (walk, items, loop context or None) of a loop run: `walk(plan, f, out, items, loop)` runs the body over the
    # items and returns whether an iteration ran to the end of the body. Jinja2 quirk: its for-else runs unless one
    # did, so iterations that all `continue` (or a `break` in the first one) still run the else block. The loop's
    # runner calls walk itself, not through a function here: each Python frame between a loop and its body is a
    # level of Python's recursion limit that a macro recursing through loops pays at every level.
    if plan.listed and (type(iterable) is tuple or type(iterable) is list and plan.stable):
        items, loop = iterable, None   # (_loop_items' answer for a fixed list and no `loop`, in line)
    elif plan.filter_test is not None:   # what _loop_items would filter, walked with the filter in line
        if type(iterable) is not list and type(iterable) is not tuple:
            try:
                iterable = _iteration_items(iterable, f[0], plan.iter_span, plan.stable)
            except Exception as exc:
                raise located(exc, plan.iter_span)
        return _walk_filtered, iterable, None
    else:
        items, loop = _loop_items(plan, f, iterable, depth0, recursive_call)
        if type(items) is not list and type(items) is not tuple:
            return _walk_lazy, items, None
    rs = f[0]
    rs.fuel -= len(items) * plan.step   # paid for up front; what a break skips is refunded
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    if plan.simple:
        return (_walk_simple, items, loop) if loop is not None else (_walk_items, items, None)
    return _walk_general, items, loop


def _walk_general(plan, f, out, items, loop):
    # walk a list or tuple for any loop: a tuple target, variables to start afresh each iteration.
    rs, step = f[0], plan.step
    target_slot, assign, enter, body = plan.target_slot, plan.assign, plan.enter, plan.body
    resets, local_copies = plan.resets, plan.local_copies
    first, second = plan.pair
    index = -1
    completed = False
    for item in items if loop is None else loop._iter:   # (loop.last spends the walk at the end: Jinja2's)
        index += 1
        if loop is not None:
            if index <= loop.index0:
                continue   # the body iterated `loop` itself: this item is consumed already
            loop.index0 = index
        for slot in resets:
            f[slot] = MISSING
        for slot, source in local_copies:
            f[slot] = f[source]
        if enter is not None:
            enter(f)
        if target_slot is not None:
            f[target_slot] = item
        elif first is not None and type(item) is tuple and len(item) == 2:
            f[first], f[second] = item   # (assign's pair, in line: `for key, value in d.items()`)
        else:
            assign(f, item)
        try:
            body(f, out)
        except ContinueLoop:
            continue
        except BreakLoop:
            rs.fuel += (len(items) - index - 1) * step
            break
        completed = True
    return completed


def _walk_simple(plan, f, out, items, loop):
    # walk a list for the commonest loop: one target name, a body that starts no scope of its own (with
    # `loop`; without it: _walk_items).
    target_slot, body = plan.target_slot, plan.body
    index = -1
    completed = False
    for item in loop._iter:
        index += 1
        if index <= loop.index0:
            continue   # the body iterated `loop` itself: this item is consumed already
        loop.index0 = index
        f[target_slot] = item
        try:
            body(f, out)
        except ContinueLoop:
            continue
        except BreakLoop:
            f[0].fuel += (len(items) - index - 1) * plan.step
            break
        completed = True
    return completed


def _walk_items(plan, f, out, items, loop):
    # _walk_simple without a loop variable (loop is None): nothing but the item stored and the body run per item
    # (a break refunds the items the list iterator has left).
    target_slot, body = plan.target_slot, plan.body
    completed = False
    remaining = iter(items)
    try:
        for item in remaining:
            f[target_slot] = item
            try:
                body(f, out)
            except ContinueLoop:
                continue
            completed = True
    except BreakLoop:
        f[0].fuel += length_hint(remaining) * plan.step
    return completed


def _walk_lazy(plan, f, out, items, loop):
    # walk an iterator or a filtered loop (through the loop context when there is one; loop is None here): each
    # iteration pays as it starts.
    rs, step = f[0], plan.step
    target_slot, assign, enter, body = plan.target_slot, plan.assign, plan.enter, plan.body
    resets, local_copies = plan.resets, plan.local_copies
    first, second = plan.pair
    completed = False
    for item in items:
        rs.fuel -= step
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        for slot in resets:
            f[slot] = MISSING
        for slot, source in local_copies:
            f[slot] = f[source]
        if enter is not None:
            enter(f)
        if target_slot is not None:
            f[target_slot] = item
        elif first is not None and type(item) is tuple and len(item) == 2:
            f[first], f[second] = item   # (as in _walk_general: `for name, fields in properties|items`)
        else:
            assign(f, item)
        try:
            body(f, out)
        except ContinueLoop:
            continue
        except BreakLoop:
            break
        completed = True
    return completed


def _walk_filtered(plan, f, out, items, loop):
    # _walk_lazy over the filter's generator (compile_filter: admitted) in one loop: each item pays for its test,
    # is stored in the filter's scope and tested, and an item admitted pays for its iteration and runs the body,
    # in that order, lazily (the test sees what the body changed). The walk loop is None: the body has no `loop`.
    rs, step, target_slot, body = f[0], plan.step, plan.target_slot, plan.body
    filter_slot, test, weight = plan.filter_test
    completed = False
    for item in items:
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        f[filter_slot] = item
        if not test(f):
            continue
        rs.fuel -= step
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        f[target_slot] = item
        try:
            body(f, out)
            completed = True   # (an iteration that continues does not complete: the for-else's rule)
        except ContinueLoop:
            pass
        except BreakLoop:
            break
    return completed


def _loop_items(plan, f, iterable, depth0, recursive_call):
    # (what the runner iterates, the loop context or None): a list or tuple that cannot change during the loop
    # as it is (the runner tells the loop context where it is); anything else — a list the body may change, an
    # iterator, a filtered loop — lazily, as Jinja2's loop pulls it, through the loop context when the body uses
    # `loop` (the body may move the loop on too: iterating `loop` consumes its items).
    rs = f[0]
    if type(iterable) is list or type(iterable) is tuple:
        items = iterable
    else:
        try:
            items = _iteration_items(iterable, rs, plan.iter_span, plan.stable)
        except Exception as exc:
            raise located(exc, plan.iter_span)
    # fixed: a tuple, a list the body cannot change, or the loop's own copy (of a string, a range...)
    fixed = type(items) is tuple or type(items) is list and (plan.stable or items is not iterable)
    lazy = not fixed or plan.filtered is not None
    if plan.filtered is not None:
        items = plan.filtered(f, items)
    elif not fixed:
        items = iter(items)
    if plan.loop_slot is None:
        return items, None
    # loop(...) runs the loop again in a frame whose parent is the one this loop's frame has
    recurse = (recursive_call, f[1]) if recursive_call is not None else None
    # Jinja2's loop.length is len() of what it loops over (a caller's own __len__ too), asked when first read
    sized = iterable if lazy and plan.filtered is None else None
    loop = LoopContext(None if lazy else items, rs.undefined, depth0, recurse, lazy=iter(items) if lazy else None,
                       sized=sized)
    f[plan.loop_slot] = loop
    return (iter(loop._next, MISSING) if lazy else items), loop


def _iteration_items(value, rs, span, stable):
    # What a for loop walks over: a list or tuple as it is (dicts give their keys, strings their characters,
    # undefined nothing), and anything else as a lazy iterator, as in Jinja2. A string or a range, and a dict or
    # its view when the loop is stable (its body cannot change data), become a list at once, paid for as one;
    # a dict the body may change is iterated live (a change of its size fails the loop, as in Jinja2).
    cls = type(value)
    if cls is list or cls is tuple:
        return value
    if cls is dict and stable or cls is str or cls is range or stable and cls in _DICT_VIEWS:
        size = len(value)
        if size > rs.limits.max_items:
            check_items(rs.limits, size, "a for loop")
        rs.fuel -= size
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        return list(value)
    if isinstance(value, Undefined):
        return list(value)  # StrictUndefined raises here
    if stable and cls is GeneratorType and value.gi_code is DICT_PAIRS_CODE:
        return value   # `d|items` of a plain dict: at most max_items pairs (checked at the call), unchanged here
    return _bounded(iter(value), rs.limits, span)


_UNEVALUATED = object()   # over's iterable when run evaluates it
_EMPTY_AT_ONCE = frozenset({list, tuple, dict, str})   # an empty one of these has nothing to iterate, at no cost
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


def _bounded(iterator, limits, span):
    # The items of iterator, at most limits.max_items of them; errors located at the loop's iterable.
    count = 0
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except Exception as exc:
            raise located(exc, span)
        count += 1
        if count > limits.max_items:
            raise limit_exceeded(limits, "max_items", "a for loop over an iterator")
        yield item


# ------------------------------------------------------------------------------------------------------ the loop filter
def compile_filter(c, node, function):
    # (admitted(f, items), in_line) for the loop's `if` test, run in a scope of its own where
    # the target is assigned (Jinja2 runs it in a generator function of its own); in a recursive loop's function,
    # whose frame it is given. admitted is the lazy filter: an iterator of the items the test admits, each a
    # tuple of the values it unpacked for a tuple target (Jinja2 unpacks an item once, and yields the values: a
    # caller's iterator item is not read twice). in_line is (slot, test, weight) of a test admitted runs in line
    # (one target name, nothing to start in the scope: the item stored in the slot, test(f) its truth), or None.
    weight = 2 + node_count(node.filter)  # the test's nodes and the scope it needs
    with c.flags(soft=False, in_loop=True), in_scope(c, (), target_names(node.target), function) as scope:
        analyze_expression_loads(scope, node.filter)
        assign = assigner(c, node.target)
        cond = condition(c, node.filter)
        enter = enter_actions(c, scope)
        flat = not isinstance(node.target, n.NameTarget) and \
            all(isinstance(x, n.NameTarget) for x in node.target.items)
        slots = tuple(scope.refs[x.name] for x in node.target.items) if flat else ()
        repack = _repacker(scope, node.target) if not flat and not isinstance(node.target, n.NameTarget) else None
        name_slot = scope.refs[node.target.name] if isinstance(node.target, n.NameTarget) else None

    def admits(f, item):
        rs = f[0]
        rs.fuel -= weight
        if rs.fuel < 0:
            raise out_of_fuel(rs.limits)
        if enter is not None:
            enter(f)
        assign(f, item)
        return cond(f)

    in_line = (name_slot, cond, weight) if name_slot is not None and enter is None else None
    if in_line is not None:
        def admitted(f, items):   # admits in line for the commonest filter (a loop that uses `loop`)
            rs = f[0]
            for item in items:
                rs.fuel -= weight
                if rs.fuel < 0:
                    raise out_of_fuel(rs.limits)
                f[name_slot] = item
                if cond(f):
                    yield item
    elif len(slots) == 2 and enter is None:   # `for key, value in d|items if ...`: admits and the pair in line
        first, second = slots

        def admitted(f, items):
            rs = f[0]
            for item in items:
                rs.fuel -= weight
                if rs.fuel < 0:
                    raise out_of_fuel(rs.limits)
                assign(f, item)
                if cond(f):
                    yield f[first], f[second]
    elif slots:
        def admitted(f, items):
            for item in items:
                if admits(f, item):
                    yield tuple([f[slot] for slot in slots])
    elif repack is not None:   # `(a, b), c`: the values rebuilt in the target's shape
        def admitted(f, items):
            for item in items:
                if admits(f, item):
                    yield repack(f)
    else:
        def admitted(f, items):
            return (item for item in items if admits(f, item))
    return admitted, in_line


def _repacker(scope, target):
    # repack(f) → the values a tuple target's names were assigned, as nested tuples of its shape.
    parts = tuple(_repacker(scope, x) if not isinstance(x, n.NameTarget) else scope.refs[x.name]
                  for x in target.items)
    return lambda f: tuple([f[part] if type(part) is int else part(f) for part in parts])
