"""What the learned methods' steps cost, so that they start only what a budget can pay for.

Importing torch, one network call, a decoding step, the association graph of a pair: none of
them can be stopped half-way, so ``gelato`` and ``nga`` estimate each one (time and memory)
before they start it, and shrink, skip or replace what would not finish (each method's module
says how). NumPy only: nothing here imports torch.

- **Time** comes from sizes times rates. Rates differ tenfold between machines and with the
  load on them, so they are measured rather than assumed: NumPy's speed by a probe of about a
  millisecond (:func:`entry_seconds`), the network's while it runs (the methods refine their
  estimates after every call), and the one-off costs when they are paid: the torch import,
  and torch's first optimiser (which loads its compiler machinery). A process cannot time
  them before paying for them, so the last few of each are remembered in
  ``learned-timings.json`` in gedkit's cache folder (``$XDG_CACHE_HOME/gedkit``, else
  ``~/.cache/gedkit``), and :func:`torch_import_cost` and :func:`optimiser_cost` answer with
  the slowest of them and a margin, or with a laptop's figures
  (:data:`DEFAULT_IMPORT_SECONDS`...) before the first.
- **Memory** is the growth of the process's resident size since the solve started, against
  the budget's ``memory`` or, without one, :data:`DEFAULT_MEMORY` (:class:`Allowance`).
- **Threads**: the networks run on :data:`NETWORK_THREADS` CPU threads (:func:`network_threads`).
  Their batches are small (tens of thousands of rows of width 128 or less), so more threads
  gain little on an idle machine, while on a loaded one (or beside other solving processes)
  every small operation waits for a descheduled thread: measured on a 2-core machine under
  load, a Gelato call of 900 candidates took 0.68 s on two threads and 4 ms on one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np

from gedkit.budget import DEFAULT_MEMORY, resident
from gedkit.errors import MissingDependencyError

__all__ = [
    "DEFAULT_IMPORT_BYTES", "DEFAULT_IMPORT_SECONDS", "DEFAULT_MEMORY",
    "DEFAULT_OPTIMISER_BYTES", "DEFAULT_OPTIMISER_SECONDS", "NETWORK_THREADS", "Allowance",
    "entry_seconds", "how_many", "import_torch", "network_threads", "optimiser_cost", "resident",
    "torch_import_cost", "torch_installed", "warm_optimiser",
]

#: growth of the resident size a learned method allows itself when the budget sets no memory
#: importing torch (and gedkit's network code) on a 2-core laptop, before it was ever measured
DEFAULT_IMPORT_SECONDS = 3.0
DEFAULT_IMPORT_BYTES = 400 << 20
#: torch's first optimiser of a process (nga's optimisation steps), before it was measured
DEFAULT_OPTIMISER_SECONDS = 2.0
DEFAULT_OPTIMISER_BYTES = 100 << 20
#: torch's CPU threads while a learned method's network runs (see the module docstring)
NETWORK_THREADS = 1
_IMPORT_MARGIN = 1.25  # the estimate: the slowest import remembered, times this
_REMEMBERED = 5  # imports remembered
_TIMINGS = "learned-timings.json"
_OPTIMISER_READY = False  # a first optimiser was built in this process
_PROBE = 1 << 17  # entries of the NumPy probe (1 MiB of float64)


class Allowance:
    """The memory a solve may still take (:meth:`gedkit.budget.Budget.memory_left`: its
    budget's ``memory``, or :data:`DEFAULT_MEMORY`, less what the process has grown by since
    the call began), as an object a decoder is handed (tests hand it a fixed one).

    >>> from gedkit.budget import Budget
    >>> Allowance(Budget(memory=1 << 20)).left() <= 1 << 20
    True
    """

    def __init__(self, budget) -> None:
        self.budget = budget

    def left(self) -> float:
        """Bytes the solve may still grow by (negative once over)."""
        return self.budget.memory_left()


def entry_seconds() -> float:
    """Seconds NumPy takes per entry of a reduction over a float64 array, on this machine
    under its present load (the best of three passes over 1 MiB: about a millisecond).

    >>> 0 < entry_seconds() < 1e-6
    True
    """
    probe = np.random.default_rng(0).random(_PROBE)
    best = np.inf
    for _ in range(3):
        tick = time.perf_counter()
        probe.argmin()
        best = min(best, time.perf_counter() - tick)
    return max(best, 1e-12) / _PROBE


def how_many(seconds: float, each: float, most: int) -> int:
    """How many tasks of ``each`` (seconds or bytes) fit in ``seconds`` (``most`` when any
    number does).

    >>> how_many(1.0, 0.3, 8), how_many(float("inf"), 0.3, 8), how_many(-1.0, 0.3, 8)
    (3, 8, 0)
    """
    if math.isinf(seconds) or each <= 0:
        return most
    return max(0, int(seconds // each))


def torch_installed() -> bool:
    """Whether torch can be imported (without importing it)."""
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None  # None: imports of it are blocked
    return importlib.util.find_spec("torch") is not None


def _timings_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gedkit" / _TIMINGS


def _read() -> dict:
    try:
        data = json.loads(_timings_path().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: the defaults stand


def _remembered(stage: str) -> list[dict]:
    seen = _read().get(stage)
    return [i for i in seen if isinstance(i, dict)
            and all(isinstance(i.get(k), (int, float)) for k in ("seconds", "bytes"))
            ] if isinstance(seen, list) else []


def _estimate(stage: str, default: tuple[float, float]) -> tuple[float, float]:
    seen = _remembered(stage)
    if not seen:
        return default
    return (_IMPORT_MARGIN * max(i["seconds"] for i in seen),
            _IMPORT_MARGIN * max(i["bytes"] for i in seen))


def torch_import_cost() -> tuple[float, float]:
    """(seconds, bytes) importing torch would cost now: nothing once imported, else the slowest
    import remembered (see the module docstring) with a margin, else the defaults."""
    if "torch" in sys.modules:
        return 0.0, 0.0
    return _estimate("torch_import", (DEFAULT_IMPORT_SECONDS, float(DEFAULT_IMPORT_BYTES)))


def optimiser_cost() -> tuple[float, float]:
    """(seconds, bytes) torch's first optimiser of a process would cost now (it loads torch's
    compiler machinery: ~1.4 s and ~70 MB here), remembered like the import: nothing once
    :func:`warm_optimiser` ran."""
    if _OPTIMISER_READY:
        return 0.0, 0.0
    return _estimate("torch_optimiser",
                     (DEFAULT_OPTIMISER_SECONDS, float(DEFAULT_OPTIMISER_BYTES)))


def import_torch(feature: str = "the learned solver gelato") -> ModuleType:
    """The ``torch`` module, imported now if need be, timed and remembered; a
    :class:`~gedkit.errors.MissingDependencyError` naming ``feature`` without it."""
    if sys.modules.get("torch") is not None:
        return sys.modules["torch"]
    before, tick = resident(), time.perf_counter()
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", feature, "learn") from None
    _remember("torch_import", time.perf_counter() - tick, max(0, resident() - before))
    return torch


def warm_optimiser() -> None:
    """Build a first optimiser now (torch imported), timed and remembered."""
    global _OPTIMISER_READY
    if _OPTIMISER_READY:
        return
    torch = sys.modules["torch"]
    before, tick = resident(), time.perf_counter()
    torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))])
    _OPTIMISER_READY = True
    _remember("torch_optimiser", time.perf_counter() - tick, max(0, resident() - before))


def _remember(stage: str, seconds: float, nbytes: int) -> None:
    """Add a one-off cost to the file (atomically; a folder that cannot be written is no
    error)."""
    path = _timings_path()
    data = _read()
    data[stage] = [*_remembered(stage),
                   {"seconds": round(seconds, 3), "bytes": nbytes}][-_REMEMBERED:]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                         suffix=".tmp") as f:
            json.dump(data, f)
        os.replace(f.name, path)
    except OSError:
        pass


@contextlib.contextmanager
def network_threads() -> Iterator[None]:
    """torch's intra-op threads at most :data:`NETWORK_THREADS` for the duration; as they were
    afterwards (torch must be imported)."""
    torch = sys.modules["torch"]
    before = torch.get_num_threads()
    torch.set_num_threads(min(before, NETWORK_THREADS))
    try:
        yield
    finally:
        torch.set_num_threads(before)
