"""`ereval metrics` on data of several shapes, against a bare DuckDB join in the same run.

Writes a truth and a prediction of N records per shape (Parquet; the prediction
has 10% of its records moved to another cluster), compiles ereval's modules to
bytecode (and those of ``--baseline``), as installing a package does, then runs,
each in a fresh process:

* ``bare``: ``SELECT t.cluster_id, p.cluster_id, count(*) FROM t JOIN p USING
  (record_id) GROUP BY ALL`` in DuckDB, its cells fetched into NumPy (the floor);
* ``bare-1GB``: the same with DuckDB's memory limit at 1 GB (it may fail);
* ``numpy``, ``duckdb``: ``ereval metrics --engine numpy`` / ``duckdb``;
* ``duckdb-1GB``: ``ereval metrics --engine duckdb --memory-limit 1GB``;
* ``numpy-baseline``: ``ereval metrics --engine numpy`` of another version of
  ereval, the source tree given by ``--baseline`` (its ``src/`` is imported), to
  measure a change against the code before it in the same rounds.

The shapes:

* ``dense``: record ids 0..N-1, both sides shuffled, uniform cluster sizes (mean 4);
* ``ordered``: the same with both sides' rows in record order;
* ``sparse``: record ids spread over 2^62 (random, distinct), shuffled;
* ``zipf``: Zipf cluster sizes (exponent 2), shuffled;
* ``text``: record ids as text of 6 to 24 characters, shuffled;
* ``hostile``: ten Parquet parts per side, cluster ids ascending from part to
  part, record ids 0..N-1 shuffled, the prediction's rows in reverse order;
* ``twofiles``: the Zipf shape with a different tenth of the records missing
  from each side, scored with ``--on-mismatch twinless`` (the twinless
  variants of B-cubed and CEAF are then reported too);
* ``evenfiles``: the two-files shape with both sides cut to as many rows (whether
  some record is on one side only cannot then be told from the rows' counts);
* ``keys``: the dense shape keyed by two columns, a data set's name (four of
  them, as text) and an integer id within it (``--record-col source,local_id``;
  the bare join is ``USING (source, local_id)``);
* ``textkeys``: the two-files shape keyed by two columns, a text id of each
  record's own (the decimal text of a random 62-bit number, up to 19
  characters) and the number of its data set, 0 to 3 (``--record-col uid,part``).

Nine more shapes, run when named in ``--shapes``:

* ``singletons``: a prediction of singletons (every record alone), the truth's
  clusters of three records on average, record ids negative and within 2^40;
* ``giant``: half the records in one true cluster, which the prediction splits
  into 1,000 parts; the other records in pairs on both sides;
* ``lopsided``: two files of very different sizes: the truth of N records, the
  prediction a tenth of them (pairs of true clusters merged) and N/100 records
  of its own;
* ``textfiles``, ``textevenfiles``: the ``twofiles`` and ``evenfiles`` shapes
  with record ids as text, ``rec-`` and the number;
* ``hexfiles``: the ``twofiles`` shape with record ids as 32 hexadecimal digits;
* ``tangled``, ``tangledtext``, ``tangledwide``: two files of as many rows of
  tangled clusters (geometric sizes of mean 2.9, 15% of the records moved to any
  of N/3 predicted clusters, each side missing its own 5%), with 32-bit ids, with
  text ids ``id-`` + 16 hexadecimal digits + ``-x``, and with 64-bit ids spread
  over the whole range (too far apart to pack with cluster codes).

For each shape it prints CPU seconds (user + system), wall seconds and peak
resident memory of each case, and their ratios to the unlimited bare join;
shapes are listed worst first (by the largest CPU ratio of an ereval case). A
failed case prints ``failed`` and its first error line. Every ereval run of a
shape must print the same metrics (integers equal, floats to 1e-12).

    python benchmarks/bench_shapes.py -n 10000000
    python benchmarks/bench_shapes.py -n 30000000 --shapes hostile \\
        --cases bare,bare-1GB,duckdb-1GB --data-dir /tmp/ereval-shapes
    git worktree add /tmp/before HEAD~3
    python benchmarks/bench_shapes.py --cases bare,numpy-baseline,numpy \\
        --baseline /tmp/before --repeats 3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from _process import byte_compiled, cached_files

SHAPES = (
    "dense",
    "ordered",
    "sparse",
    "zipf",
    "text",
    "hostile",
    "twofiles",
    "evenfiles",
    "keys",
    "textkeys",
)
#: Shapes written and run only when named.
MORE_SHAPES = (
    "singletons",
    "giant",
    "lopsided",
    "textfiles",
    "textevenfiles",
    "hexfiles",
    "tangled",
    "tangledtext",
    "tangledwide",
)
#: The record key of each shape (a shape not listed: ``record_id``).
KEYS = {"keys": ("source", "local_id"), "textkeys": ("uid", "part")}
#: The shapes whose sides each lack records of their own (scored ``twinless``).
TWO_FILES = (
    "twofiles",
    "evenfiles",
    "textkeys",
    "textfiles",
    "textevenfiles",
    "hexfiles",
    "lopsided",
    "tangled",
    "tangledtext",
    "tangledwide",
)
#: The shapes whose sides are cut to as many rows.
EVEN = ("evenfiles", "textevenfiles")
CASES = ("bare", "bare-1GB", "numpy", "duckdb", "duckdb-1GB", "numpy-baseline")


def _moved(rng: np.random.Generator, truth: np.ndarray, n_clusters: int) -> np.ndarray:
    pred = truth.copy()
    moved = rng.random(truth.shape[0]) < 0.1
    pred[moved] = rng.integers(0, n_clusters, size=int(moved.sum()))
    return pred


def _text_ids(rng: np.random.Generator, ids: np.ndarray) -> pa.Array:
    """Each id as decimal text padded on the left with ``r`` to 6..24 characters."""
    text = pc.cast(pa.array(ids), pa.string())
    width = rng.integers(6, 25, size=ids.shape[0])
    out = np.empty(ids.shape[0], dtype=object)
    for w in range(6, 25):
        at = np.flatnonzero(width == w)
        if at.size:
            padded = pc.utf8_lpad(text.take(pa.array(at)), width=w, padding="r")
            out[at] = padded.to_numpy(zero_copy_only=False)
    return pa.array(out, type=pa.string())


def _write_pair(
    folder: Path,
    records: pa.Array | dict[str, pa.Array],
    truth: np.ndarray,
    pred: np.ndarray,
    t_order: np.ndarray | None,
    p_order: np.ndarray | None,
    parts: int = 1,
) -> None:
    for name, clusters, order in (("truth", truth, t_order), ("pred", pred, p_order)):
        columns = records if isinstance(records, dict) else {"record_id": records}
        if order is not None:
            columns = {name: ids.take(pa.array(order)) for name, ids in columns.items()}
        c = clusters if order is None else clusters[order]
        table = pa.table({**columns, "cluster_id": c})
        out = folder / name
        out.mkdir(parents=True, exist_ok=True)
        step = math.ceil(len(table) / parts)
        for k in range(parts):
            pq.write_table(table.slice(k * step, step), out / f"part-{k:02d}.parquet")


def write_shape(folder: Path, shape: str, n: int, seed: int) -> None:
    """The files of ``shape`` at ``n`` records in ``folder/truth`` and ``folder/pred``."""
    rng = np.random.default_rng(seed)
    n_clusters = max(1, n // 4)
    if shape == "hostile":
        parts = 10
        step = math.ceil(n / parts)
        chunk = np.arange(n) // step
        per = max(1, step // 4)
        truth = chunk * per + rng.integers(0, per, size=n)
        pred = truth.copy()
        moved = rng.random(n) < 0.1
        pred[moved] = chunk[moved] * per + rng.integers(0, per, size=int(moved.sum()))
        records = pa.array(rng.permutation(n).astype(np.int64))
        reverse = np.arange(n)[::-1].copy()
        _write_pair(folder, records, truth, pred, None, reverse, parts)
        return
    if shape in ("singletons", "giant", "lopsided", "tangled", "tangledtext", "tangledwide"):
        _write_more(folder, shape, n, rng)
        return
    if shape in ("zipf", *TWO_FILES):
        sizes = np.minimum(rng.zipf(2.0, size=n), n)
        truth = np.repeat(np.arange(sizes.shape[0]), sizes)[:n]
        n_clusters = int(truth.max()) + 1
    else:
        truth = rng.integers(0, n_clusters, size=n)
    pred = _moved(rng, truth, n_clusters)
    ids: Any = np.arange(n, dtype=np.int64)
    if shape in ("sparse", "textkeys"):
        ids = np.unique(rng.integers(0, 2**62, size=n + n // 100, dtype=np.int64))
        ids = rng.permutation(ids)[:n]
    records: pa.Array | dict[str, pa.Array] = (
        _text_ids(rng, ids) if shape == "text" else pa.array(ids)
    )
    if shape == "keys":  # four data sets, each numbering its records from 0
        names = np.array(["alpha", "beta", "gamma", "delta"], dtype=object)
        records = {"source": pa.array(names[ids % 4]), "local_id": pa.array(ids // 4)}
    if shape in ("textfiles", "textevenfiles"):
        records = pc.binary_join_element_wise("rec-", pc.cast(records, pa.string()), "")
    if shape == "hexfiles":
        high, low = (rng.integers(0, 2**63, size=n, dtype=np.int64) for _ in range(2))
        records = pa.array([f"{x:016x}{y:016x}" for x, y in zip(high, low, strict=True)])
    if shape == "textkeys":
        records = {
            "uid": pc.cast(pa.array(ids), pa.string()),
            "part": pa.array((ids % 4).astype(np.int32)),
        }
    if shape == "ordered":
        _write_pair(folder, records, truth, pred, None, None)
    elif shape in TWO_FILES:  # each side without its own tenth of the records
        u = rng.random(n)
        t_order, p_order = rng.permutation(n), rng.permutation(n)
        t_order, p_order = (
            t_order[u[t_order] >= 0.1],
            p_order[(u[p_order] < 0.1) | (u[p_order] >= 0.2)],
        )
        if shape in EVEN:
            rows = min(t_order.shape[0], p_order.shape[0])
            t_order, p_order = t_order[:rows], p_order[:rows]
        _write_pair(folder, records, truth, pred, t_order, p_order)
    else:
        _write_pair(folder, records, truth, pred, rng.permutation(n), rng.permutation(n))


def _write_more(folder: Path, shape: str, n: int, rng: np.random.Generator) -> None:
    """The files of ``singletons``, ``giant``, ``lopsided`` and the ``tangled`` shapes
    (see the module's doc)."""
    if shape in ("tangled", "tangledtext", "tangledwide"):
        sizes = rng.geometric(0.35, size=n)
        truth = rng.permutation(np.repeat(np.arange(n), sizes)[:n])
        pred = truth.copy()
        moved = rng.random(n) < 0.15
        pred[moved] = rng.integers(0, max(1, n // 3), size=int(moved.sum()))
        u = rng.random(n)
        t_order = rng.permutation(np.flatnonzero(u >= 0.05))
        p_order = rng.permutation(np.flatnonzero(u < 0.95))
        rows = min(t_order.shape[0], p_order.shape[0])
        records = pa.array(np.arange(n, dtype=np.int32))
        if shape == "tangledtext":
            digits = rng.integers(0, 2**62, size=n, dtype=np.int64)
            records = pa.array([f"id-{x:016x}-x" for x in digits])
        if shape == "tangledwide":  # distinct: a product by an odd number, modulo 2^64
            spread = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            records = pa.array(spread.view(np.int64))
        _write_pair(folder, records, truth, pred, t_order[:rows], p_order[:rows])
    elif shape == "singletons":
        ids = -rng.choice(2**40, size=n, replace=False).astype(np.int64)
        truth = rng.integers(0, max(1, n // 3), size=n)
        _write_pair(
            folder, pa.array(ids), truth, np.arange(n), rng.permutation(n), rng.permutation(n)
        )
    elif shape == "giant":
        half = n // 2
        pairs = np.arange(n) // 2
        truth = np.where(np.arange(n) < half, 0, pairs)
        pred = np.where(np.arange(n) < half, rng.integers(0, 1000, size=n), pairs)
        records = pa.array(np.arange(n, dtype=np.int64))
        _write_pair(folder, records, truth, pred, rng.permutation(n), rng.permutation(n))
    else:  # lopsided: the prediction's own records numbered after the truth's
        extra = max(1, n // 100)
        truth = np.concatenate([rng.integers(0, max(1, n // 5), size=n), np.zeros(extra, int)])
        pred = np.concatenate([truth[:n] // 2, rng.integers(0, 10**6, size=extra)])
        some = rng.choice(n, size=max(1, n // 10), replace=False)
        p_order = rng.permutation(np.concatenate([some, n + np.arange(extra)]))
        records = pa.array(np.arange(n + extra, dtype=np.int64))
        _write_pair(folder, records, truth, pred, rng.permutation(n), p_order)


_BARE = """
import sys, duckdb
con = duckdb.connect()
if sys.argv[3]:  # the memory limit, or nothing
    con.execute(f"SET memory_limit = '{sys.argv[3]}'")
    con.execute(f"SET temp_directory = '{sys.argv[4]}'")
cells = con.execute(
    "SELECT t.cluster_id AS tc, p.cluster_id AS pc, count(*) AS n "
    f"FROM read_parquet(?) AS t JOIN read_parquet(?) AS p USING ({sys.argv[5]}) GROUP BY ALL",
    [sys.argv[1], sys.argv[2]],
).fetchnumpy()
print(len(cells["n"]))
"""

_BASELINE = """
import sys
sys.path.insert(0, sys.argv.pop(1))
from ereval.cli import main
main()
"""

_CHILD = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "wall": wall, "ok": proc.returncode == 0,
                  "rss_mb": use.ru_maxrss / 1024, "out": proc.stdout, "err": proc.stderr}))
"""


def measure(cmd: list[str]) -> dict[str, Any]:
    """``{"cpu", "wall", "rss_mb", "ok", "out", "err"}`` of ``cmd`` in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def _least(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A case's repeats as one: failed if any failed, else the least CPU and wall
    seconds (noise on a shared machine only adds) and the largest peak memory."""
    failed = [r for r in runs if not r["ok"]]
    if failed:
        return failed[0]
    best = dict(min(runs, key=lambda r: float(r["cpu"])))
    best["wall"] = min(float(r["wall"]) for r in runs)
    best["rss_mb"] = max(float(r["rss_mb"]) for r in runs)
    return best


def _same(outputs: list[str]) -> bool:
    parsed = [json.loads(o) for o in outputs]
    for other in parsed[1:]:
        if other.keys() != parsed[0].keys():
            return False
        for key, value in parsed[0].items():
            a = other[key]
            if (value is None or a is None) and value is not a:
                return False
            if (
                value is not None
                and a is not None
                and not math.isclose(a, value, rel_tol=1e-12, abs_tol=1e-12)
            ):
                return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shapes")
    parser.add_argument(
        "--cases",
        default=",".join(c for c in CASES if c != "numpy-baseline"),
        help="comma-separated cases",
    )
    parser.add_argument("--memory-limit", default="1GB", help="the limit of the *-1GB cases")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="the source tree of another version of ereval (case numpy-baseline)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=None, help="keep and reuse the files")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="rounds of every case (interleaved); the least CPU and wall seconds and the "
        "largest peak memory of a case are kept",
    )
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats: expected a whole number from 1; received {args.repeats}")
    shapes = [s for s in args.shapes.split(",") if s]
    cases = [c for c in args.cases.split(",") if c]
    for flag, given, known in (
        ("--shapes", shapes, SHAPES + MORE_SHAPES),
        ("--cases", cases, CASES),
    ):
        bad = [g for g in given if g not in known]
        if bad:
            parser.error(f"{flag}: expected some of {', '.join(known)}; received {', '.join(bad)}")
    if ("numpy-baseline" in cases) != (args.baseline is not None):
        parser.error("--baseline: give it with the case numpy-baseline, and only then")
    if args.baseline is not None and not (args.baseline / "src" / "ereval").is_dir():
        parser.error(
            f"--baseline: expected a source tree holding src/ereval; received {args.baseline}"
        )
    # every version measured imports compiled modules, as an installed copy does
    byte_compiled(*([args.baseline / "src"] if args.baseline is not None else []))
    rows: list[tuple[float, str, list[str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = args.data_dir or Path(tmp)
        spill = Path(tmp) / "spill"
        spill.mkdir()
        for shape in shapes:
            folder = base / f"{shape}-{args.n}-{args.seed}"
            cached_files(
                folder,
                "written",
                lambda f=folder, s=shape: write_shape(f, s, args.n, args.seed),  # type: ignore[misc]
            )
            t, p = str(folder / "truth"), str(folder / "pred")
            glob_t, glob_p = f"{t}/*.parquet", f"{p}/*.parquet"
            ereval = [sys.executable, "-m", "ereval", "metrics", t, p, "-f", "json", "-q"]
            if shape in TWO_FILES:
                ereval += ["--on-mismatch", "twinless"]
            key = KEYS.get(shape, ("record_id",))
            if shape in KEYS:
                ereval += ["--record-col", ",".join(key)]
            limited = ["--memory-limit", args.memory_limit, "--temp-dir", str(spill)]
            commands = {
                "bare": [sys.executable, "-c", _BARE, glob_t, glob_p, "", "", ", ".join(key)],
                "bare-1GB": [
                    sys.executable,
                    "-c",
                    _BARE,
                    glob_t,
                    glob_p,
                    args.memory_limit,
                    str(spill),
                    ", ".join(key),
                ],
                "numpy": [*ereval, "--engine", "numpy"],
                "duckdb": [*ereval, "--engine", "duckdb"],
                "duckdb-1GB": [*ereval, "--engine", "duckdb", *limited],
                "numpy-baseline": [
                    sys.executable,
                    "-c",
                    _BASELINE,
                    str(args.baseline and args.baseline / "src"),
                    *ereval[3:],
                    "--engine",
                    "numpy",
                ],
            }
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in cases}
            for _ in range(args.repeats):  # rounds, so that a slow spell hits every case
                for name in cases:
                    runs[name].append(measure(commands[name]))
            got = {name: _least(done) for name, done in runs.items()}
            floor = got.get("bare")
            lines, worst = [], 0.0
            for name in cases:
                r = got[name]
                if not r["ok"]:
                    err = (r["err"].strip().splitlines() or ["?"])[-1][:70]
                    lines.append(f"  {name:<15}{'failed':>8}  {err}")
                    continue
                cpu, wall, rss = float(r["cpu"]), float(r["wall"]), float(r["rss_mb"])
                if floor is not None and floor["ok"]:
                    ratios = (cpu / floor["cpu"], wall / floor["wall"], rss / floor["rss_mb"])
                    if not name.startswith("bare"):
                        worst = max(worst, ratios[0])
                    shown = "".join(f"{x:>8.2f}" for x in ratios)
                else:
                    shown = f"{'-':>8}{'-':>8}{'-':>8}"
                lines.append(f"  {name:<15}{cpu:>8.1f}{wall:>8.1f}{rss:>9.0f}{shown}")
            outputs = [
                str(got[c]["out"]) for c in cases if not c.startswith("bare") and got[c]["ok"]
            ]
            same = "same metrics" if len(outputs) < 2 or _same(outputs) else "DIFFERENT METRICS"
            rows.append((worst, f"{shape} (worst CPU ratio {worst:.2f}; {same})", lines))
            print(f"done: {shape}", file=sys.stderr, flush=True)
    print(
        f"{args.n:,} records per side from Parquet, {os.cpu_count()} cores; "
        "ratios to the unlimited bare DuckDB join + GROUP BY"
    )
    print(
        f"  {'case':<15}{'CPU s':>8}{'wall s':>8}{'peak MB':>9}{'x CPU':>8}{'x wall':>8}{'x RSS':>8}"
    )
    for _, title, lines in sorted(rows, key=lambda r: -r[0]):
        print(title)
        print("\n".join(lines))


if __name__ == "__main__":
    main()
