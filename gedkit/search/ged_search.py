"""Range and k-nearest queries by GED: filter the whole collection, then verify the rest.

Filtering runs the stages of :class:`~gedkit.search.filters.GedFilter` over the stored
signatures (no graph is read). Verification solves the query against each remaining graph with
the threshold: exact search prunes every partial map that cannot end within it and finds the
best map within it, so a graph within reach gets its exact distance and one beyond it is ruled
out early. A verification that stops at its time limit leaves the graph undecided, with its
bounds.

kNN scans the graphs in increasing order of their filter bound, verifying each with the current
k-th best distance as threshold, and stops when the next bound exceeds it: no graph left can
be closer.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.budget import Budget, solve_within
from gedkit.budget import interrupted as interrupted_now
from gedkit.costs.base import CostModel
from gedkit.graph import Graph
from gedkit.numeric import tolerance
from gedkit.search.filters import GedFilter, equality_terms, query_signature, within_many
from gedkit.search.result import Hit, SearchResult
from gedkit.solvers.base import Solver

__all__ = ["Verifier", "knn_query", "range_queries", "range_query"]


@dataclass
class Outcome:
    lower: float
    upper: float
    node_map: list | None

    @property
    def optimal(self) -> bool:
        return self.upper - self.lower <= tolerance(self.upper)


class Verifier:
    """Solves the query against candidate graphs, one pair at a time, within a threshold."""

    def __init__(self, model: CostModel, solver: Solver, timeout: float | None,
                 memory: int | None, node_map: bool):
        self.model, self.solver = model, solver
        self.timeout, self.memory, self.node_map = timeout, memory, node_map

    def __call__(self, query: Graph, graph: Graph, threshold: float | None) -> Outcome:
        budget = Budget(timeout=self.timeout, memory=self.memory, threshold=threshold,
                        decide=False)
        problem = self.model.compile(query, graph)
        result = solve_within(self.solver, problem, budget)
        return Outcome(result.lower_bound, result.upper_bound,
                       result.node_map if self.node_map else None)


_BLOCK = 1024  # candidates verified between checks for Ctrl-C


class _Checker:
    """Verifies blocks of candidates: many per compiled call where the batch kernel applies,
    one by one otherwise and for what it leaves (pairs past its expansion cap, node maps)."""

    def __init__(self, coll, query: Graph, verify: Verifier, model: CostModel,
                 filt: GedFilter, stages: _Stages, progress):
        self.coll, self.query, self.verify = coll, query, verify
        self.model, self.filt = model, filt
        self.stages, self.progress = stages, progress
        self._batch: Any = False  # built on first use: most queries of a range search need none
        self.interrupted = False

    @property
    def batch(self):
        if self._batch is False:
            from gedkit.search.batch import BatchVerifier

            self._batch = BatchVerifier.build(self.model, self.verify.solver, self.filt,
                                              self.verify.timeout)
        return self._batch

    def __call__(self, rowids: list[int], threshold: float | None) -> list[Outcome | None]:
        outs: list[Outcome | None] = [None] * len(rowids)
        if threshold is not None:
            # a distance equal to the threshold up to rounding is within it: search to there
            threshold = threshold + tolerance(threshold)
        if self.batch is not None:
            records = self.coll._store.records(rowids)
            lower, upper, done = self.batch.run([records[r] for r in rowids], threshold,
                                                self.verify.timeout)
            limit = math.inf if threshold is None else threshold
            for i in np.flatnonzero(done).tolist():
                if not (self.verify.node_map and lower[i] <= limit):
                    outs[i] = Outcome(float(lower[i]), float(upper[i]), None)
            self.stages.stats["batched"] = self.stages.stats.get("batched", 0) + int(
                done.sum())
        rest = [r for r, o in zip(rowids, outs, strict=True) if o is None]
        graphs = self.coll._store.graphs(rest) if rest else {}
        for i, rowid in enumerate(rowids):
            if outs[i] is None and not self.interrupted:
                outs[i] = self.verify(self.query, graphs[rowid], threshold)
                self.interrupted = interrupted_now()
            if outs[i] is None:
                break
            self.stages.stats["verified"] += 1
            if self.progress is not None:
                self.progress.step()
        self.interrupted = self.interrupted or interrupted_now()
        return outs  # None where Ctrl-C came first


class _Stages:
    """Times and survivors of each stage, as ``stats`` reports them."""

    def __init__(self, screened: int):
        self.stats: dict[str, Any] = {"screened": screened, "candidates": {}, "verified": 0,
                                      "seconds": {}}
        self.t = time.perf_counter()

    def done(self, stage: str, left: int | None = None) -> None:
        now = time.perf_counter()
        self.stats["seconds"][stage] = self.stats["seconds"].get(stage, 0.0) + now - self.t
        if left is not None:
            self.stats["candidates"][stage] = left
        self.t = now


def range_query(coll, query: Graph, tau: float, model: CostModel, verify: Verifier,
                progress=None) -> SearchResult:
    """Every graph of ``coll`` with GED(query, graph) <= ``tau``."""
    return next(range_queries(coll, [query], tau, model, verify, progress))


def range_queries(coll, queries: list[Graph], tau: float, model: CostModel, verify: Verifier,
                  progress=None) -> Iterator[SearchResult]:
    """:func:`range_query` for each of ``queries`` in turn. Under label-equality costs the
    filters run for many queries per compiled call, and a query without candidates costs
    little more than its signature."""
    sig = coll._signatures_by_size()
    limit = tau + tolerance(tau)
    vocab = coll._store.vocab
    prepared = [query_signature(q, vocab) for q in queries] if _many(model, sig, limit) \
        else None
    found_all = None
    if prepared is not None:
        terms = equality_terms(model.equality_costs)
        found_all = within_many(sig, [p[0][0] for p in prepared], vocab, terms, limit)
    for i, query in enumerate(queries):
        stages = _Stages(len(sig))
        filt = None
        if found_all is not None:
            rows, _, left, seconds = next(found_all)
            rows = np.sort(rows)
            stages.stats["candidates"] = left
            stages.stats["seconds"]["filter"] = seconds
            stages.t = time.perf_counter()
        else:
            filt = GedFilter(model, query, vocab)
            rows = _filtered(filt, sig, limit, stages)
        if len(rows) and filt is None:
            filt = GedFilter(model, query, vocab, prepared[i])
        yield _verified(coll, query, tau, limit, rows, sig, model, verify, filt, stages,
                        progress)


def _many(model: CostModel, sig, limit: float) -> bool:
    """Whether the many-queries filter applies: label-equality costs declared by the model,
    a finite threshold, the kernel compiled."""
    from gedkit._kernels import warm

    return (model.equality_costs is not None and math.isfinite(limit) and len(sig) > 0
            and warm.ready("search"))


def _filtered(filt: GedFilter, sig, limit: float, stages: _Stages) -> np.ndarray:
    """The rows of ``sig`` that ``filt``'s stages leave within ``limit``, in row order."""
    found = filt.within(sig, limit)
    if found is not None:
        stages.stats["candidates"] = found[2]
        stages.done("filter")
        return np.sort(found[0])
    rows = None  # every graph, until the first stage
    for name, bound in filt.stages:
        lb = bound(sig, rows, limit)
        rows = np.flatnonzero(lb <= limit) if rows is None else rows[lb <= limit]
        stages.done(name, len(rows))
    return np.arange(len(sig)) if rows is None else rows


