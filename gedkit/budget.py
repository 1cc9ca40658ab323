"""Limits of one solve, shared by every GED solver and MCES method: time, memory, threshold,
and Ctrl-C.

A :class:`Budget` starts its clock when the public call starts, so reading graphs, compiling
costs, imports and kernel compilation all count. Running out of it never raises: solvers poll
:meth:`Budget.expired` between steps and return their best bounds. :func:`interruptible` makes a
first Ctrl-C do the same (a second one raises as usual), and :func:`solve_within` is the one
entry point that runs a method within a budget: kernels compiled in time or cheaper bounds
instead, the time of the whole call recorded, an interrupted solve marked as such.
"""

from __future__ import annotations

import _signal  # signal's own functions, without its enum wrapping (below)
import math
import numbers
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from gedkit.errors import OptionError, Words, render, warn

__all__ = [
    "COMMAND_TIMEOUT", "DEFAULT_MEMORY", "INTERRUPT_GRACE", "KERNELS_NOT_READY",
    "KERNELS_OVER_MEMORY", "MEMORY_CAP", "NOTICE_AFTER", "NUMBA_START_BYTES", "PAIR_TIMEOUT",
    "TIME_LIMIT",
    "Budget", "Cut",
    "Deadline", "InterruptedWarning", "LongRunNotice", "answer_first", "call_started",
    "cancelled_by",
    "check_number", "check_setup_fits", "forget_interrupt", "heuristic_stop",
    "interrupt_grace", "interrupted", "interruptible", "kernels_fit", "resident",
    "seconds_left", "solve_within", "time_ran_out", "within", "worker_interrupts",
]

#: seconds after which a solve without a time limit says it is still running
NOTICE_AFTER = 10.0
#: default time limit per pair of a batch (:func:`gedkit.pairwise`, ``gedkit pairwise``)
PAIR_TIMEOUT = 1.0
#: default time limit of a one-pair command (``gedkit ged``, ``gedkit mces``)
COMMAND_TIMEOUT = 60.0
#: bytes a solve may build when its budget names no memory limit (1 GiB)
DEFAULT_MEMORY = 1 << 30
#: ``stats["stopped"]`` of a solve that answered with its cheap bounds because the kernels
#: it needs were not compiled and compiling them did not fit its time limit
KERNELS_NOT_READY = "kernels not compiled yet (compiling in the background)"
#: what numba's start-up and a first solve's kernels add to a process (measured: ~103 MB for
#: the start, LLVM's mostly, and ~40 MB more for the first GED solve's kernels)
NUMBA_START_BYTES = 150 << 20
#: the causes a limited step names first in ``stats["stopped"]`` ("memory cap: IPFP's
#: matrices do not fit the memory left"), and what :func:`cut_cause` answers
TIME_LIMIT, MEMORY_CAP = "time limit", "memory cap"
#: ``stats["stopped"]`` of a solve that answered with its cheap bounds because loading the
#: compiled kernels into the process would overrun its memory cap
KERNELS_OVER_MEMORY = (f"{MEMORY_CAP}: loading the compiled kernels (~150 MB) does not fit the "
                       "memory left")

_INTERRUPT = threading.Event()
# a per-call stop (gedkit.ged_iter's consumer leaving early), seen by the budgets of the thread
# and context that set it
_CANCEL: ContextVar[threading.Event | Deadline | None] = ContextVar("gedkit_cancel", default=None)
#: the budget of the solve under way (:func:`solve_within`) that has a notice to give (named,
#: without a time limit): the budgets its stages make check it too (``auto``'s stages each
#: hold their own, and its long last search said nothing after 10 s)
_WATCHED: ContextVar[Budget | None] = ContextVar("gedkit_watched", default=None)


class LongRunNotice(UserWarning):
    """A solve without a time limit has run long (said once per solve). The arguments are
    the message's parts (:func:`gedkit.errors.render`): its advice is worded for Python
    callers, and for the command line when rendered with ``cli=True``."""

    def render(self, cli: bool = False) -> str:
        return render(self.args, cli)

    def __str__(self) -> str:
        return self.render()


class InterruptedWarning(UserWarning):
    """Ctrl-C stopped a solve, which returned the best bounds it had found."""


