"""What Gelato's decoding costs, from the pair's sizes: the estimates the decoder and the
solver size their work by (NumPy only, no torch; see :mod:`gedkit.nn.budgeting`).

A decoding state with ``a`` undecided nodes in g1 and ``b`` in g2 has ``a·b`` candidate pairs
(plus ``a + b`` deletions and insertions when the costs need them). A network call costs a
fixed part, a part per node of its state graphs, and a part per candidate (encoding and
scoring); its memory is a part per candidate while a group of states is scored
(:data:`GROUP_CANDIDATES` at most at a time) plus a fixed slice of hidden vectors. A greedy
completion (:meth:`~gedkit.learned.features.States.complete_greedily`) costs one ``argmin``
over the undecided rows and columns per decision. The per-candidate figure is only a first
guess: the decoder replaces it by what it measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gedkit.problem import Problem

__all__ = [
    "CALL_SECONDS", "CANDIDATE_BYTES", "CANDIDATE_SECONDS", "GROUP_CANDIDATES", "NODE_SECONDS",
    "SLICE", "SLICE_BYTES", "Rates", "candidates", "instance_bytes", "state_bytes",
]

#: first guess of the seconds per candidate of a network call (encoding and scoring, width
#: 128, one loaded CPU core); replaced by the measured figure after the first call
CANDIDATE_SECONDS = 1e-5
CALL_SECONDS = 0.003  # fixed cost of a network call
NODE_SECONDS = 5e-6  # per node of the state graphs of a call (the GINE layers)
#: bytes per candidate of a group being scored (encoded arrays, tensors, padded scores)
CANDIDATE_BYTES = 400
#: candidates scored at once (the hidden vectors of a slice: ~6 x 4 bytes x width each)
SLICE = 1 << 14
SLICE_BYTES = SLICE * 128 * 4 * 8
#: candidates encoded at once: a step's states are scored in groups of at most this many
#: (a single state may exceed it; it is then a group of its own)
GROUP_CANDIDATES = 1 << 17
# a greedy completion step: one argmin over the compacted matrix (up to ~2x the live one) at
# about three times the probe's rate per entry, plus Python's fixed cost per decision
_GREEDY_ENTRY_FACTOR = 3.0
_GREEDY_STEP_SECONDS = 1e-4
#: ... and per entry a decision's edge updates touch, against the probe's rate per entry
#: (fitted on dense random graphs of 300 to 2,000 nodes)
_GREEDY_EDGE_FACTOR = 250.0
#: candidates from which a call's measured rate is kept for the next decodings, of this
#: process and (in a file beside the kernels' cache) of later ones
_MEASURED_FROM = 4096
_MEASURED: list[float | None] = [None]
_MEASURED_MARGIN = 2.0  # on it, for the next decodings' first guess (see Rates.measured)
_SAVED_READ = [False]  # whether this process read the rate an earlier one kept
_SAVED_CHANGE = 0.2  # a rate is written again when it moved by more than that share


def _first_guess() -> float:
    if _MEASURED[0] is None and not _SAVED_READ[0]:
        _SAVED_READ[0] = True
        _MEASURED[0] = _saved_rate()
    return CANDIDATE_SECONDS if _MEASURED[0] is None else _MEASURED_MARGIN * _MEASURED[0]


def _rate_file() -> Path:
    """Where a measured rate is kept for later processes: beside the kernel families'
    markers (:func:`gedkit._kernels.warm.marker_dir`), which follow the install."""
    from gedkit._kernels.warm import marker_dir

    return marker_dir() / "rate.gelato"


def _saved_rate() -> float | None:
    """The seconds per candidate a large call of an earlier process measured, if any."""
    try:
        value = float(_rate_file().read_text())
    except (OSError, ValueError):
        return None
    return value if 1e-9 <= value <= 1.0 else None


def _save_rate(value: float) -> None:
    """Keep ``value`` for later processes (whole or not at all; where the folder cannot be
    written, not at all)."""
    from gedkit.nn import write_atomically  # (no torch)

    path = _rate_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lambda tmp: tmp.write_text(repr(value)))
    except OSError:
        return


def candidates(a: int, b: int, epsilon: bool) -> int:
    """Candidate actions of a state with ``a`` and ``b`` undecided nodes.

    >>> candidates(3, 4, False), candidates(3, 4, True)
    (12, 19)
    """
    if not a or not b:
        return 0
    return a * b + (a + b if epsilon else 0)


def instance_bytes(n1: int, n2: int) -> int:
    """Memory of an :class:`~gedkit.learned.features.Instance`: its scaled node costs, label
    adjacencies (int64, with their temporaries) and neighbour masks."""
    return 8 * (n1 + 1) * (n2 + 1) + 24 * ((n1 + 1) ** 2 + (n2 + 1) ** 2)


def state_bytes(n1: int, n2: int) -> int:
    """Memory per decoding state: its (n1+1) x (n2+1) float64 edge costs, the copy a branch
    takes, the temporary a decision adds and the candidate masks."""
    return 4 * 8 * (n1 + 1) * (n2 + 1)


@dataclass
class Rates:
    """Seconds per unit of work on this machine now.

    Attributes
    ----------
    entry : float
        NumPy, per entry of a reduction (:func:`gedkit.nn.budgeting.entry_seconds`).
    candidate : float
        The network, per candidate of a call, encoding included.
    """

    entry: float
    #: the first guess: twice what a large call of an earlier decoding measured (of this
    #: process, else of an earlier one of this install), else :data:`CANDIDATE_SECONDS`
    candidate: float = field(default_factory=_first_guess)
    calls: int = 0

    def measured(self, seconds: float, n_candidates: int) -> None:
        """Take the per-candidate figure from a network call of ``n_candidates`` that took
        ``seconds``; the first call of a decoding may also pay torch's one-off start-up, so
        it may only lower the first guess. A call of at least :data:`_MEASURED_FROM`
        candidates (its fixed part then small) is kept for the next decodings' first guess,
        later processes' too: with 1e-5 against the ~1.5e-6 measured, sampling and beam
        decodings, which size their width before any call, kept 1 of 32 samples at 5 s on an
        85/95-atom pair and stopped after 0.3 s (taken as it is, without the margin, 32
        samples at 5 s on an 80/81-atom pair ran out of time halfway: a call scoring 32
        states costs more per candidate than the calls it was measured on)."""
        seen = max(1e-9, seconds / max(n_candidates, 1))
        self.candidate = seen if self.calls else min(seen, self.candidate)
        self.calls += 1
        if n_candidates >= _MEASURED_FROM:
            known = _MEASURED[0]
            _MEASURED[0] = self.candidate
            if known is None or abs(self.candidate / known - 1.0) > _SAVED_CHANGE:
                # a fresh process's first decoding sized itself by 1e-5 (~7x too slow here)
                _save_rate(self.candidate)

    def greedy(self, a: int, b: int, d1: float = 0.0, d2: float = 0.0) -> float:
        """Seconds to complete one state with ``a`` and ``b`` undecided nodes greedily, on
        graphs of mean degrees ``d1`` and ``d2``.

        >>> r = Rates(entry=1e-9)
        >>> r.greedy(0, 5), r.greedy(10, 10) < r.greedy(100, 100) < r.greedy(100, 100, 9, 9)
        (0.0, True)
        """
        m = min(a, b)
        if not m:
            return 0.0
        # the matrix shrinks by a row and a column per decision; compaction keeps it below
        # twice the live size
        entries = 2 * (a * b * m - (a + b) * m * m / 2 + m**3 / 3 + a + b)
        # and each decision updates the actions next to its nodes, by fancy indexing: about
        # d1 rows by the live columns and the live rows by d2 columns (on dense 1,000-node
        # graphs 2.0 s where the matrix alone was estimated 0.3 s)
        edges = m * (d1 * b + a * d2) / 2
        return (self.entry * (_GREEDY_ENTRY_FACTOR * entries + _GREEDY_EDGE_FACTOR * edges)
                + _GREEDY_STEP_SECONDS * m)

    def network(self, n_candidates: int, n_nodes: int) -> float:
        """Seconds of a network call on states with ``n_nodes`` nodes and ``n_candidates``
        candidates in all."""
        return CALL_SECONDS + NODE_SECONDS * n_nodes + self.candidate * n_candidates


def mean_degrees(problem: Problem) -> tuple[float, float]:
    """The mean degrees of ``problem``'s two graphs (:meth:`Rates.greedy` reads them)."""
    return (2 * problem.g1.m / max(problem.n1, 1), 2 * problem.g2.m / max(problem.n2, 1))
