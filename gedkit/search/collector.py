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
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["LARGE_PAIR", "gc_paused", "gc_resumed"]

#: nodes of a pair (both graphs) from which its solve is collected after (gc_resumed)
LARGE_PAIR = 300


class _Paused:
    """The context of :func:`gc_paused` (a class: a generator's context manager allocates
    on leaving, which set off the collector's deferred pass inside the search)."""

    held = 0  # blocks now open that turned the collector off

    __slots__ = ("turned",)

    def __enter__(self) -> None:
        self.turned = gc.isenabled()
        if self.turned:
            gc.disable()
            _Paused.held += 1

    def __exit__(self, *exc) -> None:
        if self.turned:
            _Paused.held -= 1
            gc.enable()


def gc_paused() -> _Paused:
    """The collector off inside the block, if it was on (as it was on leaving it).

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
    if gc.isenabled() or not _Paused.held:
        yield
        return
    gc.enable()
    try:
        yield
    finally:
        if large:
            gc.collect(1)
        gc.disable()