def check_number(value: Any, name: str, *, minimum: float = 0.0, strict: bool = True,
                 none: bool = False) -> None:
    """Raise :class:`OptionError` naming argument ``name`` unless ``value`` is a real number
    (not a bool, not NaN) above ``minimum`` (at least it when not ``strict``), or None when
    ``none``.

    >>> check_number(0.5, "timeout"), check_number(None, "timeout", none=True)
    (None, None)
    >>> check_number(float("nan"), "tau", strict=False)
    Traceback (most recent call last):
    gedkit.errors.OptionError: tau must be a number >= 0, got nan
    """
    if none and value is None:
        return
    # (plain ints and floats first: the ABC check alone is a microsecond, every call)
    ok = (type(value) in (int, float) or (isinstance(value, numbers.Real)
          and not isinstance(value, bool))) and not math.isnan(value)
    if not ok or not (value > minimum if strict else value >= minimum):
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        # (on the command line: its flag, and "none" as the flag spells it)
        flag = _FLAGS.get(name, "--" + name.replace("_", "-"))
        # (a size as the command line spells it, memory="1G": what Python takes instead)
        hint = Words(" (bytes, e.g. 2**30; sizes like '1G' are for the command line's "
                     "--memory)", "") if name == "memory" and isinstance(value, str) else ""
        raise OptionError(Words(name, flag), f" must be a number {bound}",
                          Words(" (or None)", " (or none)") if none else "", f", got {value!r}",
                          hint)


#: the command-line flags of check_number's arguments where not ``--`` and the name
_FLAGS = {"tau": "--within", "min_similarity": "--similarity"}


_STATM: dict[int, int] = {}  # process id -> its open /proc/<pid>/statm (a fork reopens it)
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident() -> int:
    """The process's resident size in bytes now (Linux: a few microseconds, so every budget
    can take it); elsewhere its peak so far, which only overstates the growth to come."""
    try:
        pid = os.getpid()
        if pid not in _STATM:
            _STATM[pid] = os.open(f"/proc/{pid}/statm", os.O_RDONLY)
        return int(os.pread(_STATM[pid], 128, 0).split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError, AttributeError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def release_freed() -> None:
    """Hand the memory freed since back to the system (glibc's ``malloc_trim``; nothing
    elsewhere). Once a large array is freed, glibc serves arrays up to its size from its
    heap and keeps them when freed: after two 2,000-node pairs' set-ups a process stayed
    76 MB larger, which the next pair's cap, counted from its own start, did not see (a
    pairwise job under memory=300M grew by 371 MiB)."""
    from gedkit.workers import glibc

    libc = glibc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


#: the most :meth:`Budget.slowdown` stretches an estimate by
MAX_SLOWDOWN = 4.0


_CROWDING: list[float] = [0.0, 1.0]  # when last read, and what


def crowding() -> float:
    """Threads ready to run on this machine (this one included) per core this process may
    use, as Linux's ``/proc/loadavg`` says at this moment (read at most every 0.1 s); 1
    where there is none to read."""
    now = time.monotonic()
    if now - _CROWDING[0] < 0.1:
        return _CROWDING[1]
    ratio = 1.0
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].partition("/")[0])
        from gedkit.workers import cores

        ratio = running / cores()
    except (OSError, ValueError, IndexError):
        pass
    _CROWDING[:] = [now, ratio]
    return ratio


