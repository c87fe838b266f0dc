"""Ids are read exactly, the same way by every reader, input form and engine."""

from __future__ import annotations

import datetime
import gzip
import json
import math
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval import InputError, InputTypeError, RecordMismatchError, as_membership, evaluate
from ereval.cli import app
from ereval.contingency import contingency_table
from ereval.engines import DuckDBEngine
from ereval.io import IdenticalColumnsWarning, encode
from ereval.io import _text_keys as text_keys
from ereval.io import _words as words_module
from ereval.io._ids import union
from ereval.metrics import pairwise_scores_from_pairs
from ereval.statistics import compute_table

from ._spies import noting

runner = CliRunner()

# (truth csv body, pred csv body, expected pairwise F1, expected number of records,
#  expected true clusters, expected predicted clusters), each written as text
SPELLINGS: list[tuple[str, str, str, float, int, int, int]] = [
    # cluster ids 01, 1 and 001 are three clusters; predicted cluster ids are labels only
    # (no true pair: recall 0/0 and F1 undefined)
    ("leading zeros in cluster ids", "a,01\nb,1\nc,001\n", "a,x\nb,x\nc,x\n", math.nan, 3, 3, 1),
    # record ids 1 and 01 are two records
    ("leading zeros in record ids", "1,a\n01,a\n", "1,p\n01,p\n", 1.0, 2, 1, 1),
    # surrounding spaces are part of the id
    ("spaces kept", "a,k\n b,k\n", "a,x\n b,x\n", 1.0, 2, 1, 1),
    # quotes are CSV syntax, not part of the id
    ("quoted ids", '"a",k\n"b,c",k\n', 'a,x\n"b,c",x\n', 1.0, 2, 1, 1),
    # ids that look like missing values in other tools are ordinary text
    ("NA and null are text", "NA,k\nnull,k\nNaN,j\n", "NA,x\nnull,x\nNaN,y\n", 1.0, 3, 2, 2),
    # numbers with exponents, signs and decimals stay text
    (
        "number-like text",
        "1e3,k\n1000,k\n+1,j\n1.0,j\n",
        "1e3,x\n1000,y\n+1,z\n1.0,z\n",
        2 / 3,  # P = 1/1, R = 1/2
        4,
        2,
        3,
    ),
    # unicode is kept byte for byte (composed vs decomposed e-acute are two ids)
    ("unicode", "caf\u00e9,k\ncafe\u0301,j\n", "caf\u00e9,x\ncafe\u0301,y\n", math.nan, 2, 2, 2),
]


def _csv(tmp: Path, name: str, body: str) -> Path:
    path = tmp / name
    path.write_text("record_id,cluster_id\n" + body, encoding="utf-8")
    return path


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("case", SPELLINGS, ids=[c[0] for c in SPELLINGS])
def test_every_reader_and_engine_reads_the_spellings_alike(
    tmp_path: Path, case: tuple[str, str, str, float, int, int, int]
) -> None:
    _, t_body, p_body, f1, n, k, r = case
    t_csv, p_csv = _csv(tmp_path, "t.csv", t_body), _csv(tmp_path, "p.csv", p_body)
    # the same data as text in every other form a user may hold it in
    t_frame = pd.read_csv(t_csv, dtype=str, keep_default_na=False)
    p_frame = pd.read_csv(p_csv, dtype=str, keep_default_na=False)
    t_gz = tmp_path / "t.csv.gz"
    t_gz.write_bytes(gzip.compress(t_csv.read_bytes()))
    t_pq, p_pq = tmp_path / "t.parquet", tmp_path / "p.parquet"
    pq.write_table(pa.Table.from_pandas(t_frame, preserve_index=False), t_pq)
    pq.write_table(pa.Table.from_pandas(p_frame, preserve_index=False), p_pq)
    forms: dict[str, tuple[Any, Any]] = {
        "csv": (t_csv, p_csv),
        "csv.gz": (t_gz, p_csv),
        "parquet": (t_pq, p_pq),
        "pandas": (t_frame, p_frame),
        "polars": (pl.from_pandas(t_frame), pl.from_pandas(p_frame)),
        "arrow": (pa.Table.from_pandas(t_frame), pa.Table.from_pandas(p_frame)),
        "dict": (
            dict(zip(t_frame.record_id, t_frame.cluster_id, strict=True)),
            dict(zip(p_frame.record_id, p_frame.cluster_id, strict=True)),
        ),
    }
    results = {}
    for form, (t, p) in forms.items():
        tab = contingency_table(t, p)
        results[form] = (evaluate(tab), tab.n_records, tab.n_true_clusters, tab.n_pred_clusters)
    for form, (t, p) in {"duckdb csv": (t_csv, p_csv), "duckdb parquet": (t_pq, p_pq)}.items():
        tab = compute_table(DuckDBEngine(), t, p)
        results[form] = (evaluate(tab), tab.n_records, tab.n_true_clusters, tab.n_pred_clusters)
    for form, (scores, n_rec, n_true, n_pred) in results.items():
        assert (n_rec, n_true, n_pred) == (n, k, r), form
        assert _same(scores["pairwise_f1"], f1), form
        reference = results["csv"][0]
        assert all(_same(scores[m], reference[m]) for m in reference), form  # bit for bit
    out = runner.invoke(app, ["metrics", str(t_csv), str(p_csv), "-f", "json"])
    out_duck = runner.invoke(
        app, ["metrics", str(t_csv), str(p_csv), "-f", "json", "--engine", "duckdb"]
    )
    assert out.exit_code == 0 and out_duck.exit_code == 0, out.output + out_duck.output
    assert out.stdout == out_duck.stdout


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_byte_order_mark_and_crlf_lines_are_csv_syntax(tmp_path: Path, engine: str) -> None:
    # as spreadsheet programs write UTF-8 CSV: a byte-order mark before the header
    # (it once made the DuckDB engine look for a column '\ufeffrecord_id') and CRLF
    t, p = tmp_path / "t.csv", tmp_path / "p.csv"
    t.write_bytes("\ufeffrecord_id,cluster_id\r\na,1\r\nb,1\r\nc,2\r\n".encode())
    p.write_bytes(b"record_id,cluster_id\nc,x\nb,y\na,y\n")
    plain = tmp_path / "plain.csv"
    plain.write_text("record_id,cluster_id\na,1\nb,1\nc,2\n", encoding="utf-8")
    out = runner.invoke(app, ["metrics", str(t), str(p), "-f", "json", "--engine", engine])
    reference = runner.invoke(app, ["metrics", str(plain), str(p), "-f", "json"])
    assert out.exit_code == 0, out.output
    assert out.stdout == reference.stdout
    assert json.loads(out.stdout)["pairwise_f1"] == 1.0


def test_text_ids_do_not_match_zero_padded_ones(tmp_path: Path) -> None:
    t = _csv(tmp_path, "t.csv", "1,a\n2,a\n3,b\n")
    p = _csv(tmp_path, "p.csv", "01,a\n02,a\n03,b\n")
    with pytest.raises(RecordMismatchError, match=r"3 record\(s\) only in 'truth'"):
        evaluate(t, p)
    with pytest.raises(RecordMismatchError, match=r"3 record\(s\) only in 'truth'"):
        compute_table(DuckDBEngine(), t, p)


