"""A grid of similarity-search hits: each query, then its hits best first with their
distances (or similarities) and what certifies them.

When a hit carries its node map (``node_map=True`` in the search), its picture is seeded from
the query's through that map, so what the hit shares with the query is drawn the same way.
Undecided graphs (verification stopped with bounds on both sides of the threshold) follow the
hits, marked as such.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from gedkit.draw import MAX_HITS
from gedkit.draw.caption import hit_caption
from gedkit.draw.figure import LABELS_LEFT_OUT, draw_cell
from gedkit.draw.pictures import pair_positions, treat_as_molecules
from gedkit.draw.scene import plain_panel
from gedkit.errors import OptionError, counted
from gedkit.graph import Graph
from gedkit.text import quoted

__all__ = ["draw_hits"]

#: queries (rows of panels) one grid holds
MAX_QUERIES = 8
_WHAT = {"range": "GED ≤ {p:g}", "knn": "{p:g} nearest by GED",
         "mces_range": "MCES similarity ≥ {p:g}", "mces_knn": "{p:g} most similar by MCES"}


def draw_hits(results: Any, collection: Any, *, query: Any = None, max_hits: int = MAX_HITS,
              ncols: int | None = None, molecule: bool | None = None,
              labels: bool | None = None, ids: bool = False, carbons: bool = False,
              figsize: tuple | None = None, dpi: float = 100) -> Any:
    """The query (when given) and its hits, one block of panels per query.

    Parameters
    ----------
    results : SearchResult or list of SearchResult
        What a search returned (at most :data:`MAX_QUERIES` of them).
    collection : Collection, str or Path
        Where the hits' graphs are read from (``collection.get(id)``); a path is opened
        read-only while drawing.
    query : Graph, str or list, optional
        The query graph of each result (anything :func:`gedkit.inputs.as_graph` reads, read
        with the collection's labels); without it the queries are not drawn. It must be the
        query the result answers (:class:`~gedkit.errors.OptionError` otherwise).
    max_hits : int
        Draw at most this many hits (then undecided graphs) per query.
    ncols : int, optional
        Panels per row (default: up to 6).
    molecule, labels, ids, carbons, figsize, dpi
        As for :func:`gedkit.draw.draw`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import gedkit
    >>> path = lambda *labels: gedkit.Graph(dict(enumerate(labels)),
    ...                                     [(i, i + 1) for i in range(len(labels) - 1)])
    >>> coll = gedkit.Collection()
    >>> coll.add([path("C", "C", "O"), path("C", "C", "N"), path("C", "C", "C", "C")],
    ...          ids=["ethanol", "ethylamine", "butane"])
    3
    >>> fig = draw_hits(coll.knn(path("C", "C", "O"), 2), coll, query=path("C", "C", "O"))
    >>> [a.get_title() for a in fig.axes][:2]
    ['query', '1. ethanol\\nGED = 0']
    """
    many = isinstance(results, list | tuple)
    results = list(results) if many else [results]
    if not results:
        raise OptionError("no search result to draw")
    if len(results) > MAX_QUERIES:
        raise OptionError(f"{len(results)} queries: a grid draws at most {MAX_QUERIES}; draw "
                          "them in several grids")
    if not isinstance(max_hits, int) or max_hits < 1:
        raise OptionError(f"max_hits={max_hits!r}: give a whole number, at least 1")
    queries = list(query) if isinstance(query, list | tuple) else [query] * len(results)
    if len(queries) != len(results):
        raise OptionError(f"{len(results)} search results but {len(queries)} query graphs")
    from gedkit.draw.output import literal_text

    # literal_text: the command line calls this, not gedkit.draw.draw ('$' in an id)
    with _opened(collection) as coll, literal_text():
        return _grid(results, coll, queries, max_hits=max_hits, ncols=ncols,
                     molecule=molecule, labels=labels, ids=ids, carbons=carbons,
                     figsize=figsize, dpi=dpi)


@contextmanager
def _opened(collection: Any) -> Iterator[Any]:
    """``collection=``: a Collection, or the path of one, opened read-only while drawing."""
    if isinstance(collection, str | os.PathLike):
        from gedkit.search import Collection

        with Collection.open(collection) as opened:
            yield opened
        return
    if not all(hasattr(collection, name) for name in ("get", "node_label", "edge_label")):
        raise OptionError("collection= takes a gedkit.Collection or the path of a collection "
                          f"file, got {type(collection).__name__}")
    yield collection


def _grid(results: list, collection: Any, queries: list, *, max_hits: int,
          ncols: int | None, molecule: bool | None, labels: bool | None, ids: bool,
          carbons: bool, figsize: tuple | None, dpi: float) -> Any:
    from gedkit.draw.output import new_figure
    from gedkit.inputs import as_graph
    from gedkit.search.collection import same_collection

    identity = getattr(collection, "_identity", None)
    drawn_from = identity() if identity is not None else None
    for result in results:
        searched_in = getattr(result, "searched_in", None)
        if (searched_in is not None and drawn_from is not None
                and not same_collection(searched_in, drawn_from)):
            # (its hits' ids would name other graphs there, drawn under its distances)
            where = (f"the collection in {searched_in[1]}" if searched_in[0] == "file" else
                     "another collection, in memory")
            if searched_in[0] == drawn_from[0] == "file" and os.path.realpath(
                    searched_in[1]) == os.path.realpath(drawn_from[1]):
                where += (" as it was then: the file there now holds another collection "
                          "(made since)")
            raise OptionError(f"this search result answers {where}, not the one given as "
                              "collection=; draw it with the collection searched")
    labels_of = (collection.node_label, collection.edge_label)
    queries = [q if q is None or isinstance(q, Graph) else as_graph(q, *labels_of)
               for q in queries]
    for result, q in zip(results, queries, strict=True):
        if q is not None:
            _check_query(q, result, labels_of)

    blocks = []  # per query: a list of (graph, title, forward or None)
    for result, q in zip(results, queries, strict=True):
        mces = result.kind.startswith("mces")
        cells = [] if q is None else [(q, "query", None)]
        shown = [(h, False) for h in result.hits[:max_hits]]
        shown += [(h, True) for h in result.undecided[: max(0, max_hits - len(shown))]]
        for rank, (hit, undecided) in enumerate(shown, start=1):
            if hit.id not in collection:  # (removed since the search: a raw KeyError)
                raise OptionError(f"hit {quoted(hit.id)} of this search result is no longer in the "
                                  "collection (removed since the search): search it again")
            g = collection.get(hit.id)
            head = "undecided" if undecided else f"{rank}."
            cells.append((g, f"{head} {hit.id}\n{hit_caption(hit, mces)}",
                          _forward(q, g, hit.node_map)))
        if len(cells) == (q is not None):
            cells.append((None, "no hit", None))
        blocks.append((result, q, cells))

    chem = treat_as_molecules([g for _, q, cells in blocks for g, _, _ in cells
                               if g is not None], molecule)
    cols = ncols or min(6, max(len(cells) for _, _, cells in blocks))
    rows = sum(math.ceil(len(cells) / cols) for _, _, cells in blocks)
    cell = min(2.6, 15.0 / cols)
    size = figsize or (cell * cols + 0.2, (cell * 0.85 + 0.45) * rows + 0.9 * len(blocks))
    fig = new_figure(size, dpi)
    fh = fig.get_size_inches()[1]
    header = 0.55 / fh
    row_h = (1.0 - header * len(blocks)) / rows
    y = 1.0
    tips: dict = {}
    hidden = False  # some cell's labels left out
    for result, q, cells in blocks:
        drawn = sum(title != "query" and g is not None for g, title, _ in cells)
        fig.text(0.5, y - 0.12 / fh, _heading(result, drawn), ha="center", va="top", fontsize=11,
                 fontweight="bold")
        y -= header
        placed = _place(cells, q, chem)
        for k, ((g, title, _), pos) in enumerate(zip(cells, placed, strict=True)):
            r, c = divmod(k, cols)
            ax = fig.add_axes((c / cols + 0.006, y - (r + 1) * row_h + 0.05 * row_h,
                               1 / cols - 0.012, row_h * 0.75))
            ax.set_gid(f"cell-{k}")
            ax.set_title(title, fontsize=8.5, pad=3)
            if g is None:
                ax.set_axis_off()
                ax.text(0.5, 0.5, "(no graph found)", ha="center", va="center",
                        transform=ax.transAxes, fontsize=9, color="#777777", style="italic")
                continue
            lo, hi = _box(pos)
            tips_k, left_out = draw_cell(ax, plain_panel(g, role="plain"), pos, lo, hi,
                                         molecule=chem, labels=labels, ids=ids,
                                         carbons=carbons)
            tips.update(tips_k)
            hidden = hidden or left_out
        y -= math.ceil(len(cells) / cols) * row_h
    if hidden:
        fig.text(0.5, 0.004, LABELS_LEFT_OUT, ha="center", va="bottom", fontsize=8,
                 color="#555555")
    fig._gedkit_tooltips = tips
    fig._gedkit_caption = _heading(results[0], None)
    return fig


def _check_query(q: Graph, result: Any, labels: tuple) -> None:
    """An error where the query drawn is not the one ``result`` answers (the picture would
    stand a wrong query over the title naming the right one). A result of a search in this
    process keeps its query graph (``searched``): ``q`` must be the same graph; else it
    keeps its query's name only: the same name passes, or the name read as a graph (a
    SMILES string, a file) must be the same graph as ``q``."""
    own = result.query
    searched = getattr(result, "searched", None)
    if searched is not None:  # the graph itself, where the search ran in this process
        if not same_graph(q, searched):
            given = f"query={quoted(q.name)}" if q.name is not None else "the query= graph"
            raise OptionError(f"{given} is not the query this result answers"
                              f"{f' ({quoted(own)})' if own is not None else ''}; give that "
                              "query, or leave query= out")
        return
    if own is None or q.name == own:
        return
    searched = _read_name(own, labels)
    if searched is None and q.name is None:
        return  # neither says which graph it is: nothing to compare
    if searched is not None and same_graph(q, searched):
        return
    given = f"query={quoted(q.name)}" if q.name is not None else "the query= graph"
    raise OptionError(f"{given} is not the query this result answers ({quoted(own)}); give that "
                      "query, or leave query= out")


def _read_name(name: str, labels: tuple) -> Graph | None:
    """The graph a query's name reads as (SMILES, a file), or None when it reads as none."""
    import warnings

    from gedkit.errors import GedkitError
    from gedkit.inputs import as_graph

    with warnings.catch_warnings():  # a name is read to compare, not to be told about
        warnings.simplefilter("ignore")
        try:
            return as_graph(name, *labels)
        except (GedkitError, OSError):
            return None


