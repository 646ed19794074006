"""Fused if statements: the tests a chat template's message loop repeats, read and decided in line (see fused.py
for in-line reads). A single {% if %} whose test is an atom — a read's truth, `read == 'x'`, `'x' in read`,
`read is defined`, `read is none`, `loop.first`... — or an and/or of atoms; an if/elif chain over one subject
is fused_switch's. Each falls back to the statement's general run (statements.if_runner) whenever
a value is not plain data.
"""

from .arithmetic import sum_operands
from .atoms import (
    DEFINED, DICT_NAMES, EQ, FALSY, IN, NE, NOT_IN, NOT_NONE, ORDER, PLAIN_TYPES, TRUTHY, TYPE_IS, TYPE_IS_NOT,
    UNDEFINED, and_or_parts, atom_of, atom_tester, inline_test, read_place,
)
from .fused_switch import part_pairs, s_if_switch
from .places import key_path
from .statements import if_parts, if_runner
from ..core.state import BIG_STR
from ..runtime.objects import LoopContext
from ..runtime.sandbox import undefined_on_str
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["s_if", "static_text"]


def s_if(c, node):
    """{% if %}: see s_if_switch and s_if_inline, else the general run (statements.if_runner)."""
    tests, else_ = if_parts(c, node)
    c.if_bodies[id(node)] = [body for _, _, body in tests] + [else_]   # for fused_loop's item plans
    general = if_runner(tests, else_)
    if node.elifs:
        return s_if_switch(c, node, general, tests, else_)
    return s_if_inline(c, node, general, tests[0][2], else_)


def s_if_inline(c, node, general, body, else_):
    """{% if read %}, {% if read == 'x' and other.y is defined %}, {% if 'x' in read %}...: every atom read and
    tested in line on plain data; general is the statement's general run, used whenever an atom is not."""
    shape = inline_test(c, node.test)
    if shape is None:
        return _if_mixed(c, node, general, body, else_)
    combine, atoms = shape
    if combine is None:
        return _if_atom(c, node, general, atoms[0], body, else_)
    if combine == "and" and len(atoms) == 2:
        pair = _presence_pair(atoms)
        if pair is not None:
            walk_list = _loop_over_key(c, node.body, body, pair[0], pair[1])
            return _if_present(general, *pair, body, else_, walk_list)
    want = combine == "or"   # the outcome that decides the whole test
    (slot, key, kind, constant), rest = atoms[0], tuple(atom_tester(atom) for atom in atoms[1:])
    if kind in (EQ, NE, IN, NOT_IN):
        # `message.role == 'assistant' and ...`, `'tool_calls' in message and ...`: the first atom (the one that
        # usually decides) in line
        const_type, equal, compares = type(constant), kind in (EQ, IN), kind in (EQ, NE)

        def run_first_inline(f, out):
            value = f[slot]
            if key is not None:
                if type(value) is not dict or key not in value:
                    return general(f, out)
                value = value[key]
            if compares:
                if type(value) is not const_type:
                    return general(f, out)
                chosen = (value == constant) is equal
            elif type(value) is dict or type(value) is str and len(value) < BIG_STR:
                chosen = (constant in value) is equal
            else:
                return general(f, out)
            if chosen is not want:
                for test in rest:
                    outcome = test(f)
                    if outcome is None:
                        return general(f, out)
                    if outcome is want:
                        chosen = want
                        break
            if chosen:
                body(f, out)
            elif else_ is not None:
                else_(f, out)
        return run_first_inline

    tests = tuple(atom_tester(atom) for atom in atoms)

    def run(f, out):
        chosen = not want
        for test in tests:
            outcome = test(f)
            if outcome is None:
                return general(f, out)
            if outcome is want:
                chosen = want
                break
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run


