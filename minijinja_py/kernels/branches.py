"""Switch tables: if/elif chains over one subject (ir.Switch, made by peephole.py: `{% if m.role == 'user' %}...{%
elif m.role == 'assistant' %}...`, `m.role in ['user', 'system']`) → what each value of the subject runs, a table made
when the template compiles, which a walk (walks.py) looks the subject it read in line up in."""

# Reading it once is what Jinja2, which reads it for every test, reads only where nothing runs in between that
# could change it: the tests of a chain are compares of that same plain value, and the `and` extras (`m.role ==
# 'a' and m.content`) and `or` alternatives (`m.role == 'a' or other`) of a switch call nothing that changes data
# nor assign a variable (peephole.py asks analysis/effects.py); the subject is a variable, or keys of plain dicts
# and indexes of plain lists (never a namespace's attribute, which a statement may set). But an extra that reads a
# caller's object (its property, truth, length, comparing...) runs the caller's code, which may change the
# subject: so after an extra or alternative that does not hold — where Jinja2 reads the subject again — and that
# ran a general value (a part not decided in line on plain values: _watched), the subject is read again (in line:
# that runs nothing), and where it is no longer what the plan was chosen for, the rest of the chain is tested as
# Jinja2 tests it, each branch's whole test in turn (Switch.values). A subject that
# is not a plain value of the constants' type runs the general closures of the chains, which test it branch by
# branch; an undefined one (a plain dict's or str's missing key) equals no constant where the undefined class
# compares as Jinja2's default one. (A switch outside such a walk runs its general closure: a kernel of its
# own, branches/switch, went when the general closures came to cost no more.)

from .atoms import decider, truth
from .ir import Test
from .reads import ABSENT, MISSING, attribute, reader, spec
from ..runtime.undefined import PLAIN_UNDEFINED

__all__ = ["table"]


def _subject(node):
    # (slot, key, what a str's key reads (reads.attribute of a str), None) of a one-key subject, read in line;
    # (None, None, None, reader) of any other (reads.py).
    slot, key, _, read_path = spec(node.subject)
    if read_path is not None and node.subject.keys:
        read_path = reader(node.subject, strict=True)
    return slot, key, attribute("", key) if key is not None else None, read_path


def table(node):
    # ({value: run(f, out) or None}, the run of a value equal to no constant, or None): what a plain value of
    # the constants' type (or ABSENT: equal to none) runs, each value's plan made one closure at compile time.
    if len(node.groups) == 1 and node.plain:
        return bodies(node.groups[0])
    ran = [0]   # how many general values the extras ran (_watched): what may have run a caller's code
    plans, recheck = _plans(node, ran), (ran, _plan_now(node))
    tails = tuple(_tail(cases, values, else_) for (cases, else_), values in zip(node.groups, node.values))
    default = _plan_run(plans.pop(MISSING), MISSING, recheck, tails)
    return {value: _plan_run(plan, value, recheck, tails) for value, plan in plans.items()}, default


def _plan_now(node):
    # now(f) → the plan the subject's value now is of (its constant, or MISSING: equal to none), or None where it
    # is not plain (what an extra that does not hold reads again).
    (slot, key, str_key, read_path), kind = _subject(node), _kind(node)
    constants = {}   # each constant as the plans hold it (the first of equal ones: _plans' keys)
    for cases, _ in node.groups:
        for listed, *_ in cases:
            for constant in listed:
                constants.setdefault(constant, constant)

    def now(f, constants=constants, key=key, kind=kind, read_path=read_path, slot=slot, str_key=str_key):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else str_key if type(value) is str else MISSING
        else:
            value = read_path(f)
        if type(value) is kind:
            return constants.get(value, MISSING)
        return MISSING if value is ABSENT and f[0].undefined in PLAIN_UNDEFINED else None
    return now


