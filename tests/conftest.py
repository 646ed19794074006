import os
import sys

import pytest

# the tests' helpers (tests/support/casefiles.py, ...) and the build-time programs they check (tools/grammar_tables.py)
# importable as plain modules
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, "support"), os.path.join(os.path.dirname(_HERE), "tools")]

# Where pytest-xdist is installed (the `test` extra), the whole suite (`python -m pytest`, no paths) runs its files
# in parallel, one worker per CPU (at most MAX_WORKERS): it is about six minutes of CPU. A file's tests stay together
# on one worker (--dist loadfile): the hostile suites run their cases once per file, in a module fixture. Named
# files or tests run in this process (starting workers costs more than a few files gain), unless -n says otherwise;
# `-n 0` runs the whole suite here. Without pytest-xdist (the PyPy step of .ci/run) everything runs here.
MAX_WORKERS = 4
# Files that take longest (in brackets: seconds in a serial run of the suite, 2-core VM with other work beside it),
# handed out first so that no long file starts last and runs alone at the end; the rest follow in their usual order.
SLOW_FILES = [
    "test_surfaces.py",        # (81) a child process per case, two at a time
    "test_hostile.py",         # (64) two worker processes, 870 cases
    "test_render_errors.py",   # (39)
    "test_hostile_cli.py",     # (34) the CLI in child processes
    "test_parser_vs_lark.py",  # (21)
    "test_bombs.py",           # (17)
    "test_cli_signals.py",     # (16) the CLI in child processes
    "test_kernels.py",         # (12)
    "test_grammar.py",         # (8)
    "test_fused.py",           # (8)
    "test_scale.py",           # (7) Dask and datasets start their own workers
    "test_readme.py",          # (6)
]


def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)   # before xdist's own (also tryfirst; registered earlier, so called later)
def pytest_cmdline_main(config):
    """-n and --dist by default (see above); xdist's own hook runs after this one and sets the workers up."""
    if not config.pluginmanager.hasplugin("xdist") or "PYTEST_XDIST_WORKER" in os.environ:
        return
    whole_suite = not getattr(config.option, "file_or_dir", None)
    if config.option.numprocesses is None and whole_suite and not config.option.collectonly \
            and not config.option.usepdb:
        workers = min(MAX_WORKERS, _cpus())
        if workers > 1:
            config.option.numprocesses = workers
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False   # SLOW_FILES's order, not the number of tests per file


def pytest_collection_modifyitems(config, items):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return   # one process: the usual order
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FILES)))   # stable: each file's order is kept


def pytest_sessionfinish(session):
    """A worker hands the differential test's tally to the controller (see pytest_testnodedown)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    line = _differential_line()
    if workeroutput is not None and line:
        workeroutput["differential"] = line


_RELAYED = []


@pytest.hookimpl(optionalhook=True)   # an xdist hook: unknown without it
def pytest_testnodedown(node, error):
    line = getattr(node, "workeroutput", {}).get("differential")
    if line:
        _RELAYED.append(line)


def _differential_line():
    module = sys.modules.get("test_differential")
    return module.outcome_summary() if module is not None else None


def pytest_terminal_summary(terminalreporter):
    """The differential test's tally of outcomes (same / known: ... / excluded), when it ran."""
    for line in [_differential_line()] + _RELAYED:
        if line:
            terminalreporter.write_line(line)


@pytest.fixture(params=[False, True], ids=["kernels", "general"])
def general_only(request):
    # A test that takes this runs twice: kernel selection on, then the general closures only (kernels/select.py).
    from minijinja_py.kernels import select   # (not at the top: this file also runs where the package is not built)
    previous = select.configure(general_only=request.param)
    yield
    select.configure(general_only=previous[0])
