"""Text and {{ }} statements → run(f, out): under autoescape each value escaped as it is printed (s_text,
s_output); otherwise a run of them compiled together (print_run), values printed with Python's str() (to_str).
Every piece appended is counted against max_output once (context.py: output).
"""

from .calls import call_parts, call_value
from .context import in_line_place, key_path, operand, place
from .operators import joined_text, sum_items
from ..builtins.strings import str_method
from ..core.errors import located
from ..core.state import BIG_STR, MISSING
from ..runtime.markup import Markup, escape
from ..runtime.objects import Macro, append_long, call_macro
from ..runtime.printing import to_str
from ..syntax import nodes as n

__all__ = ["s_text", "s_output", "print_run"]


# Without autoescape, runs of text and {{ }} are compiled together (print_run); these are the statements under
# autoescape, where every value is escaped as it is printed.
def s_text(c, node):
    text = node.value
    size = len(text) if not c.counted_by_loop else 0
    span = node.span

    def run(f, out, size=size, span=span, text=text):
        out.append(text)
        if size:
            try:
                f[0].grow_output(size)
            except Exception as exc:
                raise located(exc, span)
    return run


def s_output(c, node):
    ev = c.expr(node.expr)
    span = node.span
    counted = not c.counted_by_loop

    def run_escaped(f, out, counted=counted, ev=ev, span=span):
        try:
            value = ev(f)
            rs = f[0]
            text = value if type(value) is Markup else escape(value if isinstance(value, str)
                                                              or hasattr(value, "__html__")
                                                              else to_str(value, rs))
            out.append(text)
            if counted:
                rs.grow_output(len(text))
            elif len(text) >= BIG_STR:
                rs.note_output(len(text))
        except Exception as exc:
            raise located(exc, span)
    return run_escaped


def print_run(c, nodes):
    # run(f, out) for a run of text and {{ }} statements (not under autoescape): each value printed with Python's
    # str() (to_str), constants printed when the template compiles, the run's output counted once (or, in a loop
    # body, by the loop: context.py).
    printed_call = _print_call(c, nodes)
    if printed_call is not None:
        return printed_call
    parts = []   # a text, or (slot, key, ev, span) of a value to print (context.operand)
    for node in nodes:
        text = _constant_text(node)
        if text is None and len(nodes) == 1:
            general = _print_value(operand(c, node.expr), node.span, not c.counted_by_loop)
            joined = _print_joined(c, nodes, general) if node.expr.__class__ is n.BinOp and node.expr.op == "+" \
                else None
            return _print_item_reads(c, nodes, general) if joined is None else joined
        if text is None:
            parts.append(operand(c, node.expr) + (node.span,))
        elif parts and type(parts[-1]) is str:
            parts[-1] += text
        else:
            parts.append(text)
    counted, first_span = not c.counted_by_loop, nodes[0].span
    if len(parts) == 1 and type(parts[0]) is str:
        return _print_text(parts[0], counted, first_span)
    values = [part for part in parts if type(part) is not str]
    if len(values) == 1 and len(parts) <= 3:
        before = parts[0] if type(parts[0]) is str else ""
        after = parts[-1] if type(parts[-1]) is str else ""
        general = _print_one_part(before, values[0], after, counted, first_span)
    else:
        general = _print_parts(tuple(parts), counted, first_span)
    joined = _print_joined(c, nodes, general)
    return _print_item_reads(c, nodes, general) if joined is None else joined


def _print_call(c, nodes):
    # print_run's run for one call between texts (`:{{- format_argument(value) -}}`): the callee called here, not
    # through the call's closure (compile_call's, which this does the work of), a Python frame less in every level
    # of a recursive macro that prints its recursive call (Python's recursion limit counts them: Jinja2 makes the
    # call in the function it generates); None for other runs, compiling nothing.
    values = []
    for i, node in enumerate(nodes):   # (a loop, not a comprehension: a first compile pays for each)
        if node.__class__ is not n.Text and node.expr.__class__ is not n.Const:   # (_constant_text None, in line)
            values.append(i)
    if len(values) != 1 or nodes[values[0]].expr.__class__ is not n.Call:
        return None
    index = values[0]
    call = nodes[index].expr
    parts = call_parts(c, call)
    if parts is None:
        return None
    (func_ev, positional, collect), call_span, span = parts, place(call.span), nodes[index].span
    before = "".join(map(_constant_text, nodes[:index]))
    after = "".join(map(_constant_text, nodes[index + 1:]))
    counted, first_span, constant_size = not c.counted_by_loop, nodes[0].span, len(before) + len(after)

    def run_call(f, out, after=after, before=before, call_span=call_span, collect=collect,
            constant_size=constant_size, counted=counted, first_span=first_span, func_ev=func_ev,
            positional=positional, span=span):
        if before:
            out.append(before)
        try:   # (as run_one_part around compile_call's closures: the same errors, located the same)
            func = func_ev(f)
            if collect is None:
                args = [value if ev is None else ev(f) for ev, value in positional]
            try:
                kwargs = None
                if collect is not None:
                    args, kwargs = collect(f)
                if type(func) is Macro:
                    text = call_macro(func, *args, **kwargs) if kwargs else call_macro(func, *args)
                else:
                    text = call_value(func, args, {} if kwargs is None else kwargs, f[0])
            except Exception as exc:
                raise located(exc, call_span)
        except Exception as exc:
            raise located(exc, span)
        _print_around(f, out, text, after, constant_size, counted, first_span, span)
    return run_call


