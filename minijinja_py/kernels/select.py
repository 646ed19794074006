"""Kernel selection: which fast paths a compile may choose.

`general_only` turns every fast path off, so a template runs its general closures alone (the path every kernel
falls back to): set MINIJINJA_PY_GENERAL_ONLY=1 in the environment (read once, at import), or call
configure(general_only=True) before compiling (templates compiled earlier keep what they chose; an
Environment caches what it compiled, so use a new one). CI runs the case suite and the chat goldens this way.
"""

import os

__all__ = ["configure", "general_only", "GENERAL_ONLY_VARIABLE"]

GENERAL_ONLY_VARIABLE = "MINIJINJA_PY_GENERAL_ONLY"


class _Settings:
    __slots__ = ("general_only", "disabled")

    def __init__(self):
        self.general_only = os.environ.get(GENERAL_ONLY_VARIABLE, "") not in ("", "0")
        self.disabled = frozenset()


_settings = _Settings()


def general_only():
    """Does a compile starting now use the general closures only?"""
    return _settings.general_only


def configure(general_only=None, disabled=None):
    """Set what later compiles may choose: general_only (bool), disabled (names of registry entries a compile must
    not choose). Returns the previous (general_only, disabled), for a caller that puts them back."""
    previous = (_settings.general_only, _settings.disabled)
    if general_only is not None:
        _settings.general_only = bool(general_only)
    if disabled is not None:
        _settings.disabled = frozenset(disabled)
    return previous
