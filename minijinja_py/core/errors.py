"""Errors: exception → message with template name, line, column, the source line and a caret."""

# Every error that leaves `from_string` or `render` is a TemplateError. Where Jinja2 would let a Python built-in
# exception escape (TypeError, ValueError, ...), we raise a *twin*: a TemplateRuntimeError subclass that is also
# that built-in, so both `except TypeError` and `except TemplateError` catch it.

import builtins
import re
import sys
from operator import attrgetter

__all__ = [
    "TemplateError", "TemplateSyntaxError", "TemplateAssertionError", "python_syntax_twin", "TemplateRuntimeError",
    "UndefinedError", "SecurityError", "FilterArgumentError", "LimitExceeded", "TemplateNotFound", "TemplatesNotFound",
    "TemplateLoadError", "twin_of", "limit_twin", "claim", "jinja2_named",
    "as_template_error", "scrub_message", "without_addresses", "located", "location", "error_at", "state_not_counted",
]

# Lines longer than this are cropped around the column in str(error).
_MAX_SHOWN_LINE = 120


class TemplateError(Exception):
    """Base class of every error minijinja_py raises.

    `.message` is the bare text (as Jinja2's), `.lineno`/`.colno` are 1-based (None when unknown), `.name` is the
    template name, `.filename` the file it was loaded from (None for a string or a loader without files) and
    `.source` the template text, all filled in when the error crosses the template boundary.
    """

    def __init__(self, message="", lineno=None, colno=None, *, end=None, name=None, source=None, filename=None):
        Exception.__init__(self, message)
        self.message = message
        self.lineno = lineno
        self.colno = colno
        # (line, col) just past the offending span, for the caret width; not named `end`, which the Unicode errors
        # reserve for an int
        self.end_pos = end
        self.name = name
        self.filename = filename
        self.source = source

    def _location_name(self):
        # The name of the template the location points into.
        return self.name

    def locate(self, lineno, colno, end=None):
        """Attach a location unless a more precise (inner) one is already there: the innermost wins."""
        if self.lineno is None:
            self.lineno, self.colno, self.end_pos = lineno, colno, end
        return self

    def __str__(self):
        text = self.message if isinstance(self.message, str) else str(self.message)   # raise_exception(5)
        where_name = self._location_name()
        if self.lineno is None:
            return text if where_name is None else f"{text}\n  in {where_name}"
        where = f"{where_name or '<template>'}:{self.lineno}" + (f":{self.colno}" if self.colno is not None else "")
        shown = self._source_excerpt()
        return f"{text}\n  --> {where}" + (f"\n{shown}" if shown else "")

    def __reduce__(self):
        state = self.__dict__.copy()
        # SyntaxError keeps lineno in a slot of its own, not in __dict__ (the PythonSyntaxTwin)
        state.update(zip(_LOCATION, _location_of(self)))
        made_of = _twin_origins.get(type(self))
        if made_of is not None:   # a twin: named by what it is made of, made again by the process unpickling it
            return (_rebuild_twin_error, (*made_of, self.message, state))
        return (_rebuild_error, (type(self), self.message, state))

    def _source_excerpt(self):
        if self.source is None or self.lineno is None:
            return ""
        lines = self.source.split("\n")
        if not 1 <= self.lineno <= len(lines):
            return ""
        line = lines[self.lineno - 1]
        col = max(1, self.colno or 1)
        if self.end_pos is not None and self.end_pos[0] == self.lineno:
            width = max(1, self.end_pos[1] - col)
        elif self.end_pos is not None and self.end_pos[0] > self.lineno:
            width = max(1, len(line) - (col - 1))  # the span goes on below: mark the rest of this line
        else:
            width = 1
        start = 0
        if len(line) > _MAX_SHOWN_LINE:
            start = max(0, min(col - 1 - _MAX_SHOWN_LINE // 2, len(line) - _MAX_SHOWN_LINE))
        shown = line[start:start + _MAX_SHOWN_LINE]
        prefix = "…" if start > 0 else ""
        suffix = "…" if start + _MAX_SHOWN_LINE < len(line) else ""
        # Escape control and bidi characters so the excerpt cannot reorder or hide text in a terminal; the caret
        # is placed by the width of what is actually printed.
        before = _printable(shown[:col - 1 - start])
        marked = _printable(shown[col - 1 - start:col - 1 - start + width]) or " "
        after = _printable(shown[col - 1 - start + width:])
        gutter = f"{self.lineno} | "
        caret_line = " " * (len(gutter) + _columns(prefix + before)) + "^" * max(1, _columns(marked))
        return f"{gutter}{prefix}{before}{marked}{after}{suffix}\n{caret_line}"


_LOCATION = ("lineno", "colno", "end_pos", "name", "filename", "source")
_location_of = attrgetter(*_LOCATION)


def _rebuild_error(cls, message, state):
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    for attr, value in state.items():
        setattr(err, attr, value)
    return err


def _rebuild_twin_error(make, builtin_cls, message, state):
    return _rebuild_error(make(builtin_cls), message, state)


def _printable(text):
    import unicodedata   # here and in _columns: only error messages need it, not a cold start
    out = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def _columns(text):
    # How many terminal columns text takes: wide (CJK) characters two, combining marks none.
    import unicodedata
    width = 0
    for ch in text:
        if ord(ch) < 0x300:
            width += 1
        elif unicodedata.combining(ch):
            continue
        else:
            width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


# An object's default repr shows its memory address: "<function f at 0x7f...>", "<weakref at 0x7f...; to 'T'>".
# Neither messages nor printed values ever do. (A pattern given to re's functions as text: compiled on first use and
# kept in re's cache, not at import.)
_ADDRESS = r" at 0x[0-9a-fA-F]+"
_MAX_MESSAGE = 2000


# Built-in filters that take the render state as their first argument where Jinja2's take nothing: Python counts
# that argument in an arity error ("do_urlencode() takes 2 positional arguments but 3 were given"); Jinja2's
# message, for the same template, counts one less. Keyed by the function's name, which is all the message holds.
_STATE_NOT_COUNTED = set()
# Built-ins whose Jinja2 counterpart has another name (our do_first is its sync_do_first), or is a Python built-in
# whose arity errors read otherwise (len, callable, operator.eq, list.index): {our qualified name: (its name, style,
# how many leading parameters it lacks)}, filled by jinja2_named as the built-ins are defined. Styles: "function" (a
# Python function: its name), "one" (a built-in taking one argument: "len() takes exactly one argument (2 given)"),
# "operator" (operator.eq: "eq expected 2 arguments, got 1"), "method" (list.index, dict.fromkeys: "index expected
# at least 1 argument, got 0"), "at_most" (str.encode: "encode() takes at most 2 arguments (3 given)").
_JINJA2_NAMES = {}
# Pattern strings, compiled on first use (re's cache): compiling them at import was ~0.2 ms of every cold start.
_ARITY = r"([\w.]+)\(\) takes (?:from (\d+) to (\d+)|(\d+)) positional arguments? but (\d+) (?:was|were) given"
_ARITY_OTHER = r"([\w.]+)\(\) (missing (\d+) required positional arguments?: .*|got an unexpected keyword argument .*|" \
    r"got some positional-only arguments passed as keyword arguments: .*|got multiple values for argument .*)"


def state_not_counted(func):
    # Mark a built-in that takes the state where Jinja2's counterpart takes no context (see _STATE_NOT_COUNTED).
    _STATE_NOT_COUNTED.add(func.__name__)
    return func


def jinja2_named(name, style="function", uncounted=0):
    # Mark a built-in whose Jinja2 counterpart is named `name` in Python's arity errors and lacks its first
    # `uncounted` parameters (self, the state): see _JINJA2_NAMES.
    def mark(func):
        _JINJA2_NAMES[func.__qualname__] = (name, style, uncounted)
        return func
    return mark


def _arguments(n):
    return f"{n} positional argument{'' if n == 1 else 's'}"


def _arity_as_jinja2_says(message):
    # An arity message about one of our built-ins as Jinja2's counterpart gives it: its name, its counts.
    found = re.fullmatch(_ARITY, message)
    if found is None:
        return _other_arity_as_jinja2_says(message)
    ours, low, high, exact, given = found.groups()
    name, style, uncounted = _JINJA2_NAMES.get(ours, (ours, "function", 0))
    if ours not in _STATE_NOT_COUNTED and ours not in _JINJA2_NAMES:
        return message
    uncounted += ours in _STATE_NOT_COUNTED
    low, high, exact, given = (None if x is None else int(x) - uncounted for x in (low, high, exact, given))
    if style == "one":
        return f"{name}() takes exactly one argument ({given} given)"
    if style == "operator":
        return f"{name} expected 2 arguments, got {given}"
    if style == "method":
        return f"{name} expected at most {high or exact} arguments, got {given}"
    if style == "at_most":
        most = high or exact
        return f"{name}() takes at most {most} argument{'' if most == 1 else 's'} ({given} given)"
    takes = f"from {low} to {high} positional arguments" if low is not None else _arguments(exact)
    return f"{name}() takes {takes} but {given} {'was' if given == 1 else 'were'} given"


def _other_arity_as_jinja2_says(message):
    # A missing argument or a keyword not taken, about a built-in of _JINJA2_NAMES.
    found = re.fullmatch(_ARITY_OTHER, message)
    if found is None or found.group(1) not in _JINJA2_NAMES:
        return message
    (name, style, _), rest, missing = _JINJA2_NAMES[found.group(1)], found.group(2), found.group(3)
    if style == "function":
        return f"{name}() {rest}"
    if missing is None and style == "at_most":   # (a keyword it does not have)
        keyword = re.search(r"'(.*)'", rest)
        return f"'{keyword.group(1) if keyword else ''}' is an invalid keyword argument for {name}()"
    if missing is None:   # a keyword: the built-ins take none
        return f"{'_operator.' if style == 'operator' else ''}{name}() takes no keyword arguments"
    if style == "operator":
        return f"{name} expected 2 arguments, got {2 - int(missing)}"
    if style == "method":
        return f"{name} expected at least 1 argument, got 0"
    return f"{name}() takes exactly one argument (0 given)"


def without_addresses(text):
    # text with every ` at 0x7f...` that Python's reprs write (PyPy's too) left out, the words around it kept.
    return re.sub(_ADDRESS, "", text)


def scrub_message(message):
    # A Python error message as templates may see it: no memory addresses, at most a few lines long.
    if " at 0x" in message:
        message = without_addresses(message)
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE // 2] + " … " + message[-_MAX_MESSAGE // 2:]
    return message


class TemplateSyntaxError(TemplateError):
    """The template source is malformed; raised by `from_string`, never later.

    Made by hand it also takes Jinja2's positional arguments, (message, lineno, name, filename): a string where
    the column goes is the template's name."""

    def __init__(self, message="", lineno=None, colno=None, *jinja2_filename, **kw):
        if isinstance(colno, str):
            kw.setdefault("name", colno)
            colno = None
            if jinja2_filename:
                kw.setdefault("filename", jinja2_filename[0])
        elif jinja2_filename:
            raise TypeError("TemplateSyntaxError takes (message, lineno, colno) or Jinja2's (message, lineno, name, "
                            "filename)")
        TemplateError.__init__(self, message, lineno, colno, **kw)


class TemplateAssertionError(TemplateSyntaxError):
    """A template that parses but cannot compile: an unknown filter or test outside any `if`, an extends that is
    not at the top level, a block defined twice."""


class TemplateRuntimeError(TemplateError):
    """An error while rendering."""


class UndefinedError(TemplateRuntimeError):
    """An undefined value was used in a way that needs a real value."""


class SecurityError(TemplateRuntimeError):
    """The template tried to reach something the sandbox does not allow."""


class TemplateNotFound(IOError, LookupError, TemplateError):
    """A loader has no template of that name (Jinja2's class: also an IOError and a LookupError). `.name` is the
    name asked for, `.templates` the names tried; raised inside a render, it is located at the tag that loaded."""

    def __init__(self, name, message=None):
        if message is None:
            fail = getattr(type(name), "_fail_with_undefined_error", None)
            if fail is not None:   # an undefined name: the undefined's own error, as Jinja2
                fail(name)
            message = name
        TemplateError.__init__(self, message)
        self.name = name
        self.templates = [name]
        self.loading_template = None   # the template whose tag asked for it, once the error leaves a render

    def _location_name(self):
        return self.loading_template

    __str__ = TemplateError.__str__
    __reduce__ = TemplateError.__reduce__


class TemplatesNotFound(TemplateNotFound):
    """None of the names given to select_template() (or an {% include [...] %}) exists."""

    def __init__(self, names=(), message=None):
        names = list(names)
        if message is None:
            parts = [getattr(name, "_undefined_message", name) for name in names]
            message = "none of the templates given were found: " + ", ".join(map(str, parts))
        TemplateNotFound.__init__(self, names[-1] if names else None, message)
        self.templates = names


class TemplateLoadError(TemplateError):
    """A template or model file could not be loaded: `.path` names the file (or the model id, or the template
    name a loader was asked for), the message says why: unreadable, not a regular file, too large, not text,
    malformed, or a loader that failed."""

    def __init__(self, message="", path=None, **kw):
        TemplateError.__init__(self, message, **kw)
        self.path = path


class FilterArgumentError(TemplateRuntimeError):
    """A filter was called with arguments it cannot use (as Jinja2's FilterArgumentError)."""


class LimitExceeded(TemplateRuntimeError):
    """A resource limit (size, depth, steps, ...) was exceeded. `.limit` names it, `.value` is its setting."""

    def __init__(self, message="", lineno=None, colno=None, *, limit=None, value=None, **kw):
        TemplateRuntimeError.__init__(self, message, lineno, colno, **kw)
        self.limit = limit
        self.value = value


# Twins are made on first use, none at import (each is a class with a deep MRO: six made at import were ~1% of its
# time). An error of a twin pickles as (its maker, its built-in) (TemplateError.__reduce__), so that a process that
# has not made that twin yet (a worker unpickling an error) makes it; the module's attribute of the twin's name is
# set when the twin is made, so that the class itself also pickles by name.
_twins = {}
_twin_origins = {}   # twin → (twin_of or limit_twin, the built-in it was made of)


def twin_of(builtin_cls: "type[Exception]") -> "type[TemplateRuntimeError]":
    """The TemplateRuntimeError subclass that is also `builtin_cls` (TemplateTypeError for TypeError, ...)."""
    twin = _twins.get(builtin_cls)
    if twin is None:
        name = f"Template{builtin_cls.__name__}"
        if name in __all__:  # RuntimeError, SyntaxError, AssertionError: the name is one of our own classes'
            name = f"TemplateBuiltin{builtin_cls.__name__}"
        try:
            twin = type(name, (TemplateRuntimeError, builtin_cls),
                        {"__module__": __name__, "__str__": TemplateError.__str__,
                         "__init__": TemplateError.__init__})
            twin("")   # a built-in whose __new__ wants more than a message (ExceptionGroup) cannot be twinned
        except TypeError:  # nor one whose instance layout cannot be combined: fall back to the plain class
            twin = TemplateRuntimeError
        else:
            _twin_origins[twin] = (twin_of, builtin_cls)
            globals()[name] = twin
        _twins[builtin_cls] = twin
    return twin


_limit_twins = {}


def limit_twin(builtin_cls):
    # A LimitExceeded that is also `builtin_cls` (range() past max_range is Jinja2's OverflowError too).
    twin = _limit_twins.get(builtin_cls)
    if twin is None:
        twin = type(f"LimitExceeded{builtin_cls.__name__}", (LimitExceeded, builtin_cls),
                    {"__module__": __name__, "__str__": TemplateError.__str__, "__init__": LimitExceeded.__init__})
        _limit_twins[builtin_cls] = twin
        _twin_origins[twin] = (limit_twin, builtin_cls)
        globals()[twin.__name__] = twin
    return twin


def python_syntax_twin(builtin_cls=SyntaxError):
    # PythonSyntaxTwin, the error of a template that Jinja2 parses but whose generated Python does not compile
    # (`break` outside a loop, a duplicate macro parameter): Jinja2 lets Python's SyntaxError escape, we raise this
    # class, which is both. Made on first use like the twins above (at import it was ~0.1 M instructions of a cold
    # start); builtin_cls is there for _rebuild_twin_error, which unpickles an error of it.
    twin = globals().get("PythonSyntaxTwin")
    if twin is None:
        twin = type("PythonSyntaxTwin", (TemplateSyntaxError, builtin_cls),
                    {"__module__": __name__, "__str__": TemplateSyntaxError.__str__,
                     "__init__": _syntax_twin_init})
        _twin_origins[twin] = (python_syntax_twin, builtin_cls)
        globals()[twin.__name__] = twin
    return twin


def _syntax_twin_init(self, message, lineno=None, colno=None, **kw):
    TemplateSyntaxError.__init__(self, message, lineno, colno, **kw)


def _builtin_base(exc):
    # The most specific class in exc's MRO that is a Python built-in exception.
    for cls in type(exc).__mro__:
        if getattr(builtins, cls.__name__, None) is cls and issubclass(cls, Exception):
            return cls
    return None


def as_template_error(exc, lineno=None, colno=None, end=None):
    # Turn any exception into a TemplateError carrying this location (unless it already has an inner one).
    #
    # RecursionError and MemoryError become LimitExceeded: a bad template must not look like a host crash.
    if isinstance(exc, TemplateError):
        return exc.locate(lineno, colno, end)
    if isinstance(exc, RecursionError):
        limit = sys.getrecursionlimit()
        err = LimitExceeded(f"the template nests calls, blocks or data too deeply for Python's recursion limit "
                            f"(sys.getrecursionlimit() = {limit}); lower Limits.max_call_depth or max_data_depth",
                            limit="recursion_limit", value=limit)
    elif isinstance(exc, MemoryError):
        err = LimitExceeded("out of memory while rendering", limit="memory", value=None)
    else:
        base = _builtin_base(exc)
        try:
            if isinstance(exc, KeyError) and len(exc.args) == 1:
                message = _key_repr(exc.args[0])
            else:
                message = str(exc)
        except TemplateError:
            raise
        except Exception:  # an exception whose str() fails: its class is all there is to say
            message = type(exc).__name__
        message = scrub_message(message)
        if base is TypeError and "() " in message:
            message = _arity_as_jinja2_says(message)
        err = (twin_of(base) if base is not None and base is not Exception else TemplateRuntimeError)(message)
        if isinstance(exc, OSError):
            err.args = (message,)
    if not isinstance(err, TemplateRuntimeError) or err.message == _plain_message(exc):
        err.__cause__ = exc  # kept for debugging, unless its text showed what the message had to hide
    else:
        err.__suppress_context__ = True
    return err.locate(lineno, colno, end)


def _key_repr(key):
    # A missing key as KeyError's message shows it (its repr), for the keys templates use: strings and numbers;
    # anything else by its type only (its repr could be huge, show an address, or fail).
    if key is None or type(key) in (str, int, float, bool):
        return repr(key) if type(key) is not str or len(key) < _MAX_MESSAGE else repr(key[:_MAX_MESSAGE]) + "…"
    return f"<{type(key).__name__} object>"


MAX_POSITION = 0xFFFFF   # a packed location's col, end_line and end_col fields: 20 bits each (line: the rest)


def location(span):
    # (line, col, (end_line, end_col)) of a node's location: a Span, or the int compile/context.place packs one
    # into (line << 60 | col << 40 | end_line << 20 | end_col).
    if span.__class__ is int:
        return span >> 60, span >> 40 & MAX_POSITION, (span >> 20 & MAX_POSITION, span & MAX_POSITION)
    return span.line, span.col, (span.end_line, span.end_col)


def located(exc, span):
    # The one way a location is attached: any exception → a TemplateError carrying span's location, unless it
    # already has an inner one (the innermost wins).
    return as_template_error(exc, *location(span))


def claim(exc, origin):
    # Give a TemplateError located in a template the (name, filename, source) of that template, unless an inner
    # one claimed it first: called where each template function (root, block, macro) hands an error on.
    if exc.source is None and exc.lineno is not None:
        name, exc.filename, exc.source = origin
        if isinstance(exc, TemplateNotFound):
            exc.loading_template = name
        else:
            exc.name = name
    return exc


def error_at(cls, message, span):
    # A new error of class cls located at span.
    line, col, end = location(span)
    return cls(message, line, col, end=end)


def _plain_message(exc):
    try:
        return repr(exc.args[0]) if isinstance(exc, KeyError) and len(exc.args) == 1 else str(exc)
    except Exception:
        return None
