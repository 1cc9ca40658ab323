"""The one result type every GED solver returns."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from gedkit.numeric import tolerance
from gedkit.problem import EditOperation, Problem
from gedkit.result_base import PairResult, json_ready

__all__ = ["Result"]



@dataclass(eq=False)
class Result(PairResult):
    """Bounds on the graph edit distance and the node map that realises the upper bound.

    Attributes
    ----------
    lower_bound, upper_bound : float
        Proven bounds: ``lower_bound <= GED <= upper_bound``. ``upper_bound`` is the cost of
        ``node_map``, recomputed by :meth:`gedkit.problem.Problem.cost`.
    optimal : bool
        True when the bounds meet, so ``upper_bound`` is the exact distance.
    node_map : list of (u, v)
        Caller ids; ``(u, None)`` deletes u, ``(None, v)`` inserts v.
    edit_path : list of EditOperation
        The operations ``node_map`` implies; their costs sum to ``upper_bound``.
    method : str
        The solver that produced the answer.
    time : float
        Wall-clock seconds spent.
    stats : dict
        Solver statistics (expanded states, peak memory, what stopped the search...).
    within_threshold : bool or None
        Answer to "is GED <= threshold?" when a threshold was given, else None.
    """

    problem: Problem = field(repr=False)
    assignment: np.ndarray = field(repr=False)
    lower_bound: float
    upper_bound: float
    method: str
    time: float = 0.0
    stats: dict = field(default_factory=dict, repr=False)
    within_threshold: bool | None = None

    @classmethod
    def from_assignment(
        cls,
        problem: Problem,
        forward: Any,
        lower_bound: float,
        method: str,
        *,
        time: float = 0.0,
        stats: dict | None = None,
    ) -> Result:
        """Build a result whose upper bound is the recomputed cost of ``forward``.

        The lower bound is clamped to the upper bound (a bound that crosses it would only
        reflect rounding). On a problem with fixed or forbidden pairs a map that breaks them
        is first repaired (:func:`gedkit.constraints.repair`), so every result keeps them."""
        forward = np.ascontiguousarray(forward, dtype=np.int64)
        if problem.allowed is not None and not problem.satisfies(forward):
            from gedkit.constraints import repair

            forward = repair(problem, forward)
            stats = {**(stats or {}), "repaired": True}
        ub = problem.cost(forward)  # validates the map too
        lb = min(float(lower_bound), ub) + 0.0  # (never -0.0: printed "lower bound -0")
        if lb >= ub - tolerance(ub):
            lb = ub
        return cls(problem, forward, lb, ub, method, time, dict(stats or {}))

    @property
    def distance(self) -> float:
        """The best known distance (= ``upper_bound``; exact when ``optimal``)."""
        return self.upper_bound

    @property
    def optimal(self) -> bool:
        return self.lower_bound >= self.upper_bound

    @property
    def gap(self) -> float:
        """Certified relative gap ``(upper - lower) / upper`` (0 when optimal)."""
        return 0.0 if self.upper_bound <= 0 else (
            (self.upper_bound - self.lower_bound) / self.upper_bound
        )

    @cached_property
    def node_map(self) -> list[tuple[Any, Any]]:
        return self.problem.node_map_pairs(self.assignment)

    @cached_property
    def edit_path(self) -> list[EditOperation]:
        # labels ride along so that printed paths read "relabel node 3: C → N"
        g1, g2 = self.problem.g1, self.problem.g2
        return [op.with_labels(g1, g2) for op in self.problem.edit_operations(self.assignment)]

    def edit_path_head(self, count: int) -> tuple[list[EditOperation], int | None]:
        """The first ``count`` operations of :attr:`edit_path` and how many it has (None:
        more than ``count``), the others not made (a report of a 2,000-node pair's 190,000
        took 2 s to make them)."""
        if "edit_path" in self.__dict__:
            return self.edit_path[:count], len(self.edit_path)
        g1, g2 = self.problem.g1, self.problem.g2
        ops = itertools.islice(self.problem.edit_operations(self.assignment), count + 1)
        head = [op.with_labels(g1, g2) for op in ops]
        return head[:count], len(head) if len(head) <= count else None

    def to_dict(self) -> dict:
        """JSON-ready dict; keys are the attribute names."""
        out = {
            "distance": self.distance,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "optimal": self.optimal,
            "node_map": [list(p) for p in self.node_map],
            "edit_path": [op.to_dict() for op in self.edit_path],
            "method": self.method,
            "time": self.time,
            "stats": self.stats,
        }
        if self.within_threshold is not None:
            out["within_threshold"] = self.within_threshold
        return json_ready(out)  # (numpy node ids, tuple labels in the edit path)

    def __repr__(self) -> str:
        tag = "optimal" if self.optimal else f"lower={self.lower_bound:g}"
        return (
            f"<Result distance={self.distance:g} ({tag}) method={self.method} "
            f"time={self.time:.3g}s>"
        )
