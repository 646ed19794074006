"""The if statement → run(f, out): its branches' tests and bodies compiled (if_parts, which lower.py reads too),
and the run that picks the branch — a test's truth located at the test; a variable or a key of one tested in
line (in an and/or chain too: comparisons.py); an equality with a short constant (`m.role == 'user'`) compared in line,
alone, in an and/or chain or in each elif; an if/elif chain of == tests of one subject (`messages[idx]['role']` too)
picking its branch by the subject's value; a type test, a string constant's `in` or a loop context's first or last
(`not loop.last`, `loop.index0 == 0`) decided in the if.
"""

from .comparisons import (
    and_or_parts, attribute_of, chain_operand, chain_truth, chain_two, condition, equality_of, if_contains, is_chain,
    operand_condition, truth_at,
)
from .context import DICT_NAMES, cheap_constant, in_line_place, key_path, local_slot, path_reader, type_answers
from .operators import sum_items
from ..analysis.transforms import NoParentYet
from ..builtins.tests import TYPE_TESTS
from ..core.errors import located
from ..core.state import BIG_STR, MISSING
from ..runtime.objects import ChatNamespace, LoopContext
from ..runtime.undefined import PLAIN_UNDEFINED
from ..syntax import nodes as n

__all__ = ["s_if", "if_parts", "if_runner"]


def s_if(c, node):
    return if_parts(c, node)[2]


def if_parts(c, node):
    # The compiled parts of an if statement: (branches, the else's Block or None, run(f, out)). A branch is (its
    # test node, the test's closure, its span, parts, its body's Block): the closure is the expression's own, the
    # if takes its truth (and locates a failure of that); but for a test that is a chain of one kind of and/or
    # (`a and b and c`), parts is ((operand, its closure, its span), ...) and the closure the truth of the chain,
    # each operand's truth taken once, in order, up to the one that decides, as Python's `if a and b` does.
    branches, tested, else_body = [], [(node.test, node.body)] + list(node.elifs), node.else_
    while len(else_body) == 1 and isinstance(else_body[0], n.If):
        # `{% else %}{% if b %}...{% endif %}`: the inner if's branches are the outer's elifs (an if is no scope:
        # the same tests run in the same order), so the chain is compiled, and picked, as one
        inner = else_body[0]
        tested += [(inner.test, inner.body)] + list(inner.elifs)
        else_body = inner.else_
    # an if is a soft frame (unknown filters and tests fail when run), but not the output check transforms.py puts
    # around the root's output where an extends may come (Jinja2's `if parent_template is None:`, no frame of its own)
    with c.flags() if type(node.test) is NoParentYet else c.soft_frame():
        for test, body in tested:
            if isinstance(test, (n.And, n.Or)):
                parts, ev = _chain_parts(c, test)
            else:
                parts, ev = None, condition(c, test) if is_chain(test) else c.expr(test)
            branches.append((test, ev, test.span, parts, c.block(body)))
        else_ = c.block(else_body) if else_body else None
        # (in the if's soft frame: _if_run compiles parts of the tests again, an unknown filter there fails late)
        return branches, else_, _if_run(c, node, branches, else_)


def _chain_parts(c, test):
    # if_parts's (parts, ev) of a test that is a chain of and/or. (Apart from if_parts: its generators would
    # make a cell for c on every call of if_parts.)
    parts = tuple((operand, operand_condition(c, operand), operand.span) for operand in and_or_parts(test))
    ev = chain_truth(tuple(chain_operand(c, *part) for part in parts), isinstance(test, n.Or))
    return parts, ev



