#!/usr/bin/env python3
"""Development tool (not part of the test suite): run Jinja2's own test suite against minijinja_py through a thin
adapter, and report how many of its applicable checks pass (issue 8: a drop-in for code written against Jinja2).

    pip download jinja2==3.1.6 --no-binary :all: --no-deps -d /tmp/j2 && tar xzf /tmp/j2/jinja2-3.1.6.tar.gz -C /tmp/j2
    python tools/jinja2_suite.py /tmp/j2/jinja2-3.1.6/tests            # the summary
    python tools/jinja2_suite.py /tmp/j2/jinja2-3.1.6/tests --show 40  # and the first 40 failures
    python tools/jinja2_suite.py DIR --json results.json               # every test's outcome
    python tools/jinja2_suite.py DIR --project ../main                 # another checkout's minijinja_py

The adapter is a package named `jinja2` written to a temporary folder and put first on the path of a pytest run
of the suite's folder, so that the suite's `import jinja2` gets it and never the real Jinja2. It maps Jinja2's
public names to minijinja_py's (Environment, Template, the loaders, errors, Undefined classes, pass_* decorators,
select_autoescape, meta, sandbox), with two translations of Jinja2's calling conventions: positional arguments of
Environment/Template in Jinja2's order, and `Environment` being Jinja2's unsandboxed one, i.e. minijinja_py's
`immutable=False` (minijinja_py is always sandboxed; ImmutableSandboxedEnvironment is its default). Every other
name of Jinja2 (its lexer, compiler, nodes, runtime Context, extension API, bytecode caches, native types, async
helpers, utils internals) is a stand-in that raises NotSupported when it is used.

Each test's outcome is one of:
  passed         the test passed
  failed         it failed otherwise: a difference from Jinja2 in something minijinja_py supports
  sandbox        it failed with minijinja_py's SecurityError: the sandbox is always on (Jinja2's unsandboxed
                 Environment lets a template reach what minijinja_py refuses by design)
  not supported  it used something the README's compatibility table lists as not supported (a stand-in above,
                 async rendering, an extension other than loopcontrols/do, an attribute of Jinja2's AST nodes read
                 from minijinja_py's AST)
  skipped        skipped by the suite itself (an optional dependency such as trio is missing)
and a test module that cannot even be imported (it subclasses a stand-in at its top level) counts as one
collection error. The pass rate is passed / (passed + failed): the applicable checks.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_UNSUPPORTED = textwrap.dedent('''
    """Stand-ins for what minijinja_py does not offer. Importing, calling, subclassing them and reading their
    attributes gives more stand-ins (a test module that builds some at its top level still loads); using one as a
    value (comparing, testing, iterating, printing it) fails with NotSupported. TOUCHED counts what was made, so
    that a test that went through a stand-in is never counted as passed."""


    class NotSupported(AttributeError):
        """Also an AttributeError: getattr(obj, name, default) on an adapted object still gets its default."""


    TOUCHED = [0]


    class _UnsupportedClass(type):
        def __getattr__(cls, attr):   # Extension.identifier and the like, read on the subclass
            if attr.startswith("__"):
                raise AttributeError(attr)
            return Unsupported(f"{cls.__name__}.{attr}")


    class UnsupportedBase(metaclass=_UnsupportedClass):
        """What a class that subclasses a stand-in (a jinja2.ext.Extension) derives from."""

        def __init__(self, *args, **kwargs):
            raise NotSupported(f"jinja2 adapter: {type(self).__name__} (a subclass of Jinja2's API) is not "
                               "supported by minijinja_py")


    class Unsupported:
        def __init__(self, name):
            TOUCHED[0] += 1
            object.__setattr__(self, "_name", name)

        def _fail(self, *args, **kwargs):
            raise NotSupported(f"jinja2 adapter: {self._name} is not supported by minijinja_py")

        def __call__(self, *args, **kwargs):
            return Unsupported(self._name)

        def __setitem__(self, key, value):   # env.policies[...] = ... on a stand-in environment at import
            TOUCHED[0] += 1

        def __mro_entries__(self, bases):
            TOUCHED[0] += 1
            return (UnsupportedBase,)

        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return Unsupported(self._name)

        __iter__ = __len__ = __enter__ = __getitem__ = __bool__ = __eq__ = __ne__ = __lt__ = __gt__ = _fail
        __instancecheck__ = __subclasscheck__ = __str__ = __contains__ = __setattr__ = __hash__ = _fail

        def __repr__(self):
            return f"<unsupported {self._name}>"


    def module_getattr(module):
        def __getattr__(name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Unsupported(f"{module}.{name}")
        return __getattr__
''')

_ENVIRONMENT = textwrap.dedent('''
    """Environment and Template with Jinja2's positional arguments; Environment is Jinja2's unsandboxed one."""
    import minijinja_py as _mj

    from ._unsupported import NotSupported, Unsupported, module_getattr

    __getattr__ = module_getattr("jinja2.environment")

    # Jinja2's order of Environment's positional parameters (Template takes them after the source)
    _ORDER = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
              "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
              "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "extensions",
              "optimized", "undefined", "finalize", "autoescape", "loader", "cache_size", "auto_reload",
              "bytecode_cache", "enable_async")


    def _options(args, kwargs):
        options = dict(zip(_ORDER, args))
        options.update(kwargs)
        return options


    def _unsupported_options(cls, options):
        """A stand-in when minijinja_py refuses the options as not supported (so that a test module that makes such
        an environment at its top level still loads; its use fails as not supported)."""
        try:
            _mj.Environment(**options)
        except (ValueError, TypeError) as exc:
            if any(text in str(exc) for text in ("not supported", "unknown extension", "unexpected Environment")):
                return Unsupported(f"{cls.__name__}({exc})")
            raise
        return None


    class Environment(_mj.Environment):
        def __new__(cls, *args, **kwargs):
            options = _options(args, kwargs)
            options.setdefault("immutable", False)
            stand_in = _unsupported_options(cls, options)
            return stand_in if stand_in is not None else super().__new__(cls)

        def __init__(self, *args, **kwargs):
            options = _options(args, kwargs)
            options.setdefault("immutable", False)
            super().__init__(**options)

        def __getattr__(self, name):   # only for what minijinja_py's Environment does not have
            if name.startswith("__"):
                raise AttributeError(name)
            raise NotSupported(f"jinja2 adapter: Environment.{name} is not supported by minijinja_py")


    class Template(_mj.Template):
        def __new__(cls, source, *args, **kwargs):
            options = _options(args, kwargs)
            options.setdefault("immutable", False)
            return _mj.Template.__new__(cls, source, **options)

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            raise NotSupported(f"jinja2 adapter: Template.{name} is not supported by minijinja_py")
''')

_MODULES = {
    "__init__": '''
        import minijinja_py as _mj
        from minijinja_py import (
            BaseLoader, ChainableUndefined, ChoiceLoader, DebugUndefined, DictLoader, FileSystemLoader,
            FunctionLoader, PrefixLoader, StrictUndefined, TemplateAssertionError, TemplateError,
            TemplateNotFound, TemplateRuntimeError, TemplatesNotFound, TemplateSyntaxError, Undefined,
            UndefinedError, pass_context, pass_environment, pass_eval_context, select_autoescape,
        )
        from minijinja_py.core.errors import SecurityError, FilterArgumentError
        from . import meta, sandbox, exceptions, loaders, utils, runtime, nodes, ext
        from .environment import Environment, Template
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2")


        def is_undefined(obj):
            return isinstance(obj, Undefined)
    ''',
    "_unsupported": _UNSUPPORTED,
    "environment": _ENVIRONMENT,
    "exceptions": '''
        from minijinja_py.core.errors import (
            SecurityError, FilterArgumentError, TemplateAssertionError, TemplateError, TemplateNotFound,
            TemplateRuntimeError, TemplatesNotFound, TemplateSyntaxError, UndefinedError,
        )
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.exceptions")
    ''',
    "loaders": '''
        from minijinja_py import BaseLoader, ChoiceLoader, DictLoader, FileSystemLoader, FunctionLoader, PrefixLoader
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.loaders")
    ''',
    "runtime": '''
        from minijinja_py import ChainableUndefined, DebugUndefined, StrictUndefined, Undefined
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.runtime")
    ''',
    "utils": '''
        from minijinja_py import pass_context, pass_environment, pass_eval_context, select_autoescape
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.utils")
    ''',
    "meta": '''
        from minijinja_py.meta import find_referenced_templates, find_undeclared_variables
    ''',
    "sandbox": '''
        import minijinja_py as _mj

        from .environment import Environment
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.sandbox")
        SandboxedEnvironment = Environment      # immutable=False: Jinja2's SandboxedEnvironment
        MAX_RANGE = _mj.Limits().max_range      # range()'s limit, Jinja2's MAX_RANGE by default


        class ImmutableSandboxedEnvironment(Environment):
            def __init__(self, *args, **kwargs):
                kwargs.setdefault("immutable", True)
                super().__init__(*args, **kwargs)


        def unsafe(func):
            """Jinja2's mark on a function a template must not call."""
            func.unsafe_callable = True
            return func
    ''',
    "ext": '''
        from ._unsupported import module_getattr

        __getattr__ = module_getattr("jinja2.ext")
        # the two extensions minijinja_py has, by the names it knows them
        loopcontrols = LoopControlExtension = "jinja2.ext.loopcontrols"
        do = ExprStmtExtension = "jinja2.ext.do"
    ''',
}
_STAND_IN_MODULES = ("nodes", "lexer", "compiler", "idtracking", "bccache", "nativetypes", "async_utils", "debug",
                     "defaults", "filters", "tests", "optimizer", "visitor", "parser", "constants")

# A pytest plugin: one outcome per test, written as JSON lines to the file named by JINJA2_SUITE_RESULTS.
_PLUGIN = textwrap.dedent('''
    import json
    import os
    import re

    import pytest

    _OUT = open(os.environ["JINJA2_SUITE_RESULTS"], "a", encoding="utf-8")
    _NOT_SUPPORTED_TEXT = ("not supported by minijinja_py", "unexpected Environment option", "unknown extension")
    # an attribute of Jinja2's Environment or Template that minijinja_py's (made by from_string/get_template, not
    # through the adapter's classes) does not have, or of a jinja2.nodes node read from minijinja_py's AST (whose
    # shape the README lists as its own)
    _MISSING_API = re.compile(r"^'(\\w+)' object has no attribute '(\\w+)'")


    def _missing_api(exc):
        from minijinja_py.syntax import nodes
        m = _MISSING_API.match(str(exc))
        if m is None:
            return False
        node_class = getattr(nodes, m.group(1), None)
        return m.group(1) in ("Environment", "Template") or \
            isinstance(node_class, type) and issubclass(node_class, nodes.Node)


    def _chain(exc):
        seen = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            yield exc
            exc = exc.__cause__ or exc.__context__


    def _kind(exc):
        import minijinja_py
        from jinja2._unsupported import NotSupported
        if exc is None:
            return "not supported"   # passed, but through a stand-in
        for e in _chain(exc):
            if isinstance(e, NotSupported) or any(t in str(e) for t in _NOT_SUPPORTED_TEXT):
                return "not supported"
            if type(e) is AttributeError and _missing_api(e):
                return "not supported"
        for e in _chain(exc):
            if isinstance(e, minijinja_py.SecurityError):
                return "sandbox"
        return "failed"


    def _record(nodeid, outcome, detail=""):
        _OUT.write(json.dumps({"test": nodeid, "outcome": outcome, "detail": detail[:400]}) + "\\n")
        _OUT.flush()


    _TOUCHED_AT_SETUP = {}


    def pytest_runtest_setup(item):
        from jinja2._unsupported import TOUCHED
        _TOUCHED_AT_SETUP[item.nodeid] = TOUCHED[0]


    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        from jinja2._unsupported import TOUCHED
        report = (yield).get_result()
        if report.skipped and call.when in ("setup", "call"):
            _record(item.nodeid, "skipped")
        elif report.failed:
            exc = call.excinfo.value if call.excinfo is not None else None
            kind = _kind(exc)
            if kind == "failed" and (TOUCHED[0] != _TOUCHED_AT_SETUP.get(item.nodeid, TOUCHED[0])
                                     or "<unsupported " in str(exc)):
                kind = "not supported"   # it went through a stand-in (isinstance(stand_in, int) is False...)
            _record(item.nodeid, kind, f"{type(exc).__name__}: {exc}")
        elif call.when == "call" and report.passed:
            touched = TOUCHED[0] != _TOUCHED_AT_SETUP.get(item.nodeid)
            _record(item.nodeid, "not supported" if touched else "passed",
                    "passed through a stand-in of the adapter" if touched else "")


    def pytest_collectreport(report):
        if report.failed:
            _record(report.nodeid, "collection error", str(report.longrepr)[-400:])
