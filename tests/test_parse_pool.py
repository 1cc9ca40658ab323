"""``gedkit collection build --jobs``: molecules parsed by worker processes (a real fork server
and real workers), handed back in order, with the same collection, notes and errors as one
process."""

from __future__ import annotations

from pathlib import Path

import pytest

from gedkit import Collection
from gedkit.cli import main
from gedkit.io import chem, parse_pool

pytest.importorskip("rdkit")

RINGS = ["c1ccccc1", "C1CCCCC1", "c1ccncc1", "C1CCOC1"]


def molecules(count: int, bad: set[int]) -> list[str]:
    """``count`` SMILES lines ``SMILES name`` of distinct molecules, unreadable at ``bad``."""
    lines = []
    for k in range(count):
        smiles = "C1CC" if k in bad else (
            f"{RINGS[k % 4]}{'C' * (k // 4 % 9)}{'O' if k % 3 else 'N'}{'C' * (k // 36)}")
        lines.append(f"{smiles} m{k}\n")
    return lines


@pytest.fixture
def small_pool(monkeypatch):
    """Workers start after 60 records, 25 a task: a short file goes through them."""
    monkeypatch.setattr(parse_pool, "START_AFTER", 60)
    monkeypatch.setattr(parse_pool, "CHUNK", 25)


def contents(path: Path) -> list[tuple]:
    coll = Collection.open(path)
    return [(i, g.node_labels, g.edges.tolist(), g.edge_labels, g.name)
            for i, g in zip(coll.ids, coll, strict=True)]


def test_workers_build_what_one_process_builds(tmp_path, capsys, small_pool):
    source = tmp_path / "lib.smi"
    source.write_text("".join(molecules(400, bad={7, 130, 333})))
    assert main(["collection", "build", str(tmp_path / "one.gdb"), str(source)]) == 0
    one = capsys.readouterr()
    assert main(["collection", "build", str(tmp_path / "two.gdb"), str(source),
                 "--jobs", "2"]) == 0
    two = capsys.readouterr()
    assert "397 graphs added" in two.out
    assert contents(tmp_path / "two.gdb") == contents(tmp_path / "one.gdb")
    # the records left out are told alike, in file order (two of them parsed by workers)
    assert two.err == one.err and "3 records could not be read" in two.err
    assert all(f"lib.smi:{k + 1}" in two.err for k in (7, 130, 333))


def test_a_strict_build_stops_at_a_record_a_worker_could_not_read(tmp_path, capsys,
                                                                     small_pool):
    source = tmp_path / "lib.smi"
    source.write_text("".join(molecules(300, bad={201, 250})))
    code = main(["collection", "build", str(tmp_path / "lib.gdb"), str(source), "--strict",
                 "--jobs", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "lib.smi:202: RDKit cannot parse" in err and "lib.smi:251" not in err
    assert not (tmp_path / "lib.gdb").exists()


def test_ctrl_c_while_workers_parse_keeps_the_batches_written(tmp_path, capsys, monkeypatch,
                                                              small_pool):
    from gedkit.search import collection

    monkeypatch.setattr(collection, "BATCH", 50)
    records = chem._named

    def stopped(*args):  # Ctrl-C after 180 records are read (some sent to workers, not back)
        for k, item in enumerate(records(*args)):
            if k == 180:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(chem, "_named", stopped)
    source = tmp_path / "lib.smi"
    source.write_text("".join(molecules(400, bad=set())))
    code = main(["collection", "build", str(tmp_path / "lib.gdb"), str(source), "--jobs", "2",
                 "--ids", "numbers"])
    err = capsys.readouterr().err
    kept = len(Collection.open(tmp_path / "lib.gdb"))
    assert code == 130 and f"{kept} graphs were committed" in err and "Traceback" not in err
    assert kept in (50, 100, 150)  # whole batches of what came back before Ctrl-C


def test_read_all_with_workers_reads_what_one_process_reads(tmp_path, small_pool):
    import gedkit

    source = tmp_path / "lib.csv"
    source.write_text("smiles,id\n" + "".join(
        line.replace(" ", ",") for line in molecules(250, bad=set())))
    one = gedkit.read_all(source)
    two = gedkit.read_all(source, n_jobs=2)
    assert [(g.name, g.node_labels, g.edge_labels, g.edges.tolist()) for g in two] == [
        (g.name, g.node_labels, g.edge_labels, g.edges.tolist()) for g in one]
    assert len(one) == 250 and one[0].name == "m0"


def test_collection_add_with_workers_adds_what_one_process_adds(tmp_path, small_pool):
    source = tmp_path / "lib.smi"
    source.write_text("".join(molecules(200, bad={150})))
    one, two = Collection(), Collection()
    with pytest.warns(UserWarning, match="1 "):
        one.add(source, ids="names", errors="skip")
    with pytest.warns(UserWarning, match="1 "):
        two.add(source, ids="names", errors="skip", n_jobs=2)
    assert len(two) == 199 and two.ids == one.ids
    assert [g.edge_labels for g in two] == [g.edge_labels for g in one]


def test_in_order_hands_back_every_item_in_order(small_pool):
    items = [(f"x:{k}", "C" * (1 + k % 7), f"m{k}", None) for k in range(230)]
    got = list(parse_pool.in_order(iter(items), chem._outcome,
                                   (Path("x.smi"), "atom", "bond"), 2))
    assert [g.name for g in got] == [f"m{k}" for k in range(230)]
    assert [g.n for g in got] == [1 + k % 7 for k in range(230)]


def _dies_at_m300(where, smiles, name, problem, *args):
    import os

    if name == "m300":
        os._exit(3)  # a worker killed (out of memory, by hand)
    return name


def test_a_worker_that_dies_is_one_clear_error(small_pool):
    from gedkit.errors import GedkitError

    items = [(f"x:{k}", "C", f"m{k}", None) for k in range(400)]
    with pytest.raises(GedkitError, match="a worker process ended"):
        list(parse_pool.in_order(iter(items), _dies_at_m300, (), 2))


def test_jobs_on_a_format_read_in_this_process_is_said(tmp_path, capsys):
    """--jobs parses SMILES files and tables; an SDF file is read here, and the build says
    so (it said nothing, and took as long)."""
    from rdkit import Chem

    sdf = tmp_path / "lib.sdf"
    with Chem.SDWriter(str(sdf)) as out:
        for smiles in RINGS:
            out.write(Chem.MolFromSmiles(smiles))
    smi = tmp_path / "lib.smi"
    smi.write_text("".join(molecules(5, set())))
    assert main(["collection", "build", str(tmp_path / "a.gdb"), str(sdf), str(smi),
                 "--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert "--jobs parses SMILES files and tables; " in err
    assert "lib.sdf is read in this process" in err and "lib.smi" not in err.split("note")[1]
