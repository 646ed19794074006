"""Tree scan: one walk over a template's AST answering the static questions that need every node (symbols.py
asks them): whether it nests deeper than max_nesting, where the special names (`loop`, `caller`, `kwargs`,
`varargs`, `self`, `super`) are first read or declared in each statement list, in Jinja2's visiting order, whether
any target is named `loop`, each statement's own step weight, and the nodes that may run code (calls, filters,
tests, load tags, blocks, call blocks, macro definitions: what effects.py asks about), in order, with each
statement list's range of them. One pass, iterative, whatever the nesting: compile time stays linear in the
template's size."""

from itertools import filterfalse

from ..syntax import nodes as n

__all__ = ["SPECIAL", "LOAD", "DECLARE", "LEAF_FIELDS", "NODE_FIELDS", "RUNNERS", "Index", "scan_tree",
           "push_arguments"]

SPECIAL = ("loop", "caller", "kwargs", "varargs", "self", "super")
LOAD, DECLARE = "load", "declare"   # a special name's first event in a subtree: read, or assigned/declared
# the nodes that may run code not shown where they stand (effects.py): the scan lists them in its visiting order
RUNNERS = frozenset({n.Call, n.Filter, n.Test, n.FilterBlock, n.AssignBlock, n.Load, n.Block, n.CallBlock,
                     n.Macro})


class Index:
    # What a scan found: the special names' events in Jinja2's visiting order (per name, their positions in
    # the walk and their kinds), whether any target is named loop, each statement's own step weight (own_weight)
    # by id, as [weight], the RUNNERS nodes in the walk's order (runners; for a macro definition, ends[its
    # position] is the position after its parameters and body), each body's range of positions in the events
    # and in the runners, by id: (start, end, first runner, after its last runner), the names of the
    # assignment targets (NameTarget: set, for, with), whether any subscript is a slice (`x[1:]`) of what
    # may be a constant (transforms.py's constant folding asks: not of a variable or of its attributes' or items'
    # chain), and whether any dict literal has a key that is neither a constant nor a variable (folderrors.py
    # asks: only such a key may fold to something unhashable).

    __slots__ = ("positions", "kinds", "bodies", "loop_targets", "owns", "runners", "ends", "targets", "slices",
                 "odd_keys")

    def __init__(self, events, bodies, loop_targets, owns, runners, ends, targets, slices, odd_keys):
        self.positions, self.kinds, self.bodies, self.loop_targets, self.owns = {}, {}, bodies, loop_targets, owns
        self.runners, self.ends, self.targets, self.slices = runners, ends, targets, slices
        self.odd_keys = odd_keys
        for position, (name, kind) in enumerate(events):
            self.positions.setdefault(name, []).append(position)
            self.kinds.setdefault(name, []).append(kind)

    def first(self, body, name):
        # The first event of name in body ("load", "declare"), or None.
        positions = self.positions.get(name)
        if positions is None:
            return None
        start, end = self.bodies[id(body)][:2]
        # the first position at or after start, by halving (written here: _bisect is a shared library a cold start
        # would load for this alone, ~0.13 ms)
        low, high = 0, len(positions)
        while low < high:
            middle = (low + high) >> 1
            if positions[middle] < start:
                low = middle + 1
            else:
                high = middle
        return self.kinds[name][low] if low < len(positions) and positions[low] < end else None


# the fields of each node class that can hold nodes, last first (the scan pops them first to last); the other
# fields hold strings and flags
LEAF_FIELDS = frozenset(("op", "name", "attr", "kind", "negated", "recursive", "scoped", "required", "names",
                          "alias"))
_OWN_ORDER = (n.Name, n.NameTarget, n.Const, n.Param, n.Block, n.Macro, n.CallBlock, n.FilterBlock, n.If,
              n.CondExpr)
_STATEMENT_LISTS = ("body", "else_")


def _fields(cls):
    return tuple(filterfalse(LEAF_FIELDS.__contains__, reversed(cls.FIELDS)))


# every node class: its fields that can hold nodes, first to last (filterfalse: no generator per class at import)
NODE_FIELDS = {cls: tuple(filterfalse(LEAF_FIELDS.__contains__, cls.FIELDS)) for cls in vars(n).values()
               if isinstance(cls, type) and issubclass(cls, n.Node) and cls is not n.Node}
NODE_FIELDS[n.Const] = NODE_FIELDS[n.Text] = ()   # a constant's value holds no nodes
_KIDS = {cls: fields[::-1] for cls, fields in NODE_FIELDS.items()
         if cls not in _OWN_ORDER and "body" not in cls.FIELDS}
