"""Recursive templates of several shapes, and how deep each renders with Jinja2 (the reference environment) and with
minijinja_py under the same Python recursion limit: the measure of how many Python frames a level of template
recursion costs each (README, Known differences).

Each shape is (name, source, make_data): source renders `data` (nested `depth` levels by make_data) through one
macro call (or recursive loop() call) per level (call_block and caller_arg: three and two). Rendering starts from
the same Python stack depth for both.

    python tests/support/recursion_shapes.py [SHAPE...]     # the table: depths, and frames per level of each
"""

import sys

import minijinja_py as mj
import differential_ref as ref


def _int(depth):
    return depth


def _dicts(depth):
    data = "leaf"
    for i in range(depth):
        data = {"k": data, "i": i}
    return data


def _lists(depth):
    data = 1
    for _ in range(depth):
        data = [data, "x"]
    return data


def _mixed(depth):
    # a tool call's arguments as Gemma's format_argument sees them: dicts and lists alternately
    data = "leaf"
    for i in range(depth):
        data = {"a": data, "b": True} if i % 2 else [data, 1]
    return data


def _schema(depth):
    # a JSON schema of arrays of arrays (json_to_python_type, render_typescript_type walk them)
    data = {"type": "string"}
    for _ in range(depth):
        data = {"type": "array", "items": data}
    return data


def _tree(depth):
    # for a recursive loop: [{name, children: [...]}], depth levels
    node = []
    for i in range(depth):
        node = [{"name": f"n{i}", "children": node}]
    return node


_GEMMA = """\
{%- macro format_argument(argument, escape_keys=True) -%}
    {%- if argument is string -%}
        {{- '<|"|>' + argument + '<|"|>' -}}
    {%- elif argument is boolean -%}
        {{- 'true' if argument else 'false' -}}
    {%- elif argument is mapping -%}
        {{- '{' -}}
        {%- set ns = namespace(found_first=false) -%}
        {%- for key, value in argument | dictsort -%}
            {%- if ns.found_first %},{% endif -%}
            {%- set ns.found_first = true -%}
            {%- if escape_keys -%}
                {{- '<|"|>' + key + '<|"|>' -}}
            {%- else -%}
                {{- key -}}
            {%- endif -%}
            :{{- format_argument(value, escape_keys=escape_keys) -}}
        {%- endfor -%}
        {{- '}' -}}
    {%- elif argument is sequence -%}
        {{- '[' -}}
        {%- for item in argument -%}
            {{- format_argument(item, escape_keys=escape_keys) -}}
            {%- if not loop.last %},{% endif -%}
        {%- endfor -%}
        {{- ']' -}}
    {%- else -%}
        {{- argument -}}
    {%- endif -%}
{%- endmacro -%}
{{- format_argument(data) -}}"""

