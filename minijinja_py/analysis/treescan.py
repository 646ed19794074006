"""Tree scan: one walk over a template's AST answering the static questions that need every node (symbols.py
asks them): whether it nests deeper than max_nesting, where the special names (`loop`, `caller`, `kwargs`,
`varargs`, `self`, `super`) are first read or declared in each statement list, in Jinja2's visiting order, whether
any target is named `loop`, each statement's own step weight, and the nodes that may run code (calls, filters,
tests, load tags, blocks, call blocks, macro definitions: what Effects asks about), in order, with each
statement list's range of them. One pass, iterative, whatever the nesting: compile time stays linear in the
template's size. And Effects: what running a part of the template may change, answered from those ranges."""

from itertools import filterfalse

from ..syntax import nodes as n

__all__ = ["SPECIAL", "LOAD", "DECLARE", "LEAF_FIELDS", "NODE_FIELDS", "RUNNERS", "Index", "scan_tree",
           "push_arguments", "Effects", "PURE_METHODS"]

SPECIAL = ("loop", "caller", "kwargs", "varargs", "self", "super")
_SPECIAL_NAMES = frozenset(SPECIAL)
LOAD, DECLARE = "load", "declare"   # a special name's first event in a subtree: read, or assigned/declared
# the nodes that may run code not shown where they stand (Effects, below): the scan lists them in its visiting order
RUNNERS = frozenset({n.Call, n.Filter, n.Test, n.FilterBlock, n.AssignBlock, n.Load, n.Block, n.CallBlock,
                     n.Macro})


class Index:
    # What a scan found: the special names' events in Jinja2's visiting order (per name, their positions in the walk and
    # their kinds), whether any target is named loop, each statement's record (owns, by node: see _walk: its own step
    # weight, the names its own nodes read; an if's elif tests have records of their own), the RUNNERS nodes in the
    # walk's order (runners; for a macro definition, ends[its position] is the position after its parameters and
    # body), each body's range of positions in the events and in the runners, by id: (start, end, first runner, after
    # its last runner), the names of the assignment targets (NameTarget: set, for, with), whether any subscript is a
    # slice (`x[1:]`) of what may be a constant (transforms.py's constant folding asks: not of a variable or of its
    # attributes' or items' chain), and whether any dict literal has a key that is neither a constant nor a variable
    # (folderrors.py asks: only such a key may fold to something unhashable).

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


# The tables below say which fields of each node class can hold nodes (the other fields hold strings and flags: see
# LEAF_FIELDS); they are written out rather than computed from the classes' FIELDS because a cold start pays for
# every instruction of the import (computing them cost ~0.4M). tests/test_node_tables.py checks them against FIELDS,
# so a node class added to nodes.py without its entries here fails the tests.
LEAF_FIELDS = frozenset(("op", "name", "attr", "kind", "negated", "recursive", "scoped", "required", "names",
                          "alias"))
_OWN_ORDER = (n.Name, n.NameTarget, n.Const, n.Param, n.Block, n.Macro, n.CallBlock, n.FilterBlock, n.If,
              n.CondExpr)
_STATEMENT_LISTS = ("body", "else_")


def _fields(cls):
    # A node class's fields that can hold nodes, last first (for a node class made elsewhere).
    return tuple(filterfalse(LEAF_FIELDS.__contains__, reversed(cls.FIELDS)))


