"""Benchmark: every estimator on 400 true clusters sampled from a 10^7-record clustering.

The population is a Zipf(a=2) clustering of 10^7 records (cluster sizes capped at
1000); the prediction moves 10% of the records to other clusters
(:func:`ereval.inject_errors`); 400 true clusters are drawn with
probability proportional to size (record sampling). The script times

* ``prepare_prediction`` — factorising the 10^7-record prediction once;
* ``estimate`` on the prepared prediction — all estimators together (target < 1 s);
* ``estimate`` from the raw prediction (validation and factorisation included);

and, in the same run, er-evaluation 2.3.0's estimators on the same data, run in a
separate interpreter so that er-evaluation never becomes a dependency::

    python -m venv /tmp/erev && /tmp/erev/bin/pip install er-evaluation==2.3.0
    python benchmarks/bench_estimators.py --erev-python /tmp/erev/bin/python

Without that interpreter only ereval's side is measured. Data files are written
to ``benchmarks/_work/`` (ignored by git).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ereval import inject_errors
from ereval.estimators import draw_sample, estimate, prepare_prediction

WORK = Path(__file__).resolve().parent / "_work"

# Run by the er-evaluation interpreter: load the files, time each public estimator.
EREV_SCRIPT = r"""
import json, sys, time, warnings
import pandas as pd
from er_evaluation import estimators as E
warnings.simplefilter("ignore")
work = sys.argv[1]
pred = pd.read_parquet(f"{work}/pred.parquet").set_index("record_id")["cluster_id"]
sample = pd.read_parquet(f"{work}/sample.parquet").set_index("record_id")["cluster_id"]
names = [
    "pairwise_precision_estimator", "pairwise_recall_estimator", "pairwise_f_estimator",
    "cluster_precision_estimator", "cluster_recall_estimator", "cluster_f_estimator",
    "b_cubed_precision_estimator", "b_cubed_recall_estimator",
]
out = {}
for name in names:
    t0 = time.perf_counter()
    est, std = getattr(E, name)(pred, sample, "cluster_size")
    out[name] = {"seconds": time.perf_counter() - t0, "estimate": float(est), "std": float(std)}
print(json.dumps(out))
"""

# er-evaluation estimator -> the ereval estimator with the same representation
SAME_ESTIMATOR = {
    "pairwise_precision_estimator": "pairwise_precision",
    "pairwise_recall_estimator": "pairwise_recall",
    "pairwise_f_estimator": "pairwise_f1",
    "cluster_precision_estimator": "cluster_precision_cluster",
    "cluster_recall_estimator": "cluster_recall",
    "cluster_f_estimator": "cluster_f1_cluster",
    "b_cubed_precision_estimator": "b3_entity_precision",
    "b_cubed_recall_estimator": "b3_entity_recall",
}


def zipf_clustering(n: int, rng: np.random.Generator) -> np.ndarray:
    """Cluster label per record, sizes Zipf(2) capped at 1000, in random record order."""
    sizes = np.minimum(rng.zipf(2.0, size=n), 1000)
    labels = np.repeat(np.arange(sizes.size), sizes)[:n]
    return labels[rng.permutation(n)]


def best_of(repeat: int, func: object) -> tuple[float, object]:
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--clusters", type=int, default=400, help="true clusters drawn")
    parser.add_argument("--rate", type=float, default=0.1, help="share of records moved")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--erev-python",
        default="/tmp/erev/bin/python",
        help="interpreter with er-evaluation==2.3.0 installed",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    t0 = time.perf_counter()
    truth = zipf_clustering(args.records, rng)
    moved = inject_errors(truth, rate=args.rate, seed=rng)
    pred = pd.Series(
        moved.clusters, index=pd.Index(moved.records, name="record_id"), name="cluster_id"
    )
    sample = draw_sample(truth, n=args.clusters, design="record", seed=rng)
    print(
        f"data: {args.records:,} records, {len(np.unique(truth)):,} true clusters, "
        f"{args.rate:.0%} of records moved; sample: {sample.n_draws} draws, "
        f"{sample.n_clusters} distinct clusters, {len(sample.records):,} records "
        f"(built in {time.perf_counter() - t0:.1f} s)"
    )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_prep, prepared = best_of(1, lambda: prepare_prediction(pred))
        t_all, ours = best_of(args.repeat, lambda: estimate(prepared, sample))
        t_pp, _ = best_of(
            args.repeat, lambda: estimate(prepared, sample, metrics="pairwise_precision")
        )
        t_raw, _ = best_of(args.repeat, lambda: estimate(pred, sample))
        t_raw_pp, _ = best_of(
            args.repeat, lambda: estimate(pred, sample, metrics="pairwise_precision")
        )
    assert isinstance(ours, dict)
    print("\nereval")
    print(f"  prepare_prediction (once per prediction)        {t_prep:8.3f} s")
    print(
        f"  estimate, all {len(ours)} estimators, prepared       {t_all:8.3f} s"
        f"   (target < 1 s: {'met' if t_all < 1 else 'NOT met'})"
    )
    print(f"  estimate, pairwise_precision only, prepared     {t_pp:8.3f} s")
    print(f"  estimate, all estimators, raw prediction        {t_raw:8.3f} s")
    print(f"  estimate, pairwise_precision only, raw          {t_raw_pp:8.3f} s")

    erev = Path(args.erev_python)
    if not erev.exists():
        print(
            f"\ner-evaluation: interpreter {erev} not found; measured ereval alone "
            "(see the module docstring to set it up)"
        )
        return
    WORK.mkdir(exist_ok=True)
    pred.reset_index().to_parquet(WORK / "pred.parquet", index=False)
    frame = sample.to_frame()[["record_id", "cluster_id"]]
    frame.to_parquet(WORK / "sample.parquet", index=False)
    (WORK / "erev_side.py").write_text(EREV_SCRIPT)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(erev), str(WORK / "erev_side.py"), str(WORK)],
        check=False,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"\ner-evaluation run failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    # er-evaluation's sample is a membership vector (each cluster once), so compare with
    # ereval on the same distinct clusters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        distinct = estimate(prepared, frame, design="record")
    total = sum(v["seconds"] for v in theirs.values())
    print(f"\ner-evaluation 2.3.0 (separate interpreter, {wall:.1f} s wall)")
    print(f"  {'estimator':32s} {'seconds':>9s} {'estimate':>10s} {'ereval':>10s} {'|diff|':>9s}")
    for name, v in theirs.items():
        mine = distinct[SAME_ESTIMATOR[name]].value
        print(
            f"  {name:32s} {v['seconds']:9.3f} {v['estimate']:10.6f} {mine:10.6f} "
            f"{abs(mine - v['estimate']):9.1e}"
        )
    pp = theirs["pairwise_precision_estimator"]["seconds"]
    print(f"\n  all {len(theirs)} er-evaluation estimators: {total:.2f} s")
    print(
        f"  speed-up, all estimators:        {total / t_all:8.0f}x prepared, "
        f"{total / t_raw:6.1f}x from the raw prediction"
    )
    print(
        f"  speed-up, pairwise precision:    {pp / t_pp:8.0f}x prepared, "
        f"{pp / t_raw_pp:6.1f}x from the raw prediction (target >= 50x)"
    )


if __name__ == "__main__":
    main()
