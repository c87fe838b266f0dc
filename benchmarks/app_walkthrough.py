"""A reviewer's walk through the labelling app on N generated records, in headless Chromium.

Builds N person records (the generator of ``bench_label_search.py``, with the
true person kept as ``entity_id``, which the pages must never show), a predicted
clustering, scored candidate pairs and the ranked list they make; creates a
cluster review (with overlap, so two reviewers can disagree), a pair session
(OASIS) and a ranked-item session (PAULA) in one store; serves it and walks
through every kind of page at 1280 px as two reviewers and an adjudicator would,
keyboard only. It prints the time of each action (from the key press to the
next page) and writes a screenshot of every page to ``--shots``.

    python benchmarks/app_walkthrough.py                  # N = 10^5
    python benchmarks/app_walkthrough.py -n 20000 --shots /tmp/shots

Needs the app extra, Playwright and a Chromium (``--chromium``, default
``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bench_label_search import _records

SRC = Path(__file__).resolve().parents[1] / "src"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def build(folder: Path, n: int, rng: np.random.Generator) -> dict[str, Path]:
    """Records, a prediction, candidate pairs with scores, and their ranking."""
    frame = _records(n, rng).rename(columns={"person": "entity_id"})
    frame["entity_id"] = "e" + frame["entity_id"].astype(str)
    person = frame["entity_id"].to_numpy()
    codes = pd.factorize(person)[0]
    pred = codes.copy()
    moved = rng.random(n) < 0.05
    pred[moved] = (pred[moved] + 1) % (pred.max() + 1)
    paths = {k: folder / f"{k}.csv" for k in ("records", "pred", "pairs")}
    frame.to_csv(paths["records"], index=False)
    pd.DataFrame({"record_id": frame.record_id, "cluster_id": [f"c{p}" for p in pred]}).to_csv(
        paths["pred"], index=False
    )
    # candidate pairs: records sharing a last name (true matches and namesakes)
    by_last = frame.groupby("last_name").indices
    left, right = [], []
    for rows in by_last.values():
        if len(rows) < 2:
            continue
        k = min(len(rows), 40)
        picks = rng.choice(rows, size=(k, 2))
        left.extend(picks[:, 0].tolist())
        right.extend(picks[:, 1].tolist())
    left_a, right_a = np.array(left), np.array(right)
    keep = left_a != right_a
    left_a, right_a = left_a[keep], right_a[keep]
    same = codes[left_a] == codes[right_a]
    score = np.clip(np.where(same, 0.75, 0.35) + rng.normal(0, 0.15, len(same)), 0, 1)
    ids = frame.record_id.to_numpy()
    pairs = pd.DataFrame(
        {
            "pair_id": [f"P{k:06d}" for k in range(len(same))],
            "record_id_1": ids[left_a],
            "record_id_2": ids[right_a],
            "score": score.round(4),
            "prediction": (score >= 0.5).astype(int),
            "label": same.astype(int),
        }
    ).sort_values("score", ascending=False)
    pairs.to_csv(paths["pairs"], index=False)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=100_000)
    parser.add_argument("--shots", type=Path, default=Path("walkthrough-shots"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rng = np.random.default_rng(0)
    args.shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        paths = build(folder, args.n, rng)
        db = folder / "labels.db"
        cli = [sys.executable, "-m", "ereval", "label", "init", "--db", str(db), "-q"]
        env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
        for extra in (
            ["--data", str(paths["records"]), "--pred", str(paths["pred"]), "--n", "50",
             "--overlap", "0.3", "--seed", "1", "--search-col", "first_name",
             "--search-col", "last_name"],
            ["--kind", "pairs", "--session", "pairs", "--data", str(paths["records"]),
             "--pairs", str(paths["pairs"]), "--budget", "40", "--seed", "1"],
            ["--kind", "items", "--session", "ranked", "--ranked", str(paths["pairs"]),
             "--data", str(paths["records"]), "--epsilon", "0.2", "--delta", "5"],
        ):  # fmt: skip
            subprocess.run([*cli, *extra], check=True, env=env, stdout=subprocess.DEVNULL)
        pairs = sum(1 for _ in paths["pairs"].open()) - 1
        print(f"records: {args.n:,}; pairs: {pairs:,}; store and sessions in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip

        t0 = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "ereval", "label", "serve", "--db", str(db), "--port", "0",
             "--reviewer", "ana"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            url = None
            for line in server.stdout:
                found = re.search(r"at (http://\S+?:\d+)/", line)
                if found:
                    url = found.group(1)
                    break
            if url is None:
                raise SystemExit("the server did not start")
            print(f"server ready in {time.perf_counter() - t0:.1f} s")
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=args.chromium, headless=True, args=ARGS
                )
                walk(browser, url, args.shots)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)


def walk(browser: Any, url: str, shots: Path) -> None:
    """Every page at 1280 px, keyboard only; print each action's time."""
    times: dict[str, list[float]] = defaultdict(list)
    count = [0]
    errors: list[str] = []

    def page_for(name: str) -> Any:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + "/")
        page.fill("#reviewer-name", name)
        with page.expect_navigation():
            page.press("#reviewer-name", "Enter")
        return page

    def shot(page: Any, name: str) -> None:
        count[0] += 1
        page.screenshot(path=str(shots / f"{count[0]:02d}-{name}.png"), full_page=True)
        assert "entity_id" not in page.content(), name

    def key(page: Any, k: str, action: str) -> None:
        start = time.perf_counter()
        with page.expect_navigation():
            page.keyboard.press(k)
        page.wait_for_load_state()
        times[action].append(1000 * (time.perf_counter() - start))

    ana, bob, lead = page_for("ana"), page_for("bob"), page_for("lead")
    shot(ana, "overview")
    ana.goto(url + "/s/main")
    shot(ana, "cluster-start")
    key(ana, "Enter", "start")
    shot(ana, "cluster-record")
    ana.keyboard.press("/")
    ana.keyboard.type(ana.locator("#records tbody tr td").nth(4).inner_text()[:5])
    ana.wait_for_selector("#search-results li")
    shot(ana, "cluster-search")
    ana.keyboard.press("Escape")
    for _ in range(12):
        key(ana, "s", "save a cluster")
    bob.goto(url + "/s/main")
    key(bob, "Enter", "start")
    for _ in range(12):
        if bob.locator("#records").count() == 0:
            break
        if bob.locator("[data-toggle]").count():
            bob.keyboard.press("j")
            key(bob, "x", "toggle a record")
        key(bob, "s", "save a cluster")
    shot(bob, "cluster-bob")
    ana.goto(url + "/s/pairs")
    shot(ana, "pairs-start")
    key(ana, "Enter", "start")
    shot(ana, "pair")
    for k in "mnmmnmnmmnmmnmnm":
        key(ana, k, "answer a pair")
    shot(ana, "pairs-progress")
    ana.goto(url + "/s/ranked")
    key(ana, "Enter", "start")
    shot(ana, "ranked-item")
    for k in "mmmmnmmn":
        key(ana, k, "answer a ranked item")
    shot(ana, "ranked-progress")
    lead.goto(url + "/agreement")
    shot(lead, "agreement")
    if lead.locator("[data-toggle]").count():
        key(lead, "x", "open an adjudication")
        shot(lead, "adjudicate")
        key(lead, "1", "adjudicate")
        shot(lead, "after-adjudication")
    bob.goto(url + "/agreement")
    shot(bob, "agreement-bob")
    ana.goto(url + "/")
    shot(ana, "overview-end")
    print(f"{'action':<22} {'n':>3} {'median ms':>10} {'max ms':>8}")
    for action, values in times.items():
        print(f"{action:<22} {len(values):>3} {statistics.median(values):>10.0f} "
              f"{max(values):>8.0f}")  # fmt: skip
    print(f"screenshots: {count[0]} in {shots}; page errors: {len(errors)}")


if __name__ == "__main__":
    main()
