"""Benchmark: PAULA's plan and bounds for lists of up to 2 * 10^9 items.

Prints, for epsilon = 0.03 and Delta = 100 (the paper's setting):

1. ``paula_plan`` time for N = 10^4 .. 2 * 10^9, next to a naive plan measured in
   the same run: Algorithm 2's preamble transcribed with floats (r = r * (1+eps),
   g_j = ceil(r)) plus a boolean mask of size N marking the ranks to label. The
   naive plan is O(N) and runs only up to ``--naive-max-n``; its annotation count
   is compared with the exact one.
2. ``paula_bounds`` time (label validation, the monotonicity check and Algorithm 2)
   and the time to evaluate the bounds on the default curve ranks, for the same N,
   next to a naive Algorithm 2: the recurrence of the paper in pure Python, labels
   in a dict, local precisions summed label by label.
3. The quality of the bounds on a simulated list of ``--quality-n`` items whose
   label probability falls from 0.95 to 0.45: annotations, worst ratio of each
   bound to the true precision, and the share of ranks whose envelope contains it.

Run with ``python benchmarks/bench_paula.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ereval.paula import paula_bounds, paula_plan

EPS, DELTA = 0.03, 100


def timed(func: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def naive_plan(n: int, epsilon: float, delta: int) -> int:
    """Algorithm 2's preamble with floats, and a mask of size n; returns the count."""
    r_tilde = math.ceil((delta + 2) / epsilon)
    ell = math.ceil(math.log(r_tilde) / math.log(1 + epsilon))
    big_l = math.floor(math.log(n) / math.log(1 + epsilon))
    r = (1 + epsilon) ** (ell - 1)
    points = []
    for _ in range(ell, big_l + 1):
        r = r * (1 + epsilon)
        points.append(math.ceil(r))
    mask = np.zeros(n + 1, dtype=bool)
    mask[1 : points[0] + 1] = True
    for gk in points[1:]:
        mask[gk - delta + 1 : gk + 1] = True
    return int(mask.sum())


def naive_bounds(
    labels: dict[int, int], grid: list[int], delta: int
) -> tuple[list[float], list[float]]:
    """Algorithm 2 in pure Python: Y- and Y+ at the points."""

    def p_delta(r: int) -> float:
        return sum(labels[i] for i in range(r - delta + 1, r + 1)) / delta

    y0 = float(sum(labels[i] for i in range(1, grid[0] + 1)))
    y_lo, y_hi = [y0], [y0]
    for k in range(len(grid) - 1):
        step = grid[k + 1] - grid[k]
        y_lo.append(y_lo[-1] + step * p_delta(grid[k + 1]))
        y_hi.append(y_hi[-1] + step * p_delta(grid[k]))
    return y_lo, y_hi


def synthetic_labels(ranks: np.ndarray) -> np.ndarray:
    """Deterministic labels at the given ranks only: a density falling with log(rank)."""
    density = 0.95 - 0.5 * np.log(ranks) / np.log(2e9)
    cum = np.cumsum(density)
    return (np.floor(cum) != np.floor(cum - density)).astype(np.int8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    parser.add_argument("--naive-max-n", type=int, default=10**8)
    parser.add_argument("--quality-n", type=int, default=10**6)
    args = parser.parse_args()
    sizes = [10**4, 10**6, 10**8, 2 * 10**9]
    repeat = 3 if args.quick else 7
    if args.quick:
        args.naive_max_n = min(args.naive_max_n, 10**7)
        args.quality_n = min(args.quality_n, 2 * 10**5)

    print(f"PAULA benchmark, epsilon={EPS}, Delta={DELTA}\n")
    print("1. plan")
    print(
        f"{'N':>14} {'annotations':>12} {'paula_plan':>12} {'naive plan':>12} {'ratio':>8}  naive count"
    )
    for n in sizes:
        t_plan, plan = timed(lambda n=n: paula_plan(n, epsilon=EPS, delta=DELTA), repeat)
        if n <= args.naive_max_n:
            t_naive, count = timed(lambda n=n: naive_plan(n, EPS, DELTA), max(1, repeat // 3))
            naive = f"{t_naive * 1e3:10.2f}ms {t_naive / t_plan:7.1f}x  {count}"
            naive += " (same)" if count == plan.annotations else " (DIFFERS)"
        else:
            naive = f"{'-':>12} {'-':>8}  (O(N) mask skipped)"
        print(f"{n:>14,} {plan.annotations:>12,} {t_plan * 1e3:10.3f}ms {naive}")

    print("\n2. bounds from the planned labels")
    print(
        f"{'N':>14} {'labels':>8} {'paula_bounds':>13} {'curve':>10} {'points':>7}"
        f" {'naive Alg. 2':>13} {'ratio':>7}"
    )
    for n in sizes:
        plan = paula_plan(n, epsilon=EPS, delta=DELTA)
        ranks = plan.ranks()
        labels = synthetic_labels(ranks)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_b, b = timed(
                lambda p=plan, r=ranks, v=labels: paula_bounds(p, r, v, on_violation="ignore"),
                repeat,
            )
        pts = b.default_ranks()
        t_c, _ = timed(lambda b=b, pts=pts: b.curve(pts), repeat)
        lookup = dict(zip(ranks.tolist(), labels.tolist(), strict=True))
        grid = b.grid.tolist()
        t_n, (lo, hi) = timed(
            lambda d=lookup, g=grid: naive_bounds(d, g, DELTA), max(1, repeat // 3)
        )
        same = np.allclose(lo, b.yield_lower_grid) and np.allclose(hi, b.yield_upper_grid)
        print(
            f"{n:>14,} {ranks.size:>8,} {t_b * 1e3:11.2f}ms {t_c * 1e3:8.2f}ms {pts.size:>7,}"
            f" {t_n * 1e3:11.2f}ms {t_n / t_b:6.1f}x" + ("" if same else "  (Y DIFFERS)")
        )

    print("\n3. quality on a simulated list")
    n = args.quality_n
    rng = np.random.default_rng(0)
    v = (rng.random(n) < np.linspace(0.95, 0.45, n)).astype(np.int8)
    plan = paula_plan(n, epsilon=EPS, delta=DELTA)
    b = paula_bounds(plan, plan.ranks(), plan.select(v), on_violation="ignore")
    r = np.arange(1, n + 1)
    p = np.cumsum(v, dtype=np.int64) / r
    lo, hi, sl, su = b.lower(r), b.upper(r), b.step_lower(r), b.step_upper(r)
    worst = max(np.max(sl / p), np.max(p / sl), np.max(su / p), np.max(p / su))
    print(f"N = {n:,}, annotations = {plan.annotations:,} ({plan.annotations / n:.2%} of the list)")
    print(f"guaranteed factor gamma(1+eps) = {plan.approximation:.4f} (under A.1/A.2)")
    print(f"worst step-function ratio to the true precision = {worst:.4f}")
    print(f"envelope contains the true precision at {np.mean((lo <= p) & (p <= hi)):.1%} of ranks")
    print(f"true p(N) = {p[-1]:.4f}, bounds [{lo[-1]:.4f}, {hi[-1]:.4f}]")
    rep = b.diagnostic
    print(
        f"monotonicity check: {len(rep.violations)} rise(s) of local precision, largest "
        f"{rep.max_rise:.3f} (Bernoulli labels are not exactly monotone; see docs/paula.md)"
    )


if __name__ == "__main__":
    main()
