"""Maidasani et al. (2012), Table 3: truth {r1,r2,r3}{r4,r5,r6}{r7,r8}.

Results 4 and 5 reproduce the published rows (3 decimals). Result 4's pairwise
precision is 7/13 = 0.538: the published 0.548 is a misprint (it contradicts the
published F1 of 0.700). The table's "BMD" row is 1 - BMD/(N - 1).
"""

from __future__ import annotations

import pytest

from ereval.contingency import contingency_table
from ereval.metrics import evaluate
from ereval.metrics._merge import bmd, bmd_normalized

TRUTH = [["r1", "r2", "r3"], ["r4", "r5", "r6"], ["r7", "r8"]]
RESULT = {
    4: [["r1", "r2", "r3", "r7", "r8"], ["r4", "r5", "r6"]],
    5: [["r1", "r2", "r3", "r4", "r5", "r6"], ["r7", "r8"]],
    6: [["r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"]],
    7: [[f"r{i}"] for i in range(1, 9)],
}

# (precision, recall, F1) per metric, as published (result 4 pairwise precision corrected)
PUBLISHED = {
    4: {
        "pairwise": (0.538, 1.000, 0.700),
        "cluster": (0.500, 0.333, 0.400),
        "closest_cluster": (0.800, 0.667, 0.727),
        "muc": (0.833, 1.000, 0.909),
        "b3": (0.700, 1.000, 0.824),
        "ceafm": (0.750, 0.750, 0.750),
        "ceafe": (0.875, 0.583, 0.700),
    },
    5: {
        "pairwise": (0.438, 1.000, 0.609),
        "cluster": (0.500, 0.333, 0.400),
        "closest_cluster": (0.750, 0.667, 0.706),
        "muc": (0.833, 1.000, 0.909),
        "b3": (0.625, 1.000, 0.769),
        "ceafm": (0.625, 0.625, 0.625),
        "ceafe": (0.833, 0.556, 0.667),
    },
}


@pytest.mark.parametrize("result", [4, 5])
def test_published_rows(result: int) -> None:
    res = evaluate(TRUTH, RESULT[result])
    for prefix, (p, r, f) in PUBLISHED[result].items():
        got = (res[f"{prefix}_precision"], res[f"{prefix}_recall"], res[f"{prefix}_f1"])
        assert got == pytest.approx((p, r, f), abs=5e-4 + 1e-9), prefix  # 3-decimal rounding


def test_result4_pairwise_precision_is_exactly_7_over_13() -> None:
    # pairs predicted: C(5,2) + C(3,2) = 13; correct: 3 + 1 + 3 = 7
    assert evaluate(TRUTH, RESULT[4])["pairwise_precision"] == 7 / 13


@pytest.mark.parametrize(
    ("result", "raw", "published"), [(4, 1, 0.857), (5, 1, 0.857), (6, 2, 0.714), (7, 5, 0.286)]
)
def test_bmd_raw_and_normalised(result: int, raw: int, published: float) -> None:
    table = contingency_table(TRUTH, RESULT[result])
    assert bmd(table) == raw
    assert bmd_normalized(table) == pytest.approx(published, abs=5e-4)
    assert bmd_normalized(table) == 1 - raw / 7


def test_results_6_and_7_where_conventions_agree() -> None:
    # all records in one cluster
    r6 = evaluate(TRUTH, RESULT[6])
    assert r6["pairwise_precision"] == 7 / 28
    assert r6["muc_precision"] == pytest.approx(0.714, abs=5e-4)
    assert r6["b3_precision"] == pytest.approx(0.344, abs=5e-4)  # published 0.343 (rounded down)
    assert r6["ceafe_precision"] == pytest.approx(0.545, abs=5e-4)
    assert r6["closest_cluster_precision"] == pytest.approx(0.375, abs=5e-4)
    # every record alone: MUC has no predicted link; CoNLL gives 0 (the paper prints 1.000)
    r7 = evaluate(TRUTH, RESULT[7])
    assert r7["muc_precision"] == 0.0
    assert r7["muc_recall"] == 0.0
    assert r7["b3_recall"] == pytest.approx(0.375, abs=5e-4)
    assert r7["ceafe_f1"] == pytest.approx(0.303, abs=5e-4)
    assert r7["closest_cluster_recall"] == pytest.approx(0.389, abs=5e-4)