def _print_parts(parts, counted, first_span):
    # print_run's general run: parts are texts and (slot, key, ev, span) of the values to print.
    def run(f, out, counted=counted, first_span=first_span, parts=parts):
        rs = f[0]
        size = 0
        for part in parts:
            if type(part) is str:
                text = part
            else:
                slot, key, ev, span = part
                text = MISSING if slot is None else f[slot] if key is None else \
                    f[slot].get(key, MISSING) if type(f[slot]) is dict else MISSING
                if type(text) is not str:
                    try:
                        text = ev(f)
                        if type(text) is not str:
                            text = to_str(text, rs)
                    except Exception as exc:
                        raise located(exc, span)
            out.append(text)
            size += len(text)
        if counted or size >= BIG_STR:
            _count_output(rs, size, counted, first_span)
    return run


def _print_one_part(before, part, after, counted, first_span):
    # _print_parts for the commonest run: one value between texts (either may be empty), the same pieces
    # appended in the same order.
    slot, key, ev, span = part
    constant_size = len(before) + len(after)

    def run_one_part(f, out, after=after, before=before, constant_size=constant_size, counted=counted, ev=ev,
            first_span=first_span, key=key, slot=slot, span=span):
        if before:
            out.append(before)
        text = MISSING if slot is None else f[slot] if key is None else \
            f[slot].get(key, MISSING) if type(f[slot]) is dict else MISSING
        if type(text) is not str:
            try:
                text = ev(f)
            except Exception as exc:
                raise located(exc, span)
        _print_around(f, out, text, after, constant_size, counted, first_span, span)
    return run_one_part


def _print_around(f, out, text, after, constant_size, counted, first_span, span):
    # The end of run_one_part and run_call: the value printed (str(), a failure located at its span) and the text
    # after it appended (the text before it is), and the run's output counted.
    if type(text) is not str:
        try:
            text = to_str(text, f[0])
        except Exception as exc:
            raise located(exc, span)
    out.append(text)
    if after:
        out.append(after)
    size = constant_size + len(text)
    if counted or size >= BIG_STR:
        _count_output(f[0], size, counted, first_span)


def _constant_text(node):
    # What a Text node, or {{ }} of a constant, prints; None for another {{ }}.
    if node.__class__ is n.Text:
        return node.value
    if node.expr.__class__ is n.Const:
        return to_str(node.expr.value)
    return None


def _count_output(rs, size, counted, span):
    # Count `size` characters printed: against max_output now, or (in a loop body, for a long piece) noted for
    # the loop that counts them (context.py: output).
    try:
        if counted:
            rs.grow_output(size)
        else:
            rs.note_output(size)
    except Exception as exc:
        raise located(exc, span)


def _print_text(text, counted, span):
    size = len(text)
    if counted:
        def run_counted_text(f, out, size=size, span=span, text=text):
            out.append(text)
            rs = f[0]
            rs.output_size += size   # (rs.grow_output in line: most renders print a constant at the top level)
            if rs.output_size > rs.limits.max_output:
                _count_output(rs, 0, True, span)   # which fails, located
        return run_counted_text
    if size >= BIG_STR:
        def run_noted_text(f, out, size=size, span=span, text=text):
            out.append(text)
            _count_output(f[0], size, False, span)
        return run_noted_text

    def run_text(f, out, text=text):
        out.append(text)
    return run_text


