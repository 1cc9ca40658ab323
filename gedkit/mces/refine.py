"""Local search on a node map: move one node, or swap two, while that keeps more edges.

Graduated assignment ends in a map that a few single moves often improve (nodes left
unmapped next to mapped neighbours, symmetric parts decoded inconsistently). Two moves are
tried, first improvement taken, until none helps:

- *move*: map node ``i`` of g1 onto an unused node of g2 with its label (or onto nothing);
- *swap*: exchange the images of two nodes of g1 with the same label.

Every move keeps the map valid, and the count only rises, so the result is never worse than
the input.

:func:`kick` goes further (an iterated local search): it repeatedly unmaps a small ball of
nodes, re-maps them greedily in random order (each onto the free node of g2 that keeps the most
edges, ties broken at random) and runs the local search again. The ball lies in g1 (the nodes
within a random radius of a mapped node) or, as often, in g2 (the nodes of g1 whose images lie
within that radius of a mapped node's image: this frees a region of g2 for other nodes). The
new map replaces the current one when it keeps at least as many edges (so plateaus are crossed)
or, now and then, one edge fewer (so the search leaves a local optimum it would otherwise
circle). The best map seen is returned: never worse than the input either. The search stops
when ``patience`` kicks in a row found nothing better, at a known upper bound, or at the
budget.
"""

from __future__ import annotations

import time

import numpy as np

from gedkit._kernels import warm
from gedkit.budget import Budget
from gedkit.mces.problem import MCESProblem
from gedkit.pacing import (
    OPS_PER_SECOND,
    affordable,
    first_chunk,
    next_chunk,
    start_up_seconds,
)

__all__ = ["kick", "refine", "sweep_seconds"]

_KICK_CHUNK = 100  # kicks between two looks at the clock
_G2_BALLS = 0.5  # share of balls drawn in g2
_DOWNHILL = 0.05  # chance to accept a kick that loses one edge
_MIN_SHARE_OF_SWEEP = 0.05  # a cut sweep visits at least this share of g1's nodes
_PROBE_PARTS = 16  # an unpriced problem's first call visits this share of a sweep


def sweep_seconds(problem: MCESProblem) -> float:
    """What one sweep of the local search may take: the slowest sweep measured on this
    problem so far, else an estimate (every node of g1 tries the nodes of g2, each try priced
    over the node's edges)."""
    measured = getattr(problem, "_sweep_seconds", None)
    if measured is not None:
        return measured
    degree = 2 * problem.g1.m / max(problem.n1, 1) + 1
    return problem.n1 * problem.n2 * degree / OPS_PER_SECOND


