#!/usr/bin/env python3
"""Compile bounds: how compile time (source → a renderable template) grows with the size of pathological
templates, up to Limits().max_template_size (issue 12's acceptance: exponent <= 1.2, under 2 s at the limit).

    python benchmarks/bench_compile_bounds.py [--project DIR] [--repeat 3] [--only WORD]

For each shape, a template of about max_template_size characters (262 144) and one a tenth of that size are
compiled the way a chat template is (chat_environment().from_string, a fresh environment each time so that no
cache answers); printed are the sizes, the best CPU time (time.process_time, which a busy machine disturbs less
than wall time) of --repeat runs at each, and the growth exponent log10(t(N) / t(N/10)) / log10(size ratio): 1 is
linear, 2 quadratic. Unlike benchmarks/bench_parse_bounds.py (the parser alone) this times everything from_string
does: parse, the nesting check, the symbol analysis, the step weights and building the closures. A shape the
limits refuse (max_nesting) is timed up to the refusal.
"""

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEPTH = 95   # nested blocks: the default max_nesting is 100 and the innermost expressions need a few levels


def _fill(head, unit, tail, size):
    """head + as many units as fit in size characters + tail."""
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def nested(opener, closer, unit):
    """DEPTH blocks, each opened by opener % level, around unit repeated to fill the size."""
    def make(size):
        return _fill("".join(opener.replace("%d", str(i)) for i in range(DEPTH)), unit, closer * DEPTH, size)
    return make


def listed(head, unit, tail, joiner=""):
    """unit with %d = 0, 1, ... (distinct names), joined by joiner, between head and tail, to fill the size."""
    def make(size):
        parts, used, i = [], len(head) + len(tail), 0
        while True:
            part = unit.replace("%d", str(i))
            used += len(part) + len(joiner)
            if used > size:
                return head + joiner.join(parts) + tail
            parts.append(part)
            i += 1
    return make


SHAPES = [
    ("95 nested for around {{ x }}", nested("{% for a%d in b %}", "{% endfor %}", "{{ x }}")),
    ("95 nested for, {{ loop.index }}", nested("{% for x in [1] %}", "{% endfor %}", "{{ loop.index }}")),
    ("95 nested for, outer names", nested("{% for v%d in [1] %}", "{% endfor %}", "{{ v0 }}{{ v94 }}")),
    ("95 nested for around sets", nested("{% for x in [1] %}", "{% endfor %}", "{% set y = x %}")),
    ("95 nested if around {{ x }}", nested("{% if x %}", "{% endif %}", "{{ x }}")),
    ("95 nested macro around {{ x }}", nested("{% macro m() %}", "{% endmacro %}", "{{ x }}")),
    ("95 nested macro around calls", nested("{% macro m() %}{{ caller() }}", "{% endmacro %}",
                                           "{% call m() %}{% endcall %}")),
    ("95 nested blocks around {{ 1 }}", nested("{% block b%d %}", "{% endblock %}", "{{ 1 }}")),
    ("95 nested set blocks", nested("{% set s %}", "{% endset %}", "{{ x }}")),
    ("95 nested filter blocks", nested("{% filter upper %}", "{% endfilter %}", "{{ x }}")),
    ("macro with many parameters", listed("{% macro m(", "a%d", ") %}{{ a0 }}{% endmacro %}", ", ")),
    ("macro with many defaults", listed("{% macro m(", "a%d=1", ") %}{{ a0 }}{% endmacro %}", ", ")),
    ("call with many arguments", listed("{% macro m() %}{% endmacro %}{{ m(", "%d", ") }}", ", ")),
    ("many sets", listed("", "{% set v%d = 1 %}", "")),
    ("many sets in one loop", listed("{% for x in [1] %}", "{% set v%d = x %}", "{{ v1 }}{% endfor %}")),
    ("many macros", listed("", "{% macro m%d() %}{% endmacro %}", "")),
    ("many blocks", listed("", "{% block b%d %}{% endblock %}", "")),
    ("many elifs", lambda size: _fill("{% if 0 %}", "{% elif 0 %}", "{% else %}x{% endif %}", size)),
    ("list literal", lambda size: _fill("{{ [", "1,", "]|length }}", size)),
    ("dict literal", listed("{{ {", "'k%d': 1", "}|length }}", ", ")),
    ("many filtered prints", lambda size: _fill("", "{{ 'x'|e }}", "", size)),
    ("long ~ chain", lambda size: _fill("{{ '' ", "~ 1 ", "}}", size)),
    ("long and chain (refused)", lambda size: _fill("{{ 1", " and 1", " }}", size)),
    ("text only", lambda size: ("Some plain text, no tags: {x} [y] 100% }.\n" * (size // 40 + 1))[:size]),
]


def best_time(mj, source, repeat):
    best = math.inf
    for _ in range(repeat):
        env = mj.chat_environment()
        t0 = time.process_time()
        try:
            env.from_string(source)
        except mj.LimitExceeded:
            pass
        best = min(best, time.process_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project", default=ROOT)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="only the shapes whose name contains this")
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.project))
    import minijinja_py as mj
    limit = mj.Limits().max_template_size
    mj.chat_environment().from_string("{{ x }}")   # load the parse tables before timing
    print(f"{'shape':34} {'N/10 chars':>10} {'time':>9} {'N chars':>9} {'time':>9} {'exponent':>8}")
    worst_exponent, worst_time = 0.0, 0.0
    for name, make in SHAPES:
        if args.only not in name:
            continue
        small, large = make(limit // 10), make(limit)
        assert len(large) <= limit, (name, len(large))
        t_small, t_large = best_time(mj, small, args.repeat), best_time(mj, large, args.repeat)
        exponent = math.log10(t_large / t_small) / math.log10(len(large) / len(small))
        worst_exponent, worst_time = max(worst_exponent, exponent), max(worst_time, t_large)
        print(f"{name:34} {len(small):10} {t_small * 1e3:7.1f}ms {len(large):9} {t_large * 1e3:7.1f}ms "
              f"{exponent:8.2f}", flush=True)
    print(f"worst: exponent {worst_exponent:.2f} (target <= 1.2), {worst_time:.2f} s at the limit (target < 2 s)")


if __name__ == "__main__":
    main()
