"""Verification of many candidates per compiled call (:mod:`gedkit._kernels.batch`).

Used for exact search (``astar``/``exact`` with default options) when the collection's label
vocabularies are small enough for one global node matrix and one global edge matrix (molecules,
typed graphs; not continuous attributes). A candidate the kernel does not finish within its
expansion cap goes back to the per-pair driver, which holds the time limit and memory cap.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np

from gedkit._kernels.bundles import BatchSettings, StateBuffers, Verdicts, query_costs
from gedkit.costs.base import CostModel
from gedkit.numeric import all_integers, tolerance
from gedkit.search.filters import GedFilter
from gedkit.search.store import Records
from gedkit.solvers.base import Solver

__all__ = ["BatchVerifier"]

#: seconds of work per candidate inside the kernel (by its operation estimate, at
#: :data:`~gedkit.pacing.OPS_PER_SECOND`); a pair needing more is solved one by one,
#: within the time limit (from scratch: the kernel's work on it is lost; 0.05 s looked ~25%
#: faster on 30 NCI queries at τ = 7 but was within noise on the peer benchmark's 100, 4% on
#: NCI and -12% on AIDS at τ = 7, so it stays at 0.01)
PAIR_SECONDS = 0.01
#: frontier states the kernel may hold per candidate
STATES = 1 << 15
#: seconds of work per kernel call, at most (Ctrl-C is checked between calls)
CALL_SECONDS = 0.1
#: seconds of work a candidate that outgrew its first share gets on its second try, alone in
#: a kernel call (from scratch: the state of the first try is gone; still cheaper than the
#: per-pair driver, which pays Python between its kernel calls)
RETRY_SECONDS = 0.25
#: thresholds (in cheapest edits) from which the search also uses the anchor-aware assignment
#: bound: it costs an assignment per expansion, which pays on the deeper searches of large
#: thresholds (and without one, where its upper bounds cut the search) but not below: on
#: the range benchmarks' candidates (each assignment warm-started from its parent's), 10-16%
#: faster with it at τ = 5 and 7, as fast or slower at 4 (NCI 1.08x slower), 1.3x slower
#: at 3
BRANCH_FROM_EDITS = 4.5
#: thresholds (in cheapest edits) from which the root of each candidate's search is expanded
#: with that bound even where the rest is not: below, the counting bound settles most
#: candidates as fast without it (per candidate, range benchmarks' batches: 10-20% faster
#: without at τ = 3 on MOSES, NCI and IAM AIDS; 1.1-1.6x slower without at τ = 4 and 5)
ROOT_BRANCH_FROM_EDITS = 3.5
_EXACT = ("astar", "exact")
#: operations per second of the estimate before a call has measured it (it runs 10-100x
#: fast on hard pairs)
_FIRST_PACE = 3e6
_PACE: list[float | None] = [None]  # as measured by the last call of this process
_LOADED = [False]  # whether this process called the kernel before


class _CostArrays:
    """What the kernel reads of one cost model over one vocabulary, for every query."""

    def __init__(self, nmat: np.ndarray, emat: np.ndarray, const):
        from gedkit.solvers.exact.tree_search import _label_costs

        self.counting = const is not None
        flipped = None if const is None else (const[1], const[0], const[2], const[4],
                                              const[3], const[5])
        self.costs = tuple(query_costs(
            nmat, emat,
            _label_costs(None if const is None else const[:3]),
            _label_costs(None if const is None else const[3:]),
            _label_costs(None if flipped is None else flipped[:3]),
            _label_costs(None if flipped is None else flipped[3:]),
        ))
        if const is not None:
            self.integral = all_integers(const)
            largest = max(const, default=0.0)
        else:
            self.integral = all_integers(nmat, emat)
            largest = float(max(nmat.max(initial=0.0), emat.max(initial=0.0)))
        self.tol = tolerance(largest)
        arrays = [np.asarray(const, dtype=float)] if const is not None else [nmat, emat]
        positive = [float(a[a > 0].min()) for a in arrays if (a > 0).any()]
        self.cheapest = min(positive, default=1.0)  # the cheapest edit that costs anything

    @classmethod
    def of(cls, nmat: np.ndarray, emat: np.ndarray, const) -> _CostArrays:
        """Those of these matrices, kept while they are the last ones asked for (the filters
        hand every query of a batch the same matrix objects)."""
        kept = _LAST_COSTS.get("arrays")
        if kept is None or kept[0] is not nmat or kept[1] is not emat or kept[2] != const:
            kept = _LAST_COSTS["arrays"] = (nmat, emat, const, cls(nmat, emat, const))
        return kept[3]


_LAST_COSTS: dict = {}
#: largest query (nodes) whose frontier arrays are kept from one query to the next; a larger
#: one allocates its own (STATES rows of its size)
_KEEP_FRONTIER = 128
_FRONTIER = threading.local()  # one per thread: a Dask worker runs shards in threads


def frontier_bytes(n_max: int) -> int:
    """The bytes of :func:`_frontier`'s arrays for queries of up to ``n_max`` nodes."""
    return STATES * (4 * max(n_max, 8) + 8 + 8 + 4 + 8 + 8)


