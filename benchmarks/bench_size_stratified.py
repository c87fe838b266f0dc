"""RMSE and coverage of every estimator: the size-stratified design against the record design.

At the same number of draws (``--n``, default 200), ``ereval.simulate`` draws
``--repeats`` samples under the record design and under the size-stratified
design (records drawn within strata of their predicted cluster's size 1, 2,
3-4, 5-8, ...) with Neyman allocation from the prediction alone (the default),
proportional allocation, and Neyman allocation from a labelled pilot of 100
record draws (pilot labels not counted in ``n``). The predictions are those of
``bench_coverage.py``: the bundled example's two linkers and last release; a
census-like population (20,000 people seen 1 to 6 times, 1% of them 5 to 40
times more) with split and merge errors at recall / precision 0.9 to 0.999, one
population per ``--seeds`` seed; Splink's prediction of the example (when
``splink`` is installed: ``pip install splink==5.0.0``).

Printed: per prediction and design, the ratio of pairwise precision's RMSE to
the record design's, the worst ratio over every other estimator (and which),
and the lowest coverage of a 95% interval over every estimator (and which), and
over the recommended forms only (``min_coverage_main``: without the
``*_cluster`` and ``*_record`` forms); then the worst
case of each over all predictions, and per estimator its worst RMSE ratio.
The goal: pairwise precision's RMSE at least 10% lower (ratio <= 0.90), no
estimator more than 5% worse (ratio <= 1.05), coverage >= 0.92.

    python benchmarks/bench_size_stratified.py               # as in docs/estimation.md
    python benchmarks/bench_size_stratified.py --repeats 500 # quicker

``--unequal`` compares instead the designs with unequal probabilities at the same
number of draws: the expected-error design (records drawn with probabilities
from match probabilities, Binette et al. 2024, eqs. 7-8, with the default floor
0.2, and with floor 0.5) and the predicted-cluster design (predicted clusters
drawn proportionally to size, or uniformly; ``n`` predicted clusters, so more
records are reviewed per draw), each against the record design, on Splink's
prediction of the example with Splink's own ``match_probability`` and on the
census-like predictions with synthetic scores (true pairs ~ Beta(6, 1.5), other
pairs ~ Beta(1.5, 6), on the pairs inside a true or predicted cluster and as
many random pairs). The predicted-cluster design estimates pairwise and B-cubed
precision only; its rows compare those.

    python benchmarks/bench_size_stratified.py --unequal --repeats 1000
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

from bench_coverage import census_like, predictions, split_merge
from ereval.estimators import draw_sample
from ereval.io import as_membership
from ereval.simulate import simulate

DESIGNS: dict[str, dict[str, Any]] = {
    "neyman (proxy)": {"allocation": "neyman"},
    "proportional": {"allocation": "proportional"},
    "neyman (pilot)": {"allocation": "neyman", "pilot": True},
}


def all_predictions(seeds: list[int], splink: bool) -> dict[str, tuple[Any, Any]]:
    out = predictions(seeds[0], splink)
    for seed in seeds[1:]:
        rng = np.random.default_rng(seed)
        census = census_like(rng)
        for r, p in ((0.999, 0.999), (0.996, 0.99), (0.98, 0.95), (0.9, 0.999), (0.999, 0.9)):
            out[f"census#{seed} r{r} p{p}"] = (
                census,
                split_merge(rng, census, recall=r, precision=p),
            )
    return out


def run(repeats: int, n: int, seeds: list[int], splink: bool) -> pd.DataFrame:
    rows = []
    for k, (name, (truth, pred)) in enumerate(all_predictions(seeds, splink).items()):
        start = time.perf_counter()
        base = simulate(
            truth, pred, design="record", sample_size=n, repeats=repeats, seed=100 + k, naive=False
        ).summary.set_index("estimator")
        keys = list(base.index)
        for j, (label, options) in enumerate(DESIGNS.items()):
            opts = dict(options)
            if opts.pop("pilot", False):
                opts["pilot"] = draw_sample(truth, n=100, design="record", seed=7 + k)
            res = simulate(
                truth,
                pred,
                design="size_stratified",
                sample_size=n,
                repeats=repeats,
                seed=1000 + 10 * k + j,
                estimators=keys,
                naive=False,
                **opts,
            ).summary.set_index("estimator")
            ratio = res["rmse"] / base["rmse"]
            for key in keys:
                rows.append(
                    {
                        "prediction": name,
                        "design": label,
                        "estimator": key,
                        "rmse_ratio": float(ratio[key]),
                        "coverage": float(res.loc[key, "coverage"]),
                        "record_coverage": float(base.loc[key, "coverage"]),
                    }
                )
        print(f"  {name}: {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(rows)


def per_prediction(frame: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (pred, design), grp in frame.groupby(["prediction", "design"], sort=False):
        g = grp.set_index("estimator")
        others = g.drop(index="pairwise_precision")
        main = [k for k in g.index if not k.endswith(("_cluster", "_record"))]
        worst = others["rmse_ratio"].idxmax()
        out.append(
            {
                "prediction": pred,
                "design": design,
                "precision_rmse_ratio": round(float(g.loc["pairwise_precision", "rmse_ratio"]), 3),
                "worst_other_ratio": round(float(others.loc[worst, "rmse_ratio"]), 3),
                "worst_other": worst,
                "min_coverage": round(float(g["coverage"].min()), 3),
                "worst_covered": g["coverage"].idxmin(),
                "min_coverage_main": round(float(g.loc[main, "coverage"].min()), 3),
                "record_min_coverage": round(float(g["record_coverage"].min()), 3),
            }
        )
    return pd.DataFrame(out)


def worst_case(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for design, g in table.groupby("design", sort=False):
        rows.append(
            {
                "design": design,
                "precision_rmse_ratio (max)": g["precision_rmse_ratio"].max(),
                "worst_other_ratio (max)": g["worst_other_ratio"].max(),
                "min_coverage (min)": g["min_coverage"].min(),
                "min_coverage_main (min)": g["min_coverage_main"].min(),
                "predictions meeting all three goals": int(
                    (
                        (g["precision_rmse_ratio"] <= 0.90)
                        & (g["worst_other_ratio"] <= 1.05)
                        & (g["min_coverage"] >= 0.92)
                    ).sum()
                ),
                "of": len(g),
            }
        )
    return pd.DataFrame(rows)


UNEQUAL: dict[str, dict[str, Any]] = {
    "expected-error (floor 0.2)": {"design": "expected_error", "floor": 0.2},
    "expected-error (floor 0.5)": {"design": "expected_error", "floor": 0.5},
    "predicted-cluster (size)": {"design": "predicted_cluster", "weights": "cluster_size"},
    "predicted-cluster (uniform)": {"design": "predicted_cluster", "weights": "uniform"},
}


def synthetic_pairs(truth: Any, pred: Any, seed: int) -> pd.DataFrame:
    """Scored pairs for a prediction without a linker: every pair inside a true or predicted
    cluster (at most 15 records of each) and as many random pairs, true pairs scored from
    Beta(6, 1.5) and the others from Beta(1.5, 6)."""
    rng = np.random.default_rng(seed)
    tm, pm = as_membership(truth, name="truth"), as_membership(pred, name="pred")
    t = pd.Series(tm.clusters, index=pd.Index(tm.records, dtype=object))
    p = pd.Series(pm.clusters, index=pd.Index(pm.records, dtype=object)).loc[t.index]
    ids = t.index.to_numpy()
    left, right = [], []
    for labels in (t.to_numpy(), p.to_numpy()):
        codes = pd.factorize(labels)[0]
        order = np.argsort(codes, kind="stable")
        for group in np.split(order, np.flatnonzero(np.diff(codes[order])) + 1):
            g = group[:15]
            i, j = np.triu_indices(g.shape[0], k=1)
            left.append(g[i])
            right.append(g[j])
    n_inside = sum(x.shape[0] for x in left)
    left.append(rng.integers(0, ids.shape[0], n_inside))
    right.append(rng.integers(0, ids.shape[0], n_inside))
    a, b = np.concatenate(left), np.concatenate(right)
    keep = a != b
    a, b = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    pairs = pd.DataFrame({"l": a, "r": b}).drop_duplicates()
    same = t.to_numpy()[pairs["l"]] == t.to_numpy()[pairs["r"]]
    score = np.where(same, rng.beta(6, 1.5, len(pairs)), rng.beta(1.5, 6, len(pairs)))
    return pd.DataFrame(
        {"record_id_1": ids[pairs["l"]], "record_id_2": ids[pairs["r"]], "match_probability": score}
    )


def unequal_predictions(seeds: list[int], splink: bool) -> dict[str, tuple[Any, Any, Any]]:
    """(truth, prediction, scored pairs) of Splink's prediction and the census-like ones."""
    out: dict[str, tuple[Any, Any, Any]] = {}
    if splink:
        try:
            out["example splink"] = splink_with_pairs()
        except ImportError:
            print("splink is not installed: `pip install splink==5.0.0` adds its prediction")
    for seed in seeds:
        rng = np.random.default_rng(seed)
        census = census_like(rng)
        for r, p in ((0.996, 0.99), (0.98, 0.95), (0.9, 0.999), (0.999, 0.9)):
            pred = split_merge(rng, census, recall=r, precision=p)
            out[f"census#{seed} r{r} p{p}"] = (census, pred, synthetic_pairs(census, pred, seed))
    return out


