"""Linear and binary programs over node pairs, on HiGHS: what GED's integer program
(:mod:`gedkit.solvers.exact.mip`) and MCES's relaxation and program (:mod:`gedkit.mces.bounds`,
:mod:`gedkit.mces.exact`) share.

Both have a column ``x[i, k]`` per node pair (node ``i`` of g1 onto node ``k`` of g2; at most one
per row and per column: the *assignment rows*) and a column ``y`` per pair of edges that may be
laid on each other, which is allowed only where both of its endpoint maps ``u -> v`` are chosen:
per endpoint map, the ``y`` of one edge of g1 sum to at most ``x[u, v]``, and so do those of one
edge of g2 (the *linking rows*, built by :func:`assemble`). They differ in their objectives and
in which ``y`` exist.
"""

from __future__ import annotations

import atexit
import math
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gedkit.budget import Budget
from gedkit.pacing import affordable, start_up_seconds

if TYPE_CHECKING:  # HiGHS and SciPy load when a program is built, not when gedkit starts
    import highspy
    import scipy.sparse as sp

__all__ = ["GAP", "MatchingProgram", "assemble", "drain", "new_highs", "program_fits",
           "run_within", "solve_program", "still_running"]

#: the relative gap HiGHS solves a program to (its default, 1e-4, could stop short)
GAP = 1e-6
_SECONDS_PER_NONZERO = 1e-6  # building the arrays, then HiGHS's set-up, on the slow side
_BYTES_PER_NONZERO = 400  # our arrays while building, then HiGHS's copies and factors
_WATCH = 0.02  # seconds between looks at Ctrl-C and the clock while HiGHS runs
_FINISH = 0.05  # seconds of a time limit kept for reading the solution back
_GRACE = 0.02  # past its time limit HiGHS is cancelled (it reads its clock only now and then)
_banner_lock = threading.Lock()
_banner_shown = False


