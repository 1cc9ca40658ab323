"""``auto``: graduated assignment first, then the exact search seeded with its map.

Graduated assignment is fast and usually close, so the exact search starts with a good
incumbent: it prunes more from the first step, and a timeout still returns at least the
heuristic's map. Options are those of ``ga``, with a shorter iterated local search and no LP
bound by default: the exact search solves the LP relaxation itself.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from gedkit.mces.base import Budget, Method, register
from gedkit.mces.exact import branch_and_bound
from gedkit.mces.ga import GA_OPTIONS, check_ga_options, graduated_assignment
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = ["Auto"]


@register
class Auto(Method):
    name = "auto"
    summary = "exact branch and bound within the budget, seeded by graduated assignment"
    exact = True
    options: ClassVar[dict[str, Any]] = {**GA_OPTIONS, "kicks": 1000, "lp_bound": False}

    def validate(self) -> None:
        check_ga_options(self.config)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        forward, _ = graduated_assignment(problem, budget, **self.config)
        stats = {"ga_edges": problem.count(forward), "ga_time": time.perf_counter() - t0}
        result = branch_and_bound(problem, budget, incumbent=forward, method=self.name,
                                  stats=stats)
        result.time = time.perf_counter() - t0
        return result
