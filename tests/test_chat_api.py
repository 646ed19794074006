"""The chat layer's API: apply_chat_template, named templates, transformers-only arguments, now=, pickling and
deep copies of ChatTemplate and of every error, and a ChatTemplate in a spawned process pool."""

import copy
import datetime
import json
import multiprocessing
import pickle

import pytest

import minijinja_py as mj
from minijinja_py.core import errors
from pool_workers import MESSAGES, raise_in_worker, render_in_worker, render_or_error

SOURCE = ("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
          "{% if add_generation_prompt %}<|assistant|>{% endif %}{{ strftime_now('%Y-%m-%d') }}")
NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)


def test_apply_chat_template_equals_chat_template_render():
    ct = mj.ChatTemplate(SOURCE, now=NOW)
    expected = ct.render(MESSAGES, add_generation_prompt=True, bos_token="<s>")
    assert expected == "<s><|user|>Hi\n<|assistant|>Hello\n<|assistant|>2026-01-15"
    assert mj.apply_chat_template(SOURCE, MESSAGES, add_generation_prompt=True, bos_token="<s>", now=NOW) == expected
    assert mj.apply_chat_template(ct, MESSAGES, add_generation_prompt=True, bos_token="<s>") == expected


def test_a_list_of_conversations_gives_a_list_of_prompts():
    second = [{"role": "user", "content": "Bye"}]
    prompts = mj.apply_chat_template(SOURCE, [MESSAGES, second], now=NOW)
    assert prompts == [mj.apply_chat_template(SOURCE, MESSAGES, now=NOW),
                       mj.apply_chat_template(SOURCE, second, now=NOW)]


def test_source_is_compiled_once_and_the_cache_is_bounded():
    from minijinja_py.chat import template as chat
    first = chat._cached(SOURCE, NOW, None, None, None)
    assert chat._cached(SOURCE, NOW, None, None, None) is first
    for i in range(chat._CACHE_SIZE + 5):
        mj.apply_chat_template(f"{{{{ messages[0].content }}}}{i}", MESSAGES)
    assert len(chat._cache) == chat._CACHE_SIZE


@pytest.mark.parametrize("argument, value", [
    ("tokenize", True), ("return_tensors", "pt"), ("return_dict", True), ("padding", True), ("truncation", True),
    ("max_length", 512), ("tokenizer_kwargs", {"add_special_tokens": False}), ("return_assistant_tokens_mask", True),
])
def test_tokenizer_only_arguments_are_refused(argument, value):
    with pytest.raises(mj.TemplateError, match=f"{argument}=.* is not supported") as info:
        mj.apply_chat_template(SOURCE, MESSAGES, **{argument: value})
    assert isinstance(info.value, TypeError)


def test_tokenizer_only_arguments_left_unset_are_dropped():
    source = "{{ tokenize is defined }}"
    assert mj.apply_chat_template(source, MESSAGES, tokenize=False, return_dict=False, padding=False,
                                  return_tensors=None) == "False"


def test_named_templates_in_memory():
    ct = mj.ChatTemplate({"default": "D", "tool_use": "T{{ tools | length }}", "rag": "R"})
    assert ct.render(MESSAGES) == "D"
    assert ct.render(MESSAGES, tools=[]) == "T0"  # transformers: tools given (not None) picks tool_use
    assert ct.render(MESSAGES, tools=[], chat_template="rag") == "R"
    assert mj.apply_chat_template({"default": "D", "tool_use": "T"}, MESSAGES, tools=[{"type": "function"}]) == "T"
    no_default = mj.ChatTemplate({"a": "A", "b": "B"})
    with pytest.raises(mj.TemplateError, match=r"no default specified.*\['a', 'b'\]"):
        no_default.render(MESSAGES)
    single = mj.ChatTemplate("S")
    assert single.render(MESSAGES, chat_template="default") == "S"
    with pytest.raises(mj.TemplateError, match="no chat template named 'tool_use'; this template has a single"):
        single.render(MESSAGES, chat_template="tool_use")


def test_named_templates_choose_the_source_continue_final_message_looks_at():
    ct = mj.ChatTemplate({"default": "{{ messages[-1].content }}", "plain": "{{ messages[-1].text }}"})
    prefill = MESSAGES[:1] + [{"role": "assistant", "content": "Hel"}]
    assert ct.render(prefill, continue_final_message=True) == "Hel"
    with pytest.raises(mj.TemplateError, match="not an accepted field"):
        ct.render(prefill, continue_final_message=True, chat_template="plain")


def test_now_takes_a_datetime_or_a_callable():
    by_value = mj.ChatTemplate("{{ strftime_now('%H:%M') }}", now=NOW)
    by_callable = mj.ChatTemplate("{{ strftime_now('%H:%M') }}", now=lambda: NOW)
    assert by_value.render(MESSAGES) == by_callable.render(MESSAGES) == "09:05"
    with pytest.raises(mj.TemplateError, match="now must be a datetime"):
        mj.ChatTemplate("x", now="2026-01-15")


