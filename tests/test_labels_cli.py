"""``ereval label``: init, status, export, import and the terminal mode for pairs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.labels import LabelStore, open_session

from ._example_data import EXAMPLES

runner = CliRunner()
RECORDS, PRED, PAIRS = (str(EXAMPLES / n) for n in ("records.csv", "pred_good.csv", "pairs.csv"))


def _ok(args: list[str], **kwargs: str) -> str:
    result = runner.invoke(app, args, **kwargs)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.stdout


def _refused(args: list[str], flag: str) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and flag in err, err
    assert "Traceback" not in result.output
    return err


def test_cluster_review_from_the_command_line_to_estimate(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    out = _ok(
        ["label", "init", "--db", db, "--data", RECORDS, "--pred", PRED, "--n", "15",
         "--seed", "3", "--search-col", "first_name", "--search-col", "last_name", "-f", "json"]
    )  # fmt: skip
    assert json.loads(out)["items"] > 0
    truth = pd.read_csv(EXAMPLES / "truth.csv", dtype=str)
    cluster = dict(zip(truth.record_id, truth.cluster_id, strict=True))
    with LabelStore(db) as store:
        review = open_session(store, "main")
        for item in store.items("main"):
            pred = set(review.predicted_cluster(item.key))  # type: ignore[union-attr]
            true = {r for r, c in cluster.items() if c == cluster[item.key]}
            tags = ["merged"] * bool(pred - true) + ["split"] * bool(true - pred)
            review.save(item.key, reviewer="ana", remove=pred - true, add=true - pred, tags=tags)  # type: ignore[union-attr]
    status = json.loads(_ok(["label", "status", "--db", db, "-f", "json"]))
    (main,) = status["sessions"]
    assert main["progress"]["done"] and main["reviewers"] == {"ana": main["items"]}
    sample = str(tmp_path / "sample.csv")
    _ok(["label", "export", "--db", db, "--kind", "benchmark", "-o", sample])
    est = json.loads(
        _ok(["estimate", "--pred", PRED, "--sample", sample, "--design", "record", "-f", "json"])
    )
    from ereval.estimators import estimate

    expected = estimate(pd.read_csv(PRED), pd.read_csv(sample), design="record")
    assert est["pairwise_precision"]["value"] == pytest.approx(expected["pairwise_precision"].value)
    # the reviewers' error tags come with the benchmark, for the error analysis
    command = ["analyze", "--pred", PRED, "--sample", sample, "--design", "record"]
    freqs = json.loads(_ok([*command, "--tags", "tags", "--among", "all", "-f", "json"]))
    assert freqs
    # the sheet exported and imported into a new session gives the same benchmark
    sheet = str(tmp_path / "sheet.csv")
    _ok(["label", "export", "--db", db, "--kind", "spreadsheet", "-o", sheet])
    _ok(["label", "init", "--db", db, "--session", "b", "--data", RECORDS, "--pred", PRED,
         "--n", "15", "--seed", "3"])  # fmt: skip
    _ok(["label", "import", "--db", db, sheet, "--session", "b", "--kind", "spreadsheet"])
    again = str(tmp_path / "again.csv")
    _ok(["label", "export", "--db", db, "--session", "b", "--kind", "benchmark", "-o", again])
    pd.testing.assert_frame_equal(pd.read_csv(sample), pd.read_csv(again))


def test_terminal_pair_labelling_with_undo_and_redo(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    _ok(["label", "init", "--db", db, "--kind", "pairs", "--session", "p", "--data", RECORDS,
         "--pairs", PAIRS, "--budget", "3", "--seed", "1", "--show-col", "first_name",
         "--reveal"])  # fmt: skip
    out = _ok(
        ["label", "pairs", "--db", db, "--reviewer", "ana", "-f", "json"],
        input="m\nz\ny\nn\nx\nu\n",
    )
    assert "[m] match" in out and "model: score" in out and "not an answer: 'x'" in out
    summary = json.loads(out[out.rindex("{") :])
    assert summary["labelled_now"] == 3 and summary["reviewer"] == "ana"
    with LabelStore(db) as store:
        actions = [(e.action, e.value) for e in store.events("p")]
        assert actions[:3] == [("label", "match"), ("undo", None), ("redo", None)]
        assert [v for a, v in actions[3:]] == ["non-match", "unsure"]
    # the unsure pair waits for an adjudicator; q and end of input leave cleanly
    out = _ok(["label", "pairs", "--db", db, "--reviewer", "ana"], input="q\n")
    assert "waiting" in out
    status = json.loads(_ok(["label", "status", "--db", db, "-f", "json"]))
    assert status["sessions"][0]["progress"]["queue"] == 1


def test_bad_input_gives_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    _refused(["label", "init", "--db", db, "--data", PRED, "--pred", PRED,
              "--id-col", "rid"], "'--id-col'")  # fmt: skip
    _refused(["label", "init", "--db", db, "--data", RECORDS], "'--pred'")
    _refused(["label", "init", "--db", db, "--data", RECORDS, "--pred", PRED,
              "--overlap", "2"], "'--overlap'")  # fmt: skip
    _ok(["label", "init", "--db", db, "--data", RECORDS, "--pred", PRED, "--n", "3"])
    _refused(["label", "init", "--db", db, "--data", RECORDS, "--pred", PRED], "'--session'")
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sampled_record,record_id,action\nnot-drawn,acs-00001,add\n")
    _refused(["label", "import", "--db", db, str(sheet), "--kind", "spreadsheet"], "not-drawn")
    _refused(["label", "export", "--db", db, "--kind", "splink", "-o", str(tmp_path / "s.csv")],
             "'--kind'")  # fmt: skip
    _refused(["label", "export", "--db", db, "--kind", "benchmark", "--design", "cluster",
              "-o", str(tmp_path / "s.csv")], "'--design'")  # fmt: skip
    assert not (tmp_path / "s.csv").exists()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    _refused(["label", "status", "--db", db], "newer than this version")
    _refused(["label", "status", "--db", str(tmp_path / "none.db")], "does not exist")


def test_exports_are_read_by_oasis_and_paula(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    _ok(["label", "init", "--db", db, "--kind", "pairs", "--session", "p", "--data", RECORDS,
         "--pairs", PAIRS, "--budget", "12", "--seed", "2"])  # fmt: skip
    pairs = pd.read_csv(PAIRS, dtype={"pair_id": str})
    truth = dict(zip(pairs.pair_id, pairs.label, strict=True))
    with LabelStore(db) as store:
        labelling = open_session(store, "p")
        while (task := labelling.next(reviewer="ana")) is not None:  # type: ignore[union-attr]
            labelling.label(task.pair_id, "match" if truth[task.pair_id] else "non-match",  # type: ignore[union-attr]
                            reviewer="ana")  # fmt: skip
    out = str(tmp_path / "labels.csv")
    _ok(["label", "export", "--db", db, "--kind", "pairs", "-o", out])
    est = json.loads(_ok(["oasis", "estimate", PAIRS, "--labels", out, "-f", "json"]))
    assert est["labels_used"] == 12
    ranked = str(tmp_path / "ranked.csv")
    pd.DataFrame({"pair_id": [f"q{k}" for k in range(300)]}).to_csv(ranked, index=False)
    _ok(["label", "init", "--db", db, "--kind", "items", "--session", "i", "--ranked", ranked,
         "--epsilon", "0.2", "--delta", "3"])  # fmt: skip
    with LabelStore(db) as store:
        items = open_session(store, "i")
        for item in store.items("i"):
            items.label(item.key, "match" if item.position < 100 else "non-match", reviewer="ana")  # type: ignore[union-attr, arg-type]
    labels = str(tmp_path / "paula.csv")
    _ok(["label", "export", "--db", db, "--session", "i", "--kind", "paula", "-o", labels])
    bounds = json.loads(_ok(["paula", "bounds", ranked, labels, "--epsilon", "0.2", "--delta",
                             "3", "--at", "50", "-f", "json"]))  # fmt: skip
    assert json.dumps(bounds)  # read without complaint
    status = json.loads(_ok(["label", "status", "--db", db, "--session", "i", "-f", "json"]))
    assert status["sessions"][0]["progress"]["done"]


def test_a_failed_init_leaves_no_store_behind(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    err = _refused(["label", "init", "--db", str(db), "--data", RECORDS, "--pred", PRED,
                    "--search-col", "nope"], "'--search-col'")  # fmt: skip
    assert "not a column" in err
    _refused(["label", "init", "--db", str(db), "--kind", "pairs", "--data", RECORDS,
              "--pairs", PAIRS, "--pair-col", "nope"], "'--pair-col'")  # fmt: skip
    _refused(["label", "init", "--db", str(db), "--data", RECORDS, "--pred", PRED,
              "--n", "0"], "'--n'")  # fmt: skip
    assert list(tmp_path.iterdir()) == []
