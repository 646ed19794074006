"""Environment and Template: options + filters/tests/globals → compiled templates → rendered strings.

Environment(...) mirrors jinja2.Environment's constructor for the options chat templates use;
env.from_string(source) parses and compiles once (TemplateSyntaxError here, never later for syntax) and caches;
Template.render(**context) runs the compiled closures and is the error boundary: whatever happens inside, what
comes out is a string or a TemplateError carrying the template name, the source and a location.
"""

import threading
from collections import OrderedDict

from .base import Limits, RenderState, enter_render, leave_render
from .compiler import compile_template
from .errors import LimitExceeded, TemplateError, TemplateSyntaxError, as_template_error, scrub_message, twin_of
from .filters import FILTERS
from .runtime import (
    BreakLoop, ContinueLoop, Cycler, DictFactory, Joiner, Namespace, TemplateReference, join_output, lipsum,
    sandboxed_range,
)
from .syntax import normalize_newlines, parse
from .tests import TESTS
from .undefined import Undefined

__all__ = ["Environment", "Template"]

# Jinja2's extension names, and ours. "generation" ({% generation %}) is what transformers' AssistantTracker adds.
_EXTENSIONS = {
    "loopcontrols": "loopcontrols", "jinja2.ext.loopcontrols": "loopcontrols",
    "do": "do", "jinja2.ext.do": "do",
    "generation": "generation",
}
_CACHE_SIZE = 256


def default_globals():
    return {"range": sandboxed_range, "dict": DictFactory(), "lipsum": lipsum, "cycler": Cycler, "joiner": Joiner,
            "namespace": Namespace}


class Environment:
    """Options, filters, tests and globals shared by the templates compiled from it.

    Defaults are Jinja2's. The sandbox is always on; `limits` (a Limits) bounds every resource.
    """

    def __init__(self, trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=False, autoescape=False,
                 undefined=Undefined, extensions=(), limits=None, random_seed=0):
        self.trim_blocks = trim_blocks
        self.lstrip_blocks = lstrip_blocks
        self.keep_trailing_newline = keep_trailing_newline
        self.autoescape = autoescape
        if not (isinstance(undefined, type) and issubclass(undefined, Undefined)):
            raise TypeError("undefined must be minijinja_py.Undefined or a subclass of it")
        self.undefined = undefined
        self.extensions = frozenset(self._extension(e) for e in extensions)
        self.limits = limits if limits is not None else Limits()
        if not isinstance(self.limits, Limits):
            raise TypeError("limits must be a minijinja_py.Limits")
        self.random_seed = random_seed
        self.filters = dict(FILTERS)
        self.tests = dict(TESTS)
        self.globals = default_globals()
        self._cache = OrderedDict()
        self._cache_lock = threading.Lock()

    @staticmethod
    def _extension(name):
        key = name if isinstance(name, str) else f"{getattr(name, '__module__', '')}.{getattr(name, '__name__', '')}"
        try:
            return _EXTENSIONS[key]
        except KeyError:
            raise ValueError(f"unknown extension {name!r}; available: loopcontrols, do "
                             "(or jinja2.ext.loopcontrols, jinja2.ext.do)") from None

    def _cache_key(self, source, name, globals_):
        # Filters, tests and options are read at compile time, so they are part of what a compiled template is.
        return (source, name, self.trim_blocks, self.lstrip_blocks, self.keep_trailing_newline,
                bool(self.autoescape) if not callable(self.autoescape) else self.autoescape, self.undefined,
                self.extensions, self.limits, tuple(self.filters.items()), tuple(self.tests.items()),
                id(globals_) if globals_ else None)

    def from_string(self, source, globals=None, name=None):
        """Compile template source. Raises TemplateSyntaxError (or LimitExceeded) for a bad template."""
        if not isinstance(source, str):
            raise twin_of(TypeError)(f"template source must be a str, not {type(source).__name__} (decode bytes "
                                     "first, e.g. with errors='surrogateescape')")
        try:
            key = self._cache_key(source, name, globals)
            hash(key)
        except TypeError:  # an unhashable filter or test: skip the cache
            key = None
        if key is not None:
            with self._cache_lock:
                template = self._cache.get(key)
                if template is not None:
                    self._cache.move_to_end(key)
                    return template
        template = Template(self, source, name=name, globals=globals)
        if key is not None:
            with self._cache_lock:
                self._cache[key] = template
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return template

    def _autoescape_for(self, name):
        return bool(self.autoescape(name)) if callable(self.autoescape) else bool(self.autoescape)


class Template:
    """A compiled template. Immutable; safe to render from several threads at once."""

    def __init__(self, environment, source, name=None, globals=None):
        self.environment = environment
        self.source = source
        self.name = name
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
            self._compiled = compile_template(tree, environment, self._autoescape)
        except TemplateError as exc:
            raise self._annotate(exc) from None
        except (RecursionError, MemoryError) as exc:
            raise self._annotate(as_template_error(exc)) from None
        except Exception as exc:  # anything else the parser or compiler raised is still a syntax error
            error = TemplateSyntaxError(scrub_message(f"{type(exc).__name__}: {exc}"))
            raise self._annotate(error) from exc

    def _annotate(self, exc):
        exc.name = self.name
        exc.source = getattr(self, "_text", None) or normalize_newlines(self.source, True)
        if type(exc) is not TemplateError:  # raise_exception() messages stay verbatim
            exc.message = scrub_message(exc.message) if isinstance(exc.message, str) else exc.message
            exc.args = (exc.message,) + exc.args[1:]
        return exc

    def render(self, *args, **kwargs):
        """Render with the variables of a mapping and/or keyword arguments (Jinja2's signature)."""
        return self._render(_context(args, kwargs), None)

    def _render(self, context, generation_spans, fuel=None):
        """The render itself; fuel: the step budget when not limits.max_steps (a chat render's grows with its
        input)."""
        env = self.environment
        globals_ = env.globals if not self.globals else {**env.globals, **self.globals}
        rs = RenderState(env, globals_, context, self._autoescape, fuel)
        rs.generation_spans = generation_spans
        compiled = self._compiled
        out = []
        token = enter_render(rs)
        try:
            rs.template_name = self.name
            rs.blocks = compiled.blocks
            f = rs.root = compiled.layout.new(rs, None)
            if compiled.self_slot is not None:
                f[compiled.self_slot] = TemplateReference(self.name, rs)
            compiled.run(f, out)
            return join_output(out)
        except TemplateError as exc:
            raise self._annotate(exc) from None
        except Exception as exc:  # an internal failure still leaves as a TemplateError, with its cause chained
            error = as_template_error(exc)
            raise self._annotate(error) from error.__cause__
        except (BreakLoop, ContinueLoop):  # the compiler allows them only inside loops; never let one out
            raise self._annotate(TemplateSyntaxError("break or continue outside a loop")) from None
        finally:
            leave_render(token)

    def render_with_generation_spans(self, *args, **kwargs):
        """Render and also return the (start, end) character spans of {% generation %} blocks."""
        spans = []
        return self._render(_context(args, kwargs), spans), spans

    def __reduce__(self):
        return (_rebuild_template, (self.environment, self.source, self.name, self.globals or None))

    def __repr__(self):
        return f"<Template {self.name or 'from_string'!s}>"


def _context(args, kwargs):
    """render()'s variables: a mapping and/or keywords, as dict() takes them (a bad argument is a TemplateError)."""
    try:
        return dict(*args, **kwargs)
    except Exception as exc:
        raise as_template_error(exc) from None


def _rebuild_template(environment, source, name, globals_):
    return environment.from_string(source, globals=globals_, name=name)