''')


def write_adapter(folder):
    package = os.path.join(folder, "jinja2")
    os.makedirs(package)
    for name, source in _MODULES.items():
        with open(os.path.join(package, name + ".py"), "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(source))
    for name in _STAND_IN_MODULES:
        with open(os.path.join(package, name + ".py"), "w", encoding="utf-8") as f:
            f.write(f"from ._unsupported import module_getattr\n\n__getattr__ = module_getattr('jinja2.{name}')\n")
    with open(os.path.join(folder, "jinja2_suite_plugin.py"), "w", encoding="utf-8") as f:
        f.write(_PLUGIN)


def run_suite(tests_dir, timeout, project=ROOT):
    """Every test's outcome, as a list of {"test", "outcome", "detail"}, with minijinja_py from `project`."""
    with tempfile.TemporaryDirectory() as folder:
        write_adapter(folder)
        results = os.path.join(folder, "results.jsonl")
        env = dict(os.environ, JINJA2_SUITE_RESULTS=results,
                   PYTHONPATH=os.pathsep.join([folder, project, os.environ.get("PYTHONPATH", "")]))
        # the suite's own folder is its rootdir (its conftest.py gives the fixtures); no cache, no other plugins
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "jinja2_suite_plugin",
               "--rootdir", tests_dir, "-o", "addopts=", "-W", "ignore", "--continue-on-collection-errors", tests_dir]
        subprocess.run(cmd, cwd=tests_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=timeout, check=False)
        with open(results, encoding="utf-8") as f:
            return [json.loads(line) for line in f]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tests_dir", help="the tests/ folder of Jinja2's source distribution")
    ap.add_argument("--show", type=int, default=0, help="failures to print")
    ap.add_argument("--json", help="write every test's outcome to this file")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--project", default=ROOT, help="where minijinja_py is imported from (default: this checkout)")
    args = ap.parse_args()
    outcomes = run_suite(os.path.abspath(args.tests_dir), args.timeout, os.path.abspath(args.project))
    counts = collections.Counter(r["outcome"] for r in outcomes)
    applicable = counts["passed"] + counts["failed"]
    by_file = collections.defaultdict(collections.Counter)
    for r in outcomes:
        by_file[r["test"].split("::")[0]][r["outcome"]] += 1
    for name, c in sorted(by_file.items()):
        print(f"  {name:28} " + ", ".join(f"{n} {k}" for k, n in sorted(c.items())))
    print(", ".join(f"{n} {k}" for k, n in counts.most_common()))
    if applicable:
        print(f"applicable checks: {counts['passed']} / {applicable} pass ({100 * counts['passed'] / applicable:.1f}%)")
    missing = collections.Counter(m.group(1) or f"{m.group(2)}.{m.group(3)}"
                                  for r in outcomes if r["outcome"] == "not supported"
                                  for m in [re.search(r"adapter: (\S+) is not supported|'(\w+)' "
                                                      r"object has no attribute '(\w+)'", r["detail"])] if m)
    if missing:
        print("not supported, by name: " + ", ".join(f"{name} ({n})" for name, n in missing.most_common()))
    for r in [r for r in outcomes if r["outcome"] == "failed"][:args.show]:
        print(f"FAILED {r['test']}\n    {r['detail']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(outcomes, f, indent=1)


if __name__ == "__main__":
    main()
