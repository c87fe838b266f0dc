"""`ereval metrics` on 2^30 (about 10^9) records per side on one machine.

Writes a truth and a prediction of ``2^k`` records each (Parquet, ``--parts``
files per side, about 20 GB at k = 30) without holding them in memory: record
``i`` has the id ``(a * i + b) mod 2^k`` (a bijection of ``0 .. 2^k - 1``, so the
ids are every integer once, in a scrambled order), the true cluster ``i // 4``
(ascending from file to file), and the predicted cluster ``i // 4`` except for
one record in ten, moved to a cluster drawn in its own file's range. The
prediction's files are written in reverse order, their rows reversed.

Then runs, each in a fresh process:

* ``ereval``: ``ereval metrics --engine duckdb --memory-limit LIMIT --temp-dir DIR``
  (every canonical metric);
* ``bare``: ``SELECT t.cluster_id, p.cluster_id, count(*) FROM t JOIN p USING
  (record_id) GROUP BY ALL`` in DuckDB with its default memory limit (80% of the
  memory), spilling to the same directory, its cells fetched into NumPy
  (``--skip-bare`` leaves it out).

It prints CPU seconds (user + system), wall seconds, peak resident memory and the
ratios of ereval to bare, and the peak disk space of the temporary directory.

    python benchmarks/bench_billion.py --data-dir /data/billion --log2-n 30
    python benchmarks/bench_billion.py --data-dir /tmp/b --log2-n 24   # a quick try
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from _process import cached_files

_A = 0x9E3779B97F4A7C15  # odd: i -> a * i + b is a bijection modulo 2^k


def _ids(start: int, stop: int, bits: int) -> np.ndarray:
    i = np.arange(start, stop, dtype=np.uint64)
    with np.errstate(over="ignore"):
        out = i * np.uint64(_A) + np.uint64(12345)
    return (out & np.uint64((1 << bits) - 1)).astype(np.int64)


def write_files(folder: Path, bits: int, parts: int, seed: int) -> None:
    """The truth and the prediction of ``2^bits`` records, ``parts`` files each."""
    n = 1 << bits
    step = n // parts
    for name in ("truth", "pred"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    for k in range(parts):
        start, stop = k * step, n if k == parts - 1 else (k + 1) * step
        done = [
            folder / "truth" / f"part-{k:04d}.parquet",
            folder / "pred" / f"part-{parts - 1 - k:04d}.parquet",
        ]
        if all(f.exists() and pq.ParquetFile(f).metadata.num_rows == stop - start for f in done):
            continue  # written by an earlier, interrupted run
        ids = _ids(start, stop, bits)
        truth = np.arange(start, stop, dtype=np.int64) // 4
        pred = truth.copy()
        rng = np.random.default_rng([seed, k])  # each part on its own, so parts can resume
        moved = rng.random(stop - start) < 0.1
        pred[moved] = rng.integers(start // 4, (stop - 1) // 4 + 1, size=int(moved.sum()))
        pq.write_table(
            pa.table({"record_id": ids, "cluster_id": truth}),
            folder / "truth" / f"part-{k:04d}.parquet",
        )
        back = slice(None, None, -1)
        pq.write_table(
            pa.table({"record_id": ids[back], "cluster_id": pred[back]}),
            folder / "pred" / f"part-{parts - 1 - k:04d}.parquet",
        )
        print(f"written {k + 1}/{parts}", file=sys.stderr, flush=True)


_BARE = """
import sys, duckdb
con = duckdb.connect()
con.execute(f"SET temp_directory = '{sys.argv[3]}'")
cells = con.execute(
    "SELECT t.cluster_id AS tc, p.cluster_id AS pc, count(*) AS n "
    "FROM read_parquet(?) AS t JOIN read_parquet(?) AS p USING (record_id) GROUP BY ALL",
    [sys.argv[1], sys.argv[2]],
).fetchnumpy()
print(len(cells["n"]))
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


def _disk(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def measure(cmd: list[str], spill: Path) -> dict[str, object]:
    """``{"cpu", "wall", "rss_mb", "ok", "out", "err", "disk_gb"}`` of ``cmd`` in a
    fresh process, with the peak size of ``spill`` sampled every 2 seconds."""
    peak = [0]
    running = threading.Event()
    running.set()

    def watch() -> None:
        while running.is_set():
            peak[0] = max(peak[0], _disk(spill))
            time.sleep(2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out = subprocess.run([sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True)
    running.clear()
    watcher.join()
    result: dict[str, object] = json.loads(out.stdout)
    result["disk_gb"] = peak[0] / 1e9
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="where the files go")
    parser.add_argument("--log2-n", type=int, default=30, help="2^K records per side (30)")
    parser.add_argument("--parts", type=int, default=64, help="files per side (64)")
    parser.add_argument("--memory-limit", default="4GB", help="ereval's limit (4GB)")
    parser.add_argument("--skip-bare", action="store_true", help="do not run the bare join")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = args.data_dir / f"billion-{args.log2_n}-{args.parts}-{args.seed}"
    cached_files(folder, "written", lambda: write_files(folder, args.log2_n, args.parts, args.seed))
    spill = args.data_dir / "spill"
    t, p = str(folder / "truth"), str(folder / "pred")
    cases = {
        "ereval": [
            sys.executable,
            "-m",
            "ereval",
            "metrics",
            t,
            p,
            "-f",
            "json",
            "-q",
            "--engine",
            "duckdb",
            "--memory-limit",
            args.memory_limit,
            "--temp-dir",
            str(spill),
        ],
    }
    if not args.skip_bare:
        cases["bare"] = [
            sys.executable,
            "-c",
            _BARE,
            f"{t}/*.parquet",
            f"{p}/*.parquet",
            str(spill),
        ]
    got = {}
    for name, cmd in cases.items():
        shutil.rmtree(spill, ignore_errors=True)
        spill.mkdir(parents=True)
        got[name] = measure(cmd, spill)
        print(f"done: {name}", file=sys.stderr, flush=True)
    shutil.rmtree(spill, ignore_errors=True)
    print(
        f"{1 << args.log2_n:,} records per side ({args.parts} Parquet files each), "
        f"{os.cpu_count()} cores; ereval with --memory-limit {args.memory_limit}"
    )
    print(f"  {'case':<8}{'CPU s':>9}{'wall s':>9}{'peak MB':>9}{'temp GB':>9}")
    for name, r in got.items():
        if not r["ok"]:
            err = (str(r["err"]).strip().splitlines() or ["?"])[-1][:90]
            print(f"  {name:<8}{'failed':>9}  {err}")
            continue
        print(
            f"  {name:<8}{float(r['cpu']):>9.0f}{float(r['wall']):>9.0f}"  # type: ignore[arg-type]
            f"{float(r['rss_mb']):>9.0f}{float(r['disk_gb']):>9.1f}"  # type: ignore[arg-type]
        )
    if all(r["ok"] for r in got.values()) and "bare" in got:
        ratio = float(got["ereval"]["cpu"]) / float(got["bare"]["cpu"])  # type: ignore[arg-type]
        print(f"  ereval / bare: {ratio:.2f}x CPU")
    if got["ereval"]["ok"]:
        print("  metrics:", json.dumps(json.loads(str(got["ereval"]["out"]))))


if __name__ == "__main__":
    main()
