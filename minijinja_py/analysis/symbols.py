"""Symbols: which variable each name of the template is, resolved at compile time to a slot of a frame."""

# Jinja2 resolves names statically, and so do we. A *function* is what runs with a frame of its own at render time:
# the template, a macro call, a call block's caller, a {% block %}, a recursive loop's call. A frame is a Python list:
# slot 0 the render state, slot 1 the frame the function was defined in (its parent), then one slot per variable.
# A *scope* is one of Jinja2's symbol frames inside a function (the function's own, a loop body, a with block, a
# set or filter block...); each variable of a scope has its own slot, so no dictionary is copied when a scope starts.
#
# How a scope's variables get their first value follows Jinja2's analysis (its idtracking): when the scope starts,
# a name it assigns before any outer scope knows it starts *undefined*; a name an outer scope knows is an *alias*,
# copied from that scope's variable; a name nobody assigns is *resolved* once per function from the render's
# variables and the globals; parameters (loop targets, macro arguments) are set by whoever starts the scope. A name
# assigned anywhere inside an {% if %} is resolved or aliased instead of undefined (Jinja2's branch merge), so
#
#     {% for m in messages %}{{ greeting }}{% endfor %}{% set greeting = 'hi' %}
#
# prints nothing in the loop even when the caller passes `greeting`, but {% if %}{{ a.b }}{% set a = 1 %}{% endif %}
# reads the caller's `a` first. The other static questions live here too, each answered in one pass over the tree
# (never once per enclosing block, so compile time stays linear): which special names (`loop`, `caller`, `kwargs`,
# `varargs`, `self`) a body reads before declaring them, the first assignment to `loop` in a for loop, how many nodes
# a statement has (its step-budget weight), and whether the tree nests deeper than max_nesting; the ones that need
# every node are answered by one scan of the tree (treescan.py).

from itertools import repeat
from operator import itemgetter

from .treescan import LOAD, NODE_FIELDS, push_arguments, scan_tree
from ..core.errors import LimitExceeded
from ..syntax import nodes as n

__all__ = [
    "PARAM", "RESOLVE", "ALIAS", "UNDEFINED", "Function", "Scope", "analyze", "Summaries", "check_nesting",
    "own_weight", "node_count", "target_names",
]

PARAM, RESOLVE, ALIAS, UNDEFINED = "param", "resolve", "alias", "undefined"   # how a variable starts
_CONST, _NAME, _GETATTR, _GETITEM = n.Const, n.Name, n.Getattr, n.Getitem
FIRST_SLOT = 2   # slots 0 and 1 of every frame: the render state and the parent frame
_PARAM_LOAD = (PARAM,)   # a slot without a load entry: set by whoever starts the scope


class Function:
    # The frame layout of one template function, filled in while its scopes are analysed.

    __slots__ = ("size", "resolve_slots", "parent_scope", "reentered", "family")

    def __init__(self, parent_scope=None, reentered=False, family=None):
        self.size = FIRST_SLOT
        self.resolve_slots = {}           # name → the slot resolved from the render's variables at entry
        self.parent_scope = parent_scope  # the scope the function is defined in (None: the template, a block)
        self.reentered = reentered        # its own scope starts more than once per frame (a recursive loop's body)
        # every function of the template, in the order made (meta.find_undeclared_variables reads their names)
        self.family = parent_scope.function.family if parent_scope is not None else \
            family if family is not None else []
        self.family.append(self)

    def new_slot(self):
        slot = self.size
        self.size += 1
        return slot

    def resolve_slot(self, name):
        slot = self.resolve_slots.get(name)
        if slot is None:
            slot = self.resolve_slots[name] = self.new_slot()
        return slot


