"""What a picture says in words: the answer and what certifies it.

A GED picture reads ``GED = 4 (optimal, CHEM_2)`` when the bounds meet, and
``3 ≤ GED ≤ 4 (time limit, CHEM_2)`` when they do not, naming what stopped the search. An MCES
picture gives the common edge count (with its bound when unproven), the Johnson similarity and
the number of fragments of the common subgraph. No matplotlib is needed here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from gedkit.errors import counted

__all__ = ["cost_name", "fragments", "ged_caption", "hit_caption", "mces_caption"]

#: literature models, written as the papers and GEDLIB write them
_LITERATURE = {"chem_1", "chem_2", "letter", "letter_2", "grec_1", "grec_2", "protein",
               "fingerprint", "cmu"}


def cost_name(result: Any) -> str:
    """The cost model's name as a caption writes it (``CHEM_2``, ``uniform``).

    >>> import gedkit
    >>> g1, g2 = gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 1)]), gedkit.Graph({0: "C"})
    >>> cost_name(gedkit.ged(g1, g2, costs="chem_2", method="branch"))
    'CHEM_2'
    """
    name = str(getattr(result.problem.cost_model, "name", None) or "custom costs")
    return name.upper() if name.lower() in _LITERATURE else name


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def stop_reason(stats: dict, method: str) -> str:
    """Why an answer is not proven, in two or three words.

    >>> stop_reason({"stopped": "time or memory limit: the assignment does not fit"}, "auto")
    'time limit'
    >>> stop_reason({}, "branch")
    'bounds of branch'
    """
    why = str(stats.get("stopped") or "")
    if why.startswith("interrupted"):
        return "interrupted"
    if "memory" in why and "time" not in why:
        return "memory limit"
    if "time" in why or "limit" in why:
        return "time limit"
    if "kernels not compiled" in why:
        return "kernels compiling"
    if why and why != "optimal":
        return why.split(":")[0]
    return f"bounds of {method}"


def ged_caption(result: Any) -> tuple[str, str]:
    """The headline and the second line of a GED picture.

    Examples
    --------
    >>> import gedkit
    >>> r = gedkit.ged(gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]),
    ...                gedkit.Graph({0: "C", 1: "N"}, [(0, 1)]))
    >>> ged_caption(r)
    ('GED = 1 (optimal, uniform)', '1 operation: 1 node relabelled  ·  method auto')
    """
    costs = cost_name(result)
    if result.optimal:
        head = f"GED = {_fmt(result.upper_bound)} (optimal, {costs})"
    else:
        head = (f"{_fmt(result.lower_bound)} ≤ GED ≤ {_fmt(result.upper_bound)} "
                f"({stop_reason(result.stats, result.method)}, {costs})")
    threshold = getattr(result, "within_threshold", None)
    if threshold is not None:
        head += "; within the threshold" if threshold else "; above the threshold"
    return head, operations_line(result.edit_path) + f"  ·  method {result.method}"


def operations_line(ops: list) -> str:
    """``4 operations: 1 relabelled, 2 deleted, 1 inserted`` (nodes and edges together).

    >>> from gedkit.problem import EditOperation as Op
    >>> operations_line([Op("node_del", 1, None, 1.0), Op("edge_del", (1, 2), None, 1.0)])
    '2 operations: 1 node deleted, 1 edge deleted'
    >>> operations_line([])
    'no operation: the graphs are equal'
    """
    if not ops:
        return "no operation: the graphs are equal"
    counts = Counter(op.kind for op in ops)
    words = {"sub": "relabelled", "del": "deleted", "ins": "inserted"}
    parts = []
    for what in ("node", "edge"):
        for short, word in words.items():
            c = counts.get(f"{what}_{short}", 0)
            if c:
                parts.append(f"{c} {what}{'s' if c > 1 else ''} {word}")
    n = len(ops)
    return f"{n} operation{'s' if n > 1 else ''}: " + ", ".join(parts)


def fragments(result: Any) -> int:
    """Connected pieces of the common subgraph (its edges, in g1).

    >>> import gedkit
    >>> g = gedkit.Graph(range(5), [(0, 1), (1, 2), (3, 4)])
    >>> fragments(gedkit.mces(g, g))
    2
    """
    from gedkit.graph import components

    g1 = result.problem.g1
    pairs = [(g1.index(a), g1.index(b)) for (a, b), _ in result.edges]
    label = components(g1.n, pairs)
    return len({label[i] for pair in pairs for i in pair})


def mces_caption(result: Any) -> tuple[str, str]:
    """The headline and the second line of an MCES picture.

    >>> import gedkit
    >>> g1 = gedkit.Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])
    >>> g2 = gedkit.Graph({0: "C", 1: "C", 2: "N"}, [(0, 1), (1, 2)])
    >>> mces_caption(gedkit.mces(g1, g2))[0]
    'MCES: 1 common edge (optimal)  ·  similarity 0.36  ·  1 fragment'
    """
    k = result.num_edges
    edges = counted(k, "common edge")
    if result.optimal:
        first = f"MCES: {edges} (optimal)"
        sim = f"similarity {result.similarity:.3g}"
    else:
        first = (f"MCES: {edges}, at most {result.upper_bound} "
                 f"({stop_reason(result.stats, result.method)})")
        sim = f"similarity ≥ {result.similarity:.3g}"
    f = fragments(result)
    head = f"{first}  ·  {sim}  ·  {counted(f, 'fragment')}"
    g1, g2 = result.problem.g1, result.problem.g2
    return head, (f"{k} of {g1.m} edges of g1 and of {g2.m} of g2 in common"
                  f"  ·  method {result.method}")


def hit_caption(hit: Any, mces: bool) -> str:
    """One search hit's distance (or similarity) with its certificate.

    >>> from gedkit.search.result import Hit
    >>> hit_caption(Hit("m1", 2.0, 2.0, 2.0, True), mces=False)
    'GED = 2'
    >>> hit_caption(Hit("m2", 4.0, 3.0, 4.0, False), mces=False)
    '3 ≤ GED ≤ 4'
    """
    what = "similarity" if mces else "GED"
    if hit.optimal or hit.lower_bound == hit.upper_bound:
        value = hit.distance
        return f"{what} = {value:.3g}" if mces else f"{what} = {_fmt(value)}"
    lo, hi = hit.lower_bound, hit.upper_bound
    if mces:
        return f"{lo:.3g} ≤ {what} ≤ {hi:.3g}"
    return f"{_fmt(lo)} ≤ {what} ≤ {_fmt(hi) if np.isfinite(hi) else '∞'}"
