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
