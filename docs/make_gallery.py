"""Regenerate the picture gallery: docs/gallery/*.png|svg and docs/gallery.md.

Run from the repository root (needs matplotlib and RDKit: ``pip install -e ".[draw,chem]"``)::

    python docs/make_gallery.py

Every picture is made by the public API (``result.draw(path)``, ``gedkit.draw(...)``) on
inputs written here, so the gallery shows what a user gets. Layouts are deterministic; only
the time-limited example can differ between machines (its bounds depend on how far the search
gets in its time).
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx

import gedkit

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "gallery"
EXAMPLES = ROOT.parent / "examples"


def pictures() -> list[tuple[str, str, str]]:
    """Make every picture; returns (file, title, how it was made) for the index."""
    OUT.mkdir(exist_ok=True)
    made = []

    # 1. molecules: caffeine -> theobromine under CHEM_2, as SVG (hover: costs) and PNG
    g1 = gedkit.read(EXAMPLES / "caffeine.json", node_label="atom", edge_label="bond")
    g2 = gedkit.read(EXAMPLES / "theobromine.json", node_label="atom", edge_label="bond")
    r = gedkit.ged(g1, g2, costs="chem_2")
    r.draw(OUT / "caffeine_theobromine.svg")
    r.draw(OUT / "caffeine_theobromine.png")
    made.append(("caffeine_theobromine.png", "Caffeine → theobromine (CHEM_2)",
                 "gedkit ged examples/caffeine.json examples/theobromine.json "
                 "--node-label atom --edge-label bond --costs chem_2 --draw out.svg"))

    # 2. an edit path with relabelling, deletion and insertion, and its step strip
    a = gedkit.from_smiles("c1ccccc1CCO", name="2-phenylethanol")
    b = gedkit.from_smiles("Cc1ccccc1C(=O)N", name="2-methylbenzamide")
    r = gedkit.ged(a, b)
    r.draw(OUT / "phenylethanol_methylbenzamide.png")
    made.append(("phenylethanol_methylbenzamide.png", "Relabelled, deleted, inserted",
                 "gedkit.ged('c1ccccc1CCO', 'Cc1ccccc1C(=O)N').draw('out.png')"))
    r.draw(OUT / "steps.png", steps=True)
    made.append(("steps.png", "The same path step by step",
                 "result.draw('steps.png', steps=True)  # --draw steps.png --steps"))

    # 3. MCES on molecules: common bonds, similarity, fragments
    m = gedkit.mces(gedkit.from_smiles("CC(=O)Oc1ccccc1C(=O)O", name="aspirin"),
                    gedkit.from_smiles("OC(=O)c1ccccc1O", name="salicylic acid"))
    m.draw(OUT / "mces_aspirin_salicylic.png")
    made.append(("mces_aspirin_salicylic.png", "MCES: aspirin and salicylic acid",
                 "gedkit mces 'smiles:CC(=O)Oc1ccccc1C(=O)O' 'smiles:OC(=O)c1ccccc1O' "
                 "--draw out.png"))

    # 4. general graphs: labelled, with an edge relabelled
    p = gedkit.Graph({"s": "start", "a": "load", "b": "test", "c": "add", "d": "jump",
                      "e": "exit"},
                     [("s", "a", "seq"), ("a", "b", "seq"), ("b", "c", "true"),
                      ("c", "d", "seq"), ("d", "b", "back"), ("b", "e", "false")],
                     name="loop")
    q = gedkit.Graph({"s": "start", "a": "load", "b": "test", "c": "mul", "f": "store",
                      "d": "jump", "e": "exit"},
                     [("s", "a", "seq"), ("a", "b", "seq"), ("b", "c", "true"),
                      ("c", "f", "seq"), ("f", "d", "seq"), ("d", "b", "back"),
                      ("b", "e", "seq")], name="loop, edited")
    r = gedkit.ged(p, q)
    r.draw(OUT / "control_flow.png")
    made.append(("control_flow.png", "General graphs: control flow, labelled edges",
                 "gedkit.ged(g1, g2).draw('out.png')"))

    # 5. unproven: a time limit leaves bounds apart
    g = nx.random_regular_graph(3, 24, seed=4)
    h = nx.random_regular_graph(3, 24, seed=5)
    r = gedkit.ged(gedkit.Graph.from_networkx(g, name="cubic A"),
                   gedkit.Graph.from_networkx(h, name="cubic B"), method="astar",
                   timeout=0.5)
    r.draw(OUT / "time_limit.png")
    made.append(("time_limit.png", "Bounds when the time limit is reached",
                 "gedkit.ged(g1, g2, method='astar', timeout=0.5).draw('out.png')"))

    # 6. 200 nodes: drawn, labels left out (and said so)
    big1 = nx.connected_watts_strogatz_graph(200, 4, 0.1, seed=1)
    big2 = big1.copy()
    big2.remove_edges_from(list(big2.edges())[:12])
    big2.add_edges_from([(0, 100), (50, 150), (25, 175)])
    r = gedkit.ged(gedkit.Graph.from_networkx(big1), gedkit.Graph.from_networkx(big2),
                   timeout=2)
    r.draw(OUT / "large.png")
    made.append(("large.png", "200 nodes", "gedkit.ged(g1, g2, timeout=2).draw('out.png')"))

    # 7. similarity search: a query and its nearest hits
    lib = gedkit.Collection()
    smiles = {"phenol": "c1ccccc1O", "aniline": "c1ccccc1N", "cresol": "Cc1ccccc1O",
              "phenylethanol": "OCCc1ccccc1", "pyridinol": "c1ccncc1O", "ethanol": "CCO",
              "acetic acid": "CC(=O)O", "toluene": "Cc1ccccc1"}
    lib.add(list(smiles.values()), ids=list(smiles))
    query = gedkit.from_smiles("c1ccccc1CO", name="benzyl alcohol")
    hits = lib.knn(query, 5, node_map=True)
    hits.query = "benzyl alcohol"
    gedkit.draw(hits, OUT / "search.png", collection=lib, query=query)
    made.append(("search.png", "Similarity search: the 5 nearest",
                 "gedkit search lib.gdb 'c1ccccc1CO' --nearest 5 --draw grid.png"))
    return made


def index(made: list[tuple[str, str, str]]) -> str:
    lines = ["# Gallery", "",
             "Pictures of results, made by `python docs/make_gallery.py` (rerun it to "
             "regenerate them). Operations are told apart by colour **and** by line style or "
             "marker: kept (grey, solid, circle), relabelled (orange, solid, diamond, with its "
             "`a→b` text), deleted on g1 (vermillion, dashed, square), inserted on g2 (blue, "
             "dotted, hexagon); MCES common edges in green. The SVG version of the first "
             "picture shows each operation and its cost on hover.", ""]
    for file, title, how in made:
        lines += [f"## {title}", "", f"![{title}](gallery/{file})", "", f"`{how}`", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    done = pictures()
    (ROOT / "gallery.md").write_text(index(done), encoding="utf-8")
    print(f"{len(done)} pictures in {OUT}")
