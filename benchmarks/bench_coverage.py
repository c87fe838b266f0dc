"""Coverage of every estimator's intervals, by seeded simulation on realistic predictions.

For each prediction (the bundled example's two linkers and last release; a
simulated census-like population with predictions perturbed by split and merge
errors at recall / precision levels 0.9 to 0.999; Splink's prediction of the
example when ``splink`` is installed) and each design (record; clusters drawn
with probability proportional to size; blocks of about 20 clusters drawn
uniformly), ``ereval.simulate`` draws ``--repeats`` samples of ``--n`` units and
reports, per estimator and interval method (``skew_beta``, the default;
``wilson``; ``normal``), the nominal level, the coverage achieved, the mean
width of the intervals and the empirical standard deviation of the estimates.

Printed: one line per method over every (prediction, estimator, design) setting
(worst coverage, settings below 0.93, median coverage, median ratio of mean
width to ``2 z`` empirical standard deviations); the settings with the worst
coverage, worst first, every method side by side; and per estimator and
design, the coverage (min and median over the predictions) and widths of each
method (the table of ``docs/estimation.md``).

    python benchmarks/bench_coverage.py                 # summary (docs/estimation.md)
    python benchmarks/bench_coverage.py --full          # every row
    python benchmarks/bench_coverage.py --repeats 400   # quicker

Splink (optional): ``pip install splink==5.0.0``; the model is that of
``benchmarks/splink_end_to_end.py``, clustered at match probability 0.999.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

from ereval import example, simulate
from ereval.estimators import INTERVAL_METHODS
from ereval.metrics import evaluate

NOMINAL = 0.95
Z = 1.959963984540054


def census_like(rng: np.random.Generator, n_people: int = 20_000) -> np.ndarray:
    """People seen in 1 to 6 sources (each with probability 0.45), 1% of them 5 to 40 times more.

    Returns the true cluster of each record, records in random order.
    """
    k = np.maximum(rng.binomial(6, 0.45, size=n_people), 1)
    many = rng.random(n_people) < 0.01
    k[many] += rng.integers(5, 40, size=int(many.sum()))
    labels = np.repeat(np.arange(n_people), k)
    return labels[rng.permutation(labels.size)]


def _pairs(sizes: np.ndarray) -> int:
    return int((sizes * (sizes - 1) // 2).sum())


def split_merge(
    rng: np.random.Generator, truth: np.ndarray, *, recall: float, precision: float
) -> np.ndarray:
    """A prediction of ``truth`` with splits (records, or part of a cluster, cut off into new
    clusters) until pairwise recall is about ``recall``, then merges of clusters picked through
    random records until pairwise precision is about ``precision``."""
    pred = truth.copy()
    n = pred.size
    true_pairs = _pairs(np.bincount(truth))
    next_id = int(pred.max()) + 1
    order = np.argsort(pred, kind="stable")
    lost = 0
    while lost < (1.0 - recall) * true_pairs:
        c = pred[rng.integers(n)]
        members = np.flatnonzero(pred == c)
        if members.size < 2:
            continue
        m = int(rng.integers(1, members.size)) if rng.random() < 0.3 else 1
        pred[rng.choice(members, m, replace=False)] = next_id
        next_id += 1
        lost += m * (members.size - m)
    del order
    sizes = dict(zip(*np.unique(pred, return_counts=True), strict=True))
    links = _pairs(np.asarray(list(sizes.values())))
    wrong = 0
    while precision < 1.0 and (links - wrong) / links > precision:
        a, b = pred[rng.integers(n)], pred[rng.integers(n)]
        if a == b:
            continue
        pred[pred == b] = a
        gained = sizes[a] * sizes[b]
        sizes[a] += sizes.pop(b)
        links += gained
        wrong += gained
    return pred


def predictions(seed: int, splink: bool) -> dict[str, tuple[Any, Any]]:
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[Any, Any]] = {}
    truth = example.load("truth.csv")
    for name in ("pred_good.csv", "pred_poor.csv", "releases/2024-10-01.csv"):
        out[f"example {name.split('/')[-1][:-4]}"] = (truth, example.load(name))
    census = census_like(rng)
    for r, p in ((0.999, 0.999), (0.996, 0.99), (0.98, 0.95), (0.9, 0.999), (0.999, 0.9)):
        out[f"census r{r} p{p}"] = (census, split_merge(rng, census, recall=r, precision=p))
    if splink:
        try:
            out["example splink"] = (truth, splink_prediction())
        except ImportError:
            print("splink is not installed: `pip install splink==5.0.0` adds its prediction")
    return out


def splink_prediction() -> pd.DataFrame:
    """Splink's clusters of the example's records (the model of splink_end_to_end.py)."""
    import logging

    from splink_end_to_end import load_records, train_and_predict

    logging.getLogger("splink").setLevel(logging.ERROR)
    linker, preds = train_and_predict(load_records())
    clusters = linker.clustering.cluster_pairwise_predictions_at_threshold(
        preds, threshold_match_probability=0.999
    ).as_pandas_dataframe()[["unique_id", "cluster_id"]]
    return clusters.rename(columns={"unique_id": "record_id"}).astype(str)


def blocks_of(truth: Any, seed: int, per_block: int = 20) -> dict[Any, int]:
    """Each true cluster in a random block of about ``per_block`` clusters."""
    labels = pd.Series(truth["cluster_id"] if isinstance(truth, pd.DataFrame) else truth)
    ids = labels.unique()
    rng = np.random.default_rng(seed)
    block = rng.integers(0, max(len(ids) // per_block, 2), size=len(ids))
    return dict(zip(ids.tolist(), block.tolist(), strict=True))


def run(
    repeats: int, n: int, seed: int, splink: bool, methods: tuple[str, ...] = INTERVAL_METHODS
) -> pd.DataFrame:
    rows = []
    for k, (name, (truth, pred)) in enumerate(predictions(seed, splink).items()):
        exact = evaluate(truth, pred, metrics="pairwise")
        print(
            f"{name}: pairwise precision {exact['pairwise_precision']:.4f}, "
            f"recall {exact['pairwise_recall']:.4f}",
            flush=True,
        )
        designs: dict[str, dict[str, Any]] = {
            "record": {},
            "cluster": {"weights": "cluster_size"},
            "block": {"weights": "uniform", "blocks": blocks_of(truth, seed + k)},
        }
        for design, options in designs.items():
            for interval in methods:
                res = simulate(
                    truth,
                    pred,
                    sample_size=n,
                    repeats=repeats,
                    design=design,  # type: ignore[arg-type]
                    naive=False,
                    seed=seed + k,
                    interval=interval,  # type: ignore[arg-type]
                    **options,
                )
                s = res.summary
                for row in s.itertuples(index=False):
                    rows.append(
                        {
                            "prediction": name,
                            "estimator": row.estimator,
                            "design": design,
                            "n": n,
                            "interval": interval,
                            "nominal": NOMINAL,
                            "true_value": row.true_value,
                            "coverage": row.coverage,
                            "mean_width": row.mean_width,
                            "empirical_sd": row.empirical_std,
                        }
                    )
    return pd.DataFrame(rows)


def _ratio(frame: pd.DataFrame) -> pd.Series:
    """Mean width over ``2 z`` empirical standard deviations (NaN where the estimates are fixed)."""
    out = frame["mean_width"] / (2 * Z * frame["empirical_sd"])
    return out.where(frame["empirical_sd"] >= 1e-9)


def methods_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per interval method over every setting, the best worst case first."""
    f = frame.assign(ratio=_ratio(frame))
    out = (
        f.groupby("interval", sort=False)
        .agg(
            settings=("coverage", "size"),
            nominal=("nominal", "first"),
            coverage_min=("coverage", "min"),
            below_093=("coverage", lambda c: int((c < 0.93).sum())),
            coverage_median=("coverage", "median"),
            width_over_spread=("ratio", "median"),
        )
        .reset_index()
    )
    return out.sort_values("coverage_min", ascending=False)


