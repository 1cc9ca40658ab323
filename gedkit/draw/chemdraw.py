"""Drawing one panel of a molecule on a matplotlib Axes, in the manner of a 2D depiction.

Bonds are drawn in dark grey with their multiplicity (parallel lines, aromatic ring circles);
an edited bond gets a wide band underneath in its role's colour and line style (dashed for
deleted, dotted for inserted, solid for relabelled), an edited atom a halo in its role's colour
and marker shape. Element letters stay black: colouring atoms by element, as depictions
usually do, would clash with the colours that encode the edits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gedkit.draw.general import Context, _edge_text, _offset_text, _tip, gid
from gedkit.draw.molecule import (
    aromatic_circle,
    atom_symbol,
    bond_lines,
    bond_order,
    charge,
    rings,
)
from gedkit.draw.scene import Panel
from gedkit.draw.style import ROLES

__all__ = ["draw_molecule"]

_INK = "#222222"
#: bands are wide, and dash patterns scale with the width: shorter patterns than the
#: thin lines' keep several dashes (or dots) on one bond
_BAND_STYLE = {"deleted": (0, (0.9, 0.55)), "inserted": (0, (0.01, 1.25))}
#: roles whose atoms and bonds are drawn as they are (no highlight)
_PLAIN = ("kept", "plain")


def draw_molecule(ax: Any, panel: Panel, pos: np.ndarray, ctx: Context, *,
                  carbons: bool = False) -> None:
    """Draw ``panel`` as a molecule with atom ``i`` at ``pos[i]`` (one unit per bond).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    panel : Panel
        Atoms and bonds with their roles.
    pos : ndarray, shape (n, 2)
        Atom positions.
    ctx : Context
        Sizes and options shared by the picture.
    carbons : bool
        Write every carbon's letter (by default only those an operation touches, isolated
        ones and charged ones).
    """
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Circle

    pos = np.asarray(pos, dtype=float).reshape(-1, 2)
    edges = panel.edges.reshape(-1, 2)
    ring_list = rings(panel.n, edges)
    ring_of: dict[frozenset, np.ndarray] = {}
    for ring in sorted(ring_list, key=len, reverse=True):  # the smallest ring wins
        centre = pos[ring].mean(axis=0)
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            ring_of[frozenset((a, b))] = centre
    band = float(np.clip(0.26 * ctx.ppu, 3.0, 14.0))
    ink_width = float(np.clip(0.045 * ctx.ppu, 0.5, 1.8))
    ink: dict[str, list] = {}
    for k, ((a, b), role, op) in enumerate(zip(edges.tolist(), panel.edge_roles,
                                               panel.edge_ops, strict=True)):
        order = bond_order(panel.edge_labels[k]) or 1.0
        inside = ring_of.get(frozenset((a, b)))
        ink.setdefault("other" if role == "other" else "kept", []).extend(
            bond_lines(pos[a], pos[b], order, inside))
        if role in _PLAIN or (role == "other" and op is None):
            continue
        st = ROLES[role]
        (line,) = ax.plot(*np.array([pos[a], pos[b]]).T, color=st.color, alpha=0.75,
                          linestyle=_BAND_STYLE.get(role, "solid"), linewidth=band,
                          solid_capstyle="round", dash_capstyle=st.capstyle, zorder=1)
        name = gid(panel, role, op)
        line.set_gid(name)
        _tip(ctx, name, op)
        if panel.edge_notes[k] and ctx.labels:
            _edge_text(ax, pos[a], pos[b], panel.edge_notes[k], st.color, ctx, bold=True)
    for role, segs in ink.items():
        color = ROLES["other"].color if role == "other" else _INK
        ax.add_collection(LineCollection(np.array(segs), colors=color, linewidths=ink_width,
                                         zorder=3, capstyle="round"))
    for ring in ring_list:
        pairs = zip(ring, ring[1:] + ring[:1], strict=True)
        if all(bond_order(panel.edge_labels[_edge_at(edges, a, b)]) == 1.5 for a, b in pairs):
            centre, radius = aromatic_circle(pos, ring)
            ax.add_patch(Circle(tuple(centre), radius, fill=False, ec=_INK,
                                lw=ink_width * 0.8, zorder=3))
    _atoms(ax, panel, pos, ctx, carbons, edges)


def _edge_at(edges: np.ndarray, a: int, b: int) -> int:
    hit = np.flatnonzero(((edges[:, 0] == a) & (edges[:, 1] == b))
                         | ((edges[:, 0] == b) & (edges[:, 1] == a)))
    return int(hit[0])


def _atoms(ax: Any, panel: Panel, pos: np.ndarray, ctx: Context, carbons: bool,
           edges: np.ndarray) -> None:
    halo = float(np.clip(0.5 * ctx.ppu, 4.0, 22.0))
    font = float(np.clip(0.4 * ctx.ppu, 5.5, 13.0))  # symbols legible in a small cell
    degree = np.bincount(edges.ravel(), minlength=panel.n) if panel.n else np.zeros(0)
    for i in range(panel.n):
        role, op, lab = panel.node_roles[i], panel.node_ops[i], panel.labels[i]
        symbol = atom_symbol(lab) or "?"
        q = charge(lab)
        marked = role not in _PLAIN and role != "other"
        if marked:
            st = ROLES[role]
            # common atoms are many and carry no operation: smaller discs keep bonds visible
            grow = {"s": 1.05, "h": 1.15}.get(st.marker, 1.0) * (0.7 if op is None else 1.0)
            coll = ax.scatter(*pos[i], s=(halo * grow) ** 2, marker=st.marker, c=st.fill,
                              edgecolors=st.color if op is not None else "none",
                              linewidths=max(1.0, 1.8 * ctx.thin), zorder=4)
            name = gid(panel, role, op)
            coll.set_gid(name)
            _tip(ctx, name, op)
        show = (symbol != "C" or carbons or op is not None or q != 0 or degree[i] == 0)
        if show and ctx.labels:
            text = symbol + ({1: "+", -1: "−"}.get(q, f"{q:+d}".replace("-", "−")) if q else "")
            # unmarked letters sit on a white disc that hides the bond ends under them
            box = None if marked else {"boxstyle": "circle,pad=0.08", "fc": "white",
                                       "ec": "none"}
            ax.text(*pos[i], text, ha="center", va="center", fontsize=font, color="#111111",
                    zorder=6, bbox=box)
        if ctx.ids:
            _offset_text(ax, pos[i], str(panel.ids[i]), (0.4 * halo, 0.4 * halo), "#777777",
                         0.6 * font, ha="left", va="bottom")
        if panel.node_notes[i] and ctx.labels:
            _offset_text(ax, pos[i], panel.node_notes[i], (0, -0.55 * halo - 1),
                         ROLES["relabelled"].color, 0.85 * font, ha="center", va="top",
                         bold=True)
