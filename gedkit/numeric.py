"""Comparing costs: the one tolerance, and whether costs are integers (bounds round up then).

Costs are sums of floats, so two routes to one value may differ in the last bits: every
comparison of a cost with a bound or a threshold allows :data:`TOL` relative to the larger of 1
and the value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

__all__ = ["TOL", "all_integers", "order_up_to_rounding", "round_up", "rounded_alike",
           "tolerance"]

#: relative tolerance of cost comparisons
TOL = 1e-9


def tolerance(value: float | np.ndarray) -> float | np.ndarray:
    """The slack allowed when comparing a cost with ``value`` (each of an array of them);
    :data:`TOL` for an infinite value, so that ``x < inf - tolerance(inf)`` holds for every
    finite ``x`` (an infinite slack would make it ``inf - inf``, NaN, false for all).

    >>> tolerance(0.5), tolerance(1e6), tolerance(float("inf"))
    (1e-09, 0.001, 1e-09)
    """
    if isinstance(value, np.ndarray):
        magnitude = np.abs(value)
        return TOL * np.where(np.isinf(magnitude), 1.0, np.maximum(1.0, magnitude))
    magnitude = abs(value)
    return TOL * (max(1.0, magnitude) if magnitude != math.inf else 1.0)


def rounded_alike(values: Iterable[float]) -> list[float]:
    """Each of ``values``, with the values equal to a smaller one up to rounding (within its
    :func:`tolerance`, in a chain from the smallest of a run) replaced by that one: sort keys
    by which 2.1999999999999997 and 2.2, one distance summed in two orders, tie.

    >>> rounded_alike([2.2, 2.1999999999999997, 3.0, 1.0])
    [2.1999999999999997, 2.1999999999999997, 3.0, 1.0]
    """
    values = list(values)
    out = values[:]
    start = None
    for i in sorted(range(len(values)), key=values.__getitem__):
        if start is None or values[i] - start > tolerance(start):
            start = values[i]
        out[i] = start
    return out


def order_up_to_rounding(keys: list[tuple]) -> list[int]:
    """The positions of ``keys`` (tuples of numbers ending in a tie-breaker, e.g. a rowid)
    in increasing order, each number but the last compared up to rounding
    (:func:`rounded_alike`): a distance summed in two orders ties, and the last part decides.

    >>> order_up_to_rounding([(2.2, 1), (2.1999999999999997, 2), (1.0, 3)])
    [2, 0, 1]
    """
    if len(keys) < 2:  # (most range answers: a hit or none)
        return list(range(len(keys)))
    columns = [rounded_alike(column) for column in zip(*(k[:-1] for k in keys), strict=True)]
    snapped = [(*parts, k[-1]) for parts, k in zip(zip(*columns, strict=True), keys,
                                                    strict=True)] if columns else keys
    return sorted(range(len(keys)), key=snapped.__getitem__)


def all_integers(*costs: Iterable[float] | np.ndarray) -> bool:
    """Whether every cost given (numbers, or arrays of them) is an integer, so that a lower
    bound may be rounded up to the next one.

    >>> all_integers((1, 2.0, 3)), all_integers(np.array([[0.0, 1.5]]))
    (True, False)
    """
    for group in costs:
        values = np.asarray(list(group) if not isinstance(group, np.ndarray) else group,
                            dtype=np.float64)
        if not np.all(values == np.rint(values)):
            return False
    return True


def round_up(bound):
    """A lower bound on an integer quantity rounded up, allowing :data:`TOL` for a bound
    that only rounding put above an integer (scalars or arrays; never -0.0).

    >>> round_up(2.0000000001), round_up(2.1)
    (2.0, 3.0)
    """
    out = np.ceil(np.asarray(bound, dtype=np.float64) - TOL) + 0.0
    return float(out) if out.ndim == 0 else out