@dataclass(frozen=True)
class MatchingProgram:
    """A program over node pairs as arrays; columns are ``x`` (row-major, ``n1 × n2``) then
    ``y``; rows are ``<= row_upper``, columns in ``[0, 1]``.

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
        from gedkit.solvers.heuristics.assignment import lsape_map

        x = self.x(values)
        weights = np.zeros((self.n1 + 1, self.n2 + 1))
        weights[: self.n1, : self.n2] = x
        weights[: self.n1, self.n2] = 1.0 - x.sum(axis=1)
        weights[self.n1, : self.n2] = 1.0 - x.sum(axis=0)
        return lsape_map(-weights)


def assemble(n1: int, n2: int, edge1: np.ndarray, edge2: np.ndarray, u: np.ndarray,
             v: np.ndarray, cost: np.ndarray, offset: float, y_ends: np.ndarray
             ) -> MatchingProgram:
    """The program with ``len(edge1)`` ``y`` columns after the ``n1 * n2`` ``x`` columns:
    ``y`` number ``c`` lays edge ``edge1[c]`` of g1 on edge ``edge2[c]`` of g2 and makes the
    endpoint maps ``u[c] -> v[c]`` and ``u[ny + c] -> v[ny + c]``; assignment rows, then one
    linking row per (edge of g1, endpoint map) and per (edge of g2, endpoint map).

    >>> m = assemble(2, 2, np.array([0]), np.array([0]), np.array([0, 1]), np.array([0, 1]),
    ...              np.array([0.0, 0, 0, 0, -1]), 0.0, np.array([[0, 1, 0, 1]]))
    >>> m.matrix.shape   # 4 assignment rows + 2 x 2 linking rows; 4 x + 1 y
    (8, 5)
    """
    import scipy.sparse as sp

    nx, ny = n1 * n2, len(edge1)
    y_cols = np.tile(nx + np.arange(ny), 2)
    link_x, link_rows, start = [], [], n1 + n2  # the linking rows follow the assignment rows
    for edge in (np.tile(edge1, 2), np.tile(edge2, 2)):
        keys, rows = np.unique((edge * n1 + u) * n2 + v, return_inverse=True)
        link_x.append(keys % max(nx, 1))  # the x column u * n2 + v of each row
        link_rows.append(start + rows)
        start += len(keys)
    link_x = np.concatenate(link_x)
    first = n1 + n2
    i_of_x, k_of_x = np.divmod(np.arange(nx), max(n2, 1))
    rows = np.concatenate([
        i_of_x, n1 + k_of_x,                            # sum_k x_ik <= 1, sum_i x_ik <= 1
        *link_rows,                                     # sum of y ...
        first + np.arange(len(link_x)),                 # ... - x_uv <= 0
    ])
    cols = np.concatenate([np.arange(nx), np.arange(nx), y_cols, y_cols, link_x])
    values = np.concatenate([np.ones(2 * nx + 4 * ny), -np.ones(len(link_x))])
    matrix = sp.csc_matrix((values, (rows, cols)), shape=(start, nx + ny))
    row_upper = np.concatenate([np.ones(first), np.zeros(len(link_x))])
    return MatchingProgram(cost, offset, matrix, row_upper, y_ends, n1, n2)


def new_highs() -> highspy.Highs:
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


def solve_program(
    model: MatchingProgram,
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

    # the limit counts from here: handing HiGHS a large model takes time of its own (a
    # 300-node molecule pair's LP: 0.48 s before its solve starts)
    deadline = time.perf_counter() + time_limit
    h = new_highs()
    h.setOptionValue("threads", int(threads))
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
        h.setOptionValue("mip_rel_gap", GAP)
        h.setOptionValue("mip_abs_gap", GAP)
        if target is not None:
            h.setOptionValue("objective_target", float(target))
    else:
        h.setOptionValue("solver", "ipm")
    h.passModel(lp)
    if integer and start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = model.point(start)
        h.setSolution(sol)
    if time_limit < math.inf:
        # HiGHS stops a little early: reading its solution back takes time too
        h.setOptionValue("time_limit", max(0.01, deadline - time.perf_counter() - _FINISH))
    found = _Found(n_cols)
    if integer:
        h.cbMipImprovingSolution += found.improved
    if not run_within(h, deadline):
        return found, found.values
    if h.getInfo().primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible:
        return h, None
    return h, np.asarray(h.getSolution().col_value)


def run_within(h: highspy.Highs, deadline: float) -> bool:
    """``h.run()`` in HiGHS's own thread while this one watches: a Ctrl-C (see
    :func:`gedkit.budget.interruptible`) or a solve past its ``deadline`` (a
    ``time.perf_counter()`` value; HiGHS checks its clock only now and then) cancels it, and
    HiGHS stops at its next check. Whether it stopped: a solve still running
    :data:`_ABANDON` seconds after being cancelled is left to stop on its own (kept in
    :data:`_DRAINING` until it has) and its answer is not read, so that the call returns on
    time (HiGHS's root cut separation does not look at its clock or at a cancel: on a 21/27-atom
    molecule pair one mod-k round ran 0.6-0.8 s past the limit)."""
    from gedkit.budget import interrupted

    _DRAINING[:] = [t for t in _DRAINING if t[1].is_alive()]
    h.HandleUserInterrupt = True  # cancelSolve() then stops it at its next check
    deadline += _GRACE
    # a thread of our own, not highspy's startSolve(): that one allows one solve per process
    # at a time (its locks are class attributes), and a solve left running would block the next
    thread = threading.Thread(target=_solve, args=(h,), daemon=True, name="gedkit-highs")
    thread.start()
    while True:
        thread.join(_WATCH)
        if not thread.is_alive():
            return True
        if interrupted() or time.perf_counter() > deadline:
            h.cancelSolve()
            thread.join(_ABANDON)
            if thread.is_alive():
                _DRAINING.append((h, thread))
                return False
            return True


def _solve(h: highspy.Highs) -> None:
    """HiGHS's solve, in the thread :func:`run_within` watches (as highspy's own thread
    runs it)."""
    from highspy.highs import _Highs

    _Highs.run(h)
    _Highs.resetThreadScheduler(False)


#: seconds a cancelled solve may take to stop before it is left running (see :func:`run_within`)
_ABANDON = 0.05
#: (solver, its thread) of the solves left running past their limit: kept alive until they stop
_DRAINING: list = []


def still_running() -> bool:
    """Whether a solve left running past its limit (see :func:`run_within`) has not stopped yet."""
    return any(thread.is_alive() for _, thread in _DRAINING)


def drain() -> None:
    """At exit, wait for the solves left running (cancelled: they stop at HiGHS's next check)
    before the interpreter frees their solvers under them."""
    for _, thread in _DRAINING:
        thread.join(_DRAIN_SECONDS)


_DRAIN_SECONDS = 10.0
#: what a forked child inherits of :data:`_DRAINING`: solvers without their threads, held so
#: that nothing frees them under a copy of a solve that was running (never waited for)
_FORKED: list = []


def _after_fork() -> None:
    _FORKED.extend(_DRAINING)
    _DRAINING.clear()


atexit.register(drain)
os.register_at_fork(after_in_child=_after_fork)


class _Found:
    """What a branch and bound has found so far, kept as it goes (HiGHS's callback on each
    better solution, from its thread); it stands for the solver :func:`run_within` left running,
    whose own answer cannot be read: interrupted, with the last solution and dual bound it
    reported (what callers read of a solver stopped by its time limit)."""

    def __init__(self, columns: int):
        self.columns = columns
        self.values: np.ndarray | None = None
        self.objective, self.dual_bound, self.nodes = math.nan, -math.inf, 0

    def improved(self, event) -> None:
        out = event.data_out
        values = np.array(out.mip_solution, dtype=np.float64)
        if len(values) != self.columns:  # not the model's columns: nothing to read
            return
        self.values = values
        self.objective = float(out.objective_function_value)
        self.dual_bound, self.nodes = float(out.mip_dual_bound), int(out.mip_node_count)

    def getModelStatus(self):
        import highspy

        return highspy.HighsModelStatus.kInterrupt

    def modelStatusToString(self, status) -> str:
        return "Interrupted (left running past its time limit)"

    def getInfo(self):
        from types import SimpleNamespace

        return SimpleNamespace(objective_function_value=self.objective,
                               mip_dual_bound=self.dual_bound, mip_node_count=self.nodes)


def program_fits(nonzeros: int, budget: Budget) -> bool:
    """Whether building and loading a program of ``nonzeros`` fits the time and memory left
    in ``budget`` (both grow with the nonzeros: ~1 µs and ~400 bytes each, HiGHS's copies
    included), with as much time again left over to solve it.

    >>> program_fits(10_000, Budget(timeout=1.0)), program_fits(10**8, Budget(timeout=1.0))
    (True, False)
    """
    seconds = 2 * _SECONDS_PER_NONZERO * nonzeros + start_up_seconds(sparse=True)
    return affordable(seconds, budget) and _BYTES_PER_NONZERO * nonzeros < budget.memory_left()
