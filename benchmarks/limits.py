"""Does every method hold its time and memory limits, at every size, from a fresh process?

Runs every registered method, GED (``gedkit.methods()``) and MCES (``gedkit.mces.methods()``;
those with the ``connected`` option also as ``mces:NAME+connected``), on every size of
``--sizes``, kind of pair of ``--kinds`` (see ``_limit_pairs.py``) and timeout of
``--timeouts``, each cell in a fresh Python process that imports gedkit, reads the
pair and makes one ``gedkit.ged`` / ``gedkit.mces`` call (uniform costs). Per cell it records
the call's wall time (numba compilation and the torch import included when the call triggers
them), the child's whole-process wall time, the RSS just before the call and the child's peak
RSS (``ru_maxrss``), the answer (GED: lower and upper bound; MCES: edges found and upper bound)
and ``optimal``. A cell PASSes when

- the call's wall time is at most ``timeout + max(0.5 s, 10% of timeout)``,
- the child's peak RSS is at most ``--max-rss`` (1.5 GiB), and with ``--memory M`` (passed as
  ``memory=`` to every call) its growth during the call is at most ``1.1 * M``,
- the bounds are in order and the child exits cleanly with no traceback on its output.

A method that rejects the input on purpose (a :class:`gedkit.errors.GedkitError`, e.g.
``rascal`` on non-molecules) is "n/a" with its message; any other exception, a crash, a
traceback or a kill is a FAIL with the last line the child wrote. A child is killed at
``timeout + 60 s`` or when its process tree's RSS passes ``--kill-rss`` (the machine is shared).

Cells run one at a time (``--jobs 1`` only, so timings do not disturb each other), and after
each the harness waits for what the child left behind (a background compilation, say) to end,
at most ``--linger`` seconds, then kills it. ``--cold`` gives each cell a fresh, empty
``NUMBA_CACHE_DIR``, so the call compiles what it uses. Results are appended to ``--out``
(JSON lines) as cells finish; ``--resume`` skips the cells already there. ``--markdown`` prints
the RESULTS.md section: per kind, timeout and mode one table (methods × sizes, cells
``wall s / peak RSS``), the failures with their reasons and the summary line. Usage::

    nice -n 10 python benchmarks/limits.py [--quick] [--methods ged:astar,mces:ga,...]
        [--sizes 30,100,300,1000,2000] [--kinds random,molecule] [--timeouts 1,5]
        [--memory 512M] [--cold] [--max-rss 1.5G] [--kill-rss 4G] [--linger 120]
        [--out benchmarks/out/limits.json] [--resume] [--markdown] [--answers]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from importlib import metadata
from pathlib import Path

SIZES = (30, 100, 300, 1000, 2000)
TIMEOUTS = (1.0, 5.0)
QUICK_SIZES, QUICK_TIMEOUTS = (30, 300), (1.0,)
KILL_AFTER = 60.0  # seconds past the timeout before a child is killed
HERE = Path(__file__).resolve().parent
PAGE = resource.getpagesize()
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str) -> int:
    """Bytes from ``512M``, ``1.5G``, ``4096`` (binary units).

    >>> parse_size("512M"), parse_size("1.5G"), parse_size("100")
    (536870912, 1610612736, 100)
    """
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = text[-1:] if text[-1:] in _UNITS else ""
    try:
        return int(float(text[: len(text) - len(unit)]) * _UNITS[unit])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 512M, 1.5G)") from None


def format_size(size: float | None) -> str:
    """``310M``, ``1.4G``: sizes as the tables show them (binary units).

    >>> format_size(325_000_000), format_size(1.5 * 2**30), format_size(None)
    ('310M', '1.5G', '?')
    """
    if size is None:
        return "?"
    if size >= 2**30:
        return f"{size / 2**30:.1f}G"
    return f"{size / 2**20:.0f}M"


def time_limit(timeout: float) -> float:
    """The wall time a call with ``timeout`` may take: ``timeout + max(0.5, 10%)``.

    >>> time_limit(1), time_limit(5), time_limit(20)
    (1.5, 5.5, 22.0)
    """
    return timeout + max(0.5, 0.1 * timeout)


# -- the child: one call in a fresh process -------------------------------------------------

def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def _maxrss(who: int = resource.RUSAGE_SELF) -> int:
    return resource.getrusage(who).ru_maxrss * 1024  # kilobytes on Linux


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _answer(result, question: str) -> dict:
    scalars = {}
    for key, value in result.stats.items():
        if getattr(value, "ndim", None) == 0:  # numpy scalars
            value = value.item()
        if isinstance(value, bool | int | float | str) and len(str(value)) < 80:
            scalars[key] = value
    answer = {"optimal": bool(result.optimal), "result_time": float(result.time),
              "solved_by": result.method, "stats": scalars,
              "upper": float(result.upper_bound)}
    answer["lower"] = float(result.lower_bound if question == "ged" else result.num_edges)
    return answer


def child(spec_path: str) -> int:
    """Make the one call of ``spec_path`` and write what it measured; the exit status."""
    started = time.perf_counter()
    spec = json.loads(Path(spec_path).read_text())
    from _limit_pairs import load_pair

    import gedkit

    g1, g2 = load_pair(Path(spec["pair"]))
    question, method = spec["method"].split(":", 1)
    solve = gedkit.ged if question == "ged" else gedkit.mces
    options = {"timeout": spec["timeout"]}
    method, _, variant = method.partition("+")
    if variant == "connected":
        options["connected"] = True
    if spec["memory"] is not None:
        options["memory"] = spec["memory"]
    gc.collect()
    out = {"rss_before": _rss(), "setup": time.perf_counter() - started}
    status = 0
    start = time.perf_counter()
    try:
        result = solve(g1, g2, method=method, **options)
    except gedkit.GedkitError as error:  # a deliberate rejection: n/a
        out["wall"] = time.perf_counter() - start
        out["rejected"] = f"{type(error).__name__}: {_first_line(str(error))}"
    except Exception as error:
        out["wall"] = time.perf_counter() - start
        out["error"] = f"{type(error).__name__}: {_first_line(str(error))}"
        traceback.print_exc()
        status = 1
    else:
        out["wall"] = time.perf_counter() - start
        out.update(_answer(result, question))
    out["peak_rss"] = _maxrss()
    out["peak_rss_children"] = _maxrss(resource.RUSAGE_CHILDREN)
    Path(spec["result"]).write_text(json.dumps(out))
    return status


# -- the parent: processes ------------------------------------------------------------------

def _become_subreaper() -> None:
    """Adopt the orphans of our children, so that what a child leaves running is seen."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (read from /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
    return parents


