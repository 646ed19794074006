"""The library surface of Jinja2's API that code written against Jinja2 uses (issue 8): Template(source), loaders
and get_template, generate/stream, modules, Environment options and methods, meta, the errors of loading.

Where Jinja2 is installed, the behaviour is checked against it side by side (the package never imports it);
what only minijinja_py does (confinement of FileSystemLoader, limits) is checked on its own.
"""

import copy
import io
import os
import pickle

import pytest

import minijinja_py as mj

try:
    import jinja2
    import jinja2.meta
    import jinja2.sandbox
except ImportError:  # the reference is optional: the comparisons are skipped
    jinja2 = None

needs_jinja2 = pytest.mark.skipif(jinja2 is None, reason="jinja2 (the reference) is not installed")


def both(**options):
    """(ours, Jinja2's) environments with the same options, Jinja2's an ImmutableSandboxedEnvironment."""
    templates = options.pop("templates", None)
    ours = mj.Environment(**options, loader=mj.DictLoader(templates) if templates is not None else None)
    ref = jinja2.sandbox.ImmutableSandboxedEnvironment(
        **options, loader=jinja2.DictLoader(templates) if templates is not None else None)
    return ours, ref


# ---------------------------------------------------------------------------------------- Template(source)
def test_template_constructor_compiles_with_a_shared_environment():
    t = mj.Template("Hello {{ name }}!")
    assert t.render(name="World") == "Hello World!"
    assert isinstance(t, mj.Template) and isinstance(t.environment, mj.Environment)
    assert mj.Template("x").environment is t.environment and t.environment.shared
    t2 = mj.Template("{% if x %}\n  a\n{% endif %}", trim_blocks=True, lstrip_blocks=True)
    assert t2.environment is not t.environment and t2.render(x=1) == "  a\n"
    assert mj.Template("{{ x }}", autoescape=True).render(x="<") == "&lt;"
    assert mj.Template("a\n", keep_trailing_newline=True).render() == "a\n"
    assert mj.Template("{% for x in y %}{% break %}{% endfor %}", extensions=["jinja2.ext.loopcontrols"]).render(y=[1]) == ""


