"""The wheel: built from a copy of the checkout, it must carry the grammar, its prebuilt tables and the seed
templates inside the package (pyproject maps grammar/ and templates/ into minijinja_py), depend on nothing, and
render a seed once installed, with jinja2 and lark unimportable."""

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "templates", "*.jinja")))


def _bdist_wheel_available():
    # setuptools >= 70.1 has bdist_wheel built in; older ones need the `wheel` package
    return importlib.util.find_spec("setuptools") is not None and (
        importlib.util.find_spec("setuptools.command.bdist_wheel") is not None
        or importlib.util.find_spec("wheel") is not None)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    if not _bdist_wheel_available():
        pytest.skip("cannot build a wheel without build isolation: setuptools (and, before setuptools 70.1, "
                    "the wheel package) must be installed; pip install '.[test]' provides them")
    tmp = tmp_path_factory.mktemp("wheel")
    # Build from a copy, so the checkout gets no build/ or *.egg-info and nothing untracked leaks in.
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    out = tmp / "dist"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "-q", "-w", str(out), str(src)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list(out.glob("minijinja_py-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def test_seeds_exist():
    assert SEEDS, "templates/*.jinja is empty"


def test_wheel_carries_grammar_tables_and_seeds(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert zf.read("minijinja_py/grammar/jinja.lark") == _read("grammar", "jinja.lark")
        assert zf.read("minijinja_py/grammar/jinja.tables.marshal") == _read("grammar", "jinja.tables.marshal")
        for seed in SEEDS:
            assert zf.read(f"minijinja_py/templates/{seed}") == _read("templates", seed)
        assert zf.read("minijinja_py/templates/SOURCES.md") == _read("templates", "SOURCES.md")
    assert "minijinja_py/py.typed" in names  # PEP 561: type checkers read the package's annotations
    assert "minijinja_py/grammar/__init__.py" in names
    assert "minijinja_py/templates/__init__.py" in names
    assert not any(name.startswith(("tests/", "grammar/", "templates/")) for name in names)


def test_wheel_has_no_runtime_dependencies(wheel):
    with zipfile.ZipFile(wheel) as zf:
        metadata_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(metadata_name).decode("utf-8")
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    runtime = [r for r in requires if "extra ==" not in r]
    assert runtime == [], runtime


# Run in a fresh interpreter: only the installed wheel is importable (-I), and jinja2 and lark are blocked outright.
_INSTALLED_CHECK = textwrap.dedent('''
    import importlib.abc, json, sys

    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("jinja2", "lark"):
                raise ImportError(name + " is blocked in this test")

    sys.meta_path.insert(0, Blocked())
    site, conversation = sys.argv[1:3]
    sys.path[:0] = [site]
    import minijinja_py as mj
    from minijinja_py.syntax import parse as syntax
    assert mj.__file__.startswith(site), mj.__file__
    with open(conversation, encoding="utf-8") as f:
        context = json.load(f)
    messages = context.pop("messages")
    ct = mj.ChatTemplate(mj.seed_template("hermes4"))
    out = ct.render(messages, tools=context.pop("tools", None), add_generation_prompt=context.pop(
        "add_generation_prompt", False), **{k: v for k, v in context.items() if not k.startswith("_")})
    assert syntax.load_tables() is not None, "the installed package did not find its prebuilt tables"
    assert not any(m.split(".")[0] in ("jinja2", "lark") for m in sys.modules)
    print(json.dumps({"seeds": mj.seed_template_names(), "out": out}))
''')


def test_installed_wheel_renders_a_seed_without_jinja2(wheel, tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                           "--disable-pip-version-check", "--target", str(site), str(wheel)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    conversation = os.path.join(ROOT, "tests", "contexts", "tools_dict_args.json")
    proc = subprocess.run([sys.executable, "-I", "-c", _INSTALLED_CHECK, str(site), conversation],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["seeds"] == [s[:-len(".jinja")] for s in SEEDS]
    golden = _read("tests", "goldens", "hermes4__tools_dict_args.txt").decode("utf-8")
    assert result["out"] == golden


def test_import_loads_none_of_the_modules_a_cold_start_avoids():
    """`import minijinja_py` loads only what its start-up needs: each of these standard-library modules would be one
    more module to find and load (typing and threading cost milliseconds; `from __future__ import annotations`
    loads the __future__ module at run time, so annotations are quoted instead)."""
    avoided = ("__future__", "typing", "threading", "weakref", "contextvars", "bisect", "collections.abc", "inspect",
               "textwrap", "pickle", "dataclasses", "ast", "string", "struct", "html", "copy", "datetime")
    code = ("import sys; import minijinja_py; "
            f"print(' '.join(m for m in {avoided!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.stdout.split() == []
