"""The labelling app end to end in headless Chromium, driven by the keyboard only.

Screenshots are written to ``tests/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app as cli_app
from ereval.labels import LabelStore, export_labels

from ._app_support import (
    XSS_CITY,
    XSS_NAME,
    Project,
    Server,
    make_project,
    running,
    truth_sample,
)

pytest.importorskip("fastapi", reason="the app extra is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        pw = sync_api.sync_playwright().start()
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Playwright cannot start: {exc}")
    try:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
    except Exception as exc:  # pragma: no cover - depends on the machine
        pw.stop()
        pytest.skip(f"no Chromium can be launched at {CHROMIUM}: {exc}")
    yield chromium
    chromium.close()
    pw.stop()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return make_project(tmp_path_factory.mktemp("app-browser"))


@pytest.fixture(scope="module")
def server(project: Project) -> Iterator[Server]:
    with running(project.db, "--reviewer", "ana") as srv:
        yield srv


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


def _estimates(pred: Path, sample: Path) -> dict[str, Any]:
    res = CliRunner().invoke(
        cli_app,
        [
            "estimate",
            "--pred",
            str(pred),
            "--sample",
            str(sample),
            "--design",
            "record",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_keyboard_only_review_gives_the_expected_benchmark(
    browser: Any, server: Server, project: Project, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(server.url + "/")
    _shot(page, "01-overview")

    with page.expect_navigation():
        page.keyboard.press("1")  # open the first session: nothing is handed out yet
    page.wait_for_selector("#start")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # start: the drawn record r01 is handed to ana
    page.wait_for_selector("#records")
    assert "item=r01" in page.url
    rows = page.locator("#records tbody tr")
    assert [rows.nth(i).get_attribute("data-record") for i in range(rows.count())] == [
        "r01",
        "r02",
        "r03",
    ]

    # t: a note, kept while the draft changes page; Escape goes back to the shortcuts
    page.keyboard.press("t")
    page.keyboard.type("same family")
    page.keyboard.press("Escape")

    # j j: the current row is r03, the over-clustered record; x marks it
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert "current" in (page.locator("#row-2").get_attribute("class") or "")
    with page.expect_navigation():
        page.keyboard.press("x")
    assert "removed" in (page.locator('tr[data-record="r03"]').get_attribute("class") or "")
    assert "current" in (page.locator('tr[data-record="r03"]').get_attribute("class") or "")

    # / opens the search; a typo-tolerant query finds the missing record r04
    page.keyboard.press("/")
    page.keyboard.type("mariah gonzales")
    sync_api.expect(page.locator("#search-results li.selected code")).to_have_text(
        "r04", timeout=10_000
    )
    _shot(page, "02-review-search")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "added" in (page.locator('tr[data-record="r04"]').get_attribute("class") or "")

    # an error tag, then save
    page.keyboard.press("2")  # name variant
    page.wait_for_selector("#tags .tag.on")
    _shot(page, "03-review-before-save")
    assert "r01 r02 r04" in " ".join(page.locator("#predicted-vs-true code").all_inner_texts())
    with page.expect_navigation():
        page.keyboard.press("s")
    page.wait_for_selector("#done")
    assert "saved r01" in page.inner_text(".flash")
    _shot(page, "04-review-done")
    with page.expect_navigation():
        page.keyboard.press("a")  # agreement and adjudication
    page.wait_for_selector(".agreement")
    _shot(page, "06-agreement")
    assert errors == []

    # the store holds the answer; the exported benchmark gives the expected estimates
    with LabelStore(project.db) as store:
        value = store.labels("review")["r01"]["ana"]
        assert value["remove"] == ["r03"] and value["add"] == ["r04"]
        assert value["true_cluster"] == ["r01", "r02", "r04"]
        assert value["tags"] == ["name variant"]
        assert value["note"] == "same family"
        exported = export_labels(store, "review", kind="benchmark")
    assert exported.design == "record"
    bench = tmp_path / "benchmark.csv"
    exported.frame.to_csv(bench, index=False)
    expected = pd.DataFrame(truth_sample(project))
    assert set(expected.record_id) >= {"r01", "r02", "r04"} and "r03" not in set(expected.record_id)
    key = ["cluster_id", "record_id"]
    pd.testing.assert_frame_equal(
        pd.read_csv(bench, dtype={"record_id": str, "cluster_id": str, "unit_id": str})
        .sort_values(key)
        .reset_index(drop=True)[list(expected.columns)],
        expected.sort_values(key).reset_index(drop=True),
        check_dtype=False,
    )
    # the sample written from the true clustering gives the same estimates
    truth_csv = tmp_path / "truth_sample.csv"
    expected.to_csv(truth_csv, index=False)
    got, want = _estimates(project.prediction, bench), _estimates(project.prediction, truth_csv)
    assert got == want
    assert got["pairwise_precision"]["value"] < 1  # r03 was over-clustered


def test_record_content_is_shown_escaped_and_no_script_runs(
    browser: Any, server: Server, project: Project
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 700})
    page.goto(server.url + "/s/review/review?item=r01&add=r10")
    row = page.locator('tr[data-record="r10"]')
    assert XSS_NAME in row.inner_text() and XSS_CITY in row.inner_text()
    page.keyboard.press("/")
    page.keyboard.type("tester")
    page.wait_for_selector("#search-results li")
    assert XSS_NAME in page.inner_text("#search-results")
    _shot(page, "05-escaped-content")
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("#records script, #records img").count() == 0
