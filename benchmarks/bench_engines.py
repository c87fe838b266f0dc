"""The engines side by side: CPU time and peak memory of `ereval metrics` per engine.

Writes a truth and a prediction of N records (Parquet; the prediction shuffled,
10% of its records moved to another cluster), then runs, each in a fresh
process, and reports CPU seconds (user + system of the process and its
children) and peak resident memory:

* ``bare``: a bare DuckDB query over the same files, ``SELECT t.cluster_id,
  p.cluster_id, count(*) FROM t JOIN p USING (record_id) GROUP BY ALL``, its
  cells fetched into NumPy: the least any DuckDB-based engine must do (the floor);
* ``bare-1GB``: the same with DuckDB's memory limit at 1 GB (spilling to a
  temporary directory);
* ``numpy``: ``ereval metrics --engine numpy`` (every canonical metric);
* ``duckdb``: ``ereval metrics --engine duckdb``;
* ``duckdb-1GB``: ``ereval metrics --engine duckdb --memory-limit 1GB``.

CPU seconds (user + system of the process and its children), wall seconds and
peak resident memory; ratios are to the floor measured in the same run with the
same memory limit. Every ereval run must print the same metrics (integers
equal, floats to 1e-12).

    python benchmarks/bench_engines.py                 # N = 10^7, integer ids
    python benchmarks/bench_engines.py -n 1000000 --ids text --repeats 3
    # only the floor and the NumPy engine, with the NumPy engine's phases
    python benchmarks/bench_engines.py --cases bare,numpy --repeats 3 --phases
    # the floor and the DuckDB engine, with the engine's statements and NumPy steps
    python benchmarks/bench_engines.py --cases bare-1GB,duckdb-1GB --duckdb-phases
    # 10^8: the files are written once into --data-dir and reused
    python benchmarks/bench_engines.py -n 100000000 --cases bare-1GB,duckdb-1GB \\
        --data-dir /tmp/ereval-bench-1e8
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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from _process import cached_files, measure


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


_BARE = """
import sys, duckdb
con = duckdb.connect()
if len(sys.argv) > 3:
    con.execute(f"SET memory_limit = '{sys.argv[3]}'")
    con.execute(f"SET temp_directory = '{sys.argv[4]}'")
cells = con.execute(
    "SELECT t.cluster_id AS tc, p.cluster_id AS pc, count(*) AS n "
    "FROM read_parquet(?) AS t JOIN read_parquet(?) AS p USING (record_id) GROUP BY ALL",
    [sys.argv[1], sys.argv[2]],
).fetchnumpy()
print(len(cells["n"]))
"""


_PHASES = """
import sys, time
clock = [time.perf_counter(), time.process_time()]
def lap(name):
    wall, cpu = time.perf_counter(), time.process_time()
    print(f"  {name:<34}{cpu - clock[1]:>8.2f}{wall - clock[0]:>8.2f}")
    clock[:] = [wall, cpu]
from ereval.cli._app import build_app
build_app("metrics")
lap("imports (the metrics command)")
from ereval.contingency import contingency_table
from ereval.metrics._registry import evaluate
from ereval.statistics import statistics_of
table = contingency_table(sys.argv[1], sys.argv[2])
lap("reading both files and the table")
evaluate(statistics_of(table))
lap("every canonical metric")
"""


_DUCKDB_PHASES = """
import sys, time
from ereval.engines import DuckDBEngine
from ereval.statistics import _sql as duckdb_stats
from ereval.statistics import _stream as duckdb_stream
from ereval.statistics import compute_statistics
def lap(name, cpu, wall):
    print(f"  {name[:64]:<66}{time.process_time() - cpu:>8.2f}{time.perf_counter() - wall:>8.2f}")
def timed(name, f):
    def run(*args, **kwargs):
        cpu, wall = time.process_time(), time.perf_counter()
        out = f(*args, **kwargs)
        lap(name, cpu, wall)
        return out
    return run
for step in ("_cell_pass", "aligned_totals"):
    setattr(duckdb_stats, step, timed("numpy: " + step.strip("_"), getattr(duckdb_stats, step)))
# the join's groups streamed into the code arrays: the join itself runs meanwhile
name = "sql + numpy: the join grouped, streamed into arrays (fetch)"
duckdb_stream._fetch = timed(name, duckdb_stream._fetch)
class Timed:
    def __init__(self, con):
        self.con = con
    def __getattr__(self, name):
        return getattr(self.con, name)
    def execute(self, query, *args):
        return timed("sql: " + " ".join(query.split()), self.con.execute)(query, *args)
