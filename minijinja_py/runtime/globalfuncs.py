"""The global functions and classes Jinja2 gives every template: range (bounded by limits.max_range), dict,
cycler, joiner and lipsum, as the sandbox lets a template use them (sandbox.py lists their attributes). Every
class here is address-free when printed (`mj_safe_repr`, see printing.py). And their counterparts: for each of the
engine's objects a template can reach, which `_` attributes the object Jinja2 hands out in its place has."""

import builtins

from ..core.errors import jinja2_named, limit_twin, state_not_counted
from ..core.state import pass_state
from .composition import BlockReference, TemplateModule, TemplateReference
from .markup import Markup, escape
from .objects import LoopContext, Macro, Namespace
from .undefined import ChainableUndefined, StrictUndefined, Undefined

__all__ = ["sandboxed_range", "Cycler", "Joiner", "DictFactory", "lipsum", "jinja2_has", "jinja2_type_name"]


@jinja2_named("safe_range")
@pass_state
def sandboxed_range(rs, *args):
    # range() as Jinja2's sandbox has it: at most limits.max_range items (refused with a LimitExceeded that is
    # also the OverflowError Jinja2 raises).
    rng = builtins.range(*args)
    if len(rng) > rs.limits.max_range:
        limit = rs.limits.max_range
        # Jinja2's message (MAX_RANGE is its name for this limit), then ours
        raise limit_twin(OverflowError)(f"Range too big. The sandbox blocks ranges larger than MAX_RANGE ({limit}). "
                                        f"(limit max_range={limit})", limit="max_range", value=limit)
    return rng


sandboxed_range.__name__ = "range"   # printed as <function range>, pickled by its qualified name


class Cycler:
    # cycler('odd', 'even'): .next() returns the items in turn; .current, .reset().

    mj_safe_repr = True
    # No __slots__: as on Jinja2's class, items and pos are the instance's, not the class's (`cycler.items` is
    # undefined, `cycler|dictsort` an AttributeError), where a slot would put a member descriptor on the class.

    def __init__(self, *items):
        if not items:
            raise RuntimeError("at least one item has to be provided")
        self.items = items
        self.pos = 0

    def reset(self):
        self.pos = 0

    @property
    def current(self):
        return self.items[self.pos]

    def next(self):
        rv = self.current
        self.pos = (self.pos + 1) % len(self.items)
        return rv

    __next__ = next

    def __repr__(self):
        return "<Cycler>"


class Joiner:
    # joiner(', '): returns '' the first time it is called, then the separator.

    mj_safe_repr = True
    # No __slots__, as Cycler.

    def __init__(self, sep=", "):
        self.sep = sep
        self.used = False

    def __call__(self):
        if not self.used:
            self.used = True
            return ""
        return self.sep

    def __repr__(self):
        return "<Joiner>"


class DictFactory:
    # The `dict` global: dict(a=1), dict([('a', 1)]), dict.fromkeys(keys, value).

    mj_safe_repr = True

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    @jinja2_named("fromkeys", "method", uncounted=1)
    def fromkeys(self, keys, value=None):
        return dict.fromkeys(keys, value)

    def __repr__(self):
        return "<class 'dict'>"


_LIPSUM_WORDS = (
    "a ac accumsan ad adipiscing aenean aliquam aliquet amet ante aptent arcu at auctor augue bibendum blandit "
    "class commodo condimentum congue consectetuer consequat conubia convallis cras cubilia cum curabitur curae "
    "cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas eget eleifend elementum elit "
    "enim erat eros est et etiam eu euismod facilisi facilisis fames faucibus felis fermentum feugiat fringilla "
    "fusce gravida habitant habitasse hac hendrerit hymenaeos iaculis id imperdiet in inceptos integer interdum "
    "ipsum justo lacinia lacus laoreet lectus leo libero ligula litora lobortis lorem luctus maecenas magna magnis "
    "malesuada massa mattis mauris metus mi molestie mollis montes morbi mus nam nascetur natoque nec neque netus "
    "nibh nisi nisl non nonummy nostra nulla nullam nunc odio orci ornare parturient pede pellentesque penatibus "
    "per pharetra phasellus placerat platea porta porttitor posuere potenti praesent pretium primis proin pulvinar "
    "purus quam quis quisque rhoncus ridiculus risus rutrum sagittis sapien scelerisque sed sem semper senectus "
    "sit sociis sociosqu sodales sollicitudin suscipit suspendisse taciti tellus tempor tempus tincidunt torquent "
    "tortor tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit venenatis vestibulum "
    "vitae vivamus viverra volutpat vulputate"
)   # split by each lipsum(): its words are 187 strings no other render needs


