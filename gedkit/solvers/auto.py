"""``auto``: a portfolio that spends a time budget well.

Pairs of ``IPFP_FIRST_FROM_NODES`` (1,000) nodes and more get IPFP alone with the whole
budget (the other stages would only leave it short of converging): where the graphs' nodes
fall into few classes of alike ones (molecules, labelled graphs) first from the bipartite map
over those classes (hundredths of a second), then multi-start from STAR's map in the time
left; elsewhere from STAR's map. Before it only the cheap bounds' map when the budget is too
short for IPFP's steps, or BRANCH's bound when the budget leaves IPFP time to converge after
it; with the classes BRANCH's bound comes instead from a small program over them, solved in
the time IPFP leaves (20-70 ms at 2,000 nodes against the assignment's 0.6 s).
Smaller pairs: cheap bounds first (BRANCH: a lower bound and a map), local search on that map
(REFINE), IPFP multi-start from STAR's map on large pairs (without a timeout too: its starts
run their course), the learned decoder's greedy completion polished (no network:
milliseconds), then a short exact search (most pairs
of up to a few dozen nodes are proven in a fraction of a second) and a short depth-first one
from the best map (an anytime dive to better maps), then the integer program on
HiGHS where its model fits the budget (its linear relaxation bounds molecules of 30-60 atoms far
better than the search does, and its branch and bound often finds better maps there), the
learned solver ``gelato`` on the largest pairs, and last exact search seeded with the best map
and bound found so far (the probe's frontier floored at that bound: the states under it then
tie and the deepest goes first, so the search dives to maps at once; over the 40 held-out pairs
at 2 s the answers summed 1,370 against 1,396). It stops the moment the bounds meet, and always
returns the best bounds, the map realising the upper bound, and which stage found it.

The learned stage runs only where it measurably helps and can do no harm: pairs of at least
``LEARNED_FROM_NODES`` nodes (smaller ones are solved or nearly so by the stages around it),
torch installed and weights shipped for the kind of problem, a timeout, and a share of it long
enough for the network (and for importing torch when no solver has yet), as the learned
solver itself estimates them. A stage only ever
replaces the incumbent by a strictly cheaper map, so it can cost the exact stage some time but
never the map.
"""

from __future__ import annotations

import time
from functools import cache
from typing import ClassVar

from gedkit.anytime import listening, report
from gedkit.budget import DEFAULT_MEMORY, MEMORY_CAP
from gedkit.configurable import Option, flag, number
from gedkit.problem import Problem
from gedkit.programs import program_fits
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.cheap import cheap_bounds
from gedkit.solvers.exact.mip import integer_program, model_nonzeros
from gedkit.solvers.exact.tree_search import TreeSearch
from gedkit.solvers.heuristics.assignment import lsape_seconds
from gedkit.solvers.heuristics.branch_classes import BranchClasses
from gedkit.solvers.heuristics.lsape import edge_costs_seconds
from gedkit.solvers.registry import get_solver, register

__all__ = ["Auto"]

