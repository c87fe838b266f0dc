"""A labelled sample restricted to a subset of its population's records.

A sample of true clusters drawn from a population ``R`` also describes any
subset ``S`` of ``R`` (Binette et al. 2024, Figure 5: the records of a fixed
period): the true clusters of ``S`` are the ``c ∩ S``, and each was drawn with
the probability of its ``c``. :func:`restrict_sample` keeps, of every sampled
cluster, its records in ``S``, keeps the probabilities of the draws, and drops
the units left without a record (their terms would be 0 in every mean, so the
ratio estimates are unchanged). The design becomes ``"cluster"`` with custom
probabilities for the record and cluster designs (the probabilities are no
longer proportional to the restricted sizes), and stays ``"block"`` for blocks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from ._designs import ClusterSample

__all__ = ["restrict_sample"]


def restrict_sample(sample: ClusterSample, records: Any) -> ClusterSample:
    """``sample`` restricted to the records in ``records`` (see the module docstring).

    Parameters
    ----------
    sample : ClusterSample
    records : array-like
        Record ids of the subset (ids of the sample's kind; others play no role).

    Returns
    -------
    ClusterSample
        With the draws of the units that keep a record, in draw order.

    Raises
    ------
    InputError
        No sampled record lies in ``records``.

    Examples
    --------
    >>> from ereval.estimators import as_sample
    >>> s = as_sample({1: "a", 2: "a", 3: "b", 4: "c"}, design="record")
    >>> r = restrict_sample(s, [1, 3])
    >>> r.records.tolist(), r.design, r.probabilities.tolist()
    ([1, 3], 'cluster', [2.0, 1.0])
    """
    keep = np.asarray(pd.Index(sample.records).isin(pd.Index(np.asarray(records))))
    if not keep.any():
        raise InputError(
            "no sampled record lies in the subset: the sample says nothing about it "
            f"(sampled records are e.g. {sample.records[:3].tolist()})"
        )
    kept_cluster = np.bincount(sample.cluster_codes[keep], minlength=sample.n_clusters) > 0
    cluster_map = np.cumsum(kept_cluster) - 1
    kept_unit = np.zeros(sample.n_units, dtype=bool)
    kept_unit[sample.unit_of_cluster[kept_cluster]] = True
    unit_map = np.cumsum(kept_unit) - 1
    draws = sample.draws[kept_unit[sample.draws]]
    design = "block" if sample.design in ("block", "single_block") else "cluster"
    if sample.design == "single_block":
        design = "single_block"
    codes: npt.NDArray[np.int64] = cluster_map[sample.cluster_codes[keep]].astype(np.int64)
    return ClusterSample(
        records=sample.records[keep],
        clusters=sample.clusters[keep],
        cluster_codes=codes,
        cluster_labels=sample.cluster_labels[kept_cluster],
        unit_of_cluster=unit_map[sample.unit_of_cluster[kept_cluster]].astype(np.int64),
        unit_labels=sample.unit_labels[kept_unit],
        probabilities=sample.probabilities[kept_unit],
        draws=unit_map[draws].astype(np.int64),
        design=design,  # type: ignore[arg-type]
        weights=sample.weights if sample.weights in ("uniform", "inclusion") else "custom",
        replace=sample.replace,
        population_size=sample.population_size,
        inclusion=sample.inclusion,
    )
