"""How far DuckDB's process goes beyond DuckDB's own ``memory_limit``.

DuckDB's limit bounds its buffer manager, not every allocation it makes. This
benchmark measures the gap that :data:`ereval.engines._duckdb.OUTSIDE_BYTES` and
``OUTSIDE_SHARE`` stand for: for each limit, in a fresh process with DuckDB's
settings as ereval makes them (the limit, the allocator's flush thresholds at
32 MB, a temporary directory), it runs the heavy statements of the out-of-core
curve on ``--records`` records and ``--pairs`` scored pairs (the data of
``bench_curves_engines.py``): numbering the records, joining both ends of every
pair to them (a table larger than the limit), a ``GROUP BY`` on the score and a
``GROUP BY`` on the pair's key (spilled). It prints the peak resident memory above
the process's own before DuckDB started (sampled every 50 ms), the gap beyond the
limit, and the gap ``buffer_bytes`` allows for.

    python benchmarks/bench_duckdb_outside.py --records 1e7 --pairs 1e8 \\
        --limits 675MiB,954MiB,1485MiB,1716MiB
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_curves_engines import write_data

_CHILD = """
import json, sys, threading, time
import duckdb

def rss():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmRSS")) / 1024

limit, temp, truth, pairs, n = sys.argv[1:6]
base, peak = rss(), [0.0]

def sample():
    while True:
        peak[0] = max(peak[0], rss())
        time.sleep(0.05)

threading.Thread(target=sample, daemon=True).start()
con = duckdb.connect()
for setting in (f"memory_limit = '{limit}'", f"temp_directory = '{temp}'",
                "allocator_flush_threshold = '32MB'",
                "allocator_bulk_deallocation_flush_threshold = '32MB'",
                "allocator_background_threads = true", "preserve_insertion_order = false",
                "enable_progress_bar = false"):
    con.execute("SET " + setting)
con.execute(f"CREATE TEMP VIEW t AS SELECT record_id AS r, cluster_id AS c FROM '{truth}'")
con.execute("CREATE TEMP VIEW q AS SELECT record_id_1 AS r, record_id_2 AS c, score AS s "
            f"FROM '{pairs}'")
con.execute("CREATE TEMP TABLE tc AS SELECT r, row_number() OVER (ORDER BY r) - 1 AS code, "
            "dense_rank() OVER (ORDER BY c) - 1 AS k FROM t")
con.execute("CREATE TEMP TABLE qc AS SELECT a.code AS u, b.code AS v, q.s AS s, "
            "CASE WHEN a.k = b.k THEN 1 ELSE 0 END AS same FROM q "
            "JOIN tc AS a ON q.r = a.r JOIN tc AS b ON q.c = b.r")
con.execute("SELECT s, count(*), sum(same) FROM qc GROUP BY s").fetchall()
con.execute(f"SELECT sum(k - 1) FROM (SELECT count(*) AS k FROM qc GROUP BY "
            f"CAST(least(u, v) AS BIGINT) * {n} + greatest(u, v) HAVING count(*) > 1)").fetchall()
print(json.dumps({"base": base, "peak": peak[0]}))
"""


def _mib(size: str) -> float:
    from ereval.engines._plan import limit_bytes

    return limit_bytes(size) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=float, default=1e6)
    parser.add_argument("--pairs", type=float, default=1e7)
    parser.add_argument("--limits", default="64MiB,128MiB,256MiB")
    parser.add_argument("--dir", type=Path, default=None, help="keep and reuse the data")
    args = parser.parse_args()
    from ereval.engines._duckdb import OUTSIDE_BYTES, OUTSIDE_SHARE

    n, m = int(args.records), int(args.pairs)
    directory = args.dir or Path(tempfile.gettempdir()) / "ereval_bench_curves"
    directory.mkdir(parents=True, exist_ok=True)
    truth, pairs = write_data(directory, n, m)
    print(f"N = {n:,} records, M = {m:,} pairs; data in {directory}")
    print(
        f"{'limit MiB':>10} {'peak above base MiB':>20} {'beyond limit MiB':>17} {'allowed MiB':>12}"
    )
    for limit in args.limits.split(","):
        with tempfile.TemporaryDirectory(dir=directory) as temp:
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, limit, temp, str(truth), str(pairs), str(n)],
                capture_output=True,
                text=True,
            )
        if out.returncode:
            sys.exit(f"limit {limit} failed:\n{out.stderr}")
        got = json.loads(out.stdout.strip().splitlines()[-1])
        used = got["peak"] - got["base"]
        allowed = OUTSIDE_BYTES / 2**20 + OUTSIDE_SHARE * _mib(limit)
        print(f"{_mib(limit):>10.0f} {used:>20.0f} {used - _mib(limit):>17.0f} {allowed:>12.0f}")


if __name__ == "__main__":
    main()
