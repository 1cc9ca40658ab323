"""Pairwise under a memory cap (issue 12): does a job's process grow by no more than
``memory=`` (+10%)? And what does writing a large result as JSON cost in memory?

Each case runs in a fresh process (start-ups included, as a user's first job has them) and
polls the process's resident size every 2 ms; the growth is its peak less its size just before
``gedkit.pairwise``. Cases: two labelled random graphs of N nodes (``networkx.gnm_random_graph``
with 1.5 N edges, labels C/N/O), alone and with two small molecules, at each cap. Then the
JSON of a synthetic K x K result written by ``to_json`` (the whole text, as the command line
made it before session 58) and by ``write_json`` (a row at a time, as ``gedkit pairwise
--json`` writes it now), each in a fresh process.

    python benchmarks/pairwise_memory.py [--nodes 1000,2000] [--caps 160,300,400,600]
        [--timeout 1] [--json-size 3000]

Prints a Markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap

CASE = textwrap.dedent("""
    import sys
    import networkx as nx
    import gedkit
    from gedkit.testing.resident import peak_growth

    nodes, cap, timeout, with_molecules = (int(sys.argv[1]), int(sys.argv[2]) << 20,
                                           float(sys.argv[3]), sys.argv[4] == "1")

    def labelled(seed):
        g = nx.gnm_random_graph(nodes, nodes * 3 // 2, seed=seed)
        nx.set_node_attributes(g, {v: "CNO"[v % 3] for v in g}, "label")
        return gedkit.Graph.from_networkx(g, node_label="label")

    graphs = [labelled(1), labelled(2)]
    if with_molecules:
        graphs += [gedkit.from_smiles("CCOc1ccccc1"), gedkit.from_smiles("CCNc1ccccc1C")]
    with peak_growth() as grown:
        m = gedkit.pairwise(graphs, timeout=timeout, memory=cap, progress=False)
    stopped = "; ".join(f"{n}: {why}" for why, n in m.stopped.items()) or "-"
    print(grown[0] >> 20, stopped)
""")

JSON = textwrap.dedent("""
    import os, resource, sys
    import numpy as np
    from gedkit.pairwise import PairwiseResult

    n, how = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(0)
    i, j = np.triu_indices(n)
    result = PairwiseResult(
        lower_bound=rng.random((n, n)) * 10, upper_bound=rng.random((n, n)) * 10 + 10,
        time=rng.random((n, n)), status=np.full((n, n), "bounded", dtype="<U8"),
        method="auto", pairs=np.stack([i, j], axis=1), timeout=1.0, node_maps=None, out=None)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(os.devnull, "w") as out:
        if how == "to_json":
            out.write(result.to_json() + "\\n")
        else:
            result.write_json(out)
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) >> 10)
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", default="1000,2000")
    parser.add_argument("--caps", default="160,300,400,600", help="MiB")
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--json-size", type=int, default=3000)
    args = parser.parse_args()
    print("| graphs | cap (MiB) | growth (MiB) | growth / cap | stopped |")
    print("|---|---:|---:|---:|---|")
    for nodes in map(int, args.nodes.split(",")):
        for molecules in ("0", "1"):
            for cap in map(int, args.caps.split(",")):
                out = subprocess.run(
                    [sys.executable, "-c", CASE, str(nodes), str(cap), str(args.timeout),
                     molecules], capture_output=True, text=True, check=True).stdout.split(" ", 1)
                what = f"2 x {nodes:,} nodes" + (" + 2 molecules" if molecules == "1" else "")
                print(f"| {what} | {cap} | {out[0]} | {int(out[0]) / cap:.2f} | "
                      f"{out[1].strip()} |", flush=True)
    if args.json_size:
        print()
        print(f"JSON of a {args.json_size:,} x {args.json_size:,} result, the process's peak "
              "growth while writing:")
        for how in ("to_json", "write_json"):
            out = subprocess.run([sys.executable, "-c", JSON, str(args.json_size), how],
                                 capture_output=True, text=True, check=True).stdout
            print(f"- `{how}`: {int(out):,} MiB", flush=True)


if __name__ == "__main__":
    main()
