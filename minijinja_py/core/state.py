"""Base: the resource limits, the checks that enforce them, and the state one render carries; and Jinja2's
decorators for what a filter, test or global wants of it (pass_environment, pass_eval_context, pass_context),
with select_autoescape."""

# Every layer above needs these and none of them needs anything above `errors`: the limits (Limits), the error for
# breaking one (limit_exceeded), the size checks made *before* an allocation (check_str_size, check_items),
# and RenderState — the step budget ("fuel"), the output counter, the call depth — which the
# compiled closures, the sandbox, the filters and printing all charge. The render under way is also reachable
# without being passed around (current_state), for the few places Python calls back into us (str.format fields,
# __str__ of our objects).

import gc
from _collections_abc import Iterable   # collections.abc itself, without the module that re-exports it
from _contextvars import ContextVar   # contextvars.ContextVar itself, without the contextvars.py shim
from operator import attrgetter

from .errors import LimitExceeded, limit_twin

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Callable, Optional, TypeVar
    Func = TypeVar("Func", bound=Callable[..., Any])   # a decorated function keeps its type

__all__ = [
    "MISSING", "CHAR_SHIFT", "BIG_STR", "LIMIT_NAMES", "Limits", "DEFAULT_LIMITS", "limit_exceeded", "check_str_size", "check_items",
    "RenderState", "current_state", "enter_render", "leave_render", "pass_state", "gc_paused",
    "pass_environment", "pass_eval_context", "pass_context", "eval_context_of", "context_of", "select_autoescape",
    "Passing",
]


class _Missing:
    # The absence of a value (a key not found, a slot not assigned yet): distinct from None, which is data.
    __slots__ = ()

    def __repr__(self):
        return "missing"

    def __reduce__(self):
        return "MISSING"


MISSING = _Missing()

CHAR_SHIFT = 4         # the step budget charges 1 step per 2**4 characters read or built
BIG_STR = 1 << 10      # shorter strings are not worth a charge where they are only read or compared


# ---------------------------------------------------------------------------------------------------- limits
_LIMIT_DEFAULTS = (
    ("max_template_size", 262_144),   # characters of template source
    ("max_nesting", 100),             # nested blocks / brackets / expression depth in the source
    ("max_call_depth", 100),          # macro calls and recursive loop() calls in progress
    ("max_range", 100_000),           # items of one range(), as Jinja2's sandbox
    ("max_steps", 5_000_000),         # the work of one render: see budget.py for the price list
    ("max_output", 50_000_000),       # characters of rendered output (incl. captured blocks)
    ("max_string", 10_000_000),       # characters of one string built by * ~ + join format center ...
    ("max_items", 1_000_000),         # items of one list/tuple built by * + batch list ...
    ("max_int_bits", 100_000),        # bits of one integer built by ** * +
    ("max_data_depth", 200),          # nesting depth of data printed, serialised, compared or passed in
    ("steps_per_message", 2_000),     # more steps for a chat render, per message, tool and document it is given
    ("steps_per_character", 40),      # and per character of its messages' strings (up to max_output of them)
)
_LIMIT_NAMES = LIMIT_NAMES = tuple(name for name, _ in _LIMIT_DEFAULTS)
_limit_values = attrgetter(*_LIMIT_NAMES)   # a Limits' values, in that order


class Limits:
    """Resource limits of one template and its renders. The defaults let every template of the real-world corpus
    render untouched (with room for conversations far longer than the corpus's); each limit is checked before
    the work or allocation it bounds, and breaking one raises LimitExceeded naming it.

    Immutable and hashable; change them with Limits(max_steps=...) or Limits().replace(...), passed as
    Environment(limits=...), chat_environment(limits=...) or ChatTemplate(source, limits=...).

    A chat render (ChatTemplate.render, apply_chat_template) starts with max_steps plus steps_per_message for
    each message, tool and document it is given, plus steps_per_character for each character of the strings in
    its messages (counted up to max_output characters, only by a render that runs out of the rest: it is then
    rendered again with the whole budget): a long conversation, or one of long messages, gets the budget its size
    needs, a template cannot give itself more.
    40 a character is what walking a text twice item by item costs (map/select by name over a string, about 18
    steps a character, as templates that list a message's images, then its texts, do); the budget stays linear
    in the input's size. steps_per_message=0 and steps_per_character=0 make max_steps a fixed cap.
    """

    __slots__ = _LIMIT_NAMES + ("_hash",)   # (the hash taken once: each compile's cache key holds the limits)

    max_template_size: int
    max_nesting: int
    max_call_depth: int
    max_range: int
    max_steps: int
    max_output: int
    max_string: int
    max_items: int
    max_int_bits: int
    max_data_depth: int
    steps_per_message: int
    steps_per_character: int

    def __init__(self, max_template_size: int = 262_144, max_nesting: int = 100, max_call_depth: int = 100,
                 max_range: int = 100_000, max_steps: int = 5_000_000, max_output: int = 50_000_000,
                 max_string: int = 10_000_000, max_items: int = 1_000_000, max_int_bits: int = 100_000,
                 max_data_depth: int = 200, steps_per_message: int = 2_000, steps_per_character: int = 40) -> None:
        """Raises TypeError for a value that is not an int, ValueError for a negative one."""
        values = (max_template_size, max_nesting, max_call_depth, max_range, max_steps, max_output, max_string,
                  max_items, max_int_bits, max_data_depth, steps_per_message, steps_per_character)
        for name, value in zip(_LIMIT_NAMES, values):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"Limits.{name} must be an int, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"Limits.{name} must be >= 0, not {value}")
            object.__setattr__(self, name, int(value))
        object.__setattr__(self, "_hash", hash(self._key()))

    def __setattr__(self, name, value):
        raise AttributeError(f"Limits is immutable: use Limits().replace({name}=...)")

    __delattr__ = __setattr__

    def as_dict(self) -> "dict[str, int]":
        """{limit name: value}, in declaration order."""
        return dict(zip(_LIMIT_NAMES, _limit_values(self)))

    def replace(self, **changes: int) -> "Limits":
        """A copy with some limits changed: Limits().replace(max_steps=100_000). Raises TypeError for an unknown
        limit name."""
        unknown = set(changes) - set(_LIMIT_NAMES)
        if unknown:
            raise TypeError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        return Limits(**{**self.as_dict(), **changes})

    def _key(self):
        return _limit_values(self)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is Limits else NotImplemented

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return "Limits(" + ", ".join(map("{}={}".format, _LIMIT_NAMES, _limit_values(self))) + ")"

    def __reduce__(self):
        return (Limits, self._key())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


