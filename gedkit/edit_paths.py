"""Every optimal edit path: :func:`optimal_edit_paths`.

The node maps of least cost are enumerated by Lawler's partitioning (Murty's, for assignments)
on top of fixed and forbidden pairs (:mod:`gedkit.constraints`), so no solver needs to know:
solve the pair exactly; then, for the optimal map ``m`` and each node ``i`` of g1 in turn, the
maps that agree with ``m`` on the nodes before ``i`` and differ on ``i`` form one subproblem
(those pairs fixed, ``i``'s pair forbidden). These subproblems split every other map between
them, once each, so no map is found twice; each is solved with the optimal cost as threshold,
which decides "is there another map as cheap?" and stops there, and a subproblem that has one
is split the same way in turn.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gedkit.budget import (
    Budget,
    check_setup_fits,
    heuristic_stop,
    interruptible,
    solve_within,
)
from gedkit.costs import CostModel
from gedkit.costs import get as get_costs
from gedkit.errors import OptionError
from gedkit.inputs import as_graphs
from gedkit.numeric import tolerance
from gedkit.result import Result
from gedkit.result_base import json_ready
from gedkit.solvers import get_solver

__all__ = ["EditPaths", "optimal_edit_paths"]


@dataclass(eq=False)
class EditPaths:
    """The optimal edit paths of a graph pair, one :class:`~gedkit.result.Result` each.

    Attributes
    ----------
    paths : list of Result
        Distinct node maps, each of cost ``distance`` (``r.node_map``, ``r.edit_path``).
    distance : float
        Their cost: the distance when ``optimal``.
    lower_bound : float
        A proven lower bound on the distance.
    complete : bool
        True when ``paths`` is proven to hold every optimal node map (the distance proven,
        no limit reached, no subproblem left undecided by the time limit).
    method : str
        The solver each subproblem was solved with.
    time : float
        Wall-clock seconds of the whole enumeration.
    stats : dict
        ``solves`` (subproblems solved), ``pruned`` (proven to hold no optimal map),
        ``undecided`` (left open by the time limit), ``stopped`` (why the enumeration
        stopped short, if it did).
    """

    paths: list[Result]
    distance: float
    lower_bound: float
    complete: bool
    method: str
    time: float = 0.0
    stats: dict = field(default_factory=dict, repr=False)

    @property
    def optimal(self) -> bool:
        """Whether ``distance`` is proven to be the edit distance."""
        return self.lower_bound >= self.distance

    @property
    def node_maps(self) -> list[list[tuple[Any, Any]]]:
        """Each path's node map in caller ids (``(u, None)`` deletes u, ``(None, v)``
        inserts v)."""
        return [r.node_map for r in self.paths]

    @property
    def edit_paths(self) -> list[list]:
        """Each path's edit operations (:class:`~gedkit.problem.EditOperation`)."""
        return [r.edit_path for r in self.paths]

    def networkx(self) -> tuple[list[tuple[list, list]], float]:
        """The paths as NetworkX's ``optimal_edit_paths`` returns them: a list of (node edit
        path, edge edit path) and the cost. An edge edit path pairs every edge of g1 with its
        image edge of g2 or ``None`` (deleted), then ``(None, e)`` for every edge ``e`` of
        g2 inserted."""
        return [(r.node_map, edge_pairs(r)) for r in self.paths], self.distance

    def to_dict(self) -> dict:
        """JSON-ready dict: ``distance``, ``lower_bound``, ``complete``, ``node_maps``,
        ``edit_paths`` (operation dicts), ``method``, ``time``, ``stats``."""
        return json_ready({
            "distance": self.distance,
            "lower_bound": self.lower_bound,
            "complete": self.complete,
            "node_maps": [[list(p) for p in m] for m in self.node_maps],
            "edit_paths": [[op.to_dict() for op in path] for path in self.edit_paths],
            "method": self.method,
            "time": self.time,
            "stats": self.stats,
        })

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[Result]:
        return iter(self.paths)

    def __getitem__(self, index: int) -> Result:
        return self.paths[index]

    def __repr__(self) -> str:
        tag = "complete" if self.complete else "incomplete"
        return (f"<EditPaths {len(self.paths)} paths of cost {self.distance:g} ({tag}) "
                f"method={self.method} time={self.time:.3g}s>")