@dataclass
class Budget:
    """Limits for one solve.

    ``timeout`` (seconds) and ``memory`` (bytes the process may grow by from the budget's
    start) never make a solver raise: it stops and returns its best bounds. ``threshold``
    lets a solver stop as soon as it knows whether the distance is at most that value, or
    with ``decide=False`` prune beyond it but find the best answer within it (exact search;
    other methods read the threshold as a decision).
    ``what`` names the solve in the notice a long run without a timeout gives after
    :data:`NOTICE_AFTER` seconds.
    """

    timeout: float | None = None
    memory: int | None = None
    threshold: float | None = None
    decide: bool = True
    start: float = field(default_factory=time.perf_counter)
    what: str | None = field(default=None, repr=False)
    # the process's size when the call started: ``memory`` caps the growth from here
    start_resident: int = field(default_factory=resident, repr=False)
    _noticed: bool = field(default=False, init=False, repr=False)

    def __post_init__(self):
        if self.timeout is not None:
            check_number(self.timeout, "timeout", none=True)
            if math.isinf(self.timeout):  # no limit (it overflowed a method's step count)
                self.timeout = None
        if self.memory is not None:
            check_number(self.memory, "memory", none=True)
            if math.isinf(self.memory):  # no cap, as an infinite timeout is no limit (it
                self.memory = None  # overflowed the conversion to bytes: a traceback)
        if self.threshold is not None:
            check_number(self.threshold, "threshold", strict=False, none=True)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def slowdown(self) -> float:
        """How much slower than its estimates the call's work runs now: the threads ready to
        run per core this process may use, at this moment (:func:`crowding`), between 1 and
        :data:`MAX_SLOWDOWN`: 1 on an idle machine, 1.5 with two other busy processes on two
        cores. Estimates of work are stretched by it before they are weighed against the
        time left: on such a machine a 2 s limit let a 2,000-node assignment start that
        ended at 3.1-3.5 s. (Not the call's wall over CPU time: a call that waited, for a
        compile in another process, would read as slow for the rest of it.)"""
        return min(MAX_SLOWDOWN, max(1.0, crowding()))

    def remaining(self) -> float:
        """Seconds left (infinity without a timeout; 0 once interrupted or cancelled)."""
        cancel = _CANCEL.get()
        if _heard_here() or (cancel is not None and cancel.is_set()):
            return 0.0
        # a search's time limit per query bounds every solve inside it: a solve that plans
        # its steps by the time left must see it (a kNN's pair given 1 s with 10 ms left)
        left = cancel.left() if isinstance(cancel, Deadline) else math.inf
        watched = _WATCHED.get()
        if watched is not None and watched is not self:
            watched._notice()
        if self.timeout is None:
            if left < math.inf:
                return left
            self._notice()
            return math.inf
        return max(0.0, min(self.timeout - self.elapsed(), left))

    def _notice(self) -> None:
        """The notice, once, when this named budget without a time limit has run long."""
        if self.what is not None and not self._noticed and self.timeout is None and (
                self.elapsed() > NOTICE_AFTER):
            self._noticed = True
            # attributed to the line the user wrote (stacklevel 3 named budget.py's caller)
            warn(LongRunNotice(
                f"{self.what} has run {NOTICE_AFTER:g} s without a time limit; Ctrl-C "
                "returns the best bounds found so far, and ",
                Words("timeout=", "--timeout S"), " bounds a run"))

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def memory_left(self) -> float:
        """Bytes the call may still grow by: its cap (``memory``, else
        :data:`DEFAULT_MEMORY`) less what the process has grown by since the budget began
        (imports and compiled kernels loaded by the call count: in a fresh process they are
        ~130-160 MB, and a method sized against the whole cap overran it by that much)."""
        cap = self.memory if self.memory is not None else DEFAULT_MEMORY
        return cap - max(0, resident() - self.start_resident)

    def cap_left(self) -> int | None:
        """The memory cap a step of this call works under: what the call has left of its
        cap (None without one; a step given the whole cap counted its growth afresh: auto's
        stages overran a 256 MB cap by what came before them)."""
        return None if self.memory is None else max(1, int(self.memory_left()))

    def part(self, timeout: float | None, **limits: Any) -> Budget:
        """A budget for one step of this call: ``timeout`` seconds (None: none), the memory
        the call has left (:meth:`cap_left`), and ``limits`` (a ``threshold``, ``decide``)."""
        return Budget(timeout=timeout, memory=self.cap_left(), **limits)

    def decided(self, lower: float, upper: float) -> bool:
        """Whether bounds ``lower``..``upper`` answer what :attr:`threshold` asks: the
        distance is beyond it, or (where the budget decides) within it; with ``decide``
        False, as a search's verifications ask, a map within it settles nothing (the best
        one within it is sought)."""
        t = self.threshold
        return t is not None and (lower > t or (self.decide and upper <= t))



