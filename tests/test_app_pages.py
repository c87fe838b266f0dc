"""The labelling app in process: security guards, pages and their actions."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from ereval.labels import (
    ClusterReview,
    LabelStore,
    create_item_labelling,
    create_pair_labelling,
)

from ._app_support import XSS_NAME, csrf_of, make_multi, pairs_file, start

pytest.importorskip("fastapi", reason="the app extra is not installed")
with warnings.catch_warnings():
    # this Starlette asks for the httpx2 package; its client works with httpx
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
            s,
            "pairs",
            data=tmp_path / "records.csv",
            pairs=pairs,
            budget=5,
            reveal=True,
            seed=1,
            show_columns=["first_name", "last_name", "date_of_birth"],
        )
        create_item_labelling(s, "ranked", ranked=pairs, score_col="score", epsilon=0.3, delta=3)
        yield s


def _client(store: LabelStore, *, host: str = "127.0.0.1", token: str | None = None) -> TestClient:
    app = create_app(store, reviewer="ana", security=SecurityConfig(host=host, token=token))
    return TestClient(app, base_url=LOCAL)


def _csrf(c: TestClient, path: str = "/") -> str:
    return csrf_of(c.get(path).text)


# ------------------------------------------------------------------ security
def test_state_changing_requests_need_the_csrf_token(store: LabelStore) -> None:
    c = _client(store)
    page = start(c, "multi")
    item = page.url.params["item"]
    for data in ({}, {"csrf": "0" * 64}):
        res = c.post("/s/multi/review/save", data={"item": item, **data})
        assert res.status_code == 403 and "CSRF" in res.text
    # another browser's token does not work either
    other = _client(store)
    res = c.post("/s/multi/review/save", data={"item": item, "csrf": _csrf(other)})
    assert res.status_code == 403
    assert c.post("/s/multi/undo").status_code == 403
    assert store.labels("multi") == {}
    res = c.post(
        "/s/multi/review/save",
        data={"item": item, "csrf": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert res.status_code == 303
    assert list(store.labels("multi")) == [item]
    # the header works for scripts
    res = c.post("/s/multi/undo", headers={"X-CSRF-Token": csrf_of(page.text)})
    assert res.status_code == 200 and store.labels("multi") == {}


def test_pages_forbid_inline_scripts_and_escape_record_content(store: LabelStore) -> None:
    c = _client(store)
    item = start(c, "multi").url.params["item"]
    res = c.get("/s/multi/review", params={"item": item, "add": "r10"})
    assert "script-src 'self'" in res.headers["content-security-policy"]
    assert XSS_NAME not in res.text
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in res.text
    assert re.findall(r"<script[^>]*>", res.text) == ['<script src="/static/app.js">']
    found = c.get("/s/multi/search", params={"q": "tester", "item": item}).json()["results"]
    assert found[0]["text"].startswith(XSS_NAME)  # JSON, put in the page as text by app.js


def test_loopback_server_refuses_other_host_names(store: LabelStore) -> None:
    c = _client(store)
    assert c.get("/", headers={"Host": "evil.example:8000"}).status_code == 403
    assert c.get("/", headers={"Host": "localhost:8000"}).status_code == 200


def test_beyond_loopback_every_request_needs_the_token(store: LabelStore) -> None:
    token = "a-long-enough-token"
    with pytest.raises(ValueError, match="'token' is required"):
        SecurityConfig(host="0.0.0.0", token=None)
    c = _client(store, host="0.0.0.0", token=token)
    assert c.get("/").status_code == 401
    assert c.get("/static/app.js").status_code == 401
    assert c.post("/s/multi/undo").status_code == 401
    assert c.get("/", params={"token": token + "x"}).status_code == 401
    assert c.get("/", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert c.get("/", params={"token": token}).status_code == 200
    assert c.get("/agreement").status_code == 200  # by the cookie from now on


@pytest.mark.parametrize(
    "path",
    [
        "/static/..%2F_security.py",
        "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/static/..%5c..%5cetc%5cpasswd",
        "/static/templates%2fbase.html",
        "/static/%2fetc%2fpasswd",
    ],
)
def test_no_path_traversal_through_static_files(store: LabelStore, path: str) -> None:
    res = _client(store).get(path)
    assert res.status_code == 404
    assert "root:" not in res.text and "import" not in res.text


@pytest.mark.parametrize(
    "path",
    [
        "/s/..%2F..%2Fetc%2Fpasswd/review",
        "/s/%2Fetc%2Fpasswd",
        "/s/multi/review?item=..%2F..%2Fetc%2Fpasswd",
        "/s/multi/adjudicate?item=%2Fetc%2Fpasswd",
    ],
)
def test_session_and_item_names_never_reach_the_file_system(store: LabelStore, path: str) -> None:
    res = _client(store).get(path)
    assert res.status_code in (400, 404)  # an unknown session or item, or no such route
    assert "root:" not in res.text and len(res.text.strip().splitlines()) == 1


# --------------------------------------------------------------------- pages
def test_overview_lists_every_session_with_its_progress(store: LabelStore) -> None:
    c = _client(store)
    page = c.get("/").text
    for name in ("multi", "pairs", "ranked"):
        assert f'href="/s/{name}"' in page
    assert "cluster review" in page and "pair labelling" in page and "ranked items" in page
    assert 'data-key="1"' in page and "<kbd>1</kbd>" in page
    # a browser chooses who it labels as
    res = c.post("/reviewer", data={"name": "bea", "csrf": _csrf(c)})
    assert res.status_code == 200 and "reviewer: <strong>bea</strong>" in c.get("/").text
    assert c.post("/reviewer", data={"name": " ", "csrf": _csrf(c)}).status_code == 400


def test_review_save_undo_redo(store: LabelStore) -> None:
    c = _client(store)
    page = start(c, "multi")
    item = page.url.params["item"]
    predicted = ClusterReview(store, "multi").predicted_cluster(item)
    # the anchor cannot be marked as not belonging: the page says so and saving fails
    bad = c.get("/s/multi/review", params={"item": item, "remove": item})
    assert 'id="qc-errors"' in bad.text and "disabled" in bad.text
    res = c.post(
        "/s/multi/review/save", data={"item": item, "remove": item, "csrf": csrf_of(page.text)}
    )
    assert "not saved" in res.text and store.labels("multi") == {}
    # a good answer is saved and the next record is shown
    res = c.post(
        "/s/multi/review/save",
        data={"item": item, "tag": ["typo"], "note": "ok", "csrf": csrf_of(page.text)},
    )
    assert f"saved {item}" in res.text and res.url.params["item"] != item
    value = store.labels("multi")[item]["ana"]
    assert value["true_cluster"] == sorted(predicted) and value["tags"] == ["typo"]
    # z undoes it and shows that record again; y redoes it
    res = c.post("/s/multi/undo", data={"csrf": csrf_of(res.text)})
    assert res.url.params["item"] == item and store.labels("multi") == {}
    res = c.post("/s/multi/redo", data={"csrf": csrf_of(res.text)})
    assert list(store.labels("multi")) == [item]
    # every action on the page has its key on screen
    page = c.get("/s/multi/review", params={"item": item}).text
    for key in ("j", "k", "x", "/", "Enter", "s", "z", "y", "1", "o", "a"):
        assert f"<kbd>{key}</kbd>" in page, key
    assert 'data-key="s"' in page and 'data-key="z"' in page and 'data-key="y"' in page


def test_an_item_not_in_the_session_is_a_clear_error(store: LabelStore) -> None:
    c = _client(store)
    res = c.post("/s/multi/review/save", data={"item": "nope", "csrf": _csrf(c)})
    assert res.status_code == 400 and "'item' 'nope' is not a drawn record" in res.text
    res = c.post("/s/pairs/pairs/label", data={"item": "nope", "value": "match", "csrf": _csrf(c)})
    assert res.status_code == 400 and "nope" in res.text


def test_pair_labelling_is_blind_until_the_decision(store: LabelStore) -> None:
    c = _client(store)
    page = start(c, "pairs").text
    pair = re.search(r'name="item" value="([^"]+)"', page)
    assert pair is not None
    assert "score" not in page.split('id="progress"')[0]  # no score before the decision
    for key in ("m", "n", "u", "z", "y"):
        assert f'data-key="{key}"' in page
    res = c.post(
        "/s/pairs/pairs/label",
        data={"item": pair.group(1), "value": "match", "csrf": csrf_of(page)},
    )
    assert 'id="reveal"' in res.text and "you said <strong>match</strong>" in res.text
    assert 'id="estimate"' in res.text and "[" in res.text
    # label until the budget stops the session
    for _ in range(10):
        found = re.search(r'name="item" value="([^"]+)"', res.text)
        if found is None:
            break
        res = c.post(
            "/s/pairs/pairs/label",
            data={"item": found.group(1), "value": "non-match", "csrf": csrf_of(res.text)},
        )
    assert "Labelling stopped: the label budget is spent" in res.text


def test_ranked_items_follow_the_paula_plan(store: LabelStore) -> None:
    c = _client(store)
    res = start(c, "ranked")
    planned = len(store.items("ranked"))
    for _ in range(planned):
        found = re.search(r'name="item" value="([^"]+)"', res.text)
        assert found is not None
        assert "score" not in res.text.split('id="progress"')[0]
        res = c.post(
            "/s/ranked/items/label",
            data={"item": found.group(1), "value": "match", "csrf": csrf_of(res.text)},
        )
    assert "Every planned item is labelled" in res.text
    assert 'id="estimate"' in res.text and "precision at N" in res.text


def test_disagreements_go_to_adjudication(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=3, overlap=1.0)
    with LabelStore(db) as store:
        review = ClusterReview(store, "multi")
        items = [it.key for it in store.items("multi")]
        multi = next(i for i in items if len(review.predicted_cluster(i)) > 1)
        for item in items:
            review.save(item, reviewer="ana")
            other = [r for r in review.predicted_cluster(item) if r != item]
            review.save(item, reviewer="bob", remove=other[:1] if item == multi else [])
        c = _client(store)
        page = c.get("/agreement").text
        assert "Cohen" in page and "Krippendorff" in page
        assert f"<code>{multi}</code>" in page.split("Adjudication queue")[1]
        # ana labelled it: she sees the dispute, and may not decide it
        adj = c.get("/s/multi/adjudicate", params={"item": multi}).text
        assert 'id="party"' in adj and 'name="reviewer"' not in adj
        res = c.post("/s/multi/adjudicate", data={"item": multi, "reviewer": "bob",
                                                  "csrf": csrf_of(adj)})  # fmt: skip
        assert "part of its dispute" in res.text and multi in review.resolution().queue
        c.post("/reviewer", data={"name": "lead", "csrf": csrf_of(adj)})
        adj = c.get("/s/multi/adjudicate", params={"item": multi}).text
        # the records being decided, and each reviewer's answer
        assert adj.count('data-record="') >= 2 and "ana</strong>" in adj and "bob</strong>" in adj
        assert adj.count('data-key="') >= 2 + 2  # two answers, plus o and a
        res = c.post(
            "/s/multi/adjudicate",
            data={"item": multi, "reviewer": "bob", "csrf": csrf_of(adj)},
        )
        assert f"adjudicated {multi}" in res.text
        assert review.resolution().resolved[multi] == store.labels("multi")[multi]["bob"]
        assert multi not in review.resolution().queue
