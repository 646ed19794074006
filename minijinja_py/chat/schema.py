"""Schema: a typed Python function with a Google-style docstring → the JSON schema of it as a tool."""

# What transformers 5.x's get_json_schema makes of the same function (chat templates are written against its
# output): {"type": "function", "function": {"name", "description", "parameters", "return"?}}. parameters is a
# JSON-schema object: a property per argument (and per *args/**kwargs) from its type hint, "required" for those
# without a default; a first argument `self`/`cls` without a hint is the method's receiver and left out.
#
# Hints: int → integer, float → number, str → string, bool → boolean, None → null, Any → {},
# list/tuple → array, dict → object; an Enum class → the JSON types and the values of its members ("enum");
# list[X] → items X, tuple[X, Y] → prefixItems, dict[K, V] → additionalProperties V, Literal[...] → enum; a
# union of plain types → their sorted names, with a structured member → anyOf, with None → "nullable". Any other
# class raises TypeHintParsingException (its JSON form cannot be known); an unconvertible return hint just leaves
# "return" out.
#
# Docstring: the description is the text before the first `Args:`, `Returns:` or `Raises:`; the `Args:` section
# (a line of its own) lists `name: text` or `name (type): text` entries, an entry's text going on over the lines
# that are indented deeper or do not look like an entry; `(choices: [...])` (JSON) at the end of a description
# becomes the property's "enum"; the `Returns:` section describes "return".
#
# Where transformers lets a Python error out (a hint that cannot be hashed, a docstring or name that fails to be
# read, choices that are no JSON), this raises DocstringParsingException or TypeHintParsingException, both
# TemplateErrors; and where it scans a description once per `(choices:` in it, this looks at the last one only.

import enum
import json
import re
import types

from ..core.errors import TemplateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["get_json_schema", "TypeHintParsingException", "DocstringParsingException"]


class TypeHintParsingException(TemplateError):
    """A type hint that has no JSON-schema form (a missing hint, a custom class, tuple[X], tuple[X, ...], a bad
    Literal or Enum), or hints that cannot be read."""


class DocstringParsingException(TemplateError):
    """A docstring that is missing, cannot be read or does not describe every argument, or choices that are no
    JSON list."""


_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}
_CONTAINERS = {list: "array", tuple: "array", dict: "object"}


def _inspect():
    import inspect   # heavy (it imports ast, dis...) and only tools given as Python functions need it
    return inspect


def _typing():
    import typing   # ~4 ms of a cold start, and only tools given as Python functions need it
    return typing


# ---------------------------------------------------------------------------------------------------- hints
def _hint_schema(hint):
    # The JSON schema of one type hint.
    typing = _typing()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return _enum_schema(hint)
        return _bare_schema(hint)
    if origin is typing.Union or origin is getattr(types, "UnionType", None):
        return _union_schema(args)
    if origin is typing.Literal and args:
        if any(type(arg) not in _SCALARS for arg in args):
            raise TypeHintParsingException("Only the valid python literals can be listed in typing.Literal.")
        return _values_schema(list(args))
    if origin is list:
        return {"type": "array", "items": _hint_schema(args[0])} if args else {"type": "array"}
    if origin is tuple:
        return _tuple_schema(hint, args)
    if origin is dict:
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _hint_schema(args[1])
        return schema
    # (transformers raises this one with two arguments: its text is the tuple's)
    raise TypeHintParsingException(str(("Couldn't parse this type hint, likely due to a custom class or object: ",
                                        hint)))


def _bare_schema(hint):
    typing = _typing()
    if hint is typing.Any:
        return {}
    kind = _SCALARS.get(hint) or _CONTAINERS.get(hint) if isinstance(hint, type) else None
    if kind is None:
        raise TypeHintParsingException(
            f"Couldn't convert the type hint {hint!r} to a JSON schema, likely because it is a custom class or "
            "object. Supported type hints are basic types like int, float, str and bool, Enum classes, "
            "typing.Literal, and list, tuple, dict and Union types containing those. If you need a more complex "
            "schema than that, you can write the JSON schema for your tool by hand and pass that instead of the "
            "function.")
    return {"type": kind}


