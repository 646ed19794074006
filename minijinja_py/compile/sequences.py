"""Statement pairs of a statement list run as one closure: a print of a key and the {% if %} right after it that
prints another key of the same variable when that is true (`{{ '<|im_start|>' + m['role'] + '\n' }}{% if
m['content'] %}{{ m['content'] }}{% endif %}`); a {% set %} of a variable from an in-line read and the {% if %}
right after it that tests that variable (`{% set role = message['role']|lower %}{% if role == 'user' %}`, `{% set
content = message['content'] %}{% if content is not string %}`), the value handed from one to the other without
storing and reading it back through two calls.

The closures say what they are by attributes the fused modules set on them: `mj_print = (slot, key, before,
after)` on a print of a key (fused_print), `mj_echo` the same on such an if (fused_if), `mj_set = (slot, source,
key, method)` on an assignment read in line (fused.s_assign), `mj_test = (slot, kind, constant, want, then,
else_)` on an if over one variable (fused_if; kind "compare", "type" or "contains"). Whenever the read or the
value is not plain data, the pair runs as the two statements it was.
"""

from .atoms import PLAIN_TYPES
from ..core.state import BIG_STR, MISSING

__all__ = ["fuse_pairs"]


def fuse_pairs(runs):
    """runs with each set-then-test pair replaced by one closure (and a set of the same variable from itself
    through a str method right after it, when the pair reads with one: see _then_refilter)."""
    fused, index = [], 0
    while index < len(runs):
        printed = getattr(runs[index], "mj_print", None)
        echo = getattr(runs[index + 1], "mj_echo", None) if index + 1 < len(runs) else None
        if printed is not None and echo is not None and printed[0] == echo[0]:
            fused.append(_print_then_echo(printed, runs[index], echo, runs[index + 1]))
            index += 2
            continue
        setter = getattr(runs[index], "mj_set", None)
        test = getattr(runs[index + 1], "mj_test", None) if index + 1 < len(runs) else None
        if setter is not None and test is not None and setter[0] == test[0]:
            after = getattr(runs[index + 2], "mj_set", None) if index + 2 < len(runs) else None
            if _refilters(setter, test, after):
                fused.append(_then_refilter(setter, runs[index], test, runs[index + 1], after, runs[index + 2]))
                index += 3
                continue
            fused.append(_set_then_test(setter, runs[index], test, runs[index + 1]))
            index += 2
        else:
            fused.append(runs[index])
            index += 1
    return tuple(fused)


def _set_then_test(setter, set_run, test, test_run):
    slot, source, key, method = setter
    _, kind, constant, want, then, else_ = test
    if key is not None and method is not None and kind == "compare" and type(constant) is str:
        def run_filtered_then_compare(f, out):   # {% set role = message['role']|lower %}{% if role == 'user' %}
            obj = f[source]
            if type(obj) is dict:
                value = obj.get(key)
                if type(value) is str and len(value) < BIG_STR:
                    value = f[slot] = method(value)
                    if (value == constant) is want:
                        then(f, out)
                    elif else_ is not None:
                        else_(f, out)
                    return
            set_run(f, out)
            test_run(f, out)
        return run_filtered_then_compare
    if key is not None and method is None and kind == "type":
        def run_read_then_type(f, out):   # {% set content = message['content'] %}{% if content is string %}
            obj = f[source]
            if type(obj) is dict and key in obj:
                value = f[slot] = obj[key]
                if type(value) in PLAIN_TYPES:
                    if (type(value) is constant) is want:
                        then(f, out)
                    elif else_ is not None:
                        else_(f, out)
                    return
                return test_run(f, out)
            set_run(f, out)
            test_run(f, out)
        return run_read_then_type
    if key is not None and method is None and kind == "contains":
        def run_read_then_contains(f, out):   # {% set c = m['content'] %}{% if '</think>' in c %}
            obj = f[source]
            if type(obj) is dict and key in obj:
                value = f[slot] = obj[key]
                if type(value) is str and len(value) < BIG_STR or type(value) is dict:
                    if (constant in value) is want:
                        then(f, out)
                    elif else_ is not None:
                        else_(f, out)
                    return
                return test_run(f, out)
            set_run(f, out)
            test_run(f, out)
        return run_read_then_contains
    # any other read: the value found by _read_value, then the test decided on it (`holds`)
    if kind == "compare":
        constant_type = type(constant)

        def holds(value):
            return (value == constant) is want if type(value) is constant_type else None
    elif kind == "contains":   # `'</think>' in content`
        def holds(value):
            if type(value) is dict or type(value) is str and len(value) < BIG_STR:
                return (constant in value) is want
            return None
    else:   # "type": `is string`, `is not mapping`
        def holds(value):
            return (type(value) is constant) is want if type(value) in PLAIN_TYPES else None

    def run_set_then_test(f, out):
        value = _read_value(f, source, key, method)
        if value is MISSING:
            set_run(f, out)
            return test_run(f, out)
        f[slot] = value
        outcome = holds(value)
        if outcome is None:
            test_run(f, out)
        elif outcome:
            then(f, out)
        elif else_ is not None:
            else_(f, out)
    return run_set_then_test


