"""Environment and Template: options + filters/tests/globals (+ a loader) → compiled templates → rendered text.

Environment(...) mirrors jinja2.Environment (an immutable sandbox by default: see README, compatibility table);
env.from_string(source) and env.get_template(name) parse and compile once (TemplateSyntaxError there, never later
for syntax) and cache; Template.render(**context) runs the compiled closures and is the error boundary: whatever
happens inside, what comes out is a string or a TemplateError carrying the template name, the source and a
location. Template.generate/stream give the output piece by piece, Template.module a template's exported
variables and macros; mj.Template(source, **options) compiles with a shared environment per set of options.
"""

import copy
import pickle
import threading
from collections import OrderedDict

from . import nodes
from .base import Limits, RenderState, enter_render, leave_render
from .budget import charged
from .compiler import compile_template
from .composition import TemplateContext, make_module, render_chunks, run_template
from .errors import (
    LimitExceeded, TemplateError, TemplateNotFound, TemplateRuntimeError, TemplateSyntaxError, TemplatesNotFound,
    UndefinedError, as_template_error, scrub_message, twin_of,
)
from .filters import FILTERS
from .runtime import (
    BreakLoop, ContinueLoop, Cycler, DictFactory, Joiner, Namespace, join_output, lipsum, sandboxed_range,
)
from .streams import TemplateExpression, TemplateStream
from .syntax import normalize_newlines, parse
from .tests import TESTS
from .undefined import Undefined

__all__ = ["Environment", "Template", "ParsedTemplate", "DEFAULT_POLICIES"]

# Jinja2's extension names, and ours. "generation" ({% generation %}) is what transformers' AssistantTracker adds.
_EXTENSIONS = {
    "loopcontrols": "loopcontrols", "jinja2.ext.loopcontrols": "loopcontrols",
    "do": "do", "jinja2.ext.do": "do",
    "generation": "generation",
}
_CACHE_SIZE = 256
DEFAULT_POLICIES = {
    "compiler.ascii_str": True, "urlize.rel": "noopener", "urlize.target": None, "urlize.extra_schemes": None,
    "truncate.leeway": 5, "json.dumps_function": None, "json.dumps_kwargs": {"sort_keys": True},
    "ext.i18n.trimmed": False,
}
# Jinja2 options accepted with their default value only (README: custom delimiters and line statements are
# not supported), and options accepted and ignored (there is no Python code to optimise or cache).
_FIXED_OPTIONS = {
    "block_start_string": "{%", "block_end_string": "%}", "variable_start_string": "{{",
    "variable_end_string": "}}", "comment_start_string": "{#", "comment_end_string": "#}",
    "line_statement_prefix": None, "line_comment_prefix": None, "enable_async": False,
}
_IGNORED_OPTIONS = ("optimized", "bytecode_cache")
_NEWLINES = ("\n", "\r\n", "\r")


def default_globals():
    return {"range": sandboxed_range, "dict": DictFactory(), "lipsum": lipsum, "cycler": Cycler, "joiner": Joiner,
            "namespace": Namespace}


