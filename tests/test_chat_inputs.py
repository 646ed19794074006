"""The chat layer's input processing (chat/inputs.py), as transformers 5.25 does it: message objects (dataclasses,
pydantic models, other mappings, conversation objects) rendered as the equivalent dicts with their None fields
dropped; every input made plain data without changing the caller's; data that shares its parts, contains itself
or nests too deep handled in bounded time.

Expected values are transformers' (its tests' values copied as facts; its _plain_template_data compared through
the reference's copy of it, ../shared/oracle/hf_env.py, where that is importable).
"""

import collections
import copy
import dataclasses
import enum
import os
import sys
import time
import types

import pytest

import minijinja_py as mj
from minijinja_py.chat.inputs import prepare_inputs
from minijinja_py.core.state import Limits


# ------------------------------------------------------------------------------------- message objects
@dataclasses.dataclass
class DataclassMessage:
    role: str
    content: "str | None" = None
    tool_calls: "list | None" = None


class PydanticLikeMessage:
    def model_dump(self):
        return {"role": "assistant", "content": None, "tool_calls": None}


# transformers 5.25, tests/test_tokenization_common.py, test_chat_template_message_objects
MESSAGE_OBJECTS_TEMPLATE = (
    "{% for message in messages %}"
    "{{ message['role'] }}"
    "{% if message.content is defined %}: {{ message['content'] }}{% endif %}"
    "{% if message.tool_calls is defined %} ({{ message.tool_calls | length }} tool calls){% endif %}"
    "\n"
    "{% endfor %}"
)


def test_message_objects_render_as_the_equivalent_dicts():
    objects = [DataclassMessage("user", "What is the weather?"), PydanticLikeMessage()]
    dicts = [{"role": "user", "content": "What is the weather?"}, {"role": "assistant"}]
    from_objects = mj.apply_chat_template(MESSAGE_OBJECTS_TEMPLATE, objects)
    assert from_objects == mj.apply_chat_template(MESSAGE_OBJECTS_TEMPLATE, dicts)
    assert from_objects == "user: What is the weather?assistant"   # trim_blocks eats the newline after endif


@dataclasses.dataclass
class Function:
    name: str
    arguments: str


@dataclasses.dataclass
class ToolCall:
    function: Function
    id: "str | None" = None


class Model:
    """A pydantic-like model: model_dump() gives its fields, nested models as dicts."""

    def __init__(self, **fields):
        self.fields = fields

    def model_dump(self):
        return {k: v.model_dump() if isinstance(v, Model) else v for k, v in self.fields.items()}


TOOL_CALLS = ("{% for m in messages %}{{ m.role }}{% for tc in m.tool_calls %}[{{ tc.function.name }}("
              "{{ tc.function.arguments }}) {{ tc.id }}]{% endfor %}{{ m.content is defined }};{% endfor %}")


def test_objects_nested_in_messages_become_dicts_and_only_top_level_nones_are_dropped():
    # transformers: _message_objects_to_dicts converts nested objects; _normalize_chat_messages drops the None
    # values of a message's own keys only (a tool call's id=None stays, and prints as None)
    messages = [
        DataclassMessage("assistant", None, [ToolCall(Function("f", "{}"))]),
        Model(role="assistant", content=None, tool_calls=[Model(function=Model(name="g", arguments="1"), id="c")]),
        {"role": "assistant", "tool_calls": [ToolCall(Function("h", "2"), "d")]},
    ]
    assert mj.apply_chat_template(TOOL_CALLS, messages) == "assistant[f({}) None]False;assistant[g(1) c]False;" \
                                                           "assistant[h(2) d]False;"


class ReadOnlyMessage(collections.abc.Mapping):
    """A mapping that is not a dict."""

    def __init__(self, **items):
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


class Conversation:
    """An object holding its messages in `messages` (transformers reads them there)."""

    def __init__(self, messages):
        self.messages = messages


