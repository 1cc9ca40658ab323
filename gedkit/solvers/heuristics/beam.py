"""BP-BEAM (Riesen, Fischer and Bunke, 2014): beam search over exchanges in a bipartite map.

The nodes of g1 are taken in turn; at each, every map in the beam either keeps the node's
target or exchanges it with a later node, with a node of g2 the map inserts, or with deletion.
The ``beam_width`` cheapest maps (true costs, priced incrementally) go on. The best map met is
the upper bound; the lower bound is BRANCH's.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np

from gedkit.configurable import Option, number
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.refine import tolerance
from gedkit.solvers.heuristics.start import start
from gedkit.solvers.registry import register

__all__ = ["BPBeam"]


@register
class BPBeam(Solver):
    name = "bp_beam"
    summary = "BP-BEAM: beam search over target exchanges in the bipartite map; BRANCH bound"
    pairs_for_arcs = True
    kernels = ("assignment", "local_search")
    options: ClassVar[dict[str, Option]] = {
        "beam_width": Option(5, "maps kept per level of the beam",
                             number(integer=True, minimum=1, strict=False)),
    }

    def solve(self, problem: Problem, budget: Budget) -> Result:
        from gedkit._kernels.local_search import beam_level

        t0 = time.perf_counter()
        s = start(problem, "bipartite", budget)
        fs = s.forward[None, :].copy()
        invs = problem.inverse(s.forward)[None, :]
        costs = np.array([problem.cost(s.forward)])
        best, best_cost = s.forward, costs[0]
        tol = tolerance(problem)
        levels, narrowest = 0, None
        spent, beam = 0.0, 1  # the last level's seconds and the beam it was given
        for q in range(problem.n1 if s.neighbours is not None else 0):
            if budget.expired():
                break
            if spent > 0.0 and budget.timeout is not None:
                # a level's work grows with the square of its beam (each child kept is
                # compared with those kept before it): the beam is narrowed (its cheapest
                # maps kept) to what lets every level left fit the time left (a width of
                # 100,000 ran 38 s past a 2 s limit, then answered worse than the default 5)
                # (never below the default width: one slow level, a first call's loading,
                # would narrow the beam to a single map)
                share = max(budget.remaining(), 0.0) / (problem.n1 - q)
                fits = max(self.options["beam_width"].default,
                           int(beam * (share / spent) ** 0.5))
                if fits < len(costs):
                    fs, invs, costs = fs[:fits], invs[:fits], costs[:fits]
                    narrowest = min(narrowest or fits, fits)
            tick, beam = time.perf_counter(), len(costs)
            fs, invs, costs = beam_level(
                fs, invs, costs, q, self.config["beam_width"], tol, problem.node_costs,
                problem.adj1, problem.adj2, problem.edge_label_matrix, *s.neighbours,
            )
            spent = time.perf_counter() - tick
            levels += 1
            if costs[0] < best_cost - tol:
                best, best_cost = fs[0].copy(), costs[0]
        stats: dict = {"levels": levels}
        if narrowest is not None:
            stats["narrowed"] = f"the beam narrowed to {narrowest:,} maps to fit the time"
        if s.stopped is not None:
            stats["stopped"] = s.stopped
        elif levels < problem.n1 and budget.expired():
            stats["stopped"] = f"time limit: {levels} of {problem.n1} levels of the beam"
        return Result.from_assignment(
            problem, best, s.lower_bound, self.name, time=time.perf_counter() - t0,
            stats=stats,
        )
