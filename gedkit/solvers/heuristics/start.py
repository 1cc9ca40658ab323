"""What the improvement heuristics share: a starting node map, the BRANCH lower bound, and
checks of their options."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from gedkit.errors import OptionError
from gedkit.problem import Problem
from gedkit.solvers.heuristics.lsape import (
    Neighbours,
    bipartite_assignment,
    branch_assignment,
    edge_costs,
    neighbours,
    node_assignment,
)

__all__ = ["INITS", "Start", "check_choice", "check_count", "start"]

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


def check_count(name: str, value: Any, minimum: int = 1) -> None:
    """An integer option of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise OptionError(f"{name} must be an integer >= {minimum}, got {value!r}")


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    """An option that takes one of a few names."""
    if value not in choices:
        raise OptionError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
