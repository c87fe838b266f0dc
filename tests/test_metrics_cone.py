"""CONE B-cubed and CONE CEAF (Lin et al. 2010, surveyed by Maidasani et al. 2012,
§3.2.4-3.2.5): hand-worked cases, a brute-force reference that cuts the prediction
down to the truth's records and enumerates every alignment, and properties.

Neither paper prints a CONE value for a small example (Maidasani et al. name the
metrics without computing them in Table 3), so the worked cases below are computed
by hand from the definition, the arithmetic in the comments."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from hypothesis import given

import ereval.metrics._cone
from ereval.contingency import contingency_table
from ereval.metrics import evaluate
from ereval.metrics._cone import cone_b3_scores, cone_ceaf_scores

from . import _reference as ref
from .test_metrics_bruteforce import check_pr, close, clustering_pair

CONE = ("cone_b3", "cone_ceafm", "cone_ceafe")
# the truth lists the named records only; the prediction covers every record
NAMED_TRUTH = [["a", "b", "c"], ["d", "e"]]
FULL_PRED = [["a", "b", "x"], ["c", "d", "e", "y"], ["z"]]


def cone(truth: object, pred: object, **options: object) -> dict[str, float]:
    return evaluate(truth, pred, metrics="cone_b3,cone_ceaf", on_mismatch="twinless", **options)


def test_hand_worked_partial_truth() -> None:
    res = cone(NAMED_TRUTH, FULL_PRED)
    # cut down to the named records the prediction is {a,b} {c,d,e}; x, y, z do not count
    # B3 precision: a, b: 2/2; c: 1/3; d, e: 2/3 -> (2 + 5/3) / 5 = 11/15
    # B3 recall:    a, b: 2/3; c: 1/3; d, e: 2/2 -> (5/3 + 2) / 5 = 11/15
    assert res["cone_b3_precision"] == pytest.approx(11 / 15, rel=1e-15)
    assert res["cone_b3_recall"] == pytest.approx(11 / 15, rel=1e-15)
    assert res["cone_b3_f1"] == pytest.approx(11 / 15, rel=1e-15)
    # CEAFm: {a,b,c}-{a,b} and {d,e}-{c,d,e} share 2 + 2 = 4 of 5 records on each side
    assert (res["cone_ceafm_precision"], res["cone_ceafm_recall"]) == (0.8, 0.8)
    # CEAFe: phi4 = 2*2/(3+2) + 2*2/(2+3) = 1.6 over 2 true and 2 predicted clusters
    assert res["cone_ceafe_precision"] == pytest.approx(0.8, rel=1e-15)
    assert res["cone_ceafe_recall"] == pytest.approx(0.8, rel=1e-15)


def test_records_outside_the_truth_cost_plain_b3_but_not_cone() -> None:
    plain = evaluate(NAMED_TRUTH, FULL_PRED, metrics="b3,ceafm", on_mismatch="twinless")
    # plain B3 counts x, y, z in the precision denominator: (2*2/3 + 1/4 + 2*2/4) / 8
    assert plain["b3_precision"] == pytest.approx((4 / 3 + 1 / 4 + 1) / 8, rel=1e-15)
    assert plain["ceafm_precision"] == 4 / 8
    res = cone(NAMED_TRUTH, FULL_PRED)
    assert res["cone_b3_precision"] > plain["b3_precision"]
    assert res["cone_ceafm_precision"] > plain["ceafm_precision"]


def test_named_records_the_prediction_leaves_out_count_against_recall() -> None:
    # truth names a, b, c; the prediction never outputs c
    res = cone([["a", "b", "c"]], [["a", "b", "x"]])
    # B3 recall: a, b: 2/3; c: 0 -> 4/9; precision on {a,b}: 1
    assert res["cone_b3_recall"] == pytest.approx(4 / 9, rel=1e-15)
    assert res["cone_b3_precision"] == 1.0
    # CEAFm: Phi = 2 of 3 true records, of 2 kept predicted records
    assert (res["cone_ceafm_recall"], res["cone_ceafm_precision"]) == (2 / 3, 1.0)


def test_no_named_record_predicted_scores_zero() -> None:
    res = cone([["a", "b"]], [["x", "y"]])
    for name in CONE:
        assert res[f"{name}_precision"] == res[f"{name}_recall"] == res[f"{name}_f1"] == 0.0


def test_same_records_give_b3_and_ceaf() -> None:
    truth, pred = [[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]
    res = evaluate(truth, pred, metrics="cone_b3,cone_ceaf,b3,ceafm,ceafe")
    for part in ("precision", "recall", "f1"):
        assert res[f"cone_b3_{part}"] == res[f"b3_{part}"]
        assert res[f"cone_ceafm_{part}"] == res[f"ceafm_{part}"]
        assert res[f"cone_ceafe_{part}"] == pytest.approx(res[f"ceafe_{part}"], rel=1e-15)


def test_fbeta_and_selection_by_name() -> None:
    res = evaluate(NAMED_TRUTH, FULL_PRED, metrics="cone_ceafm_f1", on_mismatch="twinless", beta=2)
    assert set(res) == {"cone_ceafm_f1", "cone_ceafm_fbeta"}
    assert res["cone_ceafm_fbeta"] == pytest.approx(0.8, rel=1e-15)  # P = R


def test_not_in_the_default_selection() -> None:
    res = evaluate(NAMED_TRUTH, FULL_PRED, on_mismatch="twinless")
    assert not any(k.startswith("cone_") for k in res)


def test_functions_on_a_table_match_evaluate() -> None:
    table = contingency_table(NAMED_TRUTH, FULL_PRED, on_mismatch="twinless")
    res = cone(NAMED_TRUTH, FULL_PRED)
    assert {**cone_b3_scores(table), **cone_ceaf_scores(table)} == res


def test_docstring_examples() -> None:
    failures, tried = doctest.testmod(ereval.metrics._cone)
    assert tried >= 4 and failures == 0


@given(clustering_pair(twinless=True))
def test_matches_brute_force(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    res = cone(t, p)
    for prefix, expected in ref.cone(t, p).items():
        check_pr(res, prefix, expected)
        pr, rc = expected
        f = 0.0 if pr + rc == 0 else 2 * pr * rc / (pr + rc)
        assert close(res[f"{prefix}_f1"], f), prefix


@given(clustering_pair(twinless=True))
def test_cone_b3_is_b3_0_and_scores_lie_in_the_unit_interval(
    pair: tuple[dict[int, int], dict[int, int]],
) -> None:
    t, p = pair
    res = evaluate(t, p, metrics="cone_b3,cone_ceaf,b3_twinless", on_mismatch="twinless")
    for part in ("precision", "recall", "f1"):
        assert res[f"cone_b3_{part}"] == res[f"b3_0_{part}"]
    for name in CONE:
        for part in ("precision", "recall", "f1"):
            assert 0.0 <= res[f"{name}_{part}"] <= 1.0 + 1e-12


@given(clustering_pair(twinless=True))
def test_identity_gives_one(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, _ = pair
    # the prediction is the truth plus records the truth does not list
    pred = {**t, **{1000 + r: 7 for r in range(3)}}
    res = cone(t, pred)
    for name in CONE:
        assert res[f"{name}_precision"] == pytest.approx(1.0, rel=1e-12)
        assert res[f"{name}_recall"] == pytest.approx(1.0, rel=1e-12)


@given(clustering_pair())
def test_symmetric_on_common_records(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    a = evaluate(t, p, metrics="cone_b3,cone_ceaf")
    b = evaluate(p, t, metrics="cone_b3,cone_ceaf")
    for name in CONE:
        assert close(a[f"{name}_precision"], b[f"{name}_recall"])
        assert close(a[f"{name}_f1"], b[f"{name}_f1"])


def test_same_on_the_duckdb_engine(tmp_path: Path) -> None:
    truth, pred = tmp_path / "truth.csv", tmp_path / "pred.csv"
    truth.write_text("record_id,cluster_id\na,1\nb,1\nc,1\nd,2\ne,2\n")
    pred.write_text("record_id,cluster_id\na,1\nb,1\nx,1\nc,2\nd,2\ne,2\ny,2\nz,3\n")
    names = "cone_b3,cone_ceaf"
    on_duckdb = evaluate(truth, pred, metrics=names, on_mismatch="twinless", engine="duckdb")
    in_memory = evaluate(truth, pred, metrics=names, on_mismatch="twinless", engine="numpy")
    assert on_duckdb == in_memory == cone(NAMED_TRUTH, FULL_PRED)
