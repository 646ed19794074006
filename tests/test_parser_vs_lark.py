"""minijinja_py's LALR(1) driver and contextual lexer (lalr.py) against Lark's own parser built from the same
grammar (tests/support/lark_reference.py): token for token and tree for tree (spans included), for all four
(trim_blocks, lstrip_blocks) option sets, and the same outcome when the source is bad (where the parse stopped,
the expected terminals, the parser's value stack, and the TemplateSyntaxError made of it; or what a callback
raised).

Templates: every case file, the seed templates, the differential generator's templates, the shared corpus (when
it is there), and random ones from hypothesis (token soup, and templates drawn from the grammar)."""

import glob
import hashlib
import io
import os
import pickle

import pytest

from minijinja_py.syntax import parse as syntax

pytest.importorskip("lark")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import casefiles  # noqa: E402
import lark_reference as ref  # noqa: E402
from differential_gen import Chooser, RandomChooser, generate_case  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "templates")
OPTION_SETS = [(tb, lb) for tb in (True, False) for lb in (True, False)]
MAX_NESTING = 100  # the default Limits().max_nesting


def _read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


# Lark's outcome does not depend on our lexers' form: the cold and warm runs of a test parse the same sources, and
# the second one compares ours with the digest of what Lark gave the first time ({digest of source and options:
# digest of Lark's outcome}). Equal digests are equal outcomes; any other digest has Lark parse again, and the
# outcomes are compared in full.
_LARK_OUTCOMES = {}


def _digest(value):
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=4)
    pickler.fast = True   # no memo: the same bytes whichever parts of the value are shared objects
    try:
        pickler.dump(value)
    except Exception:  # noqa: BLE001 - a value pickle cannot take: no digest, the outcomes are compared in full
        return None
    return hashlib.sha256(out.getvalue()).digest()


def _differences(sources, option_sets=OPTION_SETS):
    """(name, options, ours, Lark's) for each source and option set where the two parsers disagree."""
    found = []
    for name, source in sources:
        source = syntax.normalize_newlines(source)
        for options in option_sets:
            ours = ref.outcome(ref.our_parse, source, *options, MAX_NESTING)
            key, mine = _digest((source, options)), _digest(ours)
            if mine is not None and _LARK_OUTCOMES.get(key) == mine:
                continue
            theirs = ref.outcome(ref.lark_parse, source, *options, MAX_NESTING)
            _LARK_OUTCOMES[key] = _digest(theirs)
            if ours != theirs:
                found.append((name, options, ours, theirs))
    return found


def _assert_same(sources):
    found = _differences(sources)
    if found:
        name, options, ours, theirs = found[0]
        detail = next(((i, a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), (None, ours, theirs))
        pytest.fail(f"{len(found)} differences; first: {name} trim_blocks, lstrip_blocks={options}\n"
                    f"part {detail[0]}\n ours: {detail[1]!r:.3000}\nLark's: {detail[2]!r:.3000}")


def _case_sources():
    for path in sorted(glob.glob(os.path.join(casefiles.CASES_DIR, "**", "*.txt"), recursive=True)):
        yield os.path.relpath(path, casefiles.CASES_DIR), casefiles.read_case(path)[2]


@pytest.fixture(params=["cold", "warm"])
def lexer_form(request, monkeypatch):
    """Fresh parsers whose lexers are as in a fresh process (tag families read natively, a state's terminals
    tried in turn) or as after NATIVE_FAMILY_TAGS tags (the families' regexps, one regexp per state and
    character): both must lex as Lark does."""
    from minijinja_py.syntax import lexer as lexing
    monkeypatch.setattr(syntax, "_parsers", {})
    monkeypatch.setattr(lexing, "NATIVE_FAMILY_TAGS", 10 ** 9 if request.param == "cold" else 1)
    return request.param


def test_case_files(lexer_form):
    sources = list(_case_sources())
    assert len(sources) > 500
    _assert_same(sources)


def test_seed_templates():
    paths = sorted(glob.glob(os.path.join(ROOT, "templates", "*.jinja")))
    assert paths
    _assert_same((os.path.basename(p), _read(p)) for p in paths)


def test_differential_generator_templates():
    _assert_same((f"seed {seed}", generate_case(RandomChooser(seed)).source) for seed in range(300))


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="the shared corpus (../shared/corpus) is not there")
def test_corpus_templates(lexer_form):
    paths = sorted(glob.glob(os.path.join(CORPUS, "*.jinja")))
    assert len(paths) > 100
    _assert_same((os.path.basename(p), _read(p)) for p in paths)


