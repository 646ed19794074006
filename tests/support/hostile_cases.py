"""The hostile-template cases: each a template (and inputs) someone might send us, with the exact outcome.

CASES holds Case(id, source, expect, context=None, mode="chat", then=(), repeat=0):
  expect = ("out", text)          renders exactly text
         = ("error", ClassName)   raises that TemplateError class (a minijinja_py name, or a built-in twin)
         = ("limit", limit_name)  raises LimitExceeded whose .limit is limit_name (a tuple of names: any of them,
                                  where which limit stops it first is the implementation's choice)
         = ("stable",)            renders, and the same text twice in one process and in another process
  mode   = "chat"   chat_environment().from_string(source).render(**context)
           "plain"  Environment().from_string(source).render(**context)
           "plain_autoescape", "debug" (undefined=DebugUndefined), "chat_debug": the same with those options
           "ct"     ChatTemplate(source).render(**context)  (context has messages=...)
           "bytes"  Environment().from_string(source) with source as given (not a str)
  then   = more Cases (their ids unused) rendered after this one in the same process, each with its own
           expectation: what one render leaves behind must not change the next
  repeat = render this many more times (with `i` = 1, 2, ... in the context): the process must not keep memory
Contexts are built by functions here so that cyclic and deeply nested data can be made; test_hostile.py runs
every case in a child process (hostile_runner.py: a crash or a hang fails that case, not the run) and checks
the outcome and the measures (time, peak memory, the caller's data, later renders).
"""

from collections import deque, namedtuple

Case = namedtuple("Case", "id source expect context mode then repeat", defaults=(None, "chat", (), 0))

