"""Compiler: AST (nodes.py) → Python closures, once per template.

Statements become `run(scope, out)` functions that append strings to `out` (here); expressions become
`ev(scope)` functions returning values (expressions.py, mixed into the compiler class). A scope is a
runtime.Scope (a dict with the render state attached). Every closure that can fail wraps its own operation and
attaches its span to the error, so the innermost location wins. Names that the sandbox must check (attributes,
items, calls) go through sandbox.py; everything else is plain Python with Jinja2's semantics.
"""

from itertools import islice
from sys import getrefcount

from . import nodes as n
from .budget import CHAR_SHIFT, check_items
from .errors import (
    LimitExceeded, PythonSyntaxTwin, TemplateAssertionError, TemplateRuntimeError, TemplateSyntaxError, twin_of,
)
from .expressions import ExpressionCompiler, _call, _error_at, _located
from .markup import Markup, escape
from .runtime import (
    MISSING, BreakLoop, ContinueLoop, LoopContext, Macro, Namespace, NotText, Undefined, captured_text, join_output,
    limit_exceeded, namespace_set,
)
from .sandbox import to_str
from .symbols import (
    assigns_in_scope, check_nesting, frame_symbols, node_count, own_node_count, store_to_loop, target_names,
    undeclared,
)

__all__ = ["compile_template", "LoopControlOutsideLoop"]


class LoopControlOutsideLoop(PythonSyntaxTwin):
    """{% break %} / {% continue %} outside a for loop (Jinja2 lets Python's SyntaxError escape here)."""


def compile_template(template, env, autoescape):
    """nodes.Template → (run(scope, out), blocks): blocks maps each {% block %} name to run(scope, out) of its
    body when the template reads `self` (Jinja2's reference to its blocks), else it is None."""
    check_nesting(template, env.limits.max_nesting)
    compiler = _Compiler(env, autoescape)
    run = compiler.frame(template.body, root=True)
    return run, (compiler.blocks if "self" in undeclared(template.body, ("self",)) else None)


# ------------------------------------------------------------------------------------------- assignments
def _accumulated_slot(target, value):
    """For {% set x = x ~ ... %} / {% set ns.a = ns.a + ... %}: slot(scope) → the old str or list in the slot
    (or '' when it holds something else); None for any other assignment."""
    left = value
    while isinstance(left, (n.Concat, n.BinOp)):
        if isinstance(left, n.Concat):
            left = left.items[0]
        elif left.op == "+":
            left = left.left
        else:
            return None
    if isinstance(target, n.NameTarget) and isinstance(left, n.Name) and left.name == target.name:
        name = target.name

        def slot(s):
            old = dict.get(s, name, "")
            return old if type(old) in (str, list) else ""
        return slot
    if isinstance(target, n.NamespaceTarget) and isinstance(left, n.Getattr) and left.attr == target.attr \
            and isinstance(left.obj, n.Name) and left.obj.name == target.name:
        name, attr = target.name, target.attr

        def ns_slot(s):
            ns = s[name]
            old = ns._attrs.get(attr, "") if isinstance(ns, Namespace) else ""
            return old if type(old) in (str, list) else ""
        return ns_slot
    return None


def _unpack(value, count):
    """a, b = value with Python's errors, without trusting len()."""
    if isinstance(value, (str, list, tuple, dict)) or hasattr(value, "__iter__"):
        items = list(islice(iter(value), count + 1))
    else:
        raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object")
    if len(items) < count:
        raise ValueError(f"not enough values to unpack (expected {count}, got {len(items)})")
    if len(items) > count:
        raise ValueError(f"too many values to unpack (expected {count})")
    return items


