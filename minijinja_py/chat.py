"""Chat: the transformers profile. messages/tools/documents → the prompt string, exactly as
`tokenizer.apply_chat_template(..., tokenize=False)` of transformers 5.x produces it.

chat_environment() is the Environment transformers configures (trim_blocks, lstrip_blocks, loop controls,
{% generation %}, its tojson, raise_exception, strftime_now, namespace/dict globals); ChatTemplate applies
transformers' input processing (None-valued message keys dropped, reasoning fields aliased, inputs made plain
data) and its continue_final_message handling. Templates also load from model folders (chat_template.jinja,
chat_template.json, tokenizer_config.json).
"""

import dataclasses
import datetime
import json
import os
from collections.abc import Mapping

from . import _resources
from .capabilities import cached_capabilities, clock_reading
from .environment import Environment
from .errors import TemplateError, as_template_error, twin_of
from .htmlfilters import chat_tojson
from .printing import short_repr, to_str
from .runtime import ChatNamespace, Limits, limit_exceeded

__all__ = ["chat_environment", "ChatTemplate", "raise_exception", "load_chat_template", "seed_template",
           "seed_template_names"]

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "
_SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def raise_exception(message):
    """raise_exception(msg) in a template: fail the render with exactly this message."""
    raise TemplateError(message if isinstance(message, str) else to_str(message))


def _strftime_now(now):
    def strftime_now(format):
        """strftime_now('%Y-%m-%d'): the current time (or the ChatTemplate's frozen clock) formatted."""
        return clock_reading(now).strftime(format)
    return strftime_now


def chat_environment(trim_blocks=True, lstrip_blocks=True, now=None, limits=None):
    """The Environment transformers' apply_chat_template renders with (an immutable sandbox)."""
    env = Environment(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks,
                      extensions=("loopcontrols", "generation"), limits=limits)
    env.filters["tojson"] = chat_tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = _strftime_now(now or datetime.datetime.now)
    env.globals["namespace"] = ChatNamespace
    return env


# ------------------------------------------------------------------------------------------ input processing
def _plain(value, limits, depth=0):
    """transformers' _plain_template_data: inputs become plain str/int/float/bool/None/dict/list/tuple.
    Already-plain data is returned as is (no copy): the sandbox never lets a template mutate it.
    Data nested deeper than limits.max_data_depth (or containing itself) is refused."""
    cls = type(value)
    if value is None or cls is str or cls is int or cls is float or cls is bool:
        return value
    if depth > limits.max_data_depth:
        raise _too_deep(limits)
    if cls is dict or cls is list or cls is tuple:
        if _is_plain(value, depth, limits):
            return value
        if cls is dict:
            return {_plain(k, limits, depth + 1): _plain(v, limits, depth + 1) for k, v in value.items()}
        if cls is list:
            return [_plain(v, limits, depth + 1) for v in value]
        return tuple(_plain(v, limits, depth + 1) for v in value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {_plain(k, limits, depth + 1): _plain(v, limits, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, limits, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v, limits, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), limits, depth + 1) for f in dataclasses.fields(value)}
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return _plain(model_dump(), limits, depth + 1)
    return f"<{type(value).__name__}>"


def _too_deep(limits):
    return limit_exceeded(limits, "max_data_depth",
                          "the template's input data nested this deep (or containing itself)")


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_plain(value, depth, limits):
    """Is value made only of plain types already (so _plain would return an equal copy)? Iterative: this runs
    over every input of every render. Data nested deeper than max_data_depth (a cycle included) is refused."""
    scalars = _PLAIN_SCALARS
    max_depth = limits.max_data_depth
    stack = [(value, depth)]
    pop, push = stack.pop, stack.append
    while stack:
        item, level = pop()
        cls = type(item)
        if cls in scalars:
            continue
        if level > max_depth:
            raise _too_deep(limits)
        level += 1
        if cls is dict:
            for key, child in item.items():
                if type(key) not in scalars:
                    push((key, level))
                if type(child) not in scalars:
                    push((child, level))
        elif cls is list or cls is tuple:
            for child in item:
                if type(child) not in scalars:
                    push((child, level))
        else:
            return False
    return True


def _value_error(message):
    return twin_of(ValueError)(message)


def _type_error(message):
    return twin_of(TypeError)(message)


