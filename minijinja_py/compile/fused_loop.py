"""Fused message loops: the loop body most chat templates run once per message, decided per item without a call.

A `{% for message in messages %}` with no loop variable, filter or else (see loops.py) whose body is

  * one run of text and {{ }} whose values are string constants and reads of the item (a key or a chain of keys,
    maybe through a str method filter such as |trim), joined with `+` or not
    (`{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}`), or
  * if/elif/else chains that compare one key of the item with string constants (`message['role'] == 'user'`; an
    `{% else %}{% if %}` is read as an elif), one or several in a row on the same key,

gets an *item plan*: the subject's key and a table from its value to a *print plan* — the constants and reads of
a branch that is such a run, or the branch's compiled body when it is not. A value tested with an `and` runs
its extra test, then its branch (or the branches after it); one that several of the chains act on, the whole
body. The loop's walk (item_plan_walk, which loops.py runs over a list) hands each item to the *emitter* its
value chooses, a closure made once per print plan that prints it in line;
any item for which the plan does not apply (a value that is not a plain string, a subject that is not one of the
constants' type, a read that needs the general path) runs the compiled body instead, from the start, so every
semantic (undefined values, errors and their locations, the sandbox) stays the general path's. Variables the
body sets start afresh for an item that runs a statement (print plans read none).

A print plan is a tuple of 8, read when the emitters are made: (number of reads, text before, key, method, text after, key,
method, text after) for up to two reads of the item's keys (method: a str method such as |trim applies, or None),
unused places empty; (3, constants, ((key or chain of keys, method), ...), ...) for more reads or a chain of keys;
(4, run, ...) for a branch that is not a print run: its compiled body, run for the item.
"""

from .arithmetic import sum_operands
from .fused_switch import constant_branch_run, switch_case
from .places import key_path
from ..core.state import BIG_STR, MISSING
from ..syntax import nodes as n

__all__ = ["item_plan", "item_plan_walk"]


def item_plan(c, body, target, item_slot, body_run, statement_runs):
    """(subject key, {constant: print plan}, default print plan) for a loop body of the shapes in the module
    docstring, whose reads are keys of the loop's item (the variable target, in item_slot); subject key None: no
    subject, every item gets the default plan. None for any other body. body_run is the body's compiled run,
    statement_runs its statements' (or None for one statement): an item whose subject is tested with an `and`
    (`role == 'system' and message.content`) runs that if statement, an item that more than one of several
    switches on the same subject acts on the whole body. Several switches are decided from the item at the
    start only when no switch before the last can change what a later one reads: none assigns the target (`{%
    set m = {...} %}`) or runs code that may change data (analysis/effects.py); Jinja2 reads it again."""
    if c.autoescape or len(body) == 0 or c.known_extends and c.output_check:
        return None   # (after a known extends, text and {{ }} are not compiled: statements.py)
    plan = print_plan(c, body, item_slot)
    if plan is not None:
        return None, {}, plan
    statements = [node for node in body if not (isinstance(node, n.Text) and not node.value)]
    if not all(isinstance(node, n.If) for node in statements) or \
            (c.summaries.in_source("break") or c.summaries.in_source("continue")) and _has_loop_control(body):
        return None
    whole = (_CLOSURE, body_run, None, None, None, None, None, None)
    if statement_runs is None or len(statement_runs) != len(statements):
        statement_runs = [body_run] * len(statements)
    switches = [_switch_plan(c, node, item_slot, (_CLOSURE, run, None, None, None, None, None, None))
                for node, run in zip(statements, statement_runs)]
    if any(switch is None for switch in switches) or len({switch[0] for switch in switches}) != 1:
        return None
    if len(switches) == 1:
        return switches[0]
    earlier = statements[:-1]
    if c.effects.assigns(earlier, target) or any(c.effects.changes_data(node) for node in earlier):
        return None
    # several switches on one subject (`{% if role == 'user' %}...{% endif %}{% if role == 'assistant' %}...`): a
    # value that one acts on gets its plan, one that several act on the whole body
    constants = {constant: None for _, table, _ in switches for constant in table}
    table = {constant: _one_action([t.get(constant, d) for _, t, d in switches], whole) for constant in constants}
    return switches[0][0], table, _one_action([d for _, _, d in switches], whole)


