#!/usr/bin/env python3
"""Side-by-side benchmark: minijinja_py vs Jinja2 (as transformers configures it) vs the Rust `minijinja`
binding, on real chat templates, measured in one run on one machine.

    pip install -e '.[bench]' --config-settings editable_mode=strict
    python benchmarks/bench_render.py [--corpus ../shared/corpus] [--repeat 5] [--number 200]

For each template of the corpus that all engines render, it times
  * compile: turning the source into a renderable template (fresh environment each time, no caches);
  * render:  rendering one conversation with a compiled template (the chat path: input processing included
             for minijinja_py's ChatTemplate and for the transformers reference, which both do it);
and prints per-engine medians and the ratios (Jinja2 time / minijinja_py time: > 1 means we are faster).
Memory, with tracemalloc (Python allocations only, so not for the Rust binding, whose memory it cannot see):
  * render peak: the most memory one render has allocated at once, inputs processing included;
  * compiled size: what a compiled template keeps alive.
The Rust minijinja binding renders with its own semantics (its tojson and whitespace rules differ in places);
its numbers are for scale only, and templates it fails on are skipped for it.
Timings use time.perf_counter; take the best of --repeat runs of --number iterations (timeit style).
"""

import argparse
import datetime
import gc
import json
import os
import statistics
import sys
import timeit
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import minijinja_py as mj  # noqa: E402

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)


def load_corpus(corpus, context_name):
    with open(os.path.join(corpus, "contexts", context_name + ".json"), encoding="utf-8") as f:
        ctx = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    templates = {}
    tdir = os.path.join(corpus, "templates")
    for fname in sorted(os.listdir(tdir)):
        if fname.endswith(".jinja"):
            with open(os.path.join(tdir, fname), encoding="utf-8", newline="") as f:
                templates[fname[:-6]] = f.read()
    return templates, ctx


def split_context(ctx):
    ctx = dict(ctx)
    messages = ctx.pop("messages")
    return messages, ctx.pop("tools", None), ctx.pop("documents", None), ctx.pop("add_generation_prompt", False), ctx


