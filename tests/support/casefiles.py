"""The data-driven case format, shared by the test runner and the tool that fills in expected outputs.

tests/cases/<area>/<name>.txt   JSON context, a line `---`, then the template (everything after that line,
                                byte for byte; no trailing newline is added or removed).
tests/cases/<area>/<name>.out   the expected output, byte for byte, or for an error case one line
                                `!!! <ErrorClass> <line>:<col>`.

The context may carry an "__env__" object choosing the environment (removed before rendering):
    {"profile": "chat"}   (default) chat_environment(): the transformers profile
    {"profile": "plain", "trim_blocks": ..., "lstrip_blocks": ..., "keep_trailing_newline": ...,
     "autoescape": ..., "undefined": "StrictUndefined", "extensions": ["do", "loopcontrols"],
     "newline_sequence": "\r\n", "finalize": "<a name in FINALIZERS>",
     "immutable": false}  (Jinja2's SandboxedEnvironment rather than the ImmutableSandboxedEnvironment)
and, in either profile, what is set on the environment once it is made (apply_extras):
    "templates": {"name": "source", ...}   a DictLoader: the case's template can include, import, extend them
    "policies": {"truncate.leeway": 0, ...}   updated into env.policies
Error classes name either a minijinja_py class (UndefinedError, TemplateSyntaxError, SecurityError, ...) or a
Python built-in (TypeError, ...), which the raised TemplateError must also be an instance of.

The caller's own Python objects, which JSON cannot write, are spelt as objects with a marker key (decoded by
read_case, the same objects for both engines):
    {"__object__": "Obj", "name": "ann", ...}       an instance of a plain class Obj with those attributes
    {"__namedtuple__": "User", "name": "ann", ...}  a namedtuple User(name, ...), fields in the order written
    {"__str_enum__": "Role.USER", "value": "user"}  a member of `class Role(str, Enum)`
    {"__markup__": "<b>"}                            markupsafe.Markup("<b>"), as code written for Jinja2 passes it

A case where minijinja_py knowingly differs from the reference carries "__xfail__": "<why>" in its context
(removed before rendering): the .out file still holds the reference's expectation and the test is a strict xfail,
so the difference stays visible and a fix shows up as XPASS.

A case where minijinja_py is deliberately stricter than the reference (the sandbox refusing what Jinja2 quietly
renders as '', see README, Security model) carries "__stricter__": "<why>": its .out file holds minijinja_py's own
expectation (reviewed by hand) and make_expected.py lists it as STRICTER instead of writing Jinja2's result.
"""

import enum
import json
import os
from collections import namedtuple

try:
    import markupsafe   # installed with jinja2 (the test extra); only cases that spell a Markup need it
except ImportError:     # pragma: no cover
    markupsafe = None

# finalize functions a case can name (a function cannot be written in JSON)
FINALIZERS = {
    "none_as_empty": lambda value: "" if value is None else value,
    "brackets": lambda value: f"[{value}]",
}
EXTRAS = ("templates", "policies")


def split_env(options):
    """(constructor options, extras) of a case's __env__; a finalize name becomes its function."""
    options = dict(options)
    extras = {key: options.pop(key) for key in EXTRAS if key in options}
    if "finalize" in options:
        options["finalize"] = FINALIZERS[options["finalize"]]
    return options, extras


def apply_extras(env, extras, dict_loader):
    """Set a case's extras on an environment (either engine's: dict_loader is its DictLoader class)."""
    if "templates" in extras:
        env.loader = dict_loader(extras["templates"])
    env.policies.update(extras.get("policies", {}))
    return env


CASES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases")
SEPARATOR = "\n---\n"


_CLASSES = {}   # one class per marker, name and fields, so that equal cases build equal objects


def _class(kind, name, fields=()):
    key = (kind, name, tuple(fields))
    if key not in _CLASSES:
        if kind == "namedtuple":
            _CLASSES[key] = namedtuple(name, fields)
        elif kind == "object":
            _CLASSES[key] = type(name, (), {"__init__": lambda self, **kw: self.__dict__.update(kw)})
        else:
            _CLASSES[key] = enum.Enum(name, dict(fields), type=str)
    return _CLASSES[key]


def decode_objects(value):
    """A case's JSON context with the caller's objects (the marker keys above) built."""
    if isinstance(value, list):
        return [decode_objects(v) for v in value]
    if not isinstance(value, dict):
        return value
    value = {k: decode_objects(v) for k, v in value.items()}
    if "__object__" in value:
        name = value.pop("__object__")
        return _class("object", name)(**value)
    if "__namedtuple__" in value:
        name = value.pop("__namedtuple__")
        return _class("namedtuple", name, value)(**value)
    if "__str_enum__" in value:
        name, _, member = value["__str_enum__"].partition(".")
        return _class("enum", name, [(member, value["value"])])[member]
    if "__markup__" in value:
        if markupsafe is None:
            raise ImportError("this case needs markupsafe (installed with jinja2, the test extra)")
        return markupsafe.Markup(value["__markup__"])
    return value


def read_case(path):
    """(context dict, env options dict, template source, xfail reason or None, stricter reason or None) of a .txt
    case file."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    head, sep, template = text.partition(SEPARATOR)
    if not sep:
        raise ValueError(f"{path}: no '---' line between the context and the template")
    context = json.loads(head) if head.strip() else {}
    env = context.pop("__env__", {})
    context = decode_objects(context)
    xfail = context.pop("__xfail__", None)
    stricter = context.pop("__stricter__", None)
    return context, env, template, xfail, stricter


def read_expected(path):
    """('ok', text) or ('error', class name, line, col) from a .out file."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text.startswith("!!! "):
        cls, _, where = text[4:].strip().partition(" ")
        line, _, col = where.partition(":")
        # "?" is what make_expected.py writes when minijinja_py had no location to offer (it did not raise)
        return ("error", cls, int(line) if line.isdigit() else None, int(col) if col.isdigit() else None)
    return ("ok", text)


def all_cases():
    """Every case as (area/name, txt path, out path), sorted."""
    found = []
    for area in sorted(os.listdir(CASES_DIR)):
        folder = os.path.join(CASES_DIR, area)
        if not os.path.isdir(folder):
            continue
        for fname in sorted(os.listdir(folder)):
            if fname.endswith(".txt"):
                base = os.path.join(folder, fname[:-4])
                found.append((f"{area}/{fname[:-4]}", base + ".txt", base + ".out"))
    return found
