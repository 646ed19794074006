#!/usr/bin/env python3
"""Parser bounds: how parse time grows with the size of pathological templates, up to Limits().max_template_size.

    python benchmarks/bench_parse_bounds.py [--project DIR] [--repeat 3]

For each shape, a template of about max_template_size characters (262 144) and one a tenth of that size are
parsed (minijinja_py.syntax.parse: source → AST, the transformers profile's options, the default nesting limit);
printed are the sizes, the best CPU time (time.process_time, which a busy machine disturbs less than wall time) of
--repeat runs at each, and the growth exponent log10(t(N) / t(N/10)) / log10(size ratio):
1 is linear, 2 quadratic. The targets: exponent <= 1.2 and under 2 s at the limit. Only the parse is timed (the
compiler's own checks, such as the nesting limit on the AST, come after it).
"""

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _fill(head, unit, tail, size):
    """head + as many units as fit in size characters + tail."""
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def nested_for_outputs(size):
    """95 nested for loops around `{{ x }}` repeated (30 000 at the limit)."""
    head = "".join(f"{{% for a{i} in b %}}" for i in range(95))
    return _fill(head, "{{ x }}", "{% endfor %}" * 95, size)


def nested_blocks(opener, closer):
    def make(size):
        depth = size // (len(opener) + len(closer))
        return opener * depth + "x" + closer * depth
    return make


def macro_parameters(size):
    count = (size - 40) // 8
    return "{% macro m(" + ", ".join(f"p{i:05d}" for i in range(count)) + ") %}{% endmacro %}"


def chain(operator):
    def make(size):
        return _fill("{{ a", f" {operator} a", " }}", size)
    return make


def brackets_at_the_limit(size):
    """Brackets nested 100 deep (the default max_nesting), over and over."""
    unit = "{{ " + "(" * 100 + "x" + ")" * 100 + " }}"
    return unit * max(1, size // len(unit))


def text_only(size):
    line = "Some plain text, no tags at all: {x} [y] (z) 100% } and a brace.\n"
    return (line * (size // len(line) + 1))[:size]


def whitespace_only(size):
    return (" \t\n" * (size // 3 + 1))[:size]


SHAPES = [
    ("95 nested for around {{ x }}", nested_for_outputs),
    ("nested if", nested_blocks("{% if x %}", "{% endif %}")),
    ("nested macro", nested_blocks("{% macro m() %}", "{% endmacro %}")),
    ("macro with many parameters", macro_parameters),
    ("a ~ a ~ ... chain", chain("~")),
    ("a + a + ... chain", chain("+")),
    ("- - - ... x (unary chain)", lambda size: _fill("{{ ", "- ", "x }}", size)),
    ("brackets 100 deep, repeated", brackets_at_the_limit),
    ("text only", text_only),
    ("whitespace only", whitespace_only),
]


def best_time(syntax, source, repeat):
    best = math.inf
    for _ in range(repeat):
        t0 = time.process_time()
        syntax.parse(source, trim_blocks=True, lstrip_blocks=True, max_nesting=100)
        best = min(best, time.process_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project", default=ROOT)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.project))
    import minijinja_py
    from minijinja_py.syntax import parse as syntax
    limit = minijinja_py.Limits().max_template_size
    syntax.parse("{{ x }}", True, True)  # load the tables before timing
    print(f"{'shape':32} {'N/10 chars':>10} {'time':>9} {'N chars':>9} {'time':>9} {'exponent':>8}")
    worst_exponent, worst_time = 0.0, 0.0
    for name, make in SHAPES:
        small, large = make(limit // 10), make(limit)
        assert len(large) <= limit, (name, len(large))
        t_small, t_large = best_time(syntax, small, args.repeat), best_time(syntax, large, args.repeat)
        exponent = math.log10(t_large / t_small) / math.log10(len(large) / len(small))
        worst_exponent, worst_time = max(worst_exponent, exponent), max(worst_time, t_large)
        print(f"{name:32} {len(small):10} {t_small * 1e3:7.1f}ms {len(large):9} {t_large * 1e3:7.1f}ms "
              f"{exponent:8.2f}")
    print(f"worst: exponent {worst_exponent:.2f} (target <= 1.2), {worst_time:.2f} s at the limit (target < 2 s)")


if __name__ == "__main__":
    main()
