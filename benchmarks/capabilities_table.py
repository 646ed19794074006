#!/usr/bin/env python3
"""The capabilities of every template of the corpus, as a table, and the time to decide them.

    python benchmarks/capabilities_table.py [--corpus ../shared/corpus] [--repeat 5] [--markdown] [--no-reference]

For each template (../shared/corpus/templates/*.jinja, or the shipped templates/ when no corpus is found) it
compiles one ChatTemplate (clock frozen at 2026-01-15 09:05:03, the reference's) and decides all 18 fields with
it (decide_capabilities: every probe through the same compiled template), timed with time.perf_counter (wall) and
time.process_time (CPU): the best of --repeat runs per template, then the median and the worst over templates.
Compiling is not included.

With jinja2 and ../shared/oracle/hf_env.py available (and unless --no-reference), the same probes are also
decided through the reference renderer (hf_env: Jinja2 as transformers configures it) and every template whose
answer differs is listed; the last line counts them.
"""

import argparse
import datetime
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import minijinja_py as mj  # noqa: E402
from minijinja_py.chat.capabilities import Capabilities, decide, decide_capabilities  # noqa: E402

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)
SHORT = {   # column headers
    "string_content": "str", "typed_content": "typed", "system_role": "sys", "add_generation_prompt": "agp",
    "alternating_roles": "alt", "tools": "tools", "requires_tools": "req", "tool_calls": "calls",
    "tool_call_arguments": "args", "tool_responses": "resp", "tool_call_id": "id", "parallel_tool_calls": "par",
    "non_null_content": "nn", "reasoning": "think", "reasoning_in_history": "hist", "enable_thinking": "et",
    "documents": "docs", "generation_tag": "gen",
}


def load_templates(corpus):
    folder = os.path.join(corpus, "templates") if corpus else os.path.join(ROOT, "templates")
    templates = {}
    for fname in sorted(os.listdir(folder)):
        if fname.endswith(".jinja"):
            with open(os.path.join(folder, fname), encoding="utf-8", newline="") as f:
                templates[fname[:-len(".jinja")]] = f.read()
    return templates


def timed_capabilities(source, repeat):
    """(Capabilities, (best wall seconds, best CPU seconds) to decide them) or (the compile error, None).
    CPU time (time.process_time) is the steadier figure on a machine shared with other work."""
    try:
        template = mj.ChatTemplate(source, now=lambda: FIXED_NOW)
    except mj.TemplateError as exc:
        return exc, None
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        caps = decide_capabilities(template)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return caps, (wall, cpu)


def reference_decider():
    """capabilities(source) through hf_env, or None when jinja2 or the oracle is not available."""
    sys.path.insert(0, os.path.join(ROOT, "..", "shared", "oracle"))
    try:
        import hf_env
    except ImportError:
        return None
    hf_env.set_fixed_now(FIXED_NOW)

    def capabilities(source):
        try:
            hf_env.compile_template(source)
        except Exception as exc:  # noqa: BLE001 - not valid Jinja
            return exc

        def render(messages, **inputs):
            try:
                return hf_env.render_chat(source, messages, **inputs)
            except Exception:  # noqa: BLE001 - a probe that raises counts as "no"
                return None

        def render_spans(messages, **inputs):
            try:
                return hf_env.render_chat_with_generation_indices(source, messages, **inputs)[1]
            except Exception:  # noqa: BLE001
                return None
        return decide(render, render_spans)
    return capabilities


def cell(value):
    if isinstance(value, str):
        return {"none": "-", "object": "obj", "string": "str", "both": "both"}[value]
    return "x" if value else "."


def print_table(rows, markdown):
    headers = [SHORT[f] for f in Capabilities.FIELDS]
    if markdown:
        print("| template | " + " | ".join(headers) + " |")
        print("|---|" + "---|" * len(headers))
    else:
        print(" ".join(f"{h:>5}" for h in headers) + "  template")
    for name, caps in rows.items():
        cells = ([cell(getattr(caps, f)) for f in Capabilities.FIELDS] if isinstance(caps, Capabilities)
                 else [f"compile error: {type(caps).__name__}"])
        if markdown:
            print(f"| {name} | " + " | ".join(cells) + " |")
        else:
            print(" ".join(f"{c:>5}" for c in cells) + f"  {name}")


def print_totals(rows):
    decided = [caps for caps in rows.values() if isinstance(caps, Capabilities)]
    print(f"\n{len(decided)} templates decided ({len(rows) - len(decided)} do not compile); how many say yes:")
    for field in Capabilities.FIELDS:
        values = [getattr(caps, field) for caps in decided]
        if field == "tool_call_arguments":
            counts = {form: values.count(form) for form in ("object", "string", "both", "none")}
            print(f"  {field:<22} " + ", ".join(f"{form} {n}" for form, n in counts.items()))
        else:
            print(f"  {field:<22} {sum(values)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--no-reference", action="store_true", help="do not compare with hf_env")
    args = parser.parse_args()
    corpus = args.corpus if os.path.isdir(os.path.join(args.corpus, "templates")) else None
    templates = load_templates(corpus)

    rows, times = {}, {}
    for name, source in templates.items():
        rows[name], seconds = timed_capabilities(source, args.repeat)
        if seconds is not None:
            times[name] = seconds
    print_table(rows, args.markdown)
    print_totals(rows)
    print()
    for label, index in (("wall", 0), ("CPU", 1)):
        seconds = {name: pair[index] for name, pair in times.items()}
        worst = max(seconds, key=seconds.get)
        print(f"{label} time to decide all 18 fields (best of {args.repeat}, compile excluded), over {len(seconds)} "
              f"templates: median {statistics.median(seconds.values()) * 1000:.1f} ms, "
              f"worst {seconds[worst] * 1000:.1f} ms ({worst})")

    reference = None if args.no_reference else reference_decider()
    if reference is None:
        print("reference: not compared (no jinja2 or no ../shared/oracle/hf_env.py)")
        return 0
    differ = []
    for name, source in templates.items():
        expected, ours = reference(source), rows[name]
        both_fail = isinstance(expected, Exception) and isinstance(ours, Exception)
        if not both_fail and expected != ours:
            differ.append(name)
            print(f"DIFFERS {name}:\n  ours:      {ours}\n  reference: {expected}")
    print(f"reference (hf_env): {len(templates) - len(differ)} / {len(templates)} templates identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
