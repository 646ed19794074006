"""Capabilities: a chat template → what it does with each kind of input, decided by rendering probe conversations
through the template itself (so the answer is exactly as right as the engine is)."""

# Servers each guess, before they feed a template, whether it takes a system message, tools, tool calls with
# object or string arguments, typed content, reasoning...; this gives one documented answer. Every field is decided
# by a probe conversation with distinct ASCII needles ("shows X" means X is a substring of the output); a probe that
# raises (a broken template, raise_exception, a limit exceeded) counts as "no". The probes are pinned in issue 9 and
# in the README's "Capabilities" section, so that two readers build the same ones.
#
# decide(render, render_spans) is the decision over any renderer (the tests run it over Jinja2 as the reference);
# decide_capabilities(chat_template, name) runs it through a ChatTemplate (its render path, with the probe's
# variables only: not its special_tokens), with one frozen clock reading for all probes (see clock_reading).
# ChatTemplate.capabilities caches the result.

import json
from functools import partial
from operator import attrgetter
from _collections_abc import Callable, Mapping   # collections.abc itself, without the module that re-exports it
from _contextvars import ContextVar   # contextvars.ContextVar itself, without the contextvars.py shim
from types import SimpleNamespace

# typing costs a cold start ~4 ms: the annotations that need it are strings (not the fields':
# Capabilities.__annotations__ holds their types, as a dataclass's does)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime   # (loaded where a clock is made: chat/template.py's _clock)
    from typing import Any, Optional

from ..core.errors import TemplateError

__all__ = ["Capabilities", "decide", "decide_capabilities", "cached_capabilities", "capabilities_json",
           "clock_reading", "TOOL_CALL_ARGUMENT_FORMS"]

TOOL_CALL_ARGUMENT_FORMS = ("object", "string", "both", "none")


# ----------------------------------------------------------------------------------------------- Capabilities
class Capabilities:
    """What a chat template does with each kind of input (issue 9). Every field is a bool except
    tool_call_arguments, one of "object", "string", "both", "none".

    Behaves as a frozen dataclass without importing `dataclasses` (which, with the `inspect` it pulls in, would
    cost `import minijinja_py` more than the rest of this module): fields cannot be assigned, instances compare
    and hash by value, repr() names every field; fields() names them, as_dict() gives them as a dict, replace()
    a copy with some changed.
    """

    string_content: bool         # [user "USER_NEEDLE"] shows USER_NEEDLE
    typed_content: bool          # content [{"type": "text", "text": USER_NEEDLE}] shows it, and no 'type'/"type"
    system_role: bool            # [system, user] shows SYS_NEEDLE
    add_generation_prompt: bool  # [user] renders differently with add_generation_prompt true and false
    alternating_roles: bool      # [user, user] raises and [user, assistant, user] renders (alternation required)
    tools: bool                  # [user] with tools=TOOLS shows tool_needle_fn
    requires_tools: bool         # [user] raises without tools and renders with them
    tool_calls: bool             # the tool-call probe (either argument form) shows call_needle_fn or ARG_VALUE_NEEDLE
    tool_call_arguments: str     # the argument forms whose probe shows ARG_VALUE_NEEDLE printed cleanly
    tool_responses: bool         # the tool-call probe in the form that works shows TOOL_RESULT_NEEDLE
    tool_call_id: bool           # ... shows idneedle1
    parallel_tool_calls: bool    # two calls in one turn: both names or both ids shown
    non_null_content: bool       # the tool-calling assistant's content key is required (absent raises)
    reasoning: bool              # reasoning_content shown, in a final answer or before a tool call
    reasoning_in_history: bool   # reasoning_content shown for an assistant turn followed by a user turn
    enable_thinking: bool        # [user] + generation prompt renders differently with enable_thinking true/false
    documents: bool              # documents=[{"title": "DOC_TITLE", "text": "DOC_NEEDLE"}] shows DOC_NEEDLE
    generation_tag: bool         # [user, assistant] through render_with_generation_spans gives a span

    __slots__ = FIELDS = (
        "string_content", "typed_content", "system_role", "add_generation_prompt", "alternating_roles", "tools",
        "requires_tools", "tool_calls", "tool_call_arguments", "tool_responses", "tool_call_id",
        "parallel_tool_calls", "non_null_content", "reasoning", "reasoning_in_history", "enable_thinking",
        "documents", "generation_tag",
    )

    def __init__(self, **values: "Any") -> None:
        missing = [f for f in self.FIELDS if f not in values]
        unknown = sorted(set(values) - set(self.FIELDS))
        if missing or unknown:
            raise TypeError(f"Capabilities takes exactly its {len(self.FIELDS)} fields as keywords; "
                            f"missing: {', '.join(missing) or '-'}; unknown: {', '.join(unknown) or '-'}")
        for name in self.FIELDS:
            value = values[name]
            if name == "tool_call_arguments":
                if value not in TOOL_CALL_ARGUMENT_FORMS:
                    raise ValueError(f"tool_call_arguments must be one of {', '.join(TOOL_CALL_ARGUMENT_FORMS)}, "
                                     f"not {value!r}")
            elif type(value) is not bool:
                raise TypeError(f"Capabilities.{name} must be a bool, not {type(value).__name__}")
            object.__setattr__(self, name, value)

    @classmethod
    def fields(cls) -> "tuple[str, ...]":
        """The field names, in order (as dataclasses.fields() would list them)."""
        return cls.FIELDS

    def as_dict(self) -> "dict[str, Any]":
        """{field: value} in field order: JSON-ready."""
        return dict(zip(self.FIELDS, self._values()))

    def replace(self, **changes: "Any") -> "Capabilities":
        """A copy with some fields changed (as dataclasses.replace)."""
        return Capabilities(**{**self.as_dict(), **changes})

    def _values(self):
        return _field_values(self)

    def __setattr__(self, name, value):
        raise AttributeError(f"Capabilities is frozen: cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"Capabilities is frozen: cannot delete field {name!r}")

    def __eq__(self, other):
        if type(other) is not Capabilities:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return f"Capabilities({', '.join(map('{}={!r}'.format, self.FIELDS, self._values()))})"

    def __reduce__(self):
        # the default reduction restores slots with setattr, which a frozen instance refuses
        return (_rebuild, (self._values(),))


_field_values = attrgetter(*Capabilities.FIELDS)   # an instance's values, in field order


def _rebuild(values):
    return Capabilities(**dict(zip(Capabilities.FIELDS, values)))


# ----------------------------------------------------------------------------------------------------- probes
USER, USER2, SYSTEM, ANSWER = "USER_NEEDLE", "USER2_NEEDLE", "SYS_NEEDLE", "ANSWER_NEEDLE"
THINK, TOOL_RESULT, DOC = "THINK_NEEDLE", "TOOL_RESULT_NEEDLE", "DOC_NEEDLE"
TOOL_NAME, CALL_NAME, ARG_VALUE = "tool_needle_fn", "call_needle_fn", "ARG_VALUE_NEEDLE"
_ARGUMENTS = {"arg_needle": ARG_VALUE}
# A form whose output shows the arguments encoded twice, or printed as a Python dict, does not count as clean.
_UNCLEAN_ARGUMENTS = ('\\"' + ARG_VALUE + '\\"', "'arg_needle': '" + ARG_VALUE + "'")
_FORMS = ("object", "string")
_SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}