class StepClock:
    """When a plain-Python search of a small pair stops: once ``share`` of the time
    ``budget`` has left when it starts (at most ``most`` seconds) has passed, the budget
    has expired or Ctrl-C came; the clock is read every ``every`` steps (:meth:`step`). The
    cheap bounds' searches of both questions (:func:`gedkit.solvers.cheap.small_search`,
    :func:`gedkit.mces.cheap.small_search`) stop by it."""

    __slots__ = ("budget", "count", "every", "stop_at", "stopped")

    def __init__(self, budget: Budget, share: float = 0.3, most: float = 0.25,
                 every: int = 256):
        self.budget, self.every = budget, every
        self.stop_at = time.perf_counter() + min(share * budget.remaining(), most)
        self.count, self.stopped = 0, False

    def step(self) -> bool:
        """One more step; whether the search must stop (and stays stopped)."""
        self.count += 1
        if self.count % self.every == 0 and (time.perf_counter() > self.stop_at
                                              or self.budget.expired()):
            self.stopped = True
        return self.stopped


@contextmanager
def cancelled_by(event: threading.Event | Deadline) -> Iterator[None]:
    """Within it, every budget of this thread expires once ``event`` is set."""
    token = _CANCEL.set(event)
    try:
        yield
    finally:
        _CANCEL.reset(token)


class Deadline:
    """An event as :func:`cancelled_by` takes: set once ``seconds`` have passed since it was
    made, or once ``outer`` (the event it nests in, if any) is set. A clock, not a timer
    thread: read by every budget's :meth:`Budget.remaining`."""

    __slots__ = ("at", "outer")

    def __init__(self, seconds: float, outer: Any = None):
        self.at, self.outer = time.monotonic() + seconds, outer

    def passed(self) -> bool:
        """Whether its time has run out (whatever ``outer`` says)."""
        return time.monotonic() >= self.at

    def left(self) -> float:
        """Seconds until it is set by its own clock or by an ``outer`` deadline's (inf where
        ``outer`` is another kind of event, which has no clock)."""
        own = max(0.0, self.at - time.monotonic())
        return min(own, self.outer.left()) if isinstance(self.outer, Deadline) else own

    def is_set(self) -> bool:
        return self.passed() or (self.outer is not None and self.outer.is_set())

    def ran_out(self, stopped: bool) -> bool:
        """Whether a loop that ``stopped`` as on Ctrl-C did so because this time ran out,
        not for Ctrl-C or ``outer``."""
        return (stopped and self.passed() and not _INTERRUPT.is_set()
                and not (self.outer is not None and self.outer.is_set()))


def within(seconds: float | None) -> AbstractContextManager[Deadline | None]:
    """Within it, once ``seconds`` have passed, every budget of this thread expires and
    :func:`interrupted` is true, as on Ctrl-C (None: nothing changes); yields the
    :class:`Deadline`, which says afterwards whether the time ran out. A search's time
    limit per query: its loops stop as on Ctrl-C and answer with what they found.

    >>> with within(0.0) as deadline:
    ...     Budget(timeout=5).expired(), interrupted()
    (True, True)
    >>> deadline.passed(), interrupted()
    (True, False)
    """
    # without a limit one shared context that yields None: a range search enters one per
    # query with candidates, and a generator's context costs 0.7 µs more
    return _NO_LIMIT if seconds is None else _limited(seconds)


_NO_LIMIT = nullcontext()


def time_ran_out() -> bool:
    """Whether this thread's solves stop because the time of the innermost :func:`within`
    ran out, not for Ctrl-C or a cancellation around it: a search stopped so still makes up
    its answer with a few quick bounds, where Ctrl-C means now."""
    cancel = _CANCEL.get()
    return isinstance(cancel, Deadline) and cancel.ran_out(True)


@contextmanager
def _limited(seconds: float) -> Iterator[Deadline]:
    deadline = Deadline(seconds, _CANCEL.get())
    with cancelled_by(deadline):
        yield deadline


#: seconds between a public name's first-use import and a call of it that count as "at once"
_AT_ONCE = 0.05


