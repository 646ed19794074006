"""Hostile cases for issue 12 (every bound holds on every path), grouped by mechanism rather than by the issue's
exact strings; see hostile_cases.py for the Case format. The groups poison/, prealloc/, scan/ and compile/ are
here, the others in hostile_data.py. Expected outcomes are the fixed engine's: Jinja2's output where the engine
can match it (checked with `python tools/hostile_report.py --engine jinja2 PREFIX`), else the LimitExceeded
naming the limit that should stop the work, or the TemplateError class.

  hash/     data nested 180 000 deep, built within the step budget, then hashed (or compared) by C code at a call
            site that does not walk it first: Python's hash recurses until the C stack overflows (SIGSEGV)
  shared/   `(t, t)` nested 60 deep: a few hundred bytes, 2**60 nodes as a tree; hashing or comparing it walks
            the tree
  poison/   one render changing what later renders in the same process do (caches keyed loosely, caches that
            keep every name, state kept in a compiled template)
  prealloc/ memory allocated before any size check: result sizes that Python computes inside C code
  fields/   every formatting entry point (str.format, format_map, %, |format, on str and Markup) adds up its
            fields' widths, precisions and escaping before it allocates
  scan/     seconds of C or Python work for one step: scans, star-arguments, codecs, big-integer operations
  compile/  templates up to max_template_size: compiling must stay under 2 s (near-linear in the source)
  caller/   a caller's defaultdict must not gain keys when a template reads it
  order/    output that depends on memory addresses: no address printed, the same text in every process
  misc/     `is sequence` swallowing errors; add_generation_prompt converted like the other inputs
  underscore/ a mapping's `_` keys are data; a `_` name the object has neither way is undefined, as in Jinja2; an
            attribute it has stays refused
"""

import itertools

import hostile_data
from hostile_cases import CASES, Case, err, limit, out


def then(case, *steps):
    return case._replace(then=tuple(steps))


# ======================================================================================== fields: formats summed
# Every formatting entry point adds up its fields before it allocates: a hundred fields of 9 MB each must stop at
# max_string, not after 900 MB (issue 23: Markup.format peaked at 1.7 GB). str.format and format_map on str and
# Markup, widths written in the format and nested ones, precisions, Markup's escaping (up to 5 characters for
# one), `%` on str and Markup and the |format filter.
W = "9000000"


def _hundred(field):
    return f"('{field}' * 100)"


_FIELDS = {
    "fields/str_format_widths": limit("max_string", "{{ %s.format('')|length }}" % _hundred("{0:>" + W + "}")),
    "fields/markup_format_widths": limit("max_string", "{{ (%s|safe).format('')|length }}" % _hundred("{0:>" + W + "}")),
    "fields/str_format_map_widths": limit("max_string",
                                          "{{ %s.format_map({'a': ''})|length }}" % _hundred("{a:>" + W + "}")),
    "fields/markup_format_map_widths": limit("max_string",
                                             "{{ (%s|safe).format_map({'a': ''})|length }}" % _hundred("{a:>" + W + "}")),
    "fields/str_format_nested_widths": limit("max_string", "{{ %s.format('', %s)|length }}" % (_hundred("{0:>{1}}"), W)),
    "fields/markup_format_nested_widths": limit("max_string",
                                                "{{ (%s|safe).format('', %s)|length }}" % (_hundred("{0:>{1}}"), W)),
    "fields/str_format_precisions": limit("max_string", "{{ %s.format(1.5)|length }}" % _hundred("{0:." + W + "f}")),
    "fields/markup_format_precisions": limit("max_string",
                                             "{{ (%s|safe).format(1.5)|length }}" % _hundred("{0:." + W + "f}")),
    "fields/str_format_auto_numbering": limit("max_string", "{{ ('{:>%s}' * 100).format(*([''] * 100))|length }}" % W),
    "fields/markup_format_escaping": limit("max_string", "{{ (%s|safe).format('\"' * 3000000)|length }}" % _hundred("{0}")),
    "fields/markup_format_one_escaped_field": limit("max_string", "{{ ('{0}'|safe).format('\"' * 3000000)|length }}"),
    "fields/markup_format_fill_escaped": limit("max_string", "{{ ('{0:<>%s}'|safe).format('')|length }}" % W),
    "fields/percent_widths": limit("max_string", "{{ (%s %% (('',) * 100))|length }}" % _hundred("%" + W + "s")),
    "fields/markup_percent_widths": limit("max_string", "{{ ((%s|safe) %% (('',) * 100))|length }}" % _hundred("%" + W + "s")),
    "fields/percent_key_widths": limit("max_string", "{{ (%s %% {'a': ''})|length }}" % _hundred("%(a)" + W + "s")),
    "fields/format_filter_widths": limit("max_string", "{{ %s|format(*([''] * 100))|length }}" % _hundred("%" + W + "s")),
    "fields/format_filter_kwargs_widths": limit("max_string", "{{ %s|format(a='')|length }}" % _hundred("%(a)" + W + "s")),
    "fields/markup_percent_escaping": limit("max_string",
                                            "{{ ((%s|safe) %% (('\"' * 1000000,) * 100))|length }}" % _hundred("%s")),
    "fields/autoescape_printed_format": limit("max_output", "{{ ('{0}' * 9).format(s) }}{{ ('{0}' * 9).format(s) }}",
                                              mode="plain_autoescape", context={"s": '"' * 1000000}),
    "fields/str_format_ok": out("  a|<&amp;>|  1.50|x  x", "{{ '{0:>3}'.format('a') }}|{{ ('<{0}>'|safe).format('&') }}|"
                                "{{ '{0:6.2f}'.format(1.5) }}|{{ '%s%3s'|format('x', 'x') }}"),
}