def _if_run(c, node, branches, else_):
    else_run = else_.run if else_ is not None else None
    if len(branches) == 1:
        _, test, span, parts, body = branches[0]
        flag = _loop_flag_of(c, node.test) if parts is None else None
        if flag is not None:
            return _if_loop_flag(*flag, test, span, body.run, else_run)
        slot, key = in_line_place(c, node.test) if parts is None else (None, None)
        if slot is not None:
            run = _if_operand(slot, key, test, span, body.run, else_run, attribute_of(node.test, key))
            printed = _printed_read(c, node, slot, key) if key is not None and key not in DICT_NAMES else None
            return run if printed is None else _if_echo(slot, key, *printed, else_run, run)
        equality = equality_of(c, node.test) if parts is None else None
        if equality is not None:
            return _if_equal(*equality, test, span, body.run, else_run)
        if parts is not None and len(parts) == 2:
            (first_node, first_ev, first_span), (second_node, second_ev, second_span) = parts
            first = chain_operand(c, first_node, first_ev, first_span)
            second = chain_operand(c, second_node, second_ev, second_span)
            general = chain_two(first, second, isinstance(node.test, n.Or), body.run, else_run)
            there = _key_there_of(c, node.test, first_node, second_node)
            return general if there is None else _if_key_there(*there, second_span, general, body, else_)
        if isinstance(node.test, n.Not) and not is_chain(node.test.operand):
            # `not x`: x's truth taken in the if (body and else swapped), x read in line where it can be
            operand, slot, key = node.test.operand, *in_line_place(c, node.test.operand)
            if slot is None:
                return if_runner(((c.expr(operand), operand.span, else_run or _run_nothing),), body.run)
            return _if_operand(slot, key, c.expr(operand), operand.span, else_run or _run_nothing, body.run,
                               attribute_of(operand, key))
        if node.test.__class__ is n.Test and node.test.args.empty and c.tests.get(node.test.name) in TYPE_TESTS:
            slot, key = in_line_place(c, node.test.value)
            if slot is not None:
                func, negated = c.tests[node.test.name], node.test.negated
                run = _if_type_test(slot, key, func, negated, test, span, body.run, else_run)
                printed = _printed_read(c, node, slot, key) if type_answers(func, negated).get(str) is True else None
                return run if printed is None else _if_type_print(slot, key, *printed, run)
        if isinstance(node.test, _BOOLEAN_TESTS) or isinstance(node.test, n.Compare) and len(node.test.ops) == 1 \
                and node.test.ops[0][0] in ("in", "not in"):   # (`in` gives a bool: comparisons.py)
            contains = if_contains(c, node.test, test, body.run, else_run) if node.test.__class__ is n.Compare else None
            return contains or _if_boolean(test, body.run, else_run)
    general = if_runner(tuple((test, span, body.run) for _, test, span, _, body in branches), else_run)
    if len(branches) > 1:
        return _elif_run(c, branches, else_run, general)
    return _item_subject(c, branches, else_run, general) or general


# tests whose closures give a bool (and/or chains: chain_truth, condition; `not`; `is` tests: compile_test):
# their truth is the value itself and cannot fail
_BOOLEAN_TESTS = (n.And, n.Or, n.Not, n.Test)


def _if_boolean(test, body, else_):
    # {% if a and b %}, {% if not loop.last %}, {% if x is defined %}: an if whose test gives a bool.
    def run_boolean(f, out, body=body, else_=else_, test=test):
        if test(f):
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_boolean


def _key_there_of(c, test, first, second):
    # (slot, key) of a test `'k' in x and x['k']` (or `x.k`): x a variable of this frame, the same constant key
    # (context.dict_key: what a plain dict's lookup reads); else None.
    if test.__class__ is not n.And or first.__class__ is not n.Compare or len(first.ops) != 1 or \
            first.ops[0][0] != "in" or first.first.__class__ is not n.Const or type(first.first.value) is not str:
        return None
    slot, key = in_line_place(c, second)
    if slot is None or key != first.first.value or local_slot(c, first.ops[0][1]) != slot:
        return None
    return slot, key


def _if_key_there(slot, key, span, general, body, else_):
    # {% if 'tool_calls' in m and m['tool_calls'] %}: on a plain dict, the key looked up once decides both operands
    # (Jinja2's `in`, then its read of the key: nothing runs between them), the value's truth taken as the and takes
    # it (a failure located at the second operand); anything else through general, the and's own run. body and else_
    # are Blocks (else_ maybe None): one that only prints a short constant text in a loop (`{{ '<|eot_id|>' }}`) has
    # it appended here, as its run appends it, without calling the run.
    def run_key_there(f, out, body=body.run, else_=else_ and else_.run, general=general, key=key, slot=slot, span=span,
            text=body.text, else_text=else_ and else_.text):
        obj = f[slot]
        if type(obj) is not dict:
            return general(f, out)
        if key in obj:
            value = obj[key]
            try:
                chosen = True if value else False
            except Exception as exc:   # (a caller's object in the dict: its truth can fail)
                raise located(exc, span)
            if chosen:
                if text is None:
                    return body(f, out)
                return out.append(text)
        if else_text is not None:
            out.append(else_text)
        elif else_ is not None:
            else_(f, out)
    return run_key_there


