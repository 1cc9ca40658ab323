"""Options that shape the common subgraph itself, declared once: those of the methods that
offer them (a method without one rejects it by name, as any unknown option), and
``ring_matches_ring_only``, which :func:`gedkit.mces` applies to the problem itself, so that
every method honours it."""

from __future__ import annotations

from gedkit.configurable import Option, flag, number

__all__ = [
    "COMPLETE_RINGS", "CONNECTED", "MAX_FRAGMENT_SEPARATION", "MIN_FRAGMENT_SIZE", "RASCAL_TIES",
    "RING_MATCHES_RING_ONLY",
]

CONNECTED = Option(False, "the common subgraph must be connected (one fragment, as RDKit's "
                   "FindMCS finds it)", flag())
RASCAL_TIES = Option(False, "among equally large maps, the first by RASCAL's first rules "
                     "(fewest fragments, then the largest fragment), as RDKit ranks them with "
                     "allBestMCESs=True before its further scores", flag())
RING_MATCHES_RING_ONLY = Option(False, "an edge on a cycle (ring bond) matches only an edge on "
                                "a cycle, as RDKit's ringMatchesRingOnly", flag())
MIN_FRAGMENT_SIZE = Option(None, "fragments of fewer atoms are dropped from the answer "
                           "(RASCAL's minFragSize; None: keep all)",
                           number(integer=True, none=True))
MAX_FRAGMENT_SEPARATION = Option(None, "fragments farther apart than this many bonds are "
                                 "dropped, the largest kept (RASCAL's maxFragSeparation)",
                                 number(integer=True, strict=False, none=True))
COMPLETE_RINGS = Option(False, "partly matched rings are dropped from the answer (RASCAL's "
                        "completeSmallestRings and completeAromaticRings)", flag())
