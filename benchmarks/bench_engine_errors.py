"""The error tables per engine: CPU time, wall time and peak memory of `ereval errors`.

Uses the data of ``bench_engines.py`` (a truth and a prediction of N records in
Parquet, the prediction shuffled, 10% of its records moved) and runs, each in a
fresh process:

* ``bare``: the bare DuckDB join grouped by the pair of cluster ids, its cells
  fetched (the floor of ``bench_engines.py``);
* ``numpy``: ``ereval errors TRUTH PRED --by cluster -o x.parquet --engine numpy``;
* ``duckdb``: the same with ``--engine duckdb`` (DuckDB writes the file itself);
* ``duckdb-1GB``: the same with ``--memory-limit 1GB``.

CPU seconds (user + system of the process and its children), wall seconds and
peak resident memory, with ratios to the floor measured in the same run. The
files written by every engine must hold the same table (checked at the end).

    python benchmarks/bench_engine_errors.py                  # N = 10^7, by cluster
    python benchmarks/bench_engine_errors.py -n 1000000 --by record --ids text
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process import cached_files, measure
from bench_engines import _BARE, _write

CASES = ("bare", "numpy", "duckdb", "duckdb-1GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000_000, help="records (default 10^7)")
    parser.add_argument("--ids", choices=("int", "text"), default="int", help="record id kind")
    parser.add_argument("--by", choices=("cluster", "record"), default="cluster")
    parser.add_argument("--repeats", type=int, default=1, help="runs per case (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument("--data-dir", type=Path, default=None, help="keep and reuse the files")
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
        outs = {name: Path(tmp) / f"{name}.parquet" for name in CASES}

        def errors(name: str, *extra: str) -> list[str]:
            return [
                sys.executable, "-m", "ereval", "errors", str(t), str(p), "--by", args.by,
                "-o", str(outs[name]), "-q", *extra,
            ]  # fmt: skip

        commands = {
            "bare": [sys.executable, "-c", _BARE, str(t), str(p)],
            "numpy": errors("numpy", "--engine", "numpy"),
            "duckdb": errors("duckdb", "--engine", "duckdb"),
            "duckdb-1GB": errors(
                "duckdb-1GB",
                "--engine",
                "duckdb",
                "--memory-limit",
                "1GB",
                "--temp-dir",
                str(spill),
            ),
        }
        best: dict[str, dict[str, float | str]] = {}
        for _ in range(args.repeats):
            for name in chosen:
                r = measure(commands[name])
                if name not in best or float(r["cpu"]) < float(best[name]["cpu"]):
                    best[name] = r
        tables = [pq.read_table(outs[n]) for n in chosen if n != "bare"]
        same = all(
            tab.column_names == tables[0].column_names
            and all(tab.column(c).equals(tables[0].column(c)) for c in tab.column_names)
            for tab in tables[1:]
        )
        rows = tables[0].num_rows if tables else 0
    print(
        f"{args.n:,} records ({args.ids} ids) from Parquet, {os.cpu_count()} cores, "
        f"best of {args.repeats}; `ereval errors --by {args.by} -o x.parquet` ({rows:,} rows); "
        "ratios to the bare join"
    )
    print(f"{'case':<14}{'CPU s':>8}{'x bare':>8}{'wall s':>8}{'x bare':>8}{'peak MB':>9}")
    floor = best.get("bare")
    for name in chosen:
        r = best[name]
        cpu, wall, rss = float(r["cpu"]), float(r["wall"]), float(r["rss_mb"])
        x_cpu = f"{cpu / float(floor['cpu']):.2f}" if floor else "-"
        x_wall = f"{wall / float(floor['wall']):.2f}" if floor else "-"
        print(f"{name:<14}{cpu:>8.2f}{x_cpu:>8}{wall:>8.2f}{x_wall:>8}{rss:>9.0f}")
    if not same:
        sys.exit("the engines wrote different tables")
    print("every engine wrote the same table")


if __name__ == "__main__":
    main()