def _print_value(operand, span, counted):
    # {{ value }} alone: a string that a variable of this frame holds, or a key of one (context.operand), appended
    # in line; anything else printed through the value's closure.
    slot, key, ev = operand

    def run_value(f, out, counted=counted, ev=ev, key=key, slot=slot, span=span):
        if slot is not None:
            text = f[slot]
            if key is not None:
                text = text.get(key, MISSING) if type(text) is dict else MISSING
            if type(text) is str:
                out.append(text)
                if counted:
                    rs = f[0]
                    rs.output_size += len(text)   # (rs.grow_output in line: `{{ bos_token }}`)
                    if rs.output_size > rs.limits.max_output:
                        _count_output(rs, 0, True, span)   # which fails, located
                elif len(text) >= BIG_STR:
                    _count_output(f[0], len(text), False, span)
                return
        try:
            text = ev(f)
            if type(text) is Markup:
                text = str.__str__(text)   # (to_str's answer for Markup, which keeps str's __str__: a `|safe + x` sum)
            elif type(text) is not str:
                text = to_str(text, f[0])
        except Exception as exc:
            raise located(exc, span)
        out.append(text)
        if counted or len(text) >= BIG_STR:
            _count_output(f[0], len(text), counted, span)
    return run_value


def _print_joined(c, nodes, general):
    """A run of text and {{ }} whose values are one or two read in line (a variable of this frame, a constant key
    of one: context.operand; either with a str-method filter: _joined_read), alone or in `+` chains with string
    constants (`<|im_start|>{{ message.role }}\n`, `'User: ' + message['content']|trim + '\n\n'`,
    `{{ '<|im_start|>' + message['role'] + '\n' }}`): when they are plain strings and the text is short, the
    join of the constants and the values appended (what printing them in turn, or adding them, makes; neither
    charges anything there), counted as the run counts it; anything else through general, which reads them again
    (reading in line ran nothing). -> that run, or None for other runs."""
    pieces, reads, span = [""], [], nodes[0].span
    for node in nodes:
        text = _constant_text(node)
        if text is not None:
            pieces[-1] += text
            continue
        expr = node.expr
        for item in sum_items(expr) if expr.__class__ is n.BinOp and expr.op == "+" else (expr,):
            if item.__class__ is n.Const and type(item.value) is str:
                pieces[-1] += item.value
                continue
            read = _joined_read(c, item) or _path_read(c, item)
            if read is None:
                return None
            reads.append(read)
            pieces.append("")
    room, counted = BIG_STR - sum(map(len, pieces)), not c.counted_by_loop
    if not 1 <= len(reads) <= 2 or room <= 0:
        return None
    paths = filtered = False
    for _, key, method in reads:   # (a loop, not generators: a first compile pays for each)
        paths, filtered = paths or type(key) is tuple, filtered or method is not None
    if paths:
        return None if filtered else _print_paths(pieces, reads, room, counted, span, general)
    if filtered:
        return _print_filtered(pieces, reads, room, counted, span, general)
    if len(reads) == 1:
        return _print_joined_one(pieces, reads[0], room, counted, span, general)
    (before, between, after), ((slot, key, _), (slot2, key2, _)) = pieces, reads

    def run_sum(f, out, after=after, before=before, between=between, counted=counted, general=general, key=key,
            key2=key2, room=room, slot=slot, slot2=slot2, span=span):
        first, second = f[slot], f[slot2]
        try:   # (a printed key is there: a subscript, cheaper than `in` and a subscript; a missing one raises)
            if key is not None:
                first = first[key] if type(first) is dict else None
            if key2 is not None:
                second = second[key2] if type(second) is dict else None
        except KeyError:
            first = None
        if type(first) is not str or type(second) is not str:
            general(f, out)
        elif len(first) + len(second) < room:
            out.append(before)   # (the sum's text once the render joins it: no copy; appends, cheaper than a tuple)
            out.append(first)
            out.append(between)
            out.append(second)
            out.append(after)
            if counted:
                _count_output(f[0], BIG_STR - room + len(first) + len(second), counted, span)
        else:
            _print_long_sum(f, out, (before, first, between, second, after), counted, span)
    return run_sum


