#!/usr/bin/env python3
"""Retained memory per compiled template: corpus sources → what each compiled template keeps alive, in KiB.

The templates are warm.py's: every corpus template with a text reference rendering for one of its base
conversations (130). Each is compiled by a fresh chat_environment (made before measuring) while tracemalloc
runs (after a first pass over them all, which pays the one-time costs); after a full collection, what is still allocated while the template is held is its size (its source
text, the closures and the constants they hold; Python allocations only). Prints the mean, the median and the
largest, with MINIJINJA_PY_GENERAL_ONLY=1 the general closures' figure.

    python benchmarks/memory.py [--corpus ../shared/corpus] [--top 5]
"""

import argparse
import gc
import os
import statistics
import sys
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import minijinja_py as mj  # noqa: E402

BASES = ("minja_tool_use", "tool_use_openai", "minja_system", "minja_simple", "multi_turn_no_gen", "single_user")


def warm_templates(corpus):
    """The names warm.py measures: templates with a text golden for one of BASES."""
    goldens = os.listdir(os.path.join(corpus, "goldens"))
    return sorted({name[: -len(f"__{base}.txt")] for base in BASES for name in goldens
                   if name.endswith(f"__{base}.txt")})


def retained(source):
    """KiB a compiled template keeps alive."""
    env = mj.chat_environment()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        template = env.from_string(source)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del template
    return (after - before) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(HERE), "..", "shared", "corpus"))
    ap.add_argument("--top", type=int, default=5)
    a = ap.parse_args()
    sources = {}
    for name in warm_templates(a.corpus):
        with open(os.path.join(a.corpus, "templates", name + ".jinja"), encoding="utf-8", newline="") as f:
            sources[name] = f.read()
    for source in sources.values():   # a first pass pays the one-time costs (parser tables, lazy imports)
        retained(source)
    sizes = {name: retained(source) for name, source in sources.items()}
    for name in sorted(sizes, key=sizes.get, reverse=True)[:a.top]:
        print(f"largest: {name} {sizes[name]:.1f} KiB")
    mode = "general closures only" if os.environ.get("MINIJINJA_PY_GENERAL_ONLY") == "1" else "as shipped"
    print(f"retained per compiled template ({mode}): mean {statistics.mean(sizes.values()):.1f} KiB, median "
          f"{statistics.median(sizes.values()):.1f} KiB over {len(sizes)} templates")


if __name__ == "__main__":
    main()
