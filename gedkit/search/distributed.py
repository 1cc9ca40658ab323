"""Collection searches on a Dask cluster (``client=``): shards of the collection as tasks,
run by one runner per worker (:mod:`gedkit.cluster_direct`: no scheduler round trip a task).

A shard is every S-th graph of the collection in order of size (:mod:`~gedkit.search.shards`,
which also merges the shards' answers). Every worker thread opens the file read-only once (an
in-memory collection is sent to the workers as an SQLite image, once) and keeps each shard it
is given, with its signatures sorted for the filters, for the next tasks; a task answers many
queries against one shard. The file must be readable by the workers at the same path (a shared
disk). By default a range search has one shard per worker thread, each first a task with as
many queries as :data:`~gedkit.search.parallel.PAIRS_PER_TASK` allows (all of them in a small
search), then tasks of about :data:`TASK_SECONDS` at the pace the first showed (:class:`_Pace`);
a kNN search one shard, its queries cut into batches that shrink towards the end
(:func:`~gedkit.search.parallel.query_batches`): see :func:`default_shards`. One task per
worker thread runs at a time, the next built when a thread is free.

Range answers are the union of the shards' answers, sorted as a search of the whole
collection sorts them. kNN tasks run in waves: a task is built when a worker is free, with
the k-th best key (:func:`~gedkit.search.ged_search.rank_key`) each query has among the
shards answered so far, and its shard searches only for graphs that beat it. The k best keys
of all shards are the k best of the collection, so the answer equals a search of the whole
collection's, ties included; what differs is only how much each shard verifies.

A task goes to the worker that first searched its shard where that worker has a free thread
(it has the shard open). A worker that is lost has its tasks run again on another; a task that
fails (every worker it ran on was lost, or it raised) fails the search with one line.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gedkit.errors import ClusterError, ClusterLost, GedkitError, OptionError, Words
from gedkit.numeric import tolerance
from gedkit.search.parallel import QUERIES_PER_TASK, query_batches, range_batches
from gedkit.search.result import SearchResult
from gedkit.search.shards import Merger, range_answers, shard_of, until_interrupted

__all__ = ["search"]

#: fewest graphs in a default shard (a task costs the cluster a few milliseconds; at 2,000 a
#: 2,000-graph collection was one shard, and one MCES range query of 50 s left a worker idle)
MIN_SHARD = 200
#: seconds a range task takes, about, once the first ones have shown the pace: long
#: enough that the cluster's few milliseconds a task do not count, short enough that the
#: progress moves and no worker waits long for another's last task
TASK_SECONDS = 2.0
#: collections a worker thread keeps open (the newest)
_KEPT = 2

_LOCAL = threading.local()


@dataclass(frozen=True)
class Source:
    """Where the workers find the collection: a file path, or an image of an in-memory one;
    ``token`` changes whenever its contents may have."""

    token: str
    path: str | None = None
    image: bytes | None = None


@dataclass
class Job:
    """What every task of one search shares (sent to each worker once): the query graphs
    too, so that a task names its queries by their positions (a task of 100 query graphs
    took 12-15 ms from its submission to its start, one of 12 about 5)."""

    source: Source
    kind: str
    parameter: float
    model: Any
    verify: Any
    graphs: list


def source_of(coll) -> Source:
    """The :class:`Source` of ``coll`` as the workers will open it."""
    if coll.path is None:
        return Source(f"image:{uuid.uuid4().hex}", image=coll._store.conn.serialize())
    coll._store.check_same_file()
    # the path as the caller spelled it (relative ones from here): a shared disk mounted at
    # /data on the workers, reached here through a symlink /data -> /local/data, resolved
    # to /local/data, which the workers do not have
    path = coll.path if os.path.isabs(coll.path) else os.path.join(_here(), coll.path)
    st = os.stat(path)
    return Source(f"{path}:{st.st_mtime_ns}:{st.st_size}", path=path)


def _here() -> str:
    """The working folder as the shell spelled it (``$PWD``: ``cd /data`` through a symlink
    gives ``/data``, not what it points to), or the resolved one where ``$PWD`` is not it."""
    here = os.getcwd()
    shell = os.environ.get("PWD")
    with contextlib.suppress(OSError):
        if shell and os.path.isabs(shell) and os.path.samefile(shell, here):
            return shell
    return here


# -- on a worker -------------------------------------------------------------------------------

def _opened(source: Source):
    """``(store, signatures sorted by size, shards)`` of ``source`` for this thread."""
    from gedkit.search.store import IN_MEMORY, Store

    kept = getattr(_LOCAL, "kept", None)
    if kept is None:
        kept = _LOCAL.kept = OrderedDict()
    entry = kept.get(source.token)
    if entry is None:
        if source.path is not None:
            store = Store.open(source.path, writable=False)
        else:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(source.image)
            store = Store(conn, IN_MEMORY, writable=False)
        entry = kept[source.token] = (store, store.signatures().by_size(), {})
        while len(kept) > _KEPT:
            _, (old, _, _) = kept.popitem(last=False)
            old.close()
    kept.move_to_end(source.token)
    return entry


def _shard(source: Source, part: int, parts: int):
    """Shard ``part`` of ``parts`` of ``source`` (:func:`~gedkit.search.shards.shard_of`),
    kept for the next tasks."""
    store, sig, shards = _opened(source)
    view = shards.get((part, parts))
    if view is None:
        view = shards[part, parts] = shard_of(store, sig, part, parts)
    return view


def _answers(job: Job, shard: tuple[int, int], batch: list[int], bounds: list,
             seconds: list) -> list:
    """One shard against the queries at positions ``batch``: per query what the driver
    merges (kNN: each scan within its query's ``seconds`` left, None for no limit); cut
    short (solves expire, no further query starts) once the job is stopped (Ctrl-C on the
    client, or the client gone: :mod:`gedkit.cluster_direct`)."""
    tick = time.perf_counter()  # (the task's start: see _with_seconds)
    graphs = [job.graphs[i] for i in batch]
    try:
        view = _shard(job.source, *shard)
    except (GedkitError, OSError) as err:
        where = job.source.path or "the collection"
        raise GedkitError(f"a Dask worker cannot open {where} ({' '.join(str(err).split())}); "
                          "the workers must see the collection file at the same path") from None
    # each query's verifier with what it has left, the task's first charged from the
    # task's start
    verifiers = [_with_seconds(job.verify, left, tick if i == 0 else None)
                 for i, left in enumerate(seconds)]
    if job.kind in ("range", "mces_range"):
        if all(left is None for left in seconds):
            return range_answers(view, job.kind, graphs, job.parameter, job.model, job.verify)
        # each query within what it has left (a shard's task queued behind others had the
        # whole limit: 8 shards on 2 threads took a 2 s query limit to 8.5 s); one by one
        answers = until_interrupted(
            range_answers(view, job.kind, [g], job.parameter, job.model, verify)
            for g, verify in zip(graphs, verifiers, strict=True))
        return [one for answer in answers for one in answer]
    if job.kind == "knn":
        from gedkit.search.ged_search import knn_scan

        return list(until_interrupted(
            knn_scan(view, g, int(job.parameter), job.model, verify, None, bound)
            for g, bound, verify in zip(graphs, bounds, verifiers, strict=True)))
    return list(until_interrupted(_mces_knn_task(view, job, g, floor, verify)
                                   for g, floor, verify in zip(graphs, bounds, verifiers,
                                                               strict=True)))


def _with_seconds(verify: Any, seconds: float | None, started: float | None = None) -> Any:
    """``verify`` with the seconds its query has left (its own ``query_timeout`` when None),
    counted from ``started``, the task's start on this worker (``time.perf_counter()``; None:
    from its search's): opening the collection and starting the kernels on a fresh worker
    count (a first search of 20,000 molecules took a 2 s limit to 2.7 s)."""
    if seconds is None:
        return verify
    limited = copy.copy(verify)
    limited.query_timeout, limited.call_started = seconds, started
    return limited


def _mces_knn_task(view, job: Job, query, floor: float, verify: Any):
    from gedkit.search.mces_search import _knn

    k = int(job.parameter)
    chosen, seen, state = _knn(view, query, k, verify, None, floor)
    kth = max(chosen[-1][0] if len(chosen) == k else -math.inf, floor)
    picked = {r for _, _, r in chosen}
    # only a graph that could beat the k-th similarity of the whole collection (at least
    # this shard's) can be undecided there
    seen = [(r, o) for r, o in seen if r in picked or o.upper > kth + tolerance(kth)]
    return chosen, seen, state


# -- on the client -----------------------------------------------------------------------------

def search(coll, kind: str, graphs: list, parameter: float, model: Any, verify: Any,
           client: Any, shown, shards: int | None = None) -> list[SearchResult]:
    """Answer every query of ``graphs`` on ``client``'s cluster, as
    ``Collection._search`` does here: results in query order; after Ctrl-C, those of the
    queries answered before the first one left unfinished."""
    from gedkit.cluster import parallelism
    from gedkit.cluster_direct import run_direct

    parallel = parallelism(client)
    # (the workers read the signatures; reading them here only to count them took 1.25 s for
    # the 1.58 M MOSES molecules)
    size = len(coll._sig) if coll._sig is not None else coll._store.count()
    ranked = kind.endswith("knn")
    if shards is None:
        shards = default_shards(size, parallel, ranked)
    shards = max(1, min(shards, size))
    parts = [(part, shards) for part in range(shards)]
    batches = (query_batches(len(graphs), parallel, shards) if ranked
               else range_batches(len(graphs), parallel, shards, size))
    merger = Merger(kind, int(parameter) if ranked else parameter,
                     len(graphs), shards, shown)
    job = Job(source_of(coll), kind, parameter, model, verify, graphs)
    pace = _Pace(len(batches[0]))
    # a query's time limit holds for the query, not for each shard's search of it
    clock = _QueryClock(getattr(verify, "query_timeout", None))

    def generate():
        if ranked:
            for shard in parts:
                for batch in batches:
                    # built when a worker is free: kNN bounds from every shard answered so
                    # far, and the time each query has left
                    yield batch, (shard, batch, [merger.bound(i) for i in batch],
                                  [clock.left(i) for i in batch])
            return
        # range: each next task for the shard furthest behind, sized by the pace so far
        cursors = [0] * shards
        while min(cursors) < len(graphs):
            k = cursors.index(min(cursors))
            batch = list(range(cursors[k], min(len(graphs), cursors[k] + pace.size())))
            cursors[k] += len(batch)
            yield batch, (parts[k], batch, [None] * len(batch),
                          [clock.left(i) for i in batch])

    def done(batch: list, answers: Any, error: BaseException | None) -> None:
        if isinstance(error, ClusterError):  # (the workers cannot load the job)
            raise error
        if error is not None:
            from gedkit.pairwise import _reason

            raise ClusterError(f"the search on the Dask cluster failed: {_reason(error)}")
        # (a task Ctrl-C stopped answers the queries of its batch up to the one it stopped)
        for i, answer in zip(batch, answers, strict=False):
            merger.add(i, answer)
        if not ranked:
            pace.learn(answers)

    # one task per thread, each built when a thread is free: kNN's then has the latest
    # bounds, a range task the latest pace, and none waits behind another on a busy worker
    # while a thread idles (100 queries over 1.58 M molecules, 5 tasks of which 2 take the
    # rest of each shard: 0.43-0.85 s with a third task queued, 0.42-0.46 s without)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the queries answered so far
            # a task goes to the worker that first searched its shard (it has the shard open)
            run_direct(client, _answers, job, generate(), done, parallel,
                       affinity=lambda args: (job.source.token, args[0]))
    except (OSError, TimeoutError) as exc:  # (Dask's lost connections are OSErrors)
        from gedkit.pairwise import _no_workers

        if client.status == "running" and not _no_workers(exc):
            raise
        raise _lost(exc, merger.results(coll, graphs), len(graphs)) from None
    except ClusterError as err:  # a task failed (or the workers cannot load the job): the
        # answers come back all the same (a search failing late lost every query's answer)
        err.result = merger.results(coll, graphs)
        raise
    return merger.results(coll, graphs)


def _lost(exc: BaseException, results: list[SearchResult], queries: int) -> ClusterLost:
    """The error when the scheduler, or every worker, was lost during a search, with the
    answers of the queries before it in its ``result`` (as after Ctrl-C)."""
    from gedkit.cluster import said
    from gedkit.pairwise import _no_workers, lost_cluster

    workers = _no_workers(exc)
    what = lost_cluster(workers, during="the search", why=said(exc))
    answered = sum(not r.interrupted for r in results)
    error = ClusterLost(f"{what}: {answered} of {queries} queries answered in full",
                        Words(", in the error's result", ""))
    error.result, error.workers = results, workers
    return error


class _QueryClock:
    """The seconds each query has left of its ``limit`` (None: no limit), counted from its
    first task's submission: the shards of a query are searched in waves (a kNN scan passing
    its k-th distance on), and a limit per shard's search made a 3 s query limit take 12 s
    over 8 shards on 2 workers. A query out of time still gets a token slice (its search then
    stops at its first look and reports what it left unreached)."""

    def __init__(self, limit: float | None, clock=time.monotonic):
        self.limit, self.clock, self.started = limit, clock, {}

    def left(self, query: int) -> float | None:
        if self.limit is None:
            return None
        start = self.started.setdefault(query, self.clock())
        return max(_NO_TIME, start + self.limit - self.clock())


#: the seconds of a query out of time (a positive limit: the scan stops at its first look)
_NO_TIME = 1e-9


class _Pace:
    """The sizes of a range search's tasks: the first ones from the pairs of queries and
    graphs they hold (:func:`~gedkit.search.parallel.range_batches`), the next ones from the
    seconds a query took on a shard in the tasks done, each about :data:`TASK_SECONDS`. A
    task costs the cluster milliseconds: 100 queries over the 1.58 M MOSES molecules at τ = 3,
    a filter-bound search, ran in 16 tasks of 10 million pairs (20-90 ms each) at 1.45x one
    process on 2 workers, in 2 tasks at 1.78x."""

    def __init__(self, first: int):
        self.first, self.queries, self.seconds = first, 0, 0.0

    def learn(self, answers: list) -> None:
        for result, _ in answers:
            self.queries += 1
            self.seconds += sum(result.stats.get("seconds", {}).values())

    def size(self) -> int:
        if not self.queries or self.seconds <= 0:
            return self.first
        return max(1, min(QUERIES_PER_TASK, round(TASK_SECONDS * self.queries / self.seconds)))


def default_shards(size: int, parallel: int, ranked: bool = False) -> int:
    """The shards a search over ``size`` graphs is cut into on ``parallel`` worker threads by
    default, each of at least :data:`MIN_SHARD` graphs.

    A range search has one shard per thread, each a task with all the queries in a small
    search (:class:`_Pace` for a larger one): a query's work splits evenly between
    shards, where whole queries differ a hundredfold (100 queries at τ = 3 over 100,000
    MOSES molecules: five are 45% of the work), and two tasks cost the cluster less than
    eleven (on 2 workers 1.66x one process, against 1.43x for batches of queries on one
    shard; at τ = 5, 1.96x against 1.78x). A kNN search has one shard, its queries in
    batches (:func:`~gedkit.search.parallel.query_batches`): a shard must find its own k
    nearest before a k-th distance from the shards before it bounds its scan, so every
    shard more verifies graphs the whole collection's scan never reaches (one query of 36
    atoms over the NCI 5K molecules, k = 5, 2 workers: 10 graphs verified and 0.05 s in
    one shard, 32 and 1.4 s in 2, 281 and 10 s in 8 (the old default for one query); 4
    queries: 8.7 s in one shard, 18 s in 2)."""
    if ranked:
        return 1
    return max(1, min(parallel, size // MIN_SHARD))


def check_shards(shards: Any) -> None:
    """A one-line error unless ``shards`` is None or a positive integer."""
    if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool)
                               or shards < 1):
        raise OptionError(f"shards must be a positive integer, got {shards!r}")
