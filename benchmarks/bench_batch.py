#!/usr/bin/env python3
"""`minijinja-py batch` at scale: lines per second with 1 and 2 workers, peak memory at two input sizes, and the
output checked against rendering each line alone.

    python benchmarks/bench_batch.py [--lines 10000 100000] [--workers 1 2] [--template hermes4] [--no-verify]

For each size it writes a JSONL file of varied conversations (1 to 4 exchanges, every fourth one with tools),
then for each worker count runs `python -m minijinja_py batch TEMPLATE IN -o OUT --workers N --quiet` in a fresh
child process and reports wall time, lines/s and the peak resident memory (ru_maxrss: the largest of the batch
process and its worker processes, each measured alone). It then renders every line in this process with
ChatTemplate.render and compares with the file the batch wrote, byte for byte after JSON decoding.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import minijinja_py as mj  # noqa: E402

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city",
                                           "parameters": {"type": "object",
                                                          "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]
SPECIAL = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}

# run in the child: the batch command, then the peak RSS (KiB on Linux) of the largest process it waited for
_MEASURE = ("import resource, subprocess, sys; status = subprocess.run(sys.argv[1:]).returncode; "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(status)")


def conversation(i):
    messages = [{"role": "system", "content": f"You are assistant number {i % 7}."}] if i % 3 == 0 else []
    for turn in range(1 + i % 4):
        messages.append({"role": "user", "content": f"Question {i}.{turn}: what is {i} × {turn}? " * (1 + i % 5)})
        messages.append({"role": "assistant", "content": f"It is {i * turn}."})
    messages.append({"role": "user", "content": f"Thanks, {i}!"})
    line = {"messages": messages, "add_generation_prompt": True, **SPECIAL}
    if i % 4 == 0:
        line["tools"] = TOOLS
    return line


def write_input(path, count):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(count):
            f.write(json.dumps(conversation(i), ensure_ascii=False) + "\n")


def run_batch(template, source, out, workers):
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "minijinja_py", "batch", template, source,
               "-o", out, "--workers", str(workers), "--quiet"]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"batch failed ({result.returncode}): {result.stderr}")
    return seconds, int(result.stdout.split()[-1])


def verify(template, source, out):
    """Every output line equals rendering its input line alone; returns the number of lines compared."""
    ct = mj.ChatTemplate(mj.seed_template(template) if template in mj.seed_template_names() else
                         mj.load_chat_template(template)[0])
    compared = 0
    with open(source, encoding="utf-8") as inputs, open(out, encoding="utf-8") as outputs:
        for number, (line, result) in enumerate(zip(inputs, outputs), 1):
            data = json.loads(line)
            expected = ct.render(data.pop("messages"), **data)
            if json.loads(result) != {"line": number, "prompt": expected}:
                raise SystemExit(f"line {number}: the batch output differs from rendering the line alone")
            compared += 1
        if inputs.readline() or outputs.readline():
            raise SystemExit("the output does not have one line per input line")
    return compared


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--template", default="hermes4")
    ap.add_argument("--no-verify", action="store_true")
    args = ap.parse_args()
    print(f"template {args.template}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
    print(f"{'lines':>8} {'workers':>7} {'seconds':>8} {'lines/s':>8} {'peak RSS':>9} {'input':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.lines:
            source = os.path.join(tmp, f"in{count}.jsonl")
            write_input(source, count)
            size = os.path.getsize(source) / 1e6
            for workers in args.workers:
                out = os.path.join(tmp, f"out{count}-{workers}.jsonl")
                seconds, peak_kib = run_batch(args.template, source, out, workers)
                print(f"{count:>8} {workers:>7} {seconds:>8.1f} {count / seconds:>8,.0f} {peak_kib / 1024:>6.0f} MiB"
                      f" {size:>6.1f} MB", flush=True)
                if not args.no_verify:
                    print(f"{'':>8} verified: {verify(args.template, source, out)} lines identical to rendering "
                          "each line alone", flush=True)


if __name__ == "__main__":
    main()
