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

:class:`~gedkit.problem.Problem` caps an edge substitution at deletion + insertion, so no ``y``
has a positive objective coefficient; a ``y`` whose coefficient is zero cannot change the optimum
and is left out of the model.

The exact solver first solves the LP relaxation (interior point, fast on these degenerate LPs)
and rounds its ``x`` to a node map; when the map's cost meets the bound it stops there, else it
hands the map to HiGHS's branch and bound as a starting incumbent. With ``relaxation=True`` it
stops after the LP whatever the gap: the LP optimum is the lower bound, the rounded map the
upper bound.

"Optimal" means optimal to a relative gap of 1e-6, the tolerance HiGHS solves to; with integer
costs the bound is rounded up, so the distance is exact. HiGHS cannot be limited in memory, so
``budget.memory`` does not apply; the time limit does, and ``budget.threshold`` stops the search
as soon as the answer to "is the distance at most the threshold?" is known.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from gedkit.configurable import check_flag, check_number
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.cheap import cheap_bounds
from gedkit.solvers.chunks import affordable, start_up_seconds
from gedkit.solvers.heuristics.assignment import DEFAULT_MEMORY, lsape_map
from gedkit.solvers.registry import register

if TYPE_CHECKING:  # HiGHS and SciPy load when a model is built, not when gedkit starts
    import highspy
    import scipy.sparse as sp

__all__ = [
    "MIP", "GedModel", "build_model", "integer_program", "model_nonzeros", "program_fits",
    "solve_model",
]

