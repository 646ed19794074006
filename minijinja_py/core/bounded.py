"""BoundedCache: key → value, the least recently used dropped past a count of entries or past a total weight.

The caches of compiled templates weigh each entry by the characters of source it was compiled from (what its
memory grows with: a compiled template takes some tens to a few hundred bytes per character of source), so that
what a process keeps is bounded by what the templates are, not only by how many there are: 25 distinct sources
of 240 000 characters must not stay in memory because 25 is fewer than 256. Safe to use from several threads.
"""

from _thread import allocate_lock   # threading.Lock itself; importing threading costs a cold start ~1.3 ms
from collections import OrderedDict

__all__ = ["BoundedCache"]


class BoundedCache:
    """At most max_entries entries (None: any number; 0: nothing is kept) weighing at most max_weight in all; an
    entry heavier than max_weight alone is not kept."""

    __slots__ = ("max_entries", "max_weight", "_items", "_weight", "_lock")

    def __init__(self, max_entries: "int | None", max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._items: "OrderedDict[object, tuple[object, int]]" = OrderedDict()
        self._weight = 0
        self._lock = allocate_lock()

    def get(self, key: object) -> object:
        """The value stored under key (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: object, value: object, weight: int) -> None:
        """Store value under key, then drop the least recently used entries until the bounds hold again."""
        if self.max_entries == 0 or weight > self.max_weight:
            self.pop(key)
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while self._weight > self.max_weight or \
                    (self.max_entries is not None and len(self._items) > self.max_entries):
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def pop(self, key: object) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]

    @property
    def weight(self) -> int:
        """The total weight held."""
        return self._weight

    def __len__(self) -> int:
        return len(self._items)
