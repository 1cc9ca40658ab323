"""Anytime results: every improved upper bound (with its node map) and every raised lower bound
of a GED solve, as the solve finds them.

A solve started with a listener (``gedkit.ged(..., on_improve=f)``, or :func:`ged_iter`) has
its methods :func:`report` what they have: each result of a portfolio's stages, and exact
search between its kernel calls. The listener keeps the best of both bounds seen so far and
passes an :class:`Improvement` on whenever either gets better, so the stream is monotone:
upper bounds never rise, lower bounds never fall, and its last item is the call's answer.
"""

from __future__ import annotations

import atexit
import math
import queue
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.errors import OptionError
from gedkit.numeric import tolerance

__all__ = ["Improvement", "ged_iter", "report"]


@dataclass(frozen=True)
class Improvement:
    """The best bounds of a running solve when one of them improved.

    ``node_map`` realises ``upper_bound`` (caller ids, as :attr:`gedkit.Result.node_map`);
    ``method`` found it; ``time`` is the seconds since the call started. The last item of a
    stream has ``final`` set and carries the call's :class:`~gedkit.Result` as ``result``.
    """

    lower_bound: float
    upper_bound: float
    node_map: list
    method: str
    time: float
    final: bool = False
    result: Any = None

    @property
    def optimal(self) -> bool:
        """Whether the bounds meet: the upper bound is the distance."""
        return self.upper_bound - self.lower_bound <= tolerance(self.upper_bound)


class _Listener:
    """The best bounds of one solve, passed to ``callback`` as they improve."""

    def __init__(self, problem: Any, callback: Callable[[Improvement], Any], start: float):
        self.problem, self.callback, self.start = problem, callback, start
        self.lower, self.upper = -math.inf, math.inf
        self.best = None  # the Result holding the best map so far
        self.method = ""

    def offer(self, forward: Any | None, lower: float, method: str) -> None:
        from gedkit.result import Result

        improved = False
        if forward is not None:
            # the map's own cost, recomputed (and the map repaired to keep constraints)
            candidate = Result.from_assignment(self.problem, forward, -math.inf, method)
            if self.best is None or candidate.upper_bound < self.upper - tolerance(self.upper):
                self.best, self.upper, self.method = candidate, candidate.upper_bound, method
                improved = True
        lower = min(float(lower), self.upper)
        if lower > self.lower + tolerance(max(abs(lower), 1.0)):
            self.lower = lower
            improved = improved or self.best is not None
        if improved and self.best is not None:
            self.callback(self._item())

    def _item(self, result: Any = None) -> Improvement:
        return Improvement(max(self.lower, 0.0), self.upper, self.best.node_map, self.method,
                           time.perf_counter() - self.start, result is not None, result)

    def settle(self, result: Any) -> Any:
        """The call's answer, with the best bounds any report gave (all of them proven), and
        the stream's last item."""
        from gedkit.result import Result

        if self.best is not None and self.upper < result.upper_bound - tolerance(self.upper):
            result = Result.from_assignment(self.problem, self.best.assignment,
                                            result.lower_bound, result.method,
                                            time=result.time, stats=result.stats)
        if self.lower > result.lower_bound:
            result.lower_bound = min(self.lower, result.upper_bound)
        self.lower, self.upper = result.lower_bound, result.upper_bound
        self.best, self.method = result, result.method
        self.callback(self._item(result))
        return result


_LISTENER: ContextVar[_Listener | None] = ContextVar("gedkit_anytime_listener", default=None)


def listening() -> bool:
    """Whether the solve running here has a listener (reports cost nothing otherwise)."""
    return _LISTENER.get() is not None


def report(forward: Any | None, lower: float, method: str) -> None:
    """Tell the running solve's listener (if any) of a node map (internal node indices of the
    solve's problem, or None) and a proven lower bound."""
    listener = _LISTENER.get()
    if listener is not None:
        listener.offer(None if forward is None else np.array(forward, dtype=np.int64),
                       lower, method)


