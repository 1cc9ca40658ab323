"""Fixed and forbidden node pairs: node maps that must (or must not) take given pairs.

A constraint is a pair ``(u, v)`` of caller ids, ``u`` a node of g1 and ``v`` a node of g2;
``None`` on one side stands for ε: ``(u, None)`` is the deletion of ``u``, ``(None, v)`` the
insertion of ``v``.

- ``fixed=[(u, v)]``: every node map substitutes ``u`` by ``v`` (NetworkX's ``roots=(u, v)``);
  ``(u, None)``: ``u`` is deleted; ``(None, v)``: ``v`` is inserted.
- ``forbidden=[(u, v)]``: no node map substitutes ``u`` by ``v``; ``(u, None)``: ``u`` is not
  deleted; ``(None, v)``: ``v`` is not inserted.

Inside gedkit the constraints are one boolean matrix ``allowed`` of the shape of
:attr:`Problem.node_costs <gedkit.problem.Problem.node_costs>` (``(n1+1) × (n2+1)``, last
column deletion, last row insertion), and the constrained :class:`~gedkit.problem.Problem`
prices every entry that is not allowed at :data:`big_m` — a finite cost larger than any node
map's whole cost. So every solver, reading the costs and nothing else, avoids those entries
whenever it can, every lower bound stays valid (it bounds a problem whose optimum is the
constrained optimum, or the unconstrained problem, which is cheaper), and
:meth:`Result.from_assignment <gedkit.result.Result.from_assignment>` repairs the rare map of a
heuristic that still takes one (:func:`repair`), so a result's map always keeps the
constraints and its upper bound is its cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from gedkit.errors import GraphError
from gedkit.text import quoted

if TYPE_CHECKING:
    from gedkit.problem import Problem

__all__ = ["allowed_matrix", "big_m", "constrain", "feasible", "repair", "satisfies"]


def allowed_matrix(problem: Problem, fixed: Iterable | None = None,
                   forbidden: Iterable | None = None) -> np.ndarray | None:
    """The ``(n1+1) × (n2+1)`` boolean matrix of what ``fixed`` and ``forbidden`` (caller-id
    pairs, see the module docstring) allow, or None when they constrain nothing.

    Raises :class:`~gedkit.errors.GraphError` with a one-line message for a pair that is not a
    pair, names an unknown node or no node at all, a node fixed twice, a pair both fixed and
    forbidden, and constraints that no node map can keep.

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({"a": "C"}))
    >>> allowed_matrix(p, fixed=[(1, "a")]).astype(int)   # O -> a; C must be deleted then
    array([[0, 1],
           [1, 0],
           [0, 1]])
    >>> allowed_matrix(p, fixed=[(1, "a"), (0, "a")])
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: node 'a' of g2 is fixed twice: (1, 'a') and (0, 'a')
    """
    fixed = _pairs(problem, fixed, "fixed")
    forbidden = _pairs(problem, forbidden, "forbidden")
    if not fixed and not forbidden:
        return None
    n1, n2 = problem.n1, problem.n2
    allowed = np.ones((n1 + 1, n2 + 1), dtype=bool)
    rows: dict[int, tuple] = {}
    cols: dict[int, tuple] = {}
    # one pair given twice is one constraint (as forbidden pairs are); two pairs on one node
    # are a contradiction
    fixed = list({pair: (pair, shown) for pair, shown in fixed}.values())
    for (i, j), shown in fixed:
        for index, eps, seen, side, node in ((i, n1, rows, "g1", shown[0]),
                                             (j, n2, cols, "g2", shown[1])):
            if index == eps:
                continue
            if index in seen:
                raise GraphError(f"node {quoted(node)} of {side} is fixed twice: "
                                 f"{quoted(seen[index])} and {quoted(shown)}")
            seen[index] = shown
        if i < n1:
            keep = allowed[i, j]
            allowed[i, :] = False
            allowed[i, j] = keep
        if j < n2:
            keep = allowed[i, j]
            allowed[:, j] = False
            allowed[i, j] = keep
    fixed_pairs = {pair: shown for pair, shown in fixed}
    for pair, shown in forbidden:
        if pair in fixed_pairs:
            raise GraphError(f"pair {quoted(shown)} is both fixed and forbidden")
        allowed[pair] = False
    allowed[n1, n2] = True
    if not feasible(allowed):
        raise GraphError("the fixed and forbidden pairs admit no node map: some node has no "
                         "counterpart left, not even deletion or insertion")
    return allowed


def _pairs(problem: Problem, pairs: Iterable | None, what: str) -> list[tuple[tuple, tuple]]:
    """``((i, j), (u, v))`` per pair: node indices (-1 for ε) and the caller's ids."""
    if pairs is None:
        return []
    if isinstance(pairs, tuple) and len(pairs) == 2 and not any(
            isinstance(x, list | tuple) for x in pairs):
        pairs = [pairs]  # one pair given bare, as NetworkX's roots=(u, v)
    out = []
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise GraphError(f"{what} pairs are (node of g1, node of g2) pairs; got "
                             f"{quoted(pair)}")
        u, v = pair
        if u is None and v is None:
            raise GraphError(f"{what} pair (None, None) names no node")
        i = -1 if u is None else _index(problem.g1, u, "g1", what, pair)
        j = -1 if v is None else _index(problem.g2, v, "g2", what, pair)
        out.append(((i if i >= 0 else problem.n1, j if j >= 0 else problem.n2), (u, v)))
    return out


