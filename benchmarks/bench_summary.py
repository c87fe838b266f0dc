"""Speed of summary statistics, release comparison and monitoring (seeded synthetic data).

* ``summary``: :func:`ereval.summary.summarize` of a clustering of N records (true
  cluster sizes Zipf(a=2) capped at 1000), from a pandas DataFrame with integer ids,
  and with a name per record (homonymy and name variation);
* ``monitor``: :func:`ereval.monitor` of R releases of M records, each
  moving 1% of the records of the previous one to another cluster;
* ``compare``: :func:`ereval.compare` of two releases of N records (the
  second moves 1% of the records and drops 1% / adds 1%), against
  :func:`ereval.evaluate` of the same pair with ``on_mismatch="intersection"``
  (pairwise, cluster and B-cubed, as ``compare`` computes them, and every canonical
  metric).

* ``--engines``: ``ereval summary`` of a Parquet file of N records (integer ids,
  the same Zipf cluster sizes, a name per record drawn from N / 3) on each engine,
  each in a fresh process, without and with ``--names``, against the floor: a bare
  DuckDB ``GROUP BY`` of the cluster ids then of their sizes over the same file (the
  size distribution, the least any engine must compute), measured in the same run.
  CPU seconds (user + system of the process and its children), wall seconds and
  peak resident memory; every engine must print the same statistics. For ``spark``
  the CPU and memory of the JVM, which the process does not wait for, are left out:
  read its wall time (a new local session included).

    python benchmarks/bench_summary.py                 # N = 1e7, R = 20, M = 1e6
    python benchmarks/bench_summary.py --n 1e6 --releases 5 --release-size 1e5
    python benchmarks/bench_summary.py --engines       # N = 1e7, ereval summary per engine
    python benchmarks/bench_summary.py --engines --n 1e6 --cases bare,numpy,duckdb,spark
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from _process import measure
from _synthetic import best_time, move_records, zipf_clusters
from ereval import compare, evaluate, monitor
from ereval.summary import summarize

_BARE = """
import sys, duckdb
con = duckdb.connect()
got = con.execute(
    "SELECT b AS size, count(*) AS clusters FROM (SELECT cluster_id, count(*) AS b "
    "FROM read_parquet(?) GROUP BY cluster_id) GROUP BY b", [sys.argv[1]]
).fetchnumpy()
print(len(got["size"]))
"""

#: The runs of ``--engines``: name -> (engine, with names).
_RUNS = {
    "numpy": ("numpy", False),
    "duckdb": ("duckdb", False),
    "spark": ("spark", False),
    "numpy+names": ("numpy", True),
    "duckdb+names": ("duckdb", True),
}


def engines(n: int, cases: list[str], repeats: int, seed: int) -> None:
    """``ereval summary`` per engine against the bare DuckDB floor (see the module)."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clustering.parquet"
        frame = pd.DataFrame(
            {
                "record_id": rng.permutation(n).astype(np.int64) * 7 + 1_000_000,
                "cluster_id": zipf_clusters(rng, n),
                "name": rng.integers(0, max(n // 3, 1), n),
            }
        )
        frame.to_parquet(path, index=False)
        del frame
        print(f"ereval summary of {n:.0e} records (Parquet, integer ids), best of {repeats}")
        print(f"{'run':<14}{'CPU s':>8}{'wall s':>8}{'RSS MB':>8}{'x CPU':>7}{'x wall':>7}")
        floor: dict[str, float | str] = {}
        outputs: dict[bool, list[str]] = {False: [], True: []}
        for case in cases:
            if case == "bare":
                cmd = [sys.executable, "-c", _BARE, str(path)]
            else:
                engine, names = _RUNS[case]
                cmd = [sys.executable, "-m", "ereval", "summary", str(path), "-f", "json"]
                cmd += ["--engine", engine] + (["--names", "name"] if names else [])
            runs = [measure(cmd) for _ in range(repeats)]
            best = min(runs, key=lambda r: float(r["cpu"]))
            if case == "bare":
                floor = best
            else:
                outputs[_RUNS[case][1]].append(str(best["out"]))
            cpu, wall = float(best["cpu"]), float(best["wall"])
            x_cpu = f"{cpu / float(floor['cpu']):.2f}" if floor else "-"
            x_wall = f"{wall / float(floor['wall']):.2f}" if floor else "-"
            print(
                f"{case:<14}{cpu:>8.2f}{wall:>8.2f}{float(best['rss_mb']):>8.0f}"
                f"{x_cpu:>7}{x_wall:>7}"
            )
        same = all(len(set(o)) <= 1 for o in outputs.values())
        print("every engine printed the same statistics" if same else "OUTPUTS DIFFER")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=float, default=1e7, help="records of summary and compare")
    parser.add_argument("--releases", type=int, default=20, help="releases monitored")
    parser.add_argument("--release-size", type=float, default=1e6, help="records per release")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--engines", action="store_true", help="ereval summary per engine (see above)"
    )
    parser.add_argument(
        "--cases",
        default="bare,numpy,duckdb,numpy+names,duckdb+names",
        help="runs of --engines, comma-separated: bare, " + ", ".join(_RUNS),
    )
    args = parser.parse_args()
    n = int(args.n)
    if args.engines:
        engines(n, args.cases.split(","), max(args.repeat, 1), args.seed)
        return
    rng = np.random.default_rng(args.seed)

    labels = zipf_clusters(rng, n)
    frame = pd.DataFrame({"record_id": np.arange(n), "cluster_id": labels})
    t = best_time(lambda: summarize(frame), args.repeat)
    print(f"summary   N={n:.0e}: {t:.2f} s")
    names = pd.Series(rng.integers(0, n // 3, n), index=np.arange(n))
    t = best_time(lambda: summarize(frame, names=names), args.repeat)
    print(f"summary   N={n:.0e} with names: {t:.2f} s")

    m = int(args.release_size)
    releases: dict[str, pd.DataFrame] = {}
    current = zipf_clusters(rng, m)
    for k in range(args.releases):
        current = move_records(rng, current, 0.01)
        releases[f"r{k:02d}"] = pd.DataFrame({"record_id": np.arange(m), "cluster_id": current})
    t = best_time(lambda: monitor(releases), args.repeat)
    print(f"monitor   {args.releases} releases of {m:.0e} records: {t:.2f} s")

    old = pd.DataFrame({"record_id": np.arange(n), "cluster_id": labels})
    moved = move_records(rng, labels, 0.01)
    keep = rng.random(n) >= 0.01
    ids = np.arange(n)[keep]
    added = np.arange(n, n + n // 100)
    new = pd.DataFrame(
        {
            "record_id": np.concatenate([ids, added]),
            "cluster_id": np.concatenate([moved[keep], rng.integers(0, n, added.size)]),
        }
    )
    t_compare = best_time(lambda: compare(old, new), args.repeat)
    t_eval = best_time(
        lambda: evaluate(old, new, on_mismatch="intersection", metrics="pairwise,cluster,b3"),
        args.repeat,
    )
    t_all = best_time(lambda: evaluate(old, new, on_mismatch="intersection"), args.repeat)
    print(
        f"compare   N={n:.0e}: {t_compare:.2f} s; evaluate of the same pair (same metrics, "
        f"common records) {t_eval:.2f} s, ratio {t_compare / t_eval:.2f}; evaluate (every "
        f"canonical metric) {t_all:.2f} s, ratio {t_compare / t_all:.2f}"
    )


if __name__ == "__main__":
    main()