@contextmanager
def listener_for(problem: Any, callback: Callable[[Improvement], Any] | None,
                 start: float) -> Iterator[_Listener | None]:
    """Within it, reports of the solve of ``problem`` reach ``callback``; without one they
    reach nobody, not the listener of a call this one runs inside (a ``gedkit.ged`` made by
    an ``on_improve`` callback reported its bounds to the outer solve, which took the inner
    pair's lower bound for its own and claimed a distance optimal that was not)."""
    if callback is None:
        if _LISTENER.get() is None:
            yield None
            return
        token = _LISTENER.set(None)
        try:
            yield None
        finally:
            _LISTENER.reset(token)
        return
    if not callable(callback):
        raise OptionError(f"on_improve must be a function taking each improvement, got "
                          f"{type(callback).__name__} {callback!r}")
    listener = _Listener(problem, callback, start)
    token = _LISTENER.set(listener)
    try:
        yield listener
    finally:
        _LISTENER.reset(token)


def ged_iter(g1: Any, g2: Any, costs: Any = "uniform", method: str = "auto",
             **kwargs: Any) -> Iterator[Improvement]:
    """:func:`gedkit.ged` as a stream: each improved upper bound (with its node map) and each
    raised lower bound, as the solve finds them; the last item (``final``) is the answer,
    with the :class:`~gedkit.Result` as its ``result``.

    The solve runs in a background thread while the caller consumes the stream. Ctrl-C while
    waiting, or leaving the loop early, stops it: the last item then holds the best bounds
    found. Parameters are those of :func:`gedkit.ged`.

    Examples
    --------
    >>> import gedkit
    >>> steps = list(gedkit.ged_iter("c1ccccc1O", "c1ccccc1N", timeout=10))
    >>> steps[-1].final, steps[-1].upper_bound, steps[-1].optimal
    (True, 1.0, True)
    >>> all(a.upper_bound >= b.upper_bound for a, b in zip(steps, steps[1:]))
    True
    """
    from gedkit.costs import get as get_costs
    from gedkit.errors import OptionError
    from gedkit.solvers import solver_class

    # what is wrong with the call said at the call, as gedkit.ged says it (not at the
    # stream's first item), and on_improve= is the stream's own
    if "on_improve" in kwargs:
        raise OptionError("ged_iter streams the improvements itself: on_improve= is for "
                          "gedkit.ged")
    solver_class(method)
    get_costs(costs)
    return _stream(g1, g2, costs, method, kwargs)


def _stream(g1: Any, g2: Any, costs: Any, method: str, kwargs: dict) -> Iterator[Improvement]:
    """:func:`ged_iter`'s stream, its arguments checked."""
    from gedkit.api import ged
    from gedkit.budget import InterruptedWarning, cancelled_by

    items: queue.Queue = queue.Queue()
    stop = threading.Event()
    failure: list[BaseException] = []
    heard = False  # Ctrl-C stopped the solve (its answer says "interrupted", not "time limit")

    def solve() -> None:
        try:
            with cancelled_by(stop):
                ged(g1, g2, costs, method, on_improve=items.put, **kwargs)
        except BaseException as err:  # handed to the consumer
            failure.append(err)
        finally:
            items.put(None)

    worker = threading.Thread(target=solve, name="gedkit-ged-iter", daemon=True)
    _stop_at_exit(stop, worker)
    worker.start()
    try:
        while True:
            try:
                item = items.get()
            except KeyboardInterrupt:
                stop.set()
                heard = True
                warnings.warn("interrupted: the stream ends with the best bounds found so far",
                              InterruptedWarning, stacklevel=2)
                continue
            if item is None:
                break
            if heard and item.final and item.result is not None and not item.result.optimal:
                item.result.stats["stopped"] = "interrupted"  # (its budget read "time limit")
            yield item
    finally:
        stop.set()  # the consumer left early: the solve stops at its next check
        worker.join()
        _RUNNING.pop(stop, None)
    if failure:
        raise failure[0]


#: the solves of streams not finished, by their stop event: stopped and awaited when the
#: interpreter exits (a stream still open then, its solve in compiled code in a daemon
#: thread, ended the process with "terminate called without an active exception", SIGABRT)
_RUNNING: dict[threading.Event, threading.Thread] = {}


def _stop_at_exit(stop: threading.Event, worker: threading.Thread) -> None:
    """Have ``worker`` stopped (``stop``) and joined at the interpreter's exit, unless its
    stream ends first."""
    _RUNNING[stop] = worker


@atexit.register
def _stop_all() -> None:
    for stop, worker in list(_RUNNING.items()):
        stop.set()
        worker.join(timeout=10.0)
