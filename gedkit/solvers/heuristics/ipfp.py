"""IPFP: Frank–Wolfe on the quadratic formulation of GED (Leordeanu et al., 2009; for GED,
Bougleux et al., 2017), from several starting maps.

The cost of a node map is linear in the node assignment plus a quadratic form for the edges
(:mod:`gedkit._kernels.quadratic`). From an assignment X, each step solves one LSAPE on the
gradient, whose solution B is a node map (a candidate upper bound) and a descent direction;
the exact minimiser of the quadratic on the segment [X, B] is the next X. At a fixed point the
fractional X is rounded to the nearest node map. The best map met wins (the start included,
so the answer is never worse than the start); the lower bound is the start's: BRANCH's, or
STAR's with ``init="star"``.

Every product the iteration needs is of a node map (the start, then each step's B: X itself is
only ever updated by them), so it is computed from the map's edges (:func:`map_product`), in
O(n1·n2 + |E1|·max degree) rather than the kernel's O(n1·n2·d1·d2) for a fractional X: 20-30
times faster at 2,000 nodes, where it was most of a step.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np

from gedkit.configurable import Option, choice, number
from gedkit.numeric import tolerance
from gedkit.pacing import affordable
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.assignment import lsape_fits, lsape_map, lsape_seconds
from gedkit.solvers.heuristics.lsape import Neighbours
from gedkit.solvers.heuristics.start import INITS, start
from gedkit.solvers.registry import register

__all__ = ["IPFP", "assignment_matrix", "frank_wolfe", "map_product"]

# stop when a step gains less than this fraction of the current value
_GAP = 1e-3
# bytes IPFP's dense matrices (costs, x, Q(x), the gradient) and a step's assignment take per
# entry of an (n1 + 1) x (n2 + 1) matrix: measured ~82 at 2,000 nodes (330 MB), which
# ``memory=256M`` let it build (the assignment's 24 alone fitted)
BYTES_PER_ENTRY = 88


def assignment_matrix(problem: Problem, forward: np.ndarray) -> np.ndarray:
    """The ``(n1+1) × (n2+1)`` 0/1 matrix of a node map."""
    n1, n2 = problem.n1, problem.n2
    x = np.zeros((n1 + 1, n2 + 1))
    x[np.arange(n1), np.where(forward >= 0, forward, n2)] = 1.0
    x[n1, :n2] = 1.0 - x[:n1, :n2].sum(axis=0)
    return x


def map_product(problem: Problem, nb: Neighbours, forward: np.ndarray) -> np.ndarray:
    """``Q(X)`` of :func:`gedkit._kernels.quadratic.quadratic_product` for the 0/1 matrix ``X``
    of the node map ``forward``, from the map's edges alone.

    For a node map every row of X and every column but ε's sums to one, so the deletion and
    insertion terms are the same for every map (all edges at i deleted, all at k inserted);
    the substitution term of (i, k) gathers one entry per edge (i, j) of g1 and edge
    (f(j), k) of g2.

    >>> from gedkit import Graph, costs
    >>> from gedkit._kernels.quadratic import quadratic_product
    >>> from gedkit.solvers.heuristics.lsape import neighbours
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)]),
    ...                             Graph({0: "C", 1: "O"}, [(0, 1)]))
    >>> f, nb = np.array([0, 1, -1]), neighbours(p)
    >>> bool((map_product(p, nb, f) == quadratic_product(
    ...     assignment_matrix(p, f), p.edge_label_matrix, *nb)).all())
    True
    """
    n1, n2 = problem.n1, problem.n2
    emat = problem.edge_label_matrix
    eps = emat.shape[0] - 1
    deg1, deg2 = np.diff(nb.ptr1), np.diff(nb.ptr2)
    at1 = np.repeat(np.arange(n1), deg1)  # the node of g1 each neighbour entry belongs to
    dele = np.bincount(at1, weights=emat[nb.lab1, eps], minlength=n1)
    ins = np.bincount(np.repeat(np.arange(n2), deg2), weights=emat[eps, nb.lab2],
                      minlength=n2)
    q = np.empty((n1 + 1, n2 + 1))
    np.add(dele[:, None], ins[None, :], out=q[:n1, :n2])
    q[:n1, n2] = dele
    q[n1, :n2] = ins
    q[n1, n2] = 0.0
    # edges (i, j) of g1 with j mapped to f(j), each met with every edge (f(j), k) of g2
    image = forward[nb.nbr1]
    kept = image >= 0
    i, image, e = at1[kept], image[kept], nb.lab1[kept]
    count = deg2[image]
    # the edge (f(j), k) read from k, as g1's is read from i: on a pair problem (directed
    # graphs) the two readings of an edge are the pair and its reverse
    swap = problem.__dict__.get("pair_swap")
    # a block of g1's entries at a time, whose pairs with g2's number about _PAIRS_AT_ONCE:
    # there are sum(deg1 * deg2) of them, 20 million on dense 2,000-node graphs, whose
    # arrays at once took 1.2 GB under a 600 MB cap
    ends = np.cumsum(count)
    cuts = np.searchsorted(ends, np.arange(_PAIRS_AT_ONCE, int(ends[-1]) if len(ends) else 0,
                                           _PAIRS_AT_ONCE), side="right")
    for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(count)], strict=True):
        part = count[a:b]
        total = int(part.sum())
        if not total:
            continue
        first = np.repeat(nb.ptr2[image[a:b]] - np.cumsum(part) + part, part)
        u = first + np.arange(total)  # entries of g2's neighbour lists
        g = nb.lab2[u] if swap is None else swap[nb.lab2[u]]
        ea = np.repeat(e[a:b], part)
        np.add.at(q.ravel(), np.repeat(i[a:b], part) * (n2 + 1) + nb.nbr2[u],
                  emat[ea, g] - emat[ea, eps] - emat[eps, g])
    return q


#: pairs of neighbour entries :func:`map_product` handles at once (bounds its temporary
#: arrays at about 60 bytes a pair)
_PAIRS_AT_ONCE = 1 << 20


def frank_wolfe(
    problem: Problem, forward: np.ndarray, nb: Neighbours, budget: Budget, max_iter: int,
    floor: float = 0.0,
) -> tuple[np.ndarray, float, int]:
    """Run IPFP from ``forward``; return (best map met, its cost, iterations): never a map
    worse than ``forward``. It stops once a map costs no more than ``floor`` (a proven lower
    bound; 0 by default, below which no map costs): none can be better."""

    def product(f):
        return map_product(problem, nb, f)

    best, best_cost = forward, problem.cost(forward)
    # a step is one assignment and one product; none is started that the budget cannot
    # pay for (the first is estimated, later ones take the last step's time)
    step = lsape_seconds(problem.n1, problem.n2)
    if best_cost <= floor + tolerance(floor) or not affordable(step, budget) or not lsape_fits(
            problem.n1, problem.n2, budget, bytes_per_entry=BYTES_PER_ENTRY):
        return best, best_cost, 0
    linear = problem.node_costs.copy()
    linear[-1, -1] = 0.0
    x = assignment_matrix(problem, forward)
    qx = product(forward)
    it = 0
    # the direction's matrix B and its product are touched only where B is one (a gather per
    # node), and x only scaled and shifted there: a step is the assignment, one product and a
    # few passes over the dense x and Q(x) (Q is symmetric, so B·Q(x) = x·Q(B))
    while it < max_iter and affordable(step, budget) and lsape_fits(problem.n1, problem.n2, budget):
        tick = time.perf_counter()
        it += 1
        grad = linear + qx
        b = lsape_map(grad)
        cost = problem.cost(b)
        if cost < best_cost:
            best, best_cost = b, cost
            if best_cost <= floor + tolerance(floor):
                return best, best_cost, it  # optimal: no step can do better
        ones = _ones(problem, b)
        linear_x, quadratic_x = _dot(linear, x), _dot(qx, x)
        value = linear_x + 0.5 * quadratic_x
        slope = float(grad[ones].sum()) - linear_x - quadratic_x  # grad · (B - x)
        if slope >= -_GAP * max(1.0, value):
            break
        qb = product(b)
        # ½ (B - x)·(Q(B) - Q(x))
        curvature = 0.5 * (float(qb[ones].sum()) - 2.0 * _dot(x, qb) + quadratic_x)
        move = 1.0 if curvature <= 0 else min(1.0, -slope / (2 * curvature))
        if move >= 1.0:
            x = assignment_matrix(problem, b)
            qx = qb
        else:
            x *= 1.0 - move
            x[ones] += move
            qx *= 1.0 - move
            qb *= move
            qx += qb
        if -(slope + curvature * move) * move <= _GAP * max(1.0, value):
            break  # the step gained (almost) nothing: a fixed point up to rounding
        # the next step may take longer than the last (an assignment's time varies with its
        # costs: on 2,000 nodes from 0.1 to 1 s): the slowest seen, with a margin
        step = max(step, 1.5 * (time.perf_counter() - tick)) if it > 1 else (
            1.5 * (time.perf_counter() - tick))
    # the rounding is one more assignment, at most as slow as a step
    if it and lsape_fits(problem.n1, problem.n2, budget) and affordable(step, budget):
        rounded = lsape_map(-x)
        cost = problem.cost(rounded)
        if cost < best_cost:
            best, best_cost = rounded, cost
    return best, best_cost, it


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``(a * b).sum()`` without the temporary, and not through BLAS: OpenBLAS's threads spin
    after a call, and on two cores that slowed the rest of a step several times over."""
    return float(np.einsum("ij,ij->", a, b))


