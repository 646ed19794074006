"""Fused shapes: the expressions and statements chat templates repeat, each compiled to one closure that does in
line what the general closures would do through a call per node. A closure call costs about as much as the work
of a small node, so the shapes that run once per message — `message['role'] == 'user'`, an if/elif chain over
one role, `'<|im_start|>' + message['role'] + '\\n'`, `{{ message.content | trim }}` — decide the speed.

An *in-line read* is a variable of this frame or `var.key` / `var['key']` of one: (slot, key, fallback). It is
read in the consuming closure as

    obj = f[slot]
    if key is None: value = obj unless it is MISSING        (a variable)
    elif type(obj) is dict and key in obj: value = obj[key]  (a plain dict that has the key)
    otherwise: value = fallback(f)                           (the general closure: undefined, the sandbox...)

so the general closures keep every semantic (errors, locations, sandbox), and the fast case stays exact: a dict's
item is what the general lookup returns for such a key. Every shape here falls back to the general closures
whenever its fast case does not apply.
"""

from . import nodes as n
from .base import BIG_STR, MISSING, limit_exceeded
from .errors import located
from .calls import compile_filter
from .tests import TESTS as _BUILTIN_TESTS
from .expressions import truth
from .statements import if_parts, if_runner, s_assign as assign_statement
from .printing import to_str
from .runtime import LoopContext
from .nodes import dump as nodes_dump
from .expressions import DICT_ATTRS, DICT_MUTATORS, cheap_constant, e_binop, e_compare, lookup_steps, sum_chain, sum_operands

__all__ = ["inline_read", "filtered_read", "e_sum", "e_compare_fused", "e_filter", "s_if", "print_run", "FUSED_EXPRESSIONS", "FUSED_STATEMENTS"]


def inline_read(c, node, ev):
    """(slot, key, ev) when node, compiled to ev, can be read in line (see the module docstring), else None."""
    if isinstance(node, n.Name):
        depth, slot = c.where(node.name)
        if depth == 0:
            return slot, None, ev
        return None
    if isinstance(node, (n.Getattr, n.Getitem)) and isinstance(node.obj, n.Name):
        if isinstance(node, n.Getattr):
            key = node.attr
            if key in DICT_ATTRS or key in DICT_MUTATORS or key[:1] == "_":
                return None
        elif isinstance(node.key, n.Const) and type(node.key.value) is str:
            key = node.key.value
        else:
            return None
        depth, slot = c.where(node.obj.name)
        if depth == 0:
            return slot, key, ev
    return None


def filtered_read(c, node, ev):
    """(slot, key, method, ev) for an in-line read, or for `read | f` where f declares the str method it is on a
    short plain string (mj_str_method: trim, upper, lower, capitalize): applied in line too. method is None for
    a plain read. None when node is neither."""
    if isinstance(node, n.Filter) and node.args.empty and node.value is not None:
        method = getattr(c.filters.get(node.name), "mj_str_method", None)
        read = inline_read(c, node.value, ev) if method is not None else None
        return None if read is None else (read[0], read[1], method, ev)
    read = inline_read(c, node, ev)
    return None if read is None else (read[0], read[1], None, ev)


# ------------------------------------------------------------------------------------------------ a + b + c
def sum_plan(c, node):
    """A + chain as (template, reads, general): the parts of the result with the constants in place, the in-line
    reads that fill the others ((index, slot, key, method, ev), ...: see filtered_read), and the general chain
    (expressions.sum_chain); reads is None when some operand is neither a string constant nor such a read."""
    operands, spans = sum_operands(node)
    evs = [c.expr(x) for x in operands]
    general = sum_chain(operands, evs, spans)
    parts, reads = [], []
    for i, (operand, ev) in enumerate(zip(operands, evs)):
        if isinstance(operand, n.Const) and type(operand.value) is str:
            parts.append(operand.value)
            continue
        read = filtered_read(c, operand, ev)
        if read is None:
            return None, None, general
        parts.append("")
        reads.append((i,) + read)
    return tuple(parts), tuple(reads) or None, general


def e_sum(c, node):
    """a + b + c ... : when every operand is a constant or an in-line read and all are strings, one join; else
    the general chain, which adds step by step with Jinja2's semantics and locations. The fast pass reads only
    dicts and variables, so abandoning it has no effect to undo."""
    if node.op != "+":
        return e_binop(c, node)
    template, reads, general = sum_plan(c, node)
    if reads is None:
        return general

    def ev(f):
        text = joined(f, template, reads)
        return text if text is not None else general(f)
    return ev