def _iteration_items(value, rs, span):
    """What a for loop walks over: a list or tuple as it is (dicts give their keys, strings their characters,
    undefined nothing), and anything else as a lazy iterator, as in Jinja2: the items of a generator are computed
    one by one as the loop goes, so an error in a later item comes after the earlier iterations ran."""
    cls = type(value)
    if cls is list or cls is tuple:
        return value
    if isinstance(value, Undefined):
        return list(value)  # StrictUndefined raises here
    limits = rs.limits
    if cls is str or cls is dict or cls is range:  # sized: paid for at once, as the list it becomes
        check_items(limits, len(value), "a for loop")
        rs.burn(len(value))
        return list(value)
    return _bounded(iter(value), limits, span)


def _bounded(iterator, limits, span):
    """The items of iterator, at most limits.max_items of them; errors located at the loop's iterable."""
    count = 0
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except Exception as exc:
            raise _located(exc, span)
        count += 1
        if count > limits.max_items:
            raise limit_exceeded(limits, "max_items", "a for loop over an iterator")
        yield item


def _charging(run, weight):
    """run(scope, out) that first charges `weight` steps to the render."""
    def charged_run(s, out):
        rs = s.rs
        rs.fuel -= weight
        if rs.fuel < 0:
            rs.burn(0)
        run(s, out)
    return charged_run


