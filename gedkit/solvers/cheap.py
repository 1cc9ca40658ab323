"""Bounds that need no compiled kernel and little time at any size.

What a solver answers while its kernels compile (see :mod:`gedkit._kernels.warm`), and what a
solver whose first real step cannot fit the budget (an assignment on 2 × 2,000 nodes under a
short time limit, say) falls back on:

- lower bound: under label-equality costs the label-set bound (nodes and edges, by counting);
  under other costs the value of the ``node`` assignment when it fits the budget, else the
  larger of the row and column minima of the node costs (every node of g1 is substituted or
  deleted, every node of g2 substituted or inserted, and edge costs are never negative);
- upper bound: the cost of the ``node`` assignment's map when it fits the budget, else of a
  greedy map (equal labels first, then cheapest substitutions).
"""

from __future__ import annotations

import numpy as np

from gedkit.budget import Budget
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.heuristics.assignment import lsape_fits

__all__ = ["cheap_bounds", "greedy_map", "labelset_bound"]


def labelset_bound(problem: Problem) -> float:
    """The label-set lower bound under label-equality costs (``problem.constant_costs``).

    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C"}))
    >>> labelset_bound(p)   # one node and one edge too many
    2.0
    """
    ins, dele, sub, eins, edel, esub = problem.constant_costs
    return (_multiset_cost(problem.node_labels1, problem.node_labels2, ins, dele, sub)
            + _multiset_cost(problem.edge_labels1, problem.edge_labels2, eins, edel, esub))


def _multiset_cost(a: np.ndarray, b: np.ndarray, ins: float, dele: float, sub: float) -> float:
    k = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
    common = int(np.minimum(np.bincount(a, minlength=k), np.bincount(b, minlength=k)).sum())
    low = min(len(a), len(b))
    return float((low - common) * min(sub, ins + dele) + (len(a) - low) * dele
                 + (len(b) - low) * ins)


def greedy_map(problem: Problem) -> np.ndarray:
    """A node map built in one pass: each node of g1 takes an unused node of g2 with its
    label, else the cheapest unused node of g2 if substituting costs less than deleting and
    inserting, else deletion."""
    n1, n2 = problem.n1, problem.n2
    costs = problem.node_costs
    forward = np.full(n1, -1, dtype=np.int64)
    free: dict[int, list[int]] = {}
    for j in range(n2 - 1, -1, -1):
        free.setdefault(int(problem.node_labels2[j]), []).append(j)
    used = np.zeros(n2, dtype=bool)
    for i in range(n1):
        same = free.get(int(problem.node_labels1[i]))
        while same and used[same[-1]]:
            same.pop()
        if same and costs[i, same[-1]] <= costs[i, n2] + costs[n1, same[-1]]:
            forward[i] = same.pop()
            used[forward[i]] = True
    for i in np.flatnonzero(forward < 0):
        gain = np.where(used, np.inf, costs[i, :n2] - costs[i, n2] - costs[n1, :n2])
        j = int(np.argmin(gain)) if n2 else -1
        if j >= 0 and gain[j] < 0:
            forward[i] = j
            used[j] = True
    return forward


def cheap_bounds(problem: Problem, budget: Budget, method: str) -> Result:
    """Bounds and a map from the cheapest means that fit ``budget`` (module docstring)."""
    from gedkit.solvers.heuristics.assignment import lsape
    from gedkit.solvers.heuristics.lsape import round_up

    forward = greedy_map(problem)
    lower = 0.0
    if problem.constant_costs is not None:
        lower = labelset_bound(problem)
    elif problem.n1 and problem.n2:
        c = problem.node_costs
        lower = float(max(c[:-1].min(axis=1).sum(), c[:, :-1].min(axis=0).sum()))
    if lsape_fits(problem.n1, problem.n2, budget):
        assigned, value = lsape(problem.node_costs)
        lower = max(lower, value)
        if problem.cost(assigned) < problem.cost(forward):
            forward = assigned
    return Result.from_assignment(problem, forward, round_up(problem, lower), method,
                                  stats={"fallback": "cheap bounds"})
