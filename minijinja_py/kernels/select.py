"""Kernel selection: an IR node (ir.py) → the closure that runs it. One registry, REGISTRY, from (IR class,
signature) to a kernel factory; a factory takes the node and returns a closure whose fallback is node.general (it
may decline: None). A node with no entry for its signature, or whose entry is turned off, runs node.general."""

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

__all__ = ["kernel", "choose", "configure", "general_only", "recording", "REGISTRY",
           "GENERAL_ONLY_VARIABLE"]

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
    # and takes it), or node.general.
    signature = node.signature
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


class recording:
    # `with recording() as chosen:` — chosen collects the names of the entries compiles choose.

    def __enter__(self):
        self.saved, _settings.chosen = _settings.chosen, set()
        return _settings.chosen

    def __exit__(self, *exc_info):
        _settings.chosen = self.saved