# ============================================================================================ poison: later renders
TOJSON_4 = "[\n    1\n]"


def step(expect, source=None, mode="chat", context=None):
    """A follow-up render; source None renders the case's own compiled template again."""
    return Case(None, source, expect, context, mode)


_POISON = {
    # json encoders cached by their options: 4.0 == 4 and hash(4.0) == hash(4), so a failed indent=4.0 must not
    # be what a later indent=4 gets, nor the reverse
    "poison/tojson_float_indent_first": then(err("TypeError", "{{ [1]|tojson(indent=4.0) }}"),
                                             step(("out", TOJSON_4), "{{ [1]|tojson(indent=4) }}")),
    "poison/tojson_int_indent_first": then(out(TOJSON_4, "{{ [1]|tojson(indent=4) }}"),
                                           step(("error", "TypeError"), "{{ [1]|tojson(indent=4.0) }}")),
    "poison/tojson_same_render": err("TypeError", "{{ [1]|tojson(indent=4) }}{{ [1]|tojson(indent=4.0) }}"),
    "poison/tojson_other_template": then(err("TypeError", "{{ {'a': [1]}|tojson(indent=2.0) }}"),
                                         step(("out", '{\n  "a": [\n    1\n  ]\n}'),
                                              "{{ {'a': [1]}|tojson(indent=2) }}"),
                                         step(("out", '[\n  1\n]'), "{{ [1]|tojson(indent=2) }}", mode="ct",
                                              context={"messages": [{"role": "user", "content": "x"}]})),
    "poison/tojson_true_indent": then(out("[\n 1\n]", "{{ [1]|tojson(indent=true) }}"),
                                      step(("out", "[\n 1\n]"), "{{ [1]|tojson(indent=1) }}"),
                                      step(("error", "TypeError"), "{{ [1]|tojson(indent=1.0) }}")),
    # the encoder cache keeps whatever a template passes as separators or indent: 64 entries of up to max_string
    "poison/tojson_separators_kept": out("[1]", "{{ [1]|tojson(separators=(',' ~ 'x' * 1000000 ~ i, ':')) }}",
                                         repeat=12, context={"i": 0}),
    "poison/tojson_indent_kept": out("[]", "{{ []|tojson(indent=' ' * 1000000 ~ i) }}", repeat=12, context={"i": 0}),
    # the standard library's codec caches keep every name looked up, unknown ones included
    "poison/codec_unknown_kept": err("LookupError", "{{ 'x'.encode('nocodec' ~ 'q' * 200000 ~ i) }}", repeat=12, context={"i": 0}),
    "poison/codec_decode_unknown_kept": err("LookupError",
                                            "{{ 'x'.encode().decode('nodecoder' ~ 'q' * 200000 ~ i) }}", repeat=12, context={"i": 0}),
    "poison/codec_spelling_kept": out("b'x'", "{{ 'x'.encode('utf' ~ '-' * (200000 + i) ~ '8') }}", repeat=12, context={"i": 0}),
    "poison/codec_error_handler_unknown": err("LookupError", "{{ 'é'.encode('ascii', 'nohandler' ~ 'q' * 200000 ~ i) }}",
                                              repeat=12, context={"i": 0}),
    # a compiled template keeps no state between renders
    "poison/namespace_state": then(out("1", "{% set ns = namespace(n=0) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}"),
                                   step(("out", "1"))),
    "poison/macro_default_namespace": then(
        out("22", "{% macro m(ns=namespace(n=1)) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}{{ m() }}{{ m() }}"),
        step(("out", "22"))),
    "poison/cycler_state": then(out("12", "{% set c = cycler(1, 2, 3) %}{{ c.next() }}{{ c.next() }}"),
                                step(("out", "12"))),
    "poison/joiner_state": then(out("a,b", "{% set j = joiner(',') %}{{ j() }}a{{ j() }}b"), step(("out", "a,b"))),
    "poison/call_depth_after_limit": then(
        limit("max_call_depth", "{% macro f(n) %}{{ f(n - 1) if n else 'done' }}{% endmacro %}{{ f(depth) }}",
              context={"depth": 10 ** 6}),
        step(("out", "done"), context={"depth": 90})),
    "poison/steps_after_limit": then(
        limit("max_steps", "{% for i in range(n) %}{% for j in range(n) %}{% endfor %}{% endfor %}ok",
              context={"n": 100000}),
        step(("out", "ok"), context={"n": 1000})),
    "poison/output_after_limit": then(
        limit("max_output", "{% for i in range(n) %}{{ 'x' * 1000000 }}{% endfor %}ok", context={"n": 100}),
        step(("out", "ok"), context={"n": 0})),
    "poison/raise_after_limit": then(
        err("TemplateError", "{{ raise_exception('boom') if boom }}{{ 'x' * n }}", context={"boom": True, "n": 1}),
        step(("out", "xx"), context={"boom": False, "n": 2})),
}


