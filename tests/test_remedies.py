"""Advice never leads to a wrong number: every remedy an error message suggests
(``pass on_mismatch='singletons'``, ``id_type='string'``, ...) is read from the message
itself and applied; the result is the right answer, computed independently, or another
clear error. A remedy that a message starts to suggest without a reference here fails
the test, so that it is checked before it ships."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ereval
from ereval import InputError, InputTypeError, RecordMismatchError
from ereval.cli import app
from ereval.curves import threshold_curve
from ereval.io import IdenticalColumnsWarning
from ereval.metrics import pairwise_scores_from_pairs

REMEDY = re.compile(r"(\w+)='([\w-]+)'")


def _remedies(message: str) -> list[tuple[str, str]]:
    """The ``name='value'`` options a message tells the user to pass."""
    advice = message.split(". Pass ", 1)[-1] if ". Pass " in message else message
    return [(k, v) for k, v in REMEDY.findall(advice) if k not in ("e",)]


def _close(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-12, nan_ok=True), key


def _follow(
    run: Callable[..., Any], expected: dict[tuple[str, str], Callable[[], Any] | None]
) -> list[tuple[str, str]]:
    """Run without a remedy (an error), then with each remedy its message suggests: each
    gives ``expected[remedy]()`` or, where that is ``None``, another clear error."""
    with pytest.raises((InputError, InputTypeError)) as first:
        run()
    suggested = _remedies(str(first.value))
    assert suggested, f"no remedy suggested in: {first.value}"
    for remedy in suggested:
        assert remedy in expected, f"a remedy with no reference: {remedy} in {first.value}"
        want = expected[remedy]
        if want is None:
            with pytest.raises((InputError, InputTypeError)) as again:
                run(**dict([remedy]))
            assert str(again.value) != str(first.value)
            continue
        got = run(**dict([remedy]))
        if isinstance(got, dict):
            _close(got, want())
        else:
            assert got == want()
    return suggested


def _dedupe_like(n: int = 300, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A truth, a prediction, and the same prediction without its singletons (as dedupe
    and many clusterers write it)."""
    rng = np.random.default_rng(seed)
    ids = [f"r{k}" for k in range(n)]
    truth = pd.DataFrame({"record_id": ids, "cluster_id": rng.integers(0, n // 2, n)})
    pred = pd.DataFrame({"record_id": ids, "cluster_id": rng.integers(0, n // 2, n)})
    sizes = pred["cluster_id"].map(pred["cluster_id"].value_counts())
    return truth, pred, pred[sizes > 1]


@pytest.mark.each_engine
def test_a_prediction_short_of_records(tmp_path: Path, engine: str) -> None:
    truth, full, short = _dedupe_like()
    t_path, p_path = tmp_path / "truth.csv", tmp_path / "pred.csv"
    truth.to_csv(t_path, index=False)
    short.to_csv(p_path, index=False)
    common = truth[truth["record_id"].isin(short["record_id"])]

    def run(**remedy: Any) -> dict[str, float]:
        return ereval.evaluate(t_path, p_path, engine=engine, **remedy)

    def twinless() -> dict[str, float]:
        # the CoNLL convention: each side's clusters as given, missing records unmatched
        return ereval.evaluate(truth, short, on_mismatch="twinless", engine="numpy")

    suggested = _follow(
        run,
        {
            ("on_mismatch", "singletons"): lambda: ereval.evaluate(truth, full),
            ("on_mismatch", "intersection"): lambda: ereval.evaluate(common, short),
            ("on_mismatch", "twinless"): twinless,
        },
    )
    assert suggested[0] == ("on_mismatch", "singletons")  # the first suggestion
    # the advice that turned a B-cubed recall into a much lower one is no longer first
    right = ereval.evaluate(truth, full)["b3_recall"]
    assert ereval.evaluate(truth, short, on_mismatch="twinless")["b3_recall"] < right


@pytest.mark.each_engine
def test_a_prediction_with_more_records(tmp_path: Path, engine: str) -> None:
    truth, full, _ = _dedupe_like()
    more = pd.concat([full, pd.DataFrame({"record_id": ["x1", "x2"], "cluster_id": [0, 0]})])
    t_path, p_path = tmp_path / "truth.parquet", tmp_path / "pred.parquet"
    truth.to_parquet(t_path)
    more.to_parquet(p_path)

    def run(**remedy: Any) -> dict[str, float]:
        return ereval.evaluate(t_path, p_path, engine=engine, **remedy)

    suggested = _follow(
        run,
        {
            ("on_mismatch", "intersection"): lambda: ereval.evaluate(truth, full),
            ("on_mismatch", "twinless"): lambda: ereval.evaluate(
                truth, more, on_mismatch="twinless"
            ),
        },
    )
    assert ("on_mismatch", "singletons") not in suggested
    with pytest.raises(RecordMismatchError, match="only in 'pred'"):
        run(on_mismatch="singletons")


@pytest.mark.each_engine
@pytest.mark.parametrize("composite", [False, True])
def test_ids_of_two_kinds(tmp_path: Path, engine: str, composite: bool) -> None:
    rng = np.random.default_rng(3)
    n = 200
    uid = rng.permutation(n)
    src = rng.choice(["census", "acs"], n)
    truth = pd.DataFrame({"source": src, "uid": uid, "cluster_id": rng.integers(0, 60, n)})
    pred = truth.assign(cluster_id=rng.integers(0, 60, n)).sample(frac=1.0, random_state=2)
    key: Any = ["source", "uid"] if composite else "uid"
    if not composite:
        truth, pred = truth.drop(columns="source"), pred.drop(columns="source")
    t_path, p_path = tmp_path / "truth.csv", tmp_path / "pred.parquet"
    truth.to_csv(t_path, index=False)  # text ids, as written
    pred.to_parquet(p_path, index=False)  # integer ids

    def run(**remedy: Any) -> dict[str, float]:
        return ereval.evaluate(t_path, p_path, record_col=key, engine=engine, **remedy)

    def right() -> dict[str, float]:  # the same records, compared as they are meant
        return ereval.evaluate(truth, pred, record_col=key)

    _follow(run, {("id_type", "string"): right})


def test_keys_of_a_different_number_of_columns() -> None:
    truth = pd.DataFrame({"source": ["a", "b"], "uid": ["1", "1"], "cluster_id": [1, 1]})
    same = truth.rename(columns={"cluster_id": "c"})
    # a column of text may hold the JSON text of a key read elsewhere: it is compared
    held = same.assign(key=['["a","1"]', '["b","1"]'])
    opts = {"truth_cluster_col": "cluster_id", "pred_cluster_col": "c"}
    got = ereval.evaluate(
        truth, held, truth_record_col=["source", "uid"], pred_record_col="key", **opts
    )
    assert got == ereval.evaluate(truth, same, record_col=["source", "uid"], **opts)
    pred = same.assign(uid=[1, 1])
    with pytest.raises(InputTypeError, match="name record keys of the same columns") as err:
        ereval.evaluate(
            truth, pred, truth_record_col=["source", "uid"], pred_record_col="uid", **opts
        )
    assert not _remedies(str(err.value))  # no option value fixes it: naming the columns does
    got = ereval.evaluate(truth, pred, record_col=["source", "uid"], id_type="string", **opts)
    assert got == ereval.evaluate(truth, same, record_col=["source", "uid"], **opts)


def test_scored_pairs_naming_records_absent_from_the_truth() -> None:
    truth = {"a": 1, "b": 1, "c": 2}
    pairs = pd.DataFrame(
        {"record_id_1": ["a", "b", "x"], "record_id_2": ["b", "c", "a"], "score": [0.9, 0.5, 0.7]}
    )

    def run(**remedy: Any) -> Any:
        return threshold_curve(truth, pairs, **remedy).frame.to_dict("list")

    _follow(
        run,
        {
            ("on_mismatch", "intersection"): lambda: threshold_curve(
                truth, pairs[pairs["record_id_1"] != "x"]
            ).frame.to_dict("list"),
        },
    )

    def links(**remedy: Any) -> dict[str, float]:
        return pairwise_scores_from_pairs(truth, pairs[["record_id_1", "record_id_2"]], **remedy)

    _follow(
        links,
        {
            ("on_mismatch", "intersection"): lambda: pairwise_scores_from_pairs(
                truth, [("a", "b"), ("b", "c")]
            ),
            # the pair of an unknown record predicted: a false positive
            ("on_mismatch", "twinless"): lambda: {
                "pairwise_precision": 1 / 3,
                "pairwise_recall": 1.0,
                "pairwise_f1": 0.5,
                "pairwise_tp": 1,
                "pairwise_fp": 2,
                "pairwise_fn": 0,
            },
        },
    )


def test_link_only_records_of_the_prediction_only() -> None:
    truth = pd.DataFrame(
        {"record_id": [1, 2, 3, 4], "cluster_id": [1, 1, 2, 2], "src": ["A", "B", "A", "B"]}
    )
    pred = pd.DataFrame({"record_id": [1, 2, 3, 4, 5], "cluster_id": [1, 1, 1, 2, 2]})

    def run(**remedy: Any) -> dict[str, float]:
        options = {"on_mismatch": "twinless", **remedy}
        return ereval.evaluate(truth, pred, link_only=True, source_col="src", **options)

    _follow(
        run,
        {
            ("on_mismatch", "intersection"): lambda: ereval.evaluate(
                truth, pred.iloc[:4], link_only=True, source_col="src"
            )
        },
    )


def test_identical_columns_warning_and_its_remedy() -> None:
    frame = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": [1, 1, 2], "mine": [5, 6, 6]})
    with pytest.warns(IdenticalColumnsWarning, match="pred_cluster_col") as caught:
        ereval.evaluate(frame, frame.copy(), metrics="pairwise")
    assert "pred_cluster_col" in str(caught[0].message)
    got = ereval.evaluate(frame, frame, pred_cluster_col="mine", metrics="pairwise")
    assert got == ereval.evaluate(
        frame, frame[["record_id", "mine"]].rename(columns={"mine": "cluster_id"}),
        metrics="pairwise",
    )  # fmt: skip


def test_cli_remedies_are_the_flags_that_fix_it(tmp_path: Path) -> None:
    truth, full, short = _dedupe_like(n=120, seed=4)
    t_path, p_path = tmp_path / "truth.csv", tmp_path / "pred.csv"
    truth.to_csv(t_path, index=False)
    short.to_csv(p_path, index=False)
    runner = CliRunner()
    first = runner.invoke(app, ["metrics", str(t_path), str(p_path), "-f", "json"])
    assert first.exit_code == 2
    flags = re.findall(r"(--[\w-]+) ([\w-]+)", first.stderr.split(". Pass ", 1)[1])
    assert flags[0] == ("--on-mismatch", "singletons")
    import json

    for flag, value in flags:
        got = runner.invoke(app, ["metrics", str(t_path), str(p_path), "-f", "json", flag, value])
        assert got.exit_code == 0, got.output
        out = json.loads(got.stdout)
        want = ereval.evaluate(truth, short, on_mismatch=value)
        for key, v in want.items():
            assert out[key] == pytest.approx(v, nan_ok=True) or (out[key] is None and v != v)
    assert json.loads(
        runner.invoke(
            app,
            ["metrics", str(t_path), str(p_path), "-f", "json", "--on-mismatch", "singletons"],
        ).stdout
    )["b3_recall"] == pytest.approx(ereval.evaluate(truth, full)["b3_recall"])


def test_engine_remedies() -> None:
    duckdb = pytest.importorskip("duckdb")
    truth, full, _ = _dedupe_like(n=80, seed=7)
    con = duckdb.connect()
    relation = con.from_df(truth)
    want = ereval.evaluate(truth, full)

    def numpy_on_a_relation(**remedy: Any) -> dict[str, float]:
        options = {"engine": "numpy", **remedy}
        return ereval.evaluate(relation, con.from_df(full), **options)

    _follow(
        numpy_on_a_relation,
        {("engine", "duckdb"): lambda: want, ("engine", "auto"): lambda: want},
    )

    def duckdb_on_frames(**remedy: Any) -> dict[str, float]:
        return ereval.evaluate(truth, full, **{"engine": "duckdb", **remedy})

    _follow(duckdb_on_frames, {("engine", "numpy"): lambda: want})


def test_column_remedies(tmp_path: Path) -> None:
    truth, full, _ = _dedupe_like(n=50, seed=8)
    renamed = full.rename(columns={"record_id": "rid", "cluster_id": "cid"}).assign(x=1)
    with pytest.raises(InputError, match="set 'record_col' / 'cluster_col'"):
        ereval.evaluate(truth, renamed)
    got = ereval.evaluate(truth, renamed, pred_record_col="rid", pred_cluster_col="cid")
    _close(got, ereval.evaluate(truth, full))
    pairs = pd.DataFrame({"record_id_1": ["r1"], "record_id_2": ["r2"], "p": [0.5]})
    with pytest.raises(InputError, match="set 'score_col'"):
        threshold_curve(truth, pairs)
    got_curve = threshold_curve(truth, pairs, score_col="p").frame
    assert got_curve["n_accepted"].tolist() == [1]
