"""Chat inputs: what the caller passes → what transformers 5.x hands to the template, and its
continue_final_message handling around the render."""

# messages: message objects (dataclasses, pydantic models, mappings, a conversation object's `messages`) made
# dicts, None-valued keys dropped, reasoning fields aliased; tools: Python functions turned into their JSON schema;
# everything made plain data (str/int/float/bool/None/dict/list/tuple) without changing the caller's: plain data
# is found plain by one iterative walk and passed as it is (the sandbox never lets a template change it), anything
# else converted by one exact walk that copies only the containers on the way to what changes.

from _collections_abc import Mapping   # collections.abc itself, without the module that re-exports it

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, Optional

from .schema import get_json_schema
from ..core.errors import twin_of
from ..core.state import Limits, limit_exceeded
from ..runtime.printing import short_repr
from ..runtime.textcache import recall, remember

__all__ = ["prepare_inputs", "message_characters", "mark_final_message", "cut_at_final_message", "value_error",
           "type_error"]

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


def value_error(message: str) -> Exception:
    # The TemplateError that is also the ValueError transformers raises.
    return twin_of(ValueError)(message)


def type_error(message: str) -> Exception:
    # The TemplateError that is also the TypeError transformers raises.
    return twin_of(TypeError)(message)


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})
_FAST_VISITS = 200_000   # elements the fast walk visits before it hands over to the exact one (shared parts)


def _plain(value: "Any", limits: "Limits", again: bool = False) -> "Any":
    # transformers' _plain_template_data: inputs become plain str/int/float/bool/None/dict/list/tuple, anything
    # else its plain equivalent (a str subclass its str, a dataclass or pydantic model a dict, an unknown object
    # a "<TypeName>" placeholder). What is plain already is returned as it is (no copy: the sandbox never lets a
    # template change it), and a copy is made only of the containers on the way to what changes. Data nested
    # deeper than limits.max_data_depth (or containing itself) is refused.
    # again: value is often the same object from one call to the next (the tools of a pipeline): once found plain,
    # it is found plain again by its identity while its content has not changed (textcache: its fingerprint,
    # made in C, costs less than the walk).
    if type(value) in _PLAIN_SCALARS:
        return value
    kind = ("plain", limits.max_data_depth)
    if again and recall(value, kind):
        return value
    visited = _plain_walk([value], limits, 0)
    if visited:
        if again:
            remember(value, kind, True, visited, 0)
        return value
    return _converted(value, limits)[0]


def _converted(value: "Any", limits: "Limits") -> "tuple[Any, int]":
    # _plain's exact walk (_Conversion), for data the fast walk found not plain or gave up on: (value made plain,
    # the characters of its strings: those of each container once, however often it is shared).
    try:
        conversion = _Conversion(limits)
        return conversion.plain(value, 0), conversion.characters
    except RecursionError:
        raise _too_deep(limits) from None


def _too_deep(limits: "Limits") -> Exception:
    return limit_exceeded(limits, "max_data_depth",  # type: ignore[no-any-return]
                          "the template's input data nested this deep (or containing itself)")


def _plain_walk(level: "list[Any]", limits: "Limits", depth: int) -> "Optional[int]":
    # Are the values of `level` (all at that depth) made only of plain types, so that _plain returns them as
    # they are? How many containers it visited when they are (at least 1); 0 when they are not; None when the walk
    # gave up after _FAST_VISITS of them (data that shares its parts can have more paths than parts: the exact
    # walk of _Conversion visits each part once). Level by level, iteratively: this runs over every input of every
    # render. A container nested deeper than max_data_depth (a cycle included) is refused.
    scalars, max_depth = _PLAIN_SCALARS, limits.max_data_depth
    visits = 0
    while level:
        if depth > max_depth:
            raise _too_deep(limits)
        visits += len(level)
        if visits > _FAST_VISITS:
            return None
        below: list[Any] = []
        push = below.append
        for item in level:
            cls = type(item)
            if cls is dict:
                for key, child in item.items():
                    if type(key) not in scalars:
                        push(key)
                    if type(child) not in scalars:
                        push(child)
            elif cls is list or cls is tuple:
                for child in item:
                    if type(child) not in scalars:
                        push(child)
            else:
                return 0
        level = below
        depth += 1
    return max(visits, 1)


def message_characters(found: "Any", most: int) -> int:
    """The characters of the messages' strings as prepare_inputs found them (its last value), up to `most`:
    counted already (an int) when the messages had to be converted, else counted now in the plain messages it
    returned (a chat render asks only when its step budget first runs out). On plain messages: every string held
    as a value (in a dict, list or tuple; a key only inside a key that is a tuple), however nested, as often as
    it is held."""
    if type(found) is int:
        return min(found, most)
    # the levels of _normalized_messages and _plain_walk, which found these messages plain within _FAST_VISITS
    # containers below them: the same bound holds (it stops only data changed since, by another thread)
    scalars, characters, visits, level = _PLAIN_SCALARS, 0, -len(found), found
    while level and characters < most:
        visits += len(level)
        if visits > _FAST_VISITS:
            break
        below: list[Any] = []
        push = below.append
        for item in level:
            if type(item) is dict:
                for key in item:
                    if type(key) not in scalars:
                        push(key)
                item = item.values()
            for child in item:
                kind = type(child)
                if kind is str:
                    characters += len(child)
                elif kind not in scalars:
                    push(child)
        level = below
    return min(characters, most)


