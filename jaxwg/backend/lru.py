"""A bounded mapping that forgets the least recently used entry, safe across threads.

Every cache that grows with what a program does (pipelines, bind groups, executables,
jit programs and traces) is one of these, so that a long run with many shapes or
constants keeps a bounded footprint.

>>> cache = LruCache(2)
>>> cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
1
>>> cache.get("b"), cache.get("a"), len(cache)
(None, 1, 2)
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class LruCache:
    """A mapping bounded to `maxsize` entries that drops the least recently used."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        """The value stored for `key` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            if len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
