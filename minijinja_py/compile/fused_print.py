"""Fused output: runs of text and {{ }} statements (not under autoescape) compiled to one closure, each part
evaluated in line when it is a constant, an in-line read (fused.py) or a + chain of them; inside a loop body the
output is left for the loop to count (context.py: output).
"""

from .arithmetic import chain_printer
from .fused import filtered_read, joined, sum_plan
from ..core.errors import located
from ..core.state import BIG_STR, MISSING, limit_exceeded
from ..runtime.printing import to_str
from ..syntax import nodes as n

__all__ = ["print_run"]


TEXT, READ, SUM, EVAL = "text", "read", "sum", "eval"


def output_part(c, node):
    """A Text or Output node as a part of a print run: (kind, a, b, ev, span) with kind TEXT (a: the text), READ
    (a, b: slot and key of an in-line read; ev its general closure), SUM (a: the template, b: the reads of a sum
    plan; ev the general chain) or EVAL (a: the closure)."""
    if isinstance(node, n.Text):
        return (TEXT, node.value, None, None, node.span)
    expr = node.expr
    if isinstance(expr, n.Const) and type(expr.value) is str:
        return (TEXT, expr.value, None, None, node.span)   # {{ '<|im_end|>' }}: printed as it is
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
        if kind is TEXT and len(a) < BIG_STR:
            def run_text_in_loop(f, out):
                out.append(a)
            run_text_in_loop.mj_text = a   # (appended in line by fused_loop's branch emitters)
            return run_text_in_loop
        if kind is READ:
            return _loop_read(a, b, ev, span)
        if kind is SUM and len(b) == 1:
            (index, slot, key, method, _), = b
            before, after = "".join(a[:index]), "".join(a[index + 1:])
            if method is None:
                return _one_read_run(before, slot, key, after, lambda f, out: _append_value(f, out, ev, span))

            def run_filtered_read(f, out):   # `'a' + m.k|trim + 'b'`: the method applied in line
                obj = f[slot]
                if key is None:
                    value = obj
                elif type(obj) is dict and key in obj:
                    value = obj[key]
                else:
                    value = None
                if type(value) is str and len(value) < BIG_STR:
                    out.append(before + method(value) + after)
                else:
                    _append_value(f, out, ev, span)
            return run_filtered_read
        if kind is SUM and len(b) == 2:
            fallback = lambda f, out: _append_value(f, out, ev, span)   # noqa: E731
            if b[0][3] is None and b[1][3] is None:
                return _loop_sum_of_two(a, b, fallback)
            return _loop_sum_of_two_filtered(a, b, fallback)
        if kind is EVAL:
            # `{{ bos_token + '[INST] ' + messages[i]['content'] }}`: the chain's reads and text in line
            printer = chain_printer(a, lambda f, out, value: _append_text(f, out, value, span), span)
            if printer is not None:
                return printer

            def run_eval(f, out):
                try:
                    value = a(f)
                except Exception as exc:
                    raise located(exc, span)
                if type(value) is str and len(value) < BIG_STR:
                    out.append(value)
                else:
                    _append_text(f, out, value, span)
            return run_eval
        if kind is SUM:
            def run_sum(f, out):
                text = joined(f, a, b)
                if text is None:
                    _append_value(f, out, ev, span)
                else:
                    out.append(text)
            return run_sum

    def run(f, out):
        for kind, a, b, ev, span in parts:
            if kind is TEXT:
                text = a
            elif kind is READ and b is not None and type(f[a]) is dict and b in f[a]:
                text = f[a][b]
                if type(text) is not str:
                    text = _text_of(text, f[0], span)
            else:
                try:
                    text = _part_value(f, kind, a, b, ev)
                    if type(text) is not str:
                        text = to_str(text, f[0])
                except Exception as exc:
                    raise located(exc, span)
            out.append(text)
            if len(text) >= BIG_STR:
                _note(f, text, span)
    return _merged_run(parts, run) or run


def _loop_read(slot, key, ev, span):
    """{{ var }} / {{ var['key'] }} in a loop body: a plain string appended in line, anything else printed through
    the general closure."""
    if key is None:
        def run_variable(f, out):
            value = f[slot]
            if type(value) is str:
                out.append(value)
            else:
                _append_value(f, out, ev, span)
        return run_variable

    def run_item(f, out):
        obj = f[slot]
        if type(obj) is dict and key in obj:
            value = obj[key]
            if type(value) is str:
                out.append(value)
                return
        _append_value(f, out, ev, span)
    return run_item


