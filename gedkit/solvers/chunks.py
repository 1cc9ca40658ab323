"""How many steps a resumable kernel runs before the Python side looks at the clock."""

from __future__ import annotations

import math

__all__ = ["FIRST_CHUNK", "first_chunk", "next_chunk"]

FIRST_CHUNK = 512
_TARGET_SECONDS = 0.005  # read the clock every few ms: often enough, and cheap
_OPS_PER_FIRST_CHUNK = 2e6  # about a millisecond of simple operations


def first_chunk(ops_per_step: float) -> int:
    """Size of the first batch, from a rough count of operations per step, so that a first
    batch of expensive steps (large graphs) cannot overrun a short time limit.

    >>> first_chunk(1_000), first_chunk(250_000), first_chunk(10**9)
    (512, 8, 1)
    """
    return max(1, min(FIRST_CHUNK, int(_OPS_PER_FIRST_CHUNK // max(ops_per_step, 1))))


def next_chunk(chunk: int, spent: float, remaining: float) -> int:
    """Size of the next batch of kernel steps after one of ``chunk`` steps took ``spent`` s.

    Doubles while batches are quicker than the target, and shrinks so that the next batch ends
    near the deadline (``remaining`` seconds, infinite without one).

    >>> next_chunk(512, 0.001, math.inf)
    1024
    >>> next_chunk(1000, 0.01, 0.002)
    201
    """
    if spent < _TARGET_SECONDS:
        chunk *= 2
    if remaining < math.inf and spent > 0:
        chunk = max(1, min(chunk, int(chunk * remaining / spent) + 1))
    return chunk