# every node class: its fields that can hold nodes, first to last (a constant's value holds no nodes)
NODE_FIELDS = {
    n.Template: ("body",), n.Text: (), n.Output: ("expr",), n.If: ("test", "body", "elifs", "else_"),
    n.For: ("target", "iter", "body", "else_", "filter"), n.Assign: ("target", "value"),
    n.AssignBlock: ("target", "filters", "body"), n.Param: ("default",), n.Macro: ("params", "body"),
    n.CallBlock: ("call", "params", "body"), n.FilterBlock: ("filters", "body"),
    n.With: ("targets", "values", "body"), n.ExprStmt: ("expr",), n.Break: (), n.Continue: (),
    n.Generation: ("body",), n.Block: ("body",), n.Autoescape: ("value", "body"), n.Load: ("template",),
    n.NameTarget: (), n.NamespaceTarget: (), n.TupleTarget: ("items",),
    n.Const: (), n.Name: (), n.TupleExpr: ("items",), n.ListExpr: ("items",), n.DictExpr: ("pairs",),
    n.Getattr: ("obj",), n.Getitem: ("obj", "key"), n.Slice: ("start", "stop", "step"), n.Call: ("func", "args"),
    n.Filter: ("value", "args"), n.Test: ("value", "args"), n.BinOp: ("left", "right"), n.UnaryOp: ("operand",),
    n.Not: ("operand",), n.And: ("left", "right"), n.Or: ("left", "right"), n.Compare: ("first", "ops"),
    n.Concat: ("items",), n.CondExpr: ("test", "then", "else_"),
}
# the node classes with a statement list (a body) and no visiting order of their own (_OWN_ORDER): their fields
# that can hold nodes, last first (the scan pops them first to last)
_BODY_KIDS = {
    n.Template: ("body",), n.For: ("filter", "else_", "body", "iter", "target"),
    n.AssignBlock: ("body", "filters", "target"), n.With: ("body", "values", "targets"), n.Generation: ("body",),
    n.Autoescape: ("body", "value"),
}
_ITEMS = {n.ListExpr: "items", n.TupleExpr: "items", n.Concat: "items", n.DictExpr: "pairs"}   # see node_count
_CONST, _NAME, _GETATTR, _GETITEM = n.Const, n.Name, n.Getattr, n.Getitem


def _info(cls, kids):
    # What _walk needs of a node class without a body or a visiting order of its own, in one lookup: (its fields
    # that can hold nodes, last first, True for a runner, False for a subscript (which may be a slice) or a dict
    # literal, else None, the field whose items its weight counts or None). _INFO holds it, written out, for the
    # classes of nodes.py; this makes it for a node class made elsewhere.
    return kids, True if cls in RUNNERS else False if cls is n.Getitem or cls is n.DictExpr else None, \
        _ITEMS.get(cls)


_INFO = {
    n.Text: ((), None, None), n.Output: (("expr",), None, None), n.Assign: (("value", "target"), None, None),
    n.ExprStmt: (("expr",), None, None), n.Break: ((), None, None), n.Continue: ((), None, None),
    n.Load: (("template",), True, None), n.NamespaceTarget: ((), None, None), n.TupleTarget: (("items",), None, None),
    n.TupleExpr: (("items",), None, "items"), n.ListExpr: (("items",), None, "items"),
    n.DictExpr: (("pairs",), False, "pairs"), n.Getattr: (("obj",), None, None),
    n.Getitem: (("key", "obj"), False, None), n.Slice: (("step", "stop", "start"), None, None),
    n.Call: (("args", "func"), True, None), n.Filter: (("args", "value"), True, None),
    n.Test: (("args", "value"), True, None), n.BinOp: (("right", "left"), None, None),
    n.UnaryOp: (("operand",), None, None), n.Not: (("operand",), None, None), n.And: (("right", "left"), None, None),
    n.Or: (("right", "left"), None, None), n.Compare: (("ops", "first"), None, None),
    n.Concat: (("items",), None, "items"),
}
_STMT = ["a statement"]   # the scan's weight slot of a statement list's item: it starts its own
_BODY = ["a statement list"]   # ...of a statement list (a tuple or list) to walk: its range of events is recorded
_END = ["a statement list's end"]   # ...of (a statement list, its first event, its first runner): where it ends
_EVENTS = ["events"]   # ...of a list of events that happen at that point (a macro's parameter names)
# (a macro definition's end is pushed as an int: the position of the macro among the runners)
# A lookup of a constant key from a plain name (`m.role`, `m['role']`: what most expressions read) is taken where it
# is met, not pushed: it records nothing but its step (no runner, no slice, no special name).


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


