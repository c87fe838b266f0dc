"""A real Splink model, end to end, checked against ereval's curve.

Trains a Splink 5 model (DuckDB backend) on the bundled example's records,
predicts the scored pairs, and compares:

1. Splink's truth-space table (``accuracy_analysis_from_labels_column`` with
   ``match_weight_round_to_nearest=None``, labels from ``entity_id``) with
   :func:`ereval.curves.threshold_curve` on the same predictions, read as
   ``ereval curve --preset splink`` reads them: the TP/FP/FN/TN counts must
   agree at every threshold Splink reports;
2. the time of both on the same pairs;
3. ereval's clustering metrics at the threshold of Splink's clusters
   (``cluster_pairwise_predictions_at_threshold``) with :func:`ereval.evaluate`
   on those clusters.

Splink is not a dependency of ereval: ``pip install splink==5.0.0`` first.
Run ``python benchmarks/splink_end_to_end.py``; it exits with status 1 when a
count or a metric disagrees. See ``docs/splink.md``.
"""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

import pandas as pd

import ereval
from ereval.curves import threshold_curve

T = TypeVar("T")
REPEATS = 3
CLUSTER_THRESHOLD = 0.999  # match probability of Splink's clusters
CLUSTER_METRICS = (
    "b3_precision",
    "b3_recall",
    "b3_f1",
    "cluster_precision",
    "cluster_recall",
    "cluster_f1",
    "pairwise_f1",
)


def load_records() -> pd.DataFrame:
    """The example's records, keyed by ``unique_id`` as Splink expects."""
    path = resources.files("ereval.data.example").joinpath("records.csv")
    with resources.as_file(path) as csv:
        records = pd.read_csv(csv, dtype=str, keep_default_na=False)
    records = records.rename(columns={"record_id": "unique_id"})
    return records.replace({"": None})


def train_and_predict(records: pd.DataFrame) -> tuple[Any, Any]:
    """A Splink dedupe model: comparisons, blocking rules, EM training."""
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    settings = SettingsCreator(
        link_type="dedupe_only",
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
            block_on("last_name", "street_name"),
        ],
        retain_intermediate_calculation_columns=False,
    )
    db_api = DuckDBAPI()
    linker = Linker(db_api.register(records), settings, log_level=logging.WARNING)
    linker.training.estimate_probability_two_random_records_match(
        [block_on("first_name", "last_name", "date_of_birth")], recall=0.7
    )
    linker.training.estimate_u_using_random_sampling(max_pairs=5e6, seed=1)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    linker.training.estimate_parameters_using_expectation_maximisation(
        block_on("first_name", "last_name")
    )
    predictions = linker.inference.predict()
    return linker, predictions


def best_time(run: Callable[[], T]) -> tuple[T, float]:
    """The result of ``run`` and its best time over :data:`REPEATS` runs."""
    best = math.inf
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return result, best


def compare_counts(splink_table: pd.DataFrame, curve_frame: pd.DataFrame) -> list[str]:
    """Rows where Splink's counts and ereval's link counts differ."""
    problems = []
    ours = curve_frame.set_index("threshold")
    for row in splink_table.itertuples(index=False):
        t = float(row.truth_threshold)
        if t not in ours.index:
            problems.append(f"threshold {t!r}: absent from ereval's curve")
            continue
        mine = ours.loc[t]
        for name in ("tp", "fp", "fn", "tn"):
            theirs_value = round(float(getattr(row, name)))
            mine_value = int(mine[f"links_{name}"])
            if theirs_value != mine_value:
                problems.append(
                    f"threshold {t!r}: {name} Splink {theirs_value}, ereval {mine_value}"
                )
    return problems


def main() -> int:
    try:
        import splink
    except ImportError:
        print("splink is not installed: `pip install splink==5.0.0` to run this comparison.")
        return 0
    logging.getLogger("splink").setLevel(logging.WARNING)

    records = load_records()
    truth = records[["unique_id", "entity_id"]]
    n = len(records)
    print(f"splink {splink.__version__}, ereval {ereval.__version__}")
    print(f"records: {n:,}, true clusters: {truth['entity_id'].nunique():,}")

    start = time.perf_counter()
    linker, predictions = train_and_predict(records)
    pairs = predictions.as_pandas_dataframe()
    print(
        f"trained and predicted in {time.perf_counter() - start:.1f} s: {len(pairs):,} scored pairs"
    )

    # 1. Splink's truth-space table, exact weights; ereval on the same predictions,
    # as `ereval curve --preset splink` reads them. 2. Each timed, best of REPEATS.
    def splink_table() -> pd.DataFrame:
        result = linker.evaluation.accuracy_analysis_from_labels_column(
            "entity_id", output_type="table", match_weight_round_to_nearest=None
        )
        return result.as_pandas_dataframe()

    table, splink_seconds = best_time(splink_table)

    def ereval_curve() -> Any:
        return threshold_curve(
            truth,
            pairs,
            score_col="match_weight",
            left_col="unique_id_l",
            right_col="unique_id_r",
            record_col="unique_id",
            cluster_col="entity_id",
            thresholds=table["truth_threshold"].to_numpy(),
        )

    curve, ereval_seconds = best_time(ereval_curve)

    problems = compare_counts(table, curve.frame)
    print(f"thresholds checked: {len(table):,} (every distinct match weight Splink reports)")
    print(f"count disagreements (TP/FP/FN/TN): {len(problems)}")
    for problem in problems[:20]:
        print("  " + problem)
    summary = curve.summary
    print(
        f"true pairs {summary['n_true_pairs']:,}, scored {summary['n_true_pairs_scored']:,}, "
        f"pairs completeness {summary['pairs_completeness']:.4f}"
    )
    print(
        f"time, best of {REPEATS}: Splink truth-space table {splink_seconds:.3f} s, ereval threshold_curve {ereval_seconds:.3f} s, "
        f"ratio {splink_seconds / ereval_seconds:.1f}"
    )

    # 3. Splink's clusters at a match probability.
    clusters = linker.clustering.cluster_pairwise_predictions_at_threshold(
        predictions, threshold_match_probability=CLUSTER_THRESHOLD
    ).as_pandas_dataframe()[["unique_id", "cluster_id"]]
    direct = ereval.evaluate(
        truth,
        clusters,
        record_col="unique_id",
        truth_cluster_col="entity_id",
        pred_cluster_col="cluster_id",
    )
    at = threshold_curve(
        truth,
        pairs,
        score_col="match_probability",
        left_col="unique_id_l",
        right_col="unique_id_r",
        record_col="unique_id",
        cluster_col="entity_id",
        thresholds=[CLUSTER_THRESHOLD],
    ).frame.iloc[0]
    print(
        f"Splink's clusters at match probability >= {CLUSTER_THRESHOLD}: {clusters['cluster_id'].nunique():,}"
    )
    print(f"  {'metric':<18} {'curve':>10} {'evaluate':>10}")
    for name in CLUSTER_METRICS:
        mine, theirs = float(at[name]), float(direct[name])
        print(f"  {name:<18} {mine:>10.6f} {theirs:>10.6f}")
        if not math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-12):
            problems.append(f"{name}: curve {mine!r}, evaluate {theirs!r}")
    if int(at["n_pred_clusters"]) != clusters["cluster_id"].nunique():
        problems.append("number of clusters differs")
    print("agreement: " + ("yes" if not problems else f"NO ({len(problems)} problems)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
