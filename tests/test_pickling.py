"""Pickling and copying of what users hand to other processes (issue 11): Environment (with loaders, finalize,
policies, overlays, autoescape selectors, its filters/tests/globals), Template (from a string, from a loader,
Template(source)), ChatTemplate, Limits, Markup and every error, including the twins of every built-in
exception; and the same objects through a real ProcessPoolExecutor with spawned workers.

test_chat_api.py covers ChatTemplate's own pickling and a multiprocessing spawn Pool; this file covers the rest.
"""

import builtins
import copy
import json
import multiprocessing
import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest

import minijinja_py as mj
from minijinja_py import template as compiled_template
from minijinja_py.core import errors
from pool_workers import (
    MESSAGES, compiled_identity, finalize_none, is_short, load_by_function, render_in_worker, render_template,
    shout,
)

PAGES = {
    "base.html": "<h1>{% block title %}{% endblock %}</h1>{% block body %}{% endblock %}",
    "macros.html": "{% macro item(x) %}<li>{{ x }}</li>{% endmacro %}",
    "page.html": "{% extends 'base.html' %}{% import 'macros.html' as m %}{% block title %}{{ title }}{% endblock %}"
                 "{% block body %}{% for x in items %}{{ m.item(x) }}{% endfor %}{% endblock %}",
}


def _round_trips(obj):
    return [("pickle", pickle.loads(pickle.dumps(obj))), ("deepcopy", copy.deepcopy(obj)), ("copy", copy.copy(obj))]


def _full_environment(tmp_path):
    """An environment using every option that carries an object: loaders, finalize, autoescape selector,
    policies, limits, undefined, extensions, its own filters/tests/globals, an attribute added by extend()."""
    (tmp_path / "disk.html").write_text("on disk: {{ x|shout }}")
    loader = mj.ChoiceLoader([
        mj.DictLoader(PAGES),
        mj.PrefixLoader({"fs": mj.FileSystemLoader(str(tmp_path)), "fn": mj.FunctionLoader(load_by_function)}),
    ])
    env = mj.Environment(loader=loader, finalize=finalize_none, autoescape=mj.select_autoescape(["html"]),
                         undefined=mj.StrictUndefined, extensions=["do"], limits=mj.Limits(max_steps=100_000),
                         newline_sequence="\r\n", trim_blocks=True, immutable=False)
    env.filters["shout"] = shout
    env.tests["short"] = is_short
    env.globals["site"] = "S&P"
    env.policies["truncate.leeway"] = 0
    env.extend(app_name="demo")
    return env


RENDERS = [  # (how to get the template from an environment, variables, expected output)
    (lambda env: env.get_template("page.html"), {"title": "A&B", "items": [1, None]},
     "<h1>A&amp;B</h1><li>1</li><li>-</li>"),
    (lambda env: env.get_template("fs/disk.html"), {"x": "<i>"}, "on disk: &lt;I&gt;!"),
    (lambda env: env.get_template("fn/fn.txt"), {"x": None}, "from a function: -"),
    (lambda env: env.from_string("{{ site }} {{ 'abc' is short }} {{ 'a long sentence'|truncate(12) }}\n{{ n }}"),
     {"n": None}, "S&amp;P True a long...\r\n-"),  # policies: leeway 0
]


@pytest.mark.parametrize("index", range(len(RENDERS)))
def test_an_environment_with_every_option_pickles_and_copies(tmp_path, index):
    env = _full_environment(tmp_path)
    get, variables, expected = RENDERS[index]
    assert get(env).render(**variables) == expected
    for how, clone in _round_trips(env):
        assert type(clone) is mj.Environment, how
        assert get(clone).render(**variables) == expected, how
        assert clone.app_name == "demo" and clone.policies["truncate.leeway"] == 0, how
        assert clone.limits == env.limits and clone.undefined is mj.StrictUndefined, how
        with pytest.raises(mj.UndefinedError):
            clone.from_string("{{ missing + 1 }}").render()


