"""Lowering: a statement list's AST → the IR of kernels/select.py, each node holding the general closure the general
compilers made for it (output.py, statements.py, loops.py) → a closure chosen for each node (kernels/select.py) →
a Block."""

# This is the one place that knows what a plain read, an atom or a text looks like in the AST: it only describes
# (no closure is compiled here but by the general compilers), so a kernel chosen for a node holds the node's facts
# and its general closure, nothing compiled twice.

from ..builtins.strings import str_method
from .loops import loop_parts
from .output import print_run
from .context import DICT_NAMES, cheap_constant, dict_key, place
from .operators import sum_items
from .statements import if_parts
from ..kernels import select as A
from ..kernels.select import Atom, Block, Emit, If, Loop, Opaque, Read, Set, choose, text_of
from ..kernels.walks import spec
from ..runtime.printing import to_str
from ..syntax import nodes as n

__all__ = ["block", "read_of", "atom_of"]


def block(c, statements):
    # A statement list → its Block: consecutive text merged, runs of text and {{ }} lowered together (chat
    # templates are mostly long runs of them), each statement lowered, a closure chosen for each, run in turn
    # (_run_all). Running the statements costs the Block's weight (their own nodes, not the blocks nested in them,
    # which charge when they run); the caller charges it, where it already touches the budget.
    merged = []
    for node in statements:
        if type(node) is n.Text:
            if merged and type(merged[-1]) is n.Text:
                merged[-1] = n.Text(merged[-1].span, merged[-1].value + node.value)
            elif node.value:
                merged.append(node)
        else:
            merged.append(node)
    nodes = _lowered(c, merged)
    if c.general_only:
        runs = tuple(node.general for node in nodes)
    else:
        nodes, runs = _chosen(nodes)
    return Block(nodes, runs, c.summaries.weight(statements), _run_all(runs, nodes))


def _chosen(nodes):
    # (nodes, runs): the closure chosen for each node (select.choose); a loop followed by a short constant text a
    # loop counts (`{% endfor %}{{ '<|eom_id|>' }}`) is offered that text (Loop.after), and where a kernel takes the
    # loop, it appends the text itself: the text's node and run go (a call less each time the list runs).
    kept, runs, index = [], [], 0
    while index < len(nodes):
        node = nodes[index]
        index += 1
        if type(node) is Loop and index < len(nodes):
            node.after = text_of(nodes[index])
        run = choose(node)
        if type(node) is Loop and node.after is not None:
            if run is node.general:
                node.after = None
            else:
                index += 1
        kept.append(node)
        runs.append(run)
    return kept, tuple(runs)


def _lowered(c, nodes):
    # The statements lowered in turn: each statement, or a list of the text and {{ }} statements of a run. (One
    # loop, not a generator of items: what is lowered may set c.known_extends, which the next steps read.)
    lowered, pending = [], []
    for node in nodes:
        cls = type(node)
        if cls is n.Text or cls is n.Output:
            if c.known_extends and c.output_check:
                continue  # never runs: the template extends another (which fails: there is no loader)
            if not c.autoescape:
                pending.append(node)
                continue
        if pending:
            lowered.append(lower(c, pending))
            pending = []
        extended_before = c.known_extends
        lowered.append(lower(c, node))
        if extended_before and cls is n.Load and node.kind == "extends":
            return lowered  # extended twice: Jinja2 compiles nothing more of this statement list (but its blocks)
    if pending:
        lowered.append(lower(c, pending))
    return lowered


def _run_all(runs, nodes):
    # run(f, out) running runs in turn (the general form of a statement list); a statement between constant texts
    # a loop counts (`{{ '### Human: ' }}{% if ... %}...{% endif %}{{ '\n' }}`): the texts appended in line.
    if not runs:
        return _nothing
    if len(runs) == 1:
        return runs[0]
    if len(runs) <= 3 and type(nodes[0]) is Set:
        return _set_first(nodes[0].in_line, runs)
    if len(runs) <= 3 and (text_of(nodes[0]) is not None or text_of(nodes[-1]) is not None):
        framed = _framed(text_of(nodes[0]), runs, text_of(nodes[-1]))
        if framed is not None:
            return framed
    if len(runs) == 2:
        a, b = runs

        def run_two(f, out, a=a, b=b):
            a(f, out)
            b(f, out)
        return run_two
    if len(runs) == 3:
        a, b, c = runs

        def run_three(f, out, a=a, b=b, c=c):
            a(f, out)
            b(f, out)
            c(f, out)
        return run_three

    def run_all(f, out, runs=runs):
        for run in runs:
            run(f, out)
    return run_all


def _framed(before, runs, after):
    # _run_all's form for text then a statement, a statement then text, and a statement between texts (None: no
    # text there).
    if len(runs) != (before is not None) + 1 + (after is not None):
        return None
    run = runs[1] if before is not None else runs[0]

    def run_framed(f, out, before=before, run=run, after=after):
        if before is not None:
            out.append(before)
        run(f, out)
        if after is not None:
            out.append(after)
    return run_framed


