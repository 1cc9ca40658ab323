"""How many worker processes a job gets: one rule for ``pairwise`` and the collection
searches (``n_jobs=``, ``--jobs``)."""

from __future__ import annotations

import numbers
import os
from typing import Any

from gedkit.errors import Note, OptionError, Words, warn

__all__ = ["cores", "resolve_jobs"]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def resolve_jobs(n_jobs: Any, tasks: int | None = None) -> int:
    """Worker processes for ``n_jobs``: that many (-1 every core, -2 all but one...), at most
    one per core, with a warning (more than one per core only shares the cores and
    multiplies the memory: each worker loads gedkit and its kernels, ~150 MB), and at most
    one per task where ``tasks`` says how many there are.

    None is one process, as in scikit-learn and joblib.

    >>> resolve_jobs(1), resolve_jobs(-1) == cores(), resolve_jobs(-1, tasks=1), resolve_jobs(None)
    (1, True, 1, 1)
    """
    if n_jobs is None:
        n_jobs = 1
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise OptionError(Words("n_jobs", "--jobs"), " must be a non-zero integer (-1 = all "
                          f"cores), got {n_jobs!r}")
    have = cores()
    jobs = int(n_jobs) if n_jobs > 0 else have + 1 + int(n_jobs)
    if jobs < 1:
        raise OptionError(Words(f"n_jobs={n_jobs}", f"--jobs {n_jobs}"),
                          f" leaves no worker on {have} cores")
    if jobs > have:
        warn(Note(Words(f"n_jobs={n_jobs}", f"--jobs {n_jobs}"),
                  f": this process may use {have} {'core' if have == 1 else 'cores'}; {have} "
                  f"worker {'process' if have == 1 else 'processes'} instead"))
        jobs = have
    return jobs if tasks is None else max(1, min(jobs, tasks))