# ------------------------------------------------------------------------------------------------- pickling
def test_chat_template_pickles_and_deep_copies():
    ct = mj.ChatTemplate({"default": SOURCE, "tool_use": "T"}, now=NOW, limits=mj.Limits(max_steps=10_000),
                         name="model", special_tokens={"bos_token": "<s>"})
    expected = ct.render(MESSAGES, add_generation_prompt=True)
    for clone in (pickle.loads(pickle.dumps(ct)), copy.deepcopy(ct), copy.copy(ct)):
        assert clone.render(MESSAGES, add_generation_prompt=True) == expected
        assert clone.render(MESSAGES, tools=[]) == "T"
        assert clone.limits == ct.limits and clone.special_tokens == ct.special_tokens and clone.name == "model"


def test_unpickling_compiles_once_per_process():
    data = pickle.dumps(mj.ChatTemplate(SOURCE, now=NOW))
    assert pickle.loads(data) is pickle.loads(data)


def _error_samples():
    """One instance of every error class, each with a message and a location."""
    samples = [cls("message", 3, 4) for cls in (
        mj.TemplateError, mj.TemplateSyntaxError, mj.TemplateAssertionError, errors.python_syntax_twin(),
        mj.TemplateRuntimeError, mj.UndefinedError, mj.SecurityError, mj.FilterArgumentError,
        mj.DocstringParsingException, mj.TypeHintParsingException)]
    samples.append(mj.LimitExceeded("message", 3, 4, limit="max_steps", value=10))
    samples.append(mj.TemplateLoadError("path: message", path="path", lineno=3, colno=4))
    samples.append(errors.limit_twin(OverflowError)("message", 3, 4, limit="max_range", value=5))
    for builtin in (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError, AttributeError,
                    LookupError, ArithmeticError, StopIteration, NotImplementedError, UnicodeError, OSError):
        samples.append(errors.as_template_error(builtin("message"), 3, 4))
    samples.append(errors.as_template_error(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), 3, 4))
    return samples


@pytest.mark.parametrize("error", _error_samples(), ids=lambda e: type(e).__name__)
def test_every_error_class_pickles(error):
    for clone in (pickle.loads(pickle.dumps(error)), copy.deepcopy(error)):
        assert type(clone) is type(error)
        assert (clone.message, clone.lineno, clone.colno, str(clone)) == \
               (error.message, error.lineno, error.colno, str(error))


def test_errors_from_real_renders_pickle():
    cases = ["{{ x.y.z }}", "{{ 1 / 0 }}", "{{ [].__class__ }}", "{{ raise_exception('no') }}",
             "{{ 'a' + 1 }}", "{{ {}.update }}", "{{ range(10**6) }}", "{{ foo.bar() }}"]
    for source in cases:
        with pytest.raises(mj.TemplateError) as info:
            mj.ChatTemplate(source).render(MESSAGES)
        clone = pickle.loads(pickle.dumps(info.value))
        assert type(clone) is type(info.value) and str(clone) == str(info.value), source


# ------------------------------------------------------------------------------------------- a spawned pool
def test_a_chat_template_in_a_spawn_pool_renders_the_same():
    ct = mj.ChatTemplate(SOURCE, now=NOW, special_tokens={"bos_token": "<s>"})
    expected = ct.render(MESSAGES, add_generation_prompt=True)
    failing = mj.ChatTemplate("{% for m in messages %}{{ m.content / 2 }}{% endfor %}")
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.map(render_in_worker, [ct] * 4) == [expected] * 4
        with pytest.raises(mj.TemplateError) as local:
            failing.render(MESSAGES)
        prompt, remote = pool.apply(render_or_error, (failing, MESSAGES))
        assert prompt is None
        assert type(remote) is type(local.value)
        assert (remote.message, remote.lineno, remote.colno) == (local.value.message, local.value.lineno,
                                                                 local.value.colno)
        with pytest.raises(type(local.value)) as raised:  # raised in the worker, re-raised here by the pool
            pool.apply(raise_in_worker, (failing, MESSAGES))
        assert raised.value.message == local.value.message and isinstance(raised.value, TypeError)


def test_incompatible_prefill_and_generation_prompt_fail_before_the_template_compiles():
    # transformers checks the two flags before it compiles the template: a template that does not compile gives the
    # ValueError (chat campaign, tools/chat_campaign.py --oracle: seeds 80000443, 80001068)
    for source in ("{{ messages[0].content }}", "{% if %}broken"):
        with pytest.raises(ValueError, match="not compatible") as info:
            mj.apply_chat_template(source, [{"role": "user", "content": "hi"}], add_generation_prompt=True,
                                   continue_final_message=True)
        assert isinstance(info.value, mj.TemplateError)


def test_tojson_odd_separators_fail_where_this_pythons_json_does():
    """Separators that are not strings, no indent: CPython's C encoder refuses them before it encodes anything, even
    a number; PyPy's json (no C encoder) never uses them for a number. transformers' tojson is json.dumps, so the
    reference is this Python's json (a data-driven case cannot hold both; tojson_chat_*odd_separators* hold the
    rest)."""
    template = mj.chat_environment().from_string("{{ 1|tojson(separators=[none, none]) }}")
    try:
        expected = json.dumps(1, ensure_ascii=False, separators=[None, None])
    except TypeError as error:
        with pytest.raises(TypeError) as info:
            template.render()
        assert isinstance(info.value, mj.TemplateError) and str(error) in str(info.value)
    else:
        assert template.render() == expected