def test_copies_compile_their_own_templates_and_deep_copies_are_independent(tmp_path):
    env = _full_environment(tmp_path)
    template = env.get_template("page.html")
    clone = copy.deepcopy(env)
    assert clone.get_template("page.html") is not template
    clone.filters["shout"] = str.lower
    clone.globals["site"] = "other"
    clone.loader.loaders[0].mapping["page.html"] = "changed"
    assert env.filters["shout"] is shout and env.globals["site"] == "S&P"
    assert env.get_template("page.html").render(title="t", items=[]) == "<h1>t</h1>"
    assert clone.get_template("page.html").render() == "changed"
    shallow = copy.copy(env)   # shares filters, tests, globals (a shallow copy), not the compiled templates
    assert shallow.filters is env.filters and shallow._cache is not env._cache


def test_an_overlay_pickles_with_the_environment_it_is_linked_to():
    env = mj.Environment(loader=mj.DictLoader(PAGES))
    env.globals["site"] = "S"
    overlay = env.overlay(autoescape=True, finalize=finalize_none)
    for how, clone in _round_trips(overlay):
        assert clone.overlayed and isinstance(clone.linked_to, mj.Environment), how
        assert clone.from_string("{{ site }}{{ '<' }}{{ none }}").render() == "S&lt;-", how
        assert clone.get_template("page.html").render(title="<", items=[]) == "<h1>&lt;</h1>", how


def test_the_chat_environment_pickles():
    env = mj.chat_environment(now=environment_datetime())
    source = "{{ messages|tojson }} {{ strftime_now('%Y') }}{{ raise_exception('stop') if fail }}"
    expected = env.from_string(source).render(messages=[{"a": "é"}])
    for how, clone in _round_trips(env):
        template = clone.from_string(source)
        assert template.render(messages=[{"a": "é"}]) == expected == '[{"a": "é"}] 2026', how
        with pytest.raises(mj.TemplateError, match="stop"):
            template.render(messages=[], fail=True)


def environment_datetime():
    import datetime
    return datetime.datetime(2026, 1, 15)


def test_select_autoescape_pickles_and_compares_by_value():
    selector = mj.select_autoescape(["html"], disabled_extensions=["txt"])
    assert pickle.loads(pickle.dumps(selector)) == selector == mj.select_autoescape(["html"], ["txt"])
    assert (selector("a.HTML"), selector("a.txt"), selector("a.md"), selector(None)) == (True, False, False, True)


# ------------------------------------------------------------------------------------------------ templates
def test_templates_pickle_by_source_and_keep_name_filename_and_globals(tmp_path):
    env = _full_environment(tmp_path)
    loaded = env.get_template("fs/disk.html")
    with_globals = env.from_string("{{ g }}{{ site }}", globals={"g": "G"}, name="named")
    for how, clone in _round_trips(loaded):
        assert (clone.name, clone.filename, clone.source) == (loaded.name, loaded.filename, loaded.source), how
        assert clone.render(x="y") == "on disk: Y!", how
    for how, clone in _round_trips(with_globals):
        assert clone.render() == "GS&P" and clone.globals == {"g": "G"} and clone.name == "named", how
    assert copy.copy(loaded) is loaded   # immutable
    assert copy.deepcopy(loaded).environment is not env


def test_template_of_the_shared_environment_pickles():
    template = mj.Template("{{ x }}!", autoescape=True)
    for how, clone in _round_trips(template):
        assert clone.render(x="<") == "&lt;!", how


def test_an_unpickled_template_is_compiled_once_per_process_and_the_cache_is_bounded():
    env = mj.Environment(loader=mj.DictLoader(PAGES))
    data = pickle.dumps(env.get_template("page.html"))
    assert pickle.loads(data) is pickle.loads(data)
    assert pickle.loads(pickle.dumps(env.get_template("page.html"))) is pickle.loads(data)
    for i in range(compiled_template.CACHE_SIZE + 3):
        pickle.loads(pickle.dumps(env.from_string(f"{i}")))
    assert len(compiled_template._UNPICKLED) == compiled_template.CACHE_SIZE


def test_an_unpicklable_filter_is_a_pickling_error_but_copies_work():
    env = mj.Environment()
    env.filters["local"] = lambda value: value * 2
    with pytest.raises((pickle.PicklingError, AttributeError)):   # AttributeError: Python 3.9/3.10's message
        pickle.dumps(env)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(env.from_string("{{ 2|local }}"))
    assert copy.deepcopy(env.from_string("{{ 2|local }}")).render() == "4"


