"""Improving given node maps: IPFP from each, then REFINE's local search on the best.

A solver that proposes maps by other means (the learned ``gelato``, say) ends with maps that
are good but rarely locally optimal; a few Frank–Wolfe steps (:func:`frank_wolfe`) and
improving exchanges (:func:`~gedkit.solvers.heuristics.refine.local_search`) fix most of what is
left at a fraction of the proposal's cost. Maps are polished in the order given, while the
budget lasts; the result is never worse than the best map given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget
from gedkit.solvers.heuristics.ipfp import IPFP, frank_wolfe
from gedkit.solvers.heuristics.lsape import neighbours
from gedkit.solvers.heuristics.refine import local_search

__all__ = ["polish", "polished"]

#: the kernel families polishing runs (IPFP's, then REFINE's)
KERNELS = ("assignment", "ipfp", "local_search")


def _kernels_usable(problem: Problem, budget: Budget) -> bool:
    """Whether polishing's compiled kernels may run within ``budget``: compiled, their
    start-up within its memory cap and its time (started here where it is not yet). A
    2,000-node pair under memory=150M, numba left unloaded by the search, loaded it to
    polish: 242 MiB."""
    from gedkit._kernels import warm
    from gedkit.budget import kernels_fit
    from gedkit.pacing import affordable, start_up_seconds

    if not kernels_fit(budget, problem) or not warm.all_ready(KERNELS):
        return False
    if not warm.started():
        if not affordable(start_up_seconds(kernels=True), budget):
            return False
        warm.start()
    return True


def polish(problem: Problem, forwards: Sequence[np.ndarray],
           budget: Budget | None = None) -> tuple[np.ndarray, float]:
    """The best map (and its cost) reached from ``forwards`` by IPFP, then REFINE.

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]),
    ...                             Graph({0: "O", 1: "C"}, [(0, 1)]))
    >>> p.cost(np.array([0, 1]))          # C->O and O->C: two relabellings
    2.0
    >>> polish(p, [np.array([0, 1])])[1]
    0.0
    """
    if not len(forwards):
        raise ValueError("polish needs at least one node map")
    budget = budget or Budget()
    nb = neighbours(problem)
    best = np.asarray(forwards[0], dtype=np.int64)
    best_cost = problem.cost(best)
    for k, forward in enumerate(forwards):
        if k and budget.expired():
            break
        # IPFP returns the best map it met, its start included: never worse than the start
        improved, cost, _ = frank_wolfe(problem, np.asarray(forward, dtype=np.int64), nb,
                                        budget, IPFP.options["max_iter"].default)
        if cost < best_cost:
            best, best_cost = improved, cost
    refined, _ = local_search(problem, best, nb, budget)
    cost = problem.cost(refined)
    return (refined, cost) if cost < best_cost else (best, best_cost)


def polished(result: Result, budget: Budget) -> Result:
    """``result`` with its map polished (:func:`polish`) within ``budget``, where that is
    cheaper and the compiled kernels it runs fit the budget (as a method's solve is held
    to, :func:`gedkit.budget.solve_within`); its lower bound kept, ``stats["polished"]``
    set.

    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]),
    ...                             Graph({0: "O", 1: "C"}, [(0, 1)]))
    >>> polished(Result.from_assignment(p, np.array([0, 1]), 0.0, "x"), Budget()).distance
    0.0
    """
    if not _kernels_usable(result.problem, budget):
        return result
    forward, cost = polish(result.problem, [result.assignment], budget)
    if cost >= result.upper_bound:
        return result
    return Result.from_assignment(result.problem, forward, result.lower_bound, result.method,
                                  time=result.time + budget.elapsed(),
                                  stats={**result.stats, "polished": True})
