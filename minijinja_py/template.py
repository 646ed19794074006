"""Template: a compiled template → rendered text (render, generate, stream, module), and its compile from source;
the wrappers over its output that Jinja2 has (TemplateStream, TemplateExpression); BoundedCache, which the caches
of compiled templates are."""

# Template.render(**context) runs the compiled closures and is the error boundary: whatever happens inside, what
# comes out is a string or a TemplateError carrying the template name, the source and a location. Template.generate
# and stream give the output piece by piece, Template.module a template's exported variables and macros. Templates
# come from an Environment (environment.py, the layer above), which compiles them with Template._compile.

from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms
from collections import OrderedDict
from _collections_abc import Iterator, Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Callable, NoReturn, Optional
    Variables = Optional[Mapping[str, Any]]

from .compile.compiler import compile_template
from .core.errors import (
    LimitExceeded, TemplateError, TemplateNotFound, TemplateSyntaxError, as_template_error, scrub_message,
)
from .core.state import RenderState, enter_render, gc_paused, leave_render
from .runtime.composition import TemplateContext, TemplateModule, make_module, render_chunks, run_template
from .runtime.objects import BreakLoop, ContinueLoop, join_output
from .runtime.undefined import Undefined
from .syntax.parse import normalize_newlines, parse

__all__ = ["Template", "TemplateStream", "TemplateExpression", "BoundedCache"]

CACHE_SIZE = 256
CACHE_CHARS = 1 << 19    # characters of source one cache of compiled templates holds (the corpus's 135: 453 000)


class BoundedCache:
    # key → value, the least recently used dropped past max_entries entries (None: any number; 0: nothing is
    # kept) or past max_weight in all (an entry heavier than max_weight alone is not kept). Safe to use from several
    # threads.
    #
    # The caches of compiled templates weigh each entry by the characters of source it was compiled from (what its
    # memory grows with: a compiled template takes some tens to a few hundred bytes per character of source), so that
    # what a process keeps is bounded by what the templates are, not only by how many there are: 25 distinct sources of
    # 240 000 characters must not stay in memory because 25 is fewer than 256.

    __slots__ = ("max_entries", "max_weight", "_items", "_weight", "_lock")

    def __init__(self, max_entries: "int | None", max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._items: "OrderedDict[object, tuple[object, int]]" = OrderedDict()
        self._weight = 0
        self._lock = allocate_lock()

    def get(self, key: object) -> object:
        # The value stored under key (now the most recently used), or None.
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: object, value: object, weight: int) -> None:
        # Store value under key, then drop the least recently used entries until the bounds hold again.
        if self.max_entries == 0 or weight > self.max_weight:
            self.pop(key)
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while self._weight > self.max_weight or \
                    (self.max_entries is not None and len(self._items) > self.max_entries):
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def pop(self, key: object) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]

    @property
    def weight(self) -> int:
        # The total weight held.
        return self._weight

    def __len__(self) -> int:
        return len(self._items)


def template_globals(globals):
    # A template's own globals as a new dict (a bad mapping is a TemplateError).
    try:
        return dict(globals) if globals else {}
    except Exception as exc:
        raise as_template_error(exc) from None


def _parse_and_compile(text, environment, autoescape, origin):
    # The compiled template of normalised text. The cyclic collector stays paused from the parse to the end of
    # the compile, and the tree is freed before it resumes: resumed in between, its next pass walks every node.
    with gc_paused():
        tree = parse(text, environment.trim_blocks, environment.lstrip_blocks, environment.limits.max_nesting,
                     environment._delimiters, environment.extensions)
        compiled = compile_template(tree, environment, autoescape, origin)
        del tree
    return compiled


