"""Sabharwal & Sedghi (2017), Figure 1 and §4.4.3: annotations needed against accuracy.

A sweep of the spacing epsilon: for each, the annotations PAULA (Theorem 3,
Delta = 100), logarithmic stratified sampling (Theorem 2) and uniform random
sampling (eq. 5) need to guarantee the same approximation factor
gamma(1 + epsilon) of the precision function of a list of N = 10^7 items, with
p_min = 0.5 and failure probability 0.05 for the sampling methods. The numeric
example of §4.4.3 (the Science tensor, N = 217,077) is printed beside it.

    python benchmarks/reproduce/paula_fig1.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, parse, print_table, save_figure

from ereval.paula import AnnotationCounts, annotation_counts

N, DELTA, P_MIN, FAIL = 10_000_000, 100, 0.5, 0.05


def sweep(epsilons: Sequence[float]) -> list[AnnotationCounts]:
    return [
        annotation_counts(N, epsilon=e, delta=DELTA, p_min=P_MIN, failure_probability=FAIL)
        for e in epsilons
    ]


def main(argv: Sequence[str] | None = None) -> list[Row]:
    args = parse(argv, __doc__.splitlines()[0])
    epsilons = np.geomspace(0.0005, 0.2, 8 if args.quick else 60)
    counts = sweep(epsilons)
    science = annotation_counts(
        217_077, epsilon=0.03, delta=DELTA, p_min=0.7, failure_probability=FAIL
    )
    rows = [
        Row("§4.4.3 PAULA annotations, N=217,077, eps=0.03", 17392.0, float(science.paula)),
        Row(
            "§4.4.3 random sampling annotations, same accuracy",
            47030.0,
            float(science.random_sampling),
            "eq. (5) at p = 0.7; the paper's rounding of p(r) ~ 0.7 is not stated",
        ),
    ]
    band = [c for c in counts if 0.03 <= c.alpha <= 0.10]
    ratios = [c.random_sampling / c.paula for c in band]
    rows.append(
        Row(
            "Fig. 1: random / PAULA annotations, alpha in [3%, 10%]",
            "> 10 (over an order of magnitude)",
            float(np.median(ratios)),
            f"median of {len(band)} values of eps; range {min(ratios):.1f}-{max(ratios):.1f}",
            holds=float(np.median(ratios)) > 10,
        )
    )
    strat = [c.stratified / c.paula for c in band]
    rows.append(
        Row(
            "Fig. 1: stratified / PAULA for alpha in [3%, 10%]",
            "~2 (twice as many)",
            float(np.median(strat)),
            f"median; range {min(strat):.2f}-{max(strat):.2f}",
            holds=min(strat) > 1,
        )
    )
    small = counts[0]
    rows.append(
        Row(
            f"Fig. 1: stratified / PAULA at the smallest alpha ({100 * small.alpha:.1f}%)",
            "< 1 (stratified more efficient)",
            small.stratified / small.paula,
            "the sweep's first point",
            holds=small.stratified < small.paula,
        )
    )
    large = [100 * c.alpha for c in counts if c.alpha > 0.10 and c.stratified < c.paula]
    if large:
        rows.append(
            Row(
                "Fig. 1: alpha (%) above which stratified < PAULA again",
                "not stated",
                min(large),
                "outside the 3-10% range the paper discusses",
            )
        )
    print_table("Sabharwal & Sedghi 2017, Fig. 1 (N = 10^7, Delta = 100, p_min = 0.5)", rows)
    print(f"\n{'eps':>7}{'1+alpha':>9}{'PAULA':>10}{'stratified':>12}{'random':>12}")
    for c in counts[:: max(1, len(counts) // 12)]:
        print(
            f"{c.epsilon:>7.4f}{c.approximation:>9.4f}{c.paula:>10,}{c.stratified:>12,}"
            f"{c.random_sampling:>12,}"
        )
    if args.no_figures:
        return rows
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    alphas = [100 * c.alpha for c in counts]
    for name, values in (
        ("random sampling", [c.random_sampling for c in counts]),
        ("logarithmic stratified", [c.stratified for c in counts]),
        ("PAULA", [c.paula for c in counts]),
    ):
        ax.plot(alphas, values, label=name)
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.set_xticks([2, 3, 5, 10, 20, 40], labels=["2", "3", "5", "10", "20", "40"])
    ax.minorticks_off()
    ax.set_xlabel("guaranteed approximation error alpha (%)")
    ax.set_ylabel("annotations")
    ax.set_title("N = 10^7 (cf. Sabharwal & Sedghi 2017, Fig. 1)")
    ax.legend()
    save_figure(fig, args.figures, "paula_fig1.png")
    return rows


if __name__ == "__main__":
    main()
