"""Input handling: every accepted form, and a clear error for every bad input."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ereval import (
    IdKindError,
    InputError,
    InputTypeError,
    RecordMismatchError,
    RepeatedPairsError,
)
from ereval.contingency import contingency_table
from ereval.io import align, as_membership, as_pairs
from ereval.metrics import evaluate, pairwise_scores_from_pairs


def test_list_of_clusters_and_dict_agree() -> None:
    a = contingency_table([["a", "b"], ["c"]], {"a": 1, "b": 2, "c": 2})
    assert a.counts.tolist() == [1, 1, 1]
    assert a.true_sizes.tolist() == [2, 1]


def test_two_column_frame_read_positionally_only_without_named_columns() -> None:
    frame = pd.DataFrame({"rec": [1, 2], "ent": ["x", "y"]})
    m = as_membership(frame)
    assert m.records.tolist() == [1, 2]
    with pytest.raises(InputError, match=r"no column\(s\) 'cluster_id'"):
        as_membership(pd.DataFrame({"record_id": [1], "x": [1], "y": [2]}))


def test_custom_column_names(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    pd.DataFrame({"mention": ["m1", "m2"], "entity": [7, 7], "other": [0, 0]}).to_csv(
        path, index=False
    )
    m = as_membership(path, record_col="mention", cluster_col="entity")
    assert m.clusters.tolist() == ["7", "7"]  # ids in a text file are the text written there


def test_gzipped_csv_and_tsv(tmp_path: Path) -> None:
    gz = tmp_path / "c.csv.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write("record_id,cluster_id\n1,a\n2,a\n")
    tsv = tmp_path / "c.tsv"
    tsv.write_text("record_id\tcluster_id\n1\ta\n2\tb\n")
    assert evaluate(gz, tsv, metrics="pairwise")["pairwise_recall"] == 0.0


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"a": 1, "b": None}, r"'truth' has 1 missing cluster ids"),
        (pd.Series([1, np.nan], index=["a", "b"]), r"'truth' has 1 missing cluster ids"),
        (pd.DataFrame({"record_id": ["a", None], "cluster_id": [1, 2]}), r"missing record ids"),
        ([["a", "b"], ["b"]], r"'truth' has 1 duplicate record ids \(e\.g\. 'b'\)"),
        ([], r"'truth' is empty"),
        (pd.DataFrame({"record_id": [], "cluster_id": []}), r"'truth' is empty"),
        ([["a"], []], r"cluster 1 is empty"),
    ],
)
def test_bad_clusterings(data: object, match: str) -> None:
    with pytest.raises(InputError, match=match):
        as_membership(data, name="truth")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (42, r"'truth' must be a clustering .* received 42 \(int\)"),
        ([["a"], "b"], r"mixes clusters"),
        ({1, 2}, r"a set of scalars has no order"),
        ([["a"], [object, 1]] if False else [["a"], 5], r"mixes clusters"),
    ],
)
def test_bad_types(data: object, match: str) -> None:
    with pytest.raises(InputTypeError, match=match):
        as_membership(data, name="truth")


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"'truth': file not found"):
        as_membership(tmp_path / "nope.csv", name="truth")
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    with pytest.raises(InputError, match=r"expected a file ending in \.csv"):
        as_membership(bad, name="truth")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=r"'truth': cannot read"):
        as_membership(broken, name="truth")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text('record_id,cluster_id\n1,2\n3,4,5,6\n"unterminated\n')
    with pytest.raises(InputError, match=r"'truth': cannot read"):
        as_membership(ragged, name="truth")
    with pytest.raises(InputError, match=r"holds 'x.json', which is not a CSV or Parquet part"):
        as_membership(tmp_path, name="truth")  # a folder is read as parts: all must be data


def test_mismatched_records_error_lists_counts_and_examples() -> None:
    with pytest.raises(RecordMismatchError) as info:
        align({"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 2, "z": 3})
    msg = str(info.value)
    assert "1 record(s) only in 'truth' (e.g. 'c')" in msg
    assert "1 record(s) only in 'pred' (e.g. 'z')" in msg
    assert "on_mismatch='intersection'" in msg
    assert info.value.sides == ("truth", "pred")
    assert info.value.n_only == (1, 1)


def test_intersection_and_twinless_policies() -> None:
    truth = {"a": 1, "b": 1, "c": 2}
    pred = {"a": 1, "b": 1, "z": 3}
    inter = contingency_table(truth, pred, on_mismatch="intersection")
    assert inter.n_records == 2 and not inter.has_twinless
    twin = contingency_table(truth, pred, on_mismatch="twinless")
    assert twin.n_records == 4 and twin.has_twinless
    assert (twin.n_true_records, twin.n_pred_records, twin.n_common) == (3, 3, 2)
    with pytest.raises(InputError, match=r"'on_mismatch' must be one of"):
        align(truth, pred, on_mismatch="ignore")  # type: ignore[arg-type]
    with pytest.raises(RecordMismatchError, match="no record in common"):
        align({"a": 1}, {"b": 1}, on_mismatch="intersection")


def test_twinless_mode_adds_cai_strube_variants() -> None:
    res = evaluate({"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 1, "z": 3}, on_mismatch="twinless")
    assert {"b3_sys_f1", "b3_all_f1", "b3_0_f1", "b3_rn_f1", "ceaf_sys_f1"} <= set(res)


def test_mixed_id_types_factorised_together() -> None:
    res = evaluate({1: "x", "1": "x", 2.5: "y"}, {1: 0, "1": 1, 2.5: 1}, metrics="pairwise")
    assert res["pairwise_precision"] == 0.0


def test_unknown_metrics_and_bad_beta() -> None:
    with pytest.raises(InputError, match=r"unknown name\(s\) \['nope'\]"):
        evaluate([[1]], [[1]], metrics=["nope"])
    with pytest.raises(InputError, match=r"'metrics' is empty"):
        evaluate([[1]], [[1]], metrics="")
    with pytest.raises(InputError, match=r"'beta' must be > 0"):
        evaluate([[1]], [[1]], beta=0)
    with pytest.raises(InputTypeError, match=r"'beta' must be a real number"):
        evaluate([[1]], [[1]], beta="2")  # type: ignore[arg-type]


def test_family_names_select_all_their_metrics() -> None:
    res = evaluate([[1, 2]], [[1], [2]], metrics="ceafe,bmd")
    assert list(res) == ["ceafe_precision", "ceafe_recall", "ceafe_f1", "bmd"]


def test_fbeta_keys_added_when_beta_is_not_one() -> None:
    res = evaluate([[1, 2, 3]], [[1, 2], [3]], metrics="pairwise,muc", beta=2.0)
    p, r = res["pairwise_precision"], res["pairwise_recall"]
    assert res["pairwise_fbeta"] == pytest.approx(5 * p * r / (4 * p + r))
    assert "muc_fbeta" in res


def test_predicted_pairs() -> None:
    truth = {1: "a", 2: "a", 3: "a", 4: "b"}
    res = pairwise_scores_from_pairs(
        truth, pd.DataFrame({"record_id_1": [1, 2, 1], "record_id_2": [2, 3, 4]})
    )
    assert res["pairwise_precision"] == 2 / 3
    assert res["pairwise_recall"] == 2 / 3
    with pytest.raises(InputError, match=r"repeated pair"):
        as_pairs([(1, 2), (2, 1)])
    with pytest.raises(InputError, match=r"pairs a record with itself"):
        as_pairs([(1, 1)])
    with pytest.raises(RecordMismatchError, match=r"absent from 'truth'"):
        pairwise_scores_from_pairs(truth, [(1, 9)])
    kept = pairwise_scores_from_pairs(truth, [(1, 2), (1, 9)], on_mismatch="twinless")
    dropped = pairwise_scores_from_pairs(truth, [(1, 2), (1, 9)], on_mismatch="intersection")
    assert kept["pairwise_precision"] == 0.5 and dropped["pairwise_precision"] == 1.0


def test_nan_for_undefined_ratio_never_one() -> None:
    res = evaluate([[1], [2]], [[1], [2]], metrics="pairwise")
    assert all(math.isnan(v) for v in res.values())


def test_float_cluster_ids_are_kept_as_given() -> None:
    # 1.0 and 1.5 are different clusters; nothing is truncated
    res = evaluate({1: 1.0, 2: 1.5}, {1: 0, 2: 0}, metrics="pairwise")
    assert res["pairwise_precision"] == 0.0


def test_count_rows_streams_every_file_kind(tmp_path: Path) -> None:
    from ereval.io import count_rows

    frame = pd.DataFrame({"item_id": ["01", "1", "x,y"], "score": [3.0, 2.0, 1.0]})
    frame.to_csv(tmp_path / "r.csv", index=False)
    frame.to_csv(tmp_path / "r.tsv", index=False, sep="\t")
    frame.to_csv(tmp_path / "r.csv.gz", index=False)
    frame.to_parquet(tmp_path / "r.parquet", index=False)
    for name in ("r.csv", "r.tsv", "r.csv.gz", "r.parquet"):
        assert count_rows(tmp_path / name, name="ranked") == 3, name
    (tmp_path / "bad.csv").write_bytes(b"a,b\n1,2,3\n")
    with pytest.raises(InputError, match="'ranked': cannot read"):
        count_rows(tmp_path / "bad.csv", name="ranked")


def test_typed_errors_carry_what_they_report() -> None:
    with pytest.raises(RepeatedPairsError) as repeated:
        as_pairs([(1, 2), (3, 4), (2, 1), (4, 3), (1, 2)], name="links")
    assert (repeated.value.name, repeated.value.n_repeated) == ("links", 3)
    assert isinstance(repeated.value, InputError)
    with pytest.raises(IdKindError) as kinds:
        align({1: "a", 2: "a"}, {"1": "x", "2": "x"})
    err = kinds.value
    assert isinstance(err, InputTypeError) and err.sides == ("truth", "pred")
    assert err.kinds == (("integer",), ("text",))
    assert [list(side) for side in err.examples] == [[1, 2], ["1", "2"]]
    assert str(err).endswith("pass id_type='string' to compare integer ids as their decimal text")