def test_a_text_prediction_against_a_numeric_truth(tmp_path: Path) -> None:
    # all-numeric text on one side and 'x' on the other are all text in CSV files: the
    # four common records match and 'x' is the prediction's only twinless record
    t = _csv(tmp_path, "t.csv", "1,a\n2,a\n3,b\n4,b\n")
    p = _csv(tmp_path, "p.csv", "1,a\n2,a\n3,b\n4,b\nx,c\n")
    scores = evaluate(t, p, on_mismatch="intersection")
    assert scores["pairwise_f1"] == 1.0
    assert contingency_table(t, p, on_mismatch="intersection").n_records == 4
    assert compute_table(DuckDBEngine(), t, p, on_mismatch="intersection").n_records == 4
    twinless = contingency_table(t, p, on_mismatch="twinless")
    assert (twinless.n_records, twinless.n_common) == (5, 4)


def test_typed_columns_keep_their_type_and_kinds_must_agree(tmp_path: Path) -> None:
    ints = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": [1, 1, 2]})
    text = pd.DataFrame({"record_id": ["1", "2", "3"], "cluster_id": ["a", "a", "b"]})
    assert as_membership(ints).record_ids.dtype.kind == "i"
    msg = r"record ids of 'truth' are integer \(e\.g\. 1, 2\) but those of 'pred' are text"
    with pytest.raises(InputTypeError, match=msg + r".*id_type='string'"):
        evaluate(ints, text)
    # the option that casts integers to their decimal text
    assert evaluate(ints, text, id_type="string")["pairwise_f1"] == 1.0
    t_pq = tmp_path / "t.parquet"
    ints.to_parquet(t_pq, index=False)
    p_csv = _csv(tmp_path, "p.csv", "1,a\n2,a\n3,b\n")
    with pytest.raises(InputTypeError, match=msg):
        compute_table(DuckDBEngine(), t_pq, p_csv)
    assert (
        evaluate(compute_table(DuckDBEngine(), t_pq, p_csv, id_type="string"))["pairwise_f1"] == 1
    )
    result = runner.invoke(app, ["metrics", str(t_pq), str(p_csv)])
    assert result.exit_code == 2
    assert "--id-type string" in result.stderr and "Traceback" not in result.output
    ok = runner.invoke(app, ["metrics", str(t_pq), str(p_csv), "--id-type", "string"])
    assert ok.exit_code == 0, ok.output


def test_mixed_python_ids_are_distinct() -> None:
    scores = evaluate({1: "a", "1": "a", 2: "b"}, {1: "x", "1": "y", 2: "y"})
    assert scores["pairwise_precision"] == 0.0  # 1 and '1' are two records


def test_per_side_columns_and_identical_columns(tmp_path: Path) -> None:
    truth = pd.DataFrame({"unique_id": ["r1", "r2", "r3"], "simulant_id": ["s1", "s1", "s2"]})
    linked = truth.assign(cluster_id=["c1", "c2", "c2"])
    scores = evaluate(
        truth, linked, record_col="unique_id", truth_cluster_col="simulant_id"
    )  # pred's own cluster_id
    assert scores["pairwise_recall"] == 0.0 and scores["pairwise_precision"] == 0.0
    with pytest.warns(IdenticalColumnsWarning, match="'simulant_id'"):
        same = evaluate(truth, linked, record_col="unique_id", cluster_col="simulant_id")
    assert same["pairwise_f1"] == 1.0
    t_csv, p_csv = tmp_path / "t.csv", tmp_path / "p.csv"
    truth.to_csv(t_csv, index=False)
    linked.to_csv(p_csv, index=False)
    cli = ["metrics", str(t_csv), str(p_csv), "--record-col", "unique_id", "-f", "json"]
    warned = runner.invoke(app, [*cli, "--cluster-col", "simulant_id"])
    assert warned.exit_code == 0 and "the prediction is the truth itself" in warned.stderr
    right = runner.invoke(app, [*cli, "--truth-cluster-col", "simulant_id"])
    assert right.exit_code == 0 and '"pairwise_recall": 0.0' in right.stdout


def test_keys_of_several_columns(tmp_path: Path) -> None:
    truth = pd.DataFrame(
        {"source": ["a", "a", "b", "b"], "uid": [1, 2, 1, 2], "entity": [1, 2, 1, 3]}
    )
    pred = truth.assign(cluster=[7, 8, 7, 8])
    key = ["source", "uid"]
    scores = evaluate(
        truth, pred, record_col=key, truth_cluster_col="entity", pred_cluster_col="cluster"
    )
    # true pairs: {(a,1),(b,1)}; predicted: {(a,1),(b,1)}, {(a,2),(b,2)}
    assert scores["pairwise_precision"] == 0.5 and scores["pairwise_recall"] == 1.0
    m = as_membership(truth, record_col=key, cluster_col="entity")
    assert m.records.tolist() == ['["a",1]', '["a",2]', '["b",1]', '["b",2]']
    t_csv, p_pq = tmp_path / "t.csv", tmp_path / "p.parquet"
    truth.to_csv(t_csv, index=False)
    pred.astype({"uid": str}).to_parquet(p_pq, index=False)
    opts: dict[str, Any] = {
        "record_col": key,
        "truth_cluster_col": "entity",
        "pred_cluster_col": "cluster",
    }
    assert evaluate(t_csv, p_pq, **opts) == scores
    assert evaluate(compute_table(DuckDBEngine(), t_csv, p_pq, **opts)) == scores
    cli = runner.invoke(
        app,
        [
            "metrics",
            str(t_csv),
            str(p_pq),
            "--record-col",
            "source,uid",
            "--truth-cluster-col",
            "entity",
            "--pred-cluster-col",
            "cluster",
            "-f",
            "json",
        ],
    )
    assert cli.exit_code == 0, cli.output
    assert '"pairwise_precision": 0.5' in cli.stdout


def test_missing_and_empty_ids_are_errors(tmp_path: Path) -> None:
    t = _csv(tmp_path, "t.csv", "a,k\n,k\n")
    ok = _csv(tmp_path, "ok.csv", "a,k\nb,k\n")
    with pytest.raises(InputError, match="'truth' has 1 missing record ids"):
        evaluate(t, ok)
    with pytest.raises(InputError, match="'truth' has 1 missing record ids"):
        compute_table(DuckDBEngine(), t, ok)
    with pytest.raises(InputError, match="missing record ids"):
        evaluate({"a": 1, "": 1}, {"a": 1, "": 1})


def test_pairs_are_read_by_column_name(tmp_path: Path) -> None:
    t = _csv(tmp_path, "t.csv", "1,a\n2,a\n3,b\n")
    with pytest.raises(InputError, match="looks like a clustering"):
        pairwise_scores_from_pairs(t, t)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("l,r\n1,2\n2,3\n")
    s = pairwise_scores_from_pairs(t, pairs, left_col="l", right_col="r")
    assert (s["pairwise_precision"], s["pairwise_recall"]) == (0.5, 1.0)
    cli = runner.invoke(app, ["metrics", str(t), str(t), "--pairs"])
    assert cli.exit_code == 2 and "looks like a clustering" in cli.stderr


