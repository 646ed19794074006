"""A chat render's step budget grows with the size of its messages, not only their number (Limits.steps_per_character):
templates that walk each message's text item by item (`selectattr` over a string content: llava_next,
Llama-Guard-3-11B-Vision) render long messages as Jinja2 does, while the budget stays the caller's to give (linear
in the input's size, capped at max_output characters) and a template still cannot give itself more.

The limits are scaled down (max_steps, steps_per_message) so that the renders that used to be refused are small:
steps_per_character keeps its default, the rule under test."""

import os

import pytest

import minijinja_py as mj
from minijinja_py.chat.inputs import message_characters, prepare_inputs

jinja2 = pytest.importorskip("jinja2")
from differential_ref import reference_env  # noqa: E402  (needs jinja2)

HOLDOUT2 = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "holdout2")
# the shape of llava_next's user turn: the images of a content, then its texts, each by selectattr (a string
# content is walked character by character)
WALKS_TEXT = ("{% for m in messages %}[{{ m.role }}]"
              "{% for c in m.content | selectattr('type', 'equalto', 'image') %}<image>{% endfor %}"
              "{% for c in m.content | selectattr('type', 'equalto', 'text') %}{{ c.text }}{% endfor %}"
              "{{ m.content }}{% endfor %}")
SMALL = mj.Limits(max_steps=20_000, steps_per_message=200)   # steps_per_character: the default


def _conversation(count, length):
    return [{"role": ("user", "assistant")[i % 2], "content": (f"message {i}: " + "lorem ipsum " * length)[:length]}
            for i in range(count)]


def _jinja2(source, messages, **variables):
    return reference_env().from_string(source).render(messages=messages, tools=None, documents=None,
                                                      add_generation_prompt=False, **variables)


def test_a_template_that_walks_long_texts_renders_them_as_jinja2():
    messages = _conversation(40, 1_100)   # ~1 000 000 steps: refused by 20 000 + 200 a message alone
    assert mj.ChatTemplate(WALKS_TEXT, limits=SMALL).render(messages) == _jinja2(WALKS_TEXT, messages)
    with pytest.raises(mj.LimitExceeded) as caught:
        mj.ChatTemplate(WALKS_TEXT, limits=SMALL.replace(steps_per_character=0)).render(messages)
    assert caught.value.limit == "max_steps"


def test_llava_next_renders_long_user_turns_as_jinja2():
    with open(os.path.join(HOLDOUT2, "trl__llava_next.jinja"), encoding="utf-8") as f:
        source = f.read()
    # (its assistant turn takes a list content: a conversation of user turns, as Jinja2 renders it)
    messages = [dict(message, role="user") for message in _conversation(40, 1_100)]
    expected = _jinja2(source, messages)
    assert mj.ChatTemplate(source, limits=SMALL).render(messages) == expected
    with pytest.raises(mj.LimitExceeded):
        mj.ChatTemplate(source, limits=SMALL.replace(steps_per_character=0)).render(messages)


def test_the_characters_counted_are_those_of_the_messages_strings():
    """Every string value in the messages, however nested, by the walk that makes them plain (and by the exact
    walk when they are not plain: keys too, a shared string object once); the tools' and kwargs' strings are
    not."""
    blocks = [{"type": "text", "text": "abc"}, {"type": "image"}]
    messages = [{"role": "user", "content": blocks}, {"role": "assistant", "content": "hello", "n": 3}]
    *_, found = prepare_inputs(messages, [{"name": "x" * 50}], None, {"bos_token": "y" * 50}, mj.Limits())
    assert message_characters(found, 10**9) == len("user" + "text" + "abc" + "image" + "assistant" + "hello")

    class Text(str):
        pass
    shared = Text("z" * 100)
    *_, found = prepare_inputs([{"role": "user", "content": [shared, shared]}], None, None, {}, mj.Limits())
    assert message_characters(found, 10**9) == len("role" + "user" + "content") + 100


def test_a_template_cannot_give_itself_more_and_the_allowance_is_capped():
    """The characters are the caller's messages' (a template's own strings, however long, add nothing), and
    counted up to max_output: a render never gets more than max_steps + steps_per_message × inputs +
    steps_per_character × max_output."""
    spin = "{% set s = 'x' * 100000 %}{% for i in range(100000) %}{{ s|length }}{% endfor %}"
    with pytest.raises(mj.LimitExceeded) as caught:
        mj.ChatTemplate(spin, limits=SMALL).render([{"role": "user", "content": "hi"}])
    assert caught.value.limit == "max_steps"
    long_text = "a" * 1_000
    walks = "{% for m in messages %}{% for c in m.content %}{% endfor %}{% endfor %}"
    capped = SMALL.replace(max_output=10)   # counts 10 characters: 20 000 + 200 + 400 steps
    with pytest.raises(mj.LimitExceeded) as caught:
        mj.ChatTemplate(walks, limits=capped).render([{"role": "user", "content": long_text * 30}])
    assert caught.value.limit == "max_steps"
    assert mj.ChatTemplate(walks, limits=SMALL).render([{"role": "user", "content": long_text * 30}]) == ""