def joined(f, template, reads):
    """The fast pass of a sum plan: the joined string, or None when it does not apply (a value that is not a
    plain string, a read that needs the general path, a result long enough to be checked and charged)."""
    values = list(template)
    for i, slot, key, method, _ in reads:
        obj = f[slot]
        if key is None:
            value = obj
        elif type(obj) is dict and key in obj:
            value = obj[key]
        else:
            return None
        if type(value) is not str or len(value) >= BIG_STR:
            return None
        values[i] = value if method is None else method(value)
    text = "".join(values)
    return text if len(text) < BIG_STR else None


# ---------------------------------------------------------------------------------------------- comparison
def e_compare_fused(c, node):
    """`read == 'const'` / `read != 'const'` with the read done in line."""
    first = c.expr(node.first)
    general = e_compare(c, node, first)
    if len(node.ops) != 1:
        return general
    (name, other), = node.ops
    read = inline_read(c, node.first, first)
    if read is None or name not in ("==", "!=") or not isinstance(other, n.Const) or \
            not cheap_constant(other.value):
        return general
    slot, key, _ = read
    constant = other.value
    equal = name == "=="
    kind = type(constant)

    def ev(f):
        obj = f[slot]
        if key is None:
            value = obj
        elif type(obj) is dict and key in obj:
            value = obj[key]
        else:
            return general(f)
        if type(value) is kind:   # same plain type: == is Python's own, it cannot fail
            return (value == constant) is equal
        return general(f)
    return ev


# ------------------------------------------------------------------------------------------------- filters
def e_filter(c, node):
    """`read | f` with f's str method applied in line to a short plain string (see filtered_read); anything else
    goes through the general call."""
    value_ev = c.expr(node.value)
    general, _ = compile_filter(c, node, value_ev)
    read = filtered_read(c, node, value_ev)
    if read is None:
        return general
    slot, key, method, _ = read

    def ev(f):
        obj = f[slot]
        if key is None:
            value = obj
        elif type(obj) is dict and key in obj:
            value = obj[key]
        else:
            return general(f)
        if type(value) is str and len(value) < BIG_STR:
            return method(value)
        return general(f)
    return ev


# ---------------------------------------------------------------------------------------------------- if
def _place(c, node):
    """(slot, key) of an in-line read (see inline_read) without compiling it, or None."""
    if isinstance(node, n.Name):
        depth, slot = c.where(node.name)
        return (slot, None) if depth == 0 else None
    if isinstance(node, (n.Getattr, n.Getitem)) and isinstance(node.obj, n.Name):
        key = node.attr if isinstance(node, n.Getattr) else \
            node.key.value if isinstance(node.key, n.Const) and type(node.key.value) is str else None
        if key is None or isinstance(node, n.Getattr) and (key in DICT_ATTRS or key in DICT_MUTATORS or
                                                          key[:1] == "_"):
            return None
        depth, slot = c.where(node.obj.name)
        return (slot, key) if depth == 0 else None
    return None


def _case(c, test):
    """A branch test of the form `subject == 'const'` or `subject == 'const' and extra` → (subject place, the
    constant, extra) with extra the test's right side or None; None for any other test."""
    extra = None
    if isinstance(test, n.And):
        test, extra = test.left, test.right
    if not (isinstance(test, n.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
        return None
    constant = test.ops[0][1]
    if not isinstance(constant, n.Const) or type(constant.value) not in (str, int, bool) or \
            not cheap_constant(constant.value):
        return None
    place = _place(c, test.first)
    if place is None and lookup_steps(c, test.first) is not None:
        place = ("lookup", nodes_dump(test.first))   # a chain of lookups: read once, through one closure
    return None if place is None else (place, constant.value, extra)


def s_if(c, node):
    """{% if %}: see s_if_switch and s_if_inline, else the general run (statements.if_runner)."""
    tests, else_ = if_parts(c, node)
    general = if_runner(tests, else_)
    if node.elifs:
        return s_if_switch(c, node, general, [body for _, _, body in tests], else_)
    return s_if_inline(c, node, general, tests[0][2], else_)


# The tests a single {% if %} evaluates in line on a plain value ("atoms"): (kind, constant)
_TRUTHY, _FALSY, _EQ, _NE, _DEFINED, _UNDEFINED, _NONE, _NOT_NONE, _IN, _NOT_IN = range(10)
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), list, dict, tuple})
_NEGATION = {_TRUTHY: _FALSY, _FALSY: _TRUTHY, _EQ: _NE, _NE: _EQ, _DEFINED: _UNDEFINED, _UNDEFINED: _DEFINED,
             _NONE: _NOT_NONE, _NOT_NONE: _NONE, _IN: _NOT_IN, _NOT_IN: _IN}
