"""Random conversations for real chat templates (the chat-data campaign, tools/chat_campaign.py): a seed and a
template's source → the keyword arguments transformers' apply_chat_template would render it with.

The template is real; the data is what users send, in every shape: roles (system, user, assistant, tool, developer,
ipython, function and odd ones), content as text (empty, whitespace, unicode, markup-like, template-like, long),
None, numbers and bools, lists of parts (text, image, other types, missing keys); tool calls with and without a
`function` dict, arguments as a dict or a JSON string; reasoning fields, names, ids, extra and `_`-prefixed keys;
tools (JSON schemas with nested parameters, flat ones, empty lists), documents, add_generation_prompt, special
tokens, and the other variables the template reads (from its undeclared names: enable_thinking, reasoning_effort,
date_string, custom_tools...). A case is tame (the shapes real callers send, so that the render goes deep into the
template) or, one in three, wild (odd roles, values of the wrong type, messages that are not dicts...).

Most cases go through the input processing of transformers 5 (message keys whose value is None dropped, the
reasoning fields aliased to each other, tools/documents None when absent), written here from its documented
behaviour; the others reach the template as a caller gave them (transformers 4), now and then not plain: a tuple
for a list; a dict subclass, an OrderedDict, a read-only mapping proxy, a UserDict, a ChainMap, a dataclass or an
object with attributes for a dict; Markup, a str subclass or a (str, Enum) for text; Decimal, Fraction, dates,
bytes, sets, complex numbers for numbers. ChatCase.api keeps what a caller hands apply_chat_template (before the
processing; continue_final_message now and then), for the campaign's --oracle comparison.
"""

import datetime
import enum
import json
import random
from collections import ChainMap, OrderedDict, UserDict, UserString
from dataclasses import dataclass, make_dataclass
from decimal import Decimal
from fractions import Fraction
from keyword import iskeyword
from types import MappingProxyType

from markupsafe import Markup

import minijinja_py as mj
from differential_gen import Obj
from minijinja_py import meta

__all__ = ["ChatCase", "generate_chat_case", "template_variables"]

TEXTS = [
    "", " ", "\n", "  \n\t ", "Hi", "Hello, how are you?", "What is 2+2?", "line1\nline2\n", "  padded  ",
    "ünïcødé café", "日本語のテキスト", "emoji 😀👍🏽", "\u200b\u00a0zero-width", "<b>bold</b> & 'q' \"dq\"",
    "{{ x }}", "{% if true %}y{% endif %}", "{# c #}", "<|im_start|>user", "[INST] nested [/INST]", "</s><s>",
    "<think>reasoning here</think>answer", "<think>\nopen only", "before</think>after", "<tool_call>{}</tool_call>",
    "Observation: done", "Human: hi\n\nAssistant:", "\\n escaped \\t", "50% off ${price}", "a" * 300,
    "trailing space ", "\r\nCRLF\r\n", "None", "true", "0", "[1, 2]", '{"a": 1}', "\x00nul", "\x1b[31mred",
    "\u2028line sep", "lone\rCR", "surrogate \ud800", "\t", "ÅÉ\u0301",
]
NUMBERS = [0, 1, -5, 3.5, 1e16, 1.0, -0.0, float("nan"), float("inf"), 1e-7, 2 ** 53 + 1, 10 ** 30, True, False]
# the caller's other values where JSON's are expected (transformers 4 passed them as given)
OTHER_VALUES = [Decimal("1.50"), Fraction(1, 3), datetime.date(2024, 7, 26), datetime.datetime(2024, 7, 26, 9, 5),
                b"bytes", bytearray(b"ba"), {1, 2}, frozenset({"a"}), complex(1, 2), UserString("user string")]
ROLES = [(30, "user"), (24, "assistant"), (10, "system"), (6, "tool"), (2, "developer"), (1, "ipython"),
         (1, "function"), (1, "tool_response"), (1, "observation"), (1, "model"), (1, "User"), (1, "bot"),
         (1, ""), (1, None), (1, 3), (1, " user")]
NAMES = ["get_weather", "search", "python", "calc_2", "a.b", "brave_search", "wolfram_alpha", "code_interpreter",
         "", "名前"]
ODD_KEYS = ["extra", "_meta", "__class__", "metadata", "weight", "id", "prefix", "chosen", "type", "loss",
            "items", "keys", "values", "get", "copy", "update", "title", "format", "count", "index", "upper"]


