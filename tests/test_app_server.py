"""The labelling server as a process: crash safety, two reviewers at once, one server per store."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest

from ereval.labels import LabelStore, session_agreement

from ._app_support import client, current_item, env, make_multi, running, save, start, start_server

pytest.importorskip("fastapi", reason="the app extra is not installed")


def test_kill_9_loses_no_acknowledged_label_and_the_session_resumes(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=6)
    server = start_server(db, "--reviewer", "ana")
    acknowledged: list[str] = []
    try:
        c = client(server.url)
        for _ in range(3):
            page = start(c, "multi")  # the record held, or a new one handed out
            item = current_item(page)
            assert item is not None
            done = save(c, "multi", item, page.text)
            assert done.status_code == 200 and f"saved {item}" in done.text
            acknowledged.append(item)
        # the reviewer has the next record open and the server dies mid-session
        page = c.get("/s/multi/review")
        stopped_at = current_item(page)
        assert stopped_at is not None and stopped_at not in acknowledged
        c.close()
    finally:
        server.kill()  # SIGKILL: no shutdown code runs
    assert server.process.returncode == -9

    with LabelStore(db) as store:
        assert set(store.labels("multi")) == set(acknowledged)
        assert store.server() is not None  # the dead server's lease is still there

    with running(db, "--reviewer", "ana") as again:  # the stale lease is taken over
        c = client(again.url)
        page = c.get("/s/multi/review")
        assert current_item(page) == stopped_at
        c.close()
    with LabelStore(db) as store:
        events = [e for e in store.events("multi") if e.action == "label"]
        assert sorted(e.item for e in events) == sorted(acknowledged)


def test_two_reviewers_at_once_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=8, overlap=0.5)
    with LabelStore(db) as store:
        from ereval.labels import ClusterReview

        required = ClusterReview(store, "multi").required()
    doubled = {k for k, v in required.items() if v == 2}
    assert doubled and len(doubled) < len(required)  # the overlap is a part of the items

    with running(db, "--reviewer", "lead") as server:
        seen: dict[str, list[str]] = {"ana": [], "bob": []}
        failures: list[BaseException] = []

        def work(name: str) -> None:
            try:
                c = client(server.url, reviewer=name)
                while True:
                    page = start(c, "multi")
                    item = current_item(page)
                    if item is None:
                        assert "Nothing" in page.text and 'id="reason"' in page.text
                        break
                    # bob disagrees on the doubled records by removing one record
                    # of a predicted cluster with two or more records
                    fields: dict[str, object] = {}
                    if name == "bob" and item in doubled:
                        rows = page.text.count('data-record="')
                        if rows > 1:
                            others = [r for r in _records_on(page.text) if r != item]
                            fields["remove"] = others[:1]
                    res = save(c, "multi", item, page.text, **fields)
                    assert res.status_code == 200, res.text
                    seen[name].append(item)
                c.close()
            except BaseException as exc:  # reported in the main thread
                failures.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in ("ana", "bob")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not failures, failures

        # the agreement page reports the units reviewed twice
        with client(server.url) as c:
            page = c.get("/agreement")
        assert page.status_code == 200 and "Cohen" in page.text

    with LabelStore(db) as store:
        labels = store.labels("multi")
        events = [e for e in store.events("multi") if e.action == "label"]
        agreement = session_agreement(store, "multi")
    # nothing lost: every drawn record has all the reviewers it needs
    assert set(labels) == set(required)
    for item, need in required.items():
        assert len(labels[item]) == need, (item, labels[item])
    # nothing duplicated: one label event per (record, reviewer)
    assert max(Counter((e.item, e.reviewer) for e in events).values()) == 1
    # the overlap records reached both reviewers, the others one of them
    for item in doubled:
        assert set(labels[item]) == {"ana", "bob"}
    assert sorted(seen["ana"] + seen["bob"]) == sorted(
        [k for k in required for _ in range(required[k])]
    )
    assert agreement.units == len(doubled)


def _records_on(html: str) -> list[str]:
    import re

    return re.findall(r'data-record="([^"]+)"', html)


def test_a_second_server_on_the_same_store_is_refused(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=2)
    with running(db):
        res = subprocess.run(
            [sys.executable, "-m", "ereval", "label", "serve", "--db", str(db), "--port", "0"],
            capture_output=True,
            text=True,
            env=env(),
            timeout=60,
        )
    assert res.returncode == 2
    assert "already served by" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_beyond_loopback_a_token_is_generated_and_required(tmp_path: Path) -> None:
    db = make_multi(tmp_path, n=2)
    with running(db, "--host", "0.0.0.0") as server:
        assert server.token and len(server.token) >= 20
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        assert httpx.get(url + "/").status_code == 401
        assert httpx.get(url + "/?token=wrong-token-value").status_code == 401
        ok = httpx.get(url + "/", headers={"Authorization": f"Bearer {server.token}"})
        assert ok.status_code == 200
        c = httpx.Client(base_url=url, follow_redirects=True)
        assert c.get(f"/?token={server.token}").status_code == 200
        assert c.get("/agreement").status_code == 200  # the cookie carries the token now
        c.close()
    assert any("access token (generated)" in line for line in server.lines)