def _enum_schema(hint):
    # An Enum class: what the model writes are its members' values.
    values = [member.value for member in hint]
    if not values:
        raise TypeHintParsingException(f"The Enum {hint.__name__} has no members, so no value could ever match it.")
    if any(type(value) not in _SCALARS for value in values):
        raise TypeHintParsingException(
            f"The Enum {hint.__name__} has member values that cannot be written as JSON scalars.\nValues: {values}\n"
            "Enum member values must be int, float, str, bool or None to be converted to a JSON schema.")
    return _values_schema(values)


def _values_schema(values):
    # {"type": the JSON types of the values, in the order first met (one: a name), "enum": the values}.
    kinds = list(dict.fromkeys(_SCALARS[type(value)] for value in values))
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": values}


def _union_schema(args):
    members = [_hint_schema(arg) for arg in args if arg is not type(None)]
    if len(members) == 1:
        schema = members[0]
    elif all(set(member) == {"type"} and isinstance(member["type"], str) for member in members):
        names = sorted({member["type"] for member in members})
        schema = {"type": names[0] if len(names) == 1 else names}
    else:
        schema = {"anyOf": members}
    if type(None) in args:
        schema["nullable"] = True
    return schema


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
    return {"type": "array", "prefixItems": list(map(_hint_schema, args))}


def _parameters(func, name):
    # (the parameters' schema, the return's schema or None) from the function's hints and signature.
    inspect = _inspect()
    hints = _typing().get_type_hints(func)
    signature = inspect.signature(func)
    params = list(signature.parameters.values())
    empty = inspect.Parameter.empty
    receiver = params[0].name if params and params[0].name in ("self", "cls") and params[0].annotation is empty \
        else None
    required = []
    for param in params:
        if param.name == receiver:
            continue
        if param.annotation is empty:
            raise TypeHintParsingException(f"Argument {param.name} is missing a type hint in function {name}")
        if param.default is empty:
            required.append(param.name)
    properties, returned = {}, None
    for arg, hint in hints.items():
        if arg == receiver:
            continue
        if arg == "return":
            try:   # the model never writes the return value: a hint with no JSON form is left out
                returned = _hint_schema(hint)
            except TypeHintParsingException:
                pass
        elif arg in signature.parameters:   # (a bound method's hints still name its receiver)
            properties[arg] = _hint_schema(hint)
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema, returned


# ---------------------------------------------------------------------------------------------- docstrings
# (patterns given to re's functions as text: compiled on first use and kept in re's cache, not at import)
_ENTRY = r"([ \t]*)(\w+)(?:[ \t]*\([^()\n]*\))?:"   # `name:` or `name (type):` starting an argument's line
_CHOICES = r"\(choices:"


def _section(doc, heading):
    """Where the text of the section under `heading` (a line of its own, `Args:\\n`, after a line break) starts
    in doc, or -1: its first occurrence preceded by whitespace back to a line break."""
    at = doc.find(heading)
    while at >= 0:
        k = at - 1
        while k >= 0 and doc[k].isspace():
            if doc[k] == "\n":
                return at + len(heading)
            k -= 1
        at = doc.find(heading, at + 1)
    return -1


def _first_of(doc, words, start=0):
    found = [at for at in (doc.find(word, start) for word in words) if at >= 0]
    return min(found) if found else len(doc)


def _split_docstring(doc):
    # (description, {arg: description}, returns description or None) of a Google-style docstring.
    description = doc[:_first_of(doc, ("Args:", "Returns:", "Raises:"))].strip()
    start = _section(doc, "Args:\n")
    args = {}
    if start >= 0:
        args = _arg_descriptions(doc[start:_first_of(doc, ("Returns:", "Raises:"), start)].rstrip())
    start = _section(doc, "Returns:\n")
    returns = doc[start:_first_of(doc, ("Raises:",), start)].strip() if start >= 0 else None
    return description, args, returns


