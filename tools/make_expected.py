#!/usr/bin/env python3
"""Development tool (not part of the test suite): write the .out files of data-driven cases from the reference,
Jinja2 configured as transformers configures it (../shared/oracle/hf_env.py), or for "profile": "plain" cases a
Jinja2 ImmutableSandboxedEnvironment with the given options (minijinja_py's Environment is always sandboxed and
never lets a template mutate data, so Jinja2's unsandboxed Environment is not its reference).

    python tools/make_expected.py            # cases without an .out file
    python tools/make_expected.py --all      # every case (review `git diff tests/cases` afterwards)
    python tools/make_expected.py AREA/NAME  # selected cases

Cases with a "templates" object in __env__ render with a DictLoader of them on both sides (casefiles.py).
For an error case the class comes from Jinja2 and the line:column from minijinja_py (Jinja2 has no columns);
the tool reports every case where minijinja_py disagrees with the reference, so they get fixed, not copied
(cases marked "__xfail__" are listed as XFAIL, and as XPASS once they agree).
Needs jinja2; the package and its tests never import it.
"""

import argparse
import builtins
import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "oracle"))

import jinja2  # noqa: E402
import jinja2.ext  # noqa: E402
import jinja2.sandbox  # noqa: E402

import hf_env  # noqa: E402
import minijinja_py as mj  # noqa: E402
from casefiles import all_cases, apply_extras, read_case, split_env  # noqa: E402
from test_cases import FIXED_NOW, make_env  # noqa: E402


def reference_env(options):
    options, extras = split_env(options)
    profile = options.pop("profile", "chat")
    if profile == "chat":
        hf_env.set_fixed_now(FIXED_NOW)
        env = hf_env.make_env()
        if options:
            env.trim_blocks = options.get("trim_blocks", env.trim_blocks)
            env.lstrip_blocks = options.get("lstrip_blocks", env.lstrip_blocks)
        return apply_extras(env, extras, jinja2.DictLoader)
    if "undefined" in options:
        options["undefined"] = getattr(jinja2, options["undefined"])
    if "extensions" in options:
        options["extensions"] = [f"jinja2.ext.{e}" if "." not in e else e for e in options["extensions"]]
    cls = jinja2.sandbox.ImmutableSandboxedEnvironment
    if options.pop("immutable", True) is False:
        cls = jinja2.sandbox.SandboxedEnvironment
    return apply_extras(cls(**options), extras, jinja2.DictLoader)


def error_name(exc):
    cls = type(exc)
    if cls.__module__ == "jinja2.exceptions":
        return cls.__name__
    return cls.__name__


def _public_name(exc):
    """The name a .out file uses for one of our errors: its minijinja_py class, or the built-in it twins."""
    cls = type(exc)
    if getattr(mj, cls.__name__, None) is cls:
        return cls.__name__
    builtin = next((c for c in cls.__mro__ if getattr(builtins, c.__name__, None) is c), None)
    return builtin.__name__ if builtin is not None else "TemplateError"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    disagreements = 0
    written = 0
    for name, txt, out in all_cases():
        if args.names and name not in args.names:
            continue
        if not args.names and not args.all and os.path.exists(out):
            continue
        context, env_options, source, xfail, stricter = read_case(txt)
        try:
            expected = ("ok", reference_env(env_options).from_string(source).render(copy.deepcopy(context)))
        except Exception as exc:  # noqa: BLE001 - the reference's error is the expectation
            expected = ("error", error_name(exc), getattr(exc, "lineno", None), str(exc))
        try:
            mine = ("ok", make_env(env_options).from_string(source).render(copy.deepcopy(context)))
        except mj.TemplateError as exc:
            mine = ("error", type(exc).__name__, exc.lineno, exc.colno, exc)
        except Exception as exc:  # noqa: BLE001
            mine = ("leak", type(exc).__name__, None, None, exc)
        if expected[0] == "ok":
            text = expected[1]
            differs = mine != expected
            detail = f"reference {expected[1]!r}\n        minijinja_py {mine[1] if mine[0] == 'ok' else mine!r}"
        else:
            cls = expected[1]
            line, col = (mine[2], mine[3]) if mine[0] == "error" else (expected[2], None)
            wanted = getattr(mj, cls, None) or getattr(builtins, cls, Exception)
            ok_class = mine[0] == "error" and isinstance(mine[4], wanted)
            differs = not ok_class or (expected[2] is not None and cls.startswith("Template") and "Syntax" in cls
                                       and expected[2] != line)
            detail = f"reference {cls} (line {expected[2]}): {expected[3]}\n        minijinja_py {mine[:4]}"
            text = f"!!! {cls} {line}:{col}\n" if col is not None else f"!!! {cls} {line}:?\n"
        if stricter:
            # deliberately stricter than Jinja2: the expectation is ours (review it)
            if mine[0] == "ok":
                text = mine[1]
            else:
                text = f"!!! {mine[1] if mine[0] == 'leak' else _public_name(mine[4])} {mine[2]}:{mine[3]}\n"
            print(f"STRICTER {name} ({stricter}): {detail}")
        elif differs and xfail:
            print(f"XFAIL {name} ({xfail}): {detail}")
        elif differs:
            disagreements += 1
            print(f"DIFFERS {name}: {detail}")
        elif xfail:
            disagreements += 1
            print(f"XPASS {name}: minijinja_py now agrees with the reference; remove its __xfail__")
        with open(out, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        written += 1
    print(f"{written} written, {disagreements} disagree with the reference")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
