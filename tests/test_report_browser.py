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

import numpy as np
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


def _drawn(context: Any, path: Path) -> Any:
    page, problems, requests = _open(context, path)
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure.chart')].every("
        "f => f.classList.contains('rendered'))",
        timeout=TIMEOUT_MS,
    )
    assert problems == [] and requests == []
    return page


def test_the_first_screen_says_the_verdict(
    browser: Any, pages: dict[str, Path], artefacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = _drawn(context, pages["example"])
    verdict = report("example").verdict
    assert verdict is not None
    box = page.eval_on_selector(
        "#verdict",
        "e => { const b = e.getBoundingClientRect(); return [b.top, b.bottom, e.innerText]; }",
    )
    top, bottom, text = box
    assert 0 <= top and bottom <= 800, box  # the whole verdict on the first screen
    assert verdict.headline in text
    for point in verdict.points:
        assert point in text
    page.screenshot(path=str(artefacts / "example-first-screen-1280.png"))
    context.close()


def test_at_phone_width_nothing_scrolls_sideways(
    browser: Any, pages: dict[str, Path], artefacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = _drawn(context, pages["example"])
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    charts = page.eval_on_selector_all(
        "figure.chart",
        """figs => figs.map(f => {
            const inner = f.getBoundingClientRect();
            const svgs = [...f.querySelectorAll('.live svg')].map(s => {
                const b = s.getBoundingClientRect();
                return [b.left, b.right, b.width, b.height];
            });
            return [f.id, inner.left, inner.right, svgs];
        })""",
    )
    assert len(charts) == len(report("example").charts)
    for chart_id, left, right, svgs in charts:
        assert svgs, chart_id
        for s_left, s_right, width, height in svgs:
            assert width > 200 and height > 100, (chart_id, width, height)
            assert left - 0.5 <= s_left and s_right <= right + 0.5, (chart_id, s_left, s_right)
    # the threshold section shows its three panels, each in view of the page's width
    panels = page.eval_on_selector_all(
        "#threshold figure.chart .panel svg", "els => els.map(e => e.getBoundingClientRect().width)"
    )
    assert len(panels) == 3 and all(0 < w <= 390 for w in panels), panels
    page.screenshot(path=str(artefacts / "example-390.png"), full_page=True)
    page.screenshot(path=str(artefacts / "example-390-first-screen.png"))
    context.close()


def test_printing_gives_a_full_first_page(
    browser: Any, pages: dict[str, Path], artefacts: Path
) -> None:
    pdfium = pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = _drawn(context, pages["example"])
    pdf = artefacts / "example.pdf"
    page.pdf(path=str(pdf), format="A4")
    context.close()
    doc = pdfium.PdfDocument(str(pdf))
    try:
        assert len(doc) > 3
        first = doc[0]
        text = first.get_textpage().get_text_range()
        verdict = report("example").verdict
        assert verdict is not None
        assert "pred_good is better" in text
        # page 1 holds the verdict, the contents, the inputs and the first section's text
        assert "Metrics against the truth" in text and "Inputs" in text
        lengths = [len(doc[k].get_textpage().get_text_range()) for k in range(len(doc))]
        assert lengths[0] >= 0.5 * float(np.median(lengths)), lengths
        # and is drawn: the lowest non-white row of page 1 is past its middle
        image = np.asarray(first.render(scale=1).to_pil().convert("L"))
        ink = np.flatnonzero((image < 200).any(axis=1))
        assert ink.size and ink[-1] > 0.6 * image.shape[0], (ink[-1], image.shape)
        first.render(scale=1.5).to_pil().save(artefacts / "example-pdf-page-1.png")
    finally:
        doc.close()