def _ones(problem: Problem, forward: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where :func:`assignment_matrix` of ``forward`` is one (rows, columns)."""
    n1, n2 = problem.n1, problem.n2
    taken = np.zeros(n2, dtype=bool)
    taken[forward[forward >= 0]] = True
    inserted = np.flatnonzero(~taken)
    return (np.concatenate([np.arange(n1), np.full(len(inserted), n1)]),
            np.concatenate([np.where(forward >= 0, forward, n2), inserted]))


def _random_map(rng: np.random.Generator, n1: int, n2: int) -> np.ndarray:
    """A uniformly random injective node map (nodes of g1 beyond g2's count deleted)."""
    targets = rng.permutation(max(n1, n2))[:n1].astype(np.int64)
    targets[targets >= n2] = -1
    return targets


@register
class IPFP(Solver):
    name = "ipfp"
    summary = "IPFP: Frank-Wolfe on the quadratic GED formulation, multi-start; BRANCH bound"
    pairs_for_arcs = True
    kernels = ("assignment", "ipfp")
    options: ClassVar[dict[str, Option]] = {
        "starts": Option(1, "starting maps: init's, then random ones while time is left",
                         number(integer=True, minimum=1, strict=False)),
        "seed": Option(0, "seed of the random starting maps",
                       number(integer=True, strict=False)),
        "max_iter": Option(100, "Frank-Wolfe steps per start at most",
                           number(integer=True, minimum=1, strict=False)),
        "init": Option("bipartite", "the first starting map: " + ", ".join(INITS),
                       choice(*INITS)),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        s = start(problem, self.config["init"], budget)
        rng = np.random.default_rng(self.config["seed"])
        best, best_cost = s.forward, np.inf
        iterations = 0
        for k in range(self.config["starts"] if s.neighbours is not None else 0):
            if k and (budget.expired() or best_cost <= s.lower_bound + tolerance(s.lower_bound)):
                break  # out of time, or a map at the lower bound: optimal
            # later starts: random node maps (not an assignment on random prices: on 1,000
            # nodes that one assignment takes a second, 25x its estimate)
            init = s.forward if k == 0 else _random_map(rng, problem.n1, problem.n2)
            forward, cost, its = frank_wolfe(problem, init, s.neighbours, budget,
                                             self.config["max_iter"], floor=s.lower_bound)
            iterations += its
            if cost < best_cost:
                best, best_cost = forward, cost
        stats: dict = {"iterations": iterations}
        if not iterations and best_cost > s.lower_bound + tolerance(s.lower_bound):
            # not one step paid for (an assignment on thousands of nodes): say why the map is
            # the starting one
            size = (problem.n1 + 1) * (problem.n2 + 1)
            stats["stopped"] = (
                "memory cap: IPFP's matrices do not fit the memory left"
                if BYTES_PER_ENTRY * size >= budget.memory_left()
                else "time limit: one assignment step does not fit the time left")
        return Result.from_assignment(
            problem, best, s.lower_bound, self.name, time=time.perf_counter() - t0,
            stats=stats,
        )