MSGS = [{"role": "system", "content": "be nice"}, {"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def chat(**extra):
    return dict(messages=[dict(m) for m in MSGS], tools=[dict(t) for t in TOOLS], **extra)


def cyclic_list():
    a = [1]
    a.append(a)
    return {"x": a}


def cyclic_dict():
    d = {"a": 1}
    d["self"] = d
    return {"x": d}


def deep_list(depth):
    x = []
    for _ in range(depth):
        x = [x]
    return x


def dag(levels, width):
    x = [0]
    for _ in range(levels):
        x = [x] * width
    return x


class Opaque:
    """A caller object with no __repr__ of its own (object's shows an address)."""

    def __init__(self):
        self.name = "thing"

    def method(self):
        return "called"


class Secretive(Opaque):
    """A caller object with a private attribute."""

    def __init__(self):
        super().__init__()
        self._secret = "s3cr3t"


def sec(source, **kw):
    return Case(None, source, ("error", "SecurityError"), **kw)


def limit(name, source, **kw):
    return Case(None, source, ("limit", name), **kw)


def out(text, source, **kw):
    return Case(None, source, ("out", text), **kw)


def err(cls, source, **kw):
    return Case(None, source, ("error", cls), **kw)


_RAW = {
    # ------------------------------------------------------------------------- escapes: attributes and items
    "ssti/str_class": sec("{{ ''.__class__ }}"),
    "ssti/str_class_mro": sec("{{ ''.__class__.__mro__[1].__subclasses__() }}"),
    "ssti/item_class": sec("{{ ''['__class__'] }}"),
    "ssti/item_dunder_dict": sec("{{ messages['__class__'] }}", context=chat()),
    "ssti/dict_attr_dunder": sec("{{ messages[0].__class__ }}", context=chat()),
    # a `_` name the object does not have is undefined, as in Jinja2 (issue 12); one it has stays refused
    "ssti/single_underscore": out("", "{{ messages[0]._private }}", context=chat()),
    "ssti/attr_filter": sec("{{ ''|attr('__class__') }}"),
    "ssti/attr_filter_globals": sec("{{ lipsum|attr('__globals__') }}"),
    "ssti/attr_filter_item_name": sec("{{ (''|attr('__class__'))|attr('__base__') }}"),
    "ssti/format_attr": sec("{{ '{0.__class__}'.format('') }}"),
    "ssti/format_item": sec("{{ '{0[__class__]}'.format('') }}"),
    "ssti/format_map": sec("{{ '{a.__class__.__init__.__globals__}'.format_map({'a': 1}) }}"),
    "ssti/format_nested_spec": sec("{{ '{0:{1.__class__}}'.format('', '') }}"),
    "ssti/format_markup": sec("{{ ('{0.__class__}'|safe).format('') }}"),
    "ssti/percent_attr": sec("{{ '%s' % ''.__class__ }}"),
    "ssti/percent_mapping_key": out("1", "{{ '%(__class__)s' % {'__class__': 1} }}"),
    "ssti/map_attribute": sec("{{ messages|map(attribute='__class__')|list }}", context=chat()),
    "ssti/map_attribute_path": sec("{{ messages|map(attribute='role.__class__')|list }}", context=chat()),
    "ssti/selectattr": sec("{{ messages|selectattr('__class__')|list }}", context=chat()),
    "ssti/rejectattr": sec("{{ messages|rejectattr('__class__')|list }}", context=chat()),
    "ssti/rejectattr_missing": out("[{'role': 'system', 'content': 'be nice'}, {'role': 'user', 'content': 'hi'}]",
                                   "{{ messages|rejectattr('_x')|list }}", context=chat()),
    "ssti/rejectattr_present": out("[]", "{{ [{'_x': 1}]|rejectattr('_x')|list }}"),   # a key is data (issue 23)
    "ssti/sort_attribute": sec("{{ messages|sort(attribute='__class__') }}", context=chat()),
    "ssti/groupby": sec("{{ messages|groupby('__class__') }}", context=chat()),
    "ssti/sum_attribute": sec("{{ messages|sum(attribute='__len__') }}", context=chat()),
    "ssti/unique_attribute": sec("{{ messages|unique(attribute='__class__')|list }}", context=chat()),
    "ssti/min_attribute": sec("{{ messages|min(attribute='__class__') }}", context=chat()),
    "ssti/join_attribute": sec("{{ messages|join(attribute='__class__') }}", context=chat()),
    "ssti/range_globals": sec("{{ range.__globals__ }}"),
    "ssti/range_self": out("", "{{ range.__self__ }}"),
    "ssti/lipsum_globals": sec("{{ lipsum.__globals__['os'] }}"),
    "ssti/lipsum_code": sec("{{ lipsum.__code__ }}"),
    "ssti/dict_global_class": sec("{{ dict.__class__.__base__ }}"),
    "ssti/dict_fromkeys_self": sec("{{ dict.fromkeys.__self__ }}"),
    "ssti/namespace_init": sec("{{ namespace.__init__.__globals__ }}"),
    "ssti/namespace_attrs": out("", "{{ namespace(a=1)._attrs }}"),   # Jinja2's namespace has no such attribute
    "ssti/namespace_jinja2_attrs": sec("{{ namespace(a=1)._Namespace__attrs }}"),
    "ssti/namespace_set_dunder": sec("{% set ns = namespace() %}{% set ns.__class__ = 1 %}"),
    "ssti/cycler_init": sec("{{ cycler.__init__ }}"),
    "ssti/cycler_next_self": sec("{{ cycler(1).next.__self__ }}"),
    "ssti/joiner_dict": sec("{{ joiner().__dict__ }}"),   # Jinja2's joiner has one (its unsafe undefined)
    "ssti/raise_exception_globals": sec("{{ raise_exception.__globals__ }}"),
    "ssti/strftime_closure": sec("{{ strftime_now.__call__ }}"),
    "ssti/strftime_clock": sec("{{ strftime_now.now }}"),
    "ssti/loop_class": sec("{% for x in [1] %}{{ loop.__class__ }}{% endfor %}"),
    "ssti/loop_recurse_private": sec("{% for x in [1] recursive %}{{ loop._recurse }}{% endfor %}"),
    "ssti/loop_cycle_self": sec("{% for x in [1] %}{{ loop.cycle.__self__ }}{% endfor %}"),
    "ssti/macro_body": out("", "{% macro m() %}{% endmacro %}{{ m._code }}"),   # the engine's names never show
    "ssti/macro_scope": out("", "{% macro m() %}{% endmacro %}{{ m._parent }}"),
    "ssti/macro_func": sec("{% macro m() %}{% endmacro %}{{ m._func }}"),   # Jinja2's macro has these
    "ssti/macro_environment": sec("{% macro m() %}{% endmacro %}{{ m._environment }}"),
    "ssti/macro_call_globals": sec("{% macro m() %}{% endmacro %}{{ m.__call__.__globals__ }}"),
    "ssti/caller_class": sec("{% macro m() %}{{ caller.__class__ }}{% endmacro %}{% call m() %}x{% endcall %}"),
    "ssti/method_self": sec("{{ ''.join.__self__ }}"),
    "ssti/method_func": out("", "{{ 'a'.upper.__func__ }}"),
    "ssti/generator_frame": sec("{{ ([1]|map('string')).gi_frame }}"),
    "ssti/generator_code": sec("{{ ([1]|map('string')).gi_code }}"),
    "ssti/int_class": sec("{{ (1).__class__ }}"),
    "ssti/undefined_dunder": sec("{{ nothing.__class__ }}"),   # an undefined's dunder exists: refused (issue 8)
    "ssti/caller_object_private": out("", "{{ obj._secret }}", context={"obj": Opaque()}, mode="plain"),
    "ssti/caller_object_private_present": sec("{{ obj._secret }}", context={"obj": Secretive()}, mode="plain"),
    "ssti/caller_object_class": sec("{{ obj.__class__ }}", context={"obj": Opaque()}, mode="plain"),
    # handed out as in Jinja2, its size checked before it is built
    "ssti/bytearray_center": limit("max_string", "{{ b.center(10**9) }}", context={"b": bytearray(b"x")},
                                   mode="plain"),
    "ssti/bytearray_decode_ok": out("x", "{{ b.decode() }}", context={"b": bytearray(b"x")}, mode="plain"),
    "ssti/deque_rotate": sec("{{ d.rotate(1) }}", context={"d": deque([1, 2])}, mode="plain"),
    "ssti/memoryview_release": err("UndefinedError", "{{ m.release() }}", context={"m": memoryview(b"x")},
                                   mode="plain"),
    "ssti/self_printed": out("<TemplateReference None>", "{{ self }}"),
    # the engine's wrappers and state must show nothing of themselves (a checked method stands for the method)
    "ssti/method_wrapper_state": out("", "{{ ''.upper.rs }}"),
    "ssti/method_wrapper_state_chain": err("UndefinedError", "{{ ''.upper.rs.env }}"),
    "ssti/method_wrapper_refuel": err("UndefinedError", "{{ ''.upper.rs.burn(-1000000000) }}"),
    "ssti/method_wrapper_raw_method": out("", "{{ messages[0].items.method }}", context=chat()),
    "ssti/method_wrapper_object": out("", "{{ messages[0].items.obj }}", context=chat()),
    "ssti/method_wrapper_item": out("", "{{ ''.upper['rs'] }}"),
    "ssti/method_wrapper_attr_filter": out("", "{{ ''.upper|attr('rs') }}"),
    "ssti/method_wrapper_map_path": out("[Undefined]", "{{ ['a']|map(attribute='upper.rs')|list }}"),
    "ssti/method_wrapper_self": sec("{{ messages[0].items.__self__ }}", context=chat()),
    "ssti/loop_cycle_state": out("", "{% for i in [1] %}{{ loop.cycle.rs }}{% endfor %}"),
    "ssti/cycler_next_state": out("", "{{ cycler(1).next.rs }}"),
    "ssti/block_reference_state": out("b|True", "{% block b %}{% endblock %}{{ self.b.name }}|{{ self.b.rs is undefined }}"),
    "ssti/self_init_globals": sec("{{ self.__init__.__globals__ }}"),
    "ssti/self_block_globals": sec("{% block a %}{% endblock %}{{ self.a.__call__.__globals__ }}"),
    "ssti/call_exception_class": sec("{{ exc('boom') }}", context={"exc": ValueError}, mode="plain"),
    "ssti/getattr_chain_item": sec("{{ messages[0]['items'].__self__ }}", context=chat()),

    # ------------------------------------------------------------------------- mutation of the caller's data
    "mutate/list_append": sec("{{ messages.append(1) }}", context=chat()),
    "mutate/list_append_printed": sec("{{ messages.append }}", context=chat()),
    "mutate/list_pop": sec("{{ messages.pop() }}", context=chat()),
    "mutate/list_clear": sec("{{ messages.clear() }}", context=chat()),
    "mutate/list_sort": sec("{{ messages.sort() }}", context=chat()),
    "mutate/list_reverse": sec("{{ tools.reverse() }}", context=chat()),
    "mutate/list_extend_item": sec("{{ messages['extend']([1]) }}", context=chat()),
    "mutate/dict_update": sec("{{ messages[0].update({'role': 'x'}) }}", context=chat()),
    "mutate/dict_setdefault": sec("{{ messages[0].setdefault('x', 1) }}", context=chat()),
    "mutate/dict_pop": sec("{{ tools[0].pop('type') }}", context=chat()),
    "mutate/dict_popitem": sec("{{ tools[0]['function'].popitem() }}", context=chat()),
    "mutate/attr_filter_append": sec("{{ (messages|attr('append'))(1) }}", context=chat()),
    "mutate/set_attr_on_dict": err("TemplateRuntimeError", "{% set messages.role = 1 %}", context=chat()),
    "mutate/set_attr_on_loop": err("TemplateRuntimeError", "{% for x in [1] %}{% set loop.index = 5 %}{% endfor %}"),
    "mutate/namespace_copy": out("x|user", "{% set ns = namespace(messages[1]) %}{% set ns.role = 'x' %}{{ ns.role }}"
                                           "|{{ messages[1].role }}", context=chat()),
    "mutate/dict_copy": out("user", "{% set d = messages[1].copy() %}{{ d.role }}", context=chat()),
    # Jinja2's indent does `s += "\n"` first, which extends a list in place before failing
    "mutate/indent_list": err("AttributeError", "{{ messages|indent }}", context=chat()),
    "mutate/indent_list_blank": err("AttributeError", "{{ tools|indent(2, true, true) }}", context=chat()),

    # ------------------------------------------------------------------------- nothing prints an address
    "print/function": out("<function lipsum>", "{{ lipsum }}"),
    "print/builtin_method": out("<built-in method join of str object>", "{{ ''.join }}"),
    "print/generator": out("<generator object do_map>", "{{ [1]|map('string') }}"),
    "print/tilde": out("<function lipsum>!", "{{ lipsum ~ '!' }}"),
    "print/string_filter": out("<function lipsum>", "{{ lipsum|string }}"),
    "print/join": out("<function lipsum>,<function lipsum>", "{{ [lipsum, lipsum]|join(',') }}"),
    "print/pprint": out("[<function lipsum>, <built-in method upper of str object>]", "{{ [lipsum, 'a'.upper]|pprint }}"),
    "print/pprint_generator": out("<generator object do_map>", "{{ [1]|map('string')|pprint }}"),
    "print/format": out("<function lipsum>", "{{ '{}'.format(lipsum) }}"),
    "print/format_repr": out("[<function lipsum>]", "{{ '{!r}'.format([lipsum]) }}"),
    "print/percent": out("<function lipsum>", "{{ '%s' % lipsum }}"),
    "print/percent_repr": out("(<function lipsum>,)", "{{ '%r' % ((lipsum,),) }}"),
    "print/format_filter": out("<function lipsum>", "{{ '%s'|format(lipsum) }}"),
    "print/in_dict": out("{'f': <function lipsum>}", "{{ {'f': lipsum} }}"),
    "print/escape": out("&lt;function lipsum&gt;", "{{ lipsum|e }}"),
    "print/forceescape": out("&lt;function lipsum&gt;", "{{ lipsum|forceescape }}"),
    "print/xmlattr": out(' a="&lt;function lipsum&gt;"', "{{ {'a': lipsum}|xmlattr }}"),
    "print/caller_object": out("<hostile_cases.Opaque object>", "{{ obj }}", context={"obj": Opaque()}, mode="plain"),
    "print/caller_method": out("<bound method Opaque.method of <hostile_cases.Opaque object>>", "{{ obj.method }}",
                               context={"obj": Opaque()}, mode="plain"),
    "print/caller_method_called": out("called", "{{ obj.method() }}", context={"obj": Opaque()}, mode="plain"),
    "print/autoescape": out("&lt;function lipsum&gt;", "{{ lipsum }}", mode="plain_autoescape"),
    "print/tojson_refuses_function": err("TypeError", "{{ lipsum|tojson }}"),
    "print/raise_exception_function": err("TemplateError", "{{ raise_exception(lipsum) }}"),
    "print/index_error_message": err("ValueError", "{{ [1].index(lipsum) }}"),
    "print/undefined_key_message": err("UndefinedError", "{{ messages[lipsum].x }}", context=chat()),
    "print/unknown_filter_name": err("TemplateRuntimeError", "{{ [1]|map(lipsum)|list }}"),
    "print/cyclic_namespace": out("<Namespace {'a': 1, 'b': [<Namespace {...}>]}>",
                                  "{% set ns = namespace(a=1) %}{% set ns.b = [ns] %}{{ ns }}"),
    "print/cyclic_namespace_pprint": out("<Namespace {'a': 1, 'b': [<Namespace {...}>]}>",
                                         "{% set ns = namespace(a=1) %}{% set ns.b = [ns] %}{{ ns|pprint }}"),
    "print/cyclic_caller_list": out("[1, [...]]", "{{ x }}", context=cyclic_list(), mode="plain"),
    "print/cyclic_caller_dict": out("{'a': 1, 'self': {...}}", "{{ x }}", context=cyclic_dict(), mode="plain"),
    "print/cyclic_pprint": out("[1, <Recursion on list>]", "{{ x|pprint }}", context=cyclic_list(), mode="plain"),
    "print/cyclic_tojson": err("ValueError", "{{ x|tojson }}", context=cyclic_list(), mode="plain"),

    # ------------------------------------------------------------------------- strings, lists, integers
    "size/str_mul": limit("max_string", "{{ 'a' * 10**9 }}"),
    "size/str_mul_negative_ok": out("", "{{ 'a' * -5 }}"),
    "size/list_mul": limit("max_items", "{{ [1] * 10**9 }}"),
    "size/tuple_mul": limit("max_items", "{{ (1, 2) * 10**8 }}"),
    "size/tilde_doubling": limit("max_string", "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
                                               "{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
    "size/plus_doubling": limit("max_string", "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
                                              "{% set ns.s = ns.s + ns.s %}{% endfor %}"),
    "size/list_doubling": limit("max_items", "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}"
                                             "{% set ns.l = ns.l + ns.l %}{% endfor %}"),
    "size/center": limit("max_string", "{{ 'a'|center(10**9) }}"),
    "size/str_center": limit("max_string", "{{ 'a'.center(10**9) }}"),
    "size/ljust": limit("max_string", "{{ 'a'.ljust(10**9, 'x') }}"),
    "size/zfill": limit("max_string", "{{ '1'.zfill(10**9) }}"),
    "size/expandtabs": limit("max_string", "{{ ('\\t' * 100000).expandtabs(10**6) }}"),
    "size/replace": limit("max_string", "{{ ('a' * 1000)|replace('', 'x' * 100000) }}"),
    "size/str_replace": limit("max_string", "{{ ('a' * 100000).replace('a', 'b' * 1000) }}"),
    "size/translate": limit("max_string", "{{ ('a' * 100000).translate({97: 'b' * 1000}) }}"),
    "size/indent_width": limit("max_string", "{{ 'a\\nb'|indent(10**9) }}"),
    "size/indent_lines": limit("max_string", "{{ ('a\\n' * 100000)|indent(1000) }}"),
    "size/indent_string": limit("max_string", "{{ ('a\\n' * 100000)|indent('x' * 1000) }}"),
    "size/wordwrap_wrapstring": limit("max_string", "{{ ('a ' * 100000)|wordwrap(1, wrapstring='x' * 1000) }}"),
    "size/wordwrap_long_word": limit("max_string", "{{ ('a' * 9000000)|wordwrap(1) }}"),
    "size/join": limit("max_string", "{{ (['x' * 1000000] * 100)|join }}"),
    "size/join_separator": limit("max_string", "{{ range(100000)|join('x' * 1000) }}"),
    "size/str_join": limit("max_string", "{{ ('x' * 1000).join(['a'] * 100000) }}"),
    "size/format_width": limit("max_string", "{{ '{:>1000000000}'.format('a') }}"),
    "size/format_nested_width": limit("max_string", "{{ '{:>{}}'.format('a', 10**9) }}"),
    "size/format_precision": limit("max_string", "{{ '{:.999999999f}'.format(1.0) }}"),
    "size/format_many_fields": limit("max_string", "{{ ('{0:>9000000}' * 10).format('a') }}"),
    "size/format_repeat_arg": limit("max_string", "{{ ('{0}' * 100).format('x' * 1000000) }}"),
    "size/percent_width": limit("max_string", "{{ '%999999999s' % 'a' }}"),
    "size/percent_star": limit("max_string", "{{ '%*s' % (10**9, 'a') }}"),
    "size/percent_star_precision": limit("max_string", "{{ '%.*f' % (10**8, 1.0) }}"),
    "size/percent_many": limit("max_string", "{{ ('%s' * 100) % (('x' * 1000000,) * 100) }}"),
    "size/percent_mapping_repeat": limit("max_string", "{{ ('%(a)s' * 100) % {'a': 'x' * 1000000} }}"),
    "size/format_filter": limit("max_string", "{{ ('%s' * 20)|format(*(['x' * 1000000] * 20)) }}"),
    "size/int_pow": limit("max_int_bits", "{{ 2 ** 1000000 }}"),
    "size/int_pow_tower": limit("max_int_bits", "{{ 2 ** 1000 ** 1000 }}"),  # left-assoc: (2**1000)**1000
    "size/int_pow_left_assoc_ok": out("1" + "0" * 100, "{{ 10 ** 10 ** 10 }}"),
    "size/int_mul": limit("max_int_bits", "{% set n = 60000 %}{{ (2 ** n) * (2 ** n) }}"),
    # of constants, Jinja2 folds the factors while compiling and cannot write them into its code (too many digits)
    "size/int_mul_folded": err("ValueError", "{{ (2 ** 60000) * (2 ** 60000) }}"),
    "size/int_square_loop": limit("max_int_bits", "{% set ns = namespace(x=3) %}{% for i in range(40) %}"
                                                  "{% set ns.x = ns.x * ns.x %}{% endfor %}"),
    "size/int_print_digits": err("ValueError", "{{ 2 ** 99999 }}"),
    "size/float_pow_overflow": err("OverflowError", "{{ 10.0 ** 400 }}"),
    "size/float_pow_big_exponent": err("OverflowError", "{{ 1.5 ** (10 ** 20) }}"),
    "size/int_pow_ok": out("1024", "{{ 2 ** 10 }}"),
    "size/round_ceil_precision": limit("max_int_bits", "{{ 1.5|round(1000000000, 'ceil') }}"),
    "size/round_int_negative": limit("max_int_bits", "{{ 123|round(-1000000000) }}"),
    "size/int_filter_huge": out("0", "{{ ('9' * 5000)|int }}"),  # Jinja2's default, as the float fallback overflows
    "size/batch": limit("max_items", "{{ range(10)|batch(10**8, 0)|list }}"),
    "size/slice": limit("max_items", "{{ range(10)|slice(10**8)|list }}"),
    "size/range": limit("max_range", "{{ range(10**6) }}"),
    "size/range_is_overflow_error": err("OverflowError", "{{ range(10**6) }}"),
    "size/range_step": out("30", "{{ range(0, 10**20, 10**19 // 3 + 1)|length }}"),
    "size/list_of_string": limit("max_items", "{{ ('x' * 5000000)|list|length }}"),
    "size/split": limit("max_items", "{{ ('a ' * 2000000).split()|length }}"),
    "size/splitlines": limit("max_items", "{{ ('\\n' * 5000000).splitlines()|length }}"),
    "size/for_over_string": limit("max_items", "{% for c in 'x' * 5000000 %}{% break %}{% endfor %}"),
    "size/dict_fromkeys": out("100000", "{{ dict.fromkeys(range(100000))|length }}"),
    "size/lipsum": limit("max_steps", "{{ lipsum(1000, max=10000) }}"),
    "size/lipsum_ok": out("5", "{{ lipsum(5, false)|wordcount > 5 and 5 }}"),
    "size/tojson_indent": limit("max_string", "{{ range(100000)|list|tojson(indent=2000) }}"),
    "size/tojson_indent_huge": limit("max_string", "{{ [1]|tojson(indent=10**9) }}"),
    "size/tojson_separators": limit("max_string", "{{ range(100000)|list|tojson(separators=('x' * 1000, ':')) }}"),
    "size/sum_lists": limit("max_steps", "{{ ([range(1000)|list] * 2000)|sum(start=[])|length }}"),
    "size/sum_strings_refused": err("TypeError", "{{ ['a', 'b']|sum(start='') }}"),

    # ------------------------------------------------------------------------- shared data (DAGs)
    "dag/print": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ a }}"),
    "dag/string": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ a|string|length }}"),
    "dag/tilde": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ (a ~ '')|length }}"),
    "dag/tojson": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ a|tojson|length }}"),
    "dag/pprint": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ a|pprint|length }}"),
    "dag/format": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ '%s'|format(a)|length }}"),
    "dag/str_format": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ '{}'.format(a)|length }}"),
    "dag/map_upper": limit("max_steps", "{% set a = ['x' * 1000000] * 1000000 %}{{ a|map('upper')|list|length }}"),
    "dag/join": limit("max_string", "{% set a = ['x' * 1000000] * 1000000 %}{{ a|join|length }}"),
    "dag/nested_eq": limit("max_steps", "{% set a = [[[1] * 1000] * 1000] * 1000 %}"
                                        "{% set b = [[[1] * 1000] * 1000] * 1000 %}{{ a == b }}"),
    "dag/nested_in": limit("max_steps", "{% set a = [[[1] * 1000] * 1000] * 1000 %}{{ [[[1] * 1000] * 1000] in a }}"),
    "dag/tuple_hash": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                         "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ {ns.t: 1}|length }}"),
    "dag/tuple_lookup": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                           "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ {}[ns.t] }}"),
    "dag/tuple_in_dict": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                            "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ ns.t in {} }}"),
    "dag/tuple_print": limit("max_string", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                           "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ ns.t }}"),
    "dag/tuple_unique": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                           "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ [ns.t]|unique|list }}"),
    "dag/tuple_sort": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                         "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ [ns.t, ns.t]|sort }}"),
    "dag/tuple_dict_global": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                                "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ dict([(ns.t, 1)]) }}"),
    "dag/tuple_get": limit("max_steps", "{% set ns = namespace(t=(1, 2)) %}{% for i in range(80) %}"
                                        "{% set ns.t = (ns.t, ns.t) %}{% endfor %}{{ {}.get(ns.t) }}"),
    "dag/loop_changed": limit("max_steps", "{% set a = [[[1] * 1000] * 1000] * 100 %}{% set b = [[[1] * 1000] * 1000] * 100 %}"
                                           "{% for x in [a, b] %}{{ loop.changed(x) }}{% endfor %}"),
    "dag/test_eq": limit("max_steps", "{% set a = [[[1] * 1000] * 1000] * 1000 %}"
                                      "{{ a is eq([[[1] * 1000] * 1000] * 1000) }}"),
    "dag/select_equalto": limit("max_steps", "{% set a = [[[1] * 1000] * 1000] * 1000 %}"
                                             "{{ [a, a]|select('equalto', [[[1] * 1000] * 1000] * 1000)|list|length }}"),
    "dag/deep_data_print": limit("max_data_depth", "{{ x }}", context={"x": deep_list(100000)}, mode="plain"),
    "dag/deep_data_tojson": limit("max_data_depth", "{{ x|tojson }}", context={"x": deep_list(100000)}, mode="plain"),
    "dag/deep_data_compare": limit("max_data_depth", "{{ x == x[0] }}", context={"x": deep_list(100000)}, mode="plain"),
    "dag/deep_data_pprint": limit("max_data_depth", "{{ x|pprint }}", context={"x": deep_list(100000)}, mode="plain"),
    "dag/cyclic_compare": limit("max_data_depth", "{{ x == [1, x] }}", context=cyclic_list(), mode="plain"),
    "dag/cyclic_in": limit("max_data_depth", "{{ x in x }}", context=cyclic_list(), mode="plain"),
    "dag/cyclic_sort": limit("max_data_depth", "{{ [x, x]|sort }}", context=cyclic_list(), mode="plain"),
    "dag/cyclic_length_ok": out("2", "{{ x|length }}", context=cyclic_list(), mode="plain"),
    "dag/caller_dag_print": limit("max_string", "{{ x }}", context={"x": dag(4, 1000)}, mode="plain"),

    # ------------------------------------------------------------------------- time: loops, calls, scans
    "time/nested_ranges": limit("max_steps", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}"
                                             "{% endfor %}"),
    "time/range_list_in_loop": limit("max_steps", "{% for i in range(100000) %}{% set x = range(100000)|list %}"
                                                  "{% endfor %}"),
    "time/macro_exponential": limit("max_steps", "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}"
                                                 "{% endmacro %}{{ f(40) }}"),
    "time/macro_recursion": limit("max_call_depth", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"),
    "time/loop_recursion": limit("max_call_depth", "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}"),
    "time/self_block_recursion": limit("max_call_depth", "{% block a %}{{ self.a() }}{% endblock %}"),
    "ssti/self_internals": out("", "{{ self._context }}"),   # Jinja2's TemplateReference has no _context
    "ssti/self_jinja2_internals": sec("{{ self._TemplateReference__context }}"),
    "ssti/block_reference_internals": sec("{% block a %}{% endblock %}{{ self.a._context }}"),
    "ssti/block_reference_attr": sec("{% block a %}{% endblock %}{{ self.a|attr('_context') }}"),
    "time/caller_recursion": limit("max_call_depth", "{% macro m() %}{{ caller() }}{% endmacro %}{% macro r() %}"
                                                     "{% call m() %}{{ r() }}{% endcall %}{% endmacro %}{{ r() }}"),
    "time/recursive_loop_fanout": limit("max_steps", "{% for x in [1, 2] recursive %}{{ loop([1, 2]) if loop.depth < 60 }}"
                                                     "{% endfor %}"),
    "time/in_big_string": limit("max_steps", "{% set s = 'a' * 9000000 %}{% for i in range(100000) %}"
                                             "{% if 'zz' in s %}{% endif %}{% endfor %}"),
    "time/equal_big_strings": limit("max_steps", "{% set s = 'a' * 9000000 %}{% set t = 'a' * 9000000 %}"
                                                 "{% for i in range(100000) %}{% if s == t %}{% endif %}{% endfor %}"),
    "time/upper_big_string": limit("max_steps", "{% set s = 'a' * 9000000 %}{% for i in range(100000) %}"
                                                "{% set x = s.upper() %}{% endfor %}"),
    "time/count_big_string": limit("max_steps", "{% set s = 'a' * 9000000 %}{% for i in range(100000) %}"
                                                "{% set x = s.count('b') %}{% endfor %}"),
    "time/slice_big_string": limit("max_steps", "{% set s = 'a' * 9000000 %}{% for i in range(100000) %}"
                                                "{% set x = s[::-1] %}{% endfor %}"),
    "time/filter_big_string": limit("max_steps", "{% set s = 'a' * 9000000 %}{% for i in range(100000) %}"
                                                 "{% set x = s|trim %}{% endfor %}"),
    "time/sort_in_loop": limit("max_steps", "{% set s = range(100000)|list %}{% for i in range(100000) %}"
                                            "{% set x = s|sort %}{% endfor %}"),
    "time/unique_in_loop": limit("max_steps", "{% set s = range(100000)|list %}{% for i in range(10000) %}"
                                              "{% set x = s|unique|list %}{% endfor %}"),
    "time/join_in_loop": limit("max_steps", "{% set l = ['a' * 100000] * 90 %}{% for i in range(100000) %}"
                                            "{% set x = ''.join(l) %}{% endfor %}"),
    "time/many_statements": limit("max_steps", "{% for i in range(100000) %}{% for j in range(100) %}"
                                               + "{% set x = 1 %}" * 100 + "{% endfor %}{% endfor %}"),
    "time/filtered_loop": limit("max_steps", "{% for i in range(100000) %}{% for j in range(100000) if j < 0 %}"
                                             "{% endfor %}{% endfor %}"),
    "time/big_scope_copies": limit("max_steps", "".join("{%% set v%d = 1 %%}" % i for i in range(3000))
                                   + "{% for i in range(100000) %}{% for j in range(100) %}{% set x = i %}{% endfor %}"
                                     "{% endfor %}"),
    "time/pprint_big": limit("max_steps", "{% for i in range(100) %}{% set x = range(100000)|list|pprint %}"
                                          "{% endfor %}"),
    "time/tojson_big": limit("max_steps", "{% for i in range(1000) %}{% set x = range(100000)|list|tojson %}"
                                          "{% endfor %}"),
    "time/wordwrap_words": limit("max_steps", "{% for i in range(1000) %}{% set x = ('ab ' * 100000)|wordwrap(5) %}"
                                              "{% endfor %}"),
    "time/urlize_punctuation": out("x", "{{ ('.' * 200000 ~ 'x')|urlize|length > 0 and 'x' }}"),
    "time/urlize_email": out("x", "{{ ('a@' * 100000 ~ '!')|urlize|length > 0 and 'x' }}"),
    "time/striptags_unclosed": out("200000", "{{ ('<' * 200000)|striptags|length }}"),
    "time/striptags_comments": out("800000", "{{ ('<!--' * 200000)|striptags|length }}"),
    "time/output": limit("max_output", "{% set s = 'x' * 1000000 %}{% for i in range(100) %}{{ s }}{% endfor %}"),
    "time/output_in_macro": limit("max_output", "{% set s = 'x' * 1000000 %}{% macro m() %}{{ s }}{% endmacro %}"
                                                "{% for i in range(100) %}{% set y = m() %}{% endfor %}"),
    "time/output_captured": limit("max_output", "{% set s = 'x' * 1000000 %}{% for i in range(100) %}"
                                                "{% set y %}{{ s }}{% endset %}{% endfor %}"),
    "time/retained_strings": limit("max_steps", "{% set ns = namespace(l=[]) %}{% for i in range(200) %}"
                                                "{% set ns.l = ns.l + ['x' * 9000000 ~ i] %}{% endfor %}"),
    "time/accumulate_ok": out("2000000", "{% set ns = namespace(s='') %}{% for i in range(2000) %}"
                                         "{% set ns.s = ns.s ~ 'x' * 1000 %}{% endfor %}{{ ns.s|length }}"),
    "time/accumulate_retained": limit("max_steps", "{% set ns = namespace(s='', l=[]) %}{% for i in range(2000) %}"
                                                   "{% set ns.s = ns.s ~ 'x' * 1000 %}{% set ns.l = ns.l + [ns.s] %}"
                                                   "{% endfor %}"),

    # ------------------------------------------------------------------------- malformed and huge sources
    "source/too_big": limit("max_template_size", "x" * 300000),
    "source/deep_brackets": limit("max_nesting", "{{ " + "[" * 10000 + "]" * 10000 + " }}"),
    "source/deep_parens": limit("max_nesting", "{{ " + "(" * 10000 + "1" + ")" * 10000 + " }}"),
    "source/deep_dict_literal": limit("max_nesting", "{{ " + "{'a': " * 5000 + "1" + "}" * 5000 + " }}"),
    "source/deep_unary": limit("max_nesting", "{{ " + "-" * 20000 + "1 }}"),
    "source/deep_not": limit("max_nesting", "{{ " + "not " * 20000 + "1 }}"),
    "source/deep_attributes": limit("max_nesting", "{{ a" + ".b" * 20000 + " }}"),
    "source/deep_filters": limit("max_nesting", "{{ a" + "|e" * 20000 + " }}"),
    "source/deep_plus": limit("max_nesting", "{{ 1" + "+1" * 20000 + " }}"),
    "source/deep_if": limit("max_nesting", "{% if 1 %}" * 5000 + "{% endif %}" * 5000),
    "source/deep_for": limit("max_nesting", "{% for x in [1] %}" * 3000 + "{% endfor %}" * 3000),
    "source/deep_macro": limit("max_nesting", "{% macro m() %}" * 3000 + "{% endmacro %}" * 3000),
    "source/many_elifs": out("", "{% if 0 %}" + "{% elif 0 %}" * 10000 + "{% endif %}"),
    "source/unclosed_if": err("TemplateSyntaxError", "{% if x %}" * 1000),
    "source/unclosed_output": err("TemplateSyntaxError", "{{ " * 30),
    "source/unclosed_output_deep": limit("max_nesting", "{{ " * 1000),
    "source/unclosed_comments": err("TemplateSyntaxError", "{# " * 80000),
    "source/unclosed_string": err("TemplateSyntaxError", "{{ '" + "a" * 200000),
    "source/unclosed_raw": err("TemplateSyntaxError", "{% raw %}" + "{ " * 100000),
    "source/tag_soup": err("TemplateSyntaxError", "{%  " * 60000),
    "source/braces": limit("max_nesting", "{" * 200000),
    "source/rbraces": out("}" * 200000, "}" * 200000),
    "source/whitespace": out(" " * 200000 + "x", " " * 200000 + "x"),
    "source/newlines": out("\n" * 200000 + "x", "\n" * 200000 + "x"),
    "source/words": out("a " * 120000, "a " * 120000),
    "source/raw_body": out("{ " * 120000, "{% raw %}" + "{ " * 120000 + "{% endraw %}"),
    "source/many_tags": out("1" * 10000, "{{ 1 }}" * 10000),
    "source/huge_int_literal": err("ValueError", "{{ 1" + "0" * 5000 + " }}"),   # int()'s, as Jinja2's lexer lets it out
    "source/nul_bytes": out("a\x00b\x00", "a\x00{{ 'b\x00' }}"),
    "source/lone_surrogates": out("\udcff\udc80x", "\udcff{{ '\udc80' }}x"),
    "source/surrogateescape_bytes": out("ok \udcff\udcfe", "ok " + b"\xff\xfe".decode("utf-8", "surrogateescape")),
    "source/crlf": out("a\nb\nc", "a\r\n{{ 'b' }}\r\nc\r\n"),
    "source/bidi_text": out("\u202eabc\u2066", "\u202e{{ 'abc' }}\u2066"),
    "source/bytes": err("TypeError", b"{{ 1 }}", mode="bytes"),
    "source/none": err("TypeError", None, mode="bytes"),

    # ------------------------------------------------------------------------- chat inputs
    "input/messages_not_list": err("TypeError", "{{ messages }}", context={"messages": "hello"}, mode="ct"),
    "input/messages_none": err("TypeError", "{{ messages }}", context={"messages": None}, mode="ct"),
    "input/messages_int": err("TypeError", "{{ messages }}", context={"messages": 5}, mode="ct"),
    "input/messages_dict": err("TypeError", "{{ messages }}", context={"messages": {"role": "user"}}, mode="ct"),
    "input/message_not_dict": err("TypeError", "{{ messages }}", context={"messages": ["hi"]}, mode="ct"),
    "input/message_huge_not_dict": err("TypeError", "{{ messages }}", context={"messages": [["x" * 10 ** 7]]},
                                       mode="ct"),
    "input/empty": err("ValueError", "{{ messages }}", context={"messages": []}, mode="ct"),
    "input/tools_not_dicts": err("ValueError", "{{ tools }}", context=dict(messages=MSGS, tools=["f"]), mode="ct"),
    "input/documents_not_dicts": err("TypeError", "x", context=dict(messages=MSGS, documents=[1]), mode="ct"),
    "input/deep_kwarg": limit("max_data_depth", "x", context=dict(messages=MSGS, kw={"extra": deep_list(100000)}),
                              mode="ct"),
    "input/deep_content": limit("max_data_depth", "x", context=dict(messages=[{"role": "user",
                                                                               "content": deep_list(100000)}]),
                                mode="ct"),
    "input/cyclic_content": limit("max_data_depth", "x", context=dict(messages=[{"role": "user",
                                                                                "content": cyclic_list()["x"]}]),
                                  mode="ct"),
    "input/continue_non_string": err("TypeError", "{{ messages[-1].content }}",
                                     context=dict(messages=[{"role": "user", "content": 5}],
                                                  continue_final_message=True), mode="ct"),
    "input/continue_and_generation": err("ValueError", "{{ content }}",
                                         context=dict(messages=MSGS, continue_final_message=True,
                                                      add_generation_prompt=True), mode="ct"),
    "input/many_messages": out("100000", "{{ messages|length }}",
                               context=dict(messages=[{"role": "user", "content": "x"}] * 100000), mode="ct"),
    "input/huge_content": out("20000000", "{{ messages[0].content|length }}",
                              context=dict(messages=[{"role": "user", "content": "x" * 20000000}]), mode="ct"),
    "input/huge_content_copied": limit("max_string", "{{ messages[0].content|trim }}",
                                       context=dict(messages=[{"role": "user", "content": "x" * 20000000}]),
                                       mode="ct"),
    "input/unhashable_kwarg_ok": out("[1]", "{{ x }}", context=dict(messages=MSGS, kw={"x": [1]}), mode="ct"),
    "input/raise_exception_verbatim": err("TemplateError", "{{ raise_exception('bad \\x1b[31m input\\u202e') }}",
                                          context=dict(messages=MSGS), mode="ct"),
}


def _finish(raw):
    cases = []
    for case_id, case in raw.items():
        cases.append(case._replace(id=case_id))
    return cases


CASES = _finish(_RAW)