@dataclass
class ChatCase:
    """One case: a template (its name and source) and the variables it renders with."""
    name: str
    source: str
    seed: int
    context: dict
    mode: str   # "transformers 5" (inputs processed) or "as given"
    api: dict = None   # what a caller hands apply_chat_template: messages, tools, documents, add_generation_prompt,
    #                    continue_final_message, kwargs (before transformers' input processing)

    def describe(self):
        return (f"template {self.name} ({len(self.source)} chars), seed {self.seed}, inputs {self.mode}\n"
                f"context={self.context!r}")


def _weighted(rng, options):
    return rng.choices([value for _, value in options], [weight for weight, _ in options])[0]


class _Draw(random.Random):
    # a seeded random source that knows whether this case is wild (odd shapes everywhere) or tame (the shapes
    # real callers send, so the render goes deep into the template)
    def __init__(self, seed):
        super().__init__(seed)
        self.wild = self.random() < 0.35
        self.parts = self.wild or self.random() < 0.3   # does this caller send content as lists of parts?

    def odd(self, p):
        # True with probability p in a wild case, never in a tame one
        return self.wild and self.random() < p


def _text(rng):
    pick = rng.random() if rng.wild else rng.random() * 0.9
    if pick < 0.75:
        return rng.choice(TEXTS)
    if pick < 0.85:
        return " ".join(rng.choice(TEXTS) for _ in range(rng.randint(2, 5)))
    if pick < 0.9:
        return rng.choice(TEXTS) * rng.randint(50, 400)   # very long
    return rng.choice(NUMBERS + [[], {}])   # not text where text is expected (wild only)


def _arguments(rng):
    args = {}
    for _ in range(rng.randint(0, 3)):
        args[rng.choice(["location", "query", "n", "code", "unit", "a b", "_x", "items"])] = rng.choice(
            ["Paris", "", 3, 2.5, True, None, ["x", 1], {"nested": {"k": "v"}}, "😀", rng.choice(NUMBERS)])
    if rng.odd(0.1):
        args[rng.choice([1, None, True, 2.5])] = "non-str key"
    if rng.odd(0.05):
        deep = "bottom"
        for _ in range(rng.choice([20, 60, 150, 250])):
            deep = [deep] if rng.random() < 0.5 else {"d": deep}
        args["deep"] = deep
    pick = rng.random() if rng.wild else rng.random() * 0.85
    if pick < 0.45:
        return args
    if pick < 0.85:
        return json.dumps(args, ensure_ascii=rng.random() < 0.5)
    return rng.choice(["", "not json", "{}", None, 7])


def _tool_call(rng, index):
    function = {"name": rng.choice(NAMES), "arguments": _arguments(rng)}
    if rng.odd(0.2):
        del function["arguments"]
    if rng.odd(0.1):
        del function["name"]
    pick = rng.random() if rng.wild else rng.random() * 0.9
    if pick < 0.7:
        call = {"id": rng.choice([f"call_{index}", f"{index:09d}", "", 12]), "type": "function", "function": function}
        if rng.random() < 0.2:
            del call["id"]
    elif pick < 0.9:
        call = dict(function)   # no `function` dict: the call itself has name and arguments
        if rng.random() < 0.5:
            call["id"] = f"call_{index}"
    else:
        call = {"type": rng.choice(["function", "code", None]), "function": rng.choice([None, "f", []])}
    return call


def _parts(rng):
    parts = []
    for _ in range(rng.randint(0, 4)):
        kind = _weighted(rng, [(6, "text"), (3, "image"), (1, "image_url"), (1, "video"), (1, "audio"),
                               (1 if rng.wild else 0, "other"), (1 if rng.wild else 0, "missing")])
        if kind == "text":
            part = {"type": "text", "text": _text(rng)}
        elif kind in ("image", "video", "audio"):
            part = {"type": kind}
            if rng.random() < 0.5:
                part[kind] = "http://x/y.png"
        elif kind == "image_url":
            part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}
        elif kind == "other":
            part = {"type": rng.choice(["tool_result", "document", "thinking", "", 5]), "text": "t", "content": "c"}
        else:
            part = rng.choice([{"text": "no type"}, {"type": "text"}, {}, "bare string", None])
        parts.append(part)
    return parts


