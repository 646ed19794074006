"""Environment options: each option the constructor and overlay() take, checked and set (configure), the
extensions by name, and what every new environment starts with (default_globals, default_policies).

Defaults are Jinja2's. The delimiters and line prefixes are checked together (syntax/delimiters.py) and kept as
env._delimiters: None for Jinja2's defaults, else what the parser reads templates with. Options Jinja2 has and
minijinja_py does not support (async) are accepted with their default value only, so that code passing them
explicitly still runs.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any

from .core.state import DEFAULT_LIMITS, Limits
from .syntax.delimiters import DEFAULT as DEFAULT_DELIMITERS, OPTIONS as DELIMITER_OPTIONS, Delimiters, check
from .runtime.globalfuncs import Cycler, DictFactory, Joiner, lipsum, sandboxed_range
from .runtime.objects import Namespace
from .runtime.undefined import Undefined

__all__ = ["DEFAULT_POLICIES", "configure", "configure_constructor", "set_delimiters", "default_globals", "default_policies", "extension_name"]

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
        check(delimiters)
        env._delimiters = delimiters


_NAMED_EXTENSIONS: "dict[Any, frozenset[str]]" = {}   # the extensions options given, as names: most are alike


def _extension_names(extensions: "Any") -> "frozenset[str]":
    # Our names of the extensions given (an iterable of what extension_name takes).
    key = extensions if type(extensions) is tuple and all(type(e) is str for e in extensions) else None
    names = _NAMED_EXTENSIONS.get(key) if key is not None else None
    if names is None:
        names = frozenset(extension_name(e) for e in extensions)
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
