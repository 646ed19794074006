#!/usr/bin/env python3
"""Warm render as conversations grow: minijinja_py against Jinja2 at 10, 50, 200 and 1000 messages.

Every template of ../shared/corpus/templates, benchmarks/holdout/ and benchmarks/holdout2/ (--sets picks some),
pre-compiled (compile excluded), rendered with conversations of each --sizes length after transformers' input
processing, by ../shared/tools/perf's own engines and interleaved timing (imported, not copied: the ratio is
warm.py's paired median of CPU times). A conversation is one of the shared corpus contexts (the first of warm.py's
BASES that Jinja2 renders as text at every size: with tool calls and tool results where the template takes them)
cycled to the length, each message a copy of its own with its tool calls' arguments told apart (real data shares
no objects between messages), its texts lengthened to realistic sizes (user turns of about 150-600 characters,
assistant turns of about 300-1,500, over several lines); where Jinja2 refuses the lengthened texts, the base's own
are kept. A template counts at a size only where our output equals Jinja2's. Prints per size the geomean and the
worst ratio and every template above 1.0x; with --baseline DIR, the same for another checkout's package (imported
under another name) timed in the same interleaved rounds, so that before and after compare under the same load.

  python benchmarks/bench_scaling.py --project . [--sizes 10 50 200 1000] [--sets corpus holdout holdout2]
      [--rounds 5] [--target 0.004] [--only SUBSTRING ...] [--show-all] [--baseline ../main]
"""
import argparse
import copy
import gc
import importlib.util
import json
import os
import sys

from warm_holdout import DEFAULT_SHARED, HERE, holdout_names, read_template, shared_perf

SENTENCES = (
    "Sure, here is a short overview of the main points you asked about.",
    "The configuration file lives in the project root and is read once at start-up.",
    "Could you also explain how the retry logic behaves when the server times out?",
    "In practice the difference is small, but it matters for very long inputs.",
    "I tried the command again and it printed the same warning as before.",
    "First, check the version; second, clear the cache; third, run the tests again.",
    "Here is the function:\n\n```python\ndef total(xs):\n    return sum(x for x in xs if x > 0)\n```",
    "That should fix the problem; let me know if anything else comes up.",
)


def text_of(index, low, high):
    """Deterministic multi-line text of about low..high characters, different for each index."""
    want = low + (index * 7919) % (high - low)
    parts, i = [], index
    while sum(map(len, parts)) < want:
        parts.append(SENTENCES[i % len(SENTENCES)])
        i += 3
    return "\n".join(" ".join(parts[k:k + 2]) for k in range(0, len(parts), 2))


def varied_arguments(arguments, index):
    """A tool call's arguments (a dict or its JSON text) with their first string value told apart by index."""
    data = json.loads(arguments) if isinstance(arguments, str) else arguments
    if not isinstance(data, dict):
        return arguments
    for key, value in data.items():
        if isinstance(value, str):
            data[key] = f"{value} ({index})"
            break
    return json.dumps(data) if isinstance(arguments, str) else data


def grown(ctx, n, lengthen):
    """The base context's conversation cycled to n messages, each a copy of its own (no two messages share an
    object, as in real data), tool calls' arguments told apart, texts lengthened if asked (a new context)."""
    ctx = dict(ctx)
    base = ctx["messages"]
    messages = []
    for i in range(n):
        m = copy.deepcopy(base[i % len(base)])
        if lengthen and isinstance(m.get("content"), str) and m["content"] and m.get("role") in ("user", "assistant"):
            m["content"] = text_of(i, *((150, 600) if m["role"] == "user" else (300, 1500)))
        for call in m.get("tool_calls") or ():
            function = call.get("function", call) if isinstance(call, dict) else None
            if isinstance(function, dict) and "arguments" in function:
                function["arguments"] = varied_arguments(function["arguments"], i)
        messages.append(m)
    ctx["messages"] = messages
    return ctx


def contexts_for(common, warm, source, sizes, j2, compiled):
    """-> {size: render kwargs} for the first base (and lengthening) Jinja2 renders at every size, or None."""
    for lengthen in (True, False):
        for base in warm.BASES:
            ctx = common.load_context(base)
            kws = {n: common.render_kwargs(grown(ctx, n, lengthen)) for n in sizes}
            if all(isinstance(common.outcome(lambda: j2.render(compiled, kw)), str) for kw in kws.values()):
                return kws
    return None


def measure(common, engines, source, kws, rounds, target):
    """-> {size: {engine name: ratio vs Jinja2} or a reason it is not measured}; engines: {name: engine}, Jinja2's
    named "Jinja2", all timed interleaved."""
    j2 = engines["Jinja2"]
    compiled = {name: common.outcome(lambda: engine.compile(source)) for name, engine in engines.items()}
    out = {}
    for n, kw in kws.items():
        ref = j2.render(compiled["Jinja2"], kw)
        fns = {name: (lambda e=engine, t=compiled[name]: e.render(t, kw)) for name, engine in engines.items()}
        wrong = [name for name in fns if common.outcome(fns[name]) != ref]
        if wrong:
            out[n] = f"{', '.join(wrong)}: output differs from Jinja2 (or no compile)"
            continue
        gc.collect()
        t = common.interleaved(fns, rounds, target)
        out[n] = {name: common.paired_ratio(t[name], t["Jinja2"]) for name in engines if name != "Jinja2"}
    return out