_TYPE_TESTS = {("defined", False): _DEFINED, ("defined", True): _UNDEFINED, ("undefined", False): _UNDEFINED,
               ("undefined", True): _DEFINED, ("none", False): _NONE, ("none", True): _NOT_NONE}


def _atom(c, test):
    """(slot, key, kind, constant) for a test evaluated in line on one in-line read, or None."""
    kind, constant = _TRUTHY, None
    if isinstance(test, n.Not):
        test, kind = test.operand, _FALSY
    elif isinstance(test, n.Compare) and len(test.ops) == 1:
        name, other = test.ops[0]
        if name in ("==", "!=") and isinstance(other, n.Const) and type(other.value) in (str, int, bool) and \
                cheap_constant(other.value):
            kind, constant, test = (_EQ if name == "==" else _NE), other.value, test.first
        elif name in ("in", "not in") and isinstance(test.first, n.Const) and type(test.first.value) is str and \
                cheap_constant(test.first.value):
            kind, constant, test = (_IN if name == "in" else _NOT_IN), test.first.value, other
        else:
            return None
    elif isinstance(test, n.Test) and test.args.empty and (test.name, test.negated) in _TYPE_TESTS and \
            c.tests.get(test.name) is _BUILTIN_TESTS.get(test.name):
        kind, test = _TYPE_TESTS[(test.name, test.negated)], test.value
    place = _place(c, test)
    return None if place is None else place + (kind, constant)


def _holds(f, slot, key, kind, constant):
    """An atom's outcome: True or False, or None when its value is not plain data (the general path decides)."""
    obj = f[slot]
    if key is None:
        if obj is MISSING:
            return None
        value = obj
    elif type(obj) is not dict:
        return None
    elif key in obj:
        value = obj[key]
    elif kind == _DEFINED or kind == _UNDEFINED:
        return kind == _UNDEFINED   # a plain dict without the key: undefined
    else:
        return None
    if type(value) not in _PLAIN_TYPES:
        return None
    if kind == _TRUTHY:
        return True if value else False
    if kind == _FALSY:
        return False if value else True
    if kind == _EQ or kind == _NE:
        if type(value) is not type(constant):
            return None
        return (value == constant) is (kind == _EQ)
    if kind == _IN or kind == _NOT_IN:
        if not (type(value) is str and len(value) < BIG_STR or type(value) is dict):
            return None
        return (constant in value) is (kind == _IN)
    if kind == _DEFINED:
        return True
    if kind == _UNDEFINED:
        return False
    return (value is None) is (kind == _NONE)


def _inline_test(c, test):
    """A single if's test as (combine, atoms): combine "and"/"or"/None over one or more atoms; None when the test
    is not of that shape. `not (a or b)` is read as `not a and not b` when a and b are atoms that negate."""
    if isinstance(test, n.Not) and isinstance(test.operand, (n.And, n.Or)):
        inner = _inline_test(c, test.operand)
        if inner is None or any(atom[2] not in _NEGATION for atom in inner[1]):
            return None
        return ("or" if inner[0] == "and" else "and",
                tuple(atom[:2] + (_NEGATION[atom[2]], atom[3]) for atom in inner[1]))
    if isinstance(test, (n.And, n.Or)):
        combine = "and" if isinstance(test, n.And) else "or"
        parts, stack = [], [test]
        while stack:
            current = stack.pop()
            if type(current) is type(test):
                stack.extend((current.right, current.left))
            else:
                parts.append(current)
        atoms = [_atom(c, part) for part in parts]
        return None if any(a is None for a in atoms) else (combine, tuple(atoms))
    atom = _atom(c, test)
    return None if atom is None else (None, (atom,))