def _set_first(first, runs):
    # _run_all's form for two or three statements, the first setting a variable to a plain dict's key (first:
    # Set.in_line; through a str method, its kernel a) done here as the walks do it (walks.py), the others called.
    (target, source, key, method), (a, b, c) = first, runs + (None,) * (3 - len(runs))

    def run_set_first(f, out, target=target, source=source, key=key, plain=method is None, a=a, b=b, c=c):
        if plain and type(value := f[source]) is dict and key in value:
            f[target] = value[key]
        else:
            a(f, out)
        b(f, out)
        if c is not None:
            c(f, out)
    return run_set_first


def _nothing(f, out):
    """The run of an empty statement list."""


def lower(c, item):
    # One statement (or a run of text and {{ }}: a list) → its IR node (its spans replaced by their packed
    # location as it compiles: context.place).
    if type(item) is list:
        for node in item:
            node.span = place(node.span)
        return Emit(_print_parts(item), not c.counted_by_loop, print_run(c, item))
    if type(item) is not n.Load:   # (a load tag reads the source around its Span)
        item.span = place(item.span)
    if type(item) is n.If:
        return _lower_if(c, item)
    if type(item) is n.For:
        plan, body, over, iterable, walkable, run = loop_parts(c, item)   # (then the iterable's variable is found)
        return Loop(plan, body, over, iterable, walkable, run, walkable and read_of(c, item.iter) or None)
    read = read_of(c, item.value) if type(item) is n.Assign and type(item.target) is n.NameTarget else None
    slot, key, method, _ = spec(read, True) if read is not None else (None,) * 4   # (a key of a variable)
    return Opaque(c.stmt(item)) if key is None else Set((c.scope.refs[item.target.name], slot, key, method),
                                                         c.stmt(item))


# ----------------------------------------------------------------------------------------------------- reads
def read_of(c, node):
    # The Read a value node is, or None: a variable of this frame, a chain of constant keys from one (dict_key:
    # what the general lookup finds in a plain dict), maybe through a filter that is a str method (|trim). (Not an
    # index read, `messages[i]['role']`: the general closures read those in line, for less than a kernel's reader.)
    method = None
    if type(node) is n.Filter and node.args.empty and node.value is not None:
        method = str_method(c.filters.get(node.name))
        if method is None:
            return None
        node = node.value
    keys = []
    while type(node) is n.Getattr or type(node) is n.Getitem:
        key = dict_key(node)
        if key is None or key in DICT_NAMES:   # (d['items'] of a dict without that key: the method)
            return None
        keys.append(key)
        node = node.obj
    if type(node) is not n.Name:
        return None
    depth, slot, kind = c.variable(node.name)
    if depth != 0:
        return None
    return Read(slot, tuple(reversed(keys)), method)


def _text_parts(expr):
    # The texts {{ expr }} prints when it is constant, or None: a constant (its printed text), a + chain of str
    # constants or a ~ chain of constants.
    if type(expr) is n.Const:
        return (expr.value if type(expr.value) is str else to_str(expr.value),)
    if type(expr) is n.BinOp and expr.op == "+":
        operands, stringify = sum_items(expr), False
    elif type(expr) is n.Concat:
        operands, stringify = expr.items, True   # `~` prints each operand
    else:
        return None
    parts = []
    for operand in operands:
        if type(operand) is not n.Const or type(operand.value) is not str and not stringify:
            return None
        parts.append(operand.value if type(operand.value) is str else to_str(operand.value))
    return tuple(parts)


def _print_parts(nodes):
    # The texts a run of text and {{ }} prints when every part is constant (Emit.parts), or None.
    parts = []
    for node in nodes:
        found = (node.value,) if type(node) is n.Text else _text_parts(node.expr)
        if found is None:
            return None
        parts.extend(found)
    return tuple(parts)


# ------------------------------------------------------------------------------------------------------ atoms
def atom_of(c, test):
    # The Atom of `read == c` or `read != c` (under any number of `not`s), what a walk decides in line (walks.py),
    # or None.
    if type(test) is n.Not:
        inner = atom_of(c, test.operand)
        return None if inner is None else Atom(inner.read, A.NEGATION[inner.kind], inner.constant)
    if type(test) is not n.Compare or len(test.ops) != 1:
        return None
    (name, other), first = test.ops[0], test.first
    if name not in ("==", "!=") or type(other) is not n.Const or type(other.value) not in (str, int, bool) or \
            not cheap_constant(other.value):
        return None
    read = read_of(c, first)
    return None if read is None else Atom(read, A.EQ if name == "==" else A.NE, other.value)


def _lower_if(c, node):
    # (an and/or test is no atom: its closure decides it)
    branches, else_, general = if_parts(c, node)
    tests, bodies = [], []
    for test, _, _, parts, body in branches:   # (a loop, not comprehensions: a first compile pays for each)
        tests.append(atom_of(c, test) if parts is None else None)
        bodies.append(body)
    return If(tests, bodies, else_, general)
