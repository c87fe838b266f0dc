"""The report pages in headless Chromium: no console error, every section and chart drawn,
no request leaving the page, static charts without scripts; screenshots kept as artefacts.

Uses Debian's ``chromium`` (``/usr/bin/chromium``) through Playwright, one browser for
the module. Screenshots go to ``$EREVAL_TEST_ARTIFACTS`` when set, else to a pytest
temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ._report_support import EXPECTED, report

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

CHROMIUM = "/usr/bin/chromium"
#: Most time a page may take to draw its charts.
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no browser: {CHROMIUM} is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM)
        except Exception as exc:  # a browser that cannot start in this environment
            pytest.skip(f"Chromium could not be launched: {exc}")
        yield b
        b.close()


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("EREVAL_TEST_ARTIFACTS")
    folder = Path(given) if given else tmp_path_factory.mktemp("report-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report-pages")
    out = {}
    for case in EXPECTED:
        path = folder / f"{case}.html"
        path.write_text(report(case).html(), encoding="utf-8")
        out[case] = path
    return out


def _open(context: Any, path: Path) -> tuple[Any, list[str], list[str]]:
    page = context.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def route(r: Any) -> None:
        url = r.request.url
        if url == path.as_uri() or url.startswith(("data:", "about:")):
            r.continue_()
        else:
            requests.append(url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri())
    return page, problems, requests


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_page_draws_every_chart_offline(
    case: str, browser: Any, pages: dict[str, Path], artefacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page, problems, requests = _open(context, pages[case])
    n_charts = len(report(case).charts)
    page.wait_for_function(
        "n => document.querySelectorAll('figure.chart.rendered').length === n",
        arg=n_charts,
        timeout=TIMEOUT_MS,
    )
    ids = page.eval_on_selector_all("main > section", "els => els.map(e => e.id)")
    assert tuple(ids) == EXPECTED[case]
    drawn = page.eval_on_selector_all(
        "figure.chart",
        """figs => figs.map(f => {
            const svg = f.querySelector('.live svg');
            if (!svg) return [f.id, 0, 0, 0];
            const box = svg.getBoundingClientRect();
            const marks = svg.querySelectorAll('path, rect, line, circle, text').length;
            const fallbackShown = getComputedStyle(f.querySelector('.fallback')).display !== 'none';
            return [f.id, box.width * box.height, marks, fallbackShown ? 1 : 0];
        })""",
    )
    assert len(drawn) == n_charts
    for chart_id, area, marks, fallback in drawn:
        assert area > 10_000 and marks > 20, (chart_id, area, marks)
        assert not fallback, chart_id
    page.screenshot(path=str(artefacts / f"{case}.png"), full_page=True)
    page.emulate_media(media="print")
    page.screenshot(path=str(artefacts / f"{case}-print.png"), full_page=True)
    assert problems == []
    assert requests == []
    context.close()


def test_without_scripts_every_chart_shows_its_static_drawing(
    browser: Any, pages: dict[str, Path], artefacts: Path
) -> None:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1200, "height": 900}
    )
    page, problems, requests = _open(context, pages["example"])
    shown = page.eval_on_selector_all(
        "figure.chart",
        """figs => figs.map(f => {
            const svg = f.querySelector('.fallback svg');
            const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
            return [f.id, box.width * box.height, svg ? svg.querySelectorAll('path, rect, line, text').length : 0];
        })""",
    )
    assert len(shown) == len(report("example").charts)
    for chart_id, area, marks in shown:
        assert area > 10_000 and marks > 20, (chart_id, area, marks)
    page.screenshot(path=str(artefacts / "example-no-script.png"), full_page=True)
    assert problems == [] and requests == []
    context.close()