def call_started(name: str) -> float:
    """When a call of the public function ``name`` (``"ged"``, ``"mces"``) started: now, or,
    where the first use of ``gedkit.NAME`` has just imported its module (a fresh process's
    ``gedkit.ged(...)``: 0.2-0.35 s of imports before the function runs), when that import
    began, so that the call's time limit and ``result.time`` count it as the call's."""
    now = time.perf_counter()
    package = sys.modules.get("gedkit")
    first = getattr(package, "_FIRST_USE", [None])
    if first[0] is not None and first[0][0] == name and now - first[0][2] < _AT_ONCE:
        started = first[0][1]
        first[0] = None  # once
        return started
    return now


def seconds_left() -> float:
    """Seconds until this thread's time limit (:func:`within`) runs out: inf without one, 0
    once it or Ctrl-C has stopped the call. Loops sizing their next step by it keep the limit
    (a kernel call of 0.1 s under a 10 ms limit overran it tenfold).

    >>> with within(60.0):
    ...     0 < seconds_left() <= 60
    True
    >>> seconds_left()
    inf
    """
    if interrupted():
        return 0.0
    cancel = _CANCEL.get()
    return cancel.left() if isinstance(cancel, Deadline) else math.inf


def _heard_here() -> bool:
    """Whether Ctrl-C stops this thread's solves: it reaches the main thread's (a process's
    signals are its main thread's), not those of the application's other threads, which it
    stopped or not as a sub-millisecond race went (they run to their own limits)."""
    return _INTERRUPT.is_set() and threading.current_thread() is threading.main_thread()


def interrupted() -> bool:
    """Whether Ctrl-C was pressed inside :func:`interruptible` (a solve of the main thread),
    or this thread's call was cancelled (:func:`cancelled_by`: a Dask task whose client went
    away stops its search loops as Ctrl-C stops them)."""
    if _heard_here():
        return True
    cancel = _CANCEL.get()
    return cancel is not None and cancel.is_set()


class interruptible:
    """Within it, a first Ctrl-C makes every running solve stop and return its best bounds
    (their budgets expire); a second one raises :class:`KeyboardInterrupt` as usual. Outside
    the main thread, or nested, it changes nothing.

    (A class, not a generator-based context manager: it is entered once per solve, and a
    generator's frame took a third of its time on a small molecule pair.)
    """

    __slots__ = ("_previous",)

    def __enter__(self) -> None:
        self._previous = None
        if threading.current_thread() is not threading.main_thread():
            return
        # _signal: signal.signal/getsignal convert handlers to and from enums, 9 µs a solve
        # of the ~15 this takes (a tenth of a small molecule pair's whole call)
        previous = _signal.getsignal(signal.SIGINT)
        if getattr(previous, "_gedkit", False):  # nested: the outer one handles it
            return
        _signal.signal(signal.SIGINT, _on_interrupt)
        self._previous = (previous,)

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            _signal.signal(signal.SIGINT, self._previous[0])
            _INTERRUPT.clear()


def _on_interrupt(signum, frame):
    """The SIGINT handler inside :class:`interruptible`: a first Ctrl-C stops the solves, a
    second one raises (inside :func:`answer_first`, the third)."""
    if _INTERRUPT.is_set():
        if _SPARED[0] > 0:
            _SPARED[0] -= 1
            return
        raise KeyboardInterrupt
    _INTERRUPT.set()


_on_interrupt._gedkit = True  # type: ignore[attr-defined]
#: second Ctrl-Cs :func:`_on_interrupt` lets pass (see :func:`answer_first`)
_SPARED = [0]


@contextmanager
def answer_first() -> Iterator[None]:
    """Within it, after a first Ctrl-C a second one does not raise: the solve under way
    answers with what it found, as after one (a third raises). For a command that prints
    one answer: a Ctrl-C pressed twice in quick succession, as people do, printed none, the
    second one landing while the first one's search was winding down."""
    _SPARED[0] = 1
    try:
        yield
    finally:
        _SPARED[0] = 0


#: seconds a last short step may still take after a first Ctrl-C (:func:`interrupt_grace`):
#: gedkit.ged's polish of a large pair's map, which a time limit's answer has (a 200-node
#: pair's exact search stopped by Ctrl-C at 2 s answered 572, by --timeout 2 359)
INTERRUPT_GRACE = 0.25


