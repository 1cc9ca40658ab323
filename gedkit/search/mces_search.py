"""Range and k-most-similar queries by MCES similarity: filter the whole collection, then
verify the rest.

**The similarity** of a query ``q`` and a graph ``g`` is Johnson's, as :func:`gedkit.mces`
reports it (:func:`gedkit.mces.problem.johnson_similarity`): for the maximum common edge
subgraph found, with ``e`` common edges touching ``V`` nodes,
``J(V, e) = (V + e)² / ((n_q + m_q)(n_g + m_g))`` (0 when either graph is empty). ``V``
depends on the map, not only on ``e``: two maximum maps may touch different numbers of nodes
(a triangle and a three-edge path both have three edges), and then the map the verifying method
returns decides, as in RASCAL. Every bound below holds for *every* node map, so whichever
maximum map a method picks, no bound excludes it.

**Filtering** (:class:`MCESFilter`) computes upper bounds on the similarity for every stored
graph at once from its signature (no graph is read); stage ``labels`` from sizes and label
multisets, stage ``branches`` from the node-label / incident-edge-label degrees that the
branch multisets hold (RASCAL's "tier 1/tier 2" screen, without the bond classes a signature
does not keep). Range queries then bound each surviving pair from its two graphs (stage
``pairs``: the class-count and assignment bounds of :mod:`gedkit.mces.bounds`), and solve the
rest with the chosen MCES method within the per-pair time limit.

**Verification** turns a method's result (``L`` common edges found, at most ``U`` proven)
into bounds on the similarity (:meth:`Verifier.bounds`): exact when ``L == U``; otherwise
between the fewest and the most nodes ``L`` to ``U`` common edges can touch. A pair whose
bounds straddle the threshold is undecided, never dropped or included silently.

kNN scans the graphs in decreasing order of their filter bound, verifying each against the
current k-th best similarity, and stops when the next bound is below it: no graph left can
be more similar.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.budget import Budget, solve_within, within
from gedkit.budget import interrupted as interrupted_now
from gedkit.graph import Graph
from gedkit.numeric import tolerance
from gedkit.search.collector import LARGE_PAIR, gc_paused, gc_resumed
from gedkit.search.ged_search import CallClock, Outcome, _Stages, stopped_counts
from gedkit.search.knn_verdict import knn_verdict
from gedkit.search.result import Hit, SearchResult
from gedkit.search.signatures import Signatures, Vocabulary, branch_keys, signature_of

__all__ = ["MCESFilter", "Verifier", "knn_query", "range_query"]

_GRAPH_CHUNK = 65536  # graphs per pass of the branch bound (bounds its temporary arrays)


@dataclass
class MCESOutcome(Outcome):
    """Bounds on one pair's similarity; ``solved``: a method ran (not settled by bounds
    alone); ``result``: its :class:`~gedkit.mces.MCESResult` when the verifier keeps them."""

    solved: bool = True
    result: Any = None


def _similarity(nodes, edges, size):
    """Johnson's similarity of ``nodes`` + ``edges`` common elements over the product of the
    two graphs' sizes ``size`` (0 where it is 0), elementwise."""
    nodes, edges, size = np.asarray(nodes), np.asarray(edges), np.asarray(size)
    total = (nodes + edges).astype(np.float64)
    return np.where(size > 0, total * total / np.maximum(size, 1), 0.0)


def _max_similarity(edges, nodes, size):
    """The largest similarity a common subgraph of at most ``edges`` edges and at most
    ``nodes`` nodes can have: each edge touches two nodes, so at most ``min(2 edges, nodes)``
    are touched, and J grows with nodes + edges (its denominator is fixed by the pair)."""
    return _similarity(np.minimum(2 * np.asarray(edges), nodes), edges, size)


