"""Record keys of several columns numbered as integers over both sides, and the table
counted from them: the same as the table of the keys' JSON text, record for record."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval import InputTypeError
from ereval.contingency import ContingencyTable, contingency_table
from ereval.io import KeyParts, align, as_membership, integer_keys
from ereval.io import _hashed_keys as hashed_module
from ereval.io import _integer_keys as keys_module
from ereval.io._hashed_keys import hashed_keys

from ._spies import noting

FIELDS = ("rows", "cols", "counts", "true_sizes", "pred_sizes")

TEXT = st.sampled_from(["", "a", "b", "ab", "é", '"', "\\", "a,b", "[1]"])
INTEGER = st.sampled_from([0, 1, -1, 7, -(2**15), 2**15, 2**16])


def _parts(values: list[tuple[object, ...]], kinds: tuple[str, ...]) -> KeyParts:
    columns = []
    for k, kind in enumerate(kinds):
        column = [v[k] for v in values]
        columns.append(pa.array(column, pa.string()) if kind == "text" else np.array(column))
    return KeyParts(tuple(f"c{k}" for k in range(len(kinds))), tuple(columns))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), kinds=st.lists(st.sampled_from(["text", "integer"]), min_size=2, max_size=3))
def test_integer_keys_are_equal_exactly_where_the_keys_are(
    data: st.DataObject, kinds: list[str]
) -> None:
    """Any two keys, of one side or of both: their integers are equal if and only if
    the keys are (a brute force over every pair)."""
    left, right = _drawn(data, kinds, {"text": TEXT, "integer": INTEGER})
    got = integer_keys(_parts(left, tuple(kinds)), _parts(right, tuple(kinds)))
    assert got is not None
    codes = _equal_where_the_keys_are(got, left + right)
    assert min(codes) >= 0 and got[0].dtype == got[1].dtype == np.int64


def _drawn(
    data: st.DataObject, kinds: list[str], part: dict[str, st.SearchStrategy[object]]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Two sides' keys of the given kinds, each part drawn from ``part[kind]``."""
    key = st.tuples(*(part[k] for k in kinds))
    return data.draw(st.lists(key, min_size=1, max_size=25)), data.draw(
        st.lists(key, min_size=1, max_size=25)
    )


def _equal_where_the_keys_are(
    got: tuple[np.ndarray, np.ndarray], keys: list[tuple[object, ...]]
) -> list[int]:
    """Both sides' numbers, checked over every pair: equal if and only if their keys are
    (``keys``: the first side's, then the second's)."""
    codes = [*got[0].tolist(), *got[1].tolist()]
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (codes[i] == codes[j]) == (keys[i] == keys[j])
    return codes


def test_integer_keys_past_62_bits_are_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    text_int = KeyParts(("s", "n"), (pa.array(["x"]), np.array([1])))
    int_int = KeyParts(("s", "n"), (np.array([1]), np.array([1])))
    assert integer_keys(text_int, int_int) is None  # kinds differ: compared as text instead
    # 2^62 + 1 values by 2^62 + 1: past 2^62, so numbered by position instead
    wide = KeyParts(("s", "n"), (np.array([0, 2**62]), np.array([0, 2**62])))
    reversed_wide = KeyParts(("s", "n"), (np.array([2**62, 0]), np.array([2**62, 0])))
    assert [k.tolist() for k in integer_keys(wide, reversed_wide)] == [[0, 1], [1, 0]]  # type: ignore[union-attr]
    # unsigned ids past 2^63 are numbered from their least
    big = KeyParts(("s", "n"), (pa.array(["x", "x"]), np.array([2**63 + 5, 2**63], np.uint64)))
    assert [k.tolist() for k in integer_keys(big, big)] == [[5, 0], [5, 0]]  # type: ignore[union-attr]
    monkeypatch.setattr(keys_module, "INTEGER_KEY_SPAN", 5)
    small = KeyParts(("s", "n"), (pa.array(["x", "y"]), np.array([1, 3])))
    other = KeyParts(("s", "n"), (pa.array(["y", "z"]), np.array([3, 1])))
    assert [k.tolist() for k in integer_keys(small, other)] == [[0, 1], [1, 2]]  # type: ignore[union-attr]
    narrow = KeyParts(("s", "n"), (pa.array(["x", "y"]), np.array([1, 2])))
    assert [k.tolist() for k in integer_keys(narrow, narrow)] == [[0, 3], [0, 3]]  # type: ignore[union-attr]
    # past 2^62 and with unsigned ids past 2^63: neither way applies
    huge = KeyParts(("s", "n"), (np.array([0, 2**62]), np.array([2**63, 1], np.uint64)))
    assert integer_keys(huge, huge) is None