def _presence_pair(atoms):
    """(slot, key, truthy) for a key's presence and then its value's truth or not-none, on one variable:
    `'tool_calls' in message and message['tool_calls']`, `m.k is defined and m.k is not none`; None else."""
    (slot, first_key, first_kind, constant), (second_slot, key, second_kind, _) = atoms
    if first_kind == IN and first_key is None:
        present = constant
    elif first_kind == DEFINED and first_key is not None and first_key not in DICT_NAMES:
        present = first_key   # (m.items is defined: the method, not a missing key)
    else:
        return None
    if second_slot != slot or type(key) is not type(present) or key != present or \
            second_kind not in (TRUTHY, NOT_NONE):
        return None
    return slot, key, second_kind == TRUTHY


def _if_present(general, slot, key, truthy, body, else_, walk_list=None):
    """{% if 'k' in m and m['k'] %} (or `m.k is defined and m.k is not none`) on a plain dict: the key looked up
    once. A missing key makes the test false either way; a value that is not plain data takes the general run.
    With walk_list (the body is a loop over m['k']: _loop_over_key), a list found there is looped over at once."""
    def run_present(f, out):
        obj = f[slot]
        if type(obj) is not dict:
            return general(f, out)
        if key in obj:
            value = obj[key]
            if type(value) not in PLAIN_TYPES:
                return general(f, out)
            chosen = (True if value else False) if truthy else value is not None
            if chosen and walk_list is not None and (type(value) is list or type(value) is tuple):
                return walk_list(f, out, value)   # what the loop would read again: the same plain dict's key
        else:
            chosen = False
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_present


def _loop_over_key(c, statements, body, slot, key):
    """The loop's walk over a list already read (loops._list_run) when the if's body is one plain loop over
    m[key] of the if's variable m (`{% for tool_call in message.tool_calls %}`); None else."""
    walk_list = getattr(body, "mj_walk_list", None)
    loops = [node for node in statements if not (isinstance(node, n.Text) and not node.value.strip())]
    if walk_list is None or len(loops) != 1 or not isinstance(loops[0], n.For):
        return None
    return walk_list if key_path(c, loops[0].iter) == (slot, (key,)) else None


def _if_mixed(c, node, general, body, else_):
    """An and/or whose parts are atoms and other tests (`message.content is defined and
    message.content.content is defined`): each atom in line, any other part (or an atom whose value is not plain
    data) through its own truth closure, in Jinja2's order, stopping at the part that decides."""
    test = node.test
    if not isinstance(test, (n.And, n.Or)):
        return general
    parts = and_or_parts(test)
    if not any(atom_of(c, part) for part in parts):
        return general
    with c.flags(soft=True):
        parts = part_pairs(c, parts)
    want = isinstance(test, n.Or)   # the outcome that decides the whole test

    def run_mixed(f, out):
        chosen = not want
        for atom_test, part_truth in parts:
            outcome = atom_test(f) if atom_test is not None else None
            if outcome is None:
                outcome = part_truth(f)
            if outcome is want:
                chosen = want
                break
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_mixed


def _if_atom(c, node, general, atom, body, else_):
    """A single if whose test is one atom: all in line (this is the commonest statement of a chat template's
    message loop); a body of plain text, inside a loop, appended in place."""
    slot, key, kind, constant = atom
    # (after a known extends, text is not compiled at all: statements.py)
    text = static_text(node.body) if not c.autoescape and c.counted_by_loop and not (
        c.known_extends and c.output_check) else None
    if text is not None:
        def body(f, out):
            out.append(text)
    if key is not None and kind in (EQ, NE):
        return _if_key_compare(general, atom, text, body, else_)
    if key is None and (kind in (EQ, NE) or kind in ORDER):
        return _if_variable_compare(general, atom, text, body, else_)
    if key in ("first", "last") and kind in (TRUTHY, FALSY):
        return _if_loop_flag(general, slot, key == "first", kind == TRUTHY, text, body, else_)
    if key is not None and kind in (TRUTHY, FALSY):
        want = kind == TRUTHY

        def run_truth(f, out):
            obj = f[slot]
            if type(obj) is not dict:
                return general(f, out)
            if key in obj:
                value = obj[key]
                if type(value) not in PLAIN_TYPES:
                    return general(f, out)
                chosen = (True if value else False) is want
            elif key not in DICT_NAMES and f[0].undefined in PLAIN_UNDEFINED:
                chosen = not want   # {% if message.tool_calls %} without the key: undefined, false
            else:
                return general(f, out)
            if chosen:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
        echo = _echo_of(c, node.body, slot, key) if kind == TRUTHY and text is None and \
            not c.autoescape and c.counted_by_loop and not (c.known_extends and c.output_check) else None
        return run_truth if echo is None else _if_echo(run_truth, slot, key, echo, else_)

    if kind in (IN, NOT_IN, DEFINED, UNDEFINED):
        return _if_membership(general, atom, text, body, else_)
    if kind in (TYPE_IS, TYPE_IS_NOT):
        return _if_type(general, atom, text, body, else_)

    test = atom_tester(atom)

    def run(f, out):
        chosen = test(f)
        if chosen is None:
            general(f, out)
        elif chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run


