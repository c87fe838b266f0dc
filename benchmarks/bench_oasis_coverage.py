"""Coverage of the OASIS estimators' intervals: F1, precision and recall of every sampler.

For each pool (the three shipped pools of the OASIS paper and the Amazon-Google
stand-in of ``_oasis_pools.py``) and each method (oasis, passive, stratified,
importance), ``--repeats`` seeded runs (seeds 0, 1, ...) label pairs up to each budget
in turn (one run per seed, estimates taken as it passes each budget). The table gives,
per pool, method, budget and measure:

* ``nominal``: the level of the intervals;
* ``coverage``: share of the runs whose interval holds the pool's true value, with its
  Monte Carlo standard error ``sqrt(c (1 - c) / runs)``;
* ``median width`` and ``mean width`` of the intervals;
* ``empirical sd``: the standard deviation of the estimates over the runs (a
  well-sized 95% interval is about ``2 x 1.96 x sd`` wide when the estimates are
  roughly normal);
* ``[0, 1]``: share of the intervals that are the whole range;
* ``defined``: share of runs whose estimate is defined (passive sampling can finish
  without a single labelled match).

``--curve`` adds the rows of :func:`ereval.oasis.estimated_curve` at the pool's own
threshold (method ``<method> curve``), from the same labels, and prints the largest
difference between its bounds and the sampler's estimate's.

Usage::

    python benchmarks/bench_oasis_coverage.py [--pools abt-buy,...] [--methods oasis,...]
        [--budgets 100,500,1000,2000] [--repeats 200] [--level 0.95] [--curve]
        [--format table|markdown] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _oasis_pools import POOL_NAMES, load_pool
from ereval.oasis import estimated_curve, make_sampler, stratify

METHODS = ("oasis", "passive", "stratified", "importance")
MEASURES = {"f1": 0.5, "precision": 1.0, "recall": 0.0}
BUDGETS = (100, 500, 1000, 2000)


def run_cell(
    pool_name: str,
    method: str,
    budgets: tuple[int, ...],
    repeats: int,
    level: float,
    curve: bool,
) -> tuple[list[dict[str, Any]], float]:
    """All runs of one pool and method; the rows of the table and the curve's largest gap."""
    pool = load_pool(pool_name)
    truth = {m: pool.true_measure(a) for m, a in MEASURES.items()}
    options: dict[str, Any] = {"alpha": 0.5}
    if method in ("oasis", "stratified"):
        options["strata"] = stratify(pool.scores)
    records: dict[tuple[str, int, str], list[tuple[float, float, float]]] = {}
    gap = 0.0
    for seed in range(repeats):
        sampler = make_sampler(method, pool, seed=seed, **options)  # type: ignore[arg-type]
        for b in budgets:
            if b > pool.size:
                continue
            sampler.run(budget=b, confidence=level)
            est = sampler.estimate(confidence=level)
            for name in MEASURES:
                e = est.measure(MEASURES[name])
                records.setdefault((method, b, name), []).append((e.value, e.lower, e.upper))
            if curve:
                c = estimated_curve(sampler, [pool.threshold], confidence=level)
                for name, quantity in (
                    ("f1", "f_measure"),
                    ("precision", "precision"),
                    ("recall", "recall"),
                ):
                    e, own = c.estimate(quantity, 0), est.measure(MEASURES[name])
                    key = (f"{method} curve", b, name)
                    records.setdefault(key, []).append((e.value, e.lower, e.upper))
                    if math.isfinite(own.lower):
                        gap = max(gap, abs(e.lower - own.lower), abs(e.upper - own.upper))
    rows = []
    for (source, b, name), values in sorted(records.items()):
        a = np.asarray(values, dtype=np.float64)
        ok = np.isfinite(a[:, 0])
        a = a[ok]
        t = truth[name]
        runs = int(ok.sum())
        cov = float(np.mean((a[:, 1] <= t) & (t <= a[:, 2]))) if runs else math.nan
        width = a[:, 2] - a[:, 1]
        rows.append(
            {
                "pool": pool_name,
                "method": source,
                "labels": b,
                "measure": name,
                "truth": t,
                "nominal": level,
                "runs": runs,
                "coverage": cov,
                "coverage_se": math.sqrt(cov * (1 - cov) / runs) if runs else math.nan,
                "median_width": float(np.median(width)) if runs else math.nan,
                "mean_width": float(np.mean(width)) if runs else math.nan,
                "empirical_sd": float(np.std(a[:, 0])) if runs else math.nan,
                "mae": float(np.mean(np.abs(a[:, 0] - t))) if runs else math.nan,
                "whole_range": float(np.mean((a[:, 1] <= 0.0) & (a[:, 2] >= 1.0)))
                if runs
                else math.nan,
                "defined": runs / len(values),
            }
        )
    return rows, gap


def print_table(rows: list[dict[str, Any]], fmt: str) -> None:
    head = [
        "pool",
        "method",
        "labels",
        "measure",
        "nominal",
        "coverage",
        "median width",
        "mean width",
        "empirical sd",
        "[0, 1]",
        "defined",
    ]
    lines = []
    for r in rows:
        cov = "-" if math.isnan(r["coverage"]) else f"{r['coverage']:.2f} ± {r['coverage_se']:.2f}"
        lines.append(
            [
                r["pool"],
                r["method"],
                str(r["labels"]),
                r["measure"],
                f"{r['nominal']:.2f}",
                cov,
                f"{r['median_width']:.3f}",
                f"{r['mean_width']:.3f}",
                f"{r['empirical_sd']:.3f}",
                f"{r['whole_range']:.2f}",
                f"{r['defined']:.2f}",
            ]
        )
    if fmt == "markdown":
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for line in lines:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(h), *(len(x[i]) for x in lines)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    for line in lines:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pools", default=",".join(POOL_NAMES))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--curve", action="store_true")
    parser.add_argument("--format", choices=("table", "markdown"), default="table")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    budgets = tuple(sorted(int(b) for b in args.budgets.split(",")))
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    for pool_name in args.pools.split(","):
        for method in args.methods.split(","):
            if method not in METHODS:
                raise SystemExit(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
            t0 = time.perf_counter()
            cell, gap = run_cell(pool_name, method, budgets, args.repeats, args.level, args.curve)
            rows.extend(cell)
            note = f", curve vs estimate: largest bound gap {gap:.2g}" if args.curve else ""
            print(
                f"# {pool_name} / {method}: {args.repeats} runs in "
                f"{time.perf_counter() - t0:.1f} s{note}",
                file=sys.stderr,
            )
    print_table(rows, args.format)
    print(f"# total {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
