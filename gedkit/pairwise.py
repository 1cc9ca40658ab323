"""Distance matrices: one GED computation per pair of graphs, spread over processes.

Every pair is bounded by default (:data:`DEFAULT_TIMEOUT` seconds), and nothing a batch found is
lost: a pair that cannot be solved (a bad graph, a cost function that raises, a worker process
the system killed) becomes a *failed* entry with its reason while the rest go on, and Ctrl-C
returns the pairs already done, the others marked *pending*.

Worker processes receive the graphs, the cost model and the configured solver once, then
chunks of index pairs over a pipe, and send each pair's bounds back as soon as it is solved: the
progress moves pair by pair, a pair that runs long can be named, and a worker that dies costs
only the pair it was on (a fresh worker takes the rest of its chunk).

With ``client=`` (a ``dask.distributed.Client``) the same chunks are the tasks of a Dask
cluster instead: the graphs, the cost model and the solver are broadcast to every worker once,
each task solves one chunk, and a worker that is lost has its tasks run again elsewhere by the
scheduler. Both run through one layer (:class:`_Chunks` cuts the work, :class:`_Gather` takes
every finished pair into the result, the progress and the ``out=`` file), so the matrices are
the same whichever ran them.

With ``out=PATH`` every finished pair is written to an SQLite file as it arrives (committed
once per chunk, see :mod:`gedkit.pairwise_store`), and the same call run again reads the pairs
done and solves only the others.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import numbers
import os
import pickle
import select
import signal
import sys
import threading
import time
import types
import warnings
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

import numpy as np

from gedkit.budget import (
    PAIR_TIMEOUT,
    Budget,
    InterruptedWarning,
    heuristic_stop,
    interrupted,
    interruptible,
    release_freed,
    resident,
    setup_bytes,
    solve_within,
)
from gedkit.errors import (
    ClusterError,
    ClusterLost,
    GedkitError,
    GraphError,
    OptionError,
    Words,
    counted,
    pace,
)
from gedkit.text import quoted
from gedkit.workers import resolve_jobs

if TYPE_CHECKING:
    from gedkit.costs import CostModel
    from gedkit.graph import Graph
    from gedkit.problem import Problem
    from gedkit.result import Result
    from gedkit.solvers import Solver

__all__ = ["DEFAULT_TIMEOUT", "STATUSES", "PairwiseResult", "pairwise"]

#: seconds per pair when ``timeout`` is not given; ``timeout=None`` asks for no limit
DEFAULT_TIMEOUT = PAIR_TIMEOUT
#: what an entry of :attr:`PairwiseResult.status` can be
STATUSES = ("optimal", "bounded", "failed", "pending")

_MAX_CHUNK = 32  # pairs per task: small enough to balance load
_MAX_DASK_CHUNK = 256  # pairs per Dask task: the scheduler pays about a millisecond a task
_FIRST_DASK_CHUNK = 8  # ... while the pairs' pace is not known (see _PacedChunks)
_DASK_TASK_SECONDS = 2.0  # ... and the work a task aims at once it is
_DASK_WINDOW = 4  # Dask tasks in flight per worker thread
_BAR_DELAY = 2.0  # seconds of work before the automatic progress bar appears
_LINE_EVERY = 10.0  # seconds between plain progress lines when stderr is not a terminal
_LONG_PAIR = 10.0  # a pair running this long (or twice its time limit) gets a notice
_TICK = 0.25  # seconds between looks at the workers (memory, long pairs, progress)
_MEMORY_SHARE = 0.9  # of the machine's memory, split between the worker processes
_GATHER_EVERY = 0.02  # seconds the pool's parent lets entries gather before it takes them
_QUEUED_SECONDS = 0.1  # a pool worker is given chunks until it holds this much work
_QUEUED_CHUNKS = 8  # ... and at most this many chunks
_ORPHAN_CHECK = 1.0  # seconds between a waiting worker's looks whether its parent is alive


@dataclass(eq=False)
class PairwiseResult:
    """Bounds on the GED of every pair: entry ``[i, j]`` is for ``graphs_a[i]`` → ``graphs_b[j]``.

    Attributes
    ----------
    lower_bound, upper_bound : ndarray of float, shape (len(graphs_a), len(graphs_b))
        Proven bounds per pair. A failed or pending entry holds the bounds nothing was needed
        to prove: 0 and infinity.
    time : ndarray of float
        Seconds spent on each pair (0 where nothing was solved: the diagonal, failed bad
        graphs, pending pairs; the mirrored half of a symmetric matrix holds the time of the
        pair it copies).
    status : ndarray of str
        Per entry, one of :data:`STATUSES`: ``"optimal"`` (bounds meet), ``"bounded"`` (solved
        within the limits, not proven optimal), ``"failed"`` (see ``errors``), ``"pending"``
        (not done: the batch was interrupted).
    method : str
        The solver that produced the bounds.
    pairs : ndarray of int, shape (k, 2)
        The ``(i, j)`` entries that were to be computed; with a symmetric matrix the others
        mirror these (``i <= j``).
    timeout : float or None
        The time limit per pair used (None: none).
    errors : dict
        ``(i, j) -> reason`` for every failed entry.
    interrupted : bool
        Whether Ctrl-C stopped the batch before every pair was done.
    node_maps : dict or None
        With ``node_maps=True``: ``(i, j) -> forward`` for every pair of :attr:`pairs` solved
        (or resumed), where ``forward[u]`` is the node of ``graphs_b[j]`` (index) that node
        ``u`` of ``graphs_a[i]`` becomes, -1 where it is deleted; the map realises
        ``upper_bound[i, j]``. None otherwise.
    out : str or None
        The results file the pairs were written to (``out=``).
    resumed : int
        How many pairs were read from ``out`` instead of solved.
    stopped : dict
        ``reason -> count`` of the pairs that stopped unproven for another reason than the
        time limit (the memory cap, kernels not compiled in time...), as their solves'
        ``stats["stopped"]`` says it; resumed pairs count as their ``out`` file recorded.
    """

    lower_bound: np.ndarray
    upper_bound: np.ndarray
    time: np.ndarray
    status: np.ndarray
    method: str
    pairs: np.ndarray
    timeout: float | None
    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    interrupted: bool = False
    node_maps: dict[tuple[int, int], np.ndarray] | None = None
    out: str | None = None
    resumed: int = 0
    stopped: dict[str, int] = field(default_factory=dict)

    @property
    def distance(self) -> np.ndarray:
        """The best known distances (= ``upper_bound``; exact where ``optimal``)."""
        return self.upper_bound

    @property
    def optimal(self) -> np.ndarray:
        """True where the bounds meet, so the distance is exact."""
        return self.lower_bound >= self.upper_bound

    @property
    def gap(self) -> np.ndarray:
        """Relative gap ``(upper - lower) / upper`` per entry (0 where optimal, 1 where
        nothing is known)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = (self.upper_bound - self.lower_bound) / self.upper_bound
        return np.where(self.optimal, 0.0, np.nan_to_num(gap, nan=1.0))

    @property
    def shape(self) -> tuple[int, int]:
        return self.upper_bound.shape

    def counts(self) -> dict[str, int]:
        """How many of :attr:`pairs` have each status.

        >>> import gedkit
        >>> gedkit.pairwise([gedkit.Graph([0]), gedkit.Graph([0, 1])]).counts()
        {'optimal': 3, 'bounded': 0, 'failed': 0, 'pending': 0}
        """
        status = self.status[tuple(self.pairs.T)] if len(self.pairs) else np.array([])
        return {name: int(np.sum(status == name)) for name in STATUSES}

    def summary(self) -> str:
        """One line: the limit used, how many pairs are not proven optimal and their mean gap,
        how many failed or are pending.

        >>> import gedkit
        >>> gedkit.pairwise([gedkit.Graph([0]), gedkit.Graph([0, 1])]).summary()
        '3 pairs, time limit 1 s per pair: all optimal'
        >>> gedkit.pairwise([gedkit.Graph([0])]).summary()
        '1 pair, time limit 1 s per pair: all optimal'
        """
        counts = self.counts()
        limit = _limit(self.timeout)
        parts = []
        if counts["bounded"]:
            bounded = self.status[tuple(self.pairs.T)] == "bounded"
            gaps = self.gap[tuple(self.pairs.T)][bounded]
            # what stopped them, where not the time limit (the memory cap: a pair stopped in
            # 1 s of 5 read as if more time would prove it)
            why = "".join(f"; {n:,} stopped by: {reason}" for reason, n in self.stopped.items())
            parts.append(
                f"{counts['bounded']:,} not proven optimal (mean gap {100 * gaps.mean():.1f}%, "
                f"at most {100 * gaps.max():.1f}%{why})"
            )
        if counts["failed"]:
            parts.append(f"{counts['failed']:,} failed")
        if counts["pending"]:
            parts.append(f"{counts['pending']:,} not done (interrupted)")
        if not parts:
            parts = ["all optimal"]
        elif counts["optimal"]:
            parts.insert(0, f"{counts['optimal']:,} optimal")
        return f"{counted(len(self.pairs), 'pair')}, {limit}: {', '.join(parts)}"

    def failed_pairs(self) -> list[tuple[int, int]]:
        """The entries of :attr:`pairs` that failed (see :attr:`errors`)."""
        if not len(self.pairs):
            return []
        failed = self.status[tuple(self.pairs.T)] == "failed"  # (4.5 M pairs as tuples: 0.5 GB)
        return [(i, j) for i, j in self.pairs[failed].tolist()]

    def to_dict(self, rows: Sequence | None = None, columns: Sequence | None = None) -> dict:
        """The matrices as lists, indexed by ``rows`` x ``columns`` (names of the graphs;
        default their positions), an unknown upper bound (failed, pending) as None; what
        ``gedkit pairwise --json`` prints. With node maps, each pair's as ``forward`` lists.

        >>> import gedkit
        >>> d = gedkit.pairwise([gedkit.Graph([0]), gedkit.Graph([0, 1])]).to_dict()
        >>> d["rows"], d["distance"], d["counts"]["optimal"]
        ([0, 1], [[0.0, 1.0], [1.0, 0.0]], 3)
        """
        return {key: list(value) if isinstance(value, _Items) else value
                for key, value in self._json_fields(rows, columns)}

    def to_json(self, rows: Sequence | None = None, columns: Sequence | None = None) -> str:
        """:meth:`to_dict` as JSON."""
        import json

        return json.dumps(self.to_dict(rows, columns), allow_nan=False)

    def write_json(self, stream: TextIO, rows: Sequence | None = None,
                   columns: Sequence | None = None) -> None:
        """:meth:`to_json` and a newline written to ``stream`` a matrix row at a time (the
        whole text of a 3,000 x 3,000 job took 2.9 GB in memory)."""
        import json

        stream.write("{")
        for k, (key, value) in enumerate(self._json_fields(rows, columns)):
            stream.write(f"{', ' if k else ''}{json.dumps(key)}: ")
            if isinstance(value, _Items):
                stream.write("[")
                for r, item in enumerate(value):
                    stream.write(f"{', ' if r else ''}{json.dumps(item, allow_nan=False)}")
                stream.write("]")
            else:
                stream.write(json.dumps(value, allow_nan=False))
        stream.write("}\n")

    def _json_fields(self, rows: Sequence | None, columns: Sequence | None
                     ) -> Iterator[tuple[str, Any]]:
        """:meth:`to_dict`'s keys and values in order, each long list as :class:`_Items`
        (made an item at a time)."""
        rows = list(range(self.shape[0])) if rows is None else list(rows)
        columns = list(range(self.shape[1])) if columns is None else list(columns)
        yield from (("rows", rows), ("columns", columns), ("method", self.method),
                    ("timeout", self.timeout))
        for key, matrix in (("distance", self.distance), ("lower_bound", self.lower_bound),
                            ("upper_bound", self.upper_bound), ("optimal", self.optimal),
                            ("time", self.time), ("status", self.status)):
            yield key, _Items(_finite(row.tolist()) if row.dtype.kind == "f" else row.tolist()
                              for row in matrix)
        yield "errors", [{"row": rows[i], "column": columns[j], "error": self.errors[i, j]}
                         for i, j in self.failed_pairs()]
        yield from (("counts", self.counts()),
                    # reason -> pairs, where not the time limit
                    ("stopped", self.stopped), ("interrupted", self.interrupted))
        if self.node_maps is not None:
            yield "node_maps", _Items({"row": rows[i], "column": columns[j],
                                       "forward": np.asarray(m).tolist()}
                                      for (i, j), m in self.node_maps.items())

    def __repr__(self) -> str:
        rows, cols = self.shape
        counts = ", ".join(f"{name}={n}" for name, n in self.counts().items() if n)
        return f"<PairwiseResult {rows}x{cols} method={self.method} {counts or 'empty'}>"


