"""Runs every data-driven case in tests/cases (format: tests/support/casefiles.py) against minijinja_py."""

import builtins
import datetime
import os

import pytest

import minijinja_py as mj
from casefiles import all_cases, apply_extras, read_case, read_expected, split_env

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)
CASES = all_cases()


def make_env(options):
    options, extras = split_env(options)
    profile = options.pop("profile", "chat")
    if profile == "chat":
        return apply_extras(mj.chat_environment(now=lambda: FIXED_NOW, **options), extras, mj.DictLoader)
    if "undefined" in options:
        options["undefined"] = getattr(mj, options["undefined"])
    return apply_extras(mj.Environment(**options), extras, mj.DictLoader)


def error_class(name):
    cls = getattr(mj, name, None) or getattr(builtins, name, None)
    if cls is None:
        raise AssertionError(f"unknown error class {name!r} in expected output")
    return cls


@pytest.mark.parametrize("name,txt,out", CASES, ids=[c[0] for c in CASES])
def test_case(name, txt, out, request):
    context, env_options, source, xfail, _stricter = read_case(txt)
    if xfail:
        request.applymarker(pytest.mark.xfail(reason=xfail, strict=True))
    assert os.path.exists(out), f"{name}: no .out file (run tools/make_expected.py)"
    expected = read_expected(out)
    env = make_env(env_options)
    if expected[0] == "ok":
        assert env.from_string(source).render(context) == expected[1]
        return
    _, cls_name, line, col = expected
    with pytest.raises(mj.TemplateError) as info:
        env.from_string(source).render(context)
    err = info.value
    assert isinstance(err, error_class(cls_name)), f"raised {type(err).__name__}: {err}"
    assert (err.lineno, err.colno) == (line, col), f"location of: {err}"
