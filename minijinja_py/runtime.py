"""Runtime objects a render works with: Undefined (and its Jinja2 variants), Scope, RenderState, Limits,
LoopContext, Macro, Namespace, Cycler, Joiner, the `dict` and `range` globals.

compiler.py builds closures that create and use these; sandbox.py decides what a template may do with them.
"""

import random as _random
from contextvars import ContextVar
from dataclasses import dataclass, fields

from .errors import LimitExceeded, SecurityError, TemplateRuntimeError, UndefinedError, as_template_error, limit_twin
from .markup import Markup, escape

__all__ = [
    "MISSING", "pass_state", "Undefined", "StrictUndefined", "ChainableUndefined", "DebugUndefined", "Limits", "Scope",
    "RenderState", "NotText", "join_output", "LoopContext", "Macro", "Namespace", "ChatNamespace", "Cycler", "Joiner",
    "DictFactory", "GroupTuple", "object_type_repr", "current_state", "enter_render", "leave_render",
]


class _Missing:
    __slots__ = ()

    def __repr__(self):
        return "missing"

    def __reduce__(self):
        return "MISSING"


MISSING = _Missing()


def object_type_repr(obj):
    """'dict object', 'None', 'mymodule.Thing object': how Jinja2 names a type in messages."""
    if obj is None:
        return "None"
    if obj is Ellipsis:
        return "Ellipsis"
    cls = type(obj)
    if cls.__module__ == "builtins":
        return f"{cls.__name__} object"
    return f"{cls.__module__}.{cls.__name__} object"