def _if_variable_compare(general, atom, text, body, else_):
    """{% if role == 'user' %}, {% if idx > 1 %}: a variable compared with a constant in line while it holds a
    value of the constant's type (an int, for an order)."""
    slot, _, kind, constant = atom
    if kind in ORDER:
        compare = ORDER[kind]

        def run_var_order(f, out):   # {% if idx > 1 %}
            value = f[slot]
            if type(value) is int:
                if compare(value, constant):
                    body(f, out)
                elif else_ is not None:
                    else_(f, out)
                return
            general(f, out)
        return run_var_order
    const_type, equal = type(constant), kind == EQ

    def run_var_compare(f, out):
        value = f[slot]
        if type(value) is const_type:
            if (value == constant) is equal:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
            return
        general(f, out)
    run_var_compare.mj_test = (slot, "compare", constant, equal, _then(text, body), else_)   # sequences.py
    return run_var_compare


def _echo_of(c, nodes, slot, key):
    """(text before, text after) when nodes print nothing but the if's own read between constants (`{% if
    m.content %}{{ '>>>all\n' + m.content }}{% endif %}`), else None."""
    parts = []
    for node in nodes:
        if isinstance(node, n.Text):
            parts.append(node.value)
            continue
        if not isinstance(node, n.Output):
            return None
        expr = node.expr
        for operand in sum_operands(expr)[0] if isinstance(expr, n.BinOp) and expr.op == "+" else [expr]:
            if isinstance(operand, n.Const) and type(operand.value) is str:
                parts.append(operand.value)
            elif read_place(c, operand) == (slot, key):
                parts.append(None)
            else:
                return None
    if parts.count(None) != 1:
        return None
    cut = parts.index(None)
    return "".join(parts[:cut]), "".join(parts[cut + 1:])


def _if_echo(run_truth, slot, key, echo, else_):
    """{% if m.k %}{{ 'a' + m.k + 'b' }}{% endif %}: the key read once, tested and printed in line when it is a
    short plain string (the same text as the print's: a string printed is itself); run_truth for anything else."""
    before, after = echo

    def run_echo(f, out):
        obj = f[slot]
        if type(obj) is dict:
            value = obj.get(key)
            if type(value) is str and len(value) < BIG_STR:
                if value:
                    out.append(before + value + after)
                elif else_ is not None:
                    else_(f, out)
                return
        run_truth(f, out)
    if else_ is None:
        run_echo.mj_echo = (slot, key, before, after)   # for sequences.fuse_pairs
    return run_echo