@jinja2_named("generate_lorem_ipsum")
@state_not_counted
@pass_state
def lipsum(rs, n=5, html=True, min=20, max=100):
    # lipsum(): n paragraphs of lorem ipsum (HTML <p> elements unless html=false), each of min to max-1 words.
    #
    # Shaped like Jinja2's: sentences start with a capital and end with '.', commas fall every few words, no word
    # repeats the one before, every paragraph ends with '.'. Unlike Jinja2's, the words are seeded by the
    # arguments, so a render is reproducible.
    range(n)   # (a TypeError first for an n that is not an integer, as Jinja2's loop over range(n) fails)
    if n > 1000 or isinstance(max, int) and max > 10_000:
        raise OverflowError("lipsum() is limited to 1000 paragraphs of 10000 words")
    if isinstance(max, int) and isinstance(n, int) and n > 0 and max > 0:
        rs.burn(4 * n * max)  # up to n * max words at ~4 steps' time each, paid before any is made
    import random   # ~1.5 ms of a cold start: imported by the first lipsum()
    rng = random.Random(f"{n}:{html}:{min}:{max}")
    vocabulary = _LIPSUM_WORDS.split()
    paragraphs = [_lorem_paragraph(rng, rng.randrange(min, max), vocabulary) for _ in range(n)]
    if not html:
        return "\n\n".join(paragraphs)
    return Markup("\n".join(f"<p>{escape(p)}</p>" for p in paragraphs))


def _lorem_paragraph(rng, count, vocabulary):
    words = []
    comma_at = stop_at = 0          # word positions of the last comma and the last full stop
    capital = True
    for position in range(count):
        word = rng.choice(vocabulary)
        while words and word == words[-1].rstrip(",.").lower():
            word = rng.choice(vocabulary)
        if capital:
            word, capital = word.capitalize(), False
        if position - rng.randrange(3, 8) > comma_at:
            comma_at, stop_at = position, stop_at + 2
            word += ","
        if position - rng.randrange(10, 20) > stop_at:
            comma_at = stop_at = position
            word += "."
            capital = True
        words.append(word)
    text = " ".join(words)
    if text.endswith(","):
        return text[:-1] + "."
    return text if text.endswith(".") else text + "."


# ----------------------------------------------------------------------------------------------- counterparts
# Counterparts: for the engine's own objects a template can reach (undefined, loop, macros and caller, self and
# its blocks, imported modules, cycler, joiner, namespace, the dict global, global functions, the methods the sandbox
# hands out), which attributes starting with '_' the object Jinja2 hands out in its place has: (object, name) →
# yes / no / not an engine object.
#
# The sandbox refuses such an attribute with SecurityError where Jinja2's object has it (Jinja2's sandbox then hands
# out an undefined that fails with SecurityError when used: `self._TemplateReference__context`, `macro._func`,
# `strftime_now.__code__`, `'x'.format.__globals__`) and gives an undefined where it has not, whatever the engine's
# own object has: the answer a template gets depends on Jinja2's objects, never on this engine's internals.
#
# The names are facts about Jinja2 3.1's classes (tests/test_counterparts.py checks them against Jinja2); what every
# Python object has, and what a Python function has, are taken from this Python.

_OBJECT = frozenset(object.__dict__)   # what every object has (Jinja2's objects too): dir(object())'s names

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