# ------------------------------------------------------------------------------------------------ Undefined
class Undefined:
    """Jinja2's default undefined: prints as '', iterates as empty, is falsy; any other use raises UndefinedError."""

    __slots__ = ("_undefined_hint", "_undefined_obj", "_undefined_name", "_undefined_exception")

    def __init__(self, hint=None, obj=MISSING, name=None, exc=UndefinedError):
        self._undefined_hint = hint
        self._undefined_obj = obj
        self._undefined_name = name
        self._undefined_exception = exc

    @property
    def _undefined_message(self):
        if self._undefined_hint:
            return self._undefined_hint
        if self._undefined_obj is MISSING:
            return f"{self._undefined_name!r} is undefined"
        if not isinstance(self._undefined_name, str):
            from .sandbox import safe_repr  # the key may be any value; print it without a memory address
            return f"{object_type_repr(self._undefined_obj)} has no element {safe_repr(self._undefined_name)}"
        return f"{object_type_repr(self._undefined_obj)!r} has no attribute {self._undefined_name!r}"

    def _fail_with_undefined_error(self, *args, **kwargs):
        raise self._undefined_exception(self._undefined_message)

    def __getattr__(self, name):
        if name[:2] == "__":
            raise AttributeError(name)
        return self._fail_with_undefined_error()

    __add__ = __radd__ = __sub__ = __rsub__ = _fail_with_undefined_error
    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail_with_undefined_error
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail_with_undefined_error
    __pos__ = __neg__ = __call__ = __getitem__ = _fail_with_undefined_error
    __lt__ = __le__ = __gt__ = __ge__ = _fail_with_undefined_error
    __int__ = __float__ = __complex__ = __pow__ = __rpow__ = _fail_with_undefined_error

    def __eq__(self, other):
        return type(self) is type(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(type(self))

    def __str__(self):
        return ""

    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __repr__(self):
        return "Undefined"

    def __reduce__(self):
        return (type(self), (self._undefined_hint, MISSING, self._undefined_name))


class StrictUndefined(Undefined):
    """Undefined that also refuses printing, iteration, truth tests and comparison."""

    __slots__ = ()
    __iter__ = __str__ = __len__ = Undefined._fail_with_undefined_error
    __eq__ = __ne__ = __bool__ = __hash__ = Undefined._fail_with_undefined_error
    __contains__ = Undefined._fail_with_undefined_error


class ChainableUndefined(Undefined):
    """Undefined whose attributes and items are undefined too: `a.b.c` on missing `a` prints ''."""

    __slots__ = ()

    def __html__(self):
        return str(self)

    def __getattr__(self, name):
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self


class DebugUndefined(Undefined):
    """Undefined that prints what was missing: {{ name }}."""

    __slots__ = ()

    def __str__(self):
        if self._undefined_hint:
            message = f"undefined value printed: {self._undefined_hint}"
        elif self._undefined_obj is MISSING:
            message = self._undefined_name
        else:
            message = f"no such element: {object_type_repr(self._undefined_obj)}[{self._undefined_name!r}]"
        return f"{{{{ {message} }}}}"


def pass_state(func):
    """Mark a filter, test or global function that needs the render state (environment, limits, undefined) as
    its first argument."""
    func.mj_pass_state = True
    return func


# ---------------------------------------------------------------------------------------------------- limits
@dataclass(frozen=True)
class Limits:
    """Resource limits of one template and its renders. The defaults let every template of the real-world corpus
    render untouched (with room for conversations far longer than the corpus's); each limit is checked before
    the work or allocation it bounds, and breaking one raises LimitExceeded naming it.

    Change them with Limits(max_steps=...) or Limits().replace(...), passed as Environment(limits=...),
    chat_environment(limits=...) or ChatTemplate(source, limits=...).
    """

    max_template_size: int = 262_144        # characters of template source
    max_nesting: int = 100                  # nested blocks / brackets / expression depth in the source
    max_call_depth: int = 100               # macro calls and recursive loop() calls in progress
    max_range: int = 100_000                # items of one range(), as Jinja2's sandbox
    max_steps: int = 5_000_000              # the work of one render: see budget.py for the price list
    max_output: int = 50_000_000            # characters of rendered output (incl. captured blocks)
    max_string: int = 10_000_000            # characters of one string built by * ~ + join format center ...
    max_items: int = 1_000_000              # items of one list/tuple built by * + batch list ...
    max_int_bits: int = 100_000             # bits of one integer built by ** * +
    max_data_depth: int = 200               # nesting depth of data printed, serialised, compared or passed in

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"Limits.{f.name} must be an int, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"Limits.{f.name} must be >= 0, not {value}")

    def replace(self, **changes):
        """A copy with some limits changed: Limits().replace(max_steps=100_000)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        values.update(changes)
        return Limits(**values)


def limit_exceeded(limits, name, what, also=None):
    """The LimitExceeded for breaking limits.<name> with `what`; `also` a built-in exception class it should
    also be (OverflowError for range(), as Jinja2 raises)."""
    value = getattr(limits, name)
    cls = LimitExceeded if also is None else limit_twin(also)
    return cls(f"{what} exceeds the limit {name}={value}", limit=name, value=value)


# ------------------------------------------------------------------------------------------- render state
class RenderState:
    """What one render carries besides variables: the environment, the step budget, output size, call depth."""

    __slots__ = ("env", "limits", "globals", "undefined", "fuel", "output_size", "depth", "autoescape",
                 "generation_spans", "random", "root", "root_markers", "context")

    def __init__(self, env, globals_, autoescape):
        self.env = env
        self.limits = env.limits
        self.globals = globals_
        self.undefined = env.undefined
        self.fuel = self.limits.max_steps
        self.output_size = 0
        self.depth = 0
        self.autoescape = autoescape
        self.generation_spans = None
        self.random = None
        self.root = None             # the template's top-level scope ({% block %} bodies start from it)
        self.root_markers = {}       # name → the undefined the root scope started with (not assigned yet)
        self.context = {}            # the variables passed to render

    def block_scope(self):
        """The scope a {% block %} body starts in: Jinja2's template context, i.e. the variables passed to render
        and the top-level assignments made so far, but not the loop or macro around the block."""
        scope = self.root.child()
        for name, marker in self.root_markers.items():
            if scope.get(name) is marker:  # assigned later in the template, not yet: the render's value shows
                if name in self.context:
                    scope[name] = self.context[name]
                else:
                    del scope[name]
        return scope

    def burn(self, steps=1):
        """Spend fuel (see budget.py for what costs what)."""
        self.fuel -= steps
        if self.fuel < 0:
            raise limit_exceeded(self.limits, "max_steps",
                                 "the work of this render (loop iterations, calls, data processed)")

    def grow_output(self, size):
        self.output_size += size
        if self.output_size > self.limits.max_output:
            raise limit_exceeded(self.limits, "max_output", "the rendered output")


# The render under way in this thread/task: printing and escaping, which happen in many places (filters, markup),
# find their size limits and fuel here.
_current_state = ContextVar("minijinja_py_render_state", default=None)


def current_state():
    """The RenderState of the render in progress (None outside a render)."""
    return _current_state.get()


def enter_render(rs):
    """Make rs the render in progress; returns the token leave_render() needs."""
    return _current_state.set(rs)


def leave_render(token):
    _current_state.reset(token)


class Scope(dict):
    """Variables visible at one point of a template. Inner scopes (loop iterations, macro calls, with-blocks)
    start as copies of their parent, so assignments never leak outward. A name not found here falls back to the
    globals, then to an Undefined."""

    __slots__ = ("rs",)

    def __missing__(self, name):
        value = self.rs.globals.get(name, MISSING)
        if value is MISSING:
            return self.rs.undefined(name=name)
        return value

    def child(self):
        rs = self.rs
        if len(self) > 64:
            rs.burn(len(self) >> 4)  # copying a big scope is work too
        scope = Scope(self)
        scope.rs = rs
        return scope


class BreakLoop(BaseException):
    """{% break %}: unwinds to the innermost loop (never escapes a render: the compiler checks placement).
    A BaseException so that the `except Exception` that attaches error locations lets it through."""


class ContinueLoop(BaseException):
    """{% continue %}"""


# ---------------------------------------------------------------------------------------------------- output
class NotText:
    """A value that is not a string, written to the output as it is by a {% filter %} or {% call %} block (Jinja2
    quirk). It counts as no text; joining the output fails on it (join_output), as Jinja2's join does."""

    __slots__ = ("value", "span")

    def __init__(self, value, span):
        self.value = value
        self.span = span

    def __len__(self):
        return 0


def captured_text(out, rs):
    """What a macro, a block called through `self` or a recursive loop(...) call returns: its output joined,
    as Markup under autoescape (so it is not escaped again where it is printed)."""
    text = join_output(out)
    return Markup(text) if rs.autoescape else text


def join_output(out):
    """"".join(out) of a template, macro or captured block: TypeError, located at the block that wrote it, if a
    NotText is in there."""
    try:
        return "".join(out)
    except TypeError as exc:
        for i, item in enumerate(out):
            if type(item) is NotText:
                span = item.span
                error = TypeError(f"sequence item {i}: expected str instance, {type(item.value).__name__} found")
                raise as_template_error(error, span.line, span.col, (span.end_line, span.end_col)) from None
        raise exc


# ------------------------------------------------------------------------------------------------------ self
class TemplateReference:
    """`self` in a template: `self.name()` renders the {% block name %} of this template, as Jinja2's
    TemplateReference does (with the template's top-level variables, wherever it is called from)."""

    __slots__ = ("_name", "_blocks", "_rs")

    def __init__(self, name, blocks, rs):
        self._name, self._blocks, self._rs = name, blocks, rs

    def __getitem__(self, name):
        return BlockReference(name, self._blocks[name], self._rs)

    def __repr__(self):
        return f"<TemplateReference {self._name!r}>"


class BlockReference:
    """self.name: calling it renders the block; `super` is undefined (a template without loader has no parent)."""

    __slots__ = ("name", "_run", "_rs")

    def __init__(self, name, run, rs):
        self.name, self._run, self._rs = name, run, rs

    @property
    def super(self):
        return self._rs.undefined(f"there is no parent block called {self.name!r}.", name="super")

    def __call__(self):
        rs = self._rs
        rs.burn(10)  # as a macro call: a scope, the body's output joined
        if rs.depth >= rs.limits.max_call_depth:
            raise limit_exceeded(rs.limits, "max_call_depth", "the depth of block calls through self")
        out = []
        rs.depth += 1
        try:
            self._run(rs.block_scope(), out)
        finally:
            rs.depth -= 1
        return captured_text(out, rs)


# ------------------------------------------------------------------------------------------------------ loop
class LoopContext:
    """The `loop` variable. Over a list everything is known up front; over a filtered loop (`for x in y if c`)
    items are pulled lazily, so the filter sees state the body changed, as in Jinja2."""

    __slots__ = ("_items", "_iter", "_ahead", "index0", "depth0", "_recurse", "_last_changed", "_undefined",
                 "_prev", "_current")

    def __init__(self, items, undefined, depth0=0, recurse=None, lazy=None):
        self._items = items          # list, or None when lazy
        self._iter = lazy            # iterator when lazy
        self._ahead = []             # items pulled from the lazy iterator but not yet reached
        self.index0 = -1
        self.depth0 = depth0
        self._recurse = recurse
        self._last_changed = MISSING
        self._undefined = undefined
        self._prev = MISSING
        self._current = MISSING

    # The loop runner drives these two.
    def _next(self):
        """Advance to the next item; MISSING when exhausted."""
        if self._items is not None:
            if self.index0 + 1 < len(self._items):
                self.index0 += 1
                return self._items[self.index0]
            return MISSING
        if self.index0 >= 0:
            self._prev = self._current
        if self._ahead:
            item = self._ahead.pop(0)
        else:
            item = next(self._iter, MISSING)
        if item is not MISSING:
            self.index0 += 1
            self._current = item
        return item

    def _peek(self):
        if not self._ahead:
            item = next(self._iter, MISSING)
            if item is MISSING:
                return MISSING
            self._ahead.append(item)
        return self._ahead[0]

    @property
    def length(self):
        if self._items is not None:
            return len(self._items)
        self._ahead.extend(self._iter)
        return self.index0 + 1 + len(self._ahead)

    @property
    def index(self):
        return self.index0 + 1

    @property
    def revindex(self):
        return self.length - self.index0

    @property
    def revindex0(self):
        return self.length - self.index0 - 1

    @property
    def first(self):
        return self.index0 == 0

    @property
    def last(self):
        if self._items is not None:
            return self.index0 == len(self._items) - 1
        return self._peek() is MISSING

    @property
    def depth(self):
        return self.depth0 + 1

    @property
    def previtem(self):
        if self.index0 <= 0:
            return self._undefined("there is no previous item")
        if self._items is not None:
            return self._items[self.index0 - 1]
        return self._prev

    @property
    def nextitem(self):
        if self._items is not None:
            if self.index0 + 1 < len(self._items):
                return self._items[self.index0 + 1]
            return self._undefined("there is no next item")
        item = self._peek()
        return self._undefined("there is no next item") if item is MISSING else item

    def __len__(self):
        return self.length

    def __iter__(self):
        return self

    def __next__(self):
        """Jinja2 quirk: iterating `loop` inside the loop advances the loop itself, yielding (item, loop)."""
        item = self._next()
        if item is MISSING:
            raise StopIteration
        return item, self

    def cycle(self, *args):
        """loop.cycle('odd', 'even'): the argument for this iteration, round robin."""
        if not args:
            raise TypeError("no items for cycling given")
        return args[self.index0 % len(args)]

    def changed(self, *value):
        """loop.changed(x): True on the first iteration and whenever x differs from the previous call's."""
        if self._last_changed != value:
            self._last_changed = value
            return True
        return False

    def __call__(self, iterable):
        """loop(children) inside a `recursive` loop: render the loop body over children, one level deeper."""
        if self._recurse is None:
            raise TypeError("The loop must have the 'recursive' marker to be called recursively.")
        return self._recurse(iterable, self.depth0 + 1)

    def __repr__(self):
        return f"<LoopContext {self.index}/{self.length}>"


# ----------------------------------------------------------------------------------------------------- macro
class Macro:
    """A {% macro %} (or a {% call %} block's `caller`). Calling it renders its body in a fresh scope built
    from the scope it was defined in (not the caller's), with the parameters bound."""

    __slots__ = ("name", "arguments", "_defaults", "catch_kwargs", "catch_varargs", "caller", "_body",
                 "_scope", "explicit_caller", "_weight")

    def __init__(self, name, arguments, defaults, body, scope, catch_kwargs, catch_varargs, caller, weight=1):
        self.name = name
        self.arguments = arguments          # tuple of parameter names
        self._defaults = defaults           # tuple of closures (or None) aligned with arguments
        self._body = body                   # closure (scope, out) -> None
        self._scope = scope                 # the defining scope (live: later top-level sets are visible)
        self.catch_kwargs = catch_kwargs    # the body uses `kwargs`
        self.catch_varargs = catch_varargs  # the body uses `varargs`
        self.caller = caller                # the body uses `caller`
        self.explicit_caller = "caller" in arguments
        self._weight = weight               # steps a call costs besides its body (which charges itself)

    def __call__(self, *args, **kwargs):
        rs = self._scope.rs
        rs.burn(self._weight)
        if rs.depth >= rs.limits.max_call_depth:
            raise limit_exceeded(rs.limits, "max_call_depth", "the depth of macro calls")
        count = len(self.arguments)
        scope = self._scope.child()
        undefined = rs.undefined
        bound = min(len(args), count)
        for i in range(bound):
            scope[self.arguments[i]] = args[i]
        found_caller = self.explicit_caller if bound == count else False
        pending = []   # parameters left to their defaults: computed once the call is known to be valid
        for i in range(bound, count):
            name = self.arguments[i]
            if name == "caller":
                found_caller = True
            value = kwargs.pop(name, MISSING)
            if value is MISSING:
                pending.append(i)
            else:
                scope[name] = value
        if self.caller and not found_caller:
            caller = kwargs.pop("caller", None)
            if caller is None:
                caller = undefined("No caller defined", name="caller")
            scope["caller"] = caller
        if self.catch_kwargs:
            scope["kwargs"] = kwargs
        elif kwargs:
            if "caller" in kwargs:
                raise TypeError(f"macro {self.name!r} was invoked with two values for the special caller "
                                "argument. This is most likely a bug.")
            raise TypeError(f"macro {self.name!r} takes no keyword argument {next(iter(kwargs))!r}")
        if self.catch_varargs:
            scope["varargs"] = args[count:]
        elif len(args) > count:
            raise TypeError(f"macro {self.name!r} takes not more than {count} argument(s)")
        out = []
        rs.depth += 1
        try:
            # as in Jinja2, defaults are evaluated in the macro's body, in parameter order, after the argument checks;
            # a parameter not yet given its default reads as undefined there (not as an outer variable)
            for i in pending:
                scope[self.arguments[i]] = undefined(name=self.arguments[i])
            for i in pending:
                name, default = self.arguments[i], self._defaults[i]
                scope[name] = default(scope) if default is not None else \
                    undefined(f"parameter {name!r} was not provided", name=name)
            self._body(scope, out)
        finally:
            rs.depth -= 1
        return captured_text(out, rs)

    def __repr__(self):
        return "<Macro anonymous>" if self.name is None else f"<Macro {self.name!r}>"


# ------------------------------------------------------------------------------------------------- globals
class Namespace:
    """namespace(a=1): the one object whose attributes a template may set ({% set ns.a = 2 %}), as Jinja2's."""

    __slots__ = ("_attrs",)

    def __init__(*args, **kwargs):
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            self._check_name(name)
        self._attrs = attrs

    @staticmethod
    def _check_name(name):
        """Jinja2's namespace stores any name (the sandbox still refuses to read '_' names back)."""

    def __repr__(self):
        from .sandbox import safe_repr  # bounded and cycle-safe: {% set ns.me = [ns] %} prints
        return safe_repr(self)


class ChatNamespace(Namespace):
    """The chat profile's namespace: transformers' TemplateNamespace, which refuses names starting with '_'."""

    __slots__ = ()

    @staticmethod
    def _check_name(name):
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got "
                                f"{name!r}. Please rename the attribute.")


