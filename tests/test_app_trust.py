"""The labelling app keeps exactly what a reviewer decided, and says why when it cannot go on.

In process (FastAPI's test client): looking at pages claims nothing, start and
leave hand items out and back and the pages say who holds what, answers bound
to an item's version (a stale tab, a doubled request), a page older than the
server, reserved names, the estimate's warnings, the export commands of the done
pages run as written, blind pages, ranked items with their records, and
disputes sent to adjudication with a link.
"""

from __future__ import annotations

import html
import json
import re
import shlex
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app as cli_app
from ereval.labels import (
    ClusterReview,
    LabelStore,
    create_cluster_review,
    create_item_labelling,
    create_pair_labelling,
)

from ._app_support import csrf_of, make_multi, pairs_file, start, version_of
from ._example_data import EXAMPLES

pytest.importorskip("fastapi", reason="the app extra is not installed")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from ereval.app import SecurityConfig, create_app

LOCAL = "http://127.0.0.1"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LabelStore]:
    db = make_multi(tmp_path, n=4, overlap=0.0)
    pairs = pairs_file(tmp_path)
    with LabelStore(db) as s:
        create_pair_labelling(
            s, "pairs", data=tmp_path / "records.csv", pairs=pairs, budget=4, seed=1
        )
        create_item_labelling(
            s,
            "ranked",
            ranked=pairs,
            score_col="score",
            epsilon=0.3,
            delta=3,
            data=tmp_path / "records.csv",
        )
        yield s


def _client(store: LabelStore, reviewer: str = "ana", **security: object) -> TestClient:
    config = SecurityConfig(host="127.0.0.1", token=None, **security)  # type: ignore[arg-type]
    c = TestClient(create_app(store, reviewer="ana", security=config), base_url=LOCAL)
    if reviewer != "ana":
        c.post("/reviewer", data={"name": reviewer, "csrf": csrf_of(c.get("/").text)})
    return c


def _counts(db: str) -> tuple[int, int, int]:
    conn = sqlite3.connect(db)
    try:
        return tuple(  # type: ignore[return-value]
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("events", "items", "claims")
        )
    finally:
        conn.close()


def _item(page: str) -> str:
    found = re.search(r'name="item" value="([^"]+)"', page)
    assert found, page[:300]
    return found.group(1)


# ------------------------------------------------------------------ claims
def test_looking_at_pages_claims_nothing(store: LabelStore) -> None:
    # case 10: a GET used to hand the item to whoever opened the page, for 30 minutes
    c = _client(store)
    before = _counts(store.path)
    first = store.items("multi")[0].key
    for path in ("/", "/agreement", "/s/multi/review", "/s/pairs/pairs", "/s/ranked/items",
                 f"/s/multi/review?item={first}", f"/s/multi/adjudicate?item={first}"):  # fmt: skip
        assert c.get(path).status_code == 200, path
    assert _counts(store.path) == before
    assert 'id="start"' in c.get("/s/pairs/pairs").text


def test_start_hands_out_leave_gives_back_and_pages_say_who_holds_what(store: LabelStore) -> None:
    ana, bob = _client(store), _client(store, "bob")
    page = start(ana, "multi")
    held = page.url.params["item"]
    assert store.held("multi") == {held: ["ana"]}
    # bob is handed another record; the overview says who holds what
    other = start(bob, "multi").url.params["item"]
    assert other != held
    assert "1 record is held by ana, 1 by bob" in ana.get("/").text
    # ana opens the session again: the record she holds comes back (also after a restart)
    assert ana.get("/s/multi/review").url.params["item"] == held
    # leaving gives it back: the page's beacon, or the overview
    res = ana.post(
        "/s/multi/release", data={"item": held, "beacon": "1", "csrf": csrf_of(page.text)}
    )
    assert res.status_code == 204 and store.held("multi") == {other: ["bob"]}
    # pairs: the pair the sampler asks is held by bob, and ana is told so
    bob_pair = start(bob, "pairs")
    pair = _item(bob_pair.text)
    waiting = ana.get("/s/pairs/pairs").text
    assert f"{pair}, is held by bob" in waiting and 'id="start"' not in waiting