def _refilters(setter, test, after):
    """Is `after` a set of the pair's variable from itself through a str method (`{% set role = role|upper %}`),
    after a pair that reads a key through a str method and compares with a string?"""
    slot, _, key, method = setter
    return after is not None and key is not None and method is not None and test[1] == "compare" and \
        type(test[2]) is str and after[0] == slot and after[1] == slot and after[2] is None and \
        after[3] is not None


def _then_refilter(setter, set_run, test, test_run, after, after_run):
    """`{% set role = m['role']|lower %}{% if role == 'user' %}{% set role = 'HUMAN' %}{% endif %}{% set role =
    role|upper %}` as one closure: the pair, then the variable (whatever the branch left in it) through the
    second method when it is a short plain string, else the third statement as it is."""
    slot, source, key, method = setter
    _, _, constant, want, then, else_ = test
    second = after[3]

    def run_filtered_compare_refilter(f, out):
        obj = f[source]
        if type(obj) is dict:
            value = obj.get(key)
            if type(value) is str and len(value) < BIG_STR:
                value = f[slot] = method(value)
                if (value == constant) is want:
                    then(f, out)
                    value = f[slot]
                elif else_ is not None:
                    else_(f, out)
                    value = f[slot]
                if type(value) is str and len(value) < BIG_STR:
                    f[slot] = second(value)
                    return
                return after_run(f, out)
        set_run(f, out)
        test_run(f, out)
        after_run(f, out)
    return run_filtered_compare_refilter


def _print_then_echo(printed, print_run, echo, echo_run):
    """`{{ '<|start_header_id|>' + m['role'] + '\n' }}{% if m['content'] %}{{ m['content'] }}{% endif %}` (the
    commonest message header and body) as one closure: the message looked up once, each key printed in line when
    it is a short plain string; else each statement as it is."""
    slot, key, before, after = printed
    _, echo_key, echo_before, echo_after = echo

    def run_print_then_echo(f, out):
        obj = f[slot]
        if type(obj) is dict:
            value = obj.get(key)
            if type(value) is str and len(value) < BIG_STR:
                out.append(before + value + after)
                value = obj.get(echo_key)
                if type(value) is str and len(value) < BIG_STR:
                    if value:
                        out.append(echo_before + value + echo_after)
                    return
                return echo_run(f, out)
        print_run(f, out)
        echo_run(f, out)
    return run_print_then_echo


def _read_value(f, source, key, method):
    """The value an assignment's in-line read gives (fused.s_assign), or MISSING where it is not plain."""
    value = f[source]
    if key is not None:
        value = value.get(key, MISSING) if type(value) is dict else MISSING
    if method is not None:
        value = method(value) if type(value) is str and len(value) < BIG_STR else MISSING
    return value