def _descendants(root: int, parents: dict[int, int]) -> list[int]:
    found, frontier = [], [root]
    while frontier:
        frontier = [pid for pid, ppid in parents.items() if ppid in frontier]
        found.extend(frontier)
    return found


def _proc_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _mentions(pid: int, words: list[str]) -> bool:
    """Whether the command line or the environment of ``pid`` contains every word."""
    text = b""
    for name in ("cmdline", "environ"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/{name}", "rb") as f:
            text += f.read()
    return all(w.encode() in text for w in words)


def _leftovers(cache_dir: str | None) -> list[int]:
    """Processes a finished cell left: our adopted children (we are a subreaper), and with a
    cold cache any process mentioning ``gedkit`` and that cell's cache directory."""
    parents = _parents()
    me = os.getpid()
    mine = set(_descendants(me, parents))
    if cache_dir is not None:
        mine |= {pid for pid in parents if pid != me and _mentions(pid, ["gedkit", cache_dir])}
    return sorted(mine)


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def settle(cache_dir: str | None, linger: float) -> tuple[float, int]:
    """Wait up to ``linger`` s for the cell's leftover processes to end, then kill them.

    Returns the seconds waited and how many processes had to be killed.
    """
    start = time.perf_counter()
    while True:
        _reap()
        left = _leftovers(cache_dir)
        waited = time.perf_counter() - start
        if not left:
            return waited, 0
        if waited > linger:
            _kill(left)
            time.sleep(0.2)
            _reap()
            return waited, len(left)
        time.sleep(0.2)


def run_cell(cell: dict, pair_file: Path, work: Path, args: argparse.Namespace) -> dict:
    """Run one cell in a fresh process and return its record (verdict included)."""
    spec, result_file, log_file = work / "spec.json", work / "result.json", work / "child.log"
    result_file.unlink(missing_ok=True)
    spec.write_text(json.dumps({"method": cell["method"], "pair": str(pair_file),
                                "timeout": cell["timeout"], "memory": cell["memory"],
                                "result": str(result_file)}))
    env = dict(os.environ, PYTHONHASHSEED="0")
    cache_dir = tempfile.mkdtemp(prefix="gedkit-limits-numba-") if cell["cold"] else None
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    record = dict(cell, load=os.getloadavg()[0], started=time.strftime("%Y-%m-%d %H:%M:%S"))
    deadline = cell["timeout"] + KILL_AFTER
    tree_peak, killed = 0, None
    start = time.perf_counter()
    with open(log_file, "wb") as log:
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child",
                                 str(spec)], env=env, cwd=HERE.parent, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        while proc.poll() is None:
            tree = [proc.pid, *_descendants(proc.pid, _parents())]
            rss = sum(_proc_rss(pid) for pid in tree)
            tree_peak = max(tree_peak, rss)
            elapsed = time.perf_counter() - start
            if killed is None and rss > args.kill_rss:
                killed = f"killed: process tree RSS {format_size(rss)} > --kill-rss"
            elif killed is None and elapsed > deadline:
                killed = f"killed: still running {deadline:.0f} s after the start"
            if killed is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                _kill(tree)
            time.sleep(0.1)
    record["process_wall"] = time.perf_counter() - start
    record["returncode"] = proc.returncode
    record["tree_peak_rss"] = tree_peak
    record["linger"], record["lingering_killed"] = settle(cache_dir, args.linger)
    if cache_dir is not None:
        shutil.rmtree(cache_dir, ignore_errors=True)
    output = log_file.read_text(errors="replace")
    lines = [line for line in output.splitlines() if line.strip()]
    record["last_line"] = lines[-1][:300] if lines else ""
    record["traceback"] = "Traceback (most recent call last)" in output
    if killed is not None:
        record["killed"] = killed
    if result_file.exists():
        record.update(json.loads(result_file.read_text()))
    record["status"], record["reasons"] = judge(record, args.max_rss)
    return record


