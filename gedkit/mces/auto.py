"""``auto``: a short exact search, then graduated assignment, then the exact search seeded
with the better map.

The short search proves most molecule pairs at once. Graduated assignment is fast and usually
close, so the exact search after it starts with a good incumbent: it prunes more from the
first step, and a timeout still returns at least the heuristic's map. Options are those of
``ga``, with a shorter iterated local search and no LP bound by default (the exact search
solves the LP relaxation itself), plus ``connected``: then the exact search runs alone at
every size (GA's largest fragment seeds it poorly).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import ClassVar

from gedkit.configurable import Option
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.exact import CONNECTED_PROBE, branch_and_bound, state_seconds
from gedkit.mces.ga import GA_OPTIONS, annealing_fits, check_ga_options, graduated_assignment
from gedkit.mces.options import CONNECTED, RASCAL_TIES
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.pacing import start_up_seconds

__all__ = ["Auto"]

# pairs with more nodes than this (both graphs together) rarely gain from exact search within
# a time limit (measured: 1,000-node pairs keep more edges with GA alone at equal time)
EXACT_UP_TO_NODES = 800
# before GA, the exact search alone for this share of the time left, at most PROBE_SECONDS:
# it proves most molecule pairs in milliseconds, where GA's iterated local search takes
# 0.15-0.25 s first (20 IAM pairs of 17-30 atoms: 2.9 s with GA first, 0.08 s by the search
# alone); a pair it does not settle costs that much more (0: no probe)
PROBE_SHARE = 0.1
PROBE_SECONDS = 0.05
# the share of the time left the search's set-up (its state) may take for the probe and
# after GA; beyond it, GA has the time
SETUP_SHARE = 0.25
# above EXACT_UP_TO_NODES, the exact search's probe before GA: this share of the time left,
# or this long without a limit
LARGE_PROBE_SHARE = 0.1
LARGE_PROBE_SECONDS = 2.0


@register
class Auto(Method):
    name = "auto"
    summary = "exact branch and bound within the budget, seeded by graduated assignment"
    exact = True
    options: ClassVar[dict[str, Option]] = {
        **GA_OPTIONS,
        "kicks": replace(GA_OPTIONS["kicks"], default=1000),
        "lp_bound": replace(GA_OPTIONS["lp_bound"], default=False),
        "connected": CONNECTED,
        "rascal_ties": RASCAL_TIES,
    }

    def validate(self) -> None:
        check_ga_options(self.config)

    def _ga(self, problem: MCESProblem, budget: Budget, **config) -> tuple:
        """Graduated assignment's map and stats, under the options it knows."""
        config.pop("connected")
        config.pop("rascal_ties")
        return graduated_assignment(problem, budget, **config)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        result = self._solve(problem, budget)
        if self.config["rascal_ties"]:
            from gedkit.mces.solutions import rascal_choice

            result = rascal_choice(problem, result, budget, connected=self.config["connected"])
        return result

    def _solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        if self.config["connected"]:
            # GA aims at the disconnected optimum: its largest fragment seeds the connected
            # search poorly and costs 10-50 times what the search takes on molecules (IAM AIDS
            # pairs of 34-81 atoms); on large pairs the search's own greedy start keeps more
            # (random 450-node pairs, 2 s: 98 edges against GA's largest fragment's 59)
            result = branch_and_bound(problem, budget, method=self.name, connected=True,
                                      probe=CONNECTED_PROBE)
            result.time = time.perf_counter() - t0
            return result
        if problem.n1 + problem.n2 > EXACT_UP_TO_NODES:
            # beyond what exact search usually settles, the time is the heuristic's, with its
            # own patience and the LP bound where that fits; after a probe of the exact
            # search, which settles sparse, tree-like pairs at once (two 1,501-atom chains:
            # 1,000 common edges proven in 1.4 s, where GA kept 648 in 60 s)
            setup = _setup(problem, budget)
            probe = None if setup is None else self._probe(
                problem, budget, LARGE_PROBE_SECONDS if budget.timeout is None
                else LARGE_PROBE_SHARE * budget.remaining(), setup)
            if probe is not None and probe.optimal:
                probe.time = time.perf_counter() - t0
                return probe
            kicks = max(self.config["kicks"], GA_OPTIONS["kicks"].default)
            config = {**self.config, "kicks": kicks, "lp_bound": True}
            forward, stats = self._ga(problem, budget, **config)
            forward, upper = _with_probe(problem, forward, stats["upper_bound"], stats, probe)
            return MCESResult.from_map(problem, forward, upper, self.name,
                                       time=time.perf_counter() - t0, stats=stats)
        if start_up_seconds(kernels=True) and not annealing_fits(
                problem, budget, self.config["iterations"], self.config["sinkhorn_iterations"]):
            # a fresh process under a short limit: GA's start-ups (numba's, SciPy's sparse
            # matrices) do not fit where the search's alone may (a 30-atom pair at 1 s: 26
            # common edges, proven, against the greedy map's 18), so the search runs alone
            result = branch_and_bound(problem, budget, method=self.name)
            result.time = time.perf_counter() - t0
            return result
        setup = _setup(problem, budget) or 0.0  # (too long: the probe gives up at once)
        probe, seconds = None, min(PROBE_SECONDS, PROBE_SHARE * budget.remaining())
        if seconds > 0:
            # (a fresh process's start-ups are paid by the probe rather than by GA)
            probe = self._probe(problem, budget, seconds, setup)
            if probe.optimal:
                probe.time = time.perf_counter() - t0
                return probe
        # GA leaves the search after it the time to build its state again, and to search
        forward, ga = self._ga(problem, _shortened(budget, 2 * setup), **self.config)
        stats = {"ga_edges": problem.count(forward), "ga_time": time.perf_counter() - t0}
        forward, upper = _with_probe(problem, forward, ga["upper_bound"], stats, probe)
        result = branch_and_bound(problem, budget, incumbent=forward, method=self.name,
                                  stats=stats, upper=upper)
        result.time = time.perf_counter() - t0
        return result

    def _probe(self, problem: MCESProblem, budget: Budget, seconds: float,
               setup: float) -> MCESResult:
        """The exact search for ``seconds``, besides building its state (``setup``) and
        the kernels' start-up, within the time left."""
        limit = seconds + setup + start_up_seconds(kernels=True)
        return branch_and_bound(problem, budget.part(min(limit, budget.remaining())),
                                method=self.name)


