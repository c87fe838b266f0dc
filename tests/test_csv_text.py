"""The CSV and JSON writers of tables: the text of pandas' ``to_csv`` and of the json
module, faster."""

from __future__ import annotations

import datetime
import decimal
import io
import itertools
import json

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
    # booleans as SQL engines write them, true and false (pandas: True, False)
    sql = {True: "true", False: "false"}
    expected = frame.assign(b=frame["b"].map(sql), B=frame["B"].astype(object).map(sql))
    assert expected["B"].isna().sum() == n // 2
    assert _text(frame) == expected.to_csv(index=False)
    for column in frame.columns:  # one column alone: an empty value is quoted
        assert _text(frame[[column]]) == expected[[column]].to_csv(index=False)


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
    from ereval.cli._common import dumps_json

    frame = pd.DataFrame(rows, columns=["x", "n", "s"])
    frame["s"] = frame["s"].astype(object)
    assert _text(frame) == frame.to_csv(index=False)
    assert _json(frame) == dumps_json(frame.to_dict("records")) + "\n"


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
    from ereval.cli._common import dumps_json

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
    json_column = _json_text._column_text

    def counted_json(column: pd.Series) -> list[str]:
        records.append(len(column))
        return json_column(column)

    out = io.StringIO()
    with (
        mock.patch.object(_json_text, "CHUNK_ROWS", 300),
        mock.patch.object(_json_text, "_column_text", counted_json),
    ):
        _json_text.write_json(frame, out)
    assert records == [300] * 4 + [300] * 4 + [300] * 4 + [100] * 4
    assert out.getvalue() == dumps_json(frame.to_dict("records")) + "\n"


def _json(frame: pd.DataFrame) -> str:
    from ereval.cli._json_text import write_json

    out = io.StringIO()
    write_json(frame, out)
    return out.getvalue()


def _every_kind(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "f": np.where(
                rng.random(n) < 0.2, np.nan, rng.normal(size=n) * 10.0 ** rng.integers(-9, 18, n)
            ),
            "inf": np.where(rng.random(n) < 0.5, np.inf, -np.inf),
            "zeros": np.resize([0.0, -0.0, np.nan, -np.nan, 1.0, np.inf], n),
            "i": rng.integers(-(2**62), 2**62, n),
            "u": np.arange(n, dtype=np.uint64) + np.uint64(2**64 - 1000),
            "b": rng.random(n) < 0.5,
            "f32": rng.random(n).astype(np.float32),
            "s": pd.array(
                np.where(rng.random(n) < 0.3, None, 'a,"b"\n\\c\u00e9\U0001f600%s'), dtype="string"
            ),
            "o": pd.Series([1, "x", 2.5, None] * (n // 4), dtype=object),
            "nested": pd.Series([[1, [2]], {"a": [1]}, [], {}] * (n // 4), dtype=object),
            "typed": pd.Series(
                [datetime.date(2000, 1, 2), decimal.Decimal("1.50"), np.int64(3), np.float64("nan")]
                * (n // 4),
                dtype=object,
            ),
            "c": pd.Categorical(np.where(rng.random(n) < 0.5, "p", "q q")),
            "t": pd.to_datetime("2024-01-01") + pd.to_timedelta(np.arange(n), unit="s"),
            'k%s"\u00e9': 1,
            7: 2.5,
        }
    )


def test_every_kind_of_column_is_written_as_json_writes_its_rows() -> None:
    """The text of Python's json module (indented, NaN as null) of the list of the rows,
    for numbers of every width, text of any character, objects, nested lists, dates,
    decimals and keys that are not text or hold '%'."""
    from ereval.cli._common import dumps_json

    frame = _every_kind(400)
    assert _json(frame) == dumps_json(frame.to_dict("records")) + "\n"
    for column in frame.columns:
        assert _json(frame[[column]]) == dumps_json(frame[[column]].to_dict("records")) + "\n"
    assert _json(frame.iloc[:0]) == "[]\n"
    assert _json(pd.DataFrame(index=range(2))) == "[\n  {},\n  {}\n]\n"


def test_json_missing_values_are_null() -> None:
    # pandas' own missing values (which the json module cannot write) as None is
    frame = pd.DataFrame(
        {
            "I": pd.array([1, None], dtype="Int64"),
            "B": pd.array([True, None], dtype="boolean"),
            "T": pd.to_datetime(["2020-01-01", None]),
            "S": pd.array(["x", None], dtype="string"),
        }
    )
    assert json.loads(_json(frame)) == [
        {"I": 1, "B": True, "T": "2020-01-01 00:00:00", "S": "x"},
        {"I": None, "B": None, "T": None, "S": None},
    ]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=5))
def test_frames_written_one_after_another_are_one_list(sizes: list[int]) -> None:
    from ereval.cli._json_text import write_json_chunks

    frame = _every_kind(sum(sizes) // 4 * 4 + 4).iloc[: sum(sizes)]
    bounds = np.cumsum([0, *sizes])
    out = io.StringIO()
    write_json_chunks((frame.iloc[a:b] for a, b in itertools.pairwise(bounds)), out)
    assert out.getvalue() == _json(frame)
