"""What the improvement heuristics share: a starting node map, the BRANCH lower bound, and
checks of their options."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gedkit.budget import Budget
from gedkit.problem import Problem
from gedkit.solvers.cheap import cheap_bounds
from gedkit.solvers.heuristics.assignment import NO_ASSIGNMENT, lsape_fits
from gedkit.solvers.heuristics.lsape import (
    Neighbours,
    assignment_fits,
    bipartite_assignment,
    branch_assignment,
    branch_known,
    classes_fit,
    classes_of,
    edge_costs,
    neighbours,
    node_assignment,
)
from gedkit.solvers.heuristics.star import star_assignment, star_fits

__all__ = ["INITS", "Start", "start"]

#: node maps an improvement heuristic may start from
INITS = ("bipartite", "branch", "node", "star")


class Start(NamedTuple):
    """A starting node map, a lower bound, and the neighbour lists both were built from
    (None when the budget paid for no assignment: then no improvement step fits either)."""

    forward: np.ndarray
    lower_bound: float
    neighbours: Neighbours | None

    @property
    def stopped(self) -> str | None:
        """Why a heuristic that improves this map answers the cheap bounds: none of its
        steps fits (it answered them as if it had finished: no word, no stop)."""
        return None if self.neighbours is not None else NO_ASSIGNMENT


def start(problem: Problem, init: str = "bipartite", budget: Budget | None = None) -> Start:
    """The ``init`` method's node map and the BRANCH lower bound (one edge matrix for both).

    ``star``: STAR's map and its own lower bound instead (one assignment, no BRANCH: its bound
    is weaker, but on 100-2,000 nodes IPFP from its map went lower than from BRANCH's or the
    bipartite one, benchmarks/RESULTS.md "Session 8").

    Within ``budget``: when the second assignment would not fit, the BRANCH map is the start;
    when not even BRANCH's (or STAR's) fits, the cheap bounds of :mod:`gedkit.solvers.cheap`
    are.
    """
    budget = budget or Budget()
    # a large pair's BRANCH and bipartite assignments over its branch classes, without the
    # matrix of edge costs (1,500 nodes: 0.26 s for the matrix, 0.15 s for BRANCH's assignment
    # over nodes, so that at 1 s IPFP started from BRANCH's map, 6,037, where the bipartite
    # method's over classes costs 5,383)
    classes = classes_of(problem) if init != "star" else None
    by_classes = classes is not None and classes_fit(classes, budget, count=2)
    if not by_classes and not assignment_fits(problem, budget):
        # not even the neighbour lists: building them is a kernel call that pays numba's
        # start-up (a second in a fresh process)
        cheap = cheap_bounds(problem, budget, "start")
        return Start(cheap.assignment, cheap.lower_bound, None)
    nb = neighbours(problem)
    if init == "star":
        # its own assignment's room (BRANCH's computed already made assignment_fits say yes
        # whatever the memory left: under memory=256M auto's STAR start grew a 2,000-node
        # pair's call by 311 MB); where it has none, BRANCH's map where computed, else the
        # cheap bounds
        if star_fits(problem, budget):
            forward, lower = star_assignment(problem)
            return Start(forward, lower, nb)
        if branch_known(problem):
            forward, lower = branch_assignment(problem)
            return Start(forward, lower, nb)
        cheap = cheap_bounds(problem, budget, "start")
        return Start(cheap.assignment, cheap.lower_bound, None)
    # (over classes where they apply, else over nodes from the edge costs)
    edges = None if by_classes else edge_costs(problem, nb)
    branch_map, lower = branch_assignment(problem, edges)
    if init == "branch" or not (by_classes or lsape_fits(problem.n1, problem.n2, budget)):
        forward = branch_map
    elif init == "bipartite":
        forward = bipartite_assignment(problem, edges)[0]
    else:
        forward = node_assignment(problem)[0]
    return Start(forward, lower, nb)