def prepare_inputs(messages, tools=None, documents=None, kwargs=None, limits=None):
    """(messages, tools, documents, kwargs) exactly as transformers 5.x hands them to the template."""
    limits = limits or Limits()
    if isinstance(messages, (list, tuple)) and len(messages) == 0:
        raise _value_error("Cannot apply chat template to an empty conversation. Provide at least one message.")
    if isinstance(messages, (str, bytes, Mapping)) or not hasattr(messages, "__iter__"):
        raise _type_error(f"messages should be a list of dicts, but got {short_repr(messages)}.")
    chat = []
    for message in messages:
        if not isinstance(message, dict):
            raise _type_error(f"Chat messages should be dicts, dataclasses or pydantic models, but got "
                              f"{short_repr(message)}.")
        chat.append({k: v for k, v in message.items() if v is not None})
    if tools is not None:
        for tool in tools:
            if not isinstance(tool, dict):
                raise _value_error("Tools should either be a JSON schema, or a callable function with type hints "
                                   "and a docstring suitable for auto-conversion to a schema.")
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise _type_error("Documents should be a list of dicts with 'title' and 'text' keys!")
    tools = _plain(tools, limits)
    documents = _plain(documents, limits)
    kwargs = _plain(dict(kwargs or {}), limits)
    chat = [_alias_reasoning(m) for m in _plain(chat, limits)]
    return chat, tools, documents, kwargs


def _alias_reasoning(message):
    if isinstance(message, dict):
        for field in _REASONING_FIELDS:
            reasoning = message.get(field)
            if reasoning is not None:
                return {"thinking": reasoning, **message, "reasoning_content": reasoning}
    return message


# ------------------------------------------------------------------------------------------------ ChatTemplate
class ChatTemplate:
    """A chat template compiled once in the transformers profile; render() many conversations with it.

    now: a callable returning a datetime, freezing strftime_now (default: the real clock).
    limits: a Limits for this template (default: Limits()).
    special_tokens: default template variables (bos_token, eos_token, ...), as a tokenizer provides them.
    """

    def __init__(self, source, now=None, limits=None, name=None, special_tokens=None):
        self.source = source
        self.name = name
        self.special_tokens = dict(special_tokens or {})
        self.environment = chat_environment(now=now, limits=limits)
        self.template = self.environment.from_string(source, name=name)
        self._capabilities = {}

    def render(self, messages, tools=None, documents=None, add_generation_prompt=False,
               continue_final_message=False, **kwargs):
        """The prompt for this conversation, as transformers' apply_chat_template(tokenize=False) returns it."""
        return self._render(messages, tools, documents, add_generation_prompt, continue_final_message,
                            None, kwargs)

    def render_with_generation_spans(self, messages, tools=None, documents=None, add_generation_prompt=False,
                                     **kwargs):
        """(prompt, [(start, end), ...]): the character spans of {% generation %} blocks (assistant turns), as
        transformers' return_assistant_tokens_mask computes them."""
        spans = []
        text = self._render(messages, tools, documents, add_generation_prompt, False, spans, kwargs)
        return text, spans

    def _render(self, messages, tools, documents, add_generation_prompt, continue_final_message, spans, kwargs):
        try:
            if continue_final_message and add_generation_prompt:
                raise _value_error("continue_final_message and add_generation_prompt are not compatible.")
            chat, tools, documents, kwargs = prepare_inputs(messages, tools, documents,
                                                            {**self.special_tokens, **kwargs},
                                                            self.environment.limits)
            final_message = None
            if continue_final_message:
                chat, final_message = self._mark_final_message(chat, continue_final_message)
            context = dict(messages=chat, tools=tools, documents=documents,
                           add_generation_prompt=add_generation_prompt, **kwargs)
            rendered = self.template._render(context, spans)
            if continue_final_message:
                rendered = self._cut_at_final_message(rendered, final_message)
            return rendered
        except TemplateError:
            raise
        except Exception as exc:  # malformed inputs (not iterable, unhashable keys, wrong types, ...)
            raise as_template_error(exc) from exc

    def _mark_final_message(self, chat, continue_final_message):
        field = continue_final_message if isinstance(continue_final_message, str) else "content"
        last = dict(chat[-1])
        final_message = last.get(field)
        if final_message is None:
            raise _value_error(f'continue_final_message is set but the final message has no "{field}" to continue!')
        names = [field]
        if field in _REASONING_FIELDS:
            names = [f for f in _REASONING_FIELDS if last.get(f) == final_message]
        if not any(f in self.source for f in names):
            raise _value_error(f'continue_final_message is set to "{field}" but this is not an accepted field in '
                               "the chat_template")
        if isinstance(final_message, (list, tuple)):
            blocks = [dict(b) if isinstance(b, dict) else b for b in final_message]
            for block in reversed(blocks):
                if "text" in block:
                    final_message = block["text"]
                    block["text"] = block["text"] + _CONTINUE_TAG
                    break
            else:
                raise _value_error("continue_final_message is set but we could not find any text to continue in "
                                   "the final message!")
            last[field] = blocks
        else:
            for f in names:
                last[f] = last[f] + _CONTINUE_TAG
        return chat[:-1] + [last], final_message

    @staticmethod
    def _cut_at_final_message(rendered, final_message):
        tag = _CONTINUE_TAG
        if final_message.strip() not in rendered or tag.strip() not in rendered:
            raise _value_error("continue_final_message is set but the final message does not appear in the chat "
                               "after applying the chat template!")
        loc = rendered.rindex(tag.strip())
        if rendered[loc:loc + len(tag)] == tag:
            return rendered[:loc]
        return rendered[:loc].rstrip()

    @property
    def capabilities(self):
        """What the (default) template does with each kind of input, decided once by rendering probe
        conversations through it: a Capabilities (see minijinja_py/capabilities.py)."""
        return cached_capabilities(self, None, self._capabilities)

    def capabilities_for(self, name):
        """The Capabilities of the template `name` of a file with several (None: the default one)."""
        return cached_capabilities(self, name, self._capabilities)

    @classmethod
    def from_pretrained(cls, path, name=None, now=None, limits=None):
        """Load the chat template (and special tokens) of a model folder; see load_chat_template."""
        source, special_tokens = load_chat_template(path, name)
        return cls(source, now=now, limits=limits, name=os.path.basename(os.path.normpath(path)),
                   special_tokens=special_tokens)

    def __repr__(self):
        return f"<ChatTemplate {self.name or ''}>".replace(" >", ">")