def _index(g: Any, node: Any, side: str, what: str, pair: Any) -> int:
    try:
        return g.index(node)
    except (KeyError, GraphError, TypeError):
        raise GraphError(f"{what} pair {quoted(tuple(pair))}: {quoted(node)} is not a node of "
                         f"{side}") from None


def big_m(problem: Problem) -> float:
    """A cost above that of every node map of ``problem``: every node substituted, deleted or
    inserted at its dearest, every edge at its dearest, plus one (an integer, so that integer
    costs stay integers)."""
    nc, em = problem.node_costs, problem.edge_label_matrix
    node = float(nc.max(initial=0.0))
    edge = float(em.max(initial=0.0))
    total = (problem.n1 + problem.n2) * node + (problem.g1.m + problem.g2.m) * edge
    return float(math.ceil(2.0 * total) + 1.0)


def constrain(problem: Problem, allowed: np.ndarray | None) -> Problem:
    """``problem`` with what ``allowed`` forbids priced at :func:`big_m` (``problem``
    itself when ``allowed`` is None)."""
    if allowed is None:
        return problem
    return problem.with_allowed(allowed)


def satisfies(allowed: np.ndarray | None, forward: np.ndarray) -> bool:
    """Whether the node map ``forward`` takes only entries ``allowed`` permits (its
    deletions, substitutions and the insertions of every node of g2 no node takes)."""
    if allowed is None:
        return True
    f = np.asarray(forward, dtype=np.int64)
    n1, n2 = allowed.shape[0] - 1, allowed.shape[1] - 1
    cols = np.where(f >= 0, f, n2)
    if not allowed[np.arange(n1), cols].all():
        return False
    taken = np.zeros(n2, dtype=bool)
    taken[f[f >= 0]] = True
    return bool(allowed[n1, :n2][~taken].all())


def feasible(allowed: np.ndarray) -> bool:
    """Whether some node map keeps ``allowed`` (one assignment)."""
    from gedkit.solvers.heuristics.assignment import lsape

    if allowed.all():
        return True
    return lsape((~allowed).astype(np.float64))[1] < 0.5


def repair(problem: Problem, forward: np.ndarray) -> np.ndarray:
    """``forward`` if it keeps ``problem``'s constraints, else the node map that keeps them
    and changes the fewest of its pairs (the cheapest such map, by the real costs).

    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, []), Graph({0: "C", 1: "O"}, []))
    >>> q = p.constrained(fixed=[(0, 1)])
    >>> repair(q, np.array([0, 1])).tolist()   # 0 -> 1 as fixed; 1 takes what is left
    [1, 0]
    """
    allowed = problem.allowed
    f = np.ascontiguousarray(forward, dtype=np.int64)
    if satisfies(allowed, f):
        return f
    from gedkit.solvers.heuristics.assignment import lsape

    n1, n2 = problem.n1, problem.n2
    real = problem.unconstrained.node_costs
    keep = np.zeros((n1 + 1, n2 + 1), dtype=bool)
    keep[np.arange(n1), np.where(f >= 0, f, n2)] = True
    taken = np.zeros(n2, dtype=bool)
    taken[f[f >= 0]] = True
    keep[n1, :n2] = ~taken
    change = big_m(problem.unconstrained)  # above every map's real cost
    never = change * (n1 + n2 + 2)  # above every change count
    costs = np.where(allowed, real + np.where(keep, 0.0, change), never)
    costs[n1, n2] = 0.0
    fixed, _ = lsape(costs)
    return np.ascontiguousarray(fixed, dtype=np.int64)
