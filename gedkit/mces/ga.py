"""Graduated assignment for MCES (``ga``): Gold & Rangarajan, "A graduated assignment
algorithm for graph matching", IEEE TPAMI 18(4), 1996.

The common-edge count of a node map ``x`` (a 0/1 vector over label-compatible node pairs) is
``½ xᵀ W x``, where ``W`` is the adjacency of the *association graph*: pairs ``(i, k)`` and
``(j, l)`` are joined when ``(i, j)`` is an edge of g1 and ``(k, l)`` an edge of g2 with the
same label. ``W`` is kept sparse and only has pairs that lie on such an edge: nothing else can
add a common edge. Graduated assignment relaxes ``x`` to a doubly sub-stochastic matrix and,
for an increasing inverse temperature β, repeatedly linearises the objective (``q = W x``),
sets ``x ∝ exp(β q)`` and restores the row and column sums with Sinkhorn iterations; a slack
row and column (score 0) let nodes stay unmatched. At the end the Hungarian method (scipy's
``linear_sum_assignment``) turns the soft matrix into a node map, which a local search
(:mod:`gedkit.mces.refine`, option ``refine``) then improves. Further runs (``restarts``) add
a small random score to every pair (``noise``) to break the ties of symmetric molecules; the
best map wins, and an iterated local search (:func:`gedkit.mces.refine.kick`) polishes it
until ``kicks`` kicks in a row find nothing better (0 turns it off), the map reaches the
proven upper bound, or the budget runs out. Before that search, when the best map falls short
of the counting bound, the bound is tightened by the LP relaxation (option ``lp_bound``, given
at most half of the remaining budget; :func:`gedkit.mces.bounds.tightened`): on molecules it
is usually the optimum, so the search can stop there and the result is proven optimal.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gedkit.budget import interrupted
from gedkit.configurable import Option, flag, number
from gedkit.errors import OptionError
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.pacing import affordable, start_up_seconds

if TYPE_CHECKING:  # SciPy loads with the first solve
    import scipy.sparse as sp

__all__ = [
    "SEARCH_OPTIONS",
    "AssociationGraph",
    "GraduatedAssignment",
    "association_entries",
    "association_graph",
    "decode",
    "graduated_assignment",
]

# measured on 2,000-node pairs, with a margin: building the association graph, per entry, and
# one pass of a Sinkhorn normalisation (or a product), per pair
_SECONDS_PER_ENTRY = 2e-7
_SECONDS_PER_PAIR_PASS = 5e-8
# decoding a soft assignment (SciPy's assignment on n1 x n2 scores): slower than on plain GED
# costs (1.9 s at 2,000 x 2,100, against 0.5 s on random costs)
_DECODE_SECONDS_PER_CUBE = 2.5e-10
# memory: the association graph and its annealing arrays, per entry; decoding, per node pair
# (the dense profit matrix and the assignment's float64 copy: 61 MB at 2,000 x 2,000)
_BYTES_PER_ENTRY = 100
_DECODING_BYTES_PER_CELL = 24
# an annealing run gets at most this share of the time left (the rest: decoding, local search,
# the LP bound and kicks), its β schedule squeezed to fit; the first run needs room for its
# first step and MIN_STEPS more, else the greedy map and kicks have the time. Measured on the
# 1,000-node limits pairs (benchmarks/RESULTS.md, "Session 16"): a schedule cut short at a low β
# decodes to a map worse than the greedy one (molecules, 2 s: 275 edges), a squeezed one to a
# far better one (738; random pair at 1 s: 1,381 against 677)
ANNEAL_SHARE = 0.75
MIN_STEPS = 1

#: the options of the search after the annealing, which GA and NGA share
SEARCH_OPTIONS: dict[str, Option] = {
    "refine": Option(True, "improve each decoded map by local search", flag()),
    "kicks": Option(10000, "iterated local search: kicks in a row without a better map before "
                    "it stops (0: none)", number(integer=True, strict=False)),
    "lp_bound": Option(True, "tighten the upper bound by the LP relaxation when it fits",
                       flag()),
    "seed": Option(0, "seed of the perturbations and kicks (None: fresh each call)",
                   number(integer=True, strict=False, none=True)),
}
GA_OPTIONS: dict[str, Option] = {
    "beta0": Option(0.5, "first inverse temperature of the annealing", number()),
    "beta_max": Option(30.0, "last inverse temperature (at least beta0)", number()),
    "beta_rate": Option(1.2, "factor between successive temperatures", number(minimum=1.0)),
    "iterations": Option(3, "assignment updates per temperature", number(integer=True)),
    "sinkhorn_iterations": Option(10, "Sinkhorn normalisations per update",
                                  number(integer=True)),
    "restarts": Option(4, "annealing runs (later ones on randomly perturbed scores)",
                       number(integer=True)),
    "noise": Option(0.05, "standard deviation of the later runs' perturbation",
                    number(strict=False)),
    **SEARCH_OPTIONS,
}


class AssociationGraph:
    """Label-compatible node pairs that lie on a common-edge candidate, and their adjacency.

    Attributes
    ----------
    rows, cols : ndarray of int64
        Pair ``t`` is node ``rows[t]`` of g1 with node ``cols[t]`` of g2.
    weights : scipy.sparse.csr_matrix
        Symmetric 0/1 matrix over the pairs (see the module docstring).
    """

    def __init__(self, rows: np.ndarray, cols: np.ndarray, weights: sp.csr_matrix):
        self.rows, self.cols, self.weights = rows, cols, weights

    def __len__(self) -> int:
        return len(self.rows)


def association_graph(problem: MCESProblem) -> AssociationGraph:
    """The sparse association graph of ``problem``.

    >>> from gedkit import Graph
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> a = association_graph(MCESProblem(tri, tri))
    >>> len(a), a.weights.nnz     # 9 pairs; 3 edges x 3 edges x 2 orientations x 2 ends
    (9, 36)
    """
    import scipy.sparse as sp

    n2 = problem.n2
    e1, e2 = problem.g1.edges.astype(np.int64), problem.g2.edges.astype(np.int64)
    nl1, nl2 = problem.node_labels1, problem.node_labels2
    ends_a, ends_b = [], []
    for c in np.intersect1d(problem.edge_classes1, problem.edge_classes2):
        s = e1[problem.edge_classes1 == c]
        t = e2[problem.edge_classes2 == c]
        i, j = np.repeat(s[:, 0], len(t)), np.repeat(s[:, 1], len(t))
        k, m = np.tile(t[:, 0], len(s)), np.tile(t[:, 1], len(s))
        # the edge pair joins (i, k) with (j, m), and (i, m) with (j, k), where labels allow
        same, cross = nl1[i] == nl2[k], nl1[i] == nl2[m]
        ends_a += [i[same] * n2 + k[same], i[cross] * n2 + m[cross]]
        ends_b += [j[same] * n2 + m[same], j[cross] * n2 + k[cross]]
    a = np.concatenate(ends_a) if ends_a else np.zeros(0, dtype=np.int64)
    b = np.concatenate(ends_b) if ends_b else np.zeros(0, dtype=np.int64)
    keys, index = np.unique(np.concatenate([a, b]), return_inverse=True)
    ia, ib = index[: len(a)], index[len(a) :]
    size = len(keys)
    ones = np.ones(2 * len(a))
    weights = sp.csr_matrix(
        (ones, (np.concatenate([ia, ib]), np.concatenate([ib, ia]))), shape=(size, size)
    )
    return AssociationGraph(keys // max(n2, 1), keys % max(n2, 1), weights)


def graduated_assignment(
    problem: MCESProblem,
    budget: Budget,
    *,
    beta0: float,
    beta_max: float,
    beta_rate: float,
    iterations: int,
    sinkhorn_iterations: int,
    restarts: int,
    noise: float,
    refine: bool,
    kicks: int,
    lp_bound: bool,
    seed: int | None,
) -> tuple[np.ndarray, dict]:
    """The best node map over ``restarts`` annealing runs, and statistics (``upper_bound``:
    the proven bound, :func:`~gedkit.mces.bounds.upper_bound` tightened when ``lp_bound``).

    The first run anneals the problem as it is. Symmetric molecules leave it undecided
    between equivalent pairs, so each further run adds a fixed random score (standard
    deviation ``noise``) to every pair, a perturbation that breaks those ties. With
    ``refine``, each decoded map is improved by :func:`gedkit.mces.refine.refine`. Under a
    time limit a run's temperatures rise faster, so that its schedule ends within a share of
    the time left (:data:`ANNEAL_SHARE`); a further run starts only when its whole schedule
    fits.
    """
    from gedkit.mces.bounds import tightened, upper_bound
    from gedkit.mces.cheap import greedy_map, searched_map
    from gedkit.mces.refine import kick
    from gedkit.mces.refine import refine as local_search

    # when the association graph, its first annealing step and a decoding do not fit the
    # memory or time left, the greedy map (then the local searches) stands in for the annealing
    fits = annealing_fits(problem, budget, iterations, sinkhorn_iterations)
    decoding = _decoding_seconds(problem)
    step = _step_seconds(association_entries(problem), iterations, sinkhorn_iterations)
    assoc = association_graph(problem) if fits else None
    best = greedy_map(problem)
    best_count = problem.count(best)
    stats = {"pairs": len(assoc) if fits else 0, "runs": 0, "upper_bound": 0,
             "association_edges": assoc.weights.nnz // 2 if fits else 0}
    if fits and len(assoc) == 0:  # no pair of nodes can share an edge
        return np.full(problem.n1, -1, dtype=np.int64), stats
    ceiling = stats["upper_bound"] = upper_bound(problem, budget)
    if not fits:
        stats["stopped"] = "time or memory limit: the association graph does not fit"
        # (pairs of a few nodes searched through instead, which may prove them)
        best, proven = searched_map(problem, budget, start=best)
        best_count = problem.count(best)
        ceiling = stats["upper_bound"] = min(ceiling, proven)
    rng = np.random.default_rng(seed)
    groups = _Groups(assoc) if fits else None
    for run in range(restarts if fits else 0):
        # the bounds and the greedy map took their time: a run must still fit what is left,
        # its schedule squeezed into a share of it (the rest for decoding and local search);
        # a further run only with its whole schedule, else the kicks get the time
        until = time.perf_counter() + ANNEAL_SHARE * max(budget.remaining() - decoding, 0.0)
        need = (step / iterations + (MIN_STEPS if run == 0 else _steps(beta0, beta_max,
                                                                       beta_rate)) * step)
        if need > until - time.perf_counter():  # (then need + decoding fits the budget too)
            break
        bias = noise * rng.standard_normal(len(assoc)) if run else np.zeros(len(assoc))
        soft, step = _anneal(assoc, groups, bias, beta0, beta_max, beta_rate, iterations,
                             sinkhorn_iterations, until=until)
        if soft is None or not affordable(decoding, budget):
            break  # a schedule cut short decodes to a map worse than the greedy one
        forward = decode(assoc, soft, problem.n1, problem.n2)
        if refine:
            forward = local_search(problem, forward, budget=budget)
        count = problem.count(forward)
        stats["runs"] += 1
        if count > best_count:
            best, best_count = forward, count
        if budget.expired() or best_count >= ceiling:
            break
    if lp_bound and best_count < ceiling:
        ceiling = stats["upper_bound"] = tightened(problem, ceiling, budget.remaining(),
                                                   memory=int(budget.memory_left()))
    if kicks and best_count < ceiling:
        best = kick(problem, best, kicks, seed=seed or 0, budget=budget, ceiling=ceiling)
    return best, stats


def annealing_fits(problem: MCESProblem, budget: Budget, iterations: int,
                   sinkhorn_iterations: int) -> bool:
    """Whether the association graph (~100 bytes per entry), a first annealing step and a
    decoding (a dense profit matrix and the assignment's copy of it, beside the graph) fit
    the memory and time ``budget`` has left, first-call start-ups included."""
    entries = association_entries(problem)
    step = _step_seconds(entries, iterations, sinkhorn_iterations)
    setup = (_SECONDS_PER_ENTRY * entries + step / iterations
             + start_up_seconds(kernels=True, scipy=True, sparse=True))
    held = _BYTES_PER_ENTRY * entries + _DECODING_BYTES_PER_CELL * problem.n1 * problem.n2
    return (held < budget.memory_left()
            and affordable(setup + step + _decoding_seconds(problem), budget))


def _decoding_seconds(problem: MCESProblem) -> float:
    return _DECODE_SECONDS_PER_CUBE * max(problem.n1, problem.n2) ** 3


def _anneal(assoc, groups, bias, beta0, beta_max, beta_rate, iterations, sinkhorn, *,
            until=float("inf")):
    """The annealed soft assignment (None when the first step leaves no time for a second
    before the clock reads ``until``, or on Ctrl-C) and the seconds its last β step took. β
    rises by ``beta_rate`` per step, or faster where the steps left to ``beta_max`` would not
    all end by ``until`` (each estimated as long as the last one): then by as much as brings
    the last step that fits to ``beta_max``. A schedule cut short leaves a soft matrix that
    decodes to a map worse than the greedy one (measured: 275 against 479 edges on a
    1,000-node molecule pair); a squeezed one still ends nearly hard."""
    x = groups.sinkhorn(np.zeros(len(assoc)), sinkhorn)
    beta = beta0
    while beta <= beta_max:
        tick = time.perf_counter()
        for _ in range(iterations):
            x = groups.sinkhorn(beta * (assoc.weights @ x + bias), sinkhorn)
            if interrupted():  # Ctrl-C: a β step on 2,000 nodes takes seconds
                return None, time.perf_counter() - tick
        step = time.perf_counter() - tick
        if beta >= beta_max:
            break
        fit = min((until - time.perf_counter()) / max(step, 1e-9), 1e9)
        if fit < 1 and beta == beta0:
            return None, step
        if fit < 1:  # a step took longer than the last: one more, the last, past ``until``
            beta = beta_max
        elif _steps(beta, beta_max, beta_rate) > fit:
            beta = min(beta * (beta_max / beta) ** (1.0 / int(fit)), beta_max)
        else:
            beta *= beta_rate
    return x, step


def _steps(beta: float, beta_max: float, rate: float) -> int:
    """How many more β steps the schedule takes from ``beta`` (the last at most ``beta_max``)."""
    return int(np.floor(np.log(beta_max / beta) / np.log(rate) + 1e-9))


def _step_seconds(entries: int, iterations: int, sinkhorn: int) -> float:
    """What one β step of the annealing may take: ``iterations`` products and Sinkhorn
    normalisations over the pairs (about a third of the association graph's entries)."""
    return iterations * (sinkhorn + 1) * _SECONDS_PER_PAIR_PASS * entries / 3


def association_entries(problem: MCESProblem) -> int:
    """How many entries :func:`association_graph` holds, counted from the edge classes (four
    per pair of edges of one class: two orientations, two ends), before building it."""
    k = problem.n_classes
    c1 = np.bincount(problem.edge_classes1, minlength=k)
    c2 = np.bincount(problem.edge_classes2, minlength=k)
    return 4 * int(c1 @ c2)


class _Groups:
    """Sinkhorn normalisation over the pairs, in the log domain.

    A pair's entry is ``exp(score - a_row - c_col)``; row ``i`` also has a slack entry
    ``exp(-a_i)`` and column ``k`` one ``exp(-c_k)`` (slack scores 0). Rows and columns of
    the real nodes are scaled to sum 1, slacks included. Logs keep large ``β q`` finite, and
    no common shift is applied to the scores: with slack entries a shift changes the fixed
    point (it would let pairs without support crowd the slack out).
    """

    def __init__(self, assoc: AssociationGraph):
        # pairs are sorted by row (then column); group them by row and, permuted, by column
        self.row_id = np.unique(assoc.rows, return_inverse=True)[1]
        self.row_starts = np.flatnonzero(np.diff(self.row_id, prepend=-1))
        self.by_col = np.argsort(assoc.cols, kind="stable")
        self.col_id = np.unique(assoc.cols, return_inverse=True)[1]
        self.col_starts = np.flatnonzero(np.diff(self.col_id[self.by_col], prepend=-1))

    def sinkhorn(self, score: np.ndarray, steps: int) -> np.ndarray:
        col_log = np.zeros(self.col_id.max() + 1)
        for _ in range(steps):
            row_log = _log_sum_exp(score - col_log[self.col_id], self.row_starts)
            shifted = (score - row_log[self.row_id])[self.by_col]
            col_log = _log_sum_exp(shifted, self.col_starts)
        return np.exp(score - row_log[self.row_id] - col_log[self.col_id])


def _log_sum_exp(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per group of consecutive ``values`` (starting at ``starts``), ``log(1 + sum exp)``:
    the 1 is the group's slack entry."""
    top = np.maximum(np.maximum.reduceat(values, starts), 0.0)
    sizes = np.diff(np.append(starts, len(values)))
    total = np.add.reduceat(np.exp(values - np.repeat(top, sizes)), starts) + np.exp(-top)
    return top + np.log(total)


def decode(assoc: AssociationGraph, soft: np.ndarray, n1: int, n2: int) -> np.ndarray:
    """Hungarian decoding: the node map of largest total soft weight over the pairs. Every
    pair of the association graph is label-compatible, and adding a mapped pair never loses an
    edge, so all matched pairs are kept."""
    from gedkit.solvers.heuristics.assignment import linear_sum_assignment

    profit = np.full((n1, n2), -1.0)
    profit[assoc.rows, assoc.cols] = soft
    r, c = linear_sum_assignment(profit, maximize=True)
    keep = profit[r, c] >= 0
    forward = np.full(n1, -1, dtype=np.int64)
    forward[r[keep]] = c[keep]
    return forward


def check_ga_options(config: dict) -> None:
    """What the graduated-assignment options need across each other (each is checked alone
    by its :class:`~gedkit.configurable.Option`)."""
    if config["beta_max"] < config["beta0"]:
        raise OptionError(
            f"option beta_max ({config['beta_max']!r}) must be at least beta0 "
            f"({config['beta0']!r})"
        )


@register
class GraduatedAssignment(Method):
    name = "ga"
    summary = "graduated assignment (Gold & Rangarajan) on the sparse association graph"
    options: ClassVar[dict[str, Option]] = GA_OPTIONS

    def validate(self) -> None:
        check_ga_options(self.config)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        forward, stats = graduated_assignment(problem, budget, **self.config)
        return MCESResult.from_map(
            problem, forward, stats["upper_bound"], self.name,
            time=time.perf_counter() - t0, stats=stats,
        )
