"""The texts of plain data remembered across renders: `tools|tojson`, `tool|string`, printed for every render of
a pipeline that passes the same tools object each time, are made once and found again by the object's identity
while its content has not changed.

The content is compared by marshal's bytes, made at C speed: marshal writes exact types (it refuses every
subclass) and every string, number and nesting as they are, so equal bytes are equal content, and the text made
from that content (json.dumps, repr) is the same text. A changed object takes the caller's path again, which
bounds it before any work. What the text cost to make (its steps) is remembered with it and charged again on
each use, so that a render's step budget does not depend on what this cache holds.

The fingerprint is the one piece of work here not bounded before it is done: a remembered object that the
caller grew since is marshalled in full once (at C speed, in time and memory linear in the caller's own data,
shared parts written once), then dropped, and the caller's path bounds it as usual.

An object is fingerprinted only the second time it is met (the first time it is only noted): data made fresh
for each render costs nothing more than a note, and a small value (a tool call's arguments) not even that. Notes
and entries hold their object, so that its id cannot be reused while it is remembered; there are at most
_MAX_NOTES and _MAX_ENTRIES of them (the oldest go first), with texts of at most _MAX_TEXT characters.
"""

import marshal

__all__ = ["recall", "remember"]

_MIN_ITEMS = 8          # a smaller value is walked faster than it is fingerprinted
_MAX_TEXT = 1 << 16
_MAX_NOTES = 256
_MAX_ENTRIES = 64
_notes = {}     # (id(value), kind) → value, met once
_entries = {}   # (id(value), kind) → (value, its marshal bytes, what remember was given)


def recall(value, kind):
    """What remember(value, kind, ...) was given, when value is the object it was given for and its content has
    not changed since; None else."""
    key = (id(value), kind)
    entry = _entries.get(key)
    if entry is None or entry[0] is not value:
        return None
    try:
        unchanged = marshal.dumps(value) == entry[1]
    except ValueError:   # a subclass, or an object marshal does not write, put in it since
        unchanged = False
    if unchanged:
        return entry[2]
    _entries.pop(key, None)
    return None


def remember(value, kind, made, items, size):
    """Note value (of `items` values and containers) the first time it is met; the second time, remember `made`
    (a tuple: the text, what it cost, what its limits were checked against) with value's content. Only for a
    value of _MIN_ITEMS or more and a text (size characters) of at most _MAX_TEXT."""
    if items < _MIN_ITEMS or size > _MAX_TEXT:
        return
    key = (id(value), kind)
    if _notes.get(key) is not value:
        _put(_notes, key, value, _MAX_NOTES)
        return
    _notes.pop(key, None)
    try:
        fingerprint = marshal.dumps(value)
    except ValueError:
        return
    _put(_entries, key, (value, fingerprint, made), _MAX_ENTRIES)


def _put(table, key, value, most):
    """table[key] = value, the oldest entry dropped first when the table holds `most`."""
    if len(table) >= most and key not in table:
        try:
            del table[next(iter(table))]
        except (KeyError, RuntimeError, StopIteration):   # another thread's change in between
            pass
    table[key] = value
