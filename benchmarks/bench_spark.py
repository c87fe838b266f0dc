"""The Spark engine against the DuckDB engine on the same files, and what each stage costs.

Writes a truth and a prediction of N records (Parquet, int64 ids; the prediction
shuffled, 10% of its records moved to another cluster; the prediction as a
folder of part files, as Spark writes them), then in this process:

* builds the contingency table, then computes the table's sufficient
  statistics (``statistics()``, only aggregates coming back), with
  ``DuckDBEngine(threads=2)`` (wall and CPU seconds of this process: DuckDB's
  threads run in it) and with ``SparkEngine`` on a local session (``local[2]``,
  started and warmed up before the clock runs; wall seconds and CPU seconds of
  this process plus the Spark JVM, read from ``/proc``);
* checks that the two tables are identical, array for array, and the two
  statistics equal (integers exactly, floats to 1e-12);
* reads Spark's event log and prints, per stage, its tasks, the records read,
  the shuffle bytes written and the executor CPU time, per record of the two
  inputs (the figures behind the cluster estimate of ``docs/engines.md``), and
  the physical plan of the join (``explain``).

    python benchmarks/bench_spark.py                    # N = 10^6 and 10^7
    python benchmarks/bench_spark.py -n 1000000 --repeats 3
    python benchmarks/bench_spark.py -n 100000000 --jobs statistics --driver-memory 8g
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ereval.engines import DuckDBEngine, SparkEngine
from ereval.engines import _dialect as sql
from ereval.engines._spark_session import new_session
from ereval.statistics import (
    FLOAT_STATISTICS,
    INTEGER_STATISTICS,
    compute_statistics,
    compute_table,
)


def _write(folder: Path, n: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    records = rng.permutation(n).astype(np.int64) * 7 + 1_000_000
    truth = rng.integers(0, n // 4, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.1
    pred[moved] = rng.integers(0, n // 4, size=int(moved.sum()))
    order = rng.permutation(n)
    t = folder / "truth.parquet"
    pq.write_table(pa.table({"record_id": records, "cluster_id": truth}), t)
    parts = folder / "pred"
    parts.mkdir()
    (parts / "_SUCCESS").write_text("")
    for k, chunk in enumerate(np.array_split(order, 4)):
        pq.write_table(
            pa.table({"record_id": records[chunk], "cluster_id": pred[chunk]}),
            parts / f"part-{k:05d}.parquet",
        )
    return t, parts


def _jvm_cpu(spark: Any) -> float:
    """CPU seconds used so far by the Spark JVM (user + system)."""
    pid = spark.sparkContext._gateway.proc.pid
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _events(log_dir: Path) -> list[dict[str, Any]]:
    """Every event of the run's log (one file, or a folder of rolled files)."""
    out = []
    for entry in sorted(log_dir.iterdir()):
        files = sorted(entry.iterdir()) if entry.is_dir() else [entry]
        for path in files:
            if path.name.startswith(("events_", "local-", "eventlog")) or entry is path:
                with open(path, encoding="utf-8") as fh:
                    out.extend(json.loads(line) for line in fh if line.strip())
    return out


def _stages(log_dir: Path, group: str) -> list[dict[str, Any]]:
    """Per stage of the jobs of ``group``: name, tasks, records read, shuffle bytes, CPU."""
    events = _events(log_dir)
    wanted: set[int] = set()
    for e in events:
        if e.get("Event") == "SparkListenerJobStart":
            if (e.get("Properties") or {}).get("spark.jobGroup.id") == group:
                wanted.update(e["Stage IDs"])
    stats: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"tasks": 0, "input_records": 0, "shuffle_read": 0, "shuffle_write": 0, "cpu": 0.0}
    )
    names: dict[int, str] = {}
    for event in events:
        kind = event.get("Event")
        if kind == "SparkListenerStageCompleted":
            info = event["Stage Info"]
            names[info["Stage ID"]] = info["Stage Name"]
        elif kind == "SparkListenerTaskEnd" and event.get("Task Metrics"):
            if event["Stage ID"] not in wanted:
                continue
            m = event["Task Metrics"]
            s = stats[event["Stage ID"]]
            s["tasks"] += 1
            s["input_records"] += m["Input Metrics"]["Records Read"]
            read = m["Shuffle Read Metrics"]
            s["shuffle_read"] += read["Remote Bytes Read"] + read["Local Bytes Read"]
            s["shuffle_write"] += m["Shuffle Write Metrics"]["Shuffle Bytes Written"]
            s["cpu"] += m["Executor CPU Time"] / 1e9
    return [{"stage": k, "name": names.get(k, "?"), **v} for k, v in sorted(stats.items())]