def _setup(problem: MCESProblem, budget: Budget) -> float | None:
    """What building the exact search's state takes (on two 400-node grids, 80 ms: more
    than the probe's share, so that the probe gave up at once, GA took the whole limit and
    left 658 common edges where the search alone proves 721 in 0.1 s); None where that is
    more than :data:`SETUP_SHARE` of the time left (GA's time: the search would not start
    within its share)."""
    setup = state_seconds(problem, False, budget) * budget.slowdown()
    return None if setup > SETUP_SHARE * budget.remaining() else setup


def _with_probe(problem: MCESProblem, forward, upper: float, stats: dict,
                probe: MCESResult | None) -> tuple:
    """GA's map and upper bound, with the probe's map where it keeps more edges and the
    smaller upper bound (the probe's edges noted in ``stats``)."""
    if probe is not None:
        stats["probe_edges"], upper = probe.num_edges, min(upper, probe.upper_bound)
        if probe.num_edges > problem.count(forward):
            forward = probe.assignment
    return forward, upper


def _shortened(budget: Budget, seconds: float) -> Budget:
    """``budget`` ending ``seconds`` sooner (itself when that is 0 or it has no limit)."""
    if seconds <= 0 or budget.timeout is None:
        return budget
    # (the same start and memory baseline: the cap counts from the call's start)
    return replace(budget, timeout=max(budget.timeout - seconds, 1e-6))