def best(fn, repeat, number):
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def traced(fn):
    """(peak bytes allocated while fn() runs, bytes still held after it, fn's result) — Python allocations."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
        gc.collect()  # what is still held, not the garbage in reference cycles that a collection frees
        current = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return peak, current, result


def engines(oracle_dir):
    """name → (compile(source) -> handle, render(handle, ctx) -> str)"""
    out = {}

    def mj_compile(source):
        return mj.ChatTemplate(source, now=lambda: FIXED_NOW)

    def mj_render(ct, ctx):
        messages, tools, documents, agp, kw = split_context(ctx)
        return ct.render(messages, tools=tools, documents=documents, add_generation_prompt=agp, **kw)

    def mj_compile_uncached(source):
        # the Environment caches compiled templates; a fresh one per call measures real compilation
        return mj_compile(source)

    out["minijinja_py"] = (mj_compile_uncached, mj_render)

    try:
        sys.path.insert(0, oracle_dir)
        import hf_env  # Jinja2 configured as transformers configures it

        hf_env.set_fixed_now(FIXED_NOW)

        def j2_compile(source):
            return hf_env.make_env().from_string(source)

        def j2_render(compiled, ctx):
            messages, tools, documents, agp, kw = split_context(ctx)
            chat, tools, documents, kw = hf_env.prepare_inputs(messages, tools, documents, **kw)
            return compiled.render(messages=chat, tools=tools, documents=documents, add_generation_prompt=agp,
                                   **kw)
        out["jinja2"] = (j2_compile, j2_render)
    except ImportError as exc:
        print(f"(jinja2 reference unavailable: {exc})")

    try:
        import minijinja

        def rs_compile(source):
            env = minijinja.Environment()
            env.trim_blocks = True
            env.lstrip_blocks = True
            env.add_function("raise_exception", lambda msg: (_ for _ in ()).throw(Exception(msg)))
            env.add_function("strftime_now", lambda fmt: FIXED_NOW.strftime(fmt))
            env.add_template("t", source)
            return env

        def rs_render(env, ctx):
            messages, tools, documents, agp, kw = split_context(ctx)
            return env.render_template("t", messages=messages, tools=tools, documents=documents,
                                       add_generation_prompt=agp, **kw)
        out["minijinja (Rust)"] = (rs_compile, rs_render)
    except ImportError as exc:
        print(f"(Rust minijinja binding unavailable: {exc})")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus"))
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--context", default="tool_use_openai,multi_turn_no_gen",
                    help="comma-separated conversations of the corpus (each template is timed with each)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--number", type=int, default=50)
    ap.add_argument("--compile-number", type=int, default=5)
    ap.add_argument("--only", help="substring of template names to include")
    ap.add_argument("--worst", type=int, default=0, help="name the N templates with the lowest render ratio")
    args = ap.parse_args()

    pairs = {}   # "template@context" → (source, context)
    for context_name in args.context.split(","):
        templates, ctx = load_corpus(args.corpus, context_name)
        for tname, source in templates.items():
            if not args.only or args.only in tname:
                pairs[f"{tname}@{context_name}"] = (source, ctx)
    table = engines(args.oracle)
    results = {name: {"compile": {}, "render": {}, "peak": {}, "size": {}} for name in table}
    for tname, (source, ctx) in pairs.items():
        for ename, (compile_, render) in table.items():
            try:
                handle = compile_(source)
                render(handle, ctx)
            except Exception:  # noqa: BLE001 - an engine that cannot render this pair is skipped for it
                continue
            results[ename]["render"][tname] = best(lambda: render(handle, ctx), args.repeat, args.number)
            results[ename]["compile"][tname] = best(lambda: compile_(source), args.repeat, args.compile_number)
            if ename != "minijinja (Rust)":
                results[ename]["peak"][tname] = traced(lambda: render(handle, ctx))[0]
                results[ename]["size"][tname] = traced(lambda: compile_(source))[1]

    common = set(pairs)
    for ename in ("minijinja_py", "jinja2"):
        if ename in results:
            common &= set(results[ename]["render"])
    print(f"contexts: {args.context}; template × context pairs rendered by minijinja_py and Jinja2: {len(common)} "
          f"of {len(pairs)}")
    print(f"{'engine':<18}{'render median (µs)':>20}{'compile median (ms)':>22}{'render peak (KB)':>18}"
          f"{'compiled (KB)':>15}{'templates':>11}")
    for ename, res in results.items():
        names = [t for t in common if t in res["render"]]
        if not names:
            continue
        r = statistics.median(res["render"][t] for t in names) * 1e6
        c = statistics.median(res["compile"][t] for t in names) * 1e3
        if res["peak"]:
            peak = f"{statistics.median(res['peak'][t] for t in names) / 1024:>18.1f}"
            size = f"{statistics.median(res['size'][t] for t in names) / 1024:>15.1f}"
        else:
            peak, size = f"{'n/a':>18}", f"{'n/a':>15}"
        print(f"{ename:<18}{r:>20.1f}{c:>22.2f}{peak}{size}{len(names):>11}")
    if "jinja2" in results:
        for what in ("render", "compile", "peak", "size"):
            named = sorted((results["jinja2"][what][t] / results["minijinja_py"][what][t], t) for t in common)
            ratios = [r for r, _ in named]
            if args.worst and what == "render":
                print("  slowest against Jinja2: " + ", ".join(f"{t} {r:.2f}" for r, t in named[:args.worst]))
            measure = "time" if what in ("render", "compile") else "memory"
            label = {"peak": "render peak", "size": "compiled size"}.get(what, what)
            print(f"{label}: Jinja2 {measure} / minijinja_py {measure} — median {statistics.median(ratios):.2f}, "
                  f"min {ratios[0]:.2f}, max {ratios[-1]:.2f} (> 1: minijinja_py "
                  f"{'faster' if measure == 'time' else 'smaller'})")
        rust = results.get("minijinja (Rust)")
        if rust:
            names = [t for t in common if t in rust["render"]]
            ratios = sorted(rust["render"][t] / results["minijinja_py"]["render"][t] for t in names)
            if ratios:
                print(f"render: Rust minijinja time / minijinja_py time — median {statistics.median(ratios):.2f} "
                      f"over {len(names)} templates")


if __name__ == "__main__":
    main()
