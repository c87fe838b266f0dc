"""The evaluation report: its sections and numbers, the HTML page, the files and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import html5lib
import pytest
from typer.testing import CliRunner

from ereval import CANONICAL_METRICS, evaluate, example
from ereval.cli import app
from ereval.report import Report, build_report, collect_results
from ereval.report._exact import LOWER_IS_BETTER

from ._example_data import EXAMPLES, TWO_PREDICTIONS
from ._report_support import EXPECTED, label_store, report

runner = CliRunner()

#: The example page's size limit.
MAX_BYTES = 1_500_000


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_each_case_has_exactly_its_sections(case: str) -> None:
    r = report(case)
    assert tuple(s.key for s in r.sections) == EXPECTED[case]
    for s in r.sections:
        assert s.reading and all(p.strip() for p in s.reading), s.key


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_the_page_is_valid_html_with_no_external_url(case: str) -> None:
    page = report(case).html()
    html5lib.HTMLParser(strict=True).parse(page)  # raises on any parse error
    outside_comments = re.sub(r"/\*!.*?\*/", "", page, flags=re.S)
    assert not re.search(r"https?://", outside_comments)
    markup = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    assert not re.search(r"""(src|href)=["'](?!#)""", markup)  # nothing loaded, only anchors
    assert page.count("window.vegaEmbed=") == 1  # the bundle once for all charts
    for section in report(case).sections:
        assert f'id="{section.key}"' in page


def test_the_example_page_is_small_enough() -> None:
    size = len(report("example").html().encode("utf-8"))
    assert size <= MAX_BYTES, size


def test_metrics_are_those_of_evaluate_with_the_best_marked() -> None:
    r = report("example")
    table = r.section("metrics").tables[0]
    assert table.columns == ("metric", "pred_good", "pred_poor")
    truth = example.load("truth.csv")
    exact = {n: evaluate(truth, example.load(f"{n}.csv")) for n in ("pred_good", "pred_poor")}
    rows = {row[0]: row for row in table.rows}
    for i, metric in enumerate(CANONICAL_METRICS):
        good, poor = rows[metric][1], rows[metric][2]
        assert good == pytest.approx(exact["pred_good"][metric], nan_ok=True)
        assert poor == pytest.approx(exact["pred_poor"][metric], nan_ok=True)
        better = min if metric in LOWER_IS_BETTER else max
        best = better(good, poor)
        marked = {c for (row, c) in table.marked if row == i}
        assert marked == {c for c, v in ((1, good), (2, poor)) if v == best}, metric
    assert rows["bmd"][1] < rows["bmd"][2] and (CANONICAL_METRICS.index("bmd"), 1) in table.marked


def test_readings_are_made_from_the_numbers() -> None:
    r = report("example")
    text = " ".join(r.section("metrics").reading)
    truth = example.load("truth.csv")
    good = evaluate(truth, example.load("pred_good.csv"))
    assert f"pairwise precision {good['pairwise_precision']:.3g}" in text
    assert f"B-cubed F1 {good['b3_f1']:.3g}" in text
    perfect = " ".join(report("no_errors").section("metrics").reading)
    assert "exactly the true clustering" in perfect
    assert report("no_errors").section("worst").tables == ()
    assert "0 of 2,165 true clusters (0.0%) have an error" in " ".join(
        report("no_errors").section("worst").reading
    )


def test_estimates_carry_intervals_warnings_and_the_exact_values() -> None:
    s = report("example").section("estimates")
    good = s.numbers["pred_good"]["pairwise_f1"]
    assert good["interval"][0] <= good["value"] <= good["interval"][1]
    assert good["level"] == 0.95 and good["n"] == 200
    assert any("exact value" in p for p in s.reading)
    only = report("sample_only").section("estimates")
    assert "pred_good exact" not in only.tables[0].columns


def test_json_holds_every_number_and_is_strict_json() -> None:
    r = report("example")
    text = r.to_json()
    data = json.loads(text)
    assert [s["key"] for s in data["sections"]] == list(EXPECTED["example"])
    assert "NaN" not in text
    metrics = data["sections"][0]
    assert metrics["numbers"]["metrics"]["pred_good"]["pairwise_f1"] == pytest.approx(
        0.9508, abs=1e-4
    )
    charts = [c for s in data["sections"] for c in s["charts"]]
    assert charts and all(c["data"] for c in charts)


def test_charts_draw_pre_aggregated_data_only() -> None:
    r = report("example")
    records = set(example.load("records.csv")["record_id"])
    for chart in r.charts:
        rows = chart.data()
        assert len(rows) < 2000, chart.name
        values = {v for row in rows for v in row.values() if isinstance(v, str)}
        assert not values & records, chart.name


def test_notebook_display_is_an_isolated_iframe() -> None:
    shown = report("truth_and_pred")._repr_html_()
    assert shown.startswith("<iframe srcdoc=")
    assert "<script>" not in shown  # escaped inside srcdoc


