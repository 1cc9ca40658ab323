"""``gedkit.mces``: the one call for a maximum common edge subgraph."""

from __future__ import annotations

from typing import Any

from gedkit.inputs import as_graph
from gedkit.mces.base import Budget, available, get_method
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = ["mces", "methods"]


def mces(
    g1: Any,
    g2: Any,
    method: str = "auto",
    *,
    timeout: float | None = None,
    node_label: str | list[str] | None = None,
    edge_label: str | list[str] | None = None,
    **options: Any,
) -> MCESResult:
    """Maximum common edge subgraph of ``g1`` and ``g2``, with a proven bound.

    A node may only map onto a node with an equal label, an edge is common when both its
    ends map onto the ends of an edge with an equal label, and the common subgraph may be
    disconnected.

    Parameters
    ----------
    g1, g2 : Graph or networkx.Graph
        The graphs. NetworkX graphs are converted with ``node_label``/``edge_label`` naming
        the label attributes (None = unlabelled).
    method : str
        ``"auto"`` (exact search seeded by graduated assignment), ``"exact"`` (branch and
        bound), ``"ga"`` (graduated assignment) or ``"rascal"`` (RDKit, molecules only); see
        :func:`methods`.
    timeout : float, optional
        Seconds. Reaching it never raises: the result holds the best map found so far and a
        proven upper bound.
    **options
        Options of the chosen method (``ga``/``auto``: ``beta0``, ``beta_max``,
        ``beta_rate``, ``iterations``, ``sinkhorn_iterations``, ``restarts``, ``seed``;
        ``rascal``: ``max_bond_pairs``).

    Returns
    -------
    MCESResult
        ``num_edges`` (= ``lower_bound``), ``upper_bound``, ``optimal``, ``node_map``,
        ``edges``, ``similarity``, ``method``, ``time``.

    Examples
    --------
    >>> import gedkit
    >>> g1 = gedkit.Graph({1: "C", 2: "C", 3: "O"}, [(1, 2, 1), (2, 3, 2)])
    >>> g2 = gedkit.Graph({"a": "O", "b": "C", "c": "C"}, [("a", "b", 2), ("b", "c", 1)])
    >>> r = gedkit.mces(g1, g2)
    >>> r.num_edges, r.optimal, r.similarity
    (2, True, 1.0)
    >>> r.node_map
    [(1, 'c'), (2, 'b'), (3, 'a')]
    """
    g1 = as_graph(g1, node_label, edge_label)
    g2 = as_graph(g2, node_label, edge_label)
    solver = get_method(method, **options)
    budget = Budget(timeout=timeout)
    return solver.solve(MCESProblem(g1, g2), budget)


def methods() -> dict[str, str]:
    """Registered MCES methods with their one-line summaries.

    >>> sorted(methods())[:3]
    ['auto', 'exact', 'ga']
    """
    return {name: cls.summary for name, cls in available().items()}
