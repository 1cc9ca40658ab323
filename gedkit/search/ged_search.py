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
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.budget import Budget, solve_within
from gedkit.budget import interrupted as interrupted_now
from gedkit.costs.base import CostModel
from gedkit.graph import Graph
from gedkit.search.filters import GedFilter
from gedkit.search.result import Hit, SearchResult
from gedkit.solvers.base import Solver

__all__ = ["Verifier", "knn_query", "range_query"]


def _tol(x: float) -> float:
    return 1e-9 * max(1.0, abs(x))


@dataclass
class Outcome:
    lower: float
    upper: float
    node_map: list | None

    @property
    def optimal(self) -> bool:
        return self.upper - self.lower <= _tol(self.upper)


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
    sig = coll._signatures
    stages = _Stages(len(sig))
    filt = GedFilter(model, query, coll._store.vocab)
    rows = np.arange(len(sig))
    limit = tau + _tol(tau)
    for name, bound in filt.stages:
        lb = bound(sig.take(rows)) if len(rows) < len(sig) else bound(sig)
        rows = rows[lb <= limit]
        stages.done(name, len(rows))
    graphs = coll._store.graphs(sig.rowids[rows])
    ids = coll._store.ids(sig.rowids[rows])
    stages.done("read")
    hits, undecided = [], []
    interrupted = False
    try:
        for row in rows.tolist():
            rowid = int(sig.rowids[row])
            out = verify(query, graphs[rowid], tau)
            stages.stats["verified"] += 1
            if progress is not None:
                progress.step()
            if out.lower <= limit:
                hit = Hit(ids[rowid], out.upper, out.lower, out.upper, out.optimal,
                          out.node_map)
                (hits if out.upper <= limit else undecided).append(hit)
            if interrupted_now():
                interrupted = True
                break
    except KeyboardInterrupt:
        interrupted = True
    stages.done("verify")
    hits.sort(key=lambda h: (h.distance, h.lower_bound))
    undecided.sort(key=lambda h: (h.lower_bound, h.upper_bound))
    certified = not interrupted and not undecided and all(h.optimal for h in hits)
    return SearchResult("range", query.name, tau, hits, undecided, certified,
                        stats=stages.stats, interrupted=interrupted)


def knn_query(coll, query: Graph, k: int, model: CostModel, verify: Verifier,
              progress=None) -> SearchResult:
    """The ``k`` graphs of ``coll`` nearest to ``query`` by GED."""
    sig = coll._signatures
    stages = _Stages(len(sig))
    filt = GedFilter(model, query, coll._store.vocab)
    lb = np.zeros(len(sig))
    for name, bound in filt.stages:
        lb = np.maximum(lb, bound(sig))
        stages.done(name, len(sig))
    order = np.argsort(lb, kind="stable")
    stages.done("order")
    best: list[tuple[float, float, int, Outcome]] = []  # max-heap on (upper, lower) via negation
    seen: list[tuple[int, Outcome]] = []
    scanned = 0
    interrupted = False
    try:
        for row in order.tolist():
            kth = -best[0][0] if len(best) == k else math.inf
            if lb[row] > kth + _tol(kth):
                break  # every graph left has a bound beyond the k-th distance
            scanned += 1
            rowid = int(sig.rowids[row])
            graph = coll._store.graphs([rowid])[rowid]
            out = verify(query, graph, None if kth == math.inf else kth)
            out.lower = max(out.lower, float(lb[row]))
            stages.stats["verified"] += 1
            if progress is not None:
                progress.step()
            if interrupted_now():
                interrupted = True
                break
            seen.append((rowid, out))
            entry = (-out.upper, -out.lower, -rowid, out)
            if len(best) < k:
                heapq.heappush(best, entry)
            elif out.upper < kth - _tol(kth) or (out.upper <= kth + _tol(kth)
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
                and out.lower < kth - _tol(kth)]
    unreached = interrupted and scanned < len(order) and (
        len(chosen) < k or float(lb[order[scanned]]) < kth - _tol(kth))
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
    uncertain = sorted({*unproven, *(h.id for h in hits if h.distance > cutoff + _tol(cutoff))},
                       key=lambda i: [h.id for h in hits].index(i))
    if unreached:
        uncertain = [h.id for h in hits]
    stages.stats["scanned"] = scanned
    certified = not uncertain and not undecided and not unreached
    return SearchResult("knn", query.name, k, hits, undecided, certified, uncertain,
                        stats=stages.stats, interrupted=interrupted)
