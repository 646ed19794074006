"""The texts of plain data remembered across renders: `tools|tojson`, `tool|string`, printed for every render of
a pipeline that passes the same tools object each time, are made once and found again by the object's identity
while its content has not changed."""

# The content is compared by its fingerprint: the bytes pickle writes for it, at C speed, by a pickler that refuses
# every object but the exact built-in types (its reducer_override is called for all others, and raises) and that
# stops once it has written _MAX_FINGERPRINT bytes (its file refuses more). Pickle writes each string, number (int,
# bool and float apart) and nesting as it is, in order, so equal bytes are equal content, and the text made from
# that content (json.dumps, repr) is the same text. A changed object takes the caller's path again, which bounds
# it before any work. What the text cost to make (its steps) is remembered with it and charged again on each use,
# so that a render's step budget does not depend on what this cache holds. The fingerprint's own work stops at
# its size bound, but for one string of it, which pickle encodes as a whole before writing it (linear in the
# caller's own data, once: a changed object is dropped).
#
# An object is fingerprinted only the second time it is met (the first time it is only noted): data made fresh
# for each render costs nothing more than a note, and a small value (a tool call's arguments) not even that. Notes
# and entries hold their object, so that its id cannot be reused while it is remembered; there are at most
# _MAX_NOTES and _MAX_ENTRIES of them, with texts of at most _MAX_TEXT characters. The oldest note goes first; the
# oldest entry goes for a new one only when it was not found in the last _STALE recalls (else it goes last, and the
# new object stays noted, refused again at the cost of a note): a render that prints more objects than there are
# entries, each once, keeps finding the ones it has (were each new one to push out the oldest, every print would
# pay a fingerprint and still miss).

import _thread

__all__ = ["recall", "remember"]

_MIN_ITEMS = 8          # a smaller value is walked faster than it is fingerprinted
_MAX_TEXT = 1 << 16
_MAX_NOTES = 256
_MAX_ENTRIES = 64
_MAX_FINGERPRINT = 1 << 17
_STALE = 16 * _MAX_ENTRIES
_notes = {}     # (id(value), kind) → value, met once
_entries = {}   # (id(value), kind) → [value, its fingerprint, what remember was given, when it was last found]
_recalls = 0    # how many recalls there have been: the entries' clock


def recall(value, kind):
    # What remember(value, kind, ...) was given, when value is the object it was given for and its content has
    # not changed since; None else.
    global _recalls
    _recalls += 1
    key = (id(value), kind)
    entry = _entries.get(key)
    if entry is None or entry[0] is not value:
        return None
    if _fingerprint(value) == entry[1]:
        entry[3] = _recalls
        return entry[2]
    _entries.pop(key, None)
    return None


def remember(value, kind, made, items, size):
    # Note value (of `items` values and containers) the first time it is met; the second time, remember `made`
    # (a tuple: the text, what it cost, what its limits were checked against) with value's content. Only for a
    # value of _MIN_ITEMS or more and a text (size characters) of at most _MAX_TEXT.
    if items < _MIN_ITEMS or size > _MAX_TEXT:
        return
    key = (id(value), kind)
    if _notes.get(key) is not value:
        _put(_notes, key, value, _MAX_NOTES)
        return
    if len(_entries) >= _MAX_ENTRIES and not _oldest_stale():
        return   # (stays noted)
    _notes.pop(key, None)
    fingerprint = _fingerprint(value)
    if fingerprint is not None:
        _put(_entries, key, [value, fingerprint, made, _recalls], _MAX_ENTRIES)


def _oldest_stale():
    # Was the oldest entry (the first: _put drops it for a new one) not found in the last _STALE recalls? When it
    # was found, it goes last, so that the next new object asks about another (a stale one, if any, is met within
    # _MAX_ENTRIES asks).
    try:
        oldest = next(iter(_entries))
        if _recalls - _entries[oldest][3] >= _STALE:
            return True
        _entries[oldest] = _entries.pop(oldest)
    except (KeyError, RuntimeError, StopIteration):   # another thread's change in between
        pass
    return False


_shared = None                       # (pickler, its file): made on first use (pickle is imported then)
_shared_lock = _thread.allocate_lock()
_kinds = None                        # (the pickler's class, its file's class, pickle's error): made once, on first use


def _new_pickler():
    global _kinds
    if _kinds is None:   # (two threads may both make them: either pair serves)
        _kinds = _pickler_kinds()
    pickler_class, file_class, pickling_error = _kinds
    file = file_class()
    return pickler_class(file, 5), file, pickling_error


def _pickler_kinds():
    # pickle and these two classes are made on first use, for start-up time: only a render that meets the same
    # data twice needs them; once, not per pickler (a call that finds the shared one in use makes its own)
    import pickle

    class PlainPickler(pickle.Pickler):
        def reducer_override(self, obj):   # called for any object that is not of an exact built-in type
            raise TypeError("not plain data")

    class Bounded:
        # The pickler's file: it keeps what is written, and refuses more than _MAX_FINGERPRINT bytes.
        __slots__ = ("room", "parts")

        def __init__(self):
            self.room, self.parts = _MAX_FINGERPRINT, []

        def write(self, data):
            self.room -= len(data)
            if self.room < 0:
                raise OverflowError("fingerprint too long")
            self.parts.append(bytes(data))
            return len(data)
    return PlainPickler, Bounded, pickle.PicklingError


def _fingerprint(value):
    # The bytes pickle writes for value, or None for a value that is not plain data or is too long to compare.
    # One pickler serves every call; a call that finds it in use (another thread's) makes its own.
    global _shared
    if not _shared_lock.acquire(False):
        return _pickled(_new_pickler(), value)
    try:
        if _shared is None:
            _shared = _new_pickler()
        return _pickled(_shared, value)
    finally:
        _shared_lock.release()


def _pickled(made, value):
    pickler, file, pickling_error = made
    file.room = _MAX_FINGERPRINT
    file.parts.clear()
    pickler.clear_memo()
    try:
        pickler.dump(value)
    except (TypeError, OverflowError, RecursionError, ValueError, pickling_error):
        return None
    return b"".join(file.parts)


def _put(table, key, value, most):
    # table[key] = value, the oldest entry dropped first when the table holds `most`.
    if len(table) >= most and key not in table:
        try:
            del table[next(iter(table))]
        except (KeyError, RuntimeError, StopIteration):   # another thread's change in between
            pass
    table[key] = value
