"""runtime/globalfuncs.py's counterparts: facts about Jinja2's objects, checked against Jinja2 3.1 itself: for
each engine object a template can reach, the attributes starting with '_' that Jinja2's object in its place has
(so that the sandbox refuses exactly those with SecurityError, and gives undefined for the others, as Jinja2
does)."""

import functools
import os
import sys

import pytest

jinja2 = pytest.importorskip("jinja2")
import jinja2.runtime  # noqa: E402
import jinja2.utils  # noqa: E402

from minijinja_py.runtime import globalfuncs as cp  # noqa: E402
from minijinja_py.runtime.composition import BlockReference, TemplateModule, TemplateReference  # noqa: E402
from minijinja_py.runtime.globalfuncs import Cycler, DictFactory, Joiner  # noqa: E402
from minijinja_py.runtime.objects import LoopContext, Macro  # noqa: E402
from minijinja_py.runtime.undefined import StrictUndefined, Undefined  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "shared", "oracle"))
hf_env = pytest.importorskip("hf_env")


def _jinja2_objects():
    env = hf_env.make_env()
    template = env.from_string("{% block b %}{% endblock %}{% set v = 1 %}")
    reference = jinja2.runtime.TemplateReference(template.new_context({}))
    return {
        Undefined: env.undefined(), StrictUndefined: jinja2.StrictUndefined(), TemplateReference: reference,
        BlockReference: reference["b"], LoopContext: jinja2.runtime.LoopContext(iter([1]), env.undefined),
        Macro: jinja2.runtime.Macro(env, lambda: "", "m", (), False, False, False, False),
        Cycler: jinja2.utils.Cycler(1), Joiner: jinja2.utils.Joiner(), TemplateModule: template.module,
        DictFactory: hf_env.TemplateDict(),
    }


def _names(obj):
    """The '_' names obj has (hasattr), among every '_' name any of these objects or a function lists."""
    return {name for name in _candidates() if _has(obj, name)}


def _own(obj):
    try:
        return object.__getattribute__(obj, "__dict__")
    except AttributeError:   # (slotted)
        return ()


def _has(obj, name):
    try:
        return hasattr(obj, name)
    except Exception:   # noqa: BLE001 - Jinja2's Undefined raises UndefinedError for what it lacks
        return False


@functools.lru_cache(maxsize=None)
def _candidates():
    names = set(dir(lambda: None)) | set(dir(type))
    for obj in [*_jinja2_objects().values(), hf_env.TemplateNamespace(a=1)]:
        # (a namespace's own names show only to object's lookup: its __getattribute__ serves its values)
        names |= set(dir(obj)) | set(dir(type(obj))) | set(_own(obj))
    return frozenset(n for n in names if n.startswith("_"))


@pytest.mark.parametrize("cls", list(cp._EXTRAS))
def test_names_are_jinja2s(cls):
    extras = cp._counterpart_names()[cls]
    assert _names(_jinja2_objects()[cls]) == {n for n in _candidates() if n in cp._OBJECT or n in extras}


def test_namespace_shows_only_its_own():
    ns = hf_env.TemplateNamespace(a=1)
    assert _names(ns) == cp._NAMESPACE


def test_function_stand_ins():
    def function():
        pass
    wrapper = functools.update_wrapper(lambda: None, "".format)
    assert {n for n in _candidates() if n in cp._function()} == _names(function)
    assert {n for n in _candidates() if n in cp._function(wrapped=True)} == _names(wrapper)