def edge_pairs(result: Result) -> list[tuple[Any, Any]]:
    """The edge edit path of ``result``'s node map, NetworkX style: ``(e1, e2)`` for an edge
    of g1 laid on an edge of g2 (``e2`` oriented as ``e1``'s ends map), ``(e1, None)`` for a
    deleted one, ``(None, e2)`` for an inserted one; caller ids."""
    p, f = result.problem, np.asarray(result.assignment, dtype=np.int64)
    ids1, ids2 = p.g1.ids, p.g2.ids
    out: list[tuple[Any, Any]] = []
    covered = np.zeros((p.n2, p.n2), dtype=bool)
    for a, b in p.g1.edges.tolist():
        fa, fb = int(f[a]), int(f[b])
        if fa >= 0 and fb >= 0 and p.adj2[fa, fb] >= 0:
            covered[fa, fb] = True
            if not p.g2.directed:  # (an arc's reverse is another arc, left to insert)
                covered[fb, fa] = True
            out.append(((ids1[a], ids1[b]), (ids2[fa], ids2[fb])))
        else:
            out.append(((ids1[a], ids1[b]), None))
    out += [(None, (ids2[c], ids2[d])) for c, d in p.g2.edges.tolist() if not covered[c, d]]
    # self-loops go with their nodes: (u, u) onto the loop of the node u maps to, if any
    hit = set()
    for a in p.g1.loops:
        fa = int(f[a])
        if fa >= 0 and fa in p.g2.loops:
            hit.add(fa)
            out.append(((ids1[a], ids1[a]), (ids2[fa], ids2[fa])))
        else:
            out.append(((ids1[a], ids1[a]), None))
    out += [(None, (ids2[c], ids2[c])) for c in p.g2.loops if c not in hit]
    return out


def optimal_edit_paths(
    g1: Any,
    g2: Any,
    costs: str | CostModel = "uniform",
    method: str = "exact",
    *,
    limit: int = 100,
    timeout: float | None = None,
    memory: int | None = None,
    node_label: str | None = None,
    edge_label: str | None = None,
    fixed: Any = None,
    forbidden: Any = None,
    **options: Any,
) -> EditPaths:
    """Every node map of least edit cost between ``g1`` and ``g2`` (at most ``limit``), each
    with its edit path, and whether they are proven to be all of them.

    Parameters
    ----------
    g1, g2, costs, node_label, edge_label, fixed, forbidden, memory
        As for :func:`gedkit.ged`.
    method : str
        The solver of each subproblem (default ``"exact"``). The list is only proven
        complete when every subproblem is solved or decided, which needs an exact method.
    limit : int
        The most paths returned (default 100). When there are more, ``complete`` is False.
    timeout : float, optional
        Seconds for the whole enumeration; reaching it returns the paths found so far, with
        ``complete`` False.
    **options
        Options of the chosen method.

    Returns
    -------
    EditPaths
        ``paths`` (one :class:`~gedkit.result.Result` per node map: ``node_map``,
        ``edit_path``), ``distance``, ``complete``, ``node_maps``, ``networkx()``.

    Examples
    --------
    >>> import gedkit, networkx as nx
    >>> paths = gedkit.optimal_edit_paths(nx.path_graph(3), nx.cycle_graph(3))
    >>> len(paths), paths.distance, paths.complete     # any of the 3! maps inserts one edge
    (6, 1.0, True)
    >>> paths.node_maps[0]
    [(0, 0), (1, 1), (2, 2)]
    >>> gedkit.optimal_edit_paths(nx.path_graph(3), nx.cycle_graph(3), fixed=[(1, 0)],
    ...                           limit=1)
    <EditPaths 1 paths of cost 1 (incomplete) method=exact time=...>
    """
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1:
        raise OptionError(f"limit must be a positive integer, got {limit!r}")
    budget = Budget(timeout=timeout, memory=memory)
    solver = get_solver(method, **options)
    g1, g2 = as_graphs((g1, g2), node_label, edge_label, asked=True)
    check_setup_fits(g1.n, g2.n, budget)
    root = get_costs(costs).compile(g1, g2).constrained(fixed, forbidden)
    budget.what = f"gedkit.optimal_edit_paths ({solver.name}) on graphs of {g1.n} and {g2.n} nodes"
    with interruptible():
        return _enumerate(root, solver, budget, int(limit))


