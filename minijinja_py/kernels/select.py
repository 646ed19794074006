"""The kernels' IR and their selection. The IR: what a compile knows about a statement list, for choosing kernels —
AST + general closures (compile/lower.py) → these nodes → choose() → closures; nothing here is kept by a compiled
template: the nodes live while their statement list compiles. Selection: an IR node → the closure that runs it. One
registry, REGISTRY, from (IR class, signature) to a kernel factory; a factory takes the node and returns a closure
whose fallback is node.general (it may decline: None). A node with no entry for its signature, or whose entry is
turned off, runs node.general."""

# Entries register where their kernels are written (walks.py) with @kernel, when
# the package imports them (kernels/__init__.py). Each entry is justified by benchmarks/kernels_table.py: how many
# corpus templates choose it, what the whole warm benchmark loses without it.
#
# `general_only` turns every entry off, so a template runs its general closures alone: set
# MINIJINJA_PY_GENERAL_ONLY=1 in the environment (read once, at import), or call configure(general_only=True)
# before compiling (templates compiled earlier keep what they chose; an Environment caches what it compiled, so
# use a new one). `disabled` turns named entries off (kernels_table.py). CI runs the case suite and the chat
# goldens with general_only.

import os
from types import SimpleNamespace

from ..core.state import BIG_STR

__all__ = ["kernel", "choose", "configure", "general_only", "recording", "REGISTRY", "GENERAL_ONLY_VARIABLE",
           "Read", "Atom", "EQ", "NE", "NEGATION", "Emit", "If", "Loop", "Set", "Opaque", "Block", "text_of"]

GENERAL_ONLY_VARIABLE = "MINIJINJA_PY_GENERAL_ONLY"
REGISTRY = {}   # (IR class, signature) → an entry: its name and factory (.name, .factory)


# what later compiles may choose: general_only, disabled (names turned off), chosen (a set collecting the names of
# the entries chosen: recording())
_settings = SimpleNamespace(general_only=os.environ.get(GENERAL_ONLY_VARIABLE, "") not in ("", "0"),
                            disabled=frozenset(), chosen=None)


def kernel(ir_class, signature):
    # Register the decorated factory for (ir_class, signature), under the name `module/function`.
    def register(factory, ir_class=ir_class, signature=signature):
        name = f"{factory.__module__.rsplit('.', 1)[-1]}/{factory.__name__}"
        REGISTRY[(ir_class, signature)] = SimpleNamespace(name=name, factory=factory)
        return factory
    return register


def choose(node):
    # The closure that runs node: the kernel of its signature (of the first of its signatures whose entry is on
    # and takes it), or node.general (a signature None names no fact: no kernel is looked for).
    signature = node.signature
    if signature is None:
        return node.general
    for signature in signature if type(signature) is tuple else (signature,):
        entry = REGISTRY.get((type(node), signature))
        if entry is None or entry.name in _settings.disabled:
            continue
        run = entry.factory(node)
        if run is not None:
            if _settings.chosen is not None:
                _settings.chosen.add(entry.name)
            return run
    return node.general


def general_only():
    # Does a compile starting now use the general closures only?
    return _settings.general_only


def configure(general_only=None, disabled=None):
    # Set what later compiles may choose: general_only (bool), disabled (names of registry entries a compile must
    # not use). Returns the previous (general_only, disabled), for a caller to restore.
    previous = (_settings.general_only, _settings.disabled)
    if general_only is not None:
        _settings.general_only = bool(general_only)
    if disabled is not None:
        _settings.disabled = frozenset(disabled)
    return previous


_RECORDING = []   # [the class recording makes], once made


def recording():
    # `with recording() as chosen:` — chosen collects the names of the entries compiles choose. (Its class is made
    # on first use: only the kernels' tests and table record, and a class costs a cold start ~0.07 M instructions.)
    if not _RECORDING:
        class Recording:
            def __enter__(self):
                self.saved, _settings.chosen = _settings.chosen, set()
                return _settings.chosen

            def __exit__(self, *exc_info):
                _settings.chosen = self.saved
        _RECORDING.append(Recording)   # (threads racing here append equal classes: each uses the first)
    return _RECORDING[0]()


# ----------------------------------------------------------------------------------------------------- the IR
# Every statement node holds `general`, its general closure run(f, out): what the kernel chosen for it runs whenever
# its data is not plain (walks.py), and what runs when no kernel is chosen. A node's `signature` names the facts a
# kernel is chosen by (choose, above): a name, or names from the most special to the least, the first whose kernel is
# there and takes the node; a kernel never sees template text.
#
# Values a kernel reads in line:
#   Read(slot, keys, method)  a variable of this frame (slot), through a chain of constant str keys (`m.role`,
#                             `tool.function.name`), then maybe a str method (`|trim`: str.strip)
#   Atom(read, kind, constant)  a test on one read decided in line (kind: EQ or NE below)