class Scope:
    # One of Jinja2's symbol frames. refs: name → slot; loads: slot → (how it starts, argument).

    __slots__ = ("function", "parent", "refs", "loads", "stores", "store_log", "branch_depth")

    def __init__(self, function, parent=None):
        self.function = function
        self.parent = parent if parent is not None else function.parent_scope
        self.refs = {}
        self.loads = {}
        self.stores = set()
        self.store_log = []      # names in the order they were first stored (for the branch merge)
        self.branch_depth = 0    # {% if %} statements being analysed at this scope's level

    def find(self, name):
        # (depth, slot) of the variable `name` means here: depth is how many functions out it lives (0: this
        # frame, 1: the parent frame...); None when no scope assigns it.
        found = self.find_variable(name)
        return None if found is None else found[:2]

    def find_variable(self, name):
        # (depth, slot, how it starts) of the variable `name` means here (see find), or None.
        scope, depth = self, 0
        while scope is not None:
            slot = scope.refs.get(name)
            if slot is not None:
                return depth, slot, scope.loads.get(slot, _PARAM_LOAD)[0]
            parent = scope.parent
            if parent is not None and parent.function is not scope.function:
                depth += 1
            scope = parent
        return None

    def _find_outside(self, name):
        if self.parent is None:
            return None
        found = self.parent.find(name)
        if found is not None and self.parent.function is not self.function:
            found = (found[0] + 1, found[1])
        return found

    def load(self, name):
        if name not in self.refs and self.find_variable(name) is None:
            slot = self.function.resolve_slot(name)
            self.refs[name] = slot
            self.loads[slot] = (RESOLVE, name)

    def store(self, name):
        if name not in self.stores:
            self.stores.add(name)
            self.store_log.append(name)
        if name not in self.refs:
            slot = self.function.new_slot()
            self.refs[name] = slot
            outer = self._find_outside(name)
            self.loads[slot] = (ALIAS, outer) if outer is not None else (UNDEFINED, name)

    def declare_parameter(self, name):
        if name not in self.stores:
            self.stores.add(name)
            self.store_log.append(name)
        slot = self.refs.get(name)
        if slot is None or self.loads.get(slot, (None,))[0] != PARAM:
            slot = self.refs[name] = self.function.new_slot()
            self.loads[slot] = (PARAM, name)
        return slot

    def localize_resolved_stores(self):
        # After the analysis of an inner scope: a name it resolves *and* assigns gets a slot of its own (copied
        # from the function's resolved slot when the scope starts), since that slot is shared by every scope of the
        # function that only reads the name (a function's own scope may write it: it starts once per frame).
        if not self.function.reentered and (self.parent is None or self.parent.function is not self.function):
            return
        resolved = self.function.resolve_slots
        for name in self.stores:
            slot = self.refs.get(name)
            if slot is not None and resolved.get(name) == slot:
                new = self.function.new_slot()
                self.refs[name] = new
                del self.loads[slot]
                self.loads[new] = (RESOLVE, name)

    def begin_branches(self):
        self.branch_depth += 1
        return len(self.store_log)

    def end_branches(self, mark):
        # Jinja2's branch merge: a name first stored inside an {% if %} (any branch, any depth at this level)
        # starts as the outer variable of that name, or resolved, rather than undefined.
        self.branch_depth -= 1
        if self.branch_depth:
            return  # the outermost {% if %} of this level merges for all of them
        for name in self.store_log[mark:]:
            slot = self.refs[name]
            outer = self._find_outside(name)
            self.loads[slot] = (ALIAS, outer) if outer is not None else (RESOLVE, name)

    def entry_actions(self):
        # What starting this scope does, as ((slot, kind, argument), ...): kind "undefined" (argument: the name),
        # "copy" (argument: (depth, slot) to copy from). Parameters are set by the scope's owner; the names the
        # function resolves are filled when its frame is made.
        actions = []
        function = self.function
        for slot, (kind, arg) in self.loads.items():
            if kind == UNDEFINED:
                actions.append((slot, "undefined", arg))
            elif kind == ALIAS:
                actions.append((slot, "copy", arg))
            elif kind == RESOLVE and function.resolve_slots.get(arg) != slot:
                actions.append((slot, "copy", (0, function.resolve_slot(arg))))
        return tuple(actions)


# ------------------------------------------------------------------------------------------- the analysis
def analyze(scope, statements, index=None):
    # Record what the statements of one scope level load and store (nested scopes are analysed by the compiler
    # when it reaches them, with this scope complete as their parent). index: the tree scan's (treescan.Index),
    # whose records give the names a statement's expressions read without walking them again.
    visit = _FrameVisitor(scope, {} if index is None else index.owns).statement
    for stmt in statements:
        visit(stmt)


