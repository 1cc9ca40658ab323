"""gedkit: how different are two graphs? Graph edit distance and maximum common edge subgraph,
exact when affordable, bounded when not.

The public names below are imported on first use (PEP 562), so ``import gedkit`` and the
``gedkit`` command start in a fraction of a second: numba, SciPy, HiGHS, PyTorch and RDKit load
only when a solve needs them.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

# public name -> module that defines it
_LAZY = {
    "CostModelError": "gedkit.errors",
    "FormatError": "gedkit.errors",
    "GedkitError": "gedkit.errors",
    "GraphError": "gedkit.errors",
    "MissingDependencyError": "gedkit.errors",
    "OptionError": "gedkit.errors",
    "EditOperation": "gedkit.problem",
    "Graph": "gedkit.graph",
    "Problem": "gedkit.problem",
    "Result": "gedkit.result",
    "ged": "gedkit.api",
    "ged_iter": "gedkit.anytime",
    "Improvement": "gedkit.anytime",
    "optimal_edit_paths": "gedkit.edit_paths",
    "EditPaths": "gedkit.edit_paths",
    "pairwise": "gedkit.pairwise",
    "UnlabelledWarning": "gedkit.errors",
    "UnseenLabelWarning": "gedkit.errors",
    "InterruptedWarning": "gedkit.budget",
    "LongRunNotice": "gedkit.budget",
    "CompileNotice": "gedkit._kernels.warm",
    "read": "gedkit.io",
    "read_all": "gedkit.io",
    "write": "gedkit.io",
    "from_smiles": "gedkit.io",
    "warm_up": "gedkit._kernels.warm",
    "Collection": "gedkit.search",
}
# subpackages reachable as attributes (``gedkit.costs.uniform()``, ``gedkit.mces(g1, g2)``,
# ``gedkit.draw(result)``: the draw package is callable, so the name means one thing whether
# or not ``gedkit.draw`` was imported as a package first)
_SUBMODULES = ("costs", "mces", "io", "solvers", "datasets", "search", "draw")


def methods() -> dict[str, str]:
    """Registered GED methods with their one-line summaries.

    >>> "astar" in methods()
    True
    """
    from gedkit.solvers import available

    return {name: cls.summary for name, cls in available().items()}


#: ``(name, started, ended)`` of the last import a first use of a public name caused: the call
#: that follows at once (``gedkit.ged(...)`` in a fresh process) starts its clock at the
#: import, which its time limit and ``result.time`` then count (see budget.call_started)
_FIRST_USE: list = [None]


def __getattr__(name: str) -> Any:
    started = time.perf_counter()
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"gedkit.{name}")
    else:
        raise AttributeError(f"module 'gedkit' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    _FIRST_USE[0] = (name, started, time.perf_counter())
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})


__all__ = sorted([*_LAZY, "costs", "draw", "mces", "methods"])
__version__ = "0.1.0"
