"""What every method (GED solver, MCES method) shares: declared options and a registry.

Each option is declared once, as an :class:`Option` (its default, one line of documentation and
the check its value must pass), in the ``options`` of its method's class; the checks, ``gedkit
methods``, the command line's ``--KEY VALUE`` flags and the method's docstring all read it there.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from gedkit.errors import OptionError, Words, did_you_mean

__all__ = [
    "Configurable", "Option", "Registry", "check_choice", "check_flag", "check_number",
    "choice", "flag", "number",
]


def _any(key: str, value: Any) -> None:
    """Every value passes."""


@dataclass(frozen=True)
class Option:
    """One option of a method: its ``default``, one line of ``doc``, and the ``check`` a value
    must pass (``check(key, value)`` raises :class:`OptionError`; see :func:`number`,
    :func:`flag`, :func:`choice`).

    >>> Option(3, "restarts of the search", number(integer=True)).check("restarts", 0)
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: option restarts must be an integer > 0, got 0
    """

    default: Any
    doc: str
    check: Callable[[str, Any], None] = _any


def number(*, integer: bool = False, minimum: float = 0.0, strict: bool = True,
           none: bool = False) -> Callable[[str, Any], None]:
    """The check of a number above ``minimum`` (at least it when not ``strict``), an int if
    ``integer``, or None if ``none``."""
    def check(key: str, value: Any) -> None:
        check_number({key: value}, key, integer=integer, minimum=minimum, strict=strict,
                     none=none)

    return check


def flag() -> Callable[[str, Any], None]:
    """The check of True or False."""
    return lambda key, value: check_flag({key: value}, key)


def choice(*choices: Any) -> Callable[[str, Any], None]:
    """The check of one of ``choices``."""
    return lambda key, value: check_choice({key: value}, key, choices)


class Configurable:
    """A method with a ``name``, a one-line ``summary``, and its ``options`` (name →
    :class:`Option`).

    Unknown options and values failing their option's check are rejected here, once, for all
    methods; checks across options go in :meth:`validate`.
    """

    kind: ClassVar[str] = "method"  # how error messages name this family
    name: ClassVar[str]
    summary: ClassVar[str]
    exact: ClassVar[bool] = False
    options: ClassVar[dict[str, Option]] = {}
    # kernel families solve() runs (see gedkit._kernels.warm): compiled first, within the budget
    kernels: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # the class's documentation lists its options from their one declaration
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__doc__") or getattr(cls, "summary", None)
        if own and cls.options and "\nOptions\n" not in own:
            lines = [f"{key} : default {option.default!r}\n    {option.doc}"
                     for key, option in cls.options.items()]
            cls.__doc__ = own.rstrip() + "\n\nOptions\n-------\n" + "\n".join(lines) + "\n"

    def __init__(self, **options: Any):
        unknown = set(options) - set(self.options)
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise OptionError(
                f"{self.kind} {self.name!r} has no option(s) {', '.join(sorted(unknown))} "
                f"(its options: {allowed})",
                # (gedkit.pairwise(a, against=b) blamed the method alone)
                Words("; a keyword argument the function does not take is passed to its "
                      "method as an option", ""),
            )
        self.config = {**self.defaults(), **options}
        # the defaults are checked once per class, the values given on every call
        checked = options if type(self).__dict__.get("_defaults_checked") else self.config
        for key in checked:
            self.options[key].check(key, self.config[key])
        type(self)._defaults_checked = True
        self.validate()

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every option's default."""
        return {key: option.default for key, option in cls.options.items()}

    def validate(self) -> None:
        """Check ``self.config`` across options; raise :class:`OptionError` on a bad value."""


T = TypeVar("T", bound=Configurable)


_REGISTRIES: list[Registry] = []  # every registry made, for a name given to the wrong one


class Registry(Generic[T]):
    """Name → class. Registering a class makes it available to every caller and test.

    A class may also be registered by import path (:meth:`register_path`): its module is
    imported only when the class is asked for, so a registry never imports the modules of
    methods nobody uses, and those modules may import the registry's package freely.
    """

    def __init__(self, kind: str, question: str = "", other: str | None = None):
        self.kind = kind
        # the question its methods answer (GED, MCES), and the package whose registry answers
        # the other: a name of its methods given here is said to be one of those
        self.question, self.other = question, other
        self._classes: dict[str, type[T]] = {}
        self._paths: dict[str, str] = {}
        _REGISTRIES.append(self)

    def register(self, cls: type[T]) -> type[T]:
        """Class decorator: make ``method=cls.name`` select ``cls`` (a warning when the name
        was another class's: every caller of that name gets the new one)."""
        name = getattr(cls, "name", None)
        if not isinstance(cls, type) or not isinstance(name, str) or not name \
                or not callable(getattr(cls, "solve", None)):
            raise OptionError(f"register takes a {self.kind} class with a string name and a "
                              f"solve method, got {cls!r}")
        old = self._classes.get(name)
        if old is not None and old is not cls:  # (a name registered by path is this class)
            warnings.warn(f"{self.kind} {name!r} is now {cls.__module__}.{cls.__qualname__}: "
                          "it replaces the one registered before, for every caller",
                          stacklevel=2)
        self._classes[name] = cls
        self._paths.pop(name, None)
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
                f"unknown {self.kind} {name!r}{self._elsewhere(name)}"
                f"{did_you_mean(name, self.names())}; choose one of: {', '.join(self.names())}"
            ) from None

    def _elsewhere(self, name: str) -> str:
        """``" (it is an MCES method)"`` when another registry has ``name``."""
        if self.other is not None:
            import importlib

            importlib.import_module(self.other)
        owners = [r.question for r in _REGISTRIES if r is not self and name in r.names()]
        if not owners or not owners[0]:
            return ""
        return f" (it is {'an' if owners[0][0] in 'AEFHILMNORSX' else 'a'} {owners[0]} method)"

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
    # (an infinite one overflowed deep inside a method: "cannot convert float infinity")
    ok = ok and math.isfinite(value) and (value > minimum if strict else value >= minimum)
    # (integers go to compiled kernels as 64-bit ones: 2**63 was numba's TypingError)
    ok = ok and not (integer and value >= LARGEST_INTEGER)
    if not ok:
        what = "an integer" if integer else "a finite number"
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        below = (" and below 2**62" if integer and isinstance(value, int)
                 and value >= LARGEST_INTEGER else "")
        raise OptionError(f"option {key} must be {what} {bound}{below}, got {value!r}")


#: integer options stay below this (compiled kernels take them as 64-bit integers)
LARGEST_INTEGER = 2**62


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
