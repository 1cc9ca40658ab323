"""Name → GED solver class. Registering a class makes it available to every caller and test."""

from __future__ import annotations

from gedkit.configurable import Registry
from gedkit.solvers.base import Solver

__all__ = ["available", "get_solver", "register", "register_path", "solver_class"]

_SOLVERS: Registry[Solver] = Registry("method")

register = _SOLVERS.register
register_path = _SOLVERS.register_path
available = _SOLVERS.available
solver_class = _SOLVERS.cls
get_solver = _SOLVERS.create
