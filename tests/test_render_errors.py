"""Errors raised while rendering, compared with Jinja2's: for a template that fails in Jinja2 (as transformers
configures it), minijinja_py raises the same kind of error, with Jinja2's message, located in the same template on
the line Jinja2's traceback gives.

Every snippet of the probe (tests/support/render_errors.py: wrong types, zero, None and undefined values, wrong
arguments to filters, tests, methods and globals, unpacking, macros, callers, loops, includes) is rendered in every
placement (line 1, a later line, a macro, an imported macro, a loop, if and elif branches, an include, a set, call
or filter block, a child template's block), and once spread over several lines; the sweeps give every value of
the context to every filter and test with a few arguments, and call every method of the allowlist wrongly. The differences README.md lists
(Known differences) are recognised by name (render_errors.known); anything else fails. Skipped without jinja2.
"""

import pytest

jinja2 = pytest.importorskip("jinja2")

import render_errors  # noqa: E402

SNIPPETS = render_errors.snippets()


def _unexplained(results):
    return [f"{'/'.join(fields)} {label}\n  {source!r} {templates or ''}\n  Jinja2 {ref}\n  ours   {mine[:4]}"
            for label, source, templates, ref, mine, fields in results
            if fields and render_errors.known(label, ref, mine, fields) is None]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_in_every_placement(snippet):
    results = render_errors.probe(render_errors.combinations([snippet], spreads=(False,)))
    problems = _unexplained(results)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_spread_over_lines(snippet):
    # the same kind and message; the line is the failing part's (README: multi-line-location)
    results = render_errors.probe(render_errors.combinations([snippet], ["line1", "macro"], spreads=(True,)))
    problems = _unexplained(results)
    assert not problems, "\n".join(problems)


SWEEPS = render_errors.sweeps()


@pytest.mark.parametrize("name", SWEEPS)
def test_sweep(name):
    # every value of the context through one filter or test with a few arguments, or a method with wrong ones
    combos = render_errors.combinations(SWEEPS[name], render_errors.SWEPT_PLACEMENTS, spreads=(False,))
    problems = _unexplained(render_errors.probe(combos))
    assert not problems, "\n".join(problems)


def test_the_probe_covers_thousands_of_failing_templates():
    combos = list(render_errors.combinations())
    swept = sum(len(group) for group in SWEEPS.values()) * len(render_errors.SWEPT_PLACEMENTS)
    assert len(combos) > 15_000 and swept > 8_000
    assert len(SNIPPETS) > 500
