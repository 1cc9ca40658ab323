"""Exact GED as a binary linear program on HiGHS (``mip``), and its LP relaxation.

The model is formulation F2 of Lerouge et al., "New binary linear programming formulation to
compute the graph edit distance", Pattern Recognition 72 (2017), written for undirected graphs
and general costs:

* ``x[i, k] = 1`` substitutes node ``i`` of g1 by node ``k`` of g2; at most one per row and
  per column. Deletions and insertions are what is left over, so the objective is the cost of
  deleting and inserting everything plus, per substitution, ``sub - del - ins``.
* ``y[e, a] = 1`` substitutes edge ``e = (i, j)`` of g1 by the *oriented* edge ``a = (k, l)`` of
  g2, which means ``i -> k`` and ``j -> l``. Every edge of g2 appears in both orientations, so
  both ways of laying one undirected edge on another are modelled.
* Linking rows, one per endpoint map ``u -> v``: the ``y`` of edge ``e`` that send ``u`` to ``v``
  sum to at most ``x[u, v]`` (F2's rows), and so do the ``y`` of each g2 edge ``f`` that send
  ``u`` to ``v`` (their mirror image, which tightens the relaxation at no cost to exactness).

:class:`~gedkit.problem.Problem` caps an edge substitution at deletion + insertion, so a ``y``
never has a positive objective coefficient; a ``y`` whose coefficient is zero cannot change the
optimum and is left out of the model.

With ``relaxation=True`` the same model is solved as a linear program: its optimum is a lower
bound, and the fractional ``x`` rounded to a node map by an assignment gives the upper bound.

HiGHS cannot be limited in memory, so ``budget.memory`` does not apply; the time limit does.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from gedkit.errors import OptionError
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.assignment import lsape_map
from gedkit.solvers.registry import register

__all__ = ["MIP", "GedModel", "build_model", "solve_model"]

_banner_lock = threading.Lock()
_banner_shown = False


@dataclass(frozen=True)
class GedModel:
    """The program as arrays; columns are ``x`` (row-major, ``n1 × n2``) then ``y``.

    Attributes
    ----------
    cost : ndarray
        Objective coefficient of every column.
    offset : float
        Cost of deleting all of g1 and inserting all of g2 (the objective of the empty map).
    matrix : scipy.sparse.csc_matrix
        Constraint matrix; every row is ``<= row_upper``.
    row_upper : ndarray
        Right-hand sides (1 for the assignment rows, 0 for the linking rows).
    n1, n2 : int
        Node counts; the first ``n1 * n2`` columns are ``x``.
    """

    cost: np.ndarray
    offset: float
    matrix: sp.csc_matrix
    row_upper: np.ndarray
    n1: int
    n2: int

    def objective(self, values: np.ndarray) -> float:
        return self.offset + float(self.cost @ values)

    def x(self, values: np.ndarray) -> np.ndarray:
        """The ``x`` part of a solution as an ``n1 × n2`` matrix."""
        return values[: self.n1 * self.n2].reshape(self.n1, self.n2)


def build_model(problem: Problem) -> GedModel:
    """The GED program of ``problem`` (see the module docstring), built with array operations.

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C", 1: "N"},
    ...                                                                   [(0, 1)]))
    >>> m = build_model(p)
    >>> m.offset, m.matrix.shape   # 4 nodes + 2 edges to edit; 4 x + 2 y, 4 + 8 rows
    (6.0, (12, 6))
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

    # g2 edges in both orientations; arc a lies on undirected edge a % m2
    arcs = np.concatenate([e2, e2[:, ::-1]])
    arc_lab = np.concatenate([lab2, lab2])
    gain = E[lab1[:, None], arc_lab[None, :]] - E[lab1, K][:, None] - E[K, arc_lab][None, :]
    pe, pa = np.nonzero(gain < 0)
    y_cost = gain[pe, pa]
    ny = len(pe)
    y_col = n1 * n2 + np.arange(ny)

    # each y makes two endpoint maps u -> v: (start of e -> start of a), (end of e -> end of a)
    u = np.concatenate([e1[pe, 0], e1[pe, 1]])
    v = np.concatenate([arcs[pa, 0], arcs[pa, 1]])
    cols = np.concatenate([y_col, y_col])
    # F2's rows group the y of one g1 edge per endpoint map, the mirror rows one g2 edge's
    f = np.concatenate([pa, pa]) % max(m2, 1)
    g1_key = (np.concatenate([pe, pe]) * n1 + u) * n2 + v
    g2_key = (f * n1 + u) * n2 + v
    link_keys, link_rows = [], []
    for keys in (g1_key, g2_key):
        uniq, inv = np.unique(keys, return_inverse=True)
        link_keys.append(uniq % (n1 * n2))  # the x column of each row
        link_rows.append(inv)
    n_g1 = len(link_keys[0])
    xs_of_rows = np.concatenate(link_keys)
    n_link = len(xs_of_rows)

    ii, kk = np.divmod(np.arange(n1 * n2), max(n2, 1))
    base = n1 + n2
    rows = np.concatenate([
        ii, n1 + kk,                                          # sum_k x_ik <= 1, sum_i x_ik <= 1
        base + link_rows[0], base + n_g1 + link_rows[1],      # + y ...
        base + np.arange(n_link),                             # ... - x_uv <= 0
    ])
    columns = np.concatenate([np.arange(n1 * n2), np.arange(n1 * n2), cols, cols, xs_of_rows])
    values = np.concatenate([
        np.ones(2 * n1 * n2 + 4 * ny), -np.ones(n_link),
    ])
    n_rows = base + n_link
    matrix = sp.csc_matrix((values, (rows, columns)), shape=(n_rows, n1 * n2 + ny))
    row_upper = np.concatenate([np.ones(base), np.zeros(n_link)])
    return GedModel(np.concatenate([x_cost, y_cost]), offset, matrix, row_upper, n1, n2)


