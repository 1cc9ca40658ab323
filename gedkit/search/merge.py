"""One answer from the answers of a collection's shards to the same query."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gedkit.errors import OptionError
from gedkit.search.result import SearchResult

__all__ = ["merge", "sum_stats"]

_BEST_FIRST = {"range": False, "knn": False, "mces_range": True, "mces_knn": True}


def merge(results: Sequence[SearchResult]) -> SearchResult:
    """Combine the results of one query over several shards (see
    :meth:`gedkit.Collection.split`).

    Range answers are united; k-nearest answers keep the k best of all shards, certified when
    every shard's was (each shard's k best include every one of the overall k best that lies
    in it), ranked as a search ranks them (distance, then the bound on the other side); graphs
    tied on both keep the order of ``results`` (a search of the whole collection breaks such
    ties by its filters' bounds and its own order, which the answers do not carry: at a
    tie on the k-th distance it may keep another of the tied graphs). Statistics add up.
    Answers to different queries (by name), or listing one graph twice, are refused.

    >>> from gedkit.search import Hit
    >>> a = SearchResult("knn", "q", 1, [Hit("x", 2.0, 2.0, 2.0, True)])
    >>> b = SearchResult("knn", "q", 1, [Hit("y", 1.0, 1.0, 1.0, True)])
    >>> merge([a, b]).ids
    ['y']
    """
    if not results:
        raise OptionError("merge needs at least one result")
    kinds = {(r.kind, r.parameter) for r in results}
    if len(kinds) > 1:
        raise OptionError(f"cannot merge answers to different questions: {sorted(kinds)}")
    queries = list(dict.fromkeys(r.query for r in results))
    if len(queries) > 1:
        raise OptionError(f"cannot merge answers to different queries: {queries[:3]}")
    # shards hold each graph once: a graph in two answers is one shard's answer given twice
    # (or answers of overlapping collections), which would list it twice
    seen: set = set()
    for r in results:
        ids = {h.id for h in [*r.hits, *r.undecided]}
        if ids & seen:
            raise OptionError(f"cannot merge: graph {sorted(ids & seen, key=repr)[0]!r} is in "
                              "two of the answers (one shard's answer given twice, or "
                              "shards that overlap)")
        seen |= ids
    first = results[0]
    reverse = _BEST_FIRST[first.kind]
    # as the searches rank: GED kNN a proven bound closer to the distance first
    # (ged_search.rank_key), GED range the lower bound up (ged_search._verified), MCES the
    # larger upper bound first
    if reverse:
        key = lambda h: (-h.distance, -h.upper_bound)  # noqa: E731
    elif first.kind == "knn":
        key = lambda h: (h.distance, -h.lower_bound)  # noqa: E731
    else:
        key = lambda h: (h.distance, h.lower_bound)  # noqa: E731
    hits = sorted((h for r in results for h in r.hits), key=key)
    undecided = [h for r in results for h in r.undecided]
    uncertain = [i for r in results for i in r.uncertain]
    if first.kind.endswith("knn"):
        hits = hits[: int(first.parameter)]
        kept = {h.id for h in hits}
        uncertain = [i for i in uncertain if i in kept]
    stats = {**sum_stats(r.stats for r in results), "shards": len(results)}
    return SearchResult(first.kind, first.query, first.parameter, hits, undecided,
                        all(r.certified for r in results), uncertain, stats,
                        any(r.interrupted for r in results), any(r.timed_out for r in results))


def sum_stats(many: Iterable[dict]) -> dict:
    """Search statistics of several shards added up: counts, and per stage the graphs left
    and the seconds spent.

    >>> sum_stats([{"screened": 3, "seconds": {"filter": 0.5}}, {"screened": 4}])
    {'screened': 7, 'verified': 0, 'candidates': {}, 'seconds': {'filter': 0.5}}
    """
    stats: dict = {"screened": 0, "verified": 0, "candidates": {}, "seconds": {}}
    for one in many:
        for name, value in one.items():
            if isinstance(value, dict):
                part = stats.setdefault(name, {})
                for stage, amount in value.items():
                    part[stage] = part.get(stage, 0) + amount
            elif isinstance(value, int | float) and not isinstance(value, bool):
                stats[name] = stats.get(name, 0) + value
    return stats