def _watched(test, ran):
    # test with each part's general value counting in ran[0] that it ran: a part not decided in line (its value
    # not plain), whose general value, or its truth, may run a caller's code (a count, not a flag: a switch run
    # inside it cannot hide it).
    parts = []
    for part, value in test.parts:
        if type(part) is Test:
            part = _watched(part, ran)
        if value is not None:
            value = (_counting(value[0], ran), value[1])
        parts.append((part, value))
    return Test(test.want, parts, test.pure)


def _counting(ev, ran):
    def ev_counted(f, ev=ev, ran=ran):
        value = ev(f)
        ran[0] += 1
        return value
    return ev_counted


def _tail(cases, values, else_):
    # run(f, out, start): a chain from its branch start on as Jinja2 runs it — each branch's whole test (its
    # general closure) in turn, the first that holds runs its body, else the else.
    branches, else_ = tuple((ev, span, body.run) for (ev, span), (*_, body) in zip(values, cases)), \
        else_.run if else_ is not None else None

    def run_tail(f, out, start, branches=branches, else_=else_):
        for ev, span, body in branches[start:]:
            if truth(f, ev, span):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_tail


def _plan_run(chains, value, recheck, tails):
    # One value's plan (per chain: its (test, body, the next branch) entries and the chain's else run) →
    # run(f, out), or None where it runs nothing.
    runs = []
    for (entries, else_), tail in zip(chains, tails):
        if entries and entries[0][0] is None:
            runs.append(entries[0][1])
        elif entries:
            runs.append(_first_taken(entries, else_, value, recheck, tail))
        elif else_ is not None:
            runs.append(else_)
    if not runs:
        return None
    if len(runs) == 1:
        return runs[0]

    def run_chains(f, out, runs=runs):
        for run in runs:
            run(f, out)
    return run_chains


def _first_taken(entries, else_, value, recheck, tail):
    # The entries of a value's plan in a chain, in turn: the first whose test holds runs its body; after a test
    # that does not and ran a general value (recheck: the count of them, and now(f)), the subject read again — of
    # another plan now, the rest of the chain as Jinja2 runs it.
    ran, now = recheck
    if len(entries) == 1:
        (test, body, after), = entries

        def run_one(f, out, after=after, body=body, else_=else_, now=now, ran=ran, tail=tail, test=test, value=value):
            before = ran[0]
            if test(f):
                body(f, out)
            elif ran[0] != before and now(f) is not value:
                tail(f, out, after)
            elif else_ is not None:
                else_(f, out)
        return run_one

    def run_first(f, out, else_=else_, entries=entries, now=now, ran=ran, tail=tail, value=value):
        for test, body, after in entries:
            if test is None:
                return body(f, out)
            before = ran[0]
            if test(f):
                return body(f, out)
            if ran[0] != before and now(f) is not value:
                return tail(f, out, after)
        if else_ is not None:
            else_(f, out)
    return run_first


def bodies(group):
    # ({value: the body run of the first branch that tests it}, the else run or None) of a chain without tests.
    (cases, else_), found = group, {}
    for constants, _, _, body in cases:
        for constant in constants:
            found.setdefault(constant, body.run)
    return found, else_ if else_ is None else else_.run


def _plans(node, ran):
    # {value: ((entries, else run) per chain)}, MISSING for a value equal to no constant: entries are the (test,
    # body, the index of the next branch) a value goes through in a chain, up to the first taken whatever happens.
    groups = [([(constants, decider(_watched(extra, ran), None) if extra is not None else None,
                 decider(_watched(alternative, ran), None) if alternative is not None else None, body.run)
                for constants, extra, alternative, body in cases], else_.run if else_ is not None else None)
              for cases, else_ in node.groups]
    values = {constant: None for cases, _ in node.groups for constants, *_ in cases for constant in constants}
    return {value: tuple((_entries(cases, value), else_) for cases, else_ in groups) for value in (*values, MISSING)}


def _entries(cases, value):
    entries = []
    for after, (constants, extra, alternative, body) in enumerate(cases, 1):
        if value in constants:
            entries.append((extra, body, after))
            if extra is None:
                break
        elif alternative is not None:
            entries.append((alternative, body, after))
    return tuple(entries)


def _kind(node):
    return type(node.groups[0][0][0][0][0])
