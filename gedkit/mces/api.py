"""``gedkit.mces``: the one call for a maximum common edge subgraph."""

from __future__ import annotations

from typing import Any

from gedkit.budget import (
    Budget,
    InterruptedWarning,
    call_started,
    check_setup_fits,
    interruptible,
    solve_within,
)
from gedkit.errors import warn
from gedkit.inputs import as_graphs
from gedkit.mces.base import Method, available, get_method, method_class
from gedkit.mces.options import RING_MATCHES_RING_ONLY
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = ["mces", "methods"]


def mces(
    g1: Any,
    g2: Any,
    method: str = "auto",
    *,
    timeout: float | None = None,
    memory: int | None = None,
    node_label: str | list[str] | None = None,
    edge_label: str | list[str] | None = None,
    ring_matches_ring_only: bool = False,
    **options: Any,
) -> MCESResult:
    """Maximum common edge subgraph of ``g1`` and ``g2``, with a proven bound.

    A node may only map onto a node with an equal label, an edge is common when both its
    ends map onto the ends of an edge with an equal label, and the common subgraph may be
    disconnected.

    Parameters
    ----------
    g1, g2 : Graph, networkx.Graph, RDKit molecule, SMILES string or file path
        The graphs (see :func:`gedkit.inputs.as_graph`): ``"CCO"`` or ``"smiles:CCO"``
        is a molecule, a path (``"FILE#ID"`` for one graph of a collection) is read with
        :func:`gedkit.read`. ``node_label``/``edge_label`` name the label attributes of
        NetworkX graphs and attribute files (None = the format's own labels).
    method : str
        ``"auto"`` (exact search seeded by graduated assignment), ``"exact"`` (branch and
        bound), ``"ga"`` (graduated assignment), ``"nga"`` (neural graduated assignment,
        needs torch) or ``"rascal"`` (RDKit, molecules only); see :func:`methods`.
    timeout : float, optional
        Seconds for the whole call. Reaching it never raises: the result holds the best map
        found so far and a proven upper bound. Without one the solve runs until it proves
        its answer, saying so after 10 s; Ctrl-C then returns the best map found.
    memory : int, optional
        Bytes the solve may take (default: about 1 GiB): programs, association graphs and
        networks too large for it are not built, and cheaper means answer instead.
    ring_matches_ring_only : bool
        An edge on a cycle (a ring bond) only matches an edge on a cycle, and a chain edge
        only a chain edge (RDKit's ``ringMatchesRingOnly``), for every method: ring
        membership is read from the graphs' own cycles.
    **options
        Options of the chosen method, every one with its default in :func:`methods` and
        ``gedkit methods`` (``ga``/``auto``: ``beta0``, ``beta_max``, ``beta_rate``,
        ``iterations``, ``sinkhorn_iterations``, ``restarts``, ``noise``, ``refine``,
        ``kicks``, ``lp_bound``, ``seed``; ``nga``: ``init``, ``samples``, ``steps``...;
        ``rascal``: ``max_bond_pairs``...). ``connected=True`` (``auto``, ``exact``,
        ``rascal``) asks for the largest *connected* common subgraph, as RDKit's FindMCS
        finds it; ``rascal_ties=True`` (``auto``, ``exact``) picks, among equally large
        maps, the one RASCAL reports with ``allBestMCESs=True`` (fewest fragments, then
        the largest), so that ``similarity`` is RASCAL's then (by default RASCAL reports the
        first maximum map its search meets, which may have more fragments and a higher
        similarity). All maximum maps: :func:`gedkit.mces.all_maximum`.

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
    # the clock starts here: reading, imports and kernels all count
    budget = Budget(timeout=timeout, memory=memory, start=call_started("mces"))
    RING_MATCHES_RING_ONLY.check("ring_matches_ring_only", ring_matches_ring_only)
    solver = _configured(method, options)
    from gedkit.io.common import undirected_only

    with undirected_only("MCES"):  # (keeping the directions is no way out here)
        g1, g2 = as_graphs((g1, g2), node_label, edge_label, asked=True)
    check_setup_fits(g1.n, g2.n, budget, mces=True)
    problem = MCESProblem(g1, g2, ring_matches_ring_only=ring_matches_ring_only)
    budget.what = f"gedkit.mces ({solver.name}) on graphs of {g1.n} and {g2.n} nodes"
    with interruptible():
        result = solve_within(solver, problem, budget)
    if result.stats.get("stopped") == "interrupted":
        warn(InterruptedWarning(f"interrupted: returning the best common subgraph found so "
                                f"far ({result!r})"))
    return result


# configured methods by (class, options): a method keeps no state between solves, and
# checking its options took a twentieth of a small molecule pair's call
_CONFIGURED: dict[tuple, Method] = {}


def _configured(method: str, options: dict[str, Any]) -> Method:
    """``get_method(method, **options)``, made once per class and options (by type too:
    ``True`` is not ``1`` to an option's check)."""
    cls = method_class(method)
    try:
        key = (cls, *sorted((k, type(v), v) for k, v in options.items()))
        solver = _CONFIGURED.get(key)
    except TypeError:  # an unhashable option value: configured afresh
        return get_method(method, **options)
    if solver is None:
        solver = get_method(method, **options)
        if len(_CONFIGURED) < 256:
            _CONFIGURED[key] = solver
    return solver


def methods() -> dict[str, str]:
    """Registered MCES methods with their one-line summaries.

    >>> sorted(methods())[:3]
    ['auto', 'exact', 'ga']
    """
    return {name: cls.summary for name, cls in available().items()}
