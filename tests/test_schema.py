"""get_json_schema: functions → tool schemas, compared with what transformers.utils.get_json_schema makes of them.

transformers is not installed here; each expected schema is written down from transformers' documented rules
(its get_json_schema docstring) and the cases of its test suite (tests/utils/test_chat_template_utils.py): the same
kinds of hints and docstrings, in functions of our own. Dict equality ignores key order, so the key order
transformers produces (type-derived keys, then enum, then description) is checked separately through a render.
The cases of transformers 5.25's behaviour (Enum hints, custom classes, unconvertible returns, `name (type):`
lines, star arguments, the order of Literal types, ...) carry transformers 5.25's own output for the same
function, copied as facts (issue 23).
"""

import enum
import functools
import json
import time
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


# ------------------------------------------------------------------------------ transformers 5.25's behaviours
class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    ONE = 1
    NAME = "b"
    NOTHING = None


class NoMembers(enum.Enum):
    pass


class PairValued(enum.Enum):
    PAIR = (1, 2)


class Point:
    """A class of the caller's."""


def paint(color: Color, level: Level, mixed: Mixed):
    """
    Paint something.

    Args:
        color: The color
        level: How strong
        mixed: Anything of a kind
    """


def optional_enums(color: Optional[Color] = None, colors: List[Color] = None, by_name: Dict[str, Level] = None):
    """
    Enums inside other hints.

    Args:
        color: A color or nothing
        colors: Some colors
        by_name: A level per name
    """


def enum_with_choices(color: Color):
    """
    Choices in the docstring replace an Enum's values.

    Args:
        color: The color (choices: ["red"])
    """


def unconvertible_return(x: int) -> Point:
    """
    The return hint has no JSON form: the return is left out.

    Args:
        x: The input

    Returns:
        A point
    """


def unconvertible_return_set(x: int) -> set:
    """
    Returns a set.

    Args:
        x: The input
    """


