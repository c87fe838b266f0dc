"""Binette et al. (2024), §4.4.1, Figures 9 and 10: the RLdata10000 simulation.

The truth is RLdata10000's identity (1,000 clusters of two records, 8,000
singletons); the prediction links two records that agree on at least four of
first name, last name, birth year, month and day ("all-but-one"). True clusters
are drawn with replacement, with probability proportional to their size
("cluster_size") or uniformly ("uniform"), 200, 400 or 800 of them, 1,000 times
each; every estimator's bias, RMSE and the coverage of estimate ± 2 std
("coverage_2") are compared with the published figures, and the spread of the
reported standard deviations (Figure 10).

    python benchmarks/reproduce/fig9_uniform_sampling.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, all_but_one, clustering, parse, print_table, rldata10000, save_figure

from ereval.simulate import SimulationResult, simulate

ESTIMATORS = (
    "pairwise_precision",
    "pairwise_recall",
    "cluster_precision",
    "cluster_recall",
    "b3_precision",
    "b3_recall",
)
DESIGNS = ("cluster_size", "uniform")
SIZES = (200, 400, 800)
MC = "Monte Carlo error of the paper's 1,000 repeats and ours"


def run_study(
    truth: Any, pred: Any, repeats: int, seed: int, sizes: Sequence[int] = SIZES
) -> dict[tuple[str, int], SimulationResult]:
    """One simulation per design (cluster_size, uniform) and sample size."""
    rng = np.random.default_rng(seed)
    return {
        (weights, n): simulate(
            truth,
            pred,
            design="cluster",
            weights=weights,
            sample_size=n,
            repeats=repeats,
            estimators=ESTIMATORS,
            naive=False,
            seed=rng,
        )
        for weights in DESIGNS
        for n in sizes
    }


def coverage_2(result: SimulationResult, key: str) -> float:
    """Share of repeats whose estimate ± 2 reported std covers the true value."""
    est, std = result.estimates[key], result.stds[key]
    return float(np.mean(np.abs(est - result.true_values[key]) <= 2 * std))


def stat(result: SimulationResult, key: str, column: str) -> float:
    row = result.summary.set_index("estimator").loc[key]
    return float(row[column])


def table(results: dict[tuple[str, int], SimulationResult]) -> list[Row]:
    any_result = results[("cluster_size", SIZES[0])]
    true_p = any_result.true_values["pairwise_precision"]
    true_r = any_result.true_values["pairwise_recall"]
    rows = [
        Row("true pairwise precision", 0.91, true_p, "same data and rule; paper rounds"),
        Row("true pairwise recall", 0.97, true_r, "same data and rule; paper rounds"),
        Row("RMSE of the constant estimate 100%", 0.09, 1 - true_p, "1 - precision"),
    ]

    def worst_bias(sizes: Sequence[int]) -> tuple[float, float]:
        cells = [(r, k) for (w, n), r in results.items() if n in sizes for k in ESTIMATORS]
        biases = [abs(stat(r, k, "bias")) for r, k in cells]
        i = int(np.argmax(biases))
        return biases[i], stat(*cells[i], "bias_se")

    for sizes, bound in ((SIZES, 0.004), (SIZES[1:], 0.002)):
        bias, se = worst_bias(sizes)
        rows.append(
            Row(
                f"max |bias|, n in {{{', '.join(map(str, sizes))}}}",
                f"< {bound}",
                bias,
                f"Monte Carlo s.e. {se:.4f}; holds within 2 s.e.",
                holds=bias - 2 * se < bound,
            )
        )
    for n, paper in zip(SIZES, (0.047, 0.035, 0.024), strict=True):
        rows.append(
            Row(
                f"RMSE pairwise precision, cluster_size, n={n}",
                paper,
                stat(results[("cluster_size", n)], "pairwise_precision", "rmse"),
                MC,
            )
        )
    for n in SIZES:
        size = stat(results[("cluster_size", n)], "pairwise_precision", "rmse")
        uniform = stat(results[("uniform", n)], "pairwise_precision", "rmse")
        rows.append(
            Row(
                f"RMSE pairwise precision uniform / cluster_size, n={n}",
                "> 1",
                uniform / size,
                "claim: uniform sampling is less accurate",
                holds=uniform > size,
            )
        )
    for n in SIZES[1:]:
        for key in ("pairwise_precision", "pairwise_recall"):
            rows.append(
                Row(
                    f"coverage_2 {key}, cluster_size, n={n}",
                    ">= 0.90" if n == 400 else "~0.95",
                    coverage_2(results[("cluster_size", n)], key),
                    "claim of the text; Monte Carlo s.e. ~0.01",
                    holds=coverage_2(results[("cluster_size", n)], key) >= 0.9,
                )
            )
    pairs = [(k, n) for k in ("pairwise_precision", "pairwise_recall") for n in SIZES]
    size_cov = float(np.mean([coverage_2(results[("cluster_size", n)], k) for k, n in pairs]))
    uni_cov = float(np.mean([coverage_2(results[("uniform", n)], k) for k, n in pairs]))
    rows.append(
        Row(
            "mean coverage_2 pairwise P/R, uniform minus cluster_size",
            "< 0",
            uni_cov - size_cov,
            "claim: uniform coverage is lower in general",
            holds=uni_cov < size_cov,
        )
    )
    zero = float(np.mean(results[("cluster_size", 200)].stds["pairwise_recall"] == 0))
    rows.append(
        Row(
            "Fig. 10: share of zero std, pairwise recall, n=200",
            "> 0 (point mass)",
            zero,
            "samples without an under-clustering error",
            holds=zero > 0,
        )
    )
    return rows


def figures(
    results: dict[tuple[str, int], SimulationResult],
    folder: Path,
    *,
    name: str = "binette2024_fig9.png",
    title: str = "RLdata10000, all-but-one prediction (cf. Binette et al. 2024, Fig. 9)",
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({n for _, n in results})
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    panels = (
        ("bias", lambda r, k: stat(r, k, "bias")),
        ("RMSE", lambda r, k: stat(r, k, "rmse")),
        ("coverage_2", coverage_2),
    )
    for ax, (panel, value) in zip(axes, panels, strict=True):
        for i, key in enumerate(ESTIMATORS):
            for weights, style in zip(DESIGNS, ("-", "--"), strict=True):
                ys = [value(results[(weights, n)], key) for n in sizes]
                label = f"{key} ({weights})" if panel == "bias" else None
                ax.plot(sizes, ys, style, marker="o", color=f"C{i}", label=label)
        if panel == "coverage_2":
            ax.axhline(0.95, color="grey", lw=0.8)
        ax.set_title(panel)
        ax.set_xlabel("sample size (clusters)")
        ax.set_xticks(sizes)
    fig.legend(loc="lower center", ncol=4, fontsize=7, bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(title)
    save_figure(fig, folder, name)
    if name != "binette2024_fig9.png":
        return

    fig, axes = plt.subplots(2, 3, figsize=(11, 5), sharey="row")
    for row, key in enumerate(("pairwise_precision", "pairwise_recall")):
        for col, n in enumerate(SIZES):
            ax = axes[row, col]
            ax.hist(results[("cluster_size", n)].stds[key], bins=40, color=f"C{row}")
            ax.set_title(f"{key}, n={n}", fontsize=9)
    fig.suptitle("Reported std, cluster_size design (cf. Binette et al. 2024, Fig. 10)")
    fig.tight_layout()
    save_figure(fig, folder, "binette2024_fig10.png")


def main(argv: Sequence[str] | None = None) -> list[Row]:
    args = parse(argv, __doc__.splitlines()[0])
    records, identity = rldata10000()
    truth, pred = clustering(identity), clustering(all_but_one(records))
    results = run_study(truth, pred, 100 if args.quick else 1000, args.seed)
    rows = table(results)
    print_table("Binette et al. 2024, Figs 9-10 (RLdata10000)", rows)
    if not args.no_figures:
        figures(results, args.figures)
    return rows


if __name__ == "__main__":
    main()