def _least_steps(source, messages, limits):
    # The least max_steps with which `limits` lets the chat render of messages pass (and the render one below).
    low, high = 0, 2_000_000
    while low < high:
        middle = (low + high) // 2
        try:
            mj.ChatTemplate(source, limits=limits.replace(max_steps=middle)).render(messages)
            high = middle
        except mj.LimitExceeded:
            low = middle + 1
    if not low:
        return low, None
    with pytest.raises(mj.LimitExceeded) as caught:
        mj.ChatTemplate(source, limits=limits.replace(max_steps=low - 1)).render(messages)
    return low, caught.value


@pytest.mark.parametrize("steps_per_character, max_output", [(40, 10**9), (3, 10**9), (1, 2_000)])
def test_the_budget_is_max_steps_and_the_allowances_to_the_step(steps_per_character, max_output):
    """The characters are counted only when the render runs out of max_steps + steps_per_message × inputs (it
    is rendered again with the whole budget): it passes and fails exactly where a render given the whole budget
    up front does, and fails at the same place."""
    quiet = WALKS_TEXT.replace("{{ m.content }}", "").replace("{{ c.text }}", "")   # output within max_output
    messages = [dict(m, reasoning_content="thought " * 5, name=None) for m in _conversation(6, 300)]
    fixed, refused_fixed = _least_steps(quiet, messages, mj.Limits(steps_per_message=0, steps_per_character=0))
    limits = mj.Limits(steps_per_message=50, steps_per_character=steps_per_character, max_output=max_output)
    characters = sum(len(m["role"]) + len(m["content"]) + len(m["reasoning_content"]) for m in messages)
    allowance = 50 * len(messages) + steps_per_character * min(characters, max_output)
    least, refused = _least_steps(quiet, messages, limits)
    assert least == max(fixed - allowance, 0)
    if least:
        assert (refused.lineno, refused.limit, str(refused).split("\n")[1:]) == \
            (refused_fixed.lineno, refused_fixed.limit, str(refused_fixed).split("\n")[1:])


def test_the_characters_are_counted_only_by_a_render_that_runs_out(monkeypatch):
    import minijinja_py.chat.template as chat_template
    counts = []
    real = chat_template.message_characters
    monkeypatch.setattr(chat_template, "message_characters", lambda *args: counts.append(args) or real(*args))
    messages = _conversation(40, 1_100)
    mj.ChatTemplate("{% for m in messages %}{{ m.content }}{% endfor %}", limits=SMALL).render(messages)
    assert counts == []
    mj.ChatTemplate(WALKS_TEXT, limits=SMALL).render(messages)
    assert len(counts) == 1


def test_a_render_given_the_allowance_has_the_generation_spans_of_its_own_text():
    """(the render that ran out is thrown away with its spans)"""
    source = ("{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}"
              "{% for c in m.content|selectattr('type', 'equalto', 'text') %}{% endfor %}{% endgeneration %}"
              "{% else %}{{ m.content }}{% endif %}{% endfor %}")
    messages = _conversation(40, 1_100)
    text, spans = mj.ChatTemplate(source, limits=SMALL).render_with_generation_spans(messages)
    whole = mj.Limits(max_steps=10**8, steps_per_message=0, steps_per_character=0)
    assert (text, spans) == mj.ChatTemplate(source, limits=whole).render_with_generation_spans(messages)
    assert len(spans) == 20


def test_the_characters_of_plain_messages_as_the_walk_that_made_them_plain_finds_them():
    """Strings held as values at any depth, each time they are held; keys only inside a tuple key; None values
    dropped; a reasoning field once (before it is aliased); counted up to `most`."""
    text = "t" * 7
    messages = [{"role": "user", "content": [{"type": "text", "text": text}, {"type": "text", "text": text}],
                 ("a", "bc"): 1, "gone": None},
                {"role": "assistant", "reasoning": "why", "content": "x", "tool_calls": [
                    {"function": {"name": "f", "arguments": {"q": ("u", "vw", [text])}}}]}]
    *_, found = prepare_inputs(messages, None, None, {}, mj.Limits())
    expected = len("user" + "text" + text + "text" + text + "a" + "bc" + "assistant" + "why" + "x" + "f" + "u" + "vw"
                   + text)
    assert message_characters(found, 10**9) == expected
    assert message_characters(found, 10) == 10
    assert message_characters(found, 0) == 0
