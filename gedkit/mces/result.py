"""The one result type every MCES method returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from gedkit.mces.problem import MCESProblem, johnson_similarity
from gedkit.numeric import TOL
from gedkit.result_base import PairResult, json_ready

__all__ = ["MCESResult"]


@dataclass(eq=False)
class MCESResult(PairResult):
    """The best common edge subgraph found and a proven bound on the largest one.

    Attributes
    ----------
    num_edges : int
        Common edges of ``node_map``, recounted by :meth:`MCESProblem.count`; it is also the
        proven ``lower_bound``.
    upper_bound : int
        Proven: no node map keeps more edges.
    optimal : bool
        True when ``num_edges == upper_bound``.
    node_map : list of (u, v)
        Caller ids, the nodes the common edges touch (in g1's node order).
    edges : list of ((u1, u2), (v1, v2))
        The common edges: an edge of g1 and the edge of g2 it lands on.
    fragments : list of lists
        The common edges split into their connected pieces, largest first (one piece when
        solved with ``connected=True``).
    similarity : float
        Johnson similarity (see :func:`gedkit.mces.problem.johnson_similarity`).
    method : str
        The method that produced the answer.
    time : float
        Wall-clock seconds spent.
    stats : dict
        Method statistics (what stopped the search, RASCAL's own flags...).
    assignment : ndarray
        The full internal node map (length n1, -1 = unmapped), possibly mapping nodes that
        touch no common edge.
    """

    problem: MCESProblem = field(repr=False)
    assignment: np.ndarray = field(repr=False)
    num_edges: int
    upper_bound: int
    method: str
    time: float = 0.0
    stats: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_map(
        cls,
        problem: MCESProblem,
        forward: Any,
        upper_bound: float,
        method: str,
        *,
        time: float = 0.0,
        stats: dict | None = None,
    ) -> MCESResult:
        """Build a result whose edge count is recounted from ``forward``.

        ``upper_bound`` is rounded down (edge counts are integers); a bound below the count
        of a map in hand cannot be proven, so it is raised to that count.
        """
        forward = np.ascontiguousarray(forward, dtype=np.int64)
        count = problem.count(forward)  # validates the map too
        upper = max(math.floor(upper_bound + TOL), count)
        return cls(problem, forward, count, upper, method, time, dict(stats or {}))

    @property
    def lower_bound(self) -> int:
        """The edge count of the best map found (= ``num_edges``)."""
        return self.num_edges

    @property
    def optimal(self) -> bool:
        return self.num_edges >= self.upper_bound

    @cached_property
    def _common(self) -> np.ndarray:
        return self.problem.common(self.assignment)

    @cached_property
    def node_map(self) -> list[tuple[Any, Any]]:
        touched = np.zeros(self.problem.n1, dtype=bool)
        touched[self.problem.g1.edges[self._common].ravel()] = True
        ids1, ids2 = self.problem.g1.ids, self.problem.g2.ids
        return [(ids1[i], ids2[self.assignment[i]]) for i in np.flatnonzero(touched).tolist()]

    @cached_property
    def edges(self) -> list[tuple[tuple[Any, Any], tuple[Any, Any]]]:
        ids1, ids2 = self.problem.g1.ids, self.problem.g2.ids
        f = self.assignment
        return [
            ((ids1[a], ids1[b]), (ids2[f[a]], ids2[f[b]]))
            for a, b in self.problem.g1.edges[self._common].tolist()
        ]

    @cached_property
    def fragments(self) -> list[list[tuple[tuple[Any, Any], tuple[Any, Any]]]]:
        ids1, ids2 = self.problem.g1.ids, self.problem.g2.ids
        f = self.assignment
        edges = self.problem.g1.edges
        return [[((ids1[a], ids1[b]), (ids2[f[a]], ids2[f[b]])) for a, b in edges[piece].tolist()]
                for piece in self.problem.fragments(f)]

    @cached_property
    def similarity(self) -> float:
        return johnson_similarity(len(self.node_map), self.num_edges,
                                  self.problem.g1, self.problem.g2)

    def to_dict(self) -> dict:
        """JSON-ready dict; keys are the attribute names (all but ``problem`` and
        ``assignment``, which the node map says in the caller's ids)."""
        return json_ready({
            "num_edges": self.num_edges,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "optimal": self.optimal,
            "similarity": self.similarity,
            "node_map": [list(p) for p in self.node_map],
            "edges": [[list(e1), list(e2)] for e1, e2 in self.edges],
            "fragments": [[[list(e1), list(e2)] for e1, e2 in piece]
                          for piece in self.fragments],
            "method": self.method,
            "time": self.time,
            "stats": self.stats,
        })

    def __repr__(self) -> str:
        tag = "optimal" if self.optimal else f"upper={self.upper_bound}"
        return (
            f"<MCESResult num_edges={self.num_edges} ({tag}) similarity={self.similarity:.3f} "
            f"method={self.method} time={self.time:.3g}s>"
        )