def pairwise(
    graphs_a: Iterable[Any],
    graphs_b: Iterable[Any] | None = None,
    costs: str | CostModel = "uniform",
    method: str = "auto",
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    memory: int | None = None,
    n_jobs: int = 1,
    client: Any = None,
    out: str | os.PathLike | None = None,
    node_maps: bool = False,
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
        and with a symmetric cost model each unordered pair is solved once. A graph that cannot
        be read makes its entries failed, not the batch.
    costs : str or CostModel
        A cost-model name (see :func:`gedkit.costs.available`) or a model object.
    method : str
        A registered solver (see :func:`gedkit.methods`).
    timeout : float or None
        Seconds per pair, :data:`DEFAULT_TIMEOUT` (1 s) unless given; ``None`` runs every pair
        to its proof, however long. Reaching it never raises: that entry holds the bounds found
        so far, with status ``"bounded"`` unless they met.
    memory : int, optional
        Bytes per pair, passed to every solve (see :func:`gedkit.ged`); as in a fresh
        process's call, a process's start-ups (numba's ~150 MB) count in it, and are paid
        only where they fit beside the largest pair's set-up. What the job itself holds is
        outside every pair's cap: the graphs (read from files here, each with the dense
        matrices it keeps once a pair has used it) and the results. With ``n_jobs > 1``
        each worker process is also watched: one whose resident memory passes its share of the
        machine (90% of its memory / the number of workers) is stopped, its pair becomes a
        failed entry, and a fresh worker goes on with the rest.
    n_jobs : int
        Worker processes; -1 uses every available core, -2 all but one, and so on.
    client : dask.distributed.Client, optional
        Run on this Dask cluster instead of local processes (needs ``gedkit[dask]``): the
        graphs, cost model and solver go to every worker once, chunks of pairs are its tasks,
        a lost worker's tasks are run again on the others (a chunk that kills workers every
        time fails its pairs, like a dying worker process). The result is the one a local run
        gives.
    out : str or path, optional
        An SQLite file where every finished pair is written as it arrives (its bounds, status,
        time and node map; see :mod:`gedkit.pairwise_store`). Run the same call again with
        the same ``out`` and it resumes: pairs already optimal or bounded are read, not
        solved (:attr:`PairwiseResult.resumed` counts them); failed ones are tried again. A
        file holding another job (other graphs, costs, method, options or limits) is refused.
        Ctrl-C, a killed process or a lost worker lose at most the chunks in flight.
    node_maps : bool
        Keep each computed pair's node map in :attr:`PairwiseResult.node_maps`.
    progress : bool, optional
        ``True``: a progress bar on stderr; ``False``: nothing. By default a bar appears on a
        terminal once the work has taken a couple of seconds, and where stderr is not a
        terminal (a file, a notebook) a plain line says every 10 s how far the batch is. Either
        way a pair that runs long (10 s, or twice its time limit) is named once.
    chunk_size : int, optional
        Pairs per task handed to a worker (chosen automatically by default).
    node_label, edge_label : str, list of str or "*", optional
        Label attributes of NetworkX inputs, as in :func:`gedkit.ged`.
    **options
        Options of the chosen method.

    Returns
    -------
    PairwiseResult
        Matrices ``distance`` (= ``upper_bound``), ``lower_bound``, ``optimal``, ``time`` and
        ``status``, the failed entries' ``errors``, and ``summary()``. A failed or pending
        entry has bounds 0 and infinity. After Ctrl-C the pairs done so far come back, the
        others ``"pending"``, with an :class:`InterruptedWarning`.

    Raises
    ------
    OptionError, CostModelError
        For an unknown method or cost model, or a bad option value, before any work starts.
    GraphError
        For a directed graph that would meet an undirected one (see :func:`check_directions`),
        or directed graphs given to a method that takes undirected graphs only, before any
        work starts.
    MissingDependencyError
        For ``client=`` without Dask installed (``pip install 'gedkit[dask]'``).
    GedkitError
        For an ``out`` file that holds another job or is not a results file.

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
    >>> bool(m.optimal.all()), m.counts()["optimal"]
    (True, 6)
    >>> gedkit.pairwise(graphs[:1], graphs[1:]).distance.tolist()
    [[2.0, 3.0]]
    >>> gedkit.pairwise(graphs[:1], graphs[1:], node_maps=True).node_maps[0, 1].tolist()
    [0, -1]
    """
    from gedkit.costs import get as get_costs
    from gedkit.solvers import get_solver

    # Everything that can be wrong with the arguments is checked here, before any process starts.
    model = get_costs(costs)
    for name in ("threshold", "fixed", "forbidden", "on_improve"):
        if name in options:  # (gedkit.ged's keywords: "method 'auto' has no option" was said)
            raise OptionError(f"pairwise takes no {name}= (gedkit.ged's, for one pair)")
    solver = get_solver(method, **options)
    Budget(timeout=timeout, memory=memory)  # checks both values
    jobs = resolve_jobs(n_jobs)
    if client is not None:
        from gedkit.cluster import as_client

        client = as_client(client)
        if jobs != 1:
            raise OptionError(Words("give n_jobs= (local processes) or client= (a Dask "
                                    "cluster), not both",
                                    "--jobs (local processes) and --scheduler (a Dask "
                                    "cluster) cannot be combined"))
    if chunk_size is not None and not _is_int(chunk_size, 1):
        raise OptionError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if progress not in (None, True, False):
        raise OptionError(f"progress must be True, False or None (automatic), got {progress!r}")
    if out is not None and not _is_path(out):
        raise OptionError(f"out must be a file path (a non-empty str or os.PathLike), got "
                          f"{out!r}")
    if node_maps not in (True, False):
        raise OptionError(f"node_maps must be True or False, got {node_maps!r}")
    rows, bad_rows = _graphs(graphs_a, "graphs_a", node_label, edge_label)
    square = graphs_b is None
    cols, bad_cols = (
        (rows, bad_rows) if square else _graphs(graphs_b, "graphs_b", node_label, edge_label)
    )

    check_directions(rows, None if square else cols)
    _check_scale_once(model, rows, cols)
    if memory is not None and None not in (largest := _largest(rows, cols)):
        # a cap the largest pair cannot be set up in is refused, as gedkit.ged and searches
        # refuse it (pairwise went on, each such pair far over its cap)
        from gedkit.budget import check_setup_fits

        check_setup_fits(*largest, Budget(memory=memory))
    if any(getattr(g, "directed", False) for g in (*rows, *(() if square else cols))):
        solver.check_arcs()  # (every pair but the diagonal failed, one by one)
    mirror = square and model.symmetric
    pairs = _pairs(len(rows), len(cols), square, mirror)
    shape = (len(rows), len(cols))
    result = PairwiseResult(
        lower_bound=np.zeros(shape), upper_bound=np.full(shape, np.inf), time=np.zeros(shape),
        status=np.full(shape, "pending", dtype=f"<U{max(map(len, STATUSES))}"),
        method=solver.name, pairs=pairs, timeout=timeout,
        node_maps={} if node_maps else None,
        out=None if out is None else os.fspath(out),
    )
    store = None
    lost: BaseException | None = None  # the Dask scheduler's connection, lost mid-job
    if out is not None:
        from gedkit.pairwise_store import PairStore, job_header

        store = PairStore(out, job_header(rows, cols, square, model, solver, timeout, memory))
    try:
        gather = _Gather(result, mirror, store, solver.name)
        done = gather.resume()
        worker = _PairSolver(rows, cols, model, solver, timeout, memory, diagonal=square)
        todo, freed, failed = _to_do(pairs, done, bad_rows, bad_cols, square, worker, gather)
        gather.chunk_done()
        gather.shown = shown = _Progress(progress, len(todo) + freed + failed, timeout, rows,
                                         cols, resumed=len(done))
        # the progress counts every pair to do, as before (a job's 403 pairs of unreadable
        # graphs were not: it ended at 20,100 of a summary's 20,503)
        for status, count in (("optimal", freed), ("failed", failed)):
            for _ in range(count):
                shown.add(status)
        try:
            result.interrupted = _run(worker, todo, jobs, client, chunk_size, gather, shown)
        except KeyboardInterrupt:
            result.interrupted = True
        except (OSError, TimeoutError) as exc:  # (Dask's lost connections are OSErrors)
            if client is None or (client.status == "running" and not _no_workers(exc)):
                raise
            lost = exc  # the scheduler lost, or every worker: the pairs done go with the
            # error (a CSV the command line would have written lost them all, 281 pairs)
        finally:
            shown.close()
    finally:
        if store is not None:
            store.close()
    if result.interrupted or lost is not None:
        # an entry Ctrl-C caught half-recorded is pending like the others, with their bounds
        pending = result.status == "pending"
        result.lower_bound[pending], result.upper_bound[pending] = 0.0, math.inf
        result.time[pending] = 0.0
    if lost is not None:
        from gedkit.cluster import said

        counts = result.counts()
        kept = f" (and in {result.out})" if result.out else ""
        workers = _no_workers(lost)
        what = lost_cluster(workers, why=said(lost))
        error = ClusterLost(
            f"{what}: {len(pairs) - counts['pending']} of {len(pairs)} pairs done, in the "
            f"error's result{kept}; the others have status 'pending'")
        error.result, error.workers = result, workers
        raise error from None
    if result.interrupted:
        counts = result.counts()
        kept = f"; those done are in {result.out}" if result.out else ""
        warnings.warn(
            f"pairwise was interrupted: {len(pairs) - counts['pending']} of {len(pairs)} pairs "
            f"done; the {counts['pending']} others have status 'pending' (bounds 0 and inf)"
            f"{kept}",
            InterruptedWarning,
            stacklevel=2,
        )
    return result


class _Entry(NamedTuple):
    """One pair's outcome, as a worker sends it back."""

    lower: float
    upper: float
    time: float
    status: str
    error: str | None = None
    interrupted: bool = False  # the solve was stopped by Ctrl-C: stop the batch
    node_map: bytes | None = None  # int32 indices into the column graph, -1: deleted
    stopped: str | None = None  # why an unproven solve stopped, where not the time limit

    @classmethod
    def failed(cls, reason: str, seconds: float = 0.0) -> _Entry:
        """A pair that got no bounds, and why."""
        return cls(0.0, math.inf, seconds, "failed", reason)


