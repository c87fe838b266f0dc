"""The registry of clusterings (``tests/test_engine_statistics.py``) joined into one input
per file kind and policy, for engines that are slow to start (Spark).

Case ``k``'s ids are prefixed so that its clusters keep their relative order and
occupy one block of the table, which :func:`blocks` cuts back into one table per
case. Text record ids are chosen to trip a careless reader: ``01``, ``1`` and
``001`` are three ids, ``NA``, ``null``, ``NaN`` and ``None`` are ordinary ids,
surrounding spaces count.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ereval.contingency import ContingencyTable

from .test_engine_statistics import CASES, Frames, _twinless

#: Text ids that must stay distinct and never read as missing.
TRICKY = ["01", "1", "001", "NA", "null", " x ", "x", "NaN", "None", "a,b", 'q"q', "é", "-0", "0"]
INT_STRIDE = 10_000_000


def text_id(label: int) -> str:
    """The text id of a record label: the tricky ids first, then ``r<label>``."""
    return TRICKY[label] if 0 <= label < len(TRICKY) else f"r{label}"


def prefixed(frames: Frames, ids: str, case: int) -> Frames:
    """A case's truth and prediction with ids of the given kind, prefixed by the case."""
    out = []
    for f in frames:
        recs = np.asarray(f["record_id"], dtype=np.int64)
        clusters = [f"{case:03d}|{c}" for c in f["cluster_id"]]
        if ids == "integer":
            records: object = recs + case * INT_STRIDE
        else:
            records = [f"{case:03d}|{text_id(int(r))}" for r in recs]
        out.append(pd.DataFrame({"record_id": records, "cluster_id": clusters}))
    return out[0], out[1]


def registry(policy: str, ids: str) -> list[tuple[str, Frames]]:
    """Every case of the registry under ``policy``, prefixed, in order."""
    return [
        (name, prefixed(_twinless(make(), policy), ids, k))
        for k, (name, make) in enumerate(CASES.items())
    ]


def combined(cases: list[tuple[str, Frames]]) -> Frames:
    """Every case in one truth and one prediction, each in its own block."""
    t = pd.concat([f[0] for _, f in cases], ignore_index=True)
    p = pd.concat([f[1] for _, f in cases], ignore_index=True)
    return t, p.sample(frac=1.0, random_state=0).reset_index(drop=True)


def write(table: pd.DataFrame, path: Path) -> Path:
    """Write a CSV (every value text as written) or Parquet file."""
    if path.suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
    return path


def blocks(table: ContingencyTable, shapes: list[tuple[int, int]]) -> list[ContingencyTable]:
    """Cut a block-diagonal table into its blocks of ``(true, predicted)`` clusters."""
    out = []
    a = b = 0
    for nt, np_ in shapes:
        keep = (table.rows >= a) & (table.rows < a + nt)
        assert np.all((table.cols[keep] >= b) & (table.cols[keep] < b + np_))
        out.append(
            ContingencyTable(
                table.rows[keep] - a,
                table.cols[keep] - b,
                table.counts[keep],
                table.true_sizes[a : a + nt],
                table.pred_sizes[b : b + np_],
                table.policy,
            )
        )
        a, b = a + nt, b + np_
    assert a == table.true_sizes.shape[0] and b == table.pred_sizes.shape[0]
    return out