def _arguments(form):
    # A call's arguments in the object form, or as the string json.dumps writes for it.
    return dict(_ARGUMENTS) if form == "object" else json.dumps(_ARGUMENTS)


def _tools():
    return [{"type": "function", "function": {
        "name": TOOL_NAME, "description": "TOOL_DESC_NEEDLE",
        "parameters": {"type": "object", "properties": {"arg_needle": {"type": "string"}},
                       "required": ["arg_needle"]}}}]


def _user():
    return {"role": "user", "content": USER}


def _user_chat():
    return [_user()]


def _user2():
    return {"role": "user", "content": USER2}


def _answer():
    return {"role": "assistant", "content": ANSWER}


def _call(call_id, name, form):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": _arguments(form)}}


def _tool_result(call_id, content):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _calling_assistant(calls, content=True, thinking=False):
    # The assistant turn that calls tools: content "" (or no content key at all), reasoning first if asked.
    message = {"role": "assistant"}
    if thinking:
        message["reasoning_content"] = THINK
    if content:
        message["content"] = ""
    message["tool_calls"] = calls
    return message


def _tool_call_chat(form, content=True):
    return [_user(), _calling_assistant([_call("idneedle1", CALL_NAME, form)], content),
            _tool_result("idneedle1", TOOL_RESULT), _answer(), _user2()]


def _parallel_call_chat(form):
    calls = [_call("idneedle2", "call_needle_a", form), _call("idneedle3", "call_needle_b", form)]
    return [_user(), _calling_assistant(calls), _tool_result("idneedle2", "TOOL_RESULT_NEEDLE_A"),
            _tool_result("idneedle3", "TOOL_RESULT_NEEDLE_B"), _answer(), _user2()]


def _thinking_answer():
    return {"role": "assistant", "content": ANSWER, "reasoning_content": THINK}


def _thinking_call_chat(form):
    return [_user(), _calling_assistant([_call("idneedle1", CALL_NAME, form)], thinking=True),
            _tool_result("idneedle1", TOOL_RESULT)]


