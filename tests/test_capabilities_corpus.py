"""Capabilities of every template of the shared corpus (../shared/corpus/templates, 135 real chat templates), the
same probes decided through minijinja_py and through the reference renderer (../shared/oracle/hf_env.py: Jinja2
as transformers configures it, clock frozen at 2026-01-15 09:05:03): identical for every template. Skipped when
the corpus or jinja2 is absent (the package's tests never need ../shared)."""

import datetime
import os
import sys

import pytest

import minijinja_py as mj
from minijinja_py.chat.capabilities import decide

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
CORPUS_TEMPLATES = os.path.join(SHARED, "corpus", "templates")
FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)

NAMES = sorted(f[:-len(".jinja")] for f in os.listdir(CORPUS_TEMPLATES) if f.endswith(".jinja")) \
    if os.path.isdir(CORPUS_TEMPLATES) else []
pytestmark = pytest.mark.skipif(not NAMES, reason="the shared corpus (../shared/corpus/templates) is absent")


@pytest.fixture(scope="module")
def hf_env():
    pytest.importorskip("jinja2")
    sys.path.insert(0, os.path.join(SHARED, "oracle"))
    try:
        import hf_env
    finally:
        sys.path.pop(0)
    previous = hf_env.FIXED_NOW
    hf_env.set_fixed_now(FIXED_NOW)
    yield hf_env
    hf_env.set_fixed_now(previous)


def read_template(name):
    with open(os.path.join(CORPUS_TEMPLATES, name + ".jinja"), encoding="utf-8", newline="") as f:
        return f.read()


def reference_renderers(hf_env, source):
    """(render, render_spans) for capabilities.decide through hf_env: any exception is a probe that raised."""

    def render(messages, **inputs):
        try:
            return hf_env.render_chat(source, messages, **inputs)
        except Exception:  # noqa: BLE001 - a probe that raises counts as "no"
            return None

    def render_spans(messages, **inputs):
        try:
            return hf_env.render_chat_with_generation_indices(source, messages, **inputs)[1]
        except Exception:  # noqa: BLE001
            return None

    return render, render_spans


@pytest.mark.parametrize("name", NAMES)
def test_corpus_template_capabilities_match_the_reference(hf_env, name):
    source = read_template(name)
    try:
        hf_env.compile_template(source)
    except Exception:  # noqa: BLE001 - not valid Jinja (seed__qwen3_flat): no capabilities on either side
        with pytest.raises(mj.TemplateSyntaxError):
            mj.ChatTemplate(source)
        return
    expected = decide(*reference_renderers(hf_env, source))
    assert mj.ChatTemplate(source, now=lambda: FIXED_NOW).capabilities == expected
