#!/usr/bin/env python3
"""Parser benchmark: template source → AST (minijinja_py.syntax.parse), nothing compiled or rendered.

    python benchmarks/bench_parse.py [--project DIR] [--corpus ../shared/corpus] [--runs 200]

Prints, for templates/hermes4.jinja and a few corpus templates (the largest ones and some typical ones, when the
corpus is there), the median and the best parse time over --runs runs in this process (the parser already loaded
and warm), then the time of the first parse in a fresh process (tables loaded, lexer patterns compiled on the
way) and the time `import minijinja_py` takes there (byte code cached, as in an installed package). CPU time
(time.process_time), which a busy machine disturbs less than wall time. Options: trim_blocks and lstrip_blocks on
(the chat profile). --project points at another checkout of the package (to compare before/after).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS_PICKS = ("llamacpp__openai-gpt-oss-120b", "llamacpp__MiroThinker", "llamacpp__Apertus-8B-Instruct",
                "llamacpp__Qwen-Qwen2.5-7B-Instruct", "vllm__tool_chat_template_toolace", "hfjs__base")

_FRESH = """
import sys, time
sys.path.insert(0, sys.argv[1])
t0 = time.process_time()
import minijinja_py
from minijinja_py.syntax import parse as syntax
t1 = time.process_time()
src = open(sys.argv[2], encoding="utf-8", newline="").read()
src = syntax.normalize_newlines(src)
t2 = time.process_time()
syntax.parse(src, trim_blocks=True, lstrip_blocks=True)
t3 = time.process_time()
print((t1 - t0) * 1e3, (t3 - t2) * 1e3)
"""


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def templates(project, corpus):
    found = [("templates/hermes4.jinja", os.path.join(project, "templates", "hermes4.jinja"))]
    folder = os.path.join(corpus, "templates")
    if os.path.isdir(folder):
        for name in CORPUS_PICKS:
            path = os.path.join(folder, name + ".jinja")
            if os.path.exists(path):
                found.append((name, path))
    return found


def parse_ms(syntax, source, runs):
    """(median, best) CPU time of a parse in ms."""
    syntax.parse(source, trim_blocks=True, lstrip_blocks=True)  # warm: tables loaded, patterns compiled
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        syntax.parse(source, trim_blocks=True, lstrip_blocks=True)
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1e3, min(times) * 1e3


def fresh_process_ms(project, path, runs=7):
    """Median over a few fresh processes of (import minijinja_py, first parse) in ms of CPU time."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    imports, parses = [], []
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for i in range(runs + 1):
            out = subprocess.run([sys.executable, "-c", _FRESH, project, path], check=True, capture_output=True,
                                 text=True, env=env).stdout.split()
            if i:  # the first run writes the byte code
                imports.append(float(out[0]))
                parses.append(float(out[1]))
    return statistics.median(imports), statistics.median(parses)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project", default=ROOT)
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    project = os.path.abspath(args.project)
    sys.path.insert(0, project)
    from minijinja_py.syntax import parse as syntax
    print(f"parse time, CPU, median and best of {args.runs} runs (trim_blocks, lstrip_blocks), project {project}")
    for name, path in templates(project, args.corpus):
        source = syntax.normalize_newlines(read(path))
        median, best = parse_ms(syntax, source, args.runs)
        print(f"  {name:48} {len(source):6} chars  {median:8.3f} ms  {best:8.3f} ms")
    hermes = os.path.join(project, "templates", "hermes4.jinja")
    imp, first = fresh_process_ms(project, hermes)
    print(f"fresh process, CPU (median of 7): import minijinja_py {imp:.1f} ms, first parse of hermes4 {first:.1f} ms")


if __name__ == "__main__":
    main()
