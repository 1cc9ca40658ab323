"""The public functions: one obvious call per task."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gedkit.anytime import Improvement, listener_for
from gedkit.budget import (
    INTERRUPT_GRACE,
    Budget,
    InterruptedWarning,
    call_started,
    check_number,
    check_setup_fits,
    interrupt_grace,
    interrupted,
    interruptible,
    solve_within,
)
from gedkit.costs import CostModel
from gedkit.costs import get as get_costs
from gedkit.errors import warn
from gedkit.inputs import as_graph, as_graphs
from gedkit.numeric import tolerance
from gedkit.result import Result
from gedkit.solvers import get_solver

#: pairs of a graph of this many nodes or more whose tree search (exact, astar, dfs) keeps a
#: share of the time left, POLISH_RESERVE, for polishing its map (see ged): benchmarks/limits.py's
#: 300-node pairs at 5 s went from 697 / 557 (random / molecule) to 50 / 195 by it
POLISH_FROM_NODES = 200
POLISH_RESERVE = 0.1

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
    fixed: Any = None,
    forbidden: Any = None,
    on_improve: Callable[[Improvement], Any] | None = None,
    **options: Any,
) -> Result:
    """Graph edit distance between ``g1`` and ``g2``, with proven bounds.

    Parameters
    ----------
    g1, g2 : Graph, networkx.Graph, RDKit molecule, SMILES string or file path
        The graphs (see :func:`gedkit.inputs.as_graph`): ``"CCO"`` or ``"smiles:CCO"``
        is a molecule, a path (``"FILE#ID"`` for one graph of a collection) is read with
        :func:`gedkit.read`. ``node_label``/``edge_label`` name the label attributes of
        NetworkX graphs and attribute files (None = the format's own labels).
    costs : str or CostModel
        A cost-model name (see :func:`gedkit.costs.available`) or a model object.
    method : str
        A registered solver (see :func:`gedkit.methods`). ``"auto"`` (default) spends the
        budget on bounds, heuristics and then exact search; ``"exact"``/``"astar"``,
        ``"dfs"``, ``"mip"`` are exact; ``"branch"``, ``"ipfp"``, ``"refine"``... are fast
        heuristics that still report a proven lower bound.
    timeout : float, optional
        Seconds for the whole call (reading, compiling, solving). Reaching it never raises:
        the result holds the best bounds found so far. Without one the solve runs until it
        proves its answer, saying so after 10 s; Ctrl-C then returns the best bounds found.
    memory : int, optional
        Bytes the solve may take (default: about 1 GiB), imports included; exact search
        continues depth-first beyond it, other methods size their work to it.
    threshold : float, optional
        Only ask whether the distance is at most this value; the search may stop early and
        ``result.within_threshold`` holds the answer.
    fixed, forbidden : list of (u, v), optional
        Node pairs every edit path must take (``fixed``) or must not take (``forbidden``):
        ``u`` a node of g1, ``v`` a node of g2, caller ids; ``(u, None)`` is the deletion
        of ``u``, ``(None, v)`` the insertion of ``v``. ``fixed=[(u, v)]`` is NetworkX's
        ``roots=(u, v)``. Every method keeps them and bounds the distance under them (see
        :mod:`gedkit.constraints`); contradictory pairs raise a :class:`GraphError`.
    on_improve : callable, optional
        Called with an :class:`~gedkit.anytime.Improvement` whenever the best upper bound
        (with its map) or lower bound improves during the solve, last with the answer
        (:func:`gedkit.ged_iter` gives the same as a stream).
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
    >>> g2 = gedkit.Graph({"a": "C", "b": "N", "c": "O"}, [("a", "b"), ("a", "c")])
    >>> r = gedkit.ged(g1, g2)
    >>> r.distance, r.optimal
    (2.0, True)
    >>> r.node_map                                      # N and its bond inserted
    [(1, 'a'), (2, 'c'), (None, 'b')]
    >>> gedkit.ged(g1, g2, fixed=[(2, "b")]).node_map       # O must become the N
    [(1, 'a'), (2, 'b'), (None, 'c')]
    >>> gedkit.ged(g1, g2, forbidden=[(2, "c")], method="branch").node_map[1]
    (2, 'b')
    """
    # the clock starts here: reading, compiling costs, imports and kernels all count
    # a distance equal to the threshold up to rounding is within it (0.1 + 0.1 + 0.1 against
    # 0.3), as in a range search
    check_number(threshold, "threshold", strict=False, none=True)
    limit = None if threshold is None else threshold + tolerance(threshold)
    budget = Budget(timeout=timeout, memory=memory, threshold=limit,
                    start=call_started("ged"))
    solver = get_solver(method, **options)
    g1, g2 = as_graphs((g1, g2), node_label, edge_label, asked=True)
    check_setup_fits(g1.n, g2.n, budget)
    problem = get_costs(costs).compile(g1, g2).constrained(fixed, forbidden)
    budget.what = f"gedkit.ged ({solver.name}) on graphs of {g1.n} and {g2.n} nodes"
    with interruptible(), listener_for(problem, on_improve, budget.start) as listener:
        if listener is not None:
            # a first map at once (milliseconds), whatever the method finds later
            from gedkit.solvers.cheap import cheap_bounds

            first = cheap_bounds(problem, budget, "cheap", search=False)  # at once
            listener.offer(first.assignment, first.lower_bound, "cheap")
        # a tree search on a large pair reaches few leaves in any limit, and its map can be
        # far above what a local search reaches from it in a fraction of a second (1,000
        # nodes at 5 s: 1,706, polished in 0.5 s: 116): a share of the limit is kept for that
        # (gedkit.ged's own: a search's verifier and auto's stages pace their own polishing)
        large = (getattr(solver, "tree_search", False) and budget.timeout is not None
                 and max(g1.n, g2.n) >= POLISH_FROM_NODES)
        # (a tenth of what is left, not of the limit: the reading may have taken most of it)
        result = solve_within(solver, problem, replace(
            budget, timeout=budget.timeout - POLISH_RESERVE * max(budget.remaining(), 0.0))
            if large else budget)
        if not result.optimal and (large or "expansion_seconds" in result.stats):
            # (or one that could not take one step, a 2,000-node pair's 27 s each: it
            # answered its first map at once, and left the rest of a 20 s limit unused)
            result = _polish_map(result, budget)
        if listener is not None:
            result = listener.settle(result)
    if result.stats.get("stopped") == "interrupted":
        warn(InterruptedWarning(f"interrupted: returning the best bounds found so far "
                                f"({result!r})"))
    if limit is not None:
        if result.upper_bound <= limit:
            result.within_threshold = True
        elif result.lower_bound > limit:
            result.within_threshold = False
    return result


def _polish_map(result: Result, budget: Budget) -> Result:
    """``result`` with its map polished in the time ``budget`` has left, or, after Ctrl-C
    (before or during that), in :data:`~gedkit.budget.INTERRUPT_GRACE` seconds at most, so
    that Ctrl-C answers about as well as a time limit; a second Ctrl-C ends that at once
    (the map as the first one left it)."""
    from gedkit.solvers.heuristics.polish import polished

    if not budget.expired() and not interrupted():
        result = polished(result, budget)
    with interrupt_grace() as grace:
        if grace:
            result = polished(result, budget.part(min(INTERRUPT_GRACE, budget.remaining())))
    if interrupted():  # (said as for any solve Ctrl-C stopped)
        result.stats["stopped"] = "interrupted"
    result.time = budget.elapsed()
    return result
