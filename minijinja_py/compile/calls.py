"""Calls: `f(args)`, `x | filter(args)`, `x is test(args)` → closures, and what calling a template value does."""

# The expression half that deals with functions (expressions.py has the rest). Filters and tests are looked up when
# the template compiles (an unknown one is a TemplateAssertionError then, or in a branch Jinja2 defers it, when it
# runs); their cost is what their function declares (budget.costs). Calling a value goes through call_value:
# macros charge their own body, everything else its call and what it returns, and every argument a function could
# hash or compare passes budget.guard first.

from ..builtins.strings import do_safe, str_method
from ..builtins.tests import BOOL_TESTS, TYPE_TESTS
from ..core.budget import charge_result, charged, charged_unary, declared_cost, guard, take
from ..core.errors import (
    LimitExceeded, SecurityError, TemplateAssertionError, TemplateRuntimeError, error_at, located, python_syntax_twin,
)
from ..core.state import BIG_STR, CHAR_SHIFT, MISSING, Passing, out_of_fuel
from ..runtime.markup import Markup, new_markup
from ..runtime.globalfuncs import Cycler, Joiner
from ..runtime.objects import ChatNamespace, LoopContext, Macro, Namespace, call_macro
from ..runtime.printing import short_repr
from ..runtime.sandbox import CHECKED_METHODS, getattr_, str_method_call
from ..runtime.undefined import Undefined
from ..syntax import nodes as n
from .context import (
    DICT_NAMES, constant_literal, constant_reader, folded_by_jinja2, in_line_place, operand, type_answers,
)

__all__ = [
    "call_parts", "call_value", "compile_args", "compile_call", "compile_filter", "compile_filter_step", "compile_test",
    "type_test",
]

_SCALARS = frozenset({str, int, float, bool, type(None)})
# the engine's own classes a template calls (namespace(), cycler(), joiner()): none carries a mark call_value looks
# for (a class's missing attribute costs a failed lookup each), so they are known by identity (`type` hashes a
# class by identity: no caller's code runs to look one up here)
_ENGINE_CLASSES = frozenset({Namespace, ChatNamespace, Cycler, Joiner})
# Python passes a **mapping's keywords one by one at each call they go through (about half a microsecond each:
# the call here, then a function taking **kwargs builds its dict again): what one keyword costs, in steps
_KEYWORD_STEPS = 8


def call_value(func, args, kwargs, rs):
    # Call a value from a template: macros, the sandbox's checked methods, globals, the caller's functions.
    if type(func) is Macro:
        return call_macro(func, *args, **kwargs)  # charges its own body
    if isinstance(func, Undefined):
        return func._fail_with_undefined_error()
    rs.fuel -= 1
    if rs.fuel < 0:
        raise out_of_fuel(rs.limits)
    # the sandbox's methods (most calls: they guard their arguments themselves) and the engine's own classes carry
    # none of the marks looked for below
    checked = type(func) in CHECKED_METHODS
    engine_class = not checked and type(func) is type and func in _ENGINE_CLASSES
    if not checked and (engine_class or getattr(func, "mj_guards_arguments", False) is not True):
        for value in args:
            if type(value) not in _SCALARS:
                guard(rs, value)   # namespace(), dict() and the caller's functions may hash or compare them
        if kwargs and not _SCALARS.issuperset(map(type, kwargs.values())):
            for value in kwargs.values():
                if type(value) not in _SCALARS:
                    guard(rs, value)
    try:
        if checked or engine_class:
            return charge_result(rs, func(*args, **kwargs))
        if type(func) is LoopContext:   # loop(children): its function, not the object (a recursion level less)
            return charge_result(rs, LoopContext.__call__(func, *args, **kwargs))
        if getattr(func, "mj_pass_state", False) is True:
            return charge_result(rs, func(rs, *args, **kwargs))
        if isinstance(func, type) and issubclass(func, BaseException):
            raise SecurityError(f"{func.__name__!r} cannot be called from a template")
        if getattr(func, "alters_data", False) or getattr(func, "unsafe_callable", False):
            # the caller's marks on a function a template must not call (Django's alters_data, Jinja2's
            # unsafe_callable): Jinja2's sandbox refuses it, so does this one
            raise SecurityError(f"{short_repr(func)} is not safely callable")
        if type(getattr(type(func), "__call__", None)) is Passing:
            # a callable class whose __call__ is marked pass_context (or another pass_*): called with the state
            return charge_result(rs, func.__call__(rs, *args, **kwargs))
        return charge_result(rs, func(*args, **kwargs))
    except StopIteration:
        # Jinja2: a call that raises StopIteration (next() of an exhausted iterator) gives an undefined
        return rs.undefined("value was undefined because a callable raised a StopIteration exception")