def _solve(solver: Solver, problem: Problem, budget: Budget) -> Result:
    """The one place where pairwise runs a solve."""
    return solve_within(solver, problem, budget)


class _PairSolver:
    """What a worker needs, received once; turns an index pair into an :class:`_Entry`."""

    def __init__(
        self,
        rows: Sequence[Graph | None],
        cols: Sequence[Graph | None],
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
        # what this process grew by paying its start-ups here: counted in every pair's
        # memory cap, as a fresh gedkit.ged call counts them in its own
        self.start_up_bytes = 0

    def prepare(self) -> None:
        """Pay this process's start-ups once (:func:`gedkit.pacing.pay_start_ups`), on the
        two smallest graphs: a fresh process (a Dask worker, a pool's, or the caller's own)
        would otherwise answer its pairs with the cheap bounds a short limit affords. Under
        a memory cap numba is started only where it fits beside the largest pair's set-up,
        and what the start-ups took counts in every pair's cap (a square matrix of two
        2,000-node graphs under memory=300M grew by 371 MiB: numba's start, then a pair
        given the whole cap)."""
        from gedkit.pacing import pay_start_ups

        small = sorted((g for g in self.rows if g is not None), key=lambda g: g.n + g.m)[:2]

        cap = self._start_up_memory()

        def solve(limit: float) -> None:
            if small:
                _solve(self.solver, self.model.compile(small[0], small[-1]),
                       Budget(timeout=limit, memory=cap))

        before = resident()
        pay_start_ups(self.solver, self.timeout, solve, cap)
        self.start_up_bytes = max(self.start_up_bytes, resident() - before)

    def _start_up_memory(self) -> int | None:
        """What the start-ups may take of the memory cap: what the largest pair's set-up
        leaves of it."""
        if self.memory is None:
            return None
        return max(1, self.memory - setup_bytes(*(n or 0 for n in _largest(self.rows,
                                                                          self.cols))))

    def _budget(self) -> Budget:
        """A pair's budget: its time limit, and its memory cap less the start-ups paid."""
        return Budget(timeout=self.timeout, memory=self.memory,
                      start_resident=resident() - self.start_up_bytes)

    def free(self, i: int) -> _Entry | None:
        """Entry ``(i, i)`` of a square matrix where matching the graph to itself is free
        (distance 0, no solve); None where it is not, the pair cannot be compiled (its
        solve will say why), or compiling it runs the user's code: that runs in the workers,
        where a cost function that kills its process fails its pair, not the batch."""
        if not _built_in(self.model):
            return None
        _release_before(self.rows[i], self.cols[i])
        try:
            problem = self.model.compile(self.rows[i], self.cols[i])
            identity = np.arange(problem.n1)
            if problem.cost(identity) == 0:
                return _Entry(0.0, 0.0, 0.0, "optimal", node_map=_packed(identity))
        except Exception:  # a user cost function, a label the model rejects...
            pass
        return None

    def entry(self, i: int, j: int) -> _Entry:
        """Bounds for ``rows[i]`` → ``cols[j]``; any error becomes a failed entry (only
        KeyboardInterrupt goes through)."""
        _release_before(self.rows[i], self.cols[j])
        budget = self._budget()
        try:
            problem = self.model.compile(self.rows[i], self.cols[j])
            # Costs are non-negative, so a free identity map proves distance 0.
            identity = np.arange(problem.n1)
            if self.diagonal and i == j and problem.cost(identity) == 0:
                return _Entry(0.0, 0.0, 0.0, "optimal", node_map=_packed(identity))
            result = _solve(self.solver, problem, budget)
        except Exception as exc:  # a user cost function, a label the model rejects, memory...
            return _Entry.failed(_reason(exc), budget.elapsed())
        # (a stage the limit left out, gelato's network: said by solve_within, "time limit:
        # ..." where more time would help, not "a gap more time does not close")
        stopped = result.stats.get("stopped")
        if (stopped is None and not result.optimal and not getattr(self.solver, "exact", True)
                and (self.timeout is None or result.time < _HEURISTIC_ENDED * self.timeout)):
            # a heuristic that ended on its own: more time proves nothing (the note told
            # users of gelato, done in 0.2 s of 5, that --timeout would prove more)
            stopped = heuristic_stop(self.solver.name, "it ended before the time limit, with "
                                     "a gap more time does not close")
        return _Entry(
            result.lower_bound, result.upper_bound, result.time,
            "optimal" if result.optimal else "bounded",
            interrupted=stopped == "interrupted",
            node_map=_packed(result.assignment),
            stopped=None if result.optimal or not _other_than_time(stopped) else str(stopped),
        )


def _largest(rows: Sequence[Graph | None], cols: Sequence[Graph | None]) -> tuple:
    """The node counts of the largest graph of each side (None for a side without one)."""
    return tuple(max((g.n for g in side if g is not None), default=None)
                 for side in (rows, cols))


#: a pair whose set-up takes more than this first hands what was freed back to the system
_RELEASE_BEFORE = 16 << 20


def _release_before(g1: Graph | None, g2: Graph | None) -> None:
    """Before a large pair, what the pairs before it freed back to the system (see
    :func:`gedkit.budget.release_freed`): each pair's memory cap counts from its own start,
    and memory the process kept would be reused unseen."""
    if g1 is not None and g2 is not None and setup_bytes(g1.n, g2.n) > _RELEASE_BEFORE:
        release_freed()


def check_directions(rows: Sequence[Any], cols: Sequence[Any] | None = None,
                     named: Any = None) -> None:
    """Refuse, up front, a directed graph that would meet an undirected one: the rows against
    themselves (``cols`` None) or against ``cols``. Every such pair failed, one by one, with
    the same reason (the command line exited 1, where a directed graph against an undirected
    one is an error, status 2). ``named(side, k)`` names graph ``k`` of the rows (side 0) or
    columns (1); by default ``graphs_a[k] ('NAME')``. Entries that are no graph (unreadable)
    are left to fail their pairs.

    >>> from gedkit import Graph
    >>> check_directions([Graph([0], directed=True, name="d"), Graph([0])])
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: graphs_a[0] ('d') is directed and graphs_a[1] is not: ...
    """
    from gedkit.graph import mixed_directions

    def first(graphs: Sequence[Any], directed: bool) -> int | None:
        return next((k for k, g in enumerate(graphs)
                     if getattr(g, "directed", None) is directed), None)

    def default(side: int, k: int) -> str:
        g = (rows, cols)[side][k]
        name = getattr(g, "name", None)
        return f"graphs_{'ab'[side]}[{k}]" + (f" ({quoted(name)})" if name else "")

    meet = [(0, 0)] if cols is None else [(0, 1), (1, 0)]  # (directed side, undirected side)
    for d_side, u_side in meet:
        d = first((rows, cols)[d_side], True)
        u = first((rows, cols)[u_side], False)
        if d is not None and u is not None:
            name = named or default
            raise mixed_directions(name(d_side, d), name(u_side, u))


def _check_scale_once(model: CostModel, rows: list, cols: list) -> None:
    """A label-equality model too small to tell distances apart, or whose sums overflow on
    the largest pair, is refused once, as ``gedkit.ged`` refuses it (every pair failed with
    the same reason, one stderr line each on the command line)."""
    from gedkit.costs.base import _check_scale

    const = model.equality_costs
    if const is None:
        return
    largest = [max((g.n + g.m for g in side if g is not None), default=0)
               for side in (rows, cols)]
    _check_scale(model, max(const), sum(largest))


def _built_in(model: CostModel) -> bool:
    """Whether ``model`` is one of gedkit's own (no user code in it)."""
    from gedkit.costs import CallableCosts

    return (type(model).__module__.startswith("gedkit.costs.")
            and not isinstance(model, CallableCosts))


#: a heuristic's solve that took less than this share of the time limit ended on its own
_HEURISTIC_ENDED = 0.9


def _other_than_time(stopped: Any) -> bool:
    """Whether a solve's ``stats["stopped"]`` names another cause than its time limit."""
    return (isinstance(stopped, str) and stopped != "interrupted"
            and not stopped.startswith("time limit"))


def _packed(forward: Any) -> bytes:
    return np.asarray(forward, dtype="<i4").tobytes()


def _unpacked(node_map: bytes | None) -> np.ndarray | None:
    return None if node_map is None else np.frombuffer(node_map, dtype="<i4").astype(np.int64)


def _reason(exc: BaseException) -> str:
    """An exception as one line: gedkit's own messages as they are, others with their type."""
    text = " ".join(str(exc).split())
    if isinstance(exc, GedkitError):
        return text
    if isinstance(exc, MemoryError):
        return f"out of memory ({text})" if text else "out of memory"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _graphs(
    graphs: Iterable[Any], side: str, node_label: Any, edge_label: Any
) -> tuple[list[Graph | None], dict[int, str]]:
    """The inputs as Graphs (None where one cannot be read) and the reason per bad index."""
    from gedkit.inputs import as_graph, as_graphs
    from gedkit.io.common import Unreadable

    if isinstance(graphs, (str, bytes)) or not isinstance(graphs, Iterable):
        raise GraphError(
            f"{side} must be an iterable of graphs, got {type(graphs).__name__}; "
            "read a collection file with gedkit.read_all(path)"
        )
    items = list(graphs)
    try:
        # one notice for them all
        return list(as_graphs(items, node_label, edge_label, asked=True)), {}
    except Exception:  # one cannot be read: find which, one by one
        pass
    out: list[Graph | None] = []
    bad: dict[int, str] = {}
    for k, g in enumerate(items):
        try:
            out.append(as_graph(g, node_label, edge_label))
        except Exception as exc:  # one unreadable graph fails its entries, not the batch
            out.append(None)
            name = getattr(g, "name", None)
            # (a file's record: its reason names the file and line, the command line's words)
            bad[k] = (g.reason if isinstance(g, Unreadable) else
                      f"{side}[{k}]{f' ({quoted(name)})' if name else ''}: {_reason(exc)}")
    return out, bad


def _pairs(n_rows: int, n_cols: int, square: bool, mirror: bool) -> np.ndarray:
    """The ``(i, j)`` entries to solve; with ``mirror`` only the upper triangle."""
    i, j = np.indices((n_rows, n_cols)).reshape(2, -1)
    keep = i <= j if mirror else np.ones(len(i), dtype=bool)
    return np.stack([i[keep], j[keep]], axis=1)


def _to_do(pairs: np.ndarray, done: set[tuple[int, int]], bad_rows: dict, bad_cols: dict,
           square: bool, worker: _PairSolver, gather: _Gather) -> tuple[np.ndarray, int, int]:
    """The pairs still to solve (an index array: a list of tuples held ~330 bytes a pair, 1.5
    GB for 3,000 molecules before any solve), how many of the diagonal were free and how
    many failed (their graphs unreadable); those handed to ``gather``, as failed and as done
    (a Ctrl-C left the diagonal pending otherwise)."""
    keep = np.ones(len(pairs), dtype=bool)
    if done:
        width = int(pairs[:, 1].max()) + 1 if len(pairs) else 1
        known = np.array([i * width + j for i, j in done if j < width], dtype=np.int64)
        keep &= ~np.isin(pairs[:, 0] * width + pairs[:, 1], known)
    failed = 0
    if bad_rows or bad_cols:
        bad = (np.isin(pairs[:, 0], list(bad_rows)) | np.isin(pairs[:, 1], list(bad_cols)))
        for i, j in pairs[keep & bad].tolist():
            gather.pair(i, j, _Entry.failed(bad_rows.get(i) or bad_cols.get(j)))
            failed += 1
        keep &= ~bad
    freed = 0
    if square:
        for k in np.flatnonzero(keep & (pairs[:, 0] == pairs[:, 1])).tolist():
            i = int(pairs[k, 0])
            free = worker.free(i)
            if free is not None:
                gather.pair(i, i, free)
                keep[k] = False
                freed += 1
    return pairs[keep], freed, failed


def _is_path(value: Any) -> bool:
    """Whether ``value`` names a file as ``out=`` takes it: ``""`` named the current folder
    in the error, bytes and numbers raised a raw TypeError."""
    if not isinstance(value, (str, os.PathLike)):
        return False
    text = os.fspath(value)
    return isinstance(text, str) and text != ""


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= minimum


class _Gather:
    """Where every finished pair goes, whichever backend solved it: the result's matrices (and
    the mirrored entry), its node maps, the ``out`` file and the progress."""

    def __init__(self, result: PairwiseResult, mirror: bool, store: Any, method: str):
        self.result, self.mirror, self.store, self.method = result, mirror, store, method
        self.shown: _Progress | None = None

    def resume(self) -> set[tuple[int, int]]:
        """Record the pairs the ``out`` file holds as done; their indices."""
        done: set[tuple[int, int]] = set()
        if self.store is None:
            return done
        shape = self.result.shape
        for i, j, lower, upper, seconds, status, node_map, stopped in self.store.done():
            if not (0 <= i < shape[0] and 0 <= j < shape[1]):
                continue
            self._record(i, j, _Entry(lower, upper, seconds, status, node_map=node_map,
                                      stopped=stopped))
            done.add((i, j))
        self.result.resumed = len(done)
        return done

    def pair(self, i: int, j: int, entry: _Entry) -> None:
        """One pair done: recorded, queued for the file, counted. A solve Ctrl-C cut short
        leaves its pair pending, as it leaves the file (a resumed job solves it again in
        full): recorded, it was counted done but missing from the file, or "bounded" under
        no time limit; one that proved its bounds all the same is done."""
        if entry.interrupted and entry.status != "optimal":
            return
        self._record(i, j, entry)
        if self.store is not None:
            self.store.add(i, j, entry.lower, entry.upper, entry.time, entry.status,
                           entry.error, entry.node_map, self.method, entry.stopped)
        if self.shown is not None:
            self.shown.add(entry.status)

    def chunk_done(self) -> None:
        """A chunk is in: write what is queued (one transaction)."""
        if self.store is not None:
            self.store.commit()

    def _record(self, i: int, j: int, entry: _Entry) -> None:
        result = self.result
        for a, b in ((i, j), (j, i)) if self.mirror else ((i, j),):
            result.lower_bound[a, b], result.upper_bound[a, b] = entry.lower, entry.upper
            result.time[a, b], result.status[a, b] = entry.time, entry.status
            if entry.error is not None:
                result.errors[a, b] = entry.error
        if entry.stopped is not None and entry.status == "bounded":
            result.stopped[entry.stopped] = result.stopped.get(entry.stopped, 0) + 1
        if result.node_maps is not None and entry.node_map is not None:
            result.node_maps[i, j] = _unpacked(entry.node_map)


class _Chunks:
    """``todo`` (an index array) cut into the chunks every backend hands out (a task each),
    each a list of ``(i, j)`` made as it is taken (all at once held ~330 bytes a pair):
    ``chunk_size`` pairs, or by default about four chunks per worker, at most ``largest``
    pairs each. A deque's ``popleft``/``appendleft`` (a lost worker's chunk handed back)."""

    def __init__(self, todo: np.ndarray, parallel: int, chunk_size: int | None,
                 largest: int = _MAX_CHUNK):
        self.todo, self.at = np.asarray(todo, dtype=np.int64).reshape(-1, 2), 0
        self.size = chunk_size or max(1, min(largest, len(todo) // (4 * parallel)))
        self.back: deque[list[tuple[int, int]]] = deque()

    def __len__(self) -> int:
        return len(self.back) + -(-(len(self.todo) - self.at) // self.size)

    def __bool__(self) -> bool:
        return bool(self.back) or self.at < len(self.todo)

    @property
    def pairs(self) -> int:
        return len(self.todo) - self.at + sum(map(len, self.back))

    def popleft(self) -> list[tuple[int, int]]:
        if self.back:
            return self.back.popleft()
        part = self.todo[self.at:self.at + self.size]
        self.at += len(part)
        return list(map(tuple, part.tolist()))

    def appendleft(self, chunk: list[tuple[int, int]]) -> None:
        self.back.appendleft(chunk)

    def __iter__(self) -> Iterator[list[tuple[int, int]]]:
        while self:
            yield self.popleft()


class _PacedChunks:
    """A Dask job's pairs cut into tasks as they are sent, each of about
    :data:`_DASK_TASK_SECONDS` of work at the pace of the pairs done so far (the first
    :data:`_FIRST_DASK_CHUNK` pairs each, at most :data:`_MAX_DASK_CHUNK`; near the end no
    more than a worker's share of what is left): cut by count alone, 256 pairs of molecules
    that each ran to a 1 s limit made one task of minutes, with no progress shown and all of
    it lost to Ctrl-C."""

    def __init__(self, todo: np.ndarray, parallel: int):
        self.todo = np.asarray(todo, dtype=np.int64).reshape(-1, 2)
        self.at, self.parallel = 0, parallel
        self.pairs, self.seconds = 0, 0.0  # pairs done and the time their solves took

    def learn(self, entries: list[_Entry]) -> None:
        """The pace of ``entries``, a task's pairs done."""
        self.pairs += len(entries)
        self.seconds += sum(e.time for e in entries)

    def __iter__(self) -> Iterator[list[tuple[int, int]]]:
        while (left := len(self.todo) - self.at) > 0:
            size = _FIRST_DASK_CHUNK
            if self.pairs:
                size = int(_DASK_TASK_SECONDS * self.pairs / max(self.seconds, 1e-9))
            share = -(-left // self.parallel)
            size = max(1, min(size, _MAX_DASK_CHUNK, share))
            part = self.todo[self.at:self.at + size]
            self.at += len(part)
            yield list(map(tuple, part.tolist()))


def _run(
    worker: _PairSolver,
    todo: np.ndarray,
    jobs: int,
    client: Any,
    chunk_size: int | None,
    gather: _Gather,
    shown: _Progress,
) -> bool:
    """Solve ``todo``, handing each pair to ``gather`` as it is done, on the Dask ``client``,
    in this process or in ``jobs`` workers; True if Ctrl-C stopped a solve (KeyboardInterrupt
    goes through)."""
    if not len(todo):
        return False
    if client is not None:
        from gedkit.cluster import parallelism

        shown.parallel = parallel = parallelism(client)
        chunks = (_Chunks(todo, parallel, chunk_size) if chunk_size is not None
                  else _PacedChunks(todo, parallel))
        return _run_dask(worker, chunks, client, parallel, gather, shown)
    context = _context(worker) if jobs > 1 and len(todo) > 1 else None
    if context is None:
        return _run_here(worker, _Chunks(todo, 1, chunk_size), gather, shown)
    chunks = _Chunks(todo, jobs, chunk_size)
    shown.parallel = min(jobs, len(chunks))
    with _interrupts_raise():
        return _run_pool(worker, chunks, shown.parallel, context, gather, shown)


@contextlib.contextmanager
def _interrupts_raise() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in the parent of the worker processes (it stops the
    job, keeping what they sent) even where this process was started with it ignored, as
    in one process the solves take it: a background job of a script without job control,
    sent SIGINT, stopped with one process and ran to its end with two."""
    ignored = (threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_here(worker: _PairSolver, chunks: _Chunks, gather: _Gather,
              shown: _Progress) -> bool:
    # the start-ups once, outside the pairs' limits, as a worker process pays them: a short
    # limit never affords numba's, so without this every pair of a one-process job got the
    # cheap bounds (300 molecules at 10 ms a pair: 703 of 45,150 pairs proven, 32,058 on two
    # workers); a job of one pair pays them in its own limit, as gedkit.ged does (it solved
    # the pair twice: 9.7 s for a 2,000-node pair at 5 s)
    if chunks.pairs > 1:
        worker.prepare()
    running: dict[tuple[int, int], float] = {}
    # a first Ctrl-C makes the running solve return at once (its pair stays pending: see
    # _Gather.pair), a second one raises
    with interruptible(), _Ticker(shown, running):
        for chunk in chunks:
            for i, j in chunk:
                running[i, j] = time.perf_counter()
                entry = worker.entry(i, j)
                del running[i, j]
                gather.pair(i, j, entry)
                if entry.interrupted:
                    return True
            gather.chunk_done()
    return False


class _Ticker(threading.Thread):
    """Looks at the progress every tick while this process solves (the bar's clock, plain
    lines, long-pair notices)."""

    def __init__(self, shown: _Progress, running: dict):
        super().__init__(name="gedkit-pairwise-progress", daemon=True)
        self.shown, self.running, self.stop = shown, running, threading.Event()

    def run(self) -> None:
        while not self.stop.wait(_TICK):
            self.shown.tick(list(self.running.items()))

    def __enter__(self) -> _Ticker:
        if self.shown.active:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.is_alive():
            self.join()


# -- worker processes ------------------------------------------------------------------------


def _context(worker: _PairSolver) -> Any:
    """A multiprocessing context that can hand ``worker`` over; None (run here) if none can."""
    from gedkit.workers import fork_is_safe

    methods = multiprocessing.get_all_start_methods()
    # (claimed until the workers are forked, in _run_pool: no other thread enters SQLite
    # between this check and the fork)
    if "fork" in methods and not fork_is_safe(claim=True):
        # (spawn would run the caller's script again in each worker: most scripts on Linux
        # have no __main__ guard)
        warnings.warn("running pairwise in one process: another thread of this process is "
                      "inside a collection's call, and a worker forked now could wait for "
                      "ever on a lock it holds", RuntimeWarning, stacklevel=4)
        return None
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
    return context


def _serve(worker: _PairSolver, conn: Any, parent: int) -> None:
    """A worker process: solve the chunks received, sending each pair's entry back, until
    the parent says stop or is gone. A parent killed outright (SIGKILL) closes no pipe that
    a forked worker would see close (the workers hold copies of its ends), so the worker
    looks whether it still has its parent (``parent``, its pid) every second while it
    waits and before each entry it sends: it would otherwise wait for ever, holding its
    memory."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers
    from gedkit.workers import die_with_parent

    die_with_parent(parent)
    try:
        worker.prepare()
        while True:
            while not conn.poll(_ORPHAN_CHECK):
                if os.getppid() != parent:
                    return
            chunk = conn.recv()
            if chunk is None:
                return
            for i, j in chunk:
                entry = worker.entry(i, j)
                if os.getppid() != parent:
                    return
                conn.send(entry)
    except (EOFError, BrokenPipeError):  # the parent has gone
        pass


class _Worker:
    """The parent's handle on one worker process and the pairs it has been given: the chunks
    queued in its pipe, in order, each pair answered by one entry."""

    def __init__(self, context: Any, worker: _PairSolver):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(worker, child, os.getpid()),
                                       daemon=True)
        self.process.start()
        child.close()
        # one poll object kept (where the system has one): Connection.poll builds a selector
        # per call, ~50 µs, and the parent asks once per entry
        self.poller = select.poll() if hasattr(select, "poll") else None
        if self.poller is not None:
            self.poller.register(self.conn.fileno(), select.POLLIN)
        self.queue: deque[tuple[int, int]] = deque()  # pairs given and not yet answered
        self.chunk_left: deque[int] = deque()  # pairs left in each chunk given
        self.since = 0.0  # when the pair in progress started (when the one before came in)
        self.first = 0.0  # when its first entry came in (its start-up paid)
        self.answered = 0

    @property
    def busy(self) -> bool:
        return bool(self.queue)

    @property
    def current(self) -> tuple[int, int]:
        return self.queue[0]

    def wants_work(self) -> bool:
        """Whether to queue another chunk: it has none, or what it holds is less than
        _QUEUED_SECONDS of work at its pace so far (and at most _QUEUED_CHUNKS chunks, so a
        pipe never fills), so it never waits on the parent between chunks, and the last
        chunks still go to whichever worker is free."""
        if not self.queue:
            return True
        if not self.answered or len(self.chunk_left) >= _QUEUED_CHUNKS:
            return False  # its pace is unknown until an entry has come in
        pace = (time.perf_counter() - self.first) / self.answered
        return len(self.queue) * pace < _QUEUED_SECONDS

    def give(self, chunk: list[tuple[int, int]]) -> None:
        if not self.queue:
            self.since = time.perf_counter()
        self.queue.extend(chunk)
        self.chunk_left.append(len(chunk))
        # it may have died since it was last looked at (a next chunk goes to a worker still
        # busy): its sentinel says so, and the pairs it held go back, this chunk's with them
        with contextlib.suppress(OSError):
            self.conn.send(chunk)

    def receive(self) -> tuple[list[tuple[tuple[int, int], _Entry]], bool]:
        """The entries the worker has sent so far, and whether one of its chunks is done."""
        out, chunk_done = [], False
        try:
            while self.queue and self._readable():
                entry = self.conn.recv()  # before the pair leaves the queue: it may fail
                out.append((self.queue.popleft(), entry))
                self.since = time.perf_counter()
                self.first = self.first or self.since
                self.answered += 1
                self.chunk_left[0] -= 1
                if not self.chunk_left[0]:
                    self.chunk_left.popleft()
                    chunk_done = True
        except (EOFError, OSError):  # it died mid-message: that pair is lost with it
            pass
        return out, chunk_done

    def _readable(self) -> bool:
        return bool(self.poller.poll(0)) if self.poller is not None else self.conn.poll()

    def stop(self, wait: bool) -> None:
        if wait and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.conn.close()


def _run_pool(worker, chunks: _Chunks, jobs: int, context, gather: _Gather,
              shown: _Progress) -> bool:
    """Feed ``chunks`` to ``jobs`` worker processes, replacing any that dies or outgrows its
    share of memory (:func:`_replacement`); its pair in progress becomes a failed entry.

    The parent looks at the workers at most every _GATHER_EVERY seconds (their entries wait
    in the pipes meanwhile): woken by every entry it took ~180 µs of a core per 1.5 ms pair,
    a tenth of a 2-core machine, from the workers."""
    from gedkit.workers import forked

    limit = _worker_memory_limit(jobs)
    workers: list[_Worker] = []
    missing = 0  # workers that ended and could not be replaced yet (no fork was safe)
    ended: list[_Worker] = []  # those of this look
    finished = False
    looked = 0.0  # when the parent last looked at the workers' memory and progress
    try:
        workers = [_Worker(context, worker) for _ in range(jobs)]
        forked()  # other threads may enter collection calls again
        while True:
            if missing and (new := _replacement(context, worker)) is not None:
                workers.append(new)
                missing -= 1
            for w in workers:
                while chunks and w.wants_work():
                    w.give(chunks.popleft())
            busy = [w for w in workers if w.busy]
            if not busy and not chunks:
                finished = True
                return False
            multiprocessing.connection.wait(
                [w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=_TICK
            )
            time.sleep(_GATHER_EVERY)
            now = time.perf_counter()
            look = now - looked >= _TICK
            if look:
                looked = now
            finished_chunk = False
            for k, w in enumerate(workers):
                entries, chunk_done = w.receive()
                for (i, j), entry in entries:
                    gather.pair(i, j, entry)
                    if entry.interrupted:
                        return True
                finished_chunk |= chunk_done
                reason = _lost(w, limit if look else None)
                if reason is None:
                    continue
                _hand_over(w, gather)  # what it sent before it went
                if w.busy:
                    gather.pair(*w.queue.popleft(),
                                _Entry.failed(reason, time.perf_counter() - w.since))
                    if w.queue:
                        chunks.appendleft(list(w.queue))
                w.stop(wait=False)
                new = _replacement(context, worker)
                if new is None:
                    missing += 1
                    ended.append(w)
                else:
                    workers[k] = new
            if ended:
                workers = [w for w in workers if w not in ended]
                ended.clear()
            if finished_chunk:
                gather.chunk_done()
            if look:
                shown.tick([(w.current, w.since) for w in workers if w.busy])
    except KeyboardInterrupt:  # keep what the workers have sent: it waits in the pipes
        for w in workers:
            _hand_over(w, gather)
        raise
    finally:
        forked()  # (where the workers never started)
        for w in workers:
            w.stop(wait=finished)
        gather.chunk_done()


def _replacement(context, worker) -> _Worker | None:
    """A new worker in place of one that ended, where a fork is safe now; None where not
    (another thread is inside a collection's call: a worker forked then could wait for ever
    on a lock it copied held), and the job goes on with the others until one is."""
    from gedkit.workers import fork_is_safe, forked

    if not fork_is_safe(claim=True):
        return None
    try:
        return _Worker(context, worker)
    finally:
        forked()


def _hand_over(w: _Worker, gather: _Gather) -> None:
    """Every entry ``w`` has sent, to ``gather`` (a worker going, or Ctrl-C)."""
    for (i, j), entry in w.receive()[0]:
        gather.pair(i, j, entry)


# -- a Dask cluster --------------------------------------------------------------------------


def _solve_chunk(worker: _PairSolver, chunk: np.ndarray) -> bytes:
    """A Dask task: the entries of one chunk (its pairs as rows of an array), in order, as
    one pickle. Dask would serialise a list of entries holding bytes (node maps) one entry
    at a time, and walk a list of pairs item by item when the task is built: about 18 ms of
    the client's CPU per 256-pair task, 11% of a core on two workers at 1 ms a pair.
    Stopped (Ctrl-C on the client, its client gone), it hands back the pairs done so far."""
    worker.prepare()
    entries = []
    for i, j in chunk.tolist():
        if interrupted():  # stopped: the pairs left stay pending
            break
        entry = worker.entry(i, j)
        # a solve the stop cut short reads as one its time limit ended (this thread's budgets
        # expired): marked as Ctrl-C marks it here, its pair stays pending (_Gather.pair),
        # not "bounded" short of its limit
        entries.append(entry._replace(interrupted=True) if interrupted() else entry)
    return pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)


#: what Dask's scheduler says of a task it cannot unpickle (its environment lacks gedkit)
_SCHEDULER_CANNOT_READ = "Error during deserialization of the task graph"


def _run_dask(worker: _PairSolver, chunks: Iterable, client: Any, parallel: int,
              gather: _Gather, shown: _Progress) -> bool:
    """Run ``chunks`` as tasks on ``client``'s cluster (:func:`gedkit.cluster.run_tasks`),
    ``worker`` broadcast to every worker first; a few tasks per worker thread in flight. The
    scheduler runs again elsewhere the tasks of a worker that is lost; a chunk that loses
    workers every time it runs (Dask's ``KilledWorker``) or raises fails its pairs. On
    Ctrl-C the chunks running hand back the pairs they solved (``run_tasks``'s wind-down)."""
    from gedkit.cluster import run_tasks

    def done(chunk: list[tuple[int, int]], entries: Any, error: BaseException | None) -> None:
        if isinstance(error, ClusterError):  # no task of the job can run (pairs done kept)
            raise error
        if error is not None and _SCHEDULER_CANNOT_READ in str(error):
            # no task of the job can run there either: said once (every pair failed, each
            # with Dask's paragraph on different environments)
            raise ClusterError("the Dask scheduler cannot read gedkit's tasks (Dask: "
                               f"{_SCHEDULER_CANNOT_READ}): install gedkit, with the same "
                               "versions of its packages, where the scheduler runs")
        if error is not None:
            reason = f"its Dask task failed: {_reason(error)}"
            entries = [_Entry.failed(reason)] * len(chunk)
        else:
            entries = pickle.loads(entries)
            if isinstance(chunks, _PacedChunks):
                chunks.learn(entries)
        # a chunk stopped by Ctrl-C (see _solve_chunk) leaves its pairs not reached pending
        for (i, j), entry in zip(chunk, entries, strict=False):
            gather.pair(i, j, entry)
        gather.chunk_done()

    try:
        with _Ticker(shown, {}):
            run_tasks(client, _solve_chunk, worker,
                      ((chunk, (np.array(chunk, dtype=np.int64),)) for chunk in chunks),
                      done, max(2, _DASK_WINDOW * parallel))
        return False
    finally:
        gather.chunk_done()


def lost_cluster(workers: bool, where: str = "", during: str = "the job", why: str = "") -> str:
    """What a job says when its Dask cluster (``where``: `` at ADDRESS``) is lost: left
    without a worker (``workers``: every one killed or none from the start, not the scheduler
    lost, as it said), or the scheduler itself, during ``during`` (``why``: Dask's words)."""
    if workers:
        return (f"no Dask worker left on the scheduler{where} for 30 s (every one stopped, or "
                "none started)")
    return f"lost the Dask scheduler{where} during {during}" + (f" ({why})" if why else "")


def _no_workers(exc: BaseException) -> bool:
    """Whether ``exc`` is Dask's "No valid workers found": a scheduler without workers."""
    return isinstance(exc, TimeoutError) and "No valid workers" in str(exc)


def _lost(w: _Worker, limit: int | None) -> str | None:
    """Why worker ``w`` can no longer go on (it died, or it was stopped for taking more than
    ``limit`` bytes), or None while it is fine."""
    rss = _resident(w.process.pid) if limit is not None and w.process.is_alive() else None
    if rss is not None and rss > limit:
        w.process.kill()
        w.process.join()
        return (
            f"stopped: its worker process took {rss / 2**30:.1f} GiB, more than its share of "
            f"this machine's memory ({limit / 2**30:.1f} GiB); give memory= to cap the solve"
        )
    if w.process.is_alive():
        return None
    w.process.join()
    code = w.process.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else -code
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"its worker process was killed by signal {name}{hint}"
    return f"its worker process exited with status {code}"


def _worker_memory_limit(jobs: int) -> int | None:
    """Resident bytes above which a worker is stopped: its share of the machine's memory
    (None where the system does not say)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return int(_MEMORY_SHARE * total / jobs)


def _resident(pid: int) -> int | None:
    """Resident memory of process ``pid`` in bytes (Linux /proc), None if unknown."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


# -- what the user sees ----------------------------------------------------------------------


class _Progress:
    """Progress of a batch on stderr: a bar on a terminal, plain lines elsewhere, and a notice
    for a pair that runs long. Called from the solving loop and from a ticker thread."""

    def __init__(self, progress: bool | None, total: int, timeout: float | None, rows, cols,
                 resumed: int = 0):
        self.total, self.timeout, self.rows, self.cols = total, timeout, rows, cols
        self.resumed = resumed  # pairs an earlier run of the job did (said from the start)
        self.parallel = 1  # pairs solved at a time (set when the job starts)
        self.counts = dict.fromkeys(STATUSES, 0)
        self.start = time.perf_counter()
        self.next_line = self.start + _LINE_EVERY
        self.long = max(_LONG_PAIR, 2 * timeout) if timeout is not None else _LONG_PAIR
        self.noticed: set[tuple[int, int]] = set()
        self.spoke = False
        self.lock = threading.Lock()
        self.bar = None
        self.active = progress is not False and total > 0
        self.lines = self.active and progress is None and not _is_terminal(sys.stderr)
        if self.active and not self.lines:
            self.bar = _bar(total, delay=_BAR_DELAY if progress is None else 0)

    def add(self, status: str) -> None:
        with self.lock:
            self.counts[status] += 1
            if self.bar is not None:
                self.bar.update(1)

    def tick(self, running: list[tuple[tuple[int, int], float]]) -> None:
        if not self.active:
            return
        now = time.perf_counter()
        with self.lock:
            if self.bar is not None and now - self.start >= _BAR_DELAY:
                self.bar.refresh()  # the elapsed time moves even while a long pair runs
            if self.lines and now >= self.next_line:
                self._say(self._line(now))
                self.next_line = now + _LINE_EVERY
            for pair, since in running:
                if pair not in self.noticed and now - since >= self.long:
                    self.noticed.add(pair)
                    self._say(f"pairwise: pair {self._name(pair)} has run {now - since:.0f} s "
                              f"({_limit(self.timeout)})")

    def close(self) -> None:
        with self.lock:
            if self.bar is not None:
                self.bar.close()
            if self.spoke and self.lines:
                self._say(self._line(time.perf_counter()))
            self.active = False

    def _line(self, now: float) -> str:
        done = sum(self.counts[s] for s in ("optimal", "bounded", "failed"))
        extra = "".join(
            f", {self.counts[key]:,} {what}"
            for key, what in (("bounded", "not proven optimal"), ("failed", "failed"))
            if self.counts[key]
        )
        # (a resumed job's pairs from before were said only at its end)
        before = f" ({self.resumed:,} more resumed from the --out file)" if self.resumed else ""
        spent = now - self.start
        # at worst every pair left takes its whole limit, so many at a time
        most = (None if self.timeout is None else
                (self.total - done) * self.timeout / self.parallel)
        return (f"pairwise: {done:,}/{self.total:,} pairs done{before}{extra}, {spent:.0f} s"
                f"{pace(done, self.total, spent, 'pair', most=most)}")

    def _name(self, pair: tuple[int, int]) -> str:
        i, j = pair
        names = [getattr(g, "name", None) for g in (self.rows[i], self.cols[j])]
        return f"({i}, {j})" + (f" {names[0]} vs {names[1]}" if all(names) else "")

    def _say(self, text: str) -> None:
        self.spoke = True
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)


class _Items:
    """A long list of JSON values, made an item at a time (see
    :meth:`PairwiseResult.write_json`)."""

    def __init__(self, items: Iterable[Any]):
        self._items = items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)


def _finite(row: list[float]) -> list:
    """``row``, its infinite entries None (JSON has no infinity)."""
    return [x if math.isfinite(x) else None for x in row]


def _limit(timeout: float | None) -> str:
    return "no time limit" if timeout is None else f"time limit {timeout:g} s per pair"


def _is_terminal(stream: Any) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _bar(total: int, delay: float) -> Any:
    from tqdm import tqdm

    class Bar(tqdm):
        monitor_interval = 0  # no monitor thread: worker processes are forked while it runs

    return Bar(total=total, unit="pair", desc="pairwise", file=sys.stderr, delay=delay)


class _CallableModule(types.ModuleType):
    """``gedkit.pairwise`` is this module once it is imported (the package's lazy attribute of
    that name gives way to the submodule), so the module calls :func:`pairwise`."""

    def __call__(self, *args: Any, **kwargs: Any) -> PairwiseResult:
        return pairwise(*args, **kwargs)

    __call__.__doc__ = pairwise.__doc__


sys.modules[__name__].__class__ = _CallableModule
