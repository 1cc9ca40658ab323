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

__all__ = ["gc_paused", "gc_resumed"]

_held = 0  # gc_paused blocks now open that turned the collector off


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off inside the block, if it was on (as it was on leaving it)."""
    global _held
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        gc.enable()


@contextmanager
def gc_resumed() -> Iterator[None]:
    """The collector on inside the block where a :func:`gc_paused` block turned it off (a
    pair's solve inside a search); left off where the caller turned it off itself."""
    if gc.isenabled() or not _held:
        yield
        return
    gc.enable()
    try:
        yield
    finally:
        gc.disable()