@contextmanager
def interrupt_grace() -> Iterator[bool]:
    """After a first Ctrl-C heard by this (main) thread's solves, yields True and, within
    it, sets the stop aside: budgets run again, for a last step the caller bounds by
    :data:`INTERRUPT_GRACE`. A second Ctrl-C there raises at once, and the block ends
    without it (what the caller had stands); leaving, the first Ctrl-C stands again.
    Without one, yields False and changes nothing."""
    if not _heard_here():
        yield False
        return
    previous = _signal.getsignal(signal.SIGINT)
    try:
        _signal.signal(signal.SIGINT, _raise_interrupt)
        _INTERRUPT.clear()
        yield True
    except KeyboardInterrupt:
        pass  # the second Ctrl-C: the block's step is dropped, not the answer
    finally:
        _signal.signal(signal.SIGINT, previous)
        _INTERRUPT.set()


def _raise_interrupt(signum, frame):
    """The SIGINT handler within :func:`interrupt_grace`: stop now."""
    _INTERRUPT.set()
    raise KeyboardInterrupt


class counted_interrupts:
    """Within it (in the main thread, inside :class:`interruptible`), Ctrl-C never raises:
    the first one stops the solves as there, and ``presses`` counts them all, for a caller
    awaiting other processes' answers that decides itself what a second one ends (raised
    between two steps of its bookkeeping, it lost the answers already in)."""

    __slots__ = ("_previous", "presses")

    def __enter__(self) -> counted_interrupts:
        self.presses, self._previous = 0, None
        if threading.current_thread() is threading.main_thread():
            self._previous = (_signal.getsignal(signal.SIGINT),)
            _signal.signal(signal.SIGINT, self._press)
        return self

    def _press(self, signum, frame) -> None:
        self.presses += 1
        _INTERRUPT.set()

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            _signal.signal(signal.SIGINT, self._previous[0])


def worker_interrupts() -> None:
    """In a worker process: Ctrl-C (a terminal's reaches the workers too) stops its solves,
    as inside :class:`interruptible`, and never raises: an idle worker kept for the next
    search has nothing to stop, and the parent decides what ends."""
    signal.signal(signal.SIGINT, lambda signum, frame: _INTERRUPT.set())


def forget_interrupt() -> None:
    """Forget a Ctrl-C heard before (a kept worker's, between two searches)."""
    _INTERRUPT.clear()


def solve_within(method: Any, problem: Any, budget: Budget) -> Any:
    """``method.solve(problem, budget)``, or the method's cheaper ``fallback`` when the kernels
    it needs cannot be compiled within the budget (see :mod:`gedkit._kernels.warm`) or when,
    before they are compiled, the fallback's bounds already meet.

    The result's ``time`` is the whole call's, from the budget's start; a solve stopped by
    Ctrl-C says so in ``stats["stopped"]``, an unproven one whose time ran out says "time
    limit" there unless the method gave its own reason, and a proven one gives no limit as
    its reason.
    """
    watching = (budget.what is not None and budget.timeout is None
                and _WATCHED.get() is None)
    token = _WATCHED.set(budget) if watching else None
    try:
        return _solve_within(method, problem, budget)
    finally:
        if token is not None:
            _WATCHED.reset(token)


def setup_bytes(n1: int, n2: int, mces: bool = False) -> int:
    """What a GED problem (``mces``: an MCES problem) of ``n1`` and ``n2`` nodes holds before
    any method runs (see :func:`check_setup_fits`)."""
    adjacency = 8 * (n1 * n1 + n2 * n2)
    return adjacency if mces else 16 * (n1 + 1) * (n2 + 1) + adjacency