def judge(record: dict, max_rss: int) -> tuple[str, list[str]]:
    """``("PASS" | "FAIL" | "n/a", reasons)`` for a finished cell.

    >>> judge({"timeout": 1.0, "memory": None, "returncode": 0, "wall": 1.2,
    ...        "peak_rss": 2**30, "rss_before": 2**27, "lower": 3.0, "upper": 4.0}, 3 * 2**29)
    ('PASS', [])
    >>> judge({"timeout": 1.0, "memory": 2**28, "returncode": 0, "wall": 2.0,
    ...        "peak_rss": 2**31, "rss_before": 2**27, "lower": 3.0, "upper": 4.0}, 3 * 2**29)[1]
    ['time 2.000 s > 1.50 s', 'peak RSS 2.0G > 1.5G', 'growth 1.9G > 1.1 x memory 256M']
    """
    if "killed" in record:
        return "FAIL", [record["killed"]]
    if "error" in record:
        return "FAIL", [f"exception {record['error']}"]
    if record["returncode"] != 0 or "wall" not in record:
        return "FAIL", [f"crash (exit {record['returncode']}): {record.get('last_line', '')}"]
    if record.get("traceback"):
        return "FAIL", [f"traceback: {record['last_line']}"]
    if "rejected" in record:
        return "n/a", [record["rejected"]]
    reasons = []
    limit = time_limit(record["timeout"])
    if record["wall"] > limit:
        reasons.append(f"time {record['wall']:.3f} s > {limit:.2f} s")
    if record["peak_rss"] > max_rss:
        reasons.append(f"peak RSS {format_size(record['peak_rss'])} > {format_size(max_rss)}")
    if record["memory"] is not None:
        growth = record["peak_rss"] - record["rss_before"]
        if growth > 1.1 * record["memory"]:
            reasons.append(f"growth {format_size(growth)} > 1.1 x memory "
                           f"{format_size(record['memory'])}")
    if record["lower"] > record["upper"] + 1e-9:
        reasons.append(f"bounds out of order: {record['lower']:g} > {record['upper']:g}")
    return ("FAIL" if reasons else "PASS"), reasons


