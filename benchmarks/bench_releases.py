"""`ereval compare` and `ereval monitor` on NumPy and on DuckDB under a memory limit.

Writes a series of releases of N records each (Parquet): release 0 has record
ids 0..N-1 shuffled and uniform cluster sizes (mean 4); each later release
drops 2% of the records, adds as many new ones, moves 10% of the records to
another cluster and writes its rows in reverse order. Then runs, each in a fresh
process, with the CPU seconds (user + system), wall seconds and peak resident
memory of the process:

* ``bare``: the join of the last two releases by record id grouped by the pair of
  cluster ids in DuckDB, unlimited, its cells fetched into NumPy (the floor);
* ``compare-numpy``, ``compare-duckdb-1GB``: ``ereval compare`` of the last two
  releases with ``--engine numpy`` / ``--engine duckdb --memory-limit 1GB``;
* ``monitor-numpy``, ``monitor-duckdb-1GB``: ``ereval monitor`` of every release.

Each command's JSON must be the same on both engines (integers equal, floats to
1e-12); the table says so. The bar: 10^7 records within 1.5 GB of peak RSS under
a 1 GB limit.

    python benchmarks/bench_releases.py -n 1000000
    python benchmarks/bench_releases.py -n 10000000 --releases 3 --data-dir /tmp/ereval-releases
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from _process import cached_files, measure

CASES = ("bare", "compare-numpy", "compare-duckdb-1GB", "monitor-numpy", "monitor-duckdb-1GB")

_BARE = """
import sys
import duckdb
con = duckdb.connect()
cells = con.execute(
    "SELECT t.cluster_id AS tc, p.cluster_id AS pc, count(*) AS n "
    "FROM read_parquet(?) AS t FULL OUTER JOIN read_parquet(?) AS p USING (record_id) "
    "GROUP BY ALL",
    [sys.argv[1], sys.argv[2]],
).fetchnumpy()
print(len(cells["n"]))
"""


def write_releases(folder: Path, n: int, k: int, seed: int) -> None:
    """``k`` releases of ``n`` records each (see the module docstring)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    n_clusters = max(1, n // 4)
    ids = rng.permutation(n).astype(np.int64)
    clusters = rng.integers(0, n_clusters, size=n).astype(np.int64)
    next_id = n
    for r in range(k):
        if r:
            keep = rng.random(ids.shape[0]) >= 0.02
            added = int((~keep).sum())
            ids = np.concatenate([ids[keep], np.arange(next_id, next_id + added)])
            clusters = np.concatenate(
                [clusters[keep], rng.integers(0, n_clusters, size=added).astype(np.int64)]
            )
            next_id += added
            moved = rng.random(ids.shape[0]) < 0.1
            clusters[moved] = rng.integers(0, n_clusters, size=int(moved.sum()))
            ids, clusters = ids[::-1].copy(), clusters[::-1].copy()
        table = pa.table({"record_id": ids, "cluster_id": clusters})
        pq.write_table(table, folder / f"release-2024-{r + 1:02d}-01.parquet")


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float | int):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records per release")
    parser.add_argument("--releases", type=int, default=3, help="releases (default 3)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument("--memory-limit", default="1GB", help="the limit of the *-1GB cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=None, help="keep and reuse the files")
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    bad = [c for c in cases if c not in CASES]
    if bad or args.releases < 2:
        parser.error(f"unknown case(s) {bad}" if bad else "--releases must be at least 2")
    with tempfile.TemporaryDirectory() as tmp:
        base = args.data_dir or Path(tmp)
        spill = Path(tmp) / "spill"
        spill.mkdir()
        folder = base / f"releases-{args.n}-{args.releases}-{args.seed}"
        cached_files(
            folder, "written", lambda: write_releases(folder, args.n, args.releases, args.seed)
        )
        files = sorted(str(p) for p in folder.glob("*.parquet"))
        limited = ["--memory-limit", args.memory_limit, "--temp-dir", str(spill)]
        ereval = [sys.executable, "-m", "ereval"]
        compare = [*ereval, "compare", files[-2], files[-1], "-f", "json", "-q"]
        monitor = [*ereval, "monitor", *files, "-f", "json", "-q"]
        commands = {
            "bare": [sys.executable, "-c", _BARE, files[-2], files[-1]],
            "compare-numpy": [*compare, "--engine", "numpy"],
            "compare-duckdb-1GB": [*compare, "--engine", "duckdb", *limited],
            "monitor-numpy": [*monitor, "--engine", "numpy"],
            "monitor-duckdb-1GB": [*monitor, "--engine", "duckdb", *limited],
        }
        got = {}
        for name in cases:
            got[name] = measure(commands[name])
            print(f"done: {name}", file=sys.stderr, flush=True)
    floor = got.get("bare")
    print(
        f"{args.n:,} records per release, {args.releases} releases (Parquet), "
        f"{os.cpu_count()} cores; ratios to the bare DuckDB join of two releases"
    )
    print(f"  {'case':<20}{'CPU s':>8}{'wall s':>8}{'peak MB':>9}{'x CPU':>8}{'x wall':>8}")
    for name in cases:
        r = got[name]
        cpu, wall, rss = float(r["cpu"]), float(r["wall"]), float(r["rss_mb"])
        shown = (
            f"{cpu / floor['cpu']:>8.2f}{wall / floor['wall']:>8.2f}"
            if floor is not None
            else f"{'-':>8}{'-':>8}"
        )
        print(f"  {name:<20}{cpu:>8.1f}{wall:>8.1f}{rss:>9.0f}{shown}")
    for command in ("compare", "monitor"):
        pair = [got.get(f"{command}-numpy"), got.get(f"{command}-duckdb-1GB")]
        if all(pair):
            a, b = (json.loads(str(x["out"])) for x in pair if x is not None)
            print(f"{command}: {'same numbers' if _close(a, b) else 'DIFFERENT NUMBERS'}")


if __name__ == "__main__":
    main()
