"""Shared helpers of the labelling-app tests: a small project, a server process, a client."""

from __future__ import annotations

import csv
import itertools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ereval.labels import LabelStore, create_cluster_review

from ._example_data import IMPORT_ROOT

SRC = IMPORT_ROOT
COLUMNS = ["record_id", "first_name", "last_name", "date_of_birth", "city"]
XSS_NAME = "<script>window.__xss = 1</script>"
XSS_CITY = '<img src=x onerror="window.__xss = 2">'

#: (record id, first, last, dob, city, predicted cluster, true cluster)
PEOPLE: list[tuple[str, str, str, str, str, str, str]] = [
    ("r01", "Maria", "Gonzalez", "1980-03-02", "Springfield", "P1", "T1"),  # the anchor
    ("r02", "Maria", "Gonzales", "1980-03-02", "Springfield", "P1", "T1"),
    ("r03", "Mario", "Gonzalez", "1975-11-20", "Shelbyville", "P1", "T2"),  # over-clustered
    ("r04", "Mariah", "Gonzalez", "1980-03-02", "Springfield", "P2", "T1"),  # missing
    ("r05", "Oskar", "Lindqvist", "1964-07-09", "Ogdenville", "P3", "T3"),
    ("r06", "Oscar", "Lindqvist", "1964-07-09", "Ogdenville", "P3", "T3"),
    ("r07", "Priya", "Raman", "1991-01-15", "Capital City", "P4", "T4"),
    ("r08", "Chen", "Wei", "1988-12-30", "North Haverbrook", "P5", "T5"),
    ("r09", "Wei", "Chen", "1988-12-30", "North Haverbrook", "P5", "T5"),
    ("r10", XSS_NAME, "Tester", "2000-01-01", XSS_CITY, "P6", "T6"),
    ("r11", "Amara", "Okafor", "1979-05-05", "Brockway", "P7", "T7"),
    ("r12", "Jonas", "Berg", "1969-09-19", "Cypress Creek", "P8", "T8"),
]


@dataclass(frozen=True)
class Project:
    """A label store with one cluster review whose single draw is ``anchor``."""

    db: Path
    records: Path
    prediction: Path
    truth: Path
    session: str
    anchor: str = "r01"
    over: str = "r03"
    missing: str = "r04"


def write_people(folder: Path, rows: list[tuple[str, ...]]) -> tuple[Path, Path, Path]:
    """Write the records, the predicted and the true clustering; return their paths."""
    records, pred, truth = folder / "records.csv", folder / "pred.csv", folder / "truth.csv"
    with records.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(row[:5] for row in rows)
    for path, col in ((pred, 5), (truth, 6)):
        with path.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["record_id", "cluster_id"])
            writer.writerows((row[0], row[col]) for row in rows)
    return records, pred, truth


def make_project(folder: Path, *, seed: int = 3, n: int = 3) -> Project:
    """A store whose cluster review draws ``r01`` first, then records of other people.

    The draws depend only on the seed and the number of records, so a probe
    session finds the drawn positions and the rows are arranged around them:
    the anchor at the first, records of correctly predicted people at the others.
    Those other draws are labelled (as reviewer "bob", with no change), so the
    anchor is the one record left to review.
    """
    folder.mkdir(parents=True, exist_ok=True)
    probe_dir = folder / "probe"
    probe_dir.mkdir(exist_ok=True)
    records, pred, _ = write_people(probe_dir, list(PEOPLE))
    ids = [r[0] for r in PEOPLE]
    with LabelStore(probe_dir / "probe.db", create=True) as probe:
        draws = create_cluster_review(
            probe, "probe", data=records, prediction=pred, n=n, seed=seed
        ).config["draws"]
    positions = list(dict.fromkeys(ids.index(d) for d in draws))
    by_id = {r[0]: r for r in PEOPLE}
    placed: dict[int, tuple[str, ...]] = {positions[0]: by_id["r01"]}
    safe = [r for r in PEOPLE if r[0] in ("r05", "r07", "r08", "r11", "r12")]
    for pos in positions[1:]:
        placed[pos] = safe.pop(0)
    rest = [r for r in PEOPLE if r not in placed.values()]
    rows = [placed[i] if i in placed else rest.pop(0) for i in range(len(PEOPLE))]
    records, pred, truth = write_people(folder, rows)
    db = folder / "labels.db"
    with LabelStore(db, create=True) as store:
        review = create_cluster_review(
            store,
            "review",
            data=records,
            prediction=pred,
            n=n,
            seed=seed,
            search_columns=["first_name", "last_name", "date_of_birth", "city"],
        )
        drawn = review.config["draws"]
        assert drawn[0] == "r01"
        for other in dict.fromkeys(drawn):
            if other != "r01":
                review.save(other, reviewer="bob")
    return Project(db, records, pred, truth, "review")


