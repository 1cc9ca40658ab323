"""Which hits of a k-nearest answer are proven, which graphs stay undecided: one rule for a
GED or MCES scan's answer and for the answers of shards merged."""

from __future__ import annotations

import math
from collections.abc import Iterable

from gedkit.numeric import tolerance
from gedkit.search.result import Hit, in_hits_order

__all__ = ["knn_verdict"]


def knn_verdict(hits: list[Hit], left: Iterable[Hit], k: int, similar: bool,
                frontier: float | None = None) -> tuple[list[Hit], list, bool]:
    """The undecided graphs, the uncertain hits' ids and whether the answer is certified,
    for the k best ``hits`` (best first) of a search that also bounded the graphs ``left``
    (verified in part, or hits a merge left out) and never reached graphs no better than
    ``frontier`` (None: it reached every graph).

    ``similar``: MCES, larger is better and a graph's best is its upper bound; else GED,
    smaller is better and its best is its lower bound. A graph left whose best passes the
    k-th is undecided (all of them while there are fewer than k hits); a hit is uncertain
    when its value is not proven or an undecided or unreached graph's best passes it (a
    tie does not), so a proven hit no graph left can beat stays certain even when the
    search stopped early. Certified: nothing uncertain, undecided or unreached that could
    be among the k.

    >>> hits = [Hit("a", 1.0, 1.0, 1.0, True), Hit("b", 3.0, 3.0, 3.0, True)]
    >>> undecided, uncertain, certified = knn_verdict(hits, [Hit("c", 4.0, 2.0, 4.0, False)], 2,
    ...                                               similar=False)
    >>> [h.id for h in undecided], uncertain, certified
    (['c'], ['b'], False)
    >>> knn_verdict(hits, [], 2, similar=False, frontier=2.0)
    ([], ['b'], False)
    >>> knn_verdict(hits, [], 2, similar=False, frontier=3.0)
    ([], [], True)
    """
    sign = -1.0 if similar else 1.0

    def beats(bound: float, than: float) -> bool:
        return sign * (than - bound) > tolerance(than)

    def best(h: Hit) -> float:
        return h.upper_bound if similar else h.lower_bound

    # while fewer than k, any graph left could be among them
    kth = hits[-1].distance if len(hits) >= k else sign * math.inf
    undecided = sorted((h for h in left if beats(best(h), kth)),
                       key=lambda h: ((-h.upper_bound, -h.lower_bound) if similar
                                      else (h.lower_bound, h.upper_bound)))
    reach = [best(undecided[0])] if undecided else []
    if frontier is not None:
        reach.append(frontier)
    closest = (max if similar else min)(reach, default=sign * math.inf)
    uncertain = in_hits_order(hits, [*(h.id for h in hits if not h.optimal),
                                     *(h.id for h in hits if beats(closest, h.distance))])
    unreached = frontier is not None and beats(frontier, kth)
    return undecided, uncertain, not uncertain and not undecided and not unreached
