#!/usr/bin/env python3
"""Warm render benchmark on the holdout: real chat templates that are not in the shared corpus
(benchmarks/holdout/ by default, or another such folder with --holdout, e.g. benchmarks/holdout2/; where each
comes from in the folder's SOURCES.md) -> the figures of
../shared/tools/perf/warm.py for templates the engine was never tuned on.

The measurement is warm.py's own, imported from the shared folder (not copied), so the figures compare with the
corpus ones: only the template list and sources change. warm.py takes a template's base conversation (the first of
its BASES the template renders as text) from the corpus reference renderings; the holdout has none, so here it is
the first base that Jinja2, as transformers configures it (../shared/oracle/hf_env.py), renders as text. Every other
option goes to warm.py unchanged (--project, --budget, --rounds, --target, --max-geomean, --max-worst, and any
switch warm.py grows later), and the last line is warm.py's: geomean vs Jinja2, worst, excluded. --slowest N also
lists the N slowest templates (warm.py prints 5), on stderr after that line.

  python benchmarks/warm_holdout.py --project . [--shared ../shared] [--holdout DIR] [--slowest N] [warm.py options]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HOLDOUT = os.path.join(HERE, "holdout")
DEFAULT_SHARED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared")


def holdout_names(folder=HOLDOUT):
    return sorted(f[: -len(".jinja")] for f in os.listdir(folder) if f.endswith(".jinja"))


def read_template(name, folder=HOLDOUT):
    with open(os.path.join(folder, name + ".jinja"), encoding="utf-8", newline="") as f:
        return f.read()


def shared_perf(shared):
    """-> (warm, common): the shared benchmark modules, imported from shared/tools/perf."""
    sys.path.insert(0, os.path.join(os.path.abspath(shared), "tools", "perf"))
    import common
    import warm
    return warm, common


def renders_as_text(common, src, base):
    """Does Jinja2 (transformers' environment and input processing) render this base conversation as text?"""
    try:
        common.hf_env.render_chat(src, **common.load_context(base))
    except Exception:  # noqa: BLE001 - any refusal means "not this base", as an .error golden does
        return False
    return True


def use_holdout(common, folder):
    """Point the shared module's corpus accessors at the holdout templates."""
    sources = {name: read_template(name, folder) for name in holdout_names(folder)}
    common.template_source = sources.__getitem__
    common.templates_with_text_golden = lambda base: sorted(
        name for name, src in sources.items() if renders_as_text(common, src, base))


def record_ratios(warm):
    """Wrap warm.measure so that each template's last ratio (as warm.main keeps it) is also kept here."""
    ratios, measure = {}, warm.measure

    def recording(name, *args):
        r, m, why = measure(name, *args)
        if not why:
            ratios[name] = r
        return r, m, why
    warm.measure = recording
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=DEFAULT_SHARED, help="the shared folder (tools/perf, oracle, corpus)")
    ap.add_argument("--holdout", default=HOLDOUT, help="folder of <source>__<name>.jinja templates")
    ap.add_argument("--slowest", type=int, default=0, help="list this many slowest templates on stderr")
    own, rest = ap.parse_known_args()
    warm, common = shared_perf(own.shared)
    use_holdout(common, own.holdout)
    ratios = record_ratios(warm)
    sys.argv = [sys.argv[0]] + rest
    status = warm.main()
    for name in sorted(ratios, key=ratios.get, reverse=True)[: own.slowest]:
        print(f"slowest: {name} {ratios[name]:.2f}x Jinja2", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
