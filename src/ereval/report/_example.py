"""The report of the bundled example data set (:mod:`ereval.example`)."""

from __future__ import annotations

from .. import example
from ._build import build_report
from ._collect import collect_results
from ._model import Report

__all__ = ["example_report"]

RELEASES = tuple(name for name in example.FILES if name.startswith("releases/"))


def example_report(*, title: str = "ereval example: evaluation of two linkers") -> Report:
    """The report of the bundled example: two predictions against the truth, the
    labelled sample (record design) with an error analysis by sex, the four
    releases, the scored pairs against the threshold, OASIS on the candidate
    pairs (500 labels) and PAULA's bounds from the planned labels.
    """
    records = example.load("records.csv")
    pairs = example.load("pairs.csv")
    results = collect_results(
        truth=example.load("truth.csv"),
        preds={
            "pred_good": example.load("pred_good.csv"),
            "pred_poor": example.load("pred_poor.csv"),
        },
        sample=example.load("sample.csv"),
        design="record",
        draws="draws",
        records=records,
        feature_columns=["source", "year", "sex"],
        shares=["source=census"],
        group="sex",
        releases={name[len("releases/") : -len(".csv")]: example.load(name) for name in RELEASES},
        pairs=pairs,
        pool=pairs,
        ranked=len(pairs),
        labels=example.load("paula_labels.csv"),
        epsilon=0.1,
        delta=10,
        sources={
            "truth": "truth.csv",
            "pred_good": "pred_good.csv",
            "pred_poor": "pred_poor.csv",
            "sample": "sample.csv",
            "records": "records.csv",
            "pairs": "pairs.csv",
            "pool": "pairs.csv",
            "ranked": "pairs.csv",
            "labels": "paula_labels.csv",
        },
    )
    return build_report(results, title=title)