# scan_tree's walk. A stack entry is (value, the depth of its parent node, weight): weight is the record
# [count, names] of the statement whose own nodes the value is — count its step weight (node_count's rules), names
# the variables they read, in the walk's order, each time read (what the symbol analysis loads: it walks no
# expression again) — or a marker (_STMT, _BODY, _END, _EVENTS above). A branch of a conditional expression costs
# nothing there (the taken one pays when it runs): its record is [count not added, the statement's names]. An if
# lists a record per elif test after its own ([count, names, [count, names]...]: its weight is their sum). An int
# value: where a macro's runners end. A leaf with nothing to record (a constant...) is not pushed.
def _walk(root, limit):
    events, bodies, owns, loop_targets, runners, ends, targets, slices = [], {}, {}, False, [], {}, set(), False
    odd_keys, special = False, _SPECIAL_NAMES
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
                    weight = owns[x] = [1, []]
                else:
                    weight[0] += 1 if items is None else 1 + len(getattr(x, items))
                if depth == limit:   # a leaf below is too deep (what is pushed fails where it is popped)
                    _deep_leaves(x, kids)
                for f in kids:
                    value = getattr(x, f)
                    leaf = value.__class__
                    if leaf is _NAME and value.name not in special:
                        weight[1].append(value.name)
                    elif (leaf is _GETATTR or leaf is _GETITEM and value.key.__class__ is _CONST) and \
                            value.obj.__class__ is _NAME and value.obj.name not in special and depth + 1 < limit:
                        weight[0] += 1   # `m.role`, `m['role']`: its step and its name, nothing else (_lookup)
                        weight[1].append(value.obj.name)
                    elif leaf is not _CONST and value is not None:
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
                    if leaf is _NAME and item.name not in special and depth < limit:
                        weight[1].append(item.name)
                    elif (leaf is _GETATTR or leaf is _GETITEM and item.key.__class__ is _CONST) and \
                            item.obj.__class__ is _NAME and item.obj.name not in special and depth + 1 < limit:
                        weight[0] += 1   # (as a node's kid above)
                        weight[1].append(item.obj.name)
                    elif leaf is not _CONST and leaf is not str or depth >= limit:   # (a keyword's name: no)
                        push((item, depth, weight))   # (a constant or a name too deep fails where it is popped)
            elif cls is n.Const or cls is n.Name or cls is n.NameTarget:
                loop_targets = _scan_name(x, depth >= limit, weight, events, targets) or loop_targets
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


def _scan_name(x, too_deep, weight, events, targets):
    # _walk's step for a constant, a name or a target pushed alone (a special name, an assignment's target): True
    # for a target named loop.
    if too_deep:
        raise RecursionError
    cls = type(x)
    if cls is n.Const:
        return False
    if cls is n.NameTarget:
        targets.add(x.name)
        weight[0] += 1
    else:   # a name read (one pushed alone: a special name, or one at the depth limit)
        weight[1].append(x.name)
    if x.name not in _SPECIAL_NAMES:
        return False
    events.append((x.name, LOAD if cls is n.Name else DECLARE))
    return cls is n.NameTarget and x.name == "loop"


def _deep_leaves(x, kids):
    # _walk's check of a node at the depth limit: a constant or a plain name in it nests too deep.
    for f in kids:
        value = getattr(x, f)
        if value.__class__ is _CONST or value.__class__ is _NAME and value.name not in _SPECIAL_NAMES:
            raise RecursionError


