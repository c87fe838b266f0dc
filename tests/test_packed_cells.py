"""The table of two clusterings with integer record ids, counted by sorting packed keys,
against the general alignment (a position table or a hash of the ids)."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval import RecordMismatchError
from ereval.contingency import ContingencyTable, contingency_table, count_cells
from ereval.contingency._packed import pack_side, paired_cells
from ereval.io import IdenticalColumnsWarning, align

from ._spies import noting

FIELDS = ("rows", "cols", "counts", "true_sizes", "pred_sizes")


def _same(a: ContingencyTable, b: ContingencyTable) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype == np.int64, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert a.policy == b.policy


def _lone_columns_last(tab: ContingencyTable, named: int) -> ContingencyTable:
    """``tab`` with its columns from ``named`` on (one record each, alone in its
    predicted cluster) renumbered in the order of their rows."""
    lone = np.flatnonzero(tab.cols >= named)
    order = lone[np.argsort(tab.rows[lone], kind="stable")]
    cols = tab.cols.copy()
    cols[order] = named + np.arange(order.shape[0])
    return ContingencyTable(tab.rows, cols, tab.counts, tab.true_sizes, tab.pred_sizes, tab.policy)


def _two_files(
    rng: np.random.Generator, pool: np.ndarray, policy: str, clusters: int, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two files of the records of ``pool``, each holding about 80% of them (under
    ``singletons`` every predicted record in the truth too), ``clusters`` clusters a
    side, the prediction's rows shuffled by ``seed``."""
    t_rec = pool[rng.random(pool.shape[0]) < 0.8]
    p_rec = pool[rng.random(pool.shape[0]) < 0.8]
    if policy == "singletons":
        p_rec = p_rec[np.isin(p_rec, t_rec)]
    t = pd.DataFrame({"record_id": t_rec, "cluster_id": rng.integers(0, clusters, t_rec.shape[0])})
    p = pd.DataFrame(
        {"record_id": p_rec, "cluster_id": rng.integers(0, clusters, p_rec.shape[0]) + 10_000}
    )
    return t, p.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _same_under(
    policy: str, got: ContingencyTable, expected: ContingencyTable, p: pd.DataFrame
) -> None:
    """:func:`_same`, the lone records' columns (which may be numbered in another
    order) put last in the order of their rows under ``singletons``."""
    if policy == "singletons":
        named = p["cluster_id"].nunique()
        got, expected = _lone_columns_last(got, named), _lone_columns_last(expected, named)
    _same(got, expected)


def _frames(
    records: np.ndarray, truth: np.ndarray, pred: np.ndarray, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    order = np.random.default_rng(seed).permutation(records.shape[0])
    t = pd.DataFrame({"record_id": records, "cluster_id": truth})
    p = pd.DataFrame({"record_id": records[order], "cluster_id": pred[order]})
    return t, p


def _factorized_table(t: pd.DataFrame, p: pd.DataFrame, **options: Any) -> ContingencyTable:
    """The table of the general alignment, text ids numbered by pandas' factorize
    rather than hashed: a reference independent of the hashed keys."""
    from ereval.io import _hashed_keys

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_hashed_keys, "hashed_keys", lambda a, b: None)
        return ContingencyTable.from_alignment(align(t, p, **options))


def _factorized_or_refused(
    t: pd.DataFrame, p: pd.DataFrame, policy: str
) -> ContingencyTable | None:
    """The reference table of :func:`_factorized_table` under ``policy``; or, where the
    general alignment refuses the sides, ``None`` once :func:`contingency_table` is
    seen to refuse them with the same error."""
    try:
        return _factorized_table(t, p, on_mismatch=policy)
    except ValueError as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            contingency_table(t, p, on_mismatch=policy)
        return None


def _refuse(*args: object) -> None:
    """Stands in for the general alignment where it must not be used."""
    raise AssertionError("the general alignment was used")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.int16])