# Every string a rule looks for in a probe's output: a probe keeps which of them it showed, not its text. Each
# contains one of a few markers, looked for first: an output of megabytes without a marker is scanned once for
# each marker, not once for each needle. (marker, the needles containing it and no marker before it), in order.
_MARKED = (
    ("NEEDLE", (USER, USER2, SYSTEM, ANSWER, THINK, TOOL_RESULT, DOC, ARG_VALUE) + _UNCLEAN_ARGUMENTS),
    ("needle", (TOOL_NAME, CALL_NAME, "idneedle1", "idneedle2", "idneedle3", "call_needle_a", "call_needle_b")),
    ("type", ("'type'", '"type"')),
)


def _seen(text):
    # What the rules need of one probe's output: .found, the needles it shows, and .digest, to tell two outputs
    # apart. A template can print tens of megabytes per probe; the texts are not kept.
    found = []
    for marker, needles in _MARKED:
        found += _marked_needles(text, marker, needles)
    return SimpleNamespace(found=frozenset(found), digest=(len(text), hash(text)))


_MAX_MARKS = 64   # marker occurrences looked at one by one; past that, each needle is looked for in the whole text


def _marked_needles(text, marker, needles):
    # The needles (each containing marker) that text shows: found around the places where marker is, so that a
    # long output is scanned about once, not once per needle.
    places = []
    at = text.find(marker)
    while at >= 0 and len(places) <= _MAX_MARKS:
        places.append(at)
        at = text.find(marker, at + 1)
    if len(places) > _MAX_MARKS:
        return [needle for needle in needles if needle in text]
    return [needle for needle in needles if any(
        place >= needle.find(marker) and text.startswith(needle, place - needle.find(marker)) for place in places)]


def _shows(seen, *needles):
    return seen is not None and seen.found.issuperset(needles)


def _differ(first, second):
    return first is not None and second is not None and first.digest != second.digest


# The probes a decision reads: probes.text(name, make_messages, tools=, documents=, add_generation_prompt=,
# **variables) → what the probe showed (_seen), or None when it raised; probes.spans(make_messages) → its list of
# generation spans, or None. A namespace of two partials (decide), not a class: a class costs a cold start
# ~0.07 M instructions.
#
# render(messages, tools=, documents=, add_generation_prompt=, **variables) -> str or None;
# render_spans(messages, ...) -> the list of generation spans, or None when it raised.


def _probe_text(render, seen, name, make_messages, tools=False, documents=None, add_generation_prompt=False,
                **variables):
    # Each probe rendered once, by name (several fields read the same one): seen[name].
    if name not in seen:
        text = render(make_messages(), tools=_tools() if tools else None, documents=documents,
                      add_generation_prompt=add_generation_prompt, **_SPECIAL_TOKENS, **variables)
        seen[name] = None if text is None else _seen(text)
    return seen[name]


def _probe_spans(render_spans, make_messages):
    return render_spans(make_messages(), tools=None, documents=None, add_generation_prompt=False,
                        **_SPECIAL_TOKENS)


def _content_fields(probes):
    user = probes.text("user", _user_chat)
    typed = probes.text("typed", lambda: [{"role": "user", "content": [{"type": "text", "text": USER}]}])
    with_tools = probes.text("user+tools", _user_chat, tools=True)
    think_on = probes.text("thinking-on", _user_chat, add_generation_prompt=True, enable_thinking=True)
    think_off = probes.text("thinking-off", _user_chat, add_generation_prompt=True, enable_thinking=False)
    documents = probes.text("documents", _user_chat, tools=True,
                            documents=[{"title": "DOC_TITLE", "text": DOC}])
    spans = probes.spans(lambda: [_user(), _answer()])
    return {
        "string_content": _shows(user, USER),
        "typed_content": _shows(typed, USER) and "'type'" not in typed.found and '"type"' not in typed.found,
        "system_role": _shows(probes.text("system", lambda: [{"role": "system", "content": SYSTEM}, _user()]), SYSTEM),
        "add_generation_prompt": _differ(user, probes.text("user+prompt", _user_chat,
                                                           add_generation_prompt=True)),
        "alternating_roles": (probes.text("user,user", lambda: [_user(), _user2()]) is None
                              and probes.text("user,answer,user", lambda: [_user(), _answer(), _user2()]) is not None),
        "tools": _shows(with_tools, TOOL_NAME),
        "requires_tools": user is None and with_tools is not None,
        "enable_thinking": _differ(think_on, think_off),
        "documents": _shows(documents, DOC),
        "generation_tag": bool(spans),
    }


def _clean_arguments(seen):
    return _shows(seen, ARG_VALUE) and seen.found.isdisjoint(_UNCLEAN_ARGUMENTS)