def namespace_set(ns, attr, value):
    """{% set ns.attr = value %}"""
    if not isinstance(ns, Namespace):
        raise TemplateRuntimeError("cannot assign attribute on non-namespace object")
    ns._check_name(attr)
    ns._attrs[attr] = value


class GroupTuple(tuple):
    """One group of the groupby filter: a (grouper, list) pair that also has those two names as attributes,
    and prints as a plain tuple (as Jinja2's namedtuple does)."""

    __slots__ = ()

    def __new__(cls, grouper, items):
        return tuple.__new__(cls, (grouper, items))

    @property
    def grouper(self):
        return self[0]

    @property
    def list(self):
        return self[1]


class Cycler:
    """cycler('odd', 'even'): .next() returns the items in turn; .current, .reset()."""

    __slots__ = ("items", "pos")

    def __init__(self, *items):
        if not items:
            raise RuntimeError("at least one item has to be provided")
        self.items = items
        self.pos = 0

    def reset(self):
        self.pos = 0

    @property
    def current(self):
        return self.items[self.pos]

    def next(self):
        rv = self.current
        self.pos = (self.pos + 1) % len(self.items)
        return rv

    __next__ = next

    def __repr__(self):
        return "<Cycler>"


class Joiner:
    """joiner(', '): returns '' the first time it is called, then the separator."""

    __slots__ = ("sep", "used")

    def __init__(self, sep=", "):
        self.sep = sep
        self.used = False

    def __call__(self):
        if not self.used:
            self.used = True
            return ""
        return self.sep

    def __repr__(self):
        return "<Joiner>"


