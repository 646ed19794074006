"""The shapes issue 23 found minijinja_py and Jinja2 parting on, for the differential generator (differential_gen.py
draws them among its other expressions):

  power     unary minus and plus, `**` and filters together, with operands Jinja2's constant folder evaluates
            (`-2 ** 2|float`, `[-2][0] ** x`, `'-3'|int ** x`, `-2|abs ** y`)
  slice     subscripts and slices that fail, of constants (which Jinja2 folds) and of variables (which it does
            not), printed, tested, joined, assigned (`none[1:] is boolean`, `x[:-1]`, `{}[:1] ~ 'a'`)
  keys      mappings whose keys start with `_` or are dunders, read by dot, subscript, |attr, tests and the
            attribute= filters (`data._id`, `data['__class__']`, `rows|map(attribute='_meta._x')`)
  unsafe    attributes starting with `_` of global functions, methods, `self`, blocks, loops, macros, caller,
            namespaces, cyclers, joiners and undefined, printed, used, tested and read through |attr
  lying     the caller's mappings whose __contains__ answers yes for every key (a dict subclass, a Mapping)

Each function takes the generator (r, sub, operand, names_of, loops, macros, in_macro) and returns (text, level),
the level named as differential_gen's precedence constants are.
"""

from collections.abc import Mapping

__all__ = ["LyingDict", "LyingMapping", "edge_context", "edge", "copy_edge_value"]


class LyingDict(dict):
    """The caller's dict that says it has every key."""

    def __contains__(self, key):
        return True


class LyingMapping(Mapping):
    """The caller's Mapping that says it has every key."""

    def __init__(self, data):
        self.data = dict(data)

    def __getitem__(self, key):
        return self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)

    def __contains__(self, key):
        return True

    def __repr__(self):
        return f"LyingMapping({self.data!r})"


def copy_edge_value(value, copy):
    """A copy of one of these objects (its contents copied with copy), or None for any other value."""
    if type(value) is LyingDict:
        return LyingDict({k: copy(v) for k, v in value.items()})
    if type(value) is LyingMapping:
        return LyingMapping({k: copy(v) for k, v in value.data.items()})
    return None


# --------------------------------------------------------------------------------------------------- contexts
def _keyed(r):
    data = {"_id": r.randint(0, 3), "__class__": r.choice(["k", "user"]), "_meta": {"_x": r.randint(0, 2),
            "__typename": "T"}, "__typename": "Msg", "_": "u", "items": "I", "role": r.choice(["user", "tool"])}
    for key in list(data):
        if r.chance(0.2):
            del data[key]
    return data


def edge_context(r, ctx):
    """Adds some of: data (a dict with `_` and dunder keys), rows (a list of such), odd (a lying dict), oddmap (a
    lying Mapping)."""
    if r.chance(0.3):
        ctx["data"] = _keyed(r)
    if r.chance(0.2):
        ctx["rows"] = [_keyed(r) for _ in range(r.randint(0, 3))]
    if r.chance(0.15):
        ctx["odd"] = LyingDict({"role": "user", "content": "x", "_id": 1})
    if r.chance(0.1):
        ctx["oddmap"] = LyingMapping({"role": "assistant", "_id": 2})


# ------------------------------------------------------------------------------------------------ expressions
def edge(gen, kind, depth):
    r = gen.r
    shape = r.choice([_power, _power, _slice, _slice, _keys, _unsafe, _unsafe, _lying])
    return shape(gen, depth)


_LEFTS = ["-2", "- 2", "-2.5", "[-2][0]", "(-2, 1)|first", "'-3'|int", "-(2)", "(1 - 3)", "-2|abs", "-2|float",
          "(-2 if true)", "(true and -2)", "{'a': -2}.a", "+2", "- -2", "-0.0", "[-3, 2]|min", "-(2)|abs",
          "-true", "('-2'|float)", "-2|round", "(-2)|string|int"]
_RIGHTS = ["2", "2|float", "0|abs", "-2|abs", "3|int", "2|float|abs", "(2 if true)", "range(2)|length", "[2]|first",
           "none|default(2)", "-1", "0.5", "(2)", "'2'|int", "true"]


def _number_var(gen):
    names = gen.names_of("int")
    return gen.r.choice(names) if names and gen.r.chance(0.7) else gen.r.choice(["2", "3", "-1"])


def _power(gen, depth):
    r = gen.r
    left = r.choice(_LEFTS) if r.chance(0.7) else r.choice(["-", "- ", "+", ""]) + _number_var(gen)
    right = r.choice(_RIGHTS) if r.chance(0.6) else _number_var(gen) + r.choice(["", "|abs", "|float", "|int"])
    text = f"{left} ** {right}"
    if r.chance(0.3):
        text = f"{text} ** {r.choice(['2', '-1', '1|float', _number_var(gen)])}"
    if r.chance(0.2):
        return f"({text})|{r.choice(['abs', 'string', 'int', 'round'])}", "FILTER"
    return text, "POW"


_SLICE_OBJECTS = ["none", "7", "1.5", "true", "{}", "{'a': 1}", "[1, 2]", "'abc'", "(none)", "nope", "(1, 2)",
                  "none|default(none)", "[1][1:]"]
_SLICES = ["[1:]", "[:-1]", "[::0]", "['a':]", "[none:]", "[::-1]", "[0]", "['a']", "[1:2:0]", "[:]", "[1, 2]",
           "[::none]", "[(1):]", "[1:'b']"]