class Environment:
    """Options, filters, tests, globals and a loader shared by the templates compiled from it.

    Defaults are Jinja2's. The sandbox is always on: immutable (the caller's lists and dicts cannot be changed,
    as Jinja2's ImmutableSandboxedEnvironment and transformers) unless immutable=False (Jinja2's
    SandboxedEnvironment); `limits` (a Limits) bounds every resource.
    """

    sandboxed = True
    is_async = False
    shared = False
    overlayed = False
    linked_to = None

    def __init__(self, trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=False, autoescape=False,
                 undefined=Undefined, extensions=(), limits=None, random_seed=0, *, loader=None, finalize=None,
                 newline_sequence="\n", immutable=True, cache_size=400, auto_reload=True, **jinja2_options):
        self.extensions = frozenset()
        self._configure(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks,
                        keep_trailing_newline=keep_trailing_newline, autoescape=autoescape, undefined=undefined,
                        extensions=extensions, limits=limits, random_seed=random_seed, loader=loader,
                        finalize=finalize, newline_sequence=newline_sequence, immutable=immutable,
                        cache_size=cache_size, auto_reload=auto_reload, **jinja2_options)
        self.filters = dict(FILTERS)
        self.tests = dict(TESTS)
        self.globals = default_globals()
        self.policies = {key: dict(value) if isinstance(value, dict) else value
                         for key, value in DEFAULT_POLICIES.items()}
        self._new_caches()

    def _configure(self, **options):
        """Set options (the constructor's and overlay's), each checked."""
        for name, value in options.items():
            if name in _FIXED_OPTIONS:
                if value != _FIXED_OPTIONS[name]:
                    what = "async rendering" if name == "enable_async" else "custom delimiters and line statements"
                    raise ValueError(f"{name}={value!r}: {what} are not supported by minijinja_py")
            elif name in _IGNORED_OPTIONS:
                continue
            elif name == "undefined":
                if not (isinstance(value, type) and issubclass(value, Undefined)):
                    raise TypeError("undefined must be minijinja_py.Undefined or a subclass of it")
                self.undefined = value
            elif name == "extensions":
                self.extensions = self.extensions | frozenset(self._extension(e) for e in value)
            elif name == "limits":
                self.limits = value if value is not None else Limits()
                if not isinstance(self.limits, Limits):
                    raise TypeError("limits must be a minijinja_py.Limits")
            elif name == "newline_sequence":
                if value not in _NEWLINES:
                    raise ValueError("newline_sequence must be one of '\\n', '\\r\\n' or '\\r'")
                self.newline_sequence = value
            elif name in ("trim_blocks", "lstrip_blocks", "keep_trailing_newline", "autoescape", "random_seed",
                          "loader", "finalize", "immutable", "cache_size", "auto_reload"):
                setattr(self, name, value)
            else:
                raise TypeError(f"unexpected Environment option {name!r}")

    def _new_caches(self):
        self._cache = OrderedDict()      # from_string: (source, options...) → Template
        self._loaded = OrderedDict()     # get_template: (loader, name, options...) → Template
        self._cache_lock = threading.Lock()

    @staticmethod
    def _extension(name):
        key = name if isinstance(name, str) else f"{getattr(name, '__module__', '')}.{getattr(name, '__name__', '')}"
        try:
            return _EXTENSIONS[key]
        except KeyError:
            raise ValueError(f"unknown extension {name!r}; available: loopcontrols, do "
                             "(or jinja2.ext.loopcontrols, jinja2.ext.do)") from None

    def _options_key(self):
        # Filters, tests and options are read at compile time, so they are part of what a compiled template is.
        return (self.trim_blocks, self.lstrip_blocks, self.keep_trailing_newline,
                bool(self.autoescape) if not callable(self.autoescape) else self.autoescape, self.undefined,
                self.extensions, self.limits, self.finalize, self.newline_sequence,
                tuple(self.filters.items()), tuple(self.tests.items()))

    def _cached(self, cache, key, size, make):
        """cache[key], or make() stored there (least recently used dropped past size; size < 0: unbounded)."""
        try:
            hash(key)
        except TypeError:   # an unhashable filter or test: skip the cache
            return make()
        with self._cache_lock:
            template = cache.get(key)
            if template is not None:
                cache.move_to_end(key)
                return template
        template = make()
        if size:
            with self._cache_lock:
                cache[key] = template
                while 0 < size < len(cache):
                    cache.popitem(last=False)
        return template

    # ------------------------------------------------------------------------------------------- templates
    def from_string(self, source, globals=None, template_class=None, name=None):
        """Compile template source. Raises TemplateSyntaxError (or LimitExceeded) for a bad template."""
        _check_source(source)
        cls = template_class or Template
        key = (source, name, cls, id(globals) if globals else None, self._options_key())
        return self._cached(self._cache, key, _CACHE_SIZE,
                            lambda: cls._compile(self, source, name=name, globals=globals))

    def _template_from_source(self, source, name, filename, globals, uptodate):
        _check_source(source)
        return Template._compile(self, source, name=name, filename=filename, globals=globals, uptodate=uptodate)

    def get_template(self, name, parent=None, globals=None):
        """The template `name` from the loader (cached; reloaded when auto_reload and it changed). Raises
        TemplateNotFound, or TypeError when the environment has no loader, as Jinja2."""
        if isinstance(name, Template):
            return name
        if parent is not None:
            name = self.join_path(name, parent)
        return self._load_template(name, globals)

    def _load_template(self, name, globals):
        if self.loader is None:
            raise twin_of(TypeError)("no loader for this environment specified")
        key = (self.loader, name, self._options_key())
        with self._cache_lock:
            template = self._loaded.get(key)
        if template is not None and (not self.auto_reload or template.is_up_to_date):
            if globals:
                template.globals.update(globals)
            return template
        with self._cache_lock:
            self._loaded.pop(key, None)

        def load():
            try:
                source, filename, uptodate = self.loader.get_source(self, name)
            except TemplateNotFound:
                raise
            except Exception as exc:
                if type(exc).__name__ in ("TemplateNotFound", "TemplatesNotFound"):   # a Jinja2 loader's
                    raise TemplateNotFound(name) from None
                raise
            return self._template_from_source(source, name, filename, globals, uptodate)
        return self._cached(self._loaded, key, self.cache_size, load)

    def select_template(self, names, parent=None, globals=None):
        """The first of names the loader has; TemplatesNotFound when none."""
        if isinstance(names, Undefined):
            names._fail_with_undefined_error()
        if not names:
            raise TemplatesNotFound(message="Tried to select from an empty list of templates.")
        for name in names:
            if isinstance(name, Template):
                return name
            if parent is not None:
                name = self.join_path(name, parent)
            try:
                return self._load_template(name, globals)
            except (TemplateNotFound, UndefinedError):
                pass
        raise TemplatesNotFound(names)

    def get_or_select_template(self, template_name_or_list, parent=None, globals=None):
        """get_template for a name, select_template for a list of names, the template itself for a Template."""
        if isinstance(template_name_or_list, (str, Undefined)):
            return self.get_template(template_name_or_list, parent, globals)
        if isinstance(template_name_or_list, Template):
            return template_name_or_list
        return self.select_template(template_name_or_list, parent, globals)

    def list_templates(self, extensions=None, filter_func=None):
        """The names the loader knows, those with one of extensions or those filter_func accepts."""
        names = self.loader.list_templates()
        if extensions is not None:
            if filter_func is not None:
                raise TypeError("either extensions or filter_func can be passed, but not both")
            filter_func = lambda name: "." in name and name.rsplit(".", 1)[1] in extensions  # noqa: E731
        return [name for name in names if filter_func(name)] if filter_func is not None else names

    def join_path(self, template, parent):
        """The name a template loaded from `parent` asks for means (Jinja2's hook: the name as it is)."""
        return template

    def _autoescape_for(self, name):
        return bool(self.autoescape(name)) if callable(self.autoescape) else bool(self.autoescape)

    # ------------------------------------------------------------------------------------------ the rest
    def overlay(self, **options):
        """A new environment sharing this one's filters, tests, globals and policies, with some options changed
        (extensions are added to this one's), and caches of its own."""
        rv = object.__new__(type(self))
        rv.__dict__.update(self.__dict__)
        rv.overlayed, rv.linked_to = True, self
        rv._configure(**options)
        rv._new_caches()
        return rv

    def extend(self, **attributes):
        """Add attributes the environment does not have yet (Jinja2's hook for extensions)."""
        for key, value in attributes.items():
            if not hasattr(self, key):
                setattr(self, key, value)

    def make_globals(self, d):
        """The globals a template of this environment sees, with d over the environment's."""
        return {**self.globals, **(d or {})}

    def parse(self, source, name=None, filename=None):
        """The AST of source (nodes.Template), for meta.find_undeclared_variables and friends."""
        text = normalize_newlines(source, self.keep_trailing_newline)
        try:
            tree = parse(text, self.trim_blocks, self.lstrip_blocks, self.limits.max_nesting)
        except TemplateError as exc:
            exc.name, exc.filename, exc.source = name, filename, text
            raise
        return ParsedTemplate(tree.span, tree.body, self)

    def compile_expression(self, source, undefined_to_none=True):
        """A callable that evaluates the expression source with the variables it is given (Jinja2's
        compile_expression): env.compile_expression("a > b")(a=2, b=1) is True."""
        template = self.from_string("{% set result = (" + source + "\n) %}")
        return TemplateExpression(template, undefined_to_none)

    def call_filter(self, name, value, args=None, kwargs=None, context=None, eval_context=None):
        """Apply the filter `name` outside a template (TemplateRuntimeError if there is none)."""
        return self._call_registered(self.filters, "filter", name, value, args, kwargs)

    def call_test(self, name, value, args=None, kwargs=None, context=None, eval_context=None):
        """Apply the test `name` outside a template (TemplateRuntimeError if there is none)."""
        return self._call_registered(self.tests, "test", name, value, args, kwargs)

    def _call_registered(self, registry, kind, name, value, args, kwargs):
        func = registry.get(name)
        if func is None:
            raise TemplateRuntimeError(f"No {kind} named {name!r}.")
        rs = RenderState(self, self.globals, {}, self._autoescape_for(None))
        token = enter_render(rs)
        try:
            return charged(func)(rs, value, tuple(args or ()), dict(kwargs or {}))
        except TemplateError:
            raise
        except Exception as exc:
            raise as_template_error(exc) from exc
        finally:
            leave_render(token)

    # ------------------------------------------------------------------------------------ copies and pickles
    def __getstate__(self):
        """Everything but the compiled templates and their lock: a copy or an unpickled environment compiles its
        own. Pickles when its filters, tests, globals, loader, finalize and autoescape do."""
        state = self.__dict__.copy()
        for key in ("_cache", "_loaded", "_cache_lock"):
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._new_caches()

    def __copy__(self):
        rv = object.__new__(type(self))
        rv.__setstate__(self.__getstate__())
        return rv

    def __deepcopy__(self, memo):
        rv = object.__new__(type(self))
        memo[id(self)] = rv
        rv.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return rv


