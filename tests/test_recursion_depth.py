"""Deep template recursion against Jinja2: a recursive macro (or loop) renders as deep as Jinja2 renders it under the
same Python recursion limit, up to minijinja_py's own bound (Limits.max_call_depth), and the same text.

Python's recursion limit counts Python frames: each level of a template's recursion costs minijinja_py the frames
of its interpreter (a macro call, a loop, an if, the statements around the call...), Jinja2 those of the code it
generates. Where minijinja_py spent more, a recursive macro over nested data (a tool call's arguments ~100 deep
through Gemma's format_argument) stopped on the recursion limit where Jinja2 rendered (README, Known differences).
The shapes are in support/recursion_shapes.py; both sides are measured from the same Python stack depth.
"""

import platform

import pytest

pytest.importorskip("jinja2")

import recursion_shapes as shapes  # noqa: E402

pytestmark = pytest.mark.skipif(platform.python_implementation() != "CPython",
                                reason="frames against the recursion limit are CPython's count")

# shapes whose levels still cost minijinja_py too many frames to reach max_call_depth under the default limit
_STILL_SHORT = {
    "map_join": "`{% set parts = parts + [f(i)] %}` (10 frames a level): the `+` chain reads its second operand two "
                "frames deep",
}


_CASES = [pytest.param(source, make_data, id=name, marks=[pytest.mark.xfail(reason=_STILL_SHORT[name], strict=True)]
                        if name in _STILL_SHORT else [])
          for name, source, make_data in shapes.SHAPES]


@pytest.mark.parametrize("source,make_data", _CASES)
def test_renders_as_deep_as_jinja2(source, make_data):
    reference = shapes.jinja2_template(source)
    mine = shapes.mj_template(source)
    jinja2_depth, _ = shapes.max_depth(reference, make_data, 400)
    depth, stop = shapes.max_depth(mine, make_data, 400)
    # deeper than minijinja_py renders, either its design limit stops it or Jinja2 fails there too
    assert stop == "max_call_depth" or depth >= jinja2_depth, (depth, stop, jinja2_depth)
    both = min(depth, jinja2_depth)
    assert mine.render(data=make_data(both)) == reference.render(data=make_data(both))


def test_recursion_limit_is_a_limit_exceeded():
    # past the recursion limit (with max_call_depth out of the way), a LimitExceeded as before, where Jinja2 raises
    # RecursionError
    source = shapes.SHAPES[0][1]
    mine = shapes.mj_template(source, roomy=True)
    with pytest.raises(RecursionError):
        shapes.jinja2_template(source).render(data=2000)
    assert shapes.renders(mine, 2000) == "recursion"


def _from_deeper(frames, render):
    # render() called `frames` Python frames deeper than here (a caller rendering from deep in its own stack)
    return render() if frames == 0 else _from_deeper(frames - 1, render)


def test_gemma_arguments_99_deep_from_a_deep_caller():
    # Gemma's format_argument over a tool call's arguments nested 99 deep (max_call_depth allows 99 calls under the
    # top one) renders as Jinja2 renders it with 150 frames of the caller's own stack below the render
    source, make_data = next((source, make_data) for name, source, make_data in shapes.SHAPES if name == "gemma")
    data = make_data(99)
    expected = _from_deeper(150, lambda: shapes.jinja2_template(source).render(data=data))
    assert _from_deeper(150, lambda: shapes.mj_template(source).render(data=data)) == expected
