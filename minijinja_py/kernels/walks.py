"""Walk kernels: plain loops over a list or tuple walked without the general runner (select.Loop: `walk`), the body's
statements called from the walk — each arity form (one to five statements) written once here — and what a kernel
reads in line: the one guard vocabulary of the kernels, what "plain" is."""

# A walkable loop (loops.py) has one target name, no filter, else or recursion, and a body that starts no variables
# of its own and cannot change the data it walks (analysis/treescan.py: Effects): over a plain list or tuple, its iterations
# are paid for up front (a break refunds the rest), each item stored in the target's slot and the body's
# statements called in turn, and the output counted once at the end (or by an enclosing loop). Anything else to
# iterate goes to the general loop (Loop.over), with the value already evaluated.

from operator import length_hint

from .select import EQ, NE, Atom, If, Loop, Set, kernel, text_of
from ..core.errors import LimitExceeded, located
from ..core.state import BIG_STR, MISSING, check_items, out_of_fuel
from ..runtime.objects import BreakLoop, ContinueLoop, LoopContext, count_output
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["walk", "spec"]


# ------------------------------------------------------------------------------------------------------ reads
# Plain data is what a caller's JSON is made of: exactly str, int, float, bool, None, list, tuple and dict (no
# subclass: a subclass may define what reading, comparing or printing it does). A kernel reads a value in line only
# from a variable's slot (a value: not MISSING) or a str key of a plain dict (dict.get: one lookup; MISSING where
# the key is not there, an undefined value), and decides only on plain values; where anything is not so, it runs
# its general closure, which reads and decides everything again, as Jinja2 does. That is exact because a read in
# line runs no code: reading it again finds the same value.


def spec(read, methods=False, variables=False):
    # (slot, key, method, None) of a Read a kernel reads in line: a one-key read of a variable (`m.role`, the
    # commonest by far); methods: through a str method too (`m.content|trim`; method None otherwise); variables:
    # the variable itself too (key None: a kernel that asks reads `f[slot]` and no key). (None, None, None, read)
    # of any other (a longer chain, an index), which a kernel leaves to the general closure.
    keys = read.keys
    if (len(keys) == 1 or variables and not keys) and (read.method is None or methods):
        return read.slot, keys[0] if keys else None, read.method, None
    return None, None, None, read


# ------------------------------------------------------------------------------------------------------ walks

@kernel(Loop, "walk")
def walk(node):
    # A walkable loop: a list or tuple walked by the walker (_walker), its iterations paid for up front and its
    # output counted at the end; anything else through the general loop (_fetcher); then node.after, a short
    # constant text that follows the loop in its statement list (lower.py gives it), appended as its run would.
    plan, walker, fetch, after = node.plan, _walker(node.plan, node.body), _fetcher(node), node.after
    span, step, counts_output = plan.span, plan.step, plan.counts_output
    slot, key, _, _ = spec(node.source, variables=True) if node.source is not None else (None,) * 4
    slot = 0 if slot is None else slot   # (no read in line: the render state, which is no list, read in its place)
    # The commonest body, one statement with no loop variable and nothing started per item (`for tool in tools`), is
    # walked here (plain: its run; target: the item's slot), without a walker's frame: an inner loop run for each
    # message (`for tool_call in m.tool_calls`, most often of one item) pays for that frame on every message.
    plain, target = walker[0] if type(walker) is tuple else None, plan.target_slot

    def run_list(f, out, after=after, counts_output=counts_output, fetch=fetch, key=key, plain=plain, slot=slot,
            span=span, step=step, target=target, walker=walker):
        # a variable or a key of one read in line (slot 0 where the iterable is neither: the render state, no list;
        # a plain dict's missing key: an undefined, which the general loop finds nothing in); anything else fetched
        items = f[slot]
        if key is not None:
            items = items.get(key, MISSING) if type(items) is dict else None
        if type(items) is not list and (items := fetch(f, out, items)) is None:
            if after is not None:
                out.append(after)
            return
        rs, start = f[0], len(out)
        try:
            rs.fuel -= len(items) * step
            if rs.fuel < 0:
                raise out_of_fuel(rs.limits)
            if plain is None:
                walker(f, out, items, step)
            else:
                remaining = iter(items)
                try:
                    for item in remaining:
                        f[target] = item
                        try:
                            plain(f, out)
                        except ContinueLoop:
                            continue
                except BreakLoop:
                    rs.fuel += length_hint(remaining) * step
            if counts_output:
                count_output(rs, out, start)
        except LimitExceeded as exc:
            raise located(exc, span)   # the budget ran out on an iteration (not in a statement of it)
        if after is not None:
            out.append(after)
    return run_list


