"""Labels are never lost and never invented: one regression test per way they were.

Each test names the case it reproduces: undo undone by transitivity, a failed
import that changed the store, an import labelling a pair both ways, the
terminal labeller's loose keys, read-only commands that wrote, reserved reviewer
names, the pairs export read back into the session's estimate, stale answers and
self-adjudication at the store. Every refused command leaves the store file byte
for byte as it was.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._errors import InputError
from ereval.cli import app
from ereval.labels import (
    Item,
    LabelStore,
    PairLabelling,
    StaleAnswer,
    create_item_labelling,
    create_pair_labelling,
    export_labels,
    import_labels,
)

from ._example_data import EXAMPLES

runner = CliRunner()


def _ok(args: list[str], **kwargs: str) -> str:
    result = runner.invoke(app, args, **kwargs)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.stdout


def _refused(args: list[str], *needles: str, **kwargs: str) -> str:
    result = runner.invoke(app, args, **kwargs)  # type: ignore[arg-type]
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for needle in needles:
        assert needle in err, err
    assert "Traceback" not in result.output
    return err


def _files(db: Path) -> dict[str, bytes]:
    """What a store holds: the database file's bytes, and its write-ahead log's when not empty.

    (A read-only reader may leave SQLite's empty ``-wal`` and ``-shm`` files behind;
    they hold nothing.)
    """
    out = {db.name: db.read_bytes()}
    wal = db.with_name(db.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        out[wal.name] = wal.read_bytes()
    return out


# ------------------------------------------------------------------ a tiny pool
def _abcd(folder: Path) -> tuple[Path, Path]:
    """Records a-d and the pool of their six pairs (pair ids ab, ac, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    data, pairs = folder / "records.csv", folder / "pairs.csv"
    pd.DataFrame(
        {"record_id": list("abcd"), "name": ["ann", "anne", "bob", "rob"], "entity_id": "e"}
    ).to_csv(data, index=False)
    rows = [
        {"pair_id": a + b, "record_id_1": a, "record_id_2": b, "score": 0.9 - 0.1 * k,
         "prediction": int(k < 3)}
        for k, (a, b) in enumerate(itertools.combinations("abcd", 2))
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(pairs, index=False)
    return data, pairs


def _session_asking_a_chain(folder: Path) -> tuple[LabelStore, PairLabelling, list[str]]:
    """A pair session answered m, m, n in which the sampler used a label derived from them.

    The seed is searched for (the pool is tiny), so the case holds whatever order
    the sampler asks in.
    """
    data, pairs = _abcd(folder)
    for seed in range(500):
        store = LabelStore(folder / f"l{seed}.db", create=True)
        session = create_pair_labelling(store, "p", data=data, pairs=pairs, budget=10, seed=seed)
        asked = []
        for value in ("match", "match", "non-match"):
            task = session.next(reviewer="ana")
            assert task is not None
            session.label(task.pair_id, value, reviewer="ana")
            asked.append(task.pair_id)
        shared = set(asked[0]) & set(asked[1])
        if shared and session.progress()["implied"] >= 1:
            return store, session, asked
        store.close()
    raise AssertionError("no seed asks two pairs sharing a record first")


def test_undo_withdraws_the_labels_derived_from_the_undone_label(tmp_path: Path) -> None:
    # case 1: m, m, n, then z, z -- the derived labels must follow the human ones
    store, session, (first, _, _) = _session_asking_a_chain(tmp_path)
    progress = session.progress()
    assert progress["labels_used"] == 3 and progress["implied"] >= 1
    before = export_labels(store, "p", kind="pairs").frame
    assert before.derived.sum() == progress["implied"]
    store.undo("p", reviewer="ana")
    store.undo("p", reviewer="ana")
    progress = session.progress()
    assert progress["labels_used"] == 1 and progress["implied"] == 0
    frame = export_labels(store, "p", kind="pairs").frame
    assert frame["pair_id"].tolist() == [first]  # nothing derived from the undone labels
    assert frame["label"].tolist() == [1] and frame["derived"].tolist() == [0]
    assert set(store.labels("p")) == {first}
    # the interval is not the certainty of a complete pool
    assert progress["estimate"]["f_measure"]["interval"] != [1.0, 1.0]
    # redo brings back the human labels, and what they imply with them
    store.redo("p", reviewer="ana")
    store.redo("p", reviewer="ana")
    again = export_labels(store, "p", kind="pairs").frame
    pd.testing.assert_frame_equal(again, before)
    store.close()


def test_derived_labels_of_an_old_store_are_ignored(tmp_path: Path) -> None:
    # a store written before: a label recorded under '(transitivity)' decides nothing
    store, session, (_, second, _) = _session_asking_a_chain(tmp_path)
    store.undo("p", reviewer="ana")
    store.undo("p", reviewer="ana")
    store._conn.execute(  # what the old version wrote, straight into the log
        "INSERT INTO events (session_id, reviewer, time, action, item, payload, shown, version, "
        "target, source) VALUES (1, '(transitivity)', 't', 'label', ?, '{\"value\": \"match\"}', "
        "'{}', 'old', NULL, 'transitivity')",
        (second,),
    )
    assert second not in session.resolution().resolved
    assert session.progress()["labels_used"] == 1
    store.close()


# ------------------------------------------------------------------ imports
@pytest.fixture
def pair_db(tmp_path: Path) -> Iterator[Path]:
    data, pairs = _abcd(tmp_path / "data")
    db = tmp_path / "labels.db"
    with LabelStore(db, create=True) as store:
        create_pair_labelling(store, "p", data=data, pairs=pairs, budget=4, seed=1)
    yield db


def test_a_failed_import_leaves_the_store_byte_for_byte(pair_db: Path, tmp_path: Path) -> None:
    # case 6: an empty reviewer name used to add the items before refusing
    sheet = tmp_path / "labels.csv"
    pd.DataFrame({"pair_id": ["ab", "cd", "bd"], "label": [1, 0, 1]}).to_csv(sheet, index=False)
    before = _files(pair_db)
    _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs",
              "--reviewer", ""], "'--reviewer'")  # fmt: skip
    assert _files(pair_db) == before
    # a bad row further down: nothing of the rows before it is written
    pd.DataFrame({"pair_id": ["ab", "cd", "zz"], "label": [1, 0, 1]}).to_csv(sheet, index=False)
    _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"], "'zz'")
    assert _files(pair_db) == before
    pd.DataFrame({"pair_id": ["ab", "cd"], "label": [1, "maybe"]}).to_csv(sheet, index=False)
    _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"], "maybe")
    assert _files(pair_db) == before
    # the good file goes in at once
    pd.DataFrame({"pair_id": ["ab", "cd"], "label": [1, 0]}).to_csv(sheet, index=False)
    _ok(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"])
    with LabelStore(pair_db) as store:
        assert store.labels("p") == {"ab": {"import": "match"}, "cd": {"import": "non-match"}}


def test_an_import_labelling_one_pair_both_ways_is_refused(pair_db: Path, tmp_path: Path) -> None:
    # case 7: the later row used to win
    sheet = tmp_path / "labels.csv"
    pd.DataFrame({"pair_id": ["ab", "cd", "ab"], "label": [1, 0, 0]}).to_csv(sheet, index=False)
    before = _files(pair_db)
    err = _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"],
                   "'ab'", "rows 1 and 3")  # fmt: skip
    assert "match" in err and "non-match" in err
    assert _files(pair_db) == before
    # the same pair in Splink's format, written in both orders of its records
    splink = tmp_path / "splink.csv"
    pd.DataFrame(
        {"unique_id_l": ["a", "b"], "unique_id_r": ["b", "a"], "clerical_match_score": [1, 0]}
    ).to_csv(splink, index=False)
    _refused(["label", "import", "--db", str(pair_db), str(splink), "--kind", "splink"],
             "'ab'", "rows 1 and 2")  # fmt: skip
    assert _files(pair_db) == before
    # a pair written twice with the same label is one label
    pd.DataFrame({"pair_id": ["ab", "ab"], "label": [1, 1]}).to_csv(sheet, index=False)
    _ok(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"])
    with LabelStore(pair_db) as store:
        assert len(store.events("p")) == 1


def test_a_benchmark_or_sheet_placing_a_record_twice_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    records, pred = str(EXAMPLES / "records.csv"), str(EXAMPLES / "pred_good.csv")
    _ok(["label", "init", "--db", str(db), "--data", records, "--pred", pred, "--n", "4",
         "--seed", "1"])  # fmt: skip
    with LabelStore(db) as store:
        drawn = store.items("main")[0].key
    sheet = tmp_path / "sheet.csv"
    pd.DataFrame(
        {"sampled_record": [drawn, drawn], "record_id": ["acs-00001", "acs-00001"],
         "action": ["add", "remove"]}
    ).to_csv(sheet, index=False)  # fmt: skip
    before = _files(db)
    _refused(["label", "import", "--db", str(db), str(sheet), "--kind", "spreadsheet"],
             "'acs-00001'", "rows 1 and 2")  # fmt: skip
    bench = tmp_path / "bench.csv"
    pd.DataFrame({"record_id": [drawn, drawn], "cluster_id": ["x", "y"]}).to_csv(bench, index=False)
    _refused(["label", "import", "--db", str(db), str(bench), "--kind", "benchmark"],
             repr(drawn), "rows 1 and 2")  # fmt: skip
    assert _files(db) == before


# ------------------------------------------------------------------ the terminal
def test_the_terminal_labeller_takes_exactly_one_answer_key(pair_db: Path) -> None:
    # case 8: 'mm', 'maybe', 'no way', 'yes' used to become labels or a redo
    out = _ok(["label", "pairs", "--db", str(pair_db), "--reviewer", "ana", "-f", "json"],
              input="mm\nmaybe\nno way\nyes\nM\n \nq\n")  # fmt: skip
    for typed in ("mm", "maybe", "no way", "yes"):
        assert f"not an answer: {typed!r}" in out
    with LabelStore(pair_db) as store:
        events = store.events("p")
        assert [(e.action, e.value) for e in events] == [("label", "match")]  # the 'M'


# ------------------------------------------------------------------ read-only
def test_status_and_export_write_nothing(pair_db: Path, tmp_path: Path) -> None:
    # case 9: status used to add the first asked pair to a fresh pairs session
    before = _files(pair_db)
    _ok(["label", "status", "--db", str(pair_db), "-f", "json"])
    _ok(["label", "export", "--db", str(pair_db), "--kind", "pairs", "-o",
         str(tmp_path / "x.csv")])  # fmt: skip
    assert _files(pair_db) == before
    with LabelStore(pair_db) as store:
        assert store.items("p") == []


def test_an_empty_file_is_not_turned_into_a_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    _refused(["label", "status", "--db", str(empty)], "empty", "not a label store")
    _refused(["label", "export", "--db", str(empty), "--kind", "pairs", "-o",
              str(tmp_path / "x.csv")], "empty")  # fmt: skip
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_a_read_only_store_is_read_and_said_to_be_read_only(pair_db: Path, tmp_path: Path) -> None:
    os.chmod(pair_db, 0o444)
    try:
        if os.access(pair_db, os.W_OK):  # e.g. root: permissions are not enforced
            pytest.skip("permissions are not enforced for this user")
        before = _files(pair_db)
        status = json.loads(_ok(["label", "status", "--db", str(pair_db), "-f", "json"]))
        assert status["sessions"][0]["session"] == "p"
        sheet = tmp_path / "labels.csv"
        pd.DataFrame({"pair_id": ["ab"], "label": [1]}).to_csv(sheet, index=False)
        _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs"],
                 "read-only")  # fmt: skip
        assert _files(pair_db) == before
    finally:
        os.chmod(pair_db, 0o644)


