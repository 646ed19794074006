"""Text kernels: constants and reads joined in line — a run of text and {{ }} (ir.Emit: `<|im_start|>{{
message.role }}\n`, `{{ '<|im_start|>' + message['role'] + '\n' + message['content']|trim }}`)."""

# A kernel reads every value in line (reads.py); when each is a short plain string, they and the constants around
# them are appended in order — the text printing or adding them in turn makes, once the render joins it; a piece per
# value copies nothing (adding would copy each value once more, widened where a constant is beyond ASCII) — counted
# against max_output first, unless a loop counts it. Anything else (a value that is not a string, a read that is not
# plain, a result too long to make before it is checked, the output limit reached) runs the general closure, which
# reads, adds, prints and fails as Jinja2 does; the reads in line ran nothing, so reading again is exact.

from .ir import Emit, Read
from .reads import BIG_STR, MISSING, attribute, reader, spec
from .select import kernel

__all__ = ["text_reads"]


@kernel(Emit, "reads")
def text_reads(node):
    # {{ }} of reads and constants: the constants around the reads joined (texts: one more than the reads), the
    # pieces appended (counted: against max_output first).
    (texts, reads, room), general, counted = _pieces(node), node.general, node.counted
    if room <= 0:
        return None
    if (one := one_key(node)) is not None:
        return _one_key(*one, general)
    if len(reads) == 1:
        return _join_one(*texts, reads[0], room, general, counted)
    if len(reads) == 2:
        return _join_two(*texts, *reads, room, general, counted)
    return _join_many(texts, tuple(reader(read) for read in reads), room, general, counted)


def one_key(node):
    # (slot, key, second key, str method, before, after, room) of an uncounted Emit printing a variable or a key or
    # two of one between constants (`{{ m.content }}`, maybe `|trim`; `{{ tc.function.name }}`): what _one_key reads
    # in line, and a walk over that variable may make in line (walks._item_texts); else None.
    texts, reads, room = _pieces(node) if node.signature == "reads" and not node.counted else ((), (), 0)
    if len(reads) == 1 and room > 0 and (path := _path(reads[0])) is not None:
        return (*path, *texts, room)


def _path(read):
    # (slot, key or None, a second key or None, str method or None) of a variable or one or two str keys of it
    # (a method: after one key at most), the reads _one_key and _two_keys make in line; else None.
    if len(read.keys) == 2 and read.method is None:
        return read.slot, *read.keys, None
    slot, key, method, read_path = spec(read, True, True)
    return (slot, key, None, method) if read_path is None else None


def _pieces(node):
    # (the constants around the reads, joined: one more than the reads; the reads; BIG_STR less the constants)
    texts, reads = [""], []
    for part in node.parts:
        if type(part) is Read:
            reads.append(part)
            texts.append("")
        else:
            texts[-1] += part
    return tuple(texts), reads, BIG_STR - sum(map(len, texts))


def _join_one(before, after, read, room, general, counted):
    def run_one_read(f, out, after=after, before=before, counted=counted, general=general, read=reader(read),
                     room=room):   # (counted, or a longer read: _one_key reads the others in line)
        value = read(f)
        if type(value) is str and len(value) < room and (not counted or _counts(f[0], BIG_STR - room + len(value))):
            out.append(before)   # (appends: cheaper than adding a tuple, which the list extends by)
            out.append(value)
            out.append(after)
        else:
            general(f, out)
    return run_one_read


def _counts(rs, size):
    # A counted kernel's size counted (True), or False where it would pass max_output: the general closure fails.
    if rs.output_size + size > rs.limits.max_output:
        return False
    rs.output_size += size
    return True


def _join_two(before, middle, after, first, second, room, general, counted):
    path, path2 = _path(first), _path(second)
    if path is not None and path2 is not None and path[3] is None and path2[3] is None and not counted:
        return _two_keys(before, *path[:3], middle, *path2[:3], after, room, general)

    def run_two_reads(f, out, after=after, before=before, counted=counted, first=reader(first), general=general,
                      middle=middle, room=room, second=reader(second)):   # (a read in line runs nothing)
        value, value2 = first(f), second(f)
        if type(value) is str and type(value2) is str and len(value) + len(value2) < room and (
                not counted or _counts(f[0], BIG_STR - room + len(value) + len(value2))):
            out.append(before)
            out.append(value)
            out.append(middle)
            out.append(value2)
            out.append(after)
        else:
            general(f, out)
    return run_two_reads


def _one_key(slot, key, sub, method, before, after, room, general):
    # _join_one's commonest forms: a variable or a key or two of one (`content`, `message['content']`, maybe
    # `|trim`; sub: `tool_call.function.name`), printed in a loop body (which counts the output). (A printed key is
    # there: a subscript, cheaper than get(); a missing one raises, and the general closure prints the undefined.)
    def run_one_key(f, out, slot=slot, key=key, sub=sub, room=room, before=before, after=after, general=general,
                    method=method, bare=not before and not after):
        value = f[slot]
        if key is not None:
            if type(value) is dict:
                try:
                    value = value[key]
                    if sub is not None:
                        value = value[sub] if type(value) is dict else attribute(value, sub)
                except KeyError:
                    return general(f, out)
            else:
                value = attribute(value, key) if sub is None else MISSING   # (a namespace's dict: not in line)
        if type(value) is not str or len(value) >= room:
            general(f, out)
        elif bare:   # (no constant around the value: `{{ m.content }}` alone)
            out.append(value if method is None else method(value))
        else:   # (appends: cheaper than adding a tuple, which the list extends by)
            out.append(before)
            out.append(value if method is None else method(value))
            out.append(after)
    return run_one_key


def _two_keys(before, slot, key, sub, middle, slot2, key2, sub2, after, room, general):
    # _join_two's commonest form: two variables or keys (or keys of keys) of them (`message['role']`,
    # `message['content']`, `role`, `tool_call.function.name`), printed in a loop body (which counts the output);
    # keys read as _one_key reads them.
    def run_two_keys(f, out, slot=slot, key=key, sub=sub, slot2=slot2, key2=key2, sub2=sub2, room=room, before=before,
                     middle=middle, after=after, general=general):   # defaults: cheaper per call than free variables
        value = f[slot]
        if key is not None:
            if type(value) is dict:
                try:
                    value = value[key]
                    if sub is not None:
                        value = value[sub] if type(value) is dict else attribute(value, sub)
                except KeyError:
                    return general(f, out)
            else:
                value = attribute(value, key) if sub is None else MISSING
        if type(value) is str:
            value2 = f[slot2]
            if key2 is not None:
                if type(value2) is dict:
                    try:
                        value2 = value2[key2]
                        if sub2 is not None:
                            value2 = value2[sub2] if type(value2) is dict else attribute(value2, sub2)
                    except KeyError:
                        return general(f, out)
                else:
                    value2 = attribute(value2, key2) if sub2 is None else MISSING
            if type(value2) is str and len(value) + len(value2) < room:
                out.append(before)
                out.append(value)
                out.append(middle)
                out.append(value2)
                out.append(after)
                return
        general(f, out)
    return run_two_keys


def _join_many(texts, readers, room, general, counted):
    head, rest = texts[0], tuple(zip(readers, texts[1:]))

    def run_reads(f, out, counted=counted, general=general, head=head, rest=rest, room=room):
        pieces, size = [head], 0
        for read, after in rest:
            value = read(f)
            if type(value) is not str:
                return general(f, out)
            size += len(value)
            pieces.append(value)
            pieces.append(after)
        if size >= room or counted and not _counts(f[0], size + BIG_STR - room):
            return general(f, out)
        out += pieces
    return run_reads

