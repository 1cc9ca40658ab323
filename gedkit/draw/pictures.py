"""The pictures of results: a GED result's edit path and an MCES result's common edges, each
on the two graphs side by side."""

from __future__ import annotations

from typing import Any

import numpy as np

from gedkit.draw.caption import ged_caption, mces_caption
from gedkit.draw.layout import layout, seeded_layout
from gedkit.draw.molecule import is_molecule, not_molecule, rdkit_available
from gedkit.draw.scene import Panel, ged_panels, kept_anchors, mces_panels, name_part
from gedkit.errors import Option, OptionError
from gedkit.graph import Graph
from gedkit.text import label_text, quoted

__all__ = ["ged_figure", "mces_figure", "pair_positions", "treat_as_molecules"]

_ROLE_OF = {"sub": "relabelled", "del": "deleted", "ins": "inserted"}


#: graphs of more atoms than this are drawn as graphs unless molecule=True says otherwise:
#: RDKit's depiction took minutes on a 2,000-"atom" graph of carbons (a search's query)
MOLECULE_ATOMS = 300


def treat_as_molecules(graphs: list[Graph], molecule: bool | None) -> bool:
    """Whether to draw ``graphs`` as molecules: ``molecule`` when given, else when every
    non-empty graph reads as one (see :func:`gedkit.draw.molecule.is_molecule`) of at most
    :data:`MOLECULE_ATOMS` atoms; never when one has a self-loop (no molecule has).

    >>> treat_as_molecules([Graph({0: "C"}), Graph()], None)
    True
    >>> treat_as_molecules([Graph({0: "x"})], None), treat_as_molecules([Graph()], None)
    (False, False)
    """
    if any(g.loops for g in graphs):  # no molecule has a self-loop: drawn as graphs
        return False
    if molecule:
        _check_molecules(graphs)
    if molecule is not None:
        return bool(molecule)
    full = [g for g in graphs if g.n]
    return bool(full) and all(g.n <= MOLECULE_ATOMS and is_molecule(g) for g in full)


def _check_molecules(graphs: list[Graph]) -> None:
    """One line naming the label that keeps ``molecule=True`` from drawing a graph (RDKit
    and the depiction fail on a label that is no atom or bond, deep inside)."""
    for g in graphs:
        why = not_molecule(g)
        if why is not None:
            where = f"in graph {quoted(g.name)} " if g.name else ""
            raise OptionError(f"molecule=True draws molecules, but {where}{why}; pass ",
                              Option("molecule", False), " to draw it as a graph")


def pair_positions(g1: Graph, g2: Graph, forward: np.ndarray,
                   molecule: bool) -> tuple[np.ndarray, np.ndarray]:
    """Positions of both graphs, g2's seeded from g1's through the node map ``forward``:
    RDKit depiction coordinates for molecules (when RDKit is installed), else the layouts of
    :mod:`gedkit.draw.layout`."""
    forward = np.asarray(forward, dtype=np.int64)
    anchored = kept_anchors(g1, g2, forward)
    if molecule and g1.n and rdkit_available():
        from gedkit.draw.molecule import coordinates

        return coordinates(g1, g2, forward, anchored)
    pos1 = layout(g1)
    return pos1, seeded_layout(g2, pos1, forward, anchored)


def _titles(p1: Panel, p2: Panel, g1: Graph, g2: Graph, molecule: bool) -> None:
    node, edge = ("atom", "bond") if molecule else ("node", "edge")
    for panel, side, g in ((p1, "g1", g1), (p2, "g2", g2)):
        panel.title = (f"{side}{name_part(g)}\n{g.n} {node}{'s' * (g.n != 1)}, "
                       f"{g.m} {edge}{'s' * (g.m != 1)}")


def _laid_out(result: Any, panels: tuple, molecule: bool | None) -> tuple:
    """Whether the pair is drawn as molecules, its two panels (titled) and their positions,
    g2's seeded from g1's through the result's node map."""
    g1, g2 = result.problem.g1, result.problem.g2
    chem = treat_as_molecules([g1, g2], molecule)
    p1, p2 = panels
    _titles(p1, p2, g1, g2, chem)
    pos1, pos2 = pair_positions(g1, g2, result.assignment, chem)
    return chem, p1, p2, pos1, pos2


def ged_figure(result: Any, *, molecule: bool | None = None, table: bool = True,
               **options: Any) -> Any:
    """The picture of a GED result (see :func:`gedkit.draw.draw` for the options)."""
    from gedkit.draw.figure import compose

    chem, p1, p2, pos1, pos2 = _laid_out(result, ged_panels(result), molecule)
    ops = result.edit_path
    rows = ([(_ROLE_OF[op.kind[5:]], op.kind[:4], op.describe(), op.cost) for op in ops]
            if table else None)
    describe = {k: f"{k + 1}. {op.describe(cost=True)}" for k, op in enumerate(ops)}
    head, sub = ged_caption(result)
    return compose(p1, p2, pos1, pos2, molecule=chem, head=head, sub=sub, legend="ged",
                   rows=rows, describe=describe, **options)


def mces_figure(result: Any, *, molecule: bool | None = None, table: bool = True,
                **options: Any) -> Any:
    """The picture of an MCES result (see :func:`gedkit.draw.draw` for the options)."""
    from gedkit.draw.figure import compose

    g1 = result.problem.g1
    chem, p1, p2, pos1, pos2 = _laid_out(result, mces_panels(result), molecule)
    texts = []
    for (a, b), (c, d) in result.edges:
        lab = label_text(g1.edge_label(a, b), 8)
        texts.append(f"{a}–{b} → {c}–{d}" + (f"  ({lab})" if lab else ""))
    rows = [("common", "edge", t, None) for t in texts] if table else None
    describe = {k: f"common edge {k + 1}: {t}" for k, t in enumerate(texts)}
    head, sub = mces_caption(result)
    return compose(p1, p2, pos1, pos2, molecule=chem, head=head, sub=sub, legend="mces",
                   rows=rows, describe=describe, table_title="common edge (g1 → g2)",
                   **options)
