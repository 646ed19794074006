"""The caches of compiled templates are bounded by the characters of source they hold; a file loaded under
several names is compiled once; a render pays for the templates it loads, the same whether they were cached."""

import os
import pickle

import pytest

import minijinja_py as mj
from minijinja_py import environment, template as compiled_template
from minijinja_py.chat import template as chat


BUDGET = 20_000   # the caches' character budget in these tests (a smaller one, so that they run quickly)


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(environment, "CACHE_CHARS", BUDGET)
    monkeypatch.setattr(compiled_template._UNPICKLED, "max_weight", BUDGET)
    monkeypatch.setattr(chat._cache, "max_weight", BUDGET)


def _big(i, size=5_000):
    unit = "{% if a %}{{ b }}{% endif %}"
    return unit * (size // len(unit)) + str(i)


def test_the_default_budget_holds_the_corpus_and_two_of_the_largest_templates():
    assert compiled_template.CACHE_CHARS >= 2 * mj.Limits().max_template_size and chat._CACHE_CHARS >= 453_000


def test_from_string_cache_is_bounded_by_characters(small_budget):
    env = mj.Environment()
    for i in range(25):
        env.from_string(_big(i))
    assert BUDGET - 5_000 < env._cache.weight <= BUDGET
    assert len(env._cache) == BUDGET // 5_000
    small = env.from_string("{{ x }}")
    assert env.from_string("{{ x }}") is small   # small templates are still found again
    assert env.from_string(_big(0, BUDGET + 1)) is not None and env._cache.weight <= BUDGET   # too big to keep


def test_get_template_cache_is_bounded_by_characters(small_budget):
    sources = {f"t{i}": _big(i) for i in range(25)}
    env = mj.Environment(loader=mj.DictLoader(sources))
    for name in sources:
        env.get_template(name)
    assert env._loaded.weight <= BUDGET and len(env._loaded) == BUDGET // 5_000


def test_apply_chat_template_cache_is_bounded_by_characters(small_budget):
    for i in range(12):
        chat._cached(_big(i), None, None, None, None)
    assert chat._cache.weight <= BUDGET


def test_unpickled_templates_are_bounded_by_characters(small_budget):
    env = mj.Environment()
    for i in range(12):
        pickle.loads(pickle.dumps(env.from_string(_big(i))))
    assert compiled_template._UNPICKLED.weight <= BUDGET


def test_one_file_under_several_names_is_compiled_once(tmp_path):
    with open(tmp_path / "x.html", "w") as f:
        f.write("{{ 1 + 1 }}")
    env = mj.Environment(loader=mj.FileSystemLoader(str(tmp_path)))
    spellings = ["x.html", "./x.html", ".//x.html", "././x.html", "x.html/", "./x.html//"]
    found = {id(env.get_template(name)) for name in spellings}
    assert len(found) == 1
    main = env.from_string("{% for n in names %}{% include n %}{% endfor %}")
    assert main.render(names=spellings) == "2" * len(spellings)


def test_a_changed_file_is_compiled_again_under_each_name(tmp_path):
    path = tmp_path / "x.html"
    path.write_text("one")
    env = mj.Environment(loader=mj.FileSystemLoader(str(tmp_path)))
    assert env.get_template("x.html").render() == "one" and env.get_template("./x.html").render() == "one"
    path.write_text("two!")
    os.utime(path, (1, 1))
    assert env.get_template("./x.html").render() == "two!" and env.get_template("x.html").render() == "two!"


def test_loading_in_a_render_is_charged():
    calls = []

    def load(name):
        calls.append(name)
        return "{{ 1 }}" + name
    env = mj.Environment(loader=mj.FunctionLoader(load), limits=mj.Limits(max_steps=200_000))
    loop = "{% for i in range(100000) %}{% include 'n' ~ i %}{% endfor %}"
    with pytest.raises(mj.LimitExceeded) as info:
        env.from_string(loop).render()
    assert info.value.limit == "max_steps"
    assert len(calls) <= 200_000 // environment._LOAD_STEPS
    missing = "{% for i in range(100000) %}{% include 'n' ~ i ignore missing %}{% endfor %}"
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: None), limits=mj.Limits(max_steps=200_000))
    with pytest.raises(mj.LimitExceeded):
        env.from_string(missing).render()


def _fits(env_factory, source, steps):
    try:
        env_factory(steps).from_string(source).render()
        return True
    except mj.LimitExceeded:
        return False


def test_the_steps_a_render_spends_do_not_depend_on_the_cache():
    sources = {"inc": "{% for i in range(20) %}{{ i }}{% endfor %}" * 50}
    main = "{% include 'inc' %}{% include 'inc' %}{% import 'inc' as m %}"
    warm_env = {}

    def cold(steps):
        return mj.Environment(loader=mj.DictLoader(sources), limits=mj.Limits(max_steps=steps))

    def warm(steps):
        env = warm_env.get(steps)
        if env is None:
            env = warm_env[steps] = cold(steps)
            env.get_template("inc")   # compiled outside the render: the render finds it cached
        return env
    low, high = 1, 10_000_000
    while low < high:   # the fewest steps the cold render needs
        middle = (low + high) // 2
        low, high = (low, middle) if _fits(cold, main, middle) else (middle + 1, high)
    assert low > len(sources["inc"]) * environment._COMPILE_STEPS
    assert _fits(warm, main, low) and not _fits(warm, main, low - 1)


def test_an_unhashable_loader_skips_the_cache():
    class Unhashable(mj.DictLoader):
        __hash__ = None
    env = mj.Environment(loader=Unhashable({"a": "x{{ 1 }}"}))
    assert env.get_template("a").render() == "x1" and env.from_string("{% include 'a' %}").render() == "x1"