# pairs this small go straight to exact search: it is faster than the heuristics' set-up
EXACT_UP_TO_NODES = 12
# pairs with at least this many nodes in the larger graph get IPFP before exact search
IPFP_FROM_NODES = 20
# share of the remaining budget for IPFP: exact search rarely finishes beyond ~30 nodes, where
# the upper bound comes mostly from IPFP and the rest of the budget tightens the lower bound
IPFP_SHARE = {30: 0.25, 300: 0.6, 10**9: 0.85}
# IPFP's first start, on every pair and budget: STAR's map. From it IPFP went lower on every
# 100-2,000-node pair measured (benchmarks/RESULTS.md, "Session 8"), and at 2,000 nodes with
# 1.3-5 s than from BRANCH's map on 4 of 5 pair x budget cells (session 10: at 2 s 251 / 2,908
# against 269 / 4,139 on the random / molecule pair); STAR's one assignment is an incumbent by
# itself (2,899 on the random pair, BRANCH's 5,275)
IPFP_INIT = "star"
# pairs with at least this many nodes in the larger graph start with IPFP alone (no BRANCH,
# no REFINE before it): on 1,000-2,000 nodes those stages took a third of 2 s and left IPFP
# short of converging (benchmarks/RESULTS.md, "auto against every single method")
IPFP_FIRST_FROM_NODES = 1000
# when the time left is under STAR's estimate plus this many assignments, IPFP may get a step
# or two at most: the cheap bounds' map (the node assignment's) first, an incumbent that at
# 2,000 nodes and 1 s beat every other map that fits (molecules: 3,793 against STAR's 4,174)
SHORT_ASSIGNMENTS = 2
# STAR's bound is weaker than BRANCH's; BRANCH runs first when the budget holds STAR and
# BRANCH (each counted twice: at 2,000 nodes they take ~1.5 times their estimates) and then
# this many assignments, about what IPFP takes to converge there: 1,000 nodes from ~1.2 s,
# 2,000 from ~9 s (at 5 s BRANCH first cost IPFP 9% on the 2,000-node molecule pair)
BRANCH_FIRST_AFTER_ASSIGNMENTS = 20
# with at least this many seconds (or no limit) the branch classes' bound comes before IPFP,
# not in the time it leaves: a tenth of a second at 2,000 nodes, where IPFP's starts may run
# for the whole limit, and Ctrl-C then found only the cheap bound (1,084 against 1,252)
CLASSES_BOUND_FIRST_SECONDS = 5.0
# share of the budget the local search on BRANCH's map may take before IPFP: on large pairs a
# sweep is slow and IPFP's maps are far better (1,000 nodes, 2 s: refine alone took it all)
REFINE_SHARE = 0.15
# pairs with at least this many nodes in the larger graph also get the learned solver: from
# ~31 atoms its maps beat IPFP's in the same time (benchmarks/RESULTS.md, "auto with gelato")
LEARNED_FROM_NODES = 31
# share of the remaining budget for it, and the least share worth starting the network for
LEARNED_SHARE = 0.6
# ... and before the program, with this many branches at most (gelato trims them to its
# share). Since gelato's decodings size themselves by a measured rate (session 46) its network
# runs in time, and gelato alone beat auto (8 branches in 0.35 of the time left) by 1-2 edits
# on 6 of the 20 held-out 31-60-atom pairs. Chosen on other pairs of the same sets (seeds 123
# and 321, 16 each, 2 s): within 1% of the best of gelato and mip on 28 of 32, against 23 for
# the old values (8 branches in 0.5: 10 of 16 on seed 123; 16 in 0.35: 12 of 16 on 321);
# then on the held-out ones 19 of 20 (14 before), lower bounds unchanged. 32 branches in 0.35
# left the program too little (a pair it proves at 53 came out 56).
LEARNED_SHARE_BEFORE_MIP = 0.5
LEARNED_MIN_SECONDS = 0.5
LEARNED_K = 16
# the learned decoder's greedy completion (no network, no torch), polished by IPFP and REFINE:
# a map from another direction than STAR's and BRANCH's, in 4-11 ms on 17-60-atom molecules.
# Alone it beat auto's answer on 1 of 20 held-out IAM pairs (30 against 34 on a 31/40-atom
# pair, where 30 is the lower bound; gelato alone had found it too); it runs on pairs IPFP
# runs on when its estimate is at most this share of the time left
GREEDY_SHARE = 0.05
# the short exact search, on every pair below IPFP_FIRST_FROM_NODES: this share of the time
# left, at most PROBE_SECONDS (also without a timeout). Until session 36 only on pairs of up to
# 80 nodes: the limits' random 100-node pair, which A* proves in 0.02 s from IPFP's map, waited
# for the program first (1.9 s at a 2 s limit, 4.7 s at 5 s; now 0.12 s), and no 100-300-node
# limits pair lost a bound to the probe (benchmarks/RESULTS.md, "Session 36"). 0.08, not
# 0.15 (session 42): on 31-60-atom molecules the program needs the time (a 32/34-atom pair the
# program alone proves at 21 in 1.4 s of 2 s: auto 26, unproven, with the probe and the dive
# at their old shares; 36 against 38 of 40 held-out pairs within 1% of the best single method,
# the 17-30-atom pairs' answers unchanged)
PROBE_SHARE = 0.08
PROBE_SECONDS = 1.0
# after the probe, a depth-first search from the best map for this share of the time left (at
# most PROBE_SECONDS): it dives to complete maps where the best-first probe and the program
# improve on none. On a 32/48-atom held-out pair dfs alone reached 56 in 0.3 s, where auto
# (IPFP's 59, then the program from it) stayed at 59; over the 40 held-out pairs at 2 s, two
# runs each, medians: within 1% of the best single method's median on 39 pairs against 38
# (benchmarks/RESULTS.md, "Session 36"); a share of 0.2 took the program's time (one proof
# lost), and depth-first search after the program (its share 0.6 or 0.4) lost more; 0.05 with
# the probe's 0.08 since session 42 (the 32/48-atom pair still 56: without the dive 59)
DIVE_SHARE = 0.05
# share of the time left for the integer program (when its model fits the budget); without
# a timeout it gets MIP_SECONDS, then exact search the rest. 0.9, not 0.7: on 31-60-atom
# molecules at 2 s the program's proofs and dual bounds need the time more than the last A*
# stage (3 interleaved runs of 20 pairs: within 1% of the best single method 54 against 52
# times, lower bounds raised on 2 pairs; 17-30 atoms 54 against 55: benchmarks/RESULTS.md
# "Session 16")
MIP_SHARE = 0.9
MIP_SECONDS = 10.0