def test_mappings_and_conversation_objects():
    source = "{% for m in messages %}{{ m.role }}:{{ m.content }}|{% endfor %}"
    mapping = [ReadOnlyMessage(role="user", content="hi", name=None), types.MappingProxyType({"role": "a"})]
    assert mj.apply_chat_template(source, mapping) == "user:hi|a:|"
    conversation = Conversation([{"role": "user", "content": "x"}])
    assert mj.apply_chat_template(source, conversation) == "user:x|"
    assert mj.apply_chat_template(source, [conversation, Conversation([DataclassMessage("b", "y")])]) == \
        ["user:x|", "b:y|"]


@pytest.mark.parametrize("message", ["hello", 3, ["role", "user"], DataclassMessage, object()])
def test_anything_else_is_refused_with_transformers_message(message):
    with pytest.raises(mj.TemplateError) as info:
        mj.apply_chat_template("x", [{"role": "user"}, message])
    assert isinstance(info.value, TypeError)
    assert info.value.message.startswith("Chat messages should be dicts, dataclasses or pydantic models, but got ")


def test_message_objects_are_not_changed():
    message = DataclassMessage("user", "hi", None)
    before = copy.deepcopy(message)
    mj.apply_chat_template("{{ messages }}", [message])
    assert message == before


# ------------------------------------------------------------------------------------------ plain data
class Role(str, enum.Enum):
    USER = "user"


class Level(enum.IntEnum):
    HIGH = 3


class Opaque:
    pass


def _fake_numpy_scalar():
    """An object whose class derives from a class named numpy.generic (numpy is not a test dependency)."""
    generic = type("generic", (), {"__module__": "numpy"})
    int64 = type("int64", (generic,), {"__module__": "numpy", "item": lambda self: 7})
    return int64()


def test_inputs_are_made_plain_as_transformers_makes_them():
    messages = [{"role": Role.USER, "content": "hi", "meta": {"level": Level.HIGH, "obj": Opaque(),
                                                             "rows": (1.5, [True, None]), Role.USER: "k"}}]
    tools = [{"type": "function", "function": {"name": "f", "dc": Function("n", "a")}}]
    chat, tools_out, _, kwargs, _ = prepare_inputs(messages, tools, None, {"flag": Level.HIGH, "n": _fake_numpy_scalar()},
                                                Limits())
    assert chat == [{"role": "user", "content": "hi", "meta": {"level": 3, "obj": "<Opaque>",
                                                               "rows": (1.5, [True, None]), "user": "k"}}]
    assert type(chat[0]["role"]) is str and type(chat[0]["meta"]["level"]) is int
    assert type(next(iter(chat[0]["meta"]))) is str or all(type(k) is str for k in chat[0]["meta"])
    assert tools_out == [{"type": "function", "function": {"name": "f", "dc": {"name": "n", "arguments": "a"}}}]
    assert kwargs == {"flag": 3, "n": 7} and type(kwargs["flag"]) is int


def test_plain_data_is_passed_as_it_is_and_only_what_changes_is_copied():
    plain_tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    odd_tool = {"type": "function", "function": {"name": Role.USER}}
    tools = [plain_tool, odd_tool]
    _, same, _, _, _ = prepare_inputs([{"role": "user"}], [plain_tool], None, {}, Limits())
    assert same[0] is plain_tool
    _, copied, _, _, _ = prepare_inputs([{"role": "user"}], tools, None, {}, Limits())
    assert copied is not tools and copied[0] is plain_tool and copied[1] is not odd_tool
    assert odd_tool["function"]["name"] is Role.USER   # the caller's data is not changed


def test_reasoning_fields_are_aliased():
    chat, _, _, _, _ = prepare_inputs([{"role": "assistant", "reasoning": "r", "content": "c"}, {"role": "user"}],
                                   None, None, {}, Limits())
    assert chat == [{"thinking": "r", "role": "assistant", "reasoning": "r", "content": "c", "reasoning_content": "r"},
                    {"role": "user"}]


def _reference():
    """../shared/oracle/hf_env.py (transformers' input processing, copied), or a skip."""
    pytest.importorskip("jinja2")
    oracle = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared",
                          "oracle")
    sys.path.insert(0, oracle)
    try:
        return pytest.importorskip("hf_env", reason="the reference (../shared/oracle) is absent")
    finally:
        sys.path.remove(oracle)


