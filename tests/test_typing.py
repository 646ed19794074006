"""The public API is annotated: mypy --strict (configured in pyproject.toml) passes on chat.py, cli.py and
the public surface of environment.py and template.py; every function and public method exported by the package
has complete annotations; the package says so to type checkers (py.typed), so that a user's code is checked against
them."""

import inspect
import os
import subprocess
import sys

import pytest

import minijinja_py as mj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_py_typed_is_there():
    assert os.path.isfile(os.path.join(ROOT, "minijinja_py", "py.typed"))


def test_mypy_strict_on_the_checked_modules(tmp_path):
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 4 source files" in result.stdout


def _public_callables():
    """(qualified name, function) for every exported function and every public method (and __init__, __new__,
    __call__) of every exported class but the exceptions."""
    for name in mj.__all__:
        obj = getattr(mj, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__new__", "__call__"):
                    continue
                value = value.fget if isinstance(value, property) else value
                value = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
                if inspect.isfunction(value):
                    yield f"{name}.{attr}", value


def test_every_public_function_and_method_is_annotated():
    missing = {}
    checked = 0
    for qualname, func in _public_callables():
        signature = inspect.signature(func)
        gaps = [p.name for p in signature.parameters.values()
                if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
        if signature.return_annotation is inspect.Signature.empty and not qualname.endswith(".__init__"):
            gaps.append("return")
        if gaps:
            missing[qualname] = gaps
        checked += 1
    assert checked > 100
    assert missing == {}


USER_CODE = '''
import minijinja_py as mj

env = mj.Environment(loader=mj.DictLoader({"a.txt": "{{ x }}"}), autoescape=mj.select_autoescape(["html"]))
template: mj.Template = env.get_template("a.txt")
text: str = template.render(x=1)
pieces: list[str] = list(template.generate(x=1))
ct = mj.ChatTemplate.from_pretrained("examples/tiny-model")
prompt: str = ct.render([{"role": "user", "content": "Hi"}], add_generation_prompt=True)
prompts = mj.apply_chat_template("{{ messages[0].content }}", [[{"role": "user", "content": "Hi"}]])
schema: dict[str, object] = mj.get_json_schema(len)
wrong: int = template.render()
'''


def test_user_code_is_checked_against_the_annotations(tmp_path):
    """Through py.typed, a type checker sees the annotations in code that uses the package: the one wrong line
    of USER_CODE is the only error."""
    pytest.importorskip("mypy")
    script = tmp_path / "user_code.py"
    script.write_text(USER_CODE)
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                             "--cache-dir", str(tmp_path / "cache"), str(script)],
                            capture_output=True, text=True, cwd=ROOT)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.stdout
    assert 'Incompatible types in assignment (expression has type "str", variable has type "int")' in errors[0]