# ------------------------------------------------------------------------------------------------- compiler
class _Compiler(ExpressionCompiler):
    def __init__(self, env, autoescape):
        self.env = env
        self.autoescape = autoescape
        self.limits = env.limits
        self.extensions = env.extensions
        self.soft = False          # inside an if-branch: unknown filters/tests fail at run time, not now
        self.in_loop = False       # break/continue allowed here
        self.depth = 0
        self.outer_names = frozenset()   # names the enclosing scopes refer to (symbols.frame_symbols)
        self.blocks = {}                 # {% block %} name → run(scope, out) of its body, for `self.name()`
        # Jinja2's frame kinds, for {% extends %}: it may only stand at the top level (the template body or an
        # if-branch in it); one directly in the body is a "known" extends, after which Jinja2 compiles no
        # output of the template (text, {{ }}) outside macros, call and set blocks and {% block %} bodies
        self.toplevel = True
        self.rootlevel = True
        self.output_check = True
        self.known_extends = False

    # ---------------------------------------------------------------------------------------- dispatch
    def _enter(self, node):
        self.depth += 1
        if self.depth > self.limits.max_nesting:
            raise LimitExceeded(f"template nested deeper than the limit max_nesting={self.limits.max_nesting}",
                                node.span.line, node.span.col, limit="max_nesting", value=self.limits.max_nesting)

    def stmt(self, node):
        self._enter(node)
        try:
            return getattr(self, "s_" + type(node).__name__)(node)
        finally:
            self.depth -= 1

    def expr(self, node):
        self._enter(node)
        try:
            return getattr(self, "e_" + type(node).__name__)(node)
        finally:
            self.depth -= 1

    def block(self, stmts):
        """A statement list → (run(scope, out), weight). Running the statements costs `weight`, their own nodes
        (tags and expressions, not the blocks nested in them, which charge when they run), so the step budget
        follows the work actually done (budget.py); the caller charges it, where it already touches the budget."""
        merged = []
        for node in stmts:
            if isinstance(node, n.Text) and merged and isinstance(merged[-1], n.Text):
                merged[-1] = n.Text(merged[-1].span, merged[-1].value + node.value)
            elif not (isinstance(node, n.Text) and not node.value):
                merged.append(node)
        runs = tuple(self._statements(merged))
        weight = sum(own_node_count(node) for node in merged)
        if not runs:
            return (lambda s, out: None), weight
        if len(runs) == 1:
            return runs[0], weight
        if len(runs) == 2:
            a, b = runs

            def run2(s, out):
                a(s, out)
                b(s, out)
            return run2, weight

        def run(s, out):
            for r in runs:
                r(s, out)
        return run, weight

    def _statements(self, nodes):
        """The closures of a statement list; consecutive text and {{ }} become one closure (chat templates are
        mostly long runs of them)."""
        pending = []
        for node in nodes:
            if isinstance(node, (n.Text, n.Output)) and self.known_extends and self.output_check:
                continue  # never runs: the template extends another (which fails: there is no loader)
            if isinstance(node, (n.Text, n.Output)) and not self.autoescape:
                pending.append(node)
                continue
            if pending:
                yield self._printing(pending)
                pending = []
            extended_before = self.known_extends
            yield self.stmt(node)
            if extended_before and isinstance(node, n.Load) and node.kind == "extends":
                return  # extended twice: Jinja2 compiles nothing more of this statement list
        if pending:
            yield self._printing(pending)

    def _printing(self, nodes):
        """run(scope, out) for a run of text and {{ }} statements (not under autoescape)."""
        if len(nodes) == 1:
            return self.stmt(nodes[0])
        parts = []
        for node in nodes:
            if isinstance(node, n.Text):
                parts.append((node.value, None, None))
            else:
                self._enter(node)
                try:
                    parts.append((None, self.expr(node.expr), node.span))
                finally:
                    self.depth -= 1
        parts = tuple(parts)

        def run(s, out):
            rs = s.rs
            limit = rs.limits.max_output
            for text, ev, span in parts:
                if ev is not None:
                    try:
                        text = ev(s)
                        if type(text) is not str:
                            text = to_str(text, rs)
                    except Exception as exc:
                        raise _located(exc, span)
                out.append(text)
                rs.output_size += len(text)
                if rs.output_size > limit:
                    rs.grow_output(0)
        return run

    def body(self, stmts):
        """A statement list → one run(scope, out) that charges its own weight (see block)."""
        return _charging(*self.block(stmts))

    def frame(self, statements, params=(), loads_first=(), root=False):
        """The body of a new scope (template, loop body, macro, block...) → run(scope, out) that charges its
        weight and first makes the names this scope assigns before reading them undefined, as Jinja2's static
        scoping does (symbols.py)."""
        return _charging(*self.frame_block(statements, params, loads_first, root))

    def frame_block(self, statements, params=(), loads_first=(), root=False):
        """frame() as (run, weight), for a caller that charges the weight itself. For the template's root frame
        the undefined values it starts with are remembered: a {% block %} body does not see them (it reads the
        variables passed to render, as Jinja2's blocks read the template context)."""
        undefined, names = frame_symbols(statements, params, self.outer_names, loads_first)
        with self._scoped(outer_names=self.outer_names | names):
            body, weight = self.block(statements)
        if not undefined:
            return body, weight
        if root:
            def run_root(s, out):
                make_undefined = s.rs.undefined
                markers = s.rs.root_markers = {}
                for name in undefined:
                    s[name] = markers[name] = make_undefined(name=name)
                body(s, out)
            return run_root, weight

        def run(s, out):
            make_undefined = s.rs.undefined
            for name in undefined:
                s[name] = make_undefined(name=name)
            body(s, out)
        return run, weight

    def _scoped(self, **flags):
        """Save/restore compile-time flags around a nested construct. `soft` also says what frame it opens:
        an if-branch (soft=True) leaves the template's root level, anything else its top level too."""
        compiler = self
        if "soft" in flags:
            flags["rootlevel"] = False
            if not flags["soft"]:
                flags["toplevel"] = False

        class _Saved:
            def __enter__(self):
                self.saved = {k: getattr(compiler, k) for k in flags}
                for k, v in flags.items():
                    setattr(compiler, k, v)

            def __exit__(self, *exc):
                for k, v in self.saved.items():
                    setattr(compiler, k, v)
        return _Saved()

    # ---------------------------------------------------------------------------------------- statements
    def s_Text(self, node):
        text = node.value
        size = len(text)

        def run(s, out):
            out.append(text)
            rs = s.rs
            rs.output_size += size
            if rs.output_size > rs.limits.max_output:
                rs.grow_output(0)
        return run

    def s_Output(self, node):
        ev = self.expr(node.expr)
        span = node.span
        if self.autoescape:
            def run(s, out):
                try:
                    value = ev(s)
                    text = value if type(value) is Markup else escape(value if isinstance(value, str)
                                                                      or hasattr(value, "__html__")
                                                                      else to_str(value, s.rs))
                    out.append(text)
                    s.rs.grow_output(len(text))
                except Exception as exc:
                    raise _located(exc, span)
            return run

        def run(s, out):
            try:
                value = ev(s)
                if type(value) is not str:
                    value = to_str(value, s.rs)
                out.append(value)
                rs = s.rs
                rs.output_size += len(value)
                if rs.output_size > rs.limits.max_output:
                    rs.grow_output(0)
            except Exception as exc:
                raise _located(exc, span)
        return run

    def s_If(self, node):
        branches = [(node.test, node.body)] + list(node.elifs)
        tests = []
        with self._scoped(soft=True):
            for test, body in branches:
                tests.append((self.expr(test), test.span) + self.block(body))
            else_, else_weight = self.block(node.else_) if node.else_ else (None, 0)
        if len(tests) == 1:
            (test, span, body, weight), = tests

            def run(s, out):
                try:
                    chosen = True if test(s) else False
                except Exception as exc:  # a truth test can fail (StrictUndefined)
                    raise _located(exc, span)
                rs = s.rs
                if chosen:
                    rs.fuel -= weight
                    if rs.fuel < 0:
                        rs.burn(0)
                    body(s, out)
                elif else_ is not None:
                    rs.fuel -= else_weight
                    if rs.fuel < 0:
                        rs.burn(0)
                    else_(s, out)
            return run

        def run_chain(s, out):
            for test, span, body, weight in tests:
                try:
                    chosen = True if test(s) else False
                except Exception as exc:
                    raise _located(exc, span)
                if chosen:
                    rs = s.rs
                    rs.fuel -= weight
                    if rs.fuel < 0:
                        rs.burn(0)
                    body(s, out)
                    return
            if else_ is not None:
                rs = s.rs
                rs.fuel -= else_weight
                if rs.fuel < 0:
                    rs.burn(0)
                else_(s, out)
        return run_chain

    def _truth(self, node):
        """ev(scope) → bool(value), with the location of node if truth-testing fails (StrictUndefined)."""
        ev = self.expr(node)
        span = node.span

        def truth(s):
            try:
                return bool(ev(s))
            except Exception as exc:
                raise _located(exc, span)
        return truth

    def assigner(self, target):
        """A target node → assign(scope, value)."""
        if isinstance(target, n.NameTarget):
            name = target.name

            def assign(s, value):
                s[name] = value
            return assign
        if isinstance(target, n.NamespaceTarget):
            name, attr, span = target.name, target.attr, target.span

            def assign_ns(s, value):
                try:
                    namespace_set(s[name], attr, value)
                except Exception as exc:
                    raise _located(exc, span)
            return assign_ns
        subs = tuple(self.assigner(t) for t in target.items)
        count = len(subs)
        span = target.span

        def assign_tuple(s, value):
            try:
                items = _unpack(value, count)
            except Exception as exc:
                raise _located(exc, span)
            for sub, item in zip(subs, items):
                sub(s, item)
        return assign_tuple

    def s_Assign(self, node):
        assign = self.assigner(node.target)
        ev = self.expr(node.value)
        check = self._namespace_check(node.target)
        slot = _accumulated_slot(node.target, node.value)
        if slot is None and isinstance(node.target, n.NameTarget):
            name = node.target.name

            def run_name(s, out):
                s[name] = ev(s)
            return run_name
        if slot is None:
            def run(s, out):
                check(s)
                assign(s, ev(s))
            return run

        # {% set ns.out = ns.out ~ piece %}: the engine charged building the whole new string, but once the
        # slot is rebound the old one is freed (when nothing else holds it), so what the render keeps grew by
        # the piece only. Refund all but the copying time, so that the common accumulation pattern costs in
        # proportion to its result, not to its square.
        def run_accumulating(s, out):
            check(s)
            old = slot(s)
            assign(s, ev(s))
            if len(old) > 4096 and getrefcount(old) <= 2:  # our `old` and getrefcount's argument
                size = len(old)
                s.rs.fuel += (size >> CHAR_SHIFT) - (size >> 10) if type(old) is str else size - (size >> 4)
        return run_accumulating

    def _namespace_check(self, target):
        """check(scope) for {% set ns.attr ... %} and {% set ns.attr, y ... %}: as Jinja2, each `ns` must be a
        namespace before the value is computed (a no-op for other targets)."""
        items = target.items if isinstance(target, n.TupleTarget) else (target,)
        refs = tuple((t.name, t.span) for t in items if isinstance(t, n.NamespaceTarget))
        if not refs:
            return lambda s: None

        def check(s):
            for name, span in refs:
                if not isinstance(s[name], Namespace):
                    raise _error_at(TemplateRuntimeError, "cannot assign attribute on non-namespace object", span)
        return check

    def s_AssignBlock(self, node):
        with self._scoped(soft=False, output_check=False):
            body = self.frame(node.body)
            apply = self._filter_chain(node.filters)
        assign = self.assigner(node.target)
        autoescape = self.autoescape

        check = self._namespace_check(node.target)

        def run(s, out):
            captured = []
            body(s.child(), captured)
            check(s)
            value = join_output(captured)
            if autoescape:
                value = Markup(value)
            assign(s, apply(s, value))
        return run

    def _filter_chain(self, filters):
        """Filters of a {% filter %} or {% set x | f %} block → apply(scope, value)."""
        steps = [self._filter_call(f, None) for f in filters]

        def apply(s, value):
            for step in steps:
                value = step(s, value)
            return value
        return apply

    def s_For(self, node):
        store = store_to_loop(node)
        if store is not None:
            raise _error_at(TemplateAssertionError, "Can't assign to special loop variable in for-loop target",
                            store.span)
        iter_ev = self.expr(node.iter)
        assign = self.assigner(node.target)
        uses_loop = node.recursive or "loop" in undeclared(node.body, ("loop",))
        targets = target_names(node.target) + (("loop",) if uses_loop else ())
        with self._scoped(soft=False, in_loop=True):
            body, body_weight = self.frame_block(node.body, targets)
        step = 1 + body_weight  # an iteration, then the statements of the body
        with self._scoped(soft=False, in_loop=True):
            cond = self._truth(node.filter) if node.filter is not None else None
        # Jinja2 compiles a recursive loop into a function, else block included: there break/continue cannot
        # reach an outer loop, and every loop(...) call that renders nothing runs the else block
        with self._scoped(soft=False, in_loop=self.in_loop and not node.recursive):
            else_ = self.frame(node.else_) if node.else_ else None
        fresh = assigns_in_scope(node.body)
        cond_weight = node_count(node.filter) if node.filter is not None else 0  # steps to test one item
        recursive = node.recursive
        span = node.span
        iter_span = node.iter.span

        def loop_over(s, iterable, depth0, out):
            """Run the body over iterable in scope s; returns whether an iteration ran to the end of the body.
            Jinja2 quirk: its for-else runs unless one did, so iterations that all `continue` (or a `break` in
            the first one) still run the else block."""
            rs = s.rs
            try:
                items = _iteration_items(iterable, rs, iter_span)
            except Exception as exc:
                raise _located(exc, iter_span)
            scope = s.child()
            completed = False

            def admits(item):
                """The loop's `if` filter, tested in a scope of its own where the target is assigned."""
                rs.burn(cond_weight + 2)  # + the scope
                probe = s.child()
                assign(probe, item)
                return cond(probe)

            if not uses_loop:
                # no `loop` in the body: no loop context, and the filter (if any) tested in line
                for item in items:
                    if cond is not None and not admits(item):
                        continue
                    rs.fuel -= step
                    if rs.fuel < 0:
                        rs.burn(0)
                    if fresh:
                        scope = s.child()
                    assign(scope, item)
                    try:
                        body(scope, out)
                    except ContinueLoop:
                        continue
                    except BreakLoop:
                        break
                    completed = True
                return completed
            if cond is None and isinstance(items, (list, tuple)):
                # over a list: the loop context only needs to know where it is (the body may move it on: iterating
                # `loop` consumes the loop's items, as in Jinja2)
                loop = LoopContext(items, rs.undefined, depth0, recurse_fn(s) if recursive else None)
                scope["loop"] = loop
                count = len(items)
                while loop.index0 + 1 < count:
                    loop.index0 += 1
                    item = items[loop.index0]
                    rs.fuel -= step
                    if rs.fuel < 0:
                        rs.burn(0)
                    if fresh:
                        scope = s.child()
                        scope["loop"] = loop
                    assign(scope, item)
                    try:
                        body(scope, out)
                    except ContinueLoop:
                        continue
                    except BreakLoop:
                        break
                    completed = True
                return completed
            if cond is not None:
                loop = LoopContext(None, rs.undefined, depth0, recurse_fn(s) if recursive else None,
                                   lazy=filter(admits, items))
            elif isinstance(items, (list, tuple)):
                loop = LoopContext(items, rs.undefined, depth0, recurse_fn(s) if recursive else None)
            else:
                loop = LoopContext(None, rs.undefined, depth0, recurse_fn(s) if recursive else None, lazy=items)
            while True:
                item = loop._next()
                if item is MISSING:
                    break
                rs.fuel -= step
                if rs.fuel < 0:
                    rs.burn(0)
                if fresh:
                    scope = s.child()
                assign(scope, item)
                scope["loop"] = loop
                try:
                    body(scope, out)
                except ContinueLoop:
                    continue
                except BreakLoop:
                    break
                completed = True
            return completed

        def recurse_fn(s):
            def recurse(iterable, depth0):
                rs = s.rs
                rs.burn(20)  # more than a macro call: a new loop context and scope, its output joined
                if rs.depth >= rs.limits.max_call_depth:
                    raise limit_exceeded(rs.limits, "max_call_depth", "the depth of recursive loop() calls")
                out = []
                rs.depth += 1
                try:
                    if not loop_over(s, iterable, depth0, out) and else_ is not None:
                        else_(s.child(), out)
                finally:
                    rs.depth -= 1
                return captured_text(out, rs)
            return recurse

        def run(s, out):
            try:
                iterable = iter_ev(s)
            except Exception as exc:
                raise _located(exc, span)
            try:
                if recursive:
                    # Jinja2 renders a recursive loop as a function call whose output is joined when it returns
                    captured = []
                    if not loop_over(s, iterable, 0, captured) and else_ is not None:
                        else_(s.child(), captured)
                    out.append(join_output(captured))
                    return
                if not loop_over(s, iterable, 0, out) and else_ is not None:
                    else_(s.child(), out)
            except LimitExceeded as exc:
                raise _located(exc, span)  # the step budget ran out on an iteration (not in a statement of it)
        return run

    def s_Break(self, node):
        return self._loop_control(node, "break", BreakLoop)

    def s_Continue(self, node):
        return self._loop_control(node, "continue", ContinueLoop)

    def _loop_control(self, node, name, signal):
        if "loopcontrols" not in self.extensions:
            raise _error_at(TemplateSyntaxError, f"Encountered unknown tag {name!r}.", node.span)
        if not self.in_loop:
            raise _error_at(LoopControlOutsideLoop, f"'{name}' outside loop", node.span)

        def run(s, out):
            raise signal()
        return run

    def _macro_parts(self, params, body, span):
        """(names, default closures, run-body, catch_kwargs, catch_varargs, caller, weight) for a macro or caller;
        weight is the steps a call costs besides its body.

        As in Jinja2, a parameter named kwargs or varargs is an ordinary parameter (no catch-all), and one named
        caller must have a default when the body uses caller."""
        used = undeclared(body, ("caller", "kwargs", "varargs"))
        names = tuple(p.name for p in params)
        if "caller" in used and any(p.name == "caller" and p.default is None for p in params):
            raise _error_at(TemplateAssertionError, 'When defining macros or call blocks the special "caller" '
                            "argument must be omitted or be given a default.", span)
        catch_kwargs = "kwargs" in used and "kwargs" not in names
        catch_varargs = "varargs" in used and "varargs" not in names
        declared = names + tuple(name for name, on in (("caller", "caller" in used), ("kwargs", catch_kwargs),
                                                       ("varargs", catch_varargs)) if on)
        with self._scoped(soft=False, in_loop=False, output_check=False):
            defaults = tuple(self.expr(p.default) if p.default is not None else None for p in params)
            run_body = self.frame(body, declared, tuple(p.default for p in params if p.default is not None))
        # a call costs about ten loop iterations' time (a new scope, its parameters bound, its output joined);
        # the body charges when it runs
        weight = 10 + node_count(params)
        return names, defaults, run_body, catch_kwargs, catch_varargs, "caller" in used, weight

    def s_Macro(self, node):
        name = node.name
        names, defaults, run_body, catch_kwargs, catch_varargs, caller, weight = self._macro_parts(
            node.params, node.body, node.span)

        def run(s, out):
            s[name] = Macro(name, names, defaults, run_body, s, catch_kwargs, catch_varargs, caller, weight)
        return run

    def s_CallBlock(self, node):
        names, defaults, run_body, catch_kwargs, catch_varargs, caller, weight = self._macro_parts(
            node.params, node.body, node.span)
        call = node.call
        func = self.expr(call.func)
        collect = self._args(call.args)
        output = self._emitter(node.span)
        span = call.span

        def run(s, out):
            # a call block's caller is anonymous, as in Jinja2 (name None, "<Macro anonymous>")
            caller_macro = Macro(None, names, defaults, run_body, s, catch_kwargs, catch_varargs, caller, weight)
            try:
                f = func(s)
                args, kwargs = collect(s)
                kwargs["caller"] = caller_macro
                value = _call(f, args, kwargs, s.rs)
            except Exception as exc:
                raise _located(exc, span)
            output(s, out, value)
        return run

    def _emitter(self, span):
        """emit(scope, out, value): write the value of a {% filter %} or {% call %} block.

        Jinja2 quirk: these blocks write their value as it is, neither converted nor escaped (autoescape or not),
        so a value that is not a string makes the join of the enclosing output fail with TypeError — at the end
        of the template, macro or captured block, after everything before it has run. Appending it as a NotText
        reproduces that (join_output reports it at this block)."""
        def emit(s, out, value):
            if not isinstance(value, str):
                out.append(NotText(value, span))
                return
            out.append(value)
            try:
                s.rs.grow_output(len(value))
            except Exception as exc:
                raise _located(exc, span)
        return emit

    def s_FilterBlock(self, node):
        with self._scoped(soft=False):
            body = self.frame(node.body)
            apply = self._filter_chain(node.filters)
        emit = self._emitter(node.span)
        autoescape = self.autoescape

        def run(s, out):
            captured = []
            body(s.child(), captured)
            value = join_output(captured)
            emit(s, out, apply(s, Markup(value) if autoescape else value))
        return run

    def s_With(self, node):
        values = tuple(self.expr(v) for v in node.values)
        assigns = tuple(self.assigner(t) for t in node.targets)
        with self._scoped(soft=False):
            body = self.frame(node.body, tuple(name for t in node.targets for name in target_names(t)))

        def run(s, out):
            evaluated = [v(s) for v in values]
            scope = s.child()
            for assign, value in zip(assigns, evaluated):
                assign(scope, value)
            body(scope, out)
        return run

    def s_ExprStmt(self, node):
        if "do" not in self.extensions:
            raise _error_at(TemplateSyntaxError, "Encountered unknown tag 'do'.", node.span)
        ev = self.expr(node.expr)

        def run(s, out):
            ev(s)
        return run

    def s_Block(self, node):
        if node.name in self.blocks:
            raise _error_at(TemplateAssertionError, f"block {node.name!r} defined twice", node.span)
        name, span, scoped = node.name, node.span, node.scoped
        if node.required:
            def run_required(s, out):
                raise _error_at(TemplateRuntimeError, f"Required block {name!r} not found", span)
            self.blocks[name] = run_required
            return run_required
        self.blocks[name] = None  # taken (a block of the same name nested in this one is a duplicate)
        # a block sees the template's top-level variables, not the loop or macro it sits in, unless `scoped`
        with self._scoped(soft=False, in_loop=False, output_check=False,
                          outer_names=self.outer_names if scoped else frozenset()):
            body = self.frame(node.body)
        self.blocks[name] = body

        def run(s, out):
            body(s.child() if scoped else s.rs.block_scope(), out)
        return run

    def s_Autoescape(self, node):
        value = self.expr(node.value)
        span = node.value.span
        # compiled both ways; the value decides when it runs (Jinja2 too allows a variable here)
        with self._scoped(soft=False, autoescape=True):
            escaped = self.frame(node.body)
        with self._scoped(soft=False, autoescape=False):
            plain = self.frame(node.body)

        def run(s, out):
            try:
                on = True if value(s) else False
            except Exception as exc:
                raise _located(exc, span)
            (escaped if on else plain)(s.child(), out)
        return run

    def s_Load(self, node):
        for name, _ in node.names:
            if name.startswith("_"):
                raise _error_at(TemplateAssertionError, "names starting with an underline can not be imported",
                                node.span)
        if node.kind == "extends":
            if not self.toplevel:
                raise _error_at(TemplateAssertionError, "cannot use extend from a non top-level scope", node.span)
            if self.rootlevel:
                self.known_extends = True
        template = self.expr(node.template)
        span = node.span

        def run(s, out):
            template(s)  # evaluated first, as in Jinja2: an undefined attribute there is an UndefinedError
            # Jinja2 without a loader (the transformers profile has none) fails the same way
            raise _error_at(twin_of(TypeError), "no loader for this environment specified", span)
        return run

    def s_Generation(self, node):
        if "generation" not in self.extensions:
            raise _error_at(TemplateSyntaxError, "Encountered unknown tag 'generation'.", node.span)
        # transformers' extension renders the body as a call block's caller, called without arguments: there
        # `caller` is undefined ("No caller defined"), `varargs` is () and `kwargs` is {} when the body uses them
        special = undeclared(node.body, ("caller", "varargs", "kwargs"))
        with self._scoped(soft=False, in_loop=False, output_check=False):
            body = self.frame(node.body, tuple(sorted(special)))

        def run(s, out):
            captured = []
            scope = s.child()
            if special:
                if "caller" in special:
                    scope["caller"] = s.rs.undefined("No caller defined", name="caller")
                if "varargs" in special:
                    scope["varargs"] = ()
                if "kwargs" in special:
                    scope["kwargs"] = {}
            body(scope, captured)
            text = join_output(captured)
            spans = s.rs.generation_spans
            if spans is not None:
                s.rs.burn(len(out))
                start = sum(map(len, out))
                spans.append((start, start + len(text)))
            out.append(text)
        return run
