"""Runtime objects a render works with: the loop context, macros, namespaces, `self` and its blocks, groupby's
groups — and how captured output is joined (the globals range, dict, cycler, joiner and lipsum: globalfuncs.py)."""

# The compiled closures (compiler.py, loops.py) create and drive these; sandbox.py decides what a template may do
# with them. Every class here is address-free when printed (`mj_safe_repr`, see printing.py).

from collections import deque
from operator import attrgetter

from ..core.errors import SecurityError, TemplateError, TemplateRuntimeError, as_template_error, claim, location
from ..core.state import BIG_STR, CHAR_SHIFT, MISSING, limit_exceeded, out_of_fuel
from .markup import Markup
from .printing import safe_repr

__all__ = [
    "BreakLoop", "ContinueLoop", "NotText", "append_long", "count_output", "join_output", "captured_text",
    "LoopContext", "MacroCode", "Macro",
    "call_macro", "Namespace", "ChatNamespace", "namespace_set", "GroupTuple",
]


class BreakLoop(BaseException):
    # {% break %}: unwinds to the innermost loop (never escapes a render: the compiler checks placement).
    # A BaseException so that the `except Exception` that attaches error locations lets it through.
    pass


class ContinueLoop(BaseException):
    # {% continue %}
    pass


# ---------------------------------------------------------------------------------------------------- output
class NotText:
    # A value that is not a string, written to the output as it is by a {% filter %} or {% call %} block (Jinja2
    # quirk). It counts as no text; joining the output fails on it (join_output), as Jinja2's join does.

    __slots__ = ("value", "span")

    def __init__(self, value, span):
        self.value = value
        self.span = span

    def __len__(self):
        return 0


def count_output(rs, out, start, size=None):
    # Count the pieces out[start:] against max_output: what a loop appended, counted once when it ends
    # (compile/context.py: output). Up to _JOINED_PIECES of them are joined into one (the same text; C's join sums
    # their lengths faster than len() of each, and the render's own join then has fewer pieces): each is shorter
    # than BIG_STR or was counted against max_output as it was appended (note_output), so the copy is bounded as
    # the render's final join is. A long text (_long_output: a long conversation) is summed instead. (Not in a
    # render handed out piece by piece: RenderState.joins_loop_output.) size: their size where the loop counted
    # it as it appended them (walks._walk_texts).
    rs.output_size += _pieces_size(rs, out, start) if size is None else size
    rs.big_pending = 0   # counted now (a nested loop's count forgets an outer loop's: it only checks less early)
    if rs.output_size > rs.limits.max_output:
        raise limit_exceeded(rs.limits, "max_output", "the rendered output")


def _pieces_size(rs, out, start):
    # count_output's size of out[start:], joining them where that is cheaper (above)
    count = len(out) - start
    if count < 2:   # nothing to join (a loop in a macro's body often appends one piece or none)
        return len(out[start]) if count else 0
    if count <= _JOINED_PIECES and rs.joins_loop_output and not _long_output(rs, out, start, count):
        try:
            text = "".join(out[start:])
        except TypeError:   # a NotText (no text: its block's error comes at the render's join)
            return sum(map(len, out[start:]))
        out[start:] = (text,)
        return len(text)
    return sum(map(len, out[start:]))


def append_long(rs, out, pieces, size, counted=False):
    # Append the pieces of a `+` sum of BIG_STR characters or more (size: theirs) as a run of text and {{ }} appends
    # it: charged a step per 16 characters, max_string checked, counted against max_output (counted) or noted for
    # the loop that counts it, where every limit holds: True; else False, nothing done (the run's general closure
    # fails as it should).
    limits, steps = rs.limits, size >> CHAR_SHIFT
    if steps > rs.fuel or size > limits.max_string or \
            rs.output_size + size + (0 if counted else rs.big_pending) > limits.max_output:
        return False
    rs.fuel -= steps
    if counted:
        rs.output_size += size
    else:
        rs.big_pending += size
    out += pieces
    return True


_JOINED_PIECES = 4096
_JOINED_BYTES = 1 << 17


