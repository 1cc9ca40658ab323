"""Values as short text: a label in an edit path or a picture, a caller's value in a message.

A label, a node id, a graph's name (a SMILES string names its molecule) or a line of a file is
the caller's, of any length: a one-line error that quoted a 100,000-character label whole was a
100 KB line. Every message that quotes such a value does so with :func:`quoted`, every label
shown reads :func:`label_text`, and both cut with the one :func:`clipped`.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["MESSAGE_WIDTH", "clipped", "label_text", "quoted", "relabel_texts"]

#: characters of a value a message quotes (an atom's attribute dict fits: {'atom': 'C',
#: 'aromatic': False, 'charge': 0, 'hcount': 3})
MESSAGE_WIDTH = 60


def clipped(text: str, width: int, length: bool = False, end: bool = False) -> str:
    """``text``, ending in ``…`` where it is longer than ``width``; ``length``: then followed
    by how long it was; ``end``: its end kept instead, after ``…`` (a file's path, whose name
    is what tells it).

    >>> clipped("carbon", 4), clipped("C" * 5000, 8, length=True), clipped("C", 4)
    ('car…', 'CCCCCCC… (5,000 characters)', 'C')
    >>> clipped("/home/me/data/lib.smi", 10, end=True)
    '…a/lib.smi'
    """
    if len(text) <= width:
        return text
    cut = "…" + text[len(text) - width + 1:] if end else text[: width - 1] + "…"
    return cut + (_length(text) if length else "")


def quoted(value: Any, width: int = MESSAGE_WIDTH, end: bool = False) -> str:
    """``value`` as a message quotes it: as Python writes it (``f"{value!r}"``), cut to about
    ``width`` characters and its length said where it is cut (a string keeps its quotes;
    ``end``: a string's end kept, see :func:`clipped`).

    >>> quoted("C"), quoted(("a", 1)), quoted("X" * 100_000, 8)
    ("'C'", "('a', 1)", "'XXXXXXX…' (100,000 characters)")
    >>> quoted({"atom": "X" * 100}, 16)
    "{'atom': 'XXXXX… (112 characters)"
    """
    if isinstance(value, str):
        if len(value) <= width:
            return repr(value)
        return repr(clipped(value, width, end=end)) + _length(value)
    try:
        text = repr(value)
    except RecursionError:  # (a label nested thousands deep)
        text = reprlib.repr(value)
    return clipped(text, width, length=True)


def _length(text: str) -> str:
    return f" ({len(text):,} characters)"


def label_text(label: Any, width: int = 24) -> str:
    """A label as short text: ``None`` is empty, floats lose trailing zeros, attribute dicts
    read ``key=value`` (an atom's symbol, then only its attributes that are set), long texts
    end in ``…``.

    >>> label_text(None), label_text(2.0), label_text({"atom": "C", "charge": 0})
    ('', '2', 'C')
    >>> label_text({"atom": "N", "charge": 1})
    'N charge=1'
    >>> label_text({"x": 1.25, "y": 0.5}), label_text("a" + chr(0))  # (escaped)
    ('x=1.25 y=0.5', 'a\\\\x00')
    """
    if label is None:
        return ""
    if isinstance(label, float):
        text = f"{label:g}"
    elif isinstance(label, dict):
        if "atom" in label:
            # a molecule's atom: its element, and what else sets it apart ([NH4+] -> N read
            # "N -> N" at a cost of 1, the charge that differs unseen)
            text = " ".join([label_text(label["atom"], width), *(
                f"{k}={label_text(v, width)}" for k, v in label.items()
                if k != "atom" and v is not None and v is not False and v != 0 and v != "")])
        else:
            text = " ".join(f"{k}={label_text(v, width)}" for k, v in label.items())
    elif isinstance(label, list | tuple):
        text = "(" + ", ".join(label_text(v, width) for v in label) + ")"
    else:
        text = str(label)
        if not text.isprintable():  # a NUL or a newline would break the line it is in
            text = repr(text)[1:-1]
    return clipped(text, width)


def relabel_texts(a: Any, b: Any, width: int = 24) -> tuple[str, str]:
    """The texts of a relabelling's two labels: :func:`label_text`'s, or, where those read
    alike (1 and "1", "" and None, "C  " and "C": IAM's padded atom symbols against a
    SMILES molecule's), as Python writes them.

    >>> relabel_texts("C", "N"), relabel_texts(1, "1"), relabel_texts("C  ", "C")
    (('C', 'N'), ('1', "'1'"), ("'C  '", "'C'"))
    """
    ta, tb = label_text(a, width), label_text(b, width)
    if ta.strip() == tb.strip():
        ta, tb = clipped(repr(a), width), clipped(repr(b), width)
    return ta, tb