def _fetcher(node):
    # fetch(f, out, read) for a walk whose read in line found no list (read: what it found): the list or tuple to
    # walk, from the iterable's closure (reading again: the read ran nothing; a range made a list, paid for as the
    # general loop pays, a step each); None where nothing is left to walk: a plain dict's missing key or an
    # undefined variable (nothing to iterate), or anything else, which the general loop (node.over) has walked.
    iterable, over, span, iter_span = node.iterable, node.over, node.plan.span, node.plan.iter_span

    def fetch(f, out, read, iterable=iterable, iter_span=iter_span, over=over, span=span):
        if read is MISSING and f[0].undefined in PLAIN_UNDEFINED:
            return None
        try:
            items = iterable(f)
        except Exception as exc:
            raise located(exc, span)
        if type(items) is list or type(items) is tuple:
            return items
        if type(items) is not range:
            over(f, out, items)
            return None
        try:   # (`for i in range(messages|length)`)
            check_items(f[0].limits, len(items), "a for loop")
            f[0].burn(len(items))
        except Exception as exc:
            raise located(exc, iter_span)
        return list(items)
    return fetch


def _walker(plan, body):
    # walker(f, out, items, step) calling the body's one to five statements (or its run: more of them, or a
    # statement between constant texts, which the run appends in line) for each item, stored in the target's slot
    # (for one statement and nothing else, (its run,): run_list walks it itself):
    # the loop context, when the body reads `loop`, told where it is (the body may iterate `loop` itself: the items
    # it consumed are skipped); starts: the body's variables started afresh (the slots that start undefined, the
    # (slot, source slot) pairs that start as another variable of this frame), or None. A break refunds the rest.
    framed = 2 <= len(body.runs) <= 3 and (text_of(body.nodes[0]) is not None or text_of(body.nodes[-1]) is not None)
    runs = body.runs if 1 <= len(body.runs) <= 5 and not framed else (body.run,)
    starts, slot = (plan.resets, plan.local_copies) if plan.resets or plan.local_copies else None, plan.target_slot
    if plan.loop_slot is not None:
        return _walk_loop(slot, plan.loop_slot, starts, runs)
    first = body.nodes[0].in_line if runs is body.runs and type(body.nodes[0]) is Set else (None,) * 4
    at = 1 if first[0] is not None and first[0] != slot else 0   # (a compare after a set of another variable)
    found = _item_table(slot, body.nodes[at]) if starts is None and runs is body.runs and at < len(runs) else None
    if found is not None:
        return _walk_key_compare(slot, *found, first if at else (None,) * 4, *(runs + (None,) * 5)[:5 + at])
    if len(runs) == 1 and starts is None:
        return runs[0],   # (walked by run_list itself)
    return _walk_many(slot, starts, runs, first)


def _item_table(slot, node):
    # (key, a second key or None, the constant's type, {constant: body run or None}, the run of any other value) of a
    # body's first statement that is one {% if item.key == c %} (or !=; maybe an else) on a key (or two).
    if type(node) is not If or len(node.tests) != 1 or type(node.tests[0]) is not Atom or \
            node.tests[0].kind not in (EQ, NE):
        return None
    atom, (taken, other) = node.tests[0], (node.bodies[0], node.else_)[::-1 if node.tests[0].kind == NE else 1]
    read, runs, default = atom.read, {atom.constant: taken and taken.run}, other and other.run
    keys = read.keys
    if read.slot != slot or not 0 < len(keys) <= 2 or any(type(key) is not str for key in keys) or read.method:
        return None
    return keys[0], keys[1] if len(keys) == 2 else None, type(atom.constant), runs, default


