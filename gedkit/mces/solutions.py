"""Every maximum common edge subgraph, and RASCAL's choice among them.

:func:`all_maximum` first solves the pair (``exact``), then runs the exact kernel again in its
enumerating mode (:data:`gedkit._kernels.mces_search.ENUMERATE`): every map keeping that many
edges is reported in turn, with the twin rule off (twins give distinct maps). Maps are compared
on the nodes their common edges touch, so two maps differing only in nodes that keep nothing are
one solution. :func:`rascal_key` is RASCAL's order among equally large solutions (fewest fragments,
then the most atoms in the largest one), and :func:`rascal_choice` applies it to the maps
found, so that the Johnson similarity is the one RASCAL reports when it collects every maximum
map (``allBestMCESs=True``; by default it reports the first one its search meets).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from gedkit.budget import Budget
from gedkit.errors import OptionError
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = ["all_maximum", "maximum_maps", "rascal_choice", "rascal_key"]


def rascal_key(problem: MCESProblem, forward: np.ndarray) -> tuple[int, int, int]:
    """RASCAL's order of results, smallest first: most common edges, then fewest fragments,
    then the most nodes in the largest fragment.

    >>> from gedkit import Graph
    >>> g = Graph({i: "C" for i in range(4)}, [(0, 1), (1, 2), (2, 3)])
    >>> h = Graph({i: "C" for i in range(5)}, [(0, 1), (1, 2), (3, 4)])
    >>> p = MCESProblem(g, h)
    >>> rascal_key(p, np.array([0, 1, 2, -1])), rascal_key(p, np.array([0, 1, 3, 4]))
    ((-2, 1, -3), (-2, 2, -2))
    """
    pieces = problem.fragments(forward)
    largest = len(np.unique(problem.g1.edges[pieces[0]])) if pieces else 0
    return -sum(map(len, pieces)), len(pieces), -largest


def _touched(problem: MCESProblem, forward: np.ndarray) -> np.ndarray:
    """``forward`` on the nodes its common edges touch only."""
    out = np.full(problem.n1, -1, dtype=np.int64)
    nodes = np.unique(problem.g1.edges[problem.common(forward)])
    out[nodes] = forward[nodes]
    return out


def maximum_maps(problem: MCESProblem, edges: int, budget: Budget, *, limit: int = 100,
                 connected: bool = False) -> tuple[list[np.ndarray], bool]:
    """Distinct maps keeping ``edges`` common edges (all of them connected if
    ``connected``), at most ``limit``; and whether that list is complete (False: the limit or
    the budget stopped it). ``edges`` should be the proven maximum: larger maps are never
    looked for.

    >>> from gedkit import Graph
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> path = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    >>> maps, complete = maximum_maps(MCESProblem(path, tri), 2, Budget())
    >>> len(maps), complete      # the path's middle onto any corner, its ends either way
    (6, True)
    """
    from gedkit.mces.exact import _Search, _search_pair

    if edges <= 0:
        return [np.full(problem.n1, -1, dtype=np.int64)], True
    swap = problem.n1 > problem.n2
    p = problem.transposed() if swap else problem
    pair = _search_pair(p)._replace(twin2=np.arange(p.n2, dtype=np.int64))  # twins differ
    run = _Search(pair, p, np.full(p.n1, -1, dtype=np.int64), edges, None,
                  floor=edges - 1, connected=connected)
    kernel = run.kernel
    run.ctl[kernel.ENUMERATE] = 1
    run.ctl[kernel.INCUMBENT] = edges - 1
    seen: set[tuple[int, ...]] = set()
    maps: list[np.ndarray] = []
    while len(maps) < limit:
        status = run.run(budget, None)
        if status == kernel.DONE:
            return maps, True
        if status != kernel.FOUND:  # out of time
            return maps, False
        forward = p.inverse(run.best_map) if swap else run.best_map.copy()
        forward = _touched(problem, forward)
        key = tuple(forward.tolist())
        if key not in seen:
            seen.add(key)
            maps.append(forward)
    return maps, False


def rascal_choice(problem: MCESProblem, best: MCESResult, budget: Budget, *,
                  limit: int = 1000, connected: bool = False) -> MCESResult:
    """``best`` (an optimal result) replaced by the first of its equally large maps in
    RASCAL's order (:func:`rascal_key`), among at most ``limit`` of them; ``best`` itself when
    it is not optimal or time runs out before any is found. ``stats["solutions_seen"]`` says
    how many maps were compared, ``stats["tie_break_complete"]`` whether that was all.

    >>> import gedkit
    >>> r = gedkit.mces("CCCC", "CCC.CC", "exact")       # 2 edges: one path, or two pieces
    >>> best = rascal_choice(r.problem, r, Budget())
    >>> best.num_edges, len(best.fragments), best.stats["tie_break_complete"]
    (2, 1, True)
    """
    if not best.optimal or best.num_edges == 0:
        return best
    maps, complete = maximum_maps(problem, best.num_edges, budget, limit=limit,
                                  connected=connected)
    chosen = min([best.assignment, *maps], key=lambda f: rascal_key(problem, f))
    stats = {**best.stats, "solutions_seen": len(maps), "tie_break_complete": complete}
    return MCESResult.from_map(problem, chosen, best.upper_bound, best.method, time=best.time,
                               stats=stats)


def all_maximum(g1: Any, g2: Any, *, limit: int = 100, connected: bool = False,
                timeout: float | None = None, node_label: Any = None,
                edge_label: Any = None, ring_matches_ring_only: bool = False,
                ) -> list[MCESResult]:
    """Every maximum common edge subgraph of ``g1`` and ``g2`` (at most ``limit``), without
    duplicates, in RASCAL's order (:func:`rascal_key`).

    Two maps are the same solution when they agree on every node their common edges touch.
    Each result is proven optimal unless ``timeout`` stopped the first solve (then the maps
    found keep the best count found, and the list may be short); ``stats["complete"]`` on
    each says whether the list holds every solution.

    Parameters
    ----------
    g1, g2 : graphs, as :func:`gedkit.mces` takes them
    limit : int
        Most solutions returned.
    connected, ring_matches_ring_only : bool
        Connected common subgraphs only; ring edges onto ring edges only (see
        :func:`gedkit.mces`).
    timeout : float, optional
        Seconds for the whole call (solve and enumeration).

    Returns
    -------
    list of MCESResult

    Examples
    --------
    >>> import gedkit
    >>> sols = gedkit.mces.all_maximum("CCO", "OCC")
    >>> [(r.num_edges, r.node_map) for r in sols]
    [(2, [(0, 2), (1, 1), (2, 0)])]
    >>> len(gedkit.mces.all_maximum("CC(C)C", "CC(C)C"))   # isobutane's 3! symmetries
    6
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise OptionError(f"limit must be an integer > 0, got {limit!r}")
    from gedkit.mces.api import mces

    t0 = time.perf_counter()
    budget = Budget(timeout=timeout)
    first = mces(g1, g2, "exact", timeout=timeout, node_label=node_label,
                 edge_label=edge_label, connected=connected,
                 ring_matches_ring_only=ring_matches_ring_only)
    problem = first.problem
    if first.num_edges == 0:
        return [first]
    maps, complete = maximum_maps(problem, first.num_edges, budget, limit=limit,
                                  connected=connected)
    if not maps:
        maps = [_touched(problem, first.assignment)]
    maps.sort(key=lambda f: (rascal_key(problem, f), f.tolist()))
    spent = time.perf_counter() - t0
    return [MCESResult.from_map(problem, f, first.upper_bound, "exact", time=spent,
                                stats={"complete": complete}) for f in maps]
