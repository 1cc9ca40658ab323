"""Range and k-nearest queries by GED: filter the whole collection, then verify the rest.

Filtering runs the stages of :class:`~gedkit.search.filters.GedFilter` over the stored
signatures (no graph is read). Verification solves the query against each remaining graph with
the threshold: exact search prunes every partial map that cannot end within it and finds the
best map within it, so a graph within reach gets its exact distance and one beyond it is ruled
out early. A verification that stops at its time limit leaves the graph undecided, with its
bounds.

kNN scans the graphs in increasing order of their filter bound, verifying each with the current
k-th best distance as threshold, and stops when the next bound exceeds it: no graph left can
be closer. A graph the batch kernel does not finish within its first share is set aside and
verified once the scan ends, against the k-th distance reached by then (:class:`_KnnScanner`).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gedkit.budget import Budget, heuristic_stop, solve_within, time_ran_out, within
from gedkit.budget import interrupted as interrupted_now
from gedkit.costs.base import CostModel
from gedkit.costs.describe import briefly
from gedkit.graph import Graph
from gedkit.numeric import order_up_to_rounding, tolerance
from gedkit.pacing import pay_kernel_start_ups
from gedkit.search.collector import LARGE_PAIR, gc_paused, gc_resumed
from gedkit.search.filters import GedFilter, equality_terms, query_signatures, window_passes
from gedkit.search.knn_verdict import knn_verdict
from gedkit.search.result import Hit, SearchResult
from gedkit.solvers.base import Solver

__all__ = ["KnnScan", "Verifier", "combine_scans", "knn_answer", "knn_query", "knn_scan",
           "range_queries", "range_query", "rank_key", "stopped_counts"]


@dataclass
class Outcome:
    lower: float
    upper: float
    node_map: list | None
    #: why the solve stopped short of a proof (its result's ``stats["stopped"]``), if it said
    stopped: str | None = field(default=None, kw_only=True)
    #: False for the bounds of a batch kernel's share a kNN scan set aside to finish later
    final: bool = field(default=True, kw_only=True)

    @property
    def optimal(self) -> bool:
        return self.upper - self.lower <= tolerance(self.upper)


def stopped_counts(outs) -> dict[str, int]:
    """For the unproven outcomes among ``outs``: how many stopped for each reason (the time
    limit unless the solve said otherwise, e.g. kernels not compiled yet)."""
    counts: dict[str, int] = {}
    for out in outs:
        if not out.optimal:
            reason = out.stopped or "time limit"
            counts[reason] = counts.get(reason, 0) + 1
    return counts


class CallClock:
    """A verifier's clock for its queries' time limit (``query_timeout``): the call's first
    query is charged what the call took before its search began (a fresh process's first
    search starts the compiled kernels: a range search with ``query_timeout=2`` took 2.8 s)."""

    query_timeout: float | None
    call_started: float | None  # perf_counter() at the call's start; None once charged

    def start_call(self) -> None:
        self.call_started = time.perf_counter()

    def call_overhead(self) -> float:
        """The seconds the call took before its first query's search, once (0 after)."""
        started, self.call_started = self.call_started, None
        return 0.0 if started is None else time.perf_counter() - started

    def query_seconds(self) -> float | None:
        """The seconds the query about to be searched has (None: no limit)."""
        before = self.call_overhead()
        return None if self.query_timeout is None else max(self.query_timeout - before, 0.0)


class Verifier(CallClock):
    """Solves the query against candidate graphs, one pair at a time, within a threshold."""

    def __init__(self, model: CostModel, solver: Solver, timeout: float | None,
                 memory: int | None, node_map: bool, query_timeout: float | None = None):
        self.model, self.solver = model, solver
        self.timeout, self.memory, self.node_map = timeout, memory, node_map
        # seconds a query's kNN scan or range verification has, None for no limit (see
        # knn_scan and _verified)
        self.query_timeout = query_timeout
        self.start_call()

    def measure(self) -> str:
        """What the answers' distances mean (:attr:`SearchResult.measure`): the cost model,
        briefly (:func:`~gedkit.costs.describe.briefly`)."""
        return briefly(self.model)

    def __call__(self, query: Graph, graph: Graph, threshold: float | None,
                 share: float | None = None) -> Outcome:
        """The outcome within the time limit, or within ``share`` of it; an exact search's
        map polished if it stops short (see :meth:`_solve`)."""
        timeout = self.timeout if share is None else share * self.timeout
        return self._solve(self.solver, query, graph, timeout, threshold, self.solver.exact)

    def quick(self, query: Graph, graph: Graph, polish: bool = False) -> Outcome:
        """Quick bounds on GED(query, graph): BRANCH's (one assignment), its map polished if
        asked, within the time limit."""
        from gedkit.solvers import get_solver

        return self._solve(get_solver("branch"), query, graph, self.timeout, None, polish)

    def _solve(self, solver: Solver, query: Graph, graph: Graph, timeout: float | None,
               threshold: float | None, polish: bool) -> Outcome:
        """``solver``'s outcome within ``timeout``; with ``polish``, a map short of a proof
        and within reach of ``threshold`` is polished in the last :data:`POLISH_SHARE` of
        that time, or, after an exact search, in all it left of it (one that cannot take a
        step on a pair of thousands of nodes answers with its first bounds at once: a
        2,000-node pair's map polished for 0.05 s of a 1 s limit cost 3,128 edits, for the
        0.65 s left 1,585)."""
        kept = None if timeout is None or not polish else POLISH_SHARE * timeout
        budget = Budget(timeout=timeout if kept is None else timeout - kept,
                        memory=self.memory, threshold=threshold, decide=False)
        with gc_resumed(large=query.n + graph.n >= LARGE_PAIR):  # (see collector)
            problem = self.model.compile(query, graph)
            # the process's start-ups paid once, before the first pair's limit
            pay_kernel_start_ups(solver, timeout, lambda limit: solve_within(
                solver, problem, Budget(timeout=limit, memory=self.memory)), self.memory)
            result = solve_within(solver, problem, budget)
            if (polish and not result.optimal and not interrupted_now()
                    and (threshold is None or result.lower_bound <= threshold)):
                # (no limit per pair: one polish to its end, within a query's own limit)
                left = (None if timeout is None else
                        max(kept, timeout - budget.elapsed()) if solver.exact else kept)
                from gedkit.solvers.heuristics.polish import polished

                result = polished(result, Budget(timeout=left, memory=self.memory))
        stopped = None
        if not result.optimal:
            # a heuristic asked for stops with its bounds, not for the time limit: a note
            # said "18 verifications reached the time limit of 30 s" of a 31 ms search
            stopped = result.stats.get("stopped") or (
                None if solver.exact or solver is not self.solver else
                heuristic_stop(solver.name, "its bounds left them open"))
        return Outcome(result.lower_bound, result.upper_bound,
                       result.node_map if self.node_map else None, stopped=stopped)