def worst_settings(frame: pd.DataFrame, count: int = 15) -> pd.DataFrame:
    """The settings whose worst method covers least, worst first, every method side by side."""
    keys = ["prediction", "estimator", "design"]
    wide = frame.pivot_table(
        index=[*keys, "n", "nominal", "true_value", "empirical_sd"],
        columns="interval",
        values=["coverage", "mean_width"],
        sort=False,
    )
    wide.columns = [f"{a}_{b}" for a, b in wide.columns]
    methods = list(dict.fromkeys(frame["interval"]))
    order = [f"{a}_{m}" for m in methods for a in ("coverage", "mean_width")]
    wide = wide[order].reset_index()
    first = f"coverage_{methods[0]}"
    return wide.sort_values(first).head(count)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per estimator, design and method: coverage over the predictions (min, median), and
    the mean width against 2 z empirical standard deviations (median ratio)."""
    f = frame.assign(ratio=_ratio(frame))
    g = f.groupby(["estimator", "design", "n", "interval", "nominal"], sort=False)
    out = g.agg(
        coverage_min=("coverage", "min"),
        coverage_median=("coverage", "median"),
        mean_width=("mean_width", "median"),
        empirical_sd=("empirical_sd", "median"),
        width_over_spread=("ratio", "median"),
    ).reset_index()
    wide = out.pivot_table(
        index=["estimator", "design", "n", "nominal", "empirical_sd"],
        columns="interval",
        values=["coverage_min", "coverage_median", "mean_width", "width_over_spread"],
        sort=False,
    )
    wide.columns = [f"{a}_{b}" for a, b in wide.columns]
    methods = list(dict.fromkeys(frame["interval"]))
    order = [
        f"{a}_{m}"
        for m in methods
        for a in ("coverage_min", "coverage_median", "mean_width", "width_over_spread")
    ]
    return wide[order].reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-splink", action="store_true")
    parser.add_argument(
        "--methods",
        default=",".join(INTERVAL_METHODS),
        help="comma-separated interval methods, the default first",
    )
    parser.add_argument("--full", action="store_true", help="print every row")
    parser.add_argument("--out", help="write every row to this CSV file")
    args = parser.parse_args()
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    unknown = [m for m in methods if m not in INTERVAL_METHODS]
    if unknown:
        parser.error(f"--methods: unknown {unknown}; known: {', '.join(INTERVAL_METHODS)}")
    start = time.perf_counter()
    frame = run(args.repeats, args.n, args.seed, not args.no_splink, methods)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_rows", 10_000)
    pd.set_option("display.max_columns", 100)
    if args.out:
        frame.to_csv(args.out, index=False)
    if args.full:
        print(frame.round(4).to_string(index=False))
    print("\nInterval methods over every (prediction, estimator, design):")
    print(methods_table(frame).round(3).to_string(index=False))
    print("\nWorst settings (by the first method's coverage), worst first:")
    print(worst_settings(frame).round(4).to_string(index=False))
    print("\nPer estimator and design (coverage over the predictions):")
    print(summary(frame).round(3).to_string(index=False))
    for interval in methods:
        f = frame[frame["interval"] == interval]
        low = f[f["coverage"] < 0.93]
        print(
            f"{interval}: {len(low)} of {len(f)} (prediction, estimator, design) below 0.93; "
            f"lowest {f['coverage'].min():.3f}"
        )
    print(f"{args.repeats} repeats of n = {args.n}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