_TOL = 1e-6
_SECONDS_PER_NONZERO = 1e-6  # building the arrays, then HiGHS's set-up, on the slow side
_BYTES_PER_NONZERO = 400  # our arrays while building, then HiGHS's copies and factors
_WATCH = 0.02  # seconds between looks at Ctrl-C and the clock while HiGHS runs
_FINISH = 0.05  # seconds of a time limit kept for reading the solution back
_GRACE = 0.02  # past its time limit HiGHS is cancelled (it reads its clock only now and then)
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
        Constraint matrix; every row is ``<= row_upper``, every column in ``[0, 1]``.
    row_upper : ndarray
        Right-hand sides (1 for the assignment rows, 0 for the linking rows).
    y_ends : ndarray, shape (ny, 4)
        ``(i, j, k, l)`` per ``y`` column: it may be 1 only if ``i -> k`` and ``j -> l``.
    n1, n2 : int
        Node counts.
    """

    cost: np.ndarray
    offset: float
    matrix: sp.csc_matrix
    row_upper: np.ndarray
    y_ends: np.ndarray
    n1: int
    n2: int

    def x(self, values: np.ndarray) -> np.ndarray:
        """The ``x`` part of a solution as an ``n1 × n2`` matrix."""
        return np.asarray(values)[: self.n1 * self.n2].reshape(self.n1, self.n2)

    def point(self, forward: np.ndarray) -> np.ndarray:
        """The best solution with the ``x`` of a node map (every ``y`` it allows set to 1)."""
        x = np.zeros((self.n1, self.n2))
        mapped = np.flatnonzero(forward >= 0)
        x[mapped, forward[mapped]] = 1.0
        i, j, k, m = self.y_ends.T
        y = (forward[i] == k) & (forward[j] == m)
        return np.concatenate([x.ravel(), y.astype(float)])

    def objective(self, values: np.ndarray) -> float:
        return self.offset + float(self.cost @ values)

    def node_map(self, values: np.ndarray) -> np.ndarray:
        """The node map of an integral solution."""
        forward = np.full(self.n1, -1, dtype=np.int64)
        rows, cols = np.nonzero(self.x(values) > 0.5)
        forward[rows] = cols
        return forward

    def rounded(self, values: np.ndarray) -> np.ndarray:
        """The node map closest to a fractional ``x``: the assignment that keeps most of its
        mass, deleting ``i`` weighing ``1 - sum_k x_ik`` (inserting likewise)."""
        x = self.x(values)
        weights = np.zeros((self.n1 + 1, self.n2 + 1))
        weights[: self.n1, : self.n2] = x
        weights[: self.n1, self.n2] = 1.0 - x.sum(axis=1)
        weights[self.n1, : self.n2] = 1.0 - x.sum(axis=0)
        return lsape_map(-weights)


def build_model(problem: Problem) -> GedModel:
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
    import scipy.sparse as sp

    n1, n2 = problem.n1, problem.n2
    nx = n1 * n2
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
    ny = len(pe)
    y_ends = np.column_stack([e1[pe], arcs[pa]])

    # each y makes two endpoint maps u -> v: (start of e -> start of a), (end of e -> end of a)
    u = np.concatenate([e1[pe, 0], e1[pe, 1]])
    v = np.concatenate([arcs[pa, 0], arcs[pa, 1]])
    y_cols = np.tile(nx + np.arange(ny), 2)
    # a linking row per (edge of g1, u -> v) (F2) and per (edge of g2, u -> v) (mirror)
    link_x, link_rows = [], []
    for edge in (np.tile(pe, 2), np.tile(pa, 2) % max(m2, 1)):
        keys, rows = np.unique((edge * n1 + u) * n2 + v, return_inverse=True)
        link_x.append(keys % nx)  # the x column u * n2 + v of each row
        link_rows.append(rows)
    n_f2 = len(link_x[0])
    link_x = np.concatenate(link_x)
    n_link = len(link_x)

    first = n1 + n2  # the linking rows follow the assignment rows
    i_of_x, k_of_x = np.divmod(np.arange(nx), max(n2, 1))
    rows = np.concatenate([
        i_of_x, n1 + k_of_x,                                  # sum_k x_ik <= 1, sum_i x_ik <= 1
        first + link_rows[0], first + n_f2 + link_rows[1],    # sum of y ...
        first + np.arange(n_link),                            # ... - x_uv <= 0
    ])
    cols = np.concatenate([np.arange(nx), np.arange(nx), y_cols, y_cols, link_x])
    values = np.concatenate([np.ones(2 * nx + 4 * ny), -np.ones(n_link)])
    matrix = sp.csc_matrix((values, (rows, cols)), shape=(first + n_link, nx + ny))
    row_upper = np.concatenate([np.ones(first), np.zeros(n_link)])
    cost = np.concatenate([x_cost, gain[pe, pa]])
    return GedModel(cost, offset, matrix, row_upper, y_ends, n1, n2)


def _new_highs() -> highspy.Highs:
    """A silent HiGHS instance. HiGHS prints its banner to stdout when the first instance of
    a process is made, before any option can be set; that line would corrupt ``--json``
    output, so the first construction runs with stdout pointed at the null device."""
    import highspy

    global _banner_shown
    with _banner_lock:
        if _banner_shown:
            h = highspy.Highs()
        else:
            from gedkit.quiet import silenced

            with silenced(stderr=False):
                h = highspy.Highs()
            _banner_shown = True
    h.setOptionValue("output_flag", False)
    return h


def solve_model(
    model: GedModel,
    *,
    integer: bool,
    time_limit: float = math.inf,
    threads: int = 1,
    start: np.ndarray | None = None,
    target: float | None = None,
) -> tuple[highspy.Highs, np.ndarray | None]:
    """Solve ``model`` with HiGHS, as a binary program or (``integer=False``) as its LP
    relaxation. Returns the solver (for its info) and the column values, None when no feasible
    point was found (on a time limit).

    ``start`` (a node map) seeds the branch and bound with an incumbent; ``target`` stops it at
    the first solution whose objective is below ``target``. The branch and bound stops when its
    gap is below a relative 1e-6 (HiGHS's default, 1e-4, could stop short of the distance).
    """
    import highspy

    h = _new_highs()
    h.setOptionValue("threads", int(threads))
    if time_limit < math.inf:
        # HiGHS stops a little early: reading its solution back takes time too
        h.setOptionValue("time_limit", max(0.01, float(time_limit) - _FINISH))
    n_rows, n_cols = model.matrix.shape
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_cols, n_rows
    lp.col_cost_ = model.cost
    lp.offset_ = model.offset
    lp.col_lower_ = np.zeros(n_cols)
    lp.col_upper_ = np.ones(n_cols)
    lp.row_lower_ = np.full(n_rows, -highspy.kHighsInf)
    lp.row_upper_ = model.row_upper
    a = lp.a_matrix_
    a.format_ = highspy.MatrixFormat.kColwise
    a.num_col_, a.num_row_ = n_cols, n_rows
    a.start_ = model.matrix.indptr
    a.index_ = model.matrix.indices
    a.value_ = model.matrix.data
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n_cols
        h.setOptionValue("mip_rel_gap", _TOL)
        h.setOptionValue("mip_abs_gap", _TOL)
        if target is not None:
            h.setOptionValue("objective_target", float(target))
    else:
        h.setOptionValue("solver", "ipm")
    h.passModel(lp)
    if integer and start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = model.point(start)
        h.setSolution(sol)
    _run(h, time_limit)
    if h.getInfo().primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible:
        return h, None
    return h, np.asarray(h.getSolution().col_value)


def _run(h: highspy.Highs, time_limit: float) -> None:
    """``h.run()`` in HiGHS's own thread while this one watches: a Ctrl-C (see
    :func:`gedkit.budget.interruptible`) or a solve past its time limit (HiGHS checks its
    clock only now and then) cancels it, and HiGHS stops at its next check."""
    from gedkit.budget import interrupted

    h.HandleUserInterrupt = True
    deadline = time.perf_counter() + time_limit + _GRACE
    thread = h.startSolve()
    while not h.wait(_WATCH)[0]:
        if interrupted() or time.perf_counter() > deadline:
            h.cancelSolve()
    thread.join()


def program_fits(nonzeros: int, budget: Budget) -> bool:
    """Whether building and loading a program of ``nonzeros`` fits the time and memory left
    in ``budget`` (both grow with the nonzeros: ~1 µs and ~400 bytes each, HiGHS's copies
    included), with as much time again left over to solve it.

    >>> program_fits(10_000, Budget(timeout=1.0)), program_fits(10**8, Budget(timeout=1.0))
    (True, False)
    """
    memory = budget.memory if budget.memory is not None else DEFAULT_MEMORY
    seconds = 2 * _SECONDS_PER_NONZERO * nonzeros + start_up_seconds(sparse=True)
    return affordable(seconds, budget) and _BYTES_PER_NONZERO * nonzeros < memory


def model_nonzeros(problem: Problem) -> int:
    """An upper estimate of the nonzeros of :func:`build_model`'s matrix: two per ``x``,
    four per ``y`` and up to four linking entries per ``y``."""
    E = problem.edge_label_matrix
    K = E.shape[0] - 1
    gain = E[:K, :K] - E[:K, K:] - E[K:, :K] < 0  # label pairs whose y enter the model
    count1 = np.bincount(problem.edge_labels1, minlength=K)
    count2 = np.bincount(problem.edge_labels2, minlength=K)
    ny = 2 * int(count1 @ gain @ count2)  # both orientations of each edge of g2
    return 2 * problem.n1 * problem.n2 + 8 * ny


@register
class MIP(Solver):
    name = "mip"
    summary = "exact binary linear program (Lerouge et al. F2, tightened) on HiGHS"
    exact = True
    options: ClassVar[dict[str, Any]] = {"relaxation": False, "threads": 1}

    def validate(self) -> None:
        check_flag(self.config, "relaxation")
        check_number(self.config, "threads", integer=True, minimum=1, strict=False)

    def solve(self, problem: Problem, budget: Budget) -> Result:
        return integer_program(problem, budget, relaxation=self.config["relaxation"],
                               threads=self.config["threads"])


def integer_program(problem: Problem, budget: Budget, *, relaxation: bool = False,
                    threads: int = 1, incumbent: np.ndarray | None = None,
                    method: str = "mip") -> Result:
    """The ``mip`` method (see the module docstring); ``incumbent``, a node map found
    elsewhere, starts the branch and bound when it beats the rounded relaxation."""
    import highspy

    t0 = time.perf_counter()

    def finish(forward, lower, stats):
        # never worse than the cheap bounds the program started from
        if problem.cost(forward) > base.upper_bound:
            forward = base.assignment
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
    base = cheap_bounds(problem, budget, method)
    if not program_fits(model_nonzeros(problem), budget):
        base.stats["stopped"] = (f"time or memory limit: a program of about "
                                 f"{model_nonzeros(problem):,} nonzeros does not fit")
        return base

    model = build_model(problem)
    h, values = solve_model(
        model, integer=False, time_limit=budget.remaining(), threads=threads
    )
    solved = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    # costs are non-negative, so 0 is the bound of last resort
    lower = max(0.0, h.getInfo().objective_function_value) if solved else 0.0
    forward = model.rounded(values) if values is not None else lsape_map(problem.node_costs)
    if incumbent is not None and problem.cost(incumbent) < problem.cost(forward):
        forward = np.asarray(incumbent, dtype=np.int64)
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
    if solved and problem.integral_costs:
        lower = float(math.ceil(lower - _TOL))
    if lower >= upper - _TOL * max(1.0, upper):
        lower = upper  # closed within the tolerance HiGHS itself solves to
    if (
        lower >= upper
        or budget.expired()
        or (budget.threshold is not None and not lower <= budget.threshold < upper)
    ):
        return finish(forward, lower, stats)

    h, values = solve_model(
        model, integer=True, time_limit=budget.remaining(), threads=threads,
        start=forward, target=budget.threshold,
    )
    info = h.getInfo()
    if values is not None:
        forward = model.node_map(values)
        stats["objective"] = float(info.objective_function_value)
    stats["status"] = h.modelStatusToString(h.getModelStatus())
    stats["nodes"] = int(info.mip_node_count)
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        lower = problem.cost(forward)  # optimal to HiGHS's gap tolerance, see solve_model
    else:
        lower = max(lower, float(info.mip_dual_bound))  # -inf until HiGHS has a bound
    return finish(forward, lower, stats)
