"""Writing pictures: SVG (with a tooltip on every operation), PNG or PDF, byte for byte the
same on every run."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from gedkit.errors import MissingDependencyError, OptionError

__all__ = ["FORMATS", "check_path", "escaped", "literal_text", "require_matplotlib", "save",
           "svg_text"]

FORMATS = (".svg", ".png", ".pdf")


def require_matplotlib() -> Any:
    """The ``matplotlib`` module, or the error that says how to install it."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("matplotlib", "drawing results", "draw") from None
    return matplotlib


def check_path(path: str | Path) -> Path:
    """``path`` as a Path, checked: a known extension, in a folder that exists.

    >>> check_path("out.jpg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: cannot write a picture to 'out.jpg': give a file name ending ...
    """
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise OptionError(f"cannot write a picture to {str(path)!r}: give a file name ending "
                          f"in {', '.join(FORMATS[:-1])} or {FORMATS[-1]}")
    if not p.parent.is_dir():
        raise OptionError(f"cannot write a picture to {str(path)!r}: folder "
                          f"{str(p.parent)!r} does not exist")
    return p


def literal_text() -> Any:
    """rc settings under which every text artist made is drawn as written: a label such as
    ``costs $5 or $10`` is no mathtext (its dollars would vanish, ``$x^$`` would not even
    parse). A Text reads the setting when it is made, so the picture keeps it when saved."""
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def escaped(text: str) -> str:
    """``text`` for a Text drawn with ``wrap=True`` and ``parse_math=True``: matplotlib
    measures the lines of a wrapped text as mathtext whenever they hold dollars, whatever
    ``parse_math`` says, so such a text escapes its dollars instead (``\\$`` is drawn ``$``).

    >>> escaped("costs $5")
    'costs \\\\$5'
    """
    return text.replace("$", r"\$")


def _fixed():
    """rc settings that make SVG output reproducible (no random ids)."""
    import matplotlib

    return matplotlib.rc_context({"svg.hashsalt": "gedkit", "svg.fonttype": "path"})


def svg_text(fig: Any) -> str:
    """The figure as SVG text, each operation's element carrying its tooltip (``<title>``)."""
    buf = io.StringIO()
    with _fixed():
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return add_tooltips(buf.getvalue(), getattr(fig, "_gedkit_tooltips", {}))


def add_tooltips(svg: str, tips: dict[str, str]) -> str:
    """Insert ``<title>`` (shown on hover by browsers) as the first child of each group whose
    id has a tooltip.

    >>> add_tooltips('<g id="op-0">\\n <path/></g>', {"op-0": "delete node 9 (O)"})
    '<g id="op-0"><title>delete node 9 (O)</title>\\n <path/></g>'
    """
    if not tips:
        return svg

    def put(match: re.Match) -> str:
        tip = tips.get(match.group(1))
        return match.group(0) if tip is None else f"{match.group(0)}<title>{escape(tip)}</title>"

    return re.sub(r'<g id="([^"]+)">', put, svg)


def save(fig: Any, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` (the extension chooses SVG, PNG or PDF); returns the path.

    The PNG's size in pixels is the figure's size in inches times its ``dpi``.
    """
    p = check_path(path)
    fmt = p.suffix.lower()[1:]
    if fmt == "svg":
        p.write_text(svg_text(fig), encoding="utf-8")
        return p
    metadata = {"Software": None} if fmt == "png" else {"CreationDate": None}
    with _fixed():
        fig.savefig(p, format=fmt, dpi=fig.dpi, metadata=metadata)
    return p
