"""Switch kernels: an if/elif chain over one subject (ir.Switch, made by peephole.py: `{% if m.role == 'user'
%}...{% elif m.role == 'assistant' %}...`) — the subject read once, in line, the branch found by its value in a
table.

Reading it once is what Jinja2's chain reads for every test only because nothing runs between those reads: the
tests are compares of that same plain value, and the `and` extras (`m.role == 'a' and m.content`) and `or`
alternatives (`m.role == 'a' or other`) of a switch cannot change data (peephole.py asks analysis/effects.py) nor
reassign a variable (an expression cannot), and the subject is a variable or a key of a plain dict (never a
namespace's attribute, which a macro called by an extra may set). A subject that is not a plain value of the
constants' type runs the chain's general closure, which tests it branch by branch.
"""

from .atoms import test_runner
from .ir import Switch
from .reads import ABSENT, reader, spec, string_key
from ..runtime.undefined import PLAIN_UNDEFINED
from .select import kernel

__all__ = ["switch_table", "switch_tests"]


@kernel(Switch, "table")
def switch_table(node):
    """A chain of plain compares: one body per constant (the first branch that tests it)."""
    bodies = {}
    for constants, _, _, body in node.cases:
        for constant in constants:
            bodies.setdefault(constant, body.run)
    return _switch(node, bodies, None, None)


@kernel(Switch, "table+tests")
def switch_tests(node):
    """A chain whose branches may also test something else: per constant, the (test, body) entries a subject
    equal to it goes through in order (a test is the `and` extra of a branch that tests the constant, or the `or`
    alternative of one that does not); for a subject equal to none, the alternatives."""
    cases = [(constants, test_runner(extra, None) if extra is not None else None,
              test_runner(alternative, None) if alternative is not None else None, body.run)
             for constants, extra, alternative, body in node.cases]
    table = {constant: [] for constants, _, _, _ in cases for constant in constants}
    for constants, extra, alternative, body in cases:
        for constant, entries in table.items():
            if constant in constants:
                entries.append((extra, body))
            elif alternative is not None:
                entries.append((alternative, body))
    table = {constant: _until_taken(entries) for constant, entries in table.items()}
    default = tuple((alternative, body) for _, _, alternative, body in cases if alternative is not None)
    return _switch(node, None, table, default)


def _until_taken(entries):
    """entries up to the first that is taken whatever happens (none after it can be reached)."""
    for index, (test, _) in enumerate(entries):
        if test is None:
            return tuple(entries[:index + 1])
    return tuple(entries)


def _switch(node, bodies, table, default):
    """run(f, out): the subject read in line (a variable, or keys of plain dicts and indexes of plain lists, maybe
    through a str method; an undefined subject, a plain dict's or str's missing key, equals no constant);
    bodies: {value: the body to run} (none: the else), or table: {value: (test, body) entries tried in turn}
    (default: those of a value equal to no constant)."""
    slot, key, read_path = spec(node.subject)
    if read_path is not None:
        read_path = reader(node.subject, strict=True)
    kind = type(node.cases[0][0][0])
    general, else_ = node.general, node.else_.run if node.else_ is not None else None
    # a subject that is undefined (a plain str's key: `content['type']` while walking a string) equals no
    # constant where the undefined class compares as Jinja2's default one: the alternatives, then the else
    missing_entries = default if table is not None else ()

    def run_switch(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else string_key(value, key)
        else:
            value = read_path(f)
        if type(value) is not kind:
            if value is not ABSENT or f[0].undefined not in PLAIN_UNDEFINED:
                return general(f, out)
            for test, body in missing_entries:
                if test(f):
                    return body(f, out)
            if else_ is not None:
                else_(f, out)
            return
        if bodies is not None:
            body = bodies.get(value)
            if body is not None:
                return body(f, out)
        else:
            for test, body in table.get(value, default):
                if test is None or test(f):
                    return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_switch
