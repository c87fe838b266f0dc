"""GMD (Menestrina et al. 2010): with the right costs it reproduces BMD, pairwise
error counts and the variation of information."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ereval import InputError, InputTypeError
from ereval.contingency import ContingencyTable, contingency_table
from ereval.metrics import evaluate, pair_counts
from ereval.metrics._merge import bmd, gmd, vi_costs


@st.composite
def tables(draw: st.DrawFn) -> ContingencyTable:
    n = draw(st.integers(1, 25))
    k = draw(st.integers(1, 6))
    t = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    return contingency_table(t, p)


@given(tables())
def test_unit_costs_give_bmd(table: ContingencyTable) -> None:
    one = lambda x, y: np.ones_like(x)  # noqa: E731
    assert gmd(table, split_cost=one, merge_cost=one) == bmd(table)


@given(tables())
def test_product_costs_count_pairwise_errors(table: ContingencyTable) -> None:
    c = pair_counts(table)
    assert gmd(table) == c.false_positives + c.false_negatives
    # split cost alone = false positives, merge cost alone = false negatives
    zero = lambda x, y: np.zeros_like(x)  # noqa: E731
    assert gmd(table, merge_cost=zero) == c.false_positives
    assert gmd(table, split_cost=zero) == c.false_negatives


@given(tables())
def test_entropy_costs_give_variation_of_information(table: ContingencyTable) -> None:
    cost = vi_costs(table.n_records)
    vi = evaluate(table, metrics=["variation_of_information"])["variation_of_information"]
    assert gmd(table, split_cost=cost, merge_cost=cost) == pytest.approx(vi, abs=1e-12)


def test_hand_computed_gmd() -> None:
    # truth {1,2,3}{4,5}; pred {1,2}{3,4,5}: split {3,4,5} into {3}+{4,5} (1*2 = 2 pairs),
    # merge {1,2}+{3} (2*1 = 2 pairs): GMD = 4 = FP + FN
    table = contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    assert gmd(table) == 4
    assert bmd(table) == 2


def test_scalar_cost_functions_work() -> None:
    table = contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    assert gmd(table, split_cost=lambda x, y: 1 if x > 0 else 0, merge_cost=lambda x, y: 10) == 11


def test_bad_cost_functions() -> None:
    table = contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    with pytest.raises(InputTypeError, match=r"'split_cost' must be callable"):
        gmd(table, split_cost=3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"'merge_cost' must return finite non-negative costs"):
        gmd(table, merge_cost=lambda x, y: -x)
    with pytest.raises(InputError, match=r"one cost per"):
        gmd(table, merge_cost=lambda x, y: np.ones(7))


def test_contingency_rejects_float_counts() -> None:
    with pytest.raises(
        InputTypeError, match=r"contingency 'counts' must be a 1-D array of integers"
    ):
        ContingencyTable(
            np.array([0]), np.array([0]), np.array([2.0]), np.array([2]), np.array([2])
        )
    with pytest.raises(InputError, match=r"outside the marginals"):
        ContingencyTable(np.array([1]), np.array([0]), np.array([2]), np.array([2]), np.array([2]))


@given(tables())
def test_closed_form_and_sequential_product_costs_agree(table: ContingencyTable) -> None:
    def product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x * y  # a different object: takes the general, piece-by-piece path

    assert gmd(table, split_cost=product, merge_cost=product) == gmd(table)
