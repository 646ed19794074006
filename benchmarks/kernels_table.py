#!/usr/bin/env python3
"""Kernel table: every registry entry (kernels/select.py) → how many corpus templates choose it, and what the whole
warm benchmark loses without it.

Templates: all corpus templates for the count; warm.py's (every corpus template with a text reference rendering
for one of its base conversations, with the same two contexts: the base conversation and 200 messages of it) for
the gain. The gain of an entry is the geometric mean, over all the warm templates, of render time without the
entry / render time with everything on (templates that do not choose it count 1.0): the two are compiled in
one process and timed interleaved round by round, a ratio being the median of paired ratios (warm.py's method,
../shared/tools/perf/common.py). The rule (issue 22): an entry chosen by fewer than 5 corpus templates or gaining
less than 1% goes.

    python benchmarks/kernels_table.py [--shared ../shared] [--rounds 5] [--only NAME]
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import minijinja_py as mj  # noqa: E402
from minijinja_py.kernels import select  # noqa: E402


def shared_perf(shared):
    sys.path.insert(0, os.path.join(os.path.abspath(shared), "tools", "perf"))
    import common
    import warm
    return common, warm


def entries():
    return sorted({entry.name for entry in select.REGISTRY.values()})


def chosen_by(common, names):
    """{entry: the corpus templates whose compile chooses it}."""
    templates = sorted(f[:-6] for f in os.listdir(os.path.join(common.CORPUS, "templates")) if f.endswith(".jinja"))
    found = {name: set() for name in names}
    for template in templates:
        with select.recording() as chosen:
            try:
                mj.chat_environment().from_string(common.template_source(template))
            except mj.TemplateError:
                continue
        for name in chosen:
            found.setdefault(name, set()).add(template)
    return found


def compiled(common, source, disabled=()):
    previous = select.configure(disabled=disabled)
    try:
        return mj.chat_environment(now=lambda: common.NOW).from_string(source)
    finally:
        select.configure(*previous)


def slowdown(common, warm, name, templates, base_of, rounds):
    """Render time without the entry / with it, per warm template that chooses it (geomean over its contexts)."""
    ratios = {}
    for template in sorted(templates):
        if template not in base_of:
            continue
        source = common.template_source(template)
        on, off = compiled(common, source), compiled(common, source, (name,))
        per_context = []
        for kw in warm.contexts_for(base_of[template]).values():
            reference = common.outcome(lambda: on.render(**kw))
            if isinstance(reference, Exception) or common.outcome(lambda: off.render(**kw)) != reference:
                continue
            times = common.interleaved({"on": lambda: on.render(**kw), "off": lambda: off.render(**kw)}, rounds,
                                       0.002)
            per_context.append(common.paired_ratio(times["off"], times["on"]))
        if per_context:
            ratios[template] = common.geomean(per_context)
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=None, help="measure this entry only")
    a = ap.parse_args()
    common, warm = shared_perf(a.shared)
    base_of = {}
    for base in reversed(warm.BASES):
        base_of.update(dict.fromkeys(common.templates_with_text_golden(base), base))
    names = [a.only] if a.only else entries()
    found = chosen_by(common, names)
    print(f"{'entry':28s} {'templates':>9s} {'warm gain':>9s}  (over {len(base_of)} warm templates)")
    for name in names:
        ratios = slowdown(common, warm, name, found.get(name, ()), base_of, a.rounds)
        gain = math.exp(sum(math.log(r) for r in ratios.values()) / len(base_of)) - 1 if ratios else 0.0
        verdict = "" if len(found.get(name, ())) >= 5 and gain >= 0.01 else "  <- below the rule"
        print(f"{name:28s} {len(found.get(name, ())):9d} {gain * 100:8.1f}%{verdict}", flush=True)


if __name__ == "__main__":
    main()