class _FrameVisitor:
    # Jinja2's FrameSymbolVisitor over our AST: the names one scope level reads and assigns.

    def __init__(self, scope, records):
        self.scope = scope
        self.records = records   # a statement → the scan's record of it ([weight, names read, ...])

    def reads(self, record, expr):
        # Load the names expr reads: those of the scan's record of its statement, or (none: an expression the scan
        # did not record alone, a macro's default, a loop's filter...) of a scan of expr.
        if record is None:
            record = scan_tree((n.ExprStmt(n.NO_SPAN, expr),), None).owns.popitem()[1]
        refs, load = self.scope.refs, self.scope.load
        for name in record[1]:
            if name not in refs:   # (most names a scope reads again are its own by then)
                load(name)

    def target(self, target):
        if isinstance(target, n.NameTarget):
            self.scope.store(target.name)
        elif isinstance(target, n.NamespaceTarget):
            self.scope.load(target.name)          # {% set ns.attr %} reads ns
        elif isinstance(target, n.TupleTarget):
            for item in target.items:
                self.target(item)

    def statement(self, stmt):
        kind = type(stmt)
        record = self.records.get(stmt)
        if kind is n.Output or kind is n.ExprStmt:   # (the commonest statement: its record's names in line)
            if record is None:
                return self.reads(record, stmt.expr)
            refs, load = self.scope.refs, self.scope.load
            for name in record[1]:
                if name not in refs:
                    load(name)
        elif kind is n.If:
            self.branches(stmt, record)
        elif kind is n.For:   # (the scan's record holds the filter's names too: read in the loop's scope)
            self.reads(record if stmt.filter is None else None, stmt.iter)
        elif kind is n.Assign:
            self.reads(record, stmt.value)
            self.target(stmt.target)
        elif kind is n.AssignBlock:
            self.target(stmt.target)
        elif kind is n.Macro:
            self.scope.store(stmt.name)
        elif kind is n.CallBlock:   # (...and the parameters' defaults: read in the caller's scope)
            self.reads(None if any(p.default is not None for p in stmt.params) else record, stmt.call)
        elif kind is n.FilterBlock:
            self.reads(record, stmt.filters)
        elif kind is n.With:
            self.reads(record, stmt.values)
        elif kind is n.Load:
            self.reads(record, stmt.template)
            if stmt.alias is not None:
                self.scope.store(stmt.alias)
            for _, alias in stmt.names:
                self.scope.store(alias)
        # Text, Break, Continue: nothing; Block, Autoescape, Generation: scopes (or functions) of their own

    def branches(self, stmt, record):
        self.reads(record, stmt.test)
        mark = self.scope.begin_branches()
        for child in stmt.body:
            self.statement(child)
        for position, (test, body) in enumerate(stmt.elifs, 2):
            self.reads(None if record is None else record[position], test)
            for child in body:
                self.statement(child)
        for child in stmt.else_:
            self.statement(child)
        self.scope.end_branches(mark)