def test_sorted_table_equals_the_alignment(seed: int, dtype: type) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    high = {np.int16: 2**15 - 1, np.int32: 2**31 - 1}.get(dtype, 2**62)
    low = 0 if dtype == np.uint64 else -high
    records = rng.choice(np.arange(n * 5) * (high // (n * 5)) + low, size=n, replace=False)
    records = records.astype(dtype)
    k = int(rng.integers(1, n + 1))
    truth = rng.integers(0, k, n) * int(rng.choice([1, 3, 10**12]))
    pred = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), truth)
    t, p = _frames(records, truth, pred, seed)
    _same(contingency_table(t, p), ContingencyTable.from_alignment(align(t, p)))


def test_text_cluster_ids_and_records_in_the_same_order() -> None:
    records = np.arange(100, 0, -1) * 7
    truth = np.array([f"c{i % 9}" for i in range(100)], dtype=object)
    pred = np.array([f"c{i % 4}" for i in range(100)], dtype=object)
    t = pd.DataFrame({"record_id": records, "cluster_id": truth})
    p = pd.DataFrame({"record_id": records, "cluster_id": pred})
    _same(contingency_table(t, p), ContingencyTable.from_alignment(align(t, p)))


def test_a_repeated_record_is_still_named() -> None:
    t = {1: "a", 2: "a", 3: "b"}
    p = pd.DataFrame({"record_id": [3, 1, 1], "cluster_id": [0, 0, 1]})
    with pytest.raises(ValueError, match=r"'pred' has 1 duplicate record ids \(e\.g\. 1\)"):
        contingency_table(t, p)
    with pytest.raises(ValueError, match=r"'truth' has 1 duplicate record ids"):
        contingency_table(p, t)


def test_different_records_follow_the_policy() -> None:
    t = pd.DataFrame({"record_id": [1, 2, 3, 4], "cluster_id": [0, 0, 1, 1]})
    p = pd.DataFrame({"record_id": [4, 3, 2, 9], "cluster_id": [5, 5, 6, 6]})
    with pytest.raises(RecordMismatchError, match="1 record"):
        contingency_table(t, p)
    for policy in ("twinless", "intersection"):
        _same(
            contingency_table(t, p, on_mismatch=policy),
            ContingencyTable.from_alignment(align(t, p, on_mismatch=policy)),
        )


def test_the_truth_read_twice_is_still_flagged() -> None:
    t = pd.DataFrame({"record_id": [5, 6, 7], "cluster_id": [1, 1, 2]})
    with pytest.warns(IdenticalColumnsWarning):
        contingency_table(t, t.copy())
    shuffled = t.iloc[[2, 0, 1]].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tab = contingency_table(t, shuffled)  # another order: scored, not flagged
    assert tab.counts.tolist() == [2, 1]


def test_keys_that_do_not_fit_take_the_general_path() -> None:
    records = np.array([0, 2**62], dtype=np.int64)
    assert pack_side(records, np.array([0, 3]), 4) is None  # range and codes over 63 bits
    assert pack_side(np.array([2**63], dtype=np.uint64), np.array([0]), 1) is None
    assert pack_side(np.array(["a"], dtype=object), np.array([0]), 1) is None
    t = pd.DataFrame({"record_id": records, "cluster_id": [0, 3]})
    p = pd.DataFrame({"record_id": records[::-1], "cluster_id": [1, 1]})
    _same(contingency_table(t, p), ContingencyTable.from_alignment(align(t, p)))


def test_paired_cells_refuse_other_records() -> None:
    def side(records: list[int]) -> object:
        return pack_side(np.array(records), np.zeros(len(records), dtype=np.int64), 1)

    assert paired_cells(side([1, 2, 3]), side([1, 2, 4])) is None  # type: ignore[arg-type]
    assert paired_cells(side([1, 2, 2]), side([1, 2, 2])) is None  # type: ignore[arg-type]
    assert paired_cells(side([1, 3, 5]), side([1, 4, 5])) is None  # type: ignore[arg-type]
    assert paired_cells(side([1, 2]), side([1, 2, 3])) is None  # type: ignore[arg-type]


