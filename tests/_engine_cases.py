"""The registry of clustering pairs that every engine must turn into the same table.

Each case is a truth and a prediction over small integer record and cluster
labels, and the mismatch policies it is valid under (cases whose sides hold
different records are scored under ``intersection`` and ``twinless`` only).
Written as files, the labels become integer ids (Parquet) or text ids chosen to
trip a careless reader: ``01``, ``1`` and ``001`` are three ids, ``NA``,
``null``, ``NaN`` and ``None`` are ordinary ids, surrounding spaces count.

Engines are slow to start, so the cases are also joined into one input per
file kind and policy (:func:`combined`): case ``k``'s ids are prefixed so that
each case's clusters keep their relative order and occupy one block of the
table, which :func:`blocks` cuts back into one table per case.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ereval.contingency import ContingencyTable

ALL_POLICIES = ("error", "intersection", "twinless")
MISMATCH_ONLY = ("intersection", "twinless")
#: Text ids that must stay distinct and never read as missing.
TRICKY = ["01", "1", "001", "NA", "null", " x ", "x", "NaN", "None", "a,b", 'q"q', "é", "-0", "0"]
INT_STRIDE = 1_000_000


@dataclass(frozen=True)
class Case:
    """A truth and a prediction as ``{record: cluster}`` over small integers."""

    name: str
    truth: dict[int, int]
    pred: dict[int, int]
    policies: tuple[str, ...] = ALL_POLICIES


def _noisy(n: int, k: int, moved: float, seed: int) -> tuple[dict[int, int], dict[int, int]]:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, size=n)
    p = t.copy()
    move = rng.random(n) < moved
    p[move] = rng.integers(0, k + 3, size=int(move.sum()))
    return dict(enumerate(t.tolist())), dict(enumerate(p.tolist()))


def _cases() -> list[Case]:
    noisy_t, noisy_p = _noisy(300, 60, 0.25, 3)
    small_t, small_p = _noisy(20, 5, 0.4, 8)
    giant = dict.fromkeys(range(40), 0)
    singles = {r: r for r in range(15)}
    split = {r: r % 4 for r in range(40)}
    return [
        Case("single_record", {0: 0}, {0: 0}),
        Case("all_singletons", singles, singles),
        Case("singletons_vs_one_cluster", singles, dict.fromkeys(range(15), 7)),
        Case("one_giant_cluster", giant, split),
        Case("giant_on_both_sides", giant, dict.fromkeys(range(40), 3)),
        Case("identical", small_t, small_t),
        Case("small_noisy", small_t, small_p),
        Case("medium_noisy", noisy_t, noisy_p),
        Case(
            "twinless_one_side",
            {**small_t, 20: 1, 21: 9},
            small_p,
            MISMATCH_ONLY,
        ),
        Case(
            "twinless_both_sides",
            {r: c for r, c in noisy_t.items() if r % 7},
            {r: c for r, c in noisy_p.items() if r % 5},
            MISMATCH_ONLY,
        ),
        Case(
            "whole_cluster_twinless",
            {0: 0, 1: 0, 2: 1, 3: 1, 4: 2},
            {0: 0, 1: 1, 5: 2, 6: 2},
            MISMATCH_ONLY,
        ),
    ]


CASES = _cases()


def text_id(label: int) -> str:
    """The text id of a label: the tricky ids first, then ``r<label>``."""
    return TRICKY[label] if label < len(TRICKY) else f"r{label}"


def frame(mapping: dict[int, int], ids: str, case: int | None = None) -> pd.DataFrame:
    """``mapping`` as a ``record_id, cluster_id`` table of integer or text ids (prefixed by
    the case number when given, keeping each case's ids in their own order)."""
    recs = np.array(list(mapping), dtype=np.int64)
    clus = np.array(list(mapping.values()), dtype=np.int64)
    if ids == "integer":
        offset = 0 if case is None else case * INT_STRIDE
        return pd.DataFrame({"record_id": recs + offset, "cluster_id": clus + offset})
    prefix = "" if case is None else f"{case:03d}|"
    return pd.DataFrame(
        {
            "record_id": [prefix + text_id(int(r)) for r in recs],
            "cluster_id": [prefix + text_id(int(c)) for c in clus],
        }
    )


def write(table: pd.DataFrame, path: Path) -> Path:
    """Write a CSV (every value text as written) or Parquet file."""
    if path.suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
    return path


def cases_for(policy: str) -> list[Case]:
    """The cases valid under ``policy``."""
    return [c for c in CASES if policy in c.policies]


def combined(cases: list[Case], ids: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every case in one truth and one prediction, case ``k`` in its own block."""
    t = pd.concat([frame(c.truth, ids, k) for k, c in enumerate(cases)], ignore_index=True)
    p = pd.concat([frame(c.pred, ids, k) for k, c in enumerate(cases)], ignore_index=True)
    return t, p.sample(frac=1.0, random_state=0).reset_index(drop=True)


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
