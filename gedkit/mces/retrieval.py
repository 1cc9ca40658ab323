"""Retrieval by MCES similarity, and the usual metrics to compare a ranking with the truth.

:func:`rank` orders candidates by Johnson similarity to a query. The metrics take, per query,
a ranking (items best first: candidate indices, ids, or the :class:`Hit` list :func:`rank`
returns) and the set of items that are relevant, for instance the top ``k`` of the exact
ranking; they return the mean over the queries.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Hashable, Iterable, Sequence
from typing import Any, NamedTuple

from gedkit.budget import InterruptedWarning, interruptible
from gedkit.errors import OptionError
from gedkit.inputs import as_graphs
from gedkit.mces.result import MCESResult

__all__ = ["Hit", "mean_average_precision", "mrr", "precision_at_k", "rank"]


class Hit(NamedTuple):
    """One ranked candidate: its position in the candidate list, its similarity to the
    query, and the full result."""

    index: int
    similarity: float
    result: MCESResult


def rank(
    query: Any,
    candidates: Iterable[Any],
    method: str = "auto",
    *,
    timeout: float | None = None,
    node_label: str | list[str] | None = None,
    edge_label: str | list[str] | None = None,
    **options: Any,
) -> list[Hit]:
    """Candidates sorted by MCES similarity to ``query``, most similar first (ties: input
    order). ``timeout`` is per candidate; the other arguments are those of
    :func:`gedkit.mces`.

    The candidates go into an in-memory :class:`gedkit.Collection` and are ranked by its
    k-most-similar search (:mod:`gedkit.search.mces_search`) with ``k`` = all of them, so
    every candidate is solved (filter bounds decide none) and keeps its full result. Ctrl-C
    stops the ranking (with a warning) and returns the candidates ranked so far.

    >>> from gedkit import Graph
    >>> q = Graph({0: "C", 1: "O"}, [(0, 1)])
    >>> far, near = Graph({0: "N", 1: "O"}, [(0, 1)]), Graph({0: "C", 1: "O"}, [(0, 1)])
    >>> [(h.index, h.similarity) for h in rank(q, [far, near])]
    [(1, 1.0), (0, 0.0)]
    """
    from gedkit.search import Collection, mces_search

    # reject a bad method, option or timeout before any work
    verify = mces_search.Verifier(method, options, timeout, None, False, keep=True)
    graphs = as_graphs([query, *candidates], node_label, edge_label, asked=True)
    if len(graphs) == 1:
        return []
    coll = Collection(node_label=node_label, edge_label=edge_label)
    coll.add(graphs[1:], ids=range(len(graphs) - 1), progress=False)
    with interruptible():
        _, seen, (_, interrupted, _, _) = mces_search._knn(coll, graphs[0],
                                                           len(graphs) - 1, verify, None)
    # (Ctrl-C leaves the candidates it stopped without a result: not ranked)
    seen = [(rowid, out) for rowid, out in seen if out.result is not None]
    if interrupted:
        warnings.warn(f"interrupted: {len(seen)} of {len(graphs) - 1} candidates ranked",
                      InterruptedWarning, stacklevel=2)
    index = coll._store.ids([rowid for rowid, _ in seen])
    hits = [Hit(index[rowid], out.result.similarity, out.result) for rowid, out in seen]
    return sorted(hits, key=lambda h: (-h.similarity, h.index))


def mrr(rankings: Sequence[Sequence[Any]], relevant: Sequence[Collection[Hashable]]) -> float:
    """Mean reciprocal rank: the mean of ``1 / (position of the first relevant item)``, 0
    for a query whose ranking holds none.

    >>> mrr([[3, 1, 2], [5, 4]], [{1}, {7}])
    0.25
    """
    return _mean(_reciprocal_rank, rankings, relevant)


def mean_average_precision(
    rankings: Sequence[Sequence[Any]], relevant: Sequence[Collection[Hashable]]
) -> float:
    """Mean over queries of the average precision: the precision at the position of each
    relevant item, summed and divided by the number of relevant items.

    >>> mean_average_precision([[1, 9, 2]], [{1, 2}])   # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    return _mean(_average_precision, rankings, relevant)


def precision_at_k(
    rankings: Sequence[Sequence[Any]], relevant: Sequence[Collection[Hashable]], k: int
) -> float:
    """Mean over queries of the fraction of the first ``k`` ranked items that are relevant.

    >>> precision_at_k([[1, 9, 2], [4, 5, 6]], [{1, 2}, {6}], k=2)
    0.25
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise OptionError(f"k must be a positive integer, got {k!r}")
    return _mean(lambda items, rel: sum(x in rel for x in items[:k]) / k, rankings, relevant)


def _reciprocal_rank(items: list, rel: set) -> float:
    for position, item in enumerate(items, start=1):
        if item in rel:
            return 1.0 / position
    return 0.0


def _average_precision(items: list, rel: set) -> float:
    found, total = 0, 0.0
    for position, item in enumerate(items, start=1):
        if item in rel:
            found += 1
            total += found / position
    return total / len(rel)


def _mean(metric, rankings, relevant) -> float:
    rankings, relevant = list(rankings), list(relevant)
    if len(rankings) != len(relevant):
        raise OptionError(
            f"got {len(rankings)} rankings but {len(relevant)} relevant sets; give one of "
            "each per query"
        )
    if not rankings:
        raise OptionError("no queries: give at least one ranking and its relevant set")
    total = 0.0
    for q, (ranking, rel) in enumerate(zip(rankings, relevant, strict=True)):
        rel = set(rel)
        if not rel:
            raise OptionError(f"query {q} has no relevant item; its metric is undefined")
        items = [h.index if isinstance(h, Hit) else h for h in ranking]
        total += metric(items, rel)
    return total / len(rankings)