def _print_item_reads(c, nodes, general):
    # A run of text and {{ }} whose values are one or two keys of one item of a list indexed by a loop variable, alone
    # or in `+` chains with string constants (`{{ messages[i]['role'] + ': ' + messages[i]['content'] }}`): where the
    # list is a plain list, the index a plain int in range, the item a plain dict whose keys hold short plain strings,
    # the constants and the values appended, counted as the run counts it; else general, which reads them all again (the
    # reads in line ran nothing). The item is read once where Jinja2 reads it for each key: between its reads nothing
    # runs but a plain dict's lookups and adding plain strings. -> that run, or general for other runs.
    pieces, places = [""], []
    for node in nodes:
        text = _constant_text(node)
        if text is not None:
            pieces[-1] += text
            continue
        for item in sum_items(node.expr) if node.expr.__class__ is n.BinOp and node.expr.op == "+" else \
                (node.expr,):
            if item.__class__ is n.Const and type(item.value) is str:
                pieces[-1] += item.value
                continue
            place = key_path(c, item, indexes=True)
            if place is None or len(place[1]) != 2 or type(place[1][0]) is not int or type(place[1][1]) is not str:
                return general
            places.append(place)
            pieces.append("")
    room, counted, span = BIG_STR - sum(map(len, pieces)), not c.counted_by_loop, nodes[0].span
    if not 1 <= len(places) <= 2 or room <= 0 or len({(slot, index) for slot, (index, _) in places}) != 1 or \
            room == BIG_STR and len(places) == 1:
        return general   # (one value alone: its print reads it in line, two lookups: expressions._two_lookups)
    (slot, (index_slot, key)), key2 = places[0], places[-1][1][1] if len(places) == 2 else None
    before, between, after = pieces if key2 is not None else (pieces[0], "", pieces[1])

    def run_item_reads(f, out, after=after, before=before, between=between, counted=counted, general=general,
            index_slot=index_slot, key=key, key2=key2, room=room, slot=slot, span=span):
        items, index, item = f[slot], f[index_slot], None
        if type(items) is list and type(index) is int:
            try:
                item = items[index]
            except IndexError:   # (out of range: general's undefined)
                pass
        if type(item) is dict:
            first = item.get(key)
            second = "" if key2 is None else item.get(key2)
            if type(first) is str and type(second) is str and len(first) + len(second) < room:
                out.append(before)
                out.append(first)
                if key2 is not None:
                    out.append(between)
                    out.append(second)
                out.append(after)
                if counted:
                    _count_output(f[0], BIG_STR - room + len(first) + len(second), counted, span)
                return
        general(f, out)
    return run_item_reads


def _joined_read(c, node):
    # (slot, key, method) of a value _print_joined reads in line: a variable of this frame or a constant key of one
    # (context.in_line_place; method None), or one with a filter that is a str method (`message['content']|trim`:
    # applied in line to a short plain string, as the filter's closure applies it); None for anything else.
    method = None
    if node.__class__ is n.Filter and node.args.empty:
        method = str_method(c.filters.get(node.name))
        if method is None:
            return None
        node = node.value
    slot, key = in_line_place(c, node)
    return None if slot is None else (slot, key, method)


def _path_read(c, node):
    # (slot, (key, key), None) of a value _print_joined reads in line through two constant keys of a variable of this
    # frame (`tool_call.function.name`: context.key_path); None for anything else.
    place = key_path(c, node)
    return (place[0], place[1], None) if place is not None and len(place[1]) == 2 else None


def _print_paths(pieces, reads, room, counted, span, general):
    # _print_joined's run where a value is a key of a key of a variable (`'<function=' + tool_call.function.name +
    # '>' + tool_call.function.arguments`): each step a plain dict's lookup in line, the constants and the values
    # appended where they are short plain strings, counted as the run counts it; anything else through general,
    # which reads them all again (the reads here ran nothing, and adding plain strings runs nothing between them).
    places = [(slot, *(key if type(key) is tuple else (key, None))) for slot, key, _ in reads]
    (slot, key, key_b), (slot2, key2, key2_b) = places if len(places) == 2 else places + [(None, None, None)]
    before, between, after = pieces if len(pieces) == 3 else (pieces[0], "", pieces[1])
    if slot2 == slot and key2 == key and key_b is not None and key2_b is not None:
        return _print_sibling_paths(slot, key, key_b, key2_b, before, between, after, room, counted, span, general)

    def run_sum_paths(f, out, after=after, before=before, between=between, counted=counted, general=general, key=key,
            key2=key2, key_b=key_b, key2_b=key2_b, room=room, slot=slot, slot2=slot2, span=span):
        first, second = f[slot], ""
        if key is not None:
            first = first.get(key) if type(first) is dict else None
            if key_b is not None:
                first = first.get(key_b) if type(first) is dict else None
        if slot2 is not None:
            second = f[slot2]
            if key2 is not None:
                second = second.get(key2) if type(second) is dict else None
                if key2_b is not None:
                    second = second.get(key2_b) if type(second) is dict else None
        if type(first) is not str or type(second) is not str or len(first) + len(second) >= room:
            return general(f, out)
        out.append(before)
        out.append(first)
        if slot2 is not None:
            out.append(between)
            out.append(second)
        out.append(after)
        if counted:
            _count_output(f[0], BIG_STR - room + len(first) + len(second), counted, span)
    return run_sum_paths


