"""Many queries on worker processes: each worker opens the collection file read-only once.

Range queries split the collection, as on Dask: one shard per worker (every n-th graph by
size, :func:`~gedkit.search.shards.shard_of`), each task a shard against a batch of
queries, the shards' answers merged (:class:`~gedkit.search.shards.Merger`): a query's
work splits evenly between shards where whole queries differ a hundredfold. kNN queries, which
pass on their k-th distance, are cut into batches of whole queries (:func:`query_batches`).

Where processes are forked (Linux), the workers inherit what the parent read from the file
(signatures, records), and the collection keeps them for its next searches (a search of 100
queries at τ = 3 over 100,000 molecules takes 0.3 s on two workers, of which starting and
ending them took 25 ms), until it is closed, dropped or changed, a search is interrupted, or
another collection keeps workers. A worker lost in the middle of a search (killed) has the
queries not answered run again on new workers.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import os
import pickle
import signal
import sqlite3
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.budget import (
    counted_interrupts,
    forget_interrupt,
    interrupted,
    worker_interrupts,
)
from gedkit.errors import warn
from gedkit.search.collector import gc_paused

__all__ = ["answers", "can_fork", "query_batches", "range_batches", "release", "run"]

#: queries per task at most
QUERIES_PER_TASK = 256
#: tasks per worker a search is cut into at least: with one task per shard of a Dask
#: search, a slow shard held a whole worker while the other idled (100 queries at τ = 5 on
#: 4 shards of 100,000 molecules, 2 workers: 1.50-1.66x one process where the local pool,
#: one query a task, gave 1.76-1.98x)
TASKS_PER_WORKER = 4
#: a batch is about 1/GUIDE of a worker's share of the queries left
GUIDE = 2
#: and at least 1/MIN_CUT of a worker's share of all of them
MIN_CUT = 8

#: query-graph pairs in a range task at most: 100 queries against 50,000 molecules take
#: 0.3 s at τ = 3, 6 s at τ = 5
PAIRS_PER_TASK = 10_000_000

#: seconds between looks at Ctrl-C while the workers answer
_POLL = 0.1
#: seconds the workers' answers are awaited after Ctrl-C
_GRACE = 1.0
#: seconds they are awaited after a second Ctrl-C
_HURRIED = 0.5

_WORKER: dict[str, Any] = {}
#: the collection that keeps worker processes, if any
_KEEPER: Any = lambda: None  # noqa: E731 (a dead weak reference)


def _start(path: str, task: tuple | None, loaded: tuple | None, pairs: Any) -> None:
    from gedkit.search.collection import Collection

    worker_interrupts()
    coll = _WORKER["coll"] = Collection.open(path)
    if loaded is not None:  # forked: the parent's arrays, shared until written (never)
        coll._sig, coll._held = loaded
    _WORKER["task"], _WORKER["packed"] = task, None
    _WORKER["tally"] = _Tally(pairs)


#: seconds between a worker's additions to the pool's count of pairs verified
_TALLY_EVERY = 0.2


class _Tally:
    """A worker's progress: the pairs it verifies, added to the count its pool shares with
    the parent (``pairs``, a shared integer) every :data:`_TALLY_EVERY` seconds and at the
    end of each task, so that the parent's bar and lines move while the workers search (a
    range search split by shards showed "0 pairs verified" until its end)."""

    def __init__(self, pairs: Any):
        self.pairs, self.held, self.due = pairs, 0, time.monotonic() + _TALLY_EVERY

    def step(self) -> None:
        self.verified(1)

    def verified(self, count: int) -> None:
        self.held += count
        if time.monotonic() >= self.due:
            self.flush()

    def expect(self, count: int) -> None:
        """(the parent counts queries, not one query's candidates)"""

    def tick(self) -> None:
        """(the parent's lines keep their own clock)"""

    def flush(self) -> None:
        if self.held:
            with self.pairs.get_lock():
                self.pairs.value += self.held
            self.held = 0
        self.due = time.monotonic() + _TALLY_EVERY


@dataclass
class _Kept:
    """Worker processes a collection keeps for its next searches: forked, they hold what the
    parent had read (``loaded``) when they started."""

    pool: Any
    jobs: int
    loaded: tuple
    ended: Any  # the collection's finalizer that ends them
    pairs: Any  # the count of pairs verified the workers share with the parent (see _Tally)
    busy: bool = False  # serving a search (of this thread or another)

    def fits(self, jobs: int, loaded: tuple) -> bool:
        return jobs == self.jobs and all(a is b for a, b in zip(loaded, self.loaded,
                                                                 strict=True))


#: kept workers are handed out and released under it: searches in several threads
_LOCK = threading.Lock()


def _pool(coll, path: str, method: str, task: tuple, loaded: tuple | None,
          packed: bytes | None, jobs: int) -> tuple[Any, bool, Any]:
    """The pool of ``jobs`` workers for a search of ``coll``, whether it is kept, and the
    count of pairs its workers verify (see :class:`_Tally`): the
    one it keeps if it fits and no other search uses it, else new ones, kept when the
    search's task pickles (``packed``) and no other search uses the workers kept now (two
    collections searched at once from two threads ended each other's workers: one search
    lost every query, "a worker process ended" and "interrupted")."""
    global _KEEPER
    from gedkit._kernels import warm
    from gedkit.workers import forked

    with _LOCK:
        kept = coll._kept
        if packed is not None and kept is not None and not kept.busy and kept.fits(jobs,
                                                                                    loaded):
            kept.busy = True
            forked()  # (started long ago)
            return kept.pool, True, kept.pairs
        other = _KEEPER()
        mine_free = kept is None or not kept.busy
        if mine_free:
            release(coll)  # (workers that do not fit this search)
        keep = packed is not None and mine_free and (
            other is None or other is coll or other._kept is None or not other._kept.busy)
        if keep and other is not None and other is not coll:
            # one collection's workers at a time: ten collections searched in turn with
            # n_jobs=8 would otherwise hold eighty idle processes
            release(other)
    warm.settle()  # (a fork while a thread imports numba)
    context = multiprocessing.get_context(method)
    pairs = context.Value("q", 0)
    pool = context.Pool(jobs, initializer=_start,
                        initargs=(path, None if packed is not None else task, loaded, pairs))
    forked()  # the workers are forked: other threads may enter collection calls again
    if keep:
        with _LOCK:
            coll._kept = _Kept(pool, jobs, loaded, weakref.finalize(coll, pool.terminate),
                               pairs, busy=True)
            _KEEPER = weakref.ref(coll)
    return pool, keep, pairs


def release(coll) -> None:
    """End the worker processes ``coll`` keeps, if any."""
    kept, coll._kept = coll._kept, None
    if kept is not None:
        kept.ended()  # terminates the pool, once


def _done_with(coll, pool: Any, kept: bool, finished: bool) -> None:
    """After a search on ``pool``: workers not kept end; kept ones are free for the next
    search, or end too where the search did not finish (workers still busy, or broken)."""
    if not kept:
        pool.terminate()
        return
    with _LOCK:
        mine = coll._kept
        if mine is not None and mine.pool is pool:
            mine.busy = False
            if not finished:
                release(coll)


def answers(coll, run, graphs: list, parameter, model, verify, progress=None) -> Iterator:
    """``run``'s answer to each of ``graphs``, in turn: range queries share their filter
    pass (:func:`~gedkit.search.ged_search.range_queries`), the others run one by one."""
    from gedkit.search import ged_search

    if run is ged_search.range_query:
        return ged_search.range_queries(coll, graphs, parameter, model, verify, progress)
    return (run(coll, g, parameter, model, verify, progress) for g in graphs)


def _answer(item: tuple[bytes | None, list, tuple[int, int] | None]) -> list:
    """A worker's answers to a batch of queries, against the whole collection or one shard
    of it (``(part, parts)``, see :func:`~gedkit.search.shards.shard_of`); the search's
    task comes pickled with each batch to a kept worker (read once per search), with its
    start to another."""
    packed, batch, shard = item
    forget_interrupt()  # one heard while idle, between two searches
    if packed is not None and packed != _WORKER["packed"]:
        _WORKER["task"], _WORKER["packed"] = pickle.loads(packed), packed
    run, parameter, model, verify = _WORKER["task"]
    tally = _WORKER["tally"]
    try:
        if shard is None:
            with gc_paused():  # (see gedkit.search.collector)
                return list(answers(_WORKER["coll"], run, batch, parameter, model, verify,
                                    tally))
        from gedkit.search.shards import kind_of, range_answers, shard_of

        views = _WORKER.setdefault("shards", {})
        view = views.get(shard)
        if view is None:
            coll = _WORKER["coll"]
            view = views[shard] = shard_of(coll._store, coll._signatures_by_size(), *shard,
                                           coll._held)
        return range_answers(view, kind_of(run), batch, parameter, model, verify, tally)
    finally:
        tally.flush()  # counted before the answers reach the parent


def query_batches(count: int, parallel: int, shards: int = 1) -> list[list[int]]:
    """The query positions ``0..count-1`` in batches, each batch a task on each of
    ``shards`` parts of the collection, for ``parallel`` workers (processes or Dask threads).

    A task is at most ``1/TASKS_PER_WORKER`` of a worker's share of the work, and
    smaller as less is left (about ``1/GUIDE`` of a worker's share of what is left, guided
    scheduling), so that the last tasks are short and none idles long at the end while
    another finishes; but at least ``1/MIN_CUT`` of a worker's share of the whole, as each
    task costs a few milliseconds (a Dask cluster's more)."""
    share = count * shards / parallel  # a worker's share, in queries on one part
    most = min(QUERIES_PER_TASK, max(1, math.floor(share / TASKS_PER_WORKER)))
    least = min(most, max(1, math.ceil(share / MIN_CUT)))
    out: list[list[int]] = []
    start = 0
    while start < count:
        guided = (count - start) * shards // (GUIDE * parallel)
        size = min(most, count - start, max(least, guided))
        out.append(list(range(start, start + size)))
        start += size
    return out


def range_batches(count: int, parallel: int, shards: int,
                  size: int = 0) -> list[list[int]]:
    """The query positions ``0..count-1`` of a range search on ``shards`` shards of ``size``
    graphs in all, in as few batches of consecutive queries as give each of ``parallel``
    workers a task, a task at most :data:`QUERIES_PER_TASK` queries and
    :data:`PAIRS_PER_TASK` query-graph pairs (so that the progress moves on a long
    search)."""
    pairs = math.ceil(count * size / shards / PAIRS_PER_TASK)
    parts = min(count, max(math.ceil(parallel / shards), math.ceil(count / QUERIES_PER_TASK),
                           pairs))
    edges = np.linspace(0, count, parts + 1).round().astype(int).tolist()
    return [list(range(a, b)) for a, b in itertools.pairwise(edges)]


def can_fork() -> bool:
    """Whether worker processes can start here: not where they would be forked while
    another thread is inside a collection's call (a fork copies the locks it holds: two
    threads searching with ``n_jobs=2`` forked a worker that waited for SQLite's lock for
    ever; spawning instead would run the caller's script again in each worker). Said once
    per search."""
    from gedkit.workers import fork_is_safe

    # (claimed until the workers have started: see run)
    if not sys.platform.startswith("linux") or fork_is_safe(claim=True):
        return True
    warn(UserWarning("searching in this process, not on worker processes: another thread "
                     "of this process is inside a collection's call, and a worker forked now "
                     "could wait for ever on a lock it holds"))
    return False


def run(coll, run, graphs, parameter, model, verify, jobs: int, shown) -> list:
    """``run`` on every query graph in ``jobs`` processes, results in query order. Should a
    worker end in the middle (killed, out of memory), the queries not answered run again on
    new workers, once (where they can be forked); the second time, those answered are
    returned, with a warning. The caller has claimed the fork (:func:`can_fork`)."""
    from gedkit.workers import fork_is_safe, forked

    # Ctrl-C counted, not raised, until the answers are handed back: raised between two
    # steps of the bookkeeping (or once the answers were in, before they were returned), a
    # second one lost every answer
    with counted_interrupts() as presses:
        try:
            results, ended = _on_workers(coll, run, graphs, parameter, model, verify, jobs,
                                         shown, presses)
            if ended is not None and fork_is_safe(claim=True):
                more, ended = _on_workers(coll, run, graphs[len(results):], parameter, model,
                                          verify, jobs, shown, presses)
                results += more
        finally:
            forked()  # (where the workers never started)
    if ended is not None:
        warn(UserWarning(f"a worker process ended during the search twice (exit code {ended}: "
                         "killed, or out of memory?); the queries from the first one "
                         "unanswered on are left out: search them with n_jobs=1"))
    return results


def _pass_on_interrupt(workers: list) -> None:
    """Ctrl-C for each of ``workers`` still running (a worker hearing it twice stops once:
    see :func:`~gedkit.budget.worker_interrupts`). POSIX only: elsewhere ``os.kill`` with it
    ends the process."""
    if os.name != "posix":
        return
    for w in workers:
        if w.exitcode is None and w.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # ended since
                os.kill(w.pid, signal.SIGINT)


def _on_workers(coll, run, graphs, parameter, model, verify, jobs: int, shown,
                presses: counted_interrupts) -> tuple[list, int | None]:
    """:func:`run`'s answers in query order, until a worker ends in the middle: then also
    its exit code. ``presses``: the Ctrl-C heard so far."""
    temp = None
    path = coll.path
    if path is None:  # in memory: the workers read a copy on disk
        fd, temp = tempfile.mkstemp(suffix=".gdb")
        os.close(fd)
        target = sqlite3.connect(temp)
        coll._store.conn.backup(target)
        target.close()
        path = temp
    from gedkit.search.shards import Merger, kind_of  # imported before the workers start

    kind = kind_of(run)
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    task = (run, parameter, model, verify)
    loaded = packed = None
    if method == "fork" and temp is None:
        # what the workers would each read from the file (the signatures, sorted for the
        # filters, and the records verification reads), read here once and inherited: a
        # search of 100 queries at tau = 3 over 100,000 molecules takes 0.6 s in one process,
        # as long as each worker took to read them for itself
        if kind in ("range", "knn"):
            coll._signatures_by_size()
            coll._records(np.empty(0, dtype=np.int64))
        else:  # MCES reads the signatures as they are, and graphs rather than records
            coll._signatures  # noqa: B018 (read here, once)
        loaded = (coll._sig, coll._held)
        try:  # a task that pickles goes with the batches, so that the workers can be kept
            packed = pickle.dumps(task)
        except Exception:  # a custom cost's lambda: the workers inherit it
            packed = None
    pool, kept, pairs = _pool(coll, path, method, task, loaded, packed, jobs)
    counted = pairs.value  # (a kept pool's count goes on from search to search)

    def catch_up() -> None:
        """The pairs the workers verified since the last look, to the progress."""
        nonlocal counted
        now = pairs.value
        if now > counted:
            shown.verified(now - counted)
            counted = now

    results = []
    finished = False
    ended = None  # the exit code of a worker that ended during the search
    ranged = kind in ("range", "mces_range")
    if ranged:  # range queries: one shard per worker, as on Dask
        size = len(coll._signatures)
        shards = max(1, min(jobs, size))
        merger = Merger(kind, parameter, len(graphs), shards, shown, counted=True)
        tasks = [((part, shards), b) for b in range_batches(len(graphs), jobs, shards, size)
                 for part in range(shards)]
    else:
        tasks = [(None, b) for b in query_batches(len(graphs), jobs)]
    try:
        workers = list(pool._pool)  # (a pool replaces a worker that ends, losing its batch)
        answered = pool.imap(_answer, [(packed, [graphs[i] for i in b], shard)
                                       for shard, b in tasks])
        late = math.inf  # after Ctrl-C: when to stop waiting for the workers
        hurried = False  # a second Ctrl-C came
        done = 0
        shown.on_workers(len(workers))
        while time.monotonic() < late:
            catch_up()
            shown.tick()  # (a long wait for the workers' answers: the line says so)
            if presses.presses >= 3:
                break
            if presses.presses == 2 and not hurried:
                # a second Ctrl-C: the answers the workers are handing back (the first one
                # stopped their searches) are awaited a moment more, as one process keeps
                # its finished queries; a third stops at once (80 queries, two Ctrl-C 20 ms
                # apart on two workers: none kept, where one worker kept ten); the workers
                # still busy are ended
                hurried = True
                _pass_on_interrupt(workers)
                late = min(late, time.monotonic() + _HURRIED)
            try:
                answers = answered.next(timeout=_POLL)
            except multiprocessing.TimeoutError:
                answers = None
                ended = next((w.exitcode for w in workers if w.exitcode is not None), None)
                if ended is not None:
                    break
            except StopIteration:
                finished = late == math.inf
                break
            if answers is not None:
                shard, batch = tasks[done]
                done += 1
                if shard is None:
                    results.extend(answers)
                    for _ in answers:  # (their pairs counted by the workers as they went)
                        shown.query_done()
                else:
                    for i, answer in zip(batch, answers, strict=False):
                        merger.add(i, answer)
                if len(answers) < len(batch) or any(
                        (a if shard is None else a[0]).interrupted for a in answers):
                    if shard is None:
                        break
                    # Ctrl-C reached the workers: the other shards' answers to the query
                    # under way are on their way
                    late = min(late, time.monotonic() + _GRACE)
            if interrupted() and late == math.inf:
                # the batches under way come back at once with what they found: a terminal's
                # Ctrl-C reached the workers too; one sent to this process alone (kill -INT,
                # SIGTERM) is passed on to them (it was not, and 16 s of a 20 s search's
                # answers were dropped with the pool: "0 of 20 queries answered")
                _pass_on_interrupt(workers)
                late = time.monotonic() + _GRACE
    finally:
        catch_up()  # what the last answers' workers counted
        _done_with(coll, pool, kept, finished)
        if temp is not None:
            os.unlink(temp)
    return (merger.results(coll, graphs) if ranged else results), ended
