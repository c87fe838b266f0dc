"""The first screen of the example report, as a PNG for the README.

Runs ``ereval report --example`` into a temporary folder, opens the page in
headless Chromium at 1280×800, waits until every chart is drawn and writes the
visible screen (not the whole page) to ``docs/images/report-first-screen.png``.
It prints the file written, its size and how long the page took to draw.

    python benchmarks/report_screenshot.py
    python benchmarks/report_screenshot.py --out /tmp/first.png --width 390 --height 844

Needs the report extra, Playwright and a Chromium (``--chromium``, default
``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs/images/report-first-screen.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="ereval-report-") as tmp:
        page_path = Path(tmp) / "report.html"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        command = ["report", "--example", "-o", str(page_path), "--no-plots", "-q"]
        subprocess.run(
            [sys.executable, "-m", "ereval", *command],
            check=True,
            env=env,
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            start = time.perf_counter()
            page.goto(page_path.as_uri())
            page.wait_for_function(
                "() => [...document.querySelectorAll('figure.chart')].every("
                "f => f.classList.contains('rendered'))",
                timeout=60_000,
            )
            drawn = time.perf_counter() - start
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, {args.width}x{args.height})")
    print(f"page drawn in {drawn:.2f} s")


if __name__ == "__main__":
    main()
