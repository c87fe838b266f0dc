"""Reports shared by the report tests: the example and the edge cases."""

from __future__ import annotations

import functools

from ereval import example
from ereval.report import Report, build_report, example_report

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
}


@functools.cache
def report(case: str) -> Report:
    """The report of ``case`` (built once per process)."""
    truth = example.load("truth.csv")
    good = example.load("pred_good.csv")
    if case == "example":
        return example_report()
    if case == "truth_and_pred":
        return build_report(truth=truth, preds={"pred_good": good})
    if case == "sample_only":
        return build_report(
            preds={"pred_good": good},
            sample=example.load("sample.csv"),
            design="record",
            draws="draws",
        )
    if case == "no_errors":
        return build_report(truth=truth, preds={"perfect": truth.copy()})
    if case == "one_release":
        return build_report(releases={"2024-01-01": example.load("releases/2024-01-01.csv")})
    raise KeyError(case)
