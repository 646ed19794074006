"""Undefined: the value of a name, attribute or item that does not exist, in Jinja2's four variants."""

# Undefined (Jinja2's default) prints as '', iterates as empty and is falsy; any other use raises UndefinedError.
# StrictUndefined refuses printing, iteration, truth tests and comparison too; ChainableUndefined lets `a.b.c` go on;
# DebugUndefined prints what was missing. Their messages never show a memory address or an unbounded repr.

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold start ~4 ms: annotations are quoted strings (no __future__ to import)
    from typing import Any, NoReturn, Optional

from ..core.errors import UndefinedError
from ..core.state import MISSING
from .printing import safe_repr, short_repr

__all__ = ["Undefined", "StrictUndefined", "ChainableUndefined", "DebugUndefined", "object_type_repr"]


def object_type_repr(obj):
    # 'dict object', 'None', 'mymodule.Thing object': how Jinja2 names a type in messages.
    if obj is None:
        return "None"
    if obj is Ellipsis:
        return "Ellipsis"
    cls = type(obj)
    if cls.__module__ == "builtins":
        return f"{cls.__name__} object"
    return f"{cls.__module__}.{cls.__name__} object"


class Undefined:
    """Jinja2's default undefined: prints as '', iterates as empty, is falsy; any other use raises UndefinedError."""

    __slots__ = ("_undefined_hint", "_undefined_obj", "_undefined_name", "_undefined_exception")
    mj_safe_repr = True   # printing.py: its own str()/repr() are address-free and bounded
    mj_pprint_as_is = True   # printing.py: pprint compares it itself (a dict key beside others: UndefinedError)

    def __init__(self, hint: "Optional[str]" = None, obj: "Any" = MISSING, name: "Optional[str]" = None,
                 exc: "type[Exception]" = UndefinedError) -> None:
        self._undefined_hint = hint
        self._undefined_obj = obj
        self._undefined_name = name
        self._undefined_exception = exc

    @property
    def _undefined_message(self):
        if self._undefined_hint:
            return self._undefined_hint
        if self._undefined_obj is MISSING:
            return f"{short_repr(self._undefined_name)} is undefined"
        if not isinstance(self._undefined_name, str):
            return f"{object_type_repr(self._undefined_obj)} has no element {short_repr(self._undefined_name)}"
        return f"{object_type_repr(self._undefined_obj)!r} has no attribute {short_repr(self._undefined_name)}"

    def _fail_with_undefined_error(self, *args: "Any", **kwargs: "Any") -> "NoReturn":
        raise self._undefined_exception(self._undefined_message)

    def __getattr__(self, name):
        if name[:2] == "__":
            raise AttributeError(name)
        return self._fail_with_undefined_error()

    __add__ = __radd__ = __sub__ = __rsub__ = _fail_with_undefined_error
    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail_with_undefined_error
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail_with_undefined_error
    __pos__ = __neg__ = __call__ = __getitem__ = _fail_with_undefined_error
    __lt__ = __le__ = __gt__ = __ge__ = _fail_with_undefined_error
    __int__ = __float__ = __complex__ = __pow__ = __rpow__ = _fail_with_undefined_error

    def __eq__(self, other):
        return type(self) is type(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(type(self))

    def __str__(self):
        return ""

    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __repr__(self):
        return "Undefined"

    def __reduce__(self):
        # all four, as Jinja2's: a copy or unpickled undefined fails with the same message and error class
        return (type(self), (self._undefined_hint, self._undefined_obj, self._undefined_name,
                             self._undefined_exception))


class StrictUndefined(Undefined):
    """Undefined that also refuses printing, iteration, truth tests and comparison."""

    __slots__ = ()
    __iter__ = __str__ = __len__ = Undefined._fail_with_undefined_error
    __eq__ = __ne__ = __bool__ = __hash__ = Undefined._fail_with_undefined_error
    __contains__ = Undefined._fail_with_undefined_error


class ChainableUndefined(Undefined):
    """Undefined whose attributes and items are undefined too: `a.b.c` on missing `a` prints ''."""

    __slots__ = ()

    def __html__(self):
        return str(self)

    def __getattr__(self, name):
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self


class DebugUndefined(Undefined):
    """Undefined that prints what was missing: {{ name }}."""

    __slots__ = ()

    def __str__(self):
        if self._undefined_hint:
            message = f"undefined value printed: {self._undefined_hint}"
        elif self._undefined_obj is MISSING:
            message = self._undefined_name if isinstance(self._undefined_name, str) else \
                safe_repr(self._undefined_name)
        else:
            # printed in full, as Jinja2 prints it: bounded by max_string (and paid for) like any repr
            message = f"no such element: {object_type_repr(self._undefined_obj)}[{safe_repr(self._undefined_name)}]"
        return f"{{{{ {message} }}}}"


# The undefined classes that compare and test as Jinja2's default one: equal only to an undefined of the same
# class, false. `undefined == 'x'` and `if undefined` are decided for them without making the undefined.
PLAIN_UNDEFINED = frozenset({Undefined, ChainableUndefined, DebugUndefined})