def test_limits_and_odd_input(lexer_form):
    """The nesting limit, the braces postlexer, ignored whitespace at the edges, unreadable text."""
    sources = [
        "", " ", "\n", "{{", "}}", "{%", "%}", "{#", "x{", "{{ x }}}", "{{ {'a': {'b': 1}} }}", "{{ {}}}",
        "{{ " + "(" * 101 + "x" + ")" * 101 + " }}", "{{ " + "[" * 100 + "]" * 100 + " }}",
        "{{ x }}\n", "{% if x %}\n{% endif %}\n  ", "\t{% raw %}\n {{ }} {% endraw %}\n", "{{ 'a' 'b' \"c\" }}",
        "{{ x|f(1)(2) }}{{ x is t(1)(2) }}", "{{ a.0.b[1:2:3] }}", "{{ \x00 }}", "{{ é }}", "{{ a² }}",
        "{% set a, = 1 %}", "{% set a, %}x{% endset %}", "{% macro m(a, a) %}{% endmacro %}", "{{ f(a=1, a=2) }}",
        "{% for a, in x %}{% endfor %}", "{% block b %}{% endblock c %}", "{{ x is is y }}", "{{ 1 if }}",
    ]
    _assert_same((repr(s), s) for s in sources)


# ------------------------------------------------------------------------------------------ random templates
PIECES = [
    "{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{%+", "+%}", "{#-", "-#}", "if", "endif",
    "elif", "else", "for", "in", "endfor", "set", "endset", "macro", "endmacro", "call", "endcall", "filter",
    "endfilter", "raw", "endraw", "with", "endwith", "break", "continue", "recursive", "do", "generation",
    "endgeneration", "block", "endblock", "autoescape", "endautoescape", "include", "import", "from", "extends",
    "as", "ignore", "missing", "context", "without", "scoped", "required", "(", ")", "[", "]", "{", "}", "|", ".",
    ",", ":", "~", "+", "-", "*", "**", "/", "//", "%", "=", "==", "!=", "<", ">", "<=", ">=", "not", "and", "or",
    "is", "defined", "none", "true", "x", "y", "loop.index", "1", "2.5", "1e3", "0x1F", "1_000", "'a'", '"b\\"c"',
    "'", '"', " ", "  ", "\n", "\t", " \n ", "é", "中", "x²",
]
soup = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=30).map("".join)
tag_soup = st.lists(
    st.tuples(st.sampled_from(["{{ ", "{% ", "{%- ", "{{- ", "{# ", "text ", "\n  "]),
              st.lists(st.sampled_from(PIECES), max_size=8).map(" ".join),
              st.sampled_from([" }}", " %}", " -%}", " -}}", " #}", "", "\n"])),
    max_size=8).map(lambda parts: "".join(a + b + c for a, b, c in parts))


@st.composite
def grammar_templates(draw):
    class Draws(Chooser):
        def below(self, n):
            return draw(st.integers(0, n - 1)) if n > 1 else 0
    return generate_case(Draws()).source


_SETTINGS = dict(derandomize=True, database=None, deadline=None, print_blob=False,
                 suppress_health_check=list(HealthCheck))


@settings(max_examples=300, **_SETTINGS)
@given(source=st.one_of(soup, tag_soup))
def test_random_token_soup(source):
    _assert_same([("soup", source)])


@settings(max_examples=200, **_SETTINGS)
@given(source=grammar_templates())
def test_random_grammar_templates(source):
    _assert_same([("generated", source)])