def _scan_arguments(args, depth, weight, push):
    # _walk's step for an Args (depth: its parent's): its weight, and the parts holding something to walk pushed
    # one by one (popped positional, keywords, star, dstar; not through a generator: one per call cost more).
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
        weight = owns[x] = [1, []]
    else:
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
        if x.elifs:   # each test's record of its own (the symbol analysis reads them between the bodies)
            tests = [[0, []] for _ in x.elifs]
            weight.extend(tests)
            for (test, body), record in zip(reversed(x.elifs), reversed(tests)):
                push((body, depth, _BODY))
                push((test, depth, record))
        push((x.body, depth, _BODY))
        push((x.test, depth, weight))
    elif cls is n.CondExpr:   # the branch taken pays when it runs (node_count)
        branches = [0, weight[1]]   # (their names are the statement's: a count of its own, not added)
        push((x.else_, depth, branches))
        push((x.then, depth, branches))
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
            weight[0] += len(params)
        for p in reversed(params):
            if p.default is not None:
                push((p.default, depth, weight))
        push(([(p.name, DECLARE) for p in params if p.name in SPECIAL], depth, _EVENTS))
        if cls is n.CallBlock:
            push((x.call, depth - 1, weight))


# ---------------------------------------------------------------------------------------------------- effects
# A template's AST and its environment's filters, tests and globals → what running a part of it may
# change. Asked by the fast paths that read a value once where Jinja2 reads it again (a switch's subject, an item
# plan's branches, a loop's filter, length and items): they may only do so where nothing in between can change it.
#
# Two questions:
#
#   * changes_data(nodes): could running nodes change data in place — a list, a dict, a caller's object? Only by
#     running code that is not the package's own: a call of anything but a pure method of plain data, one of the
#     package's own globals or a macro of this template whose body changes nothing (and calls nothing that does);
#     a filter or test the caller registered (its function, or one map/select/... names); whatever an include,
#     import, extends, block or call block brings (`loop(children)` of a recursive loop runs the loop's own body:
#     it changes what that body changes). A mutating method (`xs.append`, which only the mutable profile
#     hands out) is a call like any other. Assigning a namespace's attribute changes no list or dict: the fast
#     paths read no namespace once.
#   * assigns(nodes, name): does a statement in nodes assign the variable `name` (`{% set m = ... %}`, a tuple or
#     block set, a loop or with target)? A macro's body assigns its own variables, not the caller's.
#
# What is taken as a read that changes nothing: reading or printing a caller's object (its properties, __str__,
# __iter__, __len__, __format__), and a call whose callee is spelt as a pure method of plain data (`x.strip()`,
# `d.get(k)`) or as a package global (`range`, `namespace`, `raise_exception`) — which a caller's object with a
# method of that name, or a render variable named like a global, could make a call of the caller's code. Answers
# are memoised by node, so nested loops ask about their bodies once each; a statement list the tree scan indexed
# (Index: its range of the nodes that may run code) is answered from that range, without a walk.

# methods of plain data that change nothing: str's, and the reading ones of dicts, lists, tuples and sets (none
# of the mutators the sandbox guards), and the loop's own (`loop.cycle`, `loop.changed`)
PURE_METHODS = frozenset([name for name in vars(str) if name[0] != "_"] + [
    "get", "items", "keys", "values", "copy", "fromkeys", "index", "count", "difference", "intersection",
    "isdisjoint", "issubset", "issuperset", "symmetric_difference", "union", "cycle", "changed"])
# filters that call the filter or test a string argument names: (the positions of a name in their arguments)
_NAMING_FILTERS = {"map": (0,), "select": (0,), "reject": (0,), "selectattr": (1,), "rejectattr": (1,)}
_OPAQUE = frozenset({n.Load, n.Block, n.CallBlock})   # statements that run code this template does not show
_ASKED = frozenset({n.Call, n.Filter, n.Test, n.FilterBlock, n.AssignBlock})   # nodes that may run code
_EXPRESSIONS = frozenset({n.Const, n.Name, n.TupleExpr, n.ListExpr, n.DictExpr, n.Getattr, n.Getitem, n.Slice,
                          n.Call, n.Filter, n.Test, n.BinOp, n.UnaryOp, n.Not, n.And, n.Or, n.Compare, n.Concat,
                          n.CondExpr})   # (they hold no statement, no target)


