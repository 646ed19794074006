"""The hostile suite's status, outside pytest: `python tools/hostile_report.py [options] [ID-PREFIX ...]`.

  (default)          every case (or those whose id starts with a prefix) against minijinja_py: the failing ones,
                     grouped by id prefix, each with its failure classes and problems; then a tally
  --engine jinja2    what Jinja2 (as transformers configures it) does with each case, next to the expectation:
                     where a case expects output, Jinja2 should print the same (where it finishes at all)
  --measures FILE    also write every result (times, peak memory, ...) as JSON to FILE
  --from FILE        report on the results test_hostile.py kept (HOSTILE_RESULTS=FILE) instead of running
"""

import json
import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "support"))

import hostile_runner  # noqa: E402
from hostile_bounds import ALL_CASES  # noqa: E402


def main(argv):
    engine, measures, saved, prefixes = "minijinja_py", None, None, []
    args = iter(argv)
    for arg in args:
        if arg == "--engine":
            engine = next(args)
        elif arg == "--measures":
            measures = next(args)
        elif arg == "--from":
            saved = next(args)
        else:
            prefixes.append(arg)
    cases = [c for c in ALL_CASES if not prefixes or c.id.startswith(tuple(prefixes))]
    if saved:
        with open(saved) as file:
            stored = json.load(file)
        results, again = stored["results"], stored["again"]
    else:
        results = hostile_runner.run([{"id": c.id} for c in cases], engine=engine)
        stable = [{"id": c.id} for c in cases if c.expect[0] == "stable"]
        again = hostile_runner.run(stable, engine=engine, workers=1) if stable and engine != "jinja2" else {}
    if measures:
        with open(measures, "w") as out:
            json.dump(results, out, indent=1)
    if engine == "jinja2":
        _reference(cases, results)
    else:
        _status(cases, results, again)


# the issue's classes, in its order: (title, id prefixes)
ISSUE_CLASSES = (
    ("1. The process dies: deep data hashed by C code", ("hash/",)),
    ("2. Shared structure (t, t) hashed or compared", ("shared/", "dag/")),
    ("3. One render poisons the process", ("poison/",)),
    ("4. Memory before the check", ("prealloc/", "size/")),
    ("5. Seconds for a few steps", ("scan/", "time/")),
    ("6. Compile time", ("compile/", "source/")),
    ("7. Caller data changed", ("caller/", "mutate/", "input/")),
    ("8. Addresses and order", ("order/", "print/")),
    ("Also: is sequence, add_generation_prompt", ("misc/",)),
    ("Sandbox: underscore names", ("underscore/", "ssti/")),
)


def _status(cases, results, again):
    groups = defaultdict(list)
    tally = Counter()
    for case in cases:
        found = hostile_runner.problems(case, results.get(case.id), again.get(case.id))
        if found:
            classes = sorted({hostile_runner.failure_class(p) for p in found})
            title = next((t for t, prefixes in ISSUE_CLASSES if case.id.startswith(prefixes)), "Other")
            groups[title].append((case.id, classes, found))
            tally.update(classes)
    for title in [t for t, _ in ISSUE_CLASSES] + ["Other"]:
        failures = groups.get(title)
        if not failures:
            continue
        counts = Counter(c for _, classes, _ in failures for c in classes)
        print(f"\n### {title}: {len(failures)} failing ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})\n")
        for case_id, classes, found in failures:
            print(f"- `{case_id}` [{', '.join(classes)}]: {_one_line('; '.join(found))}")
    failing = sum(len(f) for f in groups.values())
    print(f"\n{len(cases) - failing}/{len(cases)} pass; failing cases by class of failure (a case can have "
          f"several): {dict(sorted(tally.items()))}")


def _one_line(text, width=300):
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + " ..."


def _reference(cases, results):
    for case in cases:
        got = results.get(case.id) or {"kind": "missing"}
        if got["kind"] == "out":
            shown = repr(got["output"][:150])
            agrees = case.expect[0] == "out" and got["output"] == case.expect[1]
        elif got["kind"] == "error":
            shown = f"{got['classes'][0]}: {got['message'][:150]!r}"
            agrees = case.expect[0] == "error" and case.expect[1] in got["classes"]
        else:
            shown = f"{got['kind']}: {got.get('detail', '')}"
            agrees = False
        mark = "same" if agrees else "DIFF"
        print(f"{mark} {case.id}: jinja2 {shown} | expected {case.expect[0]} {str(case.expect[1:])[:150]}"
              f" ({got.get('wall_s', '-')} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