_CLOSURE = 4
_NOTHING = (0, "", None, None, "", None, None, "")


def _one_action(plans, whole):
    acting = [plan for plan in plans if plan != _NOTHING]
    return acting[0] if len(acting) == 1 else _NOTHING if not acting else whole


def _switch_plan(c, node, item_slot, whole):
    """(subject key, {constant: print plan}, else plan) of an if/elif chain over one key of the item, or None.
    whole: the plan that runs the if statement (for a constant tested with an `and`)."""
    chain = _chain(node, c.if_bodies)
    if chain is None:
        return None
    tests, bodies, else_, compiled = chain
    cases = [switch_case(c, test) for test in tests]
    if any(case is None or case[0][0] != item_slot or case[0][1] is None for case in cases) or \
            len({case[0] for case in cases}) != 1 or \
            any(type(constant) is not str for case in cases for constant in case[1]) or \
            any(case[2] is not None and c.effects.changes_data(case[2]) for case in cases):
        return None   # (an `and` extra that may change the item: the tests after it read it again)
    plans = [print_plan(c, branch, item_slot) for branch in bodies + [else_]]
    # a branch that is not one print run runs its compiled body (the if's own), without the if's call
    plans = [plan if plan is not None else (_CLOSURE, run, None, None, None, None, None, None)
             for plan, run in zip(plans, compiled)]
    branches = {}   # constant → the branches that test it, in order: (its `and` extra or None, run, plan)
    for case, run, plan in zip(cases, compiled, plans):
        for constant in case[1]:
            branches.setdefault(constant, []).append((case[2], run, plan))
    # the first branch that tests a constant decides it, unless it has an `and`: then its extra test decides
    table = {constant: entries[0][2] if entries[0][0] is None else
             (_CLOSURE, constant_branch_run(c, [entry[:2] for entry in entries], compiled[-1], whole[1]),
              None, None, None, None, None, None)
             for constant, entries in branches.items()}
    return cases[0][0][1], table, plans[-1]


def _has_loop_control(nodes):
    """Is there a {% break %} or {% continue %} in nodes (outside loops of their own)? The item plan's loop has
    no place for them."""
    stack = list(nodes)
    while stack:
        x = stack.pop()
        if isinstance(x, (n.Break, n.Continue)):
            return True
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, n.Node) and not isinstance(x, n.For):
            stack.extend(getattr(x, field) for field in x.FIELDS)
    return False


def _chain(node, if_bodies):
    """An if statement's (tests, bodies, else body, the compiled bodies and else body), an `{% else %}` holding
    nothing but another if read as its elifs (Jinja2 runs the two the same way: an if starts no scope)."""
    tests, bodies, compiled = [], [], []
    while True:
        tests.append(node.test)
        bodies.append(node.body)
        for test, body in node.elifs:
            tests.append(test)
            bodies.append(body)
        runs = if_bodies.get(id(node))
        if runs is None:
            return None
        compiled.extend(runs[:-1])
        if len(node.else_) == 1 and isinstance(node.else_[0], n.If):
            node = node.else_[0]
            continue
        return tests, bodies, list(node.else_), compiled + [runs[-1]]


