"""Exceptions raised by gedkit.

Every error a user can trigger with bad input derives from :class:`GedkitError`, so callers can
catch one type, and each also derives from the builtin it refines (``ValueError``,
``ImportError``) so generic handlers keep working.
"""

from __future__ import annotations


class GedkitError(Exception):
    """Base class of all errors raised on purpose by gedkit."""


class GraphError(GedkitError, ValueError):
    """A graph gedkit cannot represent: self-loop, multi-edge, directed, unknown node..."""


class FormatError(GedkitError, ValueError):
    """A file that does not follow the format it claims to be in."""


class CostModelError(GedkitError, ValueError):
    """An unknown cost model, a bad cost value or a label a cost model cannot interpret."""


class OptionError(GedkitError, ValueError):
    """An unknown method or an invalid solver option."""


class MissingDependencyError(GedkitError, ImportError):
    """An optional dependency (RDKit, PyTorch) is needed for the requested feature."""

    def __init__(self, package: str, feature: str, extra: str):
        super().__init__(
            f"{feature} needs the optional package '{package}', which is not installed; "
            f"install it with: pip install 'gedkit[{extra}]'"
        )
        self.package = package
