"""Schema: a typed Python function with a Google-style docstring → the JSON schema of it as a tool.

Follows transformers.utils.get_json_schema's documented rules (its output is what chat templates are written
against): {"type": "function", "function": {"name", "description", "parameters", "return"?}}; parameters is a
JSON-schema object whose properties come from the type hints and whose descriptions come from the docstring's
Args: section; parameters without a default are "required"; a `(choices: [...])` at the end of an argument's
description becomes its "enum". Types: int → integer, float → number, str → string, bool → boolean,
None → null, Any → {}, list[X] → array of X, tuple[X, Y] → array with prefixItems, dict[K, V] → object with
additionalProperties V, Literal[...] → enum, a union of plain types → a sorted list of type names, a union
with a structured member → anyOf, None in a union → "nullable": true; any other class → object.
"""

from __future__ import annotations

import json
import re
import types

from ..core.errors import TemplateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["get_json_schema", "TypeHintParsingException", "DocstringParsingException"]


class TypeHintParsingException(TemplateError):
    """A type hint that has no JSON-schema form (a missing hint, tuple[X], tuple[X, ...], a bad Literal)."""


class DocstringParsingException(TemplateError):
    """A docstring that is missing or does not describe every argument."""


_PLAIN_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null",
                list: "array", tuple: "array", dict: "object"}
_LITERAL_TYPES = (int, float, str, bool, type(None))


def _inspect():
    import inspect   # heavy (it imports ast, dis, enum...) and only tools given as Python functions need it
    return inspect


def _typing():
    import typing   # ~4 ms of a cold start, and only tools given as Python functions need it
    return typing


def _hint_schema(hint):
    """The JSON schema of one type hint."""
    typing = _typing()
    if hint is typing.Any:
        return {}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        return {"type": _PLAIN_TYPES.get(hint, "object")}
    if origin is typing.Union or origin is getattr(types, "UnionType", None):
        return _union_schema(args)
    if origin is typing.Literal:
        return _literal_schema(args)
    if origin is list:
        return {"type": "array", "items": _hint_schema(args[0])} if args else {"type": "array"}
    if origin is tuple:
        return _tuple_schema(hint, args)
    if origin is dict:
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _hint_schema(args[1])
        return schema
    raise TypeHintParsingException(f"Couldn't parse this type hint, likely due to a custom class or object: {hint}")


def _merge_types(schemas):
    """One schema for alternatives that are all plain {"type": name}: the name, or the sorted unique names;
    None when some alternative has more to it than a type name (then it takes anyOf)."""
    names = []
    for schema in schemas:
        if set(schema) != {"type"} or not isinstance(schema["type"], str):
            return None
        if schema["type"] not in names:
            names.append(schema["type"])
    return {"type": names[0] if len(names) == 1 else sorted(names)}


def _union_schema(args):
    members = [_hint_schema(arg) for arg in args if arg is not type(None)]
    if len(members) == 1:
        schema = members[0]
    else:
        schema = _merge_types(members) or {"anyOf": members}
    if type(None) in args:
        schema["nullable"] = True
    return schema


def _literal_schema(values):
    kinds = []
    for value in values:
        if type(value) not in _LITERAL_TYPES:
            raise TypeHintParsingException(f"Only the valid python types can be used in literals, not "
                                           f"{type(value).__name__} ({value!r})")
        name = _PLAIN_TYPES[type(value)]
        if name not in kinds:
            kinds.append(name)
    return {"type": kinds[0] if len(kinds) == 1 else sorted(kinds), "enum": list(values)}


def _tuple_schema(hint, args):
    if not args:
        return {"type": "array"}
    if len(args) == 1:
        shown = str(hint).replace("typing.", "")
        raise TypeHintParsingException(f"The type hint {shown} is a Tuple with a single element, which we do not "
                                       "automatically convert to JSON schema as it is rarely necessary. If this "
                                       "input can contain more than one element, we recommend using a list[] type "
                                       "instead, or if it really is a single element, remove the tuple[] wrapper "
                                       "and just pass the element directly.")
    if Ellipsis in args:
        raise TypeHintParsingException("Conversion of '...' is not supported in Tuple type hints. Use list[] types "
                                       "for variable-length inputs instead.")
    return {"type": "array", "prefixItems": [_hint_schema(arg) for arg in args]}


