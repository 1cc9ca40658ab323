"""What both ways of searching a collection in parallel share (worker processes,
:mod:`~gedkit.search.parallel`; a Dask cluster, :mod:`~gedkit.search.distributed`): shards of
a collection, each shard's range answers, and the merging of shards' answers into the answer
a search of the whole collection gives.

A shard is every n-th graph of the collection in order of size (:func:`shard_of`), so that
every shard has an equal share of every size whatever the file's order: a query's work then
splits evenly between shards (100 queries at τ = 3 over the two halves of 100,000 MOSES
molecules in the file's order: 0.29 and 0.27 s; over two such shards 0.28 and 0.28), where
whole queries differ a hundredfold (five of those 100 are 45% of the work).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from gedkit.numeric import order_up_to_rounding
from gedkit.search.result import SearchResult

if TYPE_CHECKING:
    from gedkit.search.collection import Collection
    from gedkit.search.signatures import Signatures
    from gedkit.search.store import Store

__all__ = ["Merger", "kind_of", "range_answers", "shard_of", "until_interrupted"]


def kind_of(run: Any) -> str:
    """What a search's ``run`` answers: ``"range"``, ``"knn"``, ``"mces_range"`` or
    ``"mces_knn"``."""
    from gedkit.search import ged_search

    if run is ged_search.range_query:
        return "range"
    if run is ged_search.knn_query:
        return "knn"
    # not imported here for a GED search (its imports cost the first one 10 ms): a caller
    # holding one of its queries has imported it
    mces = sys.modules["gedkit.search.mces_search"]
    return {mces.range_query: "mces_range", mces.knn_query: "mces_knn"}[run]


def shard_of(store: Store, sig: Signatures, part: int, parts: int,
             held: Any = None) -> Collection:
    """Shard ``part`` of ``parts`` of the collection in ``store`` whose signatures sorted by
    size are ``sig``: every ``parts``-th graph by size from the ``part``-th on, a collection
    of its own; ``held``: the collection's records when it holds them (every graph's, or
    False: read from the file), shared, else the shard reads its own."""
    from gedkit.search.collection import Collection

    view = Collection(_store=store)
    view._sig = sig.take(np.arange(part, len(sig), parts))
    view._held = held
    return view


def until_interrupted(answers: Iterator) -> Iterator:
    """``answers`` one by one, none started once the call is interrupted (Ctrl-C, or its Dask
    job stopped: :mod:`gedkit.cluster_direct`)."""
    from gedkit.budget import interrupted

    for answer in answers:
        yield answer
        if interrupted():
            return


def range_answers(view: Collection, kind: str, graphs: list, parameter: float, model: Any,
                  verify: Any, progress: Any = None) -> list:
    """Range answers (``kind`` "range" or "mces_range") of one shard to ``graphs``, each
    hit with the key that orders it in the whole collection's answer; none started once the
    call is interrupted; ``progress`` counts the pairs verified."""
    if kind == "range":
        from gedkit.search.ged_search import range_queries

        answers = list(until_interrupted(range_queries(view, graphs, parameter, model,
                                                       verify, progress)))
    else:
        from gedkit.search.mces_search import range_query

        answers = list(until_interrupted(range_query(view, g, parameter, None, verify,
                                                     progress) for g in graphs))
    out = []
    for result in answers:
        keys = []
        for hits, undecided in ((result.hits, False), (result.undecided, True)):
            keys.append([_range_key(view, kind, h, undecided) for h in hits])
        out.append((result, keys))
    return out


def _range_key(view, kind: str, hit, undecided: bool) -> tuple:
    rowid = view._store.rowid(hit.id)
    if kind == "mces_range":
        from gedkit.search.mces_search import range_key, undecided_key

        return (undecided_key if undecided else range_key)(hit, rowid)
    # as a search of the whole collection orders them (ged_search._verified)
    first = (hit.lower_bound, hit.upper_bound) if undecided else (hit.distance, hit.lower_bound)
    return (*first, rowid)


class Merger:
    """Each query's shard answers as they come, and the bound the next shards get."""

    def __init__(self, kind: str, parameter, queries: int, shards: int, shown,
                 counted: bool = False):
        self.kind, self.parameter, self.shards, self.shown = kind, parameter, shards, shown
        self.counted = counted  # the pairs verified reach ``shown`` as they go (local workers)
        self.parts: list[list] = [[] for _ in range(queries)]

    def add(self, i: int, answer: Any) -> None:
        self.parts[i].append(answer)
        stats = (answer[0].stats if self.kind.endswith("range") else
                 answer.stats if self.kind == "knn" else answer[2][0])
        if not self.counted:
            self.shown.verified(stats.get("verified", 0))
        if len(self.parts[i]) == self.shards:
            self.shown.query_done()

    def bound(self, i: int) -> Any:
        """What query ``i``'s next shard need not beat: the k-th best key (GED) or
        similarity (MCES) of the shards answered so far, or nothing yet."""
        k = self.parameter
        if self.kind == "knn":
            keys = sorted(key for scan in self.parts[i] for key, _, _ in scan.best)
            return keys[k - 1] if len(keys) >= k else None
        if self.kind == "mces_knn":
            found = sorted((-lo for chosen, _, _ in self.parts[i] for lo, _, _ in chosen))
            return -found[k - 1] if len(found) >= k else -math.inf
        return None

    def results(self, coll, graphs: list) -> list[SearchResult]:
        """One answer per query, in order, up to the last query any shard answered: after
        Ctrl-C, a query some of whose shards answered gets what they found, ``interrupted``
        (a cluster's kNN search stopped at 10 s kept nothing, as no query had every shard
        answered, where local workers kept 25 queries' hits), one none answered an
        interrupted answer with no hit."""
        last = max((i for i, parts in enumerate(self.parts) if parts), default=-1)
        out = []
        for i, parts in enumerate(self.parts[:last + 1]):
            if len(parts) == self.shards:
                out.append(self._one(coll, graphs[i], parts))
            elif parts:
                out.append(self._one(coll, graphs[i], parts, partial=True))
            else:
                out.append(SearchResult(self.kind, graphs[i].name, self.parameter,
                                        certified=False, interrupted=True))
        return out

    def _one(self, coll, query, parts: list, partial: bool = False) -> SearchResult:
        """The answer from its shards' ``parts``; ``partial``: from some of them (Ctrl-C
        stopped the others: their graphs unreached)."""
        if self.kind in ("range", "mces_range"):
            from gedkit.search.merge import merge

            result = merge([r for r, _ in parts])
            if partial:
                result.interrupted, result.certified = True, False
            for name, which in (("hits", 0), ("undecided", 1)):
                keyed = [(key, h) for r, keys in parts
                         for key, h in zip(keys[which], getattr(r, name), strict=True)]
                order = order_up_to_rounding([key for key, _ in keyed])
                setattr(result, name, [keyed[i][1] for i in order])
            result.query = query.name
            return result
        if self.kind == "knn":
            from gedkit.search.ged_search import combine_scans, knn_answer

            scan = combine_scans(parts, self.parameter)
            if partial:  # the other shards' graphs unreached, bounded by nothing but 0
                scan.interrupted, scan.frontier = True, 0.0
            return knn_answer(coll, query, self.parameter, scan)
        from gedkit.search.mces_search import _knn_result
        from gedkit.search.merge import sum_stats

        k = self.parameter
        chosen = sorted((c for p in parts for c in p[0]),
                        key=lambda c: (-c[0], -c[1], c[2]))[:k]
        seen = [s for p in parts for s in p[1]]
        state = ({**sum_stats(p[2][0] for p in parts), "shards": len(parts)},
                 partial or any(p[2][1] for p in parts),
                 # (the other shards' graphs unreached: up to similarity 1)
                 1.0 if partial else max(p[2][2] for p in parts),
                 any(p[2][3] for p in parts))
        return _knn_result(coll, query, k, chosen, seen, state)