# ----------------------------------------------------------------------------------- whole-tree summaries
class Summaries:
    # Answers about subtrees, each computed once: the first event of each special name in Jinja2's visiting order
    # (read: "load", or assigned/declared: "declare") in a body, the first assignment to `loop`, step weights, the
    # names a statement mentions. scan() walks the template once for the nesting check, the special-name events and
    # the statements' own weights (before any other question; the tree must have passed it, since the other answers
    # recurse once per level). Given the template's source, a name that is not in its text is known to be in no
    # subtree without a walk.

    def __init__(self, source=None):
        self._source = source
        self._index = None
        self._loop_stores = {}
        self._weights = {}
        self._mentions = {}
        self._spelled = {}

    def in_source(self, name):
        # Could the template spell name anywhere (True when the source is unknown)? Searched once per name.
        if self._source is None:
            return True
        found = self._spelled.get(name)
        if found is None:   # once per name: a search of the whole source per body would be quadratic
            found = self._spelled[name] = name in self._source
        return found

    @property
    def index(self):
        # What the last scan found (treescan.Index), or None before any.
        return self._index

    def scan(self, template, limit=None):
        # Refuse a template nested deeper than limit (check_nesting's error, at the same node) and record what
        # treescan finds; again after a rewrite of the tree (limit None: it was checked).
        index = scan_tree(template.body, limit)
        if index is None:
            check_nesting(template, limit)   # raises, naming the node it always named
        self._index = index

    def weight(self, statements):
        # The steps running a statement list costs, charged when the list runs: each statement's own nodes,
        # and for an {% if %} the heaviest of its branches (the taken one is not charged again: deterministic, and
        # never less than the work). Loop bodies and other statement lists charge when they run.
        key = id(statements)
        found = self._weights.get(key)
        if found is None:
            found = 0
            owns = self._index.owns if self._index is not None else {}
            for stmt in statements:
                own = owns.get(stmt)   # counted by the scan
                found += own[0] if own is not None else own_weight(stmt)
                if type(stmt) is n.If:   # (its heaviest branch: a loop, not a generator per if)
                    heaviest = self.weight(stmt.body) if not stmt.else_ else \
                        max(self.weight(stmt.body), self.weight(stmt.else_))
                    for position, (_, body) in enumerate(stmt.elifs, 2):
                        heaviest = max(heaviest, self.weight(body))
                        if own is not None:
                            found += own[position][0]   # the elif test's own nodes
                    found += heaviest
            self._weights[key] = found
        return found

    def reads(self, statements, names):
        # Which of `names` the statements read before anything declares them (Jinja2's find_undeclared).
        if not any(map(self.in_source, names)):
            return set()
        index = self._index
        if index is None or id(statements) not in index.bodies:
            index = scan_tree(statements, None)   # not a body of the scanned tree (or no scan): its own walk
        found = set()
        for name in names:   # (a loop, not a comprehension: a first compile pays for each)
            if index.first(statements, name) == LOAD:
                found.add(name)
        return found

    def assigned_first(self, statements, wanted=None):
        # The names this statement list assigns (a plain {% set name = ... %}) where nothing in it can read them
        # before an assignment — variables that need no fresh start at each loop iteration: on every path through
        # the list (an {% if %}'s branches, each in turn), each read of the name follows an assignment of it on
        # that path. Conservative: a name any other statement mentions (read, assigned, parameter) must be
        # assigned on every path before it; an include/import/block reads the context: only names assigned on
        # every path before it are. Each statement's names memoised (nested loops ask about the same statements:
        # without it compile time grows with size × depth). wanted, if given: the names asked about (a frozenset);
        # the answer is among them, and the walk stops where all of them are assigned on every path (nothing after
        # can read one stale: a loop body setting its variables first is not walked further).
        assigned, bad, definite, before_context = self._set_first(statements, frozenset(), wanted)
        found = assigned - bad if definite is not None else (assigned - bad) & before_context
        return found if wanted is None else found & wanted

    def _set_first(self, statements, definite, wanted=None):
        # (names assigned, names maybe read before an assignment, names assigned on every path to the end — or
        # None after an include/import/block, where the names assigned on every path before it are returned in
        # their place: the only ones it cannot read stale, and stop) of a statement list entered with `definite`
        # assigned; told of the names `wanted` only (see assigned_first), where it may stop early.
        assigned, bad, definite = set(), set(), set(definite)
        for stmt in statements:
            if wanted is not None and definite >= wanted:
                break   # the rest can read none of the wanted names stale
            reads, target = self._statement_names(stmt)
            if reads is _EVERY:
                return assigned, bad, None, definite
            bad.update(set(reads).difference(definite))
            if target is not None:
                assigned.add(target)
                definite.add(target)
            elif type(stmt) is n.If:
                after = None
                for body in (stmt.body, *map(itemgetter(1), stmt.elifs), stmt.else_ or ()):
                    inner_assigned, inner_bad, inner_definite, every = self._set_first(body, definite, wanted)
                    assigned.update(inner_assigned)
                    bad.update(inner_bad)
                    if inner_definite is None:
                        return assigned, bad, None, every
                    after = inner_definite if after is None else after & inner_definite
                definite = after
        return assigned, bad, definite, None

    def _statement_names(self, stmt):
        # _set_first's question of a statement: (the names it mentions — for an {% if %}, its tests'; for a set of
        # one name, its value's — or _EVERY, the name that set assigns or None). The names an expression reads are
        # those of the tree scan's record of its statement, where there is one.
        kind = type(stmt)
        record = self._index.owns.get(stmt) if self._index is not None else None
        if kind is n.Assign and type(stmt.target) is n.NameTarget:
            return self._names_in(stmt.value) if record is None else record[1], stmt.target.name
        if kind is n.If:   # (its elif tests' records follow its own; an expression holds no include or block)
            return set(record[1]).union(*map(itemgetter(1), record[2:])) if record is not None else \
                set().union(*map(self._names_in, (stmt.test, *(test for test, _ in stmt.elifs)))), None
        if record is not None and (kind is n.Output or kind is n.ExprStmt):
            return record[1], None
        return self._names_in(stmt), None

    def _names_in(self, node):
        # The variable names node mentions anywhere (read, assigned, parameter), or _EVERY if it holds an
        # include/import/block. Statements holding statements are memoised, so each node is walked at most twice
        # (for its own statement and for the list it sits in).
        names, stack = set(), [node]
        pop, push, extend, node_fields = stack.pop, stack.append, stack.extend, NODE_FIELDS
        records = self._index.owns if self._index is not None else {}
        while stack:
            current = pop()
            cls = type(current)
            if cls is tuple or cls is list:
                for item in current:   # (a constant, a name or a key of one read is taken here, not pushed)
                    leaf = item.__class__
                    if leaf is _NAME:
                        names.add(item.name)
                    elif (leaf is _GETATTR or leaf is _GETITEM and item.key.__class__ is _CONST) and \
                            item.obj.__class__ is _NAME:
                        names.add(item.obj.name)
                    elif leaf is not _CONST and leaf is not str:
                        push(item)
                continue
            if cls in _NAMED:
                names.add(current.name)
            elif cls is n.Load or cls is n.Block:
                return _EVERY
            elif (cls is n.Output or cls is n.ExprStmt) and current in records:
                names.update(records[current][1])   # (the names the scan recorded: not walked again)
                continue
            fields = node_fields.get(cls)
            if fields is None:
                if cls is n.Args:
                    push_arguments(current, push)
                elif isinstance(current, n.Node):   # a node class made elsewhere (transforms.py)
                    extend(n.field_values(current))
            elif current is not node and cls in _HOLDS_BODY:
                inner = self._memo_names(current)
                if inner is _EVERY:
                    return _EVERY
                names.update(inner)
            else:
                for f in fields:
                    value = getattr(current, f)
                    leaf = value.__class__
                    if leaf is _NAME:
                        names.add(value.name)
                    elif (leaf is _GETATTR or leaf is _GETITEM and value.key.__class__ is _CONST) and \
                            value.obj.__class__ is _NAME:
                        names.add(value.obj.name)   # (`m.role`, `m['role']`: not pushed)
                    elif value is not None and leaf is not _CONST:
                        push(value)
        return names

    def _memo_names(self, stmt):
        key = id(stmt)
        found = self._mentions.get(key)
        if found is None:
            found = self._mentions[key] = self._names_in(stmt)
        return found

    def loop_store(self, x):
        # The first NameTarget `loop` assigned by a for, set or set-block anywhere in x (Jinja2 refuses a for
        # loop that contains one), or None.
        if self._index is not None and not self._index.loop_targets:
            return None   # the scan saw no target named loop
        key = id(x)
        if key in self._loop_stores:
            return self._loop_stores[key]
        found = None
        if isinstance(x, (n.For, n.Assign, n.AssignBlock)):
            found = _loop_target(x.target)
        if found is None and isinstance(x, (n.Node, n.Args, tuple, list)):
            children = n.field_values(x) if isinstance(x, (n.Node, n.Args)) else x
            for child in children:
                found = self.loop_store(child)
                if found is not None:
                    break
        self._loop_stores[key] = found
        return found