# ============================================================================================ prealloc: memory first
DAG = "{% set a = ['x' * 1000000] * 1000 %}"      # a 1000-item list of one 1 MB string: its repr is 1 GB


def caller_bytes():
    return {"b": b"\xff" * 9000000}


_PREALLOC = {
    # %-formatting: Python balances parentheses in %(key), so the key of '%(a(b)c)Ns' is 'a(b)c'
    "prealloc/percent_paren_key_width": limit("max_string", "{{ '%(a(b)c)900000000s' % {'a(b)c': 'x'} }}"),
    "prealloc/percent_nested_paren_key": limit("max_string", "{{ '%(a(b(c)d)e)900000000d' % {'a(b(c)d)e': 1} }}"),
    "prealloc/percent_paren_key_precision": limit("max_string", "{{ '%(a(b)c).900000000f' % {'a(b)c': 1.0} }}"),
    "prealloc/percent_paren_key_ok": out("[x]", "{{ '[%(a(b)c)s]' % {'a(b)c': 'x'} }}"),
    "prealloc/percent_paren_key_format_filter": limit("max_string", "{{ '%(a(b)c)900000000s'|format(**{'a(b)c': 'x'}) }}"),
    # Markup's own format, format_map and % (they escape their arguments, then format)
    "prealloc/markup_format_width": limit("max_string", "{{ ('{:>900000000}'|safe).format('a') }}"),
    "prealloc/markup_format_nested_width": limit("max_string", "{{ ('{:>{w}}'|safe).format('a', w=900000000) }}"),
    "prealloc/markup_format_map_width": limit("max_string", "{{ ('{a:>900000000}'|safe).format_map({'a': 'x'}) }}"),
    "prealloc/markup_format_precision": limit("max_string", "{{ ('{:.900000000f}'|safe).format(1.0) }}"),
    "prealloc/markup_percent_width": limit("max_string", "{{ ('%900000000s'|safe) % 'a' }}"),
    "prealloc/markup_percent_paren_key": limit("max_string", "{{ ('%(a(b)c)900000000s'|safe) % {'a(b)c': 'x'} }}"),
    "prealloc/markup_center": limit("max_string", "{{ ('a'|safe).center(900000000) }}"),
    "prealloc/markup_replace": limit("max_string", "{{ (('a' * 100000)|safe).replace('a', 'b' * 1000) }}"),
    "prealloc/markup_join": limit("max_string", "{{ (('x' * 1000)|safe).join(['a'] * 100000) }}"),
    "prealloc/markup_autoescape_format": limit("max_string", "{{ s.format('a') }}", mode="plain_autoescape",
                                               context={"s": "{:>900000000}"}),
    # str.translate with a list or tuple table (indexed by code point)
    "prealloc/translate_list": limit("max_string", "{{ ('a' * 100000).translate(['b' * 1000] * 128) }}"),
    "prealloc/translate_tuple": limit("max_string", "{{ ('a' * 100000).translate(('b' * 1000,) * 128) }}"),
    "prealloc/translate_list_ok": out("bb", "{{ 'aa'.translate(['x'] * 97 + ['b']) }}"),
    # codec error handlers that expand one character into many
    "prealloc/encode_namereplace": limit("max_string", "{{ ('\\ufdfa' * 9000000).encode('ascii', 'namereplace')|length }}"),
    "prealloc/encode_xmlcharrefreplace": limit("max_string",
                                               "{{ ('\\U0001f600' * 9000000).encode('latin-1', 'xmlcharrefreplace')|length }}"),
    "prealloc/encode_backslashreplace": limit("max_string",
                                              "{{ ('\\U0001f600' * 9000000).encode('ascii', 'backslashreplace')|length }}"),
    "prealloc/encode_unicode_escape": limit("max_string", "{{ ('\\U0001f600' * 9000000).encode('unicode_escape')|length }}"),
    "prealloc/decode_backslashreplace": limit("max_string", "{{ b.decode('ascii', 'backslashreplace')|length }}",
                                              context=caller_bytes(), mode="plain"),
    "prealloc/encode_namereplace_ok": out("b'\\\\N{EURO SIGN}'", "{{ '€'.encode('ascii', 'namereplace') }}"),
    # case mappings that turn one character into three
    "prealloc/title_ligature": limit("max_string", "{{ ('\\ufb03 ' * 3000000)|title|length }}"),
    "prealloc/upper_ligature": limit("max_string", "{{ ('\\ufb03' * 9000000)|upper|length }}"),
    "prealloc/str_upper_ligature": limit("max_string", "{{ ('\\ufb03' * 9000000).upper()|length }}"),
    "prealloc/str_title_ligature": limit("max_string", "{{ ('\\ufb03 ' * 3000000).title()|length }}"),
    "prealloc/swapcase_ligature": limit("max_string", "{{ ('\\u0390' * 9000000).swapcase()|length }}"),
    "prealloc/casefold_ligature": limit("max_string", "{{ ('\\ufb03' * 9000000).casefold()|length }}"),
    "prealloc/upper_apostrophe_n": limit("max_string", "{{ ('\\u0149' * 9000000).upper()|length }}"),
    "prealloc/lower_dotted_i": limit("max_string", "{{ ('\\u0130' * 9000000)|lower|length }}"),
    "prealloc/title_many_words": out("9000000", "{{ ('{0}' * 3000000)|title|length }}"),   # found by test_bombs.py
    "prealloc/title_ligature_ok": out("FFI FFI|Ffi Ffi", "{{ '\\ufb03 \\ufb03'|title }}|{{ '\\ufb03 \\ufb03'.title() }}"),
    # urlize's rel and target are added to every link
    "prealloc/urlize_rel": limit("max_string", "{{ ('www.a.com ' * 100000)|urlize(rel='x' * 100000) }}"),
    "prealloc/urlize_target": limit("max_string", "{{ ('www.a.com ' * 100000)|urlize(target='x' * 100000) }}"),
    "prealloc/urlize_rel_nofollow": limit("max_string",
                                          "{{ ('www.a.com ' * 100000)|urlize(nofollow=true, rel='x' * 100000) }}"),
    "prealloc/urlize_rel_ok": out('<a href="https://www.a.com" rel="noopener" target="t">www.a.com</a>',
                                  "{{ 'www.a.com'|urlize(target='t', rel='noopener') }}"),
    # percent-encoding: 12 characters for one astral character
    "prealloc/urlencode_astral": limit("max_string", "{{ ('\\U0001f600' * 9000000)|urlencode|length }}"),
    "prealloc/urlencode_dict_astral": limit("max_string", "{{ {'k': '\\U0001f600' * 9000000}|urlencode|length }}"),
    "prealloc/escape_lt": limit("max_string", "{{ ('<' * 9000000)|e|length }}"),
    "prealloc/xmlattr_quotes": limit("max_string", "{{ {'a': '\"' * 9000000}|xmlattr|length }}"),
    "prealloc/tojson_ensure_ascii": limit("max_string", "{{ ('\\U0001f600' * 9000000)|tojson(ensure_ascii=true)|length }}"),
    "prealloc/repr_control_chars": limit("max_string", "{{ ['\\x00' * 9000000]|string|length }}"),
    "prealloc/pprint_control_chars": limit("max_string", "{{ ['\\x00' * 9000000]|pprint|length }}"),
    # strftime: glibc pads to any field width, and Python grows its buffer up to 256 × the format's length
    "prealloc/strftime_width": limit("max_string", "{{ strftime_now('x' * 2000000 ~ '%200000000Y')|length }}"),
    "prealloc/strftime_width_flags": limit("max_string", "{{ strftime_now('x' * 2000000 ~ '%_200000000H')|length }}"),
    "prealloc/strftime_repeated_c": limit("max_string", "{{ strftime_now('%c' * 3000000)|length }}"),
    "prealloc/strftime_repeated_year": limit("max_string", "{{ strftime_now('%Y' * 4999999)|length }}"),
    # star-arguments build their tuple before any max_items check
    "prealloc/cycler_star_string": limit("max_items", "{{ cycler(*('x' * 9000000)).current }}"),
    "prealloc/loop_cycle_star": limit("max_items", "{% for i in [1] %}{{ loop.cycle(*('x' * 9000000)) }}{% endfor %}"),
    "prealloc/format_star": limit("max_items", "{{ '{}'.format(*('x' * 9000000)) }}"),
    "prealloc/format_filter_star": limit("max_items", "{{ '%s'|format(*('x' * 9000000)) }}"),
    "prealloc/macro_star": limit("max_items", "{% macro m() %}{{ varargs|length }}{% endmacro %}{{ m(*('x' * 9000000)) }}"),
    "prealloc/caller_star": limit("max_items", "{% macro m() %}{{ caller(*('x' * 9000000)) }}{% endmacro %}"
                                               "{% call m() %}{% endcall %}"),
    "prealloc/dict_global_star": limit("max_items", "{{ dict(*('x' * 9000000)) }}"),
    "prealloc/joiner_star": limit("max_items", "{{ joiner(*('x' * 9000000)) }}"),
    "prealloc/range_star": limit("max_items", "{{ range(*('x' * 9000000)) }}"),
    "prealloc/method_star": limit("max_items", "{{ 'x'.startswith(*('x' * 9000000)) }}"),
    "prealloc/star_ok": out("3", "{% macro m() %}{{ varargs|length }}{% endmacro %}{{ m(*'abc') }}"),
    # error messages that show (repr) an argument
    "prealloc/index_message": err("ValueError", DAG + "{{ [1].index(a, 0) }}"),
    "prealloc/tuple_index_message": err("ValueError", DAG + "{{ (1,).index(a) }}"),
    "prealloc/is_lower": limit("max_string", DAG + "{{ a is lower }}"),
    "prealloc/is_upper": limit("max_string", DAG + "{{ a is upper }}"),
    "prealloc/lower_filter": limit("max_string", DAG + "{{ a|lower|length }}"),
    "prealloc/capitalize_filter": limit("max_string", DAG + "{{ a|capitalize|length }}"),
    "prealloc/trim_filter": limit("max_string", DAG + "{{ a|trim|length }}"),
    "prealloc/wordcount_filter": limit("max_string", DAG + "{{ a|wordcount }}"),
    "prealloc/center_filter": limit("max_string", DAG + "{{ a|center(2)|length }}"),
    "prealloc/striptags_filter": limit("max_string", DAG + "{{ a|striptags|length }}"),
    "prealloc/debug_undefined_key": limit("max_string", DAG + "{{ {}[a] }}", mode="debug"),
    "prealloc/debug_undefined_key_chat": limit("max_string", DAG + "{{ {}[a] }}", mode="chat_debug"),
    "prealloc/undefined_key_message": err("UndefinedError", DAG + "{{ {}[a].x }}"),
    "prealloc/raise_exception_message": err("TemplateError", DAG + "{{ raise_exception(a) }}"),
    # a caller's endless iterator
    "prealloc/endless_list": limit("max_items", "{{ it|list|length }}", context={"it": itertools.count()},
                                   mode="plain"),
    "prealloc/endless_join": limit(("max_items", "max_steps", "max_string"), "{{ it|join|length }}", context={"it": itertools.repeat("x")},
                                   mode="plain"),
    "prealloc/endless_str_join": limit(("max_items", "max_steps", "max_string"), "{{ ''.join(it)|length }}",
                                       context={"it": itertools.repeat("x")}, mode="plain"),
    "prealloc/endless_reverse": limit("max_items", "{{ it|reverse|first }}", context={"it": itertools.count()},
                                      mode="plain"),
    "prealloc/endless_sort": limit("max_items", "{{ it|sort|first }}", context={"it": itertools.count()},
                                   mode="plain"),
    "prealloc/endless_unique": limit(("max_items", "max_steps"), "{{ it|unique|list|length }}",
                                     context={"it": itertools.count()}, mode="plain"),
    "prealloc/endless_sum": limit(("max_items", "max_steps"), "{{ it|sum }}", context={"it": itertools.count()},
                                  mode="plain"),
    "prealloc/endless_max": limit(("max_items", "max_steps"), "{{ it|max }}", context={"it": itertools.count()},
                                  mode="plain"),
    "prealloc/endless_map": limit(("max_items", "max_steps"), "{{ it|map('string')|list|length }}",
                                  context={"it": itertools.count()}, mode="plain"),
    "prealloc/endless_batch": limit(("max_items", "max_steps"), "{{ it|batch(2)|list|length }}",
                                    context={"it": itertools.count()}, mode="plain"),
    "prealloc/endless_loop_length": limit(("max_items", "max_steps"), "{% for x in it %}{{ loop.length }}{% break %}{% endfor %}",
                                          context={"it": itertools.count()}),
    "prealloc/endless_star": limit("max_items", "{{ '{}'.format(*it) }}", context={"it": itertools.count()},
                                   mode="plain"),
    "prealloc/endless_generator": limit("max_items", "{{ g|list|length }}",
                                        context={"g": (n for n in itertools.count())}, mode="plain"),
    "prealloc/endless_in": limit(("max_steps", "max_items"), "{{ -1 in it }}", context={"it": itertools.count()}, mode="plain"),
    "prealloc/endless_first_ok": out("0", "{{ it|first }}", context={"it": itertools.count()}, mode="plain"),
    "prealloc/endless_loop_break_ok": out("0", "{% for x in it %}{{ x }}{% break %}{% endfor %}",
                                          context={"it": itertools.count()}),
}


