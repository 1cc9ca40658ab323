"""The method contract, shipped: checks any GED solver or MCES method can be run through.

In the spirit of scikit-learn's ``check_estimator``: a third party that registers a solver
(:func:`gedkit.solvers.register`) or an MCES method (:func:`gedkit.mces.register`) checks it
with one call, and gedkit's own test suite runs every built-in method through the same
functions. Each check raises :class:`AssertionError` naming the method, the pair and what
broke.

>>> from gedkit.testing import check_solver
>>> check_solver("bipartite", pairs=4)
"""

from gedkit.testing.brute import (
    brute_force_ged,
    brute_force_mces,
    brute_force_optimal_maps,
    direct_count,
)
from gedkit.testing.contract import (
    check_all_mces_methods,
    check_all_solvers,
    check_mces_method,
    check_mces_result,
    check_solver,
)
from gedkit.testing.generate import random_constraints, random_costs, random_graph

__all__ = [
    "brute_force_ged",
    "brute_force_mces",
    "brute_force_optimal_maps",
    "check_all_mces_methods",
    "check_all_solvers",
    "check_mces_method",
    "check_mces_result",
    "check_solver",
    "direct_count",
    "random_constraints",
    "random_costs",
    "random_graph",
]
