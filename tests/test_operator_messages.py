"""An operation that fails says what Jinja2 says for it (the message of the Python error its generated code meets):
every binary and unary operator and comparison, `in`, subscripts and calls, over operands of every plain type,
and the filters and methods whose messages are their own (`'a' in 1` is "argument of type 'int' is not
iterable", `1|indent` fails "for +=", `'x'.format_map()`, `1|abs(2)` and `'a'|urlencode(1)` count arguments as Jinja2's do).
Checked against Jinja2 as transformers configures it."""

import pytest

pytest.importorskip("jinja2")
from differential_ref import mj_env, reference_env  # noqa: E402

VALUES = {"i": 1, "f": 1.5, "s": "a", "n": None, "l": [1], "d": {"a": 1}, "t": (1,), "b": True, "z": 0,
          "ml": [1, "a"], "md": {"a": 1, 1: 2}, "nested": [[1], ["a"]]}
NAMES = ["i", "f", "s", "n", "l", "d", "t", "b", "z", "nope"]
OPERATORS = ["in", "not in", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%", "**"]
FILTERS = ["int", "float", "abs", "abs(1)", "length", "first", "last", "round", "sum", "join", "list", "sort", "max",
           "upper", "count", "reverse", "batch(2)|list", "items", "dictsort", "trim", "center(3)", "indent",
           "wordcount", "string", "tojson", "float(1)|indent"]
OTHERS = [
    "{{ ml|sort }}", "{{ ml|max }}", "{{ ml|sum }}", "{{ md|dictsort }}", "{{ nested|sort }}", "{{ s.split(1) }}",
    "{{ l.index(2) }}", "{{ '%d' % s }}", "{{ '%s %s' % s }}", "{{ '{}'.format() }}", "{{ '{0}{1}'.format(1) }}",
    "{{ '{a}'.format(1) }}", "{{ range(s) }}", "{{ range(1, 2, 0) }}", "{{ l|join(1) }}", "{{ s|int(base=1) }}",
    "{{ s.center(s) }}", "{{ s.replace(1, 2) }}", "{{ s.format_map() }}", "{{ s.format_map(1, 2) }}",
    "{{ s.format_map(a=1) }}", "{{ s * s }}", "{{ l + s }}", "{{ d + d }}", "{{ 1 // 0 }}", "{{ 1 % 0 }}",
    "{{ 1.0 / 0 }}", "{{ 0 ** -1 }}", "{{ 10.0 ** 400 }}", "{{ i is divisibleby(0) }}", "{{ s is odd }}",
    "{{ s[1:2:0] }}", "{{ l[s:] }}",
    # too many arguments to filters that take the render state where Jinja2's take no context (the state not counted)
    "{{ s|urlencode(1) }}", "{{ s|indent(1, 2, 3, 4) }}", "{{ i|int(1, 2, 3) }}", "{{ f|round(1, 2, 3) }}",
    "{{ l|reverse(1) }}", "{{ d|dictsort(1, 2, 3, 4) }}", "{{ l|batch(1, 2, 3) }}", "{{ l|batch }}",
    "{{ i|pprint(1) }}", "{{ s|title(2) }}", "{{ s|center(1, 2) }}", "{{ s|tojson(1, 2) }}",
]


def _sources():
    yield from (f"{{{{ {a} {op} {b} }}}}" for a in NAMES for op in OPERATORS for b in NAMES)
    yield from (f"{{{{ {op}{a} }}}}" for op in ("-", "+") for a in NAMES)
    yield from (f"{{{{ {a}[{b}] }}}}" for a in NAMES for b in NAMES)
    yield from (f"{{{{ {a}(1) }}}}" for a in NAMES)
    yield from (f"{{{{ {a}|{f} }}}}" for a in NAMES for f in FILTERS)
    yield from OTHERS


def _message(env, source):
    try:
        env.from_string(source).render(VALUES)
    except Exception as exc:  # noqa: BLE001 - the message is what is compared
        return getattr(exc, "message", None) or str(exc)
    return None


def test_failing_operations_say_what_jinja2_says():
    compared, different = 0, []
    for source in _sources():
        theirs = _message(reference_env(), source)
        if theirs is None:
            continue
        compared += 1
        ours = _message(mj_env(), source)
        if ours != theirs:
            different.append((source, ours, theirs))
    assert compared > 500
    assert different == []
