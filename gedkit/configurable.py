"""What every method (GED solver, MCES method) shares: declared options and a registry."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from gedkit.errors import OptionError

__all__ = ["Configurable", "Registry", "check_choice", "check_flag", "check_number"]


class Configurable:
    """A method with a ``name``, a one-line ``summary``, and ``options`` with defaults.

    Unknown options are rejected here, once, for all methods; subclasses check values in
    :meth:`validate`.
    """

    kind: ClassVar[str] = "method"  # how error messages name this family
    name: ClassVar[str]
    summary: ClassVar[str]
    exact: ClassVar[bool] = False
    options: ClassVar[dict[str, Any]] = {}
    # kernel families solve() runs (see gedkit._kernels.warm): compiled first, within the budget
    kernels: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **options: Any):
        unknown = set(options) - set(self.options)
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise OptionError(
                f"{self.kind} {self.name!r} has no option(s) {', '.join(sorted(unknown))} "
                f"(its options: {allowed})"
            )
        self.config = {**self.options, **options}
        self.validate()

    def validate(self) -> None:
        """Check ``self.config``; raise :class:`OptionError` on a bad value."""


T = TypeVar("T", bound=Configurable)


class Registry(Generic[T]):
    """Name → class. Registering a class makes it available to every caller and test.

    A class may also be registered by import path (:meth:`register_path`): its module is
    imported only when the class is asked for, so a registry never imports the modules of
    methods nobody uses, and those modules may import the registry's package freely.
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._classes: dict[str, type[T]] = {}
        self._paths: dict[str, str] = {}

    def register(self, cls: type[T]) -> type[T]:
        """Class decorator: make ``method=cls.name`` select ``cls``."""
        self._classes[cls.name] = cls
        self._paths.pop(cls.name, None)
        return cls

    def register_path(self, name: str, path: str) -> None:
        """Make ``method=name`` select the class at ``path`` (``"package.module:Class"``),
        imported on first use; the module registers the class itself when imported."""
        if name not in self._classes:
            self._paths[name] = path

    def _load(self, name: str) -> None:
        import importlib

        module, _, attr = self._paths[name].partition(":")
        cls = getattr(importlib.import_module(module), attr)
        self.register(cls)

    def available(self) -> dict[str, type[T]]:
        """All registered classes by name (sorted); imports those registered by path."""
        for name in list(self._paths):
            self._load(name)
        return dict(sorted(self._classes.items()))

    def names(self) -> list[str]:
        """The registered names (sorted), importing nothing."""
        return sorted({*self._classes, *self._paths})

    def cls(self, name: str) -> type[T]:
        if name in self._paths:
            self._load(name)
        try:
            return self._classes[name]
        except KeyError:
            raise OptionError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())}"
            ) from None

    def create(self, name: str, **options: Any) -> T:
        """An instance of the class registered as ``name``, configured with ``options``."""
        return self.cls(name)(**options)


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


def check_flag(config: dict, key: str) -> None:
    """Raise :class:`OptionError` unless ``config[key]`` is True or False."""
    if not isinstance(config[key], bool):
        raise OptionError(f"option {key} must be True or False, got {config[key]!r}")


def check_choice(config: dict, key: str, choices: tuple) -> None:
    """Raise :class:`OptionError` unless ``config[key]`` is one of ``choices``."""
    if config[key] not in choices:
        raise OptionError(
            f"option {key} must be one of {', '.join(map(str, choices))}, got {config[key]!r}"
        )
