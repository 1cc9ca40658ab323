"""Node maps from a linear sum assignment with ε (LSAPE), solved by scipy."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.pacing import affordable, start_up_seconds

__all__ = [
    "NO_ASSIGNMENT", "linear_sum_assignment", "lsape", "lsape_fits", "lsape_map",
    "lsape_seconds", "lsape_value",
]

#: ``stats["stopped"]`` of a heuristic whose assignment does not fit the budget (it answers
#: the cheap bounds)
NO_ASSIGNMENT = "time or memory limit: the assignment does not fit"

# scipy's assignment on an n × m matrix (n ≤ m) of GED costs takes up to ~4e-11 n² m s on a
# laptop (worst on costs without ties: 2.6 s at 4,000 x 4,000) and holds about three copies
_SECONDS_PER_CUBE = 4e-11
BYTES_PER_ENTRY = 24


def lsape_seconds(n1: int, n2: int) -> float:
    """What :func:`lsape` on ``n1 + 1`` by ``n2 + 1`` costs may take, on the slow side."""
    small, large = sorted((n1, n2))
    return _SECONDS_PER_CUBE * small * small * large


def lsape_fits(n1: int, n2: int, budget, count: int = 1, before: float = 0.0,
               kernels: bool = False, bytes_per_entry: float = BYTES_PER_ENTRY) -> bool:
    """Whether ``count`` assignments between ``n1`` and ``n2`` nodes, after ``before``
    seconds of other work (which runs compiled ``kernels``), fit the time and memory left in
    ``budget`` (a :class:`gedkit.budget.Budget`), first-call start-ups included; the work
    takes ``bytes_per_entry`` bytes per entry of an ``(n1 + 1) x (n2 + 1)`` matrix.

    >>> from gedkit.budget import Budget
    >>> lsape_fits(20, 20, Budget(timeout=0.1)), lsape_fits(4000, 4000, Budget(timeout=0.1))
    (True, False)
    """
    seconds = before + count * lsape_seconds(n1, n2) + start_up_seconds(kernels, scipy=True)
    return (affordable(seconds, budget)
            and bytes_per_entry * (n1 + 1) * (n2 + 1) < budget.memory_left())


@cache
def _solver() -> Any:
    """SciPy's assignment routine. Importing ``scipy.optimize`` for it costs 0.3-0.7 s (the
    package imports its whole toolbox); the routine is a compiled module of its own, loaded
    here from its file when SciPy is laid out as usual, else through the package."""
    import scipy

    folder = Path(scipy.__file__).parent / "optimize"
    try:
        path = next(folder / f"_lsap{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                    if (folder / f"_lsap{suffix}").is_file())
        loader = importlib.machinery.ExtensionFileLoader("scipy.optimize._lsap", str(path))
        spec = importlib.util.spec_from_file_location(loader.name, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module.linear_sum_assignment
    except (StopIteration, ImportError, OSError, AttributeError):
        from scipy.optimize import linear_sum_assignment

        return linear_sum_assignment


def linear_sum_assignment(costs: np.ndarray, maximize: bool = False) -> tuple[np.ndarray, ...]:
    """SciPy's :func:`scipy.optimize.linear_sum_assignment`, without importing
    ``scipy.optimize`` (see :func:`_solver`).

    >>> linear_sum_assignment(np.array([[1.0, 2.0], [3.0, 0.0]]))[1].tolist()
    [0, 1]
    """
    return _solver()(costs, maximize=maximize)


def lsape(costs: np.ndarray) -> tuple[np.ndarray, float]:
    """Cheapest node map for an ``(n1+1) × (n2+1)`` matrix of per-node costs (last column
    deletion, last row insertion), and its total.

    With ``n1 ≤ n2`` (else the same on the transposed costs) it is one ``n1 × n2`` assignment:
    every insertion is paid up front, and row ``i`` on column ``j`` costs the smaller of
    substituting (less ``j``'s insertion) and deleting ``i`` (``j`` then stays inserted).
    Every row finds a column, so the deleted rows get one each, and both problems have the
    same optimum; this is much smaller than the ``(n1 + n2)``-square form with ε rows and
    columns, and far faster on fractional costs.

    Returns
    -------
    forward : ndarray of int64
        ``forward[i]`` is the node of g2 that node ``i`` of g1 takes, -1 for deletion.
    value : float
        The minimum: substitutions and deletions of the rows, plus insertions of the columns
        no row takes.

    Examples
    --------
    >>> forward, value = lsape(np.array([[5.0, 0.0, 9.0], [0.0, 5.0, 9.0], [1.0, 1.0, 0.0]]))
    >>> forward.tolist(), value
    ([1, 0], 0.0)
    >>> lsape(np.array([[5.0, 1.0], [0.0, 0.0]]))[0].tolist()   # deleting beats substituting
    [-1]
    """
    n1, n2 = costs.shape[0] - 1, costs.shape[1] - 1
    if n1 > n2:  # the same problem seen from g2: deletions and insertions swap
        backward, value = lsape(costs.T)
        forward = np.full(n1, -1, dtype=np.int64)
        mapped = np.flatnonzero(backward >= 0)
        forward[backward[mapped]] = mapped
        return forward, value
    substitute = costs[:n1, :n2] - costs[n1, :n2][None, :]
    delete = costs[:n1, n2]
    rows, cols = linear_sum_assignment(np.minimum(substitute, delete[:, None]))
    forward = np.full(n1, -1, dtype=np.int64)
    keep = substitute[rows, cols] <= delete[rows]
    forward[rows[keep]] = cols[keep]
    return forward, lsape_value(costs, forward)


def lsape_value(costs: np.ndarray, forward: np.ndarray) -> float:
    """Total of ``costs`` under the node map ``forward`` (see :func:`lsape`)."""
    n1, n2 = costs.shape[0] - 1, costs.shape[1] - 1
    taken = np.zeros(n2, dtype=bool)
    taken[forward[forward >= 0]] = True
    rows = costs[np.arange(n1), np.where(forward >= 0, forward, n2)].sum()
    return float(rows + costs[n1, :n2][~taken].sum())


def lsape_map(costs: np.ndarray) -> np.ndarray:
    """The node map of :func:`lsape` alone.

    >>> lsape_map(np.array([[5.0, 0.0, 9.0], [0.0, 5.0, 9.0], [1.0, 1.0, 0.0]])).tolist()
    [1, 0]
    """
    return lsape(costs)[0]
