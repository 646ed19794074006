#!/usr/bin/env python3
"""A very long conversation with the default limits: minijinja_py against Jinja2 as transformers configures it.

    python benchmarks/bench_long_conversation.py [--messages 100000] [--corpus]

For each shipped template (or, with --corpus, each template of ../shared/corpus) it renders one conversation of
--messages alternating user/assistant turns with add_generation_prompt=True, once with ChatTemplate's default
Limits and once with Jinja2 (../shared/oracle/hf_env.py: transformers' environment and input processing), and
reports both times (compile excluded), whether the prompts are identical, and whether the same render is refused
with a fixed step budget (Limits(steps_per_message=0): what the default was before the budget grew with the
conversation). Needs jinja2 and ../shared.
"""

import argparse
import datetime
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(SHARED, "oracle"))

import hf_env  # noqa: E402
import minijinja_py as mj  # noqa: E402

NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)
SPECIAL = {"bos_token": "<s>", "eos_token": "</s>"}


def conversation(count):
    return [{"role": ("user", "assistant")[i % 2], "content": f"Message {i}: how are things going today?"}
            for i in range(count - 1 + count % 2)]   # odd length: ends with a user turn


def templates(corpus):
    if not corpus:
        return [(name, mj.seed_template(name)) for name in mj.seed_template_names()]
    folder = os.path.join(SHARED, "corpus", "templates")
    found = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8", newline="") as f:
            found.append((name[:-len(".jinja")], f.read()))
    return found


def timed(render):
    start = time.perf_counter()
    try:
        result = render()
    except Exception as exc:  # noqa: BLE001 - reported as the outcome
        result = exc
    return result, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--corpus", action="store_true", help="every corpus template instead of the shipped ones")
    args = ap.parse_args()
    hf_env.set_fixed_now(NOW)
    messages = conversation(args.messages)
    print(f"{len(messages)} messages, default limits {mj.Limits()}")
    print(f"{'template':34} {'minijinja_py':>13} {'Jinja2':>9} {'ratio':>6}  prompt      fixed budget")
    totals = [0.0, 0.0, 0, 0]
    for name, source in templates(args.corpus):
        try:
            ct = mj.ChatTemplate(source, now=NOW)
        except mj.TemplateSyntaxError:
            print(f"{name[:34]:34} does not compile (a deliberately broken template)")
            continue
        hf_env.compile_template(source)   # compiled outside the timing, as ChatTemplate is
        ours, ours_s = timed(lambda: ct.render(messages, add_generation_prompt=True, **SPECIAL))
        ref, ref_s = timed(lambda: hf_env.render_chat(source, messages, add_generation_prompt=True, **SPECIAL))
        if isinstance(ours, str) and isinstance(ref, str):
            outcome = "identical" if ours == ref else "DIFFERENT"
            totals[0] += ours_s
            totals[1] += ref_s
            totals[2] += 1
            totals[3] += ours != ref
        elif isinstance(ours, str) or isinstance(ref, str):
            outcome = "ours: " + (f"{len(ours)} chars" if isinstance(ours, str) else type(ours).__name__) + \
                      ", Jinja2: " + (f"{len(ref)} chars" if isinstance(ref, str) else type(ref).__name__)
        else:
            outcome = "both raise"
        fixed = "-"
        if isinstance(ours, str):
            capped = mj.ChatTemplate(source, now=NOW, limits=mj.Limits(steps_per_message=0))
            refused, _ = timed(lambda: capped.render(messages, add_generation_prompt=True, **SPECIAL))
            fixed = f"refused ({refused.limit})" if isinstance(refused, mj.LimitExceeded) else "renders"
        print(f"{name[:34]:34} {ours_s:12.2f}s {ref_s:8.2f}s {ref_s / ours_s:5.2f}x  {outcome:11} {fixed}")
    if totals[2]:
        print(f"rendered by both: {totals[2]} templates, {totals[3]} different; total {totals[0]:.1f} s "
              f"(minijinja_py) vs {totals[1]:.1f} s (Jinja2)")
    return 1 if totals[3] else 0


if __name__ == "__main__":
    sys.exit(main())