class Template:
    """A compiled template. Immutable; safe to render from several threads at once.

    Template(source, **options) compiles source with a shared Environment(**options), as jinja2.Template does;
    environments make theirs with from_string() and get_template().
    """

    environment: "Any"   # the Environment that compiled it (environment.py, the layer above)
    source: str
    name: "Optional[str]"
    filename: "Optional[str]"
    globals: "dict[str, Any]"
    _uptodate: "Optional[Callable[[], bool]]"
    _module: "Optional[TemplateModule]"
    _autoescape: bool

    # Template(source) compiles with an Environment, which lives in the layer above: environment.py sets this to
    # its shared environment per set of options (as Jinja2 sets Template.environment_class).
    _spontaneous_environment: "Callable[[dict[str, Any]], Any]"

    def __new__(cls, source: str, **options: "Any") -> "Template":
        return cls._spontaneous_environment(options).from_string(source, template_class=cls)

    @classmethod
    def _compile(cls, environment, source, name=None, filename=None, globals=None, uptodate=None):
        self = object.__new__(cls)
        self.environment = environment
        self.source = source
        self.name = name
        self.filename = filename
        self._uptodate = uptodate
        self._module = None
        self.globals = template_globals(globals)
        self._autoescape = environment._autoescape_for(name)
        limits = environment.limits
        try:
            if len(source) > limits.max_template_size:
                raise LimitExceeded(f"template of {len(source)} characters exceeds the limit "
                                    f"max_template_size={limits.max_template_size}",
                                    limit="max_template_size", value=limits.max_template_size)
            text = normalize_newlines(source, environment.keep_trailing_newline)
            self._text = text
            self._origin = (name, filename, text)
            self._compiled = _parse_and_compile(text, environment, self._autoescape, self._origin)
        except TemplateError as exc:
            raise self._annotate(exc) from None
        except (RecursionError, MemoryError) as exc:
            raise self._annotate(as_template_error(exc)) from None
        except Exception as exc:  # anything else the parser or compiler raised is still a syntax error
            error = TemplateSyntaxError(scrub_message(f"{type(exc).__name__}: {exc}"))
            raise self._annotate(error) from exc
        return self

    def _annotate(self, exc):
        # The error as it leaves this template: its name, file and source unless a template it uses claimed it
        # (errors.claim), its message scrubbed.
        if exc.source is None:
            exc.filename = self.filename
            exc.source = getattr(self, "_text", None) or normalize_newlines(self.source, True)
            if isinstance(exc, TemplateNotFound):
                exc.loading_template = self.name
            else:
                exc.name = self.name
        if type(exc) is not TemplateError:  # raise_exception() messages stay verbatim
            exc.message = scrub_message(exc.message) if isinstance(exc.message, str) else exc.message
            exc.args = (exc.message,) + exc.args[1:]
        return exc

    def _full_globals(self):
        env_globals = self.environment.globals
        return env_globals if not self.globals else {**env_globals, **self.globals}

    @property
    def is_up_to_date(self) -> bool:
        """False when the loader says the source changed since it was compiled."""
        return self._uptodate is None or bool(self._uptodate())

    # ------------------------------------------------------------------------------------------ rendering
    def render(self, *args: "Any", **kwargs: "Any") -> str:
        """Render with the variables of a mapping and/or keyword arguments (Jinja2's signature). Raises
        TemplateError only (a TemplateRuntimeError subclass, LimitExceeded, ...), located in the template."""
        # (keywords alone: kwargs is this call's own new dict, the variables as they are; no copy of a copy)
        return self._render(kwargs if not args else _context(args, kwargs), None)

    def _render(self, context, generation_spans, fuel=None):
        # The render of the variables `context`; fuel: the step budget when not limits.max_steps (a chat render's
        # grows with its input). (A render of a small template is mostly what is done here: _full_globals in line.)
        env_globals, compiled = self.environment.globals, self._compiled
        globals_ = env_globals if not self.globals else {**env_globals, **self.globals}
        rs = RenderState(self.environment, globals_, context, self._autoescape, fuel)
        rs.generation_spans = generation_spans
        rs.generation_output = out = []
        token = enter_render(rs)
        try:
            if not compiled.needs_context:
                compiled.run(compiled.layout.root(rs), out)
            else:
                run_template(TemplateContext(rs, self.name, context, globals_, compiled.blocks, {}), self, out)
            try:
                return "".join(out)
            except TypeError:
                return join_output(out)   # which locates the block that wrote what is not text
        except BaseException as exc:
            self._raise_leaving(exc)
        finally:
            leave_render(token)

    def _raise_leaving(self, exc: BaseException) -> "NoReturn":
        # Raise what the exception exc, caught inside a render, leaves it as (in an except block).
        if isinstance(exc, TemplateError):
            raise self._annotate(exc) from None
        if isinstance(exc, (BreakLoop, ContinueLoop)):   # the compiler allows them only inside loops
            raise self._annotate(TemplateSyntaxError("break or continue outside a loop")) from None
        if isinstance(exc, Exception):   # an internal failure still leaves as a TemplateError, its cause chained
            error = as_template_error(exc)
            raise self._annotate(error) from error.__cause__
        raise exc   # KeyboardInterrupt, SystemExit, GeneratorExit: not ours to change

    def render_with_generation_spans(self, *args: "Any", **kwargs: "Any") -> "tuple[str, list[tuple[int, int]]]":
        """Render and also return the (start, end) character spans of {% generation %} blocks. Raises as
        render()."""
        spans: list[tuple[int, int]] = []
        return self._render(_context(args, kwargs), spans), spans

    def generate(self, *args: "Any", **kwargs: "Any") -> "Iterator[str]":
        """The output as an iterator of pieces, each rendered when it is asked for: one per top-level statement
        (empty ones left out), then those of the templates it extends. Raises as render(), while iterating."""
        return self._generate(_context(args, kwargs))

    def _generate(self, context):
        rs = RenderState(self.environment, self._full_globals(), context, self._autoescape)
        rs.joins_loop_output = False   # its pieces handed out as they are (Jinja2's), not joined
        template_context = TemplateContext(rs, self.name, context, rs.globals, self._compiled.blocks, {})
        try:
            yield from render_chunks(template_context, self, [])
        except GeneratorExit:
            raise
        except BaseException as exc:
            self._raise_leaving(exc)

    def stream(self, *args: "Any", **kwargs: "Any") -> "TemplateStream":
        """generate() as a TemplateStream (dump(file), enable_buffering(size))."""
        return TemplateStream(self.generate(*args, **kwargs))

    # -------------------------------------------------------------------------------------------- modules
    def make_module(self, vars: "Variables" = None, shared: bool = False,
                    locals: "Variables" = None) -> "TemplateModule":
        """The template's module: its exported top-level variables and macros as attributes, its output as
        str(). vars are the variables it renders with (shared: without the globals), locals added over them.
        Raises as render()."""
        variables = dict(vars or {})
        variables.update(locals or {})
        rs = RenderState(self.environment, {} if shared else self._full_globals(), variables, self._autoescape)
        holder = TemplateContext(rs, self.name, variables, rs.globals, {}, {})
        token = enter_render(rs)
        try:
            return make_module(holder, self, variables, outside=(rs, self._annotate))
        except BaseException as exc:
            self._raise_leaving(exc)
        finally:
            leave_render(token)

    @property
    def module(self) -> "TemplateModule":
        """make_module() without variables, made once."""
        if self._module is None:
            self._module = self.make_module()
        return self._module

    def __reduce__(self):
        # By source: environment, source and options go as one recipe, compiled once per process (_unpickle).
        import pickle   # only pickling needs it: not imported at start-up
        recipe = pickle.dumps((type(self), self.environment, self.source, self.name, self.filename,
                               self.globals or None))
        return (_unpickle_template, (recipe,))

    def __copy__(self):
        return self   # immutable

    def __deepcopy__(self, memo):
        import copy
        return type(self)._compile(copy.deepcopy(self.environment, memo), self.source, name=self.name,
                                   filename=self.filename, globals=copy.deepcopy(self.globals, memo),
                                   uptodate=self._uptodate)

    def __repr__(self):
        return f"<Template {self.name or 'from_string'!s}>"


