"""Dask distributed, optional (``pip install 'gedkit[dask]'``): where gedkit reaches it, with
:mod:`gedkit.cluster_direct`.

:func:`as_client` checks what a caller passed as ``client=``, :func:`connect` opens a client on
a scheduler's address (the command line's ``--scheduler ADDRESS``); neither imports Dask until
it is asked for. :func:`run_tasks` runs one job's tasks on a cluster as Dask tasks (``pairwise``:
chunks of seconds); the collection searches, whose tasks are short enough that the scheduler's
round trips count, run theirs through :func:`gedkit.cluster_direct.run_direct`.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import pickle
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gedkit.errors import (
    ClusterError,
    ClusterLost,
    GedkitError,
    MissingDependencyError,
    OptionError,
)

__all__ = ["as_client", "check_workers", "connect", "distributed", "on_scheduler", "parallelism",
           "run_tasks", "stop_when_cancelled", "within_grace", "workers_within"]

#: seconds the command line waits for a scheduler before giving up
CONNECT_TIMEOUT = 30


def distributed(feature: str) -> Any:
    """The ``distributed`` module, or a one-line :class:`MissingDependencyError` naming
    ``feature`` and the extra that installs it."""
    try:
        import distributed as module
    except ImportError:
        raise MissingDependencyError("distributed", feature, "dask") from None
    return module


def as_client(client: Any, feature: str = "pairwise(client=...)") -> Any:
    """``client`` if it is a running ``dask.distributed.Client``; else a one-line error (without
    Dask installed: how to install it).

    >>> from gedkit.errors import GedkitError
    >>> try:
    ...     as_client(42)
    ... except GedkitError as err:  # OptionError, or MissingDependencyError without Dask
    ...     print("got int" in str(err) or "pip install 'gedkit[dask]'" in str(err))
    True
    """
    module = distributed(feature)
    if not isinstance(client, module.Client):
        raise OptionError(f"client= must be a dask.distributed.Client, got {type(client).__name__}")
    if client.status not in ("running", "connecting", "newly-created"):
        raise OptionError(f"client= is a Dask client that is {client.status}, not running")
    return client


@contextlib.contextmanager
def on_scheduler(address: str | None) -> Iterator[Any]:
    """A client on the Dask scheduler at ``address`` (``tcp://host:8786``...) for the body,
    closed after it (None without an address: the job runs here). A scheduler that cannot
    be reached, or that is lost during the body (killed: Dask then retries for 30 s and says
    it "timed out trying to connect"), is a one-line error."""
    if address is None:
        yield None
        return
    client = connect(address)
    logger, quiet = logging.getLogger("distributed.client"), _LostScheduler()
    logger.addFilter(quiet)
    try:
        yield client
    except (OSError, TimeoutError) as exc:  # (Dask's lost connections are OSErrors)
        raise ClusterLost(f"lost the Dask scheduler at {address} during the job "
                          f"({said(exc)})") from None
    finally:
        with contextlib.suppress(Exception):  # a client whose scheduler is gone
            client.close()
        logger.removeFilter(quiet)


class _LostScheduler(logging.Filter):
    """Drops what Dask's client logs on losing its scheduler, which :func:`on_scheduler`
    says itself in one line: its "Failed to reconnect" and, as it closes, the tracebacks of
    its own cancelled coroutines (a scheduler killed mid-search printed two)."""

    def filter(self, record: logging.LogRecord) -> bool:
        import asyncio

        if record.getMessage().startswith("Failed to reconnect to scheduler"):
            return False
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError)


def connect(address: str) -> Any:
    """A client on the Dask scheduler at ``address``; one that cannot be reached is a
    one-line error within :data:`CONNECT_TIMEOUT` seconds and a little more, whatever
    answers there: a server that accepts and never answers held Dask's handshake for 5
    minutes, and one that sends its own greeting (ssh) made Dask's reader allocate exabytes
    and fail with a traceback."""
    module = distributed("--scheduler")
    _refused(address)
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            outcome["client"] = module.Client(address, timeout=CONNECT_TIMEOUT)
        except Exception as exc:  # whatever the connection raised: said in one line below
            outcome["error"] = exc

    trying = threading.Thread(target=attempt, name="gedkit-dask-connect", daemon=True)
    trying.start()
    trying.join(CONNECT_TIMEOUT + _CONNECT_GRACE)
    if "client" in outcome:
        return outcome["client"]
    exc = outcome.get("error")
    if exc is None:
        why = ("nothing answered as a Dask scheduler within "
               f"{CONNECT_TIMEOUT + _CONNECT_GRACE:g} s")
    elif isinstance(exc, OSError | TimeoutError | ValueError):
        why = said(exc)
    elif isinstance(exc, TypeError) and "ssl_context" in str(exc):  # (Dask's words for it)
        why = ("a tls:// address needs Dask's TLS settings: the CA file, and this client's "
               "certificate and key (distributed.comm.tls.* in Dask's configuration)")
    else:  # not Dask's protocol that answered
        why = f"what answers there does not speak Dask's protocol ({type(exc).__name__})"
    raise GedkitError(f"cannot reach the Dask scheduler at {address}: {why} (a scheduler "
                      "listens on port 8786 unless told otherwise)")


#: seconds past :data:`CONNECT_TIMEOUT` that :func:`connect` leaves Dask to give up itself
_CONNECT_GRACE = 5


def said(exc: BaseException) -> str:
    """``exc`` in one line (its type where it says nothing)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def _refused(address: str) -> None:
    """The one-line error at once where nothing listens at a TCP ``address`` (the host
    refuses the connection) or its host name is unknown, instead of Dask's retries until
    :data:`CONNECT_TIMEOUT`; other addresses and other failures are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    text = address if "://" in address else f"tcp://{address}"
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as err:  # (a port out of range waited 30 s for Dask to give up)
        raise GedkitError(f"cannot reach the Dask scheduler at {address}: not an address "
                          f"({said(err)})") from None
    if parts.scheme != "tcp" or not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except ConnectionRefusedError:
        raise GedkitError(f"cannot reach the Dask scheduler at {address}: nothing listens "
                          "there (connection refused)") from None
    except socket.gaierror as err:
        raise GedkitError(f"cannot reach the Dask scheduler at {address}: unknown host "
                          f"{host!r} ({err.strerror})") from None
    except OSError:
        return  # unreachable, timed out...: Dask says it in its words


def parallelism(client: Any) -> int:
    """How many tasks the cluster runs at once (its workers' threads; at least 1)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # a scheduler that does not say: plan for one
        return 1


#: seconds a job waits for a first worker on a scheduler that has none
WORKER_WAIT = 30.0


def workers_within(client: Any) -> dict:
    """``client.nthreads()`` once its cluster has a worker, waiting up to :data:`WORKER_WAIT`
    seconds, Ctrl-C heard between slices; empty where none joined in time (a scatter to a
    scheduler without workers failed after Dask's own 30 s with its traceback, and a search
    waited for ever)."""
    import asyncio

    from gedkit.budget import interrupted

    until = time.monotonic() + WORKER_WAIT
    while not (nthreads := client.nthreads()) and time.monotonic() < until:
        if interrupted():
            raise KeyboardInterrupt
        with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
            client.wait_for_workers(1, timeout=min(1.0, max(0.01, until - time.monotonic())))
    return nthreads


#: seconds the workers have to say whether they can import gedkit
CHECK_TIMEOUT = 30.0
# each client's workers found able to import gedkit (looked at once per worker)
_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def check_workers(client: Any, addresses: Iterable[str]) -> None:
    """A one-line :class:`ClusterError` where a worker of ``addresses`` cannot import gedkit
    (started from a Python without it): each of the job's tasks would fail to unpickle there,
    and the data shared by them never reached it (Dask's traceback from the scatter, or a
    worker fetching it again and again while the job waited for ever)."""
    checked = _CHECKED.setdefault(client, set())
    new = sorted(set(addresses) - checked)
    if not new:
        return
    try:
        # (exec, a builtin, reaches a worker without gedkit; gedkit's own functions do not)
        answers = client.run(exec, "import gedkit", workers=new, on_error="return",
                             callback_timeout=CHECK_TIMEOUT)
    except TimeoutError:  # (a worker whose event loop is stuck: the job would wait for it)
        raise ClusterError(f"the Dask workers at {', '.join(new[:3])}"
                           f"{' ...' if len(new) > 3 else ''} did not answer within "
                           f"{CHECK_TIMEOUT:.0f} s whether they can import gedkit") from None
    failed = {address: answer for address, answer in answers.items()
              if isinstance(answer, BaseException)}
    checked.update(address for address in new if address in answers and address not in failed)
    if failed:
        address, why = next(iter(sorted(failed.items())))
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise ClusterError(f"the Dask worker at {address}{more} cannot import gedkit "
                           f"({said(why)}): install gedkit, with the same versions of its "
                           "packages, where every worker runs")


def _scattered(client: Any, packed: Any) -> Any:
    """``packed`` broadcast to every worker of ``client``'s cluster, once they are known to
    import gedkit; Dask's ``TimeoutError`` "No valid workers found" where none joined within
    :data:`WORKER_WAIT` seconds, without the traceback an in-process scheduler logged."""
    nthreads = workers_within(client)
    if not nthreads:
        raise TimeoutError("No valid workers found")
    check_workers(client, nthreads)
    return client.scatter(packed, broadcast=True, hash=False)


@contextlib.contextmanager
def stop_when_cancelled(job: str) -> Iterator[None]:
    """Inside a Dask task: once the task's client cancels it or goes away, or stops its
    ``job`` (:func:`_stop_job`, Ctrl-C), every solve's budget within expires and
    :func:`gedkit.budget.interrupted` is true, as on Ctrl-C
    (:func:`gedkit.budget.cancelled_by`). Dask does not stop a task that is running: a
    stopped matrix's chunks (256 pairs, at a long per-pair limit hours of work) and a killed
    client's kNN tasks held the workers after the client was gone. Outside a Dask task it
    changes nothing."""
    from gedkit.budget import cancelled_by

    event, finished = threading.Event(), threading.Event()
    try:
        from distributed import get_worker
        from distributed.worker import thread_state

        worker, key = get_worker(), thread_state.key
    except (ImportError, ValueError, AttributeError):  # not in a Dask task
        yield
        return

    def watch() -> None:
        while not finished.wait(_CANCEL_CHECK):
            task = worker.state.tasks.get(key)
            if task is None or task.state == "cancelled":
                event.set()
                return

    watcher = threading.Thread(target=watch, name="gedkit-task-cancel", daemon=True)
    watcher.start()
    try:
        with _stopped_with(job, event), cancelled_by(event):
            yield
    finally:
        finished.set()


#: seconds between a running task's looks at whether it was cancelled
_CANCEL_CHECK = 0.25

# on a worker: the stops of the tasks running there (Dask tasks, and those of
# gedkit.cluster_direct's runners), by job, and the jobs stopped lately: a
# task of one that starts after its stop (queued there) stops at once, and the wind-down
# ends as soon as the tasks in flight answer, not after the grace. A stopped job's tasks
# left are cancelled within _GRACE seconds, so the last few jobs are enough to remember.
_JOB_STOPS: dict[str, set[threading.Event]] = {}
_STOPPED_JOBS: deque[str] = deque(maxlen=64)
_JOBS_LOCK = threading.Lock()


@contextlib.contextmanager
def _stopped_with(job: str, stop: threading.Event) -> Iterator[None]:
    """Within it, ``stop`` is set when ``job`` is stopped (at once where it was already)."""
    with _JOBS_LOCK:
        if job in _STOPPED_JOBS:
            stop.set()
        _JOB_STOPS.setdefault(job, set()).add(stop)
    try:
        yield
    finally:
        with _JOBS_LOCK:
            stops = _JOB_STOPS[job]
            stops.discard(stop)
            if not stops:
                del _JOB_STOPS[job]


def _stop_job(job: str) -> None:
    """On a worker (``client.run``): the tasks of ``job`` running there stop as on Ctrl-C,
    their solves answering with what they found, and those that start later stop at once."""
    with _JOBS_LOCK:
        _STOPPED_JOBS.append(job)
        stops = list(_JOB_STOPS.get(job, ()))
    for stop in stops:
        stop.set()


#: seconds the tasks running at Ctrl-C are awaited, told to stop, for what they found
_GRACE = 2.0


def within_grace(take_next: Callable[[float], None], waiting: Callable[[], bool]) -> None:
    """After Ctrl-C, a job's running tasks told to stop: ``take_next(seconds)`` takes what
    comes back within ``seconds`` while ``waiting()``, for :data:`_GRACE` seconds at most; a
    second Ctrl-C ends it at once, what came back before it kept (a job's tasks were dropped
    whole: a range search 8 s into its shards answered "0 of 3 queries answered", a matrix
    lost the pairs of every chunk running)."""
    until = time.monotonic() + _GRACE
    with contextlib.suppress(KeyboardInterrupt):
        while waiting() and (left := until - time.monotonic()) > 0:
            take_next(left)


# times a task is sent again after the data shared by all tasks was lost with a worker
_RESEND_TRIES = 3


class _OnePickle:
    """``value`` as Dask sends it, but pickled once, here, and unpickled on the worker only
    when a task first asks for it (:func:`_call`): Dask sends each numpy array within an
    object as a frame of its own (a search's job holding 100 query graphs took 10-13 ms to
    scatter to 2 workers, 2.5 ms so), and a value that cannot be pickled fails here with one
    line, not in Dask's traceback. Unpickled by Dask as it arrived, the job of 100 query
    graphs (1.5 ms to unpickle) held the search's first tasks back 12-15 ms more than the
    same bytes unpickled by the task (2 workers, medians of 12 searches)."""

    __slots__ = ("blob", "value")

    def __init__(self, value: Any) -> None:
        import cloudpickle  # as Dask pickles: lambdas and local classes too

        self.value = value
        try:
            self.blob = cloudpickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a lock or an open file in a cost model...
            from gedkit.pairwise import _reason

            raise GedkitError(f"what the Dask workers need cannot be sent to them: "
                              f"{_reason(exc)} (a cost function holding a lock, a file or a "
                              "connection?)") from None

    def __reduce__(self) -> tuple:
        return _Pickled, (self.blob,)


class _Pickled:
    """A :class:`_OnePickle` as it reaches a worker: its bytes, unpickled by the first
    :meth:`get`. The worker holds one such object per broadcast and hands that same object to
    every task of the job, so the value lives as long as Dask keeps the broadcast."""

    __slots__ = ("blob", "value")
    _unpickling = threading.Lock()  # a worker's threads may start the job's tasks at once

    def __init__(self, blob: bytes) -> None:
        self.blob, self.value = blob, _Pickled

    def __reduce__(self) -> tuple:  # passed on (to a worker that joins, spilled): the bytes
        return _Pickled, (self.blob,)

    def get(self) -> Any:
        """The value; a :class:`ClusterError` where this worker cannot unpickle it (every
        task of the job would fail alike: a cost function from a module only the client
        has)."""
        with self._unpickling:
            if self.value is _Pickled:  # (not yet unpickled)
                try:
                    self.value = pickle.loads(self.blob)
                except Exception as exc:
                    from gedkit.pairwise import _reason

                    raise ClusterError(
                        f"a Dask worker cannot load the job: {_reason(exc)} (the workers "
                        "need every module its graphs and cost model come from)") from None
            return self.value


def _call(job: str, function: Callable, shared: Any, *args: Any) -> Any:
    """``function(shared, *args)`` on a worker, stopped once its task is cancelled or its
    ``job`` stopped (:func:`stop_when_cancelled`); one in this process gets ``shared``
    without its pickling."""
    with stop_when_cancelled(job):
        if isinstance(shared, _OnePickle):
            return function(shared.value, *args)
        return function(shared.get() if isinstance(shared, _Pickled) else shared, *args)


def _finished(completed: Any, seconds: float) -> list[Any]:
    """The futures of the ``as_completed`` set ``completed`` that have finished, waiting up
    to ``seconds`` for one where none has."""
    batch = completed.next_batch(block=False)
    if batch:
        return batch
    woken = getattr(completed, "thread_condition", None)  # (notified as one finishes)
    if woken is None:
        time.sleep(min(seconds, 0.01))
    else:
        with woken:  # (looked at under its lock: a future finished meanwhile is not missed)
            if not completed.has_ready():
                woken.wait(timeout=seconds)
    return completed.next_batch(block=False)


def _heard(completed: Any) -> Iterator[Any]:
    """The futures of the ``as_completed`` set ``completed`` as they finish, waiting in
    slices between which Ctrl-C is heard: raised, or as the flag of a caller inside
    :class:`~gedkit.budget.interruptible` (``gedkit search``'s batches)."""
    from gedkit.budget import interrupted

    while not completed.is_empty():
        batch = _finished(completed, 0.25)
        if batch:
            yield from batch
        elif interrupted():
            raise KeyboardInterrupt


def run_tasks(client: Any, function: Callable, shared: Any, tasks: Iterator[tuple[Any, tuple]],
              done: Callable[[Any, Any, BaseException | None], None], window: int) -> None:
    """Run ``function(shared, *args)`` on the cluster for every ``(key, args)`` of ``tasks``,
    ``shared`` broadcast to every worker once, at most ``window`` tasks in flight.

    ``tasks`` is pulled only when a slot is free, so a task built late can use what the
    tasks before it found (kNN's k-th distance so far). ``done(key, value, error)`` is called
    in this thread as each task finishes, ``error`` the exception of a task that failed
    (Dask's ``KilledWorker`` for one that lost a worker every time it ran: the scheduler
    runs the tasks of a lost worker again elsewhere first). On Ctrl-C the tasks running are
    told to stop (their solves answer with what they found, as on Ctrl-C here) and ``done``
    gets the answers that come back within :data:`_GRACE` seconds (:func:`within_grace`)
    before KeyboardInterrupt goes on; on return or on an exception the tasks still running
    are cancelled.
    """
    from distributed import as_completed

    packed = _OnePickle(shared)
    remote = _scattered(client, packed)
    job = uuid.uuid4().hex  # what its tasks are stopped by on the workers (_stop_job)
    running: dict[Any, tuple[Any, tuple, Any, int]] = {}  # future -> key, args, shared, tries
    completed = as_completed()

    def launch(wave: list[tuple[Any, tuple]], tries: int) -> None:
        """The ``(key, args)`` tasks of ``wave``, in one message to the scheduler (two
        submits may reach it 10 ms apart: Dask's client batches its messages)."""
        if not wave:
            return
        columns = zip(*(args for _, args in wave), strict=True)
        futures = client.map(_call, [job] * len(wave), [function] * len(wave),
                             [remote] * len(wave), *map(list, columns), pure=False)
        for future, (key, args) in zip(futures, wave, strict=True):
            running[future] = (key, args, remote, tries)
            completed.add(future)

    def submit() -> None:
        launch(list(itertools.islice(tasks, max(0, window - len(running)))), 0)

    def take_next(seconds: float) -> None:
        """The answers of the stopped tasks that come back within ``seconds``, to ``done``
        (a task that failed, or was lost, leaves its key undone)."""
        for future in _finished(completed, seconds):
            key = running.pop(future)[0]
            if future.status == "finished":
                done(key, future.result(), None)

    try:
        submit()
        for future in _heard(completed):
            key, args, used, tries = running.pop(future)
            try:
                value, error = future.result(), None
            except Exception as exc:  # KilledWorker, a task Dask could not run...
                if tries < _RESEND_TRIES and used.status != "finished":
                    # the shared data was lost with a worker that held the only copy (one that
                    # joined after the broadcast never got one): send it again, rerun the task
                    if used is remote:
                        remote = _scattered(client, packed)
                    launch([(key, args)], tries + 1)
                    continue
                value, error = None, exc
            done(key, value, error)
            submit()
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):  # (a scheduler lost: nothing comes back anyway)
            # (within the grace: a worker that does not answer is not waited for longer)
            client.run(_stop_job, job, callback_timeout=_GRACE)
        within_grace(take_next, lambda: bool(running))
        raise
    finally:
        if running:  # Ctrl-C (or an error here): the cluster stops what is left of this job
            client.cancel(list(running))
        with contextlib.suppress(Exception):
            client.cancel(remote)