def _content(rng, role):
    if not rng.wild and role in ("system", "user", "assistant", "tool", "developer") and rng.random() < 0.6:
        return rng.choice(TEXTS)
    pick = rng.random() if rng.wild else rng.random() * 0.9
    if 0.65 <= pick < 0.85 and not rng.parts:
        pick = 0
    if pick < 0.65:
        return _text(rng)
    if pick < 0.85:
        return _parts(rng)
    if pick < 0.95:
        return None
    if pick < 0.98:
        return _MISSING
    return {"type": "text", "text": _text(rng)}   # one part, not in a list


_MISSING = object()


def _message(rng, role, index):
    message = {"role": role}
    content = _content(rng, role)
    if content is not _MISSING:
        message["content"] = content
    if role == "assistant" and rng.random() < 0.3:
        message["tool_calls"] = rng.choice([[], None, _tool_call(rng, index), '[{"name": "f"}]']) \
            if rng.odd(0.2) else [_tool_call(rng, index * 10 + k) for k in range(rng.randint(1, 3))]
    if role in ("assistant", "user") and rng.random() < 0.2:
        message[rng.choice(["reasoning_content", "thinking", "reasoning"])] = rng.choice(
            ["Let me think.", "", "  step 1\nstep 2  ", None, "<think>x</think>"])
    if role in ("tool", "ipython", "function") and rng.random() < 0.6:
        message[rng.choice(["tool_call_id", "name", "tool_call_id"])] = rng.choice(
            [f"call_{index}", rng.choice(NAMES), 5])
    if rng.random() < 0.1:
        message["name"] = rng.choice(NAMES + [None, 1]) if rng.wild else rng.choice(NAMES)
    for _ in range(rng.randint(1, 2) if rng.odd(0.3) else 0):
        message[rng.choice(ODD_KEYS)] = rng.choice(["v", 0, True, None, {"k": 1}, [1], rng.choice(NUMBERS)])
    return message


def _roles(rng):
    shape = _weighted(rng, [(6, "chat"), (2, "tools")] + [(1, "random"), (1, "empty")] * rng.wild)
    count = _weighted(rng, [(60, rng.randint(1, 4)), (30, rng.randint(5, 10)), (10, rng.randint(11, 40)),
                            (1, rng.randint(200, 1500))])
    if shape == "empty":
        return []
    if shape == "random":
        return [_weighted(rng, ROLES) for _ in range(count)]
    roles = ["system"] if rng.random() < 0.5 else []
    if rng.random() < 0.1:
        roles = ["developer"]
    while len(roles) < count:
        roles.append("user")
        if shape == "tools" and rng.random() < 0.6:
            roles += ["assistant"] + ["tool"] * rng.randint(1, 2)
        roles.append("assistant")
    if rng.random() < 0.5:
        roles.pop()   # ends with a user turn (or the tool results), asking for the next
    if rng.odd(0.3):
        roles.insert(rng.randint(0, len(roles)), _weighted(rng, ROLES))
    return roles


def _schema(rng, depth=0):
    kind = rng.choice(["string", "integer", "number", "boolean", "array", "object", "null", None, ["string", "null"]])
    schema = {"type": kind} if kind is not None else {}
    if rng.random() < 0.6:
        schema["description"] = rng.choice(["The city", "", "Unicode: 日本", "has 'quotes' & <tags>", "x\ny"])
    if rng.random() < 0.1:
        schema["title"] = rng.choice(["Title", ""])
    if kind == "string" and rng.random() < 0.3:
        schema["enum"] = rng.choice([["a", "b"], [], ["c"]])
    if kind == "array" and depth < 2:
        schema["items"] = _schema(rng, depth + 1)
    if kind == "object" and depth < 2:
        schema["properties"] = {rng.choice(["a", "b", "_c", "d e"]): _schema(rng, depth + 1)
                                for _ in range(rng.randint(0, 3))}
        if rng.random() < 0.5:
            schema["required"] = list(schema["properties"])[:1]
    if rng.random() < 0.1:
        schema[rng.choice(["default", "format", "nullable", "anyOf"])] = rng.choice([None, 1, "x", [{"type": "x"}]])
    return schema