def _context(args, kwargs):
    # render()'s variables: a mapping and/or keywords, as dict() takes them (a bad argument is a TemplateError).
    try:
        return dict(*args, **kwargs)
    except Exception as exc:
        raise as_template_error(exc) from None


# a pickled template's recipe → the template compiled from it in this process
_UNPICKLED = BoundedCache(CACHE_SIZE, CACHE_CHARS)


def _unpickle_template(recipe):
    # The template a pickle holds, compiled at most once per process while among the last CACHE_SIZE (and
    # CACHE_CHARS of source): a worker that receives the same template with each task compiles it once.
    # Templates unpickled from one recipe are one object (immutable, as every Template).
    template = _UNPICKLED.get(recipe)
    if template is not None:
        return template
    import pickle   # only unpickling needs it: not imported at start-up
    cls, environment, source, name, filename, globals_ = pickle.loads(recipe)
    template = cls._compile(environment, source, name=name, filename=filename, globals=globals_)
    _UNPICKLED.put(recipe, template, len(source))
    return template


# ------------------------------------------------------------------------------- wrappers over a template's output
class TemplateStream:
    # Template.stream(): an iterator over a render's text pieces (those of generate()); dump(file) writes them,
    # enable_buffering(size) joins them in groups of size non-empty pieces.

    def __init__(self, pieces: "Iterator[str]") -> None:
        self._pieces = pieces
        self.disable_buffering()

    def dump(self, fp: "Any", encoding: "Optional[str]" = None, errors: str = "strict") -> None:
        # Write the stream to fp: a file name (written as UTF-8 unless encoding says otherwise) or a file
        # object (text, or bytes when encoding is given).
        close = False
        if isinstance(fp, str):
            encoding = encoding or "utf-8"
            fp = open(fp, "wb")
            close = True
        try:
            pieces = (piece.encode(encoding, errors) for piece in self) if encoding is not None else self
            if hasattr(fp, "writelines"):
                fp.writelines(pieces)
            else:
                for piece in pieces:
                    fp.write(piece)
        finally:
            if close:
                fp.close()

    def disable_buffering(self) -> None:
        self._next = self._pieces.__next__
        self.buffered = False

    def enable_buffering(self, size: int = 5) -> None:
        if size <= 1:
            raise ValueError("buffer size too small")
        self._next = self._buffered(size).__next__
        self.buffered = True

    def _buffered(self, size: int) -> "Iterator[str]":
        buffer: list[str] = []
        count = 0
        for piece in self._pieces:
            buffer.append(piece)
            if piece:
                count += 1
            if count >= size:
                yield "".join(buffer)
                buffer, count = [], 0
        if count:
            yield "".join(buffer)

    def __iter__(self) -> "TemplateStream":
        return self

    def __next__(self) -> str:
        return self._next()


class TemplateExpression:
    # Environment.compile_expression(source): calling it evaluates the expression with the variables given (a
    # mapping and/or keywords); an undefined result is None unless undefined_to_none is false.

    def __init__(self, template: "Template", undefined_to_none: bool) -> None:
        self._template = template
        self._undefined_to_none = undefined_to_none

    def __call__(self, *args: "Any", **kwargs: "Any") -> "Any":
        module = self._template.make_module(dict(*args, **kwargs))
        value = module["result"]
        if self._undefined_to_none and isinstance(value, Undefined):
            return None
        return value
