"""Switch kernels: if/elif chains over one subject (ir.Switch, made by peephole.py: `{% if m.role == 'user' %}...{%
elif m.role == 'assistant' %}...`, and chains of them in a row) — the subject read once, in line, and what runs
found by its value in a table made when the template compiles.

Reading it once is what Jinja2, which reads it for every test, reads only because nothing runs in between that
could change it: the tests of a chain are compares of that same plain value, and the `and` extras (`m.role ==
'a' and m.content`) and `or` alternatives (`m.role == 'a' or other`) of a switch cannot change data nor assign a
variable; the chains after the first run after statements that do neither (peephole.py asks
analysis/effects.py); the subject is a variable, or keys of plain dicts and indexes of plain lists (never a
namespace's attribute, which a statement may set). A subject that is not a plain value of the constants' type
runs the general closures of the chains, which test it branch by branch; an undefined one (a plain dict's or
str's missing key) equals no constant where the undefined class compares as Jinja2's default one.
"""

from operator import length_hint

from .atoms import test_runner
from .ir import Loop, Switch
from .reads import ABSENT, MISSING, reader, spec, string_key
from .select import kernel
from .walks import list_loop, loop_context
from ..runtime.objects import BreakLoop, ContinueLoop
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["switch_table", "switch_tests", "walk_switch"]


@kernel(Switch, "table")
def switch_table(node):
    """Chains of plain compares: per value, the bodies to run (one per chain at most: the first branch that tests
    it, or the chain's else)."""
    runs, default = _table(node)
    return _switch(node, runs, default, None, None)


@kernel(Switch, "table+tests")
def switch_tests(node):
    """Chains whose branches may also test something else: per value and chain, the (test, body) entries tried in
    turn (a test is the `and` extra of a branch that tests the value, or the `or` alternative of one that does
    not), then the chain's else."""
    actions, default = _tested_table(node)
    return _switch(node, None, None, actions, default)


def _table(node):
    """({value: (body run, ...)}, the runs of a value equal to no constant) of a Switch without tests."""
    constants = {constant: None for cases, _ in node.groups for constants, *_ in cases for constant in constants}
    runs = {}
    for constant in constants:
        chosen = []
        for cases, else_ in node.groups:
            body = next((body for values, _, _, body in cases if constant in values), else_)
            if body is not None:
                chosen.append(body.run)
        runs[constant] = tuple(chosen)
    return runs, tuple(else_.run for _, else_ in node.groups if else_ is not None)


def _tested_table(node):
    """({value: ((entries, else run), ...) per chain}, the same for a value equal to no constant)."""
    groups = []
    for cases, else_ in node.groups:
        tested = [(constants, test_runner(extra) if extra is not None else None,
                   test_runner(alternative) if alternative is not None else None, body.run)
                  for constants, extra, alternative, body in cases]
        groups.append((tested, else_.run if else_ is not None else None))
    constants = {constant: None for cases, _ in node.groups for constants, *_ in cases for constant in constants}
    actions = {constant: tuple((_entries(tested, constant), else_) for tested, else_ in groups)
               for constant in constants}
    return actions, tuple((_entries(tested, None), else_) for tested, else_ in groups)


def _entries(tested, value):
    """The (test, body) entries a value goes through in one chain, up to the first taken whatever happens."""
    entries = []
    for constants, extra, alternative, body in tested:
        if value is not None and value in constants:
            entries.append((extra, body))
            if extra is None:
                break
        elif alternative is not None:
            entries.append((alternative, body))
    return tuple(entries)


def _switch(node, runs, default_runs, actions, default_actions):
    """run(f, out): the subject read in line; runs: {value: bodies}, or actions: {value: ((entries, else), ...)}
    (one chain: its entries and else tried here)."""
    slot, key, _, read_path = spec(node.subject)
    if read_path is not None and node.subject.keys:
        read_path = reader(node.subject, strict=True)
    kind, general = _kind(node), node.general
    if runs is None and len(node.groups) == 1:
        entries_of = {value: groups[0][0] for value, groups in actions.items()}
        (default_entries, else_), = default_actions

        def run_one_chain(f, out):
            if read_path is None:
                value = f[slot]
                value = value.get(key, ABSENT) if type(value) is dict else string_key(value, key)
            else:
                value = read_path(f)
            if type(value) is kind:
                entries = entries_of.get(value, default_entries)
            elif value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
                entries = default_entries
            else:
                return general(f, out)
            for test, body in entries:
                if test is None or test(f):
                    return body(f, out)
            if else_ is not None:
                else_(f, out)
        return run_one_chain

    def run_switch(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else string_key(value, key)
        else:
            value = read_path(f)
        if type(value) is not kind:
            if value is not ABSENT or f[0].undefined not in PLAIN_UNDEFINED:
                return general(f, out)
            value = None   # equal to no constant
        if runs is not None:
            for body in runs.get(value, default_runs):
                body(f, out)
            return
        for entries, else_ in actions.get(value, default_actions):
            for test, body in entries:
                if test is None or test(f):
                    body(f, out)
                    break
            else:
                if else_ is not None:
                    else_(f, out)
    return run_switch


def _kind(node):
    return type(node.groups[0][0][0][0][0])


@kernel(Loop, "walk+switch")
def walk_switch(node):
    """A walkable loop whose body is one if/elif chain on the item or one key of it (`{% for m in messages %}{% if
    m.role == 'user' %}...{% elif ... %}`): each item dispatched in the walk, without a call for the switch."""
    switch = node.body.nodes[0]
    if len(switch.groups) != 1:
        return None   # (chains in a row: the switch's own kernel, called for each item)
    actions, default_actions = _tested_table(switch)
    entries_of = {value: groups[0][0] for value, groups in actions.items()}
    (default, else_), = default_actions
    kind, general, key = _kind(switch), node.body.run, switch.subject.keys[0] if switch.subject.keys else None
    plan = node.plan
    slot, loop_slot, resets, local_copies = plan.target_slot, plan.loop_slot, plan.resets, plan.local_copies
    starts = bool(resets or local_copies)
    if switch.signature == "table" and loop_slot is None and not starts and key is not None:
        bodies = {value: entries[0][1] for value, entries in entries_of.items()}
        return list_loop(node, _plain_item_switch(slot, key, kind, bodies, else_, general))

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
            value = item if key is None else item.get(key, ABSENT) if type(item) is dict else string_key(item, key)
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


def _plain_item_switch(slot, key, kind, bodies, else_, general):
    """walk_switch's commonest form: one key of the item, one body per value, no loop variable, no variables
    started per item."""
    def walk_plain_switch(f, out, items, step):
        remaining = iter(items)
        try:
            for item in remaining:
                f[slot] = item
                value = item.get(key, ABSENT) if type(item) is dict else string_key(item, key)
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