def _tool(rng):
    function = {"name": rng.choice(NAMES), "description": rng.choice(["Get the weather.", "", "Multi\nline", None])}
    if rng.random() < 0.85:
        params = {"type": "object", "properties": {rng.choice(["location", "unit", "query", "n", "_p"]): _schema(rng)
                                                   for _ in range(rng.randint(0, 3))}}
        if rng.random() < 0.6:
            params["required"] = list(params["properties"])[:rng.randint(0, 2)]
        function["parameters"] = params
    if rng.random() < 0.1:
        function["return"] = _schema(rng)
    if rng.odd(0.05) and "parameters" in function:
        function["parameters"] = json.dumps(function["parameters"])   # a schema sent as JSON text
    return {"type": "function", "function": function} if rng.random() < 0.8 else function


def _documents(rng):
    return [rng.choice([{"title": "Doc", "text": _text(rng)}, {"text": "only text"}, {"title": "t", "text": "x",
                                                                                       "doc_id": 3}, {}])
            for _ in range(rng.randint(0, 3))]


KWARGS = {
    "enable_thinking": [True, False, None, "true", 0],
    "reasoning_effort": ["low", "medium", "high", None, "", "max"],
    "date_string": ["26 Jul 2024", "", None],
    "tools_in_user_message": [True, False],
    "custom_tools": None,   # a tools list
    "builtin_tools": [["brave_search", "wolfram_alpha"], [], ["code_interpreter"]],
    "system_message": ["You are helpful.", "", None],
    "continue_final_message": [True, False],
    "add_vision_id": [True, False],
    "thinking": [True, False],
    "clear_thinking": [True, False],
    "preserve_thinking": [True, False],
    "keep_cots": [True, False],
    "model_identity": ["You are X.", ""],
    "knowledge_cutoff": ["2024-06", ""],
    "system_prompt": ["You are a bot.", ""],
    "default_system_prompt": ["Default.", ""],
    "custom_instructions": ["Be brief.", ""],
    "reasoning_mode": ["on", "off", None],
    "thinking_budget": [0, 100, None],
}
_TOOL_LISTS = ("custom_tools", "functions", "available_tools", "python_tools", "xml_tools")
_OTHER_VALUES = [True, False, None, "", "x", 0, 1, "low", [], {}, ["a", "b"], {"k": "v"}]


def template_variables(source):
    """The names a template reads but does not set (empty when it does not parse)."""
    try:
        return sorted(meta.find_undeclared_variables(_parser.parse(source)))
    except mj.TemplateError:
        return []


_parser = mj.chat_environment()


_GIVEN = ("messages", "tools", "documents", "add_generation_prompt", "bos_token", "eos_token")


def _kwargs(rng, variables):
    kwargs = {}
    for name in variables:
        if name in _GIVEN or rng.random() < 0.5:
            continue
        if name in _TOOL_LISTS:
            kwargs[name] = [_tool(rng) for _ in range(rng.randint(0, 2))]
        elif name in KWARGS:
            kwargs[name] = rng.choice(KWARGS[name])
        elif rng.odd(0.5):
            kwargs[name] = rng.choice(_OTHER_VALUES)
    return kwargs


def _special_tokens(rng):
    tokens = {}
    if rng.random() < 0.85:
        tokens["bos_token"] = rng.choice(["<s>", "<|begin_of_text|>", "", "<bos>"])
    if rng.random() < 0.85:
        tokens["eos_token"] = rng.choice(["</s>", "<|eot_id|>", "", "<eos>"])
    if rng.random() < 0.2:
        tokens.update(unk_token="<unk>", pad_token=rng.choice(["<pad>", "</s>"]))
    return tokens


class _MessageDict(dict):
    """The caller's dict subclass (transformers 4 passed messages as given)."""


class _Role(str):
    """A str subclass where a str is expected (an enum-like role)."""


class Role(str, enum.Enum):
    """The caller's (str, Enum) for roles."""
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


