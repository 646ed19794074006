#!/usr/bin/env python3
"""A differential campaign: many random cases (the generators of differential_gen.py, a plain seeded random loop),
every one rendered by minijinja_py and by Jinja2 in the transformers configuration; all differences are
collected and summarised by category instead of stopping at the first.

    python tools/differential_campaign.py                      # 20 000 cases, seed 0, one worker per CPU
    python tools/differential_campaign.py -n 100000 --seed 7 --examples 3 --json diffs.json
    python tools/differential_campaign.py --replay diffs.json   # re-run the differing cases saved there
    python tools/differential_campaign.py --case 70000123       # show one case and its outcome

Each case has a seed of its own (seed * 10**7 + index), so one case re-generates alone with --case SEED. Cases
run in worker processes with a memory limit and a time limit: a case that takes longer than --timeout seconds
(a computation Jinja2 would not finish) is reported as a timeout and its worker replaced.
Needs jinja2 (a development tool, like the test that uses the same generators).
"""

import argparse
import collections
import json
import multiprocessing
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
sys.path.insert(0, os.path.dirname(HERE))

from campaign_pool import add_case_options, case_seeds, outcomes  # noqa: E402
from differential_gen import RandomChooser, generate_case  # noqa: E402
from differential_ref import compare, render_mj  # noqa: E402

def case_for(seed):
    return generate_case(RandomChooser(seed))


def _work(seed):
    return compare(case_for(seed))


def _render_mj_in(conn, seed):
    mine = render_mj(case_for(seed))
    conn.send((mine[0], getattr(mine[1], "limit", None) if mine[0] == "error" else None, str(mine[1])[:300]))


def _timed_out(seed, timeout):
    """A case that did not finish: known when minijinja_py alone refuses it by a limit (it must not run away)."""
    conn, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=_render_mj_in, args=(child, seed), daemon=True)
    process.start()
    done = conn.poll(timeout)
    result = conn.recv() if done else None
    process.kill()
    process.join()
    if result is None:
        return ("differ", "timeout (minijinja_py too)", f"neither engine finished in {timeout} s")
    kind, limit, text = result
    if kind == "error" and limit not in (None, "recursion_limit", "memory"):
        return ("known", "design-limits", f"the reference did not finish in {timeout} s; minijinja_py: {text}")
    return ("differ", "timeout (reference)", f"the reference did not finish in {timeout} s; minijinja_py: {text}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_case_options(ap)
    args = ap.parse_args()

    if args.case is not None:
        case = case_for(args.case)
        print(case.describe())
        warnings.simplefilter("ignore")
        print(compare(case))
        return 0

    seeds = case_seeds(args)

    show_known = set(filter(None, args.show_known.split(",")))
    counts = collections.Counter()
    categories = collections.defaultdict(list)
    start = time.time()
    total = 0
    for seed, outcome in outcomes(seeds, args.jobs, args.timeout, _work, _timed_out):
        total += 1
        counts[outcome[0] if outcome[0] in ("differ", "excluded") else f"{outcome[0]}: {outcome[1]}"] += 1
        if outcome[0] == "differ" or (outcome[0] == "known" and outcome[1] in show_known):
            categories[outcome[1] if outcome[0] == "differ" else f"known: {outcome[1]}"].append((seed, outcome[2]))
        if total % 5000 == 0:
            print(f"... {total} cases, {sum(len(v) for k, v in categories.items() if not k.startswith('known: '))} "
                  f"differences, "
                  f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)

    differing = sum(len(v) for k, v in categories.items() if not k.startswith("known: "))
    known = sum(v for k, v in counts.items() if k.startswith("known"))
    print(f"\n{total} cases in {time.time() - start:.0f} s: {differing} differ, {known} known differences, "
          f"{counts['excluded']} excluded (reference output depends on an object's repr)")
    for key, value in sorted(counts.items()):
        print(f"  {value:7d}  {key}")
    if categories:
        print("\nDifferences by category (and the known ones asked for):")
    for category, found in sorted(categories.items(), key=lambda kv: -len(kv[1])):
        print(f"\n=== {len(found)} × {category}")
        shown = sorted(((len(case_for(seed).source), seed, detail) for seed, detail in found))[:args.examples]
        for _, seed, detail in shown:
            print(f"--- seed {seed}\n{case_for(seed).describe()}\n{detail}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            saved = []
            for category, found in categories.items():
                if category.startswith("known: "):
                    continue
                for seed, detail in found:
                    case = case_for(seed)
                    saved.append({"seed": seed, "category": category, "source": case.source,
                                  "context": case.context, "trim_blocks": case.trim_blocks,
                                  "lstrip_blocks": case.lstrip_blocks, "detail": detail})
            json.dump(saved, f, ensure_ascii=False, indent=1, default=repr)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
