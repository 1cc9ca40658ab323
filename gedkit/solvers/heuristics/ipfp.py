"""IPFP: Frank–Wolfe on the quadratic formulation of GED (Leordeanu et al., 2009; for GED,
Bougleux et al., 2017), from several starting maps.

The cost of a node map is linear in the node assignment plus a quadratic form for the edges
(:mod:`gedkit._kernels.quadratic`). From an assignment X, each step solves one LSAPE on the
gradient, whose solution B is a node map (a candidate upper bound) and a descent direction;
the exact minimiser of the quadratic on the segment [X, B] is the next X. At a fixed point the
fractional X is rounded to the nearest node map. The best map met wins; the lower bound is
BRANCH's.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np

from gedkit.configurable import Option, choice, number
from gedkit.pacing import affordable
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.assignment import lsape_fits, lsape_map, lsape_seconds
from gedkit.solvers.heuristics.lsape import Neighbours
from gedkit.solvers.heuristics.start import INITS, start
from gedkit.solvers.registry import register

__all__ = ["IPFP", "assignment_matrix", "frank_wolfe"]

# stop when a step gains less than this fraction of the current value
_GAP = 1e-3


def assignment_matrix(problem: Problem, forward: np.ndarray) -> np.ndarray:
    """The ``(n1+1) × (n2+1)`` 0/1 matrix of a node map."""
    n1, n2 = problem.n1, problem.n2
    x = np.zeros((n1 + 1, n2 + 1))
    x[np.arange(n1), np.where(forward >= 0, forward, n2)] = 1.0
    x[n1, :n2] = 1.0 - x[:n1, :n2].sum(axis=0)
    return x


def frank_wolfe(
    problem: Problem, forward: np.ndarray, nb: Neighbours, budget: Budget, max_iter: int
) -> tuple[np.ndarray, float, int]:
    """Run IPFP from ``forward``; return (best map met, its cost, iterations)."""
    from gedkit._kernels.quadratic import quadratic_product

    def product(x):
        return quadratic_product(x, problem.edge_label_matrix, *nb)

    best, best_cost = forward, problem.cost(forward)
    # a step is one assignment and two products; none is started that the budget cannot
    # pay for (the first is estimated, later ones take the last step's time)
    step = lsape_seconds(problem.n1, problem.n2)
    if not affordable(step, budget):
        return best, best_cost, 0
    linear = problem.node_costs.copy()
    linear[-1, -1] = 0.0
    x = assignment_matrix(problem, forward)
    qx = product(x)
    it = 0
    while it < max_iter and affordable(step, budget) and lsape_fits(problem.n1, problem.n2, budget):
        tick = time.perf_counter()
        it += 1
        grad = linear + qx
        b = lsape_map(grad)
        cost = problem.cost(b)
        if cost < best_cost:
            best, best_cost = b, cost
        xb = assignment_matrix(problem, b)
        d = xb - x
        slope = float((grad * d).sum())
        value = float((linear * x).sum() + 0.5 * (qx * x).sum())
        if slope >= -_GAP * max(1.0, value):
            break
        qd = product(xb) - qx
        curvature = 0.5 * float((d * qd).sum())
        move = 1.0 if curvature <= 0 else min(1.0, -slope / (2 * curvature))
        x += move * d
        qx += move * qd
        if -(slope + curvature * move) * move <= _GAP * max(1.0, value):
            break  # the step gained (almost) nothing: a fixed point up to rounding
        step = time.perf_counter() - tick
    if it and lsape_fits(problem.n1, problem.n2, budget):
        rounded = lsape_map(-x)
        cost = problem.cost(rounded)
        if cost < best_cost:
            best, best_cost = rounded, cost
    return best, best_cost, it


def _random_map(rng: np.random.Generator, n1: int, n2: int) -> np.ndarray:
    """A uniformly random injective node map (nodes of g1 beyond g2's count deleted)."""
    targets = rng.permutation(max(n1, n2))[:n1].astype(np.int64)
    targets[targets >= n2] = -1
    return targets


@register
class IPFP(Solver):
    name = "ipfp"
    summary = "IPFP: Frank-Wolfe on the quadratic GED formulation, multi-start; BRANCH bound"
    kernels = ("assignment", "ipfp")
    options: ClassVar[dict[str, Option]] = {
        "starts": Option(1, "starting maps: init's, then random ones while time is left",
                         number(integer=True, minimum=1, strict=False)),
        "seed": Option(0, "seed of the random starting maps",
                       number(integer=True, strict=False)),
        "max_iter": Option(100, "Frank-Wolfe steps per start at most",
                           number(integer=True, minimum=1, strict=False)),
        "init": Option("bipartite", "the first starting map: " + ", ".join(INITS),
                       choice(*INITS)),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        s = start(problem, self.config["init"], budget)
        rng = np.random.default_rng(self.config["seed"])
        best, best_cost = s.forward, np.inf
        iterations = 0
        for k in range(self.config["starts"] if s.neighbours is not None else 0):
            if k and budget.expired():
                break
            # later starts: random node maps (not an assignment on random prices: on 1,000
            # nodes that one assignment takes a second, 25x its estimate)
            init = s.forward if k == 0 else _random_map(rng, problem.n1, problem.n2)
            forward, cost, its = frank_wolfe(problem, init, s.neighbours, budget,
                                             self.config["max_iter"])
            iterations += its
            if cost < best_cost:
                best, best_cost = forward, cost
        return Result.from_assignment(
            problem, best, s.lower_bound, self.name, time=time.perf_counter() - t0,
            stats={"iterations": iterations},
        )