def refine(problem: MCESProblem, forward: np.ndarray, max_sweeps: int = 50,
           budget: Budget | None = None) -> np.ndarray:
    """A locally optimal map reached from ``forward`` (which is left unchanged) in at most
    ``max_sweeps`` sweeps over g1's nodes, or the best reached when ``budget`` runs out: the
    last sweep is cut to the nodes the time left pays for (a sweep of a 2,000-node pair takes
    0.3-0.6 s, a good part of a short time limit).

    >>> from gedkit import Graph
    >>> path = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    >>> p = MCESProblem(path, path)
    >>> better = refine(p, np.array([0, -1, -1]))
    >>> p.count(better)
    2
    """
    from gedkit._kernels.mces_local_search import local_search

    f = np.array(problem.check_map(forward), dtype=np.int64)
    n1 = problem.n1
    least = _MIN_SHARE_OF_SWEEP * sweep_seconds(problem) + start_up_seconds(kernels=True)
    if n1 == 0 or (budget is not None and not affordable(least, budget)):
        return f
    ptr, nbr, lab = problem.neighbours1
    args = (problem.node_labels1, problem.node_labels2, ptr, nbr, lab, problem.adj2)
    if budget is None:
        local_search(f, *args, 0, 0, max_sweeps * n1)
        return f
    at, stale, left = 0, 0, max_sweeps * n1
    probe = max(1, n1 // _PROBE_PARTS)  # nodes of the first call, before the pace is known
    while stale < n1 and left > 0:
        # a whole sweep at a time while one fits, then the nodes the time left pays for
        per_node = sweep_seconds(problem) / n1
        paid = budget.remaining() - start_up_seconds(kernels=True)
        visits = int(min(n1, left, max(0.0, paid / max(per_node, 1e-12))))  # paid may be inf
        if visits < n1 * _MIN_SHARE_OF_SWEEP or budget.expired():
            break
        started, tick = warm.started(), time.perf_counter()
        if started and getattr(problem, "_sweep_seconds", None) is None:
            # the estimate reads no cache misses: on dense 2,000-node graphs (100k edges) a
            # sweep it priced under the limit took 3.5 s of 2; a part of one prices it first
            visits = min(visits, probe)
        at, stale = local_search(f, *args, at, stale, visits)
        left -= visits
        if started and visits >= probe:
            # a call that did not pay numba's start-up prices the next sweeps
            problem._sweep_seconds = max((time.perf_counter() - tick) * n1 / visits,
                                         getattr(problem, "_sweep_seconds", 0.0))
    return f


def kick(problem: MCESProblem, forward: np.ndarray, patience: int, seed: int = 0,
         radius: int = 3, budget: Budget | None = None,
         ceiling: int | None = None) -> np.ndarray:
    """The best map of an iterated local search from ``forward`` (left unchanged) that stops
    after ``patience`` kicks in a row without a better map, as soon as a map keeps ``ceiling``
    edges (a proven upper bound), or when ``budget`` runs out (the clock is read every hundred
    kicks). Balls have a random radius from 1 to ``radius``.

    >>> from gedkit import Graph
    >>> cycle = Graph({k: "C" for k in range(6)}, [(k, (k + 1) % 6) for k in range(6)])
    >>> p = MCESProblem(cycle, cycle)
    >>> p.count(kick(p, np.array([0, 1, 2, 4, 3, 5]), patience=50))
    6
    """
    from gedkit._kernels.mces_local_search import iterated_search

    budget = budget or Budget()
    best = refine(problem, forward, budget=budget)
    # estimated, then measured; checked before the neighbour lists are built, since building
    # them is itself a kernel call that pays numba's start-up
    per_kick = 3 * sweep_seconds(problem) + start_up_seconds(kernels=True)
    if not affordable(per_kick, budget):
        return best
    current = best.copy()
    ptr1, nbr1, lab1 = problem.neighbours1
    ptr2, nbr2, _ = problem.neighbours2
    top = np.iinfo(np.int64).max if ceiling is None else ceiling
    stale, done = 0, 0
    # a kick ends in a local search of a few sweeps; the number of kicks per call grows
    # while calls are quick, so the clock is read often on large graphs and rarely on small
    kicks_per_call = max(1, min(_KICK_CHUNK, first_chunk(3 * sweep_seconds(problem)
                                                         * OPS_PER_SECOND)))
    while stale < patience and affordable(per_kick, budget):
        kicks = min(kicks_per_call, patience - stale)
        tick = time.perf_counter()
        since = iterated_search(best, current, problem.node_labels1, problem.node_labels2,
                                ptr1, nbr1, lab1, ptr2, nbr2, problem.adj2, kicks, radius,
                                _G2_BALLS, _DOWNHILL, top, seed * 1_000_003 + done)
        if since < 0:  # reached the ceiling
            break
        stale = since if since < kicks else stale + kicks
        done += kicks
        if budget.expired():
            break
        spent = time.perf_counter() - tick
        per_kick = spent / kicks
        # as many kicks as the time left pays for, growing while calls are quick
        kicks_per_call = min(_KICK_CHUNK, next_chunk(kicks_per_call, spent, budget.remaining()))
        if budget.timeout is not None:
            kicks_per_call = min(kicks_per_call,
                                 max(1, int(budget.remaining() / max(per_kick, 1e-9))))
    return best
