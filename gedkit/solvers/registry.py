"""Name → GED solver class. Registering a class makes it available to every caller and test."""

from __future__ import annotations

from gedkit.configurable import Registry
from gedkit.solvers.base import Solver

__all__ = ["available", "directed_methods", "get_solver", "register", "register_path",
           "solver_class"]

_SOLVERS: Registry[Solver] = Registry("method", "GED", other="gedkit.mces")

register = _SOLVERS.register
register_path = _SOLVERS.register_path
available = _SOLVERS.available
solver_class = _SOLVERS.cls
get_solver = _SOLVERS.create


def directed_methods() -> list[str]:
    """The registered methods that take directed graphs (:attr:`Solver.directed`), by name;
    methods registered by path (the learned ones) are not imported to find out: none does.

    >>> import gedkit.solvers
    >>> "exact" in directed_methods(), "gelato" in directed_methods()
    (True, False)
    """
    return sorted(name for name in _SOLVERS.names()
                  if name not in _SOLVERS._paths and _SOLVERS.cls(name).directed)
