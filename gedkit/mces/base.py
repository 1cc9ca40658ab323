"""The MCES method contract and its registry.

A method is a class with a ``name``, a one-line ``summary``, whether it is ``exact`` (proves
optimality when given the time), and its ``options`` with defaults; ``solve(problem, budget)``
returns an :class:`~gedkit.mces.result.MCESResult`. Registering a class makes
``gedkit.mces(..., method=name)`` select it, so later methods (the learned one) plug in here.
The time budget is the :class:`gedkit.solvers.Budget` GED solvers use; running out of it
never raises.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from gedkit.errors import OptionError
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.solvers.base import Budget

__all__ = [
    "Budget", "Method", "available", "check_number", "get_method", "method_class", "register",
]

_METHODS: dict[str, type[Method]] = {}


class Method(ABC):
    """Base class: ``Method(**options).solve(problem, budget) -> MCESResult``; unknown options
    are rejected here, once, for all methods."""

    name: ClassVar[str]
    summary: ClassVar[str]
    exact: ClassVar[bool] = False
    options: ClassVar[dict[str, Any]] = {}

    def __init__(self, **options: Any):
        unknown = set(options) - set(self.options)
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise OptionError(
                f"MCES method {self.name!r} has no option(s) {', '.join(sorted(unknown))} "
                f"(its options: {allowed})"
            )
        self.config = {**self.options, **options}
        self.validate()

    def validate(self) -> None:  # noqa: B027  (optional hook, not abstract)
        """Check ``self.config``; raise :class:`OptionError` on a bad value."""

    @abstractmethod
    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        """The best common edge subgraph of ``problem`` found within ``budget``."""


def check_number(config: dict, key: str, *, integer: bool = False, minimum: float = 0.0,
                 strict: bool = True, none: bool = False) -> None:
    """Raise :class:`OptionError` unless ``config[key]`` is a number above ``minimum`` (at
    least it when not ``strict``), an int if ``integer``, or None if ``none``."""
    value = config[key]
    if none and value is None:
        return
    kinds = (int,) if integer else (int, float)
    ok = isinstance(value, kinds) and not isinstance(value, bool)
    ok = ok and (value > minimum if strict else value >= minimum)
    if not ok:
        what = "an integer" if integer else "a number"
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise OptionError(f"option {key} must be {what} {bound}, got {value!r}")


def register(cls: type[Method]) -> type[Method]:
    """Class decorator: make ``method=cls.name`` select ``cls``."""
    _METHODS[cls.name] = cls
    return cls


def available() -> dict[str, type[Method]]:
    """All registered MCES methods by name (sorted)."""
    return dict(sorted(_METHODS.items()))


def method_class(name: str) -> type[Method]:
    try:
        return _METHODS[name]
    except KeyError:
        raise OptionError(
            f"unknown MCES method {name!r}; choose one of: {', '.join(sorted(_METHODS))}"
        ) from None


def get_method(name: str, **options: Any) -> Method:
    """An instance of the MCES method registered as ``name``, configured with ``options``."""
    return method_class(name)(**options)
