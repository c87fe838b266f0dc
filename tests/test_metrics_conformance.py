"""The official test cases of the CoNLL-2011/2012 reference coreference scorer (v8.01).

Every expected (recall, precision, F1) triple of ``tests/data/conll/conll_cases.json``
(see the README there) must be reproduced within the scorer's own tolerance (sum of absolute
differences < 1e-4). Responses are taken after the scorer's de-duplication.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ereval.metrics import evaluate

from ._data import data_file

OUR_NAME = {"muc": "muc", "bcub": "b3", "ceafm": "ceafm", "ceafe": "ceafe", "blanc": "blanc"}


def _cases() -> list[dict[str, Any]]:
    path = data_file("conll", "conll_cases.json")
    return list(json.loads(path.read_text(encoding="utf-8"))["cases"])


CASES = _cases()


def _score(case: dict[str, Any]) -> dict[str, float]:
    response = case["response_dedup_as_scorer"] or case["response"]
    return evaluate(
        case["key"],
        response,
        on_mismatch="twinless",
        metrics=[*OUR_NAME.values(), "lea", "b3_twinless"],
    )


def test_all_cases_present() -> None:
    assert len(CASES) == 36
    assert sum(len(c["expected"]) for c in CASES) == 91


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_expected_triples(case: dict[str, Any]) -> None:
    res = _score(case)
    for metric, spec in case["expected"].items():
        name = OUR_NAME[metric]
        got = (res[f"{name}_recall"], res[f"{name}_precision"], res[f"{name}_f1"])
        diff = sum(abs(a - b) for a, b in zip(spec["recall_precision_f1"], got, strict=True))
        assert diff < 1e-4, (metric, spec["recall_precision_f1"], got)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scorer_counts_for_every_metric(case: dict[str, Any]) -> None:
    """Also the scores the Perl scorer itself prints for metrics the config leaves out."""
    res = _score(case)
    perl = case["perl_scorer_v8_01"]
    for metric, name in [*OUR_NAME.items(), ("b3sys", "b3_sys")]:
        expected = perl[metric]["recall_precision_f1"]
        got = (res[f"{name}_recall"], res[f"{name}_precision"], res[f"{name}_f1"])
        assert got == pytest.approx(expected, abs=1e-9), (metric, expected, got)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if "lea" in (c.get("coval_unittest_expected") or {})],
    ids=lambda c: c["id"],
)
def test_lea_matches_coval_unittests(case: dict[str, Any]) -> None:
    res = _score(case)
    expected = case["coval_unittest_expected"]["lea"]["recall_precision_f1"]
    got = (res["lea_recall"], res["lea_precision"], res["lea_f1"])
    assert got == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if "lea" in (c.get("coval") or {}) and not c.get("coval_reader_messages")],
    ids=lambda c: c["id"],
)
def test_lea_matches_coval_runs(case: dict[str, Any]) -> None:
    """coval run on the same files (skipping cases its own reader parses differently)."""
    res = _score(case)
    got = (res["lea_recall"], res["lea_precision"], res["lea_f1"])
    assert got == pytest.approx(case["coval"]["lea"], abs=1e-9)
