"""Name → solver class. Registering a class makes it available to every caller and test."""

from __future__ import annotations

from gedkit.errors import OptionError
from gedkit.solvers.base import Solver

__all__ = ["available", "get_solver", "register", "solver_class"]

_SOLVERS: dict[str, type[Solver]] = {}


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: make ``method=cls.name`` select ``cls``."""
    _SOLVERS[cls.name] = cls
    return cls


def available() -> dict[str, type[Solver]]:
    """All registered solvers by name (sorted)."""
    return dict(sorted(_SOLVERS.items()))


def solver_class(name: str) -> type[Solver]:
    try:
        return _SOLVERS[name]
    except KeyError:
        raise OptionError(
            f"unknown method {name!r}; choose one of: {', '.join(sorted(_SOLVERS))}"
        ) from None


def get_solver(name: str, **options) -> Solver:
    """An instance of the solver registered as ``name``, configured with ``options``."""
    return solver_class(name)(**options)
