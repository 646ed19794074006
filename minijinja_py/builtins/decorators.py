"""Jinja2's decorators for filters, tests and global functions that want more than their arguments —
pass_environment, pass_eval_context, pass_context — and select_autoescape, made on state.pass_state: the function
is handed what it asks for, built from the render state."""

# pass_context gives a Context that reads the render's variables and the globals (Jinja2's also has the
# template's top-level variables assigned so far).

from _collections_abc import Iterable   # collections.abc itself, without the module that re-exports it
from operator import attrgetter

from ..core.state import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Callable, Optional
    from ..core.state import Func

__all__ = ["pass_environment", "pass_eval_context", "pass_context", "EvalContext", "Context", "select_autoescape",
           "AutoescapeByExtension", "Passing"]


class Passing:
    # A function marked pass_environment/pass_eval_context/pass_context: called with the render state first
    # (state.pass_state), it calls the function with what that asks for built from the state. Defined in a class
    # (a callable class's __call__, as Jinja2 allows) it binds to the instance as a method does, the state still
    # first.

    mj_pass_state = True
    mj_safe_repr = True   # prints as a function does, without an address

    def __init__(self, func: "Callable[..., Any]", make: "Callable[[Any], Any]", instance: "Any" = None) -> None:
        self.func, self.make, self.instance = func, make, instance
        self.__name__ = getattr(func, "__name__", "function")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    def __call__(self, rs: "Any", *args: "Any", **kwargs: "Any") -> "Any":
        if self.instance is None:
            return self.func(self.make(rs), *args, **kwargs)
        return self.func(self.instance, self.make(rs), *args, **kwargs)

    def __get__(self, instance: "Any", owner: "Any" = None) -> "Passing":
        return self if instance is None else Passing(self.func, self.make, instance)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__}>"


def _passing(func: "Func", make: "Callable[[Any], Any]") -> "Func":
    # called as the function was, with the state first (state.pass_state)
    return Passing(func, make)  # type: ignore[return-value]


def pass_environment(func: "Func") -> "Func":
    """func(environment, value, ...): the Environment of the render."""
    return _passing(func, attrgetter("env"))


class EvalContext:
    # What pass_eval_context hands over: the environment and whether output is autoescaped.

    __slots__ = ("environment", "autoescape", "volatile")

    def __init__(self, environment, autoescape):
        self.environment, self.autoescape, self.volatile = environment, autoescape, False


def pass_eval_context(func: "Func") -> "Func":
    """func(eval_ctx, value, ...): eval_ctx.autoescape and eval_ctx.environment."""
    return _passing(func, lambda rs: EvalContext(rs.env, rs.autoescape))


class Context:
    # What pass_context hands over: the render's variables and the globals, read-only.

    __slots__ = ("environment", "eval_ctx", "parent", "vars")

    def __init__(self, rs):
        self.environment = rs.env
        self.eval_ctx = EvalContext(rs.env, rs.autoescape)
        self.parent = {**rs.globals, **rs.context}
        self.vars = {}

    def resolve_or_missing(self, key):
        return self.parent.get(key, MISSING)

    def resolve(self, key):
        value = self.parent.get(key, MISSING)
        return self.environment.undefined(name=key) if value is MISSING else value

    def get(self, key, default=None):
        return self.parent.get(key, default)

    def get_all(self):
        return dict(self.parent)

    def __contains__(self, key):
        return key in self.parent

    def __getitem__(self, key):
        value = self.parent.get(key, MISSING)
        if value is MISSING:
            raise KeyError(key)
        return value


def pass_context(func: "Func") -> "Func":
    """func(context, value, ...): context.get(name), context.environment, context.eval_ctx."""
    return _passing(func, Context)


def select_autoescape(enabled_extensions: "Iterable[str]" = ("html", "htm", "xml"),
                      disabled_extensions: "Iterable[str]" = (), default_for_string: bool = True,
                      default: bool = False) -> "AutoescapeByExtension":
    """An autoescape function for Environment(autoescape=...) that decides by the template name's extension."""
    return AutoescapeByExtension(tuple(f".{x.lstrip('.').lower()}" for x in enabled_extensions),
                                 tuple(f".{x.lstrip('.').lower()}" for x in disabled_extensions),
                                 default_for_string, default)


class AutoescapeByExtension:
    # What select_autoescape returns: a class rather than a closure, so that an environment holding it pickles.

    __slots__ = ("enabled", "disabled", "default_for_string", "default")

    def __init__(self, enabled: "tuple[str, ...]", disabled: "tuple[str, ...]", default_for_string: bool,
                 default: bool) -> None:
        self.enabled, self.disabled = enabled, disabled
        self.default_for_string, self.default = default_for_string, default

    def __call__(self, template_name: "Optional[str]") -> bool:
        if template_name is None:
            return self.default_for_string
        template_name = template_name.lower()
        if template_name.endswith(self.enabled):
            return True
        if template_name.endswith(self.disabled):
            return False
        return self.default

    def _key(self):
        return (self.enabled, self.disabled, self.default_for_string, self.default)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is AutoescapeByExtension else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        return (AutoescapeByExtension, self._key())

    def __repr__(self):
        return f"<select_autoescape enabled={self.enabled!r} disabled={self.disabled!r}>"
