"""Jinja2's syntax options (delimiters, line statements, line comments): the API around them, and the lexer modes
syntax/delimiters.py writes checked against the grammar's own terminals. Their behaviour is checked against Jinja2
by the data-driven cases (tests/cases/delimiters/, recorded by tools/make_expected.py) and the differential test,
whose generator writes some cases with other delimiters."""

import glob
import os
import pickle

import pytest

import minijinja_py as mj
from minijinja_py.syntax import delimiters as syntax_options
from minijinja_py.syntax import nodes
from minijinja_py.syntax import parse as syntax
from casefiles import CASES_DIR, read_case

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_TEMPLATES = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "templates")
ERB = dict(block_start_string="<%", block_end_string="%>", variable_start_string="<%=", variable_end_string="%>",
           comment_start_string="<%#", comment_end_string="%>")


# ------------------------------------------------------------------------------------ the generated terminals
def _sources():
    """Every case template (with the options of its case) and corpus template (transformers' options)."""
    found = []
    for path in sorted(glob.glob(os.path.join(CASES_DIR, "*", "*.txt"))):
        _, options, source, _, _ = read_case(path)
        if any(name in options for name in syntax_options.OPTIONS):
            continue
        chat = options.get("profile", "chat") == "chat"
        found.append((source, options.get("trim_blocks", chat), options.get("lstrip_blocks", chat)))
    for path in sorted(glob.glob(os.path.join(CORPUS_TEMPLATES, "*.jinja"))):
        with open(path, encoding="utf-8") as f:
            found.append((f.read(), True, True))
    return found


def _joined(dumped):
    """An AST dump with consecutive texts joined (the lexers may cut text into tokens differently)."""
    if not isinstance(dumped, tuple):
        return dumped
    out = []
    for item in map(_joined, dumped):
        if out and isinstance(item, tuple) and item[:1] == ("Text",) and out[-1][:1] == ("Text",):
            out[-1] = ("Text", out[-1][1] + item[1])
        else:
            out.append(item)
    return tuple(out)


def _outcome(source, trim_blocks, lstrip_blocks, delimiters):
    try:
        tree = syntax.parse(syntax.normalize_newlines(source), trim_blocks, lstrip_blocks, None, delimiters)
    except mj.TemplateSyntaxError:
        return "error"
    return _joined(nodes.dump(tree))


@pytest.mark.parametrize("trim_blocks,lstrip_blocks", [(True, True), (False, False), (True, False), (False, True)])
def test_lexer_modes_written_for_the_default_delimiters_read_as_the_grammar(trim_blocks, lstrip_blocks):
    """delimiters.py's terminals, written for Jinja2's default delimiters, give every template the AST the
    grammar's own terminals give it, or fail where they fail: the same lexing rules, spelt for any delimiters.
    (Not always with the same message: with other delimiters a closing delimiter inside open brackets is read as
    operators, as Jinja2 reads it, where the grammar's terminals close the tag there.)"""
    differ = []
    for source, trim, lstrip in _sources():
        if (trim, lstrip) != (trim_blocks, lstrip_blocks):
            continue
        mine = _outcome(source, trim, lstrip, syntax_options.DEFAULT)
        if mine != _outcome(source, trim, lstrip, None):
            differ.append((source[:200], str(mine)[:200]))
    assert not differ, differ[:5]


# ---------------------------------------------------------------------------------------------------- the API
def test_environment_takes_jinja2s_positional_order():
    env = mj.Environment("<%", "%>", "${", "}", "<%#", "%>", "%", "##", True, True)
    assert (env.block_start_string, env.variable_end_string, env.line_statement_prefix, env.line_comment_prefix,
            env.trim_blocks, env.lstrip_blocks) == ("<%", "}", "%", "##", True, True)
    source = "<%# c %>\n% for x in xs:\n${ x } ## note\n% endfor\n<% if xs %>!<% endif %>"
    assert env.from_string(source).render(xs=[1, 2]) == "1\n2\n!"


def test_overlay_changes_the_delimiters_and_keeps_the_rest():
    env = mj.Environment(trim_blocks=True)
    env.filters["shout"] = lambda s: s.upper() + "!"
    erb = env.overlay(**ERB)
    assert erb.from_string("<% if true %>\n<%= 'a'|shout %><% endif %>").render() == "A!"
    assert env.from_string("<%= 'a' %>{{ 'b' }}").render() == "<%= 'a' %>b"
    back = erb.overlay(block_start_string="{%", block_end_string="%}", variable_start_string="{{",
                       variable_end_string="}}", comment_start_string="{#", comment_end_string="#}")
    assert back._delimiters is None   # Jinja2's defaults again: the grammar's own terminals


def test_the_same_source_compiles_per_delimiter_set():
    env = mj.Environment()
    source = "{{ 1 }}${ 2 }"
    assert env.from_string(source).render() == "1${ 2 }"
    assert env.overlay(variable_start_string="${", variable_end_string="}").from_string(source).render() == "{{ 1 }}2"
    assert mj.Template(source, variable_start_string="${", variable_end_string="}").render() == "{{ 1 }}2"


@pytest.mark.parametrize("options,error", [
    (dict(block_start_string=""), ValueError),
    (dict(line_comment_prefix=" #"), ValueError),
    (dict(variable_start_string="{%"), ValueError),                              # the same as the block start
    (dict(comment_start_string="{{"), ValueError),                               # the same as the variable start
    (dict(block_end_string=None), TypeError),
    (dict(line_statement_prefix=3), TypeError),
])
def test_delimiters_that_cannot_work_are_refused(options, error):
    with pytest.raises(error):
        mj.Environment(**options)
    with pytest.raises(error):
        mj.Environment().overlay(**options)


def test_compile_expression_with_other_delimiters():
    env = mj.Environment(**ERB, line_statement_prefix="%")
    assert env.compile_expression("a + b")(a=1, b=2) == 3


def test_an_environment_with_delimiters_pickles():
    env = pickle.loads(pickle.dumps(mj.Environment(**ERB)))
    assert env.from_string("<%= 1 + 1 %>").render() == "2"


# ----------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("options,source,message,where", [
    (ERB, "a\n  <%# open", "Missing end of comment tag", (2, 3, 2, 6)),
    (ERB, "<% frob %>", "Encountered unknown tag 'frob'.", (1, 1, 1, 8)),
    (dict(line_statement_prefix="#"), "x\n  # frob a\n", "Encountered unknown tag 'frob'.", (2, 3, 2, 9)),
    (dict(line_statement_prefix="#"), "# if x\ny", "Unexpected end of template.", (2, 2, None, None)),
    (dict(variable_start_string="${", variable_end_string="}"), "${ x + }", "unexpected 'end of print statement'",
     (1, 8, 1, 9)),
])
def test_errors_are_located_with_other_delimiters(options, source, message, where):
    with pytest.raises(mj.TemplateSyntaxError) as info:
        mj.Environment(**options).from_string(source)
    exc = info.value
    assert exc.message.startswith(message)
    assert (exc.lineno, exc.colno) == where[:2]
    if where[2] is not None:
        assert exc.end_pos == where[2:]
