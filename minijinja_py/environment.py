"""Environment: options + filters/tests/globals (+ a loader) → compiled templates (template.Template), cached."""

# Environment(...) mirrors jinja2.Environment (an immutable sandbox by default: see README, compatibility table);
# env.from_string(source) and env.get_template(name) parse and compile once (TemplateSyntaxError there, never later
# for syntax) and cache; the Template they return renders (template.py). mj.Template(source, **options) compiles
# with a shared environment per set of options (made here).
#
# The options: each option the constructor and overlay() take, checked and set (configure), the extensions by name,
# and what every new environment starts with (default_globals, default_policies). Defaults are Jinja2's. The
# delimiters and line prefixes are checked together (syntax/delimiters.py) and kept as env._delimiters: None for
# Jinja2's defaults, else what the parser reads templates with. Options Jinja2 has and minijinja_py does not support
# (async) are accepted with their default value only, so that code passing them explicitly still runs.

from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms
from _weakref import ref as weak_ref   # weakref.ref itself, without importing weakref at start-up
from collections import OrderedDict
from _collections_abc import Iterable, Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Callable, Optional, Union
    Autoescape = Union[bool, Callable[[Optional[str]], bool]]   # a flag, or a function of the template name
    Variables = Optional[Mapping[str, Any]]

from .builtins.filters import FILTERS
from .builtins.tests import TESTS
from .core.budget import charged
from .core.errors import (
    TemplateError, TemplateLoadError, TemplateNotFound, TemplateRuntimeError, TemplatesNotFound, UndefinedError,
    as_template_error, twin_of,
)
from .core.state import DEFAULT_LIMITS, Limits, RenderState, current_state, enter_render, leave_render
from .loaders import BaseLoader, checked_source
from .runtime.globalfuncs import Cycler, DictFactory, Joiner, lipsum, sandboxed_range
from .runtime.objects import Namespace
from .runtime.undefined import Undefined
from .syntax import nodes
from .syntax.delimiters import (
    DEFAULT as DEFAULT_DELIMITERS, OPTIONS as DELIMITER_OPTIONS, Delimiters, check as check_delimiters,
)
from .syntax.parse import normalize_newlines, parse
# (_unpickle_template: pickles made before Template had its own module name it here)
from .template import (  # noqa: F401
    CACHE_CHARS, CACHE_SIZE, BoundedCache, Template, TemplateExpression, _unpickle_template, template_globals,
)

__all__ = ["Environment", "Template", "ParsedTemplate", "DEFAULT_POLICIES", "default_globals"]

_LOAD_STEPS = 1000        # asking the loader for a template, inside a render (about as long as 1000 steps)
_COMPILE_STEPS = 16       # per character of a template a render loads: compiling takes about that long

# Jinja2's extension names, and ours. "generation" ({% generation %}) is what transformers' AssistantTracker adds.
_EXTENSIONS = {
    "loopcontrols": "loopcontrols", "jinja2.ext.loopcontrols": "loopcontrols",
    "do": "do", "jinja2.ext.do": "do",
    "generation": "generation",
}
DEFAULT_POLICIES = {
    "compiler.ascii_str": True, "urlize.rel": "noopener", "urlize.target": None, "urlize.extra_schemes": None,
    "truncate.leeway": 5, "json.dumps_function": None, "json.dumps_kwargs": {"sort_keys": True},
    "ext.i18n.trimmed": False,
}
# Jinja2 options accepted with their default value only (README: async rendering is not supported), and options
# accepted and ignored (there is no Python code to optimise or cache).
_DICT_POLICIES = tuple(key for key, value in DEFAULT_POLICIES.items() if isinstance(value, dict))
_FIXED_OPTIONS = {"enable_async": False}
_IGNORED_OPTIONS = ("optimized", "bytecode_cache")
_NEWLINES = ("\n", "\r\n", "\r")
_PLAIN_OPTIONS = ("trim_blocks", "lstrip_blocks", "keep_trailing_newline", "autoescape", "random_seed", "loader",
                  "finalize", "immutable", "cache_size", "auto_reload")