def _unplain(rng, value, depth=0):
    # the caller's data in other types of the same shape, now and then
    if depth > 3 or rng.random() < 0.7:
        return value
    if isinstance(value, dict):
        items = {k: _unplain(rng, v, depth + 1) for k, v in value.items()}
        pick = rng.random()
        if pick < 0.4:
            return _MessageDict(items)
        if pick < 0.6:
            return OrderedDict(items)
        if pick < 0.7 and all(isinstance(k, str) and k.isidentifier() for k in items):
            return Obj(**items)
        if pick < 0.8:
            return MappingProxyType(items)   # a Mapping that is not a dict
        if pick < 0.85:
            return UserDict(items)
        if pick < 0.9:
            return ChainMap(items, {"chained": "yes"})
        if pick < 0.95 and all(isinstance(k, str) and k.isidentifier() and not iskeyword(k) and k[:1] != "_"
                               for k in items):
            return _dataclass_of(items)
        return items
    if isinstance(value, list):
        items = [_unplain(rng, v, depth + 1) for v in value]
        return tuple(items) if rng.random() < 0.5 else items
    if isinstance(value, str):
        if value in _ROLES_BY_VALUE and rng.random() < 0.5:
            return _ROLES_BY_VALUE[value]
        return Markup(value) if rng.random() < 0.5 else _Role(value)
    if isinstance(value, (int, float)) and rng.random() < 0.5:
        return rng.choice(OTHER_VALUES)
    return value


_ROLES_BY_VALUE = {role.value: role for role in Role}
_DATACLASSES = {}


def _dataclass_of(items):
    # an instance of a dataclass with these fields (a message class of the caller's; its repr has no address)
    fields = tuple(items)
    cls = _DATACLASSES.get(fields)
    if cls is None:
        cls = _DATACLASSES[fields] = make_dataclass("Message", fields)
    return cls(**items)


def _processed(messages, tools, documents, kwargs):
    # transformers 5: top-level message keys whose value is None are dropped, the reasoning fields are aliased
    # (the first of reasoning_content/thinking/reasoning that is set fills the others, keeping the message's own
    # thinking and setting reasoning_content), tools and documents are None when absent
    fields = ("reasoning_content", "thinking", "reasoning")
    out = []
    for message in messages:
        message = {k: v for k, v in message.items() if v is not None}
        reasoning = next((message[k] for k in fields if message.get(k) is not None), None)
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out, tools, documents, kwargs


def _odd_messages(rng, messages):
    # what a wild caller passes as messages: a tuple, entries that are not dicts
    pick = rng.random()
    if pick < 0.4:
        return tuple(messages)
    if pick < 0.8:
        return messages + [rng.choice(["a string", None, 3, ["user", "hi"], {}])]
    return rng.choice([{"role": "user", "content": "hi"}, "hi", None, []])


def generate_chat_case(seed, name, source, variables):
    """The case of this seed for the template (variables: template_variables(source))."""
    rng = _Draw(seed)
    messages = [_message(rng, role, i) for i, role in enumerate(_roles(rng))]
    tools = None if rng.random() < 0.5 else [_tool(rng) for _ in range(rng.randint(0, 3))]
    if rng.odd(0.05):
        tools = rng.choice([_tool(rng), "get_weather", [{}], ["get_weather"]])
    documents = None if "documents" not in variables or rng.random() < 0.5 else _documents(rng)
    kwargs = {**_special_tokens(rng), **_kwargs(rng, variables)}
    raw = messages, tools, documents, kwargs
    if rng.random() < 0.75:
        mode = "transformers 5"
        messages, tools, documents, kwargs = _processed(messages, tools, documents, kwargs)
    else:
        mode = "as given"
        messages = [_unplain(rng, m) for m in messages] if rng.random() < 0.5 else messages
        if rng.random() < 0.3:
            tools = _unplain(rng, tools)
            kwargs = {k: _unplain(rng, v) for k, v in kwargs.items()}
    context = {"messages": messages, "tools": tools, "documents": documents,
               "add_generation_prompt": rng.random() < 0.5 if not rng.odd(0.1) else rng.choice([None, 0, 1, "yes"]),
               **kwargs}
    if mode == "as given" and rng.odd(0.15):
        context["messages"] = _odd_messages(rng, messages)
    if mode == "as given" and rng.random() < 0.3:
        for key in ("tools", "documents"):
            if context[key] is None:
                del context[key]   # absent, not None
    if mode == "as given":
        raw = context["messages"], context.get("tools"), context.get("documents"), kwargs
    api = {"messages": raw[0], "tools": raw[1], "documents": raw[2],
           "add_generation_prompt": context["add_generation_prompt"],
           "continue_final_message": False if rng.random() < 0.85 else rng.choice([True, True, "reasoning_content"]),
           "kwargs": {k: v for k, v in raw[3].items() if k != "continue_final_message"}}   # (a parameter there)
    return ChatCase(name, source, seed, context, mode, api)
