"""A big prediction, a small sample: `ereval estimate` in memory and through DuckDB.

Writes a prediction of N records (Parquet, integer ids, Zipf-like cluster sizes
by drawing a cluster per record among N/4; with ``--names`` a text name per
record, 5,000 distinct) and a labelled sample of about 200 true clusters drawn
uniformly (the truth being the prediction with 10% of its records moved), then
runs, each in a fresh process:

* ``numpy``: ``ereval estimate --engine numpy`` (the whole prediction read into memory);
* ``duckdb``: ``ereval estimate --engine duckdb`` (the sample's record ids pushed into
  DuckDB, only the clusters they touch brought back);
* ``duckdb-1GB``: the same with ``--memory-limit 1GB``.

It reports CPU seconds (user + system of the process and its children), wall
seconds and peak resident memory, with ratios to the NumPy run of the same
invocation, and checks that every run printed the same estimates (integers
equal, floats to 1e-12).

    python benchmarks/bench_engine_terms.py                  # N = 10^7
    python benchmarks/bench_engine_terms.py -n 1000000 --names --repeats 3
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from _process import cached_files, measure

CASES = ("numpy", "duckdb", "duckdb-1GB")


def _write(folder: Path, n: int, clusters: int, names: bool, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    records = np.arange(n, dtype=np.int64) * 7 + 1_000_000
    pred = rng.integers(0, n // 4, size=n)
    truth = pred.copy()
    moved = rng.random(n) < 0.1
    truth[moved] = rng.integers(0, n // 4, size=int(moved.sum()))
    order = rng.permutation(n)
    columns: dict[str, Any] = {"record_id": records[order], "cluster_id": pred[order]}
    if names:
        columns["name"] = pa.array(rng.integers(0, 5000, size=n).astype(str)[order])
    p = folder / "pred.parquet"
    pq.write_table(pa.table(columns), p)
    chosen = np.unique(rng.choice(truth, clusters))
    keep = np.flatnonzero(np.isin(truth, chosen))
    s = folder / "sample.parquet"
    pq.write_table(pa.table({"record_id": records[keep], "cluster_id": truth[keep].astype(str)}), s)
    return p, s


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--clusters", type=int, default=200, help="sampled true clusters")
    parser.add_argument("--names", action="store_true", help="a name column (--names name)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per case (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument("--data-dir", type=Path, default=None, help="keep the files here")
    args = parser.parse_args()
    chosen = [c.strip() for c in args.cases.split(",") if c.strip()]
    if any(c not in CASES for c in chosen):
        parser.error(f"choose cases among {', '.join(CASES)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data_dir or Path(tmp)
        p, s = folder / "pred.parquet", folder / "sample.parquet"
        key = f"terms-{args.n}-{args.clusters}-{args.names}-{args.seed}"
        write = lambda: _write(folder, args.n, args.clusters, args.names, args.seed)  # noqa: E731
        cached_files(folder, key, write)
        spill = Path(tmp) / "spill"
        spill.mkdir()
        base = [sys.executable, "-m", "ereval", "estimate", "--pred", str(p), "--sample", str(s)]
        base += ["--design", "cluster", "--weights", "uniform", "-f", "json", "-q"]
        if args.names:
            base += ["--names", "name"]
        commands = {
            "numpy": [*base, "--engine", "numpy"],
            "duckdb": [*base, "--engine", "duckdb"],
            "duckdb-1GB": [
                *base,
                "--engine",
                "duckdb",
                "--memory-limit",
                "1GB",
                "--temp-dir",
                str(spill),
            ],
        }
        best: dict[str, dict[str, Any]] = {}
        for _ in range(args.repeats):
            for name in chosen:
                r = measure(commands[name])
                if name not in best or r["cpu"] < best[name]["cpu"]:
                    best[name] = r
        n_sample = pq.read_metadata(s).num_rows
    print(
        f"N = {args.n:,} records, sample of {args.clusters} drawn clusters "
        f"({n_sample} records), names: {args.names}, best of {args.repeats}"
    )
    ref = best.get("numpy")
    print(f"{'case':<12}{'CPU s':>9}{'wall s':>9}{'RSS MB':>9}{'CPU x':>8}{'wall x':>8}")
    for name, r in best.items():
        cpu_x = f"{r['cpu'] / ref['cpu']:.2f}" if ref else "-"
        wall_x = f"{r['wall'] / ref['wall']:.2f}" if ref else "-"
        print(
            f"{name:<12}{r['cpu']:>9.2f}{r['wall']:>9.2f}{r['rss_mb']:>9.0f}{cpu_x:>8}{wall_x:>8}"
        )
    outs = [json.loads(r["out"]) for r in best.values()]
    same = all(_close(o, outs[0]) for o in outs[1:])
    print("same estimates (integers equal, floats to 1e-12):", "yes" if same else "NO")


if __name__ == "__main__":
    main()
