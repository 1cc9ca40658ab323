"""gedkit: how different are two graphs? Graph edit distance and maximum common edge subgraph,
exact when affordable, bounded when not."""

from gedkit import costs, mces  # mces is a callable package: gedkit.mces(g1, g2)
from gedkit.api import ged
from gedkit.errors import (
    CostModelError,
    FormatError,
    GedkitError,
    GraphError,
    MissingDependencyError,
    OptionError,
)
from gedkit.graph import Graph
from gedkit.io import read, read_all, write
from gedkit.pairwise import pairwise
from gedkit.problem import EditOperation, Problem
from gedkit.result import Result
from gedkit.solvers import available as _available


def methods() -> dict[str, str]:
    """Registered GED methods with their one-line summaries.

    >>> "astar" in methods()
    True
    """
    return {name: cls.summary for name, cls in _available().items()}


__all__ = [
    "CostModelError",
    "EditOperation",
    "FormatError",
    "GedkitError",
    "Graph",
    "GraphError",
    "MissingDependencyError",
    "OptionError",
    "Problem",
    "Result",
    "costs",
    "ged",
    "mces",
    "methods",
    "pairwise",
    "read",
    "read_all",
    "write",
]
__version__ = "0.1.0"