SHAPES = [
    ("plain", "{% macro f(n) %}{% if n > 0 %}({{ f(n - 1) }}){% endif %}{% endmacro %}{{ f(data) }}", _int),
    ("plain_statement", "{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% else %}.{% endif %}{% endmacro %}"
     "{{ f(data) }}", _int),
    ("keyword", "{% macro f(n, sep='') %}{% if n > 0 %}{{ sep }}{{ f(n=n - 1, sep='.') }}{% endif %}{% endmacro %}"
     "{{ f(data) }}", _int),
    ("default_arg", "{% macro f(n, sep='-') %}{% if n > 0 %}{{ sep }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
     "{{ f(data) }}", _int),
    ("filter", "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) | upper }}a{% endif %}{% endmacro %}{{ f(data) }}", _int),
    ("concat", "{% macro f(n) %}{% if n > 0 %}{{ 'x' ~ f(n - 1) ~ 'y' }}{% endif %}{% endmacro %}{{ f(data) }}", _int),
    ("plus_chain", "{% macro f(d) %}{% if d.type == 'array' %}{{- 'list[' + f(d['items']) + ']' }}"
     "{% else %}{{- 'str' }}{% endif %}{% endmacro %}{{ f(data) }}", _schema),
    ("set_call", "{% macro f(d) %}{% if d.type == 'array' %}{% if d['items'] %}{% if d['items'].type == 'x' %}x"
     "{% else %}{% set inner = f(d['items']) %}{{ inner }}[]{% endif %}{% endif %}{% else %}str{% endif %}"
     "{% endmacro %}{{ f(data) }}", _schema),
    ("set_block", "{% macro f(n) %}{% if n > 0 %}{% set inner %}{{ f(n - 1) }}{% endset %}[{{ inner }}]{% endif %}"
     "{% endmacro %}{{ f(data) }}", _int),
    ("filter_block", "{% macro f(n) %}{% if n > 0 %}{% filter upper %}a{{ f(n - 1) }}{% endfilter %}{% endif %}"
     "{% endmacro %}{{ f(data) }}", _int),
    ("mutual", "{% macro f(n) %}{% if n > 0 %}f{{ g(n - 1) }}{% endif %}{% endmacro %}"
     "{% macro g(n) %}{% if n > 0 %}g{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(data) }}", _int),
    ("for_dict", "{% macro f(d) %}{% if d is mapping %}{% for k, v in d.items() %}{{ k }}:{{ f(v) }};"
     "{% endfor %}{% else %}{{ d }}{% endif %}{% endmacro %}{{ f(data) }}", _dicts),
    ("for_list", "{% macro f(x) %}{% if x is sequence and x is not string %}[{% for i in x %}{{ f(i) }}"
     "{% if not loop.last %},{% endif %}{% endfor %}]{% else %}{{ x }}{% endif %}{% endmacro %}{{ f(data) }}",
     _lists),
    ("nested_blocks", "{% macro f(d) %}{% if d is mapping %}{% for k in d %}{% if k == 'k' %}{% with v = d[k] %}"
     "{{ f(v) }}{% endwith %}{% endif %}{% endfor %}{% else %}{{ d }}{% endif %}{% endmacro %}{{ f(data) }}",
     _dicts),
    ("map_join", "{% macro f(x) %}{% if x is sequence and x is not string %}"
     "{% set parts = [] %}{% for i in x %}{% set parts = parts + [f(i)] %}{% endfor %}"
     "[{{ parts | map('trim') | join(',') }}]{% else %}{{ x }}{% endif %}{% endmacro %}{{ f(data) }}", _lists),
    ("call_block", "{% macro wrap() %}<{{ caller() }}>{% endmacro %}"
     "{% macro f(n) %}{% if n > 0 %}{% call wrap() %}{{ f(n - 1) }}{% endcall %}{% endif %}{% endmacro %}"
     "{{ f(data) }}", _int),
    ("caller_arg", "{% macro f(n) %}{% set outer = caller %}{% if n > 0 %}{% call(x) f(n - 1) %}({{ outer(x) }})"
     "{% endcall %}{% else %}{{ caller(0) }}{% endif %}{% endmacro %}{% call(x) f(data) %}{{ x }}{% endcall %}", _int),
    ("recursive_loop", "{% for item in data recursive %}{{ item.name }}{% if item.children %}"
     "({{ loop(item.children) }}){% endif %}{% endfor %}", _tree),
    ("gemma", _GEMMA, _mixed),
]


def jinja2_template(source):
    return ref.reference_env().from_string(source)


_roomy = []


def mj_template(source, roomy=False):
    """The chat environment's template; roomy: with max_call_depth and max_data_depth out of the way, to count
    Python frames."""
    if not roomy:
        return ref.mj_env().from_string(source)
    if not _roomy:
        _roomy.append(mj.chat_environment(now=lambda: ref.FIXED_NOW,
                                          limits=mj.Limits(max_call_depth=100_000, max_data_depth=100_000)))
    return _roomy[0].from_string(source)


def renders(template, data):
    """True if the template renders data; else what stopped it: "recursion" (Jinja2's RecursionError,
    minijinja_py's LimitExceeded of the recursion limit) or minijinja_py's other limit's name."""
    try:
        template.render(data=data)
    except RecursionError:
        return "recursion"
    except mj.LimitExceeded as exc:
        if exc.limit == "recursion_limit":
            return "recursion"
        if exc.limit in ("max_call_depth", "max_data_depth"):
            return exc.limit
        raise
    return True


def max_depth(template, make_data, high=1000):
    """(the deepest data, by make_data, the template renders, searched up to high; what stopped it a level
    deeper)."""
    low, stop = 0, None
    while low < high:
        mid = (low + high + 1) // 2
        result = renders(template, make_data(mid))
        if result is True:
            low = mid
        else:
            high, stop = mid - 1, result
    return low, stop


def at_limit(limit, func, *args):
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        return func(*args)
    finally:
        sys.setrecursionlimit(previous)


def frames_per_level(template, make_data, low=600, high=1600):
    """The Python frames one level of the shape costs: how much deeper it renders with more recursion limit."""
    a = at_limit(low, max_depth, template, make_data, 2000)[0]
    b = at_limit(high, max_depth, template, make_data, 2000)[0]
    return (high - low) / (b - a)


def _table(names):
    print(f"{'shape':16} {'Jinja2':>7} {'ours':>5} {'stopped by':>15} {'frames/level: Jinja2':>21} {'ours':>5}")
    for name, source, make_data in SHAPES:
        if names and name not in names:
            continue
        reference, mine = jinja2_template(source), mj_template(source)
        depth, stop = max_depth(mine, make_data)
        print(f"{name:16} {max_depth(reference, make_data)[0]:7} {depth:5} {stop:>15} "
              f"{frames_per_level(reference, make_data):21.2f} "
              f"{frames_per_level(mj_template(source, roomy=True), make_data):5.2f}", flush=True)


if __name__ == "__main__":
    _table(sys.argv[1:])
