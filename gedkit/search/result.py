"""What a similarity search returns: hits with bounds, what is left undecided, statistics."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Hit", "SearchResult", "in_hits_order"]


@dataclass
class Hit:
    """One graph of the collection against the query.

    ``distance`` is the GED's upper bound (the exact distance when ``optimal``), or for MCES
    searches the Johnson similarity's lower bound (exact when ``optimal``); ``lower_bound`` and
    ``upper_bound`` bracket the true value either way. ``node_map`` (query node, graph node)
    pairs when asked for.
    """

    id: Any
    distance: float
    lower_bound: float
    upper_bound: float
    optimal: bool
    node_map: list | None = None

    def to_dict(self) -> dict:
        out = {"id": self.id, "distance": _num(self.distance),
               "lower_bound": _num(self.lower_bound), "upper_bound": _num(self.upper_bound),
               "optimal": self.optimal}
        if self.node_map is not None:
            out["node_map"] = self.node_map
        return out


def in_hits_order(hits: list[Hit], ids: Iterable[Any]) -> list:
    """Those of ``ids`` that are ``hits``' ids, in the hits' order (in one pass: sorting them
    by their index in the hits was O(k²), 60 s of a kNN search at k = 40,000).

    >>> in_hits_order([Hit("a", 1.0, 1.0, 1.0, True), Hit("b", 2.0, 2.0, 2.0, True)], {"b", "a"})
    ['a', 'b']
    """
    flagged = set(ids)
    return [h.id for h in hits if h.id in flagged]


def _num(x: float) -> float | None:
    return None if math.isinf(x) else float(x) + 0.0  # -0.0 as 0.0


@dataclass
class SearchResult:
    """The answer to one query.

    Attributes
    ----------
    kind : str
        ``"range"``, ``"knn"``, ``"mces_range"`` or ``"mces_knn"``.
    query : str or None
        The query graph's name.
    hits : list of Hit
        Best first: increasing distance (GED) or decreasing similarity (MCES). For a range
        query, every graph proven within the threshold; for kNN the k best found.
    undecided : list of Hit
        Graphs whose verification stopped (``stats["stopped"]`` says why) with bounds on both
        sides of the threshold: maybe in, maybe out; never silently dropped or included.
    certified : bool
        True when the answer is exact: a range answer with nothing undecided and every hit's
        distance proven, or k nearest whose k-th distance is proven and that no other graph
        can beat.
    uncertain : list
        kNN: ids of the hits whose place is not proven (their distance is not exact, or an
        unverified graph could still be as close).
    stats : dict
        ``screened`` (graphs filtered), ``candidates`` (stage -> graphs left after it),
        ``verified`` (pairs solved), ``seconds`` (stage -> time), and when some graph of the
        answer was left unproven, ``stopped`` (reason -> how many: ``"time limit"``, or
        ``"kernels not compiled yet ..."`` on a fresh install before ``gedkit warmup``).
    interrupted : bool
        Ctrl-C stopped this query's search (or, in the ``result`` of a
        :class:`~gedkit.errors.ClusterError`, the cluster's failure did; empty ``stats``:
        before it began): the answer is what it had found (not certified);
        a range query's candidates not verified are in ``undecided`` with their filter
        bounds (``stats["unreached"]`` counts them).
    timed_out : bool
        kNN: the query's own time limit (``query_timeout=``) stopped its search: the k best
        found by then, each uncertain unless nothing left unverified could beat it (then
        the answer is certified all the same).
    frontier : float or None
        kNN stopped before it reached every graph (Ctrl-C, its time limit): no graph it did
        not reach can be nearer than this (GED: the least lower bound of those graphs;
        MCES: the largest upper bound on their similarity). None when it reached them all.
    measure : str or None
        What the distances mean, in a few stable words: GED, the cost model (its repr and a
        digest of every value it holds, :func:`gedkit.costs.describe.briefly`); MCES,
        ``"Johnson similarity"`` and the options that change it
        (``ring_matches_ring_only``, and ``connected``, ``rascal_ties``,
        ``min_fragment_size``, ``max_fragment_separation`` or ``complete_rings`` where
        given other than their defaults). Every collection search records it;
        :func:`~gedkit.search.merge` refuses answers whose measures differ. None for an
        answer made by hand.
    """

    kind: str
    query: str | None
    parameter: float
    hits: list[Hit] = field(default_factory=list)
    undecided: list[Hit] = field(default_factory=list)
    certified: bool = True
    uncertain: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    interrupted: bool = False
    timed_out: bool = False
    frontier: float | None = None
    measure: str | None = None
    #: the query graph searched (in this process), by which a picture of the result checks
    #: the query it is given (its name alone let another unnamed graph stand as the query)
    searched: Any = field(default=None, repr=False, compare=False)
    #: the collection searched (in this process), by which a picture of the result checks
    #: the collection it reads the hits from (see ``Collection._identity``)
    searched_in: Any = field(default=None, repr=False, compare=False)

    @property
    def ids(self) -> list:
        """The hits' ids, best first."""
        return [h.id for h in self.hits]

    def to_dict(self) -> dict:
        # (tau=inf as null, as infinite bounds are: "Infinity" is no JSON)
        parameter = (None if isinstance(self.parameter, float) and math.isinf(self.parameter)
                     else self.parameter)
        out = {"kind": self.kind, "query": self.query, _PARAMETER[self.kind]: parameter,
               "measure": self.measure, "certified": self.certified,
               "interrupted": self.interrupted, "timed_out": self.timed_out,
               "hits": [h.to_dict() for h in self.hits],
               "undecided": [h.to_dict() for h in self.undecided],
               "uncertain": self.uncertain, "stats": self.stats}
        if self.frontier is not None:
            out["frontier"] = _num(self.frontier)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def __len__(self) -> int:
        return len(self.hits)

    def __repr__(self) -> str:
        what = f"{_PARAMETER[self.kind]}={self.parameter:g}"
        extra = f", {len(self.undecided)} undecided" if self.undecided else ""
        cert = ("interrupted" if self.interrupted else "timed out" if self.timed_out
                else "certified" if self.certified else "not certified")
        # graphs, not verifications: GED kNN verifies a graph set aside again (its graphs
        # are those "scanned"), MCES kNN rules out some it scans by their pair bounds
        graphs = min(self.stats.get("scanned", math.inf), self.stats.get("verified", 0))
        return (f"<SearchResult {self.kind} {what}: {len(self.hits)} hits{extra}, {cert}, "
                f"{graphs} of {self.stats.get('screened', 0)} verified>")


_PARAMETER = {"range": "tau", "knn": "k", "mces_range": "min_similarity", "mces_knn": "k"}