#: the share of a pair's time limit kept for polishing the map of an exact search that
#: stops short (IPFP, then REFINE, from it): on large pairs the search's map, from its
#: assignments, is often far above what that local search reaches in a few milliseconds (an
#: AIDS 68-atom query's 2nd-5th neighbours at 76-117 edits by A*'s maps, 55-90 polished),
#: and a lower k-th distance rules more graphs out
POLISH_SHARE = 0.05


_BLOCK = 1024  # candidates verified between checks for Ctrl-C
_READ_AHEAD = 32  # graphs read at a time for the pairs solved one by one
#: the share of the per-pair time limit a kNN scan gives a graph the batch kernel does not
#: take (large label vocabularies: Protein, GREC; methods other than astar and exact)
#: before setting it aside, as the kernel's first share does: the k-th distance falls from
#: many short solves' maps, and the graphs set aside are solved with the whole limit
#: against it afterwards, where most are ruled out at once
PAIR_SHARE = 0.1


class _Checker:
    """Verifies blocks of candidates: many per compiled call where the batch kernel applies,
    one by one otherwise and for what it leaves (pairs past its expansion cap, node maps)."""

    def __init__(self, coll, query: Graph, verify: Verifier, model: CostModel,
                 filt: GedFilter, stages: _Stages, progress, ranged: bool = False):
        self.coll, self.query, self.verify = coll, query, verify
        self.ranged = ranged  # a range search: graphs beyond the threshold share one outcome
        self.model, self.filt = model, filt
        self.stages, self.progress = stages, progress
        self._batch: Any = False  # built on first use: most queries of a range search need none
        self.interrupted = False

    @property
    def batch(self):
        if self._batch is False:
            from gedkit.search.batch import BatchVerifier

            self._batch = BatchVerifier.build(self.model, self.verify.solver, self.filt,
                                              self.verify.timeout, self.verify.memory)
        return self._batch

    def __call__(self, rowids: list[int], threshold: float | None,
                 known: dict[int, Outcome] | None = None, defer: bool = False,
                 retry: bool = True, kernel: bool = True,
                 share: float | None = None) -> list[Outcome | None]:
        """The outcome of each of ``rowids`` (``known``: those already verified, by
        :func:`_verify_together`; the others one by one). ``defer``: where the batch kernel
        applies, a pair it does not finish gets the bounds it reached, not ``final``, instead
        of a solve pair by pair; where it does not, a pair by pair solve gets
        :data:`PAIR_SHARE` of the time limit, and not ``final`` if that was too little;
        ``retry``: whether the kernel gives such a pair a second, larger share first;
        ``kernel``: whether to try the kernel at all; ``share``: of the time limit, for the
        pairs solved one by one (final whatever they reach)."""
        outs: list[Outcome | None] = [None] * len(rowids)
        batched = known is not None or (kernel and self.batch is not None)
        if batched:
            if known is not None:
                outs = [known.get(r) for r in rowids]
            else:
                reach = _within(threshold)
                lower, upper, done = self.batch.run(
                    self.coll._records(np.array(rowids)), reach, self.verify.timeout,
                    retry=retry, depth_first=self.ranged,
                    progress_tick=None if self.progress is None else self.progress.tick)
                outs = _outcomes(lower, upper, done, reach, self.verify.node_map, self.ranged)
                self.interrupted = self.interrupted or interrupted_now()
                if defer and not self.interrupted:
                    for i in np.flatnonzero(~done).tolist():
                        outs[i] = Outcome(float(lower[i]), float(upper[i]), None,
                                          final=False)
        rest = [r for r, o in zip(rowids, outs, strict=True) if o is None]
        if batched:  # (counted by the rest: outs.count(None) compared each outcome to None)
            self.stages.stats["batched"] = (self.stages.stats.get("batched", 0) + len(outs)
                                            - len(rest))
        self.interrupted = self.interrupted or interrupted_now()
        if not rest or self.interrupted:  # the kernel decided them all, or time is up: the
            # rest are not read (decoding thousands of graphs nobody will solve took seconds)
            decided = len(outs) - len(rest)
            self.stages.stats["verified"] += decided
            if self.progress is not None:
                self.progress.verified(decided)
            return outs
        # read a few at a time as the loop reaches them: a time limit may stop it after the
        # first (decoding them all first took seconds past the limit)
        reading = self.coll._store.each_graph(rest, _READ_AHEAD)
        # (not a heuristic's: its bounds are what it answers whatever its time, and its
        # graphs were said to be given "a tenth of the limit")
        aside = (share is None and defer and kernel and self.batch is None
                 and self.verify.timeout is not None and self.verify.solver.exact)
        share = PAIR_SHARE if aside else share
        reach = _within(threshold)
        for i in range(len(rowids)):
            if outs[i] is None and not self.interrupted:
                outs[i] = out = self.verify(self.query, next(reading), reach, share)
                self.interrupted = interrupted_now()
                if (aside and not out.optimal and not self.interrupted
                        and (reach is None or out.lower <= reach)):
                    out.final = False  # undecided within the share: set aside
            if outs[i] is None:
                continue  # Ctrl-C or a query's time limit came first (the kernel may have
                # decided graphs after it: they count)
            self.stages.stats["verified"] += 1
            if self.progress is not None:
                self.progress.step()
        self.interrupted = self.interrupted or interrupted_now()
        return outs  # None where Ctrl-C came first


def _at_most(lower: float, upper: float) -> float:
    """``lower``, or ``upper`` where ``lower`` exceeds it by rounding alone (a filter's sum
    3.575000000000001 against a map's 3.575: one distance, which a hit printed with its lower
    bound above its upper)."""
    return upper if upper < lower <= upper + tolerance(upper) else lower


def _within(threshold: float | None) -> float | None:
    """The threshold searched to: a distance equal to it up to rounding is within it."""
    return None if threshold is None else threshold + tolerance(threshold)


#: the outcome of every graph the batch kernel proved beyond the threshold (one object for
#: all: a search keeps nothing of them but that they are out, and there are thousands)
_BEYOND = Outcome(math.inf, math.inf, None)


def _outcomes(lower: np.ndarray, upper: np.ndarray, done: np.ndarray, threshold: float | None,
              node_map: bool, ranged: bool = False) -> list[Outcome | None]:
    """The batch kernel's verdicts as outcomes; None where the kernel did not finish, and,
    when node maps are asked for, where the graph is within reach (the kernel keeps none).
    ``ranged``: for a range search, which keeps nothing of a graph beyond the threshold, all
    those are :data:`_BEYOND`."""
    limit = math.inf if threshold is None else threshold
    beyond = done & (lower > limit) if ranged else np.zeros(len(done), dtype=bool)
    outs: list[Outcome | None] = np.where(beyond, _BEYOND, None).tolist()
    near = np.flatnonzero(done & ~beyond)
    for i, low, up in zip(near.tolist(), lower[near].tolist(), upper[near].tolist(),
                          strict=True):
        if not (node_map and low <= limit):
            outs[i] = Outcome(low, up, None)
    return outs


#: candidates, over consecutive queries, verified together in one batch (one kernel call per
#: CALL_SECONDS of work, whatever query each candidate belongs to)
_TOGETHER = 4096


