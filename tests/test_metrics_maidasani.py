"""Maidasani et al. (2012), Table 3: truth {r1,r2,r3}{r4,r5,r6}{r7,r8}.

Results 1-3 (the truth as clusters and as two lists of links) and the MUC R1/R2
example of §3.2.3 are checked against the properties and numbers the text states;
result 7's MUC column is reproduced with ``empty_links="one"``.
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


# Results 1-3 (§4.2, Figure 1(b)-(d)). The text fixes the figure's labels: result 3
# lacks the links (r1, r3) and (r6, r8) of result 2, so r6 and r8 share a cluster;
# the truth of the figure is {r1,r2,r3} {r4,r5} {r6,r7,r8} (the same sizes as TRUTH).
FIGURE_TRUTH = [["r1", "r2", "r3"], ["r4", "r5"], ["r6", "r7", "r8"]]
RESULT_2 = [
    ("r1", "r2"),
    ("r1", "r3"),
    ("r2", "r3"),
    ("r4", "r5"),
    ("r6", "r7"),
    ("r6", "r8"),
    ("r7", "r8"),
]
RESULT_3 = [pair for pair in RESULT_2 if pair not in (("r1", "r3"), ("r6", "r8"))]
CLUSTER_MEASURES = ("cluster", "closest_cluster", "muc", "b3", "ceafm", "ceafe")


def _pairs(pairs: list[tuple[str, str]]) -> object:
    import pandas as pd

    return pd.DataFrame(pairs, columns=["record_id_1", "record_id_2"])


def test_result_1_is_perfect_on_every_measure() -> None:
    res = evaluate(FIGURE_TRUTH, FIGURE_TRUTH)
    for prefix in ("pairwise", *CLUSTER_MEASURES):
        for part in ("precision", "recall", "f1"):
            assert res[f"{prefix}_{part}"] == pytest.approx(1.0, rel=1e-15), prefix
    assert bmd_normalized(contingency_table(FIGURE_TRUTH, FIGURE_TRUTH)) == 1.0


@pytest.mark.parametrize(
    ("pairs", "links"),
    [
        (RESULT_2, (1.0, 1.0, 1.0)),
        # 5 of the 7 true links: recall 5/7 = 0.714, F1 2 * 5/7 / (12/7) = 10/12 = 0.833
        (RESULT_3, (1.0, 5 / 7, 10 / 12)),
    ],
)
def test_results_2_and_3_pairs_differ_only_pairwise(
    pairs: list[tuple[str, str]], links: tuple[float, float, float]
) -> None:
    from ereval import evaluate_pairs

    res = evaluate_pairs(FIGURE_TRUTH, _pairs(pairs))
    got = (res["links_precision"], res["links_recall"], res["links_f1"])
    assert got == pytest.approx(links, rel=1e-15)
    assert round(got[1], 3) == round(links[1], 3) and round(got[2], 3) == round(links[2], 3)
    # the clusters (connected components) are the truth: every cluster measure is 1
    for prefix in ("pairwise", *CLUSTER_MEASURES):
        for part in ("precision", "recall", "f1"):
            assert res[f"{prefix}_{part}"] == 1.0, prefix
    assert res["bmd"] == 0


# §3.2.3: MUC treats all errors alike. R1 merges {r6,r7} with {r8..r12}; R2 merges
# {r1..r5} with {r8..r12}, putting ten records together instead of seven.
MUC_TRUTH = [[f"r{i}" for i in range(1, 6)], ["r6", "r7"], [f"r{i}" for i in range(8, 13)]]
R1 = [[f"r{i}" for i in range(1, 6)], [f"r{i}" for i in range(6, 13)]]
R2 = [[f"r{i}" for i in (1, 2, 3, 4, 5, 8, 9, 10, 11, 12)], ["r6", "r7"]]


def test_muc_r1_r2_example() -> None:
    r1 = evaluate(MUC_TRUTH, R1, metrics="muc,b3")
    r2 = evaluate(MUC_TRUTH, R2, metrics="muc,b3")
    # R1: (5 - 1) + (7 - 2) correct links of (5 - 1) + (7 - 1) predicted = 9/10
    # R2: (10 - 2) + (2 - 1) of (10 - 1) + (2 - 1) = 9/10: "R1 = 0.90 and R2 = 0.90"
    assert r1["muc_precision"] == r2["muc_precision"] == 0.9
    assert r1["muc_recall"] == r2["muc_recall"] == 1.0
    # B3 sees what MUC does not: R1 (5 + 2 * 2/7 + 5 * 5/7) / 12, R2 (10 * 5/10 + 2) / 12
    assert r1["b3_precision"] == pytest.approx((5 + 29 / 7) / 12, rel=1e-15)
    assert r2["b3_precision"] == pytest.approx(7 / 12, rel=1e-15)
    assert r2["b3_precision"] < r1["b3_precision"]


def test_result_7_convention_for_muc() -> None:
    # every record alone: no predicted link. Table 3 prints MUC 1.000 / 0.000 / 0.000
    table = contingency_table(TRUTH, RESULT[7])
    from ereval.metrics import muc_f1, muc_precision, muc_recall
    from ereval.metrics._muc import muc_scores

    paper = muc_scores(table, empty_links="one")
    assert (paper["muc_precision"], paper["muc_recall"], paper["muc_f1"]) == (1.0, 0.0, 0.0)
    default = muc_scores(table)
    assert (default["muc_precision"], default["muc_recall"], default["muc_f1"]) == (0.0, 0.0, 0.0)
    assert muc_precision(TRUTH, RESULT[7], empty_links="one") == 1.0
    assert muc_recall(TRUTH, RESULT[7], empty_links="one") == 0.0
    assert muc_f1(TRUTH, RESULT[7], empty_links="one") == 0.0
    assert muc_precision(TRUTH, RESULT[7]) == 0.0
    # the rest of result 7's column holds under the default conventions
    r7 = evaluate(TRUTH, RESULT[7])
    assert (r7["b3_precision"], r7["b3_f1"]) == (1.0, pytest.approx(0.545, abs=5e-4))
    assert r7["ceafm_f1"] == pytest.approx(0.375, abs=5e-4)
    assert r7["ceafe_precision"] == pytest.approx(0.208, abs=5e-4)
    assert r7["ceafe_recall"] == pytest.approx(0.556, abs=5e-4)
    assert r7["closest_cluster_precision"] == pytest.approx(0.375, abs=5e-4)
    assert r7["pairwise_recall"] == 0.0


@pytest.mark.parametrize("result", [4, 5, 6])
def test_result_7_convention_changes_nothing_when_both_sides_have_links(result: int) -> None:
    from ereval.metrics._muc import muc_scores

    table = contingency_table(TRUTH, RESULT[result])
    assert muc_scores(table, empty_links="one") == muc_scores(table)
    assert muc_scores(table, empty_links="one", beta=2.0) == muc_scores(table, beta=2.0)


def test_result_7_convention_on_a_truth_of_singletons() -> None:
    from ereval.metrics._muc import muc_scores

    singletons = [["a"], ["b"], ["c"]]
    # identical clusterings without links: 0 under CoNLL, 1 under the paper's convention
    assert muc_scores(contingency_table(singletons, singletons))["muc_f1"] == 0.0
    assert muc_scores(contingency_table(singletons, singletons), empty_links="one") == {
        "muc_precision": 1.0,
        "muc_recall": 1.0,
        "muc_f1": 1.0,
    }


def test_empty_links_is_checked() -> None:
    from ereval._errors import InputError
    from ereval.metrics import muc_precision
    from ereval.metrics._muc import muc_scores

    with pytest.raises(InputError, match=r"^'empty_links' must be 'zero' or 'one'; received 'nan'"):
        muc_precision(TRUTH, RESULT[7], empty_links="nan")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'empty_links'"):
        muc_scores(contingency_table(TRUTH, RESULT[7]), empty_links="1")  # type: ignore[arg-type]
