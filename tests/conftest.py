import os
import sys

# make tests/casefiles.py importable as a plain module
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_terminal_summary(terminalreporter):
    """The differential test's tally of outcomes (same / known: ... / excluded), when it ran."""
    module = sys.modules.get("test_differential")
    line = module.outcome_summary() if module is not None else None
    if line:
        terminalreporter.write_line(line)