def _tool_call_fields(probes):
    calls = {form: probes.text("call-" + form, partial(_tool_call_chat, form), tools=True) for form in _FORMS}
    clean = [form for form in _FORMS if _clean_arguments(calls[form])]
    # "the form that works": object if its probe renders, else string if that renders
    working = next((form for form in _FORMS if calls[form] is not None), None)
    working_text = calls[working] if working else None
    parallel = [probes.text("parallel-" + form, partial(_parallel_call_chat, form), tools=True) for form in _FORMS]
    return {
        "tool_calls": any(_shows(text, CALL_NAME) or _shows(text, ARG_VALUE) for text in calls.values()),
        "tool_call_arguments": "both" if len(clean) == 2 else clean[0] if clean else "none",
        "tool_responses": _shows(working_text, TOOL_RESULT),
        "tool_call_id": _shows(working_text, "idneedle1"),
        "parallel_tool_calls": any(_shows(text, "call_needle_a", "call_needle_b")
                                   or _shows(text, "idneedle2", "idneedle3") for text in parallel),
        "non_null_content": working is not None and probes.text(
            "call-no-content-" + working, partial(_tool_call_chat, working, content=False), tools=True) is None,
    }


def _reasoning_fields(probes):
    answers = [probes.text("thinking-answer", lambda: [_user(), _thinking_answer()])]
    answers += [probes.text("thinking-call-" + form, partial(_thinking_call_chat, form), tools=True)
                for form in _FORMS]
    history = probes.text("thinking-history", lambda: [_user(), _thinking_answer(), _user2()])
    return {
        "reasoning": any(_shows(text, THINK) for text in answers),
        "reasoning_in_history": _shows(history, THINK),
    }


def decide(render, render_spans):
    # The Capabilities of whatever render/render_spans render (see _probe_text for their signatures).
    probes = SimpleNamespace(text=partial(_probe_text, render, {}), spans=partial(_probe_spans, render_spans))
    return Capabilities(**_content_fields(probes), **_tool_call_fields(probes), **_reasoning_fields(probes))


# ------------------------------------------------------------------------------------------ for a ChatTemplate
# While a ChatTemplate is probed, its strftime_now reads this holder instead of its clock: empty until the first
# reading, which every later probe then sees. A context variable, so renders in other threads are unaffected.
_probe_clock = ContextVar("minijinja_py_probe_clock", default=None)


def clock_reading(now: "Callable[[], datetime.datetime]") -> "datetime.datetime":
    # The moment strftime_now shows: now(), or, while capabilities are being decided, the one reading of now()
    # that all probes share (the ChatTemplate's frozen `now` when it has one, else the time read once).
    held = _probe_clock.get()
    if held is None:
        return now()
    if not held:
        held.append(now())
    return held[0]


def _chosen_template(chat_template, name):
    # (cache key, render options) for the named template: a file with several names every probe's choice (else
    # transformers would switch to "tool_use" for the probes with tools); a single template takes None/"default".
    source = getattr(chat_template, "source", None)
    if isinstance(source, Mapping):
        wanted = "default" if name is None else name
        if wanted not in source:
            raise ValueError(f"no chat template named {wanted!r}; this one has {', '.join(map(repr, source))}")
        return wanted, {"chat_template": wanted}
    if name not in (None, "default"):
        raise ValueError(f"no chat template named {name!r}: this ChatTemplate holds a single (default) template")
    return "default", {}


def decide_capabilities(chat_template, name=None):
    # The Capabilities of a ChatTemplate (of its template `name` when it holds several), deciding every field
    # through its one compiled template, as render() renders but with the probe's variables only (not the
    # ChatTemplate's special_tokens: the answer depends on the template's text), with one clock reading for all
    # probes. Limits are the ChatTemplate's own: a probe that exceeds one raised, so it counts as "no".
    _, options = _chosen_template(chat_template, name)

    def render(messages, **inputs):
        try:
            return chat_template._render_probe(messages, None, **options, **inputs)
        except TemplateError:
            return None

    def render_spans(messages, **inputs):
        spans = []
        try:
            chat_template._render_probe(messages, spans, **options, **inputs)
        except TemplateError:
            return None
        return spans

    token = _probe_clock.set([])
    try:
        return decide(render, render_spans)
    finally:
        _probe_clock.reset(token)


def cached_capabilities(chat_template: "Any", name: "Optional[str]",
                        cache: "dict[str, Capabilities]") -> "Capabilities":
    # decide_capabilities once per template name; `cache` is the ChatTemplate's own dict.
    key, _ = _chosen_template(chat_template, name)
    found = cache.get(key)
    if found is None:
        found = cache[key] = decide_capabilities(chat_template, name)
    return found


def capabilities_json(chat_template: "Any", name: "Optional[str]" = None) -> "dict[str, Any]":
    # What `check TEMPLATE --json` prints: the capabilities as a JSON-ready dict, in field order.
    return chat_template.capabilities_for(name).as_dict()
