#!/usr/bin/env python3
"""Seed goldens: every seed template (templates/*.jinja) × every conversation (tests/contexts/*.json), rendered and
compared with the golden the reference renderer wrote (tests/goldens/: the text, or the error it raised). Used by
tests/test_seed_goldens.py, and run as a program where pytest is not at hand (under Pyodide in node, see
tools/pyodide_goldens.mjs):

    python tools/seed_goldens.py        # prints a line per difference and a summary; exit status 1 if any

Needs only the package (from the checkout next to this file, or installed) and the standard library.
"""

import builtins
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if __name__ == "__main__":
    sys.path.insert(0, ROOT)

import minijinja_py as mj  # noqa: E402

TEMPLATES_DIR = os.path.join(ROOT, "templates")
CONTEXTS_DIR = os.path.join(ROOT, "tests", "contexts")
GOLDENS_DIR = os.path.join(ROOT, "tests", "goldens")
FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)   # the oracle's frozen clock

# The error classes whose name is the same in Jinja2 and minijinja_py.
_SAME_NAME = ("TemplateSyntaxError", "UndefinedError", "SecurityError", "TemplateRuntimeError")


def _names(folder, suffix):
    return sorted(f[:-len(suffix)] for f in os.listdir(folder) if f.endswith(suffix))


TEMPLATES = _names(TEMPLATES_DIR, ".jinja")
CONTEXTS = _names(CONTEXTS_DIR, ".json")
PAIRS = [(t, c) for t in TEMPLATES for c in CONTEXTS]


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def load_context(name):
    with open(os.path.join(CONTEXTS_DIR, name + ".json"), encoding="utf-8") as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("_")}


def render(source, context):
    rest = dict(context)
    messages = rest.pop("messages")
    return mj.ChatTemplate(source, now=lambda: FIXED_NOW).render(
        messages, tools=rest.pop("tools", None), documents=rest.pop("documents", None),
        add_generation_prompt=rest.pop("add_generation_prompt", False), **rest)


def error_problem(err, expected):
    """What is wrong with raising err where the golden says expected ("<Jinja2 class>: <message>"), or None."""
    cls, _, message = expected.partition(": ")
    if cls in _SAME_NAME:
        if not isinstance(err, getattr(mj, cls)):
            return f"raised {type(err).__name__}: {err}"
    elif cls == "TemplateError":   # raise_exception(...) in the template: the message is the template's own text
        return None if err.message == message else f"raised {err.message!r}, expected {message!r}"
    elif not isinstance(err, getattr(builtins, cls)):   # a Python built-in Jinja2 lets escape: ours is also one
        return f"raised {type(err).__name__}, expected a {cls}: {err}"
    if cls != "TemplateSyntaxError":   # runtime messages are Jinja2's own words
        return None if err.message == message else f"message {err.message!r}, expected {message!r}"
    # syntax messages may carry a hint after them
    return None if err.message.startswith(message) else f"message {err.message!r}, expected {message!r}"


def pair_problem(template, context):
    """What is wrong with the rendering of this pair, or None when it is the golden."""
    source = read(os.path.join(TEMPLATES_DIR, template + ".jinja"))
    base = os.path.join(GOLDENS_DIR, f"{template}__{context}")
    if os.path.exists(base + ".txt"):
        try:
            text = render(source, load_context(context))
        except mj.TemplateError as err:
            return f"raised {type(err).__name__}: {err}"
        return None if text == read(base + ".txt") else "the text differs from the golden"
    if not os.path.exists(base + ".error"):
        return "no golden (run tools/make_goldens.sh)"
    try:
        render(source, load_context(context))
    except mj.TemplateError as err:
        return error_problem(err, read(base + ".error"))
    return "rendered, the golden is an error"


def main():
    problems = [(t, c, pair_problem(t, c)) for t, c in PAIRS]
    problems = [p for p in problems if p[2] is not None]
    for template, context, problem in problems:
        print(f"{template} x {context}: {problem}")
    implementation = sys.implementation.name
    print(f"seed goldens: {len(PAIRS) - len(problems)}/{len(PAIRS)} identical "
          f"({implementation} {'.'.join(map(str, sys.version_info[:3]))}, {sys.platform})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
