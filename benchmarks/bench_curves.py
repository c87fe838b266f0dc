"""Speed of the threshold curve of scored pairs (``ereval.curves``).

Synthetic data (seeded): N records in true clusters of Zipf(a=2) sizes capped
at 50; M scored pairs, every true pair up to a third of M and random other
pairs for the rest (a blocking-like mix). Scores: true pairs ~ Normal(2, 1.5),
other pairs ~ Normal(-2, 1.5), rounded to ``--decimals`` places (so many pairs
share a score, as with rounded match weights), or not rounded with
``--decimals -1`` (every score distinct: one row per pair).

Timed, in one process, after the data are built:

* ``read``: validating and coding the pairs and the truth (``read_scored_pairs``);
* ``links``: the link counts and ROC / AP at every distinct threshold;
* ``full``: links + pairwise + B-cubed + cluster + MUC + entropies + Rand of the
  connected-components clustering at every distinct threshold;
* ``best()`` and ``threshold_for()``, which look at every distinct score even when
  ``--grid`` thins the rows.

    python benchmarks/bench_curves.py                       # N = 1e6, M = 1e7
    python benchmarks/bench_curves.py --decimals -1              # one row per pair
    python benchmarks/bench_curves.py --decimals -1 --grid 1000  # 1,000 rows
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ereval.curves import curve_from_scored_pairs
from ereval.io import read_scored_pairs


def make_data(n: int, m: int, decimals: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The truth and the scored pairs as pandas DataFrames with integer ids."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, size=n), 50)
    sizes = sizes[np.cumsum(sizes) <= n]
    sizes = np.r_[sizes, np.ones(n - int(sizes.sum()), dtype=sizes.dtype)]
    cluster = np.repeat(np.arange(sizes.size), sizes)
    records = rng.permutation(n)
    truth = pd.DataFrame({"record_id": records, "cluster_id": cluster})
    # every true pair, up to a third of m
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    lefts, rights = [], []
    for s in range(2, int(sizes.max()) + 1):
        base = starts[sizes == s]
        for i in range(s):
            for j in range(i + 1, s):
                lefts.append(base + i)
                rights.append(base + j)
    tl, tr = np.concatenate(lefts), np.concatenate(rights)
    keep = rng.permutation(tl.size)[: m // 3]
    tl, tr = records[tl[keep]], records[tr[keep]]
    extra = int(1.05 * (m - tl.size))
    rl, rr = rng.integers(0, n, extra), rng.integers(0, n, extra)
    left, right = np.r_[tl, rl], np.r_[tr, rr]
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    _, first = np.unique(lo * n + hi, return_index=True)
    first = np.sort(first[lo[first] != hi[first]])[:m]
    left, right = left[first], right[first]
    same = cluster[np.argsort(records)][left] == cluster[np.argsort(records)][right]
    score = np.where(same, rng.normal(2, 1.5, left.size), rng.normal(-2, 1.5, left.size))
    if decimals >= 0:
        score = np.round(score, decimals)
    pairs = pd.DataFrame({"record_id_1": left, "record_id_2": right, "score": score})
    return truth, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=float, default=1e6)
    parser.add_argument("--pairs", type=float, default=1e7)
    parser.add_argument("--decimals", type=int, default=2)
    parser.add_argument(
        "--grid", type=int, default=None, help="report at this many thresholds (default: all)"
    )
    args = parser.parse_args()
    n, m = int(args.records), int(args.pairs)
    truth, pairs = make_data(n, m, args.decimals)
    print(
        f"N = {n:,} records, M = {len(pairs):,} scored pairs, "
        f"{pairs['score'].nunique():,} distinct scores"
    )
    t0 = time.perf_counter()
    data = read_scored_pairs(truth, pairs)
    t1 = time.perf_counter()
    print(f"read            {t1 - t0:8.2f} s")
    links = curve_from_scored_pairs(data, metrics=(), thresholds=args.grid)
    t2 = time.perf_counter()
    print(f"links only      {t2 - t1:8.2f} s   ({len(links.frame):,} thresholds)")
    full = curve_from_scored_pairs(data, thresholds=args.grid)
    t3 = time.perf_counter()
    print(
        f"full curve      {t3 - t2:8.2f} s   ({len(full.frame):,} thresholds, "
        f"{full.frame.shape[1]} columns)"
    )
    best = full.best("pairwise_f1")
    t4 = time.perf_counter()
    target = full.threshold_for(0.99)
    t5 = time.perf_counter()
    print(f"best()          {t4 - t3:8.2f} s   (over every distinct score, whatever the grid)")
    print(f"threshold_for() {t5 - t4:8.2f} s")
    print(
        f"best pairwise F1 {best['pairwise_f1']:.4f} at threshold {best['threshold']:g}; "
        f"links precision 0.99 from {target['threshold'] if target else None}; "
        f"ROC AUC {full.summary['roc_auc']:.4f}"
    )


if __name__ == "__main__":
    main()