def _loop_flag_of(c, test):
    # (slot, 'first' or 'last', negated) of a test `loop.last`, `not loop.first`, `loop.index0 == 0`, `loop.index != 1`
    # (an int constant: `== 0.0` or `== false` compare otherwise) whose variable is of this frame, else None.
    negated = False
    while test.__class__ is n.Not:
        test, negated = test.operand, not negated
    if test.__class__ is n.Compare and len(test.ops) == 1 and test.first.__class__ is n.Getattr:
        (op, other), = test.ops
        start = {"index0": 0, "index": 1}.get(test.first.attr)
        if op not in ("==", "!=") or other.__class__ is not n.Const or type(other.value) is not int or \
                other.value != start:
            return None
        test, negated, attr = test.first, negated is (op == "=="), "first"
    elif test.__class__ is n.Getattr and test.attr in ("first", "last"):
        attr = test.attr
    else:
        return None
    slot = local_slot(c, test.obj)
    return None if slot is None else (slot, attr, negated)


def _if_loop_flag(slot, attr, negated, test, span, body, else_):
    # {% if not loop.last %}, {% if loop.first %}, {% if loop.index0 == 0 %}: where the variable holds a loop context,
    # its count read in line as expressions._loop_counter reads it (loop.last before the end of a list; else its
    # property, which spends the walk); anything else through test, the test's closure.
    first = attr == "first"

    def run_loop_flag(f, out, body=body, else_=else_, first=first, negated=negated, slot=slot, span=span, test=test):
        loop = f[slot]
        if type(loop) is LoopContext:
            if first:
                chosen = (loop.index0 == 0) is not negated
            else:
                items = loop._items
                chosen = (False if items is not None and loop.index0 + 1 < len(items) else loop.last) is not negated
        else:
            chosen = truth_at(test(f), span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_loop_flag


def _if_type_test(slot, key, func, negated, test, span, body, else_):
    # {% if m.content is string %}, {% if x is not none %}: a type test (calls.type_test) of a variable of this frame
    # or a key of one, the value read in line and tested here (a plain value's answer found by its class:
    # context.type_answers); test (the test's closure) where it is not there.
    def run_type_test(f, out, answers=type_answers(func, negated), body=body, else_=else_, func=func, key=key,
            negated=negated, slot=slot, span=span, test=test):
        value = f[slot]
        if key is not None:
            value = value.get(key, MISSING) if type(value) is dict else MISSING
        if value is MISSING:
            chosen = test(f)
        elif (chosen := answers.get(type(value))) is None:
            try:
                chosen = not func(value) if negated else func(value)
            except Exception as exc:   # (a caller's object: `is escaped` asks for its __html__)
                raise located(exc, span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_type_test


def _elif_run(c, branches, else_, general):
    # run(f, out) of an if with elifs: by the subject's value (_one_subject) when every test is an == of one
    # subject with constants of one type (str or int), alone, first in an and (`m.role == 'assistant' and
    # m.tool_calls`) or in an or of them (`m.role == 'user' or m.role == 'system'`); equalities compared in line
    # (_equality_chain) when some tests are; by an indexed read's value (_item_subject: `messages[idx]['role']`);
    # general (if_runner's) otherwise.
    equalities = [equality_of(c, branch[0]) if branch[3] is None else None for branch in branches]
    # `m.role == 'assistant' and m.tool_calls`: the leading equality compared in line, the rest of the and after it
    rests = [_and_rest(c, branch) if equality is None else None for equality, branch in zip(equalities, branches)]
    equalities = [equality or (rest and rest[0]) for equality, rest in zip(equalities, rests)]
    entries = tuple((equality or (None, None, None, True)) + (type(equality[2]) if equality else None, test, span,
                                                              body.run, rest and rest[1])
                    for equality, rest, (_, test, span, _, body) in zip(equalities, rests, branches))
    # `m.role == 'user' or m.role == 'system'`: one branch for each of its constants, when the chain has one subject
    ors = [_or_constants(c, branch) if equality is None else None for equality, branch in zip(equalities, branches)]
    tests = [equality or (alternatives and alternatives[0]) for equality, alternatives in zip(equalities, ors)]
    if all(tests) and len({(slot, key, equal, type(constant)) for slot, key, constant, equal in tests}) == 1:
        slot, key, constant, equal = tests[0]
        if equal and type(constant) in (str, int):
            return _one_subject((slot, key, type(constant)), entries, ors, general, else_)
    return _equality_chain(entries, else_) if any(equalities) else _item_subject(c, branches, else_, general) or general


def _item_subject(c, branches, else_, general):
    # The run of an if whose every test (one, or the elifs') is an == of one indexed or two-step read with a constant,
    # the constants of one type, str or int (Smaug's `messages[idx]['role'] == 'user'`, `tool_call['function']['name']
    # == 'python'`): the read made once in line (context.path_reader: plain data), its value picking the branch as
    # _one_subject's does; anything else through general, the tests in turn. None for other chains.
    places, constants = set(), []
    for test, _, _, parts, _ in branches:
        if parts is not None or test.__class__ is not n.Compare or len(test.ops) != 1:
            return None
        (op, other), = test.ops
        if op != "==" or other.__class__ is not n.Const or type(other.value) not in (str, int) or \
                not cheap_constant(other.value):
            return None
        place = key_path(c, test.first, indexes=True)
        if place is None or len(place[1]) < 2 and not any(type(key) is int for key in place[1]):
            return None   # (a variable or one key of one: equality_of's)
        places.add(place)
        constants.append(other.value)
    read = path_reader(places.pop(), _unread) if len(places) == 1 and len(set(map(type, constants))) == 1 else _unread
    if read is _unread:
        return None
    # (built from the last branch back: the first branch of a constant is the one taken)
    bodies = dict(zip(reversed(constants), [branch[4].run for branch in reversed(branches)]))

    def run_item_subject(f, out, bodies=bodies, constant_type=type(constants[0]), else_=else_, general=general,
            read=read):
        value = read(f)   # (the body, else_ where no branch has the value, or general: each a run(f, out))
        run = bodies.get(value, else_) if type(value) is constant_type else general
        if run is not None:
            run(f, out)
    return run_item_subject


def _unread(f):   # _item_subject's read where the plain read fails: no value (general reads it)
    return MISSING


def _or_constants(c, branch):
    # (slot, key, the first constant, True) and the constants, in order, of a test `x == 'a' or x == 'b' ...`
    # whose operands are all equalities (equality_of) of one subject with constants of one type; else None.
    test, _, _, parts, _ = branch
    if parts is None or not isinstance(test, n.Or):
        return None
    equalities = [equality_of(c, operand) for operand, _, _ in parts]
    if not all(equalities) or len({(slot, key, equal, type(constant))
                                   for slot, key, constant, equal in equalities}) != 1 or not equalities[0][3]:
        return None
    return equalities[0], tuple(constant for _, _, constant, _ in equalities)


def _and_rest(c, branch):
    # (equality, truth of the other operands) of a test `a == 'x' and b ...` whose first operand is an equality
    # (equality_of), else None.
    test, _, _, parts, _ = branch
    if parts is None or not isinstance(test, n.And):
        return None
    equality = equality_of(c, parts[0][0])
    if equality is None:
        return None
    return equality, chain_truth(tuple(chain_operand(c, *part) for part in parts[1:]), False)


def _one_subject(subject, entries, ors, general, else_):
    # {% if m.role == 'system' %}...{% elif m.role == 'user' %}...{% else %}: every test an == of one subject
    # (equality_of) with a constant of one type, str or int, alone or first in an and. Nothing runs between the
    # tests and reading a variable of this frame or a plain dict's key runs nothing, so the subject read once is what
    # each test reads up to the first whose constant it equals: a value of the constants' type picks that branch by a
    # dict (== of two strs or two ints is the dict's key equality); any other value through general, the chain's
    # closures in turn. Where that test has more after its equality, its rest decides; when it fails (the rest may
    # have run a caller's code), the tests after it run as _equality_chain's, each reading the subject again. A test
    # that is an or of equalities of the subject (ors: _or_constants) is its branch for each of its constants.
    # subject: (slot, key, the constants' type); entries: _equality_chain's branches.
    slot, key, constant_type = subject
    bodies = {}
    for index, (_, _, constant, _, _, _, _, body, rest), alternatives in zip(range(len(entries)), entries, ors):
        for constant in (alternatives[1] if alternatives else (constant,)):
            if constant not in bodies:
                bodies[constant] = body if rest is None else _guarded(rest, body, entries[index + 1:], else_)

    def run_one_subject(f, out, bodies=bodies, constant_type=constant_type, else_=else_, general=general, key=key,
            slot=slot):
        value = f[slot]
        if key is not None:
            try:   # (a subject's key is there: a subscript, cheaper than `in` and a subscript; a missing one raises)
                value = value[key] if type(value) is dict else MISSING
            except KeyError:
                value = MISSING
        if type(value) is not constant_type:
            return general(f, out)
        body = bodies.get(value)
        if body is not None:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_one_subject


def _guarded(rest, body, later, else_):
    # _one_subject's branch whose equality holds and whose test goes on (`... and m.tool_calls`): body when the
    # rest holds, else the later branches in turn (_equality_chain), or else_.
    after = _equality_chain(later, else_) if later else else_

    def run_guarded(f, out, after=after, body=body, rest=rest):
        if rest(f):
            body(f, out)
        elif after is not None:
            after(f, out)
    return run_guarded


def _equality_chain(branches, else_):
    # {% if m.role == 'system' %}...{% elif m.role == 'user' %}...: an if with elifs some of whose tests are
    # equalities (equality_of): each of those read again and compared in line as _if_equal does, in turn; the
    # other tests through their closures; a test `a == 'x' and b` compares a in line and then takes the truth of the
    # rest (_and_rest). branches: ((slot or None, key, constant, equal, the constant's type, test, span, body run,
    # the rest's truth or None), ...).
    def run_equalities(f, out, branches=branches, else_=else_):
        for slot, key, constant, equal, constant_type, test, span, body, rest in branches:
            if slot is not None:
                value = f[slot]
                if key is not None:
                    value = value[key] if type(value) is dict and key in value else MISSING
                if type(value) is constant_type:
                    if (value == constant) is equal and (rest is None or rest(f)):
                        return body(f, out)
                    continue
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
            if chosen:
                return body(f, out)
        if else_ is not None:
            else_(f, out)
    return run_equalities


def _if_operand(slot, key, test, span, body, else_, attr):
    # {% if x %}, {% if m.content %}, {% if ns.found %}: the value's truth, read in line where it is a variable of
    # this frame or a key of one (context.operand) or an attribute attr a namespace holds (expressions._local_key's
    # read); test (its closure) otherwise. ({% if not x %}: body and else_ swapped, x's truth taken here.)
    plain_key = key not in DICT_NAMES   # (d['update'] of a dict without that key is the sandbox's method)

    def run_operand(f, out, attr=attr, body=body, else_=else_, key=key, plain_key=plain_key, slot=slot, span=span,
            test=test):
        value = f[slot]
        if key is not None:
            value = value.get(key, MISSING) if type(value) is dict else \
                value._attrs.get(attr, MISSING) if type(value) is ChatNamespace else MISSING
        if value is MISSING:
            if key is not None and plain_key and type(f[slot]) is dict and f[0].undefined in PLAIN_UNDEFINED:
                value = False   # the undefined a plain dict's missing key reads as (`m.tool_calls`): falsy
            else:
                value = test(f)
        try:
            chosen = True if value else False
        except Exception as exc:   # a truth test can fail (StrictUndefined)
            raise located(exc, span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_operand


def _printed_read(c, node, slot, key):
    # (before, after) of an if's body that prints nothing but constant strings and the test's read once, in a loop
    # body (which counts the output): `{% if m.content is string %}{{ '[INST]' + m.content + '[/INST]' }}`, `{% if
    # m.content %}{{ m.content }}`; else None.
    if not c.counted_by_loop or c.autoescape:
        return None
    pieces = [""]
    for statement in node.body:
        if type(statement) is n.Text:
            pieces[-1] += statement.value
            continue
        if type(statement) is not n.Output:
            return None
        for item in sum_items(statement.expr):
            if item.__class__ is n.Const and type(item.value) is str:
                pieces[-1] += item.value
            elif len(pieces) == 1 and in_line_place(c, item) == (slot, key):
                pieces.append("")
            else:
                return None
    return tuple(pieces) if len(pieces) == 2 and len(pieces[0]) + len(pieces[1]) < BIG_STR else None


def _if_type_print(slot, key, before, after, general):
    # _printed_read's if of a type test that a str passes: the read taken once for the test and the print (nothing
    # runs between Jinja2's two reads, and the test of a str runs nothing), a short plain str appended between the
    # constants as the print appends it; anything else through general (run_type_test), which reads again.
    def run_type_print(f, out, after=after, before=before, general=general, key=key, room=BIG_STR - len(before) -
            len(after), slot=slot):
        value = f[slot]
        if key is not None:
            value = value.get(key) if type(value) is dict else None
        if type(value) is str and len(value) < room:
            if before:
                out.append(before)
            out.append(value)
            if after:
                out.append(after)
        else:
            general(f, out)
    return run_type_print


def _if_echo(slot, key, before, after, else_, general):
    # An if of a key's truth whose body prints the key between constants (_printed_read: `{% if m.content %}`, then
    # `{{ m.content }}` or `{{ '>>>all\n' + m.content }}`): the key read once for the test and the print (nothing
    # runs between Jinja2's two reads), a short str of a plain dict appended, or (empty) the else run; anything else
    # through general (run_operand), which reads again (the read here ran nothing).
    def run_echo(f, out, after=after, before=before, else_=else_, general=general, key=key, room=BIG_STR - len(before) -
            len(after), slot=slot):
        value = f[slot]
        if type(value) is dict and type(value := value.get(key)) is str and len(value) < room:
            if value:
                if before:
                    out.append(before)
                out.append(value)
                if after:
                    out.append(after)
            elif else_ is not None:
                else_(f, out)
        else:
            general(f, out)
    return run_echo


def _run_nothing(f, out):
    pass



def _if_equal(slot, key, constant, equal, test, span, body, else_):
    # {% if m.role == 'user' %}: a value of the constant's own type read in line compared with Python's == (what
    # the comparison's closure does, whose truth cannot fail); anything else through test.
    constant_type = type(constant)

    def run_equal(f, out, body=body, constant=constant, constant_type=constant_type, else_=else_, equal=equal, key=key,
            slot=slot, span=span, test=test):
        value = f[slot]
        if key is not None:
            try:   # (as _one_subject reads it)
                value = value[key] if type(value) is dict else MISSING
            except KeyError:
                value = MISSING
        chosen = (value == constant) is equal if type(value) is constant_type else truth_at(test(f), span)
        if chosen:
            body(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_equal


def if_runner(tests, else_):
    # run(f, out) of an if statement: tests are (test closure, its span, body run) per branch; the first branch
    # whose test holds runs (its cost is in the weight of the statement list around the if:
    # symbols.Summaries.weight).
    if len(tests) == 1:
        (test, span, body), = tests

        def run(f, out, body=body, else_=else_, span=span, test=test):
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:   # a truth test can fail (StrictUndefined)
                raise located(exc, span)
            if chosen:
                body(f, out)
            elif else_ is not None:
                else_(f, out)
        return run

    if len(tests) == 2:
        return _two_branches(tests, else_)

    def run_chain(f, out, else_=else_, tests=tests):
        for test, span, body in tests:
            value = test(f)
            try:
                chosen = True if value else False
            except Exception as exc:
                raise located(exc, span)
            if chosen:
                body(f, out)
                return
        if else_ is not None:
            else_(f, out)
    return run_chain


def _two_branches(tests, else_):
    # if_runner's form for an if with one elif, written out.
    (test, span, body), (test2, span2, body2) = tests

    def run_two(f, out, body=body, body2=body2, else_=else_, span=span, span2=span2, test=test, test2=test2):
        value = test(f)
        try:
            chosen = True if value else False
        except Exception as exc:
            raise located(exc, span)
        if chosen:
            return body(f, out)
        value = test2(f)
        try:
            chosen = True if value else False
        except Exception as exc:
            raise located(exc, span2)
        if chosen:
            body2(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_two