# --------------------------------------------------------------------------------------------------- loaders
def _token_text(token):
    if isinstance(token, dict):
        return token.get("content")
    return token


def load_chat_template(path, name=None):
    """(template source, special tokens) from a model folder or file.

    A folder is searched as transformers does: chat_template.jinja, then chat_template.json, then the
    "chat_template" of tokenizer_config.json (a string, or a list of {"name", "template"}: `name` picks one,
    "default" otherwise). Special tokens (bos_token, eos_token, ...) come from tokenizer_config.json and
    special_tokens_map.json. A file path is read as the template itself (.jinja) or as one of those JSON files.
    """
    special = {}
    if os.path.isdir(path):
        for fname in ("special_tokens_map.json", "tokenizer_config.json"):
            fpath = os.path.join(path, fname)
            if os.path.exists(fpath):
                with open(fpath, encoding="utf-8") as f:
                    data = json.load(f)
                for key in _SPECIAL_TOKENS:
                    text = _token_text(data.get(key))
                    if isinstance(text, str):
                        special[key] = text
        candidates = [os.path.join(path, "chat_template.jinja"), os.path.join(path, "chat_template.json"),
                      os.path.join(path, "tokenizer_config.json")]
        for candidate in candidates:
            if os.path.exists(candidate):
                source = _template_from_file(candidate, name)
                if source is not None:
                    return source, special
        raise FileNotFoundError(f"no chat template found in {path} (looked for chat_template.jinja, "
                                "chat_template.json, tokenizer_config.json)")
    source = _template_from_file(path, name)
    if source is None:
        raise ValueError(f"{path} has no chat_template")
    return source, special


def _template_from_file(path, name):
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if not path.endswith(".json"):
        return text
    data = json.loads(text)
    template = data.get("chat_template") if isinstance(data, dict) else None
    if isinstance(template, list):
        by_name = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        wanted = name or "default"
        if wanted not in by_name:
            raise ValueError(f"{path} has chat templates {sorted(by_name)}, not {wanted!r}")
        return by_name[wanted]
    return template


def seed_template_names():
    """Names of the chat templates shipped with the package (templates/*.jinja)."""
    return [f[:-len(".jinja")] for f in _resources.list_names("templates", ".jinja")]


def seed_template(name):
    """The source of a shipped chat template, by name (see seed_template_names())."""
    if name not in seed_template_names():
        raise KeyError(f"no shipped template {name!r}; available: {', '.join(seed_template_names())}")
    return _resources.read_text("templates", name + ".jinja")