# ------------------------------------------------------------------ versions
def test_a_stale_tab_never_overwrites_a_newer_answer(store: LabelStore) -> None:
    # case 3: tab B, opened before tab A answered, used to win silently
    c = _client(store)
    tab_a = start(c, "pairs").text
    tab_b = c.get("/s/pairs/pairs").text  # the same pair, the same version
    pair, version = _item(tab_a), version_of(tab_a)
    assert _item(tab_b) == pair and version_of(tab_b) == version
    csrf = csrf_of(tab_a)
    res = c.post("/s/pairs/pairs/label",
                 data={"item": pair, "value": "non-match", "version": version, "csrf": csrf})  # fmt: skip
    assert res.status_code == 200
    events = len(store.events("pairs"))
    res = c.post("/s/pairs/pairs/label",
                 data={"item": pair, "value": "match", "version": version, "csrf": csrf})  # fmt: skip
    assert res.status_code == 409 and "This item changed since you opened it" in res.text
    text = html.unescape(re.sub(r"<[^>]+>", " ", res.text))
    assert "in force now" in text and "non-match" in text and " match " in text
    assert len(store.events("pairs")) == events  # nothing written
    assert store.labels("pairs")[pair] == {"ana": "non-match"}
    # the page offers to replace it, with the version now: that works
    res = c.post("/s/pairs/pairs/label", data={"item": pair, "value": "match", "csrf": csrf,
                                               "version": version_of(res.text)})  # fmt: skip
    assert res.status_code == 200 and store.labels("pairs")[pair] == {"ana": "match"}


def test_the_same_answer_sent_twice_is_stored_once(store: LabelStore) -> None:
    # a doubled request (a held key, a double click) for the item on screen
    c = _client(store)
    page = start(c, "ranked").text
    item, version, csrf = _item(page), version_of(page), csrf_of(page)
    for _ in range(3):
        res = c.post("/s/ranked/items/label",
                     data={"item": item, "value": "match", "version": version, "csrf": csrf})  # fmt: skip
        assert res.status_code == 200
    assert len(store.events("ranked")) == 1


def test_a_stale_cluster_save_is_refused_with_both_answers(store: LabelStore) -> None:
    c = _client(store)
    page = start(c, "multi")
    item = page.url.params["item"]
    predicted = ClusterReview(store, "multi").predicted_cluster(item)
    version, csrf = version_of(page.text), csrf_of(page.text)
    c.post("/s/multi/review/save",
           data={"item": item, "version": version, "csrf": csrf, "note": "first"})  # fmt: skip
    fields = {"item": item, "version": version, "csrf": csrf, "note": "second", "tag": "typo"}
    if len(predicted) > 1:
        fields["remove"] = predicted[1]
    res = c.post("/s/multi/review/save", data=fields)
    assert res.status_code == 409 and "first" in res.text and "second" in res.text
    assert store.labels("multi")[item]["ana"]["note"] == "first"


# ------------------------------------------------------------------ restart
def test_a_page_older_than_the_server_is_reloaded_with_nothing_done(store: LabelStore) -> None:
    c = _client(store)
    page = start(c, "multi")
    item = page.url.params["item"]
    # the server restarts: a new secret; the browser keeps its cookies and its page
    again = TestClient(
        create_app(store, reviewer="ana", security=SecurityConfig(host="127.0.0.1", token=None)),
        base_url=LOCAL,
        cookies=dict(c.cookies),
    )
    here = str(page.url).removeprefix(LOCAL)
    res = again.post(
        "/s/multi/review/save",
        data={"item": item, "csrf": csrf_of(page.text), "back": here, "note": "kept"},
        follow_redirects=False,
    )
    assert res.status_code == 303 and res.headers["location"].startswith(here)
    assert store.labels("multi") == {}
    shown = again.get(res.headers["location"]).text
    assert "The server was restarted since this page was opened" in shown
    assert f"item={item}" in res.headers["location"]  # the same page: the draft is in it
    # a form naming another site is not followed
    res = again.post("/s/multi/undo", data={"csrf": "0" * 64, "back": "//evil.example/"},
                     follow_redirects=False)  # fmt: skip
    assert res.status_code == 403