def same_graph(a: Graph, b: Graph) -> bool:
    """Whether ``a`` and ``b`` are the same labelled graph whatever their node order.

    >>> same_graph(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({5: "O", 7: "C"}, [(7, 5)]))
    True
    >>> same_graph(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C", 1: "N"}, [(0, 1)]))
    False
    """
    import networkx as nx

    if (a.n, a.m, a.directed) != (b.n, b.m, b.directed):
        return False
    if sorted(map(repr, a.node_labels)) != sorted(map(repr, b.node_labels)):
        return False  # cheap: most different queries differ here already
    return nx.is_isomorphic(a.to_networkx(), b.to_networkx(), node_match=_same_label,
                            edge_match=_same_label)


def _same_label(x: dict, y: dict) -> bool:
    return x.get("label") == y.get("label")


def _heading(result: Any, drawn: int | None) -> str:
    """The line over a query's block; ``drawn``: how many of its hits and undecided graphs
    the block shows, said when that is fewer than it has (a grid of 12 said "56 hits")."""
    what = _WHAT.get(result.kind, result.kind).format(p=result.parameter)
    # (a query named 0, as numbered collections name theirs, is named too)
    who = "" if result.query is None or result.query == "" else f"{result.query}: "
    n = len(result.hits)
    cert = "certified" if result.certified else "not certified"
    extra = f", {len(result.undecided)} undecided" if result.undecided else ""
    some = (f" (the first {drawn} drawn)"
            if drawn is not None and drawn < n + len(result.undecided) else "")
    return f"{who}{what}  ·  {counted(n, 'hit')}{extra}, {cert}{some}"