DEFAULT_LIMITS = Limits()   # what an environment given no limits has (immutable: one serves them all)


def limit_exceeded(limits, name, what, also=None):
    # The LimitExceeded for breaking limits.<name> with `what`; `also` a built-in exception class it should
    # also be (OverflowError for range(), as Jinja2 raises).
    value = getattr(limits, name)
    cls = LimitExceeded if also is None else limit_twin(also)
    return cls(f"{what} exceeds the limit {name}={value}", limit=name, value=value)


def check_str_size(limits: "Limits", size: int, what: str = "a string") -> None:
    # Refuse a string of `size` characters before it is built.
    if size > limits.max_string:
        raise limit_exceeded(limits, "max_string", f"{what} of {size} characters")


def check_items(limits: "Limits", count: int, what: str = "a list") -> None:
    # Refuse a list or tuple of `count` items before it is built.
    if count > limits.max_items:
        raise limit_exceeded(limits, "max_items", f"{what} of {count} items")


# ------------------------------------------------------------------------------------------- render state
class RenderState:
    # What one render carries besides its variables: the environment and its limits, the step budget, the
    # output written so far, the call depth, and the render's own objects (its variables, random generator).

    __slots__ = ("env", "limits", "globals", "undefined", "fuel", "output_size", "big_pending", "depth",
                 "autoescape", "generation_spans", "generation_output", "random", "context", "frame_starts",
                 "joins_loop_output")

    def __init__(self, env, globals_, context, autoescape, fuel=None):
        self.env = env
        self.limits = limits = env.limits
        self.globals = globals_
        self.context = context          # the variables passed to render
        self.undefined = env.undefined
        self.fuel = limits.max_steps if fuel is None else fuel
        self.output_size = 0
        self.big_pending = 0            # long pieces a loop appended that it has not counted yet (note_output)
        self.depth = 0                  # macro / caller / recursive loop calls in progress
        self.autoescape = autoescape
        self.generation_spans = None    # a list when the caller asked for {% generation %} spans
        self.generation_output = None   # then the render's own output list (what transformers counts a span from)
        self.random = None              # |random's generator, made on first use
        self.frame_starts = None        # {FrameLayout: its start values, the free names resolved}, made on first use
        # a loop's pieces may be joined into one when it counts them (objects.count_output): the render's text is
        # the same; false for a render handed out piece by piece (Template.generate: Jinja2's pieces), so that a
        # loop's pieces stay apart (a flag, not a subclass: a class is ~70k instructions of a cold start)
        self.joins_loop_output = True

    def burn(self, steps=1):
        # Spend steps of fuel; running dry raises LimitExceeded naming max_steps (see budget.py).
        self.fuel -= steps
        if self.fuel < 0:
            raise out_of_fuel(self.limits)

    def grow_output(self, size):
        # Count `size` more characters of output against max_output.
        self.output_size += size
        if self.output_size > self.limits.max_output:
            raise limit_exceeded(self.limits, "max_output", "the rendered output")

    def note_output(self, size):
        # A loop counts its output when it ends; a piece of BIG_STR characters or more, appended before that, is
        # noted here so that output past max_output stops the loop at once (not after the loop made all of it).
        self.big_pending += size
        if self.output_size + self.big_pending > self.limits.max_output:
            raise limit_exceeded(self.limits, "max_output", "the rendered output")

    def __repr__(self):  # never shown to templates (the sandbox hides the engine's objects); for debugging
        return "<RenderState>"