def google_types(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric"):
    """
    Forecast the weather.

    Args:
        city (str): The city
        days(int): How many days
        units (Literal["metric", "imperial"]): The unit system
    """


def entry_lines(x: int, y: int, note: int = 0):
    """
    Argument lines that look like entries.

    Args:
        x: The first input, which mentions
            deeper: a line indented deeper, still x's
        y:
            The description on the line under the name
        note: set
    """


def same_indent_text(x: int, y: int):
    """
    A line at an entry's indentation that looks like an entry starts one.

    Args:
        x: The x
        value: how x is read
        y: The y
    """


def star_arguments(*values: int, **options: str):
    """
    Star arguments are arguments too.

    Args:
        values: Some numbers
        options: Some options
    """


def literal_orders(a: Literal["x", 1], b: Literal[1, "x", None], c: Literal[True, 0]):
    """
    Literal types in the order first met.

    Args:
        a: A
        b: B
        c: C
    """


def inline_sections(x: int):
    """
    This description mentions Returns: inline, where it ends.

    Args:
        x: The input. Raises: no, this ends the Args section
    """


def choices_shapes(a: str, b: str):
    """
    Choices that are not a list.

    Args:
        a: A string of choices (choices: "ab")
        b: A mapping of choices (CHOICES: {"k": 1, "j": 2})
    """


def returns_then_raises(x: int) -> int:
    """
    Sections after Returns.

    Args:
        x: The input

    Returns:
        The output
        over two lines

    Raises:
        ValueError: never
    """


def method_like(self, x: int):
    """
    A function whose first argument is self.

    Args:
        x: The input
    """


TRANSFORMERS_5_25 = [
    (paint, _fn("paint", "Paint something.",
                {"color": {"type": "string", "enum": ["red", "green"], "description": "The color"},
                 "level": {"type": "integer", "enum": [1, 2], "description": "How strong"},
                 "mixed": {"type": ["integer", "string", "null"], "enum": [1, "b", None],
                           "description": "Anything of a kind"}},
                ["color", "level", "mixed"])),
    (optional_enums, _fn("optional_enums", "Enums inside other hints.",
                         {"color": {"type": "string", "enum": ["red", "green"], "nullable": True,
                                    "description": "A color or nothing"},
                          "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]},
                                     "description": "Some colors"},
                          "by_name": {"type": "object", "additionalProperties": {"type": "integer", "enum": [1, 2]},
                                      "description": "A level per name"}})),
    (enum_with_choices, _fn("enum_with_choices", "Choices in the docstring replace an Enum's values.",
                            {"color": {"type": "string", "enum": ["red"], "description": "The color"}}, ["color"])),
    (unconvertible_return, _fn("unconvertible_return", "The return hint has no JSON form: the return is left out.",
                               X_INT, ["x"])),
    (unconvertible_return_set, _fn("unconvertible_return_set", "Returns a set.", X_INT, ["x"])),
    (google_types, _fn("google_types", "Forecast the weather.",
                       {"city": {"type": "string", "description": "The city"},
                        "days": {"type": "integer", "description": "How many days"},
                        "units": {"type": "string", "enum": ["metric", "imperial"], "description": "The unit system"}},
                       ["city"])),
    (entry_lines, _fn("entry_lines", "Argument lines that look like entries.",
                      {"x": {"type": "integer",
                             "description": "The first input, which mentions deeper: a line indented deeper, still x's"},
                       "y": {"type": "integer", "description": "The description on the line under the name"},
                       "note": {"type": "integer", "description": "set"}}, ["x", "y"])),
    (same_indent_text, _fn("same_indent_text", "A line at an entry's indentation that looks like an entry starts one.",
                           {"x": {"type": "integer", "description": "The x"},
                            "y": {"type": "integer", "description": "The y"}}, ["x", "y"])),
    (star_arguments, _fn("star_arguments", "Star arguments are arguments too.",
                         {"values": {"type": "integer", "description": "Some numbers"},
                          "options": {"type": "string", "description": "Some options"}}, ["values", "options"])),
    (literal_orders, _fn("literal_orders", "Literal types in the order first met.",
                         {"a": {"type": ["string", "integer"], "enum": ["x", 1], "description": "A"},
                          "b": {"type": ["integer", "string", "null"], "enum": [1, "x", None], "description": "B"},
                          "c": {"type": ["boolean", "integer"], "enum": [True, 0], "description": "C"}},
                         ["a", "b", "c"])),
    (inline_sections, _fn("inline_sections", "This description mentions",
                          {"x": {"type": "integer", "description": "The input."}}, ["x"])),
    (choices_shapes, _fn("choices_shapes", "Choices that are not a list.",
                         {"a": {"type": "string", "enum": ["a", "b"], "description": "A string of choices"},
                          "b": {"type": "string", "enum": ["k", "j"], "description": "A mapping of choices"}},
                         ["a", "b"])),
    (returns_then_raises, _fn("returns_then_raises", "Sections after Returns.", X_INT, ["x"],
                              returns={"type": "integer", "description": "The output\n    over two lines"})),
    (method_like, _fn("method_like", "A function whose first argument is self.", X_INT, ["x"])),
]


@pytest.mark.parametrize("function, expected", TRANSFORMERS_5_25, ids=[c[0].__name__ for c in TRANSFORMERS_5_25])
def test_schema_is_transformers_5_25(function, expected):
    schema = mj.get_json_schema(function)
    assert schema == expected
    assert json.dumps(schema) == json.dumps(expected)   # key order too


def hinted(hint, doc="Test function.\n\nArgs:\n    x: The input"):
    def fn(x):
        pass
    fn.__annotations__ = {"x": hint}
    fn.__doc__ = doc
    return fn


@pytest.mark.parametrize("hint, message", [
    (NoMembers, "The Enum NoMembers has no members, so no value could ever match it."),
    (PairValued, "The Enum PairValued has member values that cannot be written as JSON scalars."),
    (Point, "Couldn't convert the type hint <class 'test_schema.Point'> to a JSON schema, likely because it is a "
            "custom class"),
    (set, "Couldn't convert the type hint <class 'set'> to a JSON schema"),
    (frozenset, "Couldn't convert the type hint <class 'frozenset'>"),
    (Literal[Color.RED], "Only the valid python literals can be listed in typing.Literal."),
])
def test_hints_transformers_5_25_refuses(hint, message):
    with pytest.raises(mj.TypeHintParsingException) as caught:
        mj.get_json_schema(hinted(hint))
    assert caught.value.message.startswith(message)