class MCESFilter:
    """Upper bounds on the similarity of one query to every graph of a collection, from
    signatures: ``stages`` is a list of ``(name, bound)``, each ``bound(signatures)`` an
    array of upper bounds, every stage at least as strong as the one before.

    For a node map with ``e`` common edges touching ``V`` nodes (q has ``n1`` nodes and
    ``m1`` edges, g ``n2`` and ``m2``):

    ``labels``
        ``e <= min(m1, m2)`` and ``e <= sum_b min(m1(b), m2(b))`` over edge labels ``b``:
        the common edges of label ``b`` are distinct ``b``-edges of both graphs. ``V`` is at
        most the node-label overlap ``sum_l min(n1(l), n2(l))``: touched nodes map
        injectively onto nodes of their label.
    ``branches``
        ``2e <= D = sum over (l, b, t >= 1) of min(X1(l, b, t), X2(l, b, t))``, ``X(l, b, t)``
        the number of nodes of label ``l`` with at least ``t`` incident edges of label ``b``.
        Proof: ``2e`` is the sum over the nodes ``u`` of q of the common edges at ``u``; of
        label ``b`` there are at most ``min(d_b(u), d_b(f(u)))``, since they land on distinct
        ``b``-edges at ``f(u)``; and ``sum_u min(d_b(u), d_b(f(u))) = sum_t #{u : d_b(u) >= t
        and d_b(f(u)) >= t}``, where among the nodes of label ``l`` (mapped injectively onto
        nodes of label ``l``) that count is at most ``min(X1(l, b, t), X2(l, b, t))``. Summed
        over ``l``, ``D / 2`` is at most the edge-label overlap (``sum_{l, t} X(l, b, t)`` is
        twice the ``b``-edges). ``V`` is at most ``sum_l min(N1(l), N2(l))``, ``N(l)`` the
        nodes of label ``l`` with an edge: a touched node has one.

    With ``E`` the smallest edge bound and ``N`` the smallest node bound, ``V <= min(2e, N)``
    and so the similarity is at most ``J(min(2E, N), E)`` for every map.
    """

    def __init__(self, query: Graph, vocab: dict[str, Vocabulary]):
        views = {k: v.overlay() for k, v in vocab.items()}
        (self.qn, self.qm, qsets), _ = signature_of(query, views)
        self.dense = {}
        for kind in ("node", "edge"):
            ids, counts = qsets[kind]
            dense = np.zeros(len(views[kind]), dtype=np.int32)
            dense[ids] = counts
            self.dense[kind] = dense
        nodes = [views["node"].lookup(k) for k in query.node_keys]
        edges = [views["edge"].lookup(k) for k in query.edge_keys]
        degree_keys: Counter = Counter()  # (l, b, t) -> X1(l, b, t)
        touched: Counter = Counter()  # l -> N1(l)
        for label, incident in branch_keys(query, nodes, edges):
            if incident:
                touched[label] += 1
            for b, group in itertools.groupby(incident):
                for t in range(1, sum(1 for _ in group) + 1):
                    degree_keys[label, b, t] += 1
        self._columns(vocab["branch"], degree_keys, touched)

    @property
    def stages(self) -> list[tuple[str, Callable[[Signatures], np.ndarray]]]:
        """``(name, bound)`` of each stage, weakest first (made on each read: kept, its
        bound methods would make the filter a reference cycle)."""
        return [("labels", self._labels), ("branches", self._branches)]

    def _columns(self, branches: Vocabulary, degree_keys: Counter, touched: Counter) -> None:
        """The query's counts per column (its degree keys, then its touched labels) and, for
        every branch of the collection's vocabulary, the columns a node with that branch
        counts in (compressed rows ``w_ptr``/``w_cols``)."""
        keys = list(degree_keys)
        labels = list(touched)
        self.n_degree = len(keys)
        self.query_counts = np.array([degree_keys[k] for k in keys]
                                     + [touched[lab] for lab in labels], dtype=np.int64)
        column = {k: i for i, k in enumerate(keys)}
        label_column = {lab: len(keys) + i for i, lab in enumerate(labels)}
        ptr = [0]
        cols: list[int] = []
        for label, incident in branches.keys:
            if label in label_column and incident:
                cols.append(label_column[label])
                for b, group in itertools.groupby(incident):
                    for t in range(1, sum(1 for _ in group) + 1):
                        col = column.get((label, b, t))
                        if col is None:
                            break  # the query has no node with t such edges, nor t + 1
                        cols.append(col)
            ptr.append(len(cols))
        self.w_ptr = np.asarray(ptr, dtype=np.int64)
        self.w_cols = np.asarray(cols, dtype=np.int64)

    def _size(self, sig: Signatures) -> np.ndarray:
        return (self.qn + self.qm) * (sig.n.astype(np.int64) + sig.m)

    def _label_parts(self, sig: Signatures) -> tuple[np.ndarray, np.ndarray]:
        """(edge bound, node bound) of stage ``labels``."""
        edges = np.minimum(np.minimum(self.qm, sig.m),
                           sig.sets["edge"].overlap(self.dense["edge"]))
        nodes = sig.sets["node"].overlap(self.dense["node"])
        return edges, nodes

    def _labels(self, sig: Signatures) -> np.ndarray:
        edges, nodes = self._label_parts(sig)
        return _max_similarity(edges, nodes, self._size(sig))

    def degree_overlap(self, sig: Signatures) -> tuple[np.ndarray, np.ndarray]:
        """Per graph, ``D`` and ``sum_l min(N1(l), N2(l))`` (see the class docstring)."""
        sets = sig.sets["branch"]
        rows = len(sig)
        width = len(self.query_counts)
        degree = np.zeros(rows, dtype=np.int64)
        touched = np.zeros(rows, dtype=np.int64)
        if width == 0 or rows == 0:
            return degree, touched
        lengths = np.diff(self.w_ptr)
        for start in range(0, rows, _GRAPH_CHUNK):
            stop = min(rows, start + _GRAPH_CHUNK)
            lo, hi = sets.ptr[start], sets.ptr[stop]
            ids, counts = sets.ids[lo:hi], sets.counts[lo:hi]
            row = np.repeat(np.arange(stop - start), np.diff(sets.ptr[start:stop + 1]))
            # the graphs' nodes counted in each column: a branch's count in each of its
            # columns, summed per graph
            spread = lengths[ids]
            total = int(spread.sum())
            first = np.repeat(self.w_ptr[ids] - np.cumsum(spread) + spread, spread)
            cols = self.w_cols[first + np.arange(total)]
            cells = np.repeat(row, spread) * width + cols
            counted = np.bincount(cells, weights=np.repeat(counts, spread),
                                  minlength=(stop - start) * width)
            common = np.minimum(counted.reshape(stop - start, width), self.query_counts)
            degree[start:stop] = common[:, :self.n_degree].sum(axis=1)
            touched[start:stop] = common[:, self.n_degree:].sum(axis=1)
        return degree, touched

    def _branches(self, sig: Signatures) -> np.ndarray:
        edges, nodes = self._label_parts(sig)
        degree, touched = self.degree_overlap(sig)
        return _max_similarity(np.minimum(edges, degree // 2), np.minimum(nodes, touched),
                               self._size(sig))


def _fewest_nodes(edges: int, *degree_sums: np.ndarray) -> int:
    """The fewest nodes a simple graph of ``edges`` edges can have: ``v (v - 1) / 2 >=
    edges``, and, being a subgraph of graphs whose degrees (largest first) add up to each of
    ``degree_sums`` (``sums[v - 1]``: the v largest), at most half of the v largest degrees'
    sum in edges (a sparse graph's common subgraph touches many nodes).

    >>> [_fewest_nodes(e) for e in range(8)]
    [0, 2, 3, 3, 4, 4, 4, 5]
    >>> path = np.cumsum([2] * 8 + [1, 1])  # a path of 10 nodes: degrees 2, 1 at the ends
    >>> _fewest_nodes(9, path), _fewest_nodes(4, path)  # 4 edges fit 4 nodes of degree 2
    (10, 4)
    """
    if edges <= 0:
        return 0
    v = math.ceil((1 + math.sqrt(1 + 8 * edges)) / 2)
    while v * (v - 1) // 2 < edges:  # rounding of the square root
        v += 1
    while v > 2 and (v - 1) * (v - 2) // 2 >= edges:
        v -= 1
    for sums in degree_sums:
        v = max(v, int(np.searchsorted(sums, 2 * edges)) + 1)
    return v


class Verifier(CallClock):
    """Solves the query against candidate graphs, one pair at a time, with an MCES method
    and a per-pair :class:`~gedkit.budget.Budget`; ``keep`` keeps each pair's
    :class:`~gedkit.mces.MCESResult` in its outcome (``outcome.result``)."""

    def __init__(self, method: str, options: dict | None, timeout: float | None,
                 memory: int | None, node_map: bool, keep: bool = False,
                 query_timeout: float | None = None):
        import gedkit.mces  # noqa: F401  (registers the methods)
        from gedkit.mces.base import get_method
        from gedkit.mces.options import RING_MATCHES_RING_ONLY

        options = dict(options or {})
        # (a rule of the problem, not an option of a method: as gedkit.mces takes it)
        self.rings = options.pop("ring_matches_ring_only", False)
        RING_MATCHES_RING_ONLY.check("ring_matches_ring_only", self.rings)
        self.solver = get_method(method, **options)
        Budget(timeout=timeout, memory=memory)  # checks both
        self.timeout, self.memory, self.node_map, self.keep = timeout, memory, node_map, keep
        # seconds a query's search has, None for no limit (see _knn, range_query)
        self.query_timeout = query_timeout
        self.start_call()

    def measure(self) -> str:
        """What the answers' similarities mean (:attr:`SearchResult.measure`): Johnson's,
        with ``ring_matches_ring_only`` and the options of :mod:`gedkit.mces.options` the
        method was given other than their defaults, which change what common subgraph counts
        (``connected``, ``rascal_ties``, RASCAL's fragment rules), not the method or its
        other options (how it searches).

        >>> Verifier("exact", {"connected": True}, None, None, False).measure()
        'Johnson similarity (connected=True)'
        """
        from gedkit.mces import options as shaping

        shapes = [getattr(shaping, name) for name in shaping.__all__]
        declared = type(self.solver).options
        given = {name: int(value) if isinstance(value, np.integer) else value
                 for name, value in self.solver.config.items()
                 if any(declared.get(name) is shape for shape in shapes)
                 and value != declared[name].default}
        if self.rings:
            given["ring_matches_ring_only"] = True
        words = ", ".join(f"{name}={value!r}" for name, value in sorted(given.items()))
        return f"Johnson similarity ({words})" if words else "Johnson similarity"

    def _budget(self, problem) -> Budget:
        budget = Budget(timeout=self.timeout, memory=self.memory)
        budget.what = (f"MCES search ({self.solver.name}) on graphs of {problem.n1} and "
                       f"{problem.n2} nodes")
        return budget

    def problem(self, query: Graph, graph: Graph):
        from gedkit.mces.problem import MCESProblem

        return MCESProblem(query, graph, ring_matches_ring_only=self.rings)

    @staticmethod
    def _touchable(problem) -> tuple[int, tuple[np.ndarray, np.ndarray]]:
        """(nodes a common edge can touch, each graph's degrees in the edges that can be
        common, largest first, as cumulative sums): only edges whose class the other graph
        has can be common, so only their ends can be touched, each label's at most as often
        as the other graph has such nodes, and a node's degree in a common subgraph is at
        most its degree there."""
        deg1 = np.bincount(problem.g1.edges[problem.useful1].ravel(), minlength=problem.n1)
        deg2 = np.bincount(problem.g2.edges[problem.useful2].ravel(), minlength=problem.n2)
        lab1, lab2 = problem.node_labels1[deg1 > 0], problem.node_labels2[deg2 > 0]
        size = int(max(lab1.max(initial=-1), lab2.max(initial=-1))) + 1
        nodes = int(np.minimum(np.bincount(lab1, minlength=size),
                               np.bincount(lab2, minlength=size)).sum())
        return nodes, (np.cumsum(np.sort(deg1)[::-1]), np.cumsum(np.sort(deg2)[::-1]))

    def _size(self, problem) -> int:
        return (problem.g1.n + problem.g1.m) * (problem.g2.n + problem.g2.m)

    def pair_bound(self, problem) -> float:
        """An upper bound on the pair's similarity from both graphs: at most the class-count
        and assignment bounds' edges (:func:`gedkit.mces.bounds.upper_bound`), touching at
        most the nodes :meth:`_touchable` allows."""
        from gedkit.mces.bounds import upper_bound

        edges = upper_bound(problem, self._budget(problem))
        nodes, _ = self._touchable(problem)
        return float(_max_similarity(edges, nodes, self._size(problem)))

    def bounds(self, result) -> tuple[float, float]:
        """Bounds on the pair's similarity from a method's result: exact (the result's
        similarity) when its edge count is proven; otherwise, with ``L`` edges found and at
        most ``U`` proven, the MCES has ``e`` edges, ``L <= e <= U``, and touches between
        :func:`_fewest_nodes` ``(e)`` (nondecreasing in ``e``) and ``min(2e, touchable)``
        nodes, so the similarity lies between ``J(fewest(L), L)`` and
        ``J(min(2U, touchable), U)``."""
        if result.optimal:
            return result.similarity, result.similarity
        problem = result.problem
        nodes, degree_sums = self._touchable(problem)
        size = self._size(problem)
        low = float(_similarity(_fewest_nodes(result.num_edges, *degree_sums),
                                result.num_edges, size))
        high = float(_max_similarity(result.upper_bound, nodes, size))
        return low, max(high, result.similarity)

    def __call__(self, query: Graph, graph: Graph, threshold: float | None = None,
                 bound: float = math.inf, problem=None) -> MCESOutcome:
        """Bounds on the similarity of ``query`` and ``graph``. ``bound`` is a filter's upper
        bound (0: no edge can be common, so the similarity is 0 with nothing to solve); with
        a ``threshold``, a pair whose :meth:`pair_bound` is below it is settled without a
        search (``outcome.solved`` False)."""
        problem = self.problem(query, graph) if problem is None else problem
        if bound <= 0:
            return MCESOutcome(0.0, 0.0, [] if self.node_map else None, False,
                               self._empty(problem) if self.keep else None)
        if threshold is not None:
            high = min(bound, self.pair_bound(problem))
            if high < threshold - tolerance(threshold):
                return MCESOutcome(0.0, high, None, False)
        with gc_resumed(large=query.n + graph.n >= LARGE_PAIR):  # (see collector)
            self._prepare(problem)
            result = solve_within(self.solver, problem, self._budget(problem))
        low, high = self.bounds(result)
        if not result.optimal:
            high = min(high, bound)
        return MCESOutcome(low, high, result.node_map if self.node_map else None, True,
                           result if self.keep else None,
                           stopped=None if result.optimal else result.stats.get("stopped"))

    def _prepare(self, problem) -> None:
        """Pay this process's start-ups once, on the first pair solved
        (:func:`gedkit.pacing.pay_kernel_start_ups`: a query's 199 candidates were
        undecided on a busy machine)."""
        from gedkit.pacing import pay_kernel_start_ups

        pay_kernel_start_ups(self.solver, self.timeout, lambda limit: solve_within(
            self.solver, problem, Budget(timeout=limit, memory=self.memory)), self.memory)

    def _empty(self, problem):
        from gedkit.mces.result import MCESResult

        return MCESResult.from_map(problem, np.full(problem.n1, -1, dtype=np.int64), 0,
                                   self.solver.name, stats={"stopped": "no common edge class"})


def range_query(coll, query: Graph, min_similarity: float, model: Any, verify: Verifier,
                progress=None) -> SearchResult:
    """Every graph of ``coll`` whose similarity to ``query`` is at least ``min_similarity``
    (``model`` is unused: MCES has no cost model), within ``verify.query_timeout`` seconds
    (then the candidates not reached are undecided, with their filters' bounds, as after
    Ctrl-C)."""
    sig = coll._signatures
    stages = _Stages(len(sig))
    hits, undecided = [], []
    kept = []  # their outcomes
    interrupted = False
    passed, screening = 0, 0.0
    reached = 0  # candidates screened or verified, in order
    with within(verify.query_seconds()) as deadline:
        filt = MCESFilter(query, coll._store.vocab)
        rows = np.arange(len(sig))
        limit = min_similarity - tolerance(min_similarity)
        ub = np.full(len(sig), math.inf)
        for name, bound in filt.stages:
            ub = bound(sig.take(rows)) if len(rows) < len(sig) else bound(sig)
            keep = ub >= limit
            rows, ub = rows[keep], ub[keep]
            stages.done(name, len(rows))
        if verify.query_timeout is not None:  # the likeliest hits first (file order: ties)
            first = np.lexsort((rows, -ub))
            rows, ub = rows[first], ub[first]
        rowids = sig.rowids[rows].tolist()
        ids = coll._store.ids(rowids)
        reading = coll._store.each_graph(rowids, _READ_BLOCK)
        try:
            for rowid, bound in zip(rowids, ub.tolist(), strict=True):
                if interrupted_now():
                    interrupted = True
                    break
                graph = next(reading)
                # stage "pairs": bounds from both graphs, before any search
                tick = time.perf_counter()
                problem = verify.problem(query, graph)
                if bound > 0:
                    bound = min(bound, verify.pair_bound(problem))
                screening += time.perf_counter() - tick
                reached += 1
                if bound < limit:
                    continue
                passed += 1
                out = verify(query, graph, None, bound, problem)
                stages.stats["verified"] += 1
                if progress is not None:
                    progress.step()
                if out.upper >= limit:
                    hit = Hit(ids[rowid], out.lower, out.lower, out.upper, out.optimal,
                              out.node_map)
                    (hits if out.lower >= limit else undecided).append((hit, rowid))
                    kept.append(out)
            # Ctrl-C during the last verifications: the query is interrupted where it cut
            # one short (an outcome unproven); once every candidate was decided the answer
            # is whole, as a range search by GED has it
            interrupted = interrupted or (interrupted_now()
                                          and any(not out.optimal for out in kept))
        except KeyboardInterrupt:
            interrupted = True
    timed_out = deadline is not None and deadline.ran_out(interrupted)
    unreached = 0
    if timed_out or interrupted:
        # the candidates not reached (the time limit's or Ctrl-C's): undecided, with the
        # filters' bounds
        interrupted = interrupted and not timed_out
        unreached = len(rowids) - reached
        if unreached or timed_out:
            stages.stats["unreached"] = unreached
    # ties in the file's order, whatever order the rows are in
    hits = [h for h, _ in sorted(hits, key=lambda e: range_key(e[0], e[1]))]
    undecided = _undecided(undecided, rowids[len(rowids) - unreached:],
                           ub[len(rowids) - unreached:], ids)
    stages.done("verify")
    seconds = stages.stats["seconds"]
    seconds["verify"] -= screening
    seconds["pairs"] = screening
    stages.stats["candidates"]["pairs"] = passed
    certified = not interrupted and not undecided and all(h.optimal for h in hits)
    if reasons := stopped_counts(kept):
        stages.stats["stopped"] = reasons
    return SearchResult("mces_range", query.name, min_similarity, hits, undecided, certified,
                        stats=stages.stats, interrupted=interrupted, timed_out=timed_out)


#: candidate graphs a range search reads at a time (parsed as the loop reaches them: a time
#: limit or Ctrl-C may stop it long before the last)
_READ_BLOCK = 256


def _undecided(verified: list[tuple[Hit, int]], rowids: list[int], upper: np.ndarray,
               ids: dict) -> list[Hit]:
    """A range answer's undecided graphs in :func:`undecided_key` order: those ``verified``
    in part (``(hit, rowid)``), and the candidates ``rowids`` not reached, each with its
    filters' bound ``upper`` (ordered by numpy and built with the collector paused: tens of
    thousands may be unreached, see :mod:`~gedkit.search.collector`)."""
    if not len(rowids):
        return [h for h, _ in sorted(verified, key=lambda e: undecided_key(*e))]
    order = np.lexsort((
        np.array([r for _, r in verified] + list(rowids), dtype=np.int64),
        -np.concatenate([[h.lower_bound for h, _ in verified], np.zeros(len(rowids))]),
        -np.concatenate([[h.upper_bound for h, _ in verified], upper])))
    with gc_paused():
        every = [h for h, _ in verified] + [
            Hit(ids[r], 0.0, 0.0, u, False)
            for r, u in zip(rowids, upper.tolist(), strict=True)]
        return [every[i] for i in order.tolist()]


def range_key(hit: Hit, rowid: int) -> tuple:
    """The order of a range answer's hits: most similar first, ties in rowid order."""
    return (-hit.distance, -hit.upper_bound, rowid)


def undecided_key(hit: Hit, rowid: int) -> tuple:
    """The order of a range answer's undecided graphs."""
    return (-hit.upper_bound, -hit.lower_bound, rowid)


def knn_query(coll, query: Graph, k: int, model: Any, verify: Verifier,
              progress=None) -> SearchResult:
    """The ``k`` graphs of ``coll`` most similar to ``query`` by MCES."""
    chosen, seen, state = _knn(coll, query, k, verify, progress)
    return _knn_result(coll, query, k, chosen, seen, state)


def _knn(coll, query: Graph, k: int, verify: Verifier, progress, floor: float = -math.inf):
    """The k best ``(lower, upper, rowid)`` (best first), every ``(rowid, outcome)``
    verified, and what the answer's certificate needs: ``(stats, interrupted, frontier,
    timed_out)``, ``frontier`` the largest filter bound of a graph Ctrl-C (or the query's
    time limit, ``verify.query_timeout``: then ``timed_out``) left unverified (-inf when
    none was). ``floor``: a k-th similarity found elsewhere (other shards); graphs below it
    are not searched for. Ties at the k-th similarity are verified too, so the k best by
    (similarity, upper bound, earlier rowid) are found whatever the order of the scan."""
    with within(verify.query_seconds()) as deadline:
        chosen, seen, (stats, interrupted, frontier) = _scan(coll, query, k, verify, progress,
                                                             floor)
    timed_out = deadline is not None and deadline.ran_out(interrupted)
    return chosen, seen, (stats, interrupted and not timed_out, frontier, timed_out)


def _scan(coll, query: Graph, k: int, verify: Verifier, progress, floor: float):
    """:func:`_knn`'s scan, stopped by Ctrl-C or the query's time limit alike."""
    sig = coll._signatures
    stages = _Stages(len(sig))
    filt = MCESFilter(query, coll._store.vocab)
    ub = np.full(len(sig), math.inf)
    for name, bound in filt.stages:
        ub = np.minimum(ub, bound(sig))
        stages.done(name, len(sig))
    order = np.lexsort((sig.rowids, -ub))
    stages.done("order")
    best: list[tuple[float, float, int, MCESOutcome]] = []  # min-heap: the k-th best on top
    seen: list[tuple[int, MCESOutcome]] = []
    scanned = solved = 0
    interrupted = False
    try:
        for row in order.tolist():
            kth = max(best[0][0] if len(best) == k else -math.inf, floor)
            if ub[row] < kth - tolerance(kth):
                break  # every graph left has a bound below the k-th similarity
            rowid = int(sig.rowids[row])
            if ub[row] <= 0 and not verify.keep:
                # similarity 0 proven by the filter, and every graph left alike (bound 0, in
                # rowid order): none read (an edgeless query read all 30,000 of a
                # collection, 3 s), and none past the first that cannot beat the k-th
                if len(best) == k and not _better((0.0, 0.0, -rowid), best[0]):
                    break
                out = MCESOutcome(0.0, 0.0, [] if verify.node_map else None, False)
            else:
                graph = coll._store.graphs([rowid])[rowid]
                out = verify(query, graph, None if kth == -math.inf else kth, float(ub[row]))
            # an interrupted search still returns valid bounds: the pair counts as scanned
            scanned += 1
            if out.solved:
                solved += 1
                stages.stats["verified"] += 1
                if progress is not None:
                    progress.step()
            seen.append((rowid, out))
            entry = (out.lower, out.upper, -rowid, out)
            if len(best) < k:
                heapq.heappush(best, entry)
            elif _better(entry, best[0]):
                heapq.heapreplace(best, entry)
            if interrupted_now():
                interrupted = True
                break
    except KeyboardInterrupt:
        interrupted = True
    if interrupted:
        # fewer than k verified: the next graphs by bound make up the number, similarity 0
        # proven (nothing in common) up to their bound, rather than fewer hits than asked
        for row in order[scanned:scanned + k - len(best)].tolist():
            rowid = int(sig.rowids[row])
            out = MCESOutcome(0.0, float(ub[row]), None, solved=False, stopped=_STOPPED_EARLY)
            seen.append((rowid, out))
            heapq.heappush(best, (out.lower, out.upper, -rowid, out))
    stages.done("verify")
    stages.stats["candidates"]["pairs"] = solved
    stages.stats["scanned"] = scanned
    chosen = sorted(((e[0], e[1], -e[2]) for e in best), key=lambda c: (-c[0], -c[1], c[2]))
    frontier = float(ub[order[scanned]]) if interrupted and scanned < len(order) else -math.inf
    return chosen, seen, (stages.stats, interrupted, frontier)


#: why a kNN hit has only its filter bound (see :func:`_scan`)
_STOPPED_EARLY = "not verified: the search stopped first (its filter bound)"


def _better(a: tuple, b: tuple) -> bool:
    """Whether heap entry ``a`` ranks before ``b``: a larger proven similarity, then a larger
    upper bound, then the earlier graph (equal within rounding counts as a tie)."""
    for x, y in ((a[0], b[0]), (a[1], b[1])):
        if abs(x - y) > tolerance(max(abs(x), abs(y))):
            return x > y
    return a[2] > b[2]


def _knn_result(coll, query: Graph, k: int, chosen, seen, state) -> SearchResult:
    stats, interrupted, frontier, timed_out = state
    ids = coll._store.ids([r for _, _, r in chosen])
    outcomes = dict(seen)
    hits = [Hit(ids[r], lo, lo, u, outcomes[r].optimal, outcomes[r].node_map)
            for lo, u, r in chosen]
    # a graph not chosen could still be more similar than the k-th: a verified one whose
    # search stopped early (its id is its rowid until it is found undecided), or one never
    # reached
    picked = {r for _, _, r in chosen}
    left = [Hit(rowid, out.lower, out.lower, out.upper, False, out.node_map)
            for rowid, out in sorted(outcomes.items()) if rowid not in picked]
    frontier = frontier if frontier > -math.inf else None
    undecided, uncertain, certified = knn_verdict(hits, left, k, True, frontier)
    doubtful = [h.id for h in undecided]
    if doubtful:
        extra = coll._store.ids(doubtful)
        for h in undecided:
            h.id = extra[h.id]
    if reasons := stopped_counts(outcomes[r] for r in [*picked, *doubtful]):
        stats = {**stats, "stopped": reasons}
    # (Ctrl-C once everything was decided: complete, as ged_search.knn_answer says)
    return SearchResult("mces_knn", query.name, k, hits, undecided, certified, uncertain,
                        stats=stats, interrupted=interrupted and not certified,
                        timed_out=timed_out, frontier=frontier)