class ChatBudget:
    """The shared engine's environment with a chat render's step budget for the longest conversation (ChatTemplate
    gives steps_per_message more per message and tool, and steps_per_character more per character of the
    messages, here at most 1,500 a message): Environment's fixed default refuses some long ones."""

    def __init__(self, mj, messages, now):
        limits = mj.Limits()
        self.limits = mj.Limits(max_steps=limits.max_steps + limits.steps_per_message * (messages + 10)
                                + getattr(limits, "steps_per_character", 0) * 1_500 * messages)
        self.mj, self.now = mj, now

    def compile(self, source):
        return self.mj.chat_environment(now=lambda: self.now, limits=self.limits).from_string(source)

    def render(self, template, kw):
        return template.render(**kw)


def template_sources(common, sets, only):
    found = []
    if "corpus" in sets:
        folder = os.path.join(common.CORPUS, "templates")
        found += [("corpus/" + f[:-6], common.template_source(f[:-6])) for f in sorted(os.listdir(folder))
                  if f.endswith(".jinja")]
    for name in ("holdout", "holdout2"):
        if name in sets:
            folder = os.path.join(HERE, name)
            found += [(f"{name}/{t}", read_template(t, folder)) for t in holdout_names(folder)]
    return [(name, src) for name, src in found if not only or any(part in name for part in only)]


def report(sizes, ratios, common, show_all, name="ours"):
    print(f"\n{name}: {'size':>6} {'templates':>9} {'geomean':>8} {'worst':>7}  worst template")
    above = []
    for n in sizes:
        got = {t: r[n][name] for t, r in ratios.items() if isinstance(r.get(n), dict)}
        if not got:
            continue
        worst = max(got, key=got.get)
        print(f"{name}: {n:6} {len(got):9} {common.geomean(got.values()):7.2f}x {got[worst]:6.2f}x  {worst}")
        above += [(n, t, r) for t, r in got.items() if r > 1.0]
    print(f"{name}: above 1.0x: " + (", ".join(f"{t} at {n} ({r:.2f}x)" for n, t, r in above) or "none"))
    if show_all:
        for t, r in sorted(ratios.items()):
            print(f"  {t:60} " + " ".join(f"{r[n][name]:5.2f}" if isinstance(r.get(n), dict) else "    -"
                                           for n in sizes))
    return 1 if above else 0


def load_as(alias, project):
    """Another checkout's minijinja_py imported under another name (its modules import each other relatively)."""
    init = os.path.join(os.path.abspath(project), "minijinja_py", "__init__.py")
    spec = importlib.util.spec_from_file_location(alias, init, submodule_search_locations=[os.path.dirname(init)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", default=".")
    ap.add_argument("--shared", default=DEFAULT_SHARED)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200, 1000])
    ap.add_argument("--sets", nargs="+", choices=("corpus", "holdout", "holdout2"),
                    default=["corpus", "holdout", "holdout2"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--target", type=float, default=0.004, help="seconds per timed batch")
    ap.add_argument("--only", nargs="+", help="only templates whose name contains one of these")
    ap.add_argument("--show-all", action="store_true", help="every template's ratio per size")
    ap.add_argument("--baseline", help="another checkout (e.g. ../main) timed in the same rounds, reported after")
    a = ap.parse_args()
    warm, common = shared_perf(a.shared)
    mj, err = common.import_ours(a.project)
    if mj is None:
        raise SystemExit(f"cannot import minijinja_py ({err})")
    engines = {"ours": ChatBudget(mj, max(a.sizes), common.NOW), "Jinja2": common.Jinja2()}
    if a.baseline:
        engines["baseline"] = ChatBudget(load_as("minijinja_py_baseline", a.baseline), max(a.sizes), common.NOW)
    ratios, skipped = {}, []
    for name, source in template_sources(common, a.sets, a.only):
        compiled = common.outcome(lambda: engines["Jinja2"].compile(source))
        kws = None if isinstance(compiled, Exception) else contexts_for(common, warm, source, a.sizes,
                                                                         engines["Jinja2"], compiled)
        if kws is None:
            skipped.append(name)
            continue
        ratios[name] = measure(common, engines, source, kws, a.rounds, a.target)
        reasons = {r for r in ratios[name].values() if isinstance(r, str)}
        if reasons:
            print(f"not measured at every size: {name}: {', '.join(sorted(reasons))}", file=sys.stderr)
    print(f"{len(ratios)} templates measured; {len(skipped)} that Jinja2 renders at no size with any base "
          f"({', '.join(skipped[:6])}{', ...' if len(skipped) > 6 else ''})")
    status = report(a.sizes, ratios, common, a.show_all)
    if a.baseline:
        report(a.sizes, ratios, common, a.show_all, "baseline")
    return status


if __name__ == "__main__":
    sys.exit(main())
