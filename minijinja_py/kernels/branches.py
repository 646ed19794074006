"""Switch kernels: if/elif chains over one subject (ir.Switch, made by peephole.py: `{% if m.role == 'user' %}...{%
elif m.role == 'assistant' %}...`, `m.role in ['user', 'system']`) — the subject read once, in line, and what runs
found by its value in a table made when the template compiles.

Reading it once is what Jinja2, which reads it for every test, reads only because nothing runs in between that
could change it: the tests of a chain are compares of that same plain value, and the `and` extras (`m.role ==
'a' and m.content`) and `or` alternatives (`m.role == 'a' or other`) of a switch cannot change data nor assign a
variable (peephole.py asks analysis/effects.py); the subject is a variable, or keys of plain dicts and indexes of
plain lists (never a namespace's attribute, which a statement may set). A subject that is not a plain value of the constants' type
runs the general closures of the chains, which test it branch by branch; an undefined one (a plain dict's or str's
missing key) equals no constant where the undefined class compares as Jinja2's default one.
"""

from .atoms import guarded, test_runner
from .ir import Switch
from .reads import ABSENT, MISSING, on_string, reader, spec
from .select import kernel
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["switch"]


@kernel(Switch, "switch")
def switch(node):
    """The subject read once, then what its value runs: per chain, the body of the first branch that tests it (or
    the chain's else); where a branch also tests something else, the (test, body) entries the value goes through
    in turn (a test is the `and` extra of a branch that tests the value, or the `or` alternative of one that does
    not)."""
    slot, key, _, read_path = spec(node.subject)
    if read_path is not None and node.subject.keys:
        read_path = reader(node.subject, strict=True)
    kind, general, (runs, default) = _kind(node), node.general, table(node)
    str_key = on_string(key) if key is not None else None

    def run_switch(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else str_key if type(value) is str else MISSING
        else:
            value = read_path(f)
        if type(value) is kind or value is ABSENT and f[0].undefined in PLAIN_UNDEFINED:
            run = runs.get(value, default)
            if run is not None:
                run(f, out)
        else:
            general(f, out)
    return run_switch


def table(node):
    """({value: run(f, out) or None}, the run of a value equal to no constant, or None): what a plain value of
    the constants' type (or ABSENT: equal to none) runs, each value's plan made into one closure when the template
    compiles."""
    if len(node.groups) == 1 and node.plain:
        return _bodies(node.groups[0])
    plans = _plans(node)
    default = _plan_run(plans.pop(MISSING))
    return {value: _plan_run(plan) for value, plan in plans.items()}, default


def _plan_run(chains):
    """One value's plan (per chain: its (test, body) entries and the chain's else run) → run(f, out), or None
    where it runs nothing."""
    runs = []
    for entries, else_ in chains:
        if entries and entries[0][0] is None:
            runs.append(entries[0][1])
        elif len(entries) == 1:
            runs.append(guarded(*entries[0], else_))
        elif entries:
            runs.append(_first_taken(entries, else_))
        elif else_ is not None:
            runs.append(else_)
    if not runs:
        return None
    if len(runs) == 1:
        return runs[0]

    def run_chains(f, out):
        for run in runs:
            run(f, out)
    return run_chains


def _first_taken(entries, else_):
    def run_first(f, out):
        for test, body in entries:
            if test is None or test(f):
                body(f, out)
                return
        if else_ is not None:
            else_(f, out)
    return run_first


def _bodies(group):
    """({value: the body run of the first branch that tests it}, the else run) of a chain without tests."""
    (cases, else_), bodies = group, {}
    for constants, _, _, body in cases:
        for constant in constants:
            bodies.setdefault(constant, body.run)
    return bodies, else_.run if else_ is not None else None


def _plans(node):
    """{value: ((entries, else run) per chain)}, MISSING for a value equal to no constant: entries are the (test,
    body) pairs a value goes through in a chain, up to the first taken whatever happens."""
    groups = [([(constants, test_runner(extra) if extra is not None else None,
                 test_runner(alternative) if alternative is not None else None, body.run)
                for constants, extra, alternative, body in cases], else_.run if else_ is not None else None)
              for cases, else_ in node.groups]
    values = {constant: None for cases, _ in node.groups for constants, *_ in cases for constant in constants}
    return {value: tuple((_entries(cases, value), else_) for cases, else_ in groups) for value in (*values, MISSING)}


def _entries(cases, value):
    entries = []
    for constants, extra, alternative, body in cases:
        if value in constants:
            entries.append((extra, body))
            if extra is None:
                break
        elif alternative is not None:
            entries.append((alternative, body))
    return tuple(entries)


def _kind(node):
    return type(node.groups[0][0][0][0][0])