def s_if_inline(c, node, general, body, else_):
    """{% if read %}, {% if read == 'x' and other.y is defined %}, {% if 'x' in read %}...: every atom read and
    tested in line on plain data; general is the statement's general run, used whenever an atom is not."""
    shape = _inline_test(c, node.test)
    if shape is None:
        return general
    combine, atoms = shape
    if combine is None:
        return _if_atom(c, node, general, atoms[0], body, else_)
    want = combine == "or"   # the outcome that decides the whole test
    (slot, key, kind, constant), rest = atoms[0], atoms[1:]
    if key is not None and kind in (_EQ, _NE):
        # `message.role == 'assistant' and ...`: the first atom (the one that usually decides) in line
        const_type, equal = type(constant), kind == _EQ

        def run_first_inline(f, out):
            obj = f[slot]
            if type(obj) is not dict or key not in obj:
                return general(f, out)
            value = obj[key]
            if type(value) is not const_type:
                return general(f, out)
            chosen = (value == constant) is equal
            if chosen is not want:
                for atom in rest:
                    outcome = _holds(f, *atom)
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

    def run(f, out):
        chosen = not want
        for atom in atoms:
            outcome = _holds(f, *atom)
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


def _if_atom(c, node, general, atom, body, else_):
    """A single if whose test is one atom: all in line (this is the commonest statement of a chat template's
    message loop); a body of plain text, inside a loop, appended in place."""
    slot, key, kind, constant = atom
    text = static_text(node.body) if not c.autoescape and c.counted_by_loop else None
    if text is not None:
        def body(f, out):
            out.append(text)
    if key is not None and kind in (_EQ, _NE):
        const_type, equal = type(constant), kind == _EQ

        def run_compare(f, out):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
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
        return run_compare
    if key is None and kind in (_EQ, _NE):
        const_type, equal = type(constant), kind == _EQ

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
        return run_var_compare
    if key in ("first", "last") and kind in (_TRUTHY, _FALSY):
        return _if_loop_flag(general, slot, key == "first", kind == _TRUTHY, text, body, else_)
    if key is not None and kind in (_TRUTHY, _FALSY):
        want = kind == _TRUTHY

        def run_truth(f, out):
            obj = f[slot]
            if type(obj) is dict and key in obj:
                value = obj[key]
                if type(value) in _PLAIN_TYPES:
                    if (True if value else False) is want:
                        if text is None:
                            body(f, out)
                        else:
                            out.append(text)
                    elif else_ is not None:
                        else_(f, out)
                    return
            general(f, out)
        return run_truth

    def run(f, out):
        chosen = _holds(f, slot, key, kind, constant)
        if chosen is None:
            general(f, out)
        elif chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run


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


def s_if_switch(c, node, general, bodies, else_):
    """An if/elif chain whose every test compares one subject with a constant (`message.role == 'user'`, maybe
    `and` something): the subject is read once, in line, and the branch found by its value; general is the
    chain's general run, used whenever the subject is not a plain value of the constants' type."""
    tests = [node.test] + [test for test, _ in node.elifs]
    cases = [_case(c, test) for test in tests]
    if any(case is None for case in cases) or len({case[0] for case in cases}) != 1 or \
            len({type(case[1]) for case in cases}) != 1:
        return general
    (slot, key), kind = cases[0][0], type(cases[0][1])
    subject = c.expr(node.test.left.first if isinstance(node.test, n.And) else node.test.first) \
        if slot == "lookup" else None
    with c.flags(soft=True):
        extras = [truth(c, case[2]) if case[2] is not None else None for case in cases]
    # constant → the branches testing it, in order (for one plain type, == is a dict lookup's equality)
    table = {}
    for case, extra, body in zip(cases, extras, bodies):
        table.setdefault(case[1], []).append((extra, body))
    table = {constant: tuple(entries) for constant, entries in table.items()}

    def run(f, out):
        if subject is not None:
            value = subject(f)
        else:
            obj = f[slot]
            if key is None:
                value = obj
            elif type(obj) is dict and key in obj:
                value = obj[key]
            else:
                return general(f, out)
        if type(value) is not kind:
            return general(f, out)
        for extra, body in table.get(value, ()):
            if extra is None or extra(f):
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run


