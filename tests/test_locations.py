"""A node's location as compiled closures keep it (compile/context.place packs it in an int, core/errors.location
unpacks it) → the same line, column and end as the Span it came from, and the Span kept past what 20 bits hold."""

import pytest

from minijinja_py import Limits, TemplateRuntimeError, TemplateSyntaxError, chat_environment
from minijinja_py.compile.context import place
from minijinja_py.core.errors import location
from minijinja_py.syntax.nodes import Span


@pytest.mark.parametrize("span", [Span((1, 1, 0, 1, 1, 2)), Span((7, 13, 50, 60, 9, 4)),
                                  Span((0, 0, 0, 0, 0, 0)), Span((300_000, 0xFFFFF, 0, 1, 0xFFFFF, 0xFFFFF))])
def test_packed_location_round_trips(span):
    packed = place(span)
    assert packed.__class__ is int and place(packed) is packed
    assert location(packed) == location(span) == (span.line, span.col, (span.end_line, span.end_col))


@pytest.mark.parametrize("span", [Span((1, 0x100000, 0, 1, 1, 2)), Span((1, 1, 0, 1, 0x100000, 2)),
                                  Span((1, 1, 0, 1, 1, 0x100000))])
def test_a_position_past_20_bits_stays_a_span(span):
    assert place(span) is span
    assert location(span) == (span.line, span.col, (span.end_line, span.end_col))


def test_a_long_line_is_located_past_20_bits():
    # a column past 2**20: the compiled closure keeps the Span, the error its exact place (as on main: the
    # division, after the spaces and "{{ ")
    env = chat_environment(limits=Limits(max_template_size=3_000_000))
    source = " " * 0x100010 + "{{ 1 // x }}"
    with pytest.raises(TemplateRuntimeError) as info:
        env.from_string(source).render(x=0)
    assert (info.value.lineno, info.value.colno) == (1, 0x100010 + 4)


def test_syntax_and_runtime_errors_keep_their_carets():
    env = chat_environment()
    with pytest.raises(TemplateRuntimeError) as info:
        env.from_string("a\n  {{ 1 // x }}").render(x=0)
    assert (info.value.lineno, info.value.colno) == (2, 6)
    with pytest.raises(TemplateSyntaxError) as info:
        env.from_string("{% for %}")
    assert info.value.lineno == 1
