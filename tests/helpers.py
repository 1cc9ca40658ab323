"""Shared test utilities: the ones gedkit ships in :mod:`gedkit.testing`, under the names the
tests use."""

from gedkit.testing import brute_force_ged as brute_force
from gedkit.testing import random_costs, random_graph

__all__ = ["brute_force", "random_costs", "random_graph"]
