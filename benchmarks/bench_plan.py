"""Benchmark: do planned sample sizes reach the target half-width in simulation?

For each data shape, :func:`ereval.planning.plan` plans the draws of each design
for a target interval half-width, then :func:`ereval.planning.check_plan` draws
``--check-repeats`` samples of the planned size from the known truth and counts
the share whose interval half-width is at most the target (the bar: >= 0.90).
Rows are printed worst first, per data shape and planning basis:

* ``truth``  -- the planner is given the true clustering (the variance is exact
  up to Monte Carlo error: this checks the formulas and the assurance margin);
* ``pilot``  -- the planner sees only the prediction and a labelled pilot of
  200 record draws from the truth (its error model is an assumption, so the
  share may fall short of the bar where the assumption is wrong);
* ``assumed`` -- the prediction alone with the default 10% error rate.

Data shapes: the bundled example (:mod:`ereval.example`, ``pred_good.csv``), and
a seeded synthetic population of 20,000 records in clusters of Zipf(1.7) sizes
(capped at 200: skewed, a few large clusters), with 8% of records moved.

    PYTHONPATH=src python benchmarks/bench_plan.py [--half-width 0.03] [--check-repeats 400]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd

from ereval import example
from ereval.estimators import draw_sample
from ereval.planning import check_plan, plan
from ereval.simulate import inject_errors

DESIGNS = ("record", "cluster", "size_stratified")
METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1", "b3_precision", "b3_recall")


def synthetic(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """About 20,000 records in clusters of Zipf(1.7) sizes capped at 200; 8% moved."""
    rng = np.random.default_rng(seed)
    sizes: list[int] = []
    while sum(sizes) < 20_000:
        sizes.append(int(min(rng.zipf(1.7), 200)))
    clusters = np.repeat(np.arange(len(sizes)), sizes)
    truth = pd.DataFrame({"record_id": np.arange(clusters.shape[0]), "cluster_id": clusters})
    moved = inject_errors(truth, rate=0.08, seed=rng)
    return truth, pd.DataFrame({"record_id": moved.records, "cluster_id": moved.clusters})


def run(
    name: str,
    truth: pd.DataFrame,
    pred: pd.DataFrame,
    *,
    half_width: float,
    check_repeats: int,
    bases: tuple[str, ...],
    seed: int,
) -> pd.DataFrame:
    frames = []
    for basis in bases:
        kwargs: dict[str, object] = {}
        if basis == "truth":
            kwargs["truth"] = truth
        elif basis == "pilot":
            kwargs["pilot"] = draw_sample(truth, n=200, design="record", seed=seed)
        start = time.perf_counter()
        result = plan(
            pred,
            half_width=half_width,
            design=list(DESIGNS),
            metrics=list(METRICS),
            seed=seed,
            **kwargs,  # type: ignore[arg-type]
        )
        planned = time.perf_counter() - start
        check = check_plan(truth, pred, result, repeats=check_repeats, seed=seed + 1)
        check.insert(0, "basis", basis)
        check.insert(0, "data", name)
        check["plan_seconds"] = round(planned, 1)
        frames.append(check)
        print(f"{name}, {basis}: {'; '.join(result.notes)} ({planned:.1f} s)", flush=True)
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half-width", type=float, default=0.03)
    parser.add_argument("--check-repeats", type=int, default=400)
    parser.add_argument("--bases", default="truth,pilot,assumed")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    bases = tuple(b.strip() for b in args.bases.split(","))
    warnings.simplefilter("ignore")  # small-sample warnings of individual draws
    shapes = {
        "example": (example.load("truth.csv"), example.load("pred_good.csv")),
        "zipf-20k": synthetic(args.seed),
    }
    tables = [
        run(
            name,
            t,
            p,
            half_width=args.half_width,
            check_repeats=args.check_repeats,
            bases=bases,
            seed=args.seed,
        )
        for name, (t, p) in shapes.items()
    ]
    table = pd.concat(tables, ignore_index=True).sort_values(["share", "data", "basis"])
    pd.set_option("display.width", 200)
    print(f"\ntarget half-width {args.half_width}, bar: share >= 0.90 (worst first)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for (data, basis), rows in table.groupby(["data", "basis"]):
        worst = rows["share"].min()
        se = math.sqrt(0.9 * 0.1 / args.check_repeats)
        verdict = (
            "meets"
            if worst >= 0.9
            else ("within 2 MC s.e. of" if worst >= 0.9 - 2 * se else "misses")
        )
        print(f"{data:10s} {basis:8s} worst share {worst:.3f}: {verdict} the 0.90 bar")


if __name__ == "__main__":
    main()
