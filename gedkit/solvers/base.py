"""The GED solver contract; the budget every solver honours lives in :mod:`gedkit.budget`."""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from gedkit.budget import Budget
from gedkit.configurable import Configurable
from gedkit.errors import GraphError
from gedkit.problem import Problem
from gedkit.result import Result

__all__ = ["Budget", "Solver"]


class Solver(Configurable, ABC):
    """Base class: ``Solver(**options).solve(problem, budget) -> Result``.

    Subclasses declare ``name``, a one-line ``summary``, whether they are ``exact``, their
    options with defaults in ``options`` (see :class:`~gedkit.configurable.Configurable`), the
    kernel families they run (``kernels``, see :mod:`gedkit._kernels.warm`), and whether they
    take directed graphs (``directed``): a solver that does not is refused a directed problem
    here, for every subclass, before its own ``solve`` runs, with one error naming the
    methods that take them.
    """

    #: True when every bound the solver reports holds for directed problems (arcs).
    directed: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("solve")
        if own is not None and not getattr(own, "_checks_direction", False):
            @functools.wraps(own)
            def solve(self: Solver, problem: Problem, budget: Budget) -> Result:
                self.check_direction(problem)
                return own(self, problem, budget)

            solve._checks_direction = True  # type: ignore[attr-defined]
            cls.solve = solve  # type: ignore[method-assign]

    def check_direction(self, problem: Problem) -> None:
        """Raise :class:`~gedkit.errors.GraphError` when ``problem`` is directed and this
        solver does not take directed graphs."""
        if self.directed or not getattr(problem, "directed", False):
            return
        from gedkit.solvers.registry import directed_methods

        raise GraphError(
            f"method {self.name!r} does not take directed graphs yet; the methods that do: "
            f"{', '.join(directed_methods())}")

    @abstractmethod
    def solve(self, problem: Problem, budget: Budget) -> Result:
        """Bounds on the GED of ``problem`` within ``budget``."""

    def fallback(self, problem: Problem, budget: Budget) -> Result:
        """Bounds that need no compiled kernel, for when this solver's kernels cannot be
        compiled within the budget."""
        from gedkit.solvers.cheap import cheap_bounds

        self.check_direction(problem)
        return cheap_bounds(problem, budget, self.name)
