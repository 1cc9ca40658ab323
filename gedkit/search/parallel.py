"""Many queries on worker processes: each worker opens the collection file read-only once."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import sys
import tempfile
from typing import Any

from gedkit.errors import OptionError

__all__ = ["resolve_jobs", "run"]

_WORKER: dict[str, Any] = {}


def resolve_jobs(n_jobs: Any, queries: int) -> int:
    """Worker processes for ``n_jobs`` (-1 every core, -2 all but one...), at most one per
    query."""
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise OptionError(f"n_jobs must be a non-zero integer, got {n_jobs!r}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    jobs = n_jobs if n_jobs > 0 else max(1, (cores or 1) + 1 + n_jobs)
    return max(1, min(jobs, queries))


def _start(path: str, task: tuple) -> None:
    from gedkit.search.collection import Collection

    _WORKER["coll"] = Collection.open(path)
    _WORKER["task"] = task


def _answer(query):
    run, parameter, model, verify = _WORKER["task"]
    return run(_WORKER["coll"], query, parameter, model, verify, None)


def run(coll, run, graphs, parameter, model, verify, jobs: int, shown) -> list:
    """``run`` on every query graph in ``jobs`` processes, results in query order."""
    temp = None
    path = coll.path
    if path is None:  # in memory: the workers read a copy on disk
        fd, temp = tempfile.mkstemp(suffix=".gdb")
        os.close(fd)
        target = sqlite3.connect(temp)
        coll._store.conn.backup(target)
        target.close()
        path = temp
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    results = []
    try:
        with context.Pool(jobs, initializer=_start,
                          initargs=(path, (run, parameter, model, verify))) as pool:
            for result in pool.imap(_answer, graphs):
                results.append(result)
                shown.query_done()
    finally:
        if temp is not None:
            os.unlink(temp)
    return results
