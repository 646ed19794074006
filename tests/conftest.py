import os
import sys

# the tests' helpers (tests/support/casefiles.py, ...) and the build-time programs they check (tools/grammar_tables.py)
# importable as plain modules
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, "support"), os.path.join(os.path.dirname(_HERE), "tools")]


def pytest_terminal_summary(terminalreporter):
    """The differential test's tally of outcomes (same / known: ... / excluded), when it ran."""
    module = sys.modules.get("test_differential")
    line = module.outcome_summary() if module is not None else None
    if line:
        terminalreporter.write_line(line)
