"""The one result type every GED solver returns."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from gedkit.numeric import tolerance
from gedkit.problem import EditOperation, Problem

__all__ = ["Result"]



@dataclass(eq=False)
class Result:
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
        reflect rounding)."""
        forward = np.ascontiguousarray(forward, dtype=np.int64)
        ub = problem.cost(forward)  # validates the map too
        lb = min(float(lower_bound), ub)
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
        return [op.with_labels(g1, g2) for op in self.problem.edit_path(self.assignment)]

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
        return out

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), default=_jsonable, **kwargs)

    def draw(self, path: Any = None, **options: Any) -> Any:
        """The edit path drawn on both graphs (a matplotlib Figure); ``path=`` also writes
        it (.svg, .png or .pdf). Options as for :func:`gedkit.draw.draw` (``steps=True``
        for the step strip, ``ax=``, ``labels=``...). Needs matplotlib
        (``pip install 'gedkit[draw]'``).

        >>> import gedkit
        >>> r = gedkit.ged(gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]), gedkit.Graph({0: "C"}))
        >>> r.draw()._gedkit_caption
        'GED = 2 (optimal, uniform)'
        """
        from gedkit.draw import draw

        return draw(self, path, **options)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a result as its picture (none above 300 nodes, or without
        matplotlib: drawing must never slow down or break a notebook's display)."""
        return _svg_of(self)

    def _repr_html_(self) -> str | None:
        """The text and the picture next to each other, for notebooks that show HTML."""
        return _html_of(self)

    def __repr__(self) -> str:
        tag = "optimal" if self.optimal else f"lower={self.lower_bound:g}"
        return (
            f"<Result distance={self.distance:g} ({tag}) method={self.method} "
            f"time={self.time:.3g}s>"
        )


#: results on more nodes than this show as text only in notebooks
REPR_MAX_NODES = 300


def _svg_of(result: Any) -> str | None:
    """The SVG picture of a result, computed once; None when it would be too large or
    cannot be drawn here."""
    cached = result.__dict__.get("_svg")
    if cached is not None:
        return cached or None
    svg = ""
    if result.problem.n1 + result.problem.n2 <= REPR_MAX_NODES:
        try:
            from gedkit.draw import draw
            from gedkit.draw.output import svg_text

            svg = svg_text(draw(result))
        except Exception:  # a display hook must not raise: the text repr still shows
            svg = ""
    result.__dict__["_svg"] = svg
    return svg or None


def _html_of(result: Any) -> str | None:
    svg = _svg_of(result)
    if svg is None:
        return None
    from html import escape

    body = svg[svg.find("<svg"):]  # drop the XML prolog and doctype inside HTML
    return (f"<div><pre style='margin:0 0 4px 0'>{escape(repr(result))}</pre>"
            f"<div style='max-width:100%'>{body}</div></div>")


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (set, frozenset, tuple)):
        return list(x)
    return str(x)
