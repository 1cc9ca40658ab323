"""RDKit's RASCAL as an MCES method (``rascal``), for graphs of molecules.

RASCAL (Raymond, Gardiner & Willett, The Computer Journal 45(6), 2002; RDKit's
``rdRascalMCES``) finds a maximum clique in the modular product of the two line graphs. The
adapter turns each :class:`~gedkit.Graph` into an RDKit molecule:

- a node label must be an element symbol (``"C"``, ``"Cl"``; surrounding spaces, as in the IAM
  AIDS files, are ignored);
- an edge label must be a bond order: ``1``, ``2``, ``3`` or ``1.5`` (aromatic), as
  :func:`gedkit.io.from_smiles` and the IAM ``valence`` attribute give them. A graph whose
  edges are all unlabelled gets single bonds.

and runs RASCAL as a plain MCES: no similarity threshold, no ring completion, several
fragments allowed, and room for ``max_bond_pairs`` compatible bond pairs. Its atom map is then
recounted by :meth:`MCESProblem.count`; that count, never RASCAL's, is the result. Two RASCAL
behaviours are handled here:

- it gives up, silently returning nothing, when the molecules have more compatible bond pairs
  than ``maxBondMatchPairs``. The adapter counts them first and reports
  ``stats["bond_pair_limit_exceeded"]``; the result then claims nothing beyond the generic
  bounds, and is never optimal;
- it never reports a common subgraph of a single bond (its search starts above that size);
  when it returns nothing although the molecules share a bond type, the largest common
  subgraph has exactly one bond, which the adapter returns (``stats["single_bond"]``).

RASCAL counts its time limit in whole seconds and reads the clock only every hundred search
steps, and a step can be slow on large molecules: budgets are honoured only roughly (on IAM
AIDS pairs of 50-80 atoms with about 1,200 compatible bond pairs, a 1 s budget was seen to take
13 s). ``stats["timed_out"]`` is its own flag. RASCAL prints to the process's stdout and
stderr; the adapter silences both while it runs.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import numpy as np

from gedkit.errors import GraphError, MissingDependencyError
from gedkit.graph import Graph
from gedkit.mces.base import Budget, Method, check_number, register
from gedkit.mces.bounds import upper_bound
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult

__all__ = ["Rascal", "to_rdkit"]

_silence_lock = threading.Lock()


def _rdkit():
    try:
        from rdkit import Chem, rdBase
        from rdkit.Chem import rdRascalMCES
    except ImportError:
        raise MissingDependencyError("rdkit", "the RASCAL MCES method", "chem") from None
    return Chem, rdBase, rdRascalMCES


def to_rdkit(g: Graph) -> Any:
    """An RDKit molecule with ``g``'s nodes as atoms (same order) and edges as bonds.

    The molecule is not sanitised (IAM molecules need not have textbook valences); ring
    information and implicit valences are computed leniently, as RASCAL needs them.
    """
    Chem, _, _ = _rdkit()
    table = Chem.GetPeriodicTable()
    elements = {table.GetElementSymbol(z) for z in range(1, 119)}
    bond_types = {
        1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE,
        1.5: Chem.BondType.AROMATIC,
    }
    unlabelled = all(label is None for label in g.edge_labels)
    mol = Chem.RWMol()
    for node, label in zip(g.ids, g.node_labels, strict=True):
        symbol = label.strip() if isinstance(label, str) else label
        if symbol not in elements:
            raise GraphError(
                f"node {node!r}{_in(g)} has label {label!r}, not an element symbol; RASCAL "
                "needs atoms labelled by element (read molecules with node_label='atom' or, "
                "for IAM files, 'symbol')"
            )
        mol.AddAtom(Chem.Atom(symbol))
    for (a, b), label in zip(g.edges.tolist(), g.edge_labels, strict=True):
        kind = Chem.BondType.SINGLE if unlabelled else _bond_type(label, bond_types)
        if kind is None:
            raise GraphError(
                f"edge ({g.ids[a]!r}, {g.ids[b]!r}){_in(g)} has label {label!r}, not a bond "
                "order 1, 2, 3 or 1.5 (aromatic); read molecules with edge_label='bond' or, "
                "for IAM files, 'valence'"
            )
        mol.AddBond(a, b, kind)
        if kind == Chem.BondType.AROMATIC:
            mol.GetBondWithIdx(mol.GetNumBonds() - 1).SetIsAromatic(True)
    mol = mol.GetMol()
    mol.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(mol)
    return mol


def _bond_type(label: Any, bond_types: dict) -> Any:
    if isinstance(label, bool) or not isinstance(label, (int, float)):
        return None
    return bond_types.get(label)


def _in(g: Graph) -> str:
    return f" in graph {g.name!r}" if g.name else ""


def bond_pairs(mol1: Any, mol2: Any) -> int:
    """Compatible bond pairs as RASCAL counts them (same bond type and end elements)."""

    def kinds(mol):
        return Counter(
            (min(b.GetBeginAtom().GetSymbol(), b.GetEndAtom().GetSymbol()),
             max(b.GetBeginAtom().GetSymbol(), b.GetEndAtom().GetSymbol()),
             b.GetBondType())
            for b in mol.GetBonds()
        )

    k1, k2 = kinds(mol1), kinds(mol2)
    return sum(count * k2[kind] for kind, count in k1.items())


@contextmanager
def _silenced() -> Iterator[None]:
    """Point the process's stdout and stderr at the null device (RASCAL writes to them from
    C++, which would corrupt ``--json`` output)."""
    with _silence_lock:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            os.dup2(null, 2)
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in [*saved, null]:
                os.close(fd)


@register
class Rascal(Method):
    name = "rascal"
    summary = "RDKit's RASCAL (molecules only; needs RDKit), recounted and bounded by gedkit"
    exact = True
    options: ClassVar[dict[str, Any]] = {"max_bond_pairs": 20000}

    def validate(self) -> None:
        check_number(self.config, "max_bond_pairs", integer=True)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        _, rdBase, rdRascalMCES = _rdkit()
        mol1, mol2 = to_rdkit(problem.g1), to_rdkit(problem.g2)
        pairs = bond_pairs(mol1, mol2)
        limit = self.config["max_bond_pairs"]
        opts = rdRascalMCES.RascalOptions()
        opts.similarityThreshold = 0.0
        opts.completeAromaticRings = False
        if hasattr(opts, "completeSmallestRings"):
            opts.completeSmallestRings = False
        opts.ringMatchesRingOnly = False
        opts.singleLargestFrag = False
        opts.maxBondMatchPairs = limit
        remaining = budget.remaining()
        # RASCAL stops once the whole seconds elapsed exceed its timeout (-1: never)
        opts.timeout = -1 if remaining == math.inf else max(0, math.ceil(remaining) - 1)
        with rdBase.BlockLogs(), _silenced():
            found = rdRascalMCES.FindMCES(mol1, mol2, opts)

        stats: dict[str, Any] = {
            "bond_pairs": pairs,
            "bond_pair_limit_exceeded": pairs > limit,
            "timed_out": bool(found and found[0].timedOut),
            "rascal_bonds": len(found[0].bondMatches()) if found else 0,
            "rascal_similarity": float(found[0].similarity) if found else 0.0,
        }
        forward = np.full(problem.n1, -1, dtype=np.int64)
        if found:
            for a, b in found[0].atomMatches():
                if problem.node_labels1[a] == problem.node_labels2[b]:
                    forward[a] = b
        bound = upper_bound(problem)
        if not stats["bond_pair_limit_exceeded"] and not stats["timed_out"]:
            if not found and problem.useful1.any():
                forward = _single_bond(problem)
                stats["single_bond"] = True
            # a finished search is exact: its clique size bounds every common subgraph
            bound = min(bound, max(stats["rascal_bonds"], problem.count(forward)))
        return MCESResult.from_map(
            problem, forward, bound, self.name, time=time.perf_counter() - t0, stats=stats
        )


def _single_bond(problem: MCESProblem) -> np.ndarray:
    """A map keeping one edge: the first edge of g1 that has a partner in g2."""
    e = int(np.flatnonzero(problem.useful1)[0])
    partner = int(np.flatnonzero(problem.edge_classes2 == problem.edge_classes1[e])[0])
    a, b = problem.g1.edges[e]
    c, d = problem.g2.edges[partner]
    if problem.node_labels1[a] != problem.node_labels2[c]:
        c, d = d, c
    forward = np.full(problem.n1, -1, dtype=np.int64)
    forward[a], forward[b] = c, d
    return forward
