"""Shared test utilities: the ones gedkit ships in :mod:`gedkit.testing`, under the names the
tests use, and where the test data lies."""

import os
from pathlib import Path

from gedkit.testing import brute_force_ged as brute_force
from gedkit.testing import random_costs, random_graph

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("GEDKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
FIXTURES = REPO / "tests" / "data"

__all__ = ["FIXTURES", "REPO", "SHARED_DATA", "brute_force", "random_costs", "random_graph"]


def start_up_limits(monkeypatch, module) -> list:
    """The time limits of the solves ``module`` runs (its ``solve_within``), in a process
    whose start-ups are made to look unpaid (one second's worth): a list that fills as the
    solves run."""
    import gedkit.pacing

    monkeypatch.setattr(gedkit.pacing, "_PAID", set())
    monkeypatch.setattr(gedkit.pacing, "start_up_seconds", lambda **kw: 1.0)
    limits = []
    real = module.solve_within

    def spy(solver, problem, budget):
        limits.append(budget.timeout)
        return real(solver, problem, budget)

    monkeypatch.setattr(module, "solve_within", spy)
    return limits