# ---------------------------------------------------------------------------------------------------- docstrings
# (patterns given to re's functions as text: compiled on first use and kept in re's cache, not at import)
_SECTION = r"^\s*(Args|Returns|Raises):\s*$"
_ARG_LINE = r"^\s*(\w+):\s*(.*)$"
_CHOICES = r"(?is)\(choices:\s*(.*?)\)\s*$"


def _split_docstring(doc):
    """(description, {arg: description}, returns description or None) of a Google-style docstring."""
    lines = doc.split("\n")
    sections, current = {"": []}, ""
    for line in lines:
        heading = re.match(_SECTION, line)
        if heading:
            current = heading.group(1)
            sections[current] = []
        else:
            sections[current].append(line)
    description = "\n".join(sections[""]).strip()
    returns = "\n".join(sections["Returns"]).strip() if "Returns" in sections else None
    return description, _arg_descriptions(sections.get("Args", [])), returns


def _arg_descriptions(lines):
    """Each `name: text` line starts an argument; the lines under it continue its text (joined by spaces)."""
    args, current = {}, None
    for line in lines:
        if not line.strip():
            continue
        start = re.match(_ARG_LINE, line)
        if start:
            current = start.group(1)
            args[current] = [start.group(2).strip()]
        elif current is not None:
            args[current].append(line.strip())
    return {name: " ".join(part for part in parts if part) for name, parts in args.items()}


def _with_choices(schema, description):
    """A trailing `(choices: [...])` (JSON) of an argument's description becomes the schema's enum."""
    match = re.search(_CHOICES, description)
    if match:
        try:
            choices = json.loads(match.group(1))
        except ValueError as exc:
            raise DocstringParsingException(f"the choices {match.group(1)!r} are not a JSON list ({exc})") from None
        if not isinstance(choices, list):
            raise DocstringParsingException(f"the choices {match.group(1)!r} are not a JSON list")
        schema["enum"] = [c.strip() if isinstance(c, str) else c for c in choices]
        description = description[:match.start()].strip()
    schema["description"] = description
    return schema


# -------------------------------------------------------------------------------------------------- the schema
def _parameters(func, name):
    try:
        hints = _typing().get_type_hints(func)
        inspect = _inspect()
        signature = inspect.signature(func)
    except Exception as exc:  # an annotation that names something undefined, an object with no signature, ...
        raise TypeHintParsingException(f"Cannot read the type hints of {name}: {exc}") from None
    properties, required = {}, []
    for index, param in enumerate(signature.parameters.values()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if index == 0 and param.name in ("self", "cls") and param.name not in hints:
            continue  # a method taken from its class (Tool.method): its self is no argument of the tool
        if param.name not in hints:
            raise TypeHintParsingException(f"Argument {param.name} is missing a type hint in function {name}")
        properties[param.name] = _hint_schema(hints[param.name])
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema, hints


def get_json_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The tool schema of a function, as transformers.utils.get_json_schema makes it (see the module docstring).

    Works for functions, bound and unbound methods, static and class methods. Raises DocstringParsingException
    when the docstring is missing or an argument has no description in its Args: section, and
    TypeHintParsingException when an argument has no type hint or a hint with no JSON-schema form; both are
    TemplateErrors.
    """
    name = getattr(func, "__name__", type(func).__name__)
    if not callable(func):
        raise TypeHintParsingException(f"get_json_schema needs a function, not {type(func).__name__}")
    doc = _inspect().getdoc(func)
    if not doc or not doc.strip():
        raise DocstringParsingException(f"Cannot generate JSON schema for {name} because it has no docstring!")
    description, arg_docs, returns_doc = _split_docstring(doc.strip())
    parameters, hints = _parameters(func, name)
    for arg, schema in parameters["properties"].items():
        if arg not in arg_docs:
            raise DocstringParsingException(f"Cannot generate JSON schema for {name} because the docstring has no "
                                            f"description for the argument '{arg}'")
        _with_choices(schema, arg_docs[arg])
    function = {"name": name, "description": description, "parameters": parameters}
    if "return" in hints:
        returned = _hint_schema(hints["return"])
        if returns_doc is not None:
            returned["description"] = returns_doc
        function["return"] = returned
    return {"type": "function", "function": function}
