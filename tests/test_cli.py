"""The gedkit command line, run in-process through ``main`` (plus one run of the installed
entry point)."""

from __future__ import annotations

import csv
import io
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit.cli import main
from gedkit.cli._pairwise import CSV_COLUMNS
from gedkit.configurable import Option
from gedkit.io import read, read_all
from gedkit.pairwise import DEFAULT_TIMEOUT
from gedkit.solvers.exact.tree_search import AStar

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LABELS = {"node_label": "atom", "edge_label": "bond"}
LABEL_ARGS = ["--node-label", "atom", "--edge-label", "bond"]


def node_link(nodes: dict, edges: list, name: str | None = None) -> dict:
    return {
        "directed": False,
        "multigraph": False,
        "graph": {"name": name} if name else {},
        "nodes": [{"id": u, "atom": a} for u, a in nodes.items()],
        "links": [{"source": u, "target": v, "bond": b} for u, v, b in edges],
    }


ETHANOL = node_link({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)], "ethanol")
ACETALDEHYDE = node_link({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)], "acetaldehyde")
METHYLAMINE = node_link({"a": "C", "b": "N"}, [("a", "b", 1)], "methylamine")


@pytest.fixture
def files(tmp_path):
    out = {}
    for key, data in [("a", ETHANOL), ("b", METHYLAMINE), ("c", ACETALDEHYDE)]:
        out[key] = tmp_path / f"{key}.json"
        out[key].write_text(json.dumps(data))
    out["both"] = tmp_path / "both.json"
    out["both"].write_text(json.dumps([ETHANOL, METHYLAMINE]))
    return {key: str(path) for key, path in out.items()}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    # notes said while reading (unlabelled inputs) may come first
    err = "".join(line for line in err.splitlines(True) if not line.startswith("gedkit: note: "))
    assert err.startswith("gedkit: error: ") and err.endswith("\n")
    assert "\n" not in err[:-1] and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


# -- information --------------------------------------------------------------------------------

def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"gedkit {gedkit.__version__}"


def test_threshold_none_is_no_threshold(capsys):
    """``--threshold none``, as its error offers ("a number >= 0 (or none)"), was refused by
    the parser ("invalid float value")."""
    code, out, _ = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--threshold", "none")
    assert code == 0 and out.startswith("distance     1 (optimal)")
    code, _, err = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--threshold", "-1")
    assert code == 2 and "(or none)" in err


def test_graph_dir_applies_to_the_cxl_inputs_only(capsys, tmp_path):
    """``--graph-dir`` names where a CXL collection's graphs are; a plain graph file beside
    it is read without it (a CXL graph and a GXL file could not be compared: "applies to CXL
    collections only"). Without any CXL input it is still an error."""
    import shutil

    data = Path(__file__).parent / "data" / "io"
    subsets, graphs = tmp_path / "subsets", tmp_path / "graphs"
    subsets.mkdir()
    graphs.mkdir()
    shutil.copy(data / "collection.cxl", subsets / "train.cxl")
    for name in ("small.gxl", "second.gxl"):
        shutil.copy(data / name, graphs / name)
    pair = [f"{subsets / 'train.cxl'}#0", str(graphs / "second.gxl")]
    for order in (pair, pair[::-1]):
        code, out, err = run(capsys, "ged", *order, "--graph-dir", str(graphs))
        assert code == 0 and out.startswith("distance"), err
    code, out, err = run(capsys, "pairwise", *pair, "--graph-dir", str(graphs))
    assert code == 0, err
    assert_one_line_error(*run(capsys, "ged", str(graphs / "small.gxl"),
                               str(graphs / "second.gxl"), "--graph-dir", str(graphs)),
                          "--graph-dir DIR applies to CXL collections only")