def argument(c, node):
    # (ev, None) of an argument node, or (None, its value) for a constant (a scalar, or a tuple of them).
    constant = constant_literal(c, node)
    return (c.expr(node), None) if constant is MISSING else (None, constant)


def compile_args(c, args, folds=False, start=None, caller_span=None):
    # Args → collect(f) → (positional list, keyword dict); *args and **kwargs expanded with their size bounded.
    # Constant arguments are not evaluated each time (`namespace(found=false)`, `tojson(indent=4)`). folds: the
    # filter or test of constants these are the arguments of is one Jinja2's optimizer folds (_keywords_after_stars).
    # Compiled in the order Jinja2 generates them (what it refuses first is refused first); what Python refuses in
    # that code is noted in the order Python compiles it: a repeated keyword first, at start (where the code of
    # the call begins: its callee, or the value of a filter or test), then the positional arguments, *args, the
    # keyword values, **kwargs. caller_span: a call block's call, which Jinja2 passes `caller=` too.
    _note_repeated(c, args, start, caller_span)
    late = c.late_errors
    positional = tuple(argument(c, a) for a in args.positional)
    if args.keyword_dict:   # `f(a, *s, **{'if': v})`: generated in Python's order
        star = c.expr(args.star) if args.star is not None else None
        keywords = tuple((k,) + argument(c, v) for k, v in args.keywords)
    else:
        before = len(late)
        keywords = tuple((k,) + argument(c, v) for k, v in args.keywords)
        after = len(late)
        star = c.expr(args.star) if args.star is not None else None
        if before < after < len(late):   # Python compiles *s before the keyword values
            late[before:] = late[after:] + late[before:after]
    dstar = c.expr(args.dstar) if args.dstar is not None else None
    overrides = args.keyword_dict   # `**dict({...}, **d)`: a key of d replaces a keyword's value

    def collect(f, dstar=dstar, folds=folds, keywords=keywords, positional=positional, star=star,
                overrides=overrides):
        # In Python's order, so Jinja2's generated `f(a, k=v, *s, **d)`: the positional values, *s (taken, so
        # refused if no iterable), the keyword values, then **d: errors and side effects come in that order.
        pos = [value if ev is None else ev(f) for ev, value in positional]
        if star is not None:
            pos.extend(_star_values(f[0], star(f)))
        kw = {k: value if ev is None else ev(f) for k, ev, value in keywords}
        if dstar is not None:
            extra = dstar(f)
            if type(extra) is not dict:
                extra = _keywords_after_stars(f[0], extra, folds)
            f[0].burn(_KEYWORD_STEPS * len(extra) if hasattr(extra, "__len__") else 0)
            if kw and not overrides and not kw.keys().isdisjoint(extra):
                k = next(k for k in extra if k in kw)
                raise TypeError(f"got multiple values for keyword argument {k!r}")
            kw.update(extra)
        return pos, kw
    return collect


def _star_values(rs, value):
    # The x of `f(*x)`, taken; what is not iterable is refused with Python's message.
    try:
        return take(rs, value, "a *argument")
    except TypeError:
        if hasattr(value, "__iter__") or hasattr(value, "__getitem__"):
            raise
        raise TypeError(f"Value after * must be an iterable, not {type(value).__name__}") from None


def _note_repeated(c, args, start, caller_span):
    # compile_args' repeated keyword (with a call block's `caller`, the last keyword Jinja2 passes), noted at start.
    if args.keyword_dict or args.repeated is None and caller_span is None:
        return
    name = args.repeated[0] if caller_span is None else n.first_repeated([k for k, _ in args.keywords] + ["caller"])
    if name is None:
        return
    message = f"keyword argument repeated: {name}"
    if args.repeated is not None and args.repeated[0] == name:
        error = python_syntax_twin()(message, args.repeated[1], args.repeated[2])
    else:
        error = error_at(python_syntax_twin(), message, caller_span)
    c.python_refuses(error, at=start)


def _keywords_after_stars(rs, value, folds):
    # The x of `f(**x)` when it is no dict: Python, so Jinja2's generated code, takes anything with keys() as a
    # mapping and refuses the rest; but Jinja2's optimizer computes a filter or test of constants (folds) with
    # dict.update(x), which takes pairs too (`'x'|center(**[['width', 5]])` renders; `s|center(...)` fails).
    if hasattr(value, "keys"):
        return value
    if folds:
        return dict(take(rs, value, "a **argument"))
    raise TypeError(f"argument after ** must be a mapping, not {type(value).__name__}")