# ------------------------------------------------------------------ names
@pytest.mark.parametrize("name", ["(transitivity)", "(import)"])
def test_reserved_names_cannot_be_chosen_in_the_app(store: LabelStore, name: str) -> None:
    c = _client(store)
    res = c.post("/reviewer", data={"name": name, "csrf": csrf_of(c.get("/").text)})
    assert res.status_code == 400 and "reserved" in res.text


# ------------------------------------------------------------------ estimates
def test_the_live_estimate_shows_the_warning_the_command_line_prints(store: LabelStore) -> None:
    # case 13: one label used to give a narrow interval with no word of warning
    c = _client(store)
    page = start(c, "pairs").text
    res = c.post("/s/pairs/pairs/label", data={"item": _item(page), "value": "match",
                                               "version": version_of(page), "csrf": csrf_of(page)})  # fmt: skip
    shown = re.findall(
        r"<li>(.*?)</li>", res.text.split('id="estimate-warnings"')[1].split("</ul>")[0]
    )
    from ereval.labels import PairLabelling

    estimate = PairLabelling(store, "pairs").progress()["estimate"]
    expected = [w for k in ("f_measure", "precision", "recall") for w in estimate[k]["warnings"]]
    assert expected and [html.unescape(s) for s in shown] == list(dict.fromkeys(expected))


# ------------------------------------------------------------------ done pages
def _command(page: str, tag: str) -> list[str]:
    found = re.search(rf'<pre class="command" id="{tag}">(.*?)</pre>', page, re.S)
    assert found, page[-800:]
    return shlex.split(html.unescape(found.group(1)))