def _arg_descriptions(block):
    # {name: description} of the Args: section's entries. An entry's description is the text after its colon,
    # or the next line when nothing follows the colon, and the lines after it up to the next line that starts an
    # entry and is not indented deeper than this one; its lines are joined by single spaces.
    lines = [line for line in block.split("\n") if line.strip()]
    args, i = {}, 0
    while i < len(lines) and re.match(_ENTRY, lines[i]) is None:
        i += 1
    while i < len(lines):
        entry = re.match(_ENTRY, lines[i])
        indent, name, rest = entry.group(1), entry.group(2), lines[i][entry.end():]
        parts, i = [rest], i + 1
        if not rest.strip() and i < len(lines):
            parts, i = [lines[i]], i + 1   # (the line under a bare `name:` is its description, whatever it says)
        while i < len(lines) and (re.match(_ENTRY, lines[i]) is None or lines[i].startswith((indent + " ",
                                                                                             indent + "\t"))):
            parts.append(lines[i])
            i += 1
        args[name] = " ".join(map(str.strip, "\n".join(parts).strip().split("\n")))
    return args


def _with_choices(schema, description):
    # A `(choices: [...])` (JSON) that ends an argument's description becomes the schema's enum (the last one:
    # an earlier `(choices:` is part of the text).
    found = None
    for found in re.finditer(_CHOICES, description, re.IGNORECASE):
        pass
    tail = re.match(r"\s*(.*?)\)\s*$", description[found.end():]) if found is not None else None
    if tail is not None:
        try:
            choices = json.loads(tail.group(1))
        except (ValueError, RecursionError) as exc:
            raise DocstringParsingException(f"the choices {tail.group(1)[:200]!r} are not JSON "
                                            f"({type(exc).__name__})") from None
        if not isinstance(choices, (list, str, dict)):
            raise DocstringParsingException(f"the choices {tail.group(1)[:200]!r} are not a JSON list")
        schema["enum"] = [c.strip() if isinstance(c, str) else c for c in choices]
        description = description[:found.start()].strip()
    schema["description"] = description
    return schema


# -------------------------------------------------------------------------------------------------- the schema
def _read(func, what, attribute, default):
    try:
        return getattr(func, attribute, default) if attribute != "__doc__" else _inspect().getdoc(func)
    except Exception as exc:   # noqa: BLE001 - the caller's object: any error reading it is its own
        raise DocstringParsingException(f"Cannot read the {what} of {type(func).__name__} ({exc!r})") from None


def get_json_schema(func: "Callable[..., Any]") -> "dict[str, Any]":
    """The tool schema of a function, as transformers.utils.get_json_schema makes it (see the module docstring).

    Works for functions, bound and unbound methods, static and class methods. Raises DocstringParsingException
    when the docstring is missing or cannot be read, or an argument has no description in its Args: section, and
    TypeHintParsingException when an argument has no type hint or a hint with no JSON-schema form; both are
    TemplateErrors.
    """
    if not callable(func):
        raise TypeHintParsingException(f"get_json_schema needs a function, not {type(func).__name__}")
    name = _read(func, "name", "__name__", "operation")
    doc = _read(func, "docstring", "__doc__", None)
    if not doc:
        raise DocstringParsingException(f"Cannot generate JSON schema for {name} because it has no docstring!")
    description, arg_docs, returns_doc = _split_docstring(doc.strip())
    try:
        parameters, returned = _parameters(func, name)
    except TemplateError:
        raise
    except Exception as exc:  # noqa: BLE001 - hints that cannot be read, hashed or compared; nested too deep
        raise TypeHintParsingException(f"Cannot read the type hints of {name} ({type(exc).__name__}: "
                                       f"{str(exc)[:200]})") from None
    for arg, schema in parameters["properties"].items():
        if arg not in arg_docs:
            raise DocstringParsingException(f"Cannot generate JSON schema for {name} because the docstring has no "
                                            f"description for the argument '{arg}'")
        _with_choices(schema, arg_docs[arg])
    function = {"name": name, "description": description, "parameters": parameters}
    if returned is not None:
        if returns_doc is not None:
            returned["description"] = returns_doc
        function["return"] = returned
    return {"type": "function", "function": function}
