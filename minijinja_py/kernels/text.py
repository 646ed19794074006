"""Text kernels: constants and reads joined in line — a run of text and {{ }} (ir.Emit: `<|im_start|>{{
message.role }}\n`, `{{ '<|im_start|>' + message['role'] + '\n' + message['content']|trim }}`) or a set of one
(ir.Assign: `{% set content = message['content'] %}`, `{% set x = 'a' + m.k + 'b' %}`).

A kernel reads every value in line (reads.py); when each is a short plain string, the text is their join with the
constants around them — what printing or adding them in turn makes — appended (counted against max_output first,
unless a loop counts it) or assigned. Anything else (a value that is not a string, a read that is not plain, a
result too long to make before it is checked, the output limit reached) runs the general closure, which reads,
adds, prints and fails as Jinja2 does; the reads in line ran nothing, so reading again is exact.
"""

from .ir import Assign, Emit, Loop, Read
from .reads import ABSENT, BIG_STR, MISSING, attribute, reader, spec
from .select import kernel
from .walks import list_loop
from ..runtime.objects import ChatNamespace, Namespace

__all__ = ["text_reads", "set_text", "set_namespace", "walk_text"]


@kernel(Emit, "reads")
def text_reads(node):
    """{{ }} of reads and constants, appended."""
    texts, reads = _pieces(node.parts)
    return _joiner(texts, reads, node.general, None, node.counted)


@kernel(Assign, "text")
def set_text(node):
    """{% set x = read %} (any value the read gives), {% set x = 'a' + read %} (a string)."""
    if type(node.parts[0]) is tuple:
        return _set_text(node.slot, node.parts[0][0])
    texts, reads = _pieces(node.parts)
    if len(reads) == 1 and texts == ("", ""):
        return _set_read(node.slot, reads[0], node.general)
    if not reads:
        return _set_text(node.slot, texts[0])
    return _joiner(texts, reads, node.general, node.slot, False)


@kernel(Loop, "walk+text")
def walk_text(node):
    """A plain loop whose body prints reads and constants (`{{ '<|im_start|>' + message['role'] + '\n' +
    message['content'] + '<|im_end|>\n' }}`): each item's text joined in the walk, without a call; the body's
    general closure for an item whose reads are not two short plain strings."""
    texts, reads = _pieces(node.body.nodes[0].parts)
    if len(reads) != 2 or sum(map(len, texts)) >= BIG_STR:
        return None
    (slot, key, _, read_path), (slot2, key2, _, read_path2) = spec(reads[0]), spec(reads[1])
    if read_path is not None or read_path2 is not None:
        return None
    before, middle, after = texts
    room = BIG_STR - sum(map(len, texts))
    general, target = node.body.run, node.plan.target_slot
    if slot == target and slot2 == target:
        def walk(f, out, items, step):   # two keys of the item (the variable is set for an item the body runs for)
            append = out.append
            for item in items:
                if type(item) is dict:
                    value, value2 = item.get(key), item.get(key2)
                    if type(value) is str and type(value2) is str and len(value) + len(value2) < room:
                        append(before + value + middle + value2 + after)
                        continue
                f[target] = item
                general(f, out)
    else:
        def walk(f, out, items, step):
            append = out.append
            for item in items:
                f[target] = item
                value = f[slot]
                value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
                if type(value) is str:
                    value2 = f[slot2]
                    value2 = value2.get(key2, ABSENT) if type(value2) is dict else attribute(value2, key2)
                    if type(value2) is str and len(value) + len(value2) < room:
                        append(before + value + middle + value2 + after)
                        continue
                general(f, out)
    return list_loop(node, walk)


@kernel(Assign, "namespace")
def set_namespace(node):
    """{% set ns.attr = value %}: on a namespace (checked first, as Jinja2 does), the value of reads and
    constants (see set_text) stored as its attribute."""
    if type(node.parts[0]) is tuple:
        constant = node.parts[0][0]
        value = lambda f: constant   # noqa: E731
    else:
        texts, reads = _pieces(node.parts)
        value = reader(reads[0]) if len(reads) == 1 and texts == ("", "") else _text_value(texts, reads)
    if value is None:
        return None
    namespace, attr, general = reader(node.namespace), node.attr, node.general

    def run_set_namespace(f, out):
        ns = namespace(f)
        if type(ns) is ChatNamespace or type(ns) is Namespace:
            text = value(f)
            if text is not MISSING and text is not ABSENT:
                ns._attrs[attr] = text
                return
        general(f, out)
    return run_set_namespace


def _text_value(texts, reads):
    """f → the text of reads between texts when every read is a short plain str, else MISSING."""
    room = BIG_STR - sum(map(len, texts))
    if room <= 0:
        return None
    head, rest = texts[0], tuple(zip((reader(read) for read in reads), texts[1:]))
    if not rest:
        return lambda f: head

    def text_value(f):
        pieces, size = [head], 0
        for read, after in rest:
            value = read(f)
            if type(value) is not str:
                return MISSING
            size += len(value)
            pieces.append(value)
            pieces.append(after)
        return "".join(pieces) if size < room else MISSING
    return text_value


def _pieces(parts):
    """(the constants around the reads, joined: one more than the reads; the reads)."""
    texts, reads = [""], []
    for part in parts:
        if type(part) is Read:
            reads.append(part)
            texts.append("")
        else:
            texts[-1] += part
    return tuple(texts), tuple(reads)