class ParsedTemplate(nodes.Template):
    """The AST Environment.parse returns: a nodes.Template that knows its environment (meta reads its globals)."""

    __slots__ = ("environment",)

    def __init__(self, span, body, environment):
        nodes.Template.__init__(self, span, body)
        self.environment = environment


class Template:
    """A compiled template. Immutable; safe to render from several threads at once.

    Template(source, **options) compiles source with a shared Environment(**options), as jinja2.Template does;
    environments make theirs with from_string() and get_template().
    """

    environment: "Environment"
    source: str
    name: "str | None"
    filename: "str | None"
    globals: "dict[str, object]"

    def __new__(cls, source, **options):
        return _spontaneous_environment(options).from_string(source, template_class=cls)

    @classmethod
    def _compile(cls, environment, source, name=None, filename=None, globals=None, uptodate=None):
        self = object.__new__(cls)
        self.environment = environment
        self.source = source
        self.name = name
        self.filename = filename
        self._uptodate = uptodate
        self._module = None
        try:
            self.globals = dict(globals) if globals else {}
        except Exception as exc:
            raise as_template_error(exc) from None
        self._autoescape = environment._autoescape_for(name)
        limits = environment.limits
        try:
            if len(source) > limits.max_template_size:
                raise LimitExceeded(f"template of {len(source)} characters exceeds the limit "
                                    f"max_template_size={limits.max_template_size}",
                                    limit="max_template_size", value=limits.max_template_size)
            text = normalize_newlines(source, environment.keep_trailing_newline)
            self._text = text
            tree = parse(text, environment.trim_blocks, environment.lstrip_blocks, limits.max_nesting)
            self._origin = (name, filename, text)
            self._compiled = compile_template(tree, environment, self._autoescape, self._origin)
        except TemplateError as exc:
            raise self._annotate(exc) from None
        except (RecursionError, MemoryError) as exc:
            raise self._annotate(as_template_error(exc)) from None
        except Exception as exc:  # anything else the parser or compiler raised is still a syntax error
            error = TemplateSyntaxError(scrub_message(f"{type(exc).__name__}: {exc}"))
            raise self._annotate(error) from exc
        return self

    def _annotate(self, exc):
        """The error as it leaves this template: its name, file and source unless a template it uses claimed it
        (errors.claim), its message scrubbed."""
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
    def is_up_to_date(self):
        """False when the loader says the source changed since it was compiled."""
        return self._uptodate is None or bool(self._uptodate())

    # ------------------------------------------------------------------------------------------ rendering
    def render(self, *args, **kwargs):
        """Render with the variables of a mapping and/or keyword arguments (Jinja2's signature)."""
        return self._render(_context(args, kwargs), None)

    def _start(self, context, fuel=None):
        """The render state and, when the template needs one, the template context of a new render; fuel: the
        step budget when not limits.max_steps (a chat render's grows with its input)."""
        globals_ = self._full_globals()
        rs = RenderState(self.environment, globals_, context, self._autoescape, fuel)
        if not self._compiled.needs_context:
            return rs, None
        return rs, TemplateContext(rs, self.name, context, globals_, self._compiled.blocks, {})

    def _render(self, context, generation_spans, fuel=None):
        rs, template_context = self._start(context, fuel)
        rs.generation_spans = generation_spans
        compiled = self._compiled
        out = []
        token = enter_render(rs)
        try:
            if template_context is None:
                compiled.run(compiled.layout.new(rs, None), out)
            else:
                run_template(template_context, self, out)
            return join_output(out)
        except BaseException as exc:
            self._raise_leaving(exc)
        finally:
            leave_render(token)

    def _raise_leaving(self, exc):
        """Raise what the exception exc, caught inside a render, leaves it as (in an except block)."""
        if isinstance(exc, TemplateError):
            raise self._annotate(exc) from None
        if isinstance(exc, (BreakLoop, ContinueLoop)):   # the compiler allows them only inside loops
            raise self._annotate(TemplateSyntaxError("break or continue outside a loop")) from None
        if isinstance(exc, Exception):   # an internal failure still leaves as a TemplateError, its cause chained
            error = as_template_error(exc)
            raise self._annotate(error) from error.__cause__
        raise exc   # KeyboardInterrupt, SystemExit, GeneratorExit: not ours to change

    def render_with_generation_spans(self, *args, **kwargs):
        """Render and also return the (start, end) character spans of {% generation %} blocks."""
        spans = []
        return self._render(_context(args, kwargs), spans), spans

    def generate(self, *args, **kwargs):
        """The output as an iterator of pieces, each rendered when it is asked for: one per top-level statement
        (empty ones left out), then those of the templates it extends."""
        return self._generate(_context(args, kwargs))

    def _generate(self, context):
        rs, _ = self._start(context)
        template_context = TemplateContext(rs, self.name, context, rs.globals, self._compiled.blocks, {})
        try:
            yield from render_chunks(template_context, self, [])
        except GeneratorExit:
            raise
        except BaseException as exc:
            self._raise_leaving(exc)

    def stream(self, *args, **kwargs):
        """generate() as a TemplateStream (dump(file), enable_buffering(size))."""
        return TemplateStream(self.generate(*args, **kwargs))

    # -------------------------------------------------------------------------------------------- modules
    def make_module(self, vars=None, shared=False, locals=None):
        """The template's module: its exported top-level variables and macros as attributes, its output as
        str(). vars are the variables it renders with (shared: without the globals), locals added over them."""
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
    def module(self):
        """make_module() without variables, made once."""
        if self._module is None:
            self._module = self.make_module()
        return self._module

    def __reduce__(self):
        # By source: environment, source and options go as one recipe, compiled once per process (_unpickle).
        recipe = pickle.dumps((type(self), self.environment, self.source, self.name, self.filename,
                               self.globals or None))
        return (_unpickle_template, (recipe,))

    def __copy__(self):
        return self   # immutable

    def __deepcopy__(self, memo):
        return type(self)._compile(copy.deepcopy(self.environment, memo), self.source, name=self.name,
                                   filename=self.filename, globals=copy.deepcopy(self.globals, memo),
                                   uptodate=self._uptodate)

    def __repr__(self):
        return f"<Template {self.name or 'from_string'!s}>"