class DictFactory:
    """The `dict` global: dict(a=1), dict([('a', 1)]), dict.fromkeys(keys, value)."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    def fromkeys(self, keys, value=None):
        return dict.fromkeys(keys, value)

    def __repr__(self):
        return "<class 'dict'>"


_LIPSUM_WORDS = (
    "a ac accumsan ad adipiscing aenean aliquam aliquet amet ante aptent arcu at auctor augue bibendum blandit "
    "class commodo condimentum congue consectetuer consequat conubia convallis cras cubilia cum curabitur curae "
    "cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas eget eleifend elementum elit "
    "enim erat eros est et etiam eu euismod facilisi facilisis fames faucibus felis fermentum feugiat fringilla "
    "fusce gravida habitant habitasse hac hendrerit hymenaeos iaculis id imperdiet in inceptos integer interdum "
    "ipsum justo lacinia lacus laoreet lectus leo libero ligula litora lobortis lorem luctus maecenas magna magnis "
    "malesuada massa mattis mauris metus mi molestie mollis montes morbi mus nam nascetur natoque nec neque netus "
    "nibh nisi nisl non nonummy nostra nulla nullam nunc odio orci ornare parturient pede pellentesque penatibus "
    "per pharetra phasellus placerat platea porta porttitor posuere potenti praesent pretium primis proin pulvinar "
    "purus quam quis quisque rhoncus ridiculus risus rutrum sagittis sapien scelerisque sed sem semper senectus "
    "sit sociis sociosqu sodales sollicitudin suscipit suspendisse taciti tellus tempor tempus tincidunt torquent "
    "tortor tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit venenatis vestibulum "
    "vitae vivamus viverra volutpat vulputate"
).split()


@pass_state
def lipsum(rs, n=5, html=True, min=20, max=100):
    """lipsum(): n paragraphs of lorem ipsum (HTML <p> elements unless html=false), each of min to max-1 words.

    Shaped like Jinja2's: sentences start with a capital and end with '.', commas fall every few words, no word
    repeats the one before, every paragraph ends with '.'. Unlike Jinja2's, the words are seeded by the
    arguments, so a render is reproducible."""
    if n > 1000 or max > 10_000:
        raise OverflowError("lipsum() is limited to 1000 paragraphs of 10000 words")
    if isinstance(max, int) and isinstance(n, int) and n > 0 and max > 0:
        rs.burn(4 * n * max)  # up to n * max words at ~4 steps' time each, paid before any is made
    rng = _random.Random(f"{n}:{html}:{min}:{max}")
    paragraphs = [_lorem_paragraph(rng, rng.randrange(min, max)) for _ in range(n)]
    if not html:
        return "\n\n".join(paragraphs)
    return Markup("\n".join(f"<p>{escape(p)}</p>" for p in paragraphs))


def _lorem_paragraph(rng, count):
    words = []
    comma_at = stop_at = 0          # word positions of the last comma and the last full stop
    capital = True
    for position in range(count):
        word = rng.choice(_LIPSUM_WORDS)
        while words and word == words[-1].rstrip(",.").lower():
            word = rng.choice(_LIPSUM_WORDS)
        if capital:
            word, capital = word.capitalize(), False
        if position - rng.randrange(3, 8) > comma_at:
            comma_at, stop_at = position, stop_at + 2
            word += ","
        if position - rng.randrange(10, 20) > stop_at:
            comma_at = stop_at = position
            word += "."
            capital = True
        words.append(word)
    text = " ".join(words)
    if text.endswith(","):
        return text[:-1] + "."
    return text if text.endswith(".") else text + "."