class _Conversion:
    # One exact walk of _plain: each container converted (or found plain) once, by identity, with its height (the
    # levels of containers and objects in it, itself included), so that shared parts cost once and a part met
    # again deeper is refused where it would pass max_data_depth; a part met again while it is being converted is
    # a cycle (refused). One frame per level of the data.

    def __init__(self, limits: "Limits") -> None:
        self.max_depth = limits.max_data_depth
        self.limits = limits
        self.characters = 0   # of the strings met (a shared container's once: it is converted once)
        self.done: dict[int, tuple[Any, Any, int]] = {}   # id → (the object, kept alive; its plain form; height)
        self.open: set[int] = set()

    def plain(self, value: "Any", depth: int) -> "Any":
        return self._convert(value, depth)[0]

    def _convert(self, value: "Any", depth: int) -> "tuple[Any, int]":
        # (value's plain form, its height: 0 for an exact scalar).
        cls = type(value)
        if cls in _PLAIN_SCALARS:
            if cls is str:
                self.characters += len(value)
            return value, 0
        if depth > self.max_depth:
            raise _too_deep(self.limits)
        key = id(value)
        found = self.done.get(key)
        if found is not None:
            if depth + found[2] - 1 > self.max_depth:
                raise _too_deep(self.limits)
            return found[1], found[2]
        if key in self.open:
            raise _too_deep(self.limits)   # it contains itself
        self.open.add(key)
        if cls is dict or cls is list or cls is tuple:
            made, height = self._container(value, cls, depth, True)
        else:
            made, height = self._other(value, depth)
        self.open.discard(key)
        self.done[key] = (value, made, height)
        return made, height

    def _container(self, value: "Any", cls: type, depth: int, keep: bool) -> "tuple[Any, int]":
        # A dict, list or tuple made plain (the same object when keep and nothing in it changes).
        convert, below, height, same = self._convert, depth + 1, 0, keep
        made: Any = []
        for item in (value.items() if cls is dict else value):
            if cls is dict:
                (key, key_height), (child, child_height) = convert(item[0], below), convert(item[1], below)
                same = same and key is item[0] and child is item[1]
                made.append((key, child))
                height = max(height, key_height, child_height)
            else:
                child, child_height = convert(item, below)
                same = same and child is item
                made.append(child)
                height = max(height, child_height)
        if same:
            return value, height + 1
        return (dict(made) if cls is dict else made if cls is list else tuple(made)), height + 1

    def _other(self, value: "Any", depth: int) -> "tuple[Any, int]":
        # What transformers makes of anything but an exact dict, list, tuple or scalar: a str, int or float
        # subclass its base value, a Mapping a dict, a list or tuple subclass a list or tuple, a numpy scalar its
        # item(), a dataclass a dict of its fields, a pydantic model its model_dump(), anything else a
        # "<TypeName>" placeholder.
        if isinstance(value, str):
            self.characters += len(value)
            return str.__str__(value), 1
        if isinstance(value, int):
            return int.__int__(value), 1
        if isinstance(value, float):
            return float.__float__(value), 1
        if isinstance(value, Mapping):
            return self._container(dict(value.items()), dict, depth, False)
        if isinstance(value, list):
            return self._container(value, list, depth, False)
        if isinstance(value, tuple):
            return self._container(value, tuple, depth, False)
        if _is_numpy_scalar(value):
            made, _ = self._convert(value.item(), depth)
            return made, 1
        if _is_dataclass(value):
            import dataclasses  # ~17 ms to import (inspect, ast): only for a caller that passes a dataclass
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            return self._container(fields, dict, depth, False)
        model_dump = getattr(value, "model_dump", None)
        if callable(model_dump):
            made, height = self._convert(model_dump(), depth + 1)
            return made, height + 1
        return f"<{type(value).__name__}>", 1


def _is_dataclass(value: "Any") -> bool:
    return hasattr(type(value), "__dataclass_fields__") and not isinstance(value, type)


def _is_numpy_scalar(value: "Any") -> bool:
    # Is value a numpy scalar (numpy.generic: np.bool_, np.int64...), without importing numpy?
    return any(c.__name__ == "generic" and c.__module__ == "numpy" for c in type(value).__mro__)


def _tool_schemas(tools: "Any") -> "Any":
    # tools as transformers takes them: JSON schemas (dicts) as they are, functions as get_json_schema makes
    # them; anything else is refused with transformers' message.
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