# -------------------------------------------------------------------------------------------------- set
def s_assign(c, node):
    """{% set name = read %}, {% set name = read|trim %}, {% set name = 'a' + read + 'b' %}: the value computed in
    line when the read is a plain string (or value); other assignments are statements.s_assign's."""
    if not isinstance(node.target, n.NameTarget) or _accumulates(node):
        return assign_statement(c, node)
    slot = c.scope.refs[node.target.name]
    value = node.value
    if isinstance(value, n.BinOp) and value.op == "+":
        template, reads, chain = sum_plan(c, value)
        if reads is None:
            def run_chain(f, out):
                f[slot] = chain(f)
            return run_chain

        def run_sum(f, out):
            text = joined(f, template, reads)
            f[slot] = text if text is not None else chain(f)
        return run_sum
    ev = c.expr(value)
    read = filtered_read(c, value, ev)
    if read is None:
        def run(f, out):
            f[slot] = ev(f)
        return run
    source, key, method, _ = read
    if method is None:
        def run_read(f, out):
            obj = f[source]
            if key is None:
                f[slot] = obj if obj is not MISSING else ev(f)
            elif type(obj) is dict and key in obj:
                f[slot] = obj[key]
            else:
                f[slot] = ev(f)
        return run_read

    def run_filtered(f, out):
        obj = f[source]
        if key is None:
            text = obj
        elif type(obj) is dict and key in obj:
            text = obj[key]
        else:
            text = None
        f[slot] = method(text) if type(text) is str and len(text) < BIG_STR else ev(f)
    return run_filtered


def _accumulates(node):
    """{% set x = x ~ ... %} / x + ...: the general statement refunds the copy of the old value (statements.py)."""
    left = node.value
    while isinstance(left, (n.Concat, n.BinOp)):
        left = left.items[0] if isinstance(left, n.Concat) else left.left
    return isinstance(left, n.Name) and left.name == node.target.name


# ------------------------------------------------------------------------------------------- text and {{ }}
TEXT, READ, SUM, EVAL = "text", "read", "sum", "eval"


def output_part(c, node):
    """A Text or Output node as a part of a print run: (kind, a, b, ev, span) with kind TEXT (a: the text), READ
    (a, b: slot and key of an in-line read; ev its general closure), SUM (a: the template, b: the reads of a sum
    plan; ev the general chain) or EVAL (a: the closure)."""
    if isinstance(node, n.Text):
        return (TEXT, node.value, None, None, node.span)
    expr = node.expr
    if isinstance(expr, n.BinOp) and expr.op == "+":
        template, reads, general = sum_plan(c, expr)
        if reads is not None:
            return (SUM, template, reads, general, node.span)
        return (EVAL, general, None, None, node.span)
    ev = c.expr(expr)
    read = filtered_read(c, expr, ev)
    if read is not None and read[2] is None:
        return (READ, read[0], read[1], ev, node.span)
    if read is not None:   # {{ read|trim }}: a sum plan of one operand
        return (SUM, ("",), ((0,) + read,), ev, node.span)
    return (EVAL, ev, None, None, node.span)


def print_run(c, nodes):
    """run(f, out) for a run of text and {{ }} statements (not under autoescape): each part evaluated in line when
    it can be, the output counted once for the run."""
    parts = tuple(output_part(c, node) for node in nodes)
    first_span = nodes[0].span
    if c.counted_by_loop:
        return _uncounted_run(parts)
    if len(parts) == 1 and parts[0][0] is TEXT:
        text = parts[0][1]
        size = len(text)

        def run_text(f, out):
            out.append(text)
            rs = f[0]
            rs.output_size += size
            if rs.output_size > rs.limits.max_output:
                raise located(limit_exceeded(rs.limits, "max_output", "the rendered output"), first_span)
        return run_text

    def run(f, out):
        rs = f[0]
        size = 0
        for kind, a, b, ev, span in parts:
            if kind is TEXT:
                text = a
            elif kind is READ and b is not None and type(f[a]) is dict and b in f[a]:
                text = f[a][b]
                if type(text) is not str:
                    text = _text_of(text, rs, span)
            else:
                try:
                    text = _part_value(f, kind, a, b, ev)
                    if type(text) is not str:
                        text = to_str(text, rs)
                except Exception as exc:
                    raise located(exc, span)
            out.append(text)
            size += len(text)
        rs.output_size += size
        if rs.output_size > rs.limits.max_output:
            raise located(limit_exceeded(rs.limits, "max_output", "the rendered output"), first_span)
    if len(parts) == 1:
        (kind, a, b, ev, span), = parts
        return _single_output(kind, a, b, ev, span)
    return run