def _verified(coll, query: Graph, tau: float, limit: float, rows: np.ndarray, sig, model,
              verify: Verifier, filt: GedFilter | None, stages: _Stages,
              progress) -> SearchResult:
    """The range answer from the candidate ``rows``: each verified within ``tau``."""
    hits, undecided = [], []
    interrupted = False
    if len(rows):
        check = _Checker(coll, query, verify, model, filt, stages, progress)
        try:
            for first in range(0, len(rows), _BLOCK):
                rowids = sig.rowids[rows[first:first + _BLOCK]].tolist()
                for rowid, out in zip(rowids, check(rowids, tau), strict=True):
                    if out is not None and out.lower <= limit:
                        hit = Hit(rowid, out.upper, out.lower, out.upper, out.optimal,
                                  out.node_map)
                        (hits if out.upper <= limit else undecided).append(hit)
                if check.interrupted:
                    interrupted = True
                    break
        except KeyboardInterrupt:
            interrupted = True
    else:
        interrupted = interrupted_now()
    stages.done("verify")
    if hits or undecided:
        ids = coll._store.ids([h.id for h in hits + undecided])  # rowids so far
        for h in hits + undecided:
            h.id = ids[h.id]
    hits.sort(key=lambda h: (h.distance, h.lower_bound))
    undecided.sort(key=lambda h: (h.lower_bound, h.upper_bound))
    certified = not interrupted and not undecided and all(h.optimal for h in hits)
    return SearchResult("range", query.name, tau, hits, undecided, certified,
                        stats=stages.stats, interrupted=interrupted)


#: graphs (at least, and per neighbour asked for) whose quick upper bounds seed kNN's ceiling
_CEILING_GRAPHS, _CEILING_PER_K = 64, 4


def _ceiling(check: _Checker, sig, order: np.ndarray, k: int) -> float:
    """An upper bound on the k-th distance to start kNN's scan with: the k-th smallest quick
    upper bound (:meth:`~gedkit.search.batch.BatchVerifier.upper_bounds`) of the first graphs
    in bound order; inf without the batch path. Verifying against it instead of against
    nothing keeps the first searches of the scan bounded: a graph within it is found exactly,
    and the k graphs that gave it are within it."""
    if check.batch is None or len(order) < k:
        return math.inf
    rowids = sig.rowids[order[:max(_CEILING_GRAPHS, _CEILING_PER_K * k)]].tolist()
    records = check.coll._store.records(rowids)
    upper = check.batch.upper_bounds([records[r] for r in rowids])
    return float(np.partition(upper, k - 1)[k - 1])