def test_limits_and_markup_pickle_and_copy():
    limits = mj.Limits(max_steps=7, steps_per_message=0)
    for how, clone in _round_trips(limits):
        assert clone == limits and clone.steps_per_message == 0, how
    markup = mj.Markup("<b>x</b>")
    for how, clone in _round_trips(markup):
        assert type(clone) is mj.Markup and clone == markup, how


# ---------------------------------------------------------------------------------------------------- errors
def _builtin_exception_classes():
    return [cls for cls in vars(builtins).values()
            if isinstance(cls, type) and issubclass(cls, Exception) and cls is not Exception]


def _an_instance(cls):
    for args in (("message",), ("utf-8", b"\xff", 0, 1, "message"), ("utf-8", "x", 0, 1, "message"),
                 ("message", 0, 1, "reason"), ("message", [ValueError("inner")])):
        try:
            return cls(*args)
        except Exception:  # noqa: BLE001 - try the next constructor signature
            pass
    raise AssertionError(f"cannot make a {cls.__name__}")


@pytest.mark.parametrize("builtin", _builtin_exception_classes(), ids=lambda cls: cls.__name__)
def test_the_error_made_of_every_builtin_exception_pickles(builtin):
    error = errors.as_template_error(_an_instance(builtin), 2, 5)
    assert isinstance(error, mj.TemplateRuntimeError)
    for how, clone in _round_trips(error):
        assert type(clone) is type(error), how
        assert (clone.message, clone.lineno, clone.colno, str(clone), clone.args) == \
               (error.message, error.lineno, error.colno, str(error), error.args), how


def test_twins_never_take_the_names_of_our_own_classes():
    for builtin in (RuntimeError, SyntaxError, AssertionError):
        twin = errors.twin_of(builtin)
        assert twin.__name__ == "TemplateBuiltin" + builtin.__name__ and issubclass(twin, builtin)
        assert getattr(errors, twin.__name__) is twin
    if sys.version_info >= (3, 11):   # its __new__ wants the inner exceptions: no twin, the plain class
        assert errors.twin_of(ExceptionGroup) is mj.TemplateRuntimeError


def test_twins_unpickle_in_a_process_that_has_not_made_them():
    made = [errors.as_template_error(_an_instance(cls), 1, 1) for cls in _builtin_exception_classes()]
    code = ("import json, pickle, sys; errors = pickle.loads(sys.stdin.buffer.read()); "
            "print(json.dumps([[type(e).__module__, type(e).__name__, str(e)] for e in errors]))")
    result = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(made), capture_output=True, check=True)
    assert json.loads(result.stdout) == [[type(e).__module__, type(e).__name__, str(e)] for e in made]


# ------------------------------------------------------------------------------- a spawned ProcessPoolExecutor
def test_templates_environments_and_errors_through_a_spawned_process_pool(tmp_path):
    env = _full_environment(tmp_path)
    jobs = [(get(env), variables) for get, variables, _ in RENDERS]
    expected = [(text, None) for _, _, text in RENDERS]
    chat = mj.ChatTemplate("{{ bos_token }}{% for m in messages %}{{ m.content }}|{% endfor %}",
                           special_tokens={"bos_token": "<s>"})
    failing = [(env.from_string("{{ missing.x }}"), {}), (env.from_string("{% include 'nothing' %}"), {}),
               (env.from_string("{{ 1 // 0 }}"), {}), (env.from_string("{{ range(10**6) }}"), {})]
    local_errors = []
    for template, variables in failing:
        with pytest.raises(mj.TemplateError) as info:
            template.render(**variables)
        local_errors.append(info.value)
    data = pickle.dumps(env.get_template("page.html"))
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert list(pool.map(render_template, *zip(*jobs))) == expected
        assert list(pool.map(render_in_worker, [chat] * 3)) == [chat.render(MESSAGES, add_generation_prompt=True)] * 3
        assert pool.submit(compiled_identity, (data, data)).result() is True
        remote = list(pool.map(render_template, *zip(*failing)))
    for (text, error), local in zip(remote, local_errors):
        assert text is None and type(error) is type(local), local
        assert (error.message, error.lineno, error.colno, str(error)) == \
               (local.message, local.lineno, local.colno, str(local))