def test_repeats_across_blocks_are_found() -> None:
    from ereval.contingency import _packed

    n = 3 * _packed.BLOCK
    records = np.arange(n, dtype=np.int64)
    records[_packed.BLOCK] = records[_packed.BLOCK - 1]  # a repeat across a block edge
    t = pd.DataFrame({"record_id": records, "cluster_id": records % 7})
    p = pd.DataFrame({"record_id": records[::-1], "cluster_id": records % 5})
    with pytest.raises(ValueError, match="'truth' has 1 duplicate record ids"):
        contingency_table(t, p)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(["error", "twinless", "intersection", "singletons"]),
    block=st.sampled_from([1, 2, 5, 64]),
    spread=st.sampled_from([1, 3, 2**40]),
    repeat=st.sampled_from([None, "truth", "pred"]),
)
def test_records_of_one_side_follow_the_policy_as_aligned(
    seed: int, policy: str, block: int, spread: int, repeat: str | None
) -> None:
    """Two sides holding different integer records (overlapping anyhow, in blocks as
    small as one record, a record repeated on either side): the packed table equals
    the general alignment's, and an error names the same problem."""
    from ereval.contingency import _packed

    rng = np.random.default_rng(seed)
    pool = rng.choice(60, size=int(rng.integers(2, 60)), replace=False) * spread - 7 * spread
    in_t = rng.random(pool.shape[0]) < rng.uniform(0.2, 1.0)
    in_p = rng.random(pool.shape[0]) < rng.uniform(0.2, 1.0)
    in_t[0] = in_p[-1] = True
    t_rec, p_rec = pool[in_t], pool[in_p]
    if repeat == "truth":
        t_rec = np.append(t_rec, t_rec[-1])
    if repeat == "pred":
        p_rec = np.append(p_rec, p_rec[0])
    k = int(rng.integers(1, 8))
    t = pd.DataFrame({"record_id": t_rec, "cluster_id": rng.integers(0, k, t_rec.shape[0])})
    # the predicted cluster ids never those of the truth (no warning of identical columns)
    p = pd.DataFrame(
        {"record_id": p_rec, "cluster_id": rng.integers(0, k, p_rec.shape[0]) * 3 + 100}
    )
    p = p.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_packed, "BLOCK", block)
        try:
            expected = ContingencyTable.from_alignment(align(t, p, on_mismatch=policy))
        except ValueError as exc:
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                contingency_table(t, p, on_mismatch=policy)
            return
        got = contingency_table(t, p, on_mismatch=policy)
    _same_under(policy, got, expected, p)


@pytest.mark.parametrize("policy", ["twinless", "intersection", "singletons"])
def test_sparse_records_of_one_side_past_one_step_of_the_search(policy: str) -> None:
    """Sparse ids in two files, each block of the truth's records sought in the
    prediction's keys several steps of :func:`ereval.io.sorted_search` at a time (a
    block of 24,000 records; a step of 4,096): the table of the general alignment."""
    rng = np.random.default_rng(7)
    pool = rng.choice(2**40, size=30_000, replace=False) * 4 - 2**41
    t, p = _two_files(rng, pool, policy, 3000, seed=3)
    expected = ContingencyTable.from_alignment(align(t, p, on_mismatch=policy))
    _same_under(policy, contingency_table(t, p, on_mismatch=policy), expected, p)


