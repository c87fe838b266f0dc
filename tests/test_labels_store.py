"""The label store: append-only log, undo/redo, schema versions, lease, crash and concurrency."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval._errors import InputError
from ereval.labels import Item, LabelStore
from ereval.labels._schema import SCHEMA_VERSION, migrate

from ._example_data import IMPORT_ROOT

SRC = str(IMPORT_ROOT)


def _store(path: Path, n_items: int = 5) -> LabelStore:
    store = LabelStore(path / "l.db", create=True)
    store.create_session("s", kind="pairs", config={"seed": 0})
    store.add_items("s", [Item(f"i{k}", k, {}) for k in range(n_items)])
    return store


def test_labels_are_a_view_of_an_append_only_log(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.label("s", "i0", "match", reviewer="ana", shown={"left": "x"})
    store.label("s", "i1", "non-match", reviewer="ana")
    store.label("s", "i0", "non-match", reviewer="ana")  # a correction supersedes
    store.label("s", "i0", "match", reviewer="bob")
    assert store.labels("s") == {
        "i0": {"ana": "non-match", "bob": "match"},
        "i1": {"ana": "non-match"},
    }
    events = store.events("s")
    assert [e.action for e in events] == ["label"] * 4
    assert events[0].value == "match" and events[0].shown == {"left": "x"}  # kept, not erased
    assert events[0].version and events[0].time.endswith("+00:00")
    # undo goes back to the corrected label, twice to nothing; redo comes back
    undo = store.undo("s", reviewer="ana")
    assert undo is not None and undo.target == events[2].id
    assert store.labels("s", reviewer="ana") == {"i0": {"ana": "match"}, "i1": {"ana": "non-match"}}
    store.undo("s", reviewer="ana")
    store.undo("s", reviewer="ana")
    assert store.labels("s", reviewer="ana") == {}
    assert store.undo("s", reviewer="ana") is None  # nothing left: no event written
    store.redo("s", reviewer="ana")
    assert store.labels("s", reviewer="ana") == {"i0": {"ana": "match"}}
    assert store.labels("s", reviewer="bob") == {"i0": {"bob": "match"}}  # untouched
    assert len(store.events("s")) == 8
    # the log refuses updates and deletions
    conn = sqlite3.connect(store.path)
    for sql in ("UPDATE events SET reviewer = 'eve'", "DELETE FROM events"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql)
    conn.close()


def test_a_label_for_an_item_not_in_the_session_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(InputError, match="'item' 'nope' is not an item of session 's'"):
        store.label("s", "nope", "match", reviewer="ana")
    with pytest.raises(InputError, match="is not an item"):  # imports are all or nothing
        store.import_labels("s", [("i0", "match"), ("nope", "match")], reviewer="x", source="f")
    with pytest.raises(InputError, match="'session' 'other' is not in label store"):
        store.label("other", "i0", "match", reviewer="ana")
    with pytest.raises(InputError, match="'reviewer' must be a non-empty name"):
        store.label("s", "i0", "match", reviewer=" ")
    assert store.events("s") == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("label"), st.integers(0, 3), st.sampled_from(["m", "n", "u"])),
            st.tuples(st.just("undo"), st.just(0), st.just("")),
            st.tuples(st.just("redo"), st.just(0), st.just("")),
        ),
        max_size=25,
    )
)
def test_undo_redo_matches_a_list_of_states(actions: list[tuple[str, int, str]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        store = _store(Path(folder), n_items=4)
        # the model: the list of every state the labels went through, and a cursor
        states: list[dict[str, str]] = [{}]
        cursor = 0
        for action, k, value in actions:
            if action == "label":
                store.label("s", f"i{k}", value, reviewer="ana")
                states = [*states[: cursor + 1], {**states[cursor], f"i{k}": value}]
                cursor += 1
            elif action == "undo":
                store.undo("s", reviewer="ana")
                cursor = max(0, cursor - 1)
            else:
                store.redo("s", reviewer="ana")
                cursor = min(len(states) - 1, cursor + 1)
            got = {item: v["ana"] for item, v in store.labels("s").items()}
            assert got == states[cursor]
            assert store.can_undo("s", reviewer="ana") == (cursor > 0)
            assert store.can_redo("s", reviewer="ana") == (cursor < len(states) - 1)
        store.close()


def test_an_older_schema_is_migrated_and_a_newer_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path=str(path), upto=1)  # a store written by the first schema
    conn.execute(
        "INSERT INTO sessions (name, kind, config, created_at) VALUES ('s', 'pairs', '{}', 't')"
    )
    conn.execute("INSERT INTO items VALUES (1, 'i0', 0, '{}')")
    conn.execute(
        "INSERT INTO events (session_id, reviewer, time, action, item, payload, shown, version) "
        "VALUES (1, 'ana', 't', 'label', 'i0', '{\"value\": \"match\"}', '{}', '0.0.1')"
    )
    conn.close()
    store = LabelStore(path)
    assert store.migrated_from == 1 and store.schema_version == SCHEMA_VERSION
    assert store.labels("s") == {"i0": {"ana": "match"}}
    assert store.events("s")[0].source is None
    store.label("s", "i0", "non-match", reviewer="ana", source="sheet.csv")
    assert store.events("s")[-1].source == "sheet.csv"
    store.close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(InputError, match=r"newer than this version of ereval reads"):
        LabelStore(path)
    (tmp_path / "junk.db").write_text("not a database at all, just text" * 10)
    with pytest.raises(InputError, match="is not a label store"):
        LabelStore(tmp_path / "junk.db")
    with pytest.raises(InputError, match="does not exist"):
        LabelStore(tmp_path / "missing.db")


def test_server_lease(tmp_path: Path) -> None:
    store = _store(tmp_path)
    other = LabelStore(store.path)
    lease = store.acquire_server(owner="server A", ttl=60)
    with pytest.raises(InputError, match=r"already served by server A \(pid \d+"):
        other.acquire_server(owner="server B")
    lease.heartbeat()
    lease.release()
    second = other.acquire_server(owner="server B", ttl=60)
    assert store.server() is not None and store.server()["owner"] == "server B"  # type: ignore[index]
    # a lease whose heartbeat is stale is taken over; the old holder learns it
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE lease SET heartbeat = heartbeat - 120")
    conn.commit()
    conn.close()
    third = store.acquire_server(owner="server C", ttl=60)
    with pytest.raises(InputError, match="taken over"):
        second.heartbeat()
    third.release()
    # a lease left by a process that died is taken over at once
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)
    conn = sqlite3.connect(store.path)
    conn.execute(
        "INSERT INTO lease VALUES (1, 'crashed', ?, ?, 'tok', 't', ?)",
        (socket.gethostname(), pid, time.time()),
    )
    conn.commit()
    conn.close()
    with store.acquire_server(owner="server D", ttl=60):
        pass
    assert store.server() is None


_WORKER = textwrap.dedent(
    """
    import sys
    from ereval.labels import LabelStore
    path, reviewer, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = LabelStore(path)
    done = 0
    while done < limit:
        item = store.next_item("s", reviewer=reviewer, default_required=1)
        if item is None:
            break
        store.label("s", item.key, "match", reviewer=reviewer)
        print(item.key, flush=True)
        done += 1
    """
)


def _worker(path: str, reviewer: str, limit: int = 10**6) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER, path, reviewer, str(limit)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_processes_label_at_once_nothing_lost_or_duplicated(tmp_path: Path) -> None:
    store = _store(tmp_path, n_items=80)
    procs = [_worker(store.path, "ana"), _worker(store.path, "bob")]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outputs]
    acked = [line.split() for out, _ in outputs for line in out.splitlines()]
    keys = [k[0] for k in acked]
    assert sorted(keys) == sorted(f"i{k}" for k in range(80))  # each item once, none lost
    labels = store.labels("s")
    assert len(labels) == 80 and all(len(v) == 1 for v in labels.values())
    assert len(store.events("s")) == 80


def test_kill_9_keeps_every_acknowledged_label_and_resumes(tmp_path: Path) -> None:
    store = _store(tmp_path, n_items=400)
    proc = _worker(store.path, "ana")
    assert proc.stdout is not None
    acked = [proc.stdout.readline().strip() for _ in range(25)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    if proc.stderr is not None:
        proc.stderr.close()
    labels = store.labels("s")
    assert set(acked) <= set(labels)  # every acknowledged label is there
    assert len(store.events("s")) == len(labels)  # and nothing half-written
    # the session resumes at the first item without a label (the one in hand when killed)
    first_open = next(f"i{k}" for k in range(400) if f"i{k}" not in labels)
    nxt = store.next_item("s", reviewer="ana")
    assert nxt is not None and nxt.key == first_open
    store.close()
    check = LabelStore(tmp_path / "l.db")
    assert sqlite3.connect(check.path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_items_needing_two_reviewers_reach_both(tmp_path: Path) -> None:
    store = _store(tmp_path, n_items=3)
    need = {"i0": 2, "i1": 1, "i2": 2}
    a = store.next_item("s", reviewer="ana", required=need)
    b = store.next_item("s", reviewer="bob", required=need)
    assert a is not None and b is not None and a.key == b.key == "i0"
    store.label("s", "i0", "match", reviewer="ana")
    a = store.next_item("s", reviewer="ana", required=need)
    assert a is not None and a.key == "i1"
    b = store.next_item("s", reviewer="bob", required=need)  # i0 still claimed by bob
    assert b is not None and b.key == "i0"
    store.label("s", "i0", "match", reviewer="bob")
    b = store.next_item("s", reviewer="bob", required=need)
    assert b is not None and b.key == "i2"  # i1 is ana's


def test_threads_sharing_one_store_take_turns(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = _store(tmp_path, n_items=60)

    def work(reviewer: str) -> int:
        done = 0
        while (item := store.next_item("s", reviewer=reviewer)) is not None:
            store.label("s", item.key, "match", reviewer=reviewer)
            store.labels("s")
            done += 1
        return done

    with ThreadPoolExecutor(4) as pool:
        counts = list(pool.map(work, ["a", "b", "c", "d"]))
    assert sum(counts) == 60 and len(store.labels("s")) == 60
    assert len(store.events("s")) == 60
