"""Solvers behind one contract: ``Solver(**options).solve(problem, budget) -> Result``.

Importing this package registers every built-in solver.
"""

from gedkit.solvers import auto as _auto  # noqa: F401  (registers)
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.exact import mip as _mip  # noqa: F401  (registers)
from gedkit.solvers.exact import tree_search as _tree_search  # noqa: F401  (registers)
from gedkit.solvers.heuristics import beam as _beam  # noqa: F401  (registers)
from gedkit.solvers.heuristics import ipfp as _ipfp  # noqa: F401  (registers)
from gedkit.solvers.heuristics import lsape as _lsape  # noqa: F401  (registers)
from gedkit.solvers.heuristics import refine as _refine  # noqa: F401  (registers)
from gedkit.solvers.heuristics import star as _star  # noqa: F401  (registers)
from gedkit.solvers.registry import (
    available,
    get_solver,
    register,
    register_path,
    solver_class,
)

# the learned solver lives with its model and imports this package: registered by path, it is
# imported only when asked for
register_path("gelato", "gedkit.learned.solver:GelatoSolver")

__all__ = ["Budget", "Solver", "available", "get_solver", "register", "solver_class"]