def test_a_generic_it_cannot_parse_reads_as_transformers_says_it():
    with pytest.raises(mj.TypeHintParsingException) as caught:
        mj.get_json_schema(hinted(set[int]))
    assert caught.value.message == str(("Couldn't parse this type hint, likely due to a custom class or object: ",
                                        set[int]))


def test_an_unannotated_star_argument_is_a_missing_hint():
    def fn(*values):
        """Test function.

        Args:
            values: Some values
        """
    with pytest.raises(mj.TypeHintParsingException, match="Argument values is missing a type hint in function fn"):
        mj.get_json_schema(fn)


def test_two_choices_blocks_take_the_last():
    # transformers 5.25 reads from the first `(choices:` to the end, and fails on '["x"]) then (choices: ["y"]' as
    # JSON (a JSONDecodeError escapes); here only the last block counts (issue 24: one scan, not one per block)
    fn = hinted(str, 'Test function.\n\nArgs:\n    x: Two blocks (choices: ["x"]) then (choices: ["y", " z "])')
    assert mj.get_json_schema(fn)["function"]["parameters"]["properties"]["x"] == {
        "type": "string", "enum": ["y", "z"], "description": 'Two blocks (choices: ["x"]) then'}


# ------------------------------------------------------------------ issue 24: only the documented exceptions
class _HashRaises(type):
    def __hash__(cls):
        raise RuntimeError("no hash")


class _Unhashable(metaclass=_HashRaises):
    pass


class _DocRaises:
    @property
    def __doc__(self):
        raise RuntimeError("no doc")

    def __call__(self, x: int):
        pass


class _NameRaises:
    """Test function.

    Args:
        x: The input
    """

    def __getattr__(self, name):
        if name == "__name__":
            raise RuntimeError("no name")
        raise AttributeError(name)

    def __call__(self, x: int):
        pass


def _nested_list(depth):
    return functools.reduce(lambda hint, _: list[hint], range(depth), int)   # (built without typing's cache)


@pytest.mark.parametrize("make, error", [
    (lambda: hinted([int]), mj.TypeHintParsingException),                  # transformers: TypeError (unhashable)
    (lambda: hinted(_Unhashable), mj.TypeHintParsingException),            # RuntimeError out of the hint's hash
    (lambda: hinted(_nested_list(20000)), mj.TypeHintParsingException),    # RecursionError
    (_DocRaises, mj.DocstringParsingException),                            # RuntimeError out of __doc__
    (_NameRaises, mj.DocstringParsingException),                           # RuntimeError out of __name__
    (lambda: hinted(str, "T.\n\nArgs:\n    x: deep (choices: " + "[" * 100000 + "]" * 100000 + ")"),
     mj.DocstringParsingException),                                        # RecursionError out of json.loads
    (lambda: hinted(str, "T.\n\nArgs:\n    x: number (choices: 3)"), mj.DocstringParsingException),   # TypeError
    (lambda: hinted(str, "T.\n\nArgs:\n    x: bad (choices: [nope)"), mj.DocstringParsingException),
], ids=["list_instance_hint", "hash_raises", "nested_too_deep", "doc_raises", "name_raises", "deep_choices",
        "number_choices", "bad_json_choices"])
def test_what_escapes_transformers_is_a_documented_exception(make, error):
    with pytest.raises(error):
        mj.get_json_schema(make())


@pytest.mark.parametrize("description", [
    "(choices: " * 40000 + "x",               # 400 KB of `(choices: `: transformers' regexp is quadratic in them
    "(choices: )" * 40000,
    "(choices: )" + " " * 400000 + "x",
])
def test_long_descriptions_take_linear_time(description):
    start = time.process_time()
    try:
        mj.get_json_schema(hinted(str, "T.\n\nArgs:\n    x: " + description))
    except mj.DocstringParsingException:
        pass
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("doc", [
    "T.\n" + "\n" * 200000 + "Args:\n    x: y",
    "T.\n\n" + "xArgs:\n" * 100000 + "\nArgs:\n    x: y",
    "T.\n\nArgs:\n" + "    x: y\n" * 50000,
])
def test_long_docstrings_take_linear_time(doc):
    start = time.process_time()
    assert mj.get_json_schema(hinted(str, doc))["function"]["parameters"]["properties"]["x"]["description"] == "y"
    assert time.process_time() - start < 2.0