def _new_highs() -> highspy.Highs:
    """A silent HiGHS instance. HiGHS prints its banner to stdout when the first instance of
    a process is made, before any option can be set; that one line would corrupt ``--json``
    output, so the first construction runs with stdout pointed at the null device."""
    global _banner_shown
    with _banner_lock:
        if _banner_shown:
            h = highspy.Highs()
        else:
            sys.stdout.flush()
            saved = os.dup(1)
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, 1)
                h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(null)
            _banner_shown = True
    h.setOptionValue("output_flag", False)
    return h


def solve_model(
    model: GedModel,
    *,
    integer: bool,
    time_limit: float = math.inf,
    threads: int = 1,
    target: float | None = None,
) -> tuple[highspy.Highs, np.ndarray | None]:
    """Solve ``model`` with HiGHS; return the solver (for its info) and the column values
    (None when no feasible point was found, e.g. on a time limit).

    ``target`` (integer programs only) stops the search at the first solution whose objective
    is below it: enough to answer "is the distance at most ``target``?"."""
    h = _new_highs()
    h.setOptionValue("threads", int(threads))
    if time_limit < math.inf:
        # HiGHS reads 0 as "no time at all"; keep a positive value so it stops at once
        h.setOptionValue("time_limit", max(float(time_limit), 1e-6))
    if target is not None and integer:
        h.setOptionValue("objective_target", float(target))
    lp = highspy.HighsLp()
    n_rows, n_cols = model.matrix.shape
    lp.num_col_, lp.num_row_ = n_cols, n_rows
    lp.col_cost_ = model.cost
    lp.offset_ = model.offset
    lp.col_lower_ = np.zeros(n_cols)
    lp.col_upper_ = np.ones(n_cols)
    lp.row_lower_ = np.full(n_rows, -highspy.kHighsInf)
    lp.row_upper_ = model.row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = model.matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = model.matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = model.matrix.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n_cols, n_rows
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n_cols
    h.passModel(lp)
    h.run()
    if h.getInfo().primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible:
        return h, None
    return h, np.asarray(h.getSolution().col_value)


def _round(model: GedModel, values: np.ndarray) -> np.ndarray:
    """The node map closest to a fractional ``x``: an assignment that maximises the mass of
    ``x`` it keeps, deleting ``i`` weighing ``1 - sum_k x_ik`` (inserting likewise)."""
    x = model.x(values)
    weights = np.zeros((model.n1 + 1, model.n2 + 1))
    weights[: model.n1, : model.n2] = x
    weights[: model.n1, model.n2] = 1.0 - x.sum(axis=1)
    weights[model.n1, : model.n2] = 1.0 - x.sum(axis=0)
    return lsape_map(-weights)


@register
class MIP(Solver):
    name = "mip"
    summary = "exact binary linear program (Lerouge et al. F2) on HiGHS; relaxation=True: LP bound"
    exact = True
    options = {"relaxation": False, "threads": 1}

    def validate(self) -> None:
        if not isinstance(self.config["relaxation"], bool):
            raise OptionError(f"relaxation must be True or False, got {self.config['relaxation']!r}")
        threads = self.config["threads"]
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise OptionError(f"threads must be a positive integer, got {threads!r}")

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        if problem.n1 == 0 or problem.n2 == 0:
            # one node map only: delete everything (or insert everything)
            forward = np.full(problem.n1, -1, dtype=np.int64)
            return Result.from_assignment(
                problem, forward, problem.cost(forward), self.name,
                time=time.perf_counter() - t0, stats={"status": "trivial"},
            )
        relaxation = self.config["relaxation"]
        model = build_model(problem)
        h, values = solve_model(
            model,
            integer=not relaxation,
            time_limit=budget.remaining(),
            threads=self.config["threads"],
            target=budget.threshold,
        )
        info = h.getInfo()
        status = h.modelStatusToString(h.getModelStatus())
        stats = {"status": status, "rows": model.matrix.shape[0], "columns": model.matrix.shape[1]}
        # costs are non-negative, so 0 is the bound of last resort
        if relaxation:
            optimal = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
            lower = max(0.0, h.getInfo().objective_function_value) if optimal else 0.0
            forward = _round(model, values) if values is not None else lsape_map(problem.node_costs)
            stats["iterations"] = int(info.simplex_iteration_count)
        else:
            lower = max(0.0, float(info.mip_dual_bound))  # -inf until HiGHS has a bound
            if values is None:
                forward = lsape_map(problem.node_costs)
            else:
                forward = np.full(model.n1, -1, dtype=np.int64)
                rows, cols = np.nonzero(model.x(values) > 0.5)
                forward[rows] = cols
            stats["nodes"] = int(info.mip_node_count)
            stats["gap"] = float(info.mip_gap)
            stats["objective"] = float(info.objective_function_value) if values is not None else None
        return Result.from_assignment(
            problem, forward, lower, self.name, time=time.perf_counter() - t0, stats=stats
        )

