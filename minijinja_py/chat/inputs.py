"""Chat inputs: what the caller passes → what transformers 5.x hands to the template, and its
continue_final_message handling around the render.

messages: None-valued keys dropped, reasoning fields aliased; tools: Python functions turned into their JSON
schema; everything made plain data (str/int/float/bool/None/dict/list/tuple) without mutating the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations stay strings (PEP 563)
    from typing import Any, Optional

from .schema import get_json_schema
from ..core.errors import twin_of
from ..core.state import Limits, limit_exceeded
from ..runtime.printing import short_repr

__all__ = ["prepare_inputs", "mark_final_message", "cut_at_final_message", "value_error", "type_error"]

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


def value_error(message: str) -> Exception:
    """The TemplateError that is also the ValueError transformers raises."""
    return twin_of(ValueError)(message)


def type_error(message: str) -> Exception:
    """The TemplateError that is also the TypeError transformers raises."""
    return twin_of(TypeError)(message)


def _plain(value: Any, limits: Limits, depth: int = 0) -> Any:
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
    if hasattr(type(value), "__dataclass_fields__") and not isinstance(value, type):
        import dataclasses  # ~17 ms to import (inspect, ast): only for a caller that passes a dataclass
        return {f.name: _plain(getattr(value, f.name), limits, depth + 1) for f in dataclasses.fields(value)}
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return _plain(model_dump(), limits, depth + 1)
    return f"<{type(value).__name__}>"


def _too_deep(limits: Limits) -> Exception:
    return limit_exceeded(limits, "max_data_depth",  # type: ignore[no-any-return]
                          "the template's input data nested this deep (or containing itself)")


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_plain(value: Any, depth: int, limits: Limits) -> bool:
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


def _tool_schemas(tools: Any) -> Any:
    """tools as transformers takes them: JSON schemas (dicts) as they are, functions as get_json_schema makes
    them; anything else is refused with transformers' message."""
    if tools is None:
        return None
    if type(tools) is list and all(type(tool) is dict for tool in tools):
        return tools   # the caller's own list, as a new one would be: the same tools in every render are found
        #                again with their texts (textcache)
    schemas = []
    for tool in tools:
        if isinstance(tool, dict):
            schemas.append(tool)
        elif callable(tool) and not isinstance(tool, type):
            schemas.append(get_json_schema(tool))
        else:
            raise value_error("Tools should either be a JSON schema, or a callable function with type hints "
                              "and a docstring suitable for auto-conversion to a schema.")
    return schemas


def prepare_inputs(messages: Any, tools: Any = None, documents: Any = None, kwargs: Optional[dict[str, Any]] = None,
                   limits: Optional[Limits] = None) -> tuple[list[Any], Any, Any, dict[str, Any]]:
    """(messages, tools, documents, kwargs) exactly as transformers 5.x hands them to the template."""
    limits = limits or Limits()
    if isinstance(messages, (list, tuple)) and len(messages) == 0:
        raise value_error("Cannot apply chat template to an empty conversation. Provide at least one message.")
    if isinstance(messages, (str, bytes, Mapping)) or not hasattr(messages, "__iter__"):
        raise type_error(f"messages should be a list of dicts, but got {short_repr(messages)}.")
    chat = []
    for message in messages:
        if not isinstance(message, dict):
            raise type_error(f"Chat messages should be dicts, dataclasses or pydantic models, but got "
                             f"{short_repr(message)}.")
        chat.append({k: v for k, v in message.items() if v is not None})
    tools = _tool_schemas(tools)
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise type_error("Documents should be a list of dicts with 'title' and 'text' keys!")
    tools = _plain(tools, limits)
    documents = _plain(documents, limits)
    kwargs = _plain(dict(kwargs or {}), limits)
    chat = [_alias_reasoning(m) for m in _plain(chat, limits)]
    return chat, tools, documents, kwargs  # type: ignore[return-value]


def _alias_reasoning(message: Any) -> Any:
    if isinstance(message, dict):
        for field in _REASONING_FIELDS:
            reasoning = message.get(field)
            if reasoning is not None:
                return {"thinking": reasoning, **message, "reasoning_content": reasoning}
    return message


def mark_final_message(chat: list[Any], continue_final_message: Any, source: str) -> tuple[list[Any], str]:
    """(chat with a tag appended to the final message's text, that text): transformers' continue_final_message.
    The final message is copied, never changed in place."""
    field = continue_final_message if isinstance(continue_final_message, str) else "content"
    last = dict(chat[-1])
    final_message = last.get(field)
    if final_message is None:
        raise value_error(f'continue_final_message is set but the final message has no "{field}" to continue!')
    names = [field]
    if field in _REASONING_FIELDS:
        names = [f for f in _REASONING_FIELDS if last.get(f) == final_message]
    if not any(f in source for f in names):
        raise value_error(f'continue_final_message is set to "{field}" but this is not an accepted field in '
                          "the chat_template")
    if isinstance(final_message, (list, tuple)):
        blocks = [dict(b) if isinstance(b, dict) else b for b in final_message]
        for block in reversed(blocks):
            if "text" in block:
                final_message = block["text"]
                block["text"] = block["text"] + _CONTINUE_TAG
                break
        else:
            raise value_error("continue_final_message is set but we could not find any text to continue in "
                              "the final message!")
        last[field] = blocks
    else:
        for f in names:
            last[f] = last[f] + _CONTINUE_TAG
    return chat[:-1] + [last], final_message


def cut_at_final_message(rendered: str, final_message: str) -> str:
    """The prompt cut just after the final message (at the tag mark_final_message put there)."""
    tag = _CONTINUE_TAG
    if final_message.strip() not in rendered or tag.strip() not in rendered:
        raise value_error("continue_final_message is set but the final message does not appear in the chat "
                          "after applying the chat template!")
    loc = rendered.rindex(tag.strip())
    if rendered[loc:loc + len(tag)] == tag:
        return rendered[:loc]
    return rendered[:loc].rstrip()