def _long_output(rs, out, start, count):
    # Would out[start:] joined take _JOINED_BYTES or more, as the first and last 8 pieces tell (the text's size,
    # twice for text beyond ASCII)? Copying that much once more than the render's join does (into fresh memory
    # pages) costs more than len() of each piece. (Not asked of fewer pieces than could make it: each is shorter
    # than BIG_STR or noted in big_pending.) The sample is measured, not joined: its pieces may be megabytes each
    # (str.isascii() reads a flag).
    if (count * BIG_STR + rs.big_pending) * 2 < _JOINED_BYTES:
        return False
    sample = out[start:] if count <= 16 else out[start:start + 8] + out[-8:]
    try:
        size = sum([len(piece) if piece.isascii() else 2 * len(piece) for piece in sample])
    except AttributeError:   # a NotText: summed anyway
        return False
    return count * size >= _JOINED_BYTES * len(sample)


def join_output(out):
    # "".join(out) of a template, macro or captured block: TypeError, located at the block that wrote it, if a
    # NotText is in there.
    try:
        return "".join(out)
    except TypeError as exc:
        for i, item in enumerate(out):
            if type(item) is NotText:
                span = item.span
                error = TypeError(f"sequence item {i}: expected str instance, {type(item.value).__name__} found")
                raise as_template_error(error, *location(span)) from None
        raise exc


def captured_text(out, rs):
    # What a macro, a block called through `self` or a recursive loop(...) call returns: its output joined,
    # as Markup under autoescape (so it is not escaped again where it is printed).
    text = join_output(out)
    return Markup(text) if rs.autoescape else text


# ------------------------------------------------------------------------------------------------------ loop
class LoopContext:
    # The `loop` variable. Over a list or tuple the loop runner walks the list iterator the loop context holds
    # (`_iter`), and tells it where it is; over anything else (an iterator, or a filtered loop `for x in y if c`)
    # items are pulled lazily, one ahead at most unless `loop.length` or `loop.revindex` asks for all, so the filter
    # and loop.last see the state the body changed. As in Jinja2, what looks at the rest of the loop is measured
    # when asked, since the body may change a list it walks (a caller's property, __str__ or __bool__ can): the
    # length is the iterable's len() (`sized`; the items counted where it has none) when first asked, kept;
    # `last` and `nextitem` look at the list then — and when there is nothing after the current item, the walk is
    # spent, so the loop ends even if the list grows later, as Jinja2's look-ahead spends its iterator.

    __slots__ = ("index0", "depth0", "_items", "_length", "_iter", "_ahead", "_recurse", "_last_changed",
                 "_undefined", "_prev", "_current", "_sized")
    mj_safe_repr = True
    mj_guards_arguments = True   # loop(children) hashes and compares nothing

    def __init__(self, items, undefined, depth0=0, recurse=None, lazy=None, sized=None):
        self._items = items          # list or tuple, or None when lazy
        self._length = None          # the length, once asked
        if items is not None:
            self._iter = iter(items)     # the list iterator the runner walks
            self._sized, self._ahead = items, None
        else:
            self._iter = lazy
            self._sized = sized      # what len() measures for loop.length (None: count the items)
            self._ahead = deque()    # items pulled but not reached yet
        self.index0 = -1
        self.depth0 = depth0
        self._recurse = recurse
        self._last_changed = MISSING
        self._undefined = undefined
        self._prev = MISSING
        self._current = MISSING

    def _next(self):
        # Advance to the next item; MISSING when exhausted. (Lists are walked by the loop runner itself.)
        if self._items is not None:
            if self.index0 + 1 < len(self._items):
                self.index0 += 1
                return self._items[self.index0]
            return MISSING
        if self.index0 >= 0:
            self._prev = self._current
        item = self._ahead.popleft() if self._ahead else next(self._iter, MISSING)
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

    def _at_end(self):
        # A list loop with no item after the current one now: its walk is spent (a list iterator that found its
        # end stays at it; where the body iterated `loop` to the end, the item taken is one the runner skips).
        if self.index0 + 1 < len(self._items):
            return False
        next(self._iter, None)
        return True

    @property
    def length(self):
        if self._length is None:
            try:
                self._length = len(self._sized)   # (what a caller's __len__ raises goes through)
            except TypeError:   # no len() (None: a filtered loop, an iterator): the items counted, as in Jinja2
                self._ahead.extend(self._iter)
                self._length = self.index0 + 1 + len(self._ahead)
        return self._length

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
        items = self._items
        if items is None:
            return self._peek() is MISSING
        if self.index0 + 1 < len(items):
            return False
        next(self._iter, None)   # (_at_end written out: the commonest end of a short loop)
        return True

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
            if self._at_end():
                return self._undefined("there is no next item")
            return self._items[self.index0 + 1]
        item = self._peek()
        return self._undefined("there is no next item") if item is MISSING else item

    def __len__(self):
        return self.length

    def __iter__(self):
        return self

    def __next__(self):
        # Jinja2 quirk: iterating `loop` inside the loop advances the loop itself, yielding (item, loop).
        item = self._next()
        if item is MISSING:
            raise StopIteration
        return item, self

    def cycle(self, *args):
        # loop.cycle('odd', 'even'): the argument for this iteration, round robin.
        if not args:
            raise TypeError("no items for cycling given")
        return args[self.index0 % len(args)]

    def changed(self, *value):
        # loop.changed(x): True on the first iteration and whenever x differs from the previous call's.
        if self._last_changed != value:
            self._last_changed = value
            return True
        return False

    def __call__(self, iterable):
        # loop(children) inside a `recursive` loop: render the loop body over children, one level deeper.
        # (_recurse: the loop's runner and the frame to run it in; call_value calls this function, not the object,
        # a level of Python's recursion limit less per loop level)
        if self._recurse is None:
            raise TypeError("The loop must have the 'recursive' marker to be called recursively.")
        call, parent = self._recurse
        return call(parent, iterable, self.depth0 + 1)

    def __repr__(self):
        return f"<LoopContext {self.index}/{self.length}>"


