"""The public chat API is annotated: mypy --strict (configured in pyproject.toml) passes on chat.py and cli.py,
and the package says so to type checkers (py.typed)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_py_typed_is_there():
    assert os.path.isfile(os.path.join(ROOT, "minijinja_py", "py.typed"))


def test_mypy_strict_on_chat_and_cli(tmp_path):
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 2 source files" in result.stdout
