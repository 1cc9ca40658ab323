"""Maximum common edge subgraph (MCES): exact, heuristic and RDKit's RASCAL, plus retrieval.

The package itself is callable: ``gedkit.mces(g1, g2, method=...)`` is
:func:`gedkit.mces.api.mces` (its parameters: ``help(gedkit.mces.mces)``), while
``gedkit.mces.rank``, ``gedkit.mces.MCESResult`` and the submodules stay reachable as usual
(a plain function of that name would hide them).
``gedkit.mces.all_maximum`` enumerates every maximum common subgraph.

Importing this package registers every built-in method: ``auto``, ``exact``, ``ga``, ``nga``
(torch only when it solves) and ``rascal``.
"""

import sys
import types

from gedkit.mces import auto as _auto  # noqa: F401  (registers)
from gedkit.mces import exact as _exact  # noqa: F401  (registers)
from gedkit.mces import ga as _ga  # noqa: F401  (registers)
from gedkit.mces import rascal as _rascal  # noqa: F401  (registers)
from gedkit.mces.api import mces, methods
from gedkit.mces.base import Method, register, register_path
from gedkit.mces.problem import MCESProblem, johnson_similarity
from gedkit.mces.result import MCESResult
from gedkit.mces.retrieval import Hit, mean_average_precision, mrr, precision_at_k, rank
from gedkit.mces.solutions import all_maximum

# the learned method lives with its model: registered by path, imported when asked for
register_path("nga", "gedkit.mces.nga.method:NGA")

__all__ = [
    "Hit",
    "MCESProblem",
    "MCESResult",
    "Method",
    "all_maximum",
    "johnson_similarity",
    "mces",
    "mean_average_precision",
    "methods",
    "mrr",
    "precision_at_k",
    "rank",
    "register",
]


class _CallableModule(types.ModuleType):
    def __call__(self, g1, g2, method: str = "auto", **kwargs) -> MCESResult:
        return mces(g1, g2, method, **kwargs)

    __call__.__doc__ = mces.__doc__


sys.modules[__name__].__class__ = _CallableModule