engine = DuckDBEngine(memory_limit=sys.argv[3], temp_dir=sys.argv[4])
connect = engine.connect
engine.connect = lambda: Timed(connect())
cpu, wall = time.process_time(), time.perf_counter()
compute_statistics(engine, sys.argv[1], sys.argv[2])
lap("whole compute_statistics() call", cpu, wall)
"""


def _same(outputs: list[str]) -> bool:
    """Whether the runs printed the same metrics: integers equal, floats to 1e-12."""
    parsed = [json.loads(o) for o in outputs]
    first = parsed[0]
    for other in parsed[1:]:
        if other.keys() != first.keys():
            return False
        for key, value in first.items():
            a = other[key]
            if value is None or a is None:
                if value is not a:
                    return False
            elif not math.isclose(a, value, rel_tol=1e-12, abs_tol=1e-12):
                return False
    return True


CASES = ("bare", "bare-1GB", "numpy", "duckdb", "duckdb-1GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--ids", choices=("int", "text"), default="int", help="record id kind")
    parser.add_argument("--repeats", type=int, default=1, help="runs per case (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cases",
        default=",".join(CASES),
        help=f"comma-separated cases among {', '.join(CASES)} (default: all)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the generated files here and reuse them on the next run "
        "(default: a temporary directory)",
    )
    parser.add_argument(
        "--duckdb-phases",
        action="store_true",
        help="also print the CPU and wall seconds of each statement and NumPy step of the "
        "DuckDB engine's statistics with a 1 GB memory limit (in one process)",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="also print the CPU and wall seconds of each phase of the NumPy engine "
        "(in one process, as `ereval metrics` runs them; interpreter start not included)",
    )
    args = parser.parse_args()
    chosen = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {unknown}; choose among {', '.join(CASES)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data_dir or Path(tmp)
        t, p = folder / "truth.parquet", folder / "pred.parquet"
        key = f"written-{args.n}-{args.ids}-{args.seed}"
        cached_files(folder, key, lambda: _write(folder, args.n, args.ids, args.seed))
        spill = Path(tmp) / "spill"
        spill.mkdir()
        ereval = [sys.executable, "-m", "ereval", "metrics", str(t), str(p), "-f", "json", "-q"]
        limited = ("--memory-limit", "1GB", "--temp-dir", str(spill))
        commands = {
            "bare": [sys.executable, "-c", _BARE, str(t), str(p)],
            "bare-1GB": [sys.executable, "-c", _BARE, str(t), str(p), "1GB", str(spill)],
            "numpy": [*ereval, "--engine", "numpy"],
            "duckdb": [*ereval, "--engine", "duckdb"],
            "duckdb-1GB": [*ereval, "--engine", "duckdb", *limited],
        }
        best: dict[str, dict[str, float | str]] = {}
        for _ in range(args.repeats):
            for name in chosen:
                r = measure(commands[name])
                if name not in best or float(r["cpu"]) < float(best[name]["cpu"]):
                    best[name] = r
        if args.phases:
            run = subprocess.run(
                [sys.executable, "-c", _PHASES, str(t), str(p)], capture_output=True, text=True
            )
            phases = run.stdout.rstrip() if not run.returncode else run.stderr
        if args.duckdb_phases:
            cmd = [sys.executable, "-c", _DUCKDB_PHASES, str(t), str(p), "1GB", str(spill)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            duck_phases = run.stdout.rstrip() if not run.returncode else run.stderr
    outputs = [str(best[name]["out"]) for name in chosen if not name.startswith("bare")]
    print(
        f"{args.n:,} records ({args.ids} ids) from Parquet, {os.cpu_count()} cores, "
        f"best of {args.repeats}; ratios to the bare join with the same memory limit"
    )
    print(f"{'case':<14}{'CPU s':>8}{'x bare':>8}{'wall s':>8}{'x bare':>8}{'peak MB':>9}")
    for name in chosen:
        r = best[name]
        floor = best.get("bare-1GB" if name.endswith("1GB") else "bare")
        cpu, wall, rss = float(r["cpu"]), float(r["wall"]), float(r["rss_mb"])
        x_cpu = f"{cpu / float(floor['cpu']):.2f}" if floor else "-"
        x_wall = f"{wall / float(floor['wall']):.2f}" if floor else "-"
        print(f"{name:<14}{cpu:>8.2f}{x_cpu:>8}{wall:>8.2f}{x_wall:>8}{rss:>9.0f}")
    if args.phases:
        print("numpy engine by phase                 CPU s  wall s")
        print(phases)
    if args.duckdb_phases:
        print(f"{'duckdb engine (1 GB) by statement and step':<68}CPU s  wall s")
        print(duck_phases)
    if len(outputs) > 1 and not _same(outputs):
        sys.exit("the engines printed different results")


if __name__ == "__main__":
    main()
