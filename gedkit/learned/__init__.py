"""Learned GED solvers: Gelato, an autoregressive graph neural network that builds a node map
one decision at a time (Pellizzoni, Schulz and Borgwardt, ICLR 2026), extended with deletion
and insertion actions and cost features so it works under non-uniform costs.

- :mod:`~gedkit.learned.features`: decoding states as joint graphs (NumPy).
- :mod:`~gedkit.learned.data`: optimal maps from the exact solver, labelled states (NumPy).
- :mod:`~gedkit.learned.model`: the network (PyTorch).
- :mod:`~gedkit.learned.train`: training with validation and checkpoints (PyTorch).
- :mod:`~gedkit.learned.decode`: branch, beam and sampling decoders (PyTorch).
- :mod:`~gedkit.learned.solver`: the ``gelato`` method of :func:`gedkit.ged`.
- :mod:`~gedkit.learned.labels`: the canonical form labels meet a vocabulary in (NumPy).
- :mod:`~gedkit.learned.budgeting`, :mod:`~gedkit.learned.sizing`: what the learned methods'
  steps cost, so that they start only what the budget can pay for (NumPy).

Importing gedkit never imports torch: only solving with ``gelato`` and training do, and
without torch they raise :class:`~gedkit.errors.MissingDependencyError` saying how to
install it (``pip install 'gedkit[learn]'``).
"""

from __future__ import annotations

import os
from types import ModuleType

from gedkit.errors import FormatError

__all__ = ["DECODINGS", "load_checked", "require_torch"]

#: decoding strategies of the ``gelato`` method (see :mod:`gedkit.learned.decode`)
DECODINGS = ("branches", "beam", "sampling")


def require_torch(feature: str = "the learned solver gelato") -> ModuleType:
    """The ``torch`` module, or a :class:`MissingDependencyError` naming ``feature``; an
    import made here is timed for :mod:`gedkit.learned.budgeting`."""
    from gedkit.learned.budgeting import import_torch

    return import_torch(feature)


def load_checked(path: str | os.PathLike, fmt: str, what: str) -> dict:
    """The dict saved at ``path`` by ``torch.save``, read without running code (weights
    only); a file that is unreadable as such, or that does not say it holds ``fmt``, raises a
    :class:`~gedkit.errors.FormatError` naming the file and ``what`` was expected."""
    torch = require_torch(f"reading {what}s")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except OSError:
        raise
    except Exception as exc:  # a truncated or foreign file: say which file and why
        raise FormatError(f"{path}: not {what} ({exc})") from None
    if not isinstance(saved, dict) or saved.get("format") != fmt:
        raise FormatError(f"{path}: not {what} (expected format {fmt!r})")
    return saved