def _print_sibling_paths(slot, key, name, name2, before, between, after, room, counted, span, general):
    # _print_paths's run for two keys of one key of a variable (`tool_call.function.name` and
    # `tool_call.function.arguments`): the dict they share read once (Jinja2 reads it for each, with nothing but
    # plain dicts' lookups between its reads), the two strings appended between the constants where every step is
    # a plain dict and they are short plain strings; anything else through general, which reads it all again.
    def run_sibling_paths(f, out, after=after, before=before, between=between, counted=counted, general=general,
            key=key, name=name, name2=name2, room=room, slot=slot, span=span):
        shared = f[slot]
        if type(shared) is dict and type(shared := shared.get(key)) is dict:
            first, second = shared.get(name), shared.get(name2)
            if type(first) is str and type(second) is str and len(first) + len(second) < room:
                out.append(before)
                out.append(first)
                out.append(between)
                out.append(second)
                out.append(after)
                if counted:
                    _count_output(f[0], BIG_STR - room + len(first) + len(second), counted, span)
                return
        general(f, out)
    return run_sibling_paths


def _print_filtered(pieces, reads, room, counted, span, general):
    # _print_joined's run where a value has a str-method filter (`'User: ' + message['content']|trim + '\n\n'`): the
    # plain strings up to BIG_STR read in line, the methods applied (what the filters' closures do) and the text
    # appended where it stays short; anything else through general, which reads it all again.
    if len(reads) == 1:
        (before, after), ((slot, key, method),) = pieces, reads

        def run_filtered_one(f, out, after=after, before=before, counted=counted, general=general, key=key,
                method=method, room=room, slot=slot, span=span):
            value = f[slot]
            if key is not None:
                value = value[key] if type(value) is dict and key in value else None
            if type(value) is str and len(value) < BIG_STR:
                value = method(value)
                if len(value) < room:
                    out.append(before)   # (three appends: cheaper than extending by a tuple)
                    out.append(value)
                    out.append(after)
                    if counted:
                        _count_output(f[0], BIG_STR - room + len(value), counted, span)
                    return
            general(f, out)
        return run_filtered_one
    (before, between, after), ((slot, key, method), (slot2, key2, method2)) = pieces, reads

    def run_filtered_two(f, out, after=after, before=before, between=between, counted=counted, general=general,
            key=key, key2=key2, method=method, method2=method2, room=room, slot=slot, slot2=slot2, span=span):
        first = f[slot] if key is None else f[slot].get(key) if type(f[slot]) is dict else None
        second = f[slot2] if key2 is None else f[slot2].get(key2) if type(f[slot2]) is dict else None
        if type(first) is str and type(second) is str and len(first) < BIG_STR and len(second) < BIG_STR:
            first = first if method is None else method(first)
            second = second if method2 is None else method2(second)
            if len(first) + len(second) < room:
                out.append(before)
                out.append(first)
                out.append(between)
                out.append(second)
                out.append(after)
                if counted:
                    _count_output(f[0], BIG_STR - room + len(first) + len(second), counted, span)
                return
        general(f, out)
    return run_filtered_two


def _print_joined_one(pieces, read, room, counted, span, general):
    # _print_joined's run for one value between constants.
    (before, after), (slot, key, _) = pieces, read

    def run_sum_one(f, out, after=after, before=before, counted=counted, general=general, key=key, room=room, slot=slot,
            span=span):
        value = f[slot]
        if key is not None:
            try:   # (as run_sum reads it)
                value = value[key] if type(value) is dict else None
            except KeyError:
                value = None
        if type(value) is not str:
            general(f, out)
        elif len(value) < room:
            out.append(before)
            out.append(value)
            out.append(after)
            if counted:
                _count_output(f[0], BIG_STR - room + len(value), counted, span)
        else:
            _print_long_sum(f, out, (before, value, after), counted, span)
    return run_sum_one


def _print_long_sum(f, out, pieces, counted, span):
    # A sum of plain strings too long for _print_joined's own test (a long message), made as the chain's closure
    # makes it (joined_text: sized and charged first) and printed as run_value prints it, without reading again:
    # where a text kernel or run_sum leaves a long message, this is most of the render. (Appended in pieces where
    # every limit holds; else joined_text and _count_output, which fail as they should.)
    rs, size = f[0], sum(map(len, pieces))
    if append_long(rs, out, pieces, size, counted):
        return
    try:
        text = joined_text(rs, pieces, size)
    except Exception as exc:
        raise located(exc, span)
    out.append(text)
    _count_output(rs, len(text), counted, span)
