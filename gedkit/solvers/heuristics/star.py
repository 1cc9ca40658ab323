"""The star bound (Zeng et al., VLDB 2009) and the node map of its assignment.

The star of a node is its label and the multiset of its incident edges, each seen as (edge
label, neighbour label). Under unit costs one edit operation changes the stars of at most
max(4, δ+1) nodes by one unit each (δ = the largest degree), so the cheapest assignment of
stars, divided by that, bounds the distance from below. For other costs, every operation that
unit costs count costs at least the cheapest non-free operation of the pair, so the bound
scales by that amount (GEDLIB does the same) and stays valid, if weaker, for any cost model.
"""

from __future__ import annotations

import time

import numpy as np

from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.cheap import cheap_bounds
from gedkit.solvers.heuristics.assignment import NO_ASSIGNMENT, lsape, lsape_fits
from gedkit.solvers.heuristics.lsape import assignment_fits, neighbours, round_up
from gedkit.solvers.registry import register

__all__ = ["Star", "cheapest_operation", "star_assignment"]


def cheapest_operation(problem: Problem) -> float:
    """The least cost of any operation that changes something: a deletion, an insertion, or a
    substitution between different labels (node or edge)."""
    values = []
    for mat in (problem.node_label_matrix, problem.edge_label_matrix):
        k = mat.shape[0] - 1
        if k:
            values += [mat[:k, k].min(), mat[k, :k].min()]
            off = mat[:k, :k][~np.eye(k, dtype=bool)]
            if off.size:
                values.append(off.min())
    return float(min(values, default=0.0))


#: bytes STAR's assignment takes per entry of an (n1 + 1) x (n2 + 1) matrix (its star costs
#: and the assignment's copies): measured ~46 at 2,000 nodes (184 MB)
BYTES_PER_ENTRY = 48


def star_fits(problem: Problem, budget: Budget) -> bool:
    """Whether :func:`star_assignment` fits the time and memory ``budget`` has left."""
    return lsape_fits(problem.n1, problem.n2, budget, kernels=True,
                      bytes_per_entry=BYTES_PER_ENTRY)


def star_assignment(problem: Problem) -> tuple[np.ndarray, float]:
    """(node map of the star assignment, star lower bound)."""
    from gedkit._kernels.lsape_costs import star_costs

    nb = neighbours(problem)
    nl1, nl2 = problem.node_labels1, problem.node_labels2
    n_node_labels = int(max(nl1.max(initial=-1), nl2.max(initial=-1))) + 1
    # one code per (edge label, neighbour label), made dense
    codes = np.concatenate([nb.lab1 * n_node_labels + nl1[nb.nbr1],
                            nb.lab2 * n_node_labels + nl2[nb.nbr2]])
    distinct, dense = np.unique(codes, return_inverse=True)
    leaf1, leaf2 = dense[: len(nb.lab1)], dense[len(nb.lab1):]
    stars = star_costs(nl1, nb.ptr1, leaf1, nl2, nb.ptr2, leaf2, len(distinct))
    forward, value = lsape(stars)
    degree = max(np.diff(nb.ptr1).max(initial=0), np.diff(nb.ptr2).max(initial=0))
    lower = value * cheapest_operation(problem) / max(4, degree + 1)
    return forward, round_up(problem, lower)


@register
class Star(Solver):
    name = "star"
    summary = "star bound (Zeng et al.): assignment of node stars, scaled; and its node map"
    pairs_for_arcs = True
    kernels = ("assignment",)

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        # the star costs are counted like BRANCH's edge costs, then one assignment
        if not (assignment_fits(problem, budget) and star_fits(problem, budget)):
            result = cheap_bounds(problem, budget, self.name)
            result.stats["stopped"] = NO_ASSIGNMENT
            return result
        forward, lower = star_assignment(problem)
        return Result.from_assignment(
            problem, forward, lower, self.name, time=time.perf_counter() - t0
        )
