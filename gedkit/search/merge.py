"""One answer from the answers of a collection's shards to the same query."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gedkit.errors import OptionError
from gedkit.search.knn_verdict import knn_verdict
from gedkit.search.result import Hit, SearchResult

__all__ = ["merge", "sum_stats"]

_BEST_FIRST = {"range": False, "knn": False, "mces_range": True, "mces_knn": True}


def merge(results: Sequence[SearchResult]) -> SearchResult:
    """Combine the results of one query over several shards (see
    :meth:`gedkit.Collection.split`).

    Range answers are united, certified when every shard's was. k-nearest answers keep the k
    best of all shards, ranked as a search ranks them (distance, then the bound on the other
    side), and are certified as a search of the whole collection would be: when every hit
    kept is proven and no graph a shard left undecided, nor a hit left out, could still beat
    the k-th (a shard's own k-th, which bounded what it ruled out, is no nearer than the
    overall k-th; a shard uncertain far beyond the overall k-th costs the answer nothing),
    and no shard stopped before reaching a graph that could (its time limit, Ctrl-C: the
    best of their ``frontier`` bounds the graphs not reached). Graphs tied on both keep the
    order of ``results`` (a search of the whole collection breaks such ties by its filters'
    bounds and its own order, which the answers do not carry: at a tie on the k-th distance
    it may keep another of the tied graphs). Statistics add up. Answers to different
    queries (by name), or listing one graph twice, are refused, and so are answers whose
    distances mean different things (their ``measure``: GED's cost model, MCES's similarity
    options; an answer recording none, made by hand, is taken to share the others').

    Parameters
    ----------
    results : sequence of SearchResult
        Each shard's answer to the query: one kind, query, threshold or k, and measure.

    Returns
    -------
    SearchResult
        The answer for the shards together, with their ``measure``; ``stats["shards"]`` says
        how many.

    Raises
    ------
    OptionError
        When no answer is given, or the answers are not of one question, query and measure,
        or two list one graph.

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
    measure = _one_measure(results)
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
    stats = {**sum_stats(r.stats for r in results), "shards": len(results)}
    timed_out = any(r.timed_out for r in results)
    if first.kind.endswith("knn"):
        return _nearest(results, hits, stats, timed_out, measure)
    undecided = [h for r in results for h in r.undecided]
    return SearchResult(first.kind, first.query, first.parameter, hits, undecided,
                        all(r.certified for r in results), [], stats,
                        any(r.interrupted for r in results), timed_out, measure=measure)


def _one_measure(results: Sequence[SearchResult]) -> str | None:
    """The ``measure`` the answers share (None where none records one), or a one-line
    :class:`OptionError` naming two that differ: shards searched under other costs (or MCES
    options) give distances that do not compare (uniform 8 and 10 ranked with chem_2's
    10.725, and certified)."""
    recorded = [(i, r.measure) for i, r in enumerate(results) if r.measure is not None]
    for i, measure in recorded[1:]:
        j, first = recorded[0]
        if measure != first:
            what = "costs" if results[0].kind in ("range", "knn") else "similarity options"
            raise OptionError(f"cannot merge answers searched with different {what}: "
                              f"{first} (results[{j}]) and {measure} (results[{i}])")
    return recorded[0][1] if recorded else None


def _nearest(results: Sequence[SearchResult], ranked: list[Hit], stats: dict,
             timed_out: bool, measure: str | None) -> SearchResult:
    """The k-nearest answer of the shards' ``results``, their hits ``ranked`` best first, by
    the rule of one scan's answer (:func:`~gedkit.search.knn_verdict.knn_verdict`): the hits
    left out and every shard's undecided graphs are the graphs left, the best of the shards'
    frontiers the frontier."""
    first = results[0]
    k = int(first.parameter)
    similar = _BEST_FIRST[first.kind]  # MCES: larger is better
    frontiers = [r.frontier for r in results if r.frontier is not None]
    frontier = (max if similar else min)(frontiers) if frontiers else None
    hits = ranked[:k]
    undecided, uncertain, certified = knn_verdict(
        hits, ranked[k:] + [h for r in results for h in r.undecided], k, similar, frontier)
    return SearchResult(first.kind, first.query, first.parameter, hits, undecided, certified,
                        uncertain, stats, any(r.interrupted for r in results) and not certified,
                        timed_out, frontier, measure)


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
