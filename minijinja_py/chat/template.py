"""Chat: the transformers profile. messages/tools/documents → the prompt string, exactly as
`tokenizer.apply_chat_template(..., tokenize=False)` of transformers 5.x produces it."""

# chat_environment() is the Environment transformers configures (trim_blocks, lstrip_blocks, loop controls,
# {% generation %}, its tojson, raise_exception, strftime_now, namespace/dict globals). ChatTemplate holds one
# template or several named ones (chosen as transformers chooses them), applies transformers' input processing
# (inputs.py) and pickles by its constructor's arguments. apply_chat_template() is the function form, with a
# bounded cache of compiled templates. Templates load from model folders, files, GGUF and the local Hugging Face
# cache (loading.py).

import os
from _collections_abc import Iterator, Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    import datetime   # loaded where a clock is made (_clock): ~1.6 ms of `import minijinja_py` otherwise
    from typing import Any, Callable, Optional, Union
    Clock = Union[datetime.datetime, Callable[[], datetime.datetime], None]
    TemplateSource = Union[str, Mapping[str, str]]

from ..builtins.strings import chat_tojson
from .capabilities import Capabilities, cached_capabilities, clock_reading
from .inputs import cut_at_final_message, mark_final_message, message_characters, prepare_inputs, type_error, \
    value_error
from .loading import TemplateLoadError, load_chat_template
from ..core.errors import LimitExceeded, TemplateError, as_template_error, jinja2_named
from ..core.state import Limits, check_str_size
from ..environment import Environment, Template
from ..template import BoundedCache
from ..runtime.objects import ChatNamespace
from ..runtime.printing import to_str

__all__ = ["chat_environment", "ChatTemplate", "apply_chat_template", "raise_exception", "load_chat_template",
           "seed_template", "seed_template_names", "seed_special_tokens", "TemplateLoadError", "Clock",
           "TemplateSource"]

