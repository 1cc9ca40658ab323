"""Shared fixtures. Data-heavy tests use ../shared/data and skip cleanly without it."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from helpers import SHARED_DATA
from hypothesis import HealthCheck, settings

# numba's first call in a fresh clone compiles; a per-example deadline would fail on that
settings.register_profile(
    "gedkit", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("gedkit")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Every kernel family compiled before the first test, as the README's install command
    does: on a fresh clone, solves with a time limit would otherwise answer with the cheap
    bounds they give while kernels compile (tests/test_limits.py covers that path itself)."""
    from gedkit._kernels.warm import warm_up

    warm_up(jobs=2)


@pytest.fixture
def terminal_ctrl_c():
    """Ctrl-C (SIGINT) raising KeyboardInterrupt in this process as at a terminal, also where
    the suite runs with SIGINT ignored (a shell's background job, ``pytest &``, inherits
    that, and Python then delivers no simulated Ctrl-C either)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
