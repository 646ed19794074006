"""Property: any soup of bytes and Jinja tokens either renders or fails with a TemplateError — never another
exception — and a render that succeeds never spent more than its step budget (one that runs dry stops there
with LimitExceeded). Run with --hypothesis-show-statistics to see how the examples ended."""

import pytest

import minijinja_py as mj
from minijinja_py.core import state as base

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TOKENS = [
    "{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{%+", "if", "endif", "elif", "else", "for",
    "in", "endfor", "set", "endset", "=", "macro", "endmacro", "call", "endcall", "filter", "endfilter", "raw",
    "endraw", "with", "endwith", "break", "continue", "recursive", "do", "generation", "endgeneration", "(", ")",
    "[", "]", "{", "}", "|", ".", ",", ":", "~", "+", "-", "*", "**", "/", "//", "%", "==", "!=", "<", ">", "<=",
    "not", "and", "or", "is", "defined", "none", "true", "x", "y", "ns", "ns.a", "loop", "loop.index", "loop(y)",
    "range", "range(9)", "namespace", "namespace()", "lipsum", "dict", "cycler", "joiner", "caller", "caller()",
    "self", "'a'", '"b"', "'%s'", "'{}'", "'{0.__class__}'", "1", "2.5", "10**9", "2**64", "-1", "__class__",
    "_x", "upper", "join", "tojson", "pprint", "format", "attr", "map", "select", "sort", "unique", "batch",
    "indent", "center", "wordwrap", "replace", "list", "string", "length", "sum", "x * 99", "y * 99", "messages",
    "raise_exception", " ", "  ", "\n", "\t", "\r\n", "\x00", "\udcff", "\u202e", "é", "中",
]
LIMITS = mj.Limits(max_template_size=4000, max_steps=20_000, max_string=50_000, max_items=5_000,
                   max_output=50_000, max_call_depth=20, max_int_bits=2_000, max_range=1_000, max_data_depth=30)
CONTEXT = {"x": "hi", "y": [1, 2, 3], "messages": [{"role": "user", "content": "hi"}], "ns": {"a": 1}}

_pieces = st.lists(
    st.one_of(st.sampled_from(TOKENS), st.binary(max_size=6).map(lambda b: b.decode("utf-8", "surrogateescape"))),
    max_size=12,
).map(" ".join)
# raw soup, and soup shaped into tags ({{ ... }}, {% ... %}) so that more of it gets past the parser
_chunk = st.one_of(
    _pieces,
    _pieces.map(lambda p: "{{ " + p + " }}"),
    st.tuples(st.sampled_from(["if", "for x in", "set x =", "macro m(a)", "call m(1)", "filter upper", "with",
                               "elif", "else", "endif", "endfor", "endmacro", "endcall", "endfilter", "endwith",
                               "set ns.a =", "for x in y recursive", "print"]), _pieces)
    .map(lambda t: "{% " + t[0] + " " + t[1] + " %}"),
)
soup = st.lists(_chunk, max_size=10).map("".join)


@pytest.fixture(scope="module")
def states():
    """Every RenderState made while the test runs, to read how much fuel each render spent."""
    made = []
    original = base.RenderState.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)
    base.RenderState.__init__ = init
    yield made
    base.RenderState.__init__ = original


ENVIRONMENTS = [
    mj.chat_environment(limits=LIMITS),
    mj.Environment(limits=LIMITS, extensions=("do", "loopcontrols"), autoescape=True),
]


@settings(max_examples=1000, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(source=soup, which=st.integers(0, len(ENVIRONMENTS) - 1))
def test_soup_fails_only_with_template_errors(states, source, which):
    env = ENVIRONMENTS[which]
    states.clear()
    try:
        env.from_string(source).render(CONTEXT)
    except mj.TemplateError as exc:
        event(f"{type(exc).__name__} {getattr(exc, 'limit', '') or ''}".strip())
    else:
        event("rendered")
        assert all(rs.fuel >= 0 for rs in states), "a render that succeeded spent more than its budget"
