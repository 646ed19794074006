"""Counterparts: for the engine's own objects a template can reach (undefined, loop, macros and caller, self and
its blocks, imported modules, cycler, joiner, namespace, the dict global, global functions, the methods the sandbox
hands out), which attributes starting with '_' the object Jinja2 hands out in its place has: (object, name) →
yes / no / not an engine object."""

# The sandbox refuses such an attribute with SecurityError where Jinja2's object has it (Jinja2's sandbox then hands
# out an undefined that fails with SecurityError when used: `self._TemplateReference__context`, `macro._func`,
# `strftime_now.__code__`, `'x'.format.__globals__`) and gives an undefined where it has not, whatever the engine's
# own object has: the answer a template gets depends on Jinja2's objects, never on this engine's internals.
#
# The names are facts about Jinja2 3.1's classes (tests/test_counterparts.py checks them against Jinja2); what every
# Python object has, and what a Python function has, are taken from this Python.

from .composition import BlockReference, TemplateModule, TemplateReference
from .globalfuncs import Cycler, DictFactory, Joiner
from .objects import LoopContext, Macro, Namespace
from .undefined import ChainableUndefined, StrictUndefined, Undefined

__all__ = ["jinja2_has", "jinja2_type_name"]

_OBJECT = frozenset(dir(object()))   # what every object has (Jinja2's objects too)

_UNDEFINED = """__add__ __aiter__ __bool__ __call__ __complex__ __div__ __float__ __floordiv__ __getattr__ __getitem__
    __int__ __iter__ __len__ __mod__ __module__ __mul__ __neg__ __pos__ __pow__ __radd__ __rdiv__ __rfloordiv__
    __rmod__ __rmul__ __rpow__ __rsub__ __rtruediv__ __slots__ __sub__ __truediv__ _fail_with_undefined_error
    _undefined_exception _undefined_hint _undefined_message _undefined_name _undefined_obj"""
# an instance's names beyond _OBJECT, by the engine class that stands for Jinja2's (jinja2.runtime, jinja2.utils;
# the dict global as transformers defines it, TemplateDict)
_EXTRAS = {
    Undefined: _UNDEFINED,
    StrictUndefined: _UNDEFINED + " __contains__",
    TemplateReference: "_TemplateReference__context __dict__ __getitem__ __module__ __weakref__",
    BlockReference: "__call__ __dict__ __module__ __weakref__ _async_call _context _depth _stack",
    LoopContext: """__annotations__ __call__ __dict__ __iter__ __len__ __module__ __next__ __weakref__ _after _before
        _current _iterable _iterator _last_changed_value _length _peek_next _recurse _to_iterator _undefined""",
    Macro: """__call__ __dict__ __module__ __weakref__ _argument_count _async_invoke _default_autoescape _environment
        _func _invoke""",
    Cycler: "__dict__ __module__ __next__ __weakref__",
    Joiner: "__call__ __dict__ __module__ __weakref__",
    TemplateModule: "__dict__ __html__ __module__ __name__ __weakref__ _body_stream",
    DictFactory: "__call__ __dict__ __module__ __weakref__",
}
_names = None   # _EXTRAS as sets, made on first use (what few templates ask: a name starting with '_')


def _counterpart_names():
    # {engine class: the names of its Jinja2 counterpart beyond _OBJECT's}. Made once; threads racing to make it
    # make equal tables.
    global _names
    if _names is None:
        _names = {cls: frozenset(names.split()) for cls, names in _EXTRAS.items()}
    return _names


# Jinja2's namespace shows only these of its own (its __getattribute__ looks every other name up in its values)
_NAMESPACE = frozenset({"__class__", "_Namespace__attrs"})
_function_names = None   # what a Python function has, and one made by functools.update_wrapper (on first use)


def _function(wrapped=False):
    global _function_names
    if _function_names is None:
        import functools

        def plain():
            pass
        wrapper = functools.update_wrapper(lambda: None, "".format)
        _function_names = (frozenset(n for n in dir(plain) if hasattr(plain, n)),
                           frozenset(n for n in dir(wrapper) if hasattr(wrapper, n)))
    return _function_names[wrapped]


def jinja2_type_name(obj, method=None):
    # The name of the type of the object Jinja2 hands out in place of obj (for messages).
    if method is not None:
        bound, method_name, owner = method
        if method_name in ("format", "format_map") and isinstance(owner, str):
            return "function"
        return type(bound).__name__
    cls = type(obj)
    if cls is DictFactory:
        return "TemplateDict"
    if isinstance(obj, Namespace):
        return "TemplateNamespace" if cls.__name__ == "ChatNamespace" else "Namespace"
    if getattr(cls, "mj_pass_state", False):
        wrapped = getattr(obj, "__wrapped__", None)
        return "function" if wrapped is None else type(wrapped).__name__
    return cls.__name__


def jinja2_has(obj, name, method=None):
    # Has the object Jinja2 hands out in place of obj the attribute `name` (one starting with '_')? None when
    # obj is not one of the engine's objects (the caller's own: the object itself says). method: for a method
    # the sandbox hands out, (the method, its name, the object it is bound to).
    if method is not None:
        bound, method_name, owner = method
        if method_name in ("format", "format_map") and isinstance(owner, str):
            return name in _function(wrapped=True)   # Jinja2 wraps str.format in a function of its own
        return None   # Jinja2 hands out the method itself
    cls = type(obj)
    names = _counterpart_names().get(cls)
    if names is not None:
        return name in _OBJECT or name in names
    if isinstance(obj, ChainableUndefined):
        return True   # Jinja2's answers every name with itself
    if isinstance(obj, Undefined):
        names = _counterpart_names()[StrictUndefined if isinstance(obj, StrictUndefined) else Undefined]
        return name in _OBJECT or name in names
    if isinstance(obj, Namespace):
        return name in _NAMESPACE or name in obj._attrs
    if getattr(cls, "mj_pass_state", False):
        wrapped = getattr(obj, "__wrapped__", None)
        # a function given the render state: the caller's own function (its wrapper here), or the engine's
        # stand-in for one of transformers' (strftime_now)
        return hasattr(wrapped, name) if wrapped is not None else name in _function()
    return None