_SET_AS_GIVEN = frozenset(_PLAIN_OPTIONS + DELIMITER_OPTIONS)   # most of what every Environment() passes
_DELIMITER_NAMES = frozenset(DELIMITER_OPTIONS)
_DEFAULT_DELIMITER_TYPES = tuple(map(type, DEFAULT_DELIMITERS))


def default_globals() -> "dict[str, Any]":
    return {"range": sandboxed_range, "dict": DictFactory(), "lipsum": lipsum, "cycler": Cycler, "joiner": Joiner,
            "namespace": Namespace}


def default_policies() -> "dict[str, Any]":
    # A fresh copy of Jinja2's policies (the dicts in it too: an environment may change them).
    policies: "dict[str, Any]" = dict(DEFAULT_POLICIES)
    for key in _DICT_POLICIES:
        policies[key] = dict(policies[key])
    return policies


def configure(env: "Any", **options: "Any") -> None:
    # Set options on env (the constructor's and overlay's), each checked: ValueError for an unsupported value,
    # TypeError for an unknown option or a value of the wrong type.
    for name, value in options.items():
        if name in _SET_AS_GIVEN:
            setattr(env, name, value)
        elif name in _FIXED_OPTIONS:
            if value != _FIXED_OPTIONS[name]:
                raise ValueError(f"{name}={value!r}: async rendering is not supported by minijinja_py")
        elif name in _IGNORED_OPTIONS:
            continue
        elif name == "undefined":
            if not (isinstance(value, type) and issubclass(value, Undefined)):
                raise TypeError("undefined must be minijinja_py.Undefined or a subclass of it")
            env.undefined = value
        elif name == "extensions":
            env.extensions = env.extensions | _extension_names(value)
        elif name == "limits":
            env.limits = value if value is not None else DEFAULT_LIMITS   # immutable: one serves them all
            if not isinstance(env.limits, Limits):
                raise TypeError("limits must be a minijinja_py.Limits")
        elif name == "newline_sequence":
            if value not in _NEWLINES:
                raise ValueError("newline_sequence must be one of '\\n', '\\r\\n' or '\\r'")
            env.newline_sequence = value
        else:
            raise TypeError(f"unexpected Environment option {name!r}")
    if not _DELIMITER_NAMES.isdisjoint(options):
        set_delimiters(env)


def configure_constructor(env: "Any", newline_sequence: "Any", extensions: "Any", optimized: "Any", undefined: "Any",
                          bytecode_cache: "Any", enable_async: "Any", limits: "Any") -> None:
    # configure() of the constructor's checked options, the usual values (a newline, no async, our Undefined,
    # the default limits: every chat_environment()) set at once: an environment is made per compile on
    # transformers' uncached path, and configure's checks were a third of making one. Anything else goes through
    # configure().
    if undefined is Undefined and limits is None and enable_async is False and newline_sequence in _NEWLINES:
        env.newline_sequence, env.undefined, env.limits = newline_sequence, undefined, DEFAULT_LIMITS
        env.extensions = env.extensions | _extension_names(extensions)   # (its errors: configure's, in its order)
        return
    configure(env, newline_sequence=newline_sequence, extensions=extensions, optimized=optimized,
              undefined=undefined, bytecode_cache=bytecode_cache, enable_async=enable_async, limits=limits)


def set_delimiters(env: "Any") -> None:
    # env._delimiters from env's delimiter options, checked together: None for Jinja2's own (the commonest case
    # needs no check). Raises ValueError or TypeError for delimiters that cannot be (syntax.delimiters.check).
    given = (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
             env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix)
    if given == DEFAULT_DELIMITERS and tuple(map(type, given)) == _DEFAULT_DELIMITER_TYPES:
        env._delimiters = None
    else:
        delimiters = Delimiters(*given)
        check_delimiters(delimiters)
        env._delimiters = delimiters


_NAMED_EXTENSIONS: "dict[Any, frozenset[str]]" = {}   # the extensions options given, as names: most are alike


def _extension_names(extensions: "Any") -> "frozenset[str]":
    # Our names of the extensions given (an iterable of what extension_name takes).
    key = extensions if type(extensions) is tuple and all(type(e) is str for e in extensions) else None
    names = _NAMED_EXTENSIONS.get(key) if key is not None else None
    if names is None:
        names = frozenset(map(extension_name, extensions))
        if key is not None and len(_NAMED_EXTENSIONS) < 64:
            _NAMED_EXTENSIONS[key] = names
    return names


