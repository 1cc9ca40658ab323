"""The solver contract and the budget every solver honours."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from gedkit.configurable import Configurable
from gedkit.errors import OptionError
from gedkit.problem import Problem
from gedkit.result import Result

__all__ = ["Budget", "Solver"]


@dataclass
class Budget:
    """Limits for one solve.

    ``timeout`` (seconds) and ``memory`` (bytes) never make a solver raise: it stops and
    returns its best bounds. ``threshold`` lets a solver stop as soon as it knows whether the
    distance is at most that value.
    """

    timeout: float | None = None
    memory: int | None = None
    threshold: float | None = None
    start: float = field(default_factory=time.perf_counter)

    def __post_init__(self):
        if self.timeout is not None and not self.timeout > 0:
            raise OptionError(f"timeout must be a positive number of seconds, got {self.timeout!r}")
        if self.memory is not None and not self.memory > 0:
            raise OptionError(f"memory must be a positive number of bytes, got {self.memory!r}")

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        """Seconds left (infinity without a timeout)."""
        if self.timeout is None:
            return float("inf")
        return max(0.0, self.timeout - self.elapsed())

    def expired(self) -> bool:
        return self.remaining() <= 0.0


class Solver(Configurable, ABC):
    """Base class: ``Solver(**options).solve(problem, budget) -> Result``.

    Subclasses declare ``name``, a one-line ``summary``, whether they are ``exact``, and their
    options with defaults in ``options`` (see :class:`~gedkit.configurable.Configurable`).
    """

    @abstractmethod
    def solve(self, problem: Problem, budget: Budget) -> Result:
        """Bounds on the GED of ``problem`` within ``budget``."""