def knn_query(coll, query: Graph, k: int, model: CostModel, verify: Verifier,
              progress=None) -> SearchResult:
    """The ``k`` graphs of ``coll`` nearest to ``query`` by GED."""
    sig = coll._signatures
    stages = _Stages(len(sig))
    filt = GedFilter(model, query, coll._store.vocab)
    lb = np.zeros(len(sig))
    lazy = [bound for name, bound in filt.stages if name in filt.lazy]
    for name, bound in filt.stages:
        if name not in filt.lazy:
            lb = np.maximum(lb, bound(sig, None))
            stages.done(name, len(sig))
    order = np.argsort(lb, kind="stable")
    stages.done("order")
    best: list[tuple[float, float, int, Outcome]] = []  # max-heap on (upper, lower) via negation
    seen: list[tuple[int, Outcome]] = []
    scanned = 0
    interrupted = False
    check = _Checker(coll, query, verify, model, filt, stages, progress)
    ceiling = _ceiling(check, sig, order, k)
    step = 1.0 if getattr(filt, "integral", False) else 0.0
    stages.done("ceiling")
    block = max(k, 8)
    try:
        while scanned < len(order) and not interrupted:
            # the distances still worth finding: with k verified, only those beating the
            # k-th (strictly: by a whole edit when costs are integers); before, the ceiling
            reach = min(-best[0][0] - step if len(best) == k else math.inf, ceiling)
            rows = order[scanned:scanned + block]
            rows = rows[lb[rows] <= reach + tolerance(reach)]
            if not len(rows):
                break  # every graph left has a bound beyond the k-th distance
            scanned += len(rows)
            for bound in lazy:  # the costly stages, on the graphs the scan reached only
                lb[rows] = np.maximum(lb[rows], bound(sig, rows))
                rows = rows[lb[rows] <= reach + tolerance(reach)]
            if not len(rows):
                continue
            block = min(4 * block, 256)
            rowids = sig.rowids[rows].tolist()
            outs = check(rowids, None if reach == math.inf else reach)
            interrupted = check.interrupted
            for row, rowid, out in zip(rows.tolist(), rowids, outs, strict=True):
                if out is None:
                    continue
                out.lower = max(out.lower, float(lb[row]))
                seen.append((rowid, out))
                if out.upper == math.inf:
                    continue  # beyond the threshold it was verified with: no map to offer
                kth = -best[0][0] if len(best) == k else math.inf
                entry = (-out.upper, -out.lower, -rowid, out)
                if len(best) < k:
                    heapq.heappush(best, entry)
                elif out.upper < kth - tolerance(kth) or (out.upper <= kth + tolerance(kth)
                                                     and out.lower > -best[0][1]):
                    heapq.heapreplace(best, entry)
    except KeyboardInterrupt:
        interrupted = True
    stages.done("verify")
    chosen = sorted((-e[0], -e[1], -e[2]) for e in best)
    kth = chosen[-1][0] if chosen else math.inf
    ids = coll._store.ids([r for _, _, r in chosen])
    outcomes = {rowid: out for rowid, out in seen}
    hits = [Hit(ids[r], u, lo, u, outcomes[r].optimal, outcomes[r].node_map)
            for u, lo, r in chosen]
    # a graph not chosen could still be closer than the k-th when its bound is below it: a
    # verified one whose search stopped early, or one never reached (interrupted)
    picked = {r for _, _, r in chosen}
    doubtful = [rowid for rowid, out in seen if rowid not in picked
                and out.lower < kth - tolerance(kth)]
    scanned = len(seen)
    unreached = interrupted and scanned < len(order) and (
        len(chosen) < k or float(lb[order[scanned]]) < kth - tolerance(kth))
    unproven = [h.id for h in hits if not h.optimal]
    undecided = []
    if doubtful:
        extra = coll._store.ids(doubtful)
        undecided = [Hit(extra[r], outcomes[r].upper, outcomes[r].lower, outcomes[r].upper,
                         False) for r in doubtful]
        undecided.sort(key=lambda h: (h.lower_bound, h.upper_bound))
    # a hit is uncertain when its distance is not proven, or when some graph left out could
    # still beat it
    cutoff = min((h.lower_bound for h in undecided), default=math.inf)
    beyond = [h.id for h in hits if h.distance > cutoff + tolerance(cutoff)]
    uncertain = sorted({*unproven, *beyond},
                       key=lambda i: [h.id for h in hits].index(i))
    if unreached:
        uncertain = [h.id for h in hits]
    stages.stats["scanned"] = scanned
    certified = not uncertain and not undecided and not unreached
    return SearchResult("knn", query.name, k, hits, undecided, certified, uncertain,
                        stats=stages.stats, interrupted=interrupted)