def splink_with_pairs() -> tuple[Any, Any, Any]:
    """The example's truth, Splink's clusters at 0.999 and Splink's scored pairs."""
    import logging

    from ereval import example
    from splink_end_to_end import load_records, train_and_predict

    logging.getLogger("splink").setLevel(logging.ERROR)
    linker, preds = train_and_predict(load_records())
    clusters = linker.clustering.cluster_pairwise_predictions_at_threshold(
        preds, threshold_match_probability=0.999
    ).as_pandas_dataframe()[["unique_id", "cluster_id"]]
    pred = clusters.rename(columns={"unique_id": "record_id"}).astype(str)
    pairs = preds.as_pandas_dataframe()[["unique_id_l", "unique_id_r", "match_probability"]]
    pairs = pairs.rename(columns={"unique_id_l": "record_id_1", "unique_id_r": "record_id_2"})
    pairs = pairs.astype({"record_id_1": str, "record_id_2": str})
    truth = example.load("truth.csv").astype({"record_id": str})
    return truth, pred, pairs


def run_unequal(repeats: int, n: int, seeds: list[int], splink: bool) -> pd.DataFrame:
    from ereval.estimators import expected_error_probabilities

    rows = []
    for k, (name, (truth, pred, pairs)) in enumerate(unequal_predictions(seeds, splink).items()):
        start = time.perf_counter()
        base = simulate(
            truth, pred, design="record", sample_size=n, repeats=repeats, seed=200 + k, naive=False
        ).summary.set_index("estimator")
        for j, (label, options) in enumerate(UNEQUAL.items()):
            opts = dict(options)
            design = opts.pop("design")
            if design == "expected_error":
                opts["weights"] = expected_error_probabilities(pred, pairs, floor=opts.pop("floor"))
                keys = [k for k in base.index if not k.endswith("_record")]
            else:
                keys = ["pairwise_precision", "b3_precision"]
            res = simulate(
                truth,
                pred,
                design=design,
                sample_size=n,
                repeats=repeats,
                seed=2000 + 10 * k + j,
                estimators=keys,
                naive=False,
                **opts,
            ).summary.set_index("estimator")
            for key in keys:
                rows.append(
                    {
                        "prediction": name,
                        "design": label,
                        "estimator": key,
                        "rmse_ratio": float(res.loc[key, "rmse"] / base.loc[key, "rmse"]),
                        "coverage": float(res.loc[key, "coverage"]),
                        "record_coverage": float(base.loc[key, "coverage"]),
                    }
                )
        print(f"  {name}: {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(rows)


def unequal_table(frame: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (pred, design), grp in frame.groupby(["prediction", "design"], sort=False):
        g = grp.set_index("estimator")
        worst = g["rmse_ratio"].idxmax()
        out.append(
            {
                "prediction": pred,
                "design": design,
                "precision_rmse_ratio": round(float(g.loc["pairwise_precision", "rmse_ratio"]), 3),
                "b3_precision_ratio": round(float(g.loc["b3_precision", "rmse_ratio"]), 3),
                "worst_ratio": round(float(g.loc[worst, "rmse_ratio"]), 3),
                "worst": worst,
                "min_coverage": round(float(g["coverage"].min()), 3),
                "worst_covered": g["coverage"].idxmin(),
            }
        )
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seeds", type=str, default="0,1")
    parser.add_argument("--no-splink", action="store_true")
    parser.add_argument("--unequal", action="store_true", help="the unequal-probability designs")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"{args.repeats} samples of {args.n} draws per design and prediction; seeds {seeds}")
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    if args.unequal:
        frame = run_unequal(args.repeats, args.n, seeds, not args.no_splink)
        table = unequal_table(frame)
        print("\nRMSE ratio to the record design and lowest 95% coverage")
        print(table.to_string(index=False))
        print("\nWorst case over the predictions")
        worst = table.groupby("design", sort=False).agg(
            precision_rmse_ratio_max=("precision_rmse_ratio", "max"),
            precision_rmse_ratio_min=("precision_rmse_ratio", "min"),
            worst_ratio_max=("worst_ratio", "max"),
            min_coverage=("min_coverage", "min"),
        )
        print(worst.to_string())
        return
    frame = run(args.repeats, args.n, seeds, not args.no_splink)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    table = per_prediction(frame)
    print("\nRMSE ratio to the record design (pairwise precision; worst other estimator)")
    print(table.to_string(index=False))
    print("\nWorst case over the predictions")
    print(worst_case(table).to_string(index=False))
    est = frame.groupby(["design", "estimator"], sort=False)["rmse_ratio"].max().unstack(0)
    print("\nWorst RMSE ratio per estimator over the predictions")
    print(est.round(3).to_string())


if __name__ == "__main__":
    main()