@pytest.mark.parametrize("policy", ["twinless", "intersection", "singletons"])
@pytest.mark.parametrize("spread", [1, 2**30])
def test_two_halves_of_the_truth_looked_up_at_once(monkeypatch, policy: str, spread: int) -> None:
    """More than two blocks of the truth's records in two files, ids dense (a table of
    positions) or sparse (a search): the two halves of the truth are looked up in two
    threads (under ``singletons`` in one, its lone records numbered in order), and
    the table is the general alignment's, found without it."""
    from ereval.contingency import _packed, _table

    rng = np.random.default_rng(spread)
    n = 3 * _packed.BLOCK
    pool = np.sort(rng.choice(n + n // 4, size=n, replace=False)) * spread
    t, p = _two_files(rng, pool, policy, 900, seed=5)
    expected = ContingencyTable.from_alignment(align(t, p, on_mismatch=policy))
    spans: list[tuple[int, int]] = []
    both = _packed.both

    def seen(work, a, b, *, size):  # type: ignore[no-untyped-def]
        if isinstance(a, tuple):
            spans.extend([a[:2], b[:2]])
        return both(work, a, b, size=size)

    monkeypatch.setattr(_packed, "both", seen)
    monkeypatch.setattr(_table, "aligned", _refuse)
    got = contingency_table(t, p, on_mismatch=policy)
    half = len(t) // 2 // _packed.BLOCK * _packed.BLOCK
    halves = [(0, half), (half, len(t))]
    assert half and spans == ([] if policy == "singletons" else halves)
    _same_under(policy, got, expected, p)


@pytest.mark.parametrize("policy", ["twinless", "intersection"])
def test_a_truth_record_twice_at_the_edge_of_the_halves_is_named(policy: str) -> None:
    """The last record of the truth's first half given again first in its second:
    the second half's thread sees the repeat, and the error names it."""
    from ereval.contingency import _packed

    n = 2 * _packed.BLOCK + 5000
    records = np.arange(n, dtype=np.int64) * 3
    records[_packed.BLOCK] = records[_packed.BLOCK - 1]
    t = pd.DataFrame({"record_id": records, "cluster_id": records % 7})
    p = pd.DataFrame({"record_id": records[5:][::-1], "cluster_id": records[5:] % 5})
    with pytest.raises(ValueError, match="'truth' has 1 duplicate record ids"):
        contingency_table(t, p, on_mismatch=policy)


def test_two_files_are_scored_without_the_general_alignment(monkeypatch) -> None:
    """Different records under a policy that scores them: counted from the packed keys
    alone (the general alignment, here made to fail, is never reached)."""
    from ereval.contingency import _table

    monkeypatch.setattr(_table, "aligned", _refuse)
    t = pd.DataFrame({"record_id": [1, 2, 3, 4, 5], "cluster_id": [0, 0, 1, 1, 1]})
    p = pd.DataFrame({"record_id": [6, 4, 3, 2], "cluster_id": [9, 9, 9, 8]})
    tab = contingency_table(t, p, on_mismatch="twinless")
    assert (tab.rows.tolist(), tab.cols.tolist(), tab.counts.tolist()) == ([0, 1], [0, 1], [1, 2])
    assert (tab.true_sizes.tolist(), tab.pred_sizes.tolist()) == ([2, 3], [1, 3])
    tab = contingency_table(t, p, on_mismatch="intersection")
    assert (tab.true_sizes.tolist(), tab.pred_sizes.tolist()) == ([1, 2], [1, 2])
    tab = contingency_table(t, p.iloc[1:], on_mismatch="singletons")
    # truth records 1 and 5 are left alone by the prediction: two columns of their own
    assert tab.pred_sizes.tolist() == [1, 2, 1, 1] and tab.n_pred_clusters == 4


@pytest.mark.parametrize("policy", ["twinless", "intersection"])
@pytest.mark.parametrize("differ", ["first block", "last block"])
def test_sides_of_one_length_and_range_holding_other_records(
    monkeypatch, policy: str, differ: str
) -> None:
    """Two files of as many rows and one range of ids, with other records (so not
    under ``singletons``, whose predicted records are all in the truth): the keys are
    seen not to line up, in the first block or only in the last, before any is
    overwritten, and the sides are matched from them (the general alignment, made
    to fail, is never reached); the table is the general alignment's."""
    from ereval.contingency import _packed, _table

    rng = np.random.default_rng(11)
    n = 3 * _packed.BLOCK
    gone = (5, 9) if differ == "first block" else (n - 7, n - 3)  # each side's own gap
    t_rec, p_rec = (np.delete(np.arange(n + 1, dtype=np.int64), k) for k in gone)
    t = pd.DataFrame({"record_id": t_rec, "cluster_id": rng.integers(0, 900, n)})
    p = pd.DataFrame({"record_id": p_rec, "cluster_id": rng.integers(0, 700, n)})
    p = p.sample(frac=1.0, random_state=3).reset_index(drop=True)
    expected = ContingencyTable.from_alignment(align(t, p, on_mismatch=policy))
    monkeypatch.setattr(_table, "aligned", _refuse)
    _same(contingency_table(t, p, on_mismatch=policy), expected)


@pytest.mark.parametrize("seed", range(4))
def test_count_cells_sorted_and_exact(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 500)), int(rng.integers(1, 40))
    t, p = rng.integers(0, k, n), rng.integers(0, k, n)
    rows, cols, counts = count_cells(t, p, k)
    dense = np.zeros((k, k), dtype=np.int64)
    np.add.at(dense, (t, p), 1)
    want_rows, want_cols = np.nonzero(dense)  # row-major: sorted by (row, col)
    assert rows.tolist() == want_rows.tolist()
    assert cols.tolist() == want_cols.tolist()
    assert counts.tolist() == dense[want_rows, want_cols].tolist()


def test_count_cells_with_codes_far_apart() -> None:
    t = np.array([2**40, 0, 2**40, 5])
    p = np.array([2**40, 1, 2**40, 1])
    rows, cols, counts = count_cells(t, p, 2**40 + 1)
    assert rows.tolist() == [0, 5, 2**40]
    assert cols.tolist() == [1, 1, 2**40]
    assert counts.tolist() == [1, 1, 2]
    assert count_cells(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 3)[0].size == 0


@pytest.mark.parametrize("kind", ["random", "few values", "equal top bits", "all equal"])
@pytest.mark.parametrize("n", [1, 2, 7, 5000])
def test_the_order_of_text_keys_is_an_argsort(kind: str, n: int) -> None:
    from ereval.io._words import key_order

    rng = np.random.default_rng(n)
    wide = rng.integers(0, 2**63, n, dtype=np.int64).view(np.uint64)
    keys = {
        "random": wide,
        "few values": rng.integers(0, 5, n).astype(np.uint64),
        # every key's top bits alike: the low bits alone tell them apart
        "equal top bits": (wide & np.uint64(0xFFFF << 48))
        | rng.integers(0, 9, n).astype(np.uint64),
        "all equal": np.full(n, 2**64 - 1, dtype=np.uint64),
    }[kind]
    asked: list[int] = []

    def key_at(at: np.ndarray) -> np.ndarray:
        asked.append(at.shape[0])
        return keys[at]

    # the keys kept, or sorted in their own array with the tied ones given again
    for order, distinct in (key_order(keys), key_order(keys.copy(), key_at=key_at)):
        assert distinct == (np.unique(keys).shape[0] == n)
        assert order.dtype == np.int64
        assert sorted(order.tolist()) == list(range(n))
        np.testing.assert_array_equal(keys[order], np.sort(keys))
        if np.unique(keys).shape[0] == n:
            np.testing.assert_array_equal(order, np.argsort(keys))
    # only keys whose top bits tie are asked for again, once
    assert len(asked) <= 1 and sum(asked) <= n
    if kind == "random":  # 64 random bits: no two keys tie in their top 51 or more
        assert asked == []
    if kind == "all equal" and n > 1:
        assert asked == [n]
    # keys that cannot be given again: not said to be distinct
    if asked:
        assert key_order(keys.copy(), key_at=lambda at: None)[1] is False


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(["error", "twinless", "intersection", "singletons"]),
    ids=st.sampled_from(["short", "long", "accented", "very long"]),
    repeat=st.sampled_from([None, "truth", "pred"]),
)
def test_text_ids_of_two_files_are_numbered_as_keys(
    seed: int, policy: str, ids: str, repeat: str | None
) -> None:
    """Text ids on sides of different lengths (two files; a record twice on either
    side): numbered by hashing where the text is short ASCII, else by the general
    alignment; the table, or the error, is the general alignment's."""
    from ereval.contingency import _table

    rng = np.random.default_rng(seed)
    stem = {"short": "r", "long": "record-of-file-", "accented": "fiché-", "very long": "x" * 70}
    pool = np.array([f"{stem[ids]}{k}" for k in rng.choice(10**6, 40, replace=False)])
    t_rec = pool[rng.random(40) < 0.7]
    p_rec = pool[rng.random(40) < 0.6]
    if repeat == "truth":
        t_rec = np.append(t_rec, t_rec[:1])
    if repeat == "pred":
        p_rec = np.append(p_rec, p_rec[-1:])
    if t_rec.shape[0] == p_rec.shape[0]:
        p_rec = p_rec[1:]
    t = pd.DataFrame({"record_id": t_rec, "cluster_id": rng.integers(0, 5, t_rec.shape[0])})
    p = pd.DataFrame({"record_id": p_rec, "cluster_id": rng.integers(0, 5, p_rec.shape[0]) + 50})
    numbered: list[bool] = []
    expected = _factorized_or_refused(t, p, policy)
    if expected is None:
        return
    keyed = ids in ("short", "long")  # short ASCII text; other text is refused
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_table, "hashed_keys", noting(_table.hashed_keys, numbered))
        if keyed:  # counted from the numbered keys alone
            patch.setattr(_table, "aligned", _refuse)
        got = contingency_table(t, p, on_mismatch=policy)
    assert numbered == [keyed]
    _same_under(policy, got, expected, p)