ASCII = st.sampled_from(["", "a", "b", "ab", '"', "\\", "a,b", "[1]", "x" * 9, "x" * 17])
WIDE = st.sampled_from([0, 1, -1, 2**62, -(2**63), 2**63 - 1, 10**12])


@settings(max_examples=150, deadline=None)
@given(data=st.data(), kinds=st.lists(st.sampled_from(["text", "integer"]), min_size=2, max_size=3))
def test_hashed_keys_are_equal_exactly_where_the_keys_are(
    data: st.DataObject, kinds: list[str]
) -> None:
    """Keys hashed over both sides (short ASCII text, integers of any size): any two
    keys get one number if and only if they are equal (a brute force over every
    pair); a key given twice on one side is not numbered."""
    left, right = _drawn(data, kinds, {"text": ASCII, "integer": WIDE})
    got = hashed_keys(_parts(left, tuple(kinds)), _parts(right, tuple(kinds)))
    if len(set(left)) < len(left) or len(set(right)) < len(right):
        assert got is None
        return
    assert got is not None
    keys = left + right
    codes = _equal_where_the_keys_are(got, keys)
    assert got[0].tolist() == list(range(len(left)))  # the first side by position
    assert sorted(set(codes)) == list(range(len(set(keys))))  # then the second's own


def _weakened(keep: int, of: str) -> Callable[[np.ndarray], np.ndarray]:
    """A hash of ``hashed_module`` (``of``) kept to the bits of ``keep``: a function of
    the key still, but one that many keys share, wholly or in their top bits."""
    real = getattr(hashed_module, of)
    return lambda words: real(words) & np.uint64(keep)


#: Hashes that many keys share: every key one; four values in the top bits only (every
#: key ties with its neighbours); the top bits all equal, the rest told apart; three
#: values, spread over the top and the bottom bits.
WEAK = [0, 0xC000000000000000, 0x0000FFFFFFFFFFFF, 0xC000000000000003]


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    kinds=st.lists(st.sampled_from(["text", "integer"]), min_size=1, max_size=3),
    keep=st.sampled_from(WEAK),
    chunk=st.integers(1, 4),
)
def test_hashes_shared_by_other_keys_are_never_trusted(
    data: st.DataObject, kinds: list[str], keep: int, chunk: int
) -> None:
    """Hashes are never trusted: where other keys share a hash, wholly or in its top
    bits, within a side or across the sides, the keys are still numbered exactly as
    they are equal (a brute force over every pair), or not numbered at all (three
    keys of one hash); a key given twice on one side is never numbered. The sorted
    hashes are gone through a few at a time, so that runs of them cross chunks."""
    left, right = _drawn(data, kinds, {"text": ASCII, "integer": WIDE})
    with pytest.MonkeyPatch.context() as patch:
        for of in ("word_hashes", "_mixed"):
            patch.setattr(hashed_module, of, _weakened(keep, of))
        patch.setattr(
            hashed_module,
            "chunks",
            lambda n: [slice(i, min(i + chunk, n)) for i in range(0, n, chunk)],
        )
        got = hashed_keys(_parts(left, tuple(kinds)), _parts(right, tuple(kinds)))
    if len(set(left)) < len(left) or len(set(right)) < len(right):
        assert got is None
        return
    if got is None:  # only three keys of one full hash refuse distinct keys
        assert keep in (0, 0xC000000000000000, 0xC000000000000003)
        return
    codes = _equal_where_the_keys_are(got, left + right)
    assert got[0].tolist() == list(range(len(left)))
    assert sorted(set(codes)) == list(range(len(set(left + right))))


