#!/usr/bin/env python3
"""Exactness probe on a holdout: every template of benchmarks/holdout/ (or of --holdout DIR, e.g.
benchmarks/holdout2/) x every conversation of ../shared/corpus/contexts, rendered by minijinja_py and by Jinja2 as
transformers configures it -> each pair whose output or error kind differs.

The reference is rendered here (the holdout has no stored goldens) with ../shared/oracle/hf_env.render_chat, the
clock frozen as in the corpus goldens; minijinja_py renders through ChatTemplate(source, now=...).render(...), as
../shared/tools/corpus_score.py does, and a pair is judged by corpus_score's own rule (imported, not copied): the
same text byte for byte, or, where Jinja2 raised, a TemplateError of the same kind; a non-TemplateError exception
or a render past 10 s is a failure.

  python benchmarks/holdout_exactness.py --project . [--shared ../shared] [--holdout DIR] [--show N] [--json FILE]
"""
import argparse
import json
import os
import sys
import time

from warm_holdout import DEFAULT_SHARED, HOLDOUT, holdout_names, read_template


def shared_tools(shared):
    """-> (corpus_score, hf_env, contexts folder), from the shared folder."""
    shared = os.path.abspath(shared)
    sys.path[:0] = [os.path.join(shared, "tools"), os.path.join(shared, "oracle")]
    import corpus_score
    import hf_env
    hf_env.set_fixed_now(corpus_score.FIXED_NOW)
    return corpus_score, hf_env, os.path.join(shared, "corpus", "contexts")


def load_contexts(folder):
    out = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                out[f[: -len(".json")]] = {k: v for k, v in json.load(fh).items() if not k.startswith("_")}
    return out


def reference(hf_env, src, ctx):
    """-> (text, None) or (None, "ExceptionClass: message"), as the corpus goldens record them."""
    try:
        return hf_env.render_chat(src, **ctx), None
    except Exception as exc:  # noqa: BLE001 - every outcome is a reference
        return None, f"{type(exc).__name__}: {exc}"


def ours(mj, now, src, ctx):
    c = dict(ctx)
    messages = c.pop("messages")
    return mj.ChatTemplate(src, now=lambda: now).render(
        messages, tools=c.pop("tools", None), documents=c.pop("documents", None),
        add_generation_prompt=c.pop("add_generation_prompt", False), **c)


def results(mj, cs, hf_env, contexts, folder):
    """Yields (template, context, ok, detail)."""
    for name in holdout_names(folder):
        src = read_template(name, folder)
        for cname, ctx in contexts.items():
            text, err = reference(hf_env, src, ctx)
            ok, detail = cs.check(mj, lambda: ours(mj, cs.FIXED_NOW, src, ctx), text, err)
            yield name, cname, ok, detail


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", default=os.getcwd())
    ap.add_argument("--shared", default=DEFAULT_SHARED)
    ap.add_argument("--holdout", default=HOLDOUT)
    ap.add_argument("--show", type=int, default=50, help="differences to print")
    ap.add_argument("--json", help="write every pair's result here")
    a = ap.parse_args()
    cs, hf_env, ctx_dir = shared_tools(a.shared)
    sys.path.insert(0, os.path.abspath(a.project))
    import minijinja_py as mj
    start = time.perf_counter()
    rows = list(results(mj, cs, hf_env, load_contexts(ctx_dir), a.holdout))
    failed = [r for r in rows if not r[2]]
    for name, cname, _, detail in failed[: a.show]:
        print(f"DIFF {name} x {cname}: {detail}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump([dict(template=n, context=c, ok=ok, detail=d) for n, c, ok, d in rows], fh, indent=1,
                      ensure_ascii=False)
    print(f"holdout pairs: {len(rows) - len(failed)} of {len(rows)} match Jinja2, {len(failed)} differ "
          f"({len({r[0] for r in rows})} templates, {time.perf_counter() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
