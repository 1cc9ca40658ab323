"""Pictures of edit paths, common subgraphs and search hits.

:func:`draw` turns a GED result into its edit path drawn on both graphs, an MCES result into
the common edges on both graphs, and a similarity search into a grid of the query and its
hits. Each operation is encoded by colour **and** by line style or marker (colour-blind safe,
readable in greyscale): kept, relabelled (with its text, ``C→N``), deleted (on g1), inserted
(on g2). Molecules are drawn as depictions on RDKit coordinates, other graphs on NetworkX
layouts; g2's picture is seeded from g1's through the node map so the common part has the same
shape in both.

Needs matplotlib (``pip install 'gedkit[draw]'``); RDKit is used for molecules when installed.
Importing :mod:`gedkit` does not import this package, nor matplotlib.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

from gedkit.errors import OptionError

__all__ = ["MAX_HITS", "MAX_STEPS", "draw", "draw_hits", "draw_steps"]

#: the most operations a step strip (``steps=True``) draws: beyond, panels get too small to
#: read
MAX_STEPS = 30
#: graphs (hits, then undecided ones) a search's picture shows per query by default
MAX_HITS = 12


def draw(
    result: Any,
    path: str | Path | None = None,
    *,
    ax: Any = None,
    steps: bool = False,
    molecule: bool | None = None,
    labels: bool | None = None,
    ids: bool = False,
    edge_labels: bool | None = None,
    carbons: bool = False,
    table: bool = True,
    figsize: tuple[float, float] | None = None,
    dpi: float = 100,
    max_steps: int = MAX_STEPS,
    collection: Any = None,
    query: Any = None,
    max_hits: int = MAX_HITS,
) -> Any:
    """Draw a result: a GED edit path, an MCES common subgraph, or similarity-search hits.

    Parameters
    ----------
    result : Result, MCESResult or SearchResult
        What to draw. A :class:`~gedkit.search.SearchResult` (or a list of them) needs
        ``collection`` (and ``query``, the query graph, to draw it first).
    path : str or Path, optional
        Also write the picture there; ``.svg`` (each operation with a tooltip), ``.png`` or
        ``.pdf``.
    ax : matplotlib Axes, optional
        Draw both graphs on this Axes (caption as its title, no table) instead of a new
        Figure.
    steps : bool
        GED only: a strip of panels g1 → … → g2, one operation per panel (at most
        ``max_steps`` operations, :data:`MAX_STEPS` by default and at most).
    molecule : bool, optional
        Draw as molecules (True) or as general graphs (False); by default molecules when
        every label reads as an element symbol and every edge label as a bond order.
    labels : bool, optional
        Write node labels; by default unless the graphs are too dense to read them (the
        caption then says they were left out).
    ids : bool
        Also write node ids.
    edge_labels : bool, optional
        Write the labels of kept edges (by default on small labelled general graphs).
    carbons : bool
        Molecules: write every carbon's letter, not just those an operation touches.
    table : bool
        Add the side table of operations and their costs (common edges for MCES).
    figsize : (float, float), optional
        Figure size in inches (default: from the graphs' shapes); a PNG is
        ``figsize × dpi`` pixels.
    dpi : float
        Dots per inch of the Figure and of a PNG.
    max_steps : int
        The step strip's limit (a longer path raises :class:`~gedkit.errors.OptionError`).
    collection : Collection, str or Path, optional
        Search results: where the hits' graphs are read from (a collection or its file).
    query : Graph, optional
        Search results: the query graph, drawn first; it must be the query searched.
    max_hits : int
        Search results: draw at most this many hits per query.

    Returns
    -------
    matplotlib.figure.Figure or matplotlib.axes.Axes
        The Figure (or ``ax`` when one was given).

    Examples
    --------
    >>> import gedkit
    >>> r = gedkit.ged(gedkit.Graph({1: "C", 2: "O"}, [(1, 2)]),
    ...                gedkit.Graph({1: "C", 2: "N", 3: "C"}, [(1, 2), (2, 3)]))
    >>> fig = draw(r)
    >>> fig._gedkit_caption
    'GED = 3 (optimal, uniform)'
    >>> sorted(fig._gedkit_tooltips)[:2]
    ['op-0', 'op-0-g2']
    >>> draw(r, "picture.svg")  # doctest: +SKIP
    """
    from gedkit.draw.output import literal_text, require_matplotlib, save

    require_matplotlib()
    _check_output(path, figsize, dpi)
    with literal_text():  # labels are text, not mathtext ('$5')
        fig = _figure(result, ax=ax, steps=steps, molecule=molecule, labels=labels, ids=ids,
                      edge_labels=edge_labels, carbons=carbons, table=table,
                      figsize=figsize, dpi=dpi, max_steps=max_steps, collection=collection,
                      query=query, max_hits=max_hits)
    if path is not None:
        save(fig if ax is None else ax.figure, path)
    return fig


def _figure(result: Any, *, ax: Any, steps: bool, molecule: bool | None, collection: Any,
            query: Any, max_hits: int, max_steps: int, table: bool, **options: Any) -> Any:
    from gedkit.mces.result import MCESResult
    from gedkit.result import Result

    if isinstance(result, Result):
        if steps:
            from gedkit.draw.steps import draw_steps

            return draw_steps(result, ax=ax, molecule=molecule, max_steps=max_steps,
                              **_only(options, "labels", "ids", "carbons", "figsize", "dpi"))
        from gedkit.draw.pictures import ged_figure

        return ged_figure(result, ax=ax, molecule=molecule, table=table, **options)
    if steps:
        raise OptionError("steps=True draws a GED edit path; an MCES or search result has "
                          "none")
    if isinstance(result, MCESResult):
        from gedkit.draw.pictures import mces_figure

        return mces_figure(result, ax=ax, molecule=molecule, table=table, **options)
    if _is_search(result):
        if ax is not None:
            raise OptionError("search results draw as a grid of panels: ax= is for GED and "
                              "MCES results")
        if collection is None:
            raise OptionError("drawing search hits needs collection= (where their graphs are)")
        from gedkit.draw.grid import draw_hits

        return draw_hits(result, collection, query=query, max_hits=max_hits, molecule=molecule,
                         **_only(options, "labels", "ids", "carbons", "figsize", "dpi"))
    raise OptionError(f"cannot draw a {type(result).__name__}: give a GED Result, an "
                      "MCESResult or a SearchResult")


def _check_output(path: str | Path | None, figsize: Any, dpi: Any) -> None:
    """One-line errors for a picture that cannot be made or written, before drawing it
    (matplotlib said "float division by zero" of figsize=(0, 0))."""
    from gedkit.draw.output import check_path, check_size

    check_size(figsize, dpi)
    if path is not None:
        check_path(path)


def _only(options: dict, *names: str) -> dict:
    return {k: v for k, v in options.items() if k in names}


def _is_search(result: Any) -> bool:
    from gedkit.search.result import SearchResult

    if isinstance(result, SearchResult):
        return True
    return (isinstance(result, list | tuple) and bool(result)
            and all(isinstance(r, SearchResult) for r in result))


def draw_steps(result: Any, path: str | Path | None = None, **options: Any) -> Any:
    """The step strip g1 → … → g2 of a GED result (``draw(result, steps=True)``).

    Parameters
    ----------
    result : Result
        A GED result.
    path : str or Path, optional
        Also write the picture there (.svg, .png or .pdf).
    **options
        ``max_steps``, ``molecule``, ``labels``, ``ids``, ``carbons``, ``figsize``, ``dpi``,
        ``ncols`` (see :func:`gedkit.draw.steps.draw_steps`).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import gedkit
    >>> fig = draw_steps(gedkit.ged(gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]),
    ...                             gedkit.Graph({0: "C", 1: "N"}, [(0, 1)])))
    >>> fig._gedkit_caption
    'GED = 1 (optimal, uniform)'
    """
    from gedkit.draw.output import literal_text, require_matplotlib, save
    from gedkit.draw.steps import draw_steps as strip
    from gedkit.result import Result

    if not isinstance(result, Result):  # (an MCES result: a raw AttributeError)
        raise OptionError(f"draw_steps draws a GED result's edit path, got "
                          f"{type(result).__name__}; gedkit.draw(result) draws it")
    require_matplotlib()
    _check_output(path, options.get("figsize"), options.get("dpi", 100))
    with literal_text():
        fig = strip(result, **options)
    if path is not None:
        save(fig, path)
    return fig


def draw_hits(result: Any, collection: Any, path: str | Path | None = None, *,
              query: Any = None, **options: Any) -> Any:
    """A grid of the query and its hits with their distances (see
    :func:`gedkit.draw.grid.draw_hits`).

    Parameters
    ----------
    result : SearchResult or list of SearchResult
        One row per query.
    collection : Collection, str or Path
        Where the hits' graphs are read from (a path: the collection file, opened for the
        drawing).
    path : str or Path, optional
        Also write the picture there.
    query : Graph or list of Graph, optional
        The query graph(s), drawn first in each row.
    **options
        ``max_hits``, ``molecule``, ``labels``, ``ids``, ``carbons``, ``figsize``, ``dpi``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from gedkit.draw.grid import draw_hits as grid
    from gedkit.draw.output import literal_text, require_matplotlib, save

    if not _is_search(result):  # (a GED result: a raw AttributeError)
        raise OptionError(f"draw_hits draws search results (a SearchResult or a list of "
                          f"them), got {type(result).__name__}; gedkit.draw(result) draws it")
    require_matplotlib()
    _check_output(path, options.get("figsize"), options.get("dpi", 100))
    with literal_text():
        fig = grid(result, collection, query=query, **options)
    if path is not None:
        save(fig, path)
    return fig


class _CallableModule(types.ModuleType):
    """``gedkit.draw(result)`` calls :func:`draw`, while ``gedkit.draw.draw_steps`` and the
    submodules stay reachable: importing a submodule makes ``gedkit.draw`` the package, so
    the package itself must be what is called."""

    def __call__(self, result: Any, path: str | Path | None = None, **options: Any) -> Any:
        return draw(result, path, **options)


sys.modules[__name__].__class__ = _CallableModule