_EVERY = frozenset(("*",))   # _names_in: the node may read any name (an include/import/block)
_NAMED = frozenset({n.Name, n.NameTarget, n.NamespaceTarget, n.Param})   # _names_in: the nodes that name one
# _names_in: memoised per statement; the node classes with a body (written out, not computed from FIELDS at import:
# tests/test_node_tables.py checks it)
_HOLDS_BODY = frozenset({n.Template, n.If, n.For, n.AssignBlock, n.Macro, n.CallBlock, n.FilterBlock, n.With,
                         n.Generation, n.Block, n.Autoescape})


def _loop_target(target):
    if isinstance(target, n.NameTarget):
        return target if target.name == "loop" else None
    if isinstance(target, n.TupleTarget):
        for item in target.items:
            found = _loop_target(item)
            if found is not None:
                return found
    return None


# ------------------------------------------------------------------------------- other static questions
def check_nesting(template, limit):
    # Refuse a template whose nodes nest deeper than limits.max_nesting, before any recursive pass over it (the
    # summaries and the compiler recurse once per level).
    stack = [(template.body, 0)]
    while stack:
        current, depth = stack.pop()
        if (type(current) is n.Const and depth < limit) or type(current) is str or current is None:
            continue   # a leaf (most nodes of a long literal), a name, an empty field
        if isinstance(current, n.Node):
            depth += 1
            if depth > limit:
                raise LimitExceeded(f"template nested deeper than the limit max_nesting={limit}", current.span.line,
                                    current.span.col, limit="max_nesting", value=limit)
            stack.extend(zip(n.field_values(current), repeat(depth)))
        elif isinstance(current, (tuple, list)):
            stack.extend(zip(current, repeat(depth)))
        elif isinstance(current, n.Args):
            stack.extend(zip(n.field_values(current), repeat(depth)))


