"""Solvers behind one contract: ``Solver(**options).solve(problem, budget) -> Result``.

Importing this package registers every built-in solver.
"""

from gedkit.solvers import exact as _exact  # noqa: F401  (registers)
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.exact import mip as _mip  # noqa: F401  (registers)
from gedkit.solvers.exact import tree_search as _tree_search  # noqa: F401  (registers)
from gedkit.solvers.registry import available, get_solver, register, solver_class

__all__ = ["Budget", "Solver", "available", "get_solver", "register", "solver_class"]
