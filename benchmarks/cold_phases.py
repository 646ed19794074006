#!/usr/bin/env python3
"""Cold start by phase: where a fresh process's time goes, for one checkout or several side by side.

    python benchmarks/cold_phases.py [--project DIR ...] [--runs 40] [--callgrind]

Each run is a fresh process that imports the package, compiles templates/hermes4.jinja (a first compile: the
parser tables loaded, the lexer's regexps compiled) and renders it once for a conversation with a tool call, as
../shared/tools/perf/cold.py's child does. Byte code is cached in one fresh folder (PYTHONPYCACHEPREFIX, warmed by
two rounds first), as for an installed package. Checkouts alternate round by round. Prints, per checkout, the
median and the best milliseconds of: the process's setup before the import, the import, the first compile, the
render, and the whole process from spawn to exit (which holds the interpreter's start and finalisation too).

--callgrind (valgrind must be installed) prints instead the machine instructions of the same process stopped
after each phase (0: nothing of ours, 1: the import, 2: the first compile, 3: the render), with PYTHONHASHSEED=0:
deterministic where wall time moves by several percent between runs on a VM. Compare checkouts at paths of the
same length (the code objects hold their file paths).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# argv: project, stop (0-3). Prints the seconds of each phase it ran.
CHILD = r"""
import sys, time
t0 = time.perf_counter()
import datetime, json
project, stop = sys.argv[1], int(sys.argv[2])
with open(project + "/templates/hermes4.jinja", encoding="utf-8", newline="") as f:
    source = f.read()
tool = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
messages = json.loads(json.dumps([
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "name": "get_weather", "content": "{\"temperature\": 21}"},
    {"role": "user", "content": "Thanks!"}]))
now = datetime.datetime(2026, 1, 15, 9, 5, 3)
marks = [t0, time.perf_counter()]
if stop >= 1:
    sys.path.insert(0, project)
    import minijinja_py
    marks.append(time.perf_counter())
if stop >= 2:
    template = minijinja_py.ChatTemplate(source, now=lambda: now)
    marks.append(time.perf_counter())
if stop >= 3:
    template.render(messages, tools=[tool], add_generation_prompt=True, bos_token="<s>", eos_token="</s>")
    marks.append(time.perf_counter())
print(" ".join(repr(b - a) for a, b in zip(marks, marks[1:])))
"""
PHASES = ("setup", "import", "first compile", "render")


def environment():
    # This environment with byte code cached in one fresh folder, and no PYTHONPATH (the child puts the checkout
    # first on sys.path itself).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="cold-phases-")
    return env


def timed_run(project, env):
    # -> [seconds of each phase..., seconds from spawn to exit]
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, project, "3"], env=env, capture_output=True, text=True,
                         check=True).stdout
    wall = time.perf_counter() - start
    return [float(x) for x in out.split()] + [wall]


def by_phase(projects, runs, warmup=2):
    env = environment()
    samples = {p: [] for p in projects}
    for i in range(warmup + runs):
        order = projects[i % len(projects):] + projects[:i % len(projects)]
        for project in order:
            sample = timed_run(project, env)
            if i >= warmup:
                samples[project].append(sample)
    for project in projects:
        columns = zip(*samples[project])
        cells = [f"{name} {statistics.median(c) * 1e3:.2f}/{min(c) * 1e3:.2f}"
                 for name, c in zip(PHASES + ("process",), columns)]
        print(f"{project}: " + ", ".join(cells) + f"  (ms, median/best of {runs})")


def instructions(project, stop, env):
    # Callgrind's instruction total of the child stopped after `stop`.
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           "-c", CHILD, project, str(stop)], env=env, capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def by_instructions(projects):
    env = dict(environment(), PYTHONHASHSEED="0")
    for project in projects:   # (a first run writes the byte code)
        subprocess.run([sys.executable, "-c", CHILD, project, "3"], env=env, capture_output=True, check=True)
    for project in projects:
        totals = [instructions(project, stop, env) for stop in range(4)]
        steps = ", ".join(f"{name} {(b - a) / 1e6:.2f}M" for name, a, b in zip(PHASES[1:], totals, totals[1:]))
        print(f"{project}: {totals[-1] / 1e6:.2f}M instructions in all; before ours {totals[0] / 1e6:.2f}M, "
              f"{steps} (each with its share of the process's exit)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", action="append", help="a checkout of the package (repeat to compare)")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    projects = [os.path.abspath(p) for p in (a.project or [ROOT])]
    if a.callgrind:
        by_instructions(projects)
    else:
        by_phase(projects, a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