if not TYPE_CHECKING:
    def __getattr__(name):
        """The type aliases Clock and TemplateSource at run time, made on first use (PEP 562): they need typing,
        which import minijinja_py does not load. Type checkers read them from the TYPE_CHECKING block above."""
        if name not in ("Clock", "TemplateSource"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import datetime
        from typing import Callable, Union
        globals().update(Clock=Union[datetime.datetime, Callable[[], datetime.datetime], None],
                         TemplateSource=Union[str, Mapping[str, str]])
        return globals()[name]


def raise_exception(message: "Any") -> None:
    """raise_exception(msg) in a template: fail the render with exactly this message (a TemplateError)."""
    # .message is msg itself, as transformers' TemplateError(message) keeps it: a number, a bool or None too;
    # anything else becomes its safe text (its str could show an address, or be the caller's code)
    plain = message is None or type(message) in (str, int, float, bool)
    raise TemplateError(message if plain else to_str(message))


def _clock(now: "Clock") -> "Callable[[], datetime.datetime]":
    import datetime
    if now is None:
        return datetime.datetime.now
    if isinstance(now, datetime.datetime):
        # its replace() with nothing to replace: a clock that always reads that time (and pickles, as a closure
        # would not)
        return now.replace
    if not callable(now):
        raise type_error(f"now must be a datetime or a callable returning one, not {type(now).__name__}")
    return now


class StrftimeNow:
    # strftime_now('%Y-%m-%d'): the current time (or the ChatTemplate's frozen clock) formatted. A class rather
    # than a closure so that an environment holding it pickles; its size is bounded before formatting.

    __slots__ = ("now",)
    mj_pass_state = True    # called with the render state first
    mj_safe_repr = True

    def __init__(self, now: "Callable[[], datetime.datetime]") -> None:
        self.now = now

    def __call__(self, rs: "Any", format: str) -> str:
        if isinstance(format, str):
            check_str_size(rs.limits, strftime_size(format, rs.limits.max_string), "a formatted time")
        return clock_reading(self.now).strftime(format)

    def __repr__(self) -> str:
        return "<function strftime_now>"

    def __reduce__(self) -> "tuple[Any, ...]":
        return (StrftimeNow, (self.now,))


jinja2_named("strftime_now", uncounted=2)(StrftimeNow.__call__)   # (transformers': a function of the format alone)


def strftime_size(format: str, limit: "Optional[int]" = None) -> int:
    # An upper bound of len(strftime(format)): a directive gives at most 64 characters (the longest locale
    # spelling of %c), or its glibc field width (%200Y) when that is larger. Stops once past `limit`: the text
    # between directives is skipped at C speed and each directive adds at least 64, so a long format costs at
    # most limit / 64 turns of the loop.
    size, i, end = 0, 0, len(format)
    while i < end:
        j = format.find("%", i)
        if j < 0:
            return size + end - i
        size += j - i
        i = j + 1
        while i < end and format[i] in "_-0^#":
            i += 1
        start = i
        while i < end and format[i].isdigit():
            i += 1
        width = int(format[start:i]) if i - start < 12 and i > start else (10 ** 12 if i > start else 0)
        size += max(width, 64)
        i += 1
        if limit is not None and size > limit:
            return size
    return size


def chat_environment(trim_blocks: bool = True, lstrip_blocks: bool = True, now: "Clock" = None,
                     limits: "Optional[Limits]" = None) -> "Environment":
    """The Environment transformers' apply_chat_template renders with (an immutable sandbox).

    now: a datetime, or a callable returning one, read by strftime_now (default: the real clock).
    Raises TypeError (a TemplateError twin) when now is neither, TypeError when limits is not a Limits.
    """
    env = Environment(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks,
                      extensions=("loopcontrols", "generation"), limits=limits, random_seed=0)   # reproducible
    env.filters["tojson"] = chat_tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = StrftimeNow(_clock(now))
    env.globals["namespace"] = ChatNamespace
    return env


# ------------------------------------------------------------------------------------------------ ChatTemplate
# [the class _named_templates makes], once made
_NAMED_TEMPLATES: "list[Callable[[Environment, dict[str, str], Optional[str]], Mapping[str, Template]]]" = []


def _named_templates(environment: "Environment", sources: "dict[str, str]",
                     label: "Optional[str]") -> "Mapping[str, Template]":
    # {name: Template} of a ChatTemplate's named templates (a read-only Mapping): the default one (else the first)
    # compiled at once and held, each other compiled when it is first asked for, through the environment's cache of
    # compiled templates (bounded by characters of source): a model file with many large named templates costs the
    # compiling and the memory of those a render uses, not of all of them. Its class is made on first use: most
    # chat templates are one source, and a Mapping subclass costs every cold start ~0.1 M instructions.
    if not _NAMED_TEMPLATES:
        class NamedTemplates(Mapping[str, Template]):
            def __init__(self, environment: "Environment", sources: "dict[str, str]", label: "Optional[str]") -> None:
                self._environment = environment
                self._sources = sources
                self._label = label
                main = "default" if "default" in sources else next(iter(sources))
                self._held = {main: self._compiled(main)}

            def _compiled(self, key: str) -> "Template":
                return self._environment.from_string(self._sources[key],
                                                     name=f"{self._label}:{key}" if self._label else key)

            def __getitem__(self, key: str) -> "Template":
                held = self._held.get(key)
                return held if held is not None else self._compiled(key)

            def __contains__(self, key: object) -> bool:
                return key in self._sources

            def __iter__(self) -> "Iterator[str]":
                return iter(self._sources)

            def __len__(self) -> int:
                return len(self._sources)
        _NAMED_TEMPLATES.append(NamedTemplates)   # (threads racing here append equal classes: each uses the first)
    return _NAMED_TEMPLATES[0](environment, sources, label)


class ChatTemplate:
    """A chat template compiled once in the transformers profile; render() many conversations with it.

    source: the template text, or {name: text} for a model with several named templates (transformers'
        list form: "default", "tool_use", ...): the default one (else the first) compiled here, the others when
        first used.
    now: a datetime, or a callable returning one, freezing strftime_now (default: the real clock).
    limits: a Limits for this template (default: Limits()).
    name: the name errors show for the template.
    special_tokens: default template variables (bos_token, eos_token, ...), as a tokenizer provides them.

    Raises TemplateSyntaxError (or LimitExceeded) for a template that does not compile (a named one other than
    the default: when it is first used), TypeError twins for a source that is neither a str nor a mapping of
    str. A ChatTemplate pickles and deep-copies by its constructor's
    arguments (recompiled once per process); a `now` callable must then be picklable (a datetime always is).
    """

    def __init__(self, source: "TemplateSource", now: "Clock" = None, limits: "Optional[Limits]" = None,
                 name: "Optional[str]" = None, special_tokens: "Optional[Mapping[str, str]]" = None) -> None:
        self.source = source
        self.name = name
        self.now = now
        self.limits = limits
        self.special_tokens = dict(special_tokens or {})
        self.environment = chat_environment(now=now, limits=limits)
        self.templates = self._compile(source, name)
        self.template = self.templates.get("default") or next(iter(self.templates.values()))
        self._named = not isinstance(source, str)
        self._capabilities: dict[str, Capabilities] = {}

    def _compile(self, source: "TemplateSource", name: "Optional[str]") -> "Mapping[str, Template]":
        if isinstance(source, str):
            return {"default": self.environment.from_string(source, name=name)}
        if not isinstance(source, Mapping) or not source:
            raise type_error("a chat template is a str, or a non-empty mapping {name: str} of named templates; "
                             f"got {type(source).__name__}")
        for key, text in source.items():
            if not isinstance(key, str):
                raise type_error(f"chat template names must be str, not {type(key).__name__}")
            if not isinstance(text, str):
                raise type_error(f"template source must be a str, not {type(text).__name__} (the template {key!r})")
        return _named_templates(self.environment, dict(source), name)

    @property
    def template_names(self) -> "list[str]":
        """The names of the templates this ChatTemplate holds (["default"] for a single one)."""
        return list(self.templates)

    def select(self, chat_template: "Optional[str]" = None, tools: "Any" = None) -> "Template":
        """The template a render uses, chosen as transformers chooses: `chat_template` by name; else "tool_use"
        when tools are given (not None) and there is one; else "default". Raises a ValueError twin naming the
        available templates when the name is unknown or there is no default."""
        if chat_template is not None:
            if not isinstance(chat_template, str):
                raise type_error(f"chat_template must be a template name (str), not {type(chat_template).__name__}")
            found = self.templates.get(chat_template)
            if found is None:
                raise value_error(f"no chat template named {chat_template!r}; this template has "
                                  f"{self._names_phrase()} (to render other template text, make a ChatTemplate "
                                  "of it)")
            return found
        if tools is not None and "tool_use" in self.templates:
            return self.templates["tool_use"]
        if "default" in self.templates:
            return self.templates["default"]
        raise value_error("This model has multiple chat templates with no default specified! Please either pass "
                          "a chat template or the name of the template you wish to use to the `chat_template` "
                          f"argument. Available template names are {sorted(self.templates)}.")

    def _names_phrase(self) -> str:
        if not self._named:
            return "a single template (name 'default')"
        return "the templates " + ", ".join(map(repr, sorted(self.templates)))

    def render(self, messages: "Any", tools: "Any" = None, documents: "Any" = None, add_generation_prompt: bool = False,
               continue_final_message: "Union[bool, str]" = False, chat_template: "Optional[str]" = None,
               **kwargs: "Any") -> str:
        """The prompt for this conversation, as transformers' apply_chat_template(tokenize=False) returns it.

        tools: JSON schemas (dicts) or Python functions (turned into schemas by get_json_schema).
        chat_template: the name of one of several named templates (see select()).
        kwargs: further template variables; they override special_tokens.
        Raises TemplateError (never anything else): a TemplateRuntimeError subclass (or a twin of TypeError /
        ValueError) for bad inputs or a failing template, LimitExceeded past a limit.
        """
        return self._render(messages, tools, documents, add_generation_prompt, continue_final_message,
                            chat_template, None, {**self.special_tokens, **kwargs})

    def render_with_generation_spans(self, messages: "Any", tools: "Any" = None, documents: "Any" = None,
                                     add_generation_prompt: bool = False, chat_template: "Optional[str]" = None,
                                     **kwargs: "Any") -> "tuple[str, list[tuple[int, int]]]":
        """(prompt, [(start, end), ...]): the character spans of {% generation %} blocks (assistant turns), as
        transformers' return_assistant_tokens_mask computes them. Raises as render() does."""
        spans: list[tuple[int, int]] = []
        text = self._render(messages, tools, documents, add_generation_prompt, False, chat_template, spans,
                            {**self.special_tokens, **kwargs})
        return text, spans

    def _render_probe(self, messages: "Any", spans: "Optional[list[tuple[int, int]]]", tools: "Any" = None,
                      documents: "Any" = None, add_generation_prompt: bool = False,
                      chat_template: "Optional[str]" = None, **variables: "Any") -> str:
        # A capabilities probe (capabilities.py): rendered as render() renders, but with exactly `variables`
        # and none of this ChatTemplate's special_tokens, so that a template's capabilities depend on its text
        # alone (the probes are pinned: bos_token and eos_token given, nothing else). `spans`, when a list,
        # receives the generation spans.
        return self._render(messages, tools, documents, add_generation_prompt, False, chat_template, spans,
                            variables)

    def _render(self, messages: "Any", tools: "Any", documents: "Any", add_generation_prompt: bool,
                continue_final_message: "Union[bool, str]", chat_template: "Optional[str]",
                spans: "Optional[list[tuple[int, int]]]", variables: "dict[str, Any]") -> str:
        # The render behind render(), render_with_generation_spans() and _render_probe(); `variables` are
        # the template variables beyond messages/tools/documents (special tokens already merged in).
        try:
            template = self.template if chat_template is None and not self._named else \
                self.select(chat_template, tools)
            if continue_final_message and add_generation_prompt:
                raise _incompatible()
            # add_generation_prompt is made plain data like every other variable
            chat, tools, documents, kwargs, characters = prepare_inputs(
                messages, tools, documents,
                {**variables, "add_generation_prompt": add_generation_prompt},
                self.environment.limits)
            final_message = ""
            if continue_final_message:
                chat, final_message = mark_final_message(chat, continue_final_message, template.source)
            context = dict(messages=chat, tools=tools, documents=documents, **kwargs)
            inputs = len(chat) + (len(tools) if isinstance(tools, list) else 0) + \
                (len(documents) if isinstance(documents, list) else 0)
            rendered = _render_within_budget(template, context, spans, self.environment.limits, inputs, characters)
            if continue_final_message:
                rendered = cut_at_final_message(rendered, final_message)
            return rendered
        except TemplateError:
            raise
        except Exception as exc:  # malformed inputs (not iterable, unhashable keys, wrong types, ...)
            raise as_template_error(exc) from exc

    @classmethod
    def from_pretrained(cls, path: "Union[str, os.PathLike[str]]", name: "Optional[str]" = None, now: "Clock" = None,
                        limits: "Optional[Limits]" = None) -> "ChatTemplate":
        """The chat template(s) and special tokens of a model folder, a tokenizer_config.json /
        chat_template.json / .jinja / .gguf file, or a model id in the local Hugging Face cache (see
        load_chat_template). Every named template of the file is kept; `name` keeps only that one.
        Raises TemplateLoadError when nothing loads, TemplateSyntaxError when a template does not compile."""
        source, special_tokens = load_chat_template(path, name)
        label = os.path.basename(os.path.normpath(os.fspath(path)))
        return cls(source, now=now, limits=limits, name=label, special_tokens=special_tokens)

    @property
    def capabilities(self) -> "Capabilities":
        """What the default template does with each kind of input (system message, tools, tool calls, typed
        content, reasoning...), decided once by rendering probe conversations through it (capabilities.py)."""
        return cached_capabilities(self, None, self._capabilities)

    def capabilities_for(self, name: "Optional[str]") -> "Capabilities":
        """The Capabilities of the template `name` (None: the default one). Raises ValueError for an unknown
        name."""
        return cached_capabilities(self, name, self._capabilities)

    def __reduce__(self) -> "tuple[Any, ...]":
        return (_rebuild_chat_template, (self.source, self.now, self.limits, self.name, self.special_tokens))

    def __repr__(self) -> str:
        parts = ["ChatTemplate"] + ([self.name] if self.name else [])
        if self._named:
            parts.append(f"[{', '.join(self.templates)}]")
        return f"<{' '.join(parts)}>"


# ---------------------------------------------------------------------------------- compiled-template cache
_CACHE_SIZE = 64
_CACHE_CHARS = 1 << 19   # characters of template source the cache holds in all (see template.BoundedCache)
_cache = BoundedCache(_CACHE_SIZE, _CACHE_CHARS)


def _source_chars(source: "TemplateSource") -> int:
    return len(source) if isinstance(source, str) else sum(map(len, source.values()))


def _incompatible() -> Exception:
    return value_error("continue_final_message and add_generation_prompt are not compatible.")


def _cached(source: "TemplateSource", now: "Clock", limits: "Optional[Limits]", name: "Optional[str]",
            special_tokens: "Optional[Mapping[str, str]]") -> "ChatTemplate":
    # A ChatTemplate for these arguments, compiled at most once while it stays among the last _CACHE_SIZE used
    # (and _CACHE_CHARS of source; keyed by source and options; an unhashable option skips the cache).
    key: Any = (source if isinstance(source, str) else tuple(source.items()), now, limits, name,
                tuple(sorted(special_tokens.items())) if special_tokens else ())
    try:
        found = _cache.get(key)
    except TypeError:   # an unhashable option
        key = found = None
    if found is not None:
        return found   # type: ignore[return-value]
    made = ChatTemplate(source, now=now, limits=limits, name=name, special_tokens=special_tokens)
    if key is not None:
        _cache.put(key, made, _source_chars(source))
    return made


def _rebuild_chat_template(source: "TemplateSource", now: "Clock", limits: "Optional[Limits]", name: "Optional[str]",
                           special_tokens: "Optional[Mapping[str, str]]") -> "ChatTemplate":
    return _cached(source, now, limits, name, special_tokens)


def _render_within_budget(template: "Template", context: "dict[str, Any]", spans: "Optional[list[tuple[int, int]]]",
                          limits: "Limits", inputs: int, characters: "Any") -> str:
    # A chat render, whose step budget is max_steps + steps_per_message × its messages, tools and documents +
    # steps_per_character × the characters of its messages' strings (up to max_output of them). The characters
    # (prepare_inputs' last value) are counted only when a render runs out of the rest, which few do: it is then
    # rendered again from the start with the whole budget, and ends as one render given all of it would have
    # (the same text, or the same error at the same place: a render depends on its inputs alone, |random seeded
    # the same, but for the real clock's strftime_now), at the price of the steps spent before.
    budget = limits.max_steps + limits.steps_per_message * inputs
    try:
        rendered: str = template._render(context, spans, budget)
        return rendered
    except LimitExceeded as exc:
        allowance = limits.steps_per_character and exc.limit == "max_steps" and \
            limits.steps_per_character * message_characters(characters, limits.max_output)
        if not allowance:
            raise
    if spans is not None:
        del spans[:]   # (those of the render that ran out)
    rendered = template._render(context, spans, budget + allowance)
    return rendered


# ------------------------------------------------------------------------------------------ apply_chat_template
# transformers' arguments that only mean something with a tokenizer: refused when set, dropped when left unset
_TOKENIZER_ONLY = {
    "tokenize": "minijinja_py renders text only: leave tokenize out (or pass tokenize=False) and tokenize the "
                "prompt with your tokenizer",
    "return_tensors": "minijinja_py returns text, not tensors",
    "return_dict": "minijinja_py returns the prompt text, not a dict of token ids",
    "padding": "padding applies to token ids; minijinja_py returns text",
    "truncation": "truncation applies to token ids; minijinja_py returns text",
    "max_length": "max_length applies to token ids; minijinja_py returns text",
    "tokenizer_kwargs": "there is no tokenizer in minijinja_py",
    "return_assistant_tokens_mask": "use ChatTemplate.render_with_generation_spans(), which returns the character "
                                    "spans of the assistant's {% generation %} blocks",
}


def _drop_tokenizer_arguments(kwargs: "dict[str, Any]") -> "dict[str, Any]":
    for argument, why in _TOKENIZER_ONLY.items():
        if argument in kwargs:
            value = kwargs[argument]
            if value is not None and value is not False and value != {}:
                raise type_error(f"apply_chat_template: {argument}={to_str(value)} is not supported: {why}.")
    return {k: v for k, v in kwargs.items() if k not in _TOKENIZER_ONLY}


def _is_batch(conversation: "Any") -> bool:
    # A list of conversations, as transformers tells one: its first item a list or tuple of messages, or an
    # object holding them in `messages`.
    if not isinstance(conversation, (list, tuple)) or not conversation:
        return False
    first = conversation[0]
    return type(first) is not dict and (isinstance(first, (list, tuple)) or hasattr(first, "messages"))


def apply_chat_template(template: "Union[TemplateSource, ChatTemplate]", conversation: "Any", tools: "Any" = None,
                        documents: "Any" = None, chat_template: "Optional[str]" = None,
                        add_generation_prompt: bool = False, continue_final_message: "Union[bool, str]" = False,
                        *, now: "Clock" = None, limits: "Optional[Limits]" = None, **kwargs: "Any") -> "Union[str, list[str]]":
    """transformers' tokenizer.apply_chat_template(conversation, ..., tokenize=False), as a function.

    template: template source (compiled once, then taken from a bounded cache keyed by source and options),
        {name: source} for named templates, or a ChatTemplate.
    conversation: a list of messages → the prompt (str); a list of such lists → a list of prompts.
    now, limits: the ChatTemplate options, when template is source text.
    kwargs: template variables (bos_token, enable_thinking, ...). transformers' tokenizer-only arguments
        (tokenize=True,
        return_tensors, return_dict, padding, truncation, max_length, tokenizer_kwargs,
        return_assistant_tokens_mask) raise a TypeError twin instead of becoming template variables.
    Raises TemplateError only: TemplateSyntaxError for a template that does not compile, the errors of
    ChatTemplate.render otherwise.
    """
    if kwargs and not _TOKENIZER_ONLY.keys().isdisjoint(kwargs):
        kwargs = _drop_tokenizer_arguments(kwargs)
    if continue_final_message and add_generation_prompt:
        raise _incompatible()   # before compiling, as transformers checks them before it compiles the template
    compiled = template if isinstance(template, ChatTemplate) else _cached(template, now, limits, None, None)
    variables = {**compiled.special_tokens, **kwargs} if compiled.special_tokens else kwargs
    if _is_batch(conversation):
        return [compiled._render(messages, tools, documents, add_generation_prompt, continue_final_message,
                                 chat_template, None, variables) for messages in conversation]
    return compiled._render(conversation, tools, documents, add_generation_prompt, continue_final_message,
                            chat_template, None, variables)


# ------------------------------------------------------------------------------------------- shipped templates
# templates/ is installed as the package minijinja_py.templates (pyproject.toml); in a source checkout it is the
# folder next to the package, which the fallbacks read so that the package also runs straight from a source tree.
def _checkout_templates() -> str:
    # (found when a fallback reads it, not at import)
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "templates")