def test_save_writes_the_page_charts_and_numbers(tmp_path: Path) -> None:
    r = report("truth_and_pred")
    written = r.save(tmp_path / "r.html", plots_dir=tmp_path / "plots")
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == [
        "01-metrics.png",
        "01-metrics.svg",
        "02-summary.png",
        "02-summary.svg",
        "report.json",
    ]
    assert (tmp_path / "plots" / "01-metrics.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (tmp_path / "plots" / "02-summary.svg").read_text()
    assert len(written) == 6
    r.save(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["title"] == r.title


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "nothing to report"),
        ({"preds": [EXAMPLES / "pred_good.csv"], "sample": EXAMPLES / "sample.csv"}, "'design'"),
        ({"pairs": EXAMPLES / "pairs.csv"}, "'pairs'"),
        ({"ranked": 10}, "'ranked' and 'labels'"),
        ({"truth": EXAMPLES / "truth.csv"}, "'truth' needs 'preds'"),
        (
            {"truth": EXAMPLES / "truth.csv", "preds": [EXAMPLES / "truth.csv"], "level": 1.5},
            "'level'",
        ),
    ],
)
def test_bad_inputs_are_refused_with_the_argument_named(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        collect_results(**kwargs)  # type: ignore[arg-type]


def test_predictions_from_files_are_named_by_their_stem() -> None:
    r = build_report(
        collect_results(truth=EXAMPLES / "truth.csv", preds=[EXAMPLES / "pred_poor.csv"])
    )
    assert r.section("metrics").tables[0].columns == ("metric", "pred_poor")
    assert r.inputs["truth"] == "truth.csv"
    assert isinstance(r, Report)


# --------------------------------------------------------------------------- CLI
def test_cli_example_writes_the_page_and_its_files_beside_it(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", "--example", "-o", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert sorted(tmp_path.iterdir()) == [out, tmp_path / "report_files"]
    assert "Metrics against the truth" in out.read_text()
    files = {p.suffix for p in (tmp_path / "report_files").iterdir()}
    assert files == {".json", ".png", ".svg"}
    numbers = json.loads((tmp_path / "report_files" / "report.json").read_text())
    assert numbers["sections"][0]["key"] == "metrics"


def test_cli_no_plots_writes_exactly_the_named_file(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", "--example", "-o", str(out), "--no-plots", "-q"])
    assert res.exit_code == 0, res.output
    assert sorted(tmp_path.iterdir()) == [out]


def test_cli_named_predictions_json_and_plots(tmp_path: Path) -> None:
    base = ["report", *TWO_PREDICTIONS, "-q"]
    res = runner.invoke(app, [*base, "-f", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["sections"][0]["tables"][0]["columns"] == ["metric", "good", "poor"]
    res = runner.invoke(app, [*base, "-o", str(tmp_path / "r.html"), "--plots"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r_files" / "report.json").exists()
    assert len(list((tmp_path / "r_files").glob("*.png"))) == 2


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--pairs", str(EXAMPLES / "pairs.csv")], "--pairs"),
        (
            ["--pred", str(EXAMPLES / "pred_good.csv"), "--sample", str(EXAMPLES / "sample.csv")],
            "--sample",
        ),
        (["--ranked", str(EXAMPLES / "pairs.csv")], "--ranked"),
        (["--truth", str(EXAMPLES / "truth.csv"), "--pred", "missing.csv"], "missing.csv"),
        (["--example", "-f", "json", "-o", "r.html"], "--out"),
        (["--example", "-f", "json", "--plots"], "--plots"),
        (["--example", "--no-plots", "--plots-dir", "p"], "--no-plots"),
    ],
)
def test_cli_errors_are_one_line_naming_the_flag(
    args: list[str], flag: str, tmp_path: Path
) -> None:
    res = runner.invoke(app, ["report", *args, "-q"])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and flag in err, err
    assert "Traceback" not in res.output


def test_tags_and_groups_of_the_sample_itself_are_analysed() -> None:
    r = report("sample_tags")
    s = r.section("analysis")
    assert [c.name for c in s.charts] == ["disparities", "differences", "tags"]
    assert set(s.numbers["tags"]) == {"typo", "same name"}
    assert any("most frequent error tag is 'typo'" in p for p in s.reading)
    d = s.numbers["disparities"]
    assert set(d["groups"]) == set(d["differences"]) == {"b0", "b1"}
    # each difference is the group's estimate minus the overall one, with an interval
    for g, row in d["differences"].items():
        for key, e in row.items():
            expected = d["groups"][g][key]["value"] - d["overall"][key]["value"]
            assert e["value"] == pytest.approx(expected, abs=1e-12)
            assert e["interval"][0] <= e["value"] <= e["interval"][1]
    assert sum("against all entities" in p for p in s.reading) == 1
    who = r.section("provenance").numbers["labelled sample (a table)"]["reviewers"]
    assert set(who) == {"ana", "bo"} and sum(who.values()) == 496


def test_provenance_from_a_label_store() -> None:
    s = report("label_store").section("provenance")
    numbers = s.numbers["label store (labels.db)"]["pairs-1"]
    assert numbers["items"] == 10 and numbers["items_labelled"] == 8 and numbers["labels"] == 12
    assert numbers["reviewers"] == {"ana": 8, "bo": 4}
    assert numbers["agreement"]["units"] == 4 and numbers["agreement"]["agreed"] == 2
    assert numbers["adjudicated"] == 1
    assert any("agree on 50% of them" in p for p in s.reading)
    assert s.tables[0].columns[0] == "session"


def test_cli_labels_db(tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", "--labels-db", label_store(), "-f", "json", "-q"])
    assert res.exit_code == 0, res.output
    keys = [s["key"] for s in json.loads(res.stdout)["sections"]]
    assert keys == ["provenance"]
    res = runner.invoke(app, ["report", "--labels-db", str(tmp_path / "none.db"), "-q"])
    assert res.exit_code == 2 and "'--labels-db'" in res.stderr
