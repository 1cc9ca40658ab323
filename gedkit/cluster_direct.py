"""A job's tasks run by one Dask actor per worker, not scheduled as Dask tasks.

A task scheduled through Dask waits ~10-15 ms before it starts and as long again before its
result is back (two busy cores: the scheduler's transitions, not the messages); a range search
of 100 queries over 100,000 molecules takes ~0.25 s a worker, so those waits were 8-10% of
it. :func:`run_direct` keeps :func:`gedkit.cluster.run_tasks`'s contract but calls a
:class:`Runner` on each worker (a Dask actor, made once per client and worker and kept): a call
and its answer take ~2-3 ms. What every task shares reaches each runner once, as bytes, with
the first task it runs; the runner keeps it until the job ends. The runners of a worker run
tasks in threads of their own, as many as the worker has, kept for the worker's life.

What the scheduler did for tasks is done here: a task whose call fails (its worker lost, its
runner gone) runs again on another runner; Ctrl-C or an error here stops the job's running
tasks (their budgets expire, their loops stop, as on Ctrl-C); a client that goes away releases
its runners, whose running tasks then stop the same way. The scheduler's dashboard shows the
runners, not the tasks they run.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import pickle
import queue
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from gedkit.cluster import (
    _OnePickle,
    _Pickled,
    _stop_job,
    _stopped_with,
    check_workers,
    within_grace,
)
from gedkit.errors import GedkitError

__all__ = ["Runner", "run_direct", "running_calls"]

#: seconds between a runner's looks at whether its client still holds it
_RELEASE_CHECK = 0.25
#: times a task whose call failed (its worker lost) is sent to another runner
_RESEND_TRIES = 3
#: seconds the client waits for an answer before it looks whether Ctrl-C came
_SLICE = 0.25
#: seconds to wait for a worker's runner to be made (a worker busy with long Dask tasks may
#: not start one for a while: the job goes on without it)
_MAKE_TIMEOUT = 30.0
#: a worker's states in which its runners' watch ends
_GONE = ("closing", "closed", "closing_gracefully", "failed")


class Runner:
    """Runs tasks on the worker it lives on (a Dask actor): :meth:`run` for each task,
    :meth:`end` when its job is over. ``key``: its own Dask key, by which it sees that its
    client released it."""

    def __init__(self, key: str) -> None:
        from distributed import get_worker

        self._worker = get_worker()
        self._key = key
        self._threads = _threads(self._worker.state.nthreads)
        # what each job's tasks share; its tasks are stopped as a Dask task's are, by
        # gedkit.cluster's stops of the process's jobs
        self._jobs: dict[str, _Pickled] = {}
        self._lock = threading.Lock()
        self._watching = False

    async def run(self, token: str, blob: bytes | None, function: Callable,
                  args: tuple) -> tuple[bool, Any]:
        """``function(shared, *args)`` in one of the runner's threads, ``shared`` the job
        ``token``'s (its bytes ``blob`` with the job's first task here): ``(True, value)``,
        or ``(False, exception)`` where it raised."""
        self._watch()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, self._run, token, blob, function, args)

    async def end(self, token: str, stop: bool) -> None:
        """Forget job ``token``; ``stop``: its tasks still running stop."""
        with self._lock:
            self._jobs.pop(token, None)
        if stop:  # (and a task of it that starts here later stops at once)
            _stop_job(token)

    def _run(self, token: str, blob: bytes | None, function: Callable,
             args: tuple) -> tuple[bool, Any]:
        from gedkit.budget import cancelled_by

        with self._lock:
            shared = self._jobs.get(token)
            if shared is None:
                if blob is None:  # (its end came first: a Ctrl-C's)
                    return False, GedkitError("the job ended before this task ran")
                shared = self._jobs[token] = _Pickled(blob)
        stop = threading.Event()
        with _counted(), _stopped_with(token, stop), cancelled_by(stop):
            try:
                return True, function(shared.get(), *args)
            except Exception as exc:
                return False, _sendable(exc)

    def _watch(self) -> None:
        """Once: a thread that stops every job's tasks when the client releases the runner
        (it went away: its tasks would hold the worker's cores for nothing)."""
        if self._watching:
            return
        self._watching = True

        def watch() -> None:
            actors = self._worker.state.actors
            while self._key in actors and self._worker.status.name not in _GONE:
                time.sleep(_RELEASE_CHECK)
            with self._lock:
                tokens, self._jobs = list(self._jobs), {}
            for token in tokens:
                _stop_job(token)

        threading.Thread(target=watch, name="gedkit-runner-watch", daemon=True).start()


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _threads(n: int) -> ThreadPoolExecutor:
    """The threads every runner of this worker process runs its tasks in (made once, ``n``
    of them): they outlive a runner, so what a task keeps per thread (the collections a
    search opened, :mod:`gedkit.search.distributed`) is there for the next client's
    searches too (a new ``gedkit search --scheduler`` reopened 1.58 M molecules each time)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max(1, n), thread_name_prefix="gedkit-runner"))
        return _POOL[0]


_RUNNING = [0]  # tasks running in this process's runners
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def _counted() -> Iterator[None]:
    with _RUNNING_LOCK:
        _RUNNING[0] += 1
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING[0] -= 1


def running_calls() -> int:
    """Tasks running in this process's runners now."""
    return _RUNNING[0]


def _sendable(exc: Exception) -> Exception:
    """``exc``, or a :class:`GedkitError` naming it where it cannot be pickled back."""
    try:
        pickle.dumps(exc)
    except Exception:
        from gedkit.pairwise import _reason

        return GedkitError(_reason(exc))
    return exc


# -- on the client -----------------------------------------------------------------------------

@dataclass
class _Held:
    """A worker's runner as a client holds it: the actor's future (the runner lives as
    long as it), the actor, the worker's threads."""

    future: Any
    actor: Any
    slots: int


# each client's runners by worker address, and the worker each affinity's first task went to
_RUNNERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_HOMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MAKING = threading.Lock()


def runners(client: Any) -> dict[str, _Held]:
    """``client``'s runners, one per worker of its cluster (made for the workers that have
    none; those lost forgotten); after waiting for a first worker where there is none."""
    with _MAKING:
        # (a held runner's future holds its client: closed clients would stay here for ever)
        for closed in [c for c in _RUNNERS if c.status == "closed"]:
            del _RUNNERS[closed]
            _HOMES.pop(closed, None)
        held = _RUNNERS.setdefault(client, {})
        nthreads = client.nthreads() or _first_worker(client)
        check_workers(client, nthreads)  # (a runner cannot start where gedkit is missing)
        for address in list(held):
            if address not in nthreads or held[address].future.status != "finished":
                del held[address]
        making = {}
        for address in nthreads:
            if address not in held:
                key = f"gedkit-runner-{uuid.uuid4().hex}"
                making[address] = client.submit(Runner, key, key=key, actor=True,
                                                workers=[address], allow_other_workers=False)
        if making:
            from distributed import wait

            with contextlib.suppress(TimeoutError):
                wait(list(making.values()), timeout=_MAKE_TIMEOUT)
        for address, future in making.items():
            if future.status == "finished":
                # the actor's proxy binds itself to the process's current client as it is
                # unpickled: made while another client was current (a `with Client(...)`
                # block), its calls went through that one, and waited for ever once it closed
                with client.as_current():
                    actor = future.result()
                held[address] = _Held(future, actor, max(1, nthreads[address]))
            else:  # lost, or too busy to start one in time: the job goes on without it
                future.cancel()
        return held


def _first_worker(client: Any) -> dict:
    """``client.nthreads()`` once a worker has joined (:func:`gedkit.cluster.workers_within`);
    else a :class:`~gedkit.errors.ClusterError` (a search on a scheduler without workers
    waited for ever, deaf to its time limits)."""
    from gedkit.cluster import WORKER_WAIT, workers_within
    from gedkit.errors import ClusterError

    nthreads = workers_within(client)
    if nthreads:
        return nthreads
    raise ClusterError(f"no Dask worker joined the scheduler at {client.scheduler.address} "
                       f"within {WORKER_WAIT:.0f} s: start workers (dask worker ADDRESS)")


def run_direct(client: Any, function: Callable, shared: Any, tasks: Iterator[tuple[Any, tuple]],
               done: Callable[[Any, Any, BaseException | None], None], window: int,
               affinity: Callable[[tuple], Hashable] | None = None) -> None:
    """:func:`gedkit.cluster.run_tasks`, each task a call of a worker's :class:`Runner`.

    ``affinity(args)``, where given, names what a task would rather find where the first task
    with that name ran (a shard a worker has opened), in this job or an earlier one of the
    client's: it goes to that worker when one of its threads is free, else to another. A task
    whose call failed (its worker lost) runs on another runner, up to :data:`_RESEND_TRIES`
    times; then ``done`` gets the failure. Where no worker starts a runner within
    :data:`_MAKE_TIMEOUT` seconds, the tasks go to the scheduler as Dask tasks."""
    held = dict(runners(client))
    if not held:  # no worker started a runner in time: as Dask tasks, which wait for one
        from gedkit.cluster import run_tasks

        return run_tasks(client, function, shared, tasks, done, window)
    homes = _HOMES.setdefault(client, {})
    blob = _OnePickle(shared).blob
    token = uuid.uuid4().hex
    free = {address: h.slots for address, h in held.items()}
    sent: set[str] = set()  # the runners given the job's bytes
    answers: queue.SimpleQueue = queue.SimpleQueue()
    running: dict[int, tuple[Any, tuple, str, int]] = {}  # call -> key, args, runner, tries
    calls = itertools.count()
    again: list[tuple[Any, tuple, int]] = []  # tasks whose runner was lost, to run elsewhere

    def place(args: tuple) -> str:
        """The runner for a task with ``args`` (one has a free thread): its affinity's home
        where that has one, else the one with the most."""
        name = affinity(args) if affinity is not None else None
        home = homes.get(name)
        address = home if free.get(home, 0) > 0 else max(free, key=free.__getitem__)
        # (a task sent elsewhere while its home was busy leaves the home as it was)
        if name is not None and home not in free:
            homes[name] = address
        return address

    def launch(key: Any, args: tuple, tries: int) -> None:
        address = place(args)
        free[address] -= 1
        ident = next(calls)
        running[ident] = (key, args, address, tries)
        try:
            call = held[address].actor.run(token, None if address in sent else blob, function,
                                           args)
        except Exception as exc:  # the actor's worker known lost already
            answers.put((ident, None, exc))
            return
        sent.add(address)
        client.loop.add_callback(_relay, call, ident, answers)

    def fill() -> None:
        while len(running) < window and any(n > 0 for n in free.values()):
            if again:
                launch(*again.pop(0))
                continue
            task = next(tasks, None)
            if task is None:
                return
            launch(*task, 0)

    def take_next(seconds: float) -> None:
        """The next answer of a stopped task, where one comes within ``seconds``, to
        ``done`` (a task that failed leaves its key undone)."""
        try:
            ident, reply, failure = answers.get(timeout=seconds)
        except queue.Empty:
            return
        key = running.pop(ident)[0]
        if failure is None and reply[0]:
            done(key, reply[1], None)

    def wind_down() -> None:
        """After Ctrl-C: the tasks running told to stop (they hand back what they found, as
        a local worker's do), their answers taken (:func:`gedkit.cluster.within_grace`)."""
        for address in sent & held.keys():
            with contextlib.suppress(Exception):
                held[address].actor.end(token, True)
        within_grace(take_next, lambda: bool(running))

    try:
        fill()
        while running or again:
            try:
                ident, reply, failure = _next(answers)
            except KeyboardInterrupt:
                wind_down()
                raise
            key, args, address, tries = running.pop(ident)
            if failure is not None:  # the worker or its runner is gone: not one to use again
                free.pop(address, None)
                held.pop(address, None)
                with _MAKING:
                    _RUNNERS.get(client, {}).pop(address, None)
                if tries < _RESEND_TRIES and (free or _replace(client, held, free)):
                    again.append((key, args, tries + 1))
                else:
                    done(key, None, failure)
            else:
                if address in held:
                    free[address] += 1
                ok, value = reply
                done(key, value if ok else None, None if ok else value)
            fill()
    finally:
        for address in sent & held.keys():  # its bytes freed; after Ctrl-C, its tasks stopped
            with contextlib.suppress(Exception):
                held[address].actor.end(token, bool(running))


async def _relay(call: Any, ident: int, answers: queue.SimpleQueue) -> None:
    """``call``'s answer into ``answers`` as ``(ident, reply, None)``, its failure as
    ``(ident, None, exception)`` (on the client's event loop)."""
    try:
        answers.put((ident, await call, None))
    except Exception as exc:
        answers.put((ident, None, exc))


def _next(answers: queue.SimpleQueue) -> tuple:
    """The next answer, waiting in slices (Ctrl-C is heard between them: raised, or as the
    flag a caller inside :class:`~gedkit.budget.interruptible` has, e.g. ``gedkit search``'s
    batches, where a search on the cluster ran on to its end after Ctrl-C)."""
    from gedkit.budget import interrupted

    while True:
        with contextlib.suppress(queue.Empty):
            return answers.get(timeout=_SLICE)
        if interrupted():
            raise KeyboardInterrupt


def _replace(client: Any, held: dict, free: dict) -> bool:
    """Every runner of a job lost: the cluster's runners now (new workers'), whether any. (A
    scheduler lost too raises here, as Dask's client does: OSError or TimeoutError.)"""
    for address, h in runners(client).items():
        if address not in held:
            held[address], free[address] = h, h.slots
    return bool(free)