def _shipped_text(name: str) -> str:
    # Text of templates/<name>, from the installed package or the source checkout.
    from importlib import resources  # ~20 ms to import: paid by the first shipped template read, not at import
    try:
        return resources.files("minijinja_py.templates").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        with open(os.path.join(_checkout_templates(), name), encoding="utf-8", newline="") as f:
            return f.read()


def _shipped_names(suffix: str) -> "list[str]":
    # Names of the files in templates/ ending with suffix.
    from importlib import resources
    try:
        entries = [e.name for e in resources.files("minijinja_py.templates").iterdir()]
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        entries = os.listdir(_checkout_templates())
    return sorted(e for e in entries if e.endswith(suffix))


def seed_template_names() -> "list[str]":
    """Names of the chat templates shipped with the package (templates/*.jinja)."""
    return [f[:-len(".jinja")] for f in _shipped_names(".jinja")]


def seed_template(name: str) -> str:
    """The source of a shipped chat template, by name (see seed_template_names()). Raises KeyError for an
    unknown name."""
    if name not in seed_template_names():
        raise KeyError(f"no shipped template {name!r}; available: {', '.join(seed_template_names())}")
    text: str = _shipped_text(name + ".jinja")
    return text


def seed_special_tokens(name: str) -> "dict[str, str]":
    """The special tokens (bos_token, eos_token, ...) of a shipped template's model, as its tokenizer_config.json
    sets them (templates/special_tokens.json; templates/SOURCES.md cites the files), so that the shipped name
    renders as its model folder would. Raises KeyError for an unknown name."""
    if name not in seed_template_names():
        raise KeyError(f"no shipped template {name!r}; available: {', '.join(seed_template_names())}")
    import json  # only here: the shipped names' tokens, not worth a module import at start-up
    table = json.loads(_shipped_text("special_tokens.json"))
    return {key: str(value) for key, value in table.get(name, {}).items()}
