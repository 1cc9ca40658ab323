"""The standard edit-cost models of the GED literature, as GEDLIB defines them.

- ``chem_1``, ``chem_2`` (molecules: IAM AIDS / Mutagenicity, GREYC sets): node ``chem`` or
  ``symbol`` (or a plain atom label), edge ``valence`` (or a plain bond label)
- ``letter``, ``letter_2`` (IAM Letter): node ``x``, ``y``
- ``grec_1``, ``grec_2`` (IAM GREC): node ``x``, ``y``, ``type``; edge ``frequency``,
  ``type0`` (``type1`` for two-part edges, GREC_2)
- ``protein`` (IAM Protein): node ``type``, ``sequence``; edge ``frequency``, ``type<i>``
- ``fingerprint`` (IAM Fingerprint): edge ``orient``
- ``cmu`` (CMU house sequence, GDR4GED): edge ``dist``

Each is available as ``costs="<name>"`` (any case) with GEDLIB's default constants, or from its
factory in :mod:`gedkit.costs` with other constants. Formulas and sources are in each factory's
docstring. GEDLIB: Blumenthal et al., "GEDLIB: A C++ library for graph edit distance
computation", GbRPR 2019, https://doi.org/10.1007/978-3-030-20081-7_2.
"""

from __future__ import annotations

from collections.abc import Callable

from gedkit.costs.attributes import AttributeCosts
from gedkit.costs.chem import chem_1, chem_2
from gedkit.costs.geometric import cmu, fingerprint, letter, letter_2
from gedkit.costs.typed import grec_1, grec_2, protein

__all__ = ["MODELS"]

#: Registry name -> factory (called without arguments for GEDLIB's defaults).
MODELS: dict[str, Callable[[], AttributeCosts]] = {
    "chem_1": chem_1,
    "chem_2": chem_2,
    "letter": letter,
    "letter_2": letter_2,
    "grec_1": grec_1,
    "grec_2": grec_2,
    "protein": protein,
    "fingerprint": fingerprint,
    "cmu": cmu,
}