def _verify_together(coll, sig, pending: list, tau: float, verify: Verifier
                     ) -> dict[int, dict]:
    """Verify the candidates of several range queries in one batch: ``pending`` holds
    ``(position, rows, stages, filter, bounds)`` per query, ``rows`` of ``sig``; the queries
    whose filters share the collection's cost matrices (their labels are all the
    collection's) go together, each candidate against its own query. Returns position ->
    {rowid: outcome} for what the kernel decided; the rest (other queries, pairs the kernel
    did not finish) is left to the per-pair driver."""
    from gedkit.search.batch import BatchVerifier

    # a query with more candidates than that goes alone, block by block (progress shown,
    # Ctrl-C checked between blocks)
    # (a query with labels the collection lacks has matrices of its own: verified apart)
    together = [p for p in pending if len(p[1]) <= _TOGETHER and p[3].collection_labels]
    if len(together) < 2:
        return {}  # one query: its own batch does the same
    if not BatchVerifier.applies(verify.solver, together[0][3], verify.timeout, verify.memory,
                                 max(p[3].qn for p in together)):
        return {}
    shared = together[0][3].matrices()
    tick = time.perf_counter()
    batch = BatchVerifier(*shared, [p[3].record for p in together])
    sizes = [len(p[1]) for p in together]
    flat = sig.rowids[np.concatenate([p[1] for p in together])]
    threshold = _within(tau)
    lower, upper, done = batch.run(coll._records(flat), threshold, verify.timeout,
                                   which=np.repeat(np.arange(len(together)), sizes),
                                   depth_first=True)
    outs = _outcomes(lower, upper, done, threshold, verify.node_map, ranged=True)
    seconds = time.perf_counter() - tick
    rowids = flat.tolist()
    found: dict[int, dict] = {}
    at = 0
    for p, size in zip(together, sizes, strict=True):
        found[p[0]] = {r: o for r, o in zip(rowids[at:at + size], outs[at:at + size],
                                            strict=True) if o is not None}
        at += size
    # each query's share of the batch's time, by the candidates the batch decided for it: a
    # query the batch did not reach before its time limit is charged nothing and verifies
    # its candidates in its own time (not its neighbours')
    decided = [len(found[p[0]]) for p in together]
    total = sum(decided)
    for p, count in zip(together, decided, strict=True):
        p[2].stats["seconds"]["verify"] = seconds * (count / total if total
                                                     else 1 / len(together))
    return found