def _unfolded(f, collect, exc):
    # Jinja2 folds a filter or test of constants only when its call succeeds: one that fails runs with the
    # template, where a ** of a non-mapping fails first. The error that run gives, in place of exc (a limit of
    # ours stays: Jinja2 has none, its fold would have succeeded): the arguments collected as unfolded.
    if isinstance(exc, LimitExceeded):
        return exc
    try:
        collect(f, folds=False)
    except Exception as error:   # noqa: BLE001 - the error Jinja2's run gives
        return error
    return exc


def _method_form(node):
    # The call of `obj.strip()`, `x.get(k)`, `x.items()`...: a str method's call (sandbox.str_method_call), "get",
    # "items", "keys", "values", or None for a call compile_call compiles the general way (call_parts).
    func, args = node.func, node.args
    if isinstance(func, n.Getattr) and not args.keywords and args.star is None and args.dstar is None and \
            len(args.positional) <= 2:
        call = str_method_call(func.attr)
        if call is not None:
            return call
        if func.attr == "get" and args.positional:
            return "get"
        if func.attr in ("items", "keys", "values") and not args.positional:
            return func.attr
    return None


def call_parts(c, node):
    # (func_ev, positional, collect) of a call compiled the general way: the callee's closure, then either the
    # positional arguments ((ev, None) or (None, constant) each; collect None) or, with keywords, *args or
    # **kwargs, collect(f) → (args, kwargs) (positional None). None for a method form (_method_form), compiling
    # nothing. (compile_call's closures, and output.py's printing of a call, call the callee with these.)
    if _method_form(node) is not None:
        return None
    start = len(c.late_errors)
    func_ev = c.expr(node.func)
    if node.args.keywords or node.args.star is not None or node.args.dstar is not None:
        return func_ev, None, compile_args(c, node.args, start=start)
    return func_ev, tuple(argument(c, a) for a in node.args.positional), None


