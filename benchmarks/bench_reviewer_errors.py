"""Subgroup differences and reviewer errors, by seeded simulation.

1. **Differences.** On a Zipf-sized population of ``--records`` records (a third of
   the entities in group "a", their records moved at a higher rate than the rest),
   ``--repeats`` record samples of ``--n`` draws; for pairwise precision, recall and
   F1, the difference "a minus overall" and "a minus b": bias, empirical and
   reported standard deviation, coverage of the 95% interval. Beside it, the
   coverage of the naive interval that ignores the covariance
   (``sqrt(V_a + V_0)``).
2. **Reviewer error rate.** Items of 2..11 candidate decisions, two reviewers each
   erring with rate ``eps``: coverage of the 95% interval of ``eps`` from 50, 150 and
   500 double-reviewed items.
3. **Sensitivity timing.** ``reviewer_sensitivity`` with 200 repeats on a sample of
   ``--n`` draws.

    python benchmarks/bench_reviewer_errors.py
    python benchmarks/bench_reviewer_errors.py --repeats 300    # quicker
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

from _synthetic import zipf_clusters
from ereval.estimators import (
    as_sample,
    cluster_terms,
    draw_sample,
    estimate_by_group,
    estimate_differences,
    prepare_prediction,
    reviewer_error_rate,
    reviewer_sensitivity,
)
from ereval.estimators._registry import SPEC_BY_KEY

KEYS = ("pairwise_precision", "pairwise_recall", "pairwise_f1")


def _population(records: int, seed: int) -> tuple[dict[int, int], dict[int, int], dict[int, str]]:
    rng = np.random.default_rng(seed)
    truth_labels = zipf_clusters(rng, records)
    groups = {int(c): ("a" if c % 3 == 0 else "b") for c in np.unique(truth_labels)}
    pred_labels = truth_labels.copy()
    rate = np.where(truth_labels % 3 == 0, 0.15, 0.05)
    moved = rng.random(records) < rate
    pred_labels[moved] = truth_labels[rng.integers(0, records, int(moved.sum()))]
    truth = dict(enumerate(truth_labels.tolist()))
    pred = dict(enumerate(pred_labels.tolist()))
    return truth, pred, groups


def differences(records: int, n: int, repeats: int) -> None:
    truth, pred, groups = _population(records, 1)
    prepared = prepare_prediction(pred)
    census = as_sample(truth, design="cluster", weights="uniform")
    terms = cluster_terms(prepared, census)
    in_a = np.array([groups[int(c)] == "a" for c in census.cluster_labels.tolist()])
    print(f"differences: {records} records, {n} record draws, {repeats} repeats")
    print(f"{'estimator':20} {'vs':8} {'true':>8} {'bias':>9} {'emp.sd':>8} {'rep.sd':>8}"
          f" {'cover':>6} {'naive':>6}")  # fmt: skip
    for baseline in ("overall", "b"):
        vals: dict[str, list[float]] = {k: [] for k in KEYS}
        sds: dict[str, list[float]] = {k: [] for k in KEYS}
        cover = dict.fromkeys(KEYS, 0)
        naive = dict.fromkeys(KEYS, 0)
        truths = {}
        for key in KEYS:
            f, g = SPEC_BY_KEY[key].terms(terms, 1.0)
            base = ~in_a if baseline == "b" else np.ones_like(in_a)
            truths[key] = f[in_a].sum() / g[in_a].sum() - f[base].sum() / g[base].sum()
        for seed in range(repeats):
            s = draw_sample(truth, n=n, design="record", seed=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = estimate_differences(prepared, s, groups, baseline=baseline, metrics=KEYS)
                own = estimate_by_group(prepared, s, groups, metrics=KEYS, naive=False)
            for key in KEYS:
                e = d["a"][key]
                vals[key].append(e.value)
                sds[key].append(e.std)
                cover[key] += e.lower <= truths[key] <= e.upper
                if baseline == "b":
                    sd = math.hypot(own["a"][key].std, own["b"][key].std)
                    naive[key] += abs(e.value - truths[key]) <= 1.96 * sd
        for key in KEYS:
            v = np.array(vals[key])
            naive_text = f"{naive[key] / repeats:6.3f}" if baseline == "b" else f"{'-':>6}"
            print(
                f"{key:20} {baseline:8} {truths[key]:8.4f} {v.mean() - truths[key]:9.5f} "
                f"{v.std(ddof=1):8.4f} {np.mean(sds[key]):8.4f} {cover[key] / repeats:6.3f} "
                f"{naive_text}"
            )


def error_rate(repeats: int) -> None:
    eps, pi = 0.08, 0.4
    rng = np.random.default_rng(7)
    print(f"\nreviewer error rate: eps = {eps}, share belonging {pi}, {repeats} repeats")
    for items in (50, 150, 500):
        covered, values = 0, []
        for _ in range(repeats):
            m = rng.integers(2, 12, size=items)
            item = np.repeat(np.arange(items), m)
            truth = rng.random(item.size) < pi
            one = truth ^ (rng.random(item.size) < eps)
            two = truth ^ (rng.random(item.size) < eps)
            d = np.bincount(item, weights=one != two, minlength=items)
            inc = np.bincount(item, weights=one.astype(int) + two, minlength=items)
            r = reviewer_error_rate(m, d.astype(int), inc.astype(int))
            covered += r.error.lower <= eps <= r.error.upper
            values.append(r.error.value)
        v = np.array(values)
        print(
            f"  {items:4d} items: mean eps_hat {v.mean():.4f} (sd {v.std(ddof=1):.4f}), "
            f"coverage {covered / repeats:.3f}"
        )


def timing(records: int, n: int) -> None:
    truth, pred, _ = _population(records, 2)
    s = draw_sample(truth, n=n, design="record", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        reviewer_sensitivity(pred, s, over=0.05, under=0.05, repeats=200, seed=1)
        took = time.perf_counter() - t0
    print(
        f"\nsensitivity, every estimator, 200 repeats, {n} draws, {records} records: {took:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=1000)
    args = parser.parse_args()
    differences(args.records, args.n, args.repeats)
    error_rate(args.repeats)
    timing(args.records, args.n)


if __name__ == "__main__":
    main()