def _if_key_compare(general, atom, text, body, else_):
    """{% if message['role'] == 'user' %}: a plain dict's key compared with a constant in line. A key of a string
    is undefined (content['type'] of a message whose content is a string: a template looking for images walks
    it character by character), and equals no constant where the undefined class compares as Jinja2's."""
    slot, key, kind, constant = atom
    const_type, equal = type(constant), kind == EQ
    undefined_on_strings = type(key) is str and undefined_on_str(key)
    if text is None and else_ is None:
        def run_compare_then(f, out):   # {% if message['role'] == 'tool' %}{% set ... %}{% endif %}: the commonest
            obj = f[slot]
            if type(obj) is dict:
                value = obj.get(key)   # (a missing key's None is no constant's type: the general path)
                if type(value) is const_type:
                    if (value == constant) is equal:
                        body(f, out)
                    return
            elif type(obj) is str and undefined_on_strings and f[0].undefined in PLAIN_UNDEFINED:
                if not equal:
                    body(f, out)
                return
            general(f, out)
        return run_compare_then

    def run_compare(f, out):
        obj = f[slot]
        if type(obj) is dict and key in obj:
            value = obj[key]
            if type(value) is not const_type:
                return general(f, out)
            matched = (value == constant) is equal
        elif type(obj) is str and undefined_on_strings and f[0].undefined in PLAIN_UNDEFINED:
            matched = not equal
        else:
            return general(f, out)
        if matched:
            if text is None:
                body(f, out)
            else:
                out.append(text)
        elif else_ is not None:
            else_(f, out)
    return run_compare


def _if_membership(general, atom, text, body, else_):
    """{% if 'x' in message %}, {% if 'x' in message.content %}, {% if message.x is defined %}: the membership
    test in line on a plain dict (or a short plain string, for `in`), anything else through the general path."""
    slot, key, kind, constant = atom
    want = kind in (IN, DEFINED)
    if kind in (DEFINED, UNDEFINED):
        def run_defined(f, out):
            obj = f[slot]
            if key is None:   # a variable: defined when it holds plain data (MISSING and the rest: general)
                if type(obj) not in PLAIN_TYPES:
                    return general(f, out)
                chosen = want
            elif type(obj) is not dict:
                return general(f, out)
            elif key in obj:
                if type(obj[key]) not in PLAIN_TYPES:
                    return general(f, out)   # an undefined kept in a dict, a caller's object...
                chosen = want
            elif key in DICT_NAMES:
                return general(f, out)   # m['items'] of a dict without the key: its method
            else:
                chosen = not want
            if chosen:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
        return run_defined

    def run_contains(f, out):
        value = f[slot]
        if key is not None:
            if type(value) is not dict or key not in value:
                return general(f, out)
            value = value[key]
        if type(value) is dict or type(value) is str and len(value) < BIG_STR:
            if (constant in value) is want:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
            return
        general(f, out)
    if key is None:
        run_contains.mj_test = (slot, "contains", constant, want, _then(text, body), else_)   # sequences.py
    return run_contains


def _if_type(general, atom, text, body, else_):
    """{% if message.content is string %}, `is not mapping`...: the value's type looked at in line when it is
    plain data, anything else through the general path."""
    slot, key, kind, cls = atom
    want = kind == TYPE_IS

    def run_type(f, out):
        value = f[slot]
        if key is not None:
            if type(value) is not dict or key not in value:
                return general(f, out)
            value = value[key]
        if type(value) not in PLAIN_TYPES:
            return general(f, out)
        if (type(value) is cls) is want:
            if text is None:
                body(f, out)
            else:
                out.append(text)
        elif else_ is not None:
            else_(f, out)
    if key is None:
        run_type.mj_test = (slot, "type", cls, want, _then(text, body), else_)   # for sequences.fuse_pairs
    return run_type


def _then(text, body):
    """What an if runs when its test holds: its body, or the text it is."""
    if text is None:
        return body
    return lambda f, out: out.append(text)


def _if_loop_flag(general, slot, first, want, text, body, else_):
    """{% if loop.first %}, {% if not loop.last %}: read off the loop context in line (a loop over a list knows
    its length; a lazy one, or anything else in the variable, takes the general path)."""
    def run(f, out):
        lc = f[slot]
        if type(lc) is LoopContext and (first or lc._length is not None):
            flag = lc.index0 == 0 if first else lc.index0 == lc._length - 1
            if flag is want:
                if text is None:
                    body(f, out)
                else:
                    out.append(text)
            elif else_ is not None:
                else_(f, out)
            return
        general(f, out)
    return run


def static_text(statements):
    """The text a statement list writes when it is nothing but text (merged), else None."""
    if statements and all(isinstance(x, n.Text) for x in statements):
        return "".join(x.value for x in statements)
    return None