def extension_name(name: "Any") -> str:
    # Our name of an extension given by Jinja2's name, ours, or Jinja2's class.
    key = name if isinstance(name, str) else f"{getattr(name, '__module__', '')}.{getattr(name, '__name__', '')}"
    try:
        return _EXTENSIONS[key]
    except KeyError:
        raise ValueError(f"unknown extension {name!r}; available: loopcontrols, do "
                         "(or jinja2.ext.loopcontrols, jinja2.ext.do)") from None


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
    linked_to: "Optional[Environment]" = None
    block_start_string = "{%"
    block_end_string = "%}"
    variable_start_string = "{{"
    variable_end_string = "}}"
    comment_start_string = "{#"
    comment_end_string = "#}"
    line_statement_prefix: "Optional[str]" = None
    line_comment_prefix: "Optional[str]" = None
    _delimiters = None   # syntax.delimiters.Delimiters, None for Jinja2's defaults (configure sets it)
    trim_blocks: bool
    lstrip_blocks: bool
    keep_trailing_newline: bool
    autoescape: "Autoescape"
    undefined: "type[Undefined]"
    extensions: "frozenset[str]"
    limits: "Limits"
    random_seed: "Optional[int]"
    loader: "Optional[BaseLoader]"
    finalize: "Optional[Callable[..., Any]]"
    newline_sequence: str
    immutable: bool
    cache_size: int
    auto_reload: bool
    filters: "dict[str, Callable[..., Any]]"
    tests: "dict[str, Callable[..., Any]]"
    globals: "dict[str, Any]"
    policies: "dict[str, Any]"

    def __init__(self, block_start_string: str = "{%", block_end_string: str = "%}",
                 variable_start_string: str = "{{", variable_end_string: str = "}}",
                 comment_start_string: str = "{#", comment_end_string: str = "#}",
                 line_statement_prefix: "Optional[str]" = None, line_comment_prefix: "Optional[str]" = None,
                 trim_blocks: bool = False, lstrip_blocks: bool = False, newline_sequence: str = "\n",
                 keep_trailing_newline: bool = False, extensions: "Iterable[Union[str, type]]" = (),
                 optimized: bool = True, undefined: "type[Undefined]" = Undefined,
                 finalize: "Optional[Callable[..., Any]]" = None, autoescape: "Autoescape" = False,
                 loader: "Optional[BaseLoader]" = None, cache_size: int = 400, auto_reload: bool = True,
                 bytecode_cache: "Any" = None, enable_async: bool = False, *, limits: "Optional[Limits]" = None,
                 random_seed: "Optional[int]" = None, immutable: bool = True) -> None:
        """Jinja2's parameters in Jinja2's order, then ours by keyword. Raises ValueError for an unsupported
        option value (async, an unknown extension or newline_sequence, delimiters that clash), TypeError for a
        wrong undefined / limits / delimiter."""
        # the options set as given (configure's plain ones and the delimiters), stored here at once:
        # environments are made per compile (transformers' uncached path), configure's loop was a tenth of it
        self.block_start_string, self.block_end_string = block_start_string, block_end_string
        self.variable_start_string, self.variable_end_string = variable_start_string, variable_end_string
        self.comment_start_string, self.comment_end_string = comment_start_string, comment_end_string
        self.line_statement_prefix, self.line_comment_prefix = line_statement_prefix, line_comment_prefix
        self.trim_blocks, self.lstrip_blocks, self.keep_trailing_newline = trim_blocks, lstrip_blocks, \
            keep_trailing_newline
        self.autoescape, self.random_seed, self.loader, self.finalize = autoescape, random_seed, loader, finalize
        self.immutable, self.cache_size, self.auto_reload = immutable, cache_size, auto_reload
        self.extensions = frozenset()
        # the checked ones (in the constructor's order: the same error first), then the delimiters together
        configure_constructor(self, newline_sequence, extensions, optimized, undefined, bytecode_cache, enable_async,
                              limits)
        set_delimiters(self)
        self.filters = dict(FILTERS)
        self.tests = dict(TESTS)
        self.globals = default_globals()
        self.policies = default_policies()
        self._new_caches()

    def _new_caches(self):
        # from_string: (source, options...) → _Cached; get_template: (loader, name, options...) → Template, and
        # (loader, filename, source, options...) → Template for a file loaded under several names. Both bounded
        # by the characters of source they hold (see BoundedCache), not only by their entries.
        self._cache = BoundedCache(CACHE_SIZE, CACHE_CHARS)
        self._loaded = BoundedCache(self.cache_size if self.cache_size >= 0 else None, CACHE_CHARS)

    def _options_key(self):
        # Filters, tests and options are read at compile time, so they are part of what a compiled template is.
        # (names and functions as two flat tuples each: equal exactly when the (name, function) pairs are, and
        # about half the cost to make and hash)
        filters, tests = self.filters, self.tests
        return (self.trim_blocks, self.lstrip_blocks, self._delimiters, self.keep_trailing_newline,
                bool(self.autoescape) if not callable(self.autoescape) else self.autoescape, self.undefined,
                self.extensions, self.limits, self.finalize, self.newline_sequence,
                tuple(filters), tuple(filters.values()), tuple(tests), tuple(tests.values()))

    @staticmethod
    def _cached(cache, key, make):
        # cache[key], or make() stored there (weighed by its source's length).
        key = _hashable(key)
        if key is None:   # an unhashable filter or test: skip the cache
            return make()
        found = cache.get(key)
        if found is not None:
            return found
        made = make()
        cache.put(key, made, len(made.source))
        return made

    # ------------------------------------------------------------------------------------------- templates
    def from_string(self, source: str, globals: "Variables" = None, template_class: "Optional[type[Template]]" = None,
                    name: "Optional[str]" = None) -> "Template":
        """Compile template source (cached). Raises TemplateSyntaxError (or LimitExceeded) for a bad template, a
        TypeError twin for a source that is not a str."""
        _check_source(source)
        cls = template_class or Template
        key = (source, name, cls, id(globals) if globals else None, self._options_key())
        made = None

        def make():
            nonlocal made
            made = cls._compile(self, source, name=name, globals=globals)
            return _Cached(made)
        cached = self._cached(self._cache, key, make)
        return made if made is not None else cached.template(self, globals)

    def _template_from_source(self, source, name, filename, globals, uptodate):
        _check_source(source)
        return Template._compile(self, source, name=name, filename=filename, globals=globals, uptodate=uptodate)

    def get_template(self, name: "Union[str, Template]", parent: "Optional[str]" = None,
                     globals: "Variables" = None) -> "Template":
        """The template `name` from the loader (cached; reloaded when auto_reload and it changed). Raises
        TemplateNotFound, a TypeError twin when the environment has no loader (as Jinja2), TemplateSyntaxError
        when the template does not compile."""
        if isinstance(name, Template):
            return name
        if parent is not None:
            name = self.join_path(name, parent)
        return self._load_template(name, globals)

    def _load_template(self, name, globals):
        # The template `name` from the loader or the cache. Inside a render, loading is charged to its step
        # budget: _LOAD_STEPS for asking, and what compiling the source costs (by its length) whether or not the
        # cache had it, so that the render's budget does not depend on what the cache holds (each name is loaded
        # once per render: composition.load).
        if self.loader is None:
            raise twin_of(TypeError)("no loader for this environment specified")
        if _hashable(name) is None:   # Jinja2's cache lookup fails so (an {% import [...] %})
            raise twin_of(TypeError)(f"unhashable type: '{type(name).__name__}'")
        rs = current_state()
        if rs is not None:
            rs.burn(_LOAD_STEPS)
        options = self._options_key()
        key = _hashable((self.loader, name, options))
        template = self._loaded.get(key) if key is not None else None
        if template is not None and (not self.auto_reload or _still_current(template, name)):
            if rs is not None:
                rs.burn(len(template.source) * _COMPILE_STEPS)
            if globals:
                template.globals.update(globals)
            return template
        if key is not None:
            self._loaded.pop(key)
        source, filename, uptodate = checked_source(self.loader, self, name)
        if rs is not None:
            rs.burn(len(source) * _COMPILE_STEPS)
        # one file under several names ("x", "./x", "a/../x"...) is compiled once
        same_file = _hashable((self.loader, filename, source, options)) if filename is not None else None
        template = self._loaded.get(same_file) if same_file is not None else None
        if template is None or (self.auto_reload and not _still_current(template, name)):
            template = self._template_from_source(source, name, filename, globals, uptodate)
        elif globals:
            template.globals.update(globals)
        for stored in (key, same_file):
            if stored is not None:
                self._loaded.put(stored, template, len(source))
        return template

    def select_template(self, names: "Iterable[Union[str, Template]]", parent: "Optional[str]" = None,
                        globals: "Variables" = None) -> "Template":
        """The first of names the loader has. Raises TemplatesNotFound when none, as get_template otherwise."""
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

    def get_or_select_template(self, template_name_or_list: "Union[str, Template, Iterable[Union[str, Template]]]",
                               parent: "Optional[str]" = None, globals: "Variables" = None) -> "Template":
        """get_template for a name, select_template for a list of names, the template itself for a Template;
        raises as they do."""
        if isinstance(template_name_or_list, (str, Undefined)):
            # an Undefined name (a template variable) raises its own error there, as in Jinja2
            return self.get_template(template_name_or_list, parent, globals)  # type: ignore[arg-type]
        if isinstance(template_name_or_list, Template):
            return template_name_or_list
        return self.select_template(template_name_or_list, parent, globals)

    def list_templates(self, extensions: "Optional[Iterable[str]]" = None,
                       filter_func: "Optional[Callable[[str], bool]]" = None) -> "list[str]":
        """The names the loader knows, those with one of extensions or those filter_func accepts. Raises
        TypeError when both are given, or when the loader cannot list its templates."""
        names: list[str] = self.loader.list_templates()  # type: ignore[union-attr]  # None: Jinja2's error
        if extensions is not None:
            if filter_func is not None:
                raise TypeError("either extensions or filter_func can be passed, but not both")
            filter_func = lambda name: "." in name and name.rsplit(".", 1)[1] in extensions  # noqa: E731
        return [name for name in names if filter_func(name)] if filter_func is not None else names

    def join_path(self, template: str, parent: str) -> str:
        """The name a template loaded from `parent` asks for means (Jinja2's hook: the name as it is)."""
        return template

    def _autoescape_for(self, name):
        return bool(self.autoescape(name)) if callable(self.autoescape) else bool(self.autoescape)

    # ------------------------------------------------------------------------------------------ the rest
    def overlay(self, **options: "Any") -> "Environment":
        """A new environment sharing this one's filters, tests, globals and policies, with some options changed
        (extensions are added to this one's), and caches of its own. Raises as the constructor does."""
        rv = object.__new__(type(self))
        rv.__dict__.update(self.__dict__)
        rv.overlayed, rv.linked_to = True, self
        configure(rv, **options)
        rv._new_caches()
        return rv

    def extend(self, **attributes: "Any") -> None:
        """Add attributes the environment does not have yet (Jinja2's hook for extensions)."""
        for key, value in attributes.items():
            if not hasattr(self, key):
                setattr(self, key, value)

    def make_globals(self, d: "Variables") -> "dict[str, Any]":
        """The globals a template of this environment sees, with d over the environment's."""
        return {**self.globals, **(d or {})}

    def parse(self, source: str, name: "Optional[str]" = None, filename: "Optional[str]" = None) -> "ParsedTemplate":
        """The AST of source (nodes.Template), for meta.find_undeclared_variables and friends. Raises
        TemplateSyntaxError."""
        text = normalize_newlines(source, self.keep_trailing_newline)
        try:
            tree = parse(text, self.trim_blocks, self.lstrip_blocks, self.limits.max_nesting, self._delimiters,
                         self.extensions)
        except TemplateError as exc:
            exc.name, exc.filename, exc.source = name, filename, text
            raise
        return ParsedTemplate(tree.span, tree.body, self)

    def compile_expression(self, source: str, undefined_to_none: bool = True) -> "TemplateExpression":
        """A callable that evaluates the expression source with the variables it is given (Jinja2's
        compile_expression): env.compile_expression("a > b")(a=2, b=1) is True."""
        template = self.from_string(f"{self.block_start_string} set result = ({source}\n) {self.block_end_string}")
        return TemplateExpression(template, undefined_to_none)

    def call_filter(self, name: str, value: "Any", args: "Optional[Iterable[Any]]" = None,
                    kwargs: "Variables" = None, context: "Any" = None, eval_context: "Any" = None) -> "Any":
        """Apply the filter `name` outside a template. Raises TemplateRuntimeError if there is none, the
        filter's error (a TemplateError) if it fails."""
        return self._call_registered(self.filters, "filter", name, value, args, kwargs)

    def call_test(self, name: str, value: "Any", args: "Optional[Iterable[Any]]" = None,
                  kwargs: "Variables" = None, context: "Any" = None, eval_context: "Any" = None) -> "Any":
        """Apply the test `name` outside a template. Raises TemplateRuntimeError if there is none, the test's
        error (a TemplateError) if it fails."""
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
        # Everything but the compiled templates and their lock: a copy or an unpickled environment compiles its
        # own. Pickles when its filters, tests, globals, loader, finalize and autoescape do.
        state = self.__dict__.copy()
        for key in ("_cache", "_loaded"):
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
        import copy   # here and in Template's: copying is rare, and copy costs a cold start ~1.4 ms
        rv = object.__new__(type(self))
        memo[id(self)] = rv
        rv.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return rv


