"""minijinja_py: a pure-Python interpreter for the Jinja that LLM chat templates are written in.

Renders byte-identically to Python Jinja2 as HF transformers' apply_chat_template configures it, with no Jinja2
dependency (no runtime dependency at all), a sandbox and resource limits stricter than Jinja2's, and errors
that point at the template. Unrelated to the Rust `minijinja` package on PyPI.

    import minijinja_py as mj
    mj.Environment().from_string("Hello {{ name }}!").render(name="World")
    mj.ChatTemplate(source).render(messages, add_generation_prompt=True)
    mj.apply_chat_template(source, messages, add_generation_prompt=True)
"""

from .core.state import (
    Limits, gc_paused as _gc_paused, pass_context, pass_environment, pass_eval_context, pass_state, select_autoescape,
)

# Docstrings are for modules and the public API (what this file exports, the filters and tests); internal
# functions and classes are explained by comments, since CPython keeps every docstring in memory with its code
# (~0.25 MiB of a cold start's peak).

# The import makes tens of thousands of objects and next to no garbage: the cyclic collector's passes over them
# while it runs were ~1.5 ms of a cold start (it sees them once, after).
with _gc_paused():
    from .chat.capabilities import Capabilities
    from .chat.template import (
        ChatTemplate, apply_chat_template, chat_environment, load_chat_template, raise_exception, seed_special_tokens,
        seed_template, seed_template_names,
    )
    from .environment import Environment, Template
    from .core.errors import (
        FilterArgumentError, LimitExceeded, SecurityError, TemplateAssertionError, TemplateError, TemplateNotFound,
        TemplateRuntimeError, TemplatesNotFound, TemplateSyntaxError, UndefinedError, twin_of,
    )
    from . import meta
    from .loaders import BaseLoader, ChoiceLoader, DictLoader, FileSystemLoader, FunctionLoader, PrefixLoader
    from .chat.loading import TemplateLoadError
    from .runtime.markup import Markup, escape
    from .chat.schema import DocstringParsingException, TypeHintParsingException, get_json_schema
    from .runtime.undefined import ChainableUndefined, DebugUndefined, StrictUndefined, Undefined

__version__ = "0.1.0"

__all__ = [
    "Environment", "Template", "ChatTemplate", "Capabilities", "apply_chat_template", "chat_environment", "load_chat_template",
    "get_json_schema", "seed_template", "seed_template_names", "seed_special_tokens", "raise_exception", "TemplateError",
    "TemplateSyntaxError", "TemplateAssertionError", "TemplateRuntimeError", "UndefinedError", "SecurityError",
    "FilterArgumentError", "LimitExceeded", "TemplateNotFound", "TemplatesNotFound", "TemplateLoadError",
    "BaseLoader", "DictLoader", "FileSystemLoader", "FunctionLoader", "ChoiceLoader", "PrefixLoader", "DocstringParsingException",
    "TypeHintParsingException", "twin_of", "Undefined", "StrictUndefined", "ChainableUndefined", "DebugUndefined",
    "Limits", "Markup", "escape", "pass_state", "meta", "pass_environment", "pass_eval_context", "pass_context",
    "select_autoescape",
]
