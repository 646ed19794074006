"""The README's examples work as written: every ```python block runs (in order, as one script run from the
checkout's root, as one session would run them), and every ```console block's commands print exactly the output
shown under them (`…` stands for figures that change between runs, such as timings). ```sh blocks (installing)
and plain ``` blocks (illustrations) are not run. A block that needs the `scale` extra is skipped without it."""

import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_OPTIONAL = {"datasets", "dask", "distributed"}


def _blocks(language):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return [(text[:m.start()].count("\n") + 1, m.group(2)) for m in _BLOCK.finditer(text) if m.group(1) == language]


PYTHON = _blocks("python")
CONSOLE = _blocks("console")


_NEEDS_SCALE = re.compile(r"^\s*(?:import|from)\s+(datasets|dask|distributed)\b", re.MULTILINE)
BASE = [(line, code) for line, code in PYTHON if not _NEEDS_SCALE.search(code)]
SCALE = [(line, code) for line, code in PYTHON if _NEEDS_SCALE.search(code)]


def _run_script(tmp_path, blocks):
    """The blocks as one script, run as a user would run it: `python script.py` from the checkout's root."""
    script = tmp_path / "readme_session.py"
    script.write_text("\n\n".join(f"# README.md line {line}\n{code}" for line, code in blocks), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_python_blocks_run(tmp_path):
    """Every block that needs no optional package, in README order, as one session."""
    assert "<s><|user|>\nWhat is the weather in Paris?</s>\n<|assistant|>\n" in _run_script(tmp_path, BASE)


@pytest.mark.parametrize("line, code", SCALE, ids=[f"line {line}" for line, _ in SCALE])
def test_scale_blocks_run(tmp_path, line, code):
    """Each recipe that needs the scale extra, after the blocks above it."""
    for module in _NEEDS_SCALE.findall(code):
        pytest.importorskip(module)
    _run_script(tmp_path, [block for block in BASE if block[0] < line] + [(line, code)])


def _commands(block):
    """(command, expected output) pairs of a console block: `$ ` lines and the lines under each."""
    pairs = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            pairs.append([line[2:].rstrip("\n"), ""])
        else:
            pairs[-1][1] += line
    return pairs


def _pattern(expected):
    return re.compile("".join(".*?" if part == "…" else re.escape(part) for part in re.split("(…)", expected)),
                      re.DOTALL)


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """A folder with a copy of examples/ and a `minijinja-py` on PATH that runs this checkout's package."""
    work = tmp_path_factory.mktemp("readme")
    shutil.copytree(os.path.join(ROOT, "examples"), work / "examples")
    bin_dir = work / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "minijinja-py"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m minijinja_py "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONPATH=ROOT)
    return work, env


@pytest.mark.parametrize("line, block", CONSOLE, ids=[f"line {line}" for line, _ in CONSOLE])
def test_console_block_prints_what_it_shows(shell, line, block):
    work, env = shell
    for command, expected in _commands(block):
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, encoding="utf-8")
        assert _pattern(expected).fullmatch(result.stdout), (command, result.stdout)


def test_there_are_examples():
    assert len(BASE) >= 5 and len(SCALE) >= 2 and len(CONSOLE) >= 3