def _walk_key_compare(slot, key, key2, kind, runs, default, first, *rest):
    # The walk of a body whose first statement is a compare on a key of the item (`{% if m.role == 'user'
    # %}...{% else %}`; key2: a key of that key's value), maybe statements b-e after it:
    # a plain dict item's key read in line, what its plain value runs found in the table (maybe nothing); any other
    # item through the statement's kernel a, which reads it again (the read in line ran nothing); then the others.
    # Maybe a set before it (first: Set.in_line; rest: the set's kernel s, then a-e), of another variable to
    # a plain dict's key, done in line (the item read after it, as Jinja2 reads it); any other through s.
    (target, source, set_key, method), (s, a, b, c, d, e) = first, (None, *rest) if first[0] is None else rest

    def walk_key_compare(f, out, items, step, slot=slot, key=key, key2=key2, kind=kind, runs=runs, default=default,
                         a=a, b=b, c=c, d=d, e=e, s=s, target=target, source=source, set_key=set_key, method=method):
        remaining = iter(items)
        try:
            for item in remaining:
                f[slot] = item
                if s is not None:
                    if method is None and type(value := f[source]) is dict and set_key in value:
                        f[target] = value[set_key]
                    else:
                        s(f, out)
                run = a
                if type(item) is dict:
                    value = item.get(key)   # (with a key2, the key's value only through it)
                    if key2 is None and type(value) is kind or key2 is not None and type(value) is dict and \
                            type(value := value.get(key2)) is kind:
                        run = runs.get(value, default)
                try:
                    if run is not None:
                        run(f, out)
                    if b is not None:
                        b(f, out)
                        if c is not None:
                            c(f, out)
                            if d is not None:
                                d(f, out)
                                if e is not None:
                                    e(f, out)
                except ContinueLoop:
                    continue
        except BreakLoop:
            f[0].fuel += length_hint(remaining) * step
    return walk_key_compare


def _walk_many(slot, starts, runs, first):
    # One to five statements, no loop variable; a first that sets a variable to a key of one (first: Set.in_line)
    # done here where the source is a plain dict with the key (for a method, its value a short str), as its closure
    # does (lower._set_first, _walk_key_compare: the same without a method, for a statement list and before a
    # compare).
    a, b, c, d, e = runs + (None,) * (5 - len(runs))
    target, source, key, method = first

    def walk_many(f, out, items, step, slot=slot, starts=starts, target=target, source=source, key=key,
                  method=method, a=a, b=b, c=c, d=d, e=e):   # defaults: cheaper per item than free variables
        remaining = iter(items)
        try:
            for item in remaining:
                if starts is not None:
                    for reset in starts[0]:
                        f[reset] = MISSING
                    for copy, copied in starts[1]:
                        f[copy] = f[copied]
                f[slot] = item
                try:
                    if key is None or type(value := f[source]) is not dict or key not in value:
                        a(f, out)
                    elif method is None:
                        f[target] = value[key]
                    elif type(value := value[key]) is str and len(value) < BIG_STR:
                        f[target] = method(value)
                    else:
                        a(f, out)
                    if b is not None:
                        b(f, out)
                        if c is not None:
                            c(f, out)
                            if d is not None:
                                d(f, out)
                                if e is not None:
                                    e(f, out)
                except ContinueLoop:
                    continue
        except BreakLoop:
            f[0].fuel += length_hint(remaining) * step
    return walk_many


def _walk_loop(slot, loop_slot, starts, runs):
    # One to five statements, the loop context told where it is as each item is handed over.
    a, b, c, d, e = runs + (None,) * (5 - len(runs))

    def walk_loop(f, out, items, step, a=a, b=b, c=c, d=d, e=e, loop_slot=loop_slot, slot=slot, starts=starts):
        loop = f[loop_slot] = LoopContext(items, f[0].undefined)   # (its walk: loop._iter, which loop.last spends)
        for index, item in enumerate(loop._iter):
            if index <= loop.index0:
                continue   # consumed by the body (it iterated `loop`)
            loop.index0 = index
            if starts is not None:
                for reset in starts[0]:
                    f[reset] = MISSING
                for copy, copied in starts[1]:
                    f[copy] = f[copied]
            f[slot] = item
            try:
                a(f, out)
                if b is not None:
                    b(f, out)
                    if c is not None:
                        c(f, out)
                        if d is not None:
                            d(f, out)
                            if e is not None:
                                e(f, out)
            except ContinueLoop:
                continue
            except BreakLoop:
                f[0].fuel += (len(items) - index - 1) * step
                break
    return walk_loop
