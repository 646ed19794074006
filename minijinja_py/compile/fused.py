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

from .arithmetic import sum_chain, sum_operands
from .calls import call_value, compile_call, compile_filter
from .comparisons import e_compare
from .expressions import LOOP_FIELDS, e_binop
from .places import cheap_constant, constant_literal, dict_key, key_path, read_path
from .statements import s_assign as assign_statement
from ..core.budget import charge_result
from ..core.errors import located
from ..core.state import BIG_STR, MISSING
from ..runtime.sandbox import getattr_, str_method_call
from ..syntax import nodes as n

__all__ = ["inline_read", "filtered_read", "sum_plan", "joined", "FUSED_EXPRESSIONS", "FUSED_ASSIGN"]


def inline_read(c, node, ev):
    """(slot, key, ev) when node, compiled to ev, can be read in line (see the module docstring), else None."""
    if isinstance(node, n.Name):
        depth, slot = c.where(node.name)
        if depth == 0:
            return slot, None, ev
        return None
    if isinstance(node, (n.Getattr, n.Getitem)) and isinstance(node.obj, n.Name):
        key = dict_key(node)
        if key is None:
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
    general = sum_chain(operands, [key_path(c, x, indexes=True) for x in operands], evs, spans)
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
    if name in ("in", "not in"):
        return _membership(c, node, general)
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


def _membership(c, node, general):
    """`'const' in read` / `not in`: a plain dict's keys or a short plain string searched in line."""
    (name, other), = node.ops
    if not (isinstance(node.first, n.Const) and type(node.first.value) is str and cheap_constant(node.first.value)):
        return general
    place = key_path(c, other)
    if place is None:
        return general
    (slot, keys), constant, inside = place, node.first.value, name == "in"

    def ev(f):
        value = read_path(f, slot, keys)   # MISSING is neither: the general path
        if type(value) is dict or type(value) is str and len(value) < BIG_STR:
            return (constant in value) is inside
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
    constant = constant_literal(c, value)
    if constant is not MISSING:
        def run_constant(f, out):   # {% set offset = "" %}
            f[slot] = constant
        return run_constant
    if isinstance(value, n.ListExpr) and not value.items:
        def run_new_list(f, out):   # {% set examples_info = [] %}: a new list each time
            f[slot] = []
        return run_new_list
    ev = c.expr(value)
    read = filtered_read(c, value, ev)
    if read is None:
        def run(f, out):
            f[slot] = ev(f)
        return run
    source, key, method, _ = read
    run = _read_assignment(slot, source, key, method, ev)
    run.mj_set = (slot, source, key, method)   # for sequences.fuse_pairs
    return run


def _read_assignment(slot, source, key, method, ev):
    """{% set x = y %}, {% set x = m['k'] %}, {% set x = y|trim %}, {% set x = m['k']|lower %}: one closure each,
    ev (the value's general closure) where the read is not plain."""
    if method is None and key is None:
        def run_copy(f, out):
            value = f[source]
            f[slot] = value if value is not MISSING else ev(f)
        return run_copy
    if method is None:
        def run_read(f, out):
            obj = f[source]
            if type(obj) is dict and key in obj:
                f[slot] = obj[key]
            else:
                f[slot] = ev(f)
        return run_read
    if key is None:
        def run_filtered_variable(f, out):
            text = f[source]
            f[slot] = method(text) if type(text) is str and len(text) < BIG_STR else ev(f)
        return run_filtered_variable

    def run_filtered(f, out):
        obj = f[source]
        if type(obj) is dict and key in obj:
            text = obj[key]
            if type(text) is str and len(text) < BIG_STR:
                f[slot] = method(text)
                return
        f[slot] = ev(f)
    return run_filtered


def _accumulates(node):
    """{% set x = x ~ ... %} / x + ...: the general statement refunds the copy of the old value (statements.py)."""
    left = node.value
    while isinstance(left, (n.Concat, n.BinOp)):
        left = left.items[0] if isinstance(left, n.Concat) else left.left
    return isinstance(left, n.Name) and left.name == node.target.name




# ------------------------------------------------------------------------------------------------ dict.get
def e_call_fused(c, node):
    """`read.get('key')` / `read.get('key', constant)` on a plain dict (tool schemas are read this way): the
    method called in line, charged as the sandbox's method call is; a str method (see _str_method); anything
    else is the general call."""
    general = compile_call(c, node)
    func, args = node.func, node.args
    if isinstance(func, n.Getattr) and not args.keywords and args.star is None and args.dstar is None and \
            len(args.positional) <= 2 and func.attr not in LOOP_FIELDS:
        call = str_method_call(func.attr)
        if call is not None:
            return _str_method(c, node, call)
    if not (isinstance(func, n.Getattr) and func.attr == "get" and not args.keywords and args.star is None and
            args.dstar is None and 1 <= len(args.positional) <= 2):
        return general
    place = key_path(c, func.obj)
    key, default = (list(args.positional) + [None])[:2]
    if place is None or not (isinstance(key, n.Const) and type(key.value) is str and len(key.value) <= 1024):
        return general
    if default is None:
        make_default = _none
    elif isinstance(default, n.Const) and type(default.value) in (str, int, float, bool, type(None)) and \
            cheap_constant(default.value):
        value = default.value

        def make_default():
            return value
    elif isinstance(default, n.ListExpr) and not default.items or isinstance(default, n.DictExpr) and not default.pairs:
        make_default = list if isinstance(default, n.ListExpr) else dict   # a new one each time, as the literal is
    else:
        return general
    (slot, keys), key = place, key.value

    def ev(f):
        obj = f[slot] if not keys else read_path(f, slot, keys)
        if type(obj) is not dict:   # MISSING included: the general path
            return general(f)
        rs = f[0]
        rs.fuel -= 1   # the call (get takes constant time)
        if rs.fuel < 0:
            return general(f)   # which fails where the general call would
        value = obj.get(key, MISSING)
        if value is MISSING:
            value = make_default()
        if value is None or type(value) is str and len(value) < BIG_STR:
            return value   # nothing to charge (charge_result's own shortcut)
        return charge_result(rs, value)
    return ev


def _none():
    return None


def _str_method(c, node, call):
    """`content.strip()`, `text.replace('a', 'b')`, `s.split(x)[0]`...: on a plain str, the method called without
    the method object the sandbox would hand out (sandbox.str_method_call); on anything else, the general getattr
    and call, from the value already evaluated (each operand is evaluated once, in Jinja2's order)."""
    obj_ev, attr, attr_span, span = c.expr(node.func.obj), node.func.attr, node.func.span, node.span
    arg_evs = tuple(c.expr(x) for x in node.args.positional)

    def ev_str_method(f):
        obj = obj_ev(f)
        if type(obj) is str:
            args = [a(f) for a in arg_evs]
            try:
                return call(f[0], obj, args)
            except Exception as exc:
                raise located(exc, span)
        try:
            func = getattr_(obj, attr, f[0])
        except Exception as exc:
            raise located(exc, attr_span)
        args = [a(f) for a in arg_evs]
        try:
            return call_value(func, args, {}, f[0])
        except Exception as exc:
            raise located(exc, span)
    return ev_str_method


FUSED_EXPRESSIONS = {n.BinOp: e_sum, n.Compare: e_compare_fused, n.Filter: e_filter, n.Call: e_call_fused}
FUSED_ASSIGN = {n.Assign: s_assign}
