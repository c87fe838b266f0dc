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
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

from bench_coverage import census_like, predictions, split_merge
from ereval import simulate
from ereval.estimators import draw_sample

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seeds", type=str, default="0,1")
    parser.add_argument("--no-splink", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"{args.repeats} samples of {args.n} draws per design and prediction; seeds {seeds}")
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
