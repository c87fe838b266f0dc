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
