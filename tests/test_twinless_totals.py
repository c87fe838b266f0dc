"""The twinless variants' statistics against the rewritten tables they stand for.

``CEAF_sys``, ``B3_sys``, ``B3_all``, ``B3_0``, ``B3_r&n``, ``CEAF_r&n`` and CONE B3
are scored on tables rewritten by :mod:`ereval.metrics._twinless` (records of one
side only added as singletons, or dropped). Their statistics are computed on the
table itself; here each is checked against the rewritten table, scored directly:
B-cubed's sums cell by cell and CEAFm by a dense assignment (SciPy's
``linear_sum_assignment``), on tables large enough for the alignment's dominance
test and its exact part to both have work.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from ereval._algorithms import twinless_totals
from ereval.contingency import ContingencyTable, contingency_table
from ereval.metrics._twinless import (
    drop_pred_twinless,
    pred_twinless_as_true_singletons,
    true_twinless_as_pred_singletons,
)
from ereval.statistics import statistics_of


def _ceafm(table: ContingencyTable) -> int:
    """CEAFm's best total of a table, by a dense assignment."""
    dense = np.zeros((table.n_true_clusters, table.n_pred_clusters))
    dense[table.rows, table.cols] = table.counts
    r, c = linear_sum_assignment(dense, maximize=True)
    return int(dense[r, c].sum())


def _b3(table: ContingencyTable) -> tuple[float, float]:
    """B-cubed's recall and precision sums, cell by cell."""
    recall = precision = 0.0
    for i, j, n in zip(table.rows, table.cols, table.counts, strict=True):
        recall += n * n / table.true_sizes[i]
        precision += n * n / table.pred_sizes[j]
    return recall, precision


def _sys_tables(table: ContingencyTable) -> tuple[ContingencyTable, ContingencyTable]:
    """Cai & Strube's ``_sys`` tables: (precision's, recall's)."""
    base = true_twinless_as_pred_singletons(drop_pred_twinless(table, singletons_only=True))
    dropped = drop_pred_twinless(table, singletons_only=False)
    return pred_twinless_as_true_singletons(base), true_twinless_as_pred_singletons(dropped)


@st.composite
def twinless_clusterings(draw: st.DrawFn) -> ContingencyTable:
    """Two clusterings of up to 300 records, each side with records of its own, from
    a noisy copy of the truth: clusters large enough for cells of several records,
    so that rows and columns compete for them."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, 300))
    k = draw(st.integers(1, max(1, n // draw(st.sampled_from([1, 2, 5, 20])))))
    noise = draw(st.sampled_from([0.0, 0.1, 0.4, 1.0]))
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=n)
    pred = np.where(rng.random(n) < noise, rng.integers(0, k + 2, size=n), truth)
    on_truth = rng.random(n) < draw(st.sampled_from([1.0, 0.95, 0.7]))
    on_pred = rng.random(n) < draw(st.sampled_from([1.0, 0.95, 0.7]))
    on_truth[0] = on_pred[0] = True  # one record at least on each side
    records = np.arange(n)
    return contingency_table(
        dict(zip(records[on_truth].tolist(), truth[on_truth].tolist(), strict=True)),
        dict(zip(records[on_pred].tolist(), pred[on_pred].tolist(), strict=True)),
        on_mismatch="twinless",
    )


@settings(max_examples=150, deadline=None)
@given(twinless_clusterings())
def test_ceaf_sys_totals_are_the_rewritten_tables_alignments(table: ContingencyTable) -> None:
    s = statistics_of(table)
    t_p, t_r = _sys_tables(table)
    assert s.ceaf_sys_precision_total == _ceafm(t_p)
    assert s.ceaf_sys_recall_total == _ceafm(t_r)
    assert s.ceafm_total == _ceafm(table)


@settings(max_examples=150, deadline=None)
@given(twinless_clusterings())
def test_b3_sums_are_the_rewritten_tables_sums(table: ContingencyTable) -> None:
    s = statistics_of(table)
    recall, precision = _b3(table)
    added_r, _ = _b3(true_twinless_as_pred_singletons(table))
    _, added_p = _b3(pred_twinless_as_true_singletons(table))
    # the reference is a difference of two sums over every record: its own rounding
    # error is relative to them, not to the difference
    assert s.b3_twinless_recall_sum == pytest.approx(
        added_r - recall, rel=1e-12, abs=1e-12 * max(1.0, added_r)
    )
    assert s.b3_twinless_precision_sum == pytest.approx(
        added_p - precision, rel=1e-12, abs=1e-12 * max(1.0, added_p)
    )
    dropped = drop_pred_twinless(table, singletons_only=False)
    assert s.b3_common_precision_sum == pytest.approx(_b3(dropped)[1], rel=1e-12)
    kept = drop_pred_twinless(table, singletons_only=True)
    assert s.twinless_pred_singletons == table.n_pred_records - kept.n_pred_records


def test_a_free_row_takes_its_own_singleton() -> None:
    """Row 0 holds a record of the truth's side only, so recall's weights are its
    cells' counts less one: (0, 0) 1, (1, 0) 3, (1, 1) 2, and the best alignment
    is 3 either way ((1, 0) alone, or (0, 0) and (1, 1)); with row 0's singleton
    (the ``|T+| = 1`` the statistics add) that is 4, as in the rewritten table."""
    rows, cols, counts = np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([2, 3, 2])
    common = (np.array([2, 5]), np.array([5, 2]))
    extra = (np.array([True, False]), np.array([False, False]))
    assert twinless_totals(rows, cols, counts, common, extra) == (3, 3)
    table = contingency_table(
        {1: "t0", 2: "t0", 3: "t0", 4: "t1", 5: "t1", 6: "t1", 7: "t1", 8: "t1"},
        {1: "p0", 2: "p0", 4: "p0", 5: "p0", 6: "p0", 7: "p1", 8: "p1"},
        on_mismatch="twinless",
    )
    s = statistics_of(table)
    assert s.ceafm_total == 4  # t0-p0 (2) and t1-p1 (2), against t1-p0 (3)
    assert s.ceaf_sys_recall_total == 1 + 3 == _ceafm(_sys_tables(table)[1])


def test_weights_of_nothing_are_never_aligned() -> None:
    """Cells of one record in a row and a column that both hold a record of one side
    only weigh ``1 - 1 - 1 < 0`` for precision: the singletons take the row and the
    column instead, one each."""
    table = contingency_table(
        {1: "t0", 2: "t0"}, {1: "p0", 3: "p0"}, on_mismatch="twinless"
    )  # record 2 on the truth's side only, record 3 on the prediction's
    s = statistics_of(table)
    assert s.ceaf_sys_precision_total == 2 == _ceafm(_sys_tables(table)[0])
    assert s.ceaf_sys_recall_total == 1 == _ceafm(_sys_tables(table)[1])


def test_without_twinless_records_they_are_the_plain_statistics() -> None:
    rng = np.random.default_rng(3)
    truth = dict(enumerate(rng.integers(0, 30, size=400).tolist()))
    pred = {r: c if rng.random() < 0.8 else 99 for r, c in truth.items()}
    s = statistics_of(contingency_table(truth, pred))
    assert s.ceaf_sys_precision_total == s.ceaf_sys_recall_total == s.ceafm_total
    assert s.b3_common_precision_sum == s.b3_precision_sum
    assert s.b3_twinless_recall_sum == s.b3_twinless_precision_sum == 0.0
    assert s.twinless_pred_singletons == 0
