"""Options that shape the common subgraph itself, declared once: those of the methods that
offer them (a method without one rejects it by name, as any unknown option), and
``ring_matches_ring_only``, which :func:`gedkit.mces` applies to the problem itself, so that
every method honours it."""

from __future__ import annotations

from gedkit.configurable import Option, flag

__all__ = ["CONNECTED", "RASCAL_TIES", "RING_MATCHES_RING_ONLY"]

CONNECTED = Option(False, "the common subgraph must be connected (one fragment, as RDKit's "
                   "FindMCS finds it)", flag())
RASCAL_TIES = Option(False, "among equally large maps, RASCAL's (fewest fragments, then the "
                     "largest fragment), so that similarity is what RASCAL reports", flag())
RING_MATCHES_RING_ONLY = Option(False, "an edge on a cycle (ring bond) matches only an edge on "
                                "a cycle, as RDKit's ringMatchesRingOnly", flag())