class Read:
    __slots__ = ("slot", "keys", "method")

    def __init__(self, slot, keys=(), method=None):
        self.slot, self.keys, self.method = slot, keys, method

    def __eq__(self, other):
        return type(other) is Read and (self.slot, self.keys, self.method) == (other.slot, other.keys, other.method)

    def __hash__(self):
        return hash((self.slot, self.keys))


# The kinds of test on one read lowering describes (compile/lower.py) — `== c` and `!= c`, what a walk decides in
# line. Only a walk over items reads them (walks.py: one `{% if item.key == c %}` first in its body); the other kinds
# and the deciders that ran them in line went with the switch rule and the if kernels (issue 22's rule 5: the
# general closures of conditionals.py cost no more).
EQ, NE = range(2)
NEGATION = {EQ: NE, NE: EQ}   # (`not x == c` is `x != c`)


class Atom:
    __slots__ = ("read", "kind", "constant")

    def __init__(self, read, kind, constant=None):
        self.read, self.kind, self.constant = read, kind, constant


# ------------------------------------------------------------------------------------------------- statements
class Emit:
    # A run of text and {{ }}: parts (the str constants it prints, in order; None when a value is not constant),
    # counted (the run counts its output; False in a loop body, whose loop counts it).
    __slots__ = ("parts", "counted", "general")

    def __init__(self, parts, counted, general):
        self.parts, self.counted, self.general = parts, counted, general

    @property
    def signature(self):
        parts = self.parts
        if parts is None:
            return None
        for part in parts:   # (a loop, not all() over a generator: asked of every run of text and {{ }})
            if type(part) is not str:
                return None
        return "text"


class If:
    # {% if %}/{% elif %}/{% else %}: tests (per branch: an Atom, or None for a test that is none), bodies (per
    # branch, a Block), else_ (a Block or None).
    __slots__ = ("tests", "bodies", "else_", "general")
    signature = None   # (no kernel of its own: what a walk reads, walks._item_table)

    def __init__(self, tests, bodies, else_, general):
        self.tests, self.bodies, self.else_, self.general = tuple(tests), tuple(bodies), else_, general


class Loop:
    # {% for %}: plan (loops.py: the target, the body's scope, its cost), body (a Block), over(f, out, iterable) the
    # general loop over an iterable already evaluated, iterable(f) the loop's iterable, walkable (a plain loop: one
    # target name, no filter, else or recursion, a body that starts no variables of its own and cannot change the
    # data it walks), source (the Read the iterable is, or None), after (the short constant text that follows the
    # loop in its statement list, for a kernel to append after the loop: lower.block; None where there is none).
    __slots__ = ("plan", "body", "over", "iterable", "walkable", "general", "source", "after")

    def __init__(self, plan, body, over, iterable, walkable, general, source=None):
        self.plan, self.body, self.over, self.iterable = plan, body, over, iterable
        self.walkable, self.general, self.source, self.after = walkable, general, source, None

    @property
    def signature(self):
        return "walk" if self.walkable else None


class Opaque:
    # Any other statement: its general closure is what runs.
    __slots__ = ("general",)
    signature = None

    def __init__(self, general):
        self.general = general


class Set(Opaque):
    # {% set name = a key of a variable %}, maybe through a str method (`{% set role = m['role']|lower %}`): what a
    # kernel may do in line: in_line (the variable's slot, the source's, the key, the str method or None).
    __slots__ = ("in_line",)

    def __init__(self, in_line, general):
        self.in_line, self.general = in_line, general


class Block:
    # A compiled statement list: nodes (the IR of its statements), runs (the closure
    # chosen for each), weight (the steps it costs: symbols.Summaries.weight), run (a run(f, out) calling the runs
    # in turn).
    __slots__ = ("nodes", "runs", "weight", "run")

    def __init__(self, nodes, runs, weight, run):
        self.nodes, self.runs, self.weight, self.run = tuple(nodes), tuple(runs), weight, run

    @property
    def text(self):
        # The text the list prints when it is nothing but a short constant text a loop counts (one uncounted
        # Emit of text: an if's general closure appends it in line: conditionals.py), else None.
        return text_of(self.nodes[0]) if len(self.nodes) == 1 else None


def text_of(node):
    # The text an uncounted Emit of constants only prints (short: a kernel may append it in line), else None.
    if type(node) is Emit and node.signature == "text" and not node.counted:
        text = "".join(node.parts)
        return text if len(text) < BIG_STR else None
    return None
