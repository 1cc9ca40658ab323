"""REFINE: local search on a node map by exchanging targets (Zeng et al., 2009; GEDLIB's
REFINE), with moves that also delete a node or take a node of g2 the map inserts.

Starts from an LSAPE map (bipartite by default) and applies improving moves until none is
left or the time is up, so it never returns a worse map than its start. The lower bound is
BRANCH's.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np

from gedkit.configurable import Option, choice
from gedkit.numeric import TOL
from gedkit.pacing import first_chunk, next_chunk
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.lsape import Neighbours
from gedkit.solvers.heuristics.start import INITS, start
from gedkit.solvers.registry import register

__all__ = ["Refine", "local_search", "tolerance"]


def tolerance(problem: Problem) -> float:
    """Cost changes smaller than this are rounding, not improvement."""
    scale = max(1.0, float(np.abs(problem.node_costs).max(initial=0.0)),
                float(np.abs(problem.edge_label_matrix).max(initial=0.0)))
    return TOL * scale


def local_search(problem: Problem, forward: np.ndarray, nb: Neighbours,
                 budget: Budget) -> tuple[np.ndarray, int]:
    """REFINE's improving moves applied to a copy of ``forward`` until none is left or the
    budget runs out: the map reached and the passes made. ``nb``: the problem's neighbour
    lists (:func:`gedkit.solvers.heuristics.lsape.neighbours`). A pass over large graphs
    runs in slices of rows sized to the clock, so a time limit holds within a pass too."""
    from gedkit._kernels.local_search import refine_pass

    f = forward.copy()
    inv = problem.inverse(f)
    tol = tolerance(problem)
    n1 = problem.n1
    degree = 2 * (problem.g1.m + problem.g2.m) / max(1, n1 + problem.n2) + 1
    rows = first_chunk((n1 + problem.n2 + 1) * 8 * degree)
    passes = 0
    while not budget.expired():
        passes += 1
        gain, i = 0.0, 0
        while i < n1 and not budget.expired():
            tick = time.perf_counter()
            gain += refine_pass(f, inv, tol, i, min(n1, i + rows), problem.node_costs,
                                problem.adj1, problem.adj2, problem.edge_label_matrix, *nb)
            i += rows
            rows = next_chunk(rows, time.perf_counter() - tick, budget.remaining())
        if gain >= -tol or i < n1:
            break
    return f, passes


@register
class Refine(Solver):
    name = "refine"
    summary = "local search with swaps and delete/insert moves from an LSAPE map; BRANCH bound"
    pairs_for_arcs = True
    kernels = ("assignment", "local_search")
    options: ClassVar[dict[str, Option]] = {
        "init": Option("bipartite", "the starting map: " + ", ".join(INITS), choice(*INITS)),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        s = start(problem, self.config["init"], budget)
        f, passes = (s.forward, 0) if s.neighbours is None else local_search(
            problem, s.forward, s.neighbours, budget)
        stats: dict = {"passes": passes}
        if s.stopped is not None:
            stats["stopped"] = s.stopped
        return Result.from_assignment(
            problem, f, s.lower_bound, self.name, time=time.perf_counter() - t0,
            stats=stats,
        )