class ParsedTemplate(nodes.Template):
    # The AST Environment.parse returns: a nodes.Template that knows its environment (meta reads its globals).

    __slots__ = ("environment",)

    def __init__(self, span, body, environment):
        nodes.Template.__init__(self, span, body)
        self.environment = environment


class _Cached:
    # A from_string cache entry: the compiled template without its environment, and the one last handed out, held
    # weakly (the same object is returned while someone holds it). A cache holding its templates would make a
    # reference cycle (environment → cache → template → environment): an environment dropped with its templates would
    # then wait for the cyclic collector, whose passes walk every closure of every such template.

    __slots__ = ("detached", "last")

    @property
    def source(self):
        return self.detached.source

    def __init__(self, template):
        self.detached = object.__new__(type(template))
        self.detached.__dict__.update(template.__dict__, environment=None, globals=None, _module=None)
        self.last = weak_ref(template)

    def template(self, environment, globals):
        template = self.last()
        if template is None:
            template = object.__new__(type(self.detached))
            template.__dict__.update(self.detached.__dict__, environment=environment,
                                     globals=template_globals(globals))
            self.last = weak_ref(template)
        return template


def _still_current(template, name):
    # template.is_up_to_date, a loader's uptodate() that fails being a TemplateLoadError naming the template.
    try:
        return template.is_up_to_date
    except Exception as exc:
        raise TemplateLoadError(f"{name}: the loader's uptodate() failed ({type(exc).__name__})", path=name) from None


def _hashable(key):
    # key as a cache key (a _HashedKey), or None when it cannot be one (an unhashable filter, test or loader).
    try:
        return _HashedKey(key, hash(key))
    except TypeError:
        return None


class _HashedKey:
    # A cache key with its hash taken once. A key holds the environment's options, filters and tests (about a
    # hundred pairs; a tuple does not keep its hash): a lookup then a store hashed it four times, ~7 us of each
    # compile in a fresh environment.

    __slots__ = ("key", "hash")

    def __init__(self, key, hash):
        self.key, self.hash = key, hash

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        return other.__class__ is _HashedKey and self.hash == other.hash and self.key == other.key


def _check_source(source):
    if not isinstance(source, str):
        raise twin_of(TypeError)(f"template source must be a str, not {type(source).__name__} (decode bytes "
                                 "first, e.g. with errors='surrogateescape')")


_SPONTANEOUS: "OrderedDict[Any, Environment]" = OrderedDict()
_SPONTANEOUS_LOCK = allocate_lock()


def _spontaneous_environment(options):
    # The Environment(**options) shared by Template(source, **options) calls with the same options.
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


Template._spontaneous_environment = staticmethod(_spontaneous_environment)
