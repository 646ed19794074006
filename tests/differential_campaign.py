#!/usr/bin/env python3
"""A differential campaign: many random cases (the generators of differential_gen.py, a plain seeded random loop),
every one rendered by minijinja_py and by Jinja2 in the transformers configuration; all differences are
collected and summarised by category instead of stopping at the first.

    python tests/differential_campaign.py                      # 20 000 cases, seed 0
    python tests/differential_campaign.py -n 100000 --seed 7 --examples 3 --json diffs.json
    python tests/differential_campaign.py --replay diffs.json   # re-run the differing cases saved there

Each case has a seed of its own (seed * 10**7 + index), so one case re-generates alone with --case SEED.
Needs jinja2 (a development tool, like the test that uses the same generators).
"""

import argparse
import collections
import json
import os
import resource
import signal
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from differential_gen import RandomChooser, generate_case  # noqa: E402
from differential_ref import compare  # noqa: E402

TIMEOUT_S = 10


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def case_for(seed):
    return generate_case(RandomChooser(seed))


def run_one(case):
    signal.alarm(TIMEOUT_S)
    try:
        return compare(case)
    except _Timeout:
        return ("differ", "timeout (either engine)", "")
    finally:
        signal.alarm(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=20000, help="number of cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--examples", type=int, default=2, help="examples shown per category")
    ap.add_argument("--json", help="write every differing case to this file")
    ap.add_argument("--case", type=int, help="run the single case with this seed and show it")
    ap.add_argument("--replay", help="re-run the cases saved by --json")
    args = ap.parse_args()

    # A runaway allocation in either engine should fail as MemoryError, not take the machine down.
    limit = 4 * 1024 ** 3
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _on_alarm)
    warnings.simplefilter("ignore")   # Jinja2's generated code can draw SyntaxWarnings from Python's compiler

    if args.case is not None:
        case = case_for(args.case)
        print(case.describe())
        print(run_one(case))
        return 0

    if args.replay:
        with open(args.replay, encoding="utf-8") as f:
            saved = json.load(f)
        items = [(d["seed"], None) for d in saved]   # cases re-generate exactly from their seed
    else:
        items = ((args.seed * 10 ** 7 + i, None) for i in range(args.n))

    counts = collections.Counter()
    categories = collections.defaultdict(list)
    start = time.time()
    total = 0
    for seed, case in items:
        total += 1
        if case is None:
            case = case_for(seed)
        outcome = run_one(case)
        counts[outcome[0] if outcome[0] in ("differ", "excluded") else f"{outcome[0]}: {outcome[1]}"] += 1
        if outcome[0] == "differ":
            categories[outcome[1]].append((seed, case, outcome[2]))
        if total % 2000 == 0:
            print(f"... {total} cases, {sum(len(v) for v in categories.values())} differences, "
                  f"{time.time() - start:.0f} s", file=sys.stderr)

    differing = sum(len(v) for v in categories.values())
    known = sum(v for k, v in counts.items() if k.startswith("known"))
    print(f"\n{total} cases in {time.time() - start:.0f} s: {differing} differ, {known} known differences, "
          f"{counts['excluded']} excluded (non-deterministic reference output)")
    for key, value in sorted(counts.items()):
        print(f"  {value:7d}  {key}")
    if categories:
        print("\nDifferences by category:")
    for category, found in sorted(categories.items(), key=lambda kv: -len(kv[1])):
        print(f"\n=== {len(found)} × {category}")
        for seed, case, detail in sorted(found, key=lambda f: len(f[1].source))[:args.examples]:
            print(f"--- seed {seed}\n{case.describe()}\n{detail}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{"seed": seed, "category": category, "source": case.source, "context": case.context,
                        "trim_blocks": case.trim_blocks, "lstrip_blocks": case.lstrip_blocks, "detail": detail}
                       for category, found in categories.items() for seed, case, detail in found],
                      f, ensure_ascii=False, indent=1, default=repr)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
