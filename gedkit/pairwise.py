"""Distance matrices: one GED computation per pair of graphs, spread over processes.

Work is cut into chunks of index pairs. Each worker process receives the graphs, the cost model
and a configured solver once (as its initializer's arguments), then turns chunks of pairs into
bounds, so a pair costs one compile and one solve and nothing is resolved again per pair.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import warnings
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.api import as_graph
from gedkit.costs import CostModel
from gedkit.costs import get as get_costs
from gedkit.errors import GedkitError, OptionError
from gedkit.graph import Graph
from gedkit.solvers import Budget, Solver, get_solver

__all__ = ["PairwiseResult", "pairwise"]

_MAX_CHUNK = 32  # pairs per task: small enough to balance load and move the progress bar
_PROGRESS_DELAY = 2.0  # seconds of work before the automatic progress bar appears


@dataclass(eq=False)
class PairwiseResult:
    """Bounds on the GED of every pair: entry ``[i, j]`` is for ``graphs_a[i]`` → ``graphs_b[j]``.

    Attributes
    ----------
    lower_bound, upper_bound : ndarray of float, shape (len(graphs_a), len(graphs_b))
        Proven bounds per pair.
    time : ndarray of float
        Seconds spent on each pair (0 where nothing was solved: the diagonal, and the mirrored
        half of a symmetric matrix holds the time of the pair it copies).
    method : str
        The solver that produced the bounds.
    """

    lower_bound: np.ndarray
    upper_bound: np.ndarray
    time: np.ndarray
    method: str

    @property
    def distance(self) -> np.ndarray:
        """The best known distances (= ``upper_bound``; exact where ``optimal``)."""
        return self.upper_bound

    @property
    def optimal(self) -> np.ndarray:
        """True where the bounds meet, so the distance is exact."""
        return self.lower_bound >= self.upper_bound

    @property
    def shape(self) -> tuple[int, int]:
        return self.upper_bound.shape

    def __repr__(self) -> str:
        rows, cols = self.shape
        return (
            f"<PairwiseResult {rows}x{cols} method={self.method} "
            f"optimal={int(self.optimal.sum())}/{rows * cols}>"
        )


def pairwise(
    graphs_a: Iterable[Any],
    graphs_b: Iterable[Any] | None = None,
    costs: str | CostModel = "uniform",
    method: str = "auto",
    *,
    timeout: float | None = None,
    memory: int | None = None,
    n_jobs: int = 1,
    progress: bool | None = None,
    chunk_size: int | None = None,
    node_label: str | list[str] | None = None,
    edge_label: str | list[str] | None = None,
    **options: Any,
) -> PairwiseResult:
    """Graph edit distance bounds between every graph of ``graphs_a`` and every graph of
    ``graphs_b`` (or between all graphs of ``graphs_a``).

    Parameters
    ----------
    graphs_a, graphs_b : iterables of Graph or networkx.Graph
        Rows and columns of the matrix. Without ``graphs_b`` the matrix is ``graphs_a`` against
        itself: the diagonal is 0 without solving (whenever matching a graph to itself is free),
        and with a symmetric cost model each unordered pair is solved once.
    costs : str or CostModel
        A cost-model name (see :func:`gedkit.costs.available`) or a model object.
    method : str
        A registered solver (see :func:`gedkit.methods`).
    timeout : float, optional
        Seconds per pair. Reaching it never raises: that entry holds the bounds found so far.
    memory : int, optional
        Bytes per pair for the search frontier (see :func:`gedkit.ged`).
    n_jobs : int
        Worker processes; -1 uses every available core, -2 all but one, and so on.
    progress : bool, optional
        Show a progress bar on stderr. By default it appears once the work has taken a couple
        of seconds, and only when stderr is a terminal.
    chunk_size : int, optional
        Pairs per task handed to a worker (chosen automatically by default).
    node_label, edge_label : str, list of str or "*", optional
        Label attributes of NetworkX inputs, as in :func:`gedkit.ged`.
    **options
        Options of the chosen method.

    Returns
    -------
    PairwiseResult
        Matrices ``distance`` (= ``upper_bound``), ``lower_bound``, ``optimal``, ``time``.

    Examples
    --------
    >>> import gedkit
    >>> graphs = [
    ...     gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]),
    ...     gedkit.Graph({0: "C"}),
    ...     gedkit.Graph({0: "N"}),
    ... ]
    >>> m = gedkit.pairwise(graphs)
    >>> m.distance.tolist()
    [[0.0, 2.0, 3.0], [2.0, 0.0, 1.0], [3.0, 1.0, 0.0]]
    >>> bool(m.optimal.all())
    True
    >>> gedkit.pairwise(graphs[:1], graphs[1:]).distance.tolist()
    [[2.0, 3.0]]
    """
    # Everything that can be wrong with the arguments is checked here, before any process starts.
    rows = [as_graph(g, node_label, edge_label) for g in graphs_a]
    square = graphs_b is None
    cols = rows if square else [as_graph(g, node_label, edge_label) for g in graphs_b]
    model = get_costs(costs)
    solver = get_solver(method, **options)
    Budget(timeout=timeout, memory=memory)
    jobs = _resolve_jobs(n_jobs)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise OptionError(f"chunk_size must be a positive integer, got {chunk_size!r}")

    pairs = _pairs(len(rows), len(cols), square, mirror=square and model.symmetric)
    chunk = chunk_size or max(1, min(_MAX_CHUNK, len(pairs) // (4 * jobs)))
    chunks = [pairs[k : k + chunk] for k in range(0, len(pairs), chunk)]
    worker = _PairSolver(rows, cols, model, solver, timeout, memory, diagonal=square)

    bounds = np.zeros((3, len(rows), len(cols)))
    for done, values in _run(worker, chunks, min(jobs, len(chunks)), progress, len(pairs)):
        i, j = done[:, 0], done[:, 1]
        bounds[:, i, j] = values.T
        if square and model.symmetric:
            bounds[:, j, i] = values.T
    return PairwiseResult(bounds[0], bounds[1], bounds[2], solver.name)


class _PairSolver:
    """What a worker needs, received once; turns chunks of index pairs into bounds."""

    def __init__(
        self,
        rows: Sequence[Graph],
        cols: Sequence[Graph],
        model: CostModel,
        solver: Solver,
        timeout: float | None,
        memory: int | None,
        diagonal: bool,
    ):
        self.rows, self.cols = rows, cols
        self.model, self.solver = model, solver
        self.timeout, self.memory = timeout, memory
        self.diagonal = diagonal

    def solve_chunk(self, pairs: np.ndarray) -> np.ndarray:
        """``(lower_bound, upper_bound, time)`` for each ``(i, j)`` row of ``pairs``."""
        out = np.zeros((len(pairs), 3))
        for k, (i, j) in enumerate(pairs.tolist()):
            budget = Budget(timeout=self.timeout, memory=self.memory)
            problem = self.model.compile(self.rows[i], self.cols[j])
            # Costs are non-negative, so a free identity map proves distance 0.
            if self.diagonal and i == j and problem.cost(np.arange(problem.n1)) == 0:
                continue
            result = self.solver.solve(problem, budget)
            out[k] = result.lower_bound, result.upper_bound, result.time
        return out


def _pairs(n_rows: int, n_cols: int, square: bool, mirror: bool) -> np.ndarray:
    """The ``(i, j)`` entries to solve; with ``mirror`` only the upper triangle."""
    i, j = np.indices((n_rows, n_cols)).reshape(2, -1)
    keep = i <= j if mirror else np.ones(len(i), dtype=bool)
    return np.stack([i[keep], j[keep]], axis=1)


def _resolve_jobs(n_jobs: int) -> int:
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise OptionError(f"n_jobs must be a non-zero integer (-1 = all cores), got {n_jobs!r}")
    if n_jobs > 0:
        return n_jobs
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    jobs = (cores or 1) + 1 + n_jobs
    if jobs < 1:
        raise OptionError(f"n_jobs={n_jobs} leaves no worker on {cores} cores")
    return jobs


def _run(worker: _PairSolver, chunks: list[np.ndarray], jobs: int, progress, total: int):
    """Yield ``(pairs, values)`` per chunk, from this process or a pool of ``jobs``."""
    pool = _pool(worker, jobs) if jobs > 1 else None
    finished = False
    try:
        if pool is None:
            bar = _progress_bar(progress, total)
            for pairs in chunks:
                yield pairs, worker.solve_chunk(pairs)
                bar.update(len(pairs))
        else:
            futures = {pool.submit(_solve_chunk, pairs): pairs for pairs in chunks}
            # the bar (and its monitor thread) only after the workers have been forked
            bar = _progress_bar(progress, total)
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in done:
                    yield futures[future], future.result()
                    bar.update(len(futures[future]))
        bar.close()
        finished = True
    except BrokenProcessPool as exc:
        raise GedkitError(
            "a pairwise worker process died (out of memory?); try fewer n_jobs or a memory cap"
        ) from exc
    finally:
        if pool is not None:
            if not finished:  # an error or Ctrl-C: stop the solves still running, don't wait
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    process.terminate()
            pool.shutdown(wait=True, cancel_futures=True)


# -- worker processes ------------------------------------------------------------------------

_WORKER: _PairSolver | None = None


def _init_worker(worker: _PairSolver) -> None:
    global _WORKER
    _WORKER = worker
    # Ctrl-C is the parent's to handle: it stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _solve_chunk(pairs: np.ndarray) -> np.ndarray:
    assert _WORKER is not None, "worker process was not initialised"
    return _WORKER.solve_chunk(pairs)


def _pool(worker: _PairSolver, jobs: int) -> ProcessPoolExecutor | None:
    """A pool whose workers hold ``worker``; None (run here) when no pool can be had."""
    methods = multiprocessing.get_all_start_methods()
    # fork hands the state over without pickling, so user cost callables (lambdas) work too
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    if context.get_start_method() != "fork":
        try:
            pickle.dumps(worker)
        except Exception as exc:  # a lambda in a cost model, an unpicklable label...
            warnings.warn(
                f"running pairwise in one process: its inputs cannot be sent to worker "
                f"processes ({exc})",
                RuntimeWarning,
                stacklevel=4,
            )
            return None
    try:
        return ProcessPoolExecutor(
            jobs, mp_context=context, initializer=_init_worker, initargs=(worker,)
        )
    except (OSError, ImportError, NotImplementedError) as exc:  # no semaphores on this system
        warnings.warn(
            f"running pairwise in one process: cannot start worker processes ({exc})",
            RuntimeWarning,
            stacklevel=4,
        )
        return None


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(progress: bool | None, total: int):
    if progress is False or total == 0:
        return _NoBar()
    from tqdm import tqdm

    auto = progress is None
    return tqdm(
        total=total,
        unit="pair",
        desc="pairwise",
        file=sys.stderr,
        disable=None if auto else False,  # None: only on a terminal
        delay=_PROGRESS_DELAY if auto else 0,
    )
