"""Hostile templates (tests/hostile_cases.py): escapes, mutation, resource exhaustion, malformed sources and
inputs. Every case must end exactly as its table says — a refusal with the right class (and limit), or the
exact safe output — and never with a non-TemplateError exception, a memory address, a change to the caller's
data, or a hang.

All cases run in one child process, which reports each outcome as a JSON line as soon as it has it: a case that
hung (or crashed the process) fails here instead of stalling the test run. The child's peak memory is checked
too. There are no timed assertions: hangs are caught only by a generous overall guard.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from hostile_cases import CASES

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GUARD_SECONDS = 240          # for the whole child run (normally ~12 s): only a real hang comes near it
PEAK_MEMORY_MB = 600         # the whole suite, in one process: far below what one unbounded case would take
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")

CHILD = r"""
import copy, json, resource, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
sys.setrecursionlimit(1000)
import minijinja_py as mj
from hostile_cases import CASES

def same(a, b, seen):
    # a == b for data that may share or contain itself: each pair of containers is compared once
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple, dict)):
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
        if len(a) != len(b):
            return False
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k], seen) for k in a)
        return all(same(x, y, seen) for x, y in zip(a, b))
    if type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__"):
        return same(vars(a), vars(b), seen)  # the caller's own objects: compare their attributes
    return a == b

def snapshot(value):
    try:
        return copy.deepcopy(value)
    except (RecursionError, TypeError):
        return None  # too deep (100000-deep data) or not copyable (a memoryview): not compared

def run(case):
    context = case.context or {}
    if case.mode == "chat":
        return mj.chat_environment().from_string(case.source).render(**context)
    if case.mode == "plain":
        return mj.Environment().from_string(case.source).render(**context)
    if case.mode == "plain_autoescape":
        return mj.Environment(autoescape=True).from_string(case.source).render(**context)
    if case.mode == "bytes":
        return mj.Environment().from_string(case.source).render()
    if case.mode == "ct":
        args = {k: v for k, v in context.items() if k != "kw"}
        return mj.ChatTemplate(case.source).render(**args, **context.get("kw", {}))
    raise AssertionError(case.mode)

for case in CASES:
    before = snapshot(case.context)
    result = {"id": case.id}
    try:
        text = run(case)
        result.update(kind="out", output=text)
    except mj.TemplateError as exc:
        result.update(kind="error", classes=[c.__name__ for c in type(exc).__mro__],
                      limit=getattr(exc, "limit", None), message=str(exc.message)[:2000], text=str(exc)[:5000])
    except BaseException as exc:
        result.update(kind="leak", classes=[type(exc).__name__], message=repr(exc)[:2000])
    result["mutated"] = before is not None and not same(before, case.context, set())
    print(json.dumps(result), flush=True)
def peak_mb():
    # VmHWM is this process image's own peak; ru_maxrss would carry over the parent's peak across fork+exec
    # (Linux keeps it), so a large pytest process made this child look large
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps({"peak_mb": peak_mb()}), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes():
    proc = subprocess.Popen([sys.executable, "-c", CHILD, ROOT, HERE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=GUARD_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        stderr = f"child still running after {GUARD_SECONDS} s (a hang)\n" + stderr
    results = {}
    peak = None
    for line in stdout.splitlines():
        record = json.loads(line)
        if "peak_mb" in record:
            peak = record["peak_mb"]
        else:
            results[record["id"]] = record
    return results, peak, stderr[-3000:]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_case(case, outcomes):
    results, _, stderr = outcomes
    got = results.get(case.id)
    assert got is not None, f"no outcome: the child hung or crashed on or before this case\n{stderr}"
    assert got["kind"] != "leak", f"a non-TemplateError escaped: {got['message']}"
    assert not got["mutated"], "the caller's data changed"
    kind = case.expect[0]
    if kind == "out":
        assert got["kind"] == "out", f"raised {got['classes'][0]}: {got['message']}"
        assert got["output"] == case.expect[1]
        assert not ADDRESS.search(got["output"]), "a memory address was printed"
        return
    assert got["kind"] == "error", f"rendered instead: {got['output'][:200]!r}"
    assert not ADDRESS.search(got["text"]), f"a memory address in the error: {got['text']}"
    if kind == "limit":
        assert "LimitExceeded" in got["classes"], f"raised {got['classes'][0]}: {got['message']}"
        assert got["limit"] == case.expect[1], got["message"]
        assert f"{case.expect[1]}=" in got["message"], "the message names the limit and its value"
    else:
        assert case.expect[1] in got["classes"], f"raised {got['classes'][0]}: {got['message']}"


def test_hostile_suite_size_and_memory(outcomes):
    results, peak, stderr = outcomes
    assert len(CASES) >= 150
    assert len(results) == len(CASES), stderr
    assert peak is not None and peak < PEAK_MEMORY_MB, f"peak memory of the hostile suite: {peak} MB"


def test_no_case_escapes_or_hangs(outcomes):
    results, _, _ = outcomes
    leaks = [r["id"] for r in results.values() if r["kind"] == "leak"]
    mutated = [r["id"] for r in results.values() if r["mutated"]]
    assert (leaks, mutated) == ([], [])