def print_plan(c, nodes, item_slot):
    """The print plan of a run of text and {{ }} (see the module docstring), or None when a value is not a
    string constant or a read of the item (a key or a chain of keys, maybe through a str method filter)."""
    if not all(isinstance(node, (n.Text, n.Output)) for node in nodes):
        return None
    constants, reads = [""], []
    for node in nodes:
        if isinstance(node, n.Text):
            constants[-1] += node.value
            continue
        operands = sum_operands(node.expr)[0] if isinstance(node.expr, n.BinOp) and node.expr.op == "+" else \
            [node.expr]
        for operand in operands:
            if isinstance(operand, n.Const) and type(operand.value) is str:
                constants[-1] += operand.value
                continue
            read = _item_read(c, operand, item_slot)
            if read is None:
                return None
            reads.append(read)
            constants.append("")
    if sum(map(len, constants)) >= BIG_STR:
        return None   # long pieces are noted as they are appended: the general path does that
    if len(reads) > 2 or any(type(key) is tuple for key, _ in reads):
        return (3, tuple(constants), tuple(reads), None, None, None, None, None)
    return _small_plan(constants, reads)


def _small_plan(texts, reads):
    """The 8-tuple print plan of up to two reads ((key, method), ...) between len(reads) + 1 texts."""
    padded = texts + [""] * (3 - len(texts))
    reads = reads + [(None, None)] * (2 - len(reads))
    return (len(texts) - 1, padded[0]) + reads[0] + (padded[1],) + reads[1] + (padded[2],)


def _item_read(c, node, item_slot):
    """(key or chain of keys, str method or None) for `item.key`, `item['a']['b']`, `item.key|trim`..., else None."""
    method = None
    if isinstance(node, n.Filter) and node.args.empty and node.value is not None:
        method = getattr(c.filters.get(node.name), "mj_str_method", None)
        if method is None:
            return None
        node = node.value
    path = key_path(c, node)
    if path is None or path[0] != item_slot or not path[1]:
        return None
    keys = path[1]
    return (keys[0] if len(keys) == 1 else keys), method


def _joined_plan(item, constants, reads):
    """The text of a print plan of three reads or more, or None when one is not a short plain string."""
    values = [constants[0]]
    for (key, method), after in zip(reads, constants[1:]):
        if type(key) is str:
            value = item.get(key)
        else:
            value = item
            for step in key:
                value = value.get(step) if type(value) is dict else None
        if type(value) is not str or len(value) >= BIG_STR:
            return None
        values.append(value if method is None else method(value))
        values.append(after)
    text = "".join(values)
    return text if len(text) < BIG_STR else None


def item_plan_walk(plan):
    """A plain loop whose body has an item plan: each item handed to the emitter its subject's value chooses (see
    _emitter), which prints the item's plan or runs the body (that holds no break or continue) for it. An item
    that is not a plain dict, or whose subject is not a string, runs the body."""
    target_slot, body, resets, local_copies = plan.target_slot, plan.body, plan.resets, plan.local_copies
    subject, table, default = plan.item_plan

    def run_body(f, out, item):
        _start_item(f, item, target_slot, resets, local_copies)
        body(f, out)

    if subject is None and _two_plain_reads(default):
        return _two_reads_walk(default, run_body)
    table = {value: _emitter(plan, _fold_subject(branch, subject, value), run_body) for value, branch in table.items()}
    default = _emitter(plan, default, run_body)
    if subject is None:
        emit_every = default or _print_nothing

        def walk_all(f, out, items):
            for item in items:
                if type(item) is dict:
                    emit_every(f, out, item)
                else:
                    run_body(f, out, item)
        return walk_all

    def walk_items(f, out, items):
        for item in items:
            if type(item) is dict:
                value = item.get(subject)
                if type(value) is str:
                    emit = table.get(value, default)
                    if emit is not None:
                        emit(f, out, item)
                    continue
            run_body(f, out, item)
    return walk_items


