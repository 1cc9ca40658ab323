"""Exact GED as a binary linear program on HiGHS (``mip``), and its LP relaxation.

The model is formulation F2 of Lerouge et al., "New binary linear programming formulation to
compute the graph edit distance", Pattern Recognition 72 (2017), written for undirected graphs
and general costs, plus mirror rows that tighten it:

* ``x[i, k] = 1`` substitutes node ``i`` of g1 by node ``k`` of g2; at most one per row and
  per column. Deletions and insertions are what is left over, so the objective is the cost of
  deleting and inserting everything plus, per substitution, ``sub - del - ins``.
* ``y[e, a] = 1`` substitutes edge ``e = (i, j)`` of g1 by the *oriented* edge ``a = (k, l)`` of
  g2, which means ``i -> k`` and ``j -> l``. Every edge of g2 appears in both orientations, so
  both ways of laying one undirected edge on another are modelled.
* Linking rows, one per endpoint map ``u -> v``: the ``y`` of edge ``e`` that send ``u`` to ``v``
  sum to at most ``x[u, v]`` (F2's rows), and so do the ``y`` of each g2 edge that send ``u`` to
  ``v`` (their mirror image: valid for every node map, and it raises the LP bound a lot, e.g.
  from 8.3 to 13.5 on a 12-node pair of distance 14).

Directed graphs are the natural case of the same program: ``e`` and ``a`` are arcs, and each
arc of g2 appears in its one orientation only.

:class:`~gedkit.problem.Problem` caps an edge substitution at deletion + insertion, so no ``y``
has a positive objective coefficient; a ``y`` whose coefficient is zero cannot change the optimum
and is left out of the model.

The exact solver first solves the LP relaxation (interior point, fast on these degenerate LPs)
and rounds its ``x`` to a node map; when the map's cost (or a better map given by the caller)
meets the bound it stops there, else it hands the rounded map to HiGHS's branch and bound as
a starting incumbent. With ``relaxation=True`` it stops after the LP whatever the gap: the LP
optimum is the lower bound, the rounded map the upper bound.

"Optimal" means optimal to a relative gap of 1e-6, the tolerance HiGHS solves to; with integer
costs the bound is rounded up, so the distance is exact. HiGHS cannot be limited in memory, so
``budget.memory`` does not apply; the time limit does, and ``budget.threshold`` stops the search
as soon as the answer to "is the distance at most the threshold?" is known (with
``budget.decide`` False, as a search's verifications ask, only once it is known to be beyond).
"""

from __future__ import annotations

import math
import time
from typing import ClassVar

import numpy as np

from gedkit.configurable import Option, flag, number
from gedkit.problem import Problem
from gedkit.programs import GAP, MatchingProgram, assemble, program_fits, solve_program
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.assignment import lsape_map
from gedkit.solvers.heuristics.lsape import branch_bounds
from gedkit.solvers.registry import register

__all__ = ["MIP", "build_model", "integer_program", "model_nonzeros"]


def build_model(problem: Problem) -> MatchingProgram:
    """The GED program of ``problem`` (see the module docstring), built with array operations.

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> g1 = Graph({0: "C", 1: "O"}, [(0, 1)])
    >>> g2 = Graph({0: "C", 1: "N"}, [(0, 1)])
    >>> m = build_model(costs.uniform().compile(g1, g2))
    >>> m.offset    # delete 2 nodes and 1 edge, insert as many
    6.0
    >>> m.matrix.shape   # 4 assignment + 8 linking rows; 4 x + 2 y (two orientations)
    (12, 6)
    >>> m.objective(m.point(np.array([0, 1])))   # C -> C, O -> N relabelled, edge kept
    1.0
    """
    n1, n2 = problem.n1, problem.n2
    C, E = problem.node_costs, problem.edge_label_matrix
    K = E.shape[0] - 1
    lab1, lab2 = problem.edge_labels1, problem.edge_labels2
    e1 = problem.g1.edges.astype(np.int64).reshape(-1, 2)
    e2 = problem.g2.edges.astype(np.int64).reshape(-1, 2)
    m2 = len(e2)
    offset = float(C[:n1, n2].sum() + C[n1, :n2].sum() + E[lab1, K].sum() + E[K, lab2].sum())
    x_cost = (C[:n1, :n2] - C[:n1, n2:] - C[n1:, :n2]).ravel()

    # undirected: g2 edges in both orientations, arc a lies on edge a % m2; directed: the arcs
    arcs = e2 if problem.directed else np.concatenate([e2, e2[:, ::-1]])
    arc_lab = lab2 if problem.directed else np.concatenate([lab2, lab2])
    gain = E[lab1[:, None], arc_lab[None, :]] - E[lab1, K][:, None] - E[K, arc_lab][None, :]
    pe, pa = np.nonzero(gain < 0)
    y_ends = np.column_stack([e1[pe], arcs[pa]])

    # each y makes two endpoint maps u -> v: (start of e -> start of a), (end of e -> end of a)
    u = np.concatenate([e1[pe, 0], e1[pe, 1]])
    v = np.concatenate([arcs[pa, 0], arcs[pa, 1]])
    cost = np.concatenate([x_cost, gain[pe, pa]])
    return assemble(n1, n2, pe, pa % max(m2, 1), u, v, cost, offset, y_ends)


def model_nonzeros(problem: Problem) -> int:
    """An upper estimate of the nonzeros of :func:`build_model`'s matrix: two per ``x``,
    four per ``y`` and up to four linking entries per ``y``."""
    E = problem.edge_label_matrix
    K = E.shape[0] - 1
    gain = E[:K, :K] - E[:K, K:] - E[K:, :K] < 0  # label pairs whose y enter the model
    count1 = np.bincount(problem.edge_labels1, minlength=K)
    count2 = np.bincount(problem.edge_labels2, minlength=K)
    # both orientations of each edge of g2 (an arc has one)
    ny = (1 if problem.directed else 2) * int(count1 @ gain @ count2)
    return 2 * problem.n1 * problem.n2 + 8 * ny