# ============================================================================================ scan: seconds per step
R = "{% set r = range(100000)|list %}"
# d and e differ in every key but one (a difference or a scan visits all); d and same are equal but not one object
D = ("{% set d = dict.fromkeys(range(100000)) %}{% set e = dict.fromkeys(range(1, 100001)) %}"
     "{% set same = dict.fromkeys(range(100000)) %}")
KEYS = "{% set k = dict.fromkeys(range(100000)|map('string')) %}"
# many small containers, cheap to build and each looked at in Python to compare, print or serialise it
B1 = "{% set l = range(100000)|batch(1)|list %}{% set m = range(100000)|batch(1)|list %}"
B3 = "{% set l = range(60000)|batch(1)|batch(1)|batch(1)|list %}{% set m = range(60000)|batch(1)|batch(1)|batch(1)|list %}"


def loop(body, times=100000):
    return "{% for n in range(" + str(times) + ") %}" + body + "{% endfor %}"


_SCAN = {
    # scans of ranges and dict views
    "scan/float_in_range": limit("max_steps", loop("{% if 1.5 in range(100000) %}{% endif %}")),
    "scan/string_in_range": limit("max_steps", loop("{% if 'a' in range(100000) %}{% endif %}")),
    "scan/none_in_range": limit("max_steps", loop("{% if none in range(100000) %}{% endif %}")),
    "scan/range_index_float": limit("max_steps", loop("{% set x = range(100000).index(99999.0) %}")),
    "scan/range_count_float": limit("max_steps", loop("{% set x = range(100000).count(1.5) %}")),
    "scan/int_in_range_ok": out("True", "{% set ns = namespace(all=true) %}"
                                + loop("{% set ns.all = ns.all and 99999 in range(100000) %}") + "{{ ns.all }}"),
    "scan/in_values": limit("max_steps", D + loop("{% if 'a' in d.values() %}{% endif %}")),
    "scan/values_index": limit("max_steps", D + loop("{% if 'a' in d.values()|list %}{% endif %}")),
    "scan/keys_eq": limit("max_steps", D + loop("{% if d.keys() == same.keys() %}{% endif %}")),
    "scan/items_eq": limit("max_steps", D + loop("{% if d.items() == same.items() %}{% endif %}")),
    "scan/keys_ne": limit("max_steps", D + loop("{% if d.keys() != same.keys() %}{% endif %}")),
    "scan/keys_minus": limit("max_steps", D + loop("{% set x = d.keys() - e.keys() %}")),
    "scan/keys_le": limit("max_steps", D + loop("{% set x = d.keys() <= same.keys() %}")),
    "scan/items_ge": limit("max_steps", D + loop("{% set x = d.items() >= same.items() %}")),
    "scan/keys_isdisjoint": limit("max_steps", D + loop("{% set x = d.keys().isdisjoint(e.keys()) %}")),
    "scan/items_minus": limit("max_steps", D + loop("{% set x = d.items() - e.items() %}")),
    "scan/keys_minus_range": limit("max_steps", D + loop("{% set x = d.keys() - range(100000) %}")),
    "scan/dict_eq": limit("max_steps", D + loop("{% if d == same %}{% endif %}")),
    # many small containers (the walk that bounds hashing and comparing, printing, serialising: each container
    # takes many steps' time in Python) and one container shared a million times
    "scan/small_lists_eq": limit("max_steps", B1 + loop("{% if l == m %}{% endif %}", 1000)),
    "scan/small_lists_nested_eq": limit("max_steps", B3 + loop("{% if l == m %}{% endif %}", 1000)),
    "scan/small_list_in": limit("max_steps", B1 + loop("{% if [5] in l %}{% endif %}", 1000)),
    "scan/small_lists_print": limit("max_steps", B3 + loop("{% set x = l|string %}", 1000)),
    "scan/small_lists_tojson": limit("max_steps", B3 + loop("{% set x = l|tojson %}", 1000)),
    "scan/small_lists_pprint": limit("max_steps", B3 + loop("{% set x = l|pprint %}", 1000)),
    "scan/shared_empty_print": limit("max_steps", "{% set l = [[]] * 1000000 %}" + loop("{% set x = l|string %}", 1000)),
    "scan/shared_empty_tojson": limit("max_steps", "{% set l = [[]] * 1000000 %}" + loop("{% set x = l|tojson %}", 1000)),
    "scan/shared_list_join": limit("max_steps", "{% set l = [[1]] * 1000000 %}" + loop("{% set x = l|join(',') %}", 1000)),
    # filter pipelines: every item passes through generators, and map/select call a filter or test by name
    "scan/map_by_name": limit("max_steps", loop("{% set x = range(100000)|map('string')|list %}", 1000)),
    "scan/select_bare": limit("max_steps", loop("{% set x = range(100000)|select|list %}", 1000)),
    "scan/select_by_name": limit("max_steps", loop("{% set x = range(100000)|select('odd')|list %}", 1000)),
    "scan/batch_of_batch": limit("max_steps", loop("{% set x = range(100000)|batch(1)|batch(1)|list %}", 1000)),
    # star-arguments: the whole sequence becomes a tuple at every call
    "scan/macro_star": limit("max_steps", R + "{% macro m() %}{{ varargs|length }}{% endmacro %}"
                                          + loop("{% set x = m(*r) %}")),
    "scan/macro_double_star": limit("max_steps", KEYS + "{% macro m() %}{{ kwargs|length }}{% endmacro %}"
                                                 + loop("{% set x = m(**k) %}")),
    "scan/format_star": limit("max_steps", R + loop("{% set x = '{}'.format(*r) %}")),
    "scan/loop_cycle_star": limit("max_steps", R + loop("{% set x = loop.cycle(*r) %}")),
    "scan/cycler_star": limit("max_steps", R + loop("{% set x = cycler(*r) %}")),
    "scan/dict_double_star": limit("max_steps", KEYS + loop("{% set x = dict(**k) %}")),
    "scan/namespace_double_star": limit("max_steps", KEYS + loop("{% set x = namespace(**k) %}")),
    "scan/format_map_star": limit("max_steps", R + loop("{% set x = '{0}{1}'.format(*r) %}")),
    # codecs: punycode decoding is quadratic, idna slow per character (refused or charged by their cost)
    "scan/punycode_decode": err("TemplateError", "{{ ('\\U0001f600' * 200000).encode('punycode').decode('punycode')|length }}"),
    "scan/punycode_loop": err("TemplateError", loop("{% set x = ('\\U0001f600' * 30000).encode('punycode') %}"
                                                    "{% set y = x.decode('punycode') %}", 100)),
    "scan/idna_encode": err("TemplateError", "{{ ('\\u00e9.' * 1000000).encode('idna')|length }}"),
    "scan/idna_encode_label": err("TemplateError", "{{ ('\\u00e9' * 2000000).encode('idna')|length }}"),
    "scan/idna_loop": err("TemplateError", loop("{% set x = ('\\u00e9.' * 20000).encode('idna') %}", 1000)),
    # filters whose work is more than their input's size
    "scan/urlize_long_text": limit("max_steps", loop("{% set x = ('a.b ' * 1000000)|urlize %}", 100)),
    "scan/urlize_emails": limit("max_steps", loop("{% set x = ('a@b.cd ' * 1000000)|urlize %}", 100)),
    "scan/tojson_many_strings": limit("max_string", "{{ (['x' * 1000000] * 1000)|tojson|length }}"),
    "scan/tojson_many_strings_ascii": limit("max_string",
                                            "{{ (['\\u00e9' * 1000000] * 1000)|tojson(ensure_ascii=true)|length }}"),
    "scan/tojson_strings_loop": limit("max_steps", loop("{% set x = (['\\u00e9' * 10000] * 90)|tojson(ensure_ascii=true) %}",
                                                        1000)),
    "scan/format_many_fields": limit("max_steps", loop("{% set x = ('{0}' * 3000000).format('') %}", 10)),
    "scan/format_map_many_fields": limit("max_steps", loop("{% set x = ('{a}' * 3000000).format_map({'a': ''}) %}", 10)),
    "scan/percent_many_fields": limit("max_steps", loop("{% set x = ('%(a)s' * 1900000) % {'a': ''} %}", 10)),
    "scan/format_filter_many_fields": limit("max_steps", loop("{% set x = ('%(a)s' * 1900000)|format(a='') %}", 10)),
    "scan/xmlattr_wide": limit("max_steps", KEYS + loop("{% set x = k|xmlattr %}", 1000)),
    "scan/urlencode_wide": limit("max_steps", KEYS + loop("{% set x = k|urlencode %}", 1000)),
    "scan/dictsort_wide": limit("max_steps", KEYS + loop("{% set x = k|dictsort %}", 1000)),
    # big integers: base conversion must respect max_int_bits, and rounding costs by size
    "scan/int_base16": limit("max_int_bits", "{{ ('f' * 9000000)|int(base=16) > 0 }}"),
    "scan/int_base2": limit("max_int_bits", "{{ ('1' * 9000000)|int(base=2) > 0 }}"),
    "scan/int_base8": limit("max_int_bits", "{{ ('7' * 9000000)|int(base=8) > 0 }}"),
    "scan/int_base0_hex": limit("max_int_bits", "{{ ('0x' ~ 'f' * 9000000)|int(base=0) > 0 }}"),
    "scan/int_base32": limit("max_int_bits", "{{ ('v' * 9000000)|int(base=32) > 0 }}"),
    "scan/round_big_int": limit("max_int_bits", "{{ ('f' * 9000000)|int(base=16)|round(-30000) > 0 }}"),
    "scan/round_loop": limit("max_steps", "{% set n = ('f' * 25000)|int(base=16) %}"
                                          + loop("{% set x = n|round(-30000) %}")),
    "scan/int_base16_ok": out("255", "{{ 'ff'|int(base=16) }}"),
    # a filtered loop that reads loop.length (Jinja2 makes it a list once)
    "scan/filtered_loop_length": out("399996|",
                                     "{% set r = range(100000)|list %}{% for x in r + r + r + r if x %}"
                                     "{{ loop.length ~ '|' if loop.first }}{% endfor %}"),
    "scan/filtered_loop_revindex": out("3", "{% set r = range(100000)|list %}{% for x in r + r + r if x > 99998 %}"
                                            "{{ loop.revindex if loop.first }}{% endfor %}"),
}


