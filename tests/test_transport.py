"""The compiled transportation solver behind BRANCH's bound over branch classes, against a
linear program."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from gedkit._kernels.transport import max_savings, transport_work


def _largest(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> float:
    """The largest saving, by HiGHS."""
    p, r = s.shape
    rows = np.zeros((p + r, p * r))
    for i in range(p):
        rows[i, i * r:(i + 1) * r] = 1
    for j in range(r):
        rows[p + j, j::r] = 1
    found = linprog(-s.ravel(), A_ub=rows, b_ub=np.concatenate([a, b]), bounds=(0, None),
                    method="highs")
    return -found.fun


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 7), st.integers(1, 7), st.booleans())
def test_max_savings_tells_the_largest_saving_from_its_target(seed, p, r, halves):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, p).astype(float)
    b = rng.integers(0, 5, r).astype(float)
    s = rng.integers(-2, 9, (p, r)) / (2.0 if halves else 1.0)
    if not halves:
        s = s + rng.uniform(-0.3, 0.3, (p, r))
    largest = _largest(a, b, s)
    work = transport_work(p, r)
    for target in (largest - 1.0, largest - 1e-6, largest + 1e-6, largest + 0.5,
                   float(rng.uniform(-1, 40))):
        value, upper = max_savings(p, r, a, b, s, target, work)
        if upper:  # a bound on the largest, below the target where the largest is
            assert value >= largest - 1e-7
            assert value < target or largest >= target - 1e-7
        else:  # savings found that reach the target
            assert target <= value <= largest + 1e-7
