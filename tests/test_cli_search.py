"""``gedkit collection build|info`` and ``gedkit search``, run in-process through ``main``
(plus one end-to-end run of the module in a subprocess)."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit import Collection
from gedkit.cli import main
from gedkit.cli._search import CSV_COLUMNS, SHOWN_UNDECIDED
from gedkit.errors import Note

pytest.importorskip("rdkit")

LIBRARY = [("CCO", "ethanol"), ("CCN", "ethylamine"), ("CCCC", "butane"),
           ("c1ccccc1", "benzene"), ("CC(=O)O", "acetic"), ("CC(=O)N", "acetamide"),
           ("OCCO", "glycol"), ("C1CCCCC1", "cyclohexane"), ("c1ccncc1", "pyridine"),
           ("CC(C)O", "isopropanol"), ("CCOC", "ether"), ("NCCN", "diamine")]
QUERIES = [("CCCO", "propanol"), ("c1ccccc1O", "phenol")]
MCES = importlib.util.find_spec("gedkit.search.mces_search") is not None
needs_mces = pytest.mark.skipif(not MCES, reason="gedkit.search.mces_search is not there yet")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2 and out == ""
    err = "".join(line for line in err.splitlines(True) if not line.startswith("gedkit: note: "))
    assert err.startswith("gedkit: error: ") and err.endswith("\n") and err.count("\n") == 1
    for fragment in fragments:
        assert fragment in err, err


def smi(path: Path, rows) -> Path:
    path.write_text("".join(f"{s} {name}\n" for s, name in rows))
    return path


@pytest.fixture(scope="module")
def lib(tmp_path_factory) -> Path:
    """The library and a collection of two queries, built through the command."""
    folder = tmp_path_factory.mktemp("search")
    assert main(["collection", "build", str(folder / "lib.gdb"),
                 str(smi(folder / "lib.smi", LIBRARY))]) == 0
    assert main(["collection", "build", str(folder / "queries.gdb"),
                 str(smi(folder / "queries.smi", QUERIES))]) == 0
    return folder / "lib.gdb"


def hits(data: dict) -> list[tuple]:
    return [(h["id"], h["distance"], h["optimal"]) for h in data["hits"]]


def api_hits(result) -> list[tuple]:
    return [(h.id, h.distance, h.optimal) for h in result.hits]


# -- build and info -----------------------------------------------------------------------------


def test_info_check_reads_every_page(capsys, lib, tmp_path):
    """``collection info`` reads the signatures, not the graphs: a file damaged where its
    graphs are passed it (every search then failed); ``--check`` reads every page."""
    import shutil

    code, out, _ = run(capsys, "collection", "info", lib, "--check")
    assert code == 0 and "every page, record and graph read, no damage" in out
    bad = tmp_path / "bad.gdb"
    shutil.copy(lib, bad)
    conn = sqlite3.connect(bad)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'graphs'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(bad, "r+b") as f:  # the graphs table's page, garbled past its header
        f.seek((root - 1) * size + 16)
        f.write(bytes(range(256)) * 4)
    assert run(capsys, "collection", "info", bad)[0] == 0
    one_line_error(*run(capsys, "collection", "info", bad, "--check"), "bad.gdb is damaged")

def test_build_names_graphs_and_info_describes_them(capsys, lib):
    coll = Collection.open(lib)
    assert coll.ids == [name for _, name in LIBRARY]
    assert coll.get("benzene") == gedkit.from_smiles("c1ccccc1")
    code, out, _ = run(capsys, "collection", "info", lib, "--json")
    data = json.loads(out)
    sizes = [gedkit.from_smiles(s) for s, _ in LIBRARY]
    assert code == 0 and data["graphs"] == len(LIBRARY)
    assert data["nodes"] == {"min": min(g.n for g in sizes), "max": max(g.n for g in sizes),
                             "mean": pytest.approx(np.mean([g.n for g in sizes]))}
    assert data["edges"]["max"] == max(g.m for g in sizes)
    assert data["vocabulary"]["node"] == 3 and data["file_size"] == lib.stat().st_size
    assert data["node_label"] is None
    # each label with how many nodes (edges) carry it, most frequent first: what a query's
    # labels must look like (aromatic bonds here, 1.5)
    from collections import Counter

    for kind, attribute in (("node", "node_labels"), ("edge", "edge_labels")):
        counted = Counter(label for g in sizes for label in getattr(g, attribute))
        assert [tuple(x) for x in data["labels"][kind]] == sorted(
            counted.items(), key=lambda kv: -kv[1])
    code, out, _ = run(capsys, "collection", "info", lib)
    assert code == 0 and f"graphs       {len(LIBRARY)}" in out and "3 node labels" in out
    assert "edge label   (none named: the format's own labels)" in out
    edges = next(line for line in out.splitlines() if line.startswith("edge labels"))
    assert "1.5 (" in edges and "1 (" in edges


def _graphml_collection(capsys, tmp_path: Path, *labels: str) -> Path:
    """A collection of one GraphML graph (nodes with "el", its edge with "order") built
    with the label flags ``labels``."""
    nx = pytest.importorskip("networkx")
    g = nx.Graph()
    g.add_nodes_from([(0, {"el": "C"}), (1, {"el": "O"})])
    g.add_edge(0, 1, order=2)
    nx.write_graphml(g, tmp_path / "g.graphml")
    lib = tmp_path / "g.gdb"
    assert run(capsys, "collection", "build", lib, tmp_path / "g.graphml", *labels)[0] == 0
    return lib


def test_info_says_unlabelled_edges_are_unlabelled(capsys, tmp_path):
    """Built from GraphML with only a node label named, the edges are stored unlabelled:
    info said "the format's own labels" of them."""
    lib = _graphml_collection(capsys, tmp_path, "--node-label", "el")
    code, out, _ = run(capsys, "collection", "info", lib)
    assert code == 0 and "edge label   (none: unlabelled)" in out
    assert "node label   el" in out
    # an empty collection's graphs are none of them unlabelled yet (it said they were, then
    # "the format's own labels" once molecules were added)
    empty = tmp_path / "empty.gdb"
    gedkit.Collection.create(empty).close()
    code, out, _ = run(capsys, "collection", "info", empty)
    assert code == 0 and out.count("(none named: the format's own labels)") == 2


def test_build_clears_an_overwrite_abandoned_by_a_killed_build(capsys, tmp_path):
    """``--overwrite`` builds beside the old file; a build killed midway left that file (and
    every later one kept it). The next build removes those of dead processes only."""
    lib = tmp_path / "x.gdb"
    dead = tmp_path / ".x.gdb.4194304999.building"  # no such process
    alive = tmp_path / f".x.gdb.{os.getppid()}.building"
    for left in (dead, alive):
        left.write_bytes(b"half a collection")
    assert run(capsys, "collection", "build", lib, "smiles:CCO")[0] == 0
    assert run(capsys, "collection", "build", lib, "smiles:CCN", "--overwrite")[0] == 0
    assert not dead.exists() and alive.exists() and Collection.open(lib).ids == ["CCN"]


def test_build_summary_ids_and_append(capsys, tmp_path):
    rows = [("CCO", "a"), ("CCN", "b"), ("CCC", "a")]  # "a" twice: numbered
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb",
                         smi(tmp_path / "x.smi", rows), "smiles:OCC")
    assert code == 0 and "graphs are numbered" in err and "'a'" in err
    assert out.startswith(f"{tmp_path / 'x.gdb'}: 4 graphs added (4 in all; ids: numbers), ")
    assert out.rstrip().endswith(" s") and out.count("\n") == 1
    assert Collection.open(tmp_path / "x.gdb").ids == [0, 1, 2, 3]
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb", "--ids", "names",
                         tmp_path / "x.smi")
    one_line_error(code, out, err, "exists already", "--append", "--overwrite")
    one_line_error(*run(capsys, "collection", "build", tmp_path / "x.gdb", "--overwrite",
                        "--ids", "names", tmp_path / "x.smi"), "both named 'a'")
    assert len(Collection.open(tmp_path / "x.gdb")) == 4  # nothing written
    code, out, _ = run(capsys, "collection", "build", tmp_path / "x.gdb", "--append",
                       smi(tmp_path / "y.smi", [("CCCl", "c"), ("CCBr", "d")]))
    assert code == 0 and "2 graphs added (6 in all; ids: names such as 'c')" in out
    assert Collection.open(tmp_path / "x.gdb").ids[-2:] == ["c", "d"]
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb", "--append",
                         tmp_path / "y.smi")  # the same graphs again: skipped
    assert code == 0 and "0 graphs added (6 in all; ids: names, 2 in x.gdb already" in out
    # a name LIB has for another graph: numbered among named graphs, a second run would
    # add them again (it numbered them with a note): an error, unless --ids numbers
    one_line_error(*run(capsys, "collection", "build", tmp_path / "x.gdb", "--append",
                        smi(tmp_path / "y.smi", [("CCCI", "c"), ("CCBr", "d")])),
                   "has a graph with id 'c' already (another graph)", "--ids numbers")
    assert len(Collection.open(tmp_path / "x.gdb")) == 6
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb", "--append",
                         tmp_path / "y.smi", "--ids", "numbers")
    assert code == 0 and "ids: numbers" in out
    assert "were numbered" not in err  # (asked for: Python's note is not said)
    assert Collection.open(tmp_path / "x.gdb").ids[-2:] == [4, 5]
    # in Python numbers among names come with a note (the command line refuses them)
    with Collection.open(tmp_path / "x.gdb", mode="a") as coll, pytest.warns(
            Note, match=r"numbered \(1, from 6 on\) where the collection's ids are"):
        coll.add(["CCCCCCO"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numbers among numbers: no note
        numbered = Collection()
        numbered.add(["CCO"])
        numbered.add(["CCN"])
    code, out, _ = run(capsys, "collection", "build", tmp_path / "x.gdb", "--append",
                       "smiles:CCCCO", "CCCCCO")  # a SMILES with or without its prefix
    assert code == 0 and "2 graphs added (" in out
    code, out, _ = run(capsys, "collection", "build", tmp_path / "x.gdb", "--overwrite",
                       "--ids", "numbers", tmp_path / "y.smi")
    assert code == 0 and Collection.open(tmp_path / "x.gdb").ids == [0, 1]


def test_build_from_a_compressed_table_of_smiles(capsys, tmp_path):
    """A library as users hold it (MOSES' train.csv.gz): a gzip-compressed CSV whose SMILES
    column is named in its header, ids from its id column."""
    import gzip

    table = tmp_path / "lib.csv.gz"
    with gzip.open(table, "wt") as f:
        f.write("mol_id,SMILES\nm1,CCO\nm2,CCN\nm3,C1CC(\nm4,CCCO\n")
    code, out, err = run(capsys, "collection", "build", tmp_path / "t.gdb", table)
    assert code == 0 and "3 graphs added (3 in all; ids: names such as 'm1')" in out
    assert "lib.csv.gz:4: RDKit cannot parse the SMILES 'C1CC('" in err
    assert Collection.open(tmp_path / "t.gdb").ids == ["m1", "m2", "m4"]
    code, out, _ = run(capsys, "search", tmp_path / "t.gdb", "smiles:CCO", "--nearest", "1",
                       "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)["hits"]] == ["m1"]
    one_line_error(*run(capsys, "collection", "build", tmp_path / "u.gdb",
                        smi(tmp_path / "g.gxl.gz", [("CCO", "a")])),
                   "reads gxl files uncompressed only")


def test_a_kekulized_library_reads_its_queries_kekulized(capsys, tmp_path):
    source = smi(tmp_path / "k.smi", [("c1ccccc1", "benzene"), ("c1ccccc1O", "phenol"),
                                      ("C1CCCCC1", "cyclohexane")])
    assert run(capsys, "collection", "build", tmp_path / "k.gdb", source,
               "--edge-label", "kekule")[0] == 0
    coll = Collection.open(tmp_path / "k.gdb")
    assert coll.edge_label == "kekule" and sorted(coll.get("benzene").edge_labels)[-1] == 2
    # an aromatic SMILES query is kekulized as the library was: benzene is found at 0
    code, out, _ = run(capsys, "search", tmp_path / "k.gdb", "c1ccccc1", "--within", "0",
                       "--json")
    assert code == 0 and hits(json.loads(out)) == [("benzene", 0.0, True)]
    assert [h.id for h in coll.range("c1ccccc1", 0).hits] == ["benzene"]


def test_a_query_file_of_another_format_is_named_with_format(capsys, tmp_path):
    """SMILES lines in a .txt file: read as t/v/e they fail with a line saying how to name
    the format; with --format smiles they are queries, read with the library's labels
    (kekulized here)."""
    source = smi(tmp_path / "k.smi", [("c1ccccc1", "benzene"), ("c1ccccc1O", "phenol")])
    assert run(capsys, "collection", "build", tmp_path / "k.gdb", source,
               "--edge-label", "kekule")[0] == 0
    queries = tmp_path / "q.txt"
    queries.write_text("c1ccccc1 b\nOc1ccccc1 p\n")
    one_line_error(*run(capsys, "search", tmp_path / "k.gdb", queries, "--within", "0"),
                   "unknown line type 'c1ccccc1'", "is read with --format FORMAT")
    code, out, _ = run(capsys, "search", tmp_path / "k.gdb", queries, "--within", "0",
                       "--json", "--format", "smiles")
    assert code == 0
    assert [hits(json.loads(line)) for line in out.splitlines()] == [
        [("benzene", 0.0, True)], [("phenol", 0.0, True)]]


def test_label_options_as_in_other_commands(capsys, tmp_path):
    source = smi(tmp_path / "m.smi", [("CC(=O)[O-]", "acetate"), ("CC(=O)O", "acid")])
    code, _, _ = run(capsys, "collection", "build", tmp_path / "m.gdb", source,
                     "--node-label", "atom,charge", "--edge-label", "bond")
    assert code == 0
    coll = Collection.open(tmp_path / "m.gdb")
    assert tuple(coll.node_label) == ("atom", "charge") and coll.edge_label == "bond"
    assert coll.get("acetate").node_labels[3] == {"atom": "O", "charge": -1}
    code, out, _ = run(capsys, "collection", "info", tmp_path / "m.gdb")
    assert "node label   atom,charge" in out and "edge label   bond" in out
    assert "node labels  {'atom': 'C', 'charge': 0} (4), {'atom': 'O', 'charge': 0} (3)" in out
    # unlabelled graphs: their one label is none
    unlabelled = tmp_path / "u.gdb"
    with Collection.create(unlabelled) as coll:
        coll.add([gedkit.Graph({0: None, 1: None}, [(0, 1)])])
    code, out, _ = run(capsys, "collection", "info", unlabelled)
    assert "node labels  (no label) (2)" in out and "edge labels  (no label) (1)" in out
    # the query is read with the labels the collection records: the charge tells them apart
    code, out, _ = run(capsys, "search", tmp_path / "m.gdb", "CC(=O)O", "--nearest", "2",
                       "--json")
    assert hits(json.loads(out)) == [("acid", 0.0, True), ("acetate", 1.0, True)]
    one_line_error(*run(capsys, "collection", "build", tmp_path / "m.gdb", "--append",
                        source, "--node-label", "atom"), "--node-label atom,charge")
    one_line_error(*run(capsys, "collection", "build", tmp_path / "n.gdb", source,
                        "--node-label", "*,atom"), "'*'")
    code, _, _ = run(capsys, "collection", "build", tmp_path / "all.gdb", source,
                     "--node-label", "*", "--edge-label", "*")
    assert code == 0 and Collection.open(tmp_path / "all.gdb").node_label == "*"


def test_ctrl_c_while_building_keeps_the_batches_written(capsys, tmp_path, monkeypatch):
    from gedkit.cli import _collection
    from gedkit.search import collection

    monkeypatch.setattr(collection, "BATCH", 10)

    def interrupted(files, options, args):
        for i in range(25):
            yield gedkit.Graph({0: "C", 1: i % 4}, [(0, 1)], name=f"g{i}")
        raise KeyboardInterrupt

    monkeypatch.setattr(_collection, "_stream", interrupted)
    source = smi(tmp_path / "unused.smi", [("C", "c")])
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb", source,
                         "--ids", "numbers")
    assert code == 130 and out == "" and "20 graphs were committed" in err
    assert len(Collection.open(tmp_path / "x.gdb")) == 20
    # interrupted while the names are read (a format whose names are in its graphs):
    # nothing is written, not even an empty file
    other = tmp_path / "unused.json"
    gedkit.write(gedkit.Graph({0: "C"}, name="c"), other)
    code, out, err = run(capsys, "collection", "build", tmp_path / "y.gdb", other)
    assert code == 130 and "nothing was written" in err and not (tmp_path / "y.gdb").exists()
    # interrupted before the first batch was written: no empty file left to stop the same
    # command next time ("exists already")
    monkeypatch.setattr(collection, "BATCH", 100)
    code, out, err = run(capsys, "collection", "build", tmp_path / "z.gdb", source,
                         "--ids", "numbers")
    assert code == 130 and "nothing was written" in err and not (tmp_path / "z.gdb").exists()
    # --overwrite builds beside the old collection: interrupted, it is left as it was
    before = (tmp_path / "x.gdb").read_bytes()
    monkeypatch.setattr(collection, "BATCH", 10)
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb", source,
                         "--ids", "numbers", "--overwrite")
    assert code == 130 and f"{tmp_path / 'x.gdb'} is as it was" in err
    assert (tmp_path / "x.gdb").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unused.json", "unused.smi", "x.gdb"]
    monkeypatch.undo()
    code, out, _ = run(capsys, "collection", "build", tmp_path / "x.gdb", source, "--overwrite")
    assert code == 0 and Collection.open(tmp_path / "x.gdb").ids == ["c"]


def test_appending_a_name_that_spells_a_numbered_id_says_so_in_cli_words(capsys, tmp_path):
    """A graph named "0" appended to a numbered collection: its id would print as graph 0
    does; the error names the command's option, not Python's ids='names'."""
    lib = tmp_path / "num.gdb"
    assert main(["collection", "build", str(lib), str(smi(tmp_path / "a.smi",
                                                          [("CCO", "x"), ("CCN", "x")]))]) == 0
    capsys.readouterr()
    one_line_error(*run(capsys, "collection", "build", lib, "--append",
                        smi(tmp_path / "b.smi", [("CCCC", "0")])),
                   "has a graph with id 0 already", "--ids numbers")
    assert "ids='names'" not in capsys.readouterr().err
    assert len(Collection.open(lib)) == 2


def test_append_continues_an_interrupted_build(capsys, tmp_path, monkeypatch):
    from gedkit.cli import _collection
    from gedkit.search import collection

    table = tmp_path / "mols.csv"  # no id column: the ids are 'mols[0]', 'mols[1]'...
    table.write_text("SMILES\n" + "".join(f"{s}\n" for s, _ in LIBRARY))
    read = _collection._stream

    def interrupted(files, options, args):
        for k, g in enumerate(read(files, options, args)):
            if k == 7:
                raise KeyboardInterrupt
            yield g

    monkeypatch.setattr(collection, "BATCH", 5)
    monkeypatch.setattr(_collection, "_stream", interrupted)
    lib = tmp_path / "x.gdb"
    code, _, err = run(capsys, "collection", "build", lib, table)
    assert code == 130 and "5 graphs were committed" in err
    assert "with --append" in err and "are skipped" in err
    monkeypatch.setattr(_collection, "_stream", read)
    code, out, _ = run(capsys, "collection", "build", lib, table, "--append")
    assert code == 0, out
    assert (f"7 graphs added (12 in all; ids: names such as 'mols[5]', 5 in {lib.name} "
            "already skipped)") in out
    assert Collection.open(lib).ids == [f"mols[{k}]" for k in range(12)]
    code, out, _ = run(capsys, "collection", "build", lib, table, "--append")
    assert code == 0 and "0 graphs added (12 in all; ids: names, 12 in" in out
    # an id LIB has for another graph (the input changed): an error (numbered among named
    # graphs, the same command again would add them again), or numbered when asked
    table.write_text("SMILES\nCCCCCCC\n" + "".join(f"{s}\n" for s, _ in LIBRARY[1:]))
    one_line_error(*run(capsys, "collection", "build", lib, table, "--append"),
                   "has a graph with id 'mols[0]' already (another graph)", "--ids numbers")
    code, out, err = run(capsys, "collection", "build", lib, table, "--append", "--ids",
                         "numbers")
    assert code == 0 and "12 graphs added (24 in all; ids: numbers)" in out
    # numbered graphs cannot be matched: the interrupt message says so
    monkeypatch.setattr(_collection, "_stream", interrupted)
    code, _, err = run(capsys, "collection", "build", tmp_path / "y.gdb", table,
                       "--ids", "numbers")
    assert code == 130 and "would add them all again" in err


def _killed_build(lib: Path, table: Path, *options: str, after: int = 7) -> None:
    """``gedkit collection build lib table`` (batches of 5) in a process killed outright
    (SIGKILL: no clean-up runs) as it reads graph ``after``."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        from gedkit.cli import _collection, main
        from gedkit.search import collection
        collection.BATCH = 5
        read = _collection._stream
        def killed(files, options, args):
            for k, g in enumerate(read(files, options, args)):
                if k == {after}:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield g
        _collection._stream = killed
        sys.exit(main(["collection", "build", {str(lib)!r}, {str(table)!r}, *{options!r}]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == -9, done.stderr


def test_a_build_killed_midway_is_not_added_again_numbered(capsys, tmp_path):
    """A build killed outright (kill -9) after some batches leaves a record of what it was
    building: ``collection info`` says so, and appending the same file where either build
    numbers the graphs is refused (they would all be added again, silently: every graph
    twice); named both times, the append continues it and the record goes."""
    table = tmp_path / "mols.csv"  # no id column: the ids are 'mols[0]', 'mols[1]'...
    table.write_text("SMILES\n" + "".join(f"{s}\n" for s, _ in LIBRARY))
    numbered = tmp_path / "n.gdb"
    _killed_build(numbered, table, "--ids", "numbers")
    assert len(Collection.open(numbered)) == 5
    code, out, _ = run(capsys, "collection", "info", numbered)
    assert code == 0 and "a build of mols.csv did not finish (killed or interrupted" in out
    for options in (("--ids", "numbers"), ()):
        one_line_error(*run(capsys, "collection", "build", numbered, table, "--append",
                            *options),
                       "holds graphs of an unfinished build of mols.csv", "--overwrite")
    assert len(Collection.open(numbered)) == 5
    other = smi(tmp_path / "other.smi", [("CCCCCO", "pentanol")])
    code, out, _ = run(capsys, "collection", "build", numbered, other, "--append", "--ids",
                       "numbers")  # another file: added, the record of the first kept
    assert code == 0 and "1 graph added (6 in all" in out
    assert "did not finish" in run(capsys, "collection", "info", numbered)[1]
    code, out, _ = run(capsys, "collection", "build", numbered, table, "--overwrite")
    assert code == 0 and "did not finish" not in run(capsys, "collection", "info", numbered)[1]
    named = tmp_path / "m.gdb"
    _killed_build(named, table)
    code, out, _ = run(capsys, "collection", "build", named, table, "--append")
    assert code == 0 and f"5 in {named.name} already skipped" in out, out
    assert Collection.open(named).ids == [f"mols[{k}]" for k in range(len(LIBRARY))]
    assert "did not finish" not in run(capsys, "collection", "info", named)[1]
    data = json.loads(run(capsys, "collection", "info", named, "--json")[1])
    assert data["unfinished_build"] is None


def test_a_build_under_way_is_told_from_one_killed(capsys, tmp_path):
    """``collection info`` on a collection whose build still runs (here: this process's,
    begun and not ended) says it is under way, and an append of the same file names that
    process; it said "killed or interrupted midway" of a build 4 s into its run."""
    import os

    from gedkit.cli._collection import _begin_build, _end_build

    lib = tmp_path / "lib.gdb"
    table = tmp_path / "mols.csv"
    table.write_text("SMILES\nCCO\n")
    coll = Collection.create(lib)
    coll.add(["CCO"])
    source = str(table.resolve())
    _begin_build(coll, [source], True)
    code, out, _ = run(capsys, "collection", "info", lib)
    assert code == 0 and f"a build of mols.csv is under way (process {os.getpid()};" in out
    one_line_error(*run(capsys, "collection", "build", lib, table, "--append"),
                   f"unfinished build of mols.csv (under way in process {os.getpid()})")
    _end_build(coll, [source])
    coll.close()
    assert "unfinished" not in run(capsys, "collection", "info", lib)[1]


def test_two_builds_appending_at_once_keep_each_other_s_record_and_labels(tmp_path):
    """Two builds appending to one collection at once (two handles here): each start and
    end of the record of builds under way reads the file's record under its write lock
    (one build's end wrote back a stale copy: a finished build was left "unfinished"), and
    writing it does not hide the other's graphs committed since (their new labels unread,
    the end of the build said the file was damaged)."""
    from gedkit.cli._collection import _begin_build, _end_build

    path = tmp_path / "x.gdb"
    Collection.create(path).add([gedkit.from_smiles("CCO")])
    a, b = Collection.open(path, mode="a"), Collection.open(path, mode="a")
    _begin_build(a, ["/a.smi"], True)
    _begin_build(b, ["/b.smi"], False)
    b.add([gedkit.from_smiles("c1ccccc1Br"), gedkit.from_smiles("CS(=O)N")])  # new labels
    _end_build(a, ["/a.smi"])
    assert len(a) == 3 and a.range(gedkit.from_smiles("CS(=O)N"), 0).ids == [2]
    assert a._store.unfinished_build()["files"] == ["/b.smi"]
    _end_build(b, ["/b.smi"])
    assert Collection.open(path)._store.unfinished_build() is None


def test_inputs_whose_every_record_is_unreadable_say_so(capsys, tmp_path, lib):
    """A SMILES file none of whose records RDKit reads: the build and the search say so,
    with the first reason (both said the file held no graph, as of an empty one)."""
    bad = tmp_path / "bad.smi"
    bad.write_text("XYZ\nC1CC\n")
    for argv in (("collection", "build", tmp_path / "x.gdb", bad),
                 ("search", lib, bad, "--within", "2")):
        one_line_error(*run(capsys, *argv), "no graphs in", "bad.smi: all 2 records could "
                       "not be read (the first:", "cannot parse the SMILES 'XYZ'")
    assert not (tmp_path / "x.gdb").exists()


def test_a_smiles_library_is_read_once(capsys, tmp_path, monkeypatch):
    """Named apart by their titles (or after the file), SMILES records become ids without
    the molecules being read twice (a first pass only to check the names: 1.6 million MOSES
    molecules parsed twice); a record RDKit rejects shifts no id."""
    from gedkit.cli import _collection

    def no_scan(*args):
        raise AssertionError("the molecules were read to check their names")

    monkeypatch.setattr(_collection, "_scan", no_scan)
    rows = [("CCO", "ethanol"), ("C1CC(", "broken"), ("CCN", "ethylamine")]
    code, out, err = run(capsys, "collection", "build", tmp_path / "x.gdb",
                         smi(tmp_path / "x.smi", rows))
    assert code == 0 and "2 graphs added (2 in all; ids: names such as 'ethanol')" in out
    assert "cannot parse the SMILES 'C1CC('" in err
    coll = Collection.open(tmp_path / "x.gdb")
    assert coll.ids == ["ethanol", "ethylamine"]
    assert coll.get("ethylamine") == gedkit.from_smiles("CCN")
    table = tmp_path / "t.csv"
    table.write_text("smiles\nCCO\nCCCO\n")
    code, out, _ = run(capsys, "collection", "build", tmp_path / "x.gdb", "--append", table)
    assert code == 0 and Collection.open(tmp_path / "x.gdb").ids[-2:] == ["t[0]", "t[1]"]


# -- search -------------------------------------------------------------------------------------

def test_within_and_nearest_equal_the_api(capsys, lib):
    coll = Collection.open(lib)
    code, out, _ = run(capsys, "search", lib, "CCO", "--within", "2", "--json")
    data = json.loads(out)
    assert code == 0 and out.count("\n") == 1
    assert data["kind"] == "range" and data["tau"] == 2 and data["certified"]
    assert hits(data) == api_hits(coll.range("CCO", 2))
    assert hits(data)[:2] == [("ethanol", 0.0, True), ("ethylamine", 1.0, True)]
    assert data["stats"]["screened"] == len(LIBRARY)
    # what the distances mean, as the API records it (merge compares it)
    assert data["measure"] == coll.range("CCO", 2).measure
    assert data["measure"].startswith("<CostModel uniform(")
    code, out, _ = run(capsys, "search", lib, "smiles:CCCO", "--nearest", "3", "--json")
    data = json.loads(out)
    assert data["query"] == "CCCO" and data["k"] == 3
    assert hits(data) == api_hits(coll.knn("CCCO", 3))
    code, out, _ = run(capsys, "search", lib, "CCO", "--within", "1", "--costs",
                       "constant:node_sub=3", "--method", "dfs", "--timeout", "none", "--json")
    data = json.loads(out)
    assert hits(data) == api_hits(coll.range("CCO", 1, costs="constant:node_sub=3",
                                             method="dfs", timeout=None))
    assert data["measure"] == coll.range("CCO", 1, costs="constant:node_sub=3").measure


def test_text_report_for_people(capsys, lib):
    code, out, err = run(capsys, "search", lib, "CCO", "--within", "1")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].startswith("CCO: 2 hits within GED 1, certified, ")
    assert lines[1].split() == ["rank", "id", "distance"]
    assert [line.split() for line in lines[2:4]] == [["1", "ethanol", "0"],
                                                     ["2", "ethylamine", "1"]]
    assert lines[4].startswith(f"  screened {len(LIBRARY)}; left after sizes ")
    assert "; verified " in lines[4] and len(lines) == 5
    code, out, _ = run(capsys, "search", lib, "CCO", "--nearest", "1", "--node-map")
    assert "1  ethanol" in out and "in bound order" in out


def test_a_query_out_of_time_says_so(capsys, tmp_path, monkeypatch):
    """--query-timeout: a query whose time ran out prints the best found, says why it is not
    certified, and the note names the query limit, not the per-pair one."""
    rng = np.random.default_rng(5)
    with Collection.create(tmp_path / "lib.gdb") as coll:
        coll.add([random_graph(rng, int(rng.integers(4, 9))) for _ in range(40)])
    with Collection.create(tmp_path / "far.gdb") as coll:  # far from all: a long search
        coll.add([random_graph(rng, 9)], ids=["far"])
    argv = ["search", tmp_path / "lib.gdb", tmp_path / "far.gdb", "--nearest", "3"]
    code, out, err = run(capsys, *argv, "--query-timeout", "1e-9")
    assert code == 0
    assert out.startswith("far: ") and "not certified (query time limit)" in out
    assert err.startswith("gedkit: note: 1 query reached the time limit of 1e-09 s per query")
    assert "per pair" not in err
    code, out, _ = run(capsys, *argv, "--json", "--query-timeout", "600")
    data = json.loads(out)
    assert code == 0 and data["certified"] and not data["timed_out"]
    # in a CSV, the hits whose place is not proven say so
    code, out, _ = run(capsys, *argv, "--query-timeout", "1e-9", "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["status"] for r in rows if r["rank"]} == {"uncertain"}
    code, out, _ = run(capsys, *argv, "--query-timeout", "600", "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["status"] for r in rows] == ["hit"] * 3
    # kNN's default limit per query (as 'gedkit ged' has one per pair); 'none' lifts it
    monkeypatch.setattr("gedkit.cli._search.COMMAND_TIMEOUT", 1e-9)
    code, out, err = run(capsys, *argv)
    assert code == 0 and "not certified (query time limit)" in out
    assert "1e-09 s per query (the default)" in err
    code, out, err = run(capsys, *argv, "--query-timeout", "none")
    assert code == 0 and ", certified, " in out and "query" not in err


def test_a_range_query_out_of_time_leaves_candidates_undecided(capsys, tmp_path, monkeypatch):
    """--query-timeout with --within: the candidates not verified in time are listed as
    undecided (text, JSON, CSV) and the note counts them; within the default limit (as
    kNN's), none."""
    rng = np.random.default_rng(5)
    with Collection.create(tmp_path / "lib.gdb") as coll:
        coll.add([random_graph(rng, int(rng.integers(4, 9))) for _ in range(40)])
    with Collection.create(tmp_path / "q.gdb") as coll:
        coll.add([random_graph(rng, 7)], ids=["q"])
    argv = ["search", tmp_path / "lib.gdb", tmp_path / "q.gdb", "--within", "8"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and ", certified, " in out and "undecided" not in out and not err
    code, out, err = run(capsys, *argv, "--query-timeout", "1e-9")
    assert code == 0 and "not certified (query time limit)" in out
    assert "not verified before the query's time limit" in out
    # the text lists the first of them, then how many more the JSON and CSV hold
    listed = out.split("maybe in, maybe out)\n")[1].splitlines()
    assert "more (--json or --csv" in listed[SHOWN_UNDECIDED]
    assert all(line.startswith("    ") and line.endswith("]") for line in listed[:SHOWN_UNDECIDED])
    assert re.match(r"gedkit: note: 1 query reached the time limit of 1e-09 s per query: "
                    r"\d+ candidates not verified, undecided", err)
    code, out, _ = run(capsys, *argv, "--query-timeout", "1e-9", "--json")
    data = json.loads(out)
    assert data["timed_out"] and not data["certified"]
    assert all(h["optimal"] and h["distance"] <= 8 for h in data["hits"])
    unreached = [u for u in data["undecided"] if u["upper_bound"] is None]
    assert all(u["lower_bound"] <= 8 for u in unreached)
    assert len(unreached) == data["stats"]["unreached"] > 0
    code, out, _ = run(capsys, *argv, "--query-timeout", "1e-9", "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    statuses = [r["status"] for r in rows]
    assert "undecided" in statuses and set(statuses) <= {"hit", "undecided"}
    # the command's default limit per query holds for range searches too; 'none' lifts it
    monkeypatch.setattr("gedkit.cli._search.COMMAND_TIMEOUT", 1e-9)
    code, out, err = run(capsys, *argv)
    assert code == 0 and "not certified (query time limit)" in out
    assert "1e-09 s per query (the default)" in err
    code, out, err = run(capsys, *argv, "--query-timeout", "none")
    assert code == 0 and ", certified, " in out and not err


def test_queries_from_a_format_without_label_names(capsys, tmp_path):
    """A t/v/e file's one label column is read as the library's labels, whatever the library
    calls them (here the SMILES reader's atom and bond, recorded): from the command line and
    from Python alike."""
    library = tmp_path / "lib.gdb"
    assert main(["collection", "build", str(library), str(smi(tmp_path / "lib.smi", LIBRARY)),
                 "--node-label", "atom", "--edge-label", "bond"]) == 0
    queries = tmp_path / "queries.txt"
    gedkit.io.write([gedkit.from_smiles("CCO"), gedkit.from_smiles("CCCO")], queries)
    capsys.readouterr()
    code, out, err = run(capsys, "search", library, queries, "--within", "0", "--json")
    assert code == 0 and not err
    assert [[h["id"] for h in json.loads(line)["hits"]] for line in out.splitlines()] == [
        ["ethanol"], []]
    with Collection.open(library) as coll:
        assert (coll.node_label, coll.edge_label) == ("atom", "bond")
        assert coll.range(f"{queries}#0", 0).ids == ["ethanol"]
        assert coll.knn(f"{queries}#1", 1).ids == ["butane"]
    # and added to it likewise, from the command line and from Python
    assert main(["collection", "build", str(library), str(queries), "--append"]) == 0
    with Collection.open(library, mode="a") as coll:
        coll.add(f"{queries}#1")
        assert len(coll) == len(LIBRARY) + 3
        assert len(coll.range("CCCO", 0).hits) == 2  # the two propanols added


def test_queries_from_a_collection_built_with_other_labels_are_refused(capsys, tmp_path):
    """A collection of queries built with its files' own labels and a library built with an
    attribute named (or the other way round), from the command line and from Python: not
    comparable, said so (Kekulé bonds queried against aromatic ones found a molecule's own
    twin 7 edits away, certified, without a word)."""
    source = smi(tmp_path / "lib.smi", LIBRARY)
    own, named = tmp_path / "own.gdb", tmp_path / "named.gdb"
    assert main(["collection", "build", str(own), str(source)]) == 0
    assert main(["collection", "build", str(named), str(source), "--edge-label", "bond"]) == 0
    capsys.readouterr()
    for library, queries in ((own, named), (named, own)):
        code, out, err = run(capsys, "search", library, f"{queries}#ethanol", "--nearest", "1")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "its files' own edge labels (no --edge-label)" in err
        assert err.rstrip().endswith("their graphs are not comparable")
        said = r"the queries' collection was built with edge_label=.* not comparable"
        with (Collection.open(library) as lib, Collection.open(queries) as qs,
              pytest.raises(gedkit.errors.OptionError, match=said)):
            lib.knn(queries=qs, k=1)
    # alike, they are searched as ever
    code, out, _ = run(capsys, "search", own, f"{own}#ethanol", "--within", "0", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["id"] == "ethanol"


def test_csv_rows_and_conventions(capsys, lib, tmp_path):
    target = tmp_path / "hits.csv"
    code, out, _ = run(capsys, "search", lib, "CCO", "--within", "1", "--csv", target)
    assert code == 0 and out.startswith(f"wrote 2 rows to {target}: 1 query, 2 hits, ")
    raw = target.read_bytes()
    assert b"\r" not in raw and raw.endswith(b"\n")
    rows = list(csv.reader(io.StringIO(raw.decode())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows[1:] == [["CCO", "1", "ethanol", "0.0", "0.0", "0.0", "true", "hit"],
                        ["CCO", "2", "ethylamine", "1.0", "1.0", "1.0", "true", "hit"]]
    code, out, err = run(capsys, "search", lib, "CCO", "--nearest", "1", "--csv", "-",
                         "--node-map")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and err.startswith("gedkit: 1 query, 1 hit, ")
    assert rows[0]["id"] == "ethanol" and json.loads(rows[0]["node_map"]) == [[0, 0], [1, 1],
                                                                             [2, 2]]
    # the collection or the query file as --csv: refused, both left whole
    for target in (lib, lib.parent / "queries.gdb"):
        before = Path(target).read_bytes()
        code, out, err = run(capsys, "search", lib, lib.parent / "queries.gdb", "--within",
                             "1", "--csv", target)
        assert code == 2 and not out and "is the input" in err and len(err.splitlines()) == 1
        assert Path(target).read_bytes() == before


def test_batch_queries(capsys, lib):
    queries = lib.parent / "queries.gdb"
    coll = Collection.open(lib)
    code, out, _ = run(capsys, "search", lib, queries, "--nearest", "2", "--json")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [a["query"] for a in answers] == ["propanol", "phenol"]
    for answer, (smiles, _) in zip(answers, QUERIES, strict=True):
        assert hits(answer) == api_hits(coll.knn(smiles, 2))
    # a file of several graphs is a batch too, and worker processes answer alike
    code, out, _ = run(capsys, "search", lib, lib.parent / "queries.smi", "--nearest", "2",
                       "--json", "--jobs", "2")
    assert code == 0
    assert [hits(json.loads(line)) for line in out.splitlines()] == [hits(a) for a in answers]
    code, out, _ = run(capsys, "search", lib, queries, "--within", "1")
    assert out.startswith("propanol: ") and "\n\nphenol: " in out
    assert out.splitlines()[-1].startswith("2 queries, ")
    code, out, _ = run(capsys, "search", lib, queries, "--within", "2", "--csv", "-")
    assert {row["query"] for row in csv.DictReader(io.StringIO(out))} == {"propanol", "phenol"}


def test_query_forms(capsys, lib):
    for query, name in [(f"{lib.parent / 'lib.smi'}#butane", "butane"),
                        (f"{lib.parent / 'lib.smi'}#3", "benzene"),
                        (f"{lib}#glycol", "glycol"), ("smiles:OCCO", "OCCO"), ("OCCO", "OCCO")]:
        code, out, _ = run(capsys, "search", lib, query, "--nearest", "1", "--json")
        data = json.loads(out)
        assert code == 0 and data["query"] == name, query
        assert data["hits"][0]["distance"] == 0


def _dense_library(capsys, tmp_path) -> tuple[Path, Path]:
    """Four dense 13-node graphs as a collection, and the first as a query file: their
    distances are far, and hard to prove."""
    rng = np.random.default_rng(3)
    graphs = [random_graph(rng, 13, p=0.5, n_labels=1, e_labels=1, name=f"r{i}")
              for i in range(4)]
    gedkit.write(graphs, tmp_path / "r.txt")
    gedkit.write(graphs[:1], tmp_path / "q.txt")
    assert main(["collection", "build", str(tmp_path / "r.gdb"), str(tmp_path / "r.txt")]) == 0
    capsys.readouterr()
    return tmp_path / "r.gdb", tmp_path / "q.txt"


def test_undecided_graphs_are_listed(capsys, tmp_path):
    library, query = _dense_library(capsys, tmp_path)
    argv = ["search", library, query, "--within", "12", "--method", "dfs", "--timeout",
            "0.001"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and "not certified (" in out.splitlines()[0]
    assert "undecided: " in out and "[" in out
    assert "reached the time limit of 0.001 s per pair" in err
    code, out, _ = run(capsys, *argv, "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    undecided = [row for row in rows if row["status"] == "undecided"]
    assert undecided and all(row["rank"] == "" for row in undecided)
    assert all(float(r["lower_bound"]) <= 12 < float(r["upper_bound"]) for r in undecided)


def test_a_heuristic_method_is_not_said_to_reach_the_time_limit(capsys, tmp_path):
    """A heuristic's undecided verifications stop with its bounds, not at the time limit (a
    31 ms search said "18 verifications reached the time limit of 30 s per pair")."""
    library, query = _dense_library(capsys, tmp_path)
    code, out, err = run(capsys, "search", library, query, "--within", "12", "--method",
                         "bipartite", "--timeout", "30")
    assert code == 0 and "undecided: " in out
    assert "reached the time limit" not in err
    assert "because the method 'bipartite' is a heuristic: its bounds left them open" in err


def test_candidates_ctrl_c_left_are_not_blamed_on_the_time_limit():
    from gedkit.cli._search import report
    from gedkit.search.result import Hit, SearchResult

    undecided = [Hit(7, math.inf, 2.0, math.inf, False)]
    stats = {"screened": 9, "verified": 0, "unreached": 1}
    stopped = SearchResult("range", "q", 3.0, [], undecided, False, stats=stats,
                           interrupted=True)
    late = SearchResult("range", "q", 3.0, [], undecided, False, stats=stats, timed_out=True)
    assert "1 not verified before the search was interrupted" in report(stopped)
    assert "1 not verified before the query's time limit" in report(late)


def test_a_query_of_shards_searched_side_by_side_says_its_times_are_added():
    """A query's shards searched side by side (--jobs, --scheduler): its time is theirs
    added, said so (10 s of two shards' work in 7 s of wall clock read as a broken limit)."""
    from gedkit.cli._search import report
    from gedkit.search.result import SearchResult

    stats = {"screened": 9, "verified": 2, "seconds": {"filter": 0.5, "verify": 9.5},
             "shards": 2}
    first = report(SearchResult("range", "q", 3.0, [], [], True, stats=stats)).splitlines()[0]
    assert first == "q: 0 hits within GED 3, certified, 10 s (2 shards' time added)"
    del stats["shards"]
    first = report(SearchResult("range", "q", 3.0, [], [], True, stats=stats)).splitlines()[0]
    assert first == "q: 0 hits within GED 3, certified, 10 s"


def test_knn_stages_count_graphs_not_verifications():
    """A kNN graph set aside is verified again as the k-th distance falls: the summary
    counts graphs ("verified 300", not "verified 2,866") and says how many tries again."""
    from gedkit.cli._search import _stages

    stats = {"screened": 300, "candidates": {}, "verified": 2866, "scanned": 300}
    assert _stages(stats, ranked=True) == (
        "screened 300; verified 300 in bound order (2,566 more tries of graphs set aside, as "
        "the k-th distance fell)")
    assert _stages({**stats, "verified": 12, "scanned": 12}, ranked=True).endswith(
        "verified 12 in bound order")
    assert _stages({"screened": 300, "verified": 4}, ranked=False) == "screened 300; verified 4"
    # MCES kNN: graphs reached in bound order, some ruled out by their pair bounds unsolved
    mces = {"screened": 200, "candidates": {"labels": 200, "pairs": 7}, "verified": 7,
            "scanned": 34}
    assert _stages(mces, ranked=True) == (
        "screened 200; 34 in bound order, of which 7 verified (the others ruled out by their "
        "pair bounds)")


def test_undecided_before_kernels_compile_are_not_blamed_on_the_time_limit(capsys):
    """On a fresh install (kernels not compiled) verifications answer with the bounds they
    have at once, well within their limit: the note says why, and what to do."""
    import argparse

    from gedkit.budget import KERNELS_NOT_READY
    from gedkit.cli._search import _Tally, _tell_limits
    from gedkit.search.result import Hit, SearchResult

    args = argparse.Namespace(timeout=1.0)
    fits = "time limit: one expansion of the search does not fit"
    for reason in (KERNELS_NOT_READY, "time limit", fits):
        result = SearchResult("range", "q", 3.0, [], [Hit(7, 6.0, 2.0, 6.0, False)], False,
                              stats={"stopped": {reason: 1}})
        _tell_limits(_Tally.of([result]), args)
        err = capsys.readouterr().err
        if reason == KERNELS_NOT_READY:
            assert "not ready yet" in err and "gedkit warmup" in err and "time limit" not in err
        else:
            assert "reached the time limit of 1 s per pair" in err
            # graphs too large for one expansion of the search in the limit: said so
            assert ("1 of them because one expansion of the search does not fit" in err) == (
                reason == fits)
    # a stop the time limit did not make is not blamed on it
    state = "time or memory limit: the search's state does not fit"
    result = SearchResult("mces_range", "q", 0.5, [], [Hit(7, 0.2, 0.2, 0.6, False)], False,
                          stats={"stopped": {state: 1}})
    _tell_limits(_Tally.of([result]), args)
    err = capsys.readouterr().err
    assert "reached the time limit" not in err
    assert f"1 verification stopped before deciding: 1 because {state}" in err


def test_search_interrupted_while_reading_its_queries_says_so(capsys, lib, tmp_path,
                                                               monkeypatch):
    """Ctrl-C while a large query file is read: a line saying how far it got and that
    nothing was searched (it said "gedkit: interrupted" alone), exit status 130, no file."""
    import gedkit.io

    real = gedkit.io.read_graphs

    def stopped(*args, **kwargs):
        for k, g in enumerate(real(*args, **kwargs)):
            if k == 1:
                raise KeyboardInterrupt
            yield g

    monkeypatch.setattr(gedkit.io, "read_graphs", stopped)
    out_csv = tmp_path / "hits.csv"
    code, out, err = run(capsys, "search", lib, smi(tmp_path / "q.smi", QUERIES), "--within",
                         "1", "--csv", out_csv)
    assert code == 130 and out == "" and not out_csv.exists()
    assert err == ("gedkit: interrupted while reading the queries (1 graph read): nothing "
                   "was searched\n"), err


def test_interrupted_search_prints_what_was_answered(capsys, lib, monkeypatch):
    from gedkit.search import ged_search

    real = ged_search.knn_query
    calls = []

    def second_interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ged_search, "knn_query", second_interrupted)
    code, out, err = run(capsys, "search", lib, lib.parent / "queries.gdb", "--nearest", "1",
                         "--json")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 130 and "interrupted: 1 of 2 queries answered" in err
    # the query never searched keeps its line: "not searched" is not "no hit"
    assert [(a["interrupted"], len(a["hits"])) for a in answers] == [(False, 1), (True, 0)]
    calls.clear()
    csv_out = lib.parent / "stopped.csv"
    code, out, err = run(capsys, "search", lib, lib.parent / "queries.gdb", "--nearest", "1",
                         "--csv", csv_out)
    rows = list(csv.DictReader(csv_out.open()))
    assert code == 130 and [r["status"] for r in rows] == ["hit", "interrupted"]
    # the summary counts the query not answered too (it said "1 query" of 2)
    assert ": 1 query (1 more not answered), 1 hit" in out
    assert f"found so far is in {csv_out}" in err
    assert rows[1]["query"] == answers[1]["query"] and rows[1]["id"] == ""
    # the text output names the query never searched too (it printed nothing of it)
    calls.clear()
    code, out, err = run(capsys, "search", lib, lib.parent / "queries.gdb", "--nearest", "1")
    assert code == 130 and out.rstrip().endswith(
        "1 query not answered (Ctrl-C came before its answer)")


def test_a_query_never_searched_between_answered_ones_has_one_line(capsys, lib, tmp_path,
                                                                   monkeypatch):
    """A cluster's answers come back in any order: after Ctrl-C a query never searched may
    sit between answered ones (empty stats). It is not handed on among the answers, and
    has one line, marked interrupted (JSON and CSV listed such queries twice, 23 of 301)."""
    from gedkit.search import SearchResult, collection

    real = collection._run_queries

    def out_of_order(coll, run, graphs, parameter, model, verify, n_jobs, progress, each=None):
        results = real(coll, run, graphs, parameter, model, verify, n_jobs, progress)
        results[1] = SearchResult(results[1].kind, graphs[1].name, parameter,
                                  certified=False, interrupted=True)  # (as the cluster's)
        collection._hand_on(results, each)
        return results

    monkeypatch.setattr(collection, "_run_queries", out_of_order)
    queries = smi(tmp_path / "three.smi", MANY[:3])
    code, out, err = run(capsys, "search", lib, queries, "--nearest", "1", "--json")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 130 and "2 of 3 queries answered" in err, (code, err)
    assert sorted(a["query"] for a in answers) == sorted(name for _, name in MANY[:3]), out
    assert [a["interrupted"] for a in answers] == [False, False, True]
    assert answers[2]["query"] == MANY[1][1] and answers[2]["hits"] == []
    out_csv = tmp_path / "three.csv"
    run(capsys, "search", lib, queries, "--nearest", "1", "--csv", out_csv)
    rows = list(csv.DictReader(out_csv.open()))
    assert [(r["query"], r["status"]) for r in rows] == [
        (MANY[0][1], "hit"), (MANY[2][1], "hit"), (MANY[1][1], "interrupted")]


MANY = [("CCCO", "propanol"), ("c1ccccc1O", "phenol"), ("CCO", "ethanol-q"),
        ("NCC", "ethylamine-q"), ("CCCCO", "butanol")]


def test_a_large_batch_is_searched_a_part_at_a_time(capsys, lib, tmp_path, monkeypatch):
    """A query file or collection is searched a batch at a time (its answers written, then
    dropped: 176,000 queries held 1.1 GB to the end): the same answers, in the same
    order, in every output, as in one part."""
    from gedkit.cli import _search_queries
    from gedkit.search import Collection as Searched

    queries = smi(tmp_path / "many.smi", MANY)
    assert main(["collection", "build", str(tmp_path / "many.gdb"), str(queries)]) == 0
    capsys.readouterr()
    outputs = {}
    for size in (10_000, 2):
        monkeypatch.setattr(_search_queries, "BATCH", size)
        calls = []
        real = Searched.range

        def spied(self, *args, real=real, calls=calls, **kwargs):
            calls.append(len(kwargs.get("queries") or [None]))
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Searched, "range", spied)
        for source in (queries, tmp_path / "many.gdb"):
            code, out, err = run(capsys, "search", lib, source, "--within", "2", "--json")
            assert code == 0, err
            outputs[size, source.suffix, "json"] = [json.loads(line) for line in
                                                    out.splitlines()]
            out_csv = tmp_path / f"{size}.csv"
            code, out, _ = run(capsys, "search", lib, source, "--within", "2", "--csv", out_csv)
            assert code == 0 and out.startswith("wrote 18 rows to ")
            outputs[size, source.suffix, "csv"] = out_csv.read_text()
            code, out, _ = run(capsys, "search", lib, source, "--within", "2")
            outputs[size, source.suffix, "text"] = re.sub(r"\d+(\.\d+)? ?m?s\b", "", out)
        assert calls == ([5] * 6 if size > 5 else [2, 2, 1] * 6)
    for key in [k for k in outputs if k[0] == 2]:
        want = outputs[(10_000, *key[1:])]
        if key[2] == "json":  # (each query's times differ from run to run)
            for answers in (outputs[key], want):
                for a in answers:
                    a["stats"].pop("seconds")
        assert outputs[key] == want, key
    assert [a["query"] for a in outputs[2, ".smi", "json"]] == [name for _, name in MANY]
    assert "5 queries, " in outputs[2, ".gdb", "text"]


def test_a_query_file_within_one_batch_shows_its_total(capsys, lib, tmp_path, monkeypatch):
    """A query file read to its end in its first batch: the progress lines count against
    its total, with their pace (they said "22 queries" where they said "19/100")."""
    from gedkit.cli import _search_queries
    from gedkit.search import progress

    monkeypatch.setattr(progress, "_LINE_EVERY", 0.0)
    queries = smi(tmp_path / "many.smi", MANY)
    code, _out, err = run(capsys, "search", lib, queries, "--within", "1")
    assert code == 0 and "gedkit: search: 1/5 queries" in err, err
    monkeypatch.setattr(_search_queries, "BATCH", 2)  # more batches: the total unknown
    code, _out, err = run(capsys, "search", lib, queries, "--within", "1")
    assert code == 0 and "gedkit: search: 1 query, " in err and "/5 queries" not in err


def test_ctrl_c_between_batches_keeps_what_was_answered(capsys, lib, tmp_path, monkeypatch):
    """Ctrl-C while a later batch of queries is read: the answers so far are written (the
    --csv file put in place with them), the line on stderr says how many, exit status 130."""
    import gedkit.io
    from gedkit.cli import _search_queries

    monkeypatch.setattr(_search_queries, "BATCH", 2)
    real = gedkit.io.read_graphs

    def stopped(*args, **kwargs):
        for k, g in enumerate(real(*args, **kwargs)):
            if k == 3:  # in the second batch
                raise KeyboardInterrupt
            yield g

    monkeypatch.setattr(gedkit.io, "read_graphs", stopped)
    out_csv = tmp_path / "hits.csv"
    code, out, err = run(capsys, "search", lib, smi(tmp_path / "q.smi", MANY), "--within", "2",
                         "--csv", out_csv)
    rows = list(csv.DictReader(out_csv.open()))
    assert code == 130 and {r["query"] for r in rows} == {"propanol", "phenol"}
    assert ("interrupted: 2 of 2 queries answered in full, the queries after them not "
            "searched; what was found so far is in") in err
    code, out, err = run(capsys, "search", lib, tmp_path / "q.smi", "--within", "2", "--json")
    assert code == 130 and [json.loads(line)["query"] for line in out.splitlines()] == [
        "propanol", "phenol"]


@pytest.mark.parametrize("batch", [2, 10_000])  # the bad record in a later batch, the first
def test_an_unreadable_query_further_on_keeps_the_answers_before_it(capsys, lib, tmp_path,
                                                                    monkeypatch, batch):
    """With --strict, a query file unreadable further on: the answers to the queries before
    the bad record are kept (the --csv file too: a batch's good queries before it are
    searched first), and the error says where they are."""
    from gedkit.cli import _search_queries

    monkeypatch.setattr(_search_queries, "BATCH", batch)
    queries = smi(tmp_path / "bad.smi", [*MANY[:3], ("C1CC", "broken"), MANY[3]])
    out_csv = tmp_path / "hits.csv"
    code, _out, err = run(capsys, "search", lib, queries, "--within", "2", "--csv", out_csv,
                         "--strict")
    assert code == 2 and "bad.smi:4" in err
    assert f"the answers to the 3 queries before it are in {out_csv}" in err
    assert {r["query"] for r in csv.DictReader(out_csv.open())} == {
        "propanol", "phenol", "ethanol-q"}
    assert "wrote" not in _out  # (no summary beside the error)
    # the second record bad: a batch all the same, its first query answered (nothing was,
    # one query or a batch not known yet); the first record bad: the file left as it was
    bad_second = smi(tmp_path / "bad_second.smi", [MANY[0], ("C1CC", "broken"), *MANY[1:]])
    code, out, err = run(capsys, "search", lib, bad_second, "--within", "2", "--csv", out_csv,
                         "--strict")
    assert code == 2 and out == "" and "bad_second.smi:2" in err
    assert f"the answers to the 1 query before it are in {out_csv}" in err
    assert {r["query"] for r in csv.DictReader(out_csv.open())} == {"propanol"}
    out_csv.write_text("kept\n")
    bad_first = smi(tmp_path / "bad_first.smi", [("C1CC", "broken"), *MANY])
    code, out, err = run(capsys, "search", lib, bad_first, "--within", "2", "--csv", out_csv,
                         "--strict")
    assert code == 2 and out == "" and "bad_first.smi:1" in err and "answers" not in err
    assert out_csv.read_text() == "kept\n"


def test_the_unseen_label_note_is_said_once_for_every_batch(capsys, lib, tmp_path,
                                                            monkeypatch):
    """Queries searched a batch at a time: the note on labels the collection lacks comes
    before the answers (it came at the end of a batch: hours late for 10,000 slow queries),
    again for a batch only where it names other labels, and one line for the rest."""
    from gedkit.cli import _search_queries

    monkeypatch.setattr(_search_queries, "BATCH", 1)
    queries = smi(tmp_path / "odd.smi", [("CCBr", "a"), ("CCCBr", "b"), ("CCI", "c"),
                                         ("CCCCBr", "d")])
    code, _out, err = run(capsys, "search", lib, queries, "--within", "1")
    notes = [line for line in err.splitlines() if "which no graph of the collection has" in line]
    assert code == 0 and len(notes) == 2
    assert "'Br'" in notes[0] and "'I'" in notes[1]
    assert "gedkit: note: queries of 2 later batches of 1 have such labels too" in err
    # before the answers (stdout and stderr in one stream, as on a terminal)
    done = subprocess.run([sys.executable, "-m", "gedkit", "search", str(lib), str(queries),
                           "--within", "1"], capture_output=False, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
    lines = done.stdout.splitlines()
    note = next(k for k, line in enumerate(lines) if "no graph of the collection has" in line)
    first = next(k for k, line in enumerate(lines) if line.startswith("a: "))
    assert done.returncode == 0 and note < first, done.stdout


def test_the_summary_time_is_the_wall_clocks(capsys, lib, monkeypatch):
    """With --jobs the queries run side by side: their own times add up to more than the
    search took (32.9 s said for a 19.8 s search)."""
    from gedkit.cli import _search

    monkeypatch.setattr(_search, "_seconds", lambda result: 500.0)  # each query's own
    code, out, _ = run(capsys, "search", lib, lib.parent / "queries.gdb", "--within", "1",
                       "--csv", lib.parent / "wall.csv")
    assert code == 0 and "certified, " in out and "1e+03 s" not in out
    value, unit = out.split("certified, ")[1].split()[:2]  # "906 ms" on a busy machine
    assert float(value) * {"ms": 1e-3, "s": 1.0}[unit.rstrip(",.")] < 100


def test_csv_rows_of_an_interrupted_query_say_so(lib):
    # a query Ctrl-C stopped mid-verification keeps its hits so far; a CSV reader must be able
    # to tell them from an answer (a kNN list may still lack true neighbours)
    import dataclasses

    from gedkit.cli._search import _write_csv

    answered = Collection.open(lib).knn("CCO", 2)
    stopped = dataclasses.replace(answered, query="stopped", interrupted=True)
    empty = dataclasses.replace(answered, query="empty", hits=[], interrupted=True)
    late = dataclasses.replace(answered, query="late", hits=[], timed_out=True)
    alone = dataclasses.replace(answered, query="alone", hits=[])
    out = io.StringIO()
    _write_csv(out, [answered, stopped, empty, late, alone], node_map=True)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["status"] for r in rows if r["query"] == answered.query] == ["hit"] * 2
    assert [r["status"] for r in rows if r["query"] == "stopped"] == ["interrupted"] * 2
    # nothing to list: one row all the same, every column present, saying why
    assert [(r["query"], r["status"], r["id"], r["node_map"]) for r in rows[4:]] == [
        ("empty", "interrupted", "", ""), ("late", "timed out", "", ""), ("alone", "none", "", "")]
    # the summary tells the rows of stopped queries apart too
    from gedkit.cli._search import _summary, _Tally

    assert _summary(_Tally.of([answered, stopped, empty]), 1.0).startswith(
        "3 queries, 4 hits, 2 of them from queries Ctrl-C stopped, ")
    # with undecided graphs the count is of both (it read as a count of the undecided)
    open_ = dataclasses.replace(answered, query="open", undecided=list(answered.hits),
                                interrupted=True)
    assert _summary(_Tally.of([open_]), 1.0).startswith(
        "1 query, 2 hits, 2 undecided, 4 of the hits and undecided from queries Ctrl-C stopped")


@needs_mces
def test_mces_searches_equal_the_api(capsys, lib):
    coll = Collection.open(lib)
    code, out, _ = run(capsys, "search", lib, "CCO", "--similarity", "0.5", "--json")
    data = json.loads(out)
    assert code == 0 and data["kind"] == "mces_range" and data["min_similarity"] == 0.5
    assert hits(data) == api_hits(coll.mces_range("CCO", 0.5))
    assert hits(data)[0] == ("ethanol", 1.0, True)
    assert data["measure"] == "Johnson similarity"
    code, out, _ = run(capsys, "search", lib, "CCO", "--similarity", "0.5", "--json",
                       "--ring-matches-ring-only")
    assert json.loads(out)["measure"] == "Johnson similarity (ring_matches_ring_only=True)"
    code, out, _ = run(capsys, "search", lib, "CCO", "--mces-nearest", "2")
    assert code == 0 and "most similar by MCES" in out and "similarity" in out.splitlines()[1]
    one_line_error(*run(capsys, "search", lib, "CCO", "--similarity", "0.5", "--costs",
                        "chem_2"), "--costs applies to GED searches")


@pytest.mark.parametrize("argv, fragments", [
    (["search", "{missing}", "CCO", "--within", "1"], ["no such collection file"]),
    (["search", "{smi}", "CCO", "--within", "1"], ["not a gedkit collection"]),
    (["search", "{lib}", "CCO", "--within", "-1"], ["--within '-1'", ">= 0"]),
    (["search", "{lib}", "CCO", "--within", "two"], ["--within 'two'"]),
    (["search", "{lib}", "CCO", "--nearest", "0"], ["--nearest '0'", "at least 1"]),
    (["search", "{lib}", "CCO", "--mces-nearest", "1.5"], ["--mces-nearest '1.5'"]),
    (["search", "{lib}", "CCO", "--similarity", "1.2"], ["between 0 and 1"]),
    (["search", "{lib}", "CCO", "--similarity", "-0.1"], ["between 0 and 1"]),
    # not a number: said so (it was told "a similarity is between 0 and 1")
    (["search", "{lib}", "CCO", "--similarity", "abc"], ["give a similarity, a number "
                                                          "between 0 and 1"]),
    (["search", "{lib}", "CCO", "--nearest", "1e9"], ["--nearest '1e9'", "an integer"]),
    (["search", "{lib}", "CCO", "--within", "1", "--nearest", "2"], ["cannot be combined"]),
    (["search", "{lib}", "CCO"], ["--within T, --nearest K"]),
    (["search", "{lib}", "nothing.json", "--within", "1"], ["neither an existing file"]),
    (["search", "{lib}", "{lib}#nobody", "--within", "1"], ["no graph with id 'nobody'"]),
    (["search", "{lib}", "{smi}#nobody", "--within", "1"], ["no graph named 'nobody'"]),
    (["search", "{lib}", "CCO", "--within", "1", "--costs", "nope"], ["unknown cost model"]),
    (["search", "{lib}", "CCO", "--within", "1", "--method", "nope"], ["unknown method"]),
    (["search", "{lib}", "CCO", "--within", "1", "--timeout", "0"], ["--timeout 0"]),
    (["search", "{lib}", "CCO", "--within", "1", "-o", "timeout=2"], ["-o timeout"]),
    (["search", "{lib}", "CCO", "--within", "1", "--jobs", "0"], ["--jobs 0"]),
    (["search", "{lib}", "CCO", "--nearest", "1", "--query-timeout", "0"],
     ["--query-timeout 0"]),
    (["search", "{lib}", "CCO", "--within", "1", "--csv", "{dir}/none/x.csv"],
     ["--csv", "does not exist"]),
    (["search", "{lib}", "CCO", "--within", "1", "--csv", "{dir}"], ["is a folder"]),
    (["search", "{lib}", "CCO", "--within", "1", "--node-label", "atom"],
     ["search reads its queries with the labels", "leave --node-label out"]),
    (["search", "{lib}", "CCO", "--within", "inf"], ["--within 'inf'", "finite"]),
    (["search", "{lib}", "{directed}", "--within", "1"],
     ["a collection search takes undirected graphs only", "pass --directed ignore"]),
    (["collection", "build", "{new}", "{directed}"],
     ["a collection takes undirected graphs only", "pass --directed ignore"]),
    (["collection", "info", "{missing}"], ["no such collection file"]),
    (["collection", "info", "{dir}"], ["is a folder, not a collection file"]),
    (["search", "{dir}", "CCO", "--within", "1"], ["is a folder, not a collection file"]),
    (["collection", "info", "{smi}"], ["not a gedkit collection"]),
    (["collection", "build", "{lib}", "{smi}"], ["exists already"]),
    (["collection", "build", "{missing}", "{smi}", "--append"], ["does not exist", "--append"]),
    (["collection", "build", "{smi}", "{smi}", "--overwrite"], ["not a gedkit collection"]),
    # (not "exists already; --append adds to it, --overwrite replaces it": both would fail)
    (["collection", "build", "{smi}", "{new}"], ["not a gedkit collection", "first argument"]),
    (["collection", "build", "{dir}", "{smi}"], ["is not a file"]),
    (["collection", "build", "{dir}", "{smi}", "--append"], ["is not a file"]),
    (["collection", "build", "{new}", "missing.smi"],
     ["'missing.smi' is neither an existing file nor a SMILES"]),
    (["collection", "build", "{dir}/none/new.gdb", "CCO"], ["none' does not exist"]),
    (["collection", "build", "{lib}", "{lib}", "--append"], ["not an input of itself"]),
    (["collection", "build", "{new}", "{bad}", "--strict"], ["RDKit cannot parse"]),
])
def test_bad_input_is_one_line(capsys, lib, tmp_path, argv, fragments):
    bad = tmp_path / "bad.smi"
    bad.write_text("CCO fine\nC1CC(( broken\n")
    directed = tmp_path / "arcs.json"
    gedkit.write(gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 1)], directed=True, name="d"), directed)
    names = {"lib": lib, "smi": lib.parent / "lib.smi", "missing": tmp_path / "missing.gdb",
             "new": tmp_path / "new.gdb", "bad": bad, "dir": tmp_path, "directed": directed}
    before = lib.stat().st_size, lib.stat().st_mtime_ns
    one_line_error(*run(capsys, *[a.format(**names) for a in argv]), *fragments)
    assert (lib.stat().st_size, lib.stat().st_mtime_ns) == before
    assert not (tmp_path / "new.gdb").exists()


def test_a_name_too_long_for_sqlites_journal_is_refused_up_front(capsys, tmp_path):
    smi(tmp_path / "a.smi", LIBRARY[:2])
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    # the name fits the folder, its SQLite journal (name + "-journal") does not
    long = tmp_path / ("a" * (limit - 7 - len(".gdb")) + ".gdb")
    one_line_error(*run(capsys, "collection", "build", long, tmp_path / "a.smi"),
                   "the file name is too long", "-journal", f"at most {limit - 8} bytes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.smi"]  # no 0-byte file left
    # --overwrite writes beside the file under a longer name first: that one is checked
    fits = tmp_path / ("b" * (limit - 8 - len(".gdb")) + ".gdb")
    assert run(capsys, "collection", "build", fits, tmp_path / "a.smi")[0] == 0
    one_line_error(*run(capsys, "collection", "build", fits, tmp_path / "a.smi",
                        "--overwrite"), "the file name is too long")
    with pytest.raises(gedkit.errors.OptionError, match="too long"):
        Collection.create(long)
    assert not long.exists()


def test_a_failed_create_removes_the_file_it_made_only(tmp_path, monkeypatch):
    import sqlite3

    from gedkit.search import store

    def failing(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(store.Store, "_load", failing)
    with pytest.raises(gedkit.errors.GedkitError, match="cannot create"):
        Collection.create(tmp_path / "new.gdb")
    assert not (tmp_path / "new.gdb").exists()


def test_overwrite_replaces_an_empty_file(capsys, tmp_path):
    smi(tmp_path / "a.smi", LIBRARY[:2])
    (tmp_path / "empty.gdb").write_bytes(b"")  # (what a failed build of an older gedkit left)
    code, out, _ = run(capsys, "collection", "build", tmp_path / "empty.gdb",
                       tmp_path / "a.smi", "--overwrite")
    assert code == 0 and "2 graphs added" in out
    one_line_error(*run(capsys, "collection", "build", tmp_path / "a.smi", tmp_path / "a.smi",
                        "--overwrite"), "not a gedkit collection")


def test_a_folder_that_cannot_be_written_is_named(capsys, tmp_path, monkeypatch):
    from gedkit.search import store

    smi(tmp_path / "a.smi", LIBRARY[:2])
    # (a read-only mount, or a folder of another user's: root may write anywhere)
    monkeypatch.setattr(store.os, "access", lambda path, mode: Path(path) != tmp_path / "ro")
    (tmp_path / "ro").mkdir()
    one_line_error(*run(capsys, "collection", "build", tmp_path / "ro" / "new.gdb",
                        tmp_path / "a.smi"), "not allowed to write in folder")
    assert not (tmp_path / "ro" / "new.gdb").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_is_named(capsys, tmp_path):
    smi(tmp_path / "a.smi", LIBRARY[:2])
    (tmp_path / "ro").mkdir(mode=0o555)
    try:
        one_line_error(*run(capsys, "collection", "build", tmp_path / "ro" / "new.gdb",
                            tmp_path / "a.smi"), "not allowed to write in folder")
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_end_to_end_in_a_subprocess(tmp_path):
    def gedkit_cli(*argv):
        return subprocess.run([sys.executable, "-m", "gedkit.cli", *map(str, argv)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)

    smi(tmp_path / "lib.smi", LIBRARY)
    smi(tmp_path / "q.smi", QUERIES)
    done = gedkit_cli("collection", "build", "lib.gdb", "lib.smi")
    assert done.returncode == 0 and done.stdout.startswith("lib.gdb: 12 graphs added"), done
    done = gedkit_cli("collection", "build", "q.gdb", "q.smi")
    assert done.returncode == 0, done.stderr
    done = gedkit_cli("collection", "info", "lib.gdb", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["graphs"] == 12
    done = gedkit_cli("search", "lib.gdb", "q.gdb", "--within", "1", "--json")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and [a["query"] for a in answers] == ["propanol", "phenol"]
    assert hits(answers[0])[0][1] == 1.0
    done = gedkit_cli("search", "lib.gdb", "CCO", "--nearest", "2", "--csv", "out.csv")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["id"] for row in rows] == ["ethanol", "ethylamine"]
    done = gedkit_cli("search", "lib.gdb", "CCO", "--nearest", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gedkit: error: ") and done.stderr.count("\n") == 1


def test_build_leaves_out_unreadable_molecules_unless_strict(tmp_path, capsys):
    from gedkit.cli import main

    smi = tmp_path / "lib.smi"
    smi.write_text("CCO ethanol\nC1CC broken\nCCN amine\n")
    assert main(["collection", "build", str(tmp_path / "a.gdb"), str(smi)]) == 0
    captured = capsys.readouterr()
    assert "2 graphs added" in captured.out
    assert "1 record could not be read" in captured.err and "lib.smi:2" in captured.err
    assert main(["collection", "build", str(tmp_path / "b.gdb"), str(smi), "--strict"]) == 2
    assert "lib.smi:2: RDKit cannot parse" in capsys.readouterr().err
    assert not (tmp_path / "b.gdb").exists()


def test_build_skips_a_smiles_header_and_names_the_first_unreadable_records(tmp_path, capsys):
    """A .smi file's header line ("SMILES Name") is no molecule that failed; of many
    unreadable records the first three are named, not only the first."""
    from gedkit.cli import main

    smi = tmp_path / "lib.smi"
    smi.write_text("SMILES Name\nCCO ethanol\nC1CC a\nXYZ b\nCCN amine\nC1CCC c\nQ d\n")
    assert main(["collection", "build", str(tmp_path / "a.gdb"), str(smi)]) == 0
    captured = capsys.readouterr()
    assert "2 graphs added" in captured.out
    assert "4 records could not be read" in captured.err
    assert "records could not be read and were left out (--strict stops at the first); " \
        "the first 3: " in captured.err
    assert all(f"lib.smi:{k}" in captured.err for k in (3, 4, 6))
    assert "lib.smi:7" not in captured.err and "lib.smi:1" not in captured.err


def test_search_leaves_out_unreadable_queries_unless_strict(capsys, lib, tmp_path):
    # a query file is read as a library is built: a molecule RDKit rejects is left out, with
    # a note, and the other queries are answered; --strict stops at it
    queries = tmp_path / "queries.smi"
    queries.write_text("CCCO propanol\nC1CC broken\nc1ccccc1O phenol\n")
    code, out, err = run(capsys, "search", lib, queries, "--within", "2", "--json")
    assert code == 0
    assert [json.loads(line)["query"] for line in out.splitlines()] == ["propanol", "phenol"]
    assert "1 record could not be read" in err and "queries.smi:2" in err
    # --strict stops at it, the answers before it kept, whichever record it is (at the
    # 2nd or the 3rd, read while the first batch was, they were lost)
    for lines, before in (("CCCO propanol\nC1CC broken\n", 1),
                          ("CCCO propanol\nCCO ethanol\nC1CC broken\nCCC propane\n", 2),
                          ("C1CC broken\nCCCO propanol\n", 0)):
        queries.write_text(lines)
        code, out, err = run(capsys, "search", lib, queries, "--within", "2", "--strict",
                             "--json")
        assert code == 2 and len(out.splitlines()) == before, (lines, out)
        assert err.count("\n") == 1 and "RDKit cannot parse" in err
        assert (f"the answers to the {before} quer" in err) == (before > 0), err


def test_search_notes_query_labels_the_collection_lacks(tmp_path, capsys):
    """A collection built from kekulized molecules without naming labels, searched with a
    SMILES query (aromatic bonds, 1.5): the command says on stderr, once, that no graph
    has such bonds, instead of a bare "no hits"."""
    lib = tmp_path / "lib.gdb"
    with Collection.create(lib) as coll:
        coll.add([gedkit.from_smiles(s, edge_label="kekule") for s in ("c1ccccc1O", "CCO")])
    code, out, err = run(capsys, "search", str(lib), "smiles:c1ccccc1O", "--within", "2")
    assert code == 0 and "0 hits" in out
    notes = [line for line in err.splitlines() if "no graph of the collection has" in line]
    assert len(notes) == 1 and notes[0].startswith(
        "gedkit: note: query 'c1ccccc1O' has edge label 1.5, which no graph")
    code, out, err = run(capsys, "search", str(lib), "smiles:OCC", "--within", "2")
    assert code == 0 and "no graph of the collection has" not in err


def test_directed_inputs_are_read_without_directions_when_asked(capsys, lib, tmp_path):
    # a collection holds undirected graphs only: keeping the arcs is no way out, so neither
    # the error nor the options offer it; --directed ignore reads the arcs as edges
    directed = tmp_path / "arcs.json"
    gedkit.write(gedkit.Graph({0: "C", 1: "O"}, [(0, 1, 1), (1, 0, 1)], directed=True,
                              name="ethanolish"), directed)
    code, out, err = run(capsys, "search", lib, directed, "--within", "1")
    assert code == 2 and "keep" not in err
    code, out, err = run(capsys, "search", lib, directed, "--within", "1", "--directed", "ignore")
    assert code == 0 and "hits within GED 1" in out
    code, out, err = run(capsys, "collection", "build", tmp_path / "new.gdb", directed,
                         "--directed", "keep")
    assert code == 2 and "invalid choice: 'keep'" in err
    assert run(capsys, "collection", "build", tmp_path / "new.gdb", directed, "--directed",
               "ignore")[0] == 0
    assert len(Collection.open(tmp_path / "new.gdb")) == 1
    with pytest.raises(gedkit.GraphError, match=r"read_all\(\.\.\., directed='ignore'\)"):
        Collection().add([directed])


def test_the_labels_a_collection_records_may_be_named_again(capsys, tmp_path):
    """``--node-label`` equal to the collection's own: as good as none (refused with "leave
    --node-label out" though it names what the collection records); another: refused."""
    (tmp_path / "g.json").write_text(json.dumps({
        "nodes": [{"id": 0, "type": "a", "w": 1}, {"id": 1, "type": "b", "w": 2}],
        "links": [{"source": 0, "target": 1, "bond": 1}]}))
    lib = tmp_path / "typed.gdb"
    assert run(capsys, "collection", "build", lib, tmp_path / "g.json", "--node-label",
               "type", "--edge-label", "bond")[0] == 0
    code, out, err = run(capsys, "search", lib, tmp_path / "g.json", "--nearest", "1",
                         "--node-label", "type", "--edge-label", "bond")
    assert code == 0 and "1 hit" in out, err
    one_line_error(*run(capsys, "search", lib, tmp_path / "g.json", "--nearest", "1",
                        "--node-label", "w"), "leave --node-label out")


def test_a_query_lacking_the_collections_label_attributes_is_told_what_they_are(capsys,
                                                                                 tmp_path):
    """A SMILES query of a collection built from files labelled "el" was told only that
    it has no attribute 'el': the error says what the collection's graphs were read with,
    in the command line's words there and Python's in Python."""
    lib = _graphml_collection(capsys, tmp_path, "--node-label", "el", "--edge-label", "order")
    one_line_error(*run(capsys, "search", lib, "CCO", "--within", "1"),
                   "has no attribute 'el'", "read with --node-label el and --edge-label order")
    with pytest.raises(gedkit.GraphError, match="read with node_label='el' and "
                                                "edge_label='order': a query needs"):
        Collection.open(lib).range("CCO", 1)


def test_a_damaged_graph_picked_from_a_collection_is_one_line(tmp_path):
    """``gedkit ged 'lib.gdb#b' ...`` where graph b's stored bytes are damaged: gedkit's one
    line, in its words (zlib's "Error -3 while decompressing data" was passed on), and no
    "Exception ignored" traceback from a cursor left open after the file closed."""
    path = tmp_path / "lib.gdb"
    with gedkit.Collection.create(path) as coll:
        coll.add(["CCO", "CC=O", "CCC"], ids=["a", "b", "c"])
    with sqlite3.connect(path) as db:
        data = bytearray(db.execute("SELECT data FROM graphs WHERE rowid = 2").fetchone()[0])
        data[6] ^= 0x5A
        db.execute("UPDATE graphs SET data = ? WHERE rowid = 2", (bytes(data),))
    done = subprocess.run([sys.executable, "-m", "gedkit", "ged", f"{path}#b", "smiles:CCO"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"gedkit: error: {path}: a stored graph is damaged (its compressed bytes do not "
        "decompress); build the collection again from its sources"], done.stderr


def test_csv_rows_reach_the_disk_as_each_answer_comes(capsys, lib, tmp_path, monkeypatch):
    """``--csv FILE``: each answer's rows are in the file written beside FILE as soon as they
    are written (a search killed outright after 8 answers left that file empty: the rows
    were in a buffer)."""
    from gedkit.cli import _search

    seen = []
    write = _search._Answers.write

    def watched(self, result):
        write(self, result)
        beside = list(tmp_path.glob(".wall.csv.*"))
        seen.append(len(beside[0].read_text().splitlines()) if beside else None)

    monkeypatch.setattr(_search._Answers, "write", watched)
    code, _, _ = run(capsys, "search", lib, lib.parent / "queries.gdb", "--within", "1",
                     "--csv", tmp_path / "wall.csv")
    rows = (tmp_path / "wall.csv").read_text().splitlines()
    assert code == 0 and len(seen) == 2 and seen[-1] == len(rows)
    assert 1 < seen[0] < seen[1]  # the header and the first answer's rows, on disk at once


def test_labels_only_removed_graphs_had_are_not_the_collections(tmp_path, capsys):
    """After ``remove()``: ``collection info`` counts and lists the labels the remaining
    graphs have (it counted the salt's Na and Cl as "2 more"), and a query with the removed
    graphs' labels gets the note on labels no graph has, as one with labels never added."""
    lib = tmp_path / "tiny.gdb"
    with Collection.create(lib) as coll:
        coll.add(["CCO", "[Na+].[Cl-]", "CCC", "CC=O"], ids=["ethanol", "salt", "propane",
                                                               "acetaldehyde"])
        coll.remove(["salt"])
    code, out, _ = run(capsys, "collection", "info", lib)
    assert code == 0 and "vocabulary   2 node labels, 2 edge labels," in out
    assert "node labels  'C' (7), 'O' (2)\n" in out
    code, out, _ = run(capsys, "collection", "info", lib, "--json")
    assert json.loads(out)["vocabulary"]["node"] == 2
    for query, label in (("smiles:[Na+]", "'Na'"), ("smiles:[K+]", "'K'")):
        code, _, err = run(capsys, "search", lib, query, "--nearest", "1")
        assert code == 0 and f"has node label {label}, which no graph" in err, err
    code, _, err = run(capsys, "search", lib, "smiles:CCO", "--nearest", "1")
    assert code == 0 and "no graph" not in err


def test_an_mces_range_searchs_pair_bounds_count_the_graphs_reached():
    """Under a query time limit an MCES range search's pair bounds run on the graphs its
    verification reached: said so ("pairs 403" read as if they had ruled out the 57,745 the
    time limit left unread); a GED range search's stages, all before verification, as they
    were."""
    from gedkit.cli._search import _stages

    stats = {"screened": 60000, "candidates": {"labels": 59234, "branches": 58148,
                                               "pairs": 405}, "verified": 405}
    assert "pairs 405; verified 405" in _stages(stats, ranked=False)
    assert "branches 58,148, pairs 405 (of the 405 reached); verified 405" in _stages(
        {**stats, "unreached": 57743}, ranked=False)
    ged = {"screened": 9, "candidates": {"labels": 5, "branches": 4}, "verified": 2,
           "unreached": 2}
    assert _stages(ged, ranked=False) == "screened 9; left after labels 5, branches 4; verified 2"


def test_a_collection_records_the_lone_attributes_it_took_as_labels(capsys, tmp_path):
    """Built from node-link files with no label named, whose first graph's nodes have one
    attribute (``atom``, the label taken), the collection records it: a query of its own
    graph carrying ``atom`` and ``x`` is read with it and found (it was read unlabelled:
    nothing found), and ``collection info`` names it."""
    first, second = tmp_path / "p.json", tmp_path / "q.json"
    first.write_text(json.dumps({"nodes": [{"id": 0, "atom": "C"}, {"id": 1, "atom": "O"}],
                                 "links": [{"source": 0, "target": 1}]}))
    second.write_text(json.dumps({"nodes": [{"id": 0, "atom": "C", "x": 1.0},
                                            {"id": 1, "atom": "N", "x": 2.0}],
                                  "links": [{"source": 0, "target": 1}]}))
    lib = tmp_path / "pq.gdb"
    assert run(capsys, "collection", "build", lib, first, second)[0] == 0
    code, out, _ = run(capsys, "collection", "info", lib)
    assert code == 0 and "node label   atom" in out
    code, out, _ = run(capsys, "search", lib, second, "--within", "0", "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)["hits"]] == ["q"]
    # the same through Collection.add of the files
    coll = gedkit.Collection()
    with pytest.warns(gedkit.errors.UnlabelledWarning):
        coll.add([first, second])
    assert coll.node_label == "atom" and coll.edge_label is None
    assert [h.distance for h in coll.range(second, 0).hits] == [0]