def test_encoder_matches_a_brute_force_on_text_and_integers() -> None:
    rng = np.random.default_rng(3)
    words = np.array([f"w{v}" for v in rng.integers(0, 50, 500)], dtype=object)
    for values in (
        pa.array(words.tolist()),
        rng.integers(-(10**12), 10**12, 300),
        rng.integers(0, 40, 300),
    ):
        codes, uniques = encode(values)
        plain = values.to_pylist() if isinstance(values, pa.Array) else values.tolist()
        labels = uniques.to_pylist() if isinstance(uniques, pa.Array) else uniques.tolist()
        assert [labels[c] for c in codes] == plain
        used = sorted(set(plain))
        assert [x for x in labels if x in set(plain)] == used  # codes in sorted id order
    a, b = pa.array(["x", "y", "z"]), pa.array(["z", "w"])
    ids, pa_, pb = union(a, b)
    assert [ids[i].as_py() for i in pa_] == ["x", "y", "z"]
    assert [ids[i].as_py() for i in pb] == ["z", "w"] and len(ids) == 4


def test_no_warning_for_the_same_file_twice(tmp_path: Path) -> None:
    t = _csv(tmp_path, "t.csv", "a,k\nb,k\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(t, t)["pairwise_f1"] == 1.0


def test_integer_ids_dense_together_but_not_alone() -> None:
    # each side alone spans more than 4x its size + 1024, the two together do not
    t = {int(v): int(v) % 7 for v in range(0, 6000, 6)}
    p = {int(v): int(v) % 5 for v in range(3, 6000, 6)}
    p.update({0: 0, 6: 0})
    tab = contingency_table(t, p, on_mismatch="twinless")
    assert (tab.n_true_records, tab.n_pred_records, tab.n_common) == (1000, 1002, 2)
    with pytest.raises(InputError, match="'pred' has 1 duplicate"):
        contingency_table(t, _with_duplicate(p), on_mismatch="twinless")


def _with_duplicate(p: dict[int, int]) -> pd.DataFrame:
    frame = pd.DataFrame({"record_id": list(p), "cluster_id": list(p.values())})
    return pd.concat([frame, frame.iloc[:1]], ignore_index=True)


def _arrow_reference(arrays: list[pa.Array]) -> list[int]:
    encoded = pa.chunked_array(arrays).dictionary_encode()
    return [int(i) for chunk in encoded.chunks for i in chunk.indices.to_numpy()]


@pytest.mark.parametrize("width", [6, 13, 40])
def test_large_text_columns_code_like_arrow(width: int) -> None:
    # above MIN_IDS the ids are laid out in words (exact up to 8 bytes, hashed beyond)
    rng = np.random.default_rng(width)
    n = text_keys.MIN_IDS + 1000
    pool = [f"{v:0{width}d}"[-width:] for v in rng.integers(0, 10**12, 30_000)]
    a = pa.array([pool[i] for i in rng.integers(0, len(pool), n)])
    b = pa.array([pool[i] for i in rng.integers(0, len(pool), n // 2)] + ["x" * width, "é"])
    fast = text_keys.text_codes([a, b[:-1]])
    assert fast is not None
    codes, first = fast
    # first-appearance codes are unique: the same partition as Arrow's dictionary encoding
    assert codes.tolist() == _arrow_reference([a, b[:-1]])
    both = a.to_pylist() + b[:-1].to_pylist()
    assert [both[i] for i in first] == list(dict.fromkeys(both))
    assert text_keys.text_codes([a, b]) is None  # non-ASCII text goes to Arrow
    ids, _, pos_b = union(a, b)
    assert [ids[i].as_py() for i in pos_b[-3:]] == b.to_pylist()[-3:]


def test_a_hash_collision_falls_back_to_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    n = text_keys.MIN_IDS + 10
    a = pa.array([f"record-{i:07d}" for i in range(n)])
    monkeypatch.setattr(text_keys, "word_hashes", lambda words: np.zeros(words.shape[0], np.uint64))
    assert text_keys.text_codes([a]) is None  # every id collides: the check catches it
    codes, uniques = encode(a, sort=False)
    assert len(uniques) == n and codes.tolist() == list(range(n))


@pytest.mark.parametrize("width", [7, 12])
def test_the_same_large_set_in_another_order(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(words_module, "CHUNK", 7919)  # several chunks of words
    rng = np.random.default_rng(width)
    n = text_keys.MIN_IDS + 5
    ids = [f"id{v:0{width}d}"[-width:] for v in rng.permutation(10**6)[:n]]
    a = pa.array(ids)
    order = rng.permutation(n)
    b = a.take(pa.array(order))
    where = text_keys.same_set_positions(a, b)
    assert where is not None and where.tolist() == order.tolist()
    other = pa.array([*ids[:-1], "z" * width])
    assert text_keys.same_set_positions(a, other) is None  # one id differs
    repeated = pa.array(ids[:-1] + ids[:1])
    assert text_keys.same_set_positions(repeated, repeated.take(pa.array(order))) is None
    # the alignment through this path equals the general one, record for record
    truth = pd.DataFrame({"record_id": ids, "cluster_id": rng.integers(0, 9000, n)})
    pred = truth.iloc[order].assign(cluster_id=rng.integers(0, 9000, n))
    fast = contingency_table(truth, pred)
    general = contingency_table(truth.astype({"record_id": object}), pred)
    assert evaluate(fast) == evaluate(general)
    with pytest.raises(InputError, match="'truth' has 1 duplicate record ids"):
        contingency_table(pd.DataFrame({"record_id": repeated, "cluster_id": 1}), pred)


def test_sets_of_other_bytes_are_told_apart_before_hashing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two columns of as many text ids whose bytes add up to other totals cannot hold
    the same set: refused from their offsets, before any id is laid out or hashed;
    of the same total, the ids are compared (an id of one length for another)."""
    n = text_keys.MIN_IDS + 5
    a = pa.array([f"rec-{v}" for v in range(n)])
    b = pa.array([f"rec-{v}" for v in range(1, n + 1)])  # one id a digit longer
    with monkeypatch.context() as never:
        never.setattr(text_keys, "word_width", lambda *args, **kw: 1 / 0)
        assert text_keys.same_set_positions(a, b) is None
    same_bytes = pa.array([f"rec-{v}" for v in range(n - 2)] + ["rec-x", "rec-yyy"])
    other = pa.array([f"rec-{v}" for v in range(n - 2)] + ["rec-xy", "rec-yy"])
    assert text_keys._text_bytes(same_bytes) == text_keys._text_bytes(other)
    assert text_keys.same_set_positions(same_bytes, other) is None


@pytest.mark.parametrize("kind", ["text", "hashed text", "integers"])
def test_sides_of_other_ids_are_told_apart_before_sorting(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two columns of as many ids, as many bytes in all, each holding ids the other
    lacks: their keys add up to other totals, so they are refused before any key is
    sorted. With the totals made equal, the sort and the comparison still refuse them;
    the same set in another order is still matched."""
    rng = np.random.default_rng(3)
    n = text_keys.MIN_IDS + 7
    values = rng.permutation(10**6)[: n + 1]
    if kind == "integers":
        ids: Any = values.astype(np.int64) * 2**40  # too sparse to be placed by value
        a, b, same = ids[:n], ids[1:], rng.permutation(ids[:n])
        refuse = text_keys.same_int_set_positions
    else:
        width = 7 if kind == "text" else 13
        strings = [f"{v:0{width}d}" for v in values]
        a, b, same = pa.array(strings[:n]), pa.array(strings[1:]), pa.array(strings[:n][::-1])
        refuse = text_keys.same_set_positions
    real_order = text_keys.key_order
    with monkeypatch.context() as never:
        never.setattr(text_keys, "key_order", lambda *args, **kw: 1 / 0)
        assert refuse(a, b) is None
    monkeypatch.setattr(text_keys, "_total", lambda values: 0)
    monkeypatch.setattr(text_keys, "_word_sums", lambda column: None)
    assert refuse(a, b) is None
    sorted_keys: list[int] = []

    def spy(*args: Any, **kw: Any) -> Any:
        sorted_keys.append(1)
        return real_order(*args, **kw)

    monkeypatch.setattr(text_keys, "key_order", spy)
    assert refuse(a, b) is None and sorted_keys
    assert refuse(a, same) is not None


@pytest.mark.parametrize("width", [8, 13, 16, 21, 36])
def test_sides_of_ids_of_one_length_are_told_apart_before_hashing(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two columns of as many ids of one length, each holding ids the other lacks, are
    refused from their word sums, before any id is hashed; the same ids in another
    order, in another string layout or as a slice, are still matched."""
    rng = np.random.default_rng(width)
    n = text_keys.MIN_IDS + 5
    strings = [f"{v:0{width}d}" for v in rng.permutation(10**7)[: n + 1]]
    a, b = pa.array(strings[:n]), pa.array(strings[1:])
    same = pa.array(strings[:n][::-1], type=pa.large_string())
    with monkeypatch.context() as never:
        never.setattr(text_keys, "_chunked_keys", lambda *args: 1 / 0)
        assert text_keys.same_set_positions(a, b) is None
        # ids of one length against ids of several, as many bytes in all
        mixed = pa.array([strings[0][:-1], strings[1] + "x", *strings[2:n]])
        assert text_keys.same_set_positions(a, mixed) is None
    where = text_keys.same_set_positions(a, same)
    assert where is not None and where.tolist() == list(range(n))[::-1]
    sliced = pa.array(["x" * width, *strings[:n]]).slice(1)
    assert text_keys.same_set_positions(sliced, same) is not None


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda width: st.lists(
            st.text(
                st.characters(min_codepoint=1, max_codepoint=127), min_size=width, max_size=width
            ),
            min_size=1,
            max_size=30,
        )
    ),
    st.randoms(use_true_random=False),
    st.data(),
)
def test_word_sums_are_those_of_any_order_and_see_every_byte(
    ids: list[str], rnd: Any, data: Any
) -> None:
    """The word sums of ids of one length are the same for any order of them, differ
    when any one byte of any id changes, and are ``None`` for ids under 8 bytes or of
    several lengths."""
    width = len(ids[0])
    got = text_keys._word_sums(pa.array(ids))
    if width < 8:
        assert got is None
        return
    shuffled = ids[:]
    rnd.shuffle(shuffled)
    assert text_keys._word_sums(pa.array(shuffled, type=pa.large_string())) == got
    k = data.draw(st.integers(0, len(ids) - 1))
    at = data.draw(st.integers(0, width - 1))
    byte = data.draw(st.integers(1, 127).filter(lambda c: c != ord(ids[k][at])))
    changed = ids[:]
    changed[k] = ids[k][:at] + chr(byte) + ids[k][at + 1 :]
    assert text_keys._word_sums(pa.array(changed)) != got
    assert text_keys._word_sums(pa.array([*ids, ids[0] + "x"])) is None


def test_matched_ids_are_compared_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two ids of one key (a hash collision, forced here by keying on the first 8 bytes
    only) are never taken for one id: the sides hold the same keys but not the same
    ids, and the fast path gives way to the general one."""
    n = text_keys.MIN_IDS + 3
    ids = [f"{i:08d}-suffix" for i in range(n)]
    monkeypatch.setattr(text_keys, "word_hashes", lambda words: words[:, 0].copy())
    a = pa.array(ids)
    b = pa.array(ids[::-1], type=pa.large_string())  # another string layout, same ids
    where = text_keys.same_set_positions(a, b)
    assert where is not None and where.tolist() == list(range(n))[::-1]
    collided = pa.array([*ids[:-1], ids[-1][:8] + "-SUFFIX"])  # same first 8 bytes
    assert text_keys.same_set_positions(a, collided) is None
    # a slice reads its own bytes; non-ASCII text and NUL bytes leave the layout
    assert text_keys.same_set_positions(a.slice(2), b.slice(0, n - 2)) is not None
    for odd in ("é-suffix", "\0-suffix"):
        assert text_keys.same_set_positions(pa.array([*ids[:-1], odd]), a) is None


def test_a_repeated_record_is_found_whatever_the_other_side_holds() -> None:
    # as many distinct ids over both sides as truth has rows: still a repeat in truth
    truth = pd.DataFrame({"record_id": ["a", "a", "b"], "cluster_id": [1, 1, 2]})
    pred = pd.DataFrame({"record_id": ["a", "b", "c"], "cluster_id": [1, 1, 2]})
    with pytest.raises(InputError, match=r"'truth' has 1 duplicate record ids \(e\.g\. 'a'\)"):
        contingency_table(truth, pred, on_mismatch="twinless")


def test_keys_of_several_columns_in_estimate_and_simulate(tmp_path: Path) -> None:
    from ereval.estimators import as_sample, estimate

    # a link job: records are keyed by (source, uid); uids repeat across sources
    pred = pd.DataFrame(
        {
            "source": ["a", "a", "a", "b", "b", "b"],
            "uid": ["1", "2", "3", "1", "2", "3"],
            "cluster_id": ["x", "x", "y", "x", "y", "y"],
        }
    )
    sample = pred.iloc[[0, 1, 3]].assign(cluster_id="t1")  # one true cluster of 3 records
    key = ["source", "uid"]
    s = as_sample(sample, design="single_block", record_col=key)
    with pytest.warns(UserWarning, match="cannot be estimated from one block"):
        est = estimate(pred, s, record_col=key, metrics="pairwise_recall")["pairwise_recall"]
    assert est.value == 1.0  # its 3 pairs are all predicted (all in 'x')
    p_csv, s_csv = tmp_path / "pred.csv", tmp_path / "sample.csv"
    pred.to_csv(p_csv, index=False)
    sample.to_csv(s_csv, index=False)
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(p_csv),
            "--sample",
            str(s_csv),
            "--design",
            "single-block",
            "--record-col",
            "source,uid",
            "-m",
            "pairwise_recall",
            "-f",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert '"value": 1.0' in res.stdout
    truth_csv = tmp_path / "truth.csv"
    pred.rename(columns={"cluster_id": "entity"}).to_csv(truth_csv, index=False)
    sim = runner.invoke(
        app,
        [
            "simulate",
            "--truth",
            str(truth_csv),
            "--pred",
            str(p_csv),
            "--record-col",
            "source,uid",
            "--cluster-col",
            "cluster_id",
            "-n",
            "4",
            "-r",
            "3",
            "--seed",
            "1",
        ],
    )
    assert sim.exit_code == 2 and "no column(s) 'cluster_id'" in sim.stderr
    pred.to_csv(truth_csv, index=False)
    ok = runner.invoke(
        app,
        [
            "simulate",
            "--truth",
            str(truth_csv),
            "--pred",
            str(p_csv),
            "--record-col",
            "source,uid",
            "-n",
            "4",
            "-r",
            "3",
            "--seed",
            "1",
            "-f",
            "csv",
        ],
    )
    assert ok.exit_code == 0, ok.output


def test_pairs_in_a_multiindex_as_recordlinkage_gives_them() -> None:
    from ereval.curves import threshold_curve

    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    index = pd.MultiIndex.from_tuples([("a", "b"), ("b", "c"), ("c", "d")], names=["l", "r"])
    s = pairwise_scores_from_pairs(truth, index)
    # TP = (a,b), (c,d); 3 predicted pairs, 2 true pairs
    assert (s["pairwise_precision"], s["pairwise_recall"]) == (2 / 3, 1.0)
    scores = pd.Series([0.9, 0.2, 0.8], index=index, name="prob")  # ecm.prob(...) output
    curve = threshold_curve(truth, scores, score_col="prob")
    top = curve.frame[curve.frame.threshold == 0.8].iloc[0]
    assert (top.links_tp, top.links_fp) == (2, 0)
    with pytest.raises(InputError, match="needs 2 levels"):
        pairwise_scores_from_pairs(truth, pd.MultiIndex.from_tuples([("a", "b", "c")]))


def test_pairs_give_their_counts_and_no_pair_is_not_an_error(tmp_path: Path) -> None:
    truth = {"a": 1, "b": 1, "c": 1, "d": 2}
    s = pairwise_scores_from_pairs(truth, [("a", "b"), ("c", "d")])
    # true pairs: ab, ac, bc (3); predicted: ab (true), cd (false)
    assert (s["pairwise_tp"], s["pairwise_fp"], s["pairwise_fn"]) == (1, 1, 2)
    empty = pairwise_scores_from_pairs(
        truth, pd.DataFrame({"record_id_1": pd.Series([], dtype=str), "record_id_2": []})
    )
    assert math.isnan(empty["pairwise_precision"]) and empty["pairwise_recall"] == 0.0
    assert (empty["pairwise_tp"], empty["pairwise_fp"], empty["pairwise_fn"]) == (0, 0, 3)
    t_csv, p_csv = tmp_path / "t.csv", tmp_path / "p.csv"
    pd.DataFrame({"record_id": list(truth), "cluster_id": list(truth.values())}).to_csv(
        t_csv, index=False
    )
    p_csv.write_text("record_id_1,record_id_2\n")
    out = runner.invoke(app, ["metrics", str(t_csv), str(p_csv), "--pairs", "-f", "json"])
    assert out.exit_code == 0, out.output
    assert '"pairwise_precision": null' in out.stdout and '"pairwise_fn": 3' in out.stdout


def test_evaluate_pairs_scores_predicted_pairs_and_evaluate_refuses_them() -> None:
    from ereval import InputTypeError, as_pairs, evaluate_pairs

    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    pairs = as_pairs([("a", "b"), ("b", "c")])
    with pytest.raises(InputTypeError, match=r"^'pred' must be a clustering; .*evaluate_pairs"):
        evaluate(truth, pairs)
    got = evaluate_pairs(truth, pairs, metrics="pairwise")
    # links: ab true, bc false; 2 true pairs (ab, cd): P = R = 1/2
    assert (got["links_tp"], got["links_fp"], got["links_fn"]) == (1, 1, 1)
    assert got["links_precision"] == 0.5 and got["links_recall"] == 0.5
    # components {a, b, c}, {d}: 3 predicted pairs, 1 of them true
    assert got["pairwise_precision"] == 1 / 3 and got["pairwise_recall"] == 0.5
    index = pd.MultiIndex.from_tuples([("a", "b"), ("b", "c")])
    assert evaluate_pairs(truth, index, metrics="pairwise") == got
    with pytest.raises(InputTypeError, match="evaluate_pairs"):
        evaluate(truth, index)
    with pytest.raises(InputError, match="'on_mismatch'"):
        evaluate_pairs(truth, index, on_mismatch="twinless")


def test_a_missing_score_column_lists_the_file_columns(tmp_path: Path) -> None:
    from ereval.curves import threshold_curve

    pairs = tmp_path / "pairs.csv"
    pairs.write_text("record_id_1,record_id_2,weight\na,b,0.5\n")
    with pytest.raises(InputError, match=r"no score column 'score'.*'weight'"):
        threshold_curve({"a": 1, "b": 1}, pairs, score_col="score")


def test_large_sparse_integers_sorted_in_two_threads() -> None:
    """From ``MIN_SIZE`` ids the two sides are sorted at once: the same positions, and a
    repeat on either side still refused."""
    from ereval._threads import MIN_SIZE

    rng = np.random.default_rng(11)
    n = MIN_SIZE + 1
    a = np.unique(rng.integers(-(2**62), 2**62, size=2 * n))[:n]
    a = rng.permutation(a)
    order = rng.permutation(n)
    where = text_keys.same_int_set_positions(a, a[order])
    assert where is not None and where.tolist() == order.tolist()
    for side in (0, 1):
        repeated = a.copy()
        repeated[-1] = repeated[0]
        pair = (repeated, a[order]) if side == 0 else (a, repeated[order])
        assert text_keys.same_int_set_positions(*pair) is None


@pytest.mark.parametrize(
    ("low", "dtype"),
    [(2**40, "int64"), (-(2**40), "int64"), (-(2**63), "int64"), (2**64 - 2**41, "uint64")],
)
def test_sparse_integers_within_a_narrow_span(low: int, dtype: str) -> None:
    """Ids that differ only in their low bits (within 2^40 of one value, negative, at
    either end of their type): spread over the top bits before they are sorted, so
    that the sort's packed keys tie nowhere; the same positions, a differing or
    repeated id still refused."""
    rng = np.random.default_rng(5)
    n = 70_000  # both sides sorted in two threads
    offsets = rng.choice(2**40, size=n, replace=False).astype(np.uint64)
    a = (
        (np.uint64(low % 2**64) + offsets).astype(dtype)
        if dtype == "uint64"
        else (np.int64(low) + offsets.astype(np.int64))
    )
    order = rng.permutation(n)
    where = text_keys.same_int_set_positions(a, a[order])
    assert where is not None and where.tolist() == order.tolist()
    other = a[order].copy()
    other[5] = other[6]
    assert text_keys.same_int_set_positions(a, other) is None
    moved = a[order].copy()
    moved[9] = a.max() + 1  # an id the first side lacks
    assert text_keys.same_int_set_positions(a, moved) is None


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint64", "uint16"])
def test_the_same_sparse_integers_in_another_order(dtype: str) -> None:
    """Integer ids spread too widely to be placed by value: where each id of ``b`` is in
    ``a`` by sorting, ``None`` whenever the sets differ or an id repeats, and the same
    alignment as the general path (ids kept as they were written)."""
    rng = np.random.default_rng(len(dtype))
    info = np.iinfo(dtype)
    n = 5000
    ids = np.unique(rng.integers(info.min, info.max, size=2 * n, dtype=dtype, endpoint=True))
    a = rng.permutation(ids)[:n]
    if info.min < 0:
        a[:3] = [info.min, -1, 0]  # the extremes and the sign change kept in order
    order = rng.permutation(n)
    b = a[order]
    where = text_keys.same_int_set_positions(a, b)
    assert where is not None and where.tolist() == order.tolist()
    other = b.copy()
    other[7] = next(v for v in ids if v not in set(a.tolist()))
    assert text_keys.same_int_set_positions(a, other) is None  # one id differs
    repeated = a.copy()
    repeated[-1] = repeated[0]
    assert text_keys.same_int_set_positions(repeated, repeated[order]) is None
    assert text_keys.same_int_set_positions(a, b.astype("float64")) is None
    assert text_keys.same_int_set_positions(a, b[:-1]) is None
    truth = pd.DataFrame({"record_id": a, "cluster_id": rng.integers(0, n // 3, n)})
    pred = truth.iloc[order].assign(cluster_id=rng.integers(0, n // 3, n))
    fast = contingency_table(truth, pred)
    general = contingency_table(
        truth.astype({"record_id": object}), pred.astype({"record_id": object})
    )
    assert evaluate(fast) == evaluate(general)
    # ids wide enough not to be placed by value take this path in the alignment
    from ereval.io import _ids

    found: list[bool] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_ids, "same_int_set_positions", noting(_ids.same_int_set_positions, found))
        assert evaluate(contingency_table(truth, pred)) == evaluate(general)
    if np.dtype(dtype).itemsize == 8:  # 64-bit ids spread over their whole range
        assert found == [True]


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.text(max_size=4)), max_size=40),
    large=st.booleans(),
    cut=st.tuples(st.integers(0, 5), st.integers(0, 5)),
)
def test_missing_text_ids_are_read_from_the_offsets(
    values: list[str | None], large: bool, cut: tuple[int, int]
) -> None:
    """A text id is missing when null or empty, whatever the string type and wherever
    the array starts in its buffers (a slice): the mask read from the offsets is the
    one of the values themselves."""
    from ereval.io import missing_mask

    arr = pa.array(values, type=pa.large_string() if large else pa.string())
    stop = max(cut[0], len(values) - cut[1])
    part = arr.slice(cut[0], stop - cut[0])
    want = [v is None or v == "" for v in values[cut[0] : stop]]
    assert missing_mask(part).tolist() == want


def test_a_null_text_id_with_bytes_behind_it_is_missing() -> None:
    """Arrow lets a null slot keep bytes (its offsets differ): it is missing all the
    same, and a non-empty id beside it is not."""
    from ereval.io import missing_mask

    offsets = np.array([0, 3, 6, 6], dtype=np.int32)
    validity = pa.py_buffer(np.packbits([1, 0, 1], bitorder="little"))
    arr = pa.Array.from_buffers(
        pa.string(), 3, [validity, pa.py_buffer(offsets), pa.py_buffer(b"abcdef")], null_count=1
    )
    assert arr.to_pylist() == ["abc", None, ""]
    assert missing_mask(arr).tolist() == [False, True, True]


@pytest.mark.parametrize(
    "ids",
    [
        pa.array(["b", "", "é ü", "01", "1"]),
        pa.array(["x", None, "y"]),
        pa.array(["b", "a"], type=pa.large_string()),
        np.array([3, -1, 2**62]),
        np.array(["a", 1], dtype=object),
    ],
    ids=["text", "missing", "large", "integers", "mixed"],
)
def test_a_frame_column_of_ids_is_the_column_of_its_python_values(ids: Any) -> None:
    """Text kept in Arrow's buffers makes the column pandas makes of the ids as Python
    values: the same type and values, whatever the id type."""
    from ereval.io import frame_column, to_numpy

    got = pd.DataFrame({"id": frame_column(ids)})
    want = pd.DataFrame({"id": to_numpy(ids)})
    pd.testing.assert_frame_equal(got, want)
    if isinstance(ids, pa.Array) and ids.type == pa.string() and got["id"].dtype != object:
        held = got["id"].array.__arrow_array__().chunk(0)  # the very bytes: no Python strings
        assert held.buffers()[2].address == ids.buffers()[2].address


_TEXT_IDS = st.lists(
    st.text(alphabet="ab-1é", min_size=0, max_size=20) | st.sampled_from(["id-0", "id-1"]),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(_TEXT_IDS, st.randoms(use_true_random=False))
def test_repeats_and_the_union_of_text_ids_are_those_of_python(ids: list[str], rng: Any) -> None:
    """With the word layout taken for any column (``MIN_IDS`` of 1): the repeated ids and
    their surplus, told apart by sorting keys where every id is distinct; and the union
    of a column with itself in another order (the same set, its ids in their first
    order), or with other ids, against Python's sets and dicts."""
    from ereval.io._ids import duplicate_ids

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_keys, "MIN_IDS", 1)
        column = pa.array(ids, type=pa.string())
        distinct = len(set(ids)) == len(ids)
        assert text_keys.surely_distinct(column) <= distinct
        if distinct and ids and all(x and x.isascii() for x in ids):
            assert text_keys.surely_distinct(column)
        dup, surplus = duplicate_ids(column)
        counts = {x: ids.count(x) for x in ids}
        assert sorted(dup.to_pylist()) == sorted(x for x, c in counts.items() if c > 1)
        assert surplus == len(ids) - len(counts)
        other = list(ids)
        rng.shuffle(other)
        other += [] if rng.random() < 0.5 else ["id-9"]
        united, pos_a, pos_b = union(column, pa.array(other, type=pa.string()))
        names = united.to_pylist()
        assert names == list(dict.fromkeys(ids + other))
        assert [names[k] for k in pos_a.tolist()] == ids
        assert [names[k] for k in pos_b.tolist()] == other


def test_distinct_text_ids_are_not_numbered_to_be_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Distinct ids, and the union of two columns of the same ids, need no numbering
    (which hashes every id into a table); repeated ids still get it."""
    from ereval.io import _ids
    from ereval.io._ids import duplicate_ids

    n = text_keys.MIN_IDS + 7
    a = pa.array([f"rec-{v}" for v in np.random.default_rng(1).permutation(n)])

    def numbered(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("numbered")

    monkeypatch.setattr(_ids, "text_codes", numbered)
    monkeypatch.setattr(_ids, "encode", numbered)
    assert duplicate_ids(a)[1] == 0
    ids, pos_a, pos_b = union(a, a[::-1])
    assert ids is a and pos_a.tolist() == list(range(n)) and pos_b.tolist() == pos_a.tolist()[::-1]
    with pytest.raises(AssertionError, match="numbered"):
        duplicate_ids(pa.concat_arrays([a, a[:1]]))


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_float_ids_are_numbers(tmp_path: Path, engine: str) -> None:
    # -0.0 and 0.0 are one cluster, written 0.0 (the DuckDB engine once counted one
    # true cluster of 6 records and scored them as two); NaN is a missing id
    t, p, nan = tmp_path / "t.parquet", tmp_path / "p.parquet", tmp_path / "nan.parquet"
    records = np.arange(6)
    pq.write_table(
        pa.table({"record_id": records, "cluster_id": [-0.0, 0.0, -0.0, 0.0, 0.0, -0.0]}), t
    )
    pq.write_table(pa.table({"record_id": records, "cluster_id": [1, 1, 1, 2, 2, 2]}), p)
    pq.write_table(pa.table({"record_id": records, "cluster_id": [1.0, np.nan, 1, 2, 2, 2]}), nan)
    out = runner.invoke(app, ["metrics", str(t), str(p), "-f", "json", "--engine", engine])
    assert out.exit_code == 0, out.output
    scores = json.loads(out.stdout)
    assert (scores["n_true_clusters"], scores["pairwise_precision"]) == (1, 1.0)
    assert scores["pairwise_recall"] == 6 / 15  # 2 x 3 of the 15 true pairs
    out = runner.invoke(
        app, ["errors", str(t), str(p), "--by", "record", "-f", "csv", "--engine", engine]
    )
    assert out.exit_code == 0, out.output
    assert {line.split(",")[1] for line in out.stdout.splitlines()[1:]} == {"0.0"}
    for side in ([str(nan), str(p)], [str(p), str(nan)]):
        out = runner.invoke(app, ["metrics", *side, "--engine", engine])
        assert out.exit_code == 2
        assert "1 missing cluster ids (empty, null or NaN)" in out.output
    floats = tmp_path / "floats.parquet"
    pq.write_table(pa.table({"record_id": [0.0, np.nan, 2.0], "cluster_id": [1, 1, 2]}), floats)
    out = runner.invoke(app, ["summary", str(floats), "--engine", engine])
    assert out.exit_code == 2 and "1 missing record ids" in out.output


#: Ids of types other than text and integers, and how every output writes them.
TYPED_IDS = {
    "decimal": (
        pa.array([Decimal("1.50"), Decimal("2.00"), Decimal("3.25")], pa.decimal128(6, 2)),
        ["1.50", "2.00", "3.25"],
    ),
    "date": (
        pa.array([datetime.date(2000, 1, 1), datetime.date(2000, 1, 2), datetime.date(2001, 3, 4)]),
        ["2000-01-01", "2000-01-02", "2001-03-04"],
    ),
    "timestamp": (
        pa.array([datetime.datetime(2020, 1, 1), datetime.datetime(2020, 1, 1, 0, 0, 1)]),
        ["2020-01-01 00:00:00", "2020-01-01 00:00:01"],
    ),
}


@pytest.mark.parametrize("kind", list(TYPED_IDS))
def test_typed_ids_are_written_alike_on_every_path(tmp_path: Path, kind: str) -> None:
    # once: a DECIMAL 1.50 came out as 1.5 on the DuckDB engine's stdout (NumPy's fetch
    # reads it as a float), a date as a midnight on NumPy's, and both stopped -f json
    ids, written = TYPED_IDS[kind]
    t = tmp_path / "t.parquet"
    pq.write_table(pa.table({"record_id": ids, "cluster_id": ids}), t)
    for by in ("record", "cluster"):
        texts = {}
        for engine in ("numpy", "duckdb"):
            args = ["errors", str(t), str(t), "--by", by, "--engine", engine, "-q"]
            for fmt in ("csv", "json"):
                out = runner.invoke(app, [*args, "-f", fmt])
                assert out.exit_code == 0, out.output
                texts[engine, fmt] = out.stdout
            file = tmp_path / f"{engine}-{by}.csv"
            assert runner.invoke(app, [*args, "-o", str(file)]).exit_code == 0
            assert file.read_text(encoding="utf-8") == texts[engine, "csv"]
        assert texts["numpy", "csv"] == texts["duckdb", "csv"]
        assert texts["numpy", "json"] == texts["duckdb", "json"]
        first = [line.split(",")[0] for line in texts["numpy", "csv"].splitlines()[1:]]
        assert first == written, by
        column = "record_id" if by == "record" else "cluster_id"
        assert [row[column] for row in json.loads(texts["numpy", "json"])] == written


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=40))
def test_bytes_are_written_as_duckdb_writes_a_blob(value: bytes) -> None:
    import duckdb

    from ereval.results import bytes_text

    with duckdb.connect() as con:
        expected = con.execute("SELECT ?::BLOB::VARCHAR", [value]).fetchone()[0]
    assert bytes_text(value) == expected


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_ids_of_bytes_are_written_alike_by_every_engine(tmp_path: Path, fmt: str) -> None:
    """A Parquet column of bytes (no text type): the record table in CSV, JSON and the
    table shows each id as DuckDB writes a BLOB, on both engines (NumPy wrote Python's
    ``b'...'``, and its JSON stopped with a TypeError)."""
    ids = [b"a1", b"\xff\\x", b"a,3", b"\x00z", b'q"', "é".encode()]
    path = tmp_path / "t.parquet"
    pq.write_table(
        pa.table({"record_id": pa.array(ids, pa.binary()), "cluster_id": [1, 1, 2, 2, 2, 3]}),
        path,
    )
    outputs = {}
    for engine in ("numpy", "duckdb"):
        args = ["errors", str(path), str(path), "--by", "record", "--engine", engine, "-q"]
        result = CliRunner().invoke(app, [*args, *([] if fmt == "table" else ["-f", fmt])])
        assert result.exit_code == 0, result.output
        outputs[engine] = result.stdout
    assert outputs["numpy"] == outputs["duckdb"]
    text = outputs["numpy"]
    assert "b'" not in text
    for shown in ("\\xFF\\x5Cx", "\\x00z", "q\\x22", "\\xC3\\xA9"):
        assert shown.replace("\\", "\\\\" if fmt == "json" else "\\") in text, shown
    if fmt == "csv":
        assert '"a,3"' in text


@pytest.mark.each_engine(spark=True)
def test_ids_of_bytes_against_text_are_refused_alike(tmp_path: Path, engine: str) -> None:
    """Bytes and text are two kinds of id: the same one-line refusal on every engine
    (DuckDB called them ``blob``, NumPy ``mixed (bytes)``)."""
    text, raw = tmp_path / "t.parquet", tmp_path / "p.parquet"
    pq.write_table(pa.table({"record_id": ["a1", "a2"], "cluster_id": [1, 1]}), text)
    pq.write_table(
        pa.table({"record_id": pa.array([b"a1", b"a2"], pa.binary()), "cluster_id": [1, 2]}), raw
    )
    result = CliRunner().invoke(app, ["metrics", str(text), str(raw), "--engine", engine])
    assert result.exit_code == 2
    assert result.output.startswith(
        "error: record ids of 'truth' are text (e.g. 'a1', 'a2') but those of 'pred' are "
        "bytes (e.g. b'a1', b'a2'), so no record can match"
    ), result.output
    assert len(result.output.strip().splitlines()) == 1


def _decimal_side(path: Path, ids: list[str], clusters: list[int], typed: pa.DataType) -> Path:
    """A clustering whose ids ``ids`` (decimal text) are of the Arrow type ``typed``."""
    values = pa.array([Decimal(v) for v in ids]).cast(typed)
    pq.write_table(pa.table({"record_id": values, "cluster_id": clusters}), path)
    return path


@pytest.mark.each_engine(spark=True)
def test_decimals_against_floats_are_refused_alike(tmp_path: Path, engine: str) -> None:
    """A decimal with a fraction is an exact number, a float a binary one (0.1 is not
    1/10): like integers against floats, they are two kinds, refused in one line on
    every engine (DuckDB and Spark compared them as floats, NumPy refused them)."""
    ids = ["1.50", "2.25", "3.10"]
    t = _decimal_side(tmp_path / "t.parquet", ids, [1, 1, 2], pa.decimal128(6, 2))
    for other, kind in ((pa.float64(), "float (e.g. 1.5, 2.25)"), (pa.int64(), "integer")):
        written = ids if other == pa.float64() else ["1", "2", "3"]
        p = _decimal_side(tmp_path / "p.parquet", written, [1, 1, 2], other)
        result = CliRunner().invoke(app, ["metrics", str(t), str(p), "--engine", engine])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(
            f"error: record ids of 'truth' are decimal (e.g. 1.50, 2.25) but those of 'pred' "
            f"are {kind}"
        ), result.output
        assert len(result.output.strip().splitlines()) == 1


@pytest.mark.each_engine(spark=True)
def test_decimals_of_two_scales_match_by_value(tmp_path: Path, engine: str) -> None:
    """``DECIMAL(8,2)`` 1.50 and ``DECIMAL(10,4)`` 1.5000 are one id on every engine:
    the metrics equal those of the same ids written once as text."""
    rng = np.random.default_rng(7)
    ids = [f"{k / 100:.2f}" for k in range(1, 301)]
    true, pred = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    t = _decimal_side(tmp_path / "t.parquet", ids, true.tolist(), pa.decimal128(8, 2))
    p = _decimal_side(tmp_path / "p.parquet", ids, pred.tolist(), pa.decimal128(10, 4))
    expected = evaluate(
        pa.table({"record_id": ids, "cluster_id": true}),
        pa.table({"record_id": ids, "cluster_id": pred}),
    )
    close = pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True)  # Spark's sums
    assert evaluate(t, p, engine=engine) == close
    if engine == "duckdb":  # the plan of a memory limit: the ids hashed into passes
        assert evaluate(t, p, engine=DuckDBEngine(passes=3)) == close


@pytest.mark.each_engine(spark=True)
def test_decimals_no_decimal_holds_are_exact_or_refused(tmp_path: Path, engine: str) -> None:
    """``DECIMAL(38,20)`` against ``DECIMAL(38,10)``: SQL compares them in a decimal
    of 38 digits, which rounds the first to ten places (Spark matched
    0.12345678901234567890 with 0.1234567890). NumPy compares Python's decimals,
    exactly; DuckDB and Spark refuse in one line."""
    t = _decimal_side(
        tmp_path / "t.parquet",
        ["0.12345678901234567890", "0.12345678901234567891", "1"],
        [1, 2, 3],
        pa.decimal128(38, 20),
    )
    p = _decimal_side(
        tmp_path / "p.parquet",
        ["0.1234567890", "0.1234567891", "1"],
        [1, 2, 3],
        pa.decimal128(38, 10),
    )
    result = CliRunner().invoke(app, ["metrics", str(t), str(p), "--engine", engine])
    assert result.exit_code == 2, result.output
    if engine == "numpy":
        assert "2 record(s) only in 'truth'" in result.output
        assert "2 record(s) only in 'pred'" in result.output
    else:
        assert result.output == (
            "error: record ids of 'truth' are DECIMAL(38,20) and those of 'pred' "
            "DECIMAL(38,10): no decimal of 38 digits holds both exactly, so they cannot be "
            "compared; give both sides the same decimal type\n"
        )


#: Ids of kinds that never match integers, how every engine names them and shows them.
NAMED_KINDS = {
    "date": (pa.array([datetime.date(2000, 1, 1), datetime.date(2000, 1, 2)]), "2000-01-01"),
    "timestamp": (
        pa.array([datetime.datetime(2000, 1, 1), datetime.datetime(2000, 1, 2, 3)]),
        "2000-01-01 00:00:00",
    ),
    "boolean": (pa.array([True, False]), "True"),
    "decimal": (pa.array([Decimal("1.5"), Decimal("2")]).cast(pa.decimal128(4, 2)), "1.50"),
    "float": (pa.array([1.5, 2.0]), "1.5"),
}


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize("kind", list(NAMED_KINDS))
def test_kinds_of_ids_are_named_alike(tmp_path: Path, engine: str, kind: str) -> None:
    """The refusals of ids of a kind that cannot be compared with integers, or be part
    of a key of several columns, are the same line on every engine (NumPy named a
    date ``datetime`` and a decimal ``mixed (Decimal)``, and showed a date as
    ``datetime.date(2000, 1, 1)``; DuckDB ``date`` and ``float``)."""
    ids, shown = NAMED_KINDS[kind]
    path = tmp_path / "t.parquet"
    columns = {"x": ids, "i": [1, 2], "s": ["a", "b"], "c": [1, 1]}
    pq.write_table(pa.table(columns), path)
    common = ["metrics", str(path), str(path), "--cluster-col", "c", "--engine", engine]
    single = CliRunner().invoke(app, [*common, "--truth-record-col", "x", "--pred-record-col", "i"])
    assert single.exit_code == 2
    assert single.output.startswith(f"error: record ids of 'truth' are {kind} (e.g. {shown}, "), (
        single.output
    )
    assert "but those of 'pred' are integer (e.g. 1, 2), so no record can match" in single.output
    several = CliRunner().invoke(app, [*common, "--record-col", "s,x"])
    assert several.exit_code == 2
    assert several.output == (
        "error: 'truth': column 'x' of a key made of several columns must hold integers or "
        f"text; it holds {kind} values\n"
    )


def test_boolean_cluster_ids_are_written_alike(tmp_path: Path) -> None:
    """Boolean ids are written ``true``/``false`` in CSV on every engine, as SQL and
    JSON write them (NumPy wrote pandas' ``True``)."""
    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    clusters = [True, True, False, False, True, False]
    pq.write_table(pa.table({"record_id": range(6), "cluster_id": clusters}), t)
    pq.write_table(pa.table({"record_id": range(6), "cluster_id": clusters[::-1]}), p)
    texts = {}
    for engine in ("numpy", "duckdb"):
        for by in ("cluster", "record"):
            args = ["errors", str(t), str(p), "--by", by, "--engine", engine, "-f", "csv"]
            out = runner.invoke(app, args)
            assert out.exit_code == 0, out.output
            texts[engine, by] = out.stdout
    assert texts["numpy", "cluster"] == texts["duckdb", "cluster"]
    assert texts["numpy", "record"] == texts["duckdb", "record"]
    rows = texts["numpy", "cluster"].splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == ["false", "true"]
    assert texts["numpy", "record"].splitlines()[1].startswith("0,true,false,")