_BODY_KIDS = {cls: fields[::-1] for cls, fields in NODE_FIELDS.items()
              if cls not in _OWN_ORDER and "body" in cls.FIELDS}
_ITEMS = {n.ListExpr: "items", n.TupleExpr: "items", n.Concat: "items", n.DictExpr: "pairs"}   # see node_count
_CONST, _NAME = n.Const, n.Name


def _info(cls, kids):
    # What _walk needs of a node class of _KIDS, in one lookup: (its kids, True for a runner, False for a
    # subscript (which may be a slice) or a dict literal, else None, the field whose items its weight counts or
    # None).
    return kids, True if cls in RUNNERS else False if cls is n.Getitem or cls is n.DictExpr else None, \
        _ITEMS.get(cls)


_INFO = {cls: _info(cls, kids) for cls, kids in _KIDS.items()}
_STMT = ["a statement"]   # the scan's weight slot of a statement list's item: it starts its own
_BODY = ["a statement list"]   # ...of a statement list (a tuple or list) to walk: its range of events is recorded
_END = ["a statement list's end"]   # ...of (a statement list, its first event, its first runner): where it ends
_EVENTS = ["events"]   # ...of a list of events that happen at that point (a macro's parameter names)
# (a macro definition's end is pushed as an int: the position of the macro among the runners)


def _of_variable(node):
    # Is node a variable, or a chain of attributes or items read from one (which Jinja2's folder never folds)?
    while node.__class__ is n.Getattr or node.__class__ is n.Getitem:
        node = node.obj
    return node.__class__ is n.Name


def _odd_keys(node):
    # Has the dict literal node a key that is neither a constant nor a variable?
    return any(k.__class__ is not _CONST and k.__class__ is not _NAME for k, _ in node.pairs)


def push_arguments(args, push):
    # A walk's push of an Args' expressions (popped dstar, star, keywords and positional, each last first, as
    # pushing its fields would pop them), without what holds nothing to walk: absent star arguments, the keywords'
    # names.
    push(args.positional)
    for _, value in args.keywords:
        push(value)
    if args.star is not None:
        push(args.star)
    if args.dstar is not None:
        push(args.dstar)


def scan_tree(root, limit):
    # One walk over the statement list root, in Jinja2's visiting order (a block's body is walked on its own:
    # Jinja2's visit stops at blocks); None when a node nests deeper than limit (as check_nesting counts).
    try:
        return _walk(root, float("inf") if limit is None else limit)
    except RecursionError:   # what the walk raises for a node past the limit (it recurses nowhere itself)
        return None