@pytest.mark.parametrize("policy", ["twinless", "intersection"])
def test_text_ids_of_two_large_files(policy: str) -> None:
    """Text ids of two files past the size where each side is hashed in its own
    thread: the general alignment's table."""
    rng = np.random.default_rng(3)
    pool = np.array([f"id-{k:09d}" for k in rng.choice(10**9, 80_000, replace=False)])
    t_rec, p_rec = pool[rng.random(80_000) < 0.9], pool[rng.random(80_000) < 0.8]
    t = pd.DataFrame({"record_id": t_rec, "cluster_id": rng.integers(0, 9000, t_rec.shape[0])})
    p = pd.DataFrame({"record_id": p_rec, "cluster_id": rng.integers(0, 9000, p_rec.shape[0])})
    p = p.sample(frac=1.0, random_state=1).reset_index(drop=True)
    expected = _factorized_table(t, p, on_mismatch=policy)
    _same(contingency_table(t, p, on_mismatch=policy), expected)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), min_size=1, max_size=60),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), max_size=80),
)
def test_cell_counts_are_the_records_of_each_cell_asked_for(
    records: list[tuple[int, int]], asked: list[tuple[int, int]]
) -> None:
    """``n_ij`` of any pairs, in any order, repeated or of an empty cell (0), against a
    count of the records; the codes are those of the table's rows and columns."""
    t, p = (np.array(side, dtype=np.int64) for side in zip(*records, strict=True))
    tab = ContingencyTable.from_codes(t, p, n_true_codes=7, n_pred_codes=10)
    rows = np.unique(t, return_inverse=True)[1].astype(np.int64)  # the table's row codes
    cols = np.unique(p, return_inverse=True)[1].astype(np.int64)
    count: dict[tuple[int, int], int] = {}
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        count[i, j] = count.get((i, j), 0) + 1
    pairs = [(i % tab.n_true_clusters, j % tab.n_pred_clusters) for i, j in asked]
    want = [count.get(pair, 0) for pair in pairs]
    got = tab.cell_counts(
        np.array([i for i, _ in pairs], dtype=np.int64),
        np.array([j for _, j in pairs], dtype=np.int64),
    )
    assert got.dtype == np.int64 and got.tolist() == want
    np.testing.assert_array_equal(
        tab.cell_counts(rows, cols),
        [count[k] for k in zip(rows.tolist(), cols.tolist(), strict=True)],
    )


