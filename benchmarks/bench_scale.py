#!/usr/bin/env python3
"""Scale-out throughput: N conversations (Hermes 4, with tools) in 8 JSONL files, rendered

  * in one process (read, render, keep),
  * by `minijinja-py batch --workers 1` and `--workers 2` (the files joined into one; process start included),
  * on a Dask LocalCluster of 1 and of 2 single-thread worker processes, each file a partition read, rendered
    and written by a worker (dask.bag.read_text -> map_partitions -> to_textfiles; cluster start not included),
  * through 🤗 datasets with num_proc 1 and 2 (load_dataset("text") -> map(batched) -> to_json),

each checked identical to the serial render, with the 2-worker / 1-worker ratios. The workload is
tests/support/scale_work.py's (tests/test_scale.py runs it small). Needs the test (or scale) extra.

    python benchmarks/bench_scale.py [--count 200000] [--repeat 1] [--only batch dask datasets]

The machine's load average (os.getloadavg) is printed before and after: figures taken while other jobs run on
the same cores are not scaling figures.
"""

import argparse
import os
import resource
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "support")]

import scale_work  # noqa: E402


def _load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _cpu():
    """CPU seconds used so far by this process and every process it reaped (workers, the batch command)."""
    return sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=1, help="rounds of every way, interleaved")
    ap.add_argument("--only", nargs="+", choices=("batch", "dask", "datasets"), default=("batch", "dask", "datasets"))
    args = ap.parse_args()
    print(f"{args.count} conversations in 8 JSONL files; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
          f"load average {_load()}", flush=True)
    ways = []
    if "batch" in args.only:
        ways += [("batch --workers 1", lambda p, o: scale_work.batch_cli(p, o, 1)),
                 ("batch --workers 2", lambda p, o: scale_work.batch_cli(p, o, 2))]
    if "dask" in args.only:
        ways += [("Dask, 1 worker", lambda p, o: scale_work.dask_local(p, o, 1)[:2]),
                 ("Dask, 2 workers", lambda p, o: scale_work.dask_local(p, o, 2)[:2])]
    if "datasets" in args.only:
        ways += [("datasets, num_proc=1", lambda p, o: scale_work.with_datasets(p, o, 1)),
                 ("datasets, num_proc=2", lambda p, o: scale_work.with_datasets(p, o, 2))]
    best, cpu = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = scale_work.write_parts(tmp, args.count, parts=8)
        for _ in range(args.repeat):
            before = _cpu()
            expected, seconds = scale_work.serial(paths)
            best["one process"] = min(best.get("one process", seconds), seconds)
            cpu["one process"] = min(cpu.get("one process", 1e9), _cpu() - before)
            print(f"  one process: {seconds:.1f} s", flush=True)
            for number, (name, run) in enumerate(ways):
                out = os.path.join(tmp, f"out{number}")
                os.makedirs(out, exist_ok=True)
                before = _cpu()
                prompts, seconds = run(paths, out)
                used = _cpu() - before
                if prompts != expected:
                    raise SystemExit(f"{name}: the prompts differ from the serial render")
                best[name] = min(best.get(name, seconds), seconds)
                cpu[name] = min(cpu.get(name, 1e9), used)
                print(f"  {name}: {seconds:.1f} s ({used:.1f} s of CPU, start-up included), identical "
                      "to the serial render; load average now " + _load(), flush=True)
    print(f"load average after: {_load()}")
    print("\n| way | seconds | conversations/s | CPU seconds, all processes |\n| --- | --- | --- | --- |")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.1f} | {args.count / seconds:,.0f} | {cpu[name]:.1f} |")
    for one, two in (("batch --workers 1", "batch --workers 2"), ("Dask, 1 worker", "Dask, 2 workers"),
                     ("datasets, num_proc=1", "datasets, num_proc=2")):
        if one in best and two in best:
            print(f"{two} / {one}: {best[one] / best[two]:.2f}x")


if __name__ == "__main__":
    main()
