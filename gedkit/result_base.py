"""What the results of both questions share: JSON output, pictures, notebook display.

:class:`gedkit.result.Result` (GED) and :class:`gedkit.mces.result.MCESResult` (MCES) both
hold their problem (the two graphs) and a node map; each says in ``to_dict`` what it found,
and this base turns that into JSON, a picture (:func:`gedkit.draw.draw`) and a notebook view.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

__all__ = ["REPR_MAX_NODES", "PairResult", "jsonable"]

#: results on more nodes than this show as text only in notebooks
REPR_MAX_NODES = 300


class PairResult:
    """Base of the GED and MCES results (``problem`` and ``to_dict`` come from them)."""

    problem: Any

    def to_dict(self) -> dict:
        raise NotImplementedError

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON (``kwargs`` as for :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), default=jsonable, **kwargs)

    def draw(self, path: Any = None, **options: Any) -> Any:
        """The answer drawn on both graphs (a matplotlib Figure): the edit path of a GED
        result, the common edges of an MCES one; ``path=`` also writes it (.svg, .png or
        .pdf). Options as for :func:`gedkit.draw.draw` (``steps=True`` for a GED result's
        step strip, ``ax=``, ``labels=``...). Needs matplotlib (``pip install
        'gedkit[draw]'``).

        >>> import gedkit
        >>> r = gedkit.ged(gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]), gedkit.Graph({0: "C"}))
        >>> r.draw()._gedkit_caption
        'GED = 2 (optimal, uniform)'
        >>> g = gedkit.Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])
        >>> gedkit.mces(g, g).draw()._gedkit_caption
        'MCES: 2 common edges (optimal)  ·  similarity 1  ·  1 fragment'
        """
        from gedkit.draw import draw

        return draw(self, path, **options)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a result as its picture (none above :data:`REPR_MAX_NODES` nodes, or
        without matplotlib: drawing must never slow down or break a notebook's display)."""
        return _svg_of(self)

    def _repr_html_(self) -> str | None:
        """The text and the picture next to each other, for notebooks that show HTML."""
        return _html_of(self)


def _svg_of(result: Any) -> str | None:
    """The SVG picture of a result, computed once; None when it would be too large or
    cannot be drawn here."""
    cached = result.__dict__.get("_svg")
    if cached is not None:
        return cached or None
    svg = ""
    if result.problem.n1 + result.problem.n2 <= REPR_MAX_NODES:
        try:
            from gedkit.draw import draw
            from gedkit.draw.output import svg_text

            svg = svg_text(draw(result))
        except Exception:  # a display hook must not raise: the text repr still shows
            svg = ""
    result.__dict__["_svg"] = svg
    return svg or None


def _html_of(result: Any) -> str | None:
    svg = _svg_of(result)
    if svg is None:
        return None
    from html import escape

    body = svg[svg.find("<svg"):]  # drop the XML prolog and doctype inside HTML
    return (f"<div><pre style='margin:0 0 4px 0'>{escape(repr(result))}</pre>"
            f"<div style='max-width:100%'>{body}</div></div>")


def json_ready(data: Any) -> Any:
    """``data`` as plain JSON values (numpy scalars as numbers, tuples as lists...: what
    :func:`jsonable` makes of them), so that ``json.dumps`` takes it as it is.

    >>> json_ready({"ids": (np.int64(1), "a")})
    {'ids': [1, 'a']}
    """
    return json.loads(json.dumps(data, default=jsonable))


def jsonable(x: Any) -> Any:
    """``json.dumps``'s ``default=`` for what JSON lacks: numpy scalars as numbers, tuples and
    sets as lists, anything else as its text."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (set, frozenset, tuple)):
        return list(x)
    return str(x)