# ============================================================================================ compile time
def nested(open_tag, close_tag, body, depth=95):
    return open_tag * depth + body + close_tag * depth


_COMPILE = {
    "compile/nested_for_many_prints": out("1" * 30000, nested("{% for x in [1] %}", "{% endfor %}", "{{ x }}" * 30000)),
    "compile/nested_if_many_prints": out("1" * 30000, nested("{% if 1 %}", "{% endif %}", "{{ 1 }}" * 30000)),
    "compile/nested_macro_many_prints": out("", nested("{% macro m() %}", "{% endmacro %}", "{{ x }}" * 30000)),
    "compile/nested_set_block": out("", nested("{% set y %}", "{% endset %}", "{{ 1 }}" * 30000)),
    "compile/nested_filter_block": out("1" * 30000, nested("{% filter lower %}", "{% endfilter %}", "{{ 1 }}" * 30000)),
    "compile/nested_for_many_sets": out("", nested("{% for x in [1] %}", "{% endfor %}", "{% set a = x %}" * 14000)),
    "compile/nested_for_distinct_names": out(
        "1" * 12000, "".join("{%% for v%d in [1] %%}" % i for i in range(95)) + "{{ v0 }}{{ v94 }}" * 6000
        + "{% endfor %}" * 95),
    "compile/nested_for_loop_vars": out("1" * 16000, nested("{% for x in [1] %}", "{% endfor %}",
                                                            "{{ loop.index }}" * 16000)),
    "compile/nested_macro_calls": out("", nested("{% macro m() %}{{ caller() }}", "{% endmacro %}",
                                                 "{% call m() %}{% endcall %}" * 8000)),
    "compile/macro_many_params": out("1", "{% macro m(" + ", ".join("a%d" % i for i in range(30000))
                                     + ") %}{{ a0 }}{% endmacro %}{{ m(1) }}"),
    "compile/macro_many_defaults": out("1", "{% macro m(" + ", ".join("a%d=1" % i for i in range(24000))
                                       + ") %}{{ a0 }}{% endmacro %}{{ m() }}"),
    "compile/call_many_args": out("40000", "{% macro m() %}{{ varargs|length }}{% endmacro %}{{ m("
                                  + "1, " * 40000 + ") }}"),
    "compile/call_many_kwargs": out("20000", "{% macro m() %}{{ kwargs|length }}{% endmacro %}{{ m("
                                    + ", ".join("k%d=1" % i for i in range(20000)) + ") }}"),
    "compile/list_literal": out("100000", "{{ [" + "1," * 100000 + "]|length }}"),
    "compile/dict_literal": out("20000", "{{ {" + ", ".join("'k%d': 1" % i for i in range(20000)) + "}|length }}"),
    "compile/many_sets": out("1", "".join("{%% set v%d = %d %%}" % (i, i) for i in range(11000)) + "{{ v1 }}"),
    "compile/many_sets_in_loop": out("1", "{% for x in [1] %}" + "".join("{%% set v%d = x %%}" % i for i in range(12000))
                                     + "{{ v1 }}{% endfor %}"),
    "compile/many_macros": out("", "".join("{%% macro m%d() %%}{%% endmacro %%}" % i for i in range(7500))),
    "compile/many_elifs": out("x", "{% if 0 %}" + "{% elif 0 %}" * 21000 + "{% else %}x{% endif %}"),
    "compile/many_blocks": out("", "".join("{%% block b%d %%}{%% endblock %%}" % i for i in range(8000))),
    "compile/nested_blocks": out("1" * 30000, "".join("{%% block b%d %%}" % i for i in range(95)) + "{{ 1 }}" * 30000
                                 + "{% endblock %}" * 95),
    "compile/long_and_chain": limit("max_nesting", "{{ " + " and ".join(["1"] * 40000) + " }}"),
    "compile/many_filters_flat": out("x" * 20000, "{{ 'x'|e }}" * 20000),
    "compile/long_concat": out("1" * 60000, "{{ '' ~ " + " ~ ".join(["1"] * 60000) + " }}"),
    "compile/at_the_limit": out("x" * 262144, "x" * 262144),
    "compile/just_over_the_limit": limit("max_template_size", "x" * 262145),
}


_RAW = {**hostile_data.RAW, **_POISON, **_PREALLOC, **_FIELDS, **_SCAN, **_COMPILE}


def _finish(raw):
    return [case._replace(id=case_id) for case_id, case in raw.items()]


BOUNDS = _finish(_RAW)
ALL_CASES = CASES + BOUNDS
