"""What the learned methods share, Gelato (GED, :mod:`gedkit.learned`) and NGA (MCES,
:mod:`gedkit.mces.nga`): torch on demand, checked weight files, the costs of importing torch and of
network steps (:mod:`~gedkit.nn.budgeting`), the canonical form labels meet a vocabulary in
(:mod:`~gedkit.nn.labels`), and the message-passing layer (:mod:`~gedkit.nn.layers`).

Importing this package does not import torch; :mod:`~gedkit.nn.layers` does.
"""

from __future__ import annotations

import os
from types import ModuleType

from gedkit.errors import FormatError

__all__ = ["load_checked", "require_torch"]


def require_torch(feature: str = "the learned solver gelato") -> ModuleType:
    """The ``torch`` module, or a :class:`MissingDependencyError` naming ``feature``; an
    import made here is timed for :mod:`gedkit.nn.budgeting`."""
    from gedkit.nn.budgeting import import_torch

    return import_torch(feature)


def _looks_like(path: str | os.PathLike) -> str:
    """What a file that is not a weights file looks like, from its first bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip()
    except (OSError, TypeError):  # (a resource inside an archive: no file to open)
        head = b""
    if head.startswith((b"{", b"[")):
        return ("a JSON file: a model card? the weights are the .pt file 'gedkit train' wrote "
                "beside it")
    if head.startswith(b"PK"):
        return "a PyTorch file that holds more than tensors and plain values"
    return "unreadable as a PyTorch file: truncated, or another kind of file"


def load_checked(path: str | os.PathLike, fmt: str, what: str) -> dict:
    """The dict saved at ``path`` by ``torch.save``, read without running code (weights
    only); a file that is unreadable as such, or that does not say it holds ``fmt``, raises a
    :class:`~gedkit.errors.FormatError` naming the file and ``what`` was expected."""
    torch = require_torch(f"reading {what}s")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except OSError:
        raise
    except Exception:  # a truncated or foreign file: say which file and what it looks like
        # (not PyTorch's own text, which advises loading with weights_only=False: running
        # whatever code the file holds)
        raise FormatError(f"{path}: not {what} ({_looks_like(path)})") from None
    if not isinstance(saved, dict) or saved.get("format") != fmt:
        raise FormatError(f"{path}: not {what} (expected format {fmt!r})")
    return saved