def _print_stages(stages: list[dict[str, Any]], n: int) -> None:
    records = 2 * n
    print(
        f"{'stage':>5} {'tasks':>5} {'records in':>12} {'shuffle w B':>12} "
        f"{'shuffle r B':>12} {'CPU s':>7}  name"
    )
    for s in stages:
        print(
            f"{s['stage']:>5} {s['tasks']:>5} {s['input_records']:>12,} "
            f"{s['shuffle_write']:>12,} {s['shuffle_read']:>12,} {s['cpu']:7.2f}  {s['name']}"
        )
    shuffle = sum(s["shuffle_write"] for s in stages)
    cpu = sum(s["cpu"] for s in stages)
    print(
        f"in all, per record of the two inputs ({records:,}): {shuffle / records:.1f} shuffle "
        f"bytes written, {cpu / records * 1e6:.2f} executor CPU microseconds"
    )


def _same(a: Any, b: Any) -> bool:
    return all(
        np.array_equal(getattr(a, k), getattr(b, k))
        for k in ("rows", "cols", "counts", "true_sizes", "pred_sizes")
    )


def _same_statistics(a: Any, b: Any) -> bool:
    differ = [k for k in INTEGER_STATISTICS if getattr(a, k) != getattr(b, k)] + [
        k
        for k in FLOAT_STATISTICS
        if not math.isclose(getattr(a, k), getattr(b, k), rel_tol=1e-12, abs_tol=1e-12)
    ]
    for k in differ:
        print(f"  {k}: duckdb {getattr(a, k)!r}, spark {getattr(b, k)!r}")
    return not differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--jobs", default="table,statistics", help="of: table, statistics")
    parser.add_argument("--driver-memory", default="4g", help="the Spark JVM's heap")
    args = parser.parse_args()
    jobs = [job.strip() for job in args.jobs.split(",")]
    if not jobs or any(job not in ("table", "statistics") for job in jobs):
        parser.error(f"--jobs: expected table and/or statistics; received {args.jobs!r}")
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = Path(tmp) / "events"
        log_dir.mkdir()
        spark = new_session(
            args.master,
            {
                "spark.driver.memory": args.driver_memory,
                "spark.sql.shuffle.partitions": "8",
                "spark.eventLog.enabled": "true",
                "spark.eventLog.dir": f"file://{log_dir}",
                "spark.eventLog.compress": "false",
                "spark.eventLog.rolling.enabled": "false",
            },
        )
        spark_engine = SparkEngine(session=spark)
        duck = DuckDBEngine(threads=2)
        warm = Path(tmp) / "warm"
        warm.mkdir()
        warm_t, warm_p = _write(warm, 10_000, seed=2)
        compute_table(spark_engine, warm_t, warm_p)  # JVM warm-up, untimed
        compute_statistics(spark_engine, warm_t, warm_p)
        print(f"Spark {spark.version} on {args.master}; DuckDB 2 threads; {os.cpu_count()} cores")
        rows = []
        for n in args.n:
            folder = Path(tmp) / f"n{n}"
            folder.mkdir()
            t, p = _write(folder, n, seed=1)
            for k in range(args.repeats):
                for job in jobs:
                    compute = compute_table if job == "table" else compute_statistics
                    w0, c0 = time.perf_counter(), time.process_time()
                    duck_result = compute(duck, t, p)
                    duck_wall, duck_cpu = time.perf_counter() - w0, time.process_time() - c0
                    spark.sparkContext.setJobGroup(f"{job}-n{n}-{k}", f"{n} records")
                    w0, c0, j0 = time.perf_counter(), time.process_time(), _jvm_cpu(spark)
                    spark_result = compute(spark_engine, t, p)
                    spark_wall = time.perf_counter() - w0
                    spark_cpu = time.process_time() - c0 + _jvm_cpu(spark) - j0
                    same = (
                        _same(duck_result, spark_result)
                        if job == "table"
                        else _same_statistics(duck_result, spark_result)
                    )
                    rows.append((n, duck_wall, duck_cpu, spark_wall, spark_cpu, same))
                    print(
                        f"{job:>10} n={n:>11,}  duckdb {duck_wall:7.2f} s wall "
                        f"{duck_cpu:7.2f} s CPU | spark {spark_wall:7.2f} s wall "
                        f"{spark_cpu:7.2f} s CPU | x duckdb: wall {spark_wall / duck_wall:5.2f}, "
                        f"CPU {spark_cpu / duck_cpu:5.2f} | same result: {same}",
                        flush=True,
                    )
        last = args.n[-1]
        print(f"\nphysical plan of the join and grouping (n={last:,}):")
        for view, name in (("bench_t", "truth.parquet"), ("bench_p", "pred")):
            frame = spark.read.parquet(str(Path(tmp) / f"n{last}" / name))
            frame.selectExpr("record_id AS r", "cluster_id AS c").createOrReplaceTempView(view)
        spark.sql(sql.cells_sql("bench_t", "bench_p")).explain()
        spark.stop()
        for n in args.n:
            for job in jobs:
                print(f"\nstages of the Spark {job}, n={n:,} (first repeat):")
                _print_stages(_stages(log_dir, f"{job}-n{n}-0"), n)
        if not all(r[-1] for r in rows):
            raise SystemExit("the engines' tables differ")


if __name__ == "__main__":
    main()
