"""What the report says: the verdict read from its numbers, readings that do not
mislead, the worst clusters ranked by the size of their error, charts whose captions
match what they draw, and the report command's column options."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval import example
from ereval._moved import moved_records as _moved
from ereval.cli import app
from ereval.io import as_membership
from ereval.report import build_report, collect_results
from ereval.report._charts import _PALETTE, COLOUR_NAMES, TITLE_CHARS, chart_title, fitted_domain
from ereval.report._misplaced import clustering_misplaced, misplaced_records
from ereval.report._model import close_digits, format_cell
from ereval.report._words import fmt

from ._report_support import EXPECTED, report

runner = CliRunner()


# --- the verdict ---------------------------------------------------------------------


def test_verdict_of_two_predictions_is_read_from_the_metrics_and_estimates() -> None:
    r = report("example")
    v = r.verdict
    assert v is not None
    scores = r.section("metrics").numbers["metrics"]
    good, poor = scores["pred_good"]["pairwise_f1"], scores["pred_poor"]["pairwise_f1"]
    assert good > poor
    assert v.headline.startswith(f"pred_good is better: pairwise F1 {fmt(good)} vs {fmt(poor)}")
    assert f"difference of {fmt(good - poor, 2)}" in v.headline
    # the count of F1 metrics where pred_good is at least as good, counted here
    f1s = [m for m in scores["pred_good"] if m.endswith("_f1")]
    wins = sum(scores["pred_good"][m] >= scores["pred_poor"][m] for m in f1s)
    assert f"on {wins} of {len(f1s)} F1 metrics" in v.points[0]
    # the estimators whose intervals do not overlap, counted from the estimates' numbers
    est = r.section("estimates").numbers
    keys = [k for k in est["pred_good"] if not k.endswith(("_naive", "_cluster", "_record"))]
    keys = [k for k in keys if not k.endswith("_fbeta")]
    apart = sum(
        est["pred_good"][k]["interval"][0] > est["pred_poor"][k]["interval"][1]
        or est["pred_poor"][k]["interval"][0] > est["pred_good"][k]["interval"][1]
        for k in keys
    )
    assert f"separates them on {apart} of {len(keys)} estimators" in v.points[1]
    # the main error kind: the larger of the split and merged counts of the worst section
    worst = r.section("worst").numbers["pred_good"]
    assert worst["under_clustered"] > worst["over_clustered"]
    assert "main error is splitting entities" in v.points[2]
    assert f"{worst['under_clustered']:,} of" in v.points[2]
    assert ("Clusters with errors", "worst") in v.links
    assert r.to_dict()["verdict"]["headline"] == v.headline


def test_verdict_of_one_prediction_without_truth_gives_its_interval() -> None:
    r = report("sample_only")
    v = r.verdict
    assert v is not None
    e = r.section("estimates").numbers["pred_good"]["pairwise_f1"]
    lo, hi = e["interval"]
    assert f"estimated pairwise F1 {fmt(e['value'])} [{fmt(lo)}, {fmt(hi)}]" in v.headline
    analysis = r.section("analysis").numbers
    kind = (
        "splitting"
        if analysis["under_clustered_share"] >= analysis["over_clustered_share"]
        else "merging"
    )
    assert f"main error is {kind} entities" in v.points[-1]
    assert "(weighted)" in v.points[-1]


def test_verdict_of_a_perfect_prediction_and_of_releases_only() -> None:
    v = report("no_errors").verdict
    assert v is not None and "exactly the true clustering" in v.headline
    one = report("one_release")
    assert one.verdict is not None
    assert one.verdict.headline == one.sections[0].reading[0]


def test_the_page_opens_with_the_verdict() -> None:
    page = report("example").html()
    v = report("example").verdict
    assert v is not None
    at = page.index('class="verdict"')
    assert at < page.index("<nav") < page.index('class="inputs"')
    assert v.headline in page


# --- readings that do not mislead -------------------------------------------------------


def test_close_digits_never_shows_a_non_integer_as_an_integer() -> None:
    assert close_digits(0.99997, 4) == "0.99997"
    assert format_cell(0.99997) == "0.99997"
    assert format_cell(1.0) == "1"
    assert fmt(0.9998) == "0.9998"
    assert fmt(2.9996) == "2.9996"


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_formatted_value_is_an_integer_only_when_the_value_is(x: float) -> None:
    for text in (format_cell(x), fmt(x)):
        shown = float(text.replace(",", ""))
        if not x.is_integer():
            assert not shown.is_integer() or abs(x) >= 1e5, (x, text)


def test_no_table_cell_shows_1_for_a_value_below_1() -> None:
    for case in EXPECTED:
        for s in report(case).sections:
            for t in s.tables:
                for row in t.rows:
                    for v in row:
                        if isinstance(v, float) and v < 1.0:
                            assert format_cell(v) not in ("1", "1.0"), (case, s.key, v)


def test_interval_widths_are_compared_between_proportions_only() -> None:
    reading = " ".join(report("example").section("estimates").reading)
    assert "widest interval of a proportion" in reading
    assert "average_cluster_size's" not in reading


def test_weighted_shares_say_so() -> None:
    reading = " ".join(report("example").section("analysis").reading)
    for share in re.findall(r"\d+% (?:\(weighted\) )?of its", reading):
        assert "(weighted)" in share
    assert "(weighted) overall" in reading


def test_provenance_counts_the_labels_oasis_spent() -> None:
    r = report("example")
    spent = r.section("oasis").numbers["final"]["labels_used"]
    rows = r.section("oasis").numbers["labelled_rows"]
    assert len(rows) == len(set(rows)) == spent == 500
    prov = r.section("provenance").numbers
    (what,) = [k for k in prov if "OASIS" in k]
    pairs = example.load("pairs.csv")
    assert prov[what]["labels"] == spent
    assert prov[what]["positives"] == int(pairs["label"].iloc[rows].sum())
    assert "17,275 labels" not in " ".join(r.section("provenance").reading)


def test_adjudications_tell_disagreements_from_unsure_labels(tmp_path: Path) -> None:
    reading = " ".join(report("label_store").section("provenance").reading)
    assert "adjudicated 1 disagreement" in reading and "disagreements" not in reading
    from ereval.labels import Item, LabelStore

    path = str(tmp_path / "labels.db")
    store = LabelStore(path, create=True)
    try:
        store.create_session("s", kind="pairs", config={"seed": 0})
        store.add_items("s", [Item(f"P{i}", i, {}) for i in range(3)])
        store.label("s", "P0", "unsure", reviewer="ana")
        store.label("s", "P1", "match", reviewer="ana")
        store.label("s", "P1", "non-match", reviewer="bo")
        store.adjudicate("s", "P0", "match", reviewer="lead")
        store.adjudicate("s", "P1", "match", reviewer="lead")
    finally:
        store.close()
    r = build_report(
        collect_results(
            truth=example.load("truth.csv"),
            preds={"g": example.load("pred_good.csv")},
            labels_db=path,
            worst=False,
        )
    )
    text = " ".join(r.section("provenance").reading)
    assert "adjudicated 1 disagreement and 1 unsure item" in text


def test_moved_records_whatever_the_cluster_ids() -> None:
    frame = pd.DataFrame(
        {
            # a (3) absorbs b (1) under a's id; c (2) is split 1+1; d renamed e whole
            "old_cluster": ["a", "a", "a", "b", "c", "c", "d", "d"],
            "new_cluster": ["a", "a", "a", "a", "c", "z", "e", "e"],
        }
    )
    assert _moved(frame).tolist() == [False, False, False, True, False, True, False, False]
    # renamed ids: x absorbs y, named w afterwards
    renamed = pd.DataFrame({"old_cluster": ["x", "x", "y"], "new_cluster": ["w", "w", "w"]})
    assert _moved(renamed).tolist() == [False, False, True]


def test_release_comparison_lists_only_records_that_moved() -> None:
    s = report("example").section("comparison")
    table = s.tables[1]
    assert table.title.startswith("records that changed cluster")
    rows = [r for r in table.rows if r[0]]
    assert rows
    for record_id, old, new, _category in rows:
        assert old != new, record_id


# --- the worst clusters -----------------------------------------------------------------


def _brute_misplaced(truth: list[str], pred: list[int]) -> dict[str, int]:
    out = {}
    for t in sorted(set(truth)):
        members = [i for i, x in enumerate(truth) if x == t]
        pieces: dict[int, int] = {}
        for i in members:
            pieces[pred[i]] = pieces.get(pred[i], 0) + 1
        split_off = len(members) - max(pieces.values())
        foreign = sum(
            sum(1 for i, q in enumerate(pred) if q == p and truth[i] != t) for p in pieces
        )
        out[t] = split_off + foreign
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=30))
def test_misplaced_records_match_a_brute_force_count(cells: list[tuple[int, int]]) -> None:
    truth = [f"t{a}" for a, _ in cells]
    pred = [b for _, b in cells]
    got = misplaced_records(pd.Series(truth), pd.Series(pred))
    brute = _brute_misplaced(truth, pred)
    assert dict(zip(got["cluster_id"], got["misplaced"], strict=True)) == brute
    # the same counts from the contingency table of the two clusterings
    ids = [f"r{k}" for k in range(len(cells))]
    cells_path = clustering_misplaced(
        as_membership(dict(zip(ids, truth, strict=True))),
        as_membership(dict(zip(ids, [str(q) for q in pred], strict=True))),
    )
    assert dict(zip(cells_path["cluster_id"], cells_path["misplaced"], strict=True)) == brute


def test_worst_clusters_are_ranked_by_misplaced_records() -> None:
    # four 2-record entities merged into one 8-record cluster, and five 2-record splits
    records, truth, pred = [], [], []
    for e in range(4):
        for k in range(2):
            records.append(f"m{e}{k}")
            truth.append(f"M{e}")
            pred.append("BIG")
    for e in range(5):
        for k in range(2):
            records.append(f"s{e}{k}")
            truth.append(f"S{e}")
            pred.append(f"S{e}-{k}")
    for e in range(20):
        records.append(f"ok{e}")
        truth.append(f"OK{e}")
        pred.append(f"OK{e}")
    t = pd.DataFrame({"record_id": records, "cluster_id": truth})
    p = pd.DataFrame({"record_id": records, "cluster_id": pred})
    r = build_report(collect_results(truth=t, preds={"p": p}))
    worst = r.section("worst").numbers["p"]["worst"]
    # M1, M2, M3 sit in M0's predicted cluster: one block shows the four, named together
    assert [w["cluster_id"] for w in worst] == ["M0", "S0", "S1", "S2", "S3"]
    assert [w["misplaced"] for w in worst] == [6, 1, 1, 1, 1]
    table = r.section("worst").tables[0]
    assert "M0 6 (with M1, M2, M3, whose records it shows)" in (table.note or "")
    # the first block: M0's own 2 records, then the 6 other entities' records (bold)
    first = [row for row in table.rows][:8]
    bold_rows = {i for i, _ in table.marked}
    assert [row[2] == "M0" for row in first] == [True] * 2 + [False] * 6
    assert {i for i in range(8) if first[i][2] != "M0"} <= bold_rows
    assert not {0, 1} & bold_rows


# --- charts -----------------------------------------------------------------------------


def test_fitted_domain() -> None:
    assert fitted_domain([0.93, 0.99, 0.81], (0.0, 1.0)) == (0.8, 1.0)
    assert fitted_domain([0.5], None) == (0.45, 0.55)
    assert fitted_domain([None, float("nan")]) is None


def _walk(node: object) -> list[dict]:  # type: ignore[type-arg]
    out = []
    if isinstance(node, dict):
        out.append(node)
        for v in node.values():
            out.extend(_walk(v))
    elif isinstance(node, list):
        for v in node:
            out.extend(_walk(v))
    return out


def test_estimates_and_metrics_are_dots_and_intervals_on_a_fitted_axis() -> None:
    r = report("example")
    for key in ("metrics", "estimates"):
        spec = r.section(key).charts[0].spec
        marks = {
            (n["mark"]["type"] if isinstance(n["mark"], dict) else n["mark"])
            for n in _walk(spec)
            if "mark" in n
        }
        assert "bar" not in marks and {"point", "rule"} <= marks, key
        x = spec["layer"][1]["encoding"]["x"]
        lo, hi = x["scale"]["domain"]
        values = [v for row in r.section(key).charts[0].data() for v in (row["value"],)]
        assert 0 < lo <= min(values) and max(values) <= hi <= 1
        assert f"axis from {lo:g} to {hi:g}" in " ".join(x["title"])


#: Colour words a caption may use, and the hex codes each stands for.
WORDS = {}
for code, word in COLOUR_NAMES.items():
    WORDS.setdefault(word, set()).add(code.lower())


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_captions_name_only_colours_that_are_drawn(case: str) -> None:
    for chart in report(case).charts:
        drawn = json.dumps(chart.spec).lower()
        caption = chart.caption.lower()
        for word, codes in WORDS.items():
            if re.search(rf"\b{word}\b", caption) and not (
                word == "blue" and "light blue" in caption
            ):
                assert any(c in drawn for c in codes), (case, chart.name, word)


def test_the_palette_is_okabe_ito() -> None:
    okabe_ito = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
    assert set(_PALETTE) <= okabe_ito
    for a, b in pairwise(_PALETTE):
        assert a != b


# --- the command ------------------------------------------------------------------------


def _splink_files(folder: Path) -> tuple[Path, Path, Path]:
    truth = folder / "truth.csv"
    clusters = folder / "clusters.csv"
    predictions = folder / "predictions.csv"
    example.load("truth.csv").to_csv(truth, index=False)
    example.load("pred_good.csv").rename(columns={"record_id": "unique_id"}).to_csv(
        clusters, index=False
    )
    pairs = example.load("pairs.csv").rename(
        columns={
            "record_id_1": "unique_id_l",
            "record_id_2": "unique_id_r",
            "score": "match_probability",
        }
    )
    pairs.to_csv(predictions, index=False)
    return truth, clusters, predictions


def test_cli_reads_splink_output_with_its_preset(tmp_path: Path) -> None:
    truth, clusters, predictions = _splink_files(tmp_path)
    args = ["report", "--truth", str(truth), "--pred", f"s={clusters}", "--pairs", str(predictions)]
    res = runner.invoke(app, [*args, "--preset", "splink", "-f", "json", "-q"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert [s["key"] for s in d["sections"]] == ["metrics", "summary", "worst", "threshold"]
    expected = build_report(
        collect_results(
            truth=example.load("truth.csv"),
            preds={"s": example.load("pred_good.csv")},
            pairs=example.load("pairs.csv"),
            worst=False,
        )
    )
    got = d["sections"][0]["numbers"]["metrics"]["s"]["pairwise_f1"]
    assert got == expected.section("metrics").numbers["metrics"]["s"]["pairwise_f1"]
    # the same files with the per-side options instead of the preset
    same = runner.invoke(
        app,
        [
            *args,
            "--pred-record-col",
            "unique_id",
            "--left-col",
            "unique_id_l",
            "--right-col",
            "unique_id_r",
            "--score-col",
            "match_probability",
            "-f",
            "json",
            "-q",
        ],
    )
    assert same.exit_code == 0, same.output
    other = json.loads(same.stdout)
    assert other["sections"][3]["numbers"] == d["sections"][3]["numbers"]


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--design", "record"], "'--design' needs --sample"),
        (["--pred-record-col", "uid"], "'--pred'"),
        (["--score-col", "nope"], "--score-col"),
    ],
)
def test_cli_errors_name_flags(tmp_path: Path, extra: list[str], flag: str) -> None:
    truth, clusters, predictions = _splink_files(tmp_path)
    args = ["report", "--truth", str(truth), "--pred", str(clusters), "--pairs", str(predictions)]
    res = runner.invoke(app, [*args, "--preset", "splink", *extra, "-o", str(tmp_path / "r.html")])
    assert res.exit_code == 2
    assert flag in res.output
    assert "_col" not in res.output and "Traceback" not in res.output
    assert not (tmp_path / "r.html").exists()


def test_misplaced_records_of_clusters_in_order_of_appearance() -> None:
    got = misplaced_records(np.array(["b", "a", "a"]), np.array([1, 1, 1]))
    assert got["cluster_id"].tolist() == ["b", "a"]
    assert got["misplaced"].tolist() == [2, 1]
    empty = misplaced_records(np.array([], dtype=object), np.array([], dtype=object))
    assert empty.empty and list(empty.columns)[-1] == "misplaced"


def test_sampled_clusters_are_ranked_by_the_misplaced_records_of_the_full_truth() -> None:
    table = next(
        t for t in report("example").section("analysis").tables if "most errors" in t.title
    )
    truth = example.load("truth.csv")
    pred = example.load("pred_good.csv")
    both = truth.merge(pred, on="record_id", suffixes=("_t", "_p"))
    exact = misplaced_records(both["cluster_id_t"], both["cluster_id_p"]).set_index("cluster_id")[
        "misplaced"
    ]
    at = table.columns.index("misplaced")
    shown = [row[at] for row in table.rows]
    assert shown == sorted(shown, reverse=True) and shown[0] > 1
    for row in table.rows:
        assert row[at] == exact[row[0]], row[0]


def test_long_chart_titles_wrap_to_a_phone_width_and_are_never_cut() -> None:
    long = "what 2024-10-01 did to the clusters of 2024-07-01 (dashed: the earlier release)"
    title = chart_title(long)
    assert isinstance(title["text"], list) and len(title["text"]) >= 2
    assert " ".join(title["text"]) == long  # every word kept, none cut with "…"
    assert all(len(line) <= TITLE_CHARS for line in title["text"])
    assert "limit" not in title
    assert chart_title("clusters per size")["text"] == "clusters per size"
