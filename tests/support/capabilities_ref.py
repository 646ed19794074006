"""The reference side of the capabilities tests: the probes of minijinja_py.capabilities.decide rendered by Jinja2
as transformers' apply_chat_template renders them.

Imports jinja2 (test_capabilities.py imports this module only after pytest.importorskip("jinja2")). The
environment is differential_ref's (an ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks, loop
controls, transformers' tojson, raise_exception, strftime_now at the reference clock 2026-01-15 09:05:03, `dict`,
`namespace`), except that its {% generation %} extension also records where each block's output lands, as
transformers' return_assistant_tokens_mask does, so that generation_tag can be decided. Inputs are processed as
transformers 5 processes them: message keys whose value is None are dropped, and a message with reasoning
(reasoning_content, thinking or reasoning) gets it under both "thinking" and "reasoning_content".
"""

from contextvars import ContextVar

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from differential_ref import _DictGlobal, _Namespace, raise_exception, strftime_now, tojson

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
# (output chunks yielded so far, spans found) while a render_spans() is running
_recording = ContextVar("capabilities_ref_recording", default=None)


class _TrackedGeneration(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %}: renders its body and, when recording, notes its character span."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render_body"), [], [], body).set_lineno(lineno)

    def _render_body(self, caller):
        text = caller()
        recording = _recording.get()
        if recording is not None:
            chunks, spans = recording
            start = sum(len(chunk) for chunk in chunks)
            spans.append((start, start + len(text)))
        return text


def _environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                       extensions=[_TrackedGeneration, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = _DictGlobal()
    env.globals["namespace"] = _Namespace
    return env


def _message_as_transformers_passes_it(message):
    message = {key: value for key, value in message.items() if value is not None}
    reasoning = next((message[f] for f in _REASONING_FIELDS if message.get(f) is not None), None)
    if reasoning is not None:
        message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
    return message


def _context(messages, tools, documents, add_generation_prompt, variables):
    return dict(messages=[_message_as_transformers_passes_it(m) for m in messages], tools=tools,
                documents=documents, add_generation_prompt=add_generation_prompt, **variables)


def compile_reference(source):
    """The Jinja2 template, or the exception compiling it raised."""
    try:
        return _environment().from_string(source)
    except Exception as exc:  # noqa: BLE001 - the reference's error is the answer
        return exc


def reference_renderers(template):
    """(render, render_spans) for capabilities.decide over a compiled Jinja2 template: any exception is None."""

    def render(messages, tools=None, documents=None, add_generation_prompt=False, **variables):
        try:
            return template.render(_context(messages, tools, documents, add_generation_prompt, variables))
        except Exception:  # noqa: BLE001 - a probe that raises counts as "no"
            return None

    def render_spans(messages, tools=None, documents=None, add_generation_prompt=False, **variables):
        chunks, spans = [], []
        token = _recording.set((chunks, spans))
        try:
            for chunk in template.generate(_context(messages, tools, documents, add_generation_prompt, variables)):
                chunks.append(chunk)
            return spans
        except Exception:  # noqa: BLE001
            return None
        finally:
            _recording.reset(token)

    return render, render_spans
