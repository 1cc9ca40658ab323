"""The GED solver contract; the budget every solver honours lives in :mod:`gedkit.budget`."""

from __future__ import annotations

import functools
import time
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
    methods that take them. A solver with ``pairs_for_arcs`` solves a directed problem as
    its undirected pair problem (:func:`gedkit.solvers.exact.arcs.pair_problem`, where every
    node map costs the same), and its result is restated on the directed problem.
    """

    #: True when every bound the solver reports holds for directed problems (arcs).
    directed: ClassVar[bool] = False
    #: True when the solver takes directed problems as their undirected pair problems (its
    #: bounds hold there, and so for the directed problem); implies ``directed``.
    pairs_for_arcs: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.pairs_for_arcs:
            cls.directed = True
        own = cls.__dict__.get("solve")
        if own is not None and not getattr(own, "_checks_direction", False):
            @functools.wraps(own)
            def solve(self: Solver, problem: Problem, budget: Budget) -> Result:
                self.check_direction(problem)
                if self.pairs_for_arcs and problem.directed:
                    return _on_pairs(self, own, problem, budget)
                return own(self, problem, budget)

            solve._checks_direction = True  # type: ignore[attr-defined]
            cls.solve = solve  # type: ignore[method-assign]

    def check_direction(self, problem: Problem) -> None:
        """Raise :class:`~gedkit.errors.GraphError` when ``problem`` is directed and this
        solver does not take directed graphs."""
        if getattr(problem, "directed", False):
            self.check_arcs()

    def check_arcs(self) -> None:
        """Raise :class:`~gedkit.errors.GraphError` unless this solver takes directed
        graphs (a batch of them refused at once, not pair by pair)."""
        if self.directed:
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


def _on_pairs(solver: Solver, solve: Any, problem: Problem, budget: Budget) -> Result:
    """``solve`` on the pair problem of the directed ``problem``, restated on ``problem``
    (its upper bound recomputed there: the same value), the pair problem's making counted."""
    from gedkit.solvers.exact.arcs import pair_problem

    t0 = time.perf_counter()
    result = solve(solver, pair_problem(problem), budget)
    return Result.from_assignment(problem, result.assignment, result.lower_bound,
                                  result.method, time=time.perf_counter() - t0,
                                  stats=result.stats)
