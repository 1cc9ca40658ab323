"""What the improvement heuristics share: a starting node map, the BRANCH lower bound, and
checks of their options."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gedkit.problem import Problem
from gedkit.solvers.heuristics.lsape import (
    Neighbours,
    bipartite_assignment,
    branch_assignment,
    edge_costs,
    neighbours,
    node_assignment,
)

__all__ = ["INITS", "Start", "start"]

#: node maps an improvement heuristic may start from
INITS = ("bipartite", "branch", "node")


class Start(NamedTuple):
    """A starting node map, a lower bound, and the neighbour lists both were built from."""

    forward: np.ndarray
    lower_bound: float
    neighbours: Neighbours


def start(problem: Problem, init: str = "bipartite") -> Start:
    """The ``init`` method's node map and the BRANCH lower bound (one edge matrix for both)."""
    nb = neighbours(problem)
    edges = edge_costs(problem, nb)
    branch_map, lower = branch_assignment(problem, edges)
    if init == "branch":
        forward = branch_map
    elif init == "bipartite":
        forward = bipartite_assignment(problem, edges)[0]
    else:
        forward = node_assignment(problem)[0]
    return Start(forward, lower, nb)
