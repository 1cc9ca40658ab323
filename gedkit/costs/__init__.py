"""Cost models: how much each edit operation costs.

``costs=`` anywhere in gedkit takes a :class:`CostModel`, or the name of a built-in one
(case-insensitive): ``"uniform"``, and the literature models registered in
:mod:`gedkit.costs.literature`.
"""

from __future__ import annotations

from collections.abc import Callable

from gedkit.costs.base import CostModel, intern_labels
from gedkit.costs.chem import chem_1, chem_2
from gedkit.costs.constant import ConstantCosts, constant, uniform
from gedkit.costs.custom import CallableCosts, custom
from gedkit.costs.geometric import cmu, fingerprint, letter, letter_2
from gedkit.costs.literature import MODELS as _LITERATURE
from gedkit.costs.typed import grec_1, grec_2, protein
from gedkit.errors import CostModelError

__all__ = [
    "CallableCosts",
    "ConstantCosts",
    "CostModel",
    "available",
    "chem_1",
    "chem_2",
    "cmu",
    "constant",
    "custom",
    "fingerprint",
    "get",
    "grec_1",
    "grec_2",
    "intern_labels",
    "letter",
    "letter_2",
    "protein",
    "register",
    "uniform",
]

_REGISTRY: dict[str, Callable[[], CostModel]] = {"uniform": uniform, "constant": constant}
_REGISTRY.update(_LITERATURE)


def register(name: str, factory: Callable[[], CostModel]) -> None:
    """Make ``costs=name`` build a model with ``factory()``."""
    _REGISTRY[name.lower()] = factory


def available() -> list[str]:
    """Names accepted by ``costs=``."""
    return sorted(_REGISTRY)


def get(costs: str | CostModel) -> CostModel:
    """Resolve a ``costs=`` argument to a :class:`CostModel`.

    >>> get("UNIFORM").name
    'uniform'
    """
    if isinstance(costs, CostModel):
        return costs
    if isinstance(costs, str):
        factory = _REGISTRY.get(costs.lower())
        if factory is None:
            raise CostModelError(
                f"unknown cost model {costs!r}; choose one of: {', '.join(available())}"
            )
        return factory()
    raise CostModelError(
        f"costs must be a cost-model name or a CostModel, got {type(costs).__name__}"
    )
