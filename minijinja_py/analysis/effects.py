"""Effects: a template's AST and its environment's filters, tests and globals → what running a part of it may
change. Asked by the fast paths that read a value once where Jinja2 reads it again (a switch's subject, an item
plan's branches, a loop's filter, length and items): they may only do so where nothing in between can change it."""

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
# (treescan.Index: its range of the nodes that may run code) is answered from that range, without a walk.

from .treescan import NODE_FIELDS, push_arguments
from ..syntax import nodes as n

__all__ = ["Effects", "PURE_METHODS"]

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
