"""The CSV writer of tables written to files: the text of pandas' ``to_csv``, faster."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.cli._csv_text import write_csv
from ereval.cli._output import write_table


def _text(frame: pd.DataFrame) -> str:
    out = io.StringIO()
    write_csv(frame, out)
    return out.getvalue()


def test_every_kind_of_column_is_written_as_pandas_writes_it() -> None:
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "f": np.where(
                rng.random(n) < 0.2, np.nan, rng.normal(size=n) * 10.0 ** rng.integers(-9, 18, n)
            ),
            "inf": np.where(rng.random(n) < 0.5, np.inf, -np.inf),
            "zero": -0.0,
            "zeros": np.resize([0.0, -0.0, np.nan, -np.nan, 1.0, np.inf], n),  # as they are
            "i": rng.integers(-(2**62), 2**62, n),
            "u": np.arange(n, dtype=np.uint16),
            "b": rng.random(n) < 0.5,
            "f32": rng.random(n).astype(np.float32),
            "I": pd.array(np.where(rng.random(n) < 0.3, None, np.arange(n)), dtype="Int64"),
            "B": pd.array([True, None, False, None] * (n // 4), dtype="boolean"),
            "s": pd.array(np.where(rng.random(n) < 0.3, None, 'a,"b"\nc'), dtype="string"),
            "o": pd.Series([1, "x", 2.5, None] * (n // 4), dtype=object),
            "c": pd.Categorical(np.where(rng.random(n) < 0.5, "p", "q q")),
            "t": pd.to_datetime("2024-01-01") + pd.to_timedelta(np.arange(n), unit="s"),
        }
    )
    frame.loc[3, "t"] = pd.NaT
    assert _text(frame) == frame.to_csv(index=False)
    for column in frame.columns:  # one column alone: an empty value is quoted
        assert _text(frame[[column]]) == frame[[column]].to_csv(index=False)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-(2**63), 2**63 - 1),
            st.one_of(st.none(), st.text(max_size=6)),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_any_floats_ints_and_text_match_pandas(rows: list[tuple[float, int, str | None]]) -> None:
    frame = pd.DataFrame(rows, columns=["x", "n", "s"])
    frame["s"] = frame["s"].astype(object)
    assert _text(frame) == frame.to_csv(index=False)


def test_written_files_read_back_to_the_same_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    frame = pd.DataFrame({"id": ["01", "1", "a,b"], "v": [0.1, np.nan, 1e-300]})
    for name in ("t.csv", "t.csv.gz"):
        write_table(frame, tmp_path / name)
        back = pd.read_csv(tmp_path / name, dtype={"id": str})
        pd.testing.assert_frame_equal(back, frame)
    assert (tmp_path / "t.csv").read_text() == frame.to_csv(index=False)


def _mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "id": np.array([f"r,{k}" if k % 5 else f'q"{k}' for k in range(n)], dtype=object),
            "i": rng.integers(-(2**62), 2**62, n),
            "f": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            "s": pd.array(np.where(rng.random(n) < 0.3, None, "x"), dtype="string"),
        }
    )


_FIELDS = st.one_of(
    st.none(), st.text(alphabet=',"\r\n \tx\u00e9', max_size=4), st.text(max_size=3)
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(_FIELDS, _FIELDS), max_size=30),
    st.integers(1, 9),
    st.integers(0, 2**32 - 1),
)
def test_rows_written_a_chunk_at_a_time_are_the_whole_tables_text(
    texts: list[tuple[str | None, str | None]], chunk: int, seed: int
) -> None:
    """Quotes, commas, line breaks and empty fields, in tables of one column and of
    several, written in chunks of any size: the text of pandas (whose writer is the
    csv module's) and of the JSON of the whole list of rows."""
    from unittest import mock

    from ereval.cli import _csv_text, _json_text
    from ereval.cli._common import dumps_json

    frame = _mixed(len(texts), seed)
    frame["t"] = pd.Series([t for t, _ in texts], dtype=object)
    frame["u"] = pd.array([u for _, u in texts], dtype="string")
    with mock.patch.object(_csv_text, "CHUNK_ROWS", chunk):
        assert _text(frame) == frame.to_csv(index=False)
        for column in ("t", "u", "f"):
            assert _text(frame[[column]]) == frame[[column]].to_csv(index=False)
    out = io.StringIO()
    with mock.patch.object(_json_text, "CHUNK_ROWS", chunk):
        _json_text.write_json(frame, out)
    assert out.getvalue() == dumps_json(frame.to_dict("records")) + "\n"


def test_a_large_table_is_turned_into_text_a_chunk_at_a_time() -> None:
    from unittest import mock

    from ereval.cli import _csv_text, _json_text

    frame = _mixed(1000, 3)
    seen: list[int] = []
    column_text = _csv_text._column_text

    def counted(column: pd.Series) -> list[object]:
        seen.append(len(column))
        return column_text(column)

    with (
        mock.patch.object(_csv_text, "CHUNK_ROWS", 128),
        mock.patch.object(_csv_text, "_column_text", counted),
    ):
        assert _text(frame) == frame.to_csv(index=False)
    assert max(seen) == 128 and sum(seen) == 1000 * frame.shape[1]
    records: list[int] = []
    to_dict = pd.DataFrame.to_dict

    def counted_dict(self: pd.DataFrame, *args: object, **kwargs: object) -> object:
        records.append(len(self))
        return to_dict(self, *args, **kwargs)  # type: ignore[call-overload]

    out = io.StringIO()
    with (
        mock.patch.object(_json_text, "CHUNK_ROWS", 300),
        mock.patch.object(pd.DataFrame, "to_dict", counted_dict),
    ):
        _json_text.write_json(frame, out)
    assert records == [300, 300, 300, 100]