def _filter_bounds(sig, rows: np.ndarray, filt: GedFilter | None, limit: float) -> np.ndarray:
    """The largest of ``filt``'s lower bounds on each of the candidate ``rows`` (0 without a
    filter; never -0.0, which ``np.maximum`` keeps from a stage and outputs printed)."""
    lower = np.zeros(len(rows))
    if filt is not None and len(rows):
        for _, bound in filt.stages:
            lower = np.maximum(lower, bound(sig, rows, limit))
    return lower + 0.0


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
    filters run for many queries per compiled call, the candidates of consecutive queries
    are verified together (:func:`_verify_together`), and a query without candidates costs
    little more than its signature."""
    sig = coll._range_signatures(len(queries))
    limit = _within(tau)
    vocab = coll._store.vocab
    if not _many(model, sig, limit):
        for query in queries:
            stages = _Stages(len(sig))
            filt = GedFilter(model, query, vocab)
            rows = _filtered(filt, sig, limit, stages)
            yield _verified(coll, query, tau, limit, rows, sig, model, verify, filt, stages,
                            progress)
        return
    prepared = query_signatures(queries, vocab)
    passes = window_passes(sig, prepared, vocab, equality_terms(model.equality_costs), limit)
    # (position, rows, stages, filter, bounds) of the queries filtered, not answered, and
    # the answers in order from the first of them on: an answer already for a query without
    # candidates, that entry for one with
    pending: list = []
    ahead: list = []
    waiting = 0  # their candidates
    for first, ends, lefts, found, bounds, seconds in passes:
        interrupted = interrupted_now()  # the pass is one compiled call
        candidates = np.diff(ends)
        idle = _idle_answers(queries, first, np.flatnonzero(candidates == 0).tolist(), lefts,
                             tau, len(sig), seconds, interrupted)
        told = 0  # idle answers handed on
        for j, k in enumerate(np.flatnonzero(candidates).tolist()):
            # idle[told:k - j]: the queries before it without candidates, not yet handed on
            if ahead:
                ahead.extend(idle[told:k - j])
            else:
                yield from idle[told:k - j]
            told = k - j
            a, b = ends[k:k + 2].tolist()
            stages = _Stages(len(sig))
            # under a time limit the likeliest hits first (the filter's bound, then row
            # order), with their bounds; else row order, the records' order in memory
            if verify.query_timeout is not None:
                order = np.lexsort((found[a:b], bounds[a:b]))
                rows, lower = found[a:b][order], bounds[a:b][order]
            else:
                rows, lower = np.sort(found[a:b]), None
            stages.stats["candidates"] = lefts[k]
            stages.stats["seconds"]["filter"] = seconds
            entry = (first + k, rows, stages, GedFilter.of_batch(
                model, queries[first + k], vocab, prepared, first + k), lower)
            pending.append(entry)
            ahead.append(entry)
            waiting += b - a
            if waiting >= _TOGETHER:
                yield from _answer_pending(coll, queries, pending, ahead, tau, limit, sig,
                                           model, verify, progress)
                pending, ahead, waiting = [], [], 0
        if ahead:
            ahead.extend(idle[told:])
        else:
            yield from idle[told:]
    if ahead:
        yield from _answer_pending(coll, queries, pending, ahead, tau, limit, sig, model,
                                   verify, progress)


def _idle_answers(queries: list[Graph], first: int, idle: list[int], lefts: list[dict],
                  tau: float, screened: int, seconds: float, interrupted: bool
                  ) -> list[SearchResult]:
    """The answers of the queries ``idle`` of a filter pass (positions from its ``first``)
    whose filters left no graph (most queries of a search at a small threshold: answered
    without a verification's set-up, in one go), ``lefts`` and ``seconds`` as the pass gave
    them; ``interrupted``: whether Ctrl-C came before its end."""
    return [_none_within(queries[first + k], tau,
                         {"screened": screened, "candidates": lefts[k], "verified": 0,
                          "seconds": {"filter": seconds, "verify": 0.0}}, interrupted)
            for k in idle]


def _answer_pending(coll, queries: list[Graph], pending: list, ahead: list, tau: float,
                    limit: float, sig, model: CostModel, verify: Verifier, progress
                    ) -> Iterator[SearchResult]:
    """The answers of :func:`range_queries` ``ahead``, in order: the candidates of the
    ``pending`` queries verified together where they can be, their hits' ids read in one
    query."""
    # under a time limit per query the batch, limited to one query's time, counts towards
    # each of its queries' limit by its share (see _verify_together)
    before = verify.call_overhead()  # (the call's first query's: charged to it below)
    with within(None if verify.query_timeout is None else
                max(verify.query_timeout - before, 0.0)):
        known = _verify_together(coll, sig, pending, tau, verify)
    answers = []
    verified = []  # the answers with candidates
    for entry in ahead:
        if isinstance(entry, SearchResult):
            answers.append(entry)
            continue
        j, rows, stages, filt, lower = entry
        stages.t = time.perf_counter()
        spent = stages.stats["seconds"].get("verify", 0.0) + before
        before = 0.0
        answer = _verified(coll, queries[j], tau, limit, rows, sig, model, verify, filt, stages,
                           progress, known.get(j), ids=False, spent=spent, bounds=lower)
        answers.append(answer)
        verified.append(answer)
        if answer.interrupted:
            break
    found = [h for r in verified for h in r.hits + r.undecided]
    if found:
        ids = coll._store.ids([h.id for h in found])  # rowids so far
        for h in found:
            h.id = ids[h.id]
    yield from answers


def _none_within(query: Graph, tau: float, stats: dict,
                 interrupted: bool | None = None) -> SearchResult:
    """The answer to a range query whose filters left no graph; ``interrupted``: whether
    Ctrl-C came first, if already known."""
    if interrupted is None:
        interrupted = interrupted_now()
    return SearchResult("range", query.name, tau, [], [], not interrupted, [], stats,
                        interrupted)


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
              progress, known: dict[int, Outcome] | None = None, ids: bool = True,
              spent: float = 0.0, bounds: np.ndarray | None = None) -> SearchResult:
    """The range answer from the candidate ``rows``: each verified within ``tau`` (those in
    ``known`` already, in ``spent`` seconds), within ``verify.query_timeout`` seconds in all
    (then the candidates not reached are undecided, with their filter bounds, as after
    Ctrl-C), under that limit in increasing order of their filters' bound, row order among
    equals (the likeliest hits first: the graph identical to the query before one at the
    threshold; ``bounds``: those of ``rows``, which are in that order already). Its hits'
    ids are the collection's rowids unless ``ids``."""
    if not len(rows):
        stages.done("verify")
        return _none_within(query, tau, stages.stats)
    if known is not None and verify.query_timeout is None and len(known) == len(rows):
        # the batch decided every candidate (most queries of a range search): no checker,
        # no time limit, no order to keep
        return _settled(coll, query, tau, limit, known, stages, progress, ids)
    hits, undecided = [], []
    kept = []  # their outcomes
    # positions verified: what Ctrl-C or the time limit left is undecided, with its bound
    decided = np.zeros(len(rows), dtype=bool)
    interrupted = False
    check = _Checker(coll, query, verify, model, filt, stages, progress, ranged=True)
    if progress is not None:
        progress.expect(len(rows))
    seconds = verify.query_seconds()
    seconds = None if seconds is None else max(seconds - spent, 0.0)
    if seconds is not None and filt is not None and bounds is None:  # the likeliest first
        bounds = _filter_bounds(sig, rows, filt, limit)
        order = np.argsort(bounds, kind="stable")
        rows, bounds = rows[order], bounds[order]
    with within(seconds) as deadline:
        try:
            for first in range(0, len(rows), _BLOCK):
                block = rows[first:first + _BLOCK]
                rowids = sig.rowids[block].tolist()
                outs = check(rowids, tau, known)
                decided[first:first + len(block)] = [out is not None for out in outs]
                _sort_into(rowids, outs, limit, hits, undecided, kept)
                if check.interrupted:
                    interrupted = True
                    break
        except KeyboardInterrupt:
            interrupted = True
    if interrupted and decided.all():
        # Ctrl-C came once every candidate was decided (the batch's verdicts read back): a
        # whole answer, not an interrupted one (such queries were marked interrupted)
        interrupted = False
    timed_out = deadline is not None and deadline.ran_out(interrupted)
    if timed_out:
        interrupted = False
    # what was not verified (positions in rows): undecided with its filter bound, never left
    # out, whether the time limit or Ctrl-C stopped the search (after Ctrl-C a query's 616
    # unverified candidates were in no list, and no count said so)
    unreached = np.flatnonzero(~decided) if timed_out or interrupted else _NO_POSITIONS
    # out of time with every candidate decided (by the batch): a whole answer
    timed_out = timed_out and len(unreached) > 0
    if len(unreached):
        stages.stats["unreached"] = len(unreached)
        # the filters' bounds of the unreached, as the order above had them (-0.0 from the
        # pass printed as such); without a filter 0
        lower = (bounds[unreached] + 0.0 if bounds is not None
                 else _filter_bounds(sig, rows[unreached], filt, limit))
        undecided = _undecided(undecided, sig.rowids[rows[unreached]], lower)
    else:
        undecided = _undecided(undecided)
    return _range_answer(coll, query, tau, hits, undecided, kept, stages, ids, interrupted,
                         timed_out)


def _sort_into(rowids: list[int], outs: list[Outcome | None], limit: float, hits: list[Hit],
               undecided: list[Hit], kept: list[Outcome]) -> None:
    """The graphs ``rowids`` whose outcomes ``outs`` (None: not verified) may be within
    ``limit``, as hits (proven within) or undecided, their outcomes in ``kept``."""
    for rowid, out in zip(rowids, outs, strict=True):
        if out is not None and out.lower <= limit:
            hit = Hit(rowid, out.upper, _at_most(out.lower, out.upper), out.upper, out.optimal,
                      out.node_map)
            (hits if out.upper <= limit else undecided).append(hit)
            kept.append(out)


def _settled(coll, query: Graph, tau: float, limit: float, known: dict[int, Outcome],
             stages: _Stages, progress, ids: bool) -> SearchResult:
    """:func:`_verified`'s answer when the batch decided every candidate (``known``)."""
    hits: list[Hit] = []
    undecided: list[Hit] = []
    kept: list[Outcome] = []
    _sort_into(list(known), list(known.values()), limit, hits, undecided, kept)
    stages.stats["batched"] = stages.stats.get("batched", 0) + len(known)
    stages.stats["verified"] += len(known)
    if progress is not None:
        progress.expect(len(known))
        progress.verified(len(known))
    # whole even when Ctrl-C came meanwhile (the next query's search stops for it)
    return _range_answer(coll, query, tau, hits, _undecided(undecided), kept, stages, ids,
                         False, False)


def _range_answer(coll, query: Graph, tau: float, hits: list[Hit], undecided: list[Hit],
                  kept: list[Outcome], stages: _Stages, ids: bool, interrupted: bool,
                  timed_out: bool) -> SearchResult:
    """The range answer of ``query`` from its ``hits`` (in any order) and ``undecided`` (in
    order), the outcomes ``kept`` of both; ids are rowids, the collection's own ids after
    this unless ``ids`` is False."""
    # ties in the collection's order (rowids, as the MCES searches break them), not
    # in the order the candidates were verified (by size)
    # (a distance summed in two orders, 2.1999999999999997 and 2.2, is one: ties all the same)
    hits = [hits[i] for i in order_up_to_rounding([(h.distance, h.lower_bound, h.id)
                                                    for h in hits])]
    stages.done("verify")
    if ids and (hits or undecided):
        named = coll._store.ids([h.id for h in hits + undecided])  # rowids so far
        for h in hits + undecided:
            h.id = named[h.id]
    certified = not interrupted and not undecided and all(h.optimal for h in hits)
    if reasons := stopped_counts(kept):
        stages.stats["stopped"] = reasons
    return SearchResult("range", query.name, tau, hits, undecided, certified, [], stages.stats,
                        interrupted, timed_out)


_NO_POSITIONS = np.zeros(0, dtype=np.int64)


def _undecided(verified: list[Hit], rowids: np.ndarray | None = None,
               lower: np.ndarray | None = None) -> list[Hit]:
    """A range answer's undecided graphs (rowids as ids) by increasing lower bound, then
    upper bound and rowid: those ``verified`` in part, and the candidates ``rowids`` not
    reached before the time limit (None: none), each with its filters' bound ``lower`` and
    no upper bound. (Ordered by numpy, built with the collector paused: a third of 100,000
    graphs may be unreached, and sorting and collecting them in Python took seconds.)"""
    if rowids is None or not len(rowids):
        return sorted(verified, key=lambda h: (h.lower_bound, h.upper_bound, h.id))
    order = np.lexsort((
        np.concatenate([np.array([h.id for h in verified], dtype=np.int64), rowids]),
        np.concatenate([[h.upper_bound for h in verified], np.full(len(rowids), math.inf)]),
        np.concatenate([[h.lower_bound for h in verified], lower])))
    with gc_paused():
        every = verified + [Hit(r, math.inf, lo, math.inf, False)
                            for r, lo in zip(rowids.tolist(), lower.tolist(), strict=True)]
        return [every[i] for i in order.tolist()]


#: graphs (at least, and per neighbour asked for) whose quick upper bounds seed kNN's ceiling
_CEILING_GRAPHS, _CEILING_PER_K = 64, 4
#: ... without the batch kernel (BRANCH pair by pair)
_FEW_CEILING_GRAPHS = 16
#: the methods a kNN ceiling bounds (exact searches, which a threshold prunes)
_SEARCHES = frozenset({"astar", "dfs", "exact"})


def _ceiling(check: _Checker, sig, order: np.ndarray, k: int, lower: np.ndarray | None = None
             ) -> tuple[float, np.ndarray, np.ndarray]:
    """An upper bound on the k-th distance to start kNN's scan with: the k-th smallest quick
    upper bound of the first graphs in bound order (the batch kernel's root assignment,
    :meth:`~gedkit.search.batch.BatchVerifier.upper_bounds`, and BRANCH's map pair by pair,
    :meth:`Verifier.quick`, where the kernel has none; without the kernel BRANCH's maps, for
    exact methods); inf for other methods. Verifying
    against it instead of against nothing keeps the first searches of the scan bounded: a
    graph within it is found exactly, the k graphs that gave it are within it, and a graph
    beyond it is ruled out by the search's first bound, not searched to its time limit
    (Protein under PROTEIN: 112 s a query at k = 10 without it). Returns it with the rows
    bounded and their quick upper bounds (what a scan stopped early answers with; inf
    ceiling with them all when the collection has fewer than ``k`` graphs).

    ``lower``: each row's filter bound; a graph bounded at 0 is first searched for a map of
    cost 0 (a search that stops at the first edit: microseconds), which the root's
    assignment misses where alike atoms make many zero-cost assignments (a query's own
    molecule then came out at 10-24 edits)."""
    batch = check.batch
    none = (math.inf, order[:0], np.zeros(0))
    if not len(order) or (batch is None and check.verify.solver.name not in _SEARCHES):
        return none
    # without the batch kernel fewer graphs: a pair's BRANCH costs as much as a few hundred
    # of the kernel's roots
    first = _CEILING_GRAPHS if batch is not None else _FEW_CEILING_GRAPHS
    rows = order[:max(first, _CEILING_PER_K * k)]
    rowids = sig.rowids[rows].tolist()
    if batch is not None:
        upper = batch.upper_bounds(check.coll._records(np.array(rowids)))
        # pairs whose root does not fit the kernel's share (a query or graphs of thousands
        # of nodes) have no quick bound there: BRANCH's map pair by pair for the first of
        # them in bound order, as many as a finite k-th needs, rather than no ceiling (a
        # 2,000-node query's scan verified all 4,991 NCI molecules, ~4 ms each, up to its 60 s
        # limit, before its one near graph, of 2,000 nodes too, had a bound ruling them out)
        if lower is not None:
            same = np.flatnonzero((lower[rows] <= 0) & (upper > 0))
            if len(same):
                _, found, done = batch.run(check.coll._records(np.array(rowids)[same]), 0.0,
                                           check.verify.timeout, retry=False)
                upper[same[done & (found <= 0)]] = 0.0
        short = k - int(np.isfinite(upper).sum())
        missing = np.flatnonzero(np.isinf(upper))[:max(short, 0)]
    else:
        upper = np.full(len(rowids), math.inf)
        missing = np.arange(len(rowids))
    if len(missing):
        graphs = check.coll._store.graphs([rowids[i] for i in missing.tolist()])
        for i in missing.tolist():
            upper[i] = check.verify.quick(check.query, graphs[rowids[i]]).upper
            if interrupted_now():
                return math.inf, rows, upper
    # fewer graphs than k: all of them are the answer, the k-th distance is not bounded (the
    # quick bounds still answer for the graphs a scan stopped early does not reach)
    ceiling = float(np.partition(upper, k - 1)[k - 1]) if len(upper) >= k else math.inf
    return ceiling, rows, upper


def knn_query(coll, query: Graph, k: int, model: CostModel, verify: Verifier,
              progress=None) -> SearchResult:
    """The ``k`` graphs of ``coll`` nearest to ``query`` by GED."""
    return knn_answer(coll, query, k, knn_scan(coll, query, k, model, verify, progress))


@dataclass
class KnnScan:
    """What a kNN scan of a collection (or of one shard of it) found.

    ``best``: ``(key, rowid, outcome)`` of the k best graphs found, by :func:`rank_key`;
    ``seen``: ``(rowid, outcome)`` of the verified graphs that could still be among the k
    nearest (their lower bound below the k-th distance the scan ended with); ``frontier``:
    the smallest filter bound of a graph Ctrl-C (or the query's time limit: ``timed_out``)
    left unverified (inf when none was).
    """

    best: list[tuple[tuple, int, Outcome]]
    seen: list[tuple[int, Outcome]]
    stats: dict
    interrupted: bool
    frontier: float = math.inf
    timed_out: bool = False


def rank_key(out: Outcome, bound: float, rowid: int) -> tuple:
    """How kNN ranks a verified graph: by its distance (upper bound), a better proven lower
    bound first, then by its filter bound and rowid, the order the scan reaches graphs in.

    The k nearest are the k smallest keys: every graph is ranked by values of its own, so the
    answer does not depend on the order graphs are verified in, and the k best of every shard
    of a collection hold the k best of all of it (ties at the k-th distance included)."""
    return (out.upper, -out.lower, bound, rowid)


def knn_scan(coll, query: Graph, k: int, model: CostModel, verify: Verifier, progress=None,
             bound: tuple | None = None) -> KnnScan:
    """Scan ``coll`` for the ``k`` best keys (:func:`rank_key`) below ``bound`` (the k-th key
    found elsewhere, e.g. on other shards; None: no bound), within ``verify.query_timeout``
    seconds: once they have passed the scan stops as on Ctrl-C (what it has not reached
    stays a frontier, and the hits it could beat are uncertain), but says ``timed_out``."""
    with within(verify.query_seconds()) as deadline:
        scan = _KnnScanner(coll, query, k, model, verify, progress, bound).run()
    if deadline is not None and deadline.ran_out(scan.interrupted):
        scan.interrupted, scan.timed_out = False, True
    return scan


class _KnnScanner:
    """One kNN scan: the graphs in filter-bound order, each verified against the k-th
    distance found so far.

    Where the batch kernel applies, a graph it does not finish within its first share is set
    aside with the bounds it reached rather than solved pair by pair at once, and its upper
    bound (a map's cost) counts towards the k-th distance at once: verifying against a loose
    threshold is the slowest kind (each such solve runs to its time limit), and the k-th
    distance falls fastest from many cheap maps. Once the scan ends, the graphs set aside are
    tried again, each time against the k-th distance reached by then: through the kernel
    while that distance keeps falling below the threshold a graph was tried at, then once
    with the kernel's larger share, then pair by pair; each kind of try through the kernel
    only while it settles enough of the graphs it is given (:class:`_Yield`). A graph's
    bounds from its tries are combined (the best of each), so its rank only improves and the
    k best so far stay the k best.
    """

    def __init__(self, coll, query: Graph, k: int, model: CostModel, verify: Verifier,
                 progress, bound: tuple | None):
        self.k, self.bound = k, bound
        self.sig = sig = coll._signatures
        self.stages = stages = _Stages(len(sig))
        filt = GedFilter(model, query, coll._store.vocab)
        lb = np.zeros(len(sig))
        self.lazy = [bound_of for name, bound_of in filt.stages if name in filt.lazy]
        for name, bound_of in filt.stages:
            if name not in filt.lazy:
                lb = np.maximum(lb, bound_of(sig, None))
                stages.done(name, len(sig))
        self.lb = lb
        self.first = lb.copy()  # the bounds the graphs are ranked and reached by (rank_key)
        self.order = np.lexsort((sig.rowids, lb))
        stages.done("order")
        self.best: list[tuple] = []  # the k best keys, negated: the k-th best on top
        self.held: set[int] = set()  # their rowids
        self.seen: dict[int, tuple[int, Outcome]] = {}  # rowid -> (row, its bounds so far)
        self.frontier = math.inf
        self.interrupted = False
        self.scanned = 0  # graphs of ``order`` reached
        self.check = _Checker(coll, query, verify, model, filt, stages, progress)
        self.ceiling, *self.quick = _ceiling(self.check, sig, self.order, k, lb)
        self.step = 1.0 if getattr(filt, "integral", False) else 0.0
        stages.done("ceiling")
        # row -> (the threshold the kernel gave up at, whether with its larger share)
        self.aside: dict[int, tuple[float, int]] = {}
        self.again, self.larger = _Yield(_AGAIN_TRIES, _AGAIN_RATE), _Yield(*_LARGER)
        # whether the graphs set aside have polished maps (solved pair by pair, they have)
        self.tightened = self.check.batch is None
        # solves with the whole time limit (none without one: they all finish)
        self.whole = _Yield(*_WHOLE) if verify.timeout is not None else None

    def run(self) -> KnnScan:
        try:
            self._scan()
            self._settle_aside()
            self._give_maps()
        except KeyboardInterrupt:
            self.interrupted = True
        self.stages.stats["scanned"] = len(self.seen)
        if self.interrupted:
            for row in self.aside:  # their first share's bounds: stopped by the stop, not by
                # a time limit (none may have been set)
                out = self.seen[int(self.sig.rowids[row])][1]
                out.stopped = out.stopped or _STOPPED_ASIDE
            if len(self.best) < self.k:
                self._fill_from_ceiling()
        if self.interrupted and self.scanned < len(self.order):
            # what Ctrl-C left unreached (a graph set aside keeps the bounds it has)
            self.frontier = min(self.frontier, float(self.lb[self.order[self.scanned]]))
        self.stages.done("verify")
        found = [(_negated(e[0]), e[1], e[2]) for e in self.best]
        kth = max(found)[0][0] if len(found) == self.k else math.inf
        if self.bound is not None:
            kth = min(kth, self.bound[0])
        chosen = {f[1] for f in found}
        seen = [(r, o) for r, (_, o) in self.seen.items()
                if o.lower < kth - tolerance(kth) or r in chosen]
        return KnnScan(found, seen, self.stages.stats, self.interrupted, self.frontier)

    def _fill_from_ceiling(self) -> None:
        """Stopped (Ctrl-C, the query's time limit) with fewer than k graphs found: the
        quick upper bounds of the ceiling's graphs not verified make up the number, each
        with its filter bound as lower bound (uncertain hits, no node map), rather than an
        answer of fewer graphs than asked for (none, on MOSES 100k under 10 ms a query)."""
        rows, upper = self.quick
        for row, ub in zip(rows.tolist(), upper.tolist(), strict=True):
            rowid = int(self.sig.rowids[row])
            if rowid not in self.seen and ub < math.inf:
                self._keep(row, rowid, Outcome(float(self.lb[row]) + 0.0, ub, None,
                                               final=False, stopped=_STOPPED_EARLY))
        if len(self.best) >= self.k or not time_ran_out():
            return
        # the query's time limit ran out before the ceiling had k quick bounds (BRANCH pair
        # by pair, where the kernel does not apply: Letter, Protein at 0.01 s answered one
        # hit of 5): the next graphs by filter bound, a quick map each, make up the number
        rows = [row for row in self.order.tolist()
                if int(self.sig.rowids[row]) not in self.seen]
        reading = self.check.coll._store.each_graph(self.sig.rowids[rows].tolist(),
                                                    _READ_AHEAD)
        for row, graph in zip(rows, reading, strict=True):  # (read as they are reached)
            rowid = int(self.sig.rowids[row])
            quick = self.check.verify.quick(self.check.query, graph)
            if quick.upper < math.inf:
                self._keep(row, rowid, Outcome(quick.lower, quick.upper, None, final=False,
                                               stopped=_STOPPED_EARLY))
            if len(self.best) >= self.k:
                return

    def _kth(self) -> tuple | None:
        kth = _negated(self.best[0][0]) if len(self.best) == self.k else None
        if self.bound is not None and (kth is None or self.bound < kth):
            kth = self.bound
        return kth

    def _reach(self, rows: np.ndarray) -> np.ndarray:
        """The distance each of ``rows`` is verified within.

        With a k-th key, a graph must beat it: one ranked after it (all graphs this scan
        reaches, unless the key came from elsewhere) must be closer, by a whole edit when
        costs are integers (a tie with an unproven k-th distance is not looked for: under
        time limits nothing is exact), one ranked before it (by filter bound and rowid) wins
        a tie; before any k-th key, the ceiling. While the k-th key is the bounds of a graph
        set aside, every graph may tie with it: its rank is not final (its proven distance
        may equal its upper bound, and a graph at that distance ranked before it by filter
        bound, though after it now, must then be found)."""
        kth = self._kth()
        if kth is None:
            return np.full(len(rows), self.ceiling)
        tie = min(kth[0], self.ceiling)
        if (len(self.best) == self.k and not self.best[0][2].final
                and kth == _negated(self.best[0][0])):
            return np.full(len(rows), tie)
        first = self.first[rows]
        before = (first < kth[2]) | ((first == kth[2]) & (self.sig.rowids[rows] < kth[3]))
        return np.where(before, tie, min(kth[0] - self.step, self.ceiling))

    def _scan(self) -> None:
        order, lb, sig = self.order, self.lb, self.sig
        block = max(self.k, 8)
        while self.scanned < len(order) and not self.interrupted:
            rows = order[self.scanned:self.scanned + block]
            # a graph whose filter bound is past the distance it must be verified within
            # cannot beat the k-th key: one ranked after a final k-th key must be closer by
            # a whole edit under integer costs, not as close (where many graphs tie at the
            # k-th distance with their filter bound there, each was verified for nothing)
            reach = self._reach(rows)
            kept = self.first[rows] <= reach + tolerance(reach)
            rows = rows[kept]
            if not len(rows):
                # every graph left has a bound beyond it: the scan reaches them in rank
                # order, and the k-th key only falls
                return
            self.scanned += len(rows)
            limit = float(reach[kept].max())
            for bound_of in self.lazy:  # the costly stages, on the graphs reached only
                lb[rows] = np.maximum(lb[rows], bound_of(sig, rows, limit))
            if self._verify(rows, defer=True):
                block = min(4 * block, 256)

    def _settle_aside(self) -> None:
        """The graphs set aside, each time against the k-th distance reached by then: all
        through the kernel's first share again while that distance falls below the threshold
        they were tried at; otherwise the one with the least lower bound reached (the most
        likely to be among the k nearest, and the first to stand in the way of a proof) with
        the kernel's larger share, then pair by pair. (Of the orders tried, this one was
        the fastest: NCI query 119 at k = 10 45 s, against 54 s by least upper bound and 59 s
        in scan order; an AIDS query at k = 1 85 s, 116 s and 85 s.)"""
        while self.aside and not self.interrupted:
            rowids = self.sig.rowids
            bounds = {r: self.seen[rowids[r]][1] for r in self.aside}
            rows = np.array(sorted(self.aside, key=lambda r: (
                bounds[r].lower, bounds[r].upper, self.first[r], rowids[r])))
            reach = self._reach(rows)
            tried = np.array([self.aside[r] for r in rows.tolist()]).reshape(-1, 2)
            # (the bounds a graph reached decide it too: its lower bound may be beyond reach)
            lower = np.array([bounds[r].lower for r in rows.tolist()])
            beyond = lower > reach + tolerance(reach)
            for row in rows[beyond].tolist():
                del self.aside[row]  # no longer able to beat the k-th distance
            rows, reach, tried = rows[~beyond], reach[~beyond], tried[~beyond]
            if not len(rows):
                return
            again = rows[(tried[:, 1] == 0) & (reach < tried[:, 0] - tolerance(reach))]
            if len(again) and self.again.pays():
                for row in again.tolist():
                    del self.aside[row]
                self._verify(again, defer=True)
                self.again.count(len(again), sum(r not in self.aside for r in again.tolist()))
                continue
            if not self.tightened:
                self._tighten(rows)
                continue
            row = int(rows[0])
            del self.aside[row]
            if tried[0, 1] == 0 and self.larger.pays():  # the kernel's larger share first
                self._verify(rows[:1], defer=True, retry=True)
                self.larger.count(1, row not in self.aside)
            elif self.whole is None or self.whole.pays():
                self._verify(rows[:1], defer=False)
                if self.whole is not None:
                    out = self.seen[int(self.sig.rowids[row])][1]
                    reach = float(self._reach(rows[:1])[0])
                    self.whole.count(1, out.optimal or out.lower > reach + tolerance(reach))
            else:  # a short solve each: it settles those whose bound is near the k-th
                self._verify(rows[:1], defer=False, share=PAIR_SHARE)
                out = self.seen[int(self.sig.rowids[row])][1]
                if not out.optimal:
                    out.stopped = FUTILE

    def _give_maps(self) -> None:
        """Where node maps were asked for, a polished map for each graph the answer lists
        (the k best, and the graphs verified that could still be closer) whose upper bound
        is the kernel's, which keeps no map: one set aside and never tried again (its lower
        bound passed the k-th distance first, or the scan ended). Such hits came without
        their maps."""
        if not self.check.verify.node_map or self.interrupted:
            return
        kth = (max(out.upper for _, _, out in self.best) if len(self.best) >= self.k
               else math.inf)
        rows = [row for rowid, (row, out) in self.seen.items()
                if out.node_map is None and out.upper < math.inf
                and (rowid in self.held or out.lower < kth - tolerance(kth))]
        if rows:
            self._tighten(np.array(rows))

    def _tighten(self, rows: np.ndarray) -> None:
        """Before the first of the slow tries (a quarter of the limit or all of it, each),
        a polished map for each graph set aside by the kernel: its bound from the kernel's
        share is an assignment's, often far above what a local search reaches (an AIDS
        68-atom query's 3rd neighbour at 67.9 edits instead of 76.2), and a lower k-th
        distance rules out graphs set aside at once."""
        self.tightened = True
        rowids = self.sig.rowids[rows].tolist()
        graphs = self.check.coll._store.graphs(rowids)
        for row, rowid in zip(rows.tolist(), rowids, strict=True):
            out = self.check.verify.quick(self.check.query, graphs[rowid], polish=True)
            out.stopped, out.final = self.seen[rowid][1].stopped, False
            self._keep(row, rowid, out)
            self.interrupted = interrupted_now()
            if self.interrupted:
                return

    def _verify(self, rows: np.ndarray, defer: bool, retry: bool = False,
                share: float | None = None) -> bool:
        """Verify those of ``rows`` that can still beat the k-th distance, within their
        reach, and keep what is found; whether there were any. ``defer``: through the batch
        kernel, setting aside what it does not finish (``retry``: after its larger share
        too); otherwise pair by pair (within ``share`` of the time limit)."""
        lb, sig = self.lb, self.sig
        reach = self._reach(rows)
        within = lb[rows] <= reach + tolerance(reach)
        rows, reach = rows[within], reach[within]
        for value in np.unique(reach).tolist():
            part = rows[reach == value]
            rowids = sig.rowids[part].tolist()
            outs = self.check(rowids, None if value == math.inf else value, defer=defer,
                              retry=retry, kernel=defer, share=share)
            self.interrupted = self.check.interrupted
            for row, rowid, out in zip(part.tolist(), rowids, outs, strict=True):
                if out is None:
                    self.frontier = min(self.frontier, float(lb[row]))
                    continue
                if not out.final:  # pair by pair: no kernel's tries, the whole limit next
                    self.aside[row] = (value, int(retry or self.check.batch is None))
                self._keep(row, rowid, out)
            if self.interrupted:
                break
        return len(rows) > 0

    def _keep(self, row: int, rowid: int, out: Outcome) -> None:
        """Record ``out`` for graph ``rowid``, combined with its bounds from earlier tries,
        and rank it among the k best."""
        out.lower = max(out.lower, float(self.lb[row]))
        earlier = self.seen.get(rowid)
        if earlier is not None:
            out.lower = max(out.lower, earlier[1].lower)
            # a better upper bound from before, unless it has no node map to go with it
            if earlier[1].upper < out.upper and (earlier[1].node_map is not None
                                                 or out.node_map is None):
                out.upper, out.node_map = earlier[1].upper, earlier[1].node_map
        out.lower = _at_most(out.lower, out.upper)
        self.seen[rowid] = (row, out)
        if rowid in self.held:
            at = next(i for i, held in enumerate(self.best) if held[1] == rowid)
            entry = self._entry(row, rowid, out)
            if entry[0] >= self.best[at][0]:  # its key fell: still the k best
                self.best[at] = entry
                heapq.heapify(self.best)
            else:  # it rose (a map kept over a better bound): the k best again, from all
                ranked = [self._entry(r, i, o) for i, (r, o) in self.seen.items()
                          if o.upper < math.inf]
                self.best = heapq.nlargest(self.k, ranked)
                heapq.heapify(self.best)
                self.held = {e[1] for e in self.best}
            return
        if out.upper == math.inf:
            return  # beyond the threshold it was verified with: no map to offer
        entry = self._entry(row, rowid, out)
        if len(self.best) < self.k:
            heapq.heappush(self.best, entry)
        elif entry[0] > self.best[0][0]:
            self.held.discard(heapq.heapreplace(self.best, entry)[1])
        else:
            return
        self.held.add(rowid)

    def _entry(self, row: int, rowid: int, out: Outcome) -> tuple:
        return (_negated(rank_key(out, float(self.first[row]), rowid)), rowid, out)


#: why a graph set aside (see _KnnScanner) has only the bounds of its first try
_STOPPED_ASIDE = ("set aside after a first short try, then the search stopped (Ctrl-C or the "
                  "query's time limit) before trying it again")
#: why a kNN hit has only the ceiling's quick bounds (see _KnnScanner._fill_from_ceiling)
_STOPPED_EARLY = "not verified: the search stopped first (its quick bound at the root)"

#: kNN's tries of set-aside graphs through the kernel again (its first share, each time the
#: k-th distance fell below the threshold a graph was tried at) go on while at least this
#: share of them finishes, judged after this many: each costs ~1% of a pair's time limit
_AGAIN_TRIES, _AGAIN_RATE = 64, 0.01
#: ... and its larger share (a quarter of the limit) before the per-pair driver: on a
#: Mutagenicity query of 73 atoms 7 of 235 finished (62 s of a 333 s kNN at k = 10)
_LARGER = (8, 0.25)
#: ... and, last, pair by pair with the whole limit, which on the largest pairs moves a lower
#: bound by an edit or two and decides nothing: on an AIDS query of 68 atoms at k = 10 none
#: of 83 such solves (83 s) decided its graph, where polished maps had already given the 10
#: nearest their distances. Once these decide too few, the graphs left get
#: :data:`PAIR_SHARE` of the limit each (those whose bound is near the k-th distance are
#: ruled out in milliseconds), and what that leaves is reported undecided with this reason
_WHOLE = (8, 0.25)
FUTILE = ("time limit: they were given a tenth of it, as solves with the whole limit "
          "decided too few of the query's graphs")


class _Yield:
    """How often one kind of try settles the graphs it is given, within one kNN scan: a kind
    that settles too few (on large pairs nearly nothing but the per-pair driver's whole
    time limit does) is skipped for the rest of the scan, the graphs going on to the next."""

    def __init__(self, tries: int, rate: float):
        self.least, self.rate = tries, rate
        self.tried = self.settled = 0

    def pays(self) -> bool:
        return self.tried < self.least or self.settled >= self.rate * self.tried

    def count(self, tried: int, settled: int) -> None:
        self.tried += tried
        self.settled += settled


def _negated(key: tuple) -> tuple:
    """``key`` with every part negated: the heap of the k best keeps the largest on top."""
    return tuple(-x for x in key)


def knn_answer(coll, query: Graph, k: int, scan: KnnScan) -> SearchResult:
    """The answer from a scan (or from the scans of several shards, combined by
    :func:`combine_scans`): the k best keys, and which of them are not proven."""
    best = sorted(scan.best)[:k]
    # listed in that order too, so that the k nearest are the first k of the k + 1 nearest
    # (listed by rowid among equal distances, a tie won on the filter bound at k came after
    # one it had beaten once k + 1 took both)
    chosen = [(key[0], -key[1], rowid) for key, rowid, _ in best]
    ids = coll._store.ids([r for _, _, r in chosen])
    outcomes = {rowid: out for rowid, out in scan.seen}
    outcomes.update({rowid: out for _, rowid, out in best})
    hits = [Hit(ids[r], u, lo, u, outcomes[r].optimal, outcomes[r].node_map)
            for u, lo, r in chosen]
    # a graph not chosen could still be closer than the k-th: a verified one whose search
    # stopped early (its id is its rowid until it is found undecided), or one never reached
    picked = {r for _, _, r in chosen}
    left = [Hit(rowid, out.upper, out.lower, out.upper, False, out.node_map)
            for rowid, out in sorted(outcomes.items()) if rowid not in picked]
    frontier = scan.frontier if scan.frontier < math.inf else None
    undecided, uncertain, certified = knn_verdict(hits, left, k, False, frontier)
    doubtful = [h.id for h in undecided]
    if doubtful:
        extra = coll._store.ids(doubtful)
        for h in undecided:
            h.id = extra[h.id]
    stats = scan.stats
    if reasons := stopped_counts(outcomes[r] for r in [*picked, *doubtful]):
        stats = {**stats, "stopped": reasons}
    # Ctrl-C that came once the scan had decided everything cost the answer nothing: it is
    # complete, not interrupted (a result said both, and the command line then counted a
    # certified query among those not answered in full)
    return SearchResult("knn", query.name, k, hits, undecided, certified, uncertain,
                        stats=stats, interrupted=scan.interrupted and not certified,
                        timed_out=scan.timed_out, frontier=frontier)


def combine_scans(scans: list[KnnScan], k: int) -> KnnScan:
    """One scan from the scans of a collection's shards for the same query: the k best keys
    of all, every graph any of them saw, statistics added up."""
    best = sorted((b for s in scans for b in s.best), key=lambda b: b[:2])[:k]
    from gedkit.search.merge import sum_stats

    return KnnScan(best, [seen for s in scans for seen in s.seen],
                   {**sum_stats(s.stats for s in scans), "shards": len(scans)},
                   any(s.interrupted for s in scans), min((s.frontier for s in scans),
                                                          default=math.inf),
                   any(s.timed_out for s in scans))
