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
recounted by :meth:`MCESProblem.count`; that count, never RASCAL's, is the result. Four RASCAL
behaviours are handled here:

- it gives up, silently returning nothing, when the molecules have more compatible bond pairs
  than ``maxBondMatchPairs``. The adapter counts them first and reports
  ``stats["bond_pair_limit_exceeded"]``; the result then claims nothing beyond the generic
  bounds, and is never optimal;
- its atom map, derived from its bond matches, does not always realise them (two atoms onto
  one, or fewer common bonds than it counted, on pairs of 4-6 carbons): the adapter keeps the
  first pair of each atom and, when the recount falls short of RASCAL's count, completes the
  map with gedkit's exact search seeded with it and capped by RASCAL's bound
  (``stats["completed_by_exact_search"]``);
- with ``connected=True`` it runs with ``singleLargestFrag``, which trims its answer to its
  largest fragment after the search and so can miss the largest connected common subgraph
  (RDKit's documentation says as much): its map is kept, but only the generic bound; so
  with ``min_fragment_size``, ``max_fragment_separation`` and ``complete_rings``, RASCAL's
  rules that drop parts of its answer after the search (only this method offers them);
- it never reports a common subgraph of a single bond (its search starts above that size);
  when it returns nothing although the molecules share a bond type, the largest common
  subgraph has exactly one bond, which the adapter returns (``stats["single_bond"]``).

RASCAL counts its time limit in whole seconds and reads the clock only every hundred search
steps, and a step can be slow on large molecules: left to itself it honours a budget only
roughly (on IAM AIDS pairs of 50-85 atoms with 1,100-1,600 compatible bond pairs, a 1 s budget
was seen to take 9-33 s). With a timeout, the adapter therefore runs RASCAL in a child process
and kills it once the budget has run out (its bound is computed first, so the time left is
RASCAL's):

- the child is forked where the platform can fork (Linux, macOS), which adds about 10 ms to a
  call (6-18 ms measured on a busy machine), and spawned elsewhere (Windows), which pickles
  the molecules and spends a second or more of the budget importing RDKit and gedkit again;
- RASCAL also gets its own limit, ``max(1, floor(time left))`` seconds, so that when it does
  notice the time its best MCES so far comes back; that map is recounted as usual but proves
  no bound (``stats["timed_out"]``);
- a killed search leaves nothing of RASCAL's: the result is the greedy map of the cheap bounds
  (:func:`~gedkit.mces.cheap.greedy_map`, made before RASCAL runs; as where RASCAL stops short
  of its time or its bond-pair limit, the better of it and RASCAL's map), or one bond the
  molecules share (none when they share no bond type), under the generic
  :func:`~gedkit.mces.bounds.upper_bound`,
  with ``stats["killed"]`` and ``stats["timed_out"]`` set. A child that dies without
  answering (a crash inside RDKit) gets the same result and ``stats["child_exitcode"]``.

Without a timeout the child runs too, where it is forked, so that Ctrl-C stops it (RASCAL's
C++ search hears no signal: it ran on for minutes, deaf to SIGINT and SIGTERM); the parent
looks for Ctrl-C every :data:`_LOOK` seconds while it waits.

``stats["isolated"]`` says whether RASCAL ran in a child. A daemonic process (a
``multiprocessing.Pool`` worker, which multiprocessing forbids children) starts one all the
same: the child is killed or joined before the call returns. RASCAL runs in the calling
process, with only its own rough limit, without a timeout where a child would be spawned and
when no process can be started; ``stats["in_process_reason"]`` says which. Calls from several
threads each get their own child; in-process runs take turns, as silencing the output is
process-wide. RASCAL prints to the process's stdout and stderr from C++: in-process runs point
both at the null device while RASCAL runs, a child points its own there for good.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, ClassVar, NamedTuple

import numpy as np

from gedkit import configurable
from gedkit.errors import GraphError, MissingDependencyError, Option
from gedkit.graph import Graph
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.bounds import upper_bound
from gedkit.mces.cheap import greedy_map
from gedkit.mces.options import (
    COMPLETE_RINGS,
    CONNECTED,
    MAX_FRAGMENT_SEPARATION,
    MIN_FRAGMENT_SIZE,
)
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.quiet import silenced
from gedkit.text import quoted

__all__ = ["Rascal", "to_rdkit"]

#: seconds between two looks at Ctrl-C while a child searches
_LOOK = 0.1


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
                f"node {quoted(node)}{_in(g)} has label {quoted(label)}, not an element symbol; "
                "RASCAL "
                "needs atoms labelled by element (read molecules with ",
                Option("node_label", "atom"), " or, for IAM files, ",
                Option("node_label", "symbol"), ")",
            )
        mol.AddAtom(Chem.Atom(symbol))
    for (a, b), label in zip(g.edges.tolist(), g.edge_labels, strict=True):
        kind = Chem.BondType.SINGLE if unlabelled else _bond_type(label, bond_types)
        if kind is None:
            raise GraphError(
                f"edge ({quoted(g.ids[a])}, {quoted(g.ids[b])}){_in(g)} has label {quoted(label)}, "
                "not a bond "
                "order 1, 2, 3 or 1.5 (aromatic); read molecules with ",
                Option("edge_label", "bond"), " or, for IAM files, ",
                Option("edge_label", "valence"),
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
    return f" in graph {quoted(g.name)}" if g.name else ""


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


@register
class Rascal(Method):
    name = "rascal"
    summary = "RDKit's RASCAL (molecules only; needs RDKit), recounted and bounded by gedkit"
    exact = True
    options: ClassVar[dict[str, configurable.Option]] = {
        "max_bond_pairs": configurable.Option(
            20000, "RASCAL's maxBondMatchPairs: compatible bond pairs it accepts (beyond: no "
            "RASCAL answer)", configurable.number(integer=True)),
        "connected": CONNECTED,
        "min_fragment_size": MIN_FRAGMENT_SIZE,
        "max_fragment_separation": MAX_FRAGMENT_SEPARATION,
        "complete_rings": COMPLETE_RINGS,
    }

    def fallback(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        """The cheap bounds, for molecules only: where the kernels were not ready (or did not
        fit the memory cap), graphs RASCAL cannot take got bounds instead of its error."""
        to_rdkit(problem.g1), to_rdkit(problem.g2)
        return super().fallback(problem, budget)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        mol1, mol2 = to_rdkit(problem.g1), to_rdkit(problem.g2)
        pairs = bond_pairs(mol1, mol2)
        limit = self.config["max_bond_pairs"]
        bound = upper_bound(problem, budget)  # before RASCAL, so that its time is RASCAL's
        trimmed = self.config["min_fragment_size"] is not None or self.config["complete_rings"]
        trimmed = trimmed or self.config["max_fragment_separation"] is not None
        # what answers where RASCAL's search stops short (its time, its bond-pair limit, its
        # child killed): its map or one shared bond kept 0-1 common edges of a 2,000-atom
        # pair, where this greedy map keeps 701 (RASCAL's trimming rules it cannot follow)
        greedy = None if trimmed else greedy_map(problem)
        remaining = budget.remaining()
        settings = {
            "similarityThreshold": 0.0,
            "completeAromaticRings": self.config["complete_rings"],
            "completeSmallestRings": self.config["complete_rings"],
            "minFragSize": _or_off(self.config["min_fragment_size"]),
            "maxFragSeparation": _or_off(self.config["max_fragment_separation"]),
            "ringMatchesRingOnly": problem.ring_matches_ring_only,
            "singleLargestFrag": self.config["connected"],
            "maxBondMatchPairs": limit,
            # RASCAL stops once the whole seconds elapsed exceed its timeout (-1: never), so
            # on its own it stops at max(1, floor(remaining)) seconds
            "timeout": -1 if remaining == math.inf else max(0, math.floor(remaining) - 1),
        }
        run = _run(mol1, mol2, settings, remaining)
        found = run.found
        stats: dict[str, Any] = {
            "bond_pairs": pairs,
            "bond_pair_limit_exceeded": pairs > limit,
            "isolated": run.isolated,
            "timed_out": run.killed or bool(found and found.timed_out),
            "killed": run.killed,
            "rascal_bonds": found.bonds if found else 0,
            "rascal_similarity": found.similarity if found else 0.0,
        }
        if run.note:
            stats["in_process_reason"] = run.note
        if run.interrupted or stats["timed_out"]:  # (as the other methods say it)
            stats["stopped"] = "interrupted" if run.interrupted else "time limit"
        if run.exitcode is not None:
            stats["child_exitcode"] = run.exitcode
        forward = np.full(problem.n1, -1, dtype=np.int64)
        if found:
            # RASCAL derives its atom map from its bond matches, and that map does not always
            # realise them: two atoms onto one, or fewer common bonds than it counted, were
            # seen on 4- to 6-carbon pairs. Keep the first pair of each atom; see below.
            used = set()
            for a, b in found.atoms:
                if (forward[a] < 0 and b not in used
                        and problem.node_labels1[a] == problem.node_labels2[b]):
                    forward[a] = b
                    used.add(b)
        finished = run.answered and not stats["timed_out"]
        if self.config["connected"] or trimmed:
            # RASCAL trims its answer after its search (to its largest fragment, its large or
            # close fragments, its complete rings), so its count proves nothing about the
            # best answer under these rules: the generic bound stays
            if self.config["connected"]:
                forward = problem.largest_fragment(forward)
            if not found and problem.useful1.any() and not trimmed:
                forward = _single_bond(problem)
        elif finished and not stats["bond_pair_limit_exceeded"]:
            if not found and problem.useful1.any():
                forward = _single_bond(problem)
                stats["single_bond"] = True
            # a finished search is exact: its clique size bounds every common subgraph
            kept = problem.count(forward)
            bound = min(bound, max(stats["rascal_bonds"], kept))
            if kept < bound:
                # its map fell short of its count: gedkit's exact search, seeded with that
                # map and capped by RASCAL's bound, finds one that reaches it (or proves
                # less) in the time left
                from gedkit.mces.exact import branch_and_bound

                completed = branch_and_bound(problem, budget, incumbent=forward, upper=bound)
                stats["completed_by_exact_search"] = completed.num_edges
                forward, bound = completed.assignment, completed.upper_bound
        elif not run.answered and problem.useful1.any():
            # RASCAL's best so far died with its process; one shared bond is still common
            forward = _single_bond(problem)
        if greedy is not None and not (finished and not stats["bond_pair_limit_exceeded"]):
            if self.config["connected"]:
                greedy = problem.largest_fragment(greedy)
            if problem.count(greedy) > problem.count(forward):
                forward = greedy
                stats["greedy_map"] = True
        return MCESResult.from_map(
            problem, forward, bound, self.name, time=time.perf_counter() - t0, stats=stats
        )



class _Found(NamedTuple):
    """RASCAL's best MCES as plain data, small enough to send between processes."""

    atoms: list[tuple[int, int]]
    bonds: int
    similarity: float
    timed_out: bool


class _Run(NamedTuple):
    """How a RASCAL call went: its answer (None: it found nothing), whether it answered at
    all, whether it ran in a child process that was killed, and why it did not run in one."""

    found: _Found | None
    answered: bool = True
    isolated: bool = False
    killed: bool = False
    exitcode: int | None = None
    note: str = ""
    interrupted: bool = False  # killed at Ctrl-C


def _find(mol1: Any, mol2: Any, settings: dict[str, Any]) -> _Found | None:
    """RASCAL's best MCES under ``settings`` (RascalOptions attributes); None: it found none."""
    _, rdBase, rdRascalMCES = _rdkit()
    opts = rdRascalMCES.RascalOptions()
    for key, value in settings.items():
        if hasattr(opts, key):  # completeSmallestRings is missing from older releases
            setattr(opts, key, value)
    with rdBase.BlockLogs():
        found = rdRascalMCES.FindMCES(mol1, mol2, opts)
    if not found:
        return None
    best = found[0]
    return _Found(
        [(int(a), int(b)) for a, b in best.atomMatches()], len(best.bondMatches()),
        float(best.similarity), bool(best.timedOut),
    )


def _in_process(mol1: Any, mol2: Any, settings: dict[str, Any]) -> _Found | None:
    with silenced():  # RASCAL writes to stdout/stderr from C++
        return _find(mol1, mol2, settings)


def _child(conn: Any, mol1: Any, mol2: Any, settings: dict[str, Any]) -> None:
    """Child process body: RASCAL's answer goes down ``conn``, its chatter to the null
    device."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    code = 1
    try:
        conn.send(_find(mol1, mol2, settings))
        code = 0
    finally:
        # leave at once: no exit handlers, no flushing of stdio buffers copied from the parent
        os._exit(code)


def _run(mol1: Any, mol2: Any, settings: dict[str, Any], remaining: float) -> _Run:
    """RASCAL in a child process killed at the deadline or at Ctrl-C, or here when that
    cannot be (without a time limit where a child would be spawned: seconds of start-up)."""
    if remaining == math.inf and "fork" not in multiprocessing.get_all_start_methods():
        return _Run(_in_process(mol1, mol2, settings), note="no timeout")
    # (without a time limit too: Ctrl-C reaches no C++ search, which ran on for minutes,
    # deaf to SIGINT and SIGTERM)
    return _isolated(mol1, mol2, settings, remaining)


def _isolated(mol1: Any, mol2: Any, settings: dict[str, Any], seconds: float) -> _Run:
    """Run RASCAL in a child process, killed if it has not answered within ``seconds``.

    Falls back to running here when no process can be started.
    """
    from gedkit._kernels import warm
    from gedkit.budget import interrupted

    warm.settle()  # (a fork while a thread imports numba)
    methods = multiprocessing.get_all_start_methods()
    # fork starts in milliseconds and sends nothing; spawn pickles the molecules
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    deadline = time.perf_counter() + seconds
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, mol1, mol2, settings), daemon=True)
    try:
        with _children_allowed():
            child.start()
    except OSError as exc:  # out of processes or memory
        receiver.close()
        sender.close()
        return _Run(_in_process(mol1, mol2, settings), note=f"cannot start a process ({exc})")
    sender.close()  # so that the child's death reads as the end of the pipe
    try:
        # in slices, Ctrl-C heard between them (its handler only sets a flag, and a wait to
        # the deadline heard it at the deadline)
        while not receiver.poll(max(0.0, min(deadline - time.perf_counter(), _LOOK))):
            if interrupted() or time.perf_counter() >= deadline:
                child.kill()
                return _Run(None, answered=False, isolated=True, killed=True,
                            interrupted=interrupted())
        try:
            return _Run(receiver.recv(), isolated=True)
        except EOFError:  # the child died without answering
            child.join()
            return _Run(None, answered=False, isolated=True, exitcode=child.exitcode)
    finally:
        child.join()
        receiver.close()


@contextlib.contextmanager
def _children_allowed() -> Iterator[None]:
    """Let a daemonic process (a worker of a search's, a pairwise job's or the caller's own
    ``multiprocessing.Pool``) start RASCAL's child, which multiprocessing forbids it: there
    RASCAL ran in the worker with only its own rough limit (13.7 s a pair at a limit of 1 s).
    The child is daemonic itself and killed or joined before this call returns, so nothing
    outlives the worker."""
    config = multiprocessing.current_process()._config
    daemon = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        if daemon is None:
            config.pop("daemon", None)
        else:
            config["daemon"] = daemon


def _or_off(value: int | None) -> int:
    """An optional limit as RASCAL takes it (-1: none)."""
    return -1 if value is None else int(value)


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