def _check_source(source):
    if not isinstance(source, str):
        raise twin_of(TypeError)(f"template source must be a str, not {type(source).__name__} (decode bytes "
                                 "first, e.g. with errors='surrogateescape')")


def _context(args, kwargs):
    """render()'s variables: a mapping and/or keywords, as dict() takes them (a bad argument is a TemplateError)."""
    try:
        return dict(*args, **kwargs)
    except Exception as exc:
        raise as_template_error(exc) from None


_UNPICKLED = OrderedDict()   # a pickled template's recipe → the template compiled from it in this process
_UNPICKLED_LOCK = threading.Lock()


def _unpickle_template(recipe):
    """The template a pickle holds, compiled at most once per process while among the last _CACHE_SIZE: a worker
    that receives the same template with each task compiles it once. Templates unpickled from one recipe are one
    object (immutable, as every Template)."""
    with _UNPICKLED_LOCK:
        template = _UNPICKLED.get(recipe)
        if template is not None:
            _UNPICKLED.move_to_end(recipe)
            return template
    cls, environment, source, name, filename, globals_ = pickle.loads(recipe)
    template = cls._compile(environment, source, name=name, filename=filename, globals=globals_)
    with _UNPICKLED_LOCK:
        _UNPICKLED[recipe] = template
        while len(_UNPICKLED) > _CACHE_SIZE:
            _UNPICKLED.popitem(last=False)
    return template


_SPONTANEOUS = OrderedDict()
_SPONTANEOUS_LOCK = threading.Lock()


def _spontaneous_environment(options):
    """The Environment(**options) shared by Template(source, **options) calls with the same options."""
    try:
        key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))
        hash(key)
    except TypeError:
        return _shared(Environment(**options))
    with _SPONTANEOUS_LOCK:
        env = _SPONTANEOUS.get(key)
        if env is not None:
            _SPONTANEOUS.move_to_end(key)
            return env
    env = _shared(Environment(**options))
    with _SPONTANEOUS_LOCK:
        _SPONTANEOUS[key] = env
        while len(_SPONTANEOUS) > 10:
            _SPONTANEOUS.popitem(last=False)
    return env


def _shared(env):
    env.shared = True
    return env
