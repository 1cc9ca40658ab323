"""The public functions: one obvious call per task."""

from __future__ import annotations

from typing import Any

from gedkit.costs import CostModel
from gedkit.costs import get as get_costs
from gedkit.inputs import as_graph, as_graphs
from gedkit.result import Result
from gedkit.solvers import Budget, get_solver

__all__ = ["as_graph", "ged"]


def ged(
    g1: Any,
    g2: Any,
    costs: str | CostModel = "uniform",
    method: str = "auto",
    *,
    timeout: float | None = None,
    memory: int | None = None,
    threshold: float | None = None,
    node_label: str | None = None,
    edge_label: str | None = None,
    **options: Any,
) -> Result:
    """Graph edit distance between ``g1`` and ``g2``, with proven bounds.

    Parameters
    ----------
    g1, g2 : Graph or networkx.Graph
        The graphs. NetworkX graphs are converted with ``node_label``/``edge_label`` naming the
        label attributes (None = unlabelled).
    costs : str or CostModel
        A cost-model name (see :func:`gedkit.costs.available`) or a model object.
    method : str
        A registered solver (see :func:`gedkit.methods`). ``"auto"`` (default) spends the
        budget on bounds, heuristics and then exact search; ``"exact"``/``"astar"``,
        ``"dfs"``, ``"mip"`` are exact; ``"branch"``, ``"ipfp"``, ``"refine"``... are fast
        heuristics that still report a proven lower bound.
    timeout : float, optional
        Seconds. Reaching it never raises: the result holds the best bounds found so far.
    memory : int, optional
        Byte cap for the search frontier; exact search continues depth-first beyond it.
    threshold : float, optional
        Only ask whether the distance is at most this value; the search may stop early and
        ``result.within_threshold`` holds the answer.
    **options
        Options of the chosen method.

    Returns
    -------
    Result
        ``distance`` (= ``upper_bound``), ``lower_bound``, ``optimal``, ``node_map``,
        ``edit_path``, ``method``, ``time``.

    Examples
    --------
    >>> import gedkit
    >>> g1 = gedkit.Graph({1: "C", 2: "O"}, [(1, 2)])
    >>> g2 = gedkit.Graph({"a": "C", "b": "N", "c": "H"}, [("a", "b"), ("a", "c")])
    >>> r = gedkit.ged(g1, g2)
    >>> r.distance, r.optimal
    (3.0, True)
    >>> r.node_map
    [(1, 'a'), (2, 'b'), (None, 'c')]
    """
    g1, g2 = as_graphs((g1, g2), node_label, edge_label)
    solver = get_solver(method, **options)
    budget = Budget(timeout=timeout, memory=memory, threshold=threshold)
    problem = get_costs(costs).compile(g1, g2)
    result = solver.solve(problem, budget)
    if threshold is not None:
        if result.upper_bound <= threshold:
            result.within_threshold = True
        elif result.lower_bound > threshold:
            result.within_threshold = False
    return result
