"""Pacing compiled work within a time limit: how much one kernel call may do before the Python side
looks at the clock, and what the first call of a process pays on top (numba, SciPy)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

__all__ = [
    "FIRST_CHUNK", "NEGLIGIBLE_SECONDS", "OPS_PER_SECOND", "PREPARE_SECONDS", "affordable",
    "expansion_ops", "first_chunk", "next_chunk", "pay_kernel_start_ups", "pay_start_ups",
    "set_up_ops", "start_up_seconds",
]

FIRST_CHUNK = 512
# simple operations per second of compiled code, on the slow side: what sizes one kernel call
# (or decides that not even one fits the time left)
OPS_PER_SECOND = 3e8
# work this short is always done, even on an expired budget: it costs nothing a caller could
# notice, and a bound from it beats none
NEGLIGIBLE_SECONDS = 0.01
# one-time costs of a process's first solve: numba's start-up (even when every kernel loads
# from the cache: importing numba 0.35-0.5 s, the scipy.linalg import its BLAS check makes
# 0.3 s, its registries 0.4 s; 1.2-1.25 s on a quiet 2-core machine, session 10) and importing
# SciPy (its assignment routine is loaded without the rest of scipy.optimize, which would cost
# 0.3-0.7 s more)
NUMBA_START_SECONDS = 1.25
# the start-up measured on the machine (numba_start_seconds) is planned for at this much more
START_UP_MARGIN = 1.5
SCIPY_START_SECONDS = 0.1
SPARSE_START_SECONDS = 0.4  # scipy.sparse, for association graphs and programs
# how much of them a first call may spend beyond its time limit (the documented tolerance of
# a limit is max(0.5 s, 10%)): without it, a 1 s limit on a fresh process would rule out even
# a 30-node assignment
START_UP_TOLERANCE = 0.4
_TARGET_SECONDS = 0.005  # read the clock every few ms: often enough, and cheap
_OPS_PER_FIRST_CHUNK = 2e6  # about a millisecond of simple operations


def expansion_ops(n1: int, n2: int, m1: int, m2: int, counting: bool, branch: bool) -> float:
    """Simple operations one expansion of the exact tree search costs, roughly, on graphs of
    ``n1 <= n2`` nodes and ``m1``, ``m2`` edges: a bound per child (a count under
    label-equality costs, else a matching of the labels left), and with the branch bound one
    assignment on g2's unused nodes. (Plain Python: the per-pair driver calls it before any
    kernel is loaded, and the batch kernel compiles it, :mod:`gedkit._kernels.batch`.)

    The assignment fills a square matrix of g2's unused nodes and solves it from the rows
    that are g1's, each augmentation a pass over it: about n2² (n1 + 5). (It was n2³, which
    for a 7-node molecule against a 2,000-node graph said 27 s an expansion where one takes
    ~0.1 s, so that any limit under 27 s gave up the search at once.)

    >>> expansion_ops(7, 2000, 6, 6000, True, True) < 3e8 < expansion_ops(2000, 2000, 6000,
    ...                                                                   6000, True, True)
    True
    """
    size = max(max(n1, n2), max(m1, m2)) + 1
    ops = (n2 + 1) * (10 * n1 + n2 + m1 + m2)
    if not counting:
        ops += (n2 + 1) * size ** 3
    if branch:
        ops += n2 * n2 * (n1 + 5)
    return float(ops)


def set_up_ops(n1: int, n2: int) -> float:
    """Simple operations, in :func:`expansion_ops`' units, that setting up one pair's search
    in the batch kernel costs before its first expansion (cost and adjacency matrices,
    neighbour lists, the node order, twin classes, a few dozen small arrays): about three
    expansions of a 12-node pair, and a pace learnt from calls counting expansions alone was
    ~1000x too slow after calls whose pairs were decided at their root (a search at τ = 0),
    so that the next search's candidates gave up after a tenth of their share.

    >>> set_up_ops(12, 12) > expansion_ops(12, 12, 13, 13, True, False)
    True
    """
    return float(5000 + 8 * (n1 + 1) * (n2 + 1))


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


def affordable(seconds: float, budget) -> bool:
    """Whether work estimated at ``seconds`` fits what ``budget`` has left (or is negligible).

    >>> from gedkit.budget import Budget
    >>> affordable(0.001, Budget(timeout=1e-9)), affordable(2.0, Budget(timeout=1.0))
    (True, False)
    """
    # (stretched by how crowded the machine is: its work runs that much slower than planned)
    slowdown = budget.slowdown() if hasattr(budget, "slowdown") else 1.0
    return seconds * slowdown < max(budget.remaining(), NEGLIGIBLE_SECONDS)


def numba_start_seconds() -> float:
    """What numba's start-up costs a process here: as ``gedkit warmup`` measured it on this
    machine (:func:`gedkit._kernels.warm.recorded_start_up`), with a margin of
    :data:`START_UP_MARGIN`, at most :data:`NUMBA_START_SECONDS`; that constant without a
    measure. (The constant alone, against the ~0.5 s numba takes on a quiet 2-core VM, made a
    fresh process's first exact solve at a 1 s limit give up in about half the runs.)"""
    from gedkit._kernels import warm

    measured = warm.recorded_start_up()
    if measured is None:
        return NUMBA_START_SECONDS
    return min(NUMBA_START_SECONDS, START_UP_MARGIN * measured + 0.1)


def start_up_seconds(kernels: bool = False, scipy: bool = False,
                     sparse: bool = False) -> float:
    """What work that runs compiled ``kernels``, SciPy's assignment and/or its ``sparse``
    matrices must pay on top of its own cost in this process: the one-time start-ups not paid
    yet, less the :data:`START_UP_TOLERANCE` a first call may overrun by."""
    import sys

    from gedkit._kernels import warm

    seconds = 0.0
    if kernels and not warm.started():
        seconds += numba_start_seconds()
    if scipy and "scipy" not in sys.modules:
        seconds += SCIPY_START_SECONDS
    if sparse and "scipy.sparse" not in sys.modules:
        seconds += SPARSE_START_SECONDS
    return max(0.0, seconds - START_UP_TOLERANCE) if seconds else 0.0


#: at most this long for a process's start-up solve (see :func:`pay_start_ups`)
PREPARE_SECONDS = 5.0
_PAID: set[tuple[str, str]] = set()  # the methods whose start-ups this process has paid


def pay_start_ups(method: Any, timeout: float | None, solve: Callable[[float], Any],
                  memory: int | None = None) -> None:
    """Pay this process's start-ups for ``method`` (imports, numba loading its kernels) once,
    by ``solve(limit)`` before the time limits of the pairs that follow: a short limit per
    pair never affords them, so every pair of a batch (a pairwise job's, a search's) got the
    cheap bounds. ``limit`` is the start-up and one pair's ``timeout``, at most
    :data:`PREPARE_SECONDS` (large graphs' solve took the whole 5 s before the first pair of
    a job with 0.5 s a pair). Nothing without a time limit; a solve that fails here fails
    again, and is reported, where it belongs. Numba is started only where its start fits
    ``memory`` (each pair's cap: a square matrix under ``memory=160M`` peaked at 291 MB,
    the same pair alone at 136)."""
    key = (type(method).__module__, method.name)  # (GED's and MCES's methods share names)
    if timeout is None or key in _PAID:
        return
    _PAID.add(key)
    with contextlib.suppress(Exception):
        solve(min(PREPARE_SECONDS, timeout + numba_start_seconds()))
    from gedkit._kernels import warm

    # a small pair is solved in plain Python (gedkit.solvers.small_search) without starting
    # the kernels: their start is paid here all the same, or no later pair's limit affords
    # it (a pairwise job's first solve, on its two smallest graphs, left 16 of 78 pairs of
    # AIDS molecules with the cheap bounds at 1 s each)
    from gedkit.budget import Budget, kernels_fit

    if kernels_fit(Budget(memory=memory)):
        with contextlib.suppress(Exception):
            warm.start()


def pay_kernel_start_ups(method: Any, timeout: float | None,
                         solve: Callable[[float], Any], memory: int | None = None) -> None:
    """:func:`pay_start_ups` where the compiled kernels have not started in this process (a
    search's first pair solved one by one: on a busy machine no pair's limit afforded them,
    so none started them and every pair got the cheap bounds, "the search's start-up does
    not fit")."""
    if start_up_seconds(kernels=True):
        pay_start_ups(method, timeout, solve, memory)