def _loop_sum_of_two(template, reads, fallback):
    """{{ 'a' + read + 'b' + read + 'c' }} in a loop body (the commonest message line): two in-line reads joined
    with the constants around them; anything but two plain strings goes through fallback(f, out) (the general
    chain)."""
    (first, slot1, key1, _, _), (second, slot2, key2, _, _) = reads
    head, middle, tail = "".join(template[:first]), "".join(template[first + 1:second]), \
        "".join(template[second + 1:])

    if key1 is not None and key2 is not None:
        def run_two_keys(f, out):   # message['role'], message['content']: the commonest
            obj = f[slot1]
            value1 = obj.get(key1) if type(obj) is dict else None
            obj = f[slot2]
            value2 = obj.get(key2) if type(obj) is dict else None
            if type(value1) is str and type(value2) is str:
                text = head + value1 + middle + value2 + tail
                if len(text) < BIG_STR:
                    out.append(text)
                    return
            fallback(f, out)
        return run_two_keys

    if key1 is None and key2 is not None:
        def run_variable_and_key(f, out):   # `'<role>' + role + '</role>' + message['content']`
            value1, obj = f[slot1], f[slot2]
            if type(value1) is str and type(obj) is dict:
                value2 = obj.get(key2)
                if type(value2) is str:
                    text = head + value1 + middle + value2 + tail
                    if len(text) < BIG_STR:
                        out.append(text)
                        return
            fallback(f, out)
        return run_variable_and_key

    if key1 is not None and key2 is None:
        def run_key_and_variable(f, out):   # `'Assistant: ' + message['content'] + eos_token`
            obj, value2 = f[slot1], f[slot2]
            if type(obj) is dict and type(value2) is str:
                value1 = obj.get(key1)
                if type(value1) is str:
                    text = head + value1 + middle + value2 + tail
                    if len(text) < BIG_STR:
                        out.append(text)
                        return
            fallback(f, out)
        return run_key_and_variable

    def run_two_reads(f, out):
        obj = f[slot1]
        if key1 is None:
            value1 = obj
        elif type(obj) is dict and key1 in obj:
            value1 = obj[key1]
        else:
            value1 = None
        obj = f[slot2]
        if key2 is None:
            value2 = obj
        elif type(obj) is dict and key2 in obj:
            value2 = obj[key2]
        else:
            value2 = None
        if type(value1) is str and type(value2) is str:
            text = head + value1 + middle + value2 + tail
            if len(text) < BIG_STR:
                out.append(text)
                return
        fallback(f, out)
    return run_two_reads


def _loop_sum_of_two_filtered(template, reads, fallback):
    """_loop_sum_of_two with a str method on one read or both (`'<|im_start|>' + message['role'] + '\n' +
    message['content']|trim + '<|im_end|>\n'`), each applied in line to a short plain string."""
    (first, slot1, key1, method1, _), (second, slot2, key2, method2, _) = reads
    head, middle, tail = "".join(template[:first]), "".join(template[first + 1:second]), \
        "".join(template[second + 1:])
    if key1 is not None and key2 is not None and method1 is None:
        def run_key_and_filtered_key(f, out):   # the commonest: message['role'], message['content']|trim
            obj = f[slot1]
            value1 = obj.get(key1) if type(obj) is dict else None
            obj = f[slot2]
            value2 = obj.get(key2) if type(obj) is dict else None
            if type(value1) is str and type(value2) is str and len(value2) < BIG_STR:
                text = head + value1 + middle + method2(value2) + tail
                if len(text) < BIG_STR:
                    out.append(text)
                    return
            fallback(f, out)
        return run_key_and_filtered_key

    def run_two_filtered(f, out):
        value1 = f[slot1]
        if key1 is not None:
            value1 = value1.get(key1) if type(value1) is dict else None
        value2 = f[slot2]
        if key2 is not None:
            value2 = value2.get(key2) if type(value2) is dict else None
        if type(value1) is str and type(value2) is str and len(value1) < BIG_STR and len(value2) < BIG_STR:
            text = head + (value1 if method1 is None else method1(value1)) + middle + \
                (value2 if method2 is None else method2(value2)) + tail
            if len(text) < BIG_STR:
                out.append(text)
                return
        fallback(f, out)
    return run_two_filtered


def _one_read_run(before, slot, key, after, fallback):
    """{{ 'a' + read + 'b' }} in a loop body, the read without a method: a variable's or a key's own closure (the
    commonest prints of a message: `'<|im_start|>' + message['role'] + '\n'`, `content + '<|im_end|>'`)."""
    if key is None:
        def run_variable_between(f, out):
            value = f[slot]
            if type(value) is str and len(value) < BIG_STR:
                out.append(before + value + after)
            else:
                fallback(f, out)
        return run_variable_between

    def run_key_between(f, out):
        obj = f[slot]
        if type(obj) is dict:
            value = obj.get(key)
            if type(value) is str and len(value) < BIG_STR:
                out.append(before + value + after)
                return
        fallback(f, out)
    run_key_between.mj_print = (slot, key, before, after)   # for sequences.fuse_pairs
    return run_key_between


def _merged_run(parts, run):
    """A loop body's print run of text and in-line reads (`<|im_start|>{{ message.role }}\n{{ message.content }}`)
    as one join, like a + chain of them (see fused.joined), when every read is a short plain string; else run, the
    run part by part. None when some part is neither."""
    template, reads = [], []
    for kind, a, b, _, _ in parts:
        if kind is TEXT:
            template.append(a)
        elif kind is READ:
            reads.append((len(template), a, b, None, None))
            template.append("")
        elif kind is SUM:
            reads.extend((len(template) + read[0],) + read[1:] for read in b)
            template.extend(a)
        else:
            return None
    template = tuple(template)
    if len(reads) == 2 and reads[0][3] is None and reads[1][3] is None:
        return _loop_sum_of_two(template, reads, run)

    def run_joined(f, out):
        text = joined(f, template, reads)
        if text is None:
            run(f, out)
        else:
            out.append(text)
    return run_joined


def _append_text(f, out, value, span):
    """Append value printed (a long piece noted: _note)."""
    text = value if type(value) is str else _text_of(value, f[0], span)
    out.append(text)
    if len(text) >= BIG_STR:
        _note(f, text, span)


def _append_value(f, out, ev, span):
    """The general way to print a value in a loop body: its text appended, a long one noted (_note)."""
    text = _value_text(f, ev, span)
    out.append(text)
    if len(text) >= BIG_STR:
        _note(f, text, span)


def _note(f, text, span):
    """A long piece appended in a loop: noted against max_output before the loop's count (RenderState.note_output)."""
    try:
        f[0].note_output(len(text))
    except Exception as exc:
        raise located(exc, span)


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