def test_template_constructor_refuses_what_is_not_supported():
    with pytest.raises(ValueError, match="async"):
        mj.Environment(enable_async=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        mj.Environment(no_such_option=1)
    with pytest.raises(TypeError, match="unexpected Environment option"):
        mj.Environment().overlay(no_such_option=1)
    mj.Environment(optimized=False, bytecode_cache=None, auto_reload=False, cache_size=0)   # accepted


# ----------------------------------------------------------------------------------------- generate/stream
class Probe:
    """A value whose attribute read is recorded: shows when the render reaches it."""

    def __init__(self, log):
        self.log = log

    @property
    def value(self):
        self.log.append("read")
        return "late"


def test_generate_is_lazy_and_gives_jinja2s_pieces():
    """A piece per text and {{ }} value, as Jinja2 yields them; each top-level tag runs when its first piece is
    asked for."""
    log = []
    t = mj.Environment().from_string("first {{ a }}{% if true %}second{% endif %}{% for x in [1] %}{{ p.value }}{% endfor %}")
    pieces = t.generate(a=1, p=Probe(log))
    assert next(pieces) == "first " and next(pieces) == "1" and log == []   # before the last statement ran
    assert next(pieces) == "second" and log == []
    assert list(pieces) == ["late"] and log == ["read"]
    assert "".join(t.generate(a=1, p=Probe([]))) == t.render(a=1, p=Probe([]))


def test_generate_goes_through_the_inheritance_chain():
    env = mj.Environment(loader=mj.DictLoader({"base": "<{% block a %}{% endblock %}>{% block b %}B{% endblock %}"}))
    t = env.from_string("{% extends 'base' %}{% block a %}A{% endblock %}")
    assert list(t.generate()) == ["<", "A", ">", "B"]


def test_generate_errors_come_when_reached():
    pieces = mj.Environment().from_string("ok{% if true %}\n{{ 1 // 0 }}{% endif %}").generate()
    assert next(pieces) == "ok"
    with pytest.raises(mj.TemplateError) as info:
        next(pieces)
    assert isinstance(info.value, ZeroDivisionError) and (info.value.lineno, info.value.colno) == (2, 4)


def test_stream_dump_and_buffering(tmp_path):
    t = mj.Environment().from_string("{% for i in range(3) %}{{ i }}{% endfor %}a{% if true %}b{% endif %}{% set x = 1 %}c")
    path = tmp_path / "out.txt"
    t.stream().dump(str(path))
    assert path.read_text(encoding="utf-8") == "012abc"
    buffer = io.StringIO()
    t.stream().dump(buffer)
    assert buffer.getvalue() == "012abc"
    raw = io.BytesIO()
    mj.Environment().from_string("é{{ x }}").stream(x="ü").dump(raw, encoding="latin-1")
    assert raw.getvalue() == "éü".encode("latin-1")
    stream = t.stream()
    stream.enable_buffering(2)
    assert stream.buffered and list(stream) == ["01", "2a", "bc"]   # Jinja2's pieces, two at a time
    with pytest.raises(ValueError):
        t.stream().enable_buffering(1)


# -------------------------------------------------------------------------------------------------- modules
def test_module_exports_top_level_names_and_macros():
    t = mj.Environment().from_string("body {% set x = 1 %}{% set _private = 2 %}{% macro f(a) %}<{{ a }}>{% endmacro %}")
    module = t.module
    assert module is t.module and str(module) == "body " and module.x == 1 and module.f(3) == "<3>"
    assert not hasattr(module, "_private") and not hasattr(module, "nope")
    assert repr(module) == "<TemplateModule from_string>"
    other = t.make_module({"v": 1})
    assert other is not module and other.x == 1
    assert mj.Environment().from_string("{% set y = v * 2 %}").make_module({"v": 21}).y == 42


def test_module_macro_called_from_python_fails_as_a_template_error():
    module = mj.Environment().from_string("{% macro f(a) %}{{ a.b.c }}{% endmacro %}").module
    with pytest.raises(mj.UndefinedError):
        module.f({})
    assert module.f({"b": {"c": 1}}) == "1"


def test_module_html_under_autoescape():
    module = mj.Environment(autoescape=True).from_string("<b>{% set x = 1 %}").module
    assert mj.escape(module) == "<b>"


# -------------------------------------------------------------------------------------------------- loaders
def test_from_string_cache_keeps_a_held_template_and_makes_no_reference_cycle():
    import gc
    import weakref
    env = mj.Environment()
    first = env.from_string("{{ x }}{{ y }}", globals={"y": "!"})
    assert env.from_string("{{ x }}{{ y }}") is env.from_string("{{ x }}{{ y }}")   # cached while held
    g = {"y": 1}
    held = env.from_string("{{ y }}", globals=g)
    assert env.from_string("{{ y }}", globals=g) is held
    del held   # a template nobody holds is made again from the cached code
    again = env.from_string("{{ y }}", globals=g)
    assert again.render() == "1" and again.environment is env and first.render(x=1) == "1!"
    # an environment dropped with its templates is freed at once, without the cyclic collector
    ref = weakref.ref(env)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del env, first, again
        assert ref() is None
    finally:
        if enabled:
            gc.enable()


def test_dict_loader_get_template_is_cached_and_reloaded():
    mapping = {"a": "A{{ x }}"}
    env = mj.Environment(loader=mj.DictLoader(mapping))
    t = env.get_template("a")
    assert env.get_template("a") is t and t.render(x=1) == "A1" and t.name == "a" and t.filename is None
    mapping["a"] = "changed"
    assert t.is_up_to_date is False and env.get_template("a").render() == "changed"
    env.auto_reload = False
    mapping["a"] = "again"
    assert env.get_template("a").render() == "changed"
    assert env.list_templates() == ["a"] and env.list_templates(extensions=["html"]) == []


def test_select_and_get_or_select_template():
    env = mj.Environment(loader=mj.DictLoader({"b": "B", "c": "C"}))
    assert env.select_template(["a", "b", "c"]).name == "b"
    assert env.get_or_select_template("c").name == "c" and env.get_or_select_template(["x", "c"]).name == "c"
    t = env.get_template("b")
    assert env.get_or_select_template(t) is t and env.get_template(t) is t
    with pytest.raises(mj.TemplatesNotFound) as info:
        env.select_template(["x", "y"])
    assert info.value.templates == ["x", "y"] and info.value.name == "y"
    assert info.value.message == "none of the templates given were found: x, y"
    with pytest.raises(mj.TemplatesNotFound, match="empty list"):
        env.select_template([])


def test_template_not_found_is_jinja2s():
    env = mj.Environment(loader=mj.DictLoader({}))
    with pytest.raises(mj.TemplateNotFound) as info:
        env.get_template("nope.html")
    err = info.value
    assert isinstance(err, (IOError, LookupError, mj.TemplateError))
    assert err.name == "nope.html" and err.message == "nope.html" and err.templates == ["nope.html"]
    assert str(err) == "nope.html"
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is mj.TemplateNotFound and again.name == "nope.html"
    with pytest.raises(TypeError, match="no loader for this environment specified"):
        mj.Environment().get_template("a")


def test_not_found_inside_a_render_keeps_the_missing_name_and_says_where():
    env = mj.Environment(loader=mj.DictLoader({"main": "line\n{% include 'gone' %}"}))
    with pytest.raises(mj.TemplateNotFound) as info:
        env.get_template("main").render()
    err = info.value
    assert err.name == "gone" and (err.lineno, err.colno) == (2, 1) and "main:2:1" in str(err)


def test_errors_carry_the_template_they_happened_in():
    env = mj.Environment(loader=mj.DictLoader({"inner": "ok\n  {{ 1 // 0 }}", "bad": "{% if %}",
                                              "main": "{% include 'inner' %}"}))
    with pytest.raises(ZeroDivisionError) as info:
        env.get_template("main").render()
    assert (info.value.name, info.value.lineno, info.value.colno) == ("inner", 2, 6)
    assert "inner:2:6" in str(info.value) and "1 // 0" in str(info.value)
    with pytest.raises(mj.TemplateSyntaxError) as info:
        env.from_string("{% include 'bad' %}").render()
    assert info.value.name == "bad" and info.value.source == "{% if %}" and info.value.filename is None


def test_macro_errors_carry_the_template_that_defined_them():
    env = mj.Environment(loader=mj.DictLoader({"lib": "{% macro f(x) %}\n{{ x.a.b }}{% endmacro %}"}))
    with pytest.raises(mj.UndefinedError) as info:
        env.from_string("{% from 'lib' import f %}{{ f({}) }}", name="main").render()
    assert (info.value.name, info.value.lineno) == ("lib", 2)


@needs_jinja2
def test_a_macros_free_names_come_from_each_renders_variables_and_globals():
    # a name a macro sets only on some paths is looked up in the render's variables, then the globals, when it
    # is read before being set (resolved once per render: each render sees its own variables)
    source = ("{% macro m(flag) %}{% if flag %}{% set word = 'own' %}{% endif %}{{ word }}/{{ g }}{% endmacro %}"
              "{{ m(true) }} {{ m(false) }} {% for i in range(2) %}{{ m(i) }};{% endfor %}")
    ours, theirs = both()
    ours.globals["g"] = theirs.globals["g"] = "global"
    ours_template, their_template = ours.from_string(source), theirs.from_string(source)
    for variables in ({}, {"word": "render"}, {"word": "again", "g": "shadow"}, {}):
        assert ours_template.render(**variables) == their_template.render(**variables)


def test_file_system_loader(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "base.html").write_text("<{% block x %}{% endblock %}>", encoding="utf-8")
    (tmp_path / "sub" / "page.html").write_text("{% extends 'base.html' %}{% block x %}page{% endblock %}",
                                               encoding="utf-8")
    (tmp_path / "bad.html").write_text("{% for %}", encoding="utf-8")
    env = mj.Environment(loader=mj.FileSystemLoader(str(tmp_path)))
    t = env.get_template("sub/page.html")
    assert t.render() == "<page>" and t.filename == str(tmp_path / "sub" / "page.html")
    assert env.get_template("./sub//page.html").render() == "<page>"
    assert env.list_templates() == ["bad.html", "base.html", "sub/page.html"]
    with pytest.raises(mj.TemplateSyntaxError) as info:
        env.get_template("bad.html")
    assert info.value.filename == str(tmp_path / "bad.html") and info.value.name == "bad.html"
    page = tmp_path / "sub" / "page.html"
    os.utime(page, (1, 1))
    assert t.is_up_to_date is False


def test_file_system_loader_stays_in_its_search_path(tmp_path):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret", encoding="utf-8")
    (inside / "ok.txt").write_text("ok", encoding="utf-8")
    os.symlink(outside / "secret.txt", inside / "link.txt")
    os.symlink(outside, inside / "linkdir")
    os.symlink(inside / "ok.txt", inside / "inner_link.txt")
    env = mj.Environment(loader=mj.FileSystemLoader(inside))
    for name in ("../out/secret.txt", str(outside / "secret.txt"), "/etc/passwd", "link.txt", "linkdir/secret.txt",
                 "sub/../../out/secret.txt", "..\\out\\secret.txt", "ok.txt\x00", "C:/x"):
        with pytest.raises(mj.TemplateNotFound):
            env.get_template(name)
    assert env.get_template("inner_link.txt").render() == "ok"
    assert env.list_templates() == ["inner_link.txt", "ok.txt"]
    rendered = env.from_string("{% include '../out/secret.txt' ignore missing %}[{% include 'ok.txt' %}]").render()
    assert rendered == "[ok]"


def test_file_system_loader_refuses_a_file_too_big_before_reading_it(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 5000, encoding="utf-8")
    env = mj.Environment(loader=mj.FileSystemLoader(tmp_path), limits=mj.Limits(max_template_size=1000))
    with pytest.raises(mj.LimitExceeded):
        env.get_template("big.txt")


def test_function_choice_and_prefix_loaders():
    calls = []

    def load(name):
        calls.append(name)
        return {"f": "F{{ 1 }}", "t": ("T", "t.txt", lambda: True)}.get(name)

    env = mj.Environment(loader=mj.ChoiceLoader([
        mj.FunctionLoader(load),
        mj.PrefixLoader({"app": mj.DictLoader({"x": "APPX", "y": "{% include 'app/x' %}!"})}),
        mj.DictLoader({"d": "D"}),
    ]))
    assert env.get_template("f").render() == "F1" and env.get_template("t").filename == "t.txt"
    assert env.get_template("app/y").render() == "APPX!" and env.get_template("d").render() == "D"
    with pytest.raises(mj.TemplateNotFound) as info:
        env.get_template("app/nope")
    assert info.value.name == "app/nope"
    assert env.loader.loaders[1].list_templates() == ["app/x", "app/y"]


def test_a_custom_loader_with_get_source():
    class Upper(mj.BaseLoader):
        def get_source(self, environment, template):
            if template != "u":
                raise mj.TemplateNotFound(template)
            return "{{ 'u'|upper }}", None, None
    env = mj.Environment(loader=Upper())
    assert env.get_template("u").render() == "U"
    with pytest.raises(TypeError):
        Upper().list_templates()


def test_join_path_and_template_globals():
    class Relative(mj.Environment):
        def join_path(self, template, parent):
            return template if parent is None or "/" not in parent else parent.rsplit("/", 1)[0] + "/" + template

    env = Relative(loader=mj.DictLoader({"a/main": "{% include 'part' %}|{% include 'part' without context %}",
                                         "a/part": "{{ g }}{{ e }}"}))
    env.globals["e"] = "E"
    # with context an include sees the includer's template globals; without, only its own and the environment's
    assert env.get_template("a/main", globals={"g": "G"}).render() == "GE|E"


def test_recursive_includes_end_at_max_call_depth():
    env = mj.Environment(loader=mj.DictLoader({"r": "{% include 'r' %}"}), limits=mj.Limits(max_call_depth=20))
    with pytest.raises(mj.LimitExceeded) as info:
        env.get_template("r").render()
    assert info.value.limit == "max_call_depth"


def test_included_templates_share_the_step_budget_and_output_limit():
    env = mj.Environment(loader=mj.DictLoader({"loop": "{% for i in range(1000) %}{{ i }}{% endfor %}"}),
                         limits=mj.Limits(max_steps=5000))
    with pytest.raises(mj.LimitExceeded) as info:
        env.from_string("{% for j in range(10) %}{% include 'loop' %}{% endfor %}").render()
    assert info.value.limit == "max_steps"
    env = mj.Environment(loader=mj.DictLoader({"big": "{{ 'x' * 600 }}"}), limits=mj.Limits(max_output=1000))
    with pytest.raises(mj.LimitExceeded) as info:
        env.from_string("{% include 'big' %}{% include 'big' %}").render()
    assert info.value.limit == "max_output"


def test_loader_can_be_set_later():
    env = mj.Environment()
    t = env.from_string("{% include 'a' %}")
    with pytest.raises(TypeError, match="no loader"):
        t.render()
    env.loader = mj.DictLoader({"a": "A"})
    assert t.render() == "A"


def test_includes_do_not_mutate_the_callers_data():
    data = {"items": [1, 2]}
    env = mj.Environment(loader=mj.DictLoader({"i": "{% set items = items + [3] %}{{ items }}"}))
    assert env.from_string("{% include 'i' %}").render(data) == "[1, 2, 3]" and data == {"items": [1, 2]}


# -------------------------------------------------------------------------------------- environment options
def test_autoescape_callable_and_select_autoescape():
    env = mj.Environment(autoescape=mj.select_autoescape(["html"]),
                         loader=mj.DictLoader({"a.html": "{{ v }}", "a.txt": "{{ v }}"}))
    assert env.get_template("a.html").render(v="<") == "&lt;" and env.get_template("a.txt").render(v="<") == "<"
    assert env.from_string("{{ v }}").render(v="<") == "&lt;"   # default_for_string


def test_finalize_and_pass_decorators():
    @mj.pass_environment
    def finalize(env, value):
        return "" if value is None else value

    assert mj.Environment(finalize=finalize).from_string("[{{ none }}]{{ 0 }}").render() == "[]0"

    @mj.pass_eval_context
    def show(eval_ctx, value):
        return f"{eval_ctx.autoescape}:{value}"

    @mj.pass_context
    def lookup(context, name):
        return context.get(name, "?")

    env = mj.Environment(autoescape=True)
    env.filters.update(show=show, lookup=lookup)
    assert env.from_string("{{ 1|show }} {{ 'who'|lookup }} {{ 'nope'|lookup }}").render(who="me") == "True:1 me ?"


def test_overlay_shares_registries_and_changes_options():
    env = mj.Environment(loader=mj.DictLoader({"a": "{{ x|twice }}\n"}))
    env.filters["twice"] = lambda v: v * 2
    over = env.overlay(keep_trailing_newline=True, extensions=["do"])
    assert over.filters is env.filters and over.overlayed and over.linked_to is env
    assert over.get_template("a").render(x=2) == "4\n" and env.get_template("a").render(x=2) == "4"
    assert "do" in over.extensions and "do" not in env.extensions


def test_call_filter_and_call_test():
    env = mj.Environment()
    assert env.call_filter("join", [1, 2], ["-"]) == "1-2"
    assert env.call_filter("default", None, kwargs={"default_value": "d", "boolean": True}) == "d"
    assert env.call_test("divisibleby", 9, [3]) is True
    with pytest.raises(mj.TemplateRuntimeError, match="No filter named 'nope'"):
        env.call_filter("nope", 1)
    with pytest.raises(mj.TemplateRuntimeError, match="No test named 'nope'"):
        env.call_test("nope", 1)
    with pytest.raises(mj.SecurityError):
        env.call_filter("attr", [], ["__class__"])


def test_compile_expression():
    env = mj.Environment()
    expr = env.compile_expression("a > b and c|length == 2")
    assert expr(a=2, b=1, c=[1, 2]) is True and expr({"a": 0, "b": 1, "c": ""}) is False
    assert env.compile_expression("nope")() is None
    assert isinstance(env.compile_expression("nope", undefined_to_none=False)(), mj.Undefined)


def test_policies_defaults_are_jinja2s():
    assert mj.Environment().policies == {
        "compiler.ascii_str": True, "urlize.rel": "noopener", "urlize.target": None, "urlize.extra_schemes": None,
        "truncate.leeway": 5, "json.dumps_function": None, "json.dumps_kwargs": {"sort_keys": True},
        "ext.i18n.trimmed": False,
    }


def test_extend_adds_missing_attributes_only():
    env = mj.Environment()
    env.extend(my_setting=1, trim_blocks=True)
    assert env.my_setting == 1 and env.trim_blocks is False


def test_mutable_sandbox_keeps_every_limit_and_the_rest_of_the_sandbox():
    env = mj.Environment(immutable=False, extensions=["do"], limits=mj.Limits(max_items=100))
    with pytest.raises(mj.LimitExceeded):
        env.from_string("{% set x = [1] %}{% for i in range(10) %}{% do x.extend(x) %}{% endfor %}").render()
    with pytest.raises(mj.SecurityError):
        env.from_string("{{ x.__class__ }}").render(x=[])
    assert mj.chat_environment().immutable is True and mj.Environment().immutable is True


# --------------------------------------------------------------------------------------------- parse, meta
def test_parse_and_meta():
    env = mj.Environment()
    ast = env.parse("{% extends 'base' %}{% include ['a', x] %}{% import 'm' as m %}{{ y }}{% set z = 1 %}{{ z }}"
                    "{{ range(2) }}")
    assert mj.meta.find_undeclared_variables(ast) == {"x", "y"}
    assert list(mj.meta.find_referenced_templates(ast)) == ["base", "a", None, "m"]
    with pytest.raises(mj.TemplateSyntaxError) as info:
        env.parse("{% if %}", name="n", filename="n.txt")
    assert (info.value.name, info.value.filename, info.value.source) == ("n", "n.txt", "{% if %}")


@needs_jinja2
@pytest.mark.parametrize("source", [
    "{% if x %}{% set y = 1 %}{% endif %}",
    "{% for m in ms %}{{ g }}{% endfor %}{% set g = 1 %}",
    "{% macro f() %}{{ q }}{% endmacro %}{% block b %}{{ z }}{% endblock %}",
    "{% if c %}{% set a = 1 %}{% else %}{% set a = 2 %}{% endif %}{% for i in a %}{{ i }}{% endfor %}",
    "{% for x in xs recursive %}{{ loop(x.children) }}{{ w }}{% endfor %}{% with v = 1 %}{{ v }}{{ u }}{% endwith %}",
    "{% set ns = namespace() %}{% set ns.a = b %}{% call m(c) %}{{ caller_var }}{% endcall %}",
])
def test_meta_agrees_with_jinja2(source):
    ours, ref = both()
    assert mj.meta.find_undeclared_variables(ours.parse(source)) == \
        jinja2.meta.find_undeclared_variables(ref.parse(source))


@needs_jinja2
@pytest.mark.parametrize("source,templates,context", [
    ("{% extends 'b' %}{% block x %}[{{ super() }}|{{ self.y() }}]{% endblock %}",
     {"b": "{% block x %}b{% endblock %}{% block y %}Y{% endblock %}"}, {}),
    ("{% import 'm' as m with context %}{{ m.f() }}", {"m": "{% macro f() %}{{ v }}{% endmacro %}"}, {"v": 1}),
    ("{% for x in [1, 2] %}{% include 'i' %}{% endfor %}", {"i": "{{ x }}"}, {}),
    ("{% from 'm' import a as b %}{{ b }}", {"m": "{% set a = 'A' %}"}, {}),
    # a scoped block sees the loop around it, and so do super() and self.<block>() called from it
    ("{% extends 'd' %}{% block item %}{{ super() }}|{{ item * 2 }}|{{ self.other() }}{% endblock %}",
     {"d": "{% for item in seq %}[{% block item scoped %}{{ item }}{% endblock %}]{% endfor %}"
           "{% block other %}<{{ item }}>{% endblock %}"}, {"seq": [0, 1]}),
    ("{% for i in [5, 6] %}{% for j in [1] %}{% block b scoped %}{{ loop.index }}{{ i }}{{ j }}{% endblock %}"
     "{% endfor %}{% endfor %}", {}, {}),
])
def test_loading_agrees_with_jinja2(source, templates, context):
    ours, ref = both(templates=templates)
    assert ours.from_string(source).render(context) == ref.from_string(source).render(context)


@needs_jinja2
def test_an_import_sees_the_importers_own_globals():
    """Jinja2 passes the importer's template globals that the imported template lacks (an include without
    context gets none)."""
    templates = {"module": "{% macro test() %}[{{ foo }}|{{ bar }}]{% endmacro %}{% set top = foo %}",
                 "inc": "<{{ foo }}|{{ bar }}>"}
    ours, ref = both(templates=templates)
    for env in (ours, ref):
        env.globals["bar"] = 23
    for source in ("{% import 'module' as m %}{{ m.test() }}{{ m.top }}", "{% from 'module' import test %}{{ test() }}",
                   "{% include 'inc' without context %}", "{% include 'inc' %}"):
        for template_globals in ({"foo": 42}, {}):
            assert ours.from_string(source, globals=template_globals).render() == \
                ref.from_string(source, globals=template_globals).render()


@needs_jinja2
def test_a_call_that_raises_stop_iteration_gives_an_undefined():
    def exhausted():
        raise StopIteration()
    ours, ref = both()
    assert ours.from_string("A{{ f() }}B").render(f=exhausted) == ref.from_string("A{{ f() }}B").render(f=exhausted)
    with pytest.raises(mj.UndefinedError, match="StopIteration"):
        ours.from_string("{{ f().x }}").render(f=exhausted)


def test_module_macros_show_their_signature():
    t = mj.Environment(trim_blocks=True).from_string(
        "{% macro foo(a, b) %}{% endmacro %}{% macro bar() %}{{ varargs }}{{ kwargs }}{% endmacro %}"
        "{% macro baz() %}{{ caller() }}{% endmacro %}")
    foo, bar, baz = t.module.foo, t.module.bar, t.module.baz
    assert (foo.name, foo.arguments, foo.caller, foo.catch_kwargs, foo.catch_varargs) == ("foo", ("a", "b"), False,
                                                                                           False, False)
    assert (bar.arguments, bar.catch_kwargs, bar.catch_varargs, baz.caller) == ((), True, True, True)


@needs_jinja2
def test_file_system_loader_says_where_it_looked(tmp_path):
    for paths in ([str(tmp_path)], [str(tmp_path), "other"]):
        with pytest.raises(mj.TemplateNotFound) as ours:
            mj.Environment(loader=mj.FileSystemLoader(paths)).get_template("missing")
        with pytest.raises(jinja2.TemplateNotFound) as ref:
            jinja2.Environment(loader=jinja2.FileSystemLoader(paths)).get_template("missing")
        assert ours.value.message == str(ref.value) and ours.value.name == "missing"


def test_pass_context_on_a_callable_class():
    class Greeter:
        @mj.pass_context
        def __call__(self, context, punctuation="!"):
            return context.resolve("hello") + punctuation
    out = mj.Environment().from_string("{{ greet() }} {{ greet('?') }}").render(greet=Greeter(), hello="hi")
    assert out == "hi! hi?"


@pytest.mark.parametrize("cls", [mj.Undefined, mj.StrictUndefined, mj.ChainableUndefined, mj.DebugUndefined])
def test_undefined_copies_keep_what_they_say(cls):
    undefined = cls("a hint", ["foo"], "a name", mj.TemplateRuntimeError)
    for copied in (copy.copy(undefined), copy.deepcopy(undefined), pickle.loads(pickle.dumps(undefined))):
        assert type(copied) is cls
        assert (copied._undefined_hint, copied._undefined_obj, copied._undefined_name,
                copied._undefined_exception) == ("a hint", ["foo"], "a name", mj.TemplateRuntimeError)
    plain = pickle.loads(pickle.dumps(cls(obj={"a": 1}, name="x")))
    with pytest.raises(mj.UndefinedError, match="'dict object' has no attribute 'x'"):
        plain._fail_with_undefined_error()
