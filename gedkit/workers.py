"""How many worker processes a job gets: one rule for ``pairwise`` and the collection
searches (``n_jobs=``, ``--jobs``)."""

from __future__ import annotations

import functools
import numbers
import os
import threading
from typing import Any

from gedkit.errors import Note, OptionError, Words, warn

__all__ = ["cores", "die_with_parent", "fork_is_safe", "forked", "glibc", "inside",
           "resolve_jobs"]

#: daemon threads of gedkit's own that may hold locks while they run (a fork then copies
#: them held): a HiGHS solve left to drain, numba's start-up paid in the background
_BUSY_DAEMONS = ("gedkit-highs", "gedkit-numba-start-up")


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


def fork_is_safe(claim: bool = False) -> bool:
    """Whether worker processes may be forked from this process now: no other thread is
    inside a collection's call (:class:`inside`), nor a busy daemon of gedkit's. A fork
    copies every lock as it is held at that moment, and SQLite (unlike malloc) does not
    release its own in the child: two threads each searching with ``n_jobs=2`` forked a
    worker while the other thread was inside SQLite, and the worker waited for SQLite's
    lock for ever. Waits first for numba's start-up being paid in the background
    (:func:`gedkit._kernels.warm.settle`).

    ``claim``: where it is safe, no other thread enters a collection's call from now until
    this one calls :func:`forked` (its workers started), so that none can between the check
    and the fork (one did, opening its collection, and both workers of a search waited in
    SQLite's open for ever)."""
    from gedkit._kernels import warm

    warm.settle()
    me = threading.get_ident()
    with _GATE:
        if _FORKER[0] not in (None, me) or any(ident != me for ident in _INSIDE):
            return False
        if any(t.is_alive() and t.name in _BUSY_DAEMONS for t in threading.enumerate()):
            return False
        if claim:
            _FORKER[0] = me
    return True


def forked() -> None:
    """Other threads may enter collection calls again: this thread's claim
    (:func:`fork_is_safe`) is over, if it holds one."""
    with _GATE:
        if _FORKER[0] == threading.get_ident():
            _FORKER[0] = None
            _GATE.notify_all()


_INSIDE: dict[int, int] = {}  # thread ident -> how deep in collection calls it is
_GATE = threading.Condition(threading.Lock())  # guards both, and wakes threads a claim held
_FORKER: list[int | None] = [None]  # the thread that claimed the next fork, if any


class inside:
    """Marks the thread as inside a call that holds SQLite (a collection's, a pairwise
    results file's) until it returns (see :func:`fork_is_safe`)."""

    __slots__ = ()

    def __enter__(self) -> None:
        me = threading.get_ident()
        with _GATE:
            while _FORKER[0] not in (None, me):  # another thread forks its workers now
                _GATE.wait()
            _INSIDE[me] = _INSIDE.get(me, 0) + 1

    def __exit__(self, *exc: object) -> None:
        me = threading.get_ident()
        with _GATE:
            if _INSIDE[me] == 1:
                del _INSIDE[me]
            else:
                _INSIDE[me] -= 1


def die_with_parent(parent: int) -> None:
    """In a worker process started by ``parent`` (its pid) for one call: on Linux, have the
    system kill it when its parent dies (a parent killed with SIGKILL left its workers at
    100% CPU on a pair without a time limit, for as long as the pair took: they look for
    their parent only between pairs); elsewhere nothing. (Only for workers that live within
    the call of the thread that made them: the signal comes when that thread ends.)"""
    import signal

    libc = glibc()
    if libc is None or not hasattr(libc, "prctl"):
        return
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the request took hold
        os._exit(0)


@functools.cache
def glibc() -> Any:
    """This process's C library where it is Linux's (its functions callable), else None:
    looked for once (importing ctypes takes 1.4 ms most calls never need)."""
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None)
    except OSError:
        return None
