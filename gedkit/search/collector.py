"""Python's cyclic garbage collector held off while a search builds many small objects.

A search's answers, hits and statistics form no reference cycles, so the collector finds
nothing in them; but each collection it runs scans every young object (a hundred fresh
queries: ~10,000 references, ~0.25 ms) and every so often every object the process holds
(a loaded collection: ~60 ms). A range search of 100 small queries ran one or two of them,
a third of its time, and building a hundred thousand undecided hits ran several times
slower. Objects freed by reference counting are freed as always while it is paused; a
solve of one pair, which may leave cycles, runs with it resumed (:func:`gc_resumed`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["LARGE_PAIR", "gc_paused", "gc_resumed"]

#: nodes of a pair (both graphs) from which its solve is collected after (gc_resumed)
LARGE_PAIR = 300


class _State:
    """The pauses and resumptions open in this process, across threads (the collector is
    one for all threads: searches in four threads at once, each saving and restoring the
    collector's state on its own, left it off for good)."""

    lock = threading.Lock()
    held = 0  # gc_paused blocks open that found the collector on (or joined one that did)
    resumed = 0  # gc_resumed blocks open inside them
    off = False  # whether the pauses turned the collector off (it was on at the first)

    @classmethod
    def settle(cls) -> None:
        """The collector on unless a pause is open and no resumption is (under the lock)."""
        if cls.off and cls.held and not cls.resumed:
            gc.disable()
        elif cls.off:
            gc.enable()
            if not cls.held:
                cls.off = False


class _Paused:
    """The context of :func:`gc_paused` (a class: a generator's context manager allocates
    on leaving, which set off the collector's deferred pass inside the search)."""

    __slots__ = ("joined",)

    def __enter__(self) -> None:
        with _State.lock:
            # (a pause inside the caller's own gc.disable(): nothing of ours to undo)
            self.joined = _State.off or gc.isenabled()
            if self.joined:
                _State.held += 1
                _State.off = True
                _State.settle()

    def __exit__(self, *exc) -> None:
        if self.joined:
            with _State.lock:
                _State.held -= 1
                _State.settle()


def gc_paused() -> _Paused:
    """The collector off inside the block, if it was on (as it was on leaving it, when no
    other thread's search holds it off meanwhile).

    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    return _Paused()


@contextmanager
def gc_resumed(large: bool = False) -> Iterator[None]:
    """The collector on inside the block where a :func:`gc_paused` block turned it off (a
    pair's solve inside a search); left off where the caller turned it off itself. With
    ``large`` (a pair of hundreds of nodes or more) the young objects are collected on
    leaving: cycles left by the solve (HiGHS's wrapper makes some) may hold its arrays, which
    would otherwise wait for the search's end, past a per-pair memory cap."""
    with _State.lock:
        mine = _State.off and _State.held > 0
        if mine:
            _State.resumed += 1
            _State.settle()
    if not mine:
        yield
        return
    try:
        yield
    finally:
        if large:
            gc.collect(1)
        with _State.lock:
            _State.resumed -= 1
            _State.settle()
