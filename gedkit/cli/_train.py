"""``gedkit train gelato``: label graph pairs with the exact solver, train, validate, and
write the weights with a model card.

The graphs of ``--data`` (within ``--min-nodes`` and ``--max-nodes``, without isomorphic
duplicates and without graphs isomorphic to one of ``--exclude``) are split into training
and validation graphs; training pairs join two training graphs, validation pairs a validation
graph with any other, so every validation pair holds a graph the network never saw. Labels are
cached in ``OUT.pairs.jsonl`` (reused by any later run with the same data, labels, costs and
time limit) and training checkpoints in ``OUT.ckpt`` (``--resume`` continues from it).
"""

from __future__ import annotations

import argparse
import datetime
import errno
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gedkit import __version__
from gedkit.cli._args import check_output
from gedkit.cli._inputs import add_input_arguments, read_file, read_options
from gedkit.errors import OptionError, counted

if TYPE_CHECKING:  # NumPy loads with the command, not with the parser (gedkit --help)
    import numpy as np

    from gedkit.graph import Graph

_DEFAULT_TIMEOUT = 10.0
#: the network's default width and layers
_WIDTH, _LAYERS = 128, 5


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a learned solver (gelato)",
        description="Train the learned GED solver on graph pairs it labels itself with the "
        "exact solver; write the weights and a model card (OUT with .json).",
        epilog="Exit status: 0 when the weights are written, 2 for bad input, 130 after "
        "Ctrl-C or SIGTERM (while labelling: the pairs labelled are kept and the same command "
        "goes on from them; while training: the best epoch finished is written, and --resume "
        "goes on).",
        allow_abbrev=False,
    )
    parser.add_argument("learner", choices=["gelato"], help="what to train")
    parser.add_argument("--data", nargs="+", required=True, metavar="FILE",
                        help="graph files (collections too); pairs are drawn among their graphs")
    parser.add_argument("--out", required=True, metavar="MODEL.pt", help="weights file to write")
    parser.add_argument("--costs", default="uniform", help="cost model (see 'gedkit costs')")
    add_input_arguments(parser, undirected="gelato compares undirected graphs only")
    data = parser.add_argument_group("training pairs")
    data.add_argument("--pairs", type=int, default=1000, metavar="N",
                      help="training pairs (default 1000)")
    data.add_argument("--val-pairs", type=int, metavar="N",
                      help="validation pairs (default: a tenth of --pairs, at least 1)")
    data.add_argument("--max-nodes", type=int, metavar="N",
                      help="leave out graphs with more nodes")
    data.add_argument("--min-nodes", type=int, metavar="N",
                      help="leave out graphs with fewer nodes (e.g. to fine-tune on the largest)")
    data.add_argument("--exclude", nargs="+", metavar="FILE",
                      help="graphs (e.g. a test set) no training graph may be isomorphic to")
    data.add_argument("--exact-timeout", type=float, default=_DEFAULT_TIMEOUT, metavar="S",
                      help=f"seconds per pair for the exact solver (default {_DEFAULT_TIMEOUT:g})")
    data.add_argument("--label-method", default="exact", metavar="M",
                      help="solver that labels the pairs (default exact); a heuristic such as "
                      "ipfp gives cheap, noisy labels (use with --keep-unproven)")
    data.add_argument("--keep-unproven", action="store_true",
                      help="also train on maps the exact solver did not prove optimal in time")
    model = parser.add_argument_group("network and optimisation")
    model.add_argument("--epochs", type=int, default=30, metavar="E",
                       help="passes over the training pairs (default 30)")
    # (None: not given, so that --init's network, whose width and layers are kept, is not
    # said to differ from the defaults)
    model.add_argument("--width", type=int, help=f"hidden width (default {_WIDTH})")
    model.add_argument("--layers", type=int, help=f"GINE layers (default {_LAYERS})")
    model.add_argument("--batch-size", type=int, default=64, metavar="B",
                       help="states per step (default 64)")
    model.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate (default 0.001)")
    model.add_argument("--states-per-pair", type=int, default=40, metavar="S",
                       help="partial states drawn from each labelled pair (default 40)")
    model.add_argument("--val-k", type=int, default=8, metavar="K",
                       help="decoding branches during validation (default 8)")
    model.add_argument("--seed", type=int, default=0,
                       help="of the pairs drawn and the weights (default 0)")
    model.add_argument("--lr-schedule", choices=["constant", "cosine"], default="constant",
                       help="constant, or a cosine decay to a twentieth of --lr over the epochs")
    model.add_argument("--ranking", type=float, default=0.0, metavar="W",
                       help="weight of a listwise term that trains each state's best-scored "
                       "choice (default 0: the published loss; 1 worked well)")
    model.add_argument("--init", metavar="MODEL.pt",
                       help="start from these trained weights, a file or a shipped model's name "
                       "such as molecules (fine-tuning); their labels, width and layers are kept")
    model.add_argument("--device", default="cpu",
                       help="where to train: cpu (default), cuda, cuda:N, mps or auto")
    again = model.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="continue training from OUT.ckpt; with no OUT.ckpt yet (and no "
                       "OUT), start from epoch 1 and say so")
    again.add_argument("--overwrite", action="store_true",
                       help="train afresh although OUT or OUT.ckpt exists, replacing them and "
                       "the model card (without this or --resume, an existing one is refused)")
    parser.set_defaults(run=run, command_parser=parser)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from gedkit.nn import require_torch

    torch = require_torch("gedkit train gelato")
    from gedkit.costs import get as get_costs
    from gedkit.learned.data import distinct_graphs, label_pairs
    from gedkit.learned.features import Vocabulary
    from gedkit.learned.model import load, resolve_device
    from gedkit.learned.train import TrainConfig, check_checkpoint, train, write_model

    _check(args)
    resolve_device(args.device)  # before the labelling: an unusable device fails at once
    start = _start(args.init, load) if args.init else None
    _architecture(args, start)
    out = Path(args.out)
    costs = get_costs(args.costs)
    graphs, counts = _graphs(args)
    keep = distinct_graphs(graphs, _read(args.exclude or [], args))
    counts["duplicates_or_excluded"] = len(graphs) - len(keep)
    graphs = [graphs[i] for i in keep]
    rng = np.random.default_rng(args.seed)
    val_pairs = max(1, args.pairs // 10) if args.val_pairs is None else args.val_pairs
    train_idx, val_idx = _split(len(graphs), val_pairs > 0, rng)
    pairs = _sample(rng, train_idx, train_idx, args.pairs)
    held_out = _sample(rng, val_idx, np.arange(len(graphs)), val_pairs) if val_pairs else []
    for what, flag, asked, got in (("training", "--pairs", args.pairs, len(pairs)),
                                   ("validation", "--val-pairs", val_pairs, len(held_out))):
        if got < asked:  # (10,000 asked of 12 graphs trained on 110, without a word)
            print(f"gedkit: note: {flag} {asked:,}: the graphs give {counted(got, what + ' pair')}"
                  " only", file=sys.stderr)
    counts.update(graphs_used=len(graphs), train_graphs=len(train_idx), val_graphs=len(val_idx))

    header = {
        "files": [str(Path(f).resolve()) for f in args.data],
        "sizes": [Path(f).stat().st_size for f in args.data],
        "exclude": [str(Path(f).resolve()) for f in args.exclude or []],
        "read": read_options(args), "max_nodes": args.max_nodes, "costs": args.costs,
        "exact_timeout": args.exact_timeout,
        **({"min_nodes": args.min_nodes} if args.min_nodes else {}),  # older caches stay valid
    }
    spec = read_options(args)
    vocab = Vocabulary.fit(  # a single label attribute also names it within dict labels
        (graphs[i] for i in train_idx),
        node_attr=_single(spec.get("node_label")), edge_attr=_single(spec.get("edge_label")),
    )
    config = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                         width=args.width, layers=args.layers,
                         states_per_pair=args.states_per_pair, val_k=args.val_k, seed=args.seed,
                         lr_schedule=args.lr_schedule, ranking=args.ranking,
                         device=args.device)
    checkpoint = _siblings(out)["checkpoint"]
    drawn = _drawn_from(args, header, val_pairs)
    if args.resume and checkpoint.exists():
        # before the labelling: a resume refused after it had replaced the label cache made
        # with other data (72 labels lost for a mistyped --data)
        check_checkpoint(checkpoint, vocab, config, start, drawn)
    everything = pairs + held_out
    problems = [costs.compile(graphs[i], graphs[j]) for i, j in everything]
    cache = _siblings(out)["label cache"]
    try:
        labelled = label_pairs(
            problems, [[int(i), int(j)] for i, j in everything], timeout=args.exact_timeout,
            method=args.label_method, cache=cache, header=header,
            progress=lambda todo: _bar(todo, "labelling", "pair"),
            note=lambda line: print(f"gedkit: note: {line}", file=sys.stderr),
        )
    except KeyboardInterrupt:
        kept = max(0, _lines(cache) - 1)  # its first line is the header
        print(f"gedkit: interrupted while labelling; {counted(kept, 'labelled pair')} kept in "
              f"{cache} (the same command goes on from them)",
              file=sys.stderr)
        return 130
    usable = [lp.optimal or args.keep_unproven for lp in labelled[: len(pairs)]]
    train_set = [lp for lp, ok in zip(labelled[: len(pairs)], usable, strict=True) if ok]
    val_set = labelled[len(pairs):]
    _note_dropped(len(pairs) - len(train_set), len(pairs), args)
    if not train_set:
        if args.label_method != "exact":  # (raising --exact-timeout cannot help a heuristic)
            raise OptionError(f"--label-method {args.label_method} proved no training pair's "
                              "label optimal; pass --keep-unproven to train on its maps")
        raise OptionError("no training pair was solved to optimality in --exact-timeout; raise "
                          "it, lower --max-nodes, or pass --keep-unproven")
    _note_unvalidated(val_set, args.label_method)
    if args.resume and not checkpoint.exists():
        print(f"gedkit: note: no checkpoint at {checkpoint}: starting from epoch 1",
              file=sys.stderr)
    try:
        trained = train(train_set, val_set, vocab, config, checkpoint=checkpoint,
                        resume=args.resume and checkpoint.exists(), start=start, data=drawn,
                        progress=True,
                        log=lambda line: print(line, file=sys.stderr))
    except KeyboardInterrupt:  # before the first epoch ended: nothing to write
        print("gedkit: interrupted while training; no epoch was finished", file=sys.stderr)
        return 130
    vocab = trained.net.vocab

    proven = sum(lp.optimal for lp in labelled)
    card = {
        "model": "gelato",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gedkit": __version__,
        "torch": torch.__version__,
        "costs": args.costs,
        "labels": {"node_label": spec.get("node_label"), "edge_label": spec.get("edge_label"),
                   "node_vocabulary": [repr(k) for k in vocab.nodes],
                   "edge_vocabulary": [repr(k) for k in vocab.edges]},
        "data": {
            "files": file_summary(args.data),
            "exclude": file_summary(args.exclude or []),
            "max_nodes": args.max_nodes,
            "min_nodes": args.min_nodes,
            **counts,
            "train_pairs": len(train_set), "val_pairs": len(val_set),
            "labels_proven_optimal": proven, "labels_unproven": len(labelled) - proven,
            "unproven_used": args.keep_unproven, "exact_timeout": args.exact_timeout,
            "label_method": args.label_method,
            "label_seconds": sum(lp.seconds for lp in labelled),
            "training_states": trained.n_states,
        },
        "network": {"width": trained.net.width, "layers": trained.net.n_layers,
                    "parameters": trained.net.size},
        "training": {**asdict(config), "width": trained.net.width,
                     "layers": trained.net.n_layers, "init": args.init,
                     "wall_seconds": trained.seconds,
                     "peak_memory_mb": _peak_memory_mb(),
                     "best_epoch": trained.best_epoch},
        "metrics": trained.metrics,
        "history": trained.history,
    }
    if trained.interrupted:
        card["training"]["interrupted_after_epoch"] = len(trained.history)
    card_path = write_model(trained.net, out, card)
    print(f"wrote {out} ({trained.net.size} parameters) and its model card {card_path}")
    if trained.interrupted:
        # the best finished epoch is written: Ctrl-C kept it rather than losing the training
        print(f"gedkit: interrupted after epoch {len(trained.history)} of {args.epochs}: "
              f"{out} holds the best of them (epoch {trained.best_epoch}); the same command "
              f"with --resume{' in place of --overwrite' if args.overwrite else ''} goes on "
              f"from {checkpoint}", file=sys.stderr)
        return 130
    if trained.metrics.get("val_exact_hit") is not None:
        print(f"validation: exact hits {100 * trained.metrics['val_exact_hit']:.1f}%, nMAE "
              f"{100 * trained.metrics['val_nmae']:.2f}% on {trained.metrics['val_pairs']} pairs")
    return 0