def test_a_store_opened_read_only_refuses_every_write(pair_db: Path) -> None:
    from ereval.labels._connection import sqlite_error

    before = _files(pair_db)
    with LabelStore(pair_db, readonly=True) as store:
        for write in (
            lambda: store.add_items("p", [Item("ab", 0, {})]),
            lambda: store.undo("p", reviewer="ana"),
            lambda: store.next_item("p", reviewer="ana"),
            lambda: store.create_session("q", kind="pairs", config={}),
        ):
            with pytest.raises(InputError, match="read-only"):
                write()
        assert store.sessions()[0].name == "p"
    assert _files(pair_db) == before
    # what SQLite says about a file without write permission reads as such
    err = sqlite_error(
        str(pair_db), sqlite3.OperationalError("attempt to write a readonly database")
    )
    assert "is read-only" in str(err) and "not a label store" not in str(err)


def test_a_locked_store_is_said_to_be_locked(pair_db: Path) -> None:
    holder = sqlite3.connect(pair_db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer: a command that writes waits, then says so
    try:
        with pytest.raises(InputError, match="locked by another process"):
            LabelStore(pair_db, timeout=0.2)
        with LabelStore(pair_db, readonly=True, timeout=0.2) as store:  # readers go on (WAL)
            assert store.labels("p") == {}
    finally:
        holder.execute("ROLLBACK")
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")  # a process keeping the file to itself
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta VALUES ('x', 'y')")
    try:
        with pytest.raises(InputError, match="locked by another process"):
            LabelStore(pair_db, readonly=True, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# ------------------------------------------------------------------ reviewer names
@pytest.mark.parametrize("name", ["(transitivity)", "(import)", " (x) ", "(adjudicated)"])
def test_reserved_reviewer_names_are_refused(pair_db: Path, name: str, tmp_path: Path) -> None:
    # case 11
    with LabelStore(pair_db) as store:
        store.add_items("p", [Item("ab", 0, {})])
        with pytest.raises(InputError, match="reserved"):
            store.label("p", "ab", "match", reviewer=name)
        with pytest.raises(InputError, match="reserved"):
            store.next_item("p", reviewer=name)
    before = _files(pair_db)
    _refused(["label", "pairs", "--db", str(pair_db), "--reviewer", name], "reserved",
             input="m\n")  # fmt: skip
    sheet = tmp_path / "labels.csv"
    pd.DataFrame({"pair_id": ["ab"], "label": [1]}).to_csv(sheet, index=False)
    _refused(["label", "import", "--db", str(pair_db), str(sheet), "--kind", "pairs",
              "--reviewer", name], "reserved")  # fmt: skip
    assert _files(pair_db) == before


# ------------------------------------------------------------------ stale answers
def test_an_answer_to_an_older_version_of_an_item_is_refused(pair_db: Path) -> None:
    # case 3 at the store: two tabs on one pair; the stale one writes nothing
    with LabelStore(pair_db) as store:
        store.add_items("p", [Item("ab", 0, {})])
        seen = store.item_version("p", "ab", reviewer="ana")
        store.label("p", "ab", "non-match", reviewer="ana", expected_version=seen)  # tab A
        count = len(store.events("p"))
        with pytest.raises(StaleAnswer) as caught:  # tab B, opened before A answered
            store.label("p", "ab", "match", reviewer="ana", expected_version=seen)
        assert caught.value.current == "non-match" and caught.value.given == "match"
        assert len(store.events("p")) == count
        # another reviewer's label is not a change of ana's item ...
        mine = store.item_version("p", "ab", reviewer="ana")
        store.label("p", "ab", "match", reviewer="bob")
        assert store.item_version("p", "ab", reviewer="ana") == mine
        # ... but an undo of ana's answer is
        store.undo("p", reviewer="ana")
        assert store.item_version("p", "ab", reviewer="ana") != mine
        with pytest.raises(StaleAnswer) as caught:
            store.label("p", "ab", "match", reviewer="ana", expected_version=mine)
        assert caught.value.current is None


def test_nobody_adjudicates_a_dispute_they_are_part_of(pair_db: Path) -> None:
    with LabelStore(pair_db) as store:
        store.add_items("p", [Item("ab", 0, {})])
        store.label("p", "ab", "match", reviewer="ana")
        store.label("p", "ab", "non-match", reviewer="bob")
        for party in ("ana", "bob"):
            with pytest.raises(InputError, match="part of"):
                store.adjudicate("p", "ab", "match", reviewer=party)
        store.adjudicate("p", "ab", "match", reviewer="lead")
        assert store.adjudications("p") == {"ab": ("lead", "match")}


# ------------------------------------------------------------------ claims
def test_claims_say_who_holds_what_and_are_given_back(pair_db: Path) -> None:
    with LabelStore(pair_db) as store:
        store.add_items("p", [Item(k, i, {}) for i, k in enumerate(["ab", "cd"])])
        got = store.next_item("p", reviewer="ana")
        assert got is not None
        assert store.held("p") == {got.key: ["ana"]}
        assert store.claimed("p", reviewer="ana") == [got.key]
        store.release_claims("p", reviewer="ana", item=got.key)
        assert store.held("p") == {}


# ------------------------------------------------------------------ the pairs path
@pytest.fixture(scope="module")
def labelled_example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A pair session on the example's pool, 30 labels from its label column."""
    folder = tmp_path_factory.mktemp("example-pairs")
    pool = folder / "pairs.csv"
    shutil.copyfile(EXAMPLES / "pairs.csv", pool)
    db = folder / "labels.db"
    truth = pd.read_csv(pool, dtype={"pair_id": str})
    label = dict(zip(truth.pair_id, truth.label, strict=True))
    with LabelStore(db, create=True) as store:
        session = create_pair_labelling(
            store, "p", data=EXAMPLES / "records.csv", pairs=pool, budget=30, seed=5
        )
        while (task := session.next(reviewer="ana")) is not None:
            session.label(task.pair_id, "match" if label[task.pair_id] else "non-match",
                          reviewer="ana")  # fmt: skip
        shown = session.progress()["estimate"]
    return db, pool, shown


def test_the_pairs_export_reads_back_into_the_sessions_estimate(
    labelled_example: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    # case 12: the export used to be scored as if it were the whole pool (std 0)
    db, pool, shown = labelled_example
    out = tmp_path / "labels.csv"
    _ok(["label", "export", "--db", str(db), "--kind", "pairs", "-o", str(out)])
    _refused(["oasis", "estimate", str(out), "--label-col", "label", "--budget", "20"],
             "'POOL'", "--labels")  # fmt: skip
    got = json.loads(_ok(["oasis", "estimate", str(pool), "--labels", str(out), "-f", "json"]))
    for measure in ("f_measure", "precision", "recall"):
        assert got[measure]["value"] == pytest.approx(shown[measure]["value"], abs=0, rel=1e-12)
        assert got[measure]["std"] == pytest.approx(shown[measure]["std"], rel=1e-12)
        assert got[measure]["interval"] == pytest.approx(shown[measure]["interval"], rel=1e-12)
    assert got["labels_used"] == 30 and got["f_measure"]["std"] > 0


def test_an_export_that_does_not_fit_the_pool_is_refused(
    labelled_example: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    db, pool, _ = labelled_example
    out = tmp_path / "labels.csv"
    _ok(["label", "export", "--db", str(db), "--kind", "pairs", "-o", str(out)])
    frame = pd.read_csv(out, dtype={"pair_id": str})
    # another pool (one pair fewer)
    other = tmp_path / "other.csv"
    pd.read_csv(pool).iloc[:-1].to_csv(other, index=False)
    _refused(["oasis", "estimate", str(other), "--labels", str(out)], "'--labels'", "pool")
    # a label changed by hand: the sampler would have asked another pair next
    changed = frame.copy()
    changed.loc[0, "label"] = 1 - changed.loc[0, "label"]
    bad = tmp_path / "bad.csv"
    changed.to_csv(bad, index=False)
    _refused(["oasis", "estimate", str(pool), "--labels", str(bad)], "'--labels'")
    # rows left out
    short = tmp_path / "short.csv"
    frame.drop(index=3).to_csv(short, index=False)
    _refused(["oasis", "estimate", str(pool), "--labels", str(short)], "'--labels'")
    # the sampler is the session's: its options cannot be given again
    _refused(["oasis", "estimate", str(pool), "--labels", str(out), "--seed", "3"], "'--seed'")
    _refused(["oasis", "estimate", str(pool), "--labels", str(out), "--budget", "3"], "'--budget'")


def test_ranked_item_export_and_import_refuse_conflicts(tmp_path: Path) -> None:
    ranked = tmp_path / "ranked.csv"
    pd.DataFrame({"pair_id": [f"q{k}" for k in range(50)]}).to_csv(ranked, index=False)
    db = tmp_path / "l.db"
    with LabelStore(db, create=True) as store:
        create_item_labelling(store, "i", ranked=ranked, epsilon=0.3, delta=3)
        first = store.items("i")[0].key
    sheet = tmp_path / "labels.csv"
    pd.DataFrame({"pair_id": [first, first], "label": [1, 0]}).to_csv(sheet, index=False)
    before = _files(db)
    with LabelStore(db) as store, pytest.raises(InputError, match="rows 1 and 2"):
        import_labels(store, "i", sheet, kind="paula")
    assert _files(db) == before


# ------------------------------------------------------------------ every refusal
@pytest.fixture(scope="module")
def full_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A store with a cluster review, a pair session and ranked items, all with labels."""
    folder = tmp_path_factory.mktemp("refusals")
    data, pairs = _abcd(folder / "abcd")
    records, pred = str(EXAMPLES / "records.csv"), str(EXAMPLES / "pred_good.csv")
    db = folder / "labels.db"
    _ok(["label", "init", "--db", str(db), "--data", records, "--pred", pred, "--n", "3",
         "--seed", "1"])  # fmt: skip
    _ok(["label", "init", "--db", str(db), "--kind", "pairs", "--session", "p", "--data",
         str(data), "--pairs", str(pairs), "--budget", "3", "--seed", "1"])  # fmt: skip
    _ok(["label", "init", "--db", str(db), "--kind", "items", "--session", "i", "--ranked",
         str(pairs), "--data", str(data), "--epsilon", "0.5", "--delta", "2"])  # fmt: skip
    _ok(["label", "pairs", "--db", str(db), "--session", "p", "--reviewer", "ana"],
        input="m\nn\nq\n")  # fmt: skip
    with LabelStore(db) as store:
        from ereval.labels import open_session

        review = open_session(store, "main")
        review.save(store.items("main")[0].key, reviewer="ana")  # type: ignore[union-attr]
    return db, data, pairs


def test_every_refused_command_leaves_the_store_byte_for_byte(
    full_store: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    db, data, pairs = full_store
    records, pred = str(EXAMPLES / "records.csv"), str(EXAMPLES / "pred_good.csv")
    sheet = tmp_path / "sheet.csv"
    pd.DataFrame({"pair_id": ["ab", "ab"], "label": [1, 0]}).to_csv(sheet, index=False)
    link = tmp_path / "same.csv"
    os.link(db, link)
    x = tmp_path / "x.csv"
    init = f"label init --db {db} --session x --data {records} --pred {pred}"
    imp = f"label import --db {db} {sheet}"
    refused = [  # (command, what its one-line error names); paths hold no spaces
        (f"label init --db {db} --data {records} --pred {pred}", "'--session'"),
        (f"{init} --search-col nope", "'--search-col'"),
        (f"{init} --hide-col nope", "'--hide-col'"),
        (
            f"label init --db {db} --session x --kind items --ranked {pairs} --data {data} "
            "--left-col nope",
            "'--left-col'",
        ),
        (f"label status --db {db} --session nope", "nope"),
        (f"label export --db {db} --kind splink -o {x}", "'--session' is needed"),
        (f"label export --db {db} --session main --kind splink -o {x}", "'--kind'"),
        (
            f"label export --db {db} --session main --kind benchmark --design cluster -o {x}",
            "'--design'",
        ),
        (f"label export --db {db} --session main --kind benchmark -o {link}", "'--out'"),
        (f"{imp} --session p --kind pairs", "rows 1 and 2"),
        (f"{imp} --session i --kind paula", "item 'ab' is labelled two ways"),
        (f"{imp} --session i --kind pairs", "'--kind'"),
        (f"{imp} --session p --kind pairs --reviewer (import)", "reserved"),
        (f"label pairs --db {db} --session main --reviewer ana", "not pair labelling"),
        (f"label serve --db {db} --port 70000", "'--port'"),
        (f"label serve --db {db} --token short", "'--token'"),
    ]
    for command, needle in refused:
        before = _files(db)
        _refused(command.split(), needle, input="m\n")
        assert _files(db) == before, command
    before = _files(db)
    _refused(["label", "pairs", "--db", str(db), "--session", "p", "--reviewer", " "],
             "'--reviewer'", input="m\n")  # fmt: skip
    assert _files(db) == before