def _slice(gen, depth):
    r = gen.r
    names = gen.names_of()
    obj = r.choice(names) if names and r.chance(0.3) else r.choice(_SLICE_OBJECTS)
    subscript = r.choice(_SLICES)
    if r.chance(0.2) and gen.names_of("int"):
        subscript = f"[{r.choice(gen.names_of('int'))}:]"
    expression = f"{obj}{subscript}"
    use = r.choice(["bare", "bare", "boolean", "defined", "concat", "default", "list", "length", "string", "none"])
    if use == "bare":
        return expression, "POSTFIX"
    if use in ("boolean", "defined", "none"):
        return f"{expression} is {'not ' if r.chance(0.3) else ''}{use}", "FILTER"
    if use == "concat":
        return f"{expression} ~ 'a'", "CONCAT"
    if use == "list":
        return f"[{expression}]", "ATOM"
    return f"{expression}|{use}" if use != "default" else f"{expression}|default('d')", "FILTER"


_KEY_NAMES = ["_id", "__class__", "_meta", "__typename", "_", "items", "role", "_nope", "__len__", "__dict__"]


def _keys(gen, depth):
    r = gen.r
    scope = gen.names_of()
    if "rows" in scope and r.chance(0.4):
        path = r.choice(["_id", "_meta._x", "__typename", "_meta.__typename", "role", "_nope", "__class__"])
        return r.choice([
            f"rows|map(attribute='{path}')|list", f"rows|selectattr('{path}')|list|length",
            f"rows|rejectattr('{path}', 'eq', 1)|list|length",
            f"rows|sort(attribute='{path}')|map(attribute='_id')|list",
            f"rows|groupby('{path}')|map(attribute='grouper')|list",
            f"rows|map(attribute='{path}', default='-')|join",
            f"rows|sum(attribute='_id')", f"rows|unique(attribute='{path}')|list|length",
            f"rows|join(',', attribute='{path}')",
        ]), "FILTER"
    obj = "data" if "data" in scope and r.chance(0.7) else r.choice(["{'_id': 1, '__class__': 'k'}",
                                                                    "{'_meta': {'_x': 2}}", "{'_': 0}"])
    name = r.choice(_KEY_NAMES)
    return r.choice([
        (f"{obj}.{name}", "POSTFIX"), (f"{obj}['{name}']", "POSTFIX"), (f"{obj}.{name} is defined", "FILTER"),
        (f"{obj}|attr('{name}')", "FILTER"), (f"{obj}['_meta']['_x']", "POSTFIX"), (f"{obj}._meta._x", "POSTFIX"),
        (f"'{name}' in {obj}", "CMP"), (f"{obj}|tojson", "FILTER"), (f"{obj}|dictsort|first", "FILTER"),
        (f"'{{0[{name}]}}'.format({obj})", "POSTFIX"), (f"{obj}.get('{name}')", "POSTFIX"),
    ])


_UNSAFE_NAMES = ["__globals__", "__code__", "__class__", "__dict__", "__func__", "__self__", "__name__",
                 "__wrapped__", "__closure__", "_TemplateReference__context", "_context", "_func", "_environment",
                 "_iterator", "_Namespace__attrs", "_undefined_hint", "_stack", "_nope", "__init__", "__call__",
                 "__len__", "__repr__", "__module__", "__qualname__", "__doc__"]
_UNSAFE_TARGETS = ["strftime_now", "raise_exception", "range", "dict", "'x'.format", "'x'.format_map", "'x'.upper",
                   "self", "namespace(a=1)", "cycler(1)", "joiner()", "nope", "{}.items", "lipsum", "dict.fromkeys",
                   "cycler(1).next", "[].count", "none"]


def _unsafe(gen, depth):
    r = gen.r
    targets = list(_UNSAFE_TARGETS)
    if gen.loops:
        targets += ["loop", "loop.cycle", "loop.changed"]
    if gen.macros:
        targets.append(r.choice(sorted(gen.macros)))
    if gen.in_macro:
        targets.append("caller")
    target = r.choice(targets)
    name = r.choice(_UNSAFE_NAMES)
    accessed = f"({target}).{name}" if not target.isidentifier() else f"{target}.{name}"
    use = r.choice(["print", "print", "attr", "call", "defined", "filter", "item", "string"])
    if use == "attr":
        return f"{accessed}.x", "POSTFIX"
    if use == "call":
        return f"{accessed}()", "POSTFIX"
    if use == "defined":
        return f"{accessed} is defined", "FILTER"
    if use == "filter":
        return f"({target})|attr('{name}')", "FILTER"
    if use == "item":
        return f"({target})['{name}']", "POSTFIX"
    if use == "string":
        return f"{accessed}|string", "FILTER"
    return accessed, "POSTFIX"


def _lying(gen, depth):
    r = gen.r
    scope = gen.names_of()
    obj = r.choice([n for n in ("odd", "oddmap") if n in scope] or ["{'role': 'x'}"])
    key = r.choice(["missing", "role", "_id", "_nope", "content", "0"])
    return r.choice([
        (f"{obj}.{key}", "POSTFIX"), (f"{obj}['{key}']", "POSTFIX"), (f"{obj}.{key} is defined", "FILTER"),
        (f"[{obj}]|map(attribute='{key}')|list", "FILTER"), (f"[{obj}]|selectattr('{key}')|list|length", "FILTER"),
        (f"'{key}' in {obj}", "CMP"), (f"{obj}.get('{key}', 'd')", "POSTFIX"),
        (f"'{{0[{key}]}}'.format({obj})", "POSTFIX"),
        (f"[{obj}]|groupby('{key}')|list|length", "FILTER"), (f"{obj}|dictsort", "FILTER"),
    ])