@register
class MIP(Solver):
    name = "mip"
    summary = "exact binary linear program (Lerouge et al. F2, tightened) on HiGHS"
    exact = True
    directed = True
    options: ClassVar[dict[str, Option]] = {
        "relaxation": Option(False, "stop after the LP relaxation (its bound, its rounded map)",
                             flag()),
        "threads": Option(1, "HiGHS's threads", number(integer=True, minimum=1, strict=False)),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        return integer_program(problem, budget, relaxation=self.config["relaxation"],
                               threads=self.config["threads"])


def integer_program(problem: Problem, budget: Budget, *, relaxation: bool = False,
                    threads: int = 1, incumbent: np.ndarray | None = None,
                    method: str = "mip") -> Result:
    """The ``mip`` method (see the module docstring); ``incumbent``, a node map found
    elsewhere: the answer when nothing the program finds beats it, and what the relaxation's
    bound is checked against before any branching. The branch and bound still starts from
    the rounded relaxation: handed a better map found elsewhere (a depth-first dive's 56 on a
    32/48-atom pair), HiGHS's heuristics searched around it and found nothing better in 1.5 s,
    where from the relaxation they found 54 in 0.6 s (benchmarks/RESULTS.md, "Session 42")."""
    import highspy

    t0 = time.perf_counter()

    def finish(forward, lower, stats):
        # never worse than the cheap bounds the program started from, or the map it was given
        for other in (base.assignment, incumbent):
            if other is not None and problem.cost(other) < problem.cost(forward):
                forward = np.asarray(other, dtype=np.int64)
        result = Result.from_assignment(
            problem, forward, max(lower, base.lower_bound), method,
            time=time.perf_counter() - t0, stats=stats,
        )
        result.stats["gap"] = result.gap
        return result

    if problem.n1 == 0 or problem.n2 == 0:
        # one node map only: delete everything (or insert everything)
        forward = np.full(problem.n1, -1, dtype=np.int64)
        return Result.from_assignment(problem, forward, problem.cost(forward), method,
                                      time=time.perf_counter() - t0,
                                      stats={"status": "trivial", "gap": 0.0})
    base = branch_bounds(problem, budget, method)
    if not program_fits(model_nonzeros(problem), budget):
        base.stats["stopped"] = (f"time or memory limit: a program of about "
                                 f"{model_nonzeros(problem):,} nonzeros does not fit")
        return base if incumbent is None else finish(base.assignment, base.lower_bound,
                                                     base.stats)

    model = build_model(problem)
    h, values = solve_program(
        model, integer=False, time_limit=budget.remaining(), threads=threads
    )
    solved = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    # costs are non-negative, so 0 is the bound of last resort
    lower = max(0.0, h.getInfo().objective_function_value) if solved else 0.0
    start = model.rounded(values) if values is not None else lsape_map(problem.node_costs)
    forward = start
    if incumbent is not None and problem.cost(incumbent) < problem.cost(forward):
        forward = np.asarray(incumbent, dtype=np.int64)  # what the relaxation's bound meets
    stats = {
        "status": h.modelStatusToString(h.getModelStatus()),
        "lp_bound": lower,
        "rows": model.matrix.shape[0],
        "columns": model.matrix.shape[1],
        "nodes": 0,
    }
    if relaxation:
        return finish(forward, lower, stats)

    upper = problem.cost(forward)
    if solved:
        lower = integral_bound(problem, lower)
    if lower >= upper - GAP * max(1.0, upper):
        lower = upper  # closed within the tolerance HiGHS itself solves to
    if (
        lower >= upper
        or budget.expired()
        or budget.decided(lower, upper)
    ):
        return finish(forward, lower, stats)

    h, values = solve_program(
        model, integer=True, time_limit=budget.remaining(), threads=threads,
        start=start, target=budget.threshold if budget.decide else None,
    )
    info = h.getInfo()
    if values is not None:
        found = model.node_map(values)
        if problem.cost(found) <= problem.cost(forward):
            forward = found
        stats["objective"] = float(info.objective_function_value)
    stats["status"] = h.modelStatusToString(h.getModelStatus())
    if h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
        # (HiGHS stops a little before the budget's end: its expiry did not say it)
        stats["stopped"] = "time limit"
    stats["nodes"] = int(info.mip_node_count)
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        lower = problem.cost(forward)  # optimal to HiGHS's gap (gedkit.programs.GAP)
    else:
        # -inf until HiGHS has a bound; a fractional one rounds up where every map's cost is
        # an integer (a 2 s auto stage on 24-27-atom molecules stopped at 16.500000000000014)
        lower = integral_bound(problem, max(lower, float(info.mip_dual_bound)))
    return finish(forward, lower, stats)


def integral_bound(problem: Problem, lower: float) -> float:
    """``lower`` rounded up to an integer, within HiGHS's tolerance, when every node map of
    ``problem`` costs an integer; else unchanged.

    >>> from gedkit import Graph, costs
    >>> unit = costs.uniform().compile(Graph({0: "C"}), Graph({0: "O"}))
    >>> integral_bound(unit, 16.500000000000014), integral_bound(unit, 17.0000000001)
    (17.0, 17.0)
    >>> halves = costs.constant(node_sub=0.5).compile(Graph({0: "C"}), Graph({0: "O"}))
    >>> integral_bound(halves, 16.5)
    16.5
    """
    if problem.integral_costs and math.isfinite(lower):
        return float(math.ceil(lower - GAP))
    return lower