_PACKAGE = __name__.split(".")[0]   # (the package's own name: a vendored copy under another name is still ours)


def _ours(value):
    # Is value one of the package's own functions or objects (a builtin filter, test or global), or None (no
    # such filter or test: using it fails, running nothing)?
    if value is None:
        return True
    module = getattr(value, "__module__", None)
    if not isinstance(module, str):
        module = type(value).__module__
    return module == _PACKAGE or module.startswith(_PACKAGE + ".")


class Effects:
    # The answers for one template (its root, as compiled) in one environment (filters, tests, globals).

    def __init__(self, template, filters, tests, globals_, may_define_macros=True, index=None):
        self._template = template
        self._index = index     # the scan of template (treescan.Index), or None
        self._filters, self._tests, self._globals = filters, tests, globals_
        self._memo = {}         # id of a node or statement list → (it, kept alive so that the id stays its, the answer)
        # name → the Macro nodes of that name (names bound otherwise are left out); found when first asked
        self._macros = None if may_define_macros else {}
        self._macro_memo = {}   # macro name → changes_data of calling it (False while being decided: recursion)

    def changes_data(self, nodes):
        # Could running nodes (a statement list, a statement or an expression) change data in place?
        known = self._memo.get(id(nodes))
        if known is not None:
            return known[1]
        indexed = self._index.bodies.get(id(nodes)) if self._index is not None and type(nodes) is tuple else None
        found = self._walk(nodes) if indexed is None else self._runs_in(indexed[2], indexed[3])
        self._memo[id(nodes)] = (nodes, found)
        return found

    def _runs_in(self, start, end):
        # _walk's answer for the runners [start, end) of the scan (a statement list's): a macro definition's are
        # passed over (asked about where it is called).
        runners, ends = self._index.runners, self._index.ends
        while start < end:
            x = runners[start]
            cls = type(x)
            if cls is n.Macro:
                start = ends[start]
                continue
            if cls in _OPAQUE or self._runs_code(x):
                return True
            start += 1
        return False

    def _walk(self, root):
        memo, stack = self._memo, [root]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            x = pop()
            cls = type(x)
            if cls is list or cls is tuple:
                known = memo.get(id(x))
                if known is None:
                    extend(x)
                elif known[1]:
                    return True
                continue
            if cls in _ASKED:
                if self._runs_code(x):
                    return True
            elif cls in _OPAQUE:
                return True
            elif cls is n.Macro:
                continue   # a definition runs nothing (its calls are asked about the macro)
            elif cls is n.Args:
                push_arguments(x, push)
                continue
            fields = NODE_FIELDS.get(cls)
            if fields is None and isinstance(x, n.Node):
                fields = x.FIELDS   # a node class made elsewhere (transforms.py)
            if fields:
                for field in fields:
                    value = getattr(x, field)
                    if value is not None:   # (an absent part: nothing to walk)
                        push(value)
        return False

    def _runs_code(self, node):
        # Does this node itself (not its children) run code that may change data?
        if isinstance(node, n.Call):
            return self._call_changes(node.func)
        if isinstance(node, n.Filter):
            return not _ours(self._filters.get(node.name)) or self._names_foreign(node)
        if isinstance(node, n.Test):
            return not _ours(self._tests.get(node.name))
        if isinstance(node, n.FilterBlock) or isinstance(node, n.AssignBlock):
            return self._block_filters_change(node)
        return False

    def _block_filters_change(self, node):
        # (apart from _runs_code: its generator would make a cell for self on every call of _runs_code)
        return any(not _ours(self._filters.get(f.name)) or self._names_foreign(f) for f in node.filters)

    def _names_foreign(self, node):
        # For map/select/...: does an argument name a filter or test that is not the package's (or is it not a
        # constant, so that it could)?
        positions = _NAMING_FILTERS.get(node.name)
        if positions is None:
            return False
        args = node.args.positional
        for position in positions:
            if position < len(args):
                arg = args[position]
                if not (isinstance(arg, n.Const) and type(arg.value) is str):
                    return True
                if not _ours(self._filters.get(arg.value, self._tests.get(arg.value))):
                    return True
        return node.args.star is not None or node.args.dstar is not None

    def _call_changes(self, func):
        if isinstance(func, n.Getattr):
            return func.attr not in PURE_METHODS
        if not isinstance(func, n.Name):
            return True
        if func.name == "loop":
            return False   # loop(children) of a recursive loop runs that loop's body, asked about as a whole
        macros = self._macro_table()
        if func.name in macros:
            return self._macro_changes(func.name, macros[func.name])
        value = self._globals.get(func.name)
        return value is None or not _ours(value)   # (a render variable, or a global of the caller's)

    def _macro_changes(self, name, definitions):
        found = self._macro_memo.get(name)
        if found is None:
            self._macro_memo[name] = False   # a recursive call adds nothing to what the body does
            found = self._macro_memo[name] = any(
                self.changes_data(macro.body) or self._walk([p.default for p in macro.params])
                for macro in definitions)
        return found

    def _macro_table(self):
        # {name: its Macro nodes} for the names only macros bind (a name also bound by a set, a loop, a
        # parameter or an import could hold anything when called).
        if self._macros is None and self._index is not None:
            self._macros = self._macros_scanned(self._index)
        if self._macros is None:
            macros, others, stack = {}, set(), [self._template]
            pop, push, extend = stack.pop, stack.append, stack.extend
            while stack:
                x = pop()
                cls = type(x)
                if cls is list or cls is tuple:
                    extend(x)
                    continue
                if cls in _EXPRESSIONS:
                    continue
                if cls is n.Macro:
                    macros.setdefault(x.name, []).append(x)
                elif cls is n.NameTarget or cls is n.Param:
                    others.add(x.name)
                elif cls is n.Load:
                    others.update(alias or name for name, alias in x.names)
                    others.add(x.alias)
                for field in NODE_FIELDS.get(cls, ()):
                    push(getattr(x, field))
            self._macros = {name: found for name, found in macros.items() if name not in others}
        return self._macros

    @staticmethod
    def _macros_scanned(index):
        # _macro_table's answer from the tree scan: its macro definitions, targets, parameters and load tags.
        macros, others = {}, set(index.targets)
        for x in index.runners:
            cls = type(x)
            if cls is n.Macro:
                macros.setdefault(x.name, []).append(x)
            if cls is n.Macro or cls is n.CallBlock:
                others.update(p.name for p in x.params)
            elif cls is n.Load:
                others.update(alias or name for name, alias in x.names)
                others.add(x.alias)
        return {name: found for name, found in macros.items() if name not in others}

    @staticmethod
    def assigns(nodes, name):
        # Does a statement in nodes (outside macro bodies) assign the variable `name`?
        stack = list(nodes)
        while stack:
            x = stack.pop()
            if isinstance(x, (list, tuple)):
                stack.extend(x)
            elif isinstance(x, (n.Assign, n.AssignBlock)):
                stack.append(x.target)
            elif isinstance(x, n.For):
                stack.extend((x.target, x.body, x.else_))
            elif isinstance(x, n.With):
                stack.extend((x.targets, x.body))
            elif isinstance(x, (n.NameTarget, n.NamespaceTarget)):
                if x.name == name:
                    return True
            elif isinstance(x, n.TupleTarget):
                stack.extend(x.items)
            elif isinstance(x, n.Macro):
                if x.name == name:
                    return True
            elif isinstance(x, n.Load):
                if name == x.alias or any(name == (alias or imported) for imported, alias in x.names):
                    return True
            elif isinstance(x, n.Node) and not isinstance(x, n.CallBlock):
                stack.extend(field for field in n.field_values(x) if isinstance(field, (list, tuple)))
        return False
