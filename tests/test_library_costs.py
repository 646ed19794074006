"""The library's fast exits cost what the general path costs: for each, a template renders the same text, and needs
the same step budget, whether the fast exit is taken or not (the general path forced by an undefined class the
fast exits do not know, or by a filter or test that is not the engine's own). The budget a render needs is found
by bisection on max_steps; a render past its limit fails with LimitExceeded('max_steps')."""

import pytest

import minijinja_py as mj


class OwnUndefined(mj.Undefined):
    """Behaves as the default undefined, but is not one of the classes the fast exits decide for."""

    __slots__ = ()


def _render(source, context, max_steps, **options):
    env = mj.Environment(limits=mj.Limits(max_steps=max_steps, steps_per_message=0), **options)
    return env.from_string(source).render(context)


def steps_needed(source, context, **options):
    """(the output, the smallest max_steps the render succeeds with)."""
    output = _render(source, context, 10 ** 8, **options)
    low, high = 0, 10 ** 8   # fails with low, succeeds with high
    while high - low > 1:
        middle = (low + high) // 2
        try:
            _render(source, context, middle, **options)
        except mj.LimitExceeded as exc:
            assert exc.limit == "max_steps"
            low = middle
        else:
            high = middle
    return output, high


SELECTIONS = [
    "{{ s|selectattr('type', 'equalto', 'image')|list }}",
    "{{ s|rejectattr('type', 'equalto', 'image')|list|length }}",
    "{{ s|selectattr('type', 'defined')|list }}|{{ s|selectattr('type', 'undefined')|first }}",
    "{{ s|rejectattr('type', 'undefined')|list }}|{{ s|rejectattr('type', 'defined')|join }}",
    "{% for m in ms %}{{ m.content|selectattr('type', 'equalto', 'image')|list|length }}{% endfor %}",
    "{{ ms|selectattr('role', 'equalto', 'user')|list|length }}|{{ ms|rejectattr('tool', 'defined')|list }}",
]
CONTEXT = {"s": "abc" * 300, "ms": [{"role": "user", "content": "x" * 500},
                                    {"role": "user", "content": [{"type": "image"}, "y" * 40, {"type": "text"}]},
                                    {"role": "tool", "tool": 1, "content": ""}]}


@pytest.mark.parametrize("source", SELECTIONS)
def test_selectattr_decided_in_line_costs_what_the_test_costs(source):
    fast = steps_needed(source, CONTEXT)
    general = steps_needed(source, CONTEXT, undefined=OwnUndefined)
    assert fast == general


@pytest.mark.parametrize("source", [
    "{{ items|select('odd')|list|length }}", "{{ items|reject('equalto', 2)|list|length }}",
    "{{ items|map('string')|join }}", "{{ items|map('abs')|sum }}",
])
def test_a_named_call_costs_steps_for_each_item(source):
    short = steps_needed(source, {"items": list(range(100))})[1]
    long = steps_needed(source, {"items": list(range(200))})[1]
    assert long - short >= 9 * 100   # the named call's 8 and the call's own 1, for each of 100 more items
