"""Write the Splink link-only reference of ``tests/test_link_only.py``: a real Splink 5
``link_only`` model over the bundled example's four data sets, its scored pairs and its
truth-space table.

The example's records come from four data sets (``source``: census, wic, cps, acs). A
link job compares records of different data sets only, so its universe of record pairs
is the pairs across data sets. This script trains Splink with ``link_type="link_only"``
on the four tables, predicts, and asks Splink for its truth-space table
(``accuracy_analysis_from_labels_column`` with ``match_weight_round_to_nearest=None``,
labels from ``entity_id``). It writes the predictions
(``tests/data/splink-link-only/predictions.csv.gz``: ``source_dataset_l, unique_id_l,
source_dataset_r, unique_id_r, match_weight``) and the table's counts
(``truth_space.csv``: ``truth_threshold, tp, fp, fn, tn``), and checks them against
:func:`ereval.curves.threshold_curve` with ``link_only=True`` (exit status 1 on any
difference). The test reads the frozen files; Splink is not a dependency of ereval.

    pip install splink==5.0.0
    python benchmarks/splink_link_only_reference.py
"""

from __future__ import annotations

import logging
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ereval.curves import threshold_curve

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "splink-link-only"


def load_records() -> pd.DataFrame:
    path = resources.files("ereval.data.example").joinpath("records.csv")
    with resources.as_file(path) as csv:
        records = pd.read_csv(csv, dtype=str, keep_default_na=False)
    return records.rename(columns={"record_id": "unique_id"}).replace({"": None})


def main() -> int:
    try:
        import splink.comparison_library as cl
        from splink import DuckDBAPI, Linker, SettingsCreator, block_on
    except ImportError:
        print("Splink is not installed: pip install splink==5.0.0")
        return 1
    records = load_records()
    names = sorted(records["source"].unique())
    tables = [records[records["source"] == s].drop(columns="source") for s in names]
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[
            cl.NameComparison("first_name"),
            cl.NameComparison("last_name"),
            cl.DateOfBirthComparison(
                "date_of_birth", input_is_string=True, datetime_format="%m/%d/%Y"
            ),
            cl.ExactMatch("street_number"),
            cl.LevenshteinAtThresholds("street_name", [1, 3]),
        ],
        blocking_rules_to_generate_predictions=[
            block_on("first_name", "last_name"),
            block_on("date_of_birth"),
            block_on("street_number", "street_name"),
        ],
        retain_intermediate_calculation_columns=False,
    )
    db = DuckDBAPI()
    linker = Linker(
        [db.register(t, dataset_display_name=s) for t, s in zip(tables, names, strict=True)],
        settings,
        log_level=logging.WARNING,
    )
    linker.training.estimate_probability_two_random_records_match(
        [block_on("first_name", "last_name", "date_of_birth")], recall=0.7
    )
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6, seed=1)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    linker.training.estimate_parameters_using_expectation_maximisation(
        block_on("first_name", "last_name")
    )
    pairs = linker.inference.predict().as_pandas_dataframe()
    pairs = pairs[
        ["source_dataset_l", "unique_id_l", "source_dataset_r", "unique_id_r", "match_weight"]
    ]
    table = linker.evaluation.accuracy_analysis_from_labels_column(
        "entity_id", output_type="table", match_weight_round_to_nearest=None
    ).as_pandas_dataframe()[["truth_threshold", "tp", "fp", "fn", "tn"]]
    truth = records[["unique_id", "entity_id", "source"]]
    curve = threshold_curve(
        truth,
        pairs,
        score_col="match_weight",
        left_col="unique_id_l",
        right_col="unique_id_r",
        record_col="unique_id",
        cluster_col="entity_id",
        thresholds=table["truth_threshold"].to_numpy(),
        link_only=True,
        source_col="source",
    )
    ours = curve.frame.set_index("threshold")
    theirs = table.set_index("truth_threshold").sort_index()
    bad = 0
    for t, row in theirs.iterrows():
        got = ours.loc[t]
        counts = (got["links_tp"], got["links_fp"], got["links_fn"], got["links_tn"])
        if counts != (row["tp"], row["fp"], row["fn"], row["tn"]):
            bad += 1
            if bad < 5:
                print("differ at", t, counts, tuple(row))
    print(f"{len(pairs):,} scored pairs, {len(theirs):,} thresholds, {bad} disagreements")
    print(f"pairs across the data sets: {int(theirs.iloc[0][['tp', 'fp', 'fn', 'tn']].sum()):,}")
    OUT.mkdir(parents=True, exist_ok=True)
    pairs.to_csv(OUT / "predictions.csv.gz", index=False)
    pick = np.unique(np.linspace(0, len(theirs) - 1, 60).round().astype(int))
    theirs.iloc[pick].reset_index().to_csv(OUT / "truth_space.csv", index=False)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