def _ids_of(kind: str, pool: np.ndarray, top: int = 127) -> Any:
    """The ids ``pool`` (distinct integers from 0 to ``top``) written as ``kind``:
    integers spread over 2^63 (too far apart to pack with cluster codes where ``top``
    is among them), text of one length, or text of several lengths."""
    if kind == "wide":
        return pool * (2**63 // (top + 1)) - 2**62
    if kind == "one length":
        return pd.array([f"id-{v:016x}-x" for v in pool], dtype="string")
    return pd.array(["r" * int(v % 7) + str(v) for v in pool], dtype="string")


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["wide", "one length", "lengths"]),
    policy=st.sampled_from(["error", "twinless", "intersection", "singletons"]),
    repeat=st.sampled_from([None, "truth", "pred"]),
)
def test_sides_of_as_many_rows_and_other_records_are_numbered_by_hashing(
    seed: int, kind: str, policy: str, repeat: str | None
) -> None:
    """Two sides of as many rows holding other records (two files of one size), ids of
    one column: numbered over both sides by hashing and packed, the table (or the
    error) of the general alignment, ids numbered there by pandas' factorize."""
    from ereval.contingency import _table

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    pool = rng.permutation(2 * n)
    shift = int(rng.integers(1, n + 1))  # the prediction's records: shift on in the pool
    # one record in both, whose wide id is far from the others (no side packs as read)
    t_rec, p_rec = np.append(pool[:n], 127), np.append(pool[shift : shift + n], 127)
    if repeat == "truth":
        t_rec[-1] = t_rec[0]
    if repeat == "pred":
        p_rec[0] = p_rec[-1]
    t = pd.DataFrame({"record_id": _ids_of(kind, t_rec), "cluster_id": rng.integers(0, 5, n + 1)})
    p = pd.DataFrame(
        {"record_id": _ids_of(kind, p_rec), "cluster_id": rng.integers(0, 5, n + 1) * 3 + 100}
    )
    expected = _factorized_or_refused(t, p, policy)
    if expected is None:
        return
    numbered: list[bool] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_table, "hashed_keys", noting(_table.hashed_keys, numbered))
        got = contingency_table(t, p, on_mismatch=policy)
    assert numbered == [repeat is None]  # hashed, unless an id repeats on a side
    _same_under(policy, got, expected, p)


@pytest.mark.parametrize("kind", ["wide", "one length", "lengths"])
def test_sides_of_one_set_are_compared_as_a_set_once(kind: str) -> None:
    """Two sides of one set of ids of one column in two orders, past the size where
    text ids are compared as a set: compared so once (the answer kept for the
    alignment), and the table of the general alignment."""
    from ereval.io import _ids, _text_keys

    rng = np.random.default_rng(5)
    n = _text_keys.MIN_IDS + 10
    pool = rng.permutation(n)
    t = pd.DataFrame({"record_id": _ids_of(kind, pool, n), "cluster_id": rng.integers(0, 9, n)})
    p = pd.DataFrame({"record_id": _ids_of(kind, pool[::-1], n), "cluster_id": pool % 7 + 50})
    compared: list[bool] = []
    with pytest.MonkeyPatch.context() as patch:
        for name in ("same_set_positions", "same_int_set_positions"):
            patch.setattr(_ids, name, noting(getattr(_ids, name), compared))
        got = contingency_table(t, p)
    assert compared == [True]
    _same(got, _factorized_table(t, p))
