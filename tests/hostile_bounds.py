"""Hostile cases for issue 12 (every bound on every path), by mechanism; see hostile_cases.py for the format.

ALL_CASES = hostile_cases.CASES + the cases here: what test_hostile.py runs.
"""

from hostile_cases import CASES, Case  # noqa: F401

_RAW = {}


def _finish(raw):
    return [case._replace(id=case_id) for case_id, case in raw.items()]


BOUNDS = _finish(_RAW)
ALL_CASES = CASES + BOUNDS
