"""The traces one ``gc.function`` keeps, usable from several threads at once.

Two kinds of entries: exact trace keys (an LRU of at most ``max_size``) and patterns
(``input_signature`` and ``reduce_retracing`` traces, keys with ``None`` dims), tried in
the order they were added.

Locking: lookups read the dict without a lock (one dict read is atomic) and take the
short ``_lock`` only to move a hit to the LRU's end; inserts, evictions and snapshots for
iteration take it too, so no thread iterates while another changes the order. The
pattern list is replaced, never changed in place, so it is read without a lock.
``trace_lock`` is held around tracing a new key and inserting it (``Function._lookup``):
threads missing the same key at once trace it once; it is re-entrant, so a function
traced again from inside its own trace (another signature) does not deadlock.
"""

from __future__ import annotations

import collections
import threading

from graphc.functions.signature import key_matches


class TraceCache:
    """Key -> ``ConcreteFunction`` for one ``Function``: exact keys, then patterns."""

    def __init__(self, max_size: int):
        self.max_size = max_size
        self._exact: collections.OrderedDict = collections.OrderedDict()
        self._patterns: tuple = ()  # ((pattern, concrete), ...), oldest first
        # (key, spec names) -> a trace get_concrete_function made for TensorSpecs whose
        # names differ from the trace serving ``key`` (``spec_names.py``); not for calls
        self.named: dict = {}
        self._lock = threading.Lock()  # short sections only, never held while tracing
        self.trace_lock = threading.RLock()  # held while a new key is traced and added

    def get(self, key):
        """The trace serving ``key`` (exactly, else the first matching pattern) or None;
        an exact hit becomes the most recently used."""
        concrete = self._exact.get(key)
        if concrete is not None:
            with self._lock:
                if key in self._exact:  # (it may have been evicted in between)
                    self._exact.move_to_end(key)
            return concrete
        for pattern, concrete in self._patterns:
            if key_matches(pattern, key):
                return concrete
        return None

    def add(self, key, concrete) -> None:
        """Keep ``concrete`` for ``key``, dropping the least recently used beyond
        ``max_size``."""
        with self._lock:
            self._exact[key] = concrete
            while len(self._exact) > self.max_size:
                self._exact.popitem(last=False)

    def add_pattern(self, pattern, concrete) -> None:
        """Keep ``concrete`` for every key ``pattern`` matches (``signature.key_matches``)."""
        with self._lock:
            self._patterns = (*self._patterns, (pattern, concrete))

    def remove(self, key) -> None:
        """Forget the trace kept for ``key`` (exact or pattern), if any."""
        with self._lock:
            self._exact.pop(key, None)
            self._patterns = tuple(e for e in self._patterns if e[0] != key)

    @property
    def has_patterns(self) -> bool:
        return bool(self._patterns)

    def keys_newest_first(self) -> list:
        """The exact keys, most recently used first (a snapshot)."""
        with self._lock:
            return list(reversed(self._exact))

    def concretes(self) -> list:
        """Every kept trace: exact keys oldest first, then patterns (a snapshot)."""
        with self._lock:
            return [*self._exact.values(), *(c for _, c in self._patterns),
                    *self.named.values()]

    def clear(self) -> None:
        with self._lock:
            self._exact.clear()
            self._patterns = ()
            self.named.clear()

    def __len__(self) -> int:
        return len(self._exact)
