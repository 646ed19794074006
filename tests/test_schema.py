"""get_json_schema: functions → tool schemas, compared with what transformers.utils.get_json_schema makes of them.

transformers is not installed here; each expected schema is written down from transformers' documented rules
(its get_json_schema docstring) and the cases of its test suite (tests/utils/test_chat_template_utils.py): the same
kinds of hints and docstrings, in functions of our own. Dict equality ignores key order, so the key order
transformers produces (type-derived keys, then enum, then description) is checked separately through a render.
"""

import json
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

import pytest

import minijinja_py as mj


def _fn(name, description, properties, required=None, returns=None):
    parameters = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    function = {"name": name, "description": description, "parameters": parameters}
    if returns is not None:
        function["return"] = returns
    return {"type": "function", "function": function}


# ---------------------------------------------------------------------------------------------- the functions
def get_weather(city: str):
    """
    Get the current weather in a city.

    Args:
        city: The city to look up
    """


def no_arguments():
    """
    Tell the time.
    """


def multiply(a: float, b: float):
    """Multiply two numbers.

    Args:
        a: The first number
        b: The second number
    """


def bare_containers(items: list, pair: tuple, mapping: dict):
    """Use bare containers.

    Args:
        items: Some items
        pair: A pair
        mapping: A mapping
    """


def number_or_integer(x: Union[int, float]):
    """A union of plain types.

    Args:
        x: A number
    """


def pep604_union(x: "int | str"):
    """A union written with |.

    Args:
        x: An id or a name
    """


def optional_int(limit: Optional[int]):
    """An optional integer, still required (no default).

    Args:
        limit: How many
    """


def with_default(count: int = 3):
    """A default makes an argument optional.

    Args:
        count: How many
    """


def nested_lists(grid: List[List[Union[str, int]]]):
    """Nested lists.

    Args:
        grid: The cells
    """


def several_arguments(query: str, max_results: int, safe: bool):
    """Search the web.

    Args:
        query: What to search for
        max_results: How many results
        safe: Safe search
    """


def complex_arguments(values: List[Union[int, float]], label: Optional[Union[int, str]] = None):
    """Complex arguments.

    Args:
        values: The values
        label: An optional label
    """


def union_of_structures(x: Union[str, List[str]], y: Optional[Union[Literal["a", "b"], int]] = None):
    """Unions with structured members take anyOf.

    Args:
        x: One or several names
        y: A letter or a number
    """


def with_return(x: int) -> int:
    """Returns something.

    Args:
        x: The input
    """


def with_return_doc(x: int) -> int:
    """Returns something documented.

    Args:
        x: The input

    Returns:
        The output
    """


def fixed_tuple(point: Tuple[int, str]):
    """A tuple of fixed length.

    Args:
        point: An id and a name
    """


def choices_in_docstring(unit: str):
    """Choices in the docstring.

    Args:
        unit: The temperature unit (choices: ["celsius", "fahrenheit"])
    """


def non_string_choices(rating: int, enabled: bool):
    """Non-string choices stay as they are.

    Args:
        rating: The rating (choices: [1, 2, 3])
        enabled: On or off (Choices: [true, false])
    """


def literal_arguments(mode: Literal["fast", "slow"], flag: Literal[True, False, 0, 1, "y", "n"] = False):
    """Literals.

    Args:
        mode: The mode
        flag: Something boolean-ish
    """


def multiline_descriptions(x: int, y: int):
    """Multi-line descriptions.

    Args:
        x: The first input

        y: The second input, with a description
           that goes on over
           three lines.

    Returns:
        Something
    """


def returns_none(x: int) -> None:
    """Returns nothing.

    Args:
        x: The input
    """


def dict_of_values(weights: Dict[str, float], anything: Any):
    """Dicts with typed values, and Any.

    Args:
        weights: A weight per name
        anything: Whatever
    """


def everything(x: str, y: Optional[List[Union[str, int]]], z: Tuple[Union[str, int], str] = (42, "hello")
               ) -> Tuple[int, str]:
    """
    Everything at once, with a multi-line choices block.

    Args:
        x: The first input. Its description goes
           over two lines and ends in
           (choices: ["a", "b", "c"])

        y: The second input.

        z: The third input, with a default.

    Returns:
        The output, described
            over two lines.
    """