def test_messages_in_command_line_words(capsys, files):
    """Advice names the command line's flags, a write error its file, a bad value its flag;
    ged and mces say their exit statuses."""
    cxl = Path(__file__).parent / "data" / "io" / "missing_entry.cxl"
    assert_one_line_error(*run(capsys, "ged", str(cxl), files["a"]), "--graph-dir DIR")
    if Path("/dev/full").exists():
        assert_one_line_error(*run(capsys, "pairwise", files["a"], files["b"], "--csv",
                                   "/dev/full"), "/dev/full: No space left on device")
    for command in ("ged", "mces"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "Exit status: 0 when answered" in " ".join(out.split())


def test_a_negative_value_is_refused_for_what_it_is(capsys, files):
    """``--memory -5G``: gedkit's word on the value, not argparse's "expected one argument"
    (which took -5G for an option)."""
    assert_one_line_error(*run(capsys, "ged", files["a"], files["b"], "--memory", "-5G"),
                          "--memory '-5G' is not a positive size")
    assert_one_line_error(*run(capsys, "ged", files["a"], files["b"], "--timeout", "-1e3"),
                          "--timeout must be a number > 0")


def test_warmup_jobs_checked_as_elsewhere(capsys):
    assert_one_line_error(*run(capsys, "warmup", "--jobs", "0"), "--jobs", "non-zero")
    assert_one_line_error(*run(capsys, "warmup", "--jobs", "-999"), "leaves no worker")


def test_help_lists_commands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("ged", "pairwise", "methods", "costs"):
        assert command in out


def test_methods_lists_both_questions(capsys):
    code, out, _ = run(capsys, "methods")
    assert code == 0
    ged_part, mces_part = out.split("\n\n")
    assert ged_part.startswith("GED methods") and mces_part.startswith("MCES methods")
    for part, methods in ((ged_part, gedkit.methods()), (mces_part, gedkit.mces.methods())):
        lines = [line.strip() for line in part.splitlines()]
        for name, summary in methods.items():
            assert any(line.startswith(name) and summary in line for line in lines)
    # every option with its default and its line of documentation, spelled as a flag
    assert "--kicks 10000" in mces_part and "--beam-width 5  maps kept per level" in ged_part
    code, out, _ = run(capsys, "methods", "--json")
    listed = {question: {m["name"]: m for m in found}
              for question, found in json.loads(out).items()}
    assert listed["ged"].keys() == gedkit.methods().keys()
    assert listed["mces"].keys() == gedkit.mces.methods().keys()
    assert listed["ged"]["exact"]["exact"] is True and listed["mces"]["ga"]["exact"] is False
    assert "memory" in listed["ged"]["astar"]["options"]
    assert listed["mces"]["ga"]["options"]["kicks"]["default"] == 10000
    assert listed["mces"]["ga"]["options"]["kicks"]["doc"]
    # which methods take directed graphs, as the registry says
    from gedkit.solvers.registry import directed_methods

    assert [n for n, m in listed["ged"].items() if m["directed"]] == list(directed_methods())
    assert f"directed graphs: {', '.join(directed_methods())};" in ged_part
    assert "directed graphs: none" in mces_part


def test_costs(capsys):
    code, out, _ = run(capsys, "costs")
    names = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert code == 0 and names[:len(gedkit.costs.available())] == gedkit.costs.available()
    # one sentence each on what the model is, and how to set the six constants
    assert "uniform      Unit costs: every insertion" in out and "CHEM_2" in out
    assert "NAME:KEY=VALUE" in out
    code, out, _ = run(capsys, "costs", "--json")
    assert json.loads(out) == gedkit.costs.available()


# -- ged ----------------------------------------------------------------------------------------

def test_ged_json_matches_api(capsys, files):
    code, out, err = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    expected = gedkit.ged(read(files["a"], **LABELS), read(files["b"], **LABELS))
    assert data["distance"] == expected.distance
    assert data["lower_bound"] == data["upper_bound"] == expected.distance
    assert data["optimal"] is True and data["method"] == "auto"
    assert len(data["node_map"]) == 3 and all(len(pair) == 2 for pair in data["node_map"])
    assert sum(op["cost"] for op in data["edit_path"]) == pytest.approx(data["distance"])
    assert {"time", "stats"} <= data.keys()


def test_ged_text_for_people(capsys, files):
    code, out, _ = run(capsys, "ged", files["a"], files["c"], *LABEL_ARGS, "--method", "dfs")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["distance", "1", "(optimal)"]
    assert "method" in out and "dfs" in out
    assert "node map" in out and "edit path (1 operation, cost 1)" in out
    assert any("relabel edge" in line and "(1, 2)" in line for line in lines)


def test_long_node_maps_and_paths_are_cut_in_the_text_and_whole_in_json(capsys, tmp_path):
    """The text report lists the first LISTED pairs of the node map and operations of the
    edit path, then says there are more (a 2,000-node pair's report was 192,000 lines,
    built and printed for 2 s past its 1 s limit); --json lists them all. MCES likewise."""
    from gedkit.cli._ged import LISTED

    n = LISTED + 50
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, label in ((a, "C"), (b, "N")):
        gedkit.write(gedkit.Graph({i: label for i in range(n)},
                                  [(i, i + 1) for i in range(n - 1)]), path)
    args = ("--node-label", "label", "--method", "ipfp")
    code, out, _ = run(capsys, "ged", str(a), str(b), *args)
    lines = out.splitlines()
    assert code == 0 and "  ... 50 more pairs (--json lists them all)" in lines
    assert f"edit path (the first {LISTED} of its operations, cost {n:g})" in lines
    assert lines[-1] == "  ... (--json lists them all)"
    assert sum(line.startswith("  relabel node") for line in lines) == LISTED
    _, out, _ = run(capsys, "ged", str(a), str(b), *args, "--json")
    data = json.loads(out)
    assert len(data["node_map"]) == len(data["edit_path"]) == n
    # a path of exactly LISTED operations is counted, not cut
    c = tmp_path / "c.json"
    gedkit.write(gedkit.Graph({i: "N" if i < LISTED else "C" for i in range(n)},
                              [(i, i + 1) for i in range(n - 1)]), c)
    _, out, _ = run(capsys, "ged", str(a), str(c), *args[:2])
    assert f"edit path ({LISTED} operations, cost {LISTED})" in out
    assert out.splitlines()[-1] != "  ... (--json lists them all)"
    # a path made whole already (read before the report) is counted, its rest said so
    from gedkit.cli._ged import report

    made = gedkit.ged(gedkit.read(a, node_label="label"), gedkit.read(b, node_label="label"),
                      method="ipfp")
    assert len(made.edit_path) == n
    assert report(made, None).splitlines()[-1] == "  ... 50 more operations (--json lists them all)"
    code, out, _ = run(capsys, "mces", str(a), str(a), "--edge-label", "label", *args[:2])
    lines = out.splitlines()
    assert code == 0 and "  ... 50 more pairs (--json lists them all)" in lines
    assert lines[-1] == "  ... 49 more edges (--json lists them all)"


def test_ged_no_path(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--no-path")
    assert "node map" not in out and "edit path" not in out and "distance" in out
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--no-path", "--json")
    data = json.loads(out)
    assert "node_map" not in data and "edit_path" not in data and "distance" in data


def test_ged_labels_change_the_distance(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["c"], "--json", "--node-label", "atom")
    assert json.loads(out)["distance"] == 0  # bond orders ignored
    _, out, _ = run(capsys, "ged", files["a"], files["c"], "--json", "--node-label", "*",
                    "--edge-label", "bond")
    assert json.loads(out)["distance"] == 1


def test_ged_threshold(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--threshold", "0.5",
                    "--json")
    assert json.loads(out)["within_threshold"] is False
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--threshold", "100")
    assert "distance <= 100" in out and "yes" in out


def test_ged_budget_and_options(capsys, files):
    # (--memory none: the default cap, as `gedkit methods` shows the option's default)
    for extra in (["--memory", "512M"], ["--memory", "2G"], ["--memory", "none"],
                  ["--memory", "1e9"], ["-o", "memory=100000"], ["--timeout", "30"],
                  ["--costs", "constant"]):
        code, out, err = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--json", *extra)
        assert code == 0, err
        assert json.loads(out)["optimal"] is True


@pytest.fixture
def restarts_method(monkeypatch):
    """A temporary method declaring extra options, recording the options it was given."""
    seen = []

    class Restarts(AStar):
        name = "restarts-test"
        summary = "A* that records its options"
        options: ClassVar[dict] = {
            **AStar.options, "starts": Option(1, "starts"), "greedy": Option(False, "greedy"),
            "mode": Option("x", "mode"),
        }

        def solve(self, problem, budget):
            seen.append(dict(self.config))
            return super().solve(problem, budget)

    monkeypatch.setitem(gedkit.solvers.registry._SOLVERS._classes, Restarts.name, Restarts)
    return seen


def test_mces_text_says_why_an_answer_stopped_short():
    # what --json said alone: why the search stopped (a start-up that did not fit its limit
    # answered in 0.2 s of 1 s), what nga cut (its network not run), RASCAL's pair limit
    import dataclasses

    from gedkit.cli._mces import report

    proven = gedkit.mces("CCCC", "CCCO")
    assert "stopped by" not in report(proven) and "cut short" not in report(proven)
    short = dataclasses.replace(proven, upper_bound=proven.upper_bound + 1, stats={
        "stopped": "time limit: the search's start-up does not fit",
        "cut": ["network not run: the torch import need ~2.0 s"],
        "bond_pair_limit_exceeded": True})
    text = report(short, mapping=False)
    assert "stopped by    time limit: the search's start-up does not fit" in text
    assert "cut short     network not run" in text and "max_bond_pairs" in text


def test_ged_text_says_what_a_learned_method_cut():
    # gelato's "network not run" (its bounds then far looser) was in --json alone
    from gedkit.cli._ged import report

    r = gedkit.ged("CCO", "CCN")
    r.stats["cut"] = ["network not run: torch import ~2.1 s > 0.9 s left"]
    assert "cut short    network not run: torch import" in report(r, None)


def test_mces_method_options_as_flags(capsys, files):
    code, out, err = run(capsys, "mces", files["a"], files["b"], *LABEL_ARGS, "--method", "ga",
                         "--restarts", "2", "--kicks", "0", "--no-refine", "--json")
    assert code == 0, err
    assert json.loads(out)["method"] == "ga"
    code, _, err = run(capsys, "mces", files["a"], files["b"], "--method", "ga",
                       "--restarts", "-2")
    assert code == 2
    assert err.strip() == "gedkit: error: option restarts must be an integer > 0, got -2"


def test_method_options_as_flags(capsys, files, restarts_method):
    # "--starts 5" sits between the positionals: it must not swallow B
    code, out, err = run(capsys, "ged", files["a"], "--starts", "5", files["b"], *LABEL_ARGS,
                         "--method", "restarts-test", "--greedy", "--mode=fast", "--json")
    assert code == 0, err
    assert restarts_method == [
        {**AStar.defaults(), "starts": 5, "greedy": True, "mode": "fast"}
    ]
    assert json.loads(out)["method"] == "restarts-test"
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--method", "restarts-test",
                       "-o", "starts=-2", "-o", "greedy=no")
    assert code == 0, err
    assert restarts_method[-1]["starts"] == -2 and restarts_method[-1]["greedy"] is False


def test_undeclared_flags_are_usage_errors(capsys, files):
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--no-such-flag", "5")
    assert code == 2 and "unrecognized arguments: --no-such-flag 5" in err
    # the command's own usage, and a near miss named (of the command or of its method)
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--method", "bp_beam",
                       "--beam-widht", "3")
    assert code == 2 and err.startswith("gedkit ged: error: ")
    assert "--beam-widht 3 (did you mean --beam-width?); see gedkit ged --help" in err
    assert err.count("\n") == 1  # one line, as gedkit's own errors (the usage: 8 lines)
    code, _, err = run(capsys, "pairwise", files["a"], "--csvv", "x.csv")
    assert code == 2 and "(did you mean --csv?)" in err
    # one another method declares: that one is named
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--starts", "5")
    assert code == 2 and "--starts is an option of ipfp, not of auto" in err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["ged", "{tmp}/missing.json", "{a}"], ["missing.json"]),
        (["ged", "{a}", "{b}", "--method", "nope"], ["unknown method 'nope'"]),
        (["ged", "{a}", "{b}", "--costs", "nope"], ["unknown cost model 'nope'"]),
        # a near miss is named
        (["ged", "{a}", "{b}", "--method", "astr"], ["unknown method 'astr' (did you mean "
                                                     "'astar'?)"]),
        (["ged", "{a}", "{b}", "--costs", "chem2"], ["(did you mean 'chem_2'?)"]),
        # the other question's method is named as one
        (["ged", "{a}", "{b}", "--method", "ga"], ["unknown method 'ga' (it is an MCES method)"]),
        (["mces", "{a}", "{b}", "--method", "astar"], ["'astar' (it is a GED method)"]),
        (["ged", "{a}", "{b}", "--format", "jsn"], ["unknown format 'jsn' (did you mean "
                                                    "'json'?)"]),
        (["ged", "{a}", "{b}", "--memory", "lots"], ["--memory 'lots'"]),
        (["ged", "{a}", "{b}", "--memory", "0"], ["--memory '0'"]),
        (["ged", "{a}", "{b}", "-o", "starts=10"], ["no option(s) starts"]),
        (["ged", "{a}", "{b}", "-o", "starts"], ["KEY=VALUE"]),
        (["ged", "{a}", "{b}", "--timeout", "-1"], ["timeout"]),
        (["ged", "{a}", "{b}", "--node-label", "charge"], ["no attribute 'charge'"]),
        (["pairwise", "{a}", "--jobs", "0"], ["--jobs must be a non-zero integer"]),
        (["pairwise", "{a}", "--against", "{tmp}/missing.json"], ["missing.json"]),
        (["pairwise", "{a}", "{b}", "--method", "nope"], ["unknown method"]),
    ],
)
def test_errors_are_one_line(capsys, files, tmp_path, args, fragments):
    argv = [a.format(tmp=tmp_path, **files) for a in args]
    assert_one_line_error(*run(capsys, *argv), *fragments)