def check_setup_fits(n1: int, n2: int, budget: Budget, mces: bool = False) -> None:
    """Refuse a ``memory`` cap below what a GED problem of ``n1`` and ``n2`` nodes holds
    before any method runs, with the cheap bounds every method falls back to: two
    ``(n1+1) x (n2+1)`` matrices of 8 bytes an entry (the costs, and the bounds' rounded
    copy) and each graph's edge-index and label-adjacency matrices, 4 bytes each an entry
    (~122 MiB at 2,000 nodes: a 100M cap was overrun by a third). An MCES problem (``mces``)
    holds the adjacency matrices alone, which its cheapest bounds read (~61 MiB at 2,000
    nodes: a 30M cap was overrun by 45 MiB)."""
    if budget.memory is None:
        return
    need = setup_bytes(n1, n2, mces)
    if need > budget.memory_left():
        # (small pairs in K: "~0 MB ... give at least 1M" of a 14-atom pair under 1K)
        unit = 2**20 if need >= 2**20 else 2**10
        # the least cap that passes here: the set-up and what the call grew by before it
        # (it said 153M, 1.25 times the set-up, where 130M passed)
        least = math.ceil((need + budget.memory - budget.memory_left()) / unit) * unit
        roomy = math.ceil(1.25 * least / unit) * unit
        raise OptionError(
            Words(f"memory={budget.memory}", f"--memory {_size_text(budget.memory)}"),
            f" is below what a pair of {n1} and {n2} nodes takes to set up (~"
            f"{need / unit:.0f} {'MiB' if unit == 2**20 else 'KiB'}: its "
            f"{'' if mces else 'cost matrix, '}adjacency matrices and cheapest bounds); give "
            "at least ",
            Words(f"memory={least}", f"--memory {_size_text(least)}"),
            " (", Words(f"memory={roomy}", f"--memory {_size_text(roomy)}"),
            " or more leaves room for bounds better than the cheapest)")