def _uncounted_run(parts):
    """A print run inside a loop body: the enclosing loop counts the output when it ends."""
    if len(parts) == 1:
        (kind, a, b, ev, span), = parts
        if kind is TEXT:
            return lambda f, out: out.append(a)
        if kind is READ:
            def run_read(f, out):
                obj = f[a]
                if b is None:
                    value = obj if obj is not MISSING else ev(f)
                elif type(obj) is dict and b in obj:
                    value = obj[b]
                else:
                    value = ev(f)
                if type(value) is not str:
                    try:
                        value = to_str(value, f[0])
                    except Exception as exc:
                        raise located(exc, span)
                out.append(value)
            return run_read
        if kind is SUM and len(b) == 1:
            (index, slot, key, method, _), = b
            before, after = "".join(a[:index]), "".join(a[index + 1:])

            def run_one_read(f, out):
                obj = f[slot]
                if key is None:
                    value = obj
                elif type(obj) is dict and key in obj:
                    value = obj[key]
                else:
                    value = None
                if type(value) is str and len(value) < BIG_STR:
                    out.append(before + (value if method is None else method(value)) + after)
                else:
                    out.append(_value_text(f, ev, span))
            return run_one_read
        if kind is SUM:
            def run_sum(f, out):
                text = joined(f, a, b)
                out.append(text if text is not None else _value_text(f, ev, span))
            return run_sum

    def run(f, out):
        for kind, a, b, ev, span in parts:
            if kind is TEXT:
                out.append(a)
                continue
            if kind is READ and b is not None and type(f[a]) is dict and b in f[a]:
                text = f[a][b]
                out.append(text if type(text) is str else _text_of(text, f[0], span))
                continue
            try:
                text = _part_value(f, kind, a, b, ev)
                if type(text) is not str:
                    text = to_str(text, f[0])
            except Exception as exc:
                raise located(exc, span)
            out.append(text)
    return run


def _text_of(value, rs, span):
    try:
        return to_str(value, rs)
    except Exception as exc:
        raise located(exc, span)


def _value_text(f, ev, span):
    try:
        value = ev(f)
        return value if type(value) is str else to_str(value, f[0])
    except Exception as exc:
        raise located(exc, span)


def _part_value(f, kind, a, b, ev):
    if kind is READ:
        obj = f[a]
        if b is None:
            return obj if obj is not MISSING else ev(f)
        if type(obj) is dict and b in obj:
            return obj[b]
        return ev(f)
    if kind is SUM:
        text = joined(f, a, b)
        return text if text is not None else ev(f)
    return a(f)


def _single_output(kind, a, b, ev, span):
    """run(f, out) for a lone {{ read }} or {{ 'a' + read + ... }}: the part evaluated in line, no loop."""
    if kind is READ:
        def run_read(f, out):
            obj = f[a]
            if b is None:
                value = obj if obj is not MISSING else ev(f)
            elif type(obj) is dict and b in obj:
                value = obj[b]
            else:
                value = ev(f)
            rs = f[0]
            if type(value) is not str:
                try:
                    value = to_str(value, rs)
                except Exception as exc:
                    raise located(exc, span)
            out.append(value)
            rs.output_size += len(value)
            if rs.output_size > rs.limits.max_output:
                raise located(limit_exceeded(rs.limits, "max_output", "the rendered output"), span)
        return run_read
    if kind is SUM:
        template, reads = a, b

        def run_sum(f, out):
            values = list(template)
            for i, slot, key, method, _ in reads:
                obj = f[slot]
                if key is None:
                    value = obj
                elif type(obj) is dict and key in obj:
                    value = obj[key]
                else:
                    break
                if type(value) is not str or len(value) >= BIG_STR:
                    break
                values[i] = value if method is None else method(value)
            else:
                text = "".join(values)
                if len(text) < BIG_STR:
                    out.append(text)
                    rs = f[0]
                    rs.output_size += len(text)
                    if rs.output_size > rs.limits.max_output:
                        raise located(limit_exceeded(rs.limits, "max_output", "the rendered output"), span)
                    return
            _output_value(f, out, ev, span)
        return run_sum

    def run_eval(f, out):
        _output_value(f, out, a, span)
    return run_eval


def _output_value(f, out, ev, span):
    rs = f[0]
    try:
        value = ev(f)
        if type(value) is not str:
            value = to_str(value, rs)
    except Exception as exc:
        raise located(exc, span)
    out.append(value)
    rs.output_size += len(value)
    if rs.output_size > rs.limits.max_output:
        raise located(limit_exceeded(rs.limits, "max_output", "the rendered output"), span)


FUSED_EXPRESSIONS = {n.BinOp: e_sum, n.Compare: e_compare_fused, n.Filter: e_filter}
FUSED_STATEMENTS = {n.If: s_if, n.Assign: s_assign}
