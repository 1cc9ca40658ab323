"""Molecules parsed by worker processes and handed back in order (``gedkit collection build
--jobs``).

RDKit's parse and reading its molecule into a graph are two thirds of building a collection
from SMILES; the workers do those, the caller keeps what needs its state (names, signatures
over the collection's vocabularies, storage). The workers are started by a fork server, not
forked from the caller, which may hold an open SQLite connection (a forked child that closes
it can upset the parent's file), and only once a file has proved long enough to pay for
their start.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any

from gedkit.errors import GedkitError

__all__ = ["in_order"]

#: records per task
CHUNK = 500
#: tasks waiting or under way per worker: enough to keep each busy, few enough that a file
#: of millions is not read ahead into memory
AHEAD = 3
#: records parsed here before workers start: a file shorter than that is done before they
#: would be ready (a fork server and its workers import gedkit and RDKit: ~1 s)
START_AFTER = 4 * CHUNK


def in_order(items: Iterator[tuple], parse: Callable[..., Any], args: tuple,
             jobs: int) -> Iterator[Any]:
    """``parse(*item, *args)`` of each of ``items``, in order: the first
    :data:`START_AFTER` in this process, the rest by ``jobs`` worker processes (``parse``
    and ``args`` must pickle; ``parse`` must not raise what it means to hand back). Closing
    the iterator (Ctrl-C, an error) drops the tasks not started."""
    for item in islice(items, START_AFTER):
        yield parse(*item, *args)
    first = list(islice(items, CHUNK))
    if not first:
        return
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["gedkit.io.chem", "rdkit.Chem"])
    else:  # (Windows: each worker starts afresh)
        context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_quiet_worker)
    waiting: deque[Future] = deque()
    try:
        chunk = first
        while chunk or waiting:
            try:  # (a pool a worker left broken refuses tasks too)
                while chunk and len(waiting) < AHEAD * jobs:
                    waiting.append(pool.submit(_parse_all, chunk, parse, args))
                    chunk = list(islice(items, CHUNK))
                done = waiting.popleft().result()
            except BrokenProcessPool:
                raise GedkitError("a worker process ended before handing back the molecules "
                                  "it parsed (killed, or out of memory?)") from None
            yield from done
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _parse_all(chunk: list[tuple], parse: Callable[..., Any], args: tuple) -> list:
    return [parse(*item, *args) for item in chunk]


def _quiet_worker() -> None:
    """Ctrl-C reaches a terminal's whole process group: the caller decides what stops (a
    worker's traceback on stderr would only bury the caller's message)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