# ----------------------------------------------------------------------------------------------------- frames
class FrameLayout:
    # How to start a frame (the slots of one template function: the template, a macro call, a block, a
    # recursive loop call — see compiler.py): slot 0 holds the render state, slot 1 the frame the function was
    # defined in (for the outermost function of a template, the root or a block: its template context, or None
    # when the template needs none), the others their start values, then the names no scope assigns are looked up
    # once: in the template context of the frame chain when there is one (Jinja2 resolves them there), else in
    # the render's variables and globals.

    __slots__ = ("initial", "resolves", "copies")

    def __init__(self, initial, resolves, copies=()):
        self.initial = initial      # tuple: the start value of slots 2, 3, ...
        self.resolves = resolves    # ((name, slot), ...)
        self.copies = copies        # ((slot, depth, source slot), ...): variables that start as another's value

    def new(self, rs, parent, lookup=None):
        # A new frame; the free names found with lookup(name) (by default, see the class docstring).
        resolves = self.resolves
        if not resolves:
            f = [rs, parent, *self.initial]
        else:
            if lookup is None and parent is not None:
                context = parent
                while type(context) is list:   # up the frames to the outermost one's context
                    context = context[1]
                if context is not None:
                    lookup = context.lookup
            if lookup is None:
                # the render's variables and globals do not change while it runs: resolved once per render
                starts = rs.frame_starts
                start = None if starts is None else starts.get(self)
                if start is None:
                    if starts is None:
                        starts = rs.frame_starts = {}
                    start = starts[self] = self._resolved(rs)
                f = [rs, parent, *start]
            else:   # a template context: its top-level variables change as the template runs
                f = [rs, parent, *self.initial]
                for name, slot in resolves:
                    f[slot] = lookup(name)
        return self._copied(f) if self.copies else f

    def _copied(self, f):
        # f with the variables that start as another's value (of f or a frame it is defined in) copied in.
        for slot, depth, source in self.copies:
            frame = f
            for _ in range(depth):
                frame = frame[1]
            f[slot] = frame[source]
        return f

    def root(self, rs):
        # new(rs, None) for a template's root frame, made once per render (its start values not kept).
        f = [rs, None, *self.initial]
        context_get, globals_get = rs.context.get, rs.globals.get
        for name, slot in self.resolves:
            value = context_get(name, MISSING)
            f[slot] = value if value is not MISSING else globals_get(name, MISSING)
        return self._copied(f) if self.copies else f

    def _resolved(self, rs):
        # The start values with the free names found in the render's variables, then in the globals; MISSING
        # where neither has one (a read of the variable then makes an undefined, as Jinja2's resolve_or_missing).
        start = [None, None, *self.initial]
        context_get, globals_get = rs.context.get, rs.globals.get
        for name, slot in self.resolves:
            value = context_get(name, MISSING)
            start[slot] = value if value is not MISSING else globals_get(name, MISSING)
        return tuple(start[2:])