def _joiner(texts, reads, general, target, counted):
    """run(f, out) for len(reads) reads between texts: the joined text appended (target None; counted: against
    max_output first) or stored in the slot `target`."""
    room = BIG_STR - sum(map(len, texts))
    if room <= 0:
        return None
    if len(reads) == 1:
        return _join_one(texts, spec(reads[0], methods=True), room, general, target, counted)
    if len(reads) == 2:
        return _join_two(texts, spec(reads[0], methods=True), spec(reads[1], methods=True), room, general, target,
                         counted)
    return _join_many(texts, tuple(reader(read) for read in reads), room, general, target, counted)


def _join_one(texts, read, room, general, target, counted):
    before, after = texts
    slot, key, method, read_path = read
    if read_path is None and target is None and not counted:
        return _one_key(before, slot, key, method, after, room, general)

    def run_one_read(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
            if method is not None:
                value = method(value) if type(value) is str and len(value) < BIG_STR else MISSING
        else:
            value = read_path(f)
        if type(value) is str and len(value) < room:
            text = before + value + after
            if target is not None:
                f[target] = text
                return
            if counted:
                rs = f[0]
                if rs.output_size + len(text) > rs.limits.max_output:
                    return general(f, out)   # which fails as it should
                rs.output_size += len(text)
            out.append(text)
            return
        general(f, out)
    return run_one_read


def _join_two(texts, first, second, room, general, target, counted):
    before, middle, after = texts
    slot, key, method, read_path = first
    slot2, key2, method2, read_path2 = second
    if read_path is None and read_path2 is None and method is None and method2 is None and target is None and \
            not counted:
        return _two_keys(before, slot, key, middle, slot2, key2, after, room, general)

    def run_two_reads(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
            if method is not None:
                value = method(value) if type(value) is str and len(value) < BIG_STR else MISSING
        else:
            value = read_path(f)
        if type(value) is str:
            if read_path2 is None:
                value2 = f[slot2]
                value2 = value2.get(key2, ABSENT) if type(value2) is dict else attribute(value2, key2)
                if method2 is not None:
                    value2 = method2(value2) if type(value2) is str and len(value2) < BIG_STR else MISSING
            else:
                value2 = read_path2(f)
            if type(value2) is str and len(value) + len(value2) < room:
                text = before + value + middle + value2 + after
                if target is not None:
                    f[target] = text
                    return
                if counted:
                    rs = f[0]
                    if rs.output_size + len(text) > rs.limits.max_output:
                        return general(f, out)   # which fails as it should
                    rs.output_size += len(text)
                out.append(text)
                return
        general(f, out)
    return run_two_reads


def _one_key(before, slot, key, method, after, room, general):
    """_join_one's commonest forms: a key of a variable (`message['content']`, maybe `|trim`), printed in a loop
    body (which counts the output)."""
    if method is None:
        def run_one_key(f, out):
            value = f[slot]
            value = value.get(key) if type(value) is dict else attribute(value, key)
            if type(value) is str and len(value) < room:
                out.append(before + value + after)
            else:
                general(f, out)
        return run_one_key

    def run_one_key_method(f, out):
        value = f[slot]
        value = value.get(key) if type(value) is dict else attribute(value, key)
        if type(value) is str and len(value) < room:
            out.append(before + method(value) + after)
        else:
            general(f, out)
    return run_one_key_method


def _two_keys(before, slot, key, middle, slot2, key2, after, room, general):
    """_join_two's commonest form: two keys of variables (`message['role']`, `message['content']`), printed in
    a loop body (which counts the output)."""
    def run_two_keys(f, out):
        value = f[slot]
        value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        if type(value) is str:
            value2 = f[slot2]
            value2 = value2.get(key2, ABSENT) if type(value2) is dict else attribute(value2, key2)
            if type(value2) is str and len(value) + len(value2) < room:
                out.append(before + value + middle + value2 + after)
                return
        general(f, out)
    return run_two_keys


def _join_many(texts, readers, room, general, target, counted):
    head, rest = texts[0], tuple(zip(readers, texts[1:]))

    def run_reads(f, out):
        pieces, size = [head], 0
        for read, after in rest:
            value = read(f)
            if type(value) is not str:
                return general(f, out)
            size += len(value)
            pieces.append(value)
            pieces.append(after)
        if size >= room:
            return general(f, out)
        text = "".join(pieces)
        if target is not None:
            f[target] = text
            return
        if counted:
            rs = f[0]
            if rs.output_size + len(text) > rs.limits.max_output:
                return general(f, out)   # which fails as it should
            rs.output_size += len(text)
        out.append(text)
    return run_reads


def _set_text(target, text):
    """{% set role = 'HUMAN' %}, {% set found = true %}: the constant."""
    def run_set_text(f, out):
        f[target] = text
    return run_set_text


def _set_read(target, read, general):
    """{% set x = m.content %}: whatever value the read finds (the general closure finds the same object)."""
    slot, key, _, read_path = spec(read)

    def run_set_read(f, out):
        if read_path is None:
            value = f[slot]
            value = value.get(key, ABSENT) if type(value) is dict else attribute(value, key)
        else:
            value = read_path(f)
        if value is MISSING or value is ABSENT:
            return general(f, out)
        f[target] = value
    return run_set_read
