"""The MCES method contract and its registry.

A method is a class with a ``name``, a one-line ``summary``, whether it is ``exact`` (proves
optimality when given the time), and its ``options`` with defaults; ``solve(problem, budget)``
returns an :class:`~gedkit.mces.result.MCESResult`. Registering a class makes
``gedkit.mces(..., method=name)`` select it, so later methods (the learned one) plug in here.
The time budget is the :class:`gedkit.solvers.Budget` GED solvers use; running out of it
never raises.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from gedkit.budget import Budget
from gedkit.configurable import Configurable, Registry, check_number
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = [
    "Budget", "Method", "available", "check_number", "get_method", "method_class", "register",
    "register_path",
]

class Method(Configurable, ABC):
    """Base class: ``Method(**options).solve(problem, budget) -> MCESResult``."""

    kind = "MCES method"

    kernels = ("mces",)

    @abstractmethod
    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        """The best common edge subgraph of ``problem`` found within ``budget``."""

    def fallback(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        """Bounds that need no compiled kernel, for when this method's kernels cannot be
        compiled within the budget: connected ones when the method was asked for a connected
        subgraph, and never claimed to be RASCAL's choice among equally large maps."""
        from gedkit.mces.cheap import cheap_bounds

        result = cheap_bounds(problem, budget, self.name,
                              connected=bool(self.config.get("connected")))
        if self.config.get("rascal_ties"):
            result.stats["tie_break_complete"] = False
        return result


_METHODS: Registry[Method] = Registry("MCES method", "MCES", other="gedkit.solvers")
register = _METHODS.register
register_path = _METHODS.register_path
available = _METHODS.available
method_class = _METHODS.cls
get_method = _METHODS.create