def _fold_subject(plan, subject, value):
    """A branch's print plan with its reads of the subject's key (without a method) made text: the branch's
    constant, which the item's value equals exactly (a plain str, found in the table by it). One read less per
    message (`'<|start_header_id|>' + message['role'] + ...` in the branch for 'user')."""
    if plan[0] not in (1, 2):
        return plan
    texts, reads = [plan[1], plan[4], plan[7]][:plan[0] + 1], [(plan[2], plan[3]), (plan[5], plan[6])][:plan[0]]
    kept_texts, kept_reads = [texts[0]], []
    for (key, method), after in zip(reads, texts[1:]):
        if type(key) is str and key == subject and method is None:
            kept_texts[-1] += value + after
        else:
            kept_reads.append((key, method))
            kept_texts.append(after)
    if len(kept_reads) == len(reads) or sum(map(len, kept_texts)) >= BIG_STR:
        return plan
    return _small_plan(kept_texts, kept_reads)


def _two_plain_reads(plan):
    return plan[0] == 2 and plan[3] is None and plan[6] is None   # two reads, neither through a method


def _two_reads_walk(plan, run_body):
    """item_plan_walk for a body that is one print run of two reads of the item, as they are (`{{ '<|im_start|>' +
    message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}`, the commonest message loop): the reads and
    the text in line, without the emitter's call."""
    _, before, key, _, middle, key2, _, after = plan

    def walk_two(f, out, items):
        append = out.append
        for item in items:
            if type(item) is dict:
                value, second = item.get(key), item.get(key2)
                if type(value) is str and type(second) is str:
                    text = before + value + middle + second + after
                    if len(text) < BIG_STR:
                        append(text)
                        continue
            run_body(f, out, item)
    return walk_two


def _emitter(loop_plan, plan, run_body):
    """emit(f, out, item) for a print plan (see the module docstring): the plan's text appended when its reads are
    short plain strings (a long one makes a long text, which takes the general path: its length is checked before
    it is appended; a method's input is checked first), else run_body(f, out, item). None for a plan that prints
    nothing."""
    count, before, key, method, middle, key2, method2, after = plan
    if count == _CLOSURE:
        return _branch_emitter(loop_plan, before)
    if count == 0:
        if not before:
            return None

        def emit_text(f, out, item):
            out.append(before)
        return emit_text
    if count == 3 and len(key) == 2 and all(type(path) is tuple and len(path) == 2 and path_method is None
                                            for path, path_method in key):
        return _two_chains_emitter(before, key, run_body)
    if count == 3:
        def emit_joined(f, out, item):
            text = _joined_plan(item, before, key)
            if text is None:
                run_body(f, out, item)
            else:
                out.append(text)
        return emit_joined
    if count == 1:
        return _one_read_emitter(before, key, method, middle, run_body)
    if _two_plain_reads(plan):
        def emit_two(f, out, item):
            value, second = item.get(key), item.get(key2)
            if type(value) is str and type(second) is str:
                text = before + value + middle + second + after
                if len(text) < BIG_STR:
                    out.append(text)
                    return
            run_body(f, out, item)
        return emit_two

    def emit_two_methods(f, out, item):
        value, second = item.get(key), item.get(key2)
        if type(value) is str and type(second) is str and len(value) < BIG_STR and len(second) < BIG_STR:
            text = before + (value if method is None else method(value)) + middle + \
                (second if method2 is None else method2(second)) + after
            if len(text) < BIG_STR:
                out.append(text)
                return
        run_body(f, out, item)
    return emit_two_methods


def _two_chains_emitter(constants, reads, run_body):
    """A print plan of two chains of two keys (`'>>>' + tool_call['function']['name'] + '\n' +
    tool_call['function']['arguments']`): both read in line."""
    ((key1, inner1), _), ((key2, inner2), _) = reads
    before, middle, after = constants
    if key1 == key2:
        def emit_two_of_one(f, out, item):   # both under tool_call['function']: looked up once
            inner = item.get(key1)
            if type(inner) is dict:
                value, value2 = inner.get(inner1), inner.get(inner2)
                if type(value) is str and type(value2) is str:
                    text = before + value + middle + value2 + after
                    if len(text) < BIG_STR:
                        out.append(text)
                        return
            run_body(f, out, item)
        return emit_two_of_one

    def emit_two_chains(f, out, item):
        first, second = item.get(key1), item.get(key2)
        if type(first) is dict and type(second) is dict:
            value, value2 = first.get(inner1), second.get(inner2)
            if type(value) is str and type(value2) is str:
                text = before + value + middle + value2 + after
                if len(text) < BIG_STR:
                    out.append(text)
                    return
        run_body(f, out, item)
    return emit_two_chains


