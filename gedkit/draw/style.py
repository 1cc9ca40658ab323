"""How each role looks: colour, line style and node glyph, colour-blind safe.

Every role differs from every other in colour **and** in a second channel (line style for edges,
marker shape for nodes), so a picture reads in greyscale and for every kind of colour blindness.
Colours are from the Okabe–Ito palette (Okabe & Ito, *Color Universal Design*, 2008).

This module needs no matplotlib: it only names styles, which the renderers apply.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OKABE_ITO", "ROLES", "Role", "role"]

#: the Okabe–Ito palette
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}


@dataclass(frozen=True)
class Role:
    """The look of one role.

    Attributes
    ----------
    name : str
        What the legend says (``"deleted (g1)"``).
    color : str
        Line and marker-edge colour.
    fill : str
        Marker face colour (a light tint of ``color``).
    linestyle : str or tuple
        Matplotlib line style of edges in this role.
    linewidth : float
        Edge width in points (operations are drawn thicker than what is kept).
    marker : str
        Matplotlib marker of nodes in this role.
    capstyle : str
        Line ends: ``"round"`` turns the dotted pattern's tiny dashes into dots.
    """

    name: str
    color: str
    fill: str
    linestyle: str | tuple
    linewidth: float
    marker: str
    capstyle: str = "butt"


# Dash patterns are in units of the line width: long dashes for deletions, round dots for
# insertions (a near-zero dash with round caps is a dot), so the two read apart in greyscale.
_DASHED = (0, (3.0, 1.6))
_DOTTED = (0, (0.01, 1.9))

ROLES: dict[str, Role] = {
    "kept": Role("kept", "#3c3c3c", "#ffffff", "solid", 1.4, "o"),
    "relabelled": Role("relabelled", OKABE_ITO["orange"], "#fbe3b0", "solid", 3.4, "D"),
    "deleted": Role("deleted (on g1)", OKABE_ITO["vermillion"], "#f6cfb3", _DASHED, 2.8, "s"),
    "inserted": Role("inserted (on g2)", OKABE_ITO["blue"], "#bfdcef", _DOTTED, 3.2, "h",
                     "round"),
    # MCES: what both graphs share, and the rest
    "common": Role("common", OKABE_ITO["bluish_green"], "#bfe8da", "solid", 3.4, "o"),
    "other": Role("not common", "#9a9a9a", "#ffffff", "solid", 1.0, "o"),
    # similarity-search grids: nothing is an operation there
    "plain": Role("", "#3c3c3c", "#ffffff", "solid", 1.4, "o"),
}

#: the legend's roles per picture kind, in reading order
LEGENDS = {
    "ged": ("kept", "relabelled", "deleted", "inserted"),
    "mces": ("common", "other"),
}


def role(name: str) -> Role:
    """The style of role ``name``.

    >>> role("deleted").marker, role("inserted").color
    ('s', '#0072B2')
    """
    return ROLES[name]