# -- the run --------------------------------------------------------------------------------

def registered_methods() -> list[str]:
    """``ged:NAME`` and ``mces:NAME`` for every registered method, read from the registries,
    and ``mces:NAME+connected`` for every MCES method with the ``connected`` option."""
    import gedkit
    from gedkit.mces.base import available

    return ([f"ged:{m}" for m in gedkit.methods()]
            + [f"mces:{m}" for m in gedkit.mces.methods()]
            + [f"mces:{m}+connected" for m, cls in available().items()
               if "connected" in cls.defaults()])


def select_methods(spec: str | None, registered: list[str]) -> list[str]:
    """The methods ``--methods`` names: ``ged:NAME``, ``mces:NAME``, or a bare name for both.

    >>> select_methods("astar,auto", ["ged:astar", "ged:auto", "mces:auto", "mces:ga"])
    ['ged:astar', 'ged:auto', 'mces:auto']
    """
    if spec is None:
        return registered
    chosen = []
    for name in (s.strip() for s in spec.split(",") if s.strip()):
        hits = [m for m in registered if name in (m, m.split(":", 1)[1])]
        if not hits:
            raise SystemExit(f"limits.py: unknown method {name!r}; registered: "
                             f"{', '.join(registered)}")
        chosen.extend(m for m in hits if m not in chosen)
    return chosen


def cell_key(cell: dict) -> tuple:
    return (cell["method"], cell["kind"], cell["size"], float(cell["timeout"]), cell["memory"],
            bool(cell["cold"]))


def read_records(path: Path) -> list[dict]:
    """The records of ``path`` (a line cut short by a kill is skipped)."""
    records = []
    if path.exists():
        for line in path.read_text().splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                records.append(json.loads(line))
    return records


def _git(*argv: str) -> str:
    try:
        return subprocess.run(["git", *argv], cwd=HERE, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine() -> dict:
    """The machine, the versions and the commit measured (uncommitted solver changes noted)."""
    cpu = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f
                    if line.startswith("model name")), "")
    memory = ""
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        memory = format_size(int(f.readline().split()[1]) * 1024)
    versions = {}
    for package in ("gedkit", "numpy", "numba", "scipy", "highspy", "torch", "rdkit"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    commit = _git("rev-parse", "--short", "HEAD")
    if _git("status", "--porcelain", "--", str(HERE.parent / "gedkit")):
        commit += " + uncommitted changes in gedkit/"
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": memory,
            "python": platform.python_version(), "system": platform.platform(),
            "versions": versions, "commit": commit}


