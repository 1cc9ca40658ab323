"""Exact MCES by depth-first branch and bound (``exact``), driving the compiled search
(:mod:`gedkit._kernels.mces_search`).

The search branches over the nodes of the smaller graph. Edges whose class the other graph
lacks can never be common and are dropped first, and so are the nodes left without edges: they
cannot change the count. It runs in up to three phases, each only if the one before did not
settle the pair:

1. a short probe with the combinatorial bounds alone, which settles most easy pairs in
   milliseconds;
2. the linear relaxation of :mod:`gedkit.mces.bounds` (HiGHS). On molecules its optimum is
   usually the MCES or close above it, so it caps the search; its solution rounded to a node
   map (assignment, then local search) often reaches that cap at once, and its duals bound
   every state of a restarted search (see :mod:`gedkit._kernels.mces_search`). That search looks for
   maps as large as the cap only, and once it has exhausted them, lowers the cap by one:
   a small tree when the cap is tight, and each exhausted cap is proven;
3. when that search has not settled the pair after a fixed number of expansions, the same
   program as an integer program: HiGHS's branch and bound re-solves the relaxation at its
   nodes, which finds and proves maps where the fixed duals of phase 2 are too weak. It is
   seeded with the best map so far, stopped by the time limit, and its dual bound is proven.

With ``connected=True`` it finds the largest *connected* common subgraph: the kernel grows
one fragment (see :mod:`gedkit._kernels.mces_search`), every seed map is trimmed to its largest
fragment, and phase 3 is left out (its maps may be disconnected). The relaxation bounds the
disconnected problem, often far above the connected answer, so phase 2 does not search down
from its cap: one Lagrangian search improves the best map until it is proven or the time is
up. Every bound above holds for the connected problem too, which only has fewer maps.

The proven upper bound is the smallest of the global bounds, the cap, and, when time runs out
in the first phase, the best ``f`` of any state the search has not explored yet.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import numpy as np

from gedkit._kernels.bundles import MCESPair, Relaxation
from gedkit.configurable import Option
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.options import CONNECTED, RASCAL_TIES
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.pacing import (
    FIRST_CHUNK,
    affordable,
    first_chunk,
    next_chunk,
    start_up_seconds,
)

if TYPE_CHECKING:  # SciPy, HiGHS and the kernels load with the first solve
    from gedkit.mces.bounds import LinearRelaxation
    from gedkit.programs import MatchingProgram

__all__ = ["CONNECTED_PROBE", "Exact", "branch_and_bound"]

# fixed point of the Lagrangian bound inside the kernel
_SCALE = 1 << 32
_TOLERANCE = 1e-7
# HiGHS's MIP bound carries its feasibility tolerances: rounded down only past this margin
_MIP_TOLERANCE = 1e-4
# from this many nodes in both graphs the search starts from a greedy map (below, the search
# itself finds maps at once, and the greedy map would cost more than it saves)
_GREEDY_FROM = 200
# connected: the LP relaxation bounds the disconnected problem, loose here, so the
# combinatorial probe runs longer first (30 IAM AIDS pairs, 5 s: 25 proven against 24 after a
# 20,000-expansion probe, same median time)
CONNECTED_PROBE = 200_000
# pairs up to this many node pairs (n1 x n2) start with one self-contained kernel call; past it
# the inputs' dense matrices are worth building once only (a restart would build them twice)
_FIRST_SEARCH_CELLS = 40_000
# symmetric first decisions are looked for up to this many nodes in either graph
_SYMMETRY_UP_TO = 500


#: simple operations of one search step per node and edge of both graphs (for
#: :func:`gedkit.pacing.first_chunk`; measured: ~1.4 ms a step on random 2,000-node pairs)
_OPS_PER_STEP = 20
#: bytes a fresh search state is filled at, per second (allocation and first touch)
_BYTES_PER_SECOND = 1e9
#: cells of the search's inputs (candidate lists, g2's dense class matrix, its twin classes:
#: :func:`gedkit._kernels.mces_search.search_inputs`) built per second, on the slow side
#: (random 2,000-node pairs: 8 million cells in ~1 s; a 2,000-atom molecule pair: 6.9 million
#: in 1.3 s; a loaded machine takes longer, and the limit's tolerance is 0.5 s)
_CELLS_PER_SECOND = 4e6


def state_seconds(problem: MCESProblem, connected: bool, budget: Budget) -> float:
    """Seconds to build the search's inputs and state (:func:`gedkit._kernels.mces_search.
    new_state`) for ``problem`` (inf where they do not fit the memory cap). The state: four
    int64 tables of a row per depth (a node of the smaller graph each, and in connected mode
    a deferral per end of each edge) by a column per image a node may have (the other
    graph's nodes of its label, and "none"), and in connected mode a node-pair table; the
    inputs: a candidate list of that width per node, the other graph's dense class matrix
    and the bounds' two node-pair tables. Counted with every node an image first (no label
    count on the small pairs that pass that way)."""
    p = problem.transposed() if problem.n1 > problem.n2 else problem
    memory = budget.memory_left()  # (what the call has grown by so far is spent)
    n1, n2 = p.n1, p.n2
    rows = n1 + (2 * p.g1.m if connected else 0)
    pairs = n1 * n2 if connected else 0

    def seconds(width: int) -> float:
        cells = n1 * width + n2 * n2
        size = 32 * (rows + 1) * width + pairs + 8 * cells + 16 * n1 * n2  # (+ the bounds')
        if size > memory:
            return math.inf
        return size / _BYTES_PER_SECOND + cells / _CELLS_PER_SECOND

    every = seconds(n2 + 1)
    if not (n1 and n2) or affordable(every, budget):
        return every
    top = int(max(p.node_labels1.max(), p.node_labels2.max())) + 1
    return seconds(1 + int(np.bincount(p.node_labels2, minlength=top)[p.node_labels1].max()))


def branch_and_bound(
    problem: MCESProblem,
    budget: Budget,
    *,
    incumbent: np.ndarray | None = None,
    method: str = "exact",
    stats: dict | None = None,
    probe: int = 20_000,
    search: int = 200_000,
    upper: int | None = None,
    connected: bool = False,
) -> MCESResult:
    """The exact search; ``incumbent`` (a node map of ``problem``) seeds it, so a timeout
    returns at least that map. ``probe`` expansions (tens of milliseconds) run before the
    linear relaxation is solved (0: solve it first), ``search`` expansions of the
    Lagrangian search before the integer program takes over; ``upper``, a bound proven
    elsewhere, caps the search's own. ``connected``: the largest connected common subgraph
    instead (maps are trimmed to their largest fragment, and the Lagrangian search improves
    the best map to the end: the integer program's maps may fall apart)."""
    # (the later phases' imports are made where they run: a few µs on a small pair's call)
    from gedkit.mces.bounds import class_count_bound, upper_bound
    from gedkit.mces.cheap import greedy_map, searched_map

    t0 = time.perf_counter()
    stats = dict(stats or {})
    # connected: the assignment bound (an assignment problem solved in Python) costs more
    # than the whole search on most molecule pairs and rarely stops it, which the bounds of
    # its states do anyway
    root = class_count_bound(problem) if connected else upper_bound(problem, budget)
    if upper is not None and upper > 0:
        root = min(root, int(upper))
    swap = problem.n1 > problem.n2
    p = problem.transposed() if swap else problem

    best_map = np.empty(p.n1, dtype=np.int64)
    best_map.fill(-1)  # (np.full takes twice as long on the small pairs this call is made for)
    if incumbent is None and problem.n1 + problem.n2 > _GREEDY_FROM:
        # on large graphs the search may not reach a leaf for long: start from a greedy map
        incumbent = greedy_map(problem)
    if incumbent is not None:
        seed = np.asarray(incumbent, dtype=np.int64)
        if connected:
            seed = problem.largest_fragment(seed)
        best_map = problem.inverse(seed) if swap else seed.copy()
    too_big = not affordable(state_seconds(p, connected, budget), budget)
    if too_big or not affordable(start_up_seconds(kernels=True), budget):
        # numba's start-up alone would overrun, or the search's state (a row of children per
        # depth: large graphs in connected mode, with a depth per deferral too): the map in
        # hand (else the greedy one) and the bound
        stats["stopped"] = ("time or memory limit: the search's state does not fit" if too_big
                            else "time limit: the search's start-up does not fit")
        forward = p.inverse(best_map) if swap else best_map
        # (searched further on pairs of a few nodes, which it may prove)
        forward, proven = searched_map(problem, budget, connected,
                                       forward if incumbent is not None else None)
        root = min(root, proven)
        return MCESResult.from_map(problem, forward, root, method,
                                   time=time.perf_counter() - t0, stats=stats)
    first = None
    if probe > 0 and p.n1 * p.n2 <= _FIRST_SEARCH_CELLS:
        # most small pairs are settled by one kernel call that keeps its arrays to itself
        first = _first_search(p, best_map, root, connected, min(probe, FIRST_CHUNK),
                              seeded=incumbent is not None)
        best_map = first.best_map
    done = first is not None and first.done
    upper, expanded = root, (first.expanded if first is not None else 0)
    if not done:
        # a pair the first call did not settle is worth its symmetry (tens of microseconds)
        pair = _with_symmetry(p, _search_pair(p))
        run = _Search(pair, p, best_map, root, None, connected=connected, resume=first)
        done = run.go(budget, probe)
        expanded, best_map = run.expanded, run.best_map
        if not done:
            upper = min(root, max(run.incumbent, run.open_bound()))
    if not done and not budget.expired():
        from gedkit.mces.bounds import linear_relaxation, relaxation_fits, relaxation_model
        from gedkit.mces.refine import refine

        fits = relaxation_fits(p, budget)
        model = relaxation_model(p) if fits else None
        relaxation = linear_relaxation(p, budget.remaining(), model) if fits else None
        if relaxation is None:  # out of time, or HiGHS gave up: carry on without it
            done = not budget.expired() and run.go(budget, None)
            expanded, best_map = run.expanded, run.best_map
            upper = min(upper, max(run.incumbent, run.open_bound()))
        else:
            upper = min(upper, int(np.floor(relaxation.bound + _TOLERANCE)))
            stats["lp_bound"] = upper
            rounded = refine(p, _rounded(relaxation.x), budget=budget)
            if connected:
                rounded = p.largest_fragment(rounded)
            if p.count(rounded) > p.count(best_map):
                best_map = rounded
            if connected:
                done, upper, best_map, spent = _up_search(pair, p, best_map, upper,
                                                          relaxation, budget)
            else:
                done, upper, best_map, spent = _down_search(pair, p, best_map, upper,
                                                            relaxation, budget, search)
            expanded += spent
            if not done and not connected and not budget.expired():
                # (connected: no integer program, its maps need not be connected)
                done, upper, best_map = _integer_program(p, model, best_map, upper, budget, stats)

    stats.update(
        expanded=expanded, root_bound=root, stopped="optimal" if done else "time limit",
    )
    forward = p.inverse(best_map) if swap else best_map
    # done: the map's own count is the bound (from_map counts it, and raises a bound below)
    return MCESResult.from_map(
        problem, forward, 0 if done else upper, method,
        time=time.perf_counter() - t0, stats=stats,
    )


def _down_search(
    pair: MCESPair, p: MCESProblem, best_map: np.ndarray, upper: int,
    relaxation: LinearRelaxation, budget: Budget, limit: int,
) -> tuple[bool, int, np.ndarray, int]:
    """Search for maps of ``upper`` edges only, with the Lagrangian bounds: a small tree
    when the bound is tight; when it is exhausted ``upper - 1`` is proven, and so on. Stops
    after ``limit`` expansions. Returns (done, proven upper bound, best map, expansions)."""
    spent = 0
    while not budget.expired() and spent < limit:
        run = _Search(pair, p, best_map, upper, relaxation, floor=upper - 1)
        if run.incumbent >= upper:
            return True, upper, best_map, spent
        finished = run.go(budget, limit - spent)
        spent += run.expanded
        best_map = run.best_map
        if not finished:
            break
        if run.incumbent < upper:
            upper -= 1
    return p.count(best_map) >= upper, upper, best_map, spent


def _up_search(
    pair: MCESPair, p: MCESProblem, best_map: np.ndarray, upper: int,
    relaxation: LinearRelaxation, budget: Budget,
) -> tuple[bool, int, np.ndarray, int]:
    """Connected mode: one search with the Lagrangian bounds, improving ``best_map`` until
    nothing beats it or the time is up. The relaxation bounds the disconnected problem, often
    far above the connected answer (46 against 33 on an IAM AIDS pair), so searching down
    from it level by level (:func:`_down_search`) would exhaust many levels first: that pair
    took 36 s to prove 34 that way, 7 s to find and prove 33 this way. Returns as
    :func:`_down_search` does."""
    run = _Search(pair, p, best_map, upper, relaxation, connected=True)
    done = run.go(budget, None)
    proven = run.incumbent if done else min(upper, max(run.incumbent, run.open_bound()))
    return done, proven, run.best_map, run.expanded


def _integer_program(
    p: MCESProblem, model: MatchingProgram, best_map: np.ndarray, upper: int, budget: Budget,
    stats: dict,
) -> tuple[bool, int, np.ndarray]:
    """The program of the relaxation solved by HiGHS's branch and bound, seeded with
    ``best_map`` and stopped at the first map of ``upper`` edges. Returns (done, proven upper
    bound, best map)."""
    from gedkit.programs import solve_program

    h, values = solve_program(model, integer=True, time_limit=budget.remaining(),
                            start=best_map, target=0.5 - upper)
    info = h.getInfo()
    stats.update(mip=h.modelStatusToString(h.getModelStatus()),
                 mip_nodes=int(info.mip_node_count))
    if values is not None:
        found = model.node_map(values)
        mapped = np.flatnonzero(found >= 0)
        wrong = mapped[p.node_labels1[mapped] != p.node_labels2[found[mapped]]]
        found[wrong] = -1  # pairs without a y: they keep no edge
        if p.count(found) > p.count(best_map):
            best_map = found
    if math.isfinite(info.mip_dual_bound):
        # an upper bound on the edges (HiGHS minimises -sum y); the count is an integer
        upper = min(upper, math.floor(-info.mip_dual_bound + _MIP_TOLERANCE))
    upper = max(upper, p.count(best_map))
    return p.count(best_map) >= upper, upper, best_map


class _FirstSearch(NamedTuple):
    """What :func:`_first_search` leaves: its control slots and best map, whether it
    exhausted the search space, and else its state (packed) and matching order to resume."""

    ctl: np.ndarray
    best_map: np.ndarray
    done: bool
    packed: np.ndarray
    order: np.ndarray
    expanded: int


def _first_search(p: MCESProblem, best_map: np.ndarray, upper: int, connected: bool,
                  steps: int, *, seeded: bool = True) -> _FirstSearch:
    """Up to ``steps`` expansions of a search without the relaxation, seeded with
    ``best_map`` (``seeded=False``: the empty map), in one kernel call
    (:func:`gedkit._kernels.mces_search.first_search`)."""
    from gedkit._kernels import mces_search as kernel

    found = best_map.copy()
    ctl = _control(kernel, p, found, -1, connected, seeded)
    status, packed, order = kernel.first_search(
        p.n1, p.n2, p.g1.edges, p.edge_classes1, p.g2.edges, p.edge_classes2,
        p.node_labels1, p.node_labels2, p.n_classes, ctl, found, upper, steps)
    return _FirstSearch(ctl, found, status == kernel.DONE, packed, order,
                        int(ctl[kernel.EXPANDED]))


def _control(kernel, p: MCESProblem, best_map: np.ndarray, floor: int,
             connected: bool, seeded: bool = True) -> np.ndarray:
    """A fresh search's control slots (see :mod:`gedkit._kernels.mces_search`);
    ``seeded=False`` says ``best_map`` is the empty map, which keeps nothing."""
    ctl = np.zeros(7, dtype=np.int64)
    ctl[kernel.FRESH] = 1
    ctl[kernel.FLOOR] = floor
    ctl[kernel.CONNECTED] = int(connected)
    ctl[kernel.INCUMBENT] = p.count(best_map) if seeded else 0
    return ctl


class _Search:
    """The kernel's state arrays for one search, seeded with ``best_map``; with a
    ``relaxation``, its Lagrangian bound at every state; only maps of more than ``floor``
    edges (connected ones if ``connected``) are looked for."""

    def __init__(self, pair: MCESPair, p: MCESProblem, best_map: np.ndarray, upper: int,
                 relaxation: LinearRelaxation | None, floor: int = -1,
                 connected: bool = False, resume: _FirstSearch | None = None):
        from gedkit._kernels import mces_search as kernel

        self.kernel = kernel
        self.upper = upper
        self.best_map = best_map.copy()
        # steps of the first kernel call: few on large graphs, whose steps are slow (512 took
        # 0.72 s on a random 2,000-node pair), so that the clock is read in time
        self.first_chunk = first_chunk(_OPS_PER_STEP * (p.n1 + p.n2 + p.g1.m + p.g2.m))
        if relaxation is None:  # a constant bound the combinatorial one never exceeds
            lag = Relaxation(np.zeros((p.n1, p.n2), dtype=np.int64),
                             np.zeros((p.n1, p.n2), dtype=np.int64),
                             np.zeros(p.n1, dtype=np.int64), 1)
            top = upper
        else:
            lag = Relaxation(_fixed(relaxation.loss_forbid), _fixed(relaxation.loss_force),
                             _fixed(relaxation.loss_unmapped), _SCALE)
            top = math.ceil((relaxation.bound + _TOLERANCE * (1 + relaxation.bound)) * _SCALE)
        if resume is not None:  # the same search (no relaxation), where the first call left it
            state, self.order = kernel.unpack_state(resume.packed), resume.order
            self.ctl = resume.ctl
        else:
            # the state's arrays in one compiled call (some twenty numpy calls took longer
            # than the whole search of a small molecule pair)
            state, self.order = kernel.new_state(pair.rank, pair.cand_ptr, len(pair.e1),
                                                 connected, lag.forbid, top)
            self.ctl = _control(kernel, p, self.best_map, floor, connected)
        # the kernel's inputs as plain tuples: numba's fast argument path (see the kernel)
        self._pair, self._lag, self._state = tuple(pair), tuple(lag), state

    @property
    def incumbent(self) -> int:
        return int(self.ctl[self.kernel.INCUMBENT])

    @property
    def expanded(self) -> int:
        return int(self.ctl[self.kernel.EXPANDED])

    def go(self, budget: Budget, max_expansions: int | None) -> bool:
        """Search until done (True), out of time or past ``max_expansions`` (False)."""
        return self.run(budget, max_expansions) == self.kernel.DONE

    def run(self, budget: Budget, max_expansions: int | None) -> int:
        """Search until done (``DONE``), a map is found while enumerating (``FOUND``: it is
        in ``best_map``; call again for the next), out of time or past ``max_expansions``
        (``PAUSED``)."""
        kernel = self.kernel
        chunk = self.first_chunk
        while True:
            if max_expansions is not None:
                chunk = min(chunk, max_expansions - self.expanded)
                if chunk <= 0:
                    return kernel.PAUSED
            tick = time.perf_counter()
            status = kernel.search(self.order, self._pair, self._lag, self._state, self.ctl,
                                   self.best_map, self.upper, chunk)
            if status != kernel.PAUSED:
                return status
            if budget.expired():
                return status
            chunk = next_chunk(chunk, time.perf_counter() - tick, budget.remaining())

    def open_bound(self) -> int:
        """Proven bound on the maps not looked at: the best open state, or the floor."""
        open_f = int(self.kernel.open_bound(self._state, self.ctl, self.upper))
        return max(open_f, int(self.ctl[self.kernel.FLOOR]))


def _fixed(losses: np.ndarray) -> np.ndarray:
    """Losses in fixed point, rounded down: the bound they are taken from only loosens."""
    return np.floor(np.maximum(losses - _TOLERANCE, 0.0) * _SCALE).astype(np.int64)


def _rounded(x: np.ndarray) -> np.ndarray:
    """A node map from LP values: the assignment of largest total value, pairs valued 0
    left out (only pairs with equal labels have values)."""
    from gedkit.solvers.heuristics.assignment import linear_sum_assignment

    rows, cols = linear_sum_assignment(x, maximize=True)
    keep = x[rows, cols] > 1e-6
    forward = np.full(x.shape[0], -1, dtype=np.int64)
    forward[rows[keep]] = cols[keep]
    return forward


def _search_pair(p: MCESProblem) -> MCESPair:
    """The read-only kernel inputs: edges whose class the other graph lacks are left out,
    class ids are renumbered ``0..K-1`` over the shared classes, and only nodes of g1 with an
    edge left are branched on (``rank`` >= 0: their place in the static matching order); see
    :func:`gedkit._kernels.mces_search.search_inputs`."""
    from gedkit._kernels.mces_search import search_inputs

    return MCESPair(*search_inputs(p.n1, p.n2, p.g1.edges, p.edge_classes1, p.g2.edges,
                                   p.edge_classes2, p.node_labels1, p.node_labels2,
                                   p.n_classes))


def _with_symmetry(p: MCESProblem, pair: MCESPair) -> MCESPair:
    """``pair`` whose first and second decisions skip symmetric ones (the graphs'
    automorphism orbits, :func:`gedkit._kernels.symmetry.seed_classes`); unchanged past
    :data:`_SYMMETRY_UP_TO` nodes, where the orbit search's dense matrices would cost more
    than they save."""
    if max(p.n1, p.n2) > _SYMMETRY_UP_TO:
        return pair
    from gedkit._kernels.symmetry import seed_classes

    seed1, seed2 = seed_classes(pair.ptr1, pair.nbr1, pair.cls1, p.node_labels1, pair.rank,
                                pair.ptr2, pair.nbr2, pair.cls2, pair.cadj2, p.node_labels2,
                                pair.twin2)
    # (the second decisions' orbits are filled in by the search, per first image it uses)
    return pair._replace(seed1=seed1, seed2=seed2,
                         fixed2=np.full((p.n2, max(p.n2, 1)), -2, dtype=np.int64))


@register
class Exact(Method):
    name = "exact"
    summary = "exact branch and bound (numba) with LP bounds, then HiGHS's MIP on hard pairs"
    exact = True
    options: ClassVar[dict[str, Option]] = {"connected": CONNECTED, "rascal_ties": RASCAL_TIES}

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        connected = self.config["connected"]
        result = branch_and_bound(problem, budget, connected=connected,
                                  probe=CONNECTED_PROBE if connected else 20_000)
        if self.config["rascal_ties"]:
            from gedkit.mces.solutions import rascal_choice

            result = rascal_choice(problem, result, budget, connected=self.config["connected"])
        return result