def _print_nothing(f, out, item):
    pass


def _one_read_emitter(before, key, method, after, run_body):
    if method is None:
        def emit_one(f, out, item):
            value = item.get(key)
            if type(value) is str:
                text = before + value + after
                if len(text) < BIG_STR:
                    out.append(text)
                    return
            run_body(f, out, item)
        return emit_one

    def emit_one_method(f, out, item):
        value = item.get(key)
        if type(value) is str and len(value) < BIG_STR:
            text = before + method(value) + after
            if len(text) < BIG_STR:
                out.append(text)
                return
        run_body(f, out, item)
    return emit_one_method


def _branch_emitter(loop_plan, run):
    """A branch that is not a print run: its compiled body run for the item, the body's variables started afresh."""
    target_slot, resets, local_copies = loop_plan.target_slot, loop_plan.resets, loop_plan.local_copies
    if len(local_copies) == 1 and not resets:
        (copy, source), = local_copies

        def emit_branch_with_copy(f, out, item):   # the branch sets a variable (`content`): the template's, copied
            f[target_slot] = item
            f[copy] = f[source]
            run(f, out)
        return emit_branch_with_copy
    if resets or local_copies:
        def emit_branch(f, out, item):
            _start_item(f, item, target_slot, resets, local_copies)
            run(f, out)
        return emit_branch

    runs = getattr(run, "mj_runs", None)   # the branch's two to five statements (statements.compile_body)
    if runs is not None:
        return _unrolled_branch(target_slot, runs)

    def emit_plain_branch(f, out, item):
        f[target_slot] = item
        run(f, out)
    return emit_plain_branch


def _unrolled_branch(target_slot, runs):
    """A branch of two to five statements that starts no variables: each statement called from the emitter,
    without the call of the list (an assistant message's branch often has four)."""
    if len(runs) == 2:
        a, b = runs

        def emit_two_statements(f, out, item):
            f[target_slot] = item
            a(f, out)
            b(f, out)
        return emit_two_statements
    text = getattr(runs[-1], "mj_text", None)
    if len(runs) == 3 and text is not None:
        a, b, _ = runs

        def emit_two_then_text(f, out, item):   # two, then `{{ '<|eot_id|>' }}`: appended in line
            f[target_slot] = item
            a(f, out)
            b(f, out)
            out.append(text)
        return emit_two_then_text
    if len(runs) == 3:
        a, b, c = runs

        def emit_three_statements(f, out, item):
            f[target_slot] = item
            a(f, out)
            b(f, out)
            c(f, out)
        return emit_three_statements
    if len(runs) == 4 and text is not None:
        a, b, c, _ = runs

        def emit_statements_then_text(f, out, item):   # three, then `{{ '<|eot_id|>' }}`: appended in line
            f[target_slot] = item
            a(f, out)
            b(f, out)
            c(f, out)
            out.append(text)
        return emit_statements_then_text
    a, b, c, d, e = runs + (None,) * (5 - len(runs))

    def emit_statements(f, out, item):
        f[target_slot] = item
        a(f, out)
        b(f, out)
        c(f, out)
        d(f, out)
        if e is not None:
            e(f, out)
    return emit_statements


def _start_item(f, item, target_slot, resets, local_copies):
    """An item that runs the body (or a branch's): the target set, the body's variables started afresh."""
    f[target_slot] = item
    for slot in resets:
        f[slot] = MISSING
    for slot, source in local_copies:
        f[slot] = f[source]