@register
class Auto(Solver):
    name = "auto"
    summary = ("portfolio: BRANCH bound, REFINE, IPFP on large pairs (alone, from the "
               "bipartite map over node classes, then STAR's, from 1,000 nodes), a greedy "
               "map, short A* and depth-first searches, gelato on the largest (with torch), "
               "the MIP, then seeded exact A*")
    kernels = ("assignment", "local_search", "ipfp", "tree_search")
    exact = True
    directed = True  # every stage takes arcs but the learned one, skipped on them
    options: ClassVar[dict[str, Option]] = {
        "memory": Option(None, "bytes for the exact search's frontier (None: the default cap)",
                         number(none=True)),
        "ipfp_starts": Option(10, "IPFP's starting maps on large pairs (0: no IPFP stage)",
                              number(integer=True, strict=False)),
        "learned": Option(True, "run gelato on the largest pairs when torch is installed",
                          flag()),
        "mip": Option(True, "run the integer program where its model fits the budget", flag()),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        stages: list[dict] = []
        best: Result | None = None
        lower = 0.0
        why = None  # the last stage's reason for stopping short
        capped = None  # the first stage's reason where the memory cap cut it short

        def record(result: Result) -> None:
            nonlocal best, lower, why, capped
            lower = max(lower, result.lower_bound)
            why = result.stats.get("stopped", why)
            if capped is None and str(why).startswith(MEMORY_CAP):
                capped = why
            stages.append({"method": result.method, "lower_bound": result.lower_bound,
                           "upper_bound": result.upper_bound, "time": result.time})
            if best is None or result.upper_bound < best.upper_bound:
                best = result
            if listening():  # an anytime stream hears of each stage as it ends
                report(result.assignment, lower, result.method)

        def settled() -> bool:
            if best is None:
                return False
            # (with decide=False, as a kNN scan's verifications, a map within the threshold
            # settles nothing: it settled kNN's hits unproven)
            return (lower >= best.upper_bound or budget.decided(lower, best.upper_bound)
                    or budget.expired())

        size = max(problem.n1, problem.n2)
        exact: TreeSearch | None = None
        starts = self.config["ipfp_starts"]
        if size >= IPFP_FIRST_FROM_NODES and starts and budget.timeout:
            # IPFP alone; before it the cheap map when about one assignment fits, or BRANCH's
            # bound when the budget leaves IPFP time to converge after it
            step = lsape_seconds(problem.n1, problem.n2)
            assignment = edge_costs_seconds(problem) + step
            left = budget.remaining()
            short = left < assignment + SHORT_ASSIGNMENTS * step
            classes = BranchClasses.of(problem)

            def classes_bound() -> None:
                nonlocal lower
                t1 = time.perf_counter()
                bound = classes.bound(budget.remaining())
                if bound is not None:
                    lower = max(lower, bound)
                    stages.append({"method": "branch_classes", "lower_bound": bound,
                                   "upper_bound": None, "time": time.perf_counter() - t1})

            bound_first = classes is not None and (
                budget.timeout is None or budget.remaining() >= CLASSES_BOUND_FIRST_SECONDS)
            if bound_first:
                classes_bound()
            if short:
                if classes is None:
                    # the best single map counts (the node assignment's on the 2,000-node
                    # molecules, STAR's on the random pair): IPFP gets a step at most
                    record(cheap_bounds(problem, budget, "cheap"))
            elif classes is None and (
                    left >= 4 * assignment + BRANCH_FIRST_AFTER_ASSIGNMENTS * step):
                record(get_solver("branch").solve(problem, budget))
            if not settled() and classes is not None:
                # where the branch classes apply IPFP first converges from the bipartite map
                # over them (a few hundredths of a second; STAR's, an assignment over nodes,
                # 0.4-1.6 s at 2,000 nodes): from STAR's map IPFP ended 17-49% higher on
                # pairs of unrelated graphs (3 s: 6,041 against ipfp's 4,374), and short of
                # time STAR's did not fit (1 s: 1.5-2.5x ipfp's distance); then from STAR's
                # map in the time left, which on a graph and its edited copy goes lower
                record(get_solver("ipfp", starts=1, init="bipartite")
                       .solve(problem, self._stage(budget, 1.0)))
            if not settled() and (classes is None or not short):
                record(get_solver("ipfp", starts=starts, init=IPFP_INIT)
                       .solve(problem, self._stage(budget, 1.0)))
            if not settled() and capped is not None and best is not None:
                # IPFP's dense matrices did not fit the memory cap: REFINE's exchanges (the
                # neighbour lists alone) improve the best map in the time left (2,000 nodes
                # under memory=400M: auto stopped at 1 s with 5,777, where refine reached
                # 4,290 in 5 s), from the cheap maps where one is better (an edited copy in
                # its original's order: 150 by the greedy map, 6,578 from IPFP's start)
                if all(stage["method"] != "cheap" for stage in stages):
                    record(cheap_bounds(problem, budget, "cheap", search=False))
                if not settled():
                    record(self._refined(problem, best, lower, self._stage(budget, 1.0)))
            if classes is not None and not bound_first and not settled():
                # in the time IPFP leaves (it stops when its next step would not fit: 0.2-0.3
                # s of 2 or 5 s at 2,000 nodes), so that its maps lose nothing to the bound
                classes_bound()
        elif size > EXACT_UP_TO_NODES:
            record(get_solver("branch").solve(problem, budget))
            # also without a time limit (then IPFP's starts run their course): a 300-node
            # pair's exact search, unbounded, found 876 in 8 s where IPFP finds 721 in 1 s
            ipfp_next = size >= IPFP_FROM_NODES and starts
            if not settled():
                refine = self._stage(budget, REFINE_SHARE) if ipfp_next else budget
                record(get_solver("refine", init="branch").solve(problem, refine))
            if not settled() and ipfp_next:
                fraction = next(v for limit, v in IPFP_SHARE.items() if size <= limit)
                share = budget.part(max(1e-3, fraction * budget.remaining())
                                    if budget.timeout is not None else None)
                record(get_solver("ipfp", starts=starts, init=IPFP_INIT).solve(problem, share))
            if not settled() and ipfp_next and not problem.directed:
                greedy = self._greedy(problem, budget)
                if greedy is not None:
                    record(greedy)
            if not settled():
                exact = self._search(problem, budget)
                exact.offer(best.assignment, lower)
                record(exact.run(self._stage(budget, PROBE_SHARE, PROBE_SECONDS, PROBE_SECONDS)))
                if not settled():
                    record(self._dive(problem, budget, best.assignment, lower))
            # the program pays where its model is small for the budget; the learned stage then
            # leaves it most of the time (its map stands where the program finds no better one)
            mip = self.config["mip"] and program_fits(
                model_nonzeros(problem), self._stage(budget, MIP_SHARE, alone=MIP_SECONDS))
            learned = (self.config["learned"] and size >= LEARNED_FROM_NODES and budget.timeout
                       and not problem.directed)
            if not settled() and learned:
                share = (LEARNED_SHARE_BEFORE_MIP if mip else LEARNED_SHARE) * budget.remaining()
                if _learned_stage_fits(problem, share, budget.memory):
                    from gedkit.learned.solver import quiet_unseen

                    # a stage of its own choosing: the map is kept only if it is better, so
                    # labels the model never saw are no concern of the caller's
                    with quiet_unseen():
                        record(get_solver("gelato", k=LEARNED_K).solve(
                            problem, budget.part(share)))
            if not settled() and mip:
                record(integer_program(problem, self._stage(budget, MIP_SHARE, alone=MIP_SECONDS),
                                       incumbent=best.assignment))
        if best is None or not settled():
            # the search goes on from where the short one stopped, with the best map and bound
            exact = exact or self._search(problem, budget)
            exact.offer(None if best is None else best.assignment, lower)
            record(exact.run(self._stage(budget, 1.0)))
        assert best is not None
        # a stage replaces the incumbent only by a strictly better map, so the winner is the
        # stage that found the final map (exact search may only have proved it optimal)
        stats = {"winner": best.method, "stages": stages}
        if why is not None and lower < best.upper_bound:  # unproven: the last reason given
            stats["stopped"] = _stop_reason(why, capped, budget)
        return Result.from_assignment(
            problem, best.assignment, lower, self.name, time=time.perf_counter() - t0,
            stats=stats,
        )

    def _refined(self, problem: Problem, best: Result, lower: float, budget: Budget
                 ) -> Result:
        """REFINE's local search from ``best``'s map within ``budget`` (its lower bound
        ``lower``)."""
        from gedkit.solvers.heuristics.lsape import neighbours
        from gedkit.solvers.heuristics.refine import local_search

        t0 = time.perf_counter()
        forward, passes = local_search(problem, best.assignment, neighbours(problem), budget)
        return Result.from_assignment(problem, forward, lower, "refine",
                                      time=time.perf_counter() - t0, stats={"passes": passes})

    def _memory(self, budget: Budget) -> int | None:
        """The memory cap a stage works under: what the call's leaves (a stage's budget
        starts its own count: given the whole cap, a 2,000-node pair's STAR start grew a
        call capped at 256 MB by 311 MB, the imports before it uncounted), else the
        ``memory`` option."""
        return self.config["memory"] if budget.memory is None else budget.cap_left()

    def _search(self, problem: Problem, budget: Budget, depth_first: bool = False
                ) -> TreeSearch:
        return TreeSearch(problem, depth_first=depth_first,
                          method="dfs" if depth_first else "astar",
                          memory=self._memory(budget), threshold=budget.threshold,
                          decide=budget.decide)

    def _dive(self, problem: Problem, budget: Budget, forward, lower: float) -> Result:
        """Depth-first search from the best map and bound so far, for :data:`DIVE_SHARE` of
        the time left: it reaches complete maps the best-first probe does not."""
        dfs = self._search(problem, budget, depth_first=True)
        dfs.offer(forward, lower)
        return dfs.run(self._stage(budget, DIVE_SHARE, PROBE_SECONDS, PROBE_SECONDS))

    def _greedy(self, problem: Problem, budget: Budget) -> Result | None:
        """The polished greedy completion (see :data:`GREEDY_SHARE`), or None when its
        estimate (the completion's, as gelato sizes it, and polishing's assignments) does not
        fit the time share or the completion's tables the memory cap."""
        from gedkit.learned.features import greedy_completion
        from gedkit.learned.sizing import Rates
        from gedkit.learned.solver import POLISH_ASSIGNMENTS, greedy_cost
        from gedkit.solvers.heuristics.polish import polish

        t0 = time.perf_counter()
        need, held = greedy_cost(problem, Rates(_entry_seconds()))
        need += POLISH_ASSIGNMENTS * lsape_seconds(problem.n1, problem.n2)
        cap = self._memory(budget) or DEFAULT_MEMORY
        if need > GREEDY_SHARE * budget.remaining() or held > cap:
            return None
        stage = self._stage(budget, GREEDY_SHARE)
        # (held to the stage's time: on dense graphs a decision settles many edges)
        greedy = greedy_completion(problem, time.perf_counter() + stage.remaining())
        if greedy is None:
            return None
        forward, _ = polish(problem, [greedy], stage)
        return Result.from_assignment(problem, forward, 0.0, "greedy",
                                      time=time.perf_counter() - t0)

    def _stage(self, budget: Budget, share: float, cap: float | None = None,
               alone: float | None = None) -> Budget:
        """A stage's budget: ``share`` of the time left, at most ``cap`` seconds; without a
        timeout, ``alone`` seconds (None: unbounded). The memory cap and threshold carry
        over, and whether it decides."""
        timeout = alone
        if budget.timeout is not None:
            timeout = max(1e-3, share * budget.remaining())
            timeout = timeout if cap is None else min(cap, timeout)
        return Budget(timeout=timeout, memory=self._memory(budget), threshold=budget.threshold,
                      decide=budget.decide)


@cache
def _entry_seconds() -> float:
    """This machine's NumPy seconds per reduced entry, measured once per process (a
    millisecond: too long to repeat on every small pair)."""
    from gedkit.nn.budgeting import entry_seconds

    return entry_seconds()


def _stop_reason(last: str, capped: str | None, budget: Budget) -> str:
    """Why an unproven portfolio stopped: the ``last`` stage's reason, or, where the call
    ended before its time limit, the reason of the first stage the memory cap cut short
    (``capped``): a 2,000-node pair under --memory 400M --timeout 8 ended at 1 s, IPFP's
    matrices over the cap, and blamed the time limit, which its exact stage alone gave)."""
    if capped is not None and not budget.expired():
        return capped
    return last


def _learned_stage_fits(problem: Problem, share: float, memory: int | None) -> bool:
    """Whether gelato can run in ``share`` seconds: torch installed, weights shipped for this
    kind of problem, and time and memory for the network (and for importing torch, if not yet
    done), as :func:`gedkit.learned.solver.fits` estimates them."""
    from gedkit.learned.solver import fits  # no torch import

    return share >= LEARNED_MIN_SECONDS and fits(problem, share, memory)