def _frontier(n_max: int) -> StateBuffers:
    """Frontier arrays with room for STATES maps of ``n_max`` nodes (scratch: the kernel
    writes before it reads)."""
    kept = getattr(_FRONTIER, "buffers", None)
    if kept is not None and len(kept.maps) >= STATES * n_max:
        return kept
    made = StateBuffers(
        np.empty(STATES * max(n_max, 8), dtype=np.int32), np.empty(STATES), np.empty(STATES),
        np.empty(STATES, dtype=np.int32), np.empty(STATES, dtype=np.int64),
        np.empty(STATES, dtype=np.int64),
    )
    if n_max <= _KEEP_FRONTIER:
        _FRONTIER.buffers = made
    return made


class BatchVerifier:
    """The global cost arrays of one query (or of several: queries whose labels the
    collection has share them), and the kernel's reusable frontier."""

    def __init__(self, nmat: np.ndarray, emat: np.ndarray, const,
                 query_record: np.ndarray | list[np.ndarray]):
        arrays = _CostArrays.of(nmat, emat, const)
        self.counting, self.costs = arrays.counting, arrays.costs
        self.integral, self.tol, self.cheapest = arrays.integral, arrays.tol, arrays.cheapest
        records = [query_record] if isinstance(query_record, np.ndarray) else query_record
        self.queries = np.concatenate(records).astype(np.int32, copy=False)
        self.query_offsets = np.zeros(len(records), dtype=np.int64)
        np.cumsum([len(r) for r in records[:-1]], out=self.query_offsets[1:])
        self.n1 = max(int(r[0]) for r in records)
        self.frontier = None
        # operations (by the kernel's estimate) per second: as measured on earlier queries of
        # this process, cautious before the first
        self.pace = _PACE[0] or _FIRST_PACE
        self.ops_done = self.seconds_done = 0.0

    @classmethod
    def build(cls, model: CostModel, solver: Solver, filt: GedFilter,
              timeout: float | None, memory: int | None = None) -> BatchVerifier | None:
        """The batch path for this query, or None where it does not apply (see
        :meth:`applies`)."""
        return (cls.prepare(model, filt) if cls.applies(solver, filt, timeout, memory)
                else None)

    @staticmethod
    def applies(solver: Solver, filt: GedFilter, timeout: float | None,
                memory: int | None = None, nodes: int | None = None) -> bool:
        """Whether the batch path serves ``filt``'s query (and queries of up to ``nodes``
        nodes verified with it): not for another method, large vocabularies, a memory cap
        its frontier does not fit (each pair then solved alone, within the cap), or kernels
        not compiled within ``timeout``."""
        from gedkit._kernels import warm
        from gedkit.budget import Budget

        if solver.name not in _EXACT or solver.config != type(solver).defaults():
            return False
        if memory is not None and memory < frontier_bytes(max(filt.qn, nodes or 0)):
            return False
        if filt.matrices() is None:
            return False
        return warm.ready("search") or warm.wait(("search",), Budget(timeout=timeout))

    @classmethod
    def prepare(cls, model: CostModel, filt: GedFilter) -> BatchVerifier | None:
        """The batch path for this query (None when the vocabulary is too large)."""
        matrices = filt.matrices()
        return None if matrices is None else cls(*matrices, filt.record)

    def upper_bounds(self, records: Records) -> np.ndarray:
        """A quick upper bound for every candidate record: the cost of the node map the
        anchor-aware assignment bound builds at the root (one expansion each; inf where not
        even that fits a pair's share)."""
        return self.run(records, None, quick=True)[1]

    def run(self, records: Records, threshold: float | None, timeout: float | None = None,
            quick: bool = False, which: np.ndarray | None = None, retry: bool = True,
            depth_first: bool = False, progress_tick: Callable[[], None] | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bounds of every candidate record within ``threshold`` (None: unbounded) and
        whether the kernel finished it, spending at most :data:`PAIR_SECONDS` (or ``timeout``)
        on each (``quick``: one expansion each, see :meth:`upper_bounds`); ``which[i]``: the
        query (by position in the records given) record ``i`` is verified against, the first
        one by default; ``retry``: whether a candidate not finished within that share gets
        :data:`RETRY_SECONDS` more; ``depth_first``: the first share searches depth-first
        (every expansion's assignment then starts from its parent's duals, and no heap: ~10%
        faster on range candidates, the same bounds where it finishes, but only the least
        bound on its stack where it does not; the retry is best-first); ``progress_tick``: called
        between kernel calls (a progress line's clock: a block of hard candidates kept the
        first line of a search waiting 16 s)."""
        from gedkit._kernels.batch import FINISHED, GAVE_UP, verify_many
        from gedkit.budget import interrupted, seconds_left
        from gedkit.pacing import OPS_PER_SECOND

        count = records.count
        lower, upper = np.zeros(count), np.full(count, math.inf)
        status = np.zeros(count, dtype=np.int8)
        if not count:
            return lower, upper, status == FINISHED
        flat, offsets = records
        query_at = (np.zeros(count, dtype=np.int64) if which is None
                    else self.query_offsets[which])
        n_max = max(self.n1, 1)
        if self.frontier is None:
            self.frontier = _frontier(n_max)
        cutoff = math.inf if threshold is None else float(threshold)
        branch = quick or cutoff >= BRANCH_FROM_EDITS * self.cheapest
        root_branch = cutoff >= ROOT_BRANCH_FROM_EDITS * self.cheapest
        seconds = PAIR_SECONDS if timeout is None else min(PAIR_SECONDS, timeout)
        out = Verdicts(lower, upper, status)
        # the first call learns this query's pace: one candidate, unless a query before it
        # measured the pace already (then a call's worth at the worst share per candidate);
        # quick roots are set-up alone, all in one call
        first, chunk = 0, (count if quick else 1 if _PACE[0] is None
                           else max(1, int(CALL_SECONDS / seconds)))
        while first < count:
            # a call, and each candidate's share, end within the query's time limit (a call
            # of CALL_SECONDS under a limit of 10 ms overran it tenfold)
            left = seconds_left()
            if not quick and left < CALL_SECONDS:
                seconds = min(seconds, left)
                chunk = max(1, min(chunk, int(chunk * left / CALL_SECONDS)))
            last = min(count, first + chunk)
            settings = BatchSettings(  # the pace, hence max_ops, is learnt from call to call
                counting=bool(self.counting), branch=bool(branch),
                root_branch=bool(root_branch), integral=bool(self.integral),
                tol=float(self.tol), cutoff=cutoff, stop_at=-math.inf,
                max_ops=float(0.0 if quick else seconds * self.pace),
                skip_ops=float(seconds * OPS_PER_SECOND), chunk=256,
                depth_first=bool(depth_first and not quick),
            )
            tick = time.perf_counter()
            ops = verify_many(self.queries, query_at, flat, offsets, first, last, self.costs,
                              tuple(settings), tuple(self.frontier), tuple(out))
            spent = time.perf_counter() - tick
            done, first = last - first, last
            if progress_tick is not None:
                progress_tick()
            if interrupted():
                status[first:] = 1
                break
            loading, _LOADED[0] = not _LOADED[0], True
            if quick:  # set-up dominated: says nothing of the search's pace
                chunk = count
                continue
            if loading:
                # nor does a call that loaded the kernel from numba's cache (~10 ms: a pace
                # learnt from a first call at τ = 0 was 1000x too slow, and the next search's
                # candidates gave up after a tenth of their share)
                continue
            self.ops_done += ops
            self.seconds_done += spent
            if self.seconds_done > 0 and self.ops_done > 0:
                # the estimate's real pace so far, on this query's pairs
                self.pace = _PACE[0] = self.ops_done / self.seconds_done
            # the next call: about CALL_SECONDS at this call's pace, and at worst (every
            # candidate taking its whole share) a few times that
            chunk = max(1, min(int(CALL_SECONDS * done / max(spent, 1e-6)), 4 * chunk,
                               int(4 * CALL_SECONDS / seconds)))
        if retry and not quick and not interrupted():
            self._retry(np.flatnonzero(status == GAVE_UP), query_at, flat, offsets, cutoff,
                        branch, root_branch, timeout, out, progress_tick)
        # the kernel rounds integral bounds up by ceil(x - eps): a zero comes out as -0.0
        return lower + 0.0, upper + 0.0, status == FINISHED

    def _retry(self, which: np.ndarray, query_at: np.ndarray, flat: np.ndarray,
               offsets: np.ndarray, cutoff: float, branch: bool, root_branch: bool,
               timeout: float | None, out: Verdicts,
               progress_tick: Callable[[], None] | None = None) -> None:
        """Candidates ``which`` again, each alone with :data:`RETRY_SECONDS` of work (or its
        ``timeout``), Ctrl-C checked between them."""
        from gedkit._kernels.batch import verify_many
        from gedkit.budget import interrupted, seconds_left
        from gedkit.pacing import OPS_PER_SECOND

        seconds = RETRY_SECONDS if timeout is None else min(RETRY_SECONDS, timeout)
        for i in which.tolist():
            share = min(seconds, seconds_left())  # within the query's time limit too
            if share <= PAIR_SECONDS:
                return  # no larger share to give
            settings = tuple(BatchSettings(
                counting=bool(self.counting), branch=bool(branch),
                root_branch=bool(root_branch), integral=bool(self.integral),
                tol=float(self.tol), cutoff=cutoff, stop_at=-math.inf,
                max_ops=float(share * self.pace), skip_ops=float(share * OPS_PER_SECOND),
                chunk=256, depth_first=False))
            verify_many(self.queries, query_at, flat, offsets, i, i + 1, self.costs, settings,
                        tuple(self.frontier), tuple(out))
            if progress_tick is not None:
                progress_tick()
            if interrupted():
                break
