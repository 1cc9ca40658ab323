"""Cost models: how much each edit operation costs.

``costs=`` anywhere in gedkit takes a :class:`CostModel`, or the name of a built-in one
(case-insensitive): ``"uniform"``, and the literature models registered in
:mod:`gedkit.costs.literature`; ``"constant:KEY=VALUE,..."`` spells :func:`constant` with its
arguments (``"constant:node_sub=3,edge_sub=3"``), so command lines reach it too.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import Any

from gedkit.costs.base import CostModel, intern_labels
from gedkit.costs.chem import chem_1, chem_2
from gedkit.costs.constant import ConstantCosts, constant, uniform
from gedkit.costs.custom import CallableCosts, custom
from gedkit.costs.geometric import cmu, fingerprint, letter, letter_2
from gedkit.costs.literature import MODELS as _LITERATURE
from gedkit.costs.typed import grec_1, grec_2, protein
from gedkit.errors import CostModelError, did_you_mean

__all__ = [
    "CallableCosts",
    "ConstantCosts",
    "CostModel",
    "about",
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
# one model per name: a model holds no state a call changes, and work keyed on the model (the
# search filters' cost matrices over a collection's labels) is then shared between calls
_BUILT: dict[str, CostModel] = {}


def register(name: str, factory: Callable[[], CostModel]) -> None:
    """Make ``costs=name`` build a model with ``factory()`` (a warning when ``name`` was
    another factory's: every caller of that name gets the new one)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise CostModelError(f"a cost model's name is a non-empty string without ':', got "
                             f"{name!r}")
    if not callable(factory):
        raise CostModelError(f"register({name!r}, ...) needs a function that builds the "
                             f"model, got {type(factory).__name__}")
    old = _REGISTRY.get(name.lower())
    if old is not None and old is not factory:
        warnings.warn(f"costs={name.lower()!r} now builds another model: it replaces the one "
                      "registered before, for every caller", stacklevel=2)
    _REGISTRY[name.lower()] = factory
    _BUILT.pop(name.lower(), None)


def available() -> list[str]:
    """Names accepted by ``costs=``."""
    return sorted(_REGISTRY)


def about(name: str) -> str:
    """What the model ``costs=name`` is, in a sentence: its factory's summary (markup left
    out); empty for a factory without a docstring.

    >>> about("uniform")
    'Unit costs: every insertion, deletion and label-changing substitution costs 1.'
    """
    factory = _REGISTRY.get(name.lower()) if isinstance(name, str) else None
    if factory is None:  # (a bare KeyError: get's one-line error instead)
        get(name)
        raise CostModelError(f"{name!r} is not a registered cost model name")
    summary = (factory.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(summary.split()).replace("``", "")


def get(costs: str | CostModel) -> CostModel:
    """Resolve a ``costs=`` argument to a :class:`CostModel`.

    >>> get("UNIFORM").name
    'uniform'
    >>> get("constant:node_sub=3,edge_sub=3").node_sub("C", "O")
    3.0
    """
    if isinstance(costs, CostModel):
        return costs
    if isinstance(costs, str):
        name, colon, params = costs.partition(":")
        if colon:
            return _spec(costs, name, params)
        key = costs.lower()
        if key not in _BUILT:
            factory = _REGISTRY.get(key)
            if factory is None:
                raise CostModelError(
                    f"unknown cost model {costs!r}{did_you_mean(key, available())}; choose "
                    f"one of: {', '.join(available())}, or NAME:KEY=VALUE,... to set its "
                    "constants"
                )
            built = factory()
            if not isinstance(built, CostModel):
                raise CostModelError(f"the factory registered as costs={key!r} built a "
                                     f"{type(built).__name__}, not a CostModel")
            _BUILT[key] = built
        return _BUILT[key]
    hint = ""
    if callable(costs) and getattr(costs, "__module__", "").startswith("gedkit.costs"):
        # gedkit.costs.uniform, not gedkit.costs.uniform(): the factory, not its model
        hint = f" (the function {costs.__name__}: call it, gedkit.costs.{costs.__name__}())"
    elif callable(costs):
        hint = (" (a function pricing labels goes in gedkit.costs.custom(node_sub=..., "
                "...))")
    raise CostModelError(
        f"costs must be a cost-model name or a CostModel, got {type(costs).__name__}{hint}"
    )


def _spec(spec: str, name: str, params: str) -> CostModel:
    """``NAME:KEY=VALUE,...``: the model ``NAME``'s factory with those constants (e.g.
    ``letter:alpha=0.5`` for Letter MED and LOW, ``chem_1:node_ins_del=5.5`` for GDR4GED's
    MUTA ground truth: only ``constant`` took any, so the command line could not set them).

    >>> get("letter:alpha=0.5").params["alpha"]
    0.5
    """
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        raise CostModelError(f"unknown cost model {name!r}{did_you_mean(name.lower(), available())}"
                             f" in {spec!r}; choose one of: {', '.join(available())}")
    keys = tuple(inspect.signature(factory).parameters)
    if not keys:
        raise CostModelError(f"the {name} cost model takes no constants, got {spec!r}")
    values: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in params.split(","))):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or key not in keys:
            raise CostModelError(f"in {spec!r}: {item!r} is not KEY=VALUE with KEY one of "
                                 f"{', '.join(keys)}")
        if key in values:  # (the last one won, without a word)
            raise CostModelError(f"in {spec!r}: {key} is given twice")
        values[key] = value
    if factory is not constant:  # (constant() converts and checks its own)
        for key, value in values.items():
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not (math.isfinite(number) and number >= 0):
                raise CostModelError(f"in {spec!r}: {key} must be a number >= 0, got "
                                     f"{value!r}")
            values[key] = number
    return factory(**values)