def _enumerate(root, solver, budget: Budget, limit: int) -> EditPaths:
    from gedkit.constraints import feasible

    t0 = time.perf_counter()
    stats = {"solves": 1, "pruned": 0, "undecided": 0}
    first = solve_within(solver, root, budget)

    def done(paths, lower, complete, why=None):
        if why:
            stats["stopped"] = why
        # in node order, deletions last: the same list whatever order the search found them in
        paths = sorted(paths, key=lambda r: tuple(np.where(r.assignment < 0, n2,
                                                           r.assignment).tolist()))
        return EditPaths(paths, first.upper_bound, lower, complete, solver.name,
                         time.perf_counter() - t0, stats)

    base, n1, n2 = root.unconstrained, root.n1, root.n2
    if not first.optimal:
        return done([first], first.lower_bound, False,
                    first.stats.get("stopped", "the distance is not proven"))
    cost = first.upper_bound
    threshold = cost + tolerance(cost)
    paths, seen = [first], {first.assignment.tobytes()}
    start_mask = root.allowed if root.allowed is not None else np.ones((n1 + 1, n2 + 1), bool)
    # subspaces still to split: (their allowed pairs, their optimal map, first free position)
    stack: list[tuple[np.ndarray, np.ndarray, int]] = [(start_mask, first.assignment, 0)]
    pending: list[tuple[np.ndarray, int]] = []
    more = False  # another optimal map exists beyond the limit
    while stack or pending:
        if not pending:
            mask, forward, begin = stack.pop()
            pending = list(_split(mask, forward, begin, n2))[::-1]
            if not pending:  # a map all of whose pairs are fixed: nothing else there
                continue
        child, position = pending.pop()
        if not feasible(child):
            continue
        if budget.expired():
            stats["undecided"] += 1 + len(pending) + len(stack)
            return done(paths, cost, False, "time limit")
        stats["solves"] += 1
        share = budget.part(budget.remaining() if budget.timeout is not None else None,
                            threshold=threshold)
        result = solve_within(solver, base.with_allowed(child), share)
        if result.upper_bound <= threshold:
            if len(paths) >= limit:
                more = True
                break
            key = result.assignment.tobytes()
            if key not in seen:  # cannot happen: the subspaces are disjoint
                seen.add(key)
                paths.append(result)
            stack.append((child, result.assignment, position))
        elif result.lower_bound > threshold:
            stats["pruned"] += 1
        else:
            stats["undecided"] += 1
    if more:
        return done(paths, cost, False, f"limit of {limit} paths reached")
    if stats["undecided"]:
        # a heuristic decides what its bounds decide, whatever the time (a 0.1 s enumeration
        # by 'node' said "time limit" with no limit set)
        why = ("time limit: some subproblems undecided" if getattr(solver, "exact", True) else
               heuristic_stop(solver.name, "its bounds left some subproblems undecided"))
        return done(paths, cost, False, why)
    return done(paths, cost, True)


def _split(mask: np.ndarray, forward: np.ndarray, begin: int, n2: int):
    """Lawler's subspaces of ``mask`` less the map ``forward``: for each position ``k`` from
    ``begin``, the pairs of positions before ``k`` fixed and that of ``k`` forbidden;
    yields ``(allowed, k)``."""
    prefix = mask.copy()
    for i in range(begin, len(forward)):
        j = int(forward[i]) if forward[i] >= 0 else n2
        child = prefix.copy()
        child[i, j] = False
        yield child, i
        keep = prefix[i, j]
        prefix[i, :] = False
        if j < n2:
            prefix[:, j] = False
        prefix[i, j] = keep