def test_bad_file_content_is_one_line(capsys, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_one_line_error(*run(capsys, "ged", str(bad), files["a"]), "bad.json")


# -- pairwise -----------------------------------------------------------------------------------

def test_pairwise_json_matches_api(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["both"], files["c"], *LABEL_ARGS, "--json")
    assert code == 0
    data = json.loads(out)
    assert data.keys() == {
        "rows", "columns", "method", "timeout", "distance", "lower_bound", "upper_bound",
        "optimal", "time", "status", "errors", "counts", "stopped", "interrupted",
    }
    graphs = read_all(files["both"], **LABELS) + read_all(files["c"], **LABELS)
    expected = gedkit.pairwise(graphs, progress=False)
    assert data["rows"] == data["columns"] == ["ethanol", "methylamine", "acetaldehyde"]
    np.testing.assert_array_equal(data["distance"], expected.distance)
    np.testing.assert_array_equal(data["lower_bound"], expected.lower_bound)
    np.testing.assert_array_equal(data["upper_bound"], expected.upper_bound)
    assert np.all(data["optimal"]) and data["method"] == "auto"
    assert np.all(np.array(data["status"]) == "optimal") and data["errors"] == []
    assert data["timeout"] == DEFAULT_TIMEOUT and data["interrupted"] is False
    assert data["counts"] == {"optimal": 6, "bounded": 0, "failed": 0, "pending": 0}


@pytest.mark.parametrize(
    ("given", "timeout"),
    [([], DEFAULT_TIMEOUT), (["--timeout", "none"], None), (["--timeout", "5"], 5.0)],
)
def test_pairwise_timeout(capsys, files, given, timeout):
    code, out, err = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS, *given, "--json")
    assert code == 0, err
    assert json.loads(out)["timeout"] == timeout


