"""Text record ids against integer ids: CPU time and peak memory of `ereval metrics`.

Writes a truth and a prediction of N records (Parquet) with the same clusters
and three kinds of record id — int64, ``rec-<n>`` text and 16-character hex
text (as hashed keys look) — then runs the whole `ereval metrics` process on
each, in a fresh interpreter, and reports CPU seconds (user + system) and peak
resident memory, with the ratio of each text kind to the integer ids measured
in the same run.

    python benchmarks/bench_string_ids.py            # N = 10^7
    python benchmarks/bench_string_ids.py -n 1000000 --repeats 3
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


def _ids(kind: str, n: int, rng: np.random.Generator) -> pa.Array:
    if kind == "int":
        return pa.array(rng.permutation(n).astype(np.int64) * 7 + 1_000_000)
    if kind == "rec":
        return pc.binary_join_element_wise(
            "rec-", pc.cast(pa.array(rng.permutation(n)), pa.string()), ""
        )
    raw = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)
    hexed = np.char.mod("%016x", raw)  # distinct with overwhelming probability
    return pa.array(hexed.tolist(), type=pa.string())


def _write(folder: Path, kind: str, n: int, seed: int) -> tuple[Path, Path]:
    ids = _ids(kind, n, np.random.default_rng([seed, 1]))
    rng = np.random.default_rng(seed)  # the same clusters and order for every kind of id
    truth_c = rng.integers(0, n // 4, size=n)
    pred_c = truth_c.copy()
    moved = rng.random(n) < 0.1
    pred_c[moved] = rng.integers(0, n // 4, size=int(moved.sum()))
    order = rng.permutation(n)
    t, p = folder / f"truth_{kind}.parquet", folder / f"pred_{kind}.parquet"
    pq.write_table(pa.table({"record_id": ids, "cluster_id": truth_c}), t)
    pq.write_table(
        pa.table({"record_id": ids.take(pa.array(order)), "cluster_id": pred_c[order]}), p
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


def _run(truth: Path, pred: Path) -> dict[str, float]:
    cmd = [sys.executable, "-m", "ereval", "metrics", str(truth), str(pred), "-f", "json"]
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout)
    scores = json.loads(result.pop("out"))
    result["pairwise_f1"] = scores["pairwise_f1"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per kind (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kinds = ("int", "rec", "hex")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {k: _write(folder, k, args.n, args.seed) for k in kinds}
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.repeats):
            for k in kinds:
                r = _run(*files[k])
                if k not in best or r["cpu"] < best[k]["cpu"]:
                    best[k] = r
    base = best["int"]
    print(f"ereval metrics, {args.n:,} records from Parquet, {os.cpu_count()} cores")
    print(f"{'ids':<6}{'CPU s':>9}{'x int':>8}{'peak MB':>10}{'x int':>8}{'pairwise F1':>14}")
    for k in kinds:
        r = best[k]
        print(
            f"{k:<6}{r['cpu']:>9.2f}{r['cpu'] / base['cpu']:>8.2f}"
            f"{r['rss_mb']:>10.0f}{r['rss_mb'] / base['rss_mb']:>8.2f}{r['pairwise_f1']:>14.6f}"
        )
    if len({round(best[k]["pairwise_f1"], 12) for k in kinds}) != 1:
        sys.exit("the id kinds gave different scores")


if __name__ == "__main__":
    main()
