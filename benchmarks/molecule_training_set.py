"""Write the training molecules of the shipped ``molecules`` and ``chem_2`` models as one file.

IAM AIDS and Mutagenicity molecules of at most ``--max-nodes`` atoms (every split: the larger
molecules the generalisation benchmark tests on never qualify), element symbols made uniform
(AIDS pads them with blanks, Mutagenicity names the attribute ``chem``), as a node-link JSON
collection that ``gedkit train gelato --data`` reads with ``--node-label symbol --edge-label
valence``:

    python benchmarks/molecule_training_set.py --out mol16.json
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _iam import DEFAULT_DATA
from gelato_eval import load_molecules

import gedkit.io


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder holding IAM/ (default: shared/data)")
    parser.add_argument("--max-nodes", type=int, default=16)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    graphs = [g for gs in load_molecules(args.data).values() for g in gs
              if g.n <= args.max_nodes]
    gedkit.io.write(graphs, args.out, node_label="symbol", edge_label="valence")
    print(f"wrote {len(graphs)} molecules of at most {args.max_nodes} atoms to {args.out}")


if __name__ == "__main__":
    main()