def test_hashes_shared_by_other_keys_give_the_table_of_their_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys of a text part whose hash is the same for all but in its low bits: the
    table is still that of the keys' text."""
    t = pd.DataFrame({"source": ["x", "y", "z"], "uid": [1, 2, 3], "cluster_id": [0, 0, 1]})
    p = pd.DataFrame({"source": ["z", "y", "x"], "uid": [3, 2, 1], "cluster_id": [5, 6, 6]})
    numbered: list[bool] = []
    with monkeypatch.context() as patch:
        for of in ("word_hashes", "_mixed"):
            patch.setattr(hashed_module, of, _weakened(0x0000FFFFFFFFFFFF, of))
        patch.setattr(keys_module, "INTEGER_KEY_SPAN", 2)  # numbered by hashing
        patch.setattr(keys_module, "hashed_keys", noting(hashed_keys, numbered))
        got = contingency_table(t, p, record_col=["source", "uid"])
    assert numbered == [True]
    _same(got, _text_table(t, p))


def _json(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame keyed by the JSON text of its two key columns, in one column."""
    key = [f'["{s}",{n}]' for s, n in zip(frame["source"], frame["uid"], strict=True)]
    return pd.DataFrame(
        {"record_id": pd.array(key, dtype="string"), "cluster_id": frame["cluster_id"]}
    )


def _text_table(t: pd.DataFrame, p: pd.DataFrame, **options: Any) -> ContingencyTable:
    """The table of the keys' JSON text, by the general alignment, the text numbered
    by pandas' factorize (the reference: text ids are otherwise hashed as keys are)."""
    from ereval.io import _hashed_keys

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_hashed_keys, "hashed_keys", lambda a, b: None)
        return ContingencyTable.from_alignment(align(_json(t), _json(p), **options))


def _same(a: ContingencyTable, b: ContingencyTable) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(["error", "twinless", "intersection", "singletons"]),
    repeat=st.sampled_from([None, "truth", "pred"]),
    hashed=st.booleans(),
)
def test_the_table_of_keys_is_that_of_their_text(
    seed: int, policy: str, repeat: str | None, hashed: bool
) -> None:
    """Two sides keyed by (text, integer), holding records of either side only and a
    record twice on one side, numbered in mixed radix or by hashing: the table, or
    the error, of the keys' JSON text."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    pool = pd.DataFrame(
        {"source": rng.choice(["alpha", "b", "c d"], n), "uid": rng.integers(-3, 5, n) * 10**12}
    ).drop_duplicates(ignore_index=True)
    in_t = rng.random(len(pool)) < rng.uniform(0.3, 1.0)
    in_p = rng.random(len(pool)) < rng.uniform(0.3, 1.0)
    in_t[0] = in_p[-1] = True
    t, p = pool[in_t].reset_index(drop=True), pool[in_p].reset_index(drop=True)
    if repeat == "truth":
        t = pd.concat([t, t.iloc[-1:]], ignore_index=True)
    if repeat == "pred":
        p = pd.concat([p, p.iloc[:1]], ignore_index=True)
    t = t.assign(cluster_id=rng.integers(0, 4, len(t)))
    p = p.assign(cluster_id=rng.integers(0, 4, len(p)) * 3 + 100).sample(
        frac=1.0, random_state=seed % 999
    )
    key = ["source", "uid"]
    with pytest.MonkeyPatch.context() as patch:
        numbered: list[bool] = []
        if hashed:  # every text part taken to hold ids of its own
            patch.setattr(keys_module, "SAMPLE", 1)
            patch.setattr(keys_module, "hashed_keys", noting(hashed_keys, numbered))
        try:
            expected = _text_table(t, p, on_mismatch=policy)
        except ValueError as exc:
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                contingency_table(t, p, on_mismatch=policy, record_col=key)
            return
        got = contingency_table(t, p, on_mismatch=policy, record_col=key)
    assert numbered == ([True] if hashed else [])  # hashed when asked, and not refused
    if policy == "singletons":  # the lone records' columns: compared as a set of sizes
        assert sorted(got.pred_sizes.tolist()) == sorted(expected.pred_sizes.tolist())
        assert (
            got.n_cells == expected.n_cells
            and got.true_sizes.tolist() == expected.true_sizes.tolist()
        )
        return
    _same(got, expected)


def test_keys_are_counted_without_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys of several columns on both sides: neither the general alignment nor the
    keys' JSON text is made (both made to fail here), and a repeat still gets the
    error naming the key as text."""
    from ereval.contingency import _table

    t = pd.DataFrame(
        {"source": ["a", "a", "b", "b"], "uid": [1, 2, 1, 2], "cluster_id": [1, 2, 1, 3]}
    )
    p = pd.DataFrame(
        {"source": ["b", "a", "b", "c"], "uid": [2, 1, 1, 9], "cluster_id": [8, 7, 7, 8]}
    )
    joined = KeyParts.joined

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the general path was used")

    with monkeypatch.context() as patch:
        patch.setattr(_table, "aligned", refuse)
        patch.setattr(KeyParts, "joined", refuse)
        tab = contingency_table(t, p, record_col=["source", "uid"], on_mismatch="twinless")
    # (a,1) (b,1) together on both sides; (b,2) alone; (a,2) and (c,9) on one side only
    assert (tab.rows.tolist(), tab.cols.tolist(), tab.counts.tolist()) == ([0, 2], [0, 1], [2, 1])
    assert (tab.true_sizes.tolist(), tab.pred_sizes.tolist()) == ([2, 1, 1], [2, 2])
    assert KeyParts.joined is joined
    twice = pd.concat([t, t.iloc[:1]], ignore_index=True)
    with pytest.raises(
        ValueError, match=re.escape("'truth' has 1 duplicate record ids (e.g. '[\"a\",1]')")
    ):
        contingency_table(twice, p, record_col=["source", "uid"], on_mismatch="twinless")


