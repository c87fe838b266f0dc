"""Text ids put in the order of their bytes a word at a time (``io._text_order``),
against Arrow's own sort of the strings."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.io import in_id_order
from ereval.io._text_order import text_order
from ereval.io._words import word_width

# ids over a small alphabet, so that many share prefixes of every length (within a
# word, across words, and all of them)
_ASCII = st.text(alphabet="ab0-~\x01\x7f", max_size=40)


def _arrow(ids: pa.Array) -> list[int]:
    return pc.array_sort_indices(ids).to_numpy().tolist()


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(_ASCII, unique=True, max_size=60), prefix=st.text("xy/:", max_size=20))
def test_the_order_is_arrows_order_of_the_bytes(ids: list[str], prefix: str) -> None:
    column = pa.array([prefix + x for x in ids], type=pa.string())
    got = text_order(column)
    if word_width([column]) is None:  # no id, or lengths too uneven to pad
        assert got is None
        return
    assert got is not None
    assert got.tolist() == _arrow(column)


@pytest.mark.parametrize(
    "ids",
    [
        ["rec-9", "rec-10", "rec-1", "rec-"],  # a shorter id before the ids it begins
        ["a" * 64, "a" * 63, "a" * 63 + "b", "b"],  # the longest laid out, 8 words
        [f"https://example.org/person/{k}" for k in (10, 9, 100, 1, 0, 99)],  # 3 words alike
        ["x" * 17 + str(k) for k in range(300)],  # runs of ties over several rounds
        # two runs of ties through two words, told apart by bits read across a word's end
        [p + "c" * 8 + k for p in ("a" * 8, "b" * 8) for k in ("2", "1", "10", "")],
        ["\x7f", "\x01", "~", "0"],  # the extremes of ASCII without NUL
        ["only"],
    ],
)
def test_hand_picked_orders(ids: list[str]) -> None:
    column = pa.array(ids)
    got = text_order(column)
    assert got is not None
    assert got.tolist() == _arrow(column)


@pytest.mark.parametrize(
    "ids",
    [
        ["é", "e"],  # not ASCII
        ["a\x00b", "a"],  # a NUL byte would tie with the padding
        ["a" * 65, "b"],  # longer than the layout takes
        pa.array(["a", None]),  # a missing id
    ],
)
def test_ids_the_words_cannot_hold_are_left_to_arrow(ids: list[str] | pa.Array) -> None:
    column = ids if isinstance(ids, pa.Array) else pa.array(ids)
    assert text_order(column) is None
    if column.null_count == 0:  # the caller's sort: still the order of the bytes
        index = np.arange(len(column), dtype=np.int64)
        assert in_id_order(column, index).tolist() == _arrow(column)


def test_many_ids_in_random_order() -> None:
    rng = np.random.default_rng(7)
    numbers = rng.permutation(200_000)
    for make in (lambda k: f"rec-{k}", lambda k: f"{k * 2654435761 % 2**40:x}"):
        column = pa.array([make(int(k)) for k in numbers])
        got = text_order(column)
        assert got is not None
        assert got.tolist() == _arrow(column)
