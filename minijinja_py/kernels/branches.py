"""Switch kernels: an if/elif chain over one subject (ir.Switch, made by peephole.py: `{% if m.role == 'user' %}...{%
elif m.role == 'assistant' %}...`) — the subject read once, in line, and the branch found by its value in a table
made when the template compiles; in a loop over the items the subject is a key of, the dispatch done in the walk.

Reading it once is what Jinja2, which reads it for every test, reads only because nothing runs in between that
could change it: the tests are compares of that same plain value, and the `and` extras (`m.role == 'a' and
m.content`) and `or` alternatives (`m.role == 'a' or other`) of a switch cannot change data nor assign a variable
(peephole.py asks analysis/effects.py); the subject is a variable, or keys of plain dicts and indexes of plain
lists (never a namespace's attribute, which a statement may set). A subject that is not a plain value of the
constants' type runs the chain's general closure, which tests it branch by branch; an undefined one (a plain dict's
or str's missing key) equals no constant where the undefined class compares as Jinja2's default one.
"""

from operator import length_hint

from .atoms import test_runner
from .ir import Loop, Switch
from .reads import ABSENT, MISSING, on_string, reader, spec
from .select import kernel
from .walks import list_loop, loop_context
from ..runtime.objects import BreakLoop, ContinueLoop
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["switch", "walk_switch"]


@kernel(Switch, "switch")
def switch(node):
    """The subject read once: per value, the body of the first branch that tests it (or the else); where the
    branches also test something else, the (test, body) entries a value goes through in turn."""
    slot, key, _, read_path = spec(node.subject)
    if read_path is not None and node.subject.keys:
        read_path = reader(node.subject, strict=True)
    kind, general, str_key = type(node.cases[0][0][0]), node.general, on_string(key) if key is not None else None
    else_ = node.else_.run if node.else_ is not None else None
    if node.plain:
        bodies = _bodies(node)

        def run_switch(f, out):
            if read_path is None:
                value = f[slot]
                value = value.get(key, ABSENT) if type(value) is dict else str_key if type(value) is str else MISSING
            else:
                value = read_path(f)
            if type(value) is kind:
                body = bodies.get(value, else_)
            elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
                body = else_
            else:
                return general(f, out)
            if body is not None:
                body(f, out)
        return run_switch
    entries_of, default = _entries_table(node)

    def run_tested_switch(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else str_key if type(value) is str else MISSING
        else:
            value = read_path(f)
        if type(value) is kind:
            entries = entries_of.get(value, default)
        elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
            entries = default
        else:
            return general(f, out)
        for test, body in entries:
            if test is None or test(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_tested_switch


def _bodies(node):
    """{value: the body run of the first branch that tests it}."""
    bodies = {}
    for constants, _, _, body in node.cases:
        for constant in constants:
            bodies.setdefault(constant, body.run)
    return bodies


def _entries_table(node):
    """({value: its (test, body) entries}, the entries of a value equal to no constant)."""
    cases = [(constants, test_runner(extra) if extra is not None else None,
              test_runner(alternative) if alternative is not None else None, body.run)
             for constants, extra, alternative, body in node.cases]
    constants = {constant: None for case in cases for constant in case[0]}
    return {constant: _entries(cases, constant) for constant in constants}, _entries(cases, MISSING)


def _entries(cases, value):
    """The (test, body) entries a value goes through, up to the first taken whatever happens."""
    entries = []
    for constants, extra, alternative, body in cases:
        if value in constants:
            entries.append((extra, body))
            if extra is None:
                break
        elif alternative is not None:
            entries.append((alternative, body))
    return tuple(entries)


@kernel(Loop, "walk+switch")
def walk_switch(node):
    """A walkable loop whose body is one if/elif chain on the item or one key of it (`{% for m in messages %}{% if
    m.role == 'user' %}...{% elif ... %}`): each item dispatched in the walk, without a call for the switch."""
    chain = node.body.nodes[0]
    entries_of, default = _entries_table(chain)
    kind, general, key = type(chain.cases[0][0][0]), node.body.run, chain.subject.keys[0] if chain.subject.keys \
        else None
    str_key, else_ = on_string(key) if key is not None else None, chain.else_.run if chain.else_ is not None else None
    plan = node.plan
    slot, loop_slot, resets, local_copies = plan.target_slot, plan.loop_slot, plan.resets, plan.local_copies
    starts = bool(resets or local_copies)
    if chain.plain and loop_slot is None and not starts and key is not None:
        return list_loop(node, _plain_item_switch(slot, key, str_key, kind, _bodies(chain), else_, general))

    def walk(f, out, items, step):
        loop = None if loop_slot is None else loop_context(f, loop_slot, items)
        for index, item in enumerate(items):
            if loop is not None:
                if index <= loop.index0:
                    continue
                loop.index0 = index
            if starts:
                for reset in resets:
                    f[reset] = MISSING
                for copy, source in local_copies:
                    f[copy] = f[source]
            f[slot] = item
            value = item if key is None else item.get(key, ABSENT) if type(item) is dict else \
                str_key if type(item) is str else MISSING
            try:
                if type(value) is kind:
                    entries = entries_of.get(value, default)
                elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
                    entries = default
                else:
                    general(f, out)
                    continue
                for test, body in entries:
                    if test is None or test(f):
                        body(f, out)
                        break
                else:
                    if else_ is not None:
                        else_(f, out)
            except ContinueLoop:
                continue
            except BreakLoop:
                f[0].fuel += (len(items) - index - 1) * step
                break
    return list_loop(node, walk)


def _plain_item_switch(slot, key, str_key, kind, bodies, else_, general):
    """walk_switch's commonest form: one key of the item, one body per value, no loop variable, no variables
    started per item."""
    def walk_plain_switch(f, out, items, step):
        remaining = iter(items)
        try:
            for item in remaining:
                f[slot] = item
                value = item.get(key, ABSENT) if type(item) is dict else str_key if type(item) is str else MISSING
                try:
                    if type(value) is kind:
                        body = bodies.get(value, else_)
                        if body is not None:
                            body(f, out)
                    elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
                        if else_ is not None:
                            else_(f, out)
                    else:
                        general(f, out)
                except ContinueLoop:
                    continue
        except BreakLoop:
            f[0].fuel += length_hint(remaining) * step
    return walk_plain_switch
