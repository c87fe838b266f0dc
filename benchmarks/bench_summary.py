"""Speed of summary statistics, release comparison and monitoring (seeded synthetic data).

* ``summary``: :func:`ereval.summary.summarize` of a clustering of N records (true
  cluster sizes Zipf(a=2) capped at 1000), from a pandas DataFrame with integer ids,
  and with a name per record (homonymy and name variation);
* ``monitor``: :func:`ereval.monitor.monitor` of R releases of M records, each
  moving 1% of the records of the previous one to another cluster;
* ``compare``: :func:`ereval.compare.compare` of two releases of N records (the
  second moves 1% of the records and drops 1% / adds 1%), against
  :func:`ereval.evaluate` of the same pair with ``on_mismatch="intersection"``
  (pairwise, cluster and B-cubed, as ``compare`` computes them, and every canonical
  metric).

    python benchmarks/bench_summary.py                 # N = 1e7, R = 20, M = 1e6
    python benchmarks/bench_summary.py --n 1e6 --releases 5 --release-size 1e5
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from _synthetic import best_time, move_records, zipf_clusters
from ereval import evaluate
from ereval.compare import compare
from ereval.monitor import monitor
from ereval.summary import summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=float, default=1e7, help="records of summary and compare")
    parser.add_argument("--releases", type=int, default=20, help="releases monitored")
    parser.add_argument("--release-size", type=float, default=1e6, help="records per release")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n = int(args.n)

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
