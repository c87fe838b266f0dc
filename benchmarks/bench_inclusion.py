"""Clusters drawn without replacement with probabilities ∝ size: three ways to estimate.

On a Zipf-sized population of ``--clusters`` true clusters (sizes up to 25, 15%
of records moved to other clusters), ``--repeats`` samples of ``n`` clusters are
drawn without replacement with probabilities proportional to size, for shares
``n / T`` of 10% to 90%, and pairwise precision / recall and B-cubed precision /
recall are estimated three ways:

``ht``
    what ``ereval`` does: randomised systematic sampling with exact inclusion
    probabilities ``pi ∝ size``, Horvitz-Thompson weights ``1/pi`` and Hájek's
    variance (``ereval.estimators._inclusion``);
``ht_wr``
    the same draws and weights with the with-replacement variance (``fpc=False``);
``successive``
    NumPy's ``Generator.choice(replace=False, p=...)`` (draw by draw, renormalising),
    weights ``1/p`` and ``theta = 1 - (n-1)/(T-1)`` — the with-replacement
    estimator with the classical correction, which ignores that successive
    sampling's inclusion probabilities are not proportional to ``p``.

Printed per share and estimator: bias in standard deviations, the ratio of the
mean reported standard error to the empirical one, and the coverage of 95%
intervals.

    python benchmarks/bench_inclusion.py                 # as in docs/estimation.md
    python benchmarks/bench_inclusion.py --repeats 200   # quicker
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from ereval import simulate
from ereval._simulate import inject_errors
from ereval.estimators import as_sample, cluster_terms, prepare_prediction
from ereval.estimators._intervals import ratio_interval
from ereval.estimators._ratio import ratio_of_means
from ereval.estimators._registry import SPEC_BY_KEY

KEYS = ["pairwise_precision", "pairwise_recall", "b3_precision", "b3_recall"]


def population(k: int, seed: int) -> tuple[pd.DataFrame, dict[int, int]]:
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.8, size=k), 25)
    labels = np.repeat(np.arange(k), sizes)
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.15, seed=seed)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    return pd.DataFrame({"record_id": list(truth), "cluster_id": labels}), pred


def summarise(est: np.ndarray, std: np.ndarray, lo: np.ndarray, hi: np.ndarray, true: float) -> str:
    sd = float(est.std(ddof=1))
    bias = (float(est.mean()) - true) / sd if sd > 0 else 0.0
    ratio = float(np.sqrt(np.mean(std**2))) / sd if sd > 0 else float("nan")
    cover = float(np.mean((lo <= true + 1e-12) & (true - 1e-12 <= hi)))
    return f"{bias:+7.3f} {ratio:7.2f} {cover:6.3f}"


def successive(
    truth: pd.DataFrame, pred: dict[int, int], n: int, repeats: int, seed: int
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The with-replacement estimator on successive-sampling draws, theta = 1-(n-1)/(T-1)."""
    pop = as_sample(truth, design="cluster", weights="cluster_size")
    terms = cluster_terms(prepare_prediction(pred, index=False), pop)
    p = pop.probabilities / pop.probabilities.sum()
    rng = np.random.default_rng(seed)
    drawn = np.stack([rng.choice(pop.n_units, size=n, replace=False, p=p) for _ in range(repeats)])
    theta = 1.0 - (n - 1) / (pop.n_units - 1)
    inv_p = 1.0 / pop.probabilities[drawn]
    out = {}
    for key in KEYS:
        spec = SPEC_BY_KEY[key]
        f, g = spec.terms(terms, 1.0)
        fu = np.bincount(pop.unit_of_cluster, weights=f, minlength=pop.n_units)
        gu = np.bincount(pop.unit_of_cluster, weights=g, minlength=pop.n_units)
        b, a = fu[drawn] * inv_p, gu[drawn] * inv_p
        est, std = ratio_of_means(b, a, theta=theta)
        off, sc = spec.affine(terms) or (1.0, 0.0)
        est, std = off + sc * est, abs(sc) * std
        lo, hi = ratio_interval(
            est, std, a, level=0.95, numerator=b, scale=sc, bounds=spec.bounds,
            proportion=spec.proportion, theta=theta,
        )  # fmt: skip
        out[key] = (est, std, lo, hi)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    truth, pred = population(args.clusters, args.seed)
    k = args.clusters
    print(f"{k} true clusters, {len(truth)} records; {args.repeats} repeats per share")
    print(f"{'share':>5} {'estimator':<20} {'method':<11} {'bias/sd':>7} {'se/sd':>7} {'cover':>6}")
    for share in (0.1, 0.3, 0.5, 0.7, 0.9):
        n = round(share * k)
        kw = {"pred": pred, "sample_size": n, "repeats": args.repeats, "design": "cluster",
              "weights": "cluster_size", "replace": False, "estimators": KEYS}  # fmt: skip
        ht = simulate(truth, seed=args.seed, **kw)  # type: ignore[arg-type]
        wr = simulate(truth, seed=args.seed, fpc=False, **kw)  # type: ignore[arg-type]
        old = successive(truth, pred, n, args.repeats, args.seed)
        for key in KEYS:
            true = float(ht.true_values[key])
            rows = {
                "ht": (ht.estimates[key], ht.stds[key], *ht.intervals[key]),
                "ht_wr": (wr.estimates[key], wr.stds[key], *wr.intervals[key]),
                "successive": old[key],
            }
            for name, (est, std, lo, hi) in rows.items():
                print(f"{share:5.1f} {key:<20} {name:<11} {summarise(est, std, lo, hi, true)}")


if __name__ == "__main__":
    main()