def out_of_fuel(limits):
    return limit_exceeded(limits, "max_steps", "the work of this render (loop iterations, calls, data processed)")


# The render under way in this thread/task: Python calls back into us from places that cannot be handed the render
# state (str.format fields, __str__ of our objects), and printing finds its limits and fuel here.
_current_state: "ContextVar[RenderState | None]" = ContextVar("minijinja_py_render_state", default=None)
current_state = _current_state.get


# enter_render(rs) makes rs the render in progress and returns the token that leave_render(token) takes (the
# context variable's own methods: each render calls both)
enter_render = _current_state.set
leave_render = _current_state.reset


def pass_state(func: "Func") -> "Func":
    """Mark a filter, test or global function that needs the render state (environment, limits, undefined) as
    its first argument."""
    func.mj_pass_state = True
    return func


class gc_paused:
    # `with gc_paused():` — no cyclic garbage collection inside (parsing and compiling make hundreds of thousands
    # of objects and no garbage cycles: the collector's passes over them were a third of the time). Restored only
    # by the one that paused it: nested or concurrent uses leave it as the caller had it.

    __slots__ = ("paused",)

    def __enter__(self):
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def __exit__(self, *exc_info):
        if self.paused:
            gc.enable()


# ------------------------------------------------------------------------------------------ pass_* decorators
# Jinja2's decorators for filters, tests and global functions that want more than their arguments —
# pass_environment, pass_eval_context, pass_context — and select_autoescape, made on pass_state: the function is
# handed what it asks for, built from the render state.
#
# pass_context gives a Context that reads the render's variables and the globals (Jinja2's also has the
# template's top-level variables assigned so far).


class Passing:
    # A function marked pass_environment/pass_eval_context/pass_context: called with the render state first
    # (pass_state), it calls the function with what that asks for built from the state. Defined in a class
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
    # called as the function was, with the state first (pass_state)
    return Passing(func, make)  # type: ignore[return-value]


def pass_environment(func: "Func") -> "Func":
    """func(environment, value, ...): the Environment of the render."""
    return _passing(func, attrgetter("env"))


def pass_eval_context(func: "Func") -> "Func":
    """func(eval_ctx, value, ...): eval_ctx.autoescape and eval_ctx.environment."""
    return _passing(func, eval_context_of)


def pass_context(func: "Func") -> "Func":
    """func(context, value, ...): context.get(name), context.environment, context.eval_ctx."""
    return _passing(func, context_of)


def eval_context_of(rs):
    # What pass_eval_context hands over: the environment and whether output is autoescaped.
    return _passed_classes()[0](rs.env, rs.autoescape)


def context_of(rs):
    # What pass_context hands over: the render's variables and the globals, read-only.
    return _passed_classes()[1](rs)


_PASSED = []   # [EvalContext, Context]: the classes _passed_classes makes, once made


def _passed_classes():
    # Made by the first function marked pass_eval_context or pass_context that is called: few templates call one,
    # and a class costs a cold start ~0.08 M instructions.
    if not _PASSED:
        class EvalContext:
            __slots__ = ("environment", "autoescape", "volatile")

            def __init__(self, environment, autoescape):
                self.environment, self.autoescape, self.volatile = environment, autoescape, False

        class Context:
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
        if not _PASSED:   # (threads racing here: each uses the first pair)
            _PASSED.extend((EvalContext, Context))
    return _PASSED


def select_autoescape(enabled_extensions: "Iterable[str]" = ("html", "htm", "xml"),
                      disabled_extensions: "Iterable[str]" = (), default_for_string: bool = True,
                      default: bool = False) -> "Callable[[Optional[str]], bool]":
    """An autoescape function for Environment(autoescape=...) that decides by the template name's extension."""
    return _autoescape_by_extension(tuple(f".{x.lstrip('.').lower()}" for x in enabled_extensions),
                                    tuple(f".{x.lstrip('.').lower()}" for x in disabled_extensions),
                                    default_for_string, default)


_AUTOESCAPE_BY_EXTENSION = []   # [the class _autoescape_by_extension makes], once made


def _autoescape_by_extension(enabled, disabled, default_for_string, default):
    # What select_autoescape returns: an instance of a class rather than a closure, so that an environment holding
    # it pickles (by this function: the class is made on first use, as few environments autoescape by extension
    # and a class costs a cold start ~0.08 M instructions).
    if not _AUTOESCAPE_BY_EXTENSION:
        class AutoescapeByExtension:
            __slots__ = ("enabled", "disabled", "default_for_string", "default")

            def __init__(self, enabled, disabled, default_for_string, default):
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
                return self._key() == other._key() if type(other) is type(self) else NotImplemented

            def __hash__(self):
                return hash(self._key())

            def __reduce__(self):
                return (_autoescape_by_extension, self._key())

            def __repr__(self):
                return f"<select_autoescape enabled={self.enabled!r} disabled={self.disabled!r}>"
        _AUTOESCAPE_BY_EXTENSION.append(AutoescapeByExtension)   # (threads racing here: each uses the first)
    return _AUTOESCAPE_BY_EXTENSION[0](enabled, disabled, default_for_string, default)