def test_plain_conversion_matches_transformers():
    hf_env = _reference()
    value = {"a": [Role.USER, (Level.HIGH, 2.5, None)], Role.USER: {"o": Opaque(), "d": Function("x", "y"),
                                                                   "m": Model(k=[1, {"z": None}])}}
    _, _, _, kwargs, _ = prepare_inputs([{"role": "user"}], None, None, {"v": value}, Limits())
    assert kwargs["v"] == hf_env._plain_template_data(value)


# ----------------------------------------------------------------------- shared, cyclic and deep inputs
def _dag(levels):
    value = "x"
    for _ in range(levels):
        value = [value, value]
    return value


def test_data_sharing_its_parts_is_walked_once_per_part():
    # 2**60 paths through 60 lists: the input is checked (and refused or passed) in bounded time
    start = time.process_time()
    assert mj.apply_chat_template("{{ messages[0].role }}", [{"role": "user", "content": _dag(60)}]) == "user"
    tools = [{"type": "function", "shared": _dag(60), "odd": Role.USER}]
    chat, tools_out, _, _, _ = prepare_inputs([{"role": "user"}], tools, None, {}, Limits())
    assert tools_out[0]["odd"] == "user" and tools_out[0]["shared"] is tools[0]["shared"]
    with pytest.raises(mj.LimitExceeded) as info:
        mj.apply_chat_template("x", [{"role": "user", "content": _dag(60)}], limits=Limits(max_data_depth=40))
    assert info.value.limit == "max_data_depth"
    assert time.process_time() - start < 5


def test_a_part_met_again_deeper_is_refused_where_it_passes_the_depth():
    deep = _dag(5)
    shallow_first = [deep, [[[[deep]]]]]   # deep first met at depth 1, then again at depth 5
    with pytest.raises(mj.LimitExceeded):
        prepare_inputs([{"role": "user", "content": [shallow_first, Opaque()]}], None, None, {},
                       Limits(max_data_depth=10))
    chat, _, _, _, _ = prepare_inputs([{"role": "user", "content": [shallow_first, Opaque()]}], None, None, {},
                                   Limits(max_data_depth=12))
    assert chat[0]["content"][1] == "<Opaque>"


@pytest.mark.parametrize("where", ["content", "tools", "kwargs", "object"])
def test_data_containing_itself_is_refused(where):
    cyclic = []
    cyclic.append(cyclic)
    messages, tools, kwargs = [{"role": "user"}], None, {}
    if where == "content":
        messages[0]["content"] = cyclic
    elif where == "tools":
        tools = [{"type": "function", "x": cyclic}]
    elif where == "kwargs":
        kwargs = {"x": cyclic}
    else:
        messages[0]["content"] = [Opaque(), cyclic]
    with pytest.raises(mj.LimitExceeded) as info:
        prepare_inputs(messages, tools, None, kwargs, Limits())
    assert info.value.limit == "max_data_depth"


def test_the_same_tools_found_plain_again_are_looked_at_again_when_changed():
    tools = [{"type": "function", "function": {"name": f"f{i}", "parameters": {"type": "object"}}} for i in range(4)]
    for _ in range(3):   # noted, remembered, recalled
        assert prepare_inputs([{"role": "user"}], tools, None, {}, Limits())[1] is tools
    tools[2]["function"]["name"] = Role.USER
    tools[3]["function"]["parameters"]["extra"] = Opaque()
    made = prepare_inputs([{"role": "user"}], tools, None, {}, Limits())[1]
    assert made[2]["function"]["name"] == "user" and type(made[2]["function"]["name"]) is str
    assert made[3]["function"]["parameters"]["extra"] == "<Opaque>" and made[0] is tools[0]
    cyclic = []
    cyclic.append(cyclic)
    tools[0]["function"]["parameters"]["loop"] = cyclic
    with pytest.raises(mj.LimitExceeded):
        prepare_inputs([{"role": "user"}], tools, None, {}, Limits())
