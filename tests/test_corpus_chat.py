"""Acceptance on the shared corpus (skipped without ../shared): apply_chat_template equals every golden under
corpus_score.py's rules; continue_final_message equals the reference on every conversation ending with an
assistant turn; generation spans equal the reference's on every template with {% generation %}."""

import datetime
import json
import os
import re
import sys

import pytest

import minijinja_py as mj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
CORPUS = os.path.join(SHARED, "corpus")
FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)  # corpus_score.py's clock

pytestmark = pytest.mark.skipif(not os.path.isdir(CORPUS), reason="../shared/corpus is not here")


def _shared_module(folder, name):
    sys.path.insert(0, os.path.join(SHARED, folder))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def _templates():
    folder = os.path.join(CORPUS, "templates")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jinja"):
            with open(os.path.join(folder, name), encoding="utf-8", newline="") as f:
                yield name[:-len(".jinja")], f.read()


def _contexts():
    folder = os.path.join(CORPUS, "contexts")
    contexts = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            contexts[name[:-len(".json")]] = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    return contexts


def _arguments(context):
    context = dict(context)
    return context.pop("messages"), context


def test_apply_chat_template_equals_every_golden():
    corpus_score = _shared_module("tools", "corpus_score")
    contexts = _contexts()
    failures, compared = [], 0
    for name, source in _templates():
        for cname, context in contexts.items():
            base = os.path.join(CORPUS, "goldens", f"{name}__{cname}")
            if os.path.exists(base + ".txt"):
                with open(base + ".txt", encoding="utf-8", newline="") as f:
                    text, error = f.read(), None
            elif os.path.exists(base + ".error"):
                with open(base + ".error", encoding="utf-8", newline="") as f:
                    text, error = None, f.read()
            else:
                continue
            messages, kwargs = _arguments(context)
            compared += 1
            ok, detail = corpus_score.check(
                mj, lambda: mj.apply_chat_template(source, messages, now=FIXED_NOW, **kwargs), text, error)
            if not ok:
                failures.append(f"{name} x {cname}: {detail}")
    print(f"\napply_chat_template vs goldens: {compared} pairs, {len(failures)} failures")   # figures (pytest -s)
    assert compared == 1620
    assert failures == []


def _outcome(render):
    try:
        return "text", render()
    except Exception as exc:  # noqa: BLE001 - compared by kind below
        return "error", exc


def _same_outcome(mine, reference):
    if reference[0] == "text":
        return mine == reference
    if mine[0] != "error" or not isinstance(mine[1], mj.TemplateError):
        return False
    expected = reference[1]
    kind = type(expected).__name__
    if kind in ("TemplateSyntaxError", "UndefinedError", "SecurityError", "TemplateRuntimeError"):
        return isinstance(mine[1], getattr(mj, kind))
    if kind == "TemplateError":
        return mine[1].message == getattr(expected, "message", str(expected))
    return isinstance(mine[1], type(expected)) or any(isinstance(mine[1], base) for base in type(expected).__mro__
                                                      if base.__module__ == "builtins" and base is not Exception
                                                      and base is not BaseException and base is not object)


def _ending_with_assistant(contexts):
    """Every corpus conversation that ends with an assistant turn, and every other one cut after its last
    assistant turn."""
    for cname, context in contexts.items():
        messages, kwargs = _arguments(context)
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
        if last is not None:
            kwargs["add_generation_prompt"] = False
            yield cname, messages[:last + 1], kwargs


def test_continue_final_message_equals_the_reference():
    pytest.importorskip("jinja2")
    hf_env = _shared_module("oracle", "hf_env")
    hf_env.set_fixed_now(FIXED_NOW)
    conversations = list(_ending_with_assistant(_contexts()))
    failures, compared, texts = [], 0, 0
    for name, source in _templates():
        for cname, messages, kwargs in conversations:
            reference = _outcome(lambda: hf_env.render_chat(source, messages, continue_final_message=True, **kwargs))
            mine = _outcome(lambda: mj.apply_chat_template(source, messages, continue_final_message=True,
                                                           now=FIXED_NOW, **kwargs))
            compared += 1
            texts += reference[0] == "text"
            if not _same_outcome(mine, reference):
                failures.append(f"{name} x {cname}: {str(mine)[:200]} | {str(reference)[:200]}")
    print(f"\ncontinue_final_message vs the reference: {compared} pairs ({texts} prompts, the rest errors in "
          f"both), {len(failures)} failures")
    assert compared >= 135 * 4 and texts > compared // 2
    assert failures == []


_GENERATION = re.compile(r"\{%-?\s*generation\s*-?%\}")


def test_generation_spans_equal_the_reference():
    pytest.importorskip("jinja2")
    hf_env = _shared_module("oracle", "hf_env")
    hf_env.set_fixed_now(FIXED_NOW)
    templates = [(name, source) for name, source in _templates() if _GENERATION.search(source)]
    assert templates
    failures, with_spans = [], 0
    for name, source in templates:
        ct = mj.ChatTemplate(source, now=FIXED_NOW)
        for cname, context in _contexts().items():
            messages, kwargs = _arguments(context)
            reference = _outcome(lambda: hf_env.render_chat_with_generation_indices(source, messages, **kwargs))
            mine = _outcome(lambda: ct.render_with_generation_spans(messages, **kwargs))
            if reference[0] == "text":
                reference = ("text", (reference[1][0], [tuple(span) for span in reference[1][1]]))
                with_spans += bool(reference[1][1])
            if not _same_outcome(mine, reference):
                failures.append(f"{name} x {cname}: {str(mine)[:200]} | {str(reference)[:200]}")
    print(f"\ngeneration spans vs the reference: {len(templates)} templates with {{% generation %}}, "
          f"{len(templates) * len(_contexts())} pairs ({with_spans} with spans), {len(failures)} failures")
    assert with_spans > 0
    assert failures == []