# ----------------------------------------------------------------------------------------------------- macro
class MacroCode:
    # What the compiler makes of a {% macro %} or of a call block's body: everything a call needs but the frame
    # it was defined in. `arguments` are the parameter names, `param_slots` their slots; `defaults` the default
    # closures (None where a parameter has none); `weight` the steps a call costs, its body's statements included.

    __slots__ = ("name", "arguments", "param_slots", "defaults", "body", "layout", "caller_slot", "kwargs_slot",
                 "varargs_slot", "catch_kwargs", "catch_varargs", "caller", "explicit_caller", "weight", "plain",
                 "origin", "arity", "frame_tail")

    def __init__(self, name, arguments, param_slots, defaults, body, layout, special_slots, weight, origin):
        self.origin = origin   # (name, filename, source) of the template it is in: errors in its body carry them
        self.name = name
        self.arguments = arguments
        self.param_slots = param_slots
        self.defaults = defaults
        self.body = body
        self.layout = layout
        self.caller_slot, self.kwargs_slot, self.varargs_slot = special_slots
        self.catch_kwargs = self.kwargs_slot is not None     # the body reads `kwargs`
        self.catch_varargs = self.varargs_slot is not None   # the body reads `varargs`
        self.caller = self.caller_slot is not None           # the body reads `caller`
        self.explicit_caller = "caller" in arguments
        self.weight = weight
        # no caller, kwargs or varargs to fill in: a call with exactly its parameters, by position, binds them
        self.plain = not (self.caller or self.catch_kwargs or self.catch_varargs)
        self.arity = len(param_slots) if self.plain else -1   # the positional arguments of the common call
        # the common call's frame is [rs, parent, *args, *frame_tail] when the parameters come first (slots 2, 3,
        # ...) and the frame resolves and copies nothing when it starts; None else (FrameLayout.new makes it)
        leading = param_slots == tuple(range(2, 2 + len(param_slots)))
        self.frame_tail = layout.initial[len(param_slots):] if self.plain and leading and not layout.resolves \
            and not layout.copies else None


def call_macro(macro, *args, **kwargs):
    # Calling a Macro: its body rendered in a new frame whose parent is the frame it was defined in, the
    # parameters bound. Macro.__call__, and what the engine's call closures call directly: a plain function costs
    # one level of Python's recursion limit, an object's __call__ two (CPython counts the call of the object too),
    # and a recursive macro over nested data reaches that limit before max_call_depth when a level costs too many
    code, parent = macro._code, macro._parent
    rs = parent[0]
    rs.fuel -= code.weight
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    if rs.depth >= rs.limits.max_call_depth:
        raise limit_exceeded(rs.limits, "max_call_depth", "the depth of macro calls")
    pending = ()
    count = len(args)
    if count == code.arity and not kwargs:   # the common call: every parameter given, in order
        tail = code.frame_tail
        if tail is not None:
            f = [rs, parent, *args, *tail]
        else:
            f = code.layout.new(rs, parent)
            for slot, value in zip(code.param_slots, args):
                f[slot] = value
    elif count < code.arity and not kwargs and code.frame_tail is not None:
        # the first parameters given in order, the others left to their defaults (what _bind_arguments
        # finds for a macro without caller, kwargs or varargs)
        f = [rs, parent, *args, *code.layout.initial[count:]]
        pending = range(count, code.arity)
    else:
        f = code.layout.new(rs, parent)
        pending = _bind_arguments(code, f, args, kwargs, rs.undefined)
    out = []
    rs.depth += 1
    try:
        if pending:
            _bind_defaults(code, f, pending, rs.undefined)
        code.body(f, out)
        try:
            text = "".join(out)
        except TypeError:   # a {% call %} or {% filter %} block wrote a value that is not text: its error
            text = join_output(out)   # is located in the macro's template (claimed below)
    except TemplateError as exc:
        claim(exc, code.origin)
        raise
    finally:
        rs.depth -= 1
    return Markup(text) if rs.autoescape else text


class Macro:
    # A {% macro %} (or a {% call %} block's `caller`). Calling it renders its body in a new frame whose parent
    # is the frame it was defined in (not the caller's), with the parameters bound.

    __slots__ = ("_code", "_parent")
    mj_safe_repr = True

    def __init__(self, code, parent):
        self._code = code
        self._parent = parent

    name = property(attrgetter("_code.name"))
    arguments = property(attrgetter("_code.arguments"))
    catch_kwargs = property(attrgetter("_code.catch_kwargs"))
    catch_varargs = property(attrgetter("_code.catch_varargs"))
    caller = property(attrgetter("_code.caller"))
    explicit_caller = property(attrgetter("_code.explicit_caller"))

    __call__ = call_macro

    def __repr__(self):
        name = self._code.name
        return "<Macro anonymous>" if name is None else f"<Macro {name!r}>"