def _forward(q: Graph | None, g: Graph, node_map: list | None) -> np.ndarray | None:
    """The hit's node map as an int array over the query's nodes, when both are known."""
    if q is None or not node_map:
        return None
    f = np.full(q.n, -1, dtype=np.int64)
    try:
        for u, v in node_map:
            if u is not None and v is not None:
                f[q.index(u)] = g.index(v)
    except Exception:  # a map naming other nodes (another query's): draw unseeded
        return None
    return f


def _place(cells: list, q: Graph | None, chem: bool) -> list[np.ndarray]:
    """Each cell's positions: the query's own, each hit's seeded from the query's through
    its node map when it has one."""
    out = []
    for g, _, forward in cells:
        if g is None:
            out.append(np.zeros((0, 2)))
        elif forward is not None and q is not None:
            out.append(pair_positions(q, g, forward, chem)[1])
        else:
            out.append(pair_positions(g, Graph(), np.full(g.n, -1), chem)[0])
    return out


def _box(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(pos) == 0:
        return np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    lo, hi = pos.min(axis=0) - 0.9, pos.max(axis=0) + 0.9
    # small molecules would be drawn huge: every cell at least 4 bonds across
    grow = np.maximum(0.0, 4.0 - (hi - lo)) / 2
    return lo - grow, hi + grow
