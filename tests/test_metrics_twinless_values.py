"""Values of the twinless-mention variants compared by Cai & Strube (2010):
B3_all and B3_0 (Stoyanov et al. 2009), B3_r&n (Rahman & Ng 2009), B3_sys and
CEAF_sys (Cai & Strube 2010, §2).

The cases are small key/response sets like those of the paper's §2 discussion
(key {a b c} against responses that add twinless mentions d, e); the values are
worked by hand from the definitions in §2, the arithmetic in the comments, and
every variant is checked against a brute-force reference that scores mention by
mention on explicit sets (tests/_reference.py), sharing no code with the table
rewrites."""

from __future__ import annotations

import pytest
from hypothesis import given

from ereval.metrics import evaluate

from . import _reference as ref
from .test_metrics_bruteforce import check_pr, close, clustering_pair

VARIANTS = ("b3_all", "b3_0", "b3_rn", "b3_sys", "ceaf_sys")
KEY = [["a", "b", "c"]]
# response -> variant -> (precision, recall)
CASES: dict[str, tuple[list[list[str]], dict[str, tuple[float, float]]]] = {
    # {a b d}: d is a twinless response mention, c a twinless key mention
    "abd": (
        [["a", "b", "d"]],
        {
            # P: a, b 2/3; d 1/3 (1/|R_d|) -> 5/9.   R: a, b 2/3; c 1/3 (1/|K_c|) -> 5/9
            "b3_all": (5 / 9, 5 / 9),
            # d dropped: P: a, b 2/2 -> 1.   R: a, b 2/3; c 0 -> 4/9
            "b3_0": (1.0, 4 / 9),
            # d is not a singleton: kept, scores 0.  P: (2/3 + 2/3 + 0) / 3; R 4/9
            "b3_rn": (4 / 9, 4 / 9),
            # P: response {a b d}{c}, key {a b c}{d}: a, b 2/3; d 1/3; c 1 -> (8/3) / 4
            # R: response {a b}{c}: a, b 2/3; c 1/3 -> 5/9
            "b3_sys": (2 / 3, 5 / 9),
            # P: {a b c}-{a b d} (2) or {a b c}-{c} + {d}-{a b d} (1 + 1): Phi 2 of 4
            # R: {a b c}-{a b}: Phi 2 of 3
            "ceaf_sys": (2 / 4, 2 / 3),
        },
    ),
    # {a b d e}: a second twinless mention in the same cluster
    "abde": (
        [["a", "b", "d", "e"]],
        {
            # P: a, b 2/4; d, e 1/4 -> 3/2 / 4 = 3/8.   R as above: 5/9
            "b3_all": (3 / 8, 5 / 9),
            # B3_0 cannot see e: the same scores as for {a b d}
            "b3_0": (1.0, 4 / 9),
            # P: a, b 2/4; d, e 0 -> 1/4.   R 4/9
            "b3_rn": (1 / 4, 4 / 9),
            # P: response {a b d e}{c}: a, b 2/4; d, e 1/4; c 1 -> (5/2) / 5.   R 5/9
            "b3_sys": (1 / 2, 5 / 9),
            # P: key {a b c}{d}{e}, response {a b d e}{c}: Phi 2 of 5.   R: Phi 2 of 3
            "ceaf_sys": (2 / 5, 2 / 3),
        },
    ),
    # {a b}{d}: the twinless mention is a singleton
    "ab_d": (
        [["a", "b"], ["d"]],
        {
            # P: a, b 2/2; d 1/1 -> 1 (B3_all rewards the twinless singleton).   R 5/9
            "b3_all": (1.0, 5 / 9),
            "b3_0": (1.0, 4 / 9),
            # the singleton d is discarded: the same as B3_0
            "b3_rn": (1.0, 4 / 9),
            # d discarded, c added to the response: P: a, b 1; c 1 -> 1.   R 5/9
            "b3_sys": (1.0, 5 / 9),
            # P: response {a b}{c}: Phi 2 of 3.   R: Phi 2 of 3
            "ceaf_sys": (2 / 3, 2 / 3),
        },
    ),
}


def twinless(truth: object, pred: object) -> dict[str, float]:
    return evaluate(truth, pred, metrics="b3_twinless,ceaf_sys", on_mismatch="twinless")


@pytest.mark.parametrize("case", sorted(CASES))
def test_hand_worked_values(case: str) -> None:
    response, expected = CASES[case]
    res = twinless(KEY, response)
    for name, (p, r) in expected.items():
        assert res[f"{name}_precision"] == pytest.approx(p, rel=1e-15), name
        assert res[f"{name}_recall"] == pytest.approx(r, rel=1e-15), name
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        assert res[f"{name}_f1"] == pytest.approx(f, rel=1e-15), name


def test_three_decimal_figures() -> None:
    # the figures as three-decimal tables print them
    res = twinless(KEY, [["a", "b", "d"]])
    assert round(res["b3_0_f1"], 3) == 0.615  # 2 * 1 * 4/9 / (13/9) = 8/13
    assert round(res["b3_sys_f1"], 3) == 0.606  # 2 * 2/3 * 5/9 / (11/9) = 20/33
    res = twinless(KEY, [["a", "b", "d", "e"]])
    assert round(res["b3_all_f1"], 3) == 0.448  # 2 * 3/8 * 5/9 / (67/72) = 30/67
    assert round(res["b3_sys_f1"], 3) == 0.526  # 2 * 1/2 * 5/9 / (19/18) = 10/19


def ref_clustering(clusters: list[list[str]]) -> dict[object, object]:
    return {rec: i for i, cl in enumerate(clusters) for rec in cl}


def test_the_hand_cases_match_the_brute_force_reference() -> None:
    for response, expected in CASES.values():
        t, p = ref_clustering(KEY), ref_clustering(response)
        got = {
            "b3_all": ref.b3_all(t, p),
            "b3_0": ref.b3_0(t, p),
            "b3_rn": ref.b3_rn(t, p),
            "b3_sys": ref.b3_sys(t, p),
            "ceaf_sys": ref.ceaf_sys(t, p),
        }
        for name, pr in expected.items():
            assert got[name] == pytest.approx(pr, rel=1e-15), name


def test_without_twinless_records_every_variant_is_the_plain_metric() -> None:
    truth, pred = [[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]
    res = evaluate(truth, pred, metrics="b3_twinless,ceaf_sys,b3,ceafm")
    for name in VARIANTS:
        plain = "ceafm" if name == "ceaf_sys" else "b3"
        for part in ("precision", "recall", "f1"):
            assert res[f"{name}_{part}"] == pytest.approx(res[f"{plain}_{part}"], rel=1e-15)


@given(clustering_pair(twinless=True))
def test_match_brute_force(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    res = twinless(t, p)
    check_pr(res, "b3_all", ref.b3_all(t, p))
    check_pr(res, "b3_0", ref.b3_0(t, p))
    check_pr(res, "b3_rn", ref.b3_rn(t, p))
    check_pr(res, "b3_sys", ref.b3_sys(t, p))
    check_pr(res, "ceaf_sys", ref.ceaf_sys(t, p))
    for name in VARIANTS:
        pr, rc = res[f"{name}_precision"], res[f"{name}_recall"]
        assert close(res[f"{name}_f1"], 0.0 if pr + rc == 0 else 2 * pr * rc / (pr + rc))