def cell_line(k: int, total: int, r: dict) -> str:
    """The line printed when a cell finishes."""
    head = (f"[{k:>3}/{total}] {r['method']:<17} {r['kind']:<8} n={r['size']:<5} "
            f"t={r['timeout']:g}{' cold' if r['cold'] else ''}")
    if "wall" in r:
        head += f"  wall {r['wall']:6.2f} s  proc {r['process_wall']:6.2f} s"
    head += f"  peak {format_size(r.get('peak_rss', r['tree_peak_rss'])):>5}"
    if "upper" in r:
        head += f"  {r['lower']:g}..{r['upper']:g}{' opt' if r['optimal'] else ''}"
    why = r.get("stats", {}).get("fallback") or r.get("stats", {}).get("stopped")
    if why:
        head += f"  [{why}]"
    if r.get("linger", 0) > 1:
        head += f"  (leftovers {r['linger']:.0f} s)"
    return f"{head}  {r['status']} {'; '.join(r['reasons'])}".rstrip()


def run(args: argparse.Namespace) -> list[dict]:
    """Run the cells not yet in ``args.out``; every record of the file afterwards."""
    from _limit_pairs import make_pair, save_pair

    records = read_records(args.out)
    if records and not args.resume:
        raise SystemExit(f"limits.py: {args.out} already holds results; --resume continues "
                         "it, or choose another --out")
    done = {cell_key(r) for r in records if r.get("type") == "cell"}
    cells = [{"type": "cell", "method": method, "kind": kind, "size": size,
              "timeout": timeout, "memory": args.memory, "cold": args.cold}
             for timeout in args.timeouts for kind in args.kinds for size in args.sizes
             for method in args.methods]
    todo = [c for c in cells if cell_key(c) not in done]
    print(f"{len(cells)} cells, {len(cells) - len(todo)} already in {args.out}, "
          f"{len(todo)} to run", flush=True)
    if not todo:
        return records
    args.out.parent.mkdir(parents=True, exist_ok=True)
    header = {"type": "run", "command": " ".join(["python", *sys.argv]), **machine()}
    _become_subreaper()
    with tempfile.TemporaryDirectory(prefix="gedkit-limits-") as tmp, \
            open(args.out, "a") as out:
        out.write(json.dumps(header) + "\n")
        records.append(header)
        pairs: dict[tuple[str, int], tuple[Path, dict]] = {}
        for k, cell in enumerate(todo, start=1):
            key = (cell["kind"], cell["size"])
            if key not in pairs:
                g1, g2 = make_pair(*key)
                path = Path(tmp) / f"{cell['kind']}-{cell['size']}.json"
                save_pair(g1, g2, path)
                pairs[key] = path, {"n1": g1.n, "m1": g1.m, "n2": g2.n, "m2": g2.m}
            path, shape = pairs[key]
            record = dict(run_cell(cell, path, Path(tmp), args), pair=shape)
            out.write(json.dumps(record) + "\n")
            out.flush()
            records.append(record)
            print(cell_line(k, len(todo), record), flush=True)
    return records


# -- the report -----------------------------------------------------------------------------

def _cell_text(r: dict) -> str:
    if r["status"] == "n/a":
        return "n/a"
    if "wall" not in r or "peak_rss" not in r:
        reason = "killed" if "killed" in r else "crash"
        return f"**FAIL** {reason} ({r['process_wall']:.0f} s / {format_size(r['tree_peak_rss'])})"
    text = f"{r['wall']:.2f} / {format_size(r['peak_rss'])}"
    return f"**FAIL** {text}" if r["status"] == "FAIL" else text


def _answer_text(r: dict) -> str:
    if "upper" not in r:
        return r["status"]
    sep = "–" if r["method"].startswith("ged:") else " / "
    text = f"{r['lower']:g}{sep}{r['upper']:g}"
    return f"{text} ✓" if r["optimal"] else text


