"""The form in which labels meet a learned model's vocabulary (NumPy only, no torch).

A model learns one channel per label it was trained on; a label of a new problem reaches that
channel only when it is *the same label*. Files and libraries spell one label in several
ways (an SDF read as text gives the bond order ``"1"``, a NetworkX graph built by hand ``1``,
a computation ``1.0``), so labels are compared in a canonical form, :func:`canonical_label`:

- numbers by value: ``1``, ``1.0``, ``"1"``, ``" 1 "``, ``"1.0"``, ``"1e0"`` and
  ``numpy.int64(1)`` are one label, and so are ``1.5`` and ``"1.5"``; a string reads as a
  number when all of it (blanks around it aside) is a finite decimal number;
- strings without the blanks around them (the IAM AIDS files pad atom symbols: ``" C"`` is
  ``"C"``); letter case is kept (``"Co"`` is not ``"CO"``);
- booleans as the words ``"true"`` and ``"false"`` (any letter case): a boolean is a yes or a
  no, not the count ``1``, although Python's ``True == 1``; so ``True``, ``"True"`` and
  ``"true"`` are one label, and none of them is ``1``;
- tuples (attribute dicts become sorted ``(name, value)`` tuples) element by element; ``None``
  as itself; anything else as its ``repr``.

The canonical form is made of builtins only, so a vocabulary holding it survives a
weights-only ``torch.load`` and JSON. Labels a model has no channel for share its "other"
channel; solving with such a model says so once per solve
(:class:`~gedkit.errors.UnseenLabelWarning`).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np

from gedkit.text import quoted

__all__ = ["canonical_label", "describe_unseen"]

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_LONGEST_NUMBER = 64  # longer digit strings stay strings (Python caps int() at 4,300 digits)
_BOOLEANS = {"true": "true", "false": "false"}


def canonical_label(label: Any) -> Hashable:
    """The canonical form of ``label`` (see the module docstring).

    >>> [canonical_label(x) for x in (1, 1.0, "1", " 1.0 ", np.int64(1))]
    [1, 1, 1, 1, 1]
    >>> canonical_label("1.5"), canonical_label(" C"), canonical_label(True)
    (1.5, 'C', 'true')
    >>> canonical_label((("charge", "0"), ("symbol", "C ")))
    (('charge', 0), ('symbol', 'C'))
    """
    if isinstance(label, np.generic):
        label = label.item()
    if label is None:
        return None
    if isinstance(label, (bool, np.bool_)):
        return "true" if label else "false"
    if isinstance(label, str):
        return _canonical_string(label)
    if isinstance(label, numbers.Integral):
        return int(label)
    if isinstance(label, numbers.Real):
        return _canonical_float(float(label))
    if isinstance(label, (tuple, list)):
        return tuple(canonical_label(x) for x in label)
    return repr(label)


def _canonical_string(text: str) -> Hashable:
    text = text.strip()
    if text.lower() in _BOOLEANS:
        return _BOOLEANS[text.lower()]
    if len(text) <= _LONGEST_NUMBER and _NUMBER.fullmatch(text):
        if _INTEGER.fullmatch(text):
            return int(text)
        return _canonical_float(float(text))
    return text


def _canonical_float(value: float) -> Hashable:
    if not math.isfinite(value):
        return repr(value)  # "nan", "inf": the strings read back the same way
    if value.is_integer():
        return int(value)
    return value


def describe_unseen(labels: Iterable[Hashable], shown: int = 5) -> str:
    """``labels`` (canonical forms) for a message: the first ``shown`` in order, then how many
    more.

    >>> describe_unseen(["Xx", 1.5])
    "'Xx', 1.5"
    >>> describe_unseen(range(7), shown=3)
    '0, 1, 2 and 4 more'
    """
    labels = list(labels)
    text = ", ".join(quoted(x) for x in labels[:shown])
    if len(labels) > shown:
        text += f" and {len(labels) - shown} more"
    return text
