"""Writing pictures: SVG (with a tooltip on every operation), PNG or PDF, byte for byte the
same on every run."""

from __future__ import annotations

import contextlib
import io
import math
import numbers
import os
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from gedkit.errors import MissingDependencyError, OptionError

__all__ = ["FORMATS", "MAX_SIDE_PIXELS", "check_path", "check_size", "escaped", "literal_text",
           "require_matplotlib", "save", "svg_text"]

FORMATS = (".svg", ".png", ".pdf")


def require_matplotlib() -> Any:
    """The ``matplotlib`` module, or the error that says how to install it (or, when it is
    installed but does not start, why: an unknown ``MPLBACKEND``)."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("matplotlib", "drawing results", "draw") from None
    except ValueError as err:  # matplotlib checks its rc settings as it is imported
        backend = os.environ.get("MPLBACKEND")
        if backend and "backend" in str(err):
            raise OptionError(f"matplotlib does not start: MPLBACKEND={backend!r} is no "
                              "backend it knows (unset it, or set it to agg)") from None
        raise OptionError(f"matplotlib does not start: {err}") from None
    return matplotlib


#: the most pixels a side of a picture may have: Agg refuses 2**16 and more, and a picture
#: of 2**15 squared already takes 4 GB to draw
MAX_SIDE_PIXELS = 2**15


def new_figure(size: tuple[float, float], dpi: float) -> Any:
    """A matplotlib Figure of ``size`` inches (given, or chosen from the graphs) at ``dpi``,
    refused in one line where a side would pass :data:`MAX_SIDE_PIXELS` pixels (dpi=5000 on
    a chosen size: 84 s for a 1.8-gigapixel PNG no image library would open)."""
    from matplotlib.figure import Figure

    if max(size) * dpi > MAX_SIDE_PIXELS:
        raise OptionError(f"dpi={dpi!r} makes this picture ({size[0]:.1f} x {size[1]:.1f} "
                          f"inches) {max(size) * dpi:,.0f} pixels a side, more than a picture "
                          f"may have ({MAX_SIDE_PIXELS:,}); give a smaller dpi or figsize")
    return Figure(figsize=size, dpi=dpi)


def check_size(figsize: Any, dpi: Any) -> None:
    """A one-line error unless ``figsize`` (None: chosen from the graphs) is a width and a
    height in inches, positive and finite, and ``dpi`` a positive finite number, with no
    side over :data:`MAX_SIDE_PIXELS` pixels.

    >>> check_size((0, 0), 100)
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: figsize=(0, 0): give a width and a height in inches, both positive
    """
    if not _real(dpi) or not dpi > 0 or not math.isfinite(dpi):
        raise OptionError(f"dpi={dpi!r}: give a positive number of dots per inch")
    if figsize is None:
        return
    if not isinstance(figsize, list | tuple) or len(figsize) != 2 or not all(
            _real(side) for side in figsize):
        raise OptionError(f"figsize={figsize!r}: give a width and a height in inches, such as "
                          "(8, 4)")
    if not all(side > 0 and math.isfinite(side) for side in figsize):
        raise OptionError(f"figsize={figsize!r}: give a width and a height in inches, both "
                          "positive")
    if max(figsize) * dpi > MAX_SIDE_PIXELS:
        raise OptionError(f"figsize={figsize!r} at dpi={dpi!r} is {max(figsize) * dpi:,.0f} "
                          f"pixels a side, more than a picture may have ({MAX_SIDE_PIXELS:,}); "
                          "give a smaller size or dpi")


def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)  # numpy's too


def check_path(path: str | Path) -> Path:
    """``path`` as a Path, checked: a known extension, in a folder that exists.

    >>> check_path("out.jpg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: cannot write a picture to 'out.jpg': give a file name ending ...
    """
    p = Path(path)
    where = f"cannot write a picture to {str(path)!r}"
    if p.suffix.lower() not in FORMATS:
        raise OptionError(f"{where}: give a file name ending in {', '.join(FORMATS[:-1])} or "
                          f"{FORMATS[-1]}")
    if p.parent.exists() and not p.parent.is_dir():
        raise OptionError(f"{where}: {str(p.parent)!r} is a file, not a folder")
    if not p.parent.is_dir():
        raise OptionError(f"{where}: folder {str(p.parent)!r} does not exist")
    _check_writable(p, where)
    return p


def _check_writable(p: Path, where: str) -> None:
    """A one-line error unless ``p`` can be opened for writing, found by trying (a file made
    for the try is removed): permissions say nothing of /proc or of a read-only mount, and
    the picture is written after the work, which the error would then lose."""
    existed = p.exists()
    try:
        with open(p, "ab"):  # appending to nothing: an existing file is left as it is
            pass
    except OSError as err:
        raise OptionError(f"{where}: {err.strerror or err}") from None
    if not existed:
        with contextlib.suppress(OSError):
            p.unlink()


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
