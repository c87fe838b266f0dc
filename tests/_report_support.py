"""Reports shared by the report tests: the example and the edge cases."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile

import pandas as pd

from ereval import example
from ereval.report import Report, build_report, collect_results, example_report

#: Sections each report must have, by case.
EXPECTED: dict[str, tuple[str, ...]] = {
    "example": (
        "metrics",
        "estimates",
        "summary",
        "analysis",
        "worst",
        "threshold",
        "monitoring",
        "comparison",
        "oasis",
        "paula",
        "provenance",
    ),
    "truth_and_pred": ("metrics", "summary", "worst"),
    "sample_only": ("estimates", "summary", "analysis", "provenance"),
    "no_errors": ("metrics", "summary", "worst"),
    "one_release": ("summary",),
    "sample_tags": ("estimates", "summary", "analysis", "provenance"),
    "label_store": ("metrics", "summary", "worst", "provenance"),
}


@functools.cache
def report(case: str) -> Report:
    """The report of ``case`` (built once per process)."""
    truth = example.load("truth.csv")
    good = example.load("pred_good.csv")
    if case == "example":
        return example_report()
    if case == "truth_and_pred":
        return build_report(collect_results(truth=truth, preds={"pred_good": good}))
    if case == "sample_only":
        return build_report(
            collect_results(
                preds={"pred_good": good},
                sample=example.load("sample.csv"),
                design="record",
                draws="draws",
            )
        )
    if case == "no_errors":
        return build_report(collect_results(truth=truth, preds={"perfect": truth.copy()}))
    if case == "one_release":
        return build_report(
            collect_results(releases={"2024-01-01": example.load("releases/2024-01-01.csv")})
        )
    if case == "sample_tags":
        return build_report(
            collect_results(
                preds={"pred_poor": example.load("pred_poor.csv")},
                sample=tagged_sample(),
                design="record",
                draws="draws",
                records=example.load("records.csv"),
                feature_columns=["sex", "tags", "batch"],
                group="batch",
                tags="tags",
            )
        )
    if case == "label_store":
        return build_report(
            collect_results(
                truth=truth, preds={"pred_good": good}, labels_db=label_store(), worst=True
            )
        )
    raise KeyError(case)


@functools.cache
def label_store() -> str:
    """A label store with one pair session: ana labels 8 pairs, bo 4 of them, a lead
    adjudicates one disagreement."""
    from ereval.labels import Item, LabelStore

    folder = tempfile.mkdtemp(prefix="ereval-report-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = os.path.join(folder, "labels.db")
    store = LabelStore(path, create=True)
    try:
        store.create_session("pairs-1", kind="pairs", config={"seed": 0})
        store.add_items("pairs-1", [Item(f"P{i:05d}", i, {}) for i in range(10)])
        for i in range(8):
            store.label("pairs-1", f"P{i:05d}", "match" if i % 2 else "non-match", reviewer="ana")
        for i in range(4):
            store.label("pairs-1", f"P{i:05d}", "match", reviewer="bo")
        store.adjudicate("pairs-1", "P00000", "match", reviewer="lead")
    finally:
        store.close()
    return path


def tagged_sample() -> pd.DataFrame:
    """The example's sample with reviewers' tags, a batch per cluster and a reviewer."""
    sample = example.load("sample.csv")
    clusters = sorted(set(sample["cluster_id"]))
    tagged = {c: ("same name, typo" if k % 3 == 0 else "typo") for k, c in enumerate(clusters)}
    sample["tags"] = sample["cluster_id"].map(tagged)
    sample["batch"] = sample["cluster_id"].map({c: f"b{k % 2}" for k, c in enumerate(clusters)})
    sample["reviewer"] = sample["cluster_id"].map(
        {c: ("ana", "bo")[k % 2] for k, c in enumerate(clusters)}
    )
    return sample
