"""Stratification: hand-worked cumulative sqrt(F) edges, equal-size strata, robust default."""

from __future__ import annotations

import numpy as np
import pytest

from ereval import InputError, InputTypeError
from ereval.oasis import Strata, csf_boundaries, stratify
from ereval.oasis._strata import default_n_bins

from ._oasis_support import POOLS, paper_pool


def test_csf_boundaries_by_hand() -> None:
    # bins of width 1 on [0, 5]; counts [4, 1, 0, 1, 4] -> sqrt [2, 1, 0, 1, 2]
    # csf = [2, 3, 3, 4, 6], K = 3 -> w = 2: level 2 first reached at bin 0, which
    # already starts stratum 0, so the boundary moves to bin 1 (lower edge 1.0);
    # level 4 is reached at bin 3 (lower edge 3.0).
    v = [0.0, 0.2, 0.3, 0.4, 1.5, 3.5, 4.2, 4.4, 4.6, 5.0]
    np.testing.assert_array_equal(csf_boundaries(v, n_strata=3, n_bins=5), [1.0, 3.0])
    st = stratify(v, n_strata=3, n_bins=5, transform="none")
    assert st.allocations.tolist() == [0, 0, 0, 0, 1, 2, 2, 2, 2, 2]
    assert st.sizes.tolist() == [4, 1, 5]
    np.testing.assert_allclose(st.weights, [0.4, 0.1, 0.5])


def test_csf_heavy_bin_pushes_boundaries_to_following_bins() -> None:
    # counts [16, 1, 1, 1, 1] over [0, 5]: sqrt [4, 1, 1, 1, 1], csf [4, 5, 6, 7, 8],
    # K = 4 -> w = 2; levels 2, 4 and 6 are reached at bins 0, 0 and 2.  Bin 0 starts
    # stratum 0, so the first boundary is bin 1, the second bin 2 (next unused),
    # and the third bin 3 (first unused bin with csf >= 6).
    v = [0.0] * 16 + [1.5, 2.5, 3.5, 5.0]
    np.testing.assert_array_equal(csf_boundaries(v, n_strata=4, n_bins=5), [1.0, 2.0, 3.0])


def test_csf_never_starts_a_stratum_in_the_last_bin() -> None:
    # all the mass in the last bin: no boundary can be placed
    v = [0.0] + [10.0] * 50
    assert csf_boundaries(v, n_strata=5, n_bins=10).size == 0


def test_csf_drops_empty_strata_and_keeps_ties_together() -> None:
    v = np.r_[np.zeros(500), np.linspace(1, 2, 50)]
    st = stratify(v, n_strata=10, transform="none")
    assert st.sizes[0] >= 500  # the tied block is one stratum
    assert (st.sizes > 0).all()
    # strata are contiguous score intervals in increasing order
    order = np.argsort(v, kind="stable")
    assert (np.diff(st.allocations[order]) >= 0).all()


def test_equal_size_strata() -> None:
    v = [5.0, 1.0, 4.0, 2.0, 3.0, 0.0, 9.0, 8.0, 7.0, 6.0]
    st = stratify(v, method="equal_size", n_strata=3)
    # ranks 0-3 -> stratum 0, 4-6 -> 1, 7-9 -> 2 (r * K // N)
    assert st.sizes.tolist() == [4, 3, 3]
    assert st.allocations.tolist() == [1, 0, 1, 0, 0, 0, 2, 2, 2, 1]


def test_members_order_and_means() -> None:
    st = Strata.from_allocations([2, 0, 2, 1, 0])
    assert st.n_strata == 3
    assert st.members(0).tolist() == [1, 4]
    assert st.members(2).tolist() == [0, 2]
    np.testing.assert_allclose(st.mean([1.0, 2.0, 3.0, 4.0, 6.0]), [4.0, 4.0, 2.0])


def test_default_bins() -> None:
    assert default_n_bins(100, 30) == 600
    assert default_n_bins(1_000_000, 30) == 4000


@pytest.mark.parametrize("name", sorted(POOLS))
@pytest.mark.parametrize("column", ["scores", "probabilities"])
def test_default_is_robust_on_the_paper_pools(name: str, column: str) -> None:
    # A Freedman-Diaconis choice collapses to 3 strata on dblp-acm's scores and asks
    # for infinitely many bins on its probabilities; the default keeps the goal.
    pool = paper_pool(name)
    values = getattr(pool, column)
    st = stratify(values)
    assert st.n_strata >= 25
    # the matches concentrate in the top strata, which are small
    assert st.sizes[-1] < 0.02 * pool.size


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"values": []}, InputError, "must not be empty"),
        ({"values": [1.0, float("nan")]}, InputError, "'values' must be finite"),
        ({"values": [1.0, 2.0], "n_strata": 0}, InputError, "'n_strata' must be an integer >= 1"),
        ({"values": [1.0, 2.0], "n_strata": 3}, InputError, "must not exceed the pool size 2"),
        ({"values": [1.0, 2.0], "n_strata": 1.5}, InputTypeError, "'n_strata' must be an integer"),
        ({"values": [1.0, 2.0], "method": "kmeans"}, InputError, "'method' must be one of"),
        (
            {"values": [1.0, 2.0], "n_strata": 2, "transform": "logit"},
            InputError,
            "transform='logit' needs values in [0, 1]",
        ),
        (
            {"values": [1.0, 2.0], "n_strata": 2, "n_bins": 0},
            InputError,
            "'n_bins' must be an integer >= 1",
        ),
    ],
)
def test_bad_input(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    values = kwargs.pop("values")
    with pytest.raises(error) as info:
        stratify(values, **kwargs)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_default_number_of_strata_grows_with_the_pool() -> None:
    from ereval.oasis._strata import default_n_strata

    # ceil(30 sqrt(N / 200000)) within [30, 120]
    assert default_n_strata(53_753) == 30
    assert default_n_strata(200_000) == 30
    assert default_n_strata(800_000) == 60
    assert default_n_strata(1_000_000) == 68
    assert default_n_strata(10**9) == 120
    assert default_n_strata(10) == 10  # never more strata than pairs
    assert stratify(np.linspace(0.0, 1.0, 10)).n_strata <= 10