def _bind_defaults(code, f, pending, undefined):
    # As in Jinja2, defaults are evaluated in the macro's body, in parameter order, after the argument checks; a
    # parameter not yet given its default reads as undefined there (not as an outer variable).
    slots, names = code.param_slots, code.arguments
    for i in pending:
        f[slots[i]] = undefined(name=names[i])
    for i in pending:
        default = code.defaults[i]
        f[slots[i]] = default(f) if default is not None else \
            undefined(f"parameter {names[i]!r} was not provided", name=names[i])


def _bind_arguments(code, f, args, kwargs, undefined):
    # Put a call's arguments into the macro's frame; returns the indices of the parameters left to their
    # defaults. The errors are Jinja2's.
    slots, names = code.param_slots, code.arguments
    count = len(slots)
    bound = min(len(args), count)
    for i in range(bound):
        f[slots[i]] = args[i]
    found_caller = code.explicit_caller if bound == count else False
    pending = []
    for i in range(bound, count):
        name = names[i]
        if name == "caller":
            found_caller = True
        value = kwargs.pop(name, MISSING)
        if value is MISSING:
            pending.append(i)
        else:
            f[slots[i]] = value
    if code.caller and not found_caller:
        caller = kwargs.pop("caller", None)
        f[code.caller_slot] = undefined("No caller defined", name="caller") if caller is None else caller
    if code.catch_kwargs:
        f[code.kwargs_slot] = kwargs
    elif kwargs:
        if "caller" in kwargs:
            raise TypeError(f"macro {code.name!r} was invoked with two values for the special caller argument. "
                            "This is most likely a bug.")
        raise TypeError(f"macro {code.name!r} takes no keyword argument {next(iter(kwargs))!r}")
    if code.catch_varargs:
        f[code.varargs_slot] = args[count:]
    elif len(args) > count:
        raise TypeError(f"macro {code.name!r} takes not more than {count} argument(s)")
    return pending


# ------------------------------------------------------------------------------------------------- globals
class Namespace:
    # namespace(a=1): the one object whose attributes a template may set ({% set ns.a = 2 %}), as Jinja2's.

    __slots__ = ("_attrs",)

    def __init__(*args, **kwargs):
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            self._check_name(name)
        self._attrs = attrs

    @staticmethod
    def _check_name(name):
        # Jinja2's namespace stores any name (the sandbox still refuses to read '_' names back).
        pass

    def __getattr__(self, name):
        # An attribute read by Python code (a filter given a namespace), as Jinja2's namespace answers it; never a
        # '_' name (what Python's own protocols look up, __html__ and the like, stays the class's).
        if not name.startswith("_"):
            try:
                return object.__getattribute__(self, "_attrs")[name]
            except KeyError:
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def mj_print(self, printer, depth):
        # How printing.py shows a namespace: its attributes as a dict.
        printer.emit("<Namespace ")
        printer.container(self._attrs, dict, depth)
        printer.emit(">")

    def __repr__(self):
        return safe_repr(self)  # bounded and cycle-safe: {% set ns.me = [ns] %} prints


class ChatNamespace(Namespace):
    # The chat profile's namespace: transformers' TemplateNamespace, which refuses names starting with '_'.

    __slots__ = ()

    @staticmethod
    def _check_name(name):
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got "
                                f"{name!r}. Please rename the attribute.")


def namespace_set(ns, attr, value):
    # {% set ns.attr = value %}
    if not isinstance(ns, Namespace):
        raise TemplateRuntimeError("cannot assign attribute on non-namespace object")
    ns._check_name(attr)
    ns._attrs[attr] = value


class GroupTuple(tuple):
    # One group of the groupby filter: a (grouper, list) pair that also has those two names as attributes,
    # and prints as a plain tuple (as Jinja2's namedtuple does).

    __slots__ = ()
    # Jinja2's group has a __repr__ of its own (tuple's, called by it), so pprint does not know it for a tuple: it
    # prints the group's repr on one line, the dicts in it unsorted (printing.py)
    mj_pprint_by_repr = True

    def __new__(cls, grouper, items):
        return tuple.__new__(cls, (grouper, items))

    @property
    def grouper(self):
        return self[0]

    @property
    def list(self):
        return self[1]