class Toolbox:
    def method(self, x: int):
        """A method.

        Args:
            x: The input
        """

    @staticmethod
    def static(x: int):
        """A static method.

        Args:
            x: The input
        """

    @classmethod
    def klass(cls, x: int):
        """A class method.

        Args:
            x: The input
        """


X_INT = {"x": {"type": "integer", "description": "The input"}}

CASES = [
    (get_weather, _fn("get_weather", "Get the current weather in a city.",
                      {"city": {"type": "string", "description": "The city to look up"}}, ["city"])),
    (no_arguments, _fn("no_arguments", "Tell the time.", {})),
    (multiply, _fn("multiply", "Multiply two numbers.",
                   {"a": {"type": "number", "description": "The first number"},
                    "b": {"type": "number", "description": "The second number"}}, ["a", "b"])),
    (bare_containers, _fn("bare_containers", "Use bare containers.",
                          {"items": {"type": "array", "description": "Some items"},
                           "pair": {"type": "array", "description": "A pair"},
                           "mapping": {"type": "object", "description": "A mapping"}},
                          ["items", "pair", "mapping"])),
    (number_or_integer, _fn("number_or_integer", "A union of plain types.",
                            {"x": {"type": ["integer", "number"], "description": "A number"}}, ["x"])),
    (optional_int, _fn("optional_int", "An optional integer, still required (no default).",
                       {"limit": {"type": "integer", "nullable": True, "description": "How many"}}, ["limit"])),
    (with_default, _fn("with_default", "A default makes an argument optional.",
                       {"count": {"type": "integer", "description": "How many"}})),
    (nested_lists, _fn("nested_lists", "Nested lists.",
                       {"grid": {"type": "array", "items": {"type": "array", "items": {"type": ["integer", "string"]}},
                                 "description": "The cells"}}, ["grid"])),
    (several_arguments, _fn("several_arguments", "Search the web.",
                            {"query": {"type": "string", "description": "What to search for"},
                             "max_results": {"type": "integer", "description": "How many results"},
                             "safe": {"type": "boolean", "description": "Safe search"}},
                            ["query", "max_results", "safe"])),
    (complex_arguments, _fn("complex_arguments", "Complex arguments.",
                            {"values": {"type": "array", "items": {"type": ["integer", "number"]},
                                        "description": "The values"},
                             "label": {"type": ["integer", "string"], "nullable": True,
                                       "description": "An optional label"}}, ["values"])),
    (union_of_structures, _fn("union_of_structures", "Unions with structured members take anyOf.",
                              {"x": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                                     "description": "One or several names"},
                               "y": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}],
                                     "nullable": True, "description": "A letter or a number"}}, ["x"])),
    (with_return, _fn("with_return", "Returns something.", X_INT, ["x"], returns={"type": "integer"})),
    (with_return_doc, _fn("with_return_doc", "Returns something documented.", X_INT, ["x"],
                          returns={"type": "integer", "description": "The output"})),
    (fixed_tuple, _fn("fixed_tuple", "A tuple of fixed length.",
                      {"point": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                                 "description": "An id and a name"}}, ["point"])),
    (choices_in_docstring, _fn("choices_in_docstring", "Choices in the docstring.",
                               {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                                         "description": "The temperature unit"}}, ["unit"])),
    (non_string_choices, _fn("non_string_choices", "Non-string choices stay as they are.",
                             {"rating": {"type": "integer", "enum": [1, 2, 3], "description": "The rating"},
                              "enabled": {"type": "boolean", "enum": [True, False], "description": "On or off"}},
                             ["rating", "enabled"])),
    (literal_arguments, _fn("literal_arguments", "Literals.",
                            {"mode": {"type": "string", "enum": ["fast", "slow"], "description": "The mode"},
                             "flag": {"type": ["boolean", "integer", "string"], "enum": [True, False, 0, 1, "y", "n"],
                                      "description": "Something boolean-ish"}}, ["mode"])),
    (multiline_descriptions, _fn("multiline_descriptions", "Multi-line descriptions.",
                                 {"x": {"type": "integer", "description": "The first input"},
                                  "y": {"type": "integer", "description": "The second input, with a description "
                                                                          "that goes on over three lines."}},
                                 ["x", "y"])),
    (returns_none, _fn("returns_none", "Returns nothing.", X_INT, ["x"], returns={"type": "null"})),
    (dict_of_values, _fn("dict_of_values", "Dicts with typed values, and Any.",
                         {"weights": {"type": "object", "additionalProperties": {"type": "number"},
                                      "description": "A weight per name"},
                          "anything": {"description": "Whatever"}}, ["weights", "anything"])),
    (everything, _fn("everything", "Everything at once, with a multi-line choices block.",
                     {"x": {"type": "string", "enum": ["a", "b", "c"],
                            "description": "The first input. Its description goes over two lines and ends in"},
                      "y": {"type": "array", "items": {"type": ["integer", "string"]}, "nullable": True,
                            "description": "The second input."},
                      "z": {"type": "array", "prefixItems": [{"type": ["integer", "string"]}, {"type": "string"}],
                            "description": "The third input, with a default."}},
                     ["x", "y"],
                     returns={"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                              "description": "The output, described\n        over two lines."})),
    (Toolbox.method, _fn("method", "A method.", X_INT, ["x"])),
    (Toolbox().method, _fn("method", "A method.", X_INT, ["x"])),
    (Toolbox.static, _fn("static", "A static method.", X_INT, ["x"])),
    (Toolbox.klass, _fn("klass", "A class method.", X_INT, ["x"])),
]

try:  # `int | str` as a runtime annotation needs Python 3.10
    eval("int | str")
    CASES.append((pep604_union, _fn("pep604_union", "A union written with |.",
                                    {"x": {"type": ["integer", "string"], "description": "An id or a name"}}, ["x"])))
except TypeError:
    pass


@pytest.mark.parametrize("function, expected", CASES, ids=[getattr(c[0], "__qualname__", "") for c in CASES])
def test_schema_is_transformers(function, expected):
    assert mj.get_json_schema(function) == expected


def test_at_least_twenty_functions():
    assert len(CASES) >= 20


def test_key_order_is_transformers():
    """Templates print schemas with tojson, so key order shows: type keys, enum, then description; name,
    description, parameters, return."""
    schema = mj.get_json_schema(everything)
    assert list(schema) == ["type", "function"]
    assert list(schema["function"]) == ["name", "description", "parameters", "return"]
    assert list(schema["function"]["parameters"]) == ["type", "properties", "required"]
    assert list(schema["function"]["parameters"]["properties"]["x"]) == ["type", "enum", "description"]
    assert list(schema["function"]["parameters"]["properties"]["y"]) == ["type", "items", "nullable", "description"]
    assert list(schema["function"]["return"]) == ["type", "prefixItems", "description"]


def missing_docstring(x: int):
    return x


def missing_arg_doc(x: int):
    """No Args section."""


def missing_hint(x):
    """Hint missing.

    Args:
        x: The input
    """


def single_tuple(x: Tuple[int]):
    """Single-element tuple.

    Args:
        x: The input
    """


def ellipsis_tuple(x: Tuple[int, ...]):
    """Variable-length tuple.

    Args:
        x: The input
    """


@pytest.mark.parametrize("function, error", [
    (missing_docstring, mj.DocstringParsingException), (missing_arg_doc, mj.DocstringParsingException),
    (missing_hint, mj.TypeHintParsingException), (single_tuple, mj.TypeHintParsingException),
    (ellipsis_tuple, mj.TypeHintParsingException),
])
def test_what_transformers_refuses_is_refused(function, error):
    with pytest.raises(error):
        mj.get_json_schema(function)


def test_functions_as_tools_in_a_render():
    source = "{% for t in tools %}{{ t | tojson }}\n{% endfor %}{{ messages[0].content }}"
    messages = [{"role": "user", "content": "Weather?"}]
    expected = "".join(json.dumps(mj.get_json_schema(f), ensure_ascii=False) + "\n"
                       for f in (get_weather, multiply)) + "Weather?"
    assert mj.ChatTemplate(source).render(messages, tools=[get_weather, multiply]) == expected
    assert mj.apply_chat_template(source, messages, tools=[get_weather, mj.get_json_schema(multiply)]) == expected
    with pytest.raises(mj.TemplateError, match="no description for the argument 'x'"):
        mj.ChatTemplate(source).render(messages, tools=[missing_arg_doc])
    with pytest.raises(mj.TemplateError, match="Tools should either be a JSON schema"):
        mj.ChatTemplate(source).render(messages, tools=["get_weather"])
