"""Putting a picture together: two panels side by side on one Axes, the caption above, the
legend below and the table of operations (with their costs) at the side.

Both panels share one Axes and one scale, g2 shifted right of g1, so that the same shape is
the same size in both and a caller's own Axes can hold the whole picture.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gedkit.draw.general import LABEL_LIMIT, Context, draw_panel
from gedkit.draw.layout import spacing
from gedkit.draw.output import escaped, new_figure
from gedkit.draw.scene import Panel
from gedkit.draw.style import LEGENDS, ROLES
from gedkit.text import clipped

__all__ = ["arrange", "compose", "legend_handles"]

_GAP = 2.6  # units between the panels
_PAD = 0.9  # units around the drawing (node radius, notes)


def arrange(pos1: np.ndarray, pos2: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    """g2's positions shifted right of g1's; and each panel's box ``(x0, x1, y0, y1)``
    (an empty graph gets a unit box, so that it has a place to say it is empty)."""
    boxes = []
    out = []
    x_end = None
    for pos in (pos1, pos2):
        pos = np.asarray(pos, dtype=float).reshape(-1, 2)
        if len(pos):
            x0, y0 = pos.min(axis=0)
            x1, y1 = pos.max(axis=0)
        else:
            x0 = y0 = -1.0
            x1 = y1 = 1.0
        shift = 0.0 if x_end is None else x_end + _GAP - x0
        out.append(pos + np.array([shift, 0.0]))
        boxes.append((x0 + shift, x1 + shift, y0, y1))
        x_end = x1 + shift
    return out[0], out[1], boxes


def fit_titles(boxes: list, pos2: np.ndarray, titles: list[str], ppu: float,
               font: float = 10.0) -> tuple[list, np.ndarray]:
    """Boxes widened about their centres so that each panel's title fits above it, g2 (box
    and positions) moved right when the titles would touch."""
    wide = []
    for (x0, x1, y0, y1), title in zip(boxes, titles, strict=True):
        need = max(map(len, title.split("\n"))) * 0.56 * font / ppu - 2 * _PAD + 0.4
        grow = max(0.0, need - (x1 - x0)) / 2
        wide.append((x0 - grow, x1 + grow, y0, y1))
    shift = max(0.0, wide[0][1] + 0.8 - wide[1][0])
    wide[1] = (wide[1][0] + shift, wide[1][1] + shift, wide[1][2], wide[1][3])
    return wide, np.asarray(pos2) + np.array([shift, 0.0])


def limits(boxes: list, width_pt: float, height_pt: float) -> tuple[tuple, tuple, float]:
    """Axes limits holding every box with equal aspect in an Axes of the given size, and the
    points per unit they give."""
    x0 = min(b[0] for b in boxes) - _PAD
    x1 = max(b[1] for b in boxes) + _PAD
    y0 = min(b[2] for b in boxes) - _PAD
    y1 = max(b[3] for b in boxes) + _PAD
    w, h = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    ppu = min(width_pt / w, height_pt / h)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half_w, half_h = width_pt / ppu / 2, height_pt / ppu / 2
    return (cx - half_w, cx + half_w), (cy - half_h, cy + half_h), ppu


def legend_handles(kind: str, thin: float = 1.0) -> list:
    """Legend entries (a line sample with the role's marker) for a picture kind."""
    from matplotlib.lines import Line2D

    handles = []
    for name in LEGENDS[kind]:
        st = ROLES[name]
        handles.append(Line2D([0], [0], color=st.color, linestyle=st.linestyle,
                              linewidth=max(st.linewidth * thin, 1.4),
                              dash_capstyle=st.capstyle, marker=st.marker, markersize=9,
                              markerfacecolor=st.fill, markeredgecolor=st.color,
                              markeredgewidth=1.5, label=st.name))
    return handles


#: inches above the drawing (caption, panel titles) and below it (legend)
_TOP, _BOTTOM, _TABLE = 1.35, 0.75, 3.9


def default_size(boxes: list, table: bool) -> tuple[float, float]:
    """A figure size giving small graphs about 0.6 inch per edge, large ones what fits in
    about 13 × 8 inches."""
    w = boxes[-1][1] - boxes[0][0] + 2 * _PAD
    h = max(b[3] for b in boxes) - min(b[2] for b in boxes) + 2 * _PAD
    ppu = min(50.0, 13.0 * 72 / w, 8.0 * 72 / h)  # points per unit
    width = max(w * ppu / 72, 6.0) + 0.2
    height = max(h * ppu / 72, 2.2) + _TOP + _BOTTOM
    return (width + (_TABLE if table else 0.0), height)


def compose(p1: Panel, p2: Panel, pos1: np.ndarray, pos2: np.ndarray, *, molecule: bool,
            head: str, sub: str, legend: str, rows: list | None, describe: dict,
            ax: Any = None, figsize: tuple | None = None, dpi: float = 100,
            labels: bool | None = None, ids: bool = False, edge_labels: bool | None = None,
            carbons: bool = False, table_title: str = "operation") -> Any:
    """Draw both panels with caption, legend and table; returns the Figure (or ``ax``).

    ``rows`` are the table's ``(role, text, cost)`` rows, None for no table; ``describe``
    maps an operation index to its tooltip.
    """
    a1, a2, boxes = arrange(pos1, pos2)
    own = ax is None
    table = own and rows is not None
    if own:
        size = figsize or default_size(boxes, table)
        fig = new_figure(size, dpi)
        right = 1.0 - (min(_TABLE, 0.4 * size[0]) / size[0] if table else 0.0)
        bottom = min(_BOTTOM, 0.2 * size[1]) / size[1]
        top = 1.0 - min(_TOP, 0.3 * size[1]) / size[1]
        ax = fig.add_axes((0.01, bottom, right - 0.02, top - bottom))
    else:
        fig = ax.figure
    ax.set_axis_off()
    bbox = ax.get_position()
    fw, fh = fig.get_size_inches()
    width_pt, height_pt = bbox.width * fw * 72, bbox.height * fh * 72
    xlim, ylim, ppu = limits(boxes, width_pt, height_pt)
    # titles wider than their drawings widen the boxes (and move g2 right); twice, since the
    # scale changes with the boxes
    base, base2 = boxes, a2
    for _ in range(2):
        boxes, a2 = fit_titles(base, base2, [p1.title, p2.title], ppu)
        xlim, ylim, ppu = limits(boxes, width_pt, height_pt)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")

    ctx = Context(ppu=ppu, spacing=1.0 if molecule else spacing(a1, a2), ids=ids,
                  describe=describe)
    # (a molecule's element symbols are drawn small rather than not at all: see draw_cell)
    dense = max(p1.n, p2.n) > LABEL_LIMIT or (ctx.node_size < 7.5 and not molecule)
    ctx.labels = (not dense) if labels is None else bool(labels)
    ctx.edge_labels = (not dense and not molecule and max(p1.m, p2.m) <= 30
                       and any(lab is not None for lab in (*p1.edge_labels, *p2.edge_labels))
                       if edge_labels is None else bool(edge_labels))
    if dense and labels is None:
        # (no advice in the picture: labels=True is Python's, the command line has none)
        sub += "  ·  labels left out: too dense to read"

    for panel, pos, box in ((p1, a1, boxes[0]), (p2, a2, boxes[1])):
        _draw_one(ax, panel, pos, box, ctx, molecule, carbons)
    _arrow(ax, boxes)

    if own:
        fig.text(0.5, 1.0 - 0.15 / fh, head, ha="center", va="top", fontsize=13.5,
                 fontweight="bold")
        # wrapped: its dollars escaped, not left to literal_text (see escaped)
        fig.text(0.5, 1.0 - 0.45 / fh, escaped(sub), ha="center", va="top", fontsize=9.5,
                 color="#444444", wrap=True, parse_math=True)
        fig.legend(handles=legend_handles(legend), loc="lower center",
                   ncol=len(LEGENDS[legend]), frameon=False, fontsize=9.5,
                   bbox_to_anchor=(right / 2, 0.0), handlelength=3.2)
        if table:
            _table(fig, rows, right, bottom, top, table_title)
    else:
        ax.set_title(f"{head}\n{sub}", fontsize=9)
        ax.title.set_parse_math(False)  # made with the caller's Axes, before literal_text
        ax.legend(handles=legend_handles(legend), loc="lower center", ncol=2, fontsize=7,
                  frameon=False, handlelength=3)
    tips = getattr(fig, "_gedkit_tooltips", {})
    tips.update(ctx.tooltips)
    fig._gedkit_tooltips = tips
    fig._gedkit_caption = head
    return fig if own else ax


def _draw_one(ax: Any, panel: Panel, pos: np.ndarray, box: tuple, ctx: Context,
              molecule: bool, carbons: bool) -> None:
    from matplotlib.transforms import blended_transform_factory

    cx = (box[0] + box[1]) / 2
    if panel.n == 0:
        ax.text(cx, (box[2] + box[3]) / 2, "(empty graph)", ha="center", va="center",
                fontsize=10, color="#777777", style="italic")
    elif molecule:
        from gedkit.draw.chemdraw import draw_molecule

        draw_molecule(ax, panel, pos, ctx, carbons=carbons)
    else:
        draw_panel(ax, panel, pos, ctx)
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    ax.text(cx, 1.0, panel.title, transform=trans, ha="center", va="bottom", fontsize=10,
            color="#222222", clip_on=False)


def _arrow(ax: Any, boxes: list) -> None:
    x0 = boxes[0][1] + 0.55
    x1 = boxes[1][0] - 0.55
    if x1 <= x0:
        return
    y = (max(boxes[0][3], boxes[1][3]) + min(boxes[0][2], boxes[1][2])) / 2
    ax.annotate("", xy=(x1, y), xytext=(x0, y),
                arrowprops={"arrowstyle": "-|>,head_length=0.6,head_width=0.3",
                            "color": "#9a9a9a", "lw": 1.6})


def _table(fig: Any, rows: list, left: float, bottom: float, top: float, title: str) -> None:
    """The operations as rows: glyph, number, text, cost; what does not fit is summed up in a
    last row."""
    from matplotlib.lines import Line2D

    fw, fh = fig.get_size_inches()
    ax = fig.add_axes((left, bottom, 1.0 - left - 0.01, top - bottom))
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    line = 13.0 / (ax.get_position().height * fh * 72)  # one row: 13 points
    fits = max(int(0.96 / line) - 2, 1)
    font = 8.0
    chars = int((1.0 - left - 0.01) * fw * 72 * 0.78 / (0.55 * font))
    # the cost column's room too (LETTER's "x=1.09 y=0.62 → ..." ran into "0.39215")
    chars -= max((len(f"{c:g}") + 3 for *_, c in rows if c is not None), default=0)
    y = 0.98
    ax.text(0.02, y, f"#  {title}", fontsize=font, fontweight="bold", va="top")
    costs = bool(rows) and rows[0][3] is not None
    ax.text(0.99, y, "cost" if costs else "", fontsize=font,
            fontweight="bold", va="top", ha="right")
    shown = rows if len(rows) <= fits else rows[: fits - 1]
    for k, (role, element, text, cost) in enumerate(shown):
        y -= line
        st = ROLES[role]
        mid = y - line * 0.36
        if element == "node":  # the glyph says what is edited: a node's marker, an edge's line
            ax.add_line(Line2D([0.018], [mid], marker=st.marker, markersize=5.5,
                               markerfacecolor=st.fill, markeredgecolor=st.color,
                               markeredgewidth=1.2))
        else:
            ax.add_line(Line2D([0.0, 0.036], [mid, mid], color=st.color, linestyle=st.linestyle,
                               linewidth=2.2, dash_capstyle=st.capstyle))
        ax.text(0.05, y, f"{k + 1:>2} {fitted(text, chars)}", fontsize=font, va="top",
                color="#222222")
        if cost is not None:
            ax.text(0.99, y, f"{cost:g}", fontsize=font, va="top", ha="right")
    if len(shown) < len(rows):
        y -= line
        rest = rows[len(shown):]
        total = sum(c for *_, c in rest if c is not None)
        more = f"… and {len(rest)} more" + (f", cost {total:g}" if costs else "")
        ax.text(0.045, y, more, fontsize=font, va="top", color="#555555", style="italic")
    if not rows:
        ax.text(0.045, y - line, "none", fontsize=font, va="top", color="#555555")
    elif costs:
        y -= line * 1.3
        ax.plot([0.02, 0.99], [y + line * 0.15] * 2, color="#999999", lw=0.6)
        ax.text(0.045, y, "total", fontsize=font, va="top", fontweight="bold")
        ax.text(0.99, y, f"{sum(c for *_, c in rows):g}", fontsize=font, va="top",
                ha="right", fontweight="bold")


def fitted(text: str, chars: int) -> str:
    """``text`` in at most ``chars`` characters: a relabelling's source cut before its
    arrow, so that what it becomes stays (the end cut dropped it: "relabel node 0:
    carbon-atom-with-a-very… → …"), else the end cut.

    >>> fitted("relabel node 0: carbon-atom-with-a-very-long-label → nitrogen", 40)
    'relabel node 0: carbon-atom-… → nitrogen'
    >>> fitted("delete node 3 (C)", 40)
    'delete node 3 (C)'
    """
    if len(text) <= chars:
        return text
    head, arrow, tail = text.rpartition(" → ")
    if arrow and len(tail) + len(arrow) + 8 <= chars:
        return clipped(head, chars - len(tail) - len(arrow)) + arrow + tail
    return clipped(text, chars)


def draw_cell(ax: Any, panel: Panel, pos: np.ndarray, lo: np.ndarray, hi: np.ndarray, *,
              molecule: bool, labels: bool | None, ids: bool, carbons: bool,
              describe: dict | None = None) -> tuple[dict, bool]:
    """Draw one panel alone on ``ax`` (a cell of a strip or grid) at one scale for the box
    ``lo``-``hi``; returns the tooltips of its operations and whether its labels were left
    out (too dense to read, ``labels`` not given): the figure says so once."""
    ax.set_axis_off()
    fw, fh = ax.figure.get_size_inches()
    bbox = ax.get_position()
    wpt, hpt = bbox.width * fw * 72, bbox.height * fh * 72
    w, h = np.maximum(hi - lo, 1e-9)
    ppu = min(wpt / w, hpt / h)
    cx, cy = (lo + hi) / 2
    ax.set_xlim(cx - wpt / ppu / 2, cx + wpt / ppu / 2)
    ax.set_ylim(cy - hpt / ppu / 2, cy + hpt / ppu / 2)
    ctx = Context(ppu=ppu, spacing=1.0 if molecule else spacing(pos), ids=ids,
                  describe=describe or {})
    # a molecule's element symbols are its chemistry: small, but drawn (a long chain's
    # cell without them showed its O and N as carbons)
    dense = panel.n > LABEL_LIMIT or (ctx.node_size < 6 and not molecule)
    ctx.labels = (not dense) if labels is None else bool(labels)
    if panel.n == 0:
        ax.text(cx, cy, "(empty graph)", ha="center", va="center", fontsize=9,
                color="#777777", style="italic")
    elif molecule:
        from gedkit.draw.chemdraw import draw_molecule

        draw_molecule(ax, panel, pos, ctx, carbons=carbons)
    else:
        draw_panel(ax, panel, pos, ctx)
    return ctx.tooltips, dense and labels is None and panel.n > 0


#: the note of a figure whose cells left some labels out
LABELS_LEFT_OUT = "labels left out where too dense to read"