def test_a_membership_of_a_key_makes_its_text_on_first_use() -> None:
    frame = pd.DataFrame({"s": ["x", "y"], "n": [1, 2], "c": [0, 0]})
    m = as_membership(frame, record_col=["s", "n"], cluster_col="c")
    assert len(m) == 2 and m.key is not None
    assert m.records.tolist() == ['["x",1]', '["y",2]']
    with pytest.raises(InputTypeError, match="holds float values"):
        as_membership(frame.assign(n=[1.5, 2.0]), record_col=["s", "n"], cluster_col="c")


def test_large_keys_are_numbered_in_two_threads() -> None:
    """From ``MIN_SIZE`` records each side is read and numbered in its own thread: the
    same table as the keys' text, on two sides of different records."""
    from ereval._threads import MIN_SIZE

    rng = np.random.default_rng(5)
    n = MIN_SIZE + 7
    names = np.array(["left", "right", "x"])
    pool = pd.DataFrame({"source": names[np.arange(n) % 3], "uid": np.arange(n) // 3})
    t = pool.iloc[: n - 100].assign(cluster_id=rng.integers(0, n // 4, n - 100))
    p = pool.iloc[50:].assign(cluster_id=rng.integers(0, n // 4, n - 50) + n).sample(frac=1.0)
    got = contingency_table(t, p, record_col=["source", "uid"], on_mismatch="twinless")
    _same(got, _text_table(t, p, on_mismatch="twinless"))


def test_a_side_that_does_not_pack_sends_both_the_general_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When one side's numbers do not pack (their range and codes past 63 bits), the
    other side's codes, already packed in place, are not used: the general path
    encodes both again and gives the table of the keys' text."""
    from ereval.contingency import _table

    t = pd.DataFrame(
        {"source": ["a", "a", "b", "b"], "uid": [1, 2, 1, 2], "cluster_id": [1, 2, 1, 3]}
    )
    p = pd.DataFrame(
        {"source": ["b", "a", "b", "a"], "uid": [2, 1, 1, 2], "cluster_id": [8, 7, 7, 8]}
    )
    pack = _table.pack_side
    packed: list[bool] = []

    def pack_truth_only(records: np.ndarray, codes: np.ndarray, n_codes: int) -> object:
        packed.append(not packed)
        return pack(records, codes, n_codes) if packed[-1] else None

    monkeypatch.setattr(_table, "pack_side", pack_truth_only)
    got = contingency_table(t, p, record_col=["source", "uid"])
    assert packed == [True, False]
    _same(got, _text_table(t, p))


def test_a_text_part_of_ids_of_its_own_is_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text part whose first values are mostly distinct (ids of its own, not a data
    set's name) is not numbered by dictionaries, which would cost more than the keys:
    the keys are hashed, without their text. A part of few values is numbered, and
    so is a short column."""
    from ereval.contingency import _table

    monkeypatch.setattr(keys_module, "SAMPLE", 64)
    n = 200
    ids = pa.array([f"id-{i:05d}" for i in range(n)])
    names = pa.array(["left", "right"] * (n // 2))
    numbers = np.arange(n)
    numbered: list[bool] = []
    monkeypatch.setattr(keys_module, "hashed_keys", noting(hashed_keys, numbered))
    mostly = pa.array([f"s{i % 8}" for i in range(n)])  # 8 distinct of 64: one in 8
    by_parts = integer_keys(
        KeyParts(("s", "n"), (mostly, numbers)), KeyParts(("s", "n"), (mostly, numbers))
    )
    short = KeyParts(("s", "u"), (names[:63], ids[:63]))
    assert by_parts is not None and integer_keys(short, short) is not None and not numbered
    t = pd.DataFrame(
        {"source": names.to_pylist(), "uid": ids.to_pylist(), "cluster_id": numbers // 3}
    )
    p = t.assign(cluster_id=numbers // 4 + 1000).iloc[::-1].iloc[5:]
    with monkeypatch.context() as patch:  # neither the general path nor the keys' text
        patch.setattr(_table, "aligned", AssertionError)
        patch.setattr(KeyParts, "joined", AssertionError)
        got = contingency_table(t, p, record_col=["source", "uid"], on_mismatch="twinless")
    assert numbered == [True]
    key = [f'["{s}","{u}"]' for s, u in zip(t["source"], t["uid"], strict=True)]
    expected = contingency_table(
        pd.DataFrame({"record_id": key, "cluster_id": t["cluster_id"]}),
        pd.DataFrame({"record_id": key[::-1][5:], "cluster_id": p["cluster_id"]}),
        on_mismatch="twinless",
    )
    _same(got, expected)


def test_large_hashed_keys_in_two_threads() -> None:
    """From ``MIN_SIZE`` records, keys of a text id and a number hashed in two threads
    on two sides of different records, and from twice as many each half of the second
    side matched in its own thread: the table of the keys' text."""
    from ereval._threads import MIN_SIZE

    rng = np.random.default_rng(9)
    n = 2 * MIN_SIZE + 11
    pool = pd.DataFrame({"source": [f"u{i:07x}" for i in range(n)], "uid": np.arange(n) % 5})
    t = pool.iloc[: n - 100].assign(cluster_id=rng.integers(0, n // 3, n - 100))
    p = pool.iloc[80:].assign(cluster_id=rng.integers(0, n // 3, n - 80) + n).sample(frac=1.0)
    numbered: list[bool] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(keys_module, "SAMPLE", 1024)  # fewer records than the sample
        patch.setattr(keys_module, "hashed_keys", noting(hashed_keys, numbered))
        got = contingency_table(t, p, record_col=["source", "uid"], on_mismatch="twinless")
    assert numbered == [True]
    _same(got, _text_table(t, p, on_mismatch="twinless"))


def test_hashed_keys_of_text_typed_otherwise_on_each_side() -> None:
    """Text parts as strings on one side and large strings on the other, sliced
    arrays, and integers of different widths and signs: the same keys meet."""
    a = KeyParts(
        ("s", "u"), (pa.array(["q", "x", "y", "z"]).slice(1), np.array([1, 2, 3], np.int32))
    )
    b = KeyParts(
        ("s", "u"), (pa.array(["z", "y", "w"], pa.large_string()), np.array([3, 2, 1], np.uint64))
    )
    assert [k.tolist() for k in hashed_keys(a, b)] == [[0, 1, 2], [2, 1, 3]]  # type: ignore[union-attr]