def truth_sample(project: Project) -> list[dict[str, Any]]:
    """The benchmark the review should give: the true cluster of every draw (from the truth)."""
    with LabelStore(project.db) as store:
        draws = store.session(project.session).config["draws"]
    truth: dict[str, str] = {}
    with project.truth.open() as fh:
        for row in csv.DictReader(fh):
            truth[row["record_id"]] = row["cluster_id"]
    rows = []
    for head in dict.fromkeys(draws):
        members = sorted(r for r, c in truth.items() if c == truth[head])
        for r in members:
            rows.append(
                {
                    "record_id": r,
                    "cluster_id": head,
                    "unit_id": head,
                    "probability": float(len(members)),
                    "draws": draws.count(head),
                }
            )
    return rows


def make_multi(folder: Path, *, n: int, overlap: float = 0.0, seed: int = 7) -> Path:
    """A store with a cluster review of ``n`` draws without replacement."""
    folder.mkdir(parents=True, exist_ok=True)
    records, pred, _ = write_people(folder, list(PEOPLE))
    db = folder / "labels.db"
    with LabelStore(db, create=True) as store:
        create_cluster_review(
            store,
            "multi",
            data=records,
            prediction=pred,
            n=n,
            replace=False,
            overlap=overlap,
            seed=seed,
            search_columns=["first_name", "last_name"],
        )
    return db


def pairs_file(folder: Path) -> Path:
    """Every pair of the people's records, scored by whether they share a predicted cluster."""
    path = folder / "pairs.csv"
    pred = {r[0]: r[5] for r in PEOPLE}
    last = {r[0]: r[2] for r in PEOPLE}
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pair_id", "record_id_1", "record_id_2", "score", "prediction"])
        for k, (a, b) in enumerate(itertools.combinations(sorted(pred), 2)):
            score = 0.9 if pred[a] == pred[b] else (0.5 if last[a] == last[b] else 0.1)
            w.writerow([f"p{k:02d}", a, b, score, int(pred[a] == pred[b])])
    return path


def env() -> dict[str, str]:
    """The environment of a server process: this checkout's code."""
    out = dict(os.environ)
    out["PYTHONPATH"] = str(SRC) + os.pathsep + out.get("PYTHONPATH", "")
    out["PYTHONUNBUFFERED"] = "1"
    return out


@dataclass
class Server:
    """A running ``ereval label serve`` process."""

    process: subprocess.Popen[str]
    url: str
    token: str | None
    lines: list[str]

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (kill -9 by default) and wait for the process to end."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait(timeout=20)
        if self.process.stdout is not None and not self.process.stdout.closed:
            self.lines.extend(self.process.stdout.readlines())
            self.process.stdout.close()


def start_server(db: Path, *args: str, timeout: float = 60.0) -> Server:
    """Start a server on a free port and wait until it prints its address."""
    cmd = [sys.executable, "-m", "ereval", "label", "serve", "--db", str(db), "--port", "0", *args]
    process = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env()
    )
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                raise RuntimeError("server exited: " + "".join(lines))
            continue
        lines.append(line)
        found = re.search(r"at (http://\S+?:\d+)/(\?token=(\S+))?", line)
        if found:
            # keep reading the rest of the banner in the background is not needed
            return Server(process, found.group(1), found.group(3), lines)
    process.kill()
    raise RuntimeError("server did not start: " + "".join(lines))


@contextmanager
def running(db: Path, *args: str) -> Iterator[Server]:
    """A server for the duration of a ``with`` block (killed at the end)."""
    server = start_server(db, *args)
    try:
        yield server
    finally:
        server.kill(signal.SIGTERM)


def csrf_of(html: str) -> str:
    """The CSRF token of a page."""
    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]+)">', html)
    assert found, html[:500]
    return found.group(1)


def client(url: str, *, reviewer: str | None = None) -> httpx.Client:
    """An HTTP client with its own cookies, labelling as ``reviewer`` when given."""
    c = httpx.Client(base_url=url, follow_redirects=True, timeout=30.0)
    if reviewer is not None:
        page = c.get("/")
        page.raise_for_status()
        c.post("/reviewer", data={"name": reviewer, "csrf": csrf_of(page.text)}).raise_for_status()
    return c


def start(c: httpx.Client, session: str) -> httpx.Response:
    """Open a session's page and press start: the page of the item handed out (or why none)."""
    page = c.get(f"/s/{session}")
    if 'id="start"' not in page.text:
        return page
    return c.post(f"/s/{session}/start", data={"csrf": csrf_of(page.text)})


def version_of(html: str) -> str:
    """The item version a page's answer forms carry."""
    found = re.search(r'name="version" value="(\d+)"', html)
    assert found, html[:500]
    return found.group(1)


def current_item(response: httpx.Response) -> str | None:
    """The drawn record a review page shows (``None`` on the done page)."""
    return response.url.params.get("item")


def save(c: httpx.Client, session: str, item: str, html: str, **fields: Any) -> httpx.Response:
    """Save an answer the way the page's form does (with the version the page shows)."""
    data: dict[str, Any] = {"csrf": csrf_of(html), "item": item, **fields}
    if 'name="version"' in html:
        data.setdefault("version", version_of(html))
    return c.post(f"/s/{session}/review/save", data=data)