def _drawn_from(args: argparse.Namespace, header: dict, val_pairs: int) -> dict:
    """The options that decide the training and validation pairs, their labels and how an
    epoch is validated, by flag: a resume with another value of one is refused (a changed
    --pairs was accepted, its best epoch then picked across different validation sets).
    ``header``: the label cache's (the files, their sizes, the reading options)."""
    read = {"--" + key.replace("_", "-"): value for key, value in header["read"].items()}
    return {"--data": header["files"], "--data (file sizes)": header["sizes"],
            "--exclude": header["exclude"], **read, "--costs": args.costs,
            "--max-nodes": args.max_nodes, "--min-nodes": args.min_nodes,
            "--pairs": args.pairs, "--val-pairs": val_pairs, "--seed": args.seed,
            "--label-method": args.label_method, "--exact-timeout": args.exact_timeout,
            "--keep-unproven": args.keep_unproven, "--states-per-pair": args.states_per_pair,
            "--val-k": args.val_k}


def _check(args: argparse.Namespace) -> None:
    for name in ("pairs", "epochs", "width", "layers", "batch_size", "states_per_pair", "val_k"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise OptionError(f"--{name.replace('_', '-')} must be at least 1")
    if args.val_pairs is not None and args.val_pairs < 0:
        raise OptionError("--val-pairs must be at least 0")
    if args.max_nodes is not None and args.max_nodes < 1:
        raise OptionError("--max-nodes must be at least 1")
    if args.min_nodes is not None and args.min_nodes > (args.max_nodes or args.min_nodes):
        raise OptionError("--min-nodes must not exceed --max-nodes")
    from gedkit.solvers import available

    if args.label_method not in available():
        raise OptionError(f"--label-method must be a GED method ({', '.join(available())}), "
                          f"got {args.label_method!r}")
    for flag, value in (("--exact-timeout", args.exact_timeout), ("--lr", args.lr)):
        if not 0 < value < float("inf"):
            raise OptionError(f"{flag} must be a positive number, got {value}")
    if not 0 <= args.ranking < float("inf"):
        raise OptionError(f"--ranking must be a finite weight of at least 0, got {args.ranking}")
    check_output(args.out, "--out", args)  # before the labelling and the training it would lose
    _check_outputs(Path(args.out))
    _check_again(Path(args.out), args.resume, args.overwrite)
    if args.init:
        _check_init(args.init)


def _siblings(out: Path) -> dict[str, Path]:
    """The files a training writes beside OUT, by what they are."""
    return {"model card": out.with_suffix(".json"),
            "checkpoint": out.with_name(out.name + ".ckpt"),
            "label cache": out.with_name(out.name + ".pairs.jsonl")}


def _check_outputs(out: Path) -> None:
    """Every file the training writes can be: found now, not after the labelling or, for the
    model card, after the weights were written."""
    if out.suffix.lower() == ".json":
        # the card is OUT with .json: it replaced the weights (exit 0, no weights left)
        raise OptionError(f"--out {out}: the weights go in a .pt file, the model card beside "
                          f"it with .json; give --out {out.with_suffix('.pt').name}")
    for what, path in _siblings(out).items():
        if path.is_dir():
            raise OptionError(f"--out {out}: its {what} {path} is a folder; move it away or "
                              "give another --out")
    try:  # the folder's permissions can say yes where writing fails (/proc, a read-only mount)
        with tempfile.TemporaryFile(dir=out.parent):
            pass
    except OSError as exc:
        # (/proc answers "No such file or directory" of the file it would not create)
        why = "" if exc.errno == errno.ENOENT else f" ({exc.strerror or exc})"
        raise OptionError(f"--out {out}: cannot create files in {str(out.parent)!r}{why}") \
            from None


def _check_again(out: Path, resume: bool, overwrite: bool) -> None:
    """Refuse to replace a trained model (or the checkpoint of one) unasked."""
    checkpoint = _siblings(out)["checkpoint"]
    if overwrite or (resume and checkpoint.exists()):
        return
    if resume:  # no checkpoint: training from epoch 1 would replace OUT
        if out.exists():
            raise OptionError(f"--resume: there is no checkpoint {checkpoint} to go on from, "
                              f"and {out} exists; pass --overwrite to train afresh over it")
        return
    if checkpoint.exists():
        raise OptionError(f"{checkpoint} exists (a training of {out}): pass --resume to go on "
                          "from it, or --overwrite to train afresh over it")
    if out.exists():
        raise OptionError(f"{out} exists: pass --overwrite to train afresh over it (and its "
                          "model card), or give another --out")


def _check_init(init: str) -> None:
    """--init names shipped weights or a Gelato weights file (checked without torch)."""
    from gedkit.learned import FORMAT
    from gedkit.learned.solver import shipped_models
    from gedkit.nn import check_weights_file

    if init in shipped_models():
        return
    if not Path(init).is_file():
        raise OptionError(f"--init {init}: no such file; name shipped weights "
                          f"({', '.join(shipped_models())}) or a weights file written by "
                          "'gedkit train gelato'")
    check_weights_file(init, FORMAT, "a Gelato weights file")


def _architecture(args: argparse.Namespace, start: Any) -> None:
    """``args.width`` and ``args.layers``: the --init network's (a note when others were
    given: they were kept without a word), else as given, else the defaults."""
    if start is not None:
        other = [f"{flag} {given}" for flag, given, kept in (
            ("--width", args.width, start.width), ("--layers", args.layers, start.n_layers))
            if given is not None and given != kept]
        if other:
            print(f"gedkit: note: {' '.join(other)} left aside: the --init network's width "
                  f"{start.width} and {counted(start.n_layers, 'layer')} are kept",
                  file=sys.stderr)
        args.width, args.layers = start.width, start.n_layers
    args.width = _WIDTH if args.width is None else args.width
    args.layers = _LAYERS if args.layers is None else args.layers


def _start(init: str, load: Callable[[Any], Any]) -> Any:
    """The network --init names: shipped weights by name, else the file."""
    from importlib import resources

    from gedkit.learned.solver import shipped_models

    if init in shipped_models():
        with resources.as_file(shipped_models()[init]) as path:
            return load(path)
    return load(init)


def _note_dropped(dropped: int, of: int, args: argparse.Namespace) -> None:
    """Say how many training pairs are left out for want of a proven-optimal label (29 of
    330 were, said only in the model card)."""
    if 0 < dropped < of:  # (none kept at all is an error)
        how = ("; --keep-unproven trains on their maps, a larger --exact-timeout proves more"
               if args.label_method == "exact" else "; --keep-unproven trains on its maps")
        print(f"gedkit: note: {dropped:,} of {counted(of, 'training pair')} left out: not "
              f"proven optimal by --label-method {args.label_method}{how}", file=sys.stderr)


def _note_unvalidated(val_set: list, method: str) -> None:
    """Say once that validation pairs without a proven-optimal label validate nothing (every
    epoch would print no validation, and the best epoch would silently be the lowest loss)."""
    if not val_set or any(lp.optimal for lp in val_set):
        return
    why = (f"--label-method {method} proved none optimal" if method != "exact"
           else "none was proven optimal within --exact-timeout")
    print(f"gedkit: note: no validation: {counted(len(val_set), 'validation pair')}, none with "
          f"a proven-optimal label ({why}); the epoch kept is the one of lowest training loss",
          file=sys.stderr)


def _lines(path: Path) -> int:
    """Lines of the file at ``path`` (0 when there is none)."""
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def _read(files: list[str], args: argparse.Namespace) -> list[Graph]:
    from gedkit.io.common import undirected_only

    # (the way out a directed graph is offered is --directed ignore: train has no 'keep')
    with undirected_only("training"):
        return [g for f in files for g in read_file(f, args)]


def _graphs(args: argparse.Namespace) -> tuple[list[Graph], dict]:
    graphs = _read(args.data, args)
    read = len(graphs)
    if args.max_nodes is not None:
        graphs = [g for g in graphs if g.n <= args.max_nodes]
    counts = {"graphs_read": read, "graphs_within_max_nodes": len(graphs)}
    if args.min_nodes is not None:
        graphs = [g for g in graphs if g.n >= args.min_nodes]
        counts["graphs_within_min_nodes"] = len(graphs)
    return graphs, counts


def _split(n: int, validate: bool, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(training graphs, validation graphs): a tenth (at least one) validates if asked."""
    import numpy as np

    order = rng.permutation(n)
    n_val = max(1, round(0.1 * n)) if validate else 0
    if n - n_val < 2:
        # (it said "at least two (three with validation pairs)" of two graphs, validation
        # on by default, without saying so)
        need = ("three: two to train on and one for the validation pairs (--val-pairs 0 "
                "leaves those out)" if validate else "two")
        raise OptionError(
            f"only {counted(n, 'distinct graph')} remain{'s' if n == 1 else ''} after "
            f"--min/max-nodes, duplicates and --exclude; this training needs at least {need}"
        )
    return np.sort(order[n_val:]), np.sort(order[:n_val])


def _sample(rng: np.random.Generator, rows: np.ndarray, cols: np.ndarray,
            count: int) -> list[tuple[int, int]]:
    """Up to ``count`` distinct ordered pairs (i, j), i in rows, j in cols, i != j."""
    import numpy as np

    total = len(rows) * len(cols) - len(np.intersect1d(rows, cols))
    if total <= 4 * count:
        every = [(int(i), int(j)) for i in rows for j in cols if i != j]
        chosen = rng.permutation(len(every))[:count]
        return [every[k] for k in chosen]
    seen: dict[tuple[int, int], None] = {}
    while len(seen) < count:
        i, j = int(rng.choice(rows)), int(rng.choice(cols))
        if i != j:
            seen.setdefault((i, j))
    return list(seen)


def file_summary(files: list[str], examples: int = 3) -> dict:
    """What a model card says about its input files: how many, in which folders, a few names
    (a card listing thousands of file names would outweigh the weights).

    >>> file_summary(["a/x.gxl", "a/y.gxl", "b/z.gxl"], examples=2)
    {'count': 3, 'folders': ['a', 'b'], 'examples': ['x.gxl', 'y.gxl']}
    """
    paths = [Path(f) for f in files]
    return {"count": len(paths), "folders": sorted({p.parent.name for p in paths}),
            "examples": [p.name for p in paths[:examples]]}


def _single(spec: Any) -> str | None:
    return spec if isinstance(spec, str) and spec != "*" else None


def _peak_memory_mb() -> float | None:
    try:
        import resource
    except ImportError:  # not on this system
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _bar(items: list, desc: str, unit: str) -> Iterator:
    """``items`` counted on stderr as they are gone through: a bar on a terminal, a line
    every 10 s elsewhere (labelling 1,000 pairs at up to 10 s each said nothing into a log
    file)."""
    from gedkit.search.progress import GraphCounter

    shown = GraphCounter(True, desc, unit=unit, total=len(items))
    try:
        for done, item in enumerate(items):
            shown.update(done)
            yield item
        shown.update(len(items))
    finally:
        shown.close()