def prepare_inputs(messages: "Any", tools: "Any" = None, documents: "Any" = None, kwargs: "Optional[dict[str, Any]]" = None,
                   limits: "Optional[Limits]" = None) -> "tuple[list[Any], Any, Any, dict[str, Any], Any]":
    # (messages, tools, documents, kwargs) exactly as transformers 5.x hands them to the template, and what
    # message_characters counts the characters of the messages' strings in (a chat render's step budget grows
    # with them, counted only by a render that runs out of steps): their count when the messages were converted
    # (the exact walk counts them as it goes), else the plain messages before their reasoning fields are aliased.
    # kwargs is a dict of this call's own: returned as it is when it holds plain data only.
    limits = limits or Limits()
    normalized, counted = _normalized_messages(messages, limits)
    chat = [message if _REASONING.isdisjoint(message) else _alias_reasoning(message) for message in normalized]
    tools = _tool_schemas(tools)
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise type_error("Documents should be a list of dicts with 'title' and 'text' keys!")
    tools = _plain(tools, limits, again=True)
    documents = _plain(documents, limits, again=True)
    kwargs = kwargs if kwargs is not None else {}
    if not (_PLAIN_SCALARS.issuperset(map(type, kwargs.values())) and _PLAIN_SCALARS.issuperset(map(type, kwargs))):
        kwargs = _plain(kwargs, limits)
    return chat, tools, documents, kwargs, normalized if counted is None else counted


_REASONING = frozenset(_REASONING_FIELDS)


def _normalized_messages(messages: "Any", limits: "Limits") -> "tuple[list[dict[Any, Any]], Optional[int]]":
    # transformers' _normalize_chat_messages and _plain_template_data: a conversation (or an object with a
    # `messages` attribute holding one) → a new list of new dicts, each message as a dict (a dataclass, a pydantic
    # model or another mapping converted) without its None-valued keys, made plain (see _plain); and the
    # characters of the strings in them when they had to be converted (the exact walk counts them), else None.
    if isinstance(messages, (list, tuple)):
        if not messages:
            raise value_error("Cannot apply chat template to an empty conversation. Provide at least one message.")
    else:
        messages = getattr(messages, "messages", messages)
        if isinstance(messages, (str, bytes, Mapping)) or not hasattr(messages, "__iter__"):
            raise type_error(f"messages should be a list of dicts, but got {short_repr(messages)}.")
    # the None-valued keys dropped and the messages' values looked at in one pass: containers go on to the walk
    scalars, chat, below = _PLAIN_SCALARS, [], []
    push = below.append
    for message in messages:
        if type(message) is not dict:
            message = _message_dict(message, message, limits.max_data_depth)
        kept = {}
        for key, value in message.items():
            if value is not None:
                kept[key] = value
                if type(value) not in scalars:
                    push(value)
                if type(key) not in scalars:
                    push(key)
        chat.append(kept)
    if chat and limits.max_data_depth < 1:
        raise _too_deep(limits)
    return (chat, None) if _plain_walk(below, limits, 2) else _converted(chat, limits)


def _message_dict(message: "Any", given: "Any", room: int) -> "Any":
    # A message that is not a dict as one (transformers' _message_objects_to_dicts at the top level: what is
    # inside is made plain with everything else): a mapping, a dataclass's fields, a pydantic model's
    # model_dump(); anything else is refused with transformers' message.
    if isinstance(message, Mapping):
        return message
    if room > 0 and _is_dataclass(message):
        import dataclasses  # ~17 ms to import (inspect, ast): only for a caller that passes a dataclass
        return {f.name: getattr(message, f.name) for f in dataclasses.fields(message)}
    model_dump = getattr(message, "model_dump", None)
    if room > 0 and callable(model_dump) and not isinstance(message, type):
        return _message_dict(model_dump(), given, room - 1)
    raise type_error(f"Chat messages should be dicts, dataclasses or pydantic models, but got {short_repr(given)}.")


def _alias_reasoning(message: "dict[Any, Any]") -> "dict[Any, Any]":
    # A message with a reasoning field (reasoning_content, thinking or reasoning) under all of these names, as
    # transformers aliases it.
    for field in _REASONING_FIELDS:
        reasoning = message.get(field)
        if reasoning is not None:
            return {"thinking": reasoning, **message, "reasoning_content": reasoning}
    return message


def mark_final_message(chat: "list[Any]", continue_final_message: "Any", source: str) -> "tuple[list[Any], str]":
    # (chat with a tag appended to the final message's text, that text): transformers' continue_final_message.
    # The final message is copied, never changed in place.
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
    # The prompt cut just after the final message (at the tag mark_final_message put there).
    tag = _CONTINUE_TAG
    if final_message.strip() not in rendered or tag.strip() not in rendered:
        raise value_error("continue_final_message is set but the final message does not appear in the chat "
                          "after applying the chat template!")
    loc = rendered.rindex(tag.strip())
    if rendered[loc:loc + len(tag)] == tag:
        return rendered[:loc]
    return rendered[:loc].rstrip()
