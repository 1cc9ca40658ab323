"""Options that shape the common subgraph itself, declared once for every MCES method that
offers them (a method without one rejects it by name, as any unknown option)."""

from __future__ import annotations

from gedkit.configurable import Option, flag

__all__ = ["CONNECTED", "RASCAL_TIES"]

CONNECTED = Option(False, "the common subgraph must be connected (one fragment, as RDKit's "
                   "FindMCS finds it)", flag())
RASCAL_TIES = Option(False, "among equally large maps, RASCAL's (fewest fragments, then the "
                     "largest fragment), so that similarity is what RASCAL reports", flag())
