"""The GED solver contract; the budget every solver honours lives in :mod:`gedkit.budget`."""

from __future__ import annotations

from abc import ABC, abstractmethod

from gedkit.budget import Budget
from gedkit.configurable import Configurable
from gedkit.problem import Problem
from gedkit.result import Result

__all__ = ["Budget", "Solver"]


class Solver(Configurable, ABC):
    """Base class: ``Solver(**options).solve(problem, budget) -> Result``.

    Subclasses declare ``name``, a one-line ``summary``, whether they are ``exact``, their
    options with defaults in ``options`` (see :class:`~gedkit.configurable.Configurable`), and
    the kernel families they run (``kernels``, see :mod:`gedkit._kernels.warm`).
    """

    @abstractmethod
    def solve(self, problem: Problem, budget: Budget) -> Result:
        """Bounds on the GED of ``problem`` within ``budget``."""

    def fallback(self, problem: Problem, budget: Budget) -> Result:
        """Bounds that need no compiled kernel, for when this solver's kernels cannot be
        compiled within the budget."""
        from gedkit.solvers.cheap import cheap_bounds

        return cheap_bounds(problem, budget, self.name)