def _table(rows: dict[str, dict[int, dict]], sizes: list[int], show) -> list[str]:
    lines = ["| method | " + " | ".join(str(s) for s in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for method, by_size in rows.items():
        cells = [show(by_size[s]) if s in by_size else "" for s in sizes]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return lines


def inconsistent(records: list[dict]) -> list[str]:
    """Pairs where one method's answer beats another's proven bound.

    A GED lower bound above another method's upper bound, or an MCES edge count above
    another's upper bound, means one of the two is wrong. Connected MCES (``+connected``) is
    another question (its answer may be smaller): compared among its own methods only.

    >>> a = {"method": "ged:x", "kind": "random", "size": 30, "lower": 5.0, "upper": 6.0}
    >>> inconsistent([a, dict(a, method="ged:y", lower=2.0, upper=4.0)])
    ['random 30 nodes: ged:x lower 5 > ged:y upper 4']
    >>> b = {"method": "mces:x", "kind": "molecule", "size": 30, "lower": 26.0, "upper": 26.0}
    >>> inconsistent([b, dict(b, method="mces:x+connected", lower=20.0, upper=24.0)])
    []
    """
    pairs: dict[tuple, list[dict]] = {}
    for r in records:
        if "upper" in r:
            key = (r["kind"], r["size"], r["method"].split(":", 1)[0],
                   r["method"].endswith("+connected"))
            pairs.setdefault(key, []).append(r)
    lines = []
    for (kind, size, question, _), group in pairs.items():
        high = max(group, key=lambda r: r["lower"])
        low = min(group, key=lambda r: r["upper"])
        if high["lower"] > low["upper"] + 1e-9:
            word = "lower" if question == "ged" else "edges"
            lines.append(f"{kind} {size} nodes: {high['method']} {word} {high['lower']:g} > "
                         f"{low['method']} upper {low['upper']:g}")
    return lines


def markdown(records: list[dict], max_rss: int, answers: bool) -> str:
    """The RESULTS.md section for ``records`` (the last record of a cell counts)."""
    cells = {cell_key(r): r for r in records if r.get("type") == "cell"}
    runs = [r for r in records if r.get("type") == "run"]
    passed = sum(r["status"] == "PASS" for r in cells.values())
    failed = sum(r["status"] == "FAIL" for r in cells.values())
    na = len(cells) - passed - failed
    out = ["## Limits: every method in a fresh process (`benchmarks/limits.py`)", "",
           f"**{passed} of {passed + failed} cells within bounds**"
           f"{f' ({na} more n/a: the method rejects the input on purpose)' if na else ''}.",
           "Bounds: the call's wall time ≤ timeout + max(0.5 s, 10%) (compilation and imports "
           f"included), the process's peak RSS ≤ {format_size(max_rss)}, with `memory=` its growth "
           "≤ 1.1 × memory; each cell a fresh process, one at a time. Cells: wall time of the "
           "call in seconds / peak RSS of the process.", ""]
    groups: dict[tuple, list[dict]] = {}
    for r in cells.values():
        groups.setdefault((r["kind"], r["timeout"], r["memory"], r["cold"]), []).append(r)
    methods = list(dict.fromkeys(r["method"] for r in cells.values()))
    order = {"random": 0, "molecule": 1}
    for (kind, timeout, memory, cold), group in sorted(
            groups.items(), key=lambda kv: (order.get(kv[0][0], 2), kv[0][0], kv[0][1],
                                            kv[0][2] or 0, kv[0][3])):
        sizes = sorted({r["size"] for r in group})
        rows = {m: {r["size"]: r for r in group if r["method"] == m} for m in methods}
        rows = {m: row for m, row in rows.items() if row}
        mode = "".join([f", memory={format_size(memory)}" if memory is not None else "",
                        ", cold numba cache" if cold else ""])
        out += [f"### {kind} pairs, timeout {timeout:g} s (limit {time_limit(timeout):.2f} s)"
                f"{mode}", "", *_table(rows, sizes, _cell_text), ""]
        if answers:
            out += ["Answers (GED: lower–upper bound; MCES: edges found / upper bound; "
                    "✓ optimal):", "", *_table(rows, sizes, _answer_text), ""]
    failures = [r for r in cells.values() if r["status"] == "FAIL"]
    if failures:
        out += ["Failures:", ""]
        out += [f"- {r['method']} {r['kind']} {r['size']} nodes, timeout {r['timeout']:g} s"
                f"{' (cold)' if r['cold'] else ''}: {'; '.join(r['reasons'])}" for r in failures]
        out.append("")
    clashes = inconsistent(list(cells.values()))
    if clashes:
        out += ["Bounds that contradict each other (a wrong answer somewhere):", "",
                *(f"- {line}" for line in clashes), ""]
    undercounted = [r for r in cells.values()
                    if "result_time" in r and r["wall"] - r["result_time"] > 0.5]
    if undercounted:
        out += ["`result.time` short of the call's wall time by more than 0.5 s:", "",
                *(f"- {r['method']} {r['kind']} {r['size']} nodes, timeout {r['timeout']:g} s: "
                  f"{r['result_time']:.2f} s of {r['wall']:.2f} s" for r in undercounted), ""]
    rejected: dict[str, list[str]] = {}
    for r in cells.values():
        if r["status"] == "n/a":
            rejected.setdefault(r["method"], []).append(r["reasons"][0])
    if rejected:
        out += ["n/a (the first message of each method):", ""]
        out += [f"- {m} ({len(why)} cells): {why[0]}" for m, why in sorted(rejected.items())]
        out.append("")
    for run_ in runs:
        versions = ", ".join(f"{k} {v}" for k, v in run_["versions"].items())
        out += [f"Command: `{run_['command']}`  ",
                f"Machine: {run_['cpu']}, {run_['cores']} cores, {run_['memory']} RAM, "
                f"Python {run_['python']}; {versions}; commit {run_['commit']}", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: sizes 30 and 300, timeout 1 s")
    parser.add_argument("--methods", help="comma-separated ged:NAME, mces:NAME or NAME "
                        "(both questions); default every registered method")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--kinds", type=lambda s: s.split(","), default=["random", "molecule"])
    parser.add_argument("--timeouts", type=lambda s: [float(x) for x in s.split(",")])
    parser.add_argument("--memory", type=parse_size,
                        help="pass memory= to every call and check the growth (e.g. 512M)")
    parser.add_argument("--cold", action="store_true",
                        help="a fresh empty NUMBA_CACHE_DIR for every cell")
    parser.add_argument("--max-rss", type=parse_size, default=parse_size("1.5G"),
                        help="peak RSS bound of a cell (default 1.5G)")
    parser.add_argument("--kill-rss", type=parse_size, default=parse_size("4G"),
                        help="kill a child whose process tree passes this RSS (default 4G)")
    parser.add_argument("--linger", type=float, default=120.0,
                        help="seconds to wait for a cell's leftover processes (default 120)")
    parser.add_argument("--jobs", type=int, default=1, choices=[1],
                        help="cells run one at a time, so timings do not disturb each other")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "limits.json",
                        help="results, one JSON line per cell (default benchmarks/out/)")
    parser.add_argument("--resume", action="store_true", help="skip cells already in --out")
    parser.add_argument("--markdown", action="store_true", help="print the RESULTS.md section")
    parser.add_argument("--answers", action="store_true",
                        help="with --markdown, also tables of the answers")
    args = parser.parse_args(argv)
    if args.child:
        sys.exit(child(args.child))
    args.sizes = args.sizes or list(QUICK_SIZES if args.quick else SIZES)
    args.timeouts = args.timeouts or list(QUICK_TIMEOUTS if args.quick else TIMEOUTS)
    unknown = set(args.kinds) - {"random", "molecule"}
    if unknown:
        parser.error(f"unknown --kinds {', '.join(sorted(unknown))}; choose random, molecule")
    args.methods = select_methods(args.methods, registered_methods())
    records = run(args)
    if args.markdown:
        print()
        print(markdown(records, args.max_rss, args.answers), end="")


if __name__ == "__main__":
    main()