# scan_tree's walk. A stack entry is (value, the depth of its parent node, weight): weight is the [count] of the
# statement whose own nodes the value is (node_count's rules), None when it costs nothing there (a nested statement
# list, a branch of a conditional expression), or a marker (_STMT, _BODY, _END, _EVENTS above); an int value: where
# a macro's runners end. A leaf with nothing to record (a constant...) is not pushed.
def _walk(root, limit):
    events, bodies, owns, loop_targets, runners, ends, targets, slices = [], {}, {}, False, [], {}, set(), False
    odd_keys = False
    bodies[id(())] = (0, 0, 0, 0)   # every empty statement list (the parser's is the one empty tuple): not walked
    deferred = [(root, 0, _BODY)]
    while deferred:
        stack = [deferred.pop()]
        pop, push = stack.pop, stack.append
        while stack:
            x, depth, weight = pop()
            cls = type(x)
            info = _INFO.get(cls)
            if info is not None:
                kids, mark, items = info
                depth += 1
                if depth > limit:
                    raise RecursionError
                if mark:
                    runners.append(x)
                elif mark is not None:   # a subscript or a dict literal
                    if cls is n.DictExpr:
                        odd_keys = odd_keys or _odd_keys(x)
                    elif x.key.__class__ is n.Slice and not _of_variable(x.obj):
                        slices = True
                if weight is _STMT:
                    weight = owns[id(x)] = [1]
                elif weight is not None:
                    weight[0] += 1 if items is None else 1 + len(getattr(x, items))
                for f in kids:
                    value = getattr(x, f)
                    leaf = value.__class__
                    if leaf is _CONST or leaf is _NAME and value.name not in SPECIAL or value is None:
                        if depth >= limit and value is not None:
                            raise RecursionError
                        continue
                    push((value, depth, weight))
            elif cls is tuple or cls is list:
                if weight is _BODY:   # a statement list: its items, then where its events and runners end
                    push(((x, len(events), len(runners)), depth, _END))
                    for item in reversed(x):
                        push((item, depth, _STMT))
                    continue
                if weight is _END:   # x: (the statement list, where its events and its runners start)
                    bodies[id(x[0])] = (x[1], len(events), x[2], len(runners))
                    continue
                if weight is _EVENTS:   # (a plain list, not a class of its own: a class costs a cold start more)
                    events.extend(x)
                    continue
                for item in reversed(x):
                    leaf = item.__class__
                    if leaf is _CONST or leaf is _NAME and item.name not in SPECIAL:
                        if depth >= limit:
                            raise RecursionError
                    elif leaf is not str:   # (a keyword argument's name: nothing to walk)
                        push((item, depth, weight))
            elif cls is n.Const or cls is n.Name or cls is n.NameTarget:
                if depth >= limit:
                    raise RecursionError
                if cls is not n.Const:
                    if cls is n.NameTarget:
                        targets.add(x.name)
                        if weight is not None:
                            weight[0] += 1
                    if x.name in SPECIAL:
                        events.append((x.name, LOAD if cls is n.Name else DECLARE))
                        loop_targets = loop_targets or (cls is n.NameTarget and x.name == "loop")
            elif cls is n.Args:
                _scan_arguments(x, depth, weight, push)
            elif cls is int:   # where the runners of the macro definition at that position end
                ends[x] = len(runners)
            elif cls in _BODY_KIDS or cls in _OWN_ORDER:
                if cls in RUNNERS:
                    if cls is n.Macro:
                        push((len(runners), depth, None))   # (popped after all of the macro)
                    runners.append(x)
                _scan_statement(x, depth + 1, limit, weight, owns, push, deferred)
            elif isinstance(x, n.Node):   # a node class made elsewhere: walked as the others
                _INFO[cls] = _info(cls, _fields(cls))
                push((x, depth, weight))
    return Index(events, bodies, loop_targets, owns, runners, ends, targets, slices, odd_keys)


def _scan_arguments(args, depth, weight, push):
    # _walk's step for an Args (depth: its parent's): its weight, and the parts holding something to walk pushed
    # one by one (popped positional, keywords, star, dstar; not through a generator: one per call cost more).
    if weight is not None:
        weight[0] += len(args.positional) + len(args.keywords)
    if args.dstar is not None:
        push((args.dstar, depth, weight))
    if args.star is not None:
        push((args.star, depth, weight))
    if args.keywords:
        push((args.keywords, depth, weight))
    if args.positional:
        push((args.positional, depth, weight))


def _scan_statement(x, depth, limit, weight, owns, push, deferred):
    # _walk's nodes with a visiting order of their own, or statement lists (depth: the node's own).
    if depth > limit:
        raise RecursionError
    if weight is _STMT:
        weight = owns[id(x)] = [1]
    elif weight is not None:
        weight[0] += 1
    cls = type(x)
    kids = _BODY_KIDS.get(cls)
    if kids is not None:
        for f in kids:
            value = getattr(x, f)
            if f not in _STATEMENT_LISTS:
                if value is not None:
                    push((value, depth, weight))
            elif value != ():
                push((value, depth, _BODY))
    elif cls is n.If:
        if x.else_ != ():
            push((x.else_, depth, _BODY))
        for test, body in reversed(x.elifs):
            push((body, depth, _BODY))
            push((test, depth, weight))
        push((x.body, depth, _BODY))
        push((x.test, depth, weight))
    elif cls is n.CondExpr:   # the branch taken pays when it runs (node_count)
        push((x.else_, depth, None))
        push((x.then, depth, None))
        push((x.test, depth, weight))
    elif cls is n.Block:
        deferred.append((x.body, depth, _BODY))
    elif cls is n.FilterBlock:   # Jinja2 visits the body first
        push((x.filters, depth, weight))
        push((x.body, depth, _BODY))
    else:   # Macro, CallBlock, Param: (the call,) the parameters' names, their defaults, the body
        params = (x,) if cls is n.Param else x.params
        if cls is not n.Param:
            push((x.body, depth, _BODY))
            depth += 1
            if params and depth > limit:
                raise RecursionError
            if weight is not None:
                weight[0] += len(params)
        for p in reversed(params):
            if p.default is not None:
                push((p.default, depth, weight))
        push(([(p.name, DECLARE) for p in params if p.name in SPECIAL], depth, _EVENTS))
        if cls is n.CallBlock:
            push((x.call, depth - 1, weight))