def _size_text(size: float) -> str:
    """``size`` bytes as the command line spells them (``--memory 100`` was echoed "0M").

    >>> _size_text(100), _size_text(100 << 10), _size_text(3 << 29), _size_text(2 << 30)
    ('100', '100K', '1536M', '2G')
    """
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{int(size // scale)}{unit}"
    return f"{size / (1 << 20):.1f}M" if size >= 1 << 20 else f"{int(size)}"


def heuristic_stop(method: str, why: str) -> str:
    """The stop reason of a heuristic's unproven answer that more time would not change (one
    wording for pairwise, searches and edit paths, which each said it their own way)."""
    return f"the method {method!r} is a heuristic: {why}"


def kernels_fit(budget: Budget, problem: Any = None) -> bool:
    """Whether compiled kernels may run within ``budget``'s memory: numba started in this
    process already, or its start-up (:data:`NUMBA_START_BYTES`) fits what is left (a fresh
    process under memory=100M grew by 130-160 MB with every method), and with a
    ``problem``, as much again as its set-up for the first steps' work (a pairwise job's
    2,000-node pair under memory=160M loaded numba into a cap it filled, then grew by 218
    MB)."""
    from gedkit._kernels import warm

    if warm.started():
        return True
    step = 0 if problem is None else setup_bytes(problem.n1, problem.n2)
    return budget.memory_left() >= NUMBA_START_BYTES + step


#: the share of a solve's time left it may wait for numba's start in the background, when
#: a start is under way (see :func:`gedkit._kernels.warm.start_later`)
START_WAIT_SHARE = 0.5


def _solve_within(method: Any, problem: Any, budget: Budget) -> Any:
    from gedkit._kernels import warm
    from gedkit.anytime import listening, report

    if method.kernels and not kernels_fit(budget, problem):
        result = method.fallback(problem, budget)
        if not result.optimal:
            result.stats["stopped"] = KERNELS_OVER_MEMORY
    elif method.kernels and not warm.all_ready(method.kernels):
        # the cheap bounds first: on small or alike graphs they often prove the answer, which
        # then need not wait for a compile (a fresh install's first call: about a minute)
        result = method.fallback(problem, budget)
        if result.optimal and result.stats.get("tie_break_complete") is not False:
            warm.compile_later(method.kernels)
        elif warm.wait(method.kernels, budget):
            result = method.solve(problem, budget)
        else:
            result.stats["stopped"] = KERNELS_NOT_READY
    else:
        # (whether numba's start-up is paid is read from numba itself, see warm.started: a
        # method with kernels may have solved this problem without running any)
        if method.kernels and not warm.started():
            from gedkit.pacing import affordable, start_up_seconds

            if affordable(start_up_seconds(kernels=True), budget):
                warm.start()  # one thread at a time (threads' first solves at once)
            else:  # (half the time left: the solve has the rest, kernels started or not)
                warm.start_later(wait=START_WAIT_SHARE * budget.remaining())
        result = method.solve(problem, budget)
    if not type(method).__module__.startswith("gedkit."):
        _check_plugin(method, problem, result)
    if listening():  # an anytime stream (gedkit.ged_iter, on_improve=) hears of it
        report(result.assignment, result.lower_bound, result.method)
    if _heard_here():
        result.stats["stopped"] = "interrupted"
    elif result.optimal and result.stats.get("stopped") not in (None, "optimal", "interrupted"):
        # a step the limit left out ("one expansion of the search does not fit") did not
        # stop a solve that proved its answer without it: no reason to give
        del result.stats["stopped"]
    elif not result.optimal and budget.expired():
        # the method may not have said why it stopped short; its budget does
        result.stats.setdefault("stopped", "time limit")
    elif not result.optimal and result.stats.get("cut") and "stopped" not in result.stats:
        # a stage the budget left out (a learned method's network, its decoding), the solve
        # ended before its limit: said as a solve the limit stopped says it (gelato's
        # "network not run: torch import ~1.8 s > 2.0 s left" gave no reason)
        result.stats["stopped"] = f"{cut_cause(result.stats['cut'][0])}: {result.stats['cut'][0]}"
    result.time = budget.elapsed()
    return result


class Cut(str):
    """One entry of a method's ``stats["cut"]``: what a limit left out, as said (a plain
    string everywhere it is shown or stored), with its ``cause``, :data:`TIME_LIMIT` or
    :data:`MEMORY_CAP` (Ctrl-C's counts as the time's: it ends a budget as that does), so
    that no reader tells one from the other by the wording.

    >>> cut = Cut("LP bound not run (needs ~40 MiB)", MEMORY_CAP)
    >>> cut.cause, cut.after("nga: ").cause, cut.after("nga: ")
    ('memory cap', 'memory cap', 'nga: LP bound not run (needs ~40 MiB)')
    """

    cause: str

    def __new__(cls, text: str, cause: str) -> Cut:
        cut = super().__new__(cls, text)
        cut.cause = cause
        return cut

    def after(self, prefix: str) -> Cut:
        """This cut, said after ``prefix`` (same cause)."""
        return Cut(prefix + self, self.cause)

    def __reduce__(self) -> tuple:
        return Cut, (str(self), self.cause)


def cut_cause(cut: str) -> str:
    """What left out a stage a method's ``stats["cut"]`` names: its :class:`Cut`'s cause;
    the time limit for a plain string (a method that does not say).

    >>> cut_cause(Cut("network not run: needs ~291 MiB, 168 MiB left", MEMORY_CAP))
    'memory cap'
    >>> cut_cause("decoding: 3 of 32 branches (time)")
    'time limit'
    """
    return getattr(cut, "cause", TIME_LIMIT)


def _check_plugin(method: Any, problem: Any, result: Any) -> None:
    """A method registered from outside gedkit keeps the contract every answer is held to:
    its own result type, on this problem, lower bound at most the upper, and (GED) the upper
    bound the cost of its node map by ``Problem.cost`` (without this check a faulty plug-in's
    answer reached the user as it was: upper 6.5 for a map of cost 7, "optimal" with lower
    7.5). A one-line error names what broke."""
    from gedkit.errors import GedkitError
    from gedkit.numeric import tolerance
    from gedkit.result import Result

    name = getattr(method, "name", type(method).__name__)
    kind = type(result).__name__
    if not hasattr(result, "lower_bound") or getattr(result, "problem", None) is not problem:
        raise GedkitError(f"method {name!r} returned {kind}, not the result of the problem it "
                          "was given (see gedkit.testing.check_solver)")
    if result.lower_bound > result.upper_bound + tolerance(result.upper_bound):
        raise GedkitError(f"method {name!r} returned lower bound {result.lower_bound:g} above "
                          f"its upper bound {result.upper_bound:g}")
    if isinstance(result, Result):
        cost = problem.cost(result.assignment)
        if abs(cost - result.upper_bound) > tolerance(cost):
            raise GedkitError(f"method {name!r} returned upper bound {result.upper_bound:g}, "
                              f"but its node map costs {cost:g} (the upper bound is the map's "
                              "cost: see gedkit.testing.check_solver)")