def test_the_export_commands_of_the_done_pages_run(
    store: LabelStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = _client(store)
    for name, value in (("pairs", "match"), ("ranked", "non-match")):
        page = start(c, name)
        while 'name="version"' in page.text:
            page = c.post(f"/s/{name}/{'pairs' if name == 'pairs' else 'items'}/label",
                          data={"item": _item(page.text), "value": value,
                                "version": version_of(page.text), "csrf": csrf_of(page.text)})  # fmt: skip
    review = ClusterReview(store, "multi")
    for it in store.items("multi"):
        review.save(it.key, reviewer="ana")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for name in ("multi", "pairs", "ranked"):
        page = c.get(f"/s/{name}").text
        command = _command(page, "export")
        assert command[:3] == ["ereval", "label", "export"]
        res = runner.invoke(cli_app, command[1:])
        assert res.exit_code == 0, res.output
        assert Path(command[-1]).is_file()
    # the done pages also say how to estimate from the export
    follow = _command(c.get("/s/multi").text, "follow")
    assert follow[:2] == ["ereval", "estimate"]
    res = runner.invoke(cli_app, follow[1:])
    assert res.exit_code == 0, res.output
    page = c.get("/s/pairs").text
    follow = _command(page, "follow")
    res = runner.invoke(cli_app, [*follow[1:], "-f", "json"])
    assert res.exit_code == 0, res.output
    from ereval.labels import PairLabelling

    shown = PairLabelling(store, "pairs").progress()["estimate"]["f_measure"]
    assert json.loads(res.stdout)["f_measure"]["value"] == pytest.approx(shown["value"], rel=1e-12)


# ------------------------------------------------------------------ blind pages
def test_blind_pages_never_show_the_answer_columns(tmp_path: Path) -> None:
    db = tmp_path / "labels.db"
    records = EXAMPLES / "records.csv"
    entities = set(pd.read_csv(records, dtype=str)["entity_id"])
    with LabelStore(db, create=True) as s:
        create_cluster_review(s, "main", data=records, prediction=EXAMPLES / "pred_good.csv",
                              n=5, seed=2)  # fmt: skip
        create_pair_labelling(s, "pairs", data=records, pairs=EXAMPLES / "pairs.csv", budget=5,
                              seed=2)  # fmt: skip
        create_item_labelling(s, "ranked", ranked=EXAMPLES / "pairs.csv", epsilon=0.1, delta=10,
                              data=records)  # fmt: skip
        create_cluster_review(s, "shown", data=records, prediction=EXAMPLES / "pred_good.csv",
                              n=2, seed=2, show_columns=["first_name", "entity_id"])  # fmt: skip
        c = _client(s)
        pages = [start(c, name).text for name in ("main", "pairs", "ranked")]
        item = s.items("main")[0].key
        hits = c.get("/s/main/search", params={"q": "maria", "item": item}).text
        for text in (*pages, hits):
            assert "entity_id" not in text
            assert not any(f">{e}<" in text or f'"{e}"' in text for e in entities)
        assert "first_name" in pages[0] and "last_name" in pages[1]
        # ranked items show both records of a pair, the differing values highlighted
        assert 'id="pair"' in pages[2] and 'class="diff"' in pages[2]
        assert "score" not in pages[2].split('id="progress"')[0]
        # the session's own choice is honoured
        page = start(c, "shown").text
        assert "entity_id" in page and "last_name" not in page.split('id="records"')[1]


def test_show_and_hide_columns_are_checked(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "l.db")
    base = ["label", "init", "--db", db, "--data", str(EXAMPLES / "records.csv"),
            "--pred", str(EXAMPLES / "pred_good.csv"), "--n", "3"]  # fmt: skip
    res = runner.invoke(cli_app, [*base, "--hide-col", "nope"])
    assert res.exit_code == 2 and "'--hide-col'" in res.stderr and "nope" in res.stderr
    res = runner.invoke(cli_app, [*base, "--show-col", "city", "--hide-col", "city"])
    assert res.exit_code == 2 and "'--hide-col'" in res.stderr
    assert not Path(db).exists()
    res = runner.invoke(cli_app, [*base, "--hide-col", "city", "-f", "json"])
    assert res.exit_code == 0, res.output
    with LabelStore(db) as s:
        review = ClusterReview(s, "main")
        assert "city" not in review.shown and "entity_id" not in review.shown
        assert "first_name" in review.shown


# ------------------------------------------------------------------ disputes
def test_a_dispute_is_sent_to_adjudication_with_a_link(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=3, overlap=1.0)
    with LabelStore(db) as s:
        item = s.items("multi")[0].key
        ClusterReview(s, "multi").save(item, reviewer="bob", note="bob's reason")
        c = _client(s)
        page = c.get("/s/multi/review", params={"item": item}).text
        predicted = ClusterReview(s, "multi").predicted_cluster(item)
        fields = {"item": item, "version": version_of(page), "csrf": csrf_of(page),
                  "note": "ana's reason"}  # fmt: skip
        if len(predicted) > 1:
            fields["remove"] = predicted[1]
        else:
            fields["add"] = next(r for r in ClusterReview(s, "multi").records.ids if r != item)
        res = c.post("/s/multi/review/save", data=fields)
        assert "goes to adjudication" in res.text
        link = f"/s/multi/adjudicate?item={item}"
        assert f'href="{link}"' in res.text
        lead = _client(s, "lead")
        adj = lead.get(link).text
        assert "bob&#39;s reason" in adj and "ana&#39;s reason" in adj
        assert 'id="records"' in adj and adj.count('data-record="') >= 2


def test_a_pair_waiting_for_an_adjudicator_says_so_to_everyone(store: LabelStore) -> None:
    ana, bob = _client(store), _client(store, "bob")
    page = start(ana, "pairs").text
    pair = _item(page)
    res = ana.post("/s/pairs/pairs/label", data={"item": pair, "value": "unsure",
                                                 "version": version_of(page), "csrf": csrf_of(page)})  # fmt: skip
    assert "goes to adjudication" in res.text and f"adjudicate?item={pair}" in res.text
    for c in (ana, bob):
        shown = c.get("/s/pairs/pairs").text
        assert f"{pair}, waits for an adjudicator" in shown and 'id="start"' not in shown
    # once adjudicated, the sampler goes on
    lead = _client(store, "lead")
    adj = lead.get("/s/pairs/adjudicate", params={"item": pair}).text
    lead.post("/s/pairs/adjudicate", data={"item": pair, "value": "match", "csrf": csrf_of(adj),
                                           "version": version_of(adj)})  # fmt: skip
    assert 'id="start"' in bob.get("/s/pairs/pairs").text