_BODY_FIELDS = frozenset({"body", "else_"})


_FREE = (n.Const, n.Name)      # a constant or a variable read alone costs next to nothing...
_LISTS = (n.ListExpr, n.TupleExpr, n.Concat)   # ...but each item a literal or a call gathers does


def _count_plan(cls):
    # (fields to walk, the field whose items each cost a step, or None) of a node class for node_count: _COUNT holds
    # it for the classes of nodes.py; this makes it for a node class made elsewhere too.
    if issubclass(cls, n.CondExpr):
        return ("test",), None   # the branch taken pays when it runs (expressions.e_cond)
    extra = "items" if issubclass(cls, _LISTS) else "pairs" if issubclass(cls, n.DictExpr) else None
    return NODE_FIELDS[cls] if cls in NODE_FIELDS else cls.FIELDS, extra


# node_count's plan of each node class but the free ones (computed from NODE_FIELDS: written out, it would repeat
# that table's fields for ~70k instructions of a cold start)
_COUNT = {cls: _count_plan(cls) for cls in NODE_FIELDS if not issubclass(cls, _FREE)}


def node_count(*parts):
    # The steps evaluating the template nodes in parts costs: 1 per node that does work (a constant or a variable
    # alone is free), and 1 per item of a literal, a concatenation or a call's arguments.
    count = 0
    stack = list(parts)
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        cls = type(current)
        plan = _COUNT.get(cls)
        if plan is not None:
            fields, extra = plan
            count += 1 if extra is None else 1 + len(getattr(current, extra))
            for f in fields:
                push(getattr(current, f))
        elif cls is tuple or cls is list:
            stack.extend(current)
        elif cls is n.Args:
            count += len(current.positional) + len(current.keywords)
            stack.extend((current.positional, current.keywords, current.star, current.dstar))
        elif isinstance(current, n.Node) and not isinstance(current, _FREE):
            _COUNT[cls] = _count_plan(cls)   # a node class made elsewhere
            push(current)
    return count


def own_weight(stmt):
    # A statement's nodes without the statement lists nested in it (bodies charge when they run): the steps
    # running it costs.
    cls = type(stmt)
    if cls is n.Text:
        return 1
    if cls is n.Output:
        return 1 + node_count(stmt.expr)
    if cls is n.If:
        return 1 + node_count(stmt.test, *(test for test, _ in stmt.elifs))
    return 1 + node_count(*(getattr(stmt, f) for f in stmt.FIELDS if f not in _BODY_FIELDS))


def target_names(target):
    # The names an assignment target binds, in order.
    if isinstance(target, n.NameTarget):
        return (target.name,)
    if isinstance(target, n.TupleTarget):
        return tuple(name for item in target.items for name in target_names(item))
    return ()
