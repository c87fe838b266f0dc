"""The engines side by side: CPU time and peak memory of `ereval metrics` per engine.

Writes a truth and a prediction of N records (Parquet; the prediction shuffled,
10% of its records moved to another cluster), then runs, each in a fresh
process, and reports CPU seconds (user + system of the process and its
children) and peak resident memory:

* ``ereval metrics --engine numpy`` (every canonical metric);
* ``ereval metrics --engine duckdb``;
* ``ereval metrics --engine duckdb --memory-limit 1GB`` (spilling to a
  temporary directory);
* a bare DuckDB query over the same files, ``SELECT t.cluster_id,
  p.cluster_id, count(*) FROM t JOIN p USING (record_id) GROUP BY ALL``, its
  cells fetched into NumPy: the least any DuckDB-based engine must do.

Ratios are to the bare query, measured in the same run. Every ereval run must
print the same JSON.

    python benchmarks/bench_engines.py                 # N = 10^7, integer ids
    python benchmarks/bench_engines.py -n 1000000 --ids text --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def _write(folder: Path, n: int, ids: str, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    records: pa.Array = pa.array(rng.permutation(n).astype(np.int64) * 7 + 1_000_000)
    if ids == "text":
        records = pc.binary_join_element_wise("rec-", pc.cast(records, pa.string()), "")
    truth = rng.integers(0, n // 4, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.1
    pred[moved] = rng.integers(0, n // 4, size=int(moved.sum()))
    order = pa.array(rng.permutation(n))
    t, p = folder / "truth.parquet", folder / "pred.parquet"
    pq.write_table(pa.table({"record_id": records, "cluster_id": truth}), t)
    pq.write_table(
        pa.table({"record_id": records.take(order), "cluster_id": pred[order.to_numpy()]}), p
    )
    return t, p


_CHILD = """
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
if proc.returncode:
    sys.exit(proc.stderr)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "rss_mb": use.ru_maxrss / 1024,
                  "out": proc.stdout}))
"""

_BARE = """
import sys, duckdb
con = duckdb.connect()
cells = con.execute(
    "SELECT t.cluster_id AS tc, p.cluster_id AS pc, count(*) AS n "
    "FROM read_parquet(?) AS t JOIN read_parquet(?) AS p USING (record_id) GROUP BY ALL",
    [sys.argv[1], sys.argv[2]],
).fetchnumpy()
print(len(cells["n"]))
"""


def _measure(cmd: list[str]) -> dict[str, float | str]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True, check=True
    )
    result: dict[str, float | str] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--ids", choices=("int", "text"), default="int", help="record id kind")
    parser.add_argument("--repeats", type=int, default=1, help="runs per case (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t, p = _write(folder, args.n, args.ids, args.seed)
        spill = folder / "spill"
        spill.mkdir()
        ereval = [sys.executable, "-m", "ereval", "metrics", str(t), str(p), "-f", "json", "-q"]
        cases = {
            "bare DuckDB join": [sys.executable, "-c", _BARE, str(t), str(p)],
            "--engine numpy": [*ereval, "--engine", "numpy"],
            "--engine duckdb": [*ereval, "--engine", "duckdb"],
            "--engine duckdb --memory-limit 1GB": [
                *ereval,
                *("--engine", "duckdb", "--memory-limit", "1GB", "--temp-dir", str(spill)),
            ],
        }
        best: dict[str, dict[str, float | str]] = {}
        for _ in range(args.repeats):
            for name, cmd in cases.items():
                r = _measure(cmd)
                if name not in best or float(r["cpu"]) < float(best[name]["cpu"]):
                    best[name] = r
    outputs = {str(best[name]["out"]) for name in cases if name.startswith("--")}
    base = best["bare DuckDB join"]
    print(
        f"{args.n:,} records ({args.ids} ids) from Parquet, {os.cpu_count()} cores, "
        f"best of {args.repeats}"
    )
    print(f"{'case':<38}{'CPU s':>8}{'x bare':>8}{'peak MB':>9}{'x bare':>8}")
    for name in cases:
        r = best[name]
        cpu, rss = float(r["cpu"]), float(r["rss_mb"])
        print(
            f"{name:<38}{cpu:>8.2f}{cpu / float(base['cpu']):>8.2f}"
            f"{rss:>9.0f}{rss / float(base['rss_mb']):>8.2f}"
        )
    if len(outputs) != 1:
        sys.exit("the engines printed different results")


if __name__ == "__main__":
    main()