def compile_call(c, node):
    method = _method_form(node)
    if method == "get":
        return _dict_get(c, node)
    if method in ("items", "keys", "values"):
        return _dict_view(c, node, method)
    if method is not None:
        return _str_method(c, node, method)
    func_ev, positional, collect = call_parts(c, node)
    span = node.span
    if collect is not None:
        def ev_general(f, collect=collect, func_ev=func_ev, span=span):
            func = func_ev(f)
            try:
                args, kwargs = collect(f)
                if type(func) is Macro:
                    return call_macro(func, *args, **kwargs)
                return call_value(func, args, kwargs, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_general
    # (a macro is called at once: call_value would only call it, a frame more; call_macro rather than the Macro:
    # calling an object costs CPython's recursion limit a level more than calling a function)
    if not positional:
        def ev_no_args(f, func_ev=func_ev, span=span):
            func = func_ev(f)
            try:
                return call_macro(func) if type(func) is Macro else call_value(func, (), {}, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_no_args

    if len(positional) == 1:   # f(x): the argument evaluated in line (a list comprehension is a frame more)
        (only, only_value), = positional

        def ev_one_arg(f, func_ev=func_ev, only=only, only_value=only_value, span=span):
            func = func_ev(f)
            arg = only_value if only is None else only(f)
            try:
                return call_macro(func, arg) if type(func) is Macro else call_value(func, (arg,), {}, f[0])
            except Exception as exc:
                raise located(exc, span)
        return ev_one_arg

    def ev(f, func_ev=func_ev, positional=positional, span=span):
        func = func_ev(f)
        args = [value if a is None else a(f) for a, value in positional]
        try:
            return call_macro(func, *args) if type(func) is Macro else call_value(func, args, {}, f[0])
        except Exception as exc:
            raise located(exc, span)
    return ev


def _str_method(c, node, call):
    # `content.strip()`, `text.replace('a', 'b')`, `s.split(x)[0]`...: on a plain str, the method called without
    # the method object the sandbox would hand out (sandbox.str_method_call); on anything else, the general getattr
    # and call, from the value already evaluated (each operand is evaluated once, in Jinja2's order).
    obj_ev, attr, attr_span, span = c.expr(node.func.obj), node.func.attr, node.func.span, node.span
    arg_evs = tuple(map(c.expr, node.args.positional))

    if len(arg_evs) <= 1:   # `.strip()`, `.split('</think>')`: the argument read without a list comprehension
        only = arg_evs[0] if arg_evs else None

        def ev_str_method_short(f, arg_evs=arg_evs, attr=attr, attr_span=attr_span, call=call, obj_ev=obj_ev, only=only,
                span=span):
            obj = obj_ev(f)
            if type(obj) is not str:
                return _call_method(f, obj, attr, arg_evs, attr_span, span)
            args = () if only is None else (only(f),)
            try:
                return call(f[0], obj, args)
            except Exception as exc:
                raise located(exc, span)
        return ev_str_method_short

    def ev_str_method(f, arg_evs=arg_evs, attr=attr, attr_span=attr_span, call=call, obj_ev=obj_ev, span=span):
        obj = obj_ev(f)
        if type(obj) is not str:
            return _call_method(f, obj, attr, arg_evs, attr_span, span)
        args = [a(f) for a in arg_evs]
        try:
            return call(f[0], obj, args)
        except Exception as exc:
            raise located(exc, span)
    return ev_str_method


def _call_method(f, obj, attr, arg_evs, attr_span, span):
    # obj.attr(args) the general way, obj evaluated already: the attribute looked up (through the sandbox), then
    # the arguments evaluated, then the call, as Jinja2 does them.
    try:
        method = getattr_(obj, attr, f[0])
    except Exception as exc:
        raise located(exc, attr_span)
    args = [a(f) for a in arg_evs]
    try:
        return call_value(method, args, {}, f[0])
    except Exception as exc:
        raise located(exc, span)


def _dict_get(c, node):
    # `x.get(key)` / `x.get(key, default)` (tool schemas are read this way): on a plain dict with a str key, the
    # method called in line, charged as the sandbox's method call is; on anything else, the general getattr and
    # call, from the values already evaluated.
    obj_ev, attr_span, span = c.expr(node.func.obj), node.func.span, node.span
    arg_evs = tuple(map(c.expr, node.args.positional))
    key_ev, default_ev = arg_evs[0], (arg_evs[1] if len(arg_evs) == 2 else None)

    def ev_get(f, arg_evs=arg_evs, attr_span=attr_span, default_ev=default_ev, key_ev=key_ev, obj_ev=obj_ev, span=span):
        obj = obj_ev(f)
        if type(obj) is not dict:
            return _call_method(f, obj, "get", arg_evs, attr_span, span)
        key = key_ev(f)
        default = default_ev(f) if default_ev is not None else None
        rs = f[0]
        if type(key) is str and len(key) <= 1024 and rs.fuel >= 1:
            rs.fuel -= 1   # the call (get takes constant time)
            value = obj.get(key, MISSING)
            if value is MISSING:
                value = default
            if value is None or type(value) is str and len(value) < BIG_STR:
                return value   # nothing to charge (charge_result's own shortcut)
            try:
                return charge_result(rs, value)
            except Exception as exc:
                raise located(exc, span)
        try:   # (a plain dict's get: looking it up first or now is the same)
            return call_value(getattr_(obj, "get", rs), [key] if default_ev is None else [key, default], {}, rs)
        except Exception as exc:
            raise located(exc, span)
    return ev_get


def _dict_view(c, node, name):
    # `x.items()`, `x.keys()`, `x.values()` (loops over a tool's parameters): on a plain dict, the view made in
    # line, charged as the sandbox's method call is (the call's step: a view takes constant time, and is not
    # charged as a result); on anything else, the general getattr and call, from the value already evaluated.
    obj_ev, attr_span, span, view = c.expr(node.func.obj), node.func.span, node.span, getattr(dict, name)

    def ev_view(f, attr_span=attr_span, name=name, obj_ev=obj_ev, span=span, view=view):
        obj = obj_ev(f)
        if type(obj) is dict:
            rs = f[0]
            if rs.fuel >= 1:
                rs.fuel -= 1
                return view(obj)
        return _call_method(f, obj, name, (), attr_span, span)
    return ev_view


def _missing(kind, name, span):
    # An unknown filter or test where Jinja2 defers the error to run time (inside an if): like Jinja2's stand-in,
    # it fails when called, after the value and the arguments were evaluated (and, taking no keyword arguments,
    # with a TypeError when given some).
    def missing(*args, **kwargs):
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        raise error_at(TemplateRuntimeError, f"No {kind} named {name!r} found.", span)
    return missing


def _lookup(c, registry, kind, name, span):
    func = registry.get(name)
    if func is None:
        if not c.soft:
            raise error_at(TemplateAssertionError, f"No {kind} named {name!r}.", span)
        func = _missing(kind, name, span)
    return func


def compile_filter_step(c, node):
    # A Filter node of a {% filter %} or {% set %} block (no value of its own) → step(f, value).
    return _apply(c, _lookup(c, c.filters, "filter", node.name, node.at), node.args, None, node.span)


def compile_filter(c, node, value_ev=None):
    func = _lookup(c, c.filters, "filter", node.name, node.at)
    start = len(c.late_errors)
    if value_ev is None and node.args.empty and isinstance(node.value, n.Const) and \
            type(node.value.value) is str and len(node.value.value) < BIG_STR:
        folded = _folded(func, node.value.value)
        if folded is not None:
            return constant_reader(folded), func
    method = str_method(func)
    if method is not None and node.args.empty and value_ev is None:
        return _str_method_filter(func, method, operand(c, node.value), node.span), func
    if node.args.empty and value_ev is None:
        slot, key, value_ev = operand(c, node.value)
        if slot is not None:
            return _unary_of_read(charged_unary(func), slot, key, value_ev, node.span), func
    folds = node.args.dstar is not None and folded_by_jinja2(c, node)
    return _apply(c, func, node.args, value_ev or c.expr(node.value), node.span, folds, start), func


def _unary_of_read(call_unary, slot, key, value_ev, span):
    # x|f without arguments (`message.content|tojson`, `messages|length`) where x is a variable of this frame or a
    # constant key of one (context.operand): the value read in line where it is there, by its closure else.
    if key is None:
        def ev_unary_name(f, call_unary=call_unary, slot=slot, span=span, value_ev=value_ev):
            value = f[slot]
            if value is MISSING:
                value = value_ev(f)
            try:
                return call_unary(f[0], value)
            except Exception as exc:
                raise located(exc, span)
        return ev_unary_name

    def ev_unary_key(f, call_unary=call_unary, key=key, slot=slot, span=span, value_ev=value_ev):
        value = f[slot]
        value = value.get(key, MISSING) if type(value) is dict else MISSING
        if value is MISSING:
            value = value_ev(f)
        try:
            return call_unary(f[0], value)
        except Exception as exc:
            raise located(exc, span)
    return ev_unary_key


def _folded(func, text):
    # A built-in filter that is a pure function of a string (|safe, a str method: |trim, |upper...) applied to a
    # string constant (`"<x>"|safe`): its value, computed once, as Jinja2's constant folder computes it; None for any
    # other filter.
    if func is do_safe:
        return new_markup(Markup, text)
    method = str_method(func)
    return method(text) if method is not None else None


def _apply(c, func, args, value_ev, span, folds=False, start=None):
    method = str_method(func)
    if method is not None and args.empty and value_ev is not None:
        return _str_method_filter(func, method, (None, None, value_ev), span)
    if args.empty and value_ev is not None:
        # the common case, x|trim or x is defined: one closure, no argument handling
        call_unary = charged_unary(func)

        def ev(f, call_unary=call_unary, span=span, value_ev=value_ev):
            value = value_ev(f)
            try:
                return call_unary(f[0], value)
            except Exception as exc:
                raise located(exc, span)
        return ev
    if value_ev is not None and not args.keywords and args.star is None and args.dstar is None and \
            1 <= len(args.positional) <= 2 and declared_cost(func) is None:
        return _direct_call(c, func, args, value_ev, span)
    collect = None if args.empty else compile_args(c, args, folds, start)
    call = charged(func)

    def step(f, value, call=call, collect=collect, span=span, folds=folds):
        try:
            if collect is None:
                return call(f[0], value, (), {})
            pos, kw = collect(f)
            return call(f[0], value, pos, kw)
        except Exception as exc:
            raise located(_unfolded(f, collect, exc) if folds else exc, span)
    if value_ev is None:
        return step

    def ev_args(f, step=step, value_ev=value_ev):
        return step(f, value_ev(f))
    return ev_args


def _str_method_filter(func, method, operand, span):
    # x|trim, x|upper...: a built-in filter that is a str method (str_method) applied in line to a short
    # plain string (the same text: the filter is that method on a plain str), the value read in line where it is a
    # variable of this frame or a key of one (context.operand); anything else through the filter.
    slot, key, value_ev = operand
    call_unary = charged_unary(func)

    def ev_str_filter(f, call_unary=call_unary, key=key, method=method, slot=slot, span=span, value_ev=value_ev):
        if slot is not None:
            value = f[slot]
            if key is not None:
                value = value.get(key, MISSING) if type(value) is dict else MISSING
            if value is MISSING:
                value = value_ev(f)
        else:
            value = value_ev(f)
        if type(value) is str and len(value) < BIG_STR:
            return method(value)
        try:
            return call_unary(f[0], value)
        except Exception as exc:
            raise located(exc, span)
    return ev_str_filter


def _direct_call(c, func, args, value_ev, span):
    # x|f(a) or x|f(a, b) (or a test) for a function that declares no cost: called directly, charged for long
    # strings in and for what it returns (its call is paid by the node's weight).
    state = getattr(func, "mj_pass_state", False) is True
    first, first_value = argument(c, args.positional[0])
    second, second_value = argument(c, args.positional[1]) if len(args.positional) == 2 else (None, _NONE)

    def ev(f, first=first, first_value=first_value, func=func, second=second, second_value=second_value, span=span,
            state=state, value_ev=value_ev):
        value = value_ev(f)
        a = first_value if first is None else first(f)
        b = second_value if second is None else second(f)
        rs = f[0]
        try:
            if type(value) is str and len(value) > BIG_STR:
                rs.burn(len(value) >> CHAR_SHIFT)
            if type(a) is str and len(a) > BIG_STR or type(b) is str and len(b) > BIG_STR:
                rs.burn((len(a) if type(a) is str else 0) + (len(b) if type(b) is str else 0) >> CHAR_SHIFT)
            if b is _NONE:
                result = func(rs, value, a) if state else func(value, a)
            else:
                result = func(rs, value, a, b) if state else func(value, a, b)
            if result is True or result is False or result is None or type(result) is str and len(result) < 16:
                return result
            return charge_result(rs, result)
        except Exception as exc:
            raise located(exc, span)
    return ev


_NONE = object()   # no second argument


def _type_test_of_undefined(func, key, negated):
    # type_test's answer for a plain Undefined (of a missing key), or MISSING where the test fails on one.
    try:
        answer = func(Undefined(obj={}, name=key))
    except Exception:   # noqa: BLE001 - left to the test at run time, which locates it
        return MISSING
    return not answer if negated else answer


def compile_test(c, node, value_ev=None):
    span = node.span
    func = _lookup(c, c.tests, "test", node.name, node.at)   # (before the value: Jinja2 checks the test first)
    start = len(c.late_errors)
    value_ev = value_ev or c.expr(node.value)
    if func in TYPE_TESTS and node.args.empty:
        return type_test(func, value_ev, node.negated, span, *in_line_place(c, node.value))
    folds = node.args.dstar is not None and folded_by_jinja2(c, node)
    test = _apply(c, func, node.args, value_ev, span, folds, start)
    if node.negated:
        return lambda f, test=test: not test(f)
    if func in BOOL_TESTS:
        return test  # already a bool
    return lambda f, test=test: bool(test(f))


def type_test(func, value_ev, negated, span, slot=None, key=None):
    # x is defined, x is not string...: constant time whatever the value, a bool, paid for by the statement's
    # weight (its node): one closure, one call. x read in line where it is a variable of this frame or a key of one
    # (slot, key: context.in_line_place), through value_ev otherwise; a plain value's answer found by its class
    # (context.type_answers).
    if slot is not None:
        # what the test says of the undefined a plain dict's missing key or an unset variable reads as (not
        # d['update'], the sandbox's method): a type test's answer depends on the value's class alone
        missing = _type_test_of_undefined(func, key, negated) if key not in DICT_NAMES else MISSING

        def ev_in_line(f, answers=type_answers(func, negated), func=func, key=key, missing=missing, negated=negated,
                slot=slot, span=span, value_ev=value_ev):
            value = f[slot]
            if key is not None:
                value = value.get(key, MISSING) if type(value) is dict else MISSING
            if value is MISSING:
                if missing is not MISSING and (key is None or type(f[slot]) is dict) and f[0].undefined is Undefined:
                    return missing
                value = value_ev(f)
            elif (answer := answers.get(type(value))) is not None:
                return answer
            try:
                return not func(value) if negated else func(value)
            except Exception as exc:
                raise located(exc, span)
        return ev_in_line
    def ev(f, func=func, negated=negated, span=span, value_ev=value_ev):
        value = value_ev(f)
        try:
            return not func(value) if negated else func(value)
        except Exception as exc:
            raise located(exc, span)
    return ev

