#!/usr/bin/env python3
"""A chat-data differential campaign: real chat templates × random conversations (tests/support/chat_gen.py),
each rendered by Jinja2 in the transformers configuration, by minijinja_py as shipped and by minijinja_py with its
kernels off (general_only); all differences are collected and summarised by category (chat_compare.py).

    python tools/chat_campaign.py -j 2                                   # 20 000 cases, seed 0, holdout templates
    python tools/chat_campaign.py -n 50000 --seed 3 --corpus ../shared/corpus/templates --json diffs.json
    python tools/chat_campaign.py --replay diffs.json                   # re-run the differing cases saved there
    python tools/chat_campaign.py --case 30000123 [--corpus DIR]         # show one case and its outcome

The templates are the 52 of benchmarks/holdout/, then (with --corpus) those of that folder, in name order. Each
case has a seed of its own (seed * 10**7 + index); its template is the seed modulo the number of templates, so
--case SEED re-generates it alone given the same --corpus. Cases run in worker processes with a memory limit and
a time limit (tests/support/campaign_pool.py). Needs jinja2 (a development tool).
"""

import argparse
import collections
import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
sys.path.insert(0, os.path.dirname(HERE))

from campaign_pool import add_case_options, case_seeds, outcomes  # noqa: E402
from chat_compare import case_for, compare_chat, load_oracle, load_templates  # noqa: E402

TEMPLATES = []   # set in main, before the workers fork
ORACLE = []      # hf_env, with --oracle


def _work(seed):
    return compare_chat(case_for(seed, TEMPLATES), *ORACLE)


def _timed_out(seed, timeout):
    return ("differ", "timeout", f"no result in {timeout} s")


def _report(categories, examples, corpus, oracle):
    if categories:
        print("\nDifferences by category (and the known ones asked for):")
    again = (f" --corpus {corpus}" if corpus else "") + (f" --oracle {oracle}" if oracle else "")
    for category, found in sorted(categories.items(), key=lambda kv: -len(kv[1])):
        print(f"\n=== {len(found)} × {category}")
        by_template = collections.Counter(case_for(seed, TEMPLATES).name for seed, _ in found)
        print("templates: " + ", ".join(f"{name} ×{n}" for name, n in by_template.most_common(8)))
        shown = sorted((len(repr(case_for(seed, TEMPLATES).context)), seed, detail) for seed, detail in found)
        for _, seed, detail in shown[:examples]:
            print(f"--- seed {seed} (python tools/chat_campaign.py --case {seed}{again})\n"
                  f"{case_for(seed, TEMPLATES).describe()[:1500]}\n{detail}")


def _save(path, categories):
    saved = []
    for category, found in categories.items():
        if not category.startswith("known: "):
            for seed, detail in found:
                case = case_for(seed, TEMPLATES)
                saved.append({"seed": seed, "category": category, "template": case.name, "mode": case.mode,
                              "context": case.context, "detail": detail})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(saved, f, indent=1, default=repr)   # (ASCII: the data holds lone surrogates)


def _run(seeds, args):
    show_known = set(filter(None, args.show_known.split(",")))
    counts = collections.Counter()
    categories = collections.defaultdict(list)
    start = time.time()
    for total, (seed, outcome) in enumerate(outcomes(seeds, args.jobs, args.timeout, _work, _timed_out), 1):
        counts[outcome[0] if outcome[0] in ("differ", "excluded") else f"{outcome[0]}: {outcome[1]}"] += 1
        if outcome[0] == "differ" or (outcome[0] == "known" and outcome[1] in show_known):
            categories[outcome[1] if outcome[0] == "differ" else f"known: {outcome[1]}"].append((seed, outcome[2]))
        if total % 5000 == 0:
            print(f"... {total} cases, {counts['differ']} differences, {time.time() - start:.0f} s",
                  file=sys.stderr, flush=True)
    known = sum(v for k, v in counts.items() if k.startswith("known"))
    print(f"\n{len(seeds)} cases over {len(TEMPLATES)} templates in {time.time() - start:.0f} s: "
          f"{counts['differ']} differ, {known} known differences, {counts['excluded']} excluded")
    for key, value in sorted(counts.items()):
        print(f"  {value:7d}  {key}")
    _report(categories, args.examples, args.corpus, args.oracle)
    if args.json:
        _save(args.json, categories)
    return 1 if counts["differ"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_case_options(ap, replay_help="re-run the cases saved by --json (with the same --corpus)")
    ap.add_argument("--corpus", help="a folder of more .jinja templates (read only), after the holdout ones")
    ap.add_argument("--oracle", help="the folder of hf_env.py (transformers' apply_chat_template with Jinja2, e.g. "
                    "../shared/oracle): each case also goes through mj.apply_chat_template and it, with the inputs "
                    "before transformers' processing (and continue_final_message now and then)")
    args = ap.parse_args()
    TEMPLATES.extend(load_templates(args.corpus))
    if args.oracle:
        ORACLE.append(load_oracle(args.oracle))

    if args.case is not None:
        case = case_for(args.case, TEMPLATES)
        print(case.describe())
        warnings.simplefilter("ignore")
        print(compare_chat(case, *ORACLE))
        return 0
    return _run(case_seeds(args), args)


if __name__ == "__main__":
    sys.exit(main())