def test_pairwise_timeout_must_be_seconds(capsys, files):
    code, out, err = run(capsys, "pairwise", files["a"], "--timeout", "soon")
    assert code == 2 and out == "" and "'soon' is not a number of seconds or 'none'" in err


def test_pairwise_against_with_jobs(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["a"], "--against", files["b"], files["c"],
                       *LABEL_ARGS, "--jobs", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rows"] == ["ethanol"] and data["columns"] == ["methylamine", "acetaldehyde"]
    a = read(files["a"], **LABELS)
    assert data["distance"][0] == [
        gedkit.ged(a, read(files[k], **LABELS)).distance for k in ("b", "c")
    ]


def test_pairwise_table(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS)
    assert code == 0
    header, first, second, summary = out.splitlines()
    assert header.split() == ["ethanol", "methylamine"]
    assert first.split() == ["ethanol", "0", "3"] and second.split() == ["methylamine", "3", "0"]
    assert summary == f"3 pairs, time limit {DEFAULT_TIMEOUT:g} s per pair: all optimal"


def test_pairwise_csv_one_row_per_pair(capsys, files, tmp_path):
    target = tmp_path / "pairs.csv"
    code, out, _ = run(capsys, "pairwise", files["both"], *LABEL_ARGS, "--csv", target)
    assert code == 0 and str(target) in out and "3 pairs, time limit" in out
    text = target.read_bytes().decode()
    assert "\r" not in text and text.endswith("\n")
    rows = list(csv.DictReader(text.splitlines()))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [(r["row"], r["column"], r["distance"], r["lower_bound"], r["upper_bound"],
             r["optimal"], r["status"], r["error"]) for r in rows] == [
        ("ethanol", "ethanol", "0.0", "0.0", "0.0", "true", "optimal", ""),
        ("ethanol", "methylamine", "3.0", "3.0", "3.0", "true", "optimal", ""),
        ("methylamine", "methylamine", "0.0", "0.0", "0.0", "true", "optimal", ""),
    ]
    assert all(float(r["time"]) >= 0 for r in rows)
    code, out, err = run(capsys, "pairwise", files["both"], *LABEL_ARGS, "--csv", "-")
    untimed = [{**r, "time": ""} for r in csv.DictReader(out.splitlines())]
    assert untimed == [{**r, "time": ""} for r in rows] and "3 pairs, time limit" in err


def test_pairwise_failed_pairs_are_reported_and_the_rest_done(capsys, files, tmp_path):
    odd = tmp_path / "odd.json"  # its atoms are under "element", which CHEM_2 does not read
    odd.write_text(json.dumps(node_link({0: "C", 1: "N"}, [(0, 1, 1)], "odd")).replace(
        '"atom"', '"element"'))
    argv = ["pairwise", files["a"], files["b"], odd, "--node-label", "*", "--edge-label", "*",
            "--costs", "chem_2", "--timeout", "none"]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 1
    data = json.loads(out)
    status = np.array(data["status"])
    assert (status[2] == "failed").all() and (status[:, 2] == "failed").all()
    assert (status[:2, :2] == "optimal").all()
    assert data["upper_bound"][0][2] is None and data["lower_bound"][0][2] == 0
    assert [(e["row"], e["column"]) for e in data["errors"]] == [
        ("ethanol", "odd"), ("methylamine", "odd"), ("odd", "odd")]
    assert all("'element'" in e["error"] for e in data["errors"])
    failures = err.splitlines()
    assert len(failures) == 3 and failures[0].startswith("gedkit: pair ethanol vs odd failed: ")
    code, out, _ = run(capsys, *argv)
    assert code == 1 and "x failed" in out and "3 pairs" not in out and "6 pairs" in out
    assert out.splitlines()[-1] == "6 pairs, no time limit: 3 optimal, 3 failed"


def test_pairwise_option_errors_are_one_line(capsys, files):
    assert_one_line_error(*run(capsys, "pairwise", files["a"], "--timeout", "-1"), "timeout")
    assert_one_line_error(*run(capsys, "pairwise", files["a"], "--jobs", "0"), "--jobs")
    # an output that cannot be written is told before the matrix is computed (it was lost
    # after the whole job): the table would otherwise come first on stdout
    folder = Path(files["a"]).parent
    for target, says in ((folder / "none" / "x.csv", "does not exist"),
                         (folder, "is a folder"),
                         (Path(files["b"]) / "x.csv", "is a file, not a folder")):
        code, out, err = run(capsys, "pairwise", files["a"], files["b"], "--csv", target)
        assert_one_line_error(code, out, err, "--csv", says)
    # nor may an output be an input: the graphs would be lost to the table
    before = Path(files["b"]).read_bytes()
    for argv in (("pairwise", files["a"], files["b"], "--csv", files["b"]),
                 ("pairwise", files["a"] + "#0", "--against", files["b"], "--csv",
                  str(folder / "." / Path(files["b"]).name))):
        code, out, err = run(capsys, *argv)
        assert_one_line_error(code, out, err, "--csv", "is the input")
    assert Path(files["b"]).read_bytes() == before


def test_pairwise_ctrl_c_before_any_pair_leaves_an_earlier_csv(capsys, files, tmp_path,
                                                                monkeypatch):
    """Ctrl-C before the first pair is done: the CSV of an earlier run stays as it was (it
    was replaced by one of pending pairs only)."""
    import gedkit.pairwise as pairwise_module

    out = tmp_path / "pairs.csv"
    assert run(capsys, "pairwise", files["a"], files["b"], "--csv", str(out))[0] == 0
    before = out.read_text()

    def stopped_at_once(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pairwise_module, "_run", stopped_at_once)
    code, _, err = run(capsys, "pairwise", files["a"], files["b"], "--csv", str(out))
    assert code == 130 and out.read_text() == before and "left as it was" in err


def test_pairwise_a_second_ctrl_c_while_writing_keeps_the_pairs_done(capsys, files, tmp_path,
                                                                    monkeypatch):
    """A second Ctrl-C while an interrupted job's rows are written (4.45 million pending rows
    took 14 s): the pairs done are written alone, at once, not lost with the file."""
    import gedkit.cli._pairwise as command
    import gedkit.pairwise as pairwise_module

    real_pairwise, real_write = pairwise_module.pairwise, command._write_csv

    def stopped(*args, **kwargs):  # a job Ctrl-C stopped with one pair not done
        result = real_pairwise(*args, **kwargs)
        if result.status.size:  # (not the options' check on no graph)
            result.status[0, 1] = "pending"
            result.interrupted = True
        return result

    def second_ctrl_c(out, result, rows, cols, done_only=False):
        if not done_only:
            out.write("row,column\n")  # (a start, then Ctrl-C again)
            raise KeyboardInterrupt
        real_write(out, result, rows, cols, done_only=True)

    monkeypatch.setattr(pairwise_module, "pairwise", stopped)
    monkeypatch.setattr(command, "_write_csv", second_ctrl_c)
    out = tmp_path / "pairs.csv"
    code, stdout, _ = run(capsys, "pairwise", files["a"], files["b"], "--csv", str(out))
    assert code == 130
    assert "pending rows left out after a second Ctrl-C" in stdout
    rows = list(csv.DictReader(out.open()))
    assert rows and all(r["status"] != "pending" for r in rows)
    assert len(rows) == 2  # (a, a) and (b, b); (a, b) not done


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
@pytest.mark.parametrize(("jobs", "sig", "started"), [
    (jobs, sig, "default_int_handler") for jobs in ("1", "2")
    for sig in (signal.SIGINT, signal.SIGTERM)] + [
    (jobs, signal.SIGINT, "SIG_IGN") for jobs in ("1", "2")])
def test_pairwise_ctrl_c_writes_the_pairs_done(tmp_path, jobs, sig, started):
    """Ctrl-C, and SIGTERM alike (``timeout``, ``kill``: the CLI takes it as Ctrl-C, its
    workers not, or a pool could not end them), keeps and writes the pairs done; SIGINT
    also where the process started with it ignored (a background job of a script without
    job control: with two workers it ran to its end)."""
    # small graphs and one pair no search proves: Ctrl-C once that pair has run a while
    rng = np.random.default_rng(1)
    graphs = [random_graph(rng, n, p=0.3, name=f"s{n}") for n in (3, 4, 5)]
    graphs += [random_graph(rng, 30, p=0.2, name=f"big{k}") for k in range(2)]
    paths = [tmp_path / f"{g.name}.json" for g in graphs]
    for g, path in zip(graphs, paths, strict=True):
        gedkit.write(g, path)
    out = tmp_path / "pairs.csv"
    # the child is the CLI with the long-pair notice due after 3 s instead of 10 s (time for
    # the other worker to finish the small pairs, even on a loaded machine)
    # (and Ctrl-C as in a terminal: a process started in the background by a non-interactive
    # shell, as CI runners may start the tests, inherits SIGINT ignored)
    child = ("import signal, sys, gedkit.pairwise as p; p._LONG_PAIR = 3.0; "
             f"signal.signal(signal.SIGINT, signal.{started}); "
             "from gedkit.cli import main; sys.exit(main())")
    proc = subprocess.Popen(
        [sys.executable, "-c", child, "pairwise", *map(str, paths), "--node-label", "label",
         "--edge-label", "label", "--method", "dfs",
         "--timeout", "none", "--jobs", jobs, "--csv", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        seen = _read_until(proc, b"pair (3, 4) big0 vs big1 has run", seconds=120)
        assert b"has run" in seen, seen.decode()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    stderr = (seen + stderr).decode()
    assert proc.returncode == 130, stderr
    assert "interrupted; the pairs done are kept" in stderr and "Traceback" not in stderr
    assert str(out) in stdout.decode()
    rows = {(r["row"], r["column"]): r for r in csv.DictReader(out.open())}
    assert len(rows) == 15
    pending = sum(r["status"] == "pending" for r in rows.values())
    assert f"({15 - pending} pairs done, {pending} pending row" in stdout.decode()
    hard = rows["big0", "big1"]
    # the solve cut short (in this process, or its worker stopped) is not done: it is not
    # in an --out file either, and was 'bounded' under no time limit; the diagonal is done
    assert hard["status"] == "pending" and hard["upper_bound"] == "inf"
    assert rows["big1", "big1"]["status"] == "optimal"
    done = [key for key, r in rows.items() if r["status"] == "optimal"]
    assert len(done) >= 13
    names = {g.name: g for g in graphs}
    for a, b in done:
        assert float(rows[a, b]["distance"]) == gedkit.ged(names[a], names[b]).distance


def _read_until(proc: subprocess.Popen, text: bytes, seconds: float) -> bytes:
    """What the child writes on stderr until ``text`` appears (or it ends, or time is up)."""
    deadline = time.monotonic() + seconds
    seen = b""
    while text not in seen and proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], deadline - time.monotonic())
        if ready:
            seen += os.read(proc.stderr.fileno(), 4096)
    return seen


@pytest.mark.skipif(not (EXAMPLES / "caffeine.json").exists(), reason="examples not bundled")
def test_bundled_examples(capsys):
    a, b = EXAMPLES / "caffeine.json", EXAMPLES / "theobromine.json"
    code, out, _ = run(capsys, "ged", a, b, *LABEL_ARGS, "--json", "--timeout", "60")
    assert code == 0
    assert json.loads(out)["distance"] == gedkit.ged(read(a, **LABELS), read(b, **LABELS),
                                                     timeout=60).distance


# -- the installed entry point ------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("gedkit") is None, reason="gedkit entry point not installed")
def test_installed_entry_point(files):
    done = subprocess.run(["gedkit", "ged", files["a"], files["b"], *LABEL_ARGS, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["distance"] == 3
    done = subprocess.run(["gedkit", "ged", files["a"], "missing.json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.startswith("gedkit: error: ") and done.stderr.count("\n") == 1


def test_closed_pipe_is_not_an_error(tmp_path):
    # `gedkit ged A B --json | head -1` must end quietly with status 0: the edit path of two
    # 400-node graphs is far more than a pipe buffer, so gedkit is still writing when the
    # reader goes away
    rng = np.random.default_rng(0)
    paths = []
    for k in range(2):
        g = random_graph(rng, 400, p=0.02)
        paths.append(tmp_path / f"g{k}.json")
        gedkit.write(g, paths[-1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "gedkit.cli", "ged", *map(str, paths), "--method", "node",
         "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "error" not in err.lower() and "Traceback" not in err


def test_an_sqlite_error_from_any_command_is_one_line(capsys, monkeypatch):
    # a damaged file SQLite reads where gedkit did not expect it (a pairwise --out store, a
    # collection's page read late): one line, not SQLite's traceback
    import sqlite3

    from gedkit.cli import _info

    def damaged(args):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(_info, "run_methods", damaged)
    code, out, err = run(capsys, "methods")
    assert_one_line_error(code, out, err, "SQLite: database disk image is malformed")


def test_the_command_line_limit_covers_reading_the_graphs(capsys, monkeypatch):
    # as gedkit.ged's limit covers its reading: a 2,000-node GraphML file takes most of a
    # second to read, which the reported time left out and the solve did not give up
    import gedkit.api
    from gedkit.cli import _ged

    real_read, real_ged, given = _ged.read_pair, gedkit.api.ged, []

    def slow_read(args):
        time.sleep(0.3)
        return real_read(args)

    def ged(*args, **kwargs):
        given.append(kwargs["timeout"])
        return real_ged(*args, **kwargs)

    monkeypatch.setattr(_ged, "read_pair", slow_read)
    monkeypatch.setattr(gedkit.api, "ged", ged)
    code, out, _ = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--timeout", "5", "--json")
    assert code == 0 and given[0] <= 4.7 and json.loads(out)["time"] >= 0.3


def test_the_command_ends_without_teardown_but_with_its_exit_callbacks(tmp_path):
    """The process's own command line ends at once after its answer (the interpreter's
    teardown took 0.5 s after a solve that imported PyTorch), with its exit status, its
    output delivered and the exit callbacks run (a temporary folder's removal, a Dask
    client's close)."""
    marker = tmp_path / "callback ran"
    script = textwrap.dedent(f"""
        import atexit, pathlib, sys
        atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text("yes"))
        sys.argv = ["gedkit", "ged", "smiles:CCO", "smiles:CCN", "--timeout", "5"]
        from gedkit.cli import main
        sys.exit(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "distance     1 (optimal)" in done.stdout and marker.read_text() == "yes"
    bad = subprocess.run([sys.executable, "-c", script.replace('"5"', '"-1"')],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "timeout" in bad.stderr and marker.exists()


def test_ctrl_c_while_the_commands_are_imported_is_one_line(capsys, monkeypatch):
    """The commands' modules are imported as the parser is built, inside the handling of
    Ctrl-C: one that came while they were imported with gedkit.cli (the first 0.1 s of a
    process) printed a traceback."""
    import importlib

    import gedkit.cli

    def interrupted(name, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert gedkit.cli.main(["methods"]) == 130
    assert capsys.readouterr().err == "gedkit: interrupted\n"


def test_sigterm_is_never_swallowed_where_ctrl_c_is_ignored():
    # a background job of a non-interactive shell starts with SIGINT ignored: SIGTERM, which
    # the command line takes as Ctrl-C, must still end it outside a solve
    from gedkit.cli import _terminate_as_interrupt

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt):
            _terminate_as_interrupt(signal.SIGTERM, None)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_pairwise_names_two_graphs_of_one_name_by_their_files(capsys, tmp_path):
    # x.json in two folders: rows "x" and "x" could not be told apart; each is named by the
    # reference that reads it back (FILE, FILE#K in a file of several)
    paths = []
    unnamed = [node_link({0: "C", 1: atom}, [(0, 1, 1)]) for atom in ("O", "N")]
    for folder, data in zip(("one", "two"), unnamed, strict=True):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "x.json")
        paths[-1].write_text(json.dumps(data))
    code, out, _ = run(capsys, "pairwise", *map(str, paths), *LABEL_ARGS, "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["row"] for r in rows} == {str(p) for p in paths}


def test_an_option_of_another_method_says_which(capsys):
    # argparse said "unrecognized arguments" after the whole usage
    code, out, err = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--beam-width", "3")
    assert_one_line_error(code, out, err, "--beam-width is an option of bp_beam",
                          "add --method bp_beam")
    code, out, _ = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--method", "bp_beam",
                       "--beam-width", "3", "--json")
    assert code == 0 and json.loads(out)["distance"] == 1
    # gedkit ged's --steps (pictures) given to gedkit mces, where it is nga's: said so
    for method in ((), ("--method", "nga")):
        code, out, err = run(capsys, "mces", "smiles:CCO", "smiles:CCN", *method, "--steps")
        assert_one_line_error(code, out, err, "--steps",
                              "for step-by-step pictures use gedkit ged")


def test_pairwise_csv_naming_the_out_file_is_refused_up_front(capsys, files, tmp_path):
    """--csv writing over --out would lose every finished pair; by another path too."""
    out = tmp_path / "same.db"
    code, stdout, err = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS,
                            "--out", out, "--csv", out)
    assert_one_line_error(code, stdout, err, "is the --out results file")
    assert not out.exists()
    assert run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS, "--out", out)[0] == 0
    before = out.read_bytes()
    other = tmp_path / "." / "same.db"
    code, stdout, err = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS,
                            "--out", out, "--csv", other)
    assert_one_line_error(code, stdout, err, "is the --out results file")
    assert out.read_bytes() == before
    code, stdout, err = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS,
                            "--out", files["a"])
    assert_one_line_error(code, stdout, err, "--out", "is the input")


def test_pairwise_empty_out_is_named_as_given(capsys, files):
    code, stdout, err = run(capsys, "pairwise", files["a"], *LABEL_ARGS, "--out", "")
    assert_one_line_error(code, stdout, err, "--out needs a file name, got ''")


def test_pairwise_the_same_file_twice_gives_distinct_row_names(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["a"], files["a"], *LABEL_ARGS, "--csv", "-")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len({(r["row"], r["column"]) for r in rows}) == len(rows) == 3
    # named as the file given once is (its graph's name), the second numbered: they read
    # "a.json" and "a.json (2)", where once it read "ethanol"
    assert {r["row"] for r in rows} == {"ethanol", "ethanol (2)"}
    code, out, _ = run(capsys, "pairwise", files["a"], *LABEL_ARGS, "--csv", "-")
    assert code == 0 and [r["row"] for r in csv.DictReader(io.StringIO(out))] == ["ethanol"]
    # a file of several given twice likewise: each graph by its name
    code, out, _ = run(capsys, "pairwise", files["both"], files["both"], *LABEL_ARGS, "--json")
    assert code == 0 and json.loads(out)["rows"] == ["ethanol", "methylamine", "ethanol (2)",
                                                      "methylamine (2)"]


def test_mces_offers_what_it_compares(capsys):
    """``gedkit mces``: no ``--directed keep`` (MCES refuses every directed graph), and
    ``--ring-matches-ring-only`` as ``gedkit.mces`` takes it (only ``-o`` reached it)."""
    code, _, err = run(capsys, "mces", "CCO", "CCN", "--directed", "keep")
    assert code == 2 and "invalid choice: 'keep'" in err
    code, out, _ = run(capsys, "mces", "C1CCCCC1", "CCCCCC", "--json")
    assert code == 0 and json.loads(out)["num_edges"] == 5
    code, out, _ = run(capsys, "mces", "C1CCCCC1", "CCCCCC", "--json",
                       "--ring-matches-ring-only")
    assert code == 0 and json.loads(out)["num_edges"] == 0


def test_edit_path_shows_the_atom_attributes_that_differ(capsys):
    """[NH4+] -> N under atom and charge: the substitution's cost is the charge, and the
    path says so (it read "N -> N" at a cost of 1)."""
    code, out, _ = run(capsys, "ged", "[NH4+]", "N", "--node-label", "atom,charge")
    assert code == 0 and "N charge=1 -> N" in out


def test_a_smiles_read_with_a_missing_label_attribute_says_only_that(capsys):
    code, _, err = run(capsys, "ged", "[NH4+]", "N", "--node-label", "element")
    assert code == 2 and "no attribute 'element'" in err
    assert "neither an existing file nor a SMILES" not in err


def test_an_output_interrupted_while_written_is_left_as_it_was(tmp_path, capsys):
    """A CSV is written beside its name and put in place once whole: a second Ctrl-C while
    20,101 rows were written left 62 of them, in a file that looked complete."""
    from gedkit.cli._args import written

    out = tmp_path / "pairs.csv"
    out.write_text("old,rows\n")
    with pytest.raises(KeyboardInterrupt), written(str(out)) as f:
        f.write("new,")
        raise KeyboardInterrupt
    assert out.read_text() == "old,rows\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "pairs.csv"]
    assert "interrupted while writing" in capsys.readouterr().err
    with written(str(out)) as f:
        f.write("new,rows\n")
    assert out.read_text() == "new,rows\n" and len(list(tmp_path.iterdir())) == 1
    with written(os.devnull) as f:  # a device is written as it is
        f.write("anything")


def test_the_time_limit_note_also_where_the_limit_left_a_step_out(capsys):
    """An answer stopped by the limit before its end (its next step did not fit: 1.78 s of
    2) gets the note too; a proven one, or one stopped for another reason early, does not."""
    import argparse
    from types import SimpleNamespace

    from gedkit.cli._ged import finish

    args = argparse.Namespace(timeout=2.0)
    reached, early = "time limit of 2 s was reached", "the solve stopped at 0.8 s of the 2 s"
    for stopped, time_taken, said in (
            ("time limit: one expansion of the search does not fit", 1.88, reached),
            ("time limit", 1.95, reached), ("memory limit", 0.3, None),
            # stopped long before the limit: said as it is (a 2,000-node search stopped at
            # 1.3 s of 10 heard that the limit "was reached")
            ("time limit: one expansion of the search does not fit", 0.8, early)):
        result = SimpleNamespace(stats={"stopped": stopped}, optimal=False, time=time_taken)
        assert finish(result, args) == 0
        err = capsys.readouterr().err
        assert (said in err) if said else err == ""
        assert (reached in err) == (said == reached)


def test_an_exact_search_without_one_step_says_how_long_a_step_takes(capsys, tmp_path,
                                                                     monkeypatch):
    """An exact search whose first expansion is estimated past the time left answers an
    assignment's bounds at once; the note says how long a step would take and that ``auto``
    uses the time (it said a longer --timeout "may close the gap": a 2,000-node pair at 20 s
    stopped at 0.8 s, one step needing 27 s). The estimate is in the stats."""
    from gedkit.solvers.exact import tree_search

    monkeypatch.setattr(tree_search, "OPS_PER_SECOND", 10.0)  # every pair "large"
    a, b = "CC(=O)Nc1ccc(O)cc1CCCC", "CCOc1ccc(NC(C)=O)cc1CCN"
    code, out, err = run(capsys, "ged", a, b, "--method", "astar", "--timeout", "5")
    assert code == 0 and "upper bound, not proven optimal" in out
    assert "could not take a step within the 5 s limit: one expansion of it on this pair " \
        "takes about" in err
    assert "polished in the time left (--method auto tries more)" in err
    assert "may close" not in err
    code, out, _ = run(capsys, "ged", a, b, "--method", "astar", "--timeout", "5", "--json")
    answer = json.loads(out)
    assert answer["stats"]["expansion_seconds"] > 5
    # the time left polished the first map (its 20 s limit was left unused at 0.8 s)
    first = gedkit.ged(a, b, method="branch")
    assert answer["distance"] <= first.upper_bound and answer["lower_bound"] <= first.distance


def test_the_command_s_time_limit_counts_from_the_process_s_start():
    """The ``gedkit`` process's ``--timeout`` counts from the process's start: what ran
    before the command (the interpreter's start, imports; here a sleep) is inside it and in
    the reported time, as a user timing the command sees it."""
    script = ("import sys, time; time.sleep({}); from gedkit.cli import main; "
              "sys.argv = ['gedkit', 'ged', 'CCO', 'CCN', '--json', '--timeout', '5']; main()")
    done = subprocess.run([sys.executable, "-c", script.format(0.3)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert json.loads(done.stdout)["time"] >= 0.3
    # ... at most BEFORE_MAIN of it: a process another one exec'd (bash -c "... && gedkit
    # ged ...") has that one's start (the README's first command said 52.7 s)
    # (against the wall time after the sleep, not a constant: on a busy machine the command
    # alone took 4.7 s)
    command = f"sleep 2 && exec {shlex.quote(sys.executable)} -c {shlex.quote(script.format(0))}"
    tick = time.monotonic()
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                          timeout=120, check=True)
    after_sleep = time.monotonic() - tick - 2
    assert json.loads(done.stdout)["time"] <= after_sleep + 0.5 + 0.1


def test_a_bad_time_limit_is_said_before_the_graphs_are_read(capsys, tmp_path):
    """``gedkit ged A B --timeout -1``: the error alone, not after a note on the files'
    labels (the files were read first, then the option refused)."""
    noted = tmp_path / "two.json"
    noted.write_text(json.dumps({"nodes": [{"id": 0, "x": 1, "y": 2}], "links": []}))
    for command in ("ged", "mces"):
        code, out, err = run(capsys, command, noted, noted, "--timeout", "-1")
        assert code == 2 and out == ""
        assert err.startswith("gedkit: error: --timeout must be a number > 0") and (
            err.count("\n") == 1), err


def test_an_interrupted_matrix_on_stdout_says_its_summary_once(capsys, files, monkeypatch):
    """``--csv -`` stopped by Ctrl-C or SIGTERM: the summary was printed twice on stderr,
    once plain and once after "interrupted; the pairs done are kept"."""
    import gedkit.pairwise

    real = gedkit.pairwise.pairwise

    def stopped(*args, **kwargs):
        result = real(*args, **kwargs)
        result.interrupted = True
        return result

    monkeypatch.setattr(gedkit.pairwise, "pairwise", stopped)
    code, out, err = run(capsys, "pairwise", files["a"], files["b"], "--csv", "-")
    assert code == 130 and out.startswith("row,column")
    assert err.count("3 pairs") == 1 and "interrupted; the pairs done are kept" in err, err


def test_directed_and_self_loop_refusals_give_command_line_advice(capsys, tmp_path):
    """The command line's refusals of a directed graph against an undirected one, and of a
    self-loop in MCES, advise in its words (they advised networkx calls)."""
    import json

    arcs = tmp_path / "arcs.json"
    arcs.write_text(json.dumps({"directed": True, "nodes": [{"id": 0}, {"id": 1}],
                                "links": [{"source": 0, "target": 1}]}))
    loop = tmp_path / "loop.json"
    loop.write_text(json.dumps({"nodes": [{"id": 0}, {"id": 1}],
                                "links": [{"source": 0, "target": 0},
                                          {"source": 0, "target": 1}]}))
    code, _, err = run(capsys, "ged", str(arcs), "smiles:CC", "--directed", "keep")
    assert code == 2 and "(--directed ignore reads arcs as edges)" in err and "networkx" not in err
    code, _, err = run(capsys, "mces", str(loop), "smiles:CC")
    assert code == 2 and "remove them first from the file" in err and "networkx" not in err
    # MCES takes undirected graphs only: --directed keep, which it refuses, is not advised
    code, _, err = run(capsys, "mces", str(arcs), "smiles:CC")
    assert code == 2 and "is directed, and MCES takes undirected graphs only; pass " \
        "--directed ignore" in err and "keep" not in err
    with pytest.raises(gedkit.GraphError, match=r"MCES takes undirected graphs only; .*"
                                         r"directed='ignore'"):
        gedkit.mces(arcs, "CC")
