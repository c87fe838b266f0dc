"""The labelling app in headless Chromium, as a reviewer uses it: nothing lost, nothing invented.

One browser and one server for the module (a second server for the tests that
stop it). Each test drives the keyboard as a reviewer would: undo after labels
that implied others, a held key, two tabs on one item, a note typed while the
server is down, a server restarted mid-review, who holds what, and the new pages
(start, "changed since you opened it", adjudication, ranked items with their
records, done pages with their export command, the review at 1280 px). Every
test takes screenshots into ``tests/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import itertools
import shutil
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ereval.labels import (
    LabelStore,
    create_cluster_review,
    create_item_labelling,
    create_pair_labelling,
    export_labels,
)

from ._app_support import PEOPLE, Server, pairs_file, start_server, write_people
from ._example_data import EXAMPLES

pytest.importorskip("fastapi", reason="the app extra is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        pw = sync_api.sync_playwright().start()
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Playwright cannot start: {exc}")
    try:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
    except Exception as exc:  # pragma: no cover - depends on the machine
        pw.stop()
        pytest.skip(f"no Chromium can be launched at {CHROMIUM}: {exc}")
    yield chromium
    chromium.close()
    pw.stop()


def _abcd(folder: Path) -> tuple[Path, Path]:
    data, pairs = folder / "abcd.csv", folder / "abcd-pairs.csv"
    pd.DataFrame({"record_id": list("abcd"), "name": ["ann", "anne", "bob", "rob"]}).to_csv(
        data, index=False
    )
    rows = [
        {"pair_id": a + b, "record_id_1": a, "record_id_2": b, "score": 0.9 - 0.1 * k,
         "prediction": int(k < 3)}
        for k, (a, b) in enumerate(itertools.combinations("abcd", 2))
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(pairs, index=False)
    return data, pairs


def _chain_seed(folder: Path, data: Path, pairs: Path) -> int:
    """A seed whose first two asked pairs share a record and imply a label after m, m, n."""
    for seed in range(500):
        with LabelStore(folder / f"probe{seed}.db", create=True) as store:
            session = create_pair_labelling(store, "p", data=data, pairs=pairs, budget=10,
                                            seed=seed)  # fmt: skip
            asked = []
            for value in ("match", "match", "non-match"):
                task = session.next(reviewer="x")
                assert task is not None
                session.label(task.pair_id, value, reviewer="x")
                asked.append(task.pair_id)
            if set(asked[0]) & set(asked[1]) and session.progress()["implied"]:
                return seed
    raise AssertionError("no seed")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("trust-browser")
    records, pred, _ = write_people(folder, list(PEOPLE))
    pairs = pairs_file(folder)
    data, abcd = _abcd(folder)
    seed = _chain_seed(folder, data, abcd)
    db = folder / "labels.db"
    with LabelStore(db, create=True) as store:
        search = ["first_name", "last_name", "date_of_birth", "city"]
        for name in ("held", "tabs", "leave"):
            create_cluster_review(store, name, data=records, prediction=pred, n=6, replace=False,
                                  seed=7, search_columns=search)  # fmt: skip
        create_pair_labelling(store, "pairs", data=records, pairs=pairs, budget=20, seed=3)
        create_pair_labelling(store, "pairs2", data=records, pairs=pairs, budget=20, seed=4)
        create_pair_labelling(store, "chain", data=data, pairs=abcd, budget=10, seed=seed)
        create_item_labelling(store, "ranked", ranked=pairs, score_col="score", epsilon=0.3,
                              delta=3, data=records)  # fmt: skip
        dispute = create_cluster_review(store, "dispute", data=records, prediction=pred, n=3,
                                        replace=False, overlap=1.0, seed=1)  # fmt: skip
        for item in store.items("dispute"):
            dispute.save(item.key, reviewer="bob", note="same person, one typo")
            other = [r for r in dispute.predicted_cluster(item.key) if r != item.key]
            dispute.save(item.key, reviewer="cy", remove=other[:1], note="different birth dates")
        create_cluster_review(store, "wide", data=EXAMPLES / "records.csv",
                              prediction=EXAMPLES / "pred_poor.csv", n=40, seed=5)  # fmt: skip
    return db


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[Server]:
    srv = start_server(project, "--reviewer", "ana")
    yield srv
    srv.kill(signal.SIGTERM)


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"trust-{name}.png"), full_page=True)


def _page(browser: Any, *, width: int = 1280, context: Any = None) -> Any:
    ctx = context or browser.new_context(viewport={"width": width, "height": 800})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


def _as(page: Any, url: str, reviewer: str) -> None:
    page.goto(url + "/")
    page.fill("#reviewer-name", reviewer)
    with page.expect_navigation():
        page.press("#reviewer-name", "Enter")


def _press(page: Any, key: str) -> None:
    with page.expect_navigation():
        page.keyboard.press(key)


def _labels(db: Path, session: str) -> dict[str, dict[str, Any]]:
    with LabelStore(db, readonly=True) as store:
        return store.labels(session)


# ------------------------------------------------------------------ case 1
def test_undo_withdraws_what_the_undone_labels_implied(
    browser: Any, server: Server, project: Path
) -> None:
    page = _page(browser)
    page.goto(server.url + "/s/chain/pairs")
    _press(page, "Enter")  # start
    asked = []
    for key in ("m", "m", "n"):
        asked.append(page.locator('#answers input[name="item"]').first.get_attribute("value"))
        _press(page, key)
    _shot(page, "01-chain-after-m-m-n")
    _press(page, "z")
    _press(page, "z")
    _shot(page, "02-chain-after-undo-undo")
    progress = page.inner_text("#progress")
    assert "1 / 10 labels used" in " ".join(progress.split())
    assert "0 implied by transitivity" in progress
    assert "[1.000, 1.000]" not in progress
    with LabelStore(project, readonly=True) as store:
        frame = export_labels(store, "chain", kind="pairs").frame
    assert frame.pair_id.tolist() == asked[:1]
    assert page.errors == []


# ------------------------------------------------------------------ case 2
def test_a_held_key_answers_only_the_item_it_went_down_on(
    browser: Any, server: Server, project: Path
) -> None:
    page = _page(browser)
    page.goto(server.url + "/s/pairs/pairs")
    _press(page, "Enter")
    with page.expect_navigation():
        page.keyboard.down("m")
    for _ in range(16):  # the key stays down: the browser repeats it on the next pages
        page.keyboard.down("m")
        page.wait_for_timeout(25)
    page.keyboard.up("m")
    page.wait_for_load_state()
    _shot(page, "03-held-m")
    assert sum(1 for v in _labels(project, "pairs").values() if "ana" in v) == 1
    # the same for s on a cluster review: one record saved, not ten
    page.goto(server.url + "/s/held/review")
    _press(page, "Enter")
    with page.expect_navigation():
        page.keyboard.down("s")
    for _ in range(12):
        page.keyboard.down("s")
        page.wait_for_timeout(25)
    page.keyboard.up("s")
    page.wait_for_load_state()
    _shot(page, "04-held-s")
    assert len(_labels(project, "held")) == 1
    assert page.errors == []


# ------------------------------------------------------------------ case 3
def test_two_tabs_on_one_item_never_overwrite_each_other(
    browser: Any, server: Server, project: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab_a, tab_b = _page(browser, context=context), _page(browser, context=context)
    tab_a.goto(server.url + "/s/pairs2/pairs")
    _press(tab_a, "Enter")
    tab_b.goto(server.url + "/s/pairs2/pairs")  # the same pair, the same version
    pair = tab_a.locator('#answers input[name="item"]').first.get_attribute("value")
    assert tab_b.locator('#answers input[name="item"]').first.get_attribute("value") == pair
    _press(tab_a, "n")
    _press(tab_b, "m")  # the stale tab
    tab_b.wait_for_selector("#changed")
    _shot(tab_b, "05-two-tabs-pair-changed")
    assert "non-match" in tab_b.inner_text("#current") and "match" in tab_b.inner_text("#given")
    assert _labels(project, "pairs2")[pair] == {"ana": "non-match"}
    # cluster review: tab B saves another answer after tab A saved
    tab_a.goto(server.url + "/s/tabs/review")
    _press(tab_a, "Enter")
    record = tab_a.url.split("item=")[1].split("&")[0]
    tab_b.goto(tab_a.url)
    tab_b.keyboard.press("t")
    tab_b.keyboard.type("seen in tab B")
    tab_b.keyboard.press("Escape")
    _press(tab_a, "s")
    _press(tab_b, "s")
    tab_b.wait_for_selector("#changed")
    _shot(tab_b, "06-two-tabs-review-changed")
    assert "seen in tab B" in tab_b.inner_text("#given")
    assert _labels(project, "tabs")[record]["ana"]["note"] == ""
    assert tab_a.errors == [] and tab_b.errors == []


# ------------------------------------------------------------------ case 10 and leaving
def test_looking_claims_nothing_and_leaving_gives_back(
    browser: Any, server: Server, project: Path
) -> None:
    ana = _page(browser)
    ana.goto(server.url + "/s/leave/review")  # looks, starts nothing
    bob = _page(browser)
    _as(bob, server.url, "bob")
    bob.goto(server.url + "/s/leave/review")
    _press(bob, "Enter")
    held = bob.url.split("item=")[1].split("&")[0]
    ana.goto(server.url + "/")
    _shot(ana, "07-overview-who-holds-what")
    assert "1 record is held by bob" in ana.inner_text("#sessions")
    with LabelStore(project, readonly=True) as store:
        assert store.held("leave") == {held: ["bob"]}
    _press(bob, "o")  # bob leaves for the overview: the record goes back
    bob.wait_for_timeout(300)
    with LabelStore(project, readonly=True) as store:
        assert store.held("leave") == {}
    # closing the tab gives it back too
    ana.goto(server.url + "/s/leave/review")
    _press(ana, "Enter")
    ana.close(run_before_unload=True)
    bob.wait_for_timeout(300)
    with LabelStore(project, readonly=True) as store:
        assert store.held("leave") == {}


# ------------------------------------------------------------------ new pages
def test_the_pages_a_reviewer_needs(browser: Any, server: Server, project: Path) -> None:
    # ranked items: both records of the pair, the differing values highlighted
    page = _page(browser)
    page.goto(server.url + "/s/ranked/items")
    _shot(page, "08-ranked-start")
    _press(page, "Enter")
    page.wait_for_selector("#pair td.diff")
    _shot(page, "09-ranked-item-records")
    # adjudication: the records, each reviewer's answer and note; a party cannot decide
    lead = _page(browser)
    _as(lead, server.url, "lead")
    lead.goto(server.url + "/agreement")
    _press(lead, "x")
    lead.wait_for_selector("#records")
    _shot(lead, "10-adjudicate-cluster")
    text = lead.inner_text("#answers-given")
    assert "same person, one typo" in text and "different birth dates" in text
    bob = _page(browser)
    _as(bob, server.url, "bob")
    bob.goto(lead.url)
    assert bob.locator("#party").count() == 1 and bob.locator('[name="reviewer"]').count() == 0
    _shot(bob, "11-adjudicate-party")
    _press(lead, "1")
    assert "adjudicated" in lead.inner_text(".flash")
    # the review at 1280 px: "not in cluster" is on screen without scrolling sideways
    page.goto(server.url + "/s/wide/review")
    _press(page, "Enter")
    _shot(page, "12-review-1280")
    toggles = page.locator("[data-toggle]")
    assert toggles.count() >= 1
    box = toggles.first.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert "entity_id" not in page.content()
    assert page.errors == [] and lead.errors == []


# ------------------------------------------------------------------ cases 4 and restart
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[Path, list[Server], int]]:
    records, pred, _ = write_people(tmp_path, list(PEOPLE))
    db = tmp_path / "labels.db"
    with LabelStore(db, create=True) as store:
        create_cluster_review(store, "r", data=records, prediction=pred, n=4, replace=False,
                              seed=7, search_columns=["first_name", "last_name"])  # fmt: skip
    port = _free_port()
    servers = [start_server(db, "--reviewer", "ana", "--port", str(port))]
    yield db, servers, port
    for srv in servers:
        srv.kill(signal.SIGTERM)


def test_a_note_survives_the_server_going_down_and_restarting(
    browser: Any, own_server: Any
) -> None:
    db, servers, port = own_server
    # case 4: the server is down when the reviewer saves; the note is kept
    page = _page(browser)
    page.goto(servers[0].url + "/s/r/review")
    _press(page, "Enter")
    review_url = page.url
    page.keyboard.press("t")
    page.keyboard.type("twins, not one person")
    page.keyboard.press("Escape")
    servers[0].kill()  # kill -9; the reviewer saves
    page.keyboard.press("s")
    page.wait_for_timeout(500)
    _shot(page, "13-save-while-server-down")
    assert _labels(db, "r") == {}
    servers.append(start_server(db, "--reviewer", "ana", "--port", str(port)))
    page.goto(review_url)  # back to the record: the note is still there
    assert page.input_value('input[name="note"]') == "twins, not one person"
    _shot(page, "14-note-kept")
    _press(page, "s")
    record = review_url.split("item=")[1].split("&")[0]
    assert _labels(db, "r")[record]["ana"]["note"] == "twins, not one person"
    key = f"ereval-note:/s/r/review:{record}"
    assert page.evaluate(f"sessionStorage.getItem({key!r})") is None  # forgotten once stored

    # restarted mid-review: the page's token is the old server's
    record = page.url.split("item=")[1].split("&")[0]
    if page.locator("[data-toggle]").count():  # a draft change: mark the second record
        page.keyboard.press("j")
        _press(page, "x")
    page.keyboard.press("t")
    page.keyboard.type("kept across the restart")
    page.keyboard.press("Escape")
    draft = page.url
    servers[-1].kill(signal.SIGTERM)
    servers.append(start_server(db, "--reviewer", "ana", "--port", str(port)))
    _press(page, "s")  # nothing is done; the page comes back with a fresh token
    _shot(page, "15-restarted-notice")
    assert "server was restarted" in page.inner_text(".flash")
    assert page.input_value('input[name="note"]') == "kept across the restart"
    assert page.url.split("&notice")[0].split("?notice")[0] == draft
    assert record not in _labels(db, "r")
    _press(page, "s")  # again, with the fresh token
    assert _labels(db, "r")[record]["ana"]["note"] == "kept across the restart"
    assert page.errors == []
