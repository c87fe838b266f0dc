"""Two designs with unequal probabilities: expected-error records and predicted clusters.

``"expected_error"``
    Records drawn with replacement with probabilities ``q_r`` computed from
    match probabilities (:mod:`ereval.estimators._error_weights`; Binette et al.
    2024, §3.2.1, eqs. 7-8), and the true cluster of each recovered: a true
    cluster ``c`` is drawn with ``p_c = sum_{r in c} q_r``. The labelled sample
    carries ``q_r`` for every record of each sampled cluster (column
    ``record_probability``), since the cluster's probability sums over records
    that were not drawn. Every estimator whose form holds for any ``p_c`` applies
    (all but the ``*_record`` forms, which assume ``p_c ∝ |c|``).
``"predicted_cluster"``
    Predicted clusters drawn (uniformly, proportional to size or with given
    probabilities) and the reviewer splits each into the true entities it holds
    — nothing outside the cluster is searched (Binette et al. 2022, Remark 2).
    Each sampled predicted cluster is a block whose "true clusters" are the
    pieces ``c ∩ ĉ``; as no predicted link leaves a predicted cluster, Lemma 3's
    pairwise precision ``E[|T_b ∩ P_b| / p_b] / E[|P_b| / p_b]`` holds exactly,
    and so does B-cubed precision ``sum_ĉ sum_c |c ∩ ĉ|^2 / |ĉ| / N``. Recall-type
    metrics need the true links that leave ĉ (or ``|T|``), which the reviewer
    does not see: they cannot be estimated from this design
    (:data:`PREDICTED_CLUSTER_ESTIMATORS` lists what can).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import check_rng, describe, examples
from ..io import factorize
from ._inclusion import (
    cluster_inclusion,
    inclusion_probabilities,
    poisson_records,
    systematic_sample,
)
from ._sample_input import (
    SampleTable,
    _lookup,
    _numeric,
    draw_codes,
    per_unit_values,
    plain,
)

if TYPE_CHECKING:
    from ._designs import ClusterSample
    from ._terms import ClusterTerms

__all__ = [
    "PREDICTED_CLUSTER_ESTIMATORS",
    "RECORD_INCLUSION_COL",
    "RECORD_PROBABILITY_COL",
    "check_predicted_units",
    "draw_expected_error",
    "draw_predicted_cluster",
    "expected_error_sample",
    "plan_expected_error",
    "plan_predicted_cluster",
    "predicted_cluster_sample",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The expected-error design's per-record column: each record's draw probability ``q_r``.
RECORD_PROBABILITY_COL = "record_probability"
#: Its column without replacement: each record's inclusion probability ``pi_r`` (Poisson).
RECORD_INCLUSION_COL = "record_inclusion_probability"
#: The estimators the predicted-cluster design supports (module docstring).
PREDICTED_CLUSTER_ESTIMATORS = ("pairwise_precision", "b3_precision")


def _record_probabilities(
    table: SampleTable, weights: Any, *, column: str = RECORD_PROBABILITY_COL
) -> FloatArray:
    """``q_r`` of each sampled record, from a column or a mapping record id -> q."""
    if weights is None:
        weights = column
    if isinstance(weights, str):
        if table.frame is None:
            raise InputError(
                "design='expected_error' needs each record's draw probability: give 'weights' "
                "as a mapping from record id to probability, or a table with a "
                f"'{RECORD_PROBABILITY_COL}' column"
            )
        if weights not in table.frame.columns:
            if column == RECORD_INCLUSION_COL:
                raise InputError(
                    f"design='expected_error' with replace=False: the sample has no column "
                    f"'{weights}' with each record's inclusion probability (draw_sample and "
                    "expected_error_inclusion give them); name the column with 'weights'"
                )
            raise InputError(
                f"design='expected_error': the sample has no column '{weights}' with each "
                "record's draw probability; compute them with expected_error_probabilities "
                "(CLI: --pairs and --score-col) or name the column with 'weights'"
            )
        raw = table.column(weights, name="weights")
    elif isinstance(weights, Mapping | pd.Series):
        raw = _lookup(weights, table.records, name="weights", what="record")
    else:
        raise InputTypeError(
            "design='expected_error': 'weights' must be a column name or a mapping from record "
            f"id to draw probability; received {describe(weights)}"
        )
    missing = np.asarray(pd.isna(raw))
    if missing.any():
        raise InputError(
            f"design='expected_error': the draw probability is missing for "
            f"{int(missing.sum())} sampled record(s) (e.g. {examples(table.records[missing])}); "
            "every record of a sampled cluster needs it"
        )
    q = _numeric(raw, name="weights")
    bad = ~np.isfinite(q) | (q <= 0)
    if bad.any():
        raise InputError(
            "design='expected_error': record draw probabilities must be finite and > 0; "
            f"received {examples(q[bad])} for record(s) {examples(table.records[bad])}"
        )
    return q


def _default_draws(table: SampleTable, draws: Any) -> Any:
    """The ``draws`` column, or per-cluster counts summed from ``record_draws``."""
    from ._designs import DRAWS_COL, RECORD_DRAWS_COL

    if draws is not None or table.frame is None:
        return draws
    if DRAWS_COL in table.frame.columns:
        return DRAWS_COL
    if RECORD_DRAWS_COL in table.frame.columns:
        raw = pd.to_numeric(table.frame[RECORD_DRAWS_COL], errors="coerce").to_numpy()
        bad = ~np.isfinite(raw) | (raw < 0) | (raw != np.round(raw))
        if bad.any():
            raise InputError(
                f"the sample's '{RECORD_DRAWS_COL}' column must hold whole numbers >= 0; "
                f"received {examples(table.frame[RECORD_DRAWS_COL].to_numpy()[bad])}"
            )
        per = np.bincount(table.codes, weights=raw, minlength=table.n_clusters).astype(np.int64)
        return pd.Series(per, index=pd.Index(table.labels, dtype=object))
    return None


def expected_error_sample(
    table: SampleTable, *, weights: Any, draws: Any, replace: bool, population_size: Any
) -> ClusterSample:
    """Read an expected-error sample: ``p_c = sum_{r in c} q_r`` over each cluster's records
    (without replacement: ``pi_c = 1 - prod_{r in c} (1 - pi_r)``, Poisson sampling)."""
    from ._designs import ClusterSample

    if population_size is not None:
        raise InputError(
            "design='expected_error' draws records with unequal probabilities; "
            "'population_size' does not apply"
        )
    if not replace:
        return _poisson_sample(table, weights=weights, draws=draws)
    q = _record_probabilities(table, weights)
    k = table.n_clusters
    units = np.arange(k, dtype=np.int64)
    drawn = draw_codes(table, _default_draws(table, draws), units, table.labels)
    return ClusterSample(
        records=table.records,
        clusters=table.clusters,
        cluster_codes=table.codes,
        cluster_labels=table.labels,
        unit_of_cluster=units,
        unit_labels=table.labels,
        probabilities=np.bincount(table.codes, weights=q, minlength=k).astype(np.float64),
        draws=drawn,
        design="expected_error",
        weights="expected_error",
        replace=True,
        record_probabilities=q,
    )


def _poisson_sample(table: SampleTable, *, weights: Any, draws: Any) -> ClusterSample:
    """Expected-error records drawn without replacement (Poisson): each labelled cluster once,
    with ``pi_c = 1 - prod_{r in c} (1 - pi_r)``."""
    from ._designs import INCLUSION_COL, RECORD_DRAWS_COL, ClusterSample

    if draws is not None:
        raise InputError(
            "design='expected_error' with replace=False: every labelled cluster was drawn once; "
            "'draws' does not apply"
        )
    pi_r = _record_probabilities(table, weights, column=RECORD_INCLUSION_COL)
    if (pi_r > 1.0).any():
        raise InputError(
            "design='expected_error': record inclusion probabilities must lie in (0, 1]; "
            f"received {examples(pi_r[pi_r > 1.0])}"
        )
    k = table.n_clusters
    pi_c = cluster_inclusion(pi_r, table.codes, k)
    frame = table.frame
    if frame is not None and RECORD_DRAWS_COL in frame.columns:
        raw = pd.to_numeric(frame[RECORD_DRAWS_COL], errors="coerce").to_numpy(dtype=np.float64)
        if (~np.isin(raw, (0.0, 1.0))).any():
            raise InputError(
                f"design='expected_error' with replace=False: '{RECORD_DRAWS_COL}' must be 0 or 1 "
                "(each record drawn at most once)"
            )
        reached = np.bincount(table.codes, weights=raw, minlength=k) > 0
        if not reached.all():
            raise InputError(
                f"design='expected_error': {int((~reached).sum())} labelled cluster(s) have no "
                f"drawn record in '{RECORD_DRAWS_COL}' (e.g. {examples(table.labels[~reached])})"
            )
    if frame is not None and INCLUSION_COL in frame.columns:
        written = pd.to_numeric(frame[INCLUSION_COL], errors="coerce").to_numpy(dtype=np.float64)
        if not np.allclose(written, pi_c[table.codes], rtol=1e-9, atol=1e-12):
            raise InputError(
                f"design='expected_error': the sample's '{INCLUSION_COL}' column differs from "
                f"1 - prod(1 - {RECORD_INCLUSION_COL}) over each cluster's records"
            )
    units = np.arange(k, dtype=np.int64)
    return ClusterSample(
        records=table.records,
        clusters=table.clusters,
        cluster_codes=table.codes,
        cluster_labels=table.labels,
        unit_of_cluster=units,
        unit_labels=table.labels,
        probabilities=pi_c,
        draws=units,
        design="expected_error",
        weights="inclusion",
        replace=False,
        record_probabilities=pi_r,
        inclusion=True,
    )


def predicted_cluster_sample(
    table: SampleTable,
    *,
    weights: Any,
    weight_kind: Any,
    blocks: Any,
    draws: Any,
    replace: bool,
    population_size: Any,
) -> ClusterSample:
    """Read a predicted-cluster sample: each record's predicted cluster (``blocks``, default
    the ``unit_id`` column) and its entity label inside that cluster."""
    from ._designs import (
        DRAWS_COL,
        INCLUSION_COL,
        PROBABILITY_COL,
        UNIT_COL,
        ClusterSample,
        _check_inclusion_options,
        _check_replacement,
        _probabilities,
    )

    if blocks is None:
        blocks = UNIT_COL
    if isinstance(blocks, str):
        if table.frame is None or blocks not in table.frame.columns:
            raise InputError(
                "design='predicted_cluster' needs each record's predicted cluster: a column "
                f"of the sample named by 'blocks' (default '{UNIT_COL}'); the sample has none"
            )
        per_record = table.column(blocks, name="blocks")
    elif isinstance(blocks, Mapping | pd.Series):
        per_record = _lookup(blocks, table.records, name="blocks", what="record")
    else:
        raise InputTypeError(
            "design='predicted_cluster': 'blocks' must be a column name or a mapping from "
            f"record id to predicted cluster id; received {describe(blocks)}"
        )
    missing = np.asarray(pd.isna(per_record))
    if missing.any():
        raise InputError(
            f"design='predicted_cluster': the predicted cluster is missing for "
            f"{int(missing.sum())} record(s) (e.g. {examples(table.records[missing])})"
        )
    unit_of_record, unit_labels = factorize(per_record)
    unit_of_record = unit_of_record.astype(np.int64)
    # the pieces c ∩ ĉ: an entity seen in two sampled predicted clusters is two pieces
    piece_key = unit_of_record * table.n_clusters + table.codes
    uniq, piece_codes = np.unique(piece_key, return_inverse=True)
    piece_codes = piece_codes.astype(np.int64).ravel()
    first = np.full(uniq.shape[0], -1, dtype=np.int64)
    first[piece_codes[::-1]] = np.arange(piece_codes.shape[0] - 1, -1, -1)
    pieces = SampleTable(
        table.records,
        table.clusters,
        piece_codes,
        table.labels[table.codes[first]],
        table.frame,
    )
    units = unit_of_record[first]
    unit_labels = np.asarray(unit_labels)
    if weights is None and table.frame is not None and INCLUSION_COL in table.frame.columns:
        weights, weight_kind = INCLUSION_COL, "inclusion_probability"
    if weights is None and table.frame is not None and PROBABILITY_COL in table.frame.columns:
        weights = PROBABILITY_COL
    inclusion = weight_kind == "inclusion_probability"
    if weights is None:
        raise InputError(
            "design='predicted_cluster' needs 'weights': 'uniform', 'cluster_size' (records "
            "drawn uniformly, their predicted clusters reviewed), a column of the sample or a "
            "mapping from predicted cluster id to sampling probability"
        )
    if inclusion:
        _check_inclusion_options("block", replace, population_size)
    if isinstance(weights, str) and weights in ("uniform", "cluster_size"):
        probs, scheme = _probabilities(pieces, "block", weights, weight_kind, units, unit_labels)
    else:
        values = per_unit_values(
            pieces, weights, units, unit_labels, name="weights", what="predicted cluster"
        )
        bad = ~np.isfinite(values) | (values <= 0)
        if bad.any():
            raise InputError(
                "'weights' must be finite and > 0 for every sampled predicted cluster; received "
                f"{examples(values[bad])}"
            )
        if inclusion and (values > 1.0).any():
            raise InputError(
                "inclusion probabilities must lie in (0, 1]; received "
                f"{examples(values[values > 1.0])}"
            )
        probs = 1.0 / values if weight_kind == "inverse_probability" else values
        scheme = "inclusion" if inclusion else "custom"
    if draws is None and table.frame is not None and DRAWS_COL in table.frame.columns:
        draws = DRAWS_COL
    drawn = draw_codes(pieces, draws, units, unit_labels)
    if not replace and scheme == "custom" and not np.allclose(probs, probs[0]):
        raise InputError(
            "design='predicted_cluster' without replacement needs equal probabilities "
            "(weights='uniform') or each predicted cluster's inclusion probability "
            f"(weight_kind='inclusion_probability', the '{INCLUSION_COL}' column that "
            "ereval sample writes)"
        )
    size = _check_replacement("block", replace, population_size, drawn, unit_labels)
    return ClusterSample(
        records=table.records,
        clusters=table.clusters,
        cluster_codes=piece_codes,
        cluster_labels=pieces.labels,
        unit_of_cluster=units,
        unit_labels=unit_labels,
        probabilities=probs,
        draws=drawn,
        design="predicted_cluster",
        weights=scheme,
        replace=replace,
        population_size=size,
        inclusion=inclusion,
    )


def check_predicted_units(sample: ClusterSample, terms: ClusterTerms) -> None:
    """Each sampled unit must hold every record of one predicted cluster, and nothing else."""
    one_cell = np.bincount(terms.rows, minlength=sample.n_clusters) == 1
    if not one_cell.all():
        k = int(np.flatnonzero(~one_cell)[0])
        unit = sample.unit_labels[sample.unit_of_cluster[k]]
        raise InputError(
            f"design='predicted_cluster': sampled cluster {plain(unit)!r} holds records of "
            "several predicted clusters; each unit is one predicted cluster of 'pred'"
        )
    col = np.empty(sample.n_clusters, dtype=np.int64)
    col[terms.rows] = terms.cols
    pred_size = np.rint(terms.nb / terms.size)
    unit_records = np.bincount(sample.unit_of_cluster, weights=terms.size, minlength=sample.n_units)
    for u in range(sample.n_units):
        members = np.flatnonzero(sample.unit_of_cluster == u)
        if np.unique(col[members]).shape[0] > 1:
            raise InputError(
                f"design='predicted_cluster': unit {plain(sample.unit_labels[u])!r} holds "
                "records of several predicted clusters; each unit is one predicted cluster"
            )
        if unit_records[u] != pred_size[members[0]]:
            raise InputError(
                f"design='predicted_cluster': predicted cluster {plain(sample.unit_labels[u])!r} "
                f"has {int(pred_size[members[0]])} records in 'pred' but {int(unit_records[u])} "
                "in the sample; label every record of each sampled predicted cluster"
            )


def draw_expected_error(
    truth: Any, record_probabilities: Any, *, n: int, seed: Any, replace: bool = True
) -> ClusterSample:
    """Draw ``n`` records with probabilities ``q_r`` (mapping or Series record id -> q) and
    recover their true clusters: the sample a labelling campaign brings back.

    Without replacement, records are drawn by Poisson sampling with inclusion
    probabilities ``pi_r = min(1, c q_r)``, ``n`` of them expected
    (:func:`ereval.estimators._inclusion.poisson_records`)."""
    from ._designs import _subsample, as_sample

    rng = check_rng(seed)
    if not replace:
        return _draw_poisson(truth, record_probabilities, n=n, rng=rng)
    population = as_sample(truth, design="cluster", weights="uniform")
    table = SampleTable(
        population.records,
        population.clusters,
        population.cluster_codes,
        population.cluster_labels,
        None,
    )
    q = _record_probabilities(table, record_probabilities)
    pos = rng.choice(q.shape[0], size=n, replace=True, p=q / q.sum())
    p_c = np.bincount(population.cluster_codes, weights=q, minlength=population.n_clusters).astype(
        np.float64
    )
    population = dataclasses.replace(population, probabilities=p_c, weights="expected_error")
    chosen = population.unit_of_cluster[population.cluster_codes[pos]]
    base: ClusterSample = _subsample(population, chosen, design="expected_error", replace=True)
    keep = np.isin(population.cluster_codes, np.unique(population.cluster_codes[pos]))
    return dataclasses.replace(base, record_probabilities=q[keep])


def _draw_poisson(truth: Any, weights: Any, *, n: int, rng: np.random.Generator) -> ClusterSample:
    from ._designs import as_sample

    population = as_sample(truth, design="cluster", weights="uniform")
    table = SampleTable(
        population.records,
        population.clusters,
        population.cluster_codes,
        population.cluster_labels,
        None,
    )
    q = _record_probabilities(table, weights)
    pi_r, drawn = poisson_records(q, n, seed=rng)
    if drawn.size == 0:
        raise InputError(
            f"no record was drawn (Poisson sampling with {n} expected draws); draw more records"
        )
    keep = np.isin(population.cluster_codes, np.unique(population.cluster_codes[drawn]))
    record_draws = np.zeros(q.shape[0], dtype=np.int64)
    record_draws[drawn] = 1
    frame = pd.DataFrame(
        {
            "record_id": population.records[keep],
            "cluster_id": population.clusters[keep],
            "record_draws": record_draws[keep],
            RECORD_INCLUSION_COL: pi_r[keep],
        }
    )
    return as_sample(frame, design="expected_error", replace=False)


def draw_predicted_cluster(
    truth: Any,
    pred: Any,
    *,
    n: int,
    weights: Any = "cluster_size",
    replace: bool = True,
    seed: Any = None,
) -> ClusterSample:
    """Draw ``n`` predicted clusters and label the entities inside each (a known truth)."""
    from ._designs import DRAWS_COL, INCLUSION_COL, PROBABILITY_COL, UNIT_COL, as_sample

    rng = check_rng(seed)
    t = as_sample(truth, design="cluster", weights="uniform")
    p = as_sample(pred, design="cluster", weights="uniform")
    if p.records.shape[0] != t.records.shape[0]:
        raise InputError(
            f"'truth' has {t.records.shape[0]} records but 'pred' has {p.records.shape[0]}; "
            "they must hold the same records"
        )
    where = pd.Index(t.records, dtype=object).get_indexer(pd.Index(p.records, dtype=object))
    if (where < 0).any():
        raise InputError(
            f"'pred' has record(s) absent from 'truth' (e.g. {examples(p.records[where < 0])})"
        )
    sizes = p.cluster_sizes.astype(np.float64)
    if isinstance(weights, str) and weights == "uniform":
        w = np.ones(p.n_clusters)
    elif isinstance(weights, str) and weights == "cluster_size":
        w = sizes
    elif isinstance(weights, Mapping | pd.Series):
        w = _numeric(
            _lookup(weights, p.cluster_labels, name="weights", what="predicted cluster"),
            name="weights",
        )
        if (~np.isfinite(w) | (w <= 0)).any():
            raise InputError("'weights' must be finite and > 0 for every predicted cluster")
    else:
        raise InputTypeError(
            "'weights' must be 'uniform', 'cluster_size' or a mapping from predicted cluster id "
            f"to probability; received {describe(weights)}"
        )
    if not replace and n > p.n_clusters:
        raise InputError(
            f"cannot draw {n} predicted clusters without replacement from {p.n_clusters}"
        )
    column = PROBABILITY_COL
    unequal = not np.allclose(w, w[0], rtol=1e-12, atol=0.0)
    if not replace and unequal:
        w = inclusion_probabilities(w, n)
        chosen = systematic_sample(w, seed=rng)
        column = INCLUSION_COL
    else:
        chosen = rng.choice(p.n_clusters, size=n, replace=replace, p=w / w.sum())
    counts = np.bincount(chosen, minlength=p.n_clusters)
    keep = counts[p.cluster_codes] > 0
    frame = pd.DataFrame(
        {
            "record_id": p.records[keep],
            "cluster_id": t.clusters[where[keep]],
            UNIT_COL: p.clusters[keep],
            column: w[p.cluster_codes[keep]],
            DRAWS_COL: counts[p.cluster_codes[keep]],
        }
    )
    if column == INCLUSION_COL:
        return as_sample(frame, design="predicted_cluster", replace=False)
    return as_sample(
        frame,
        design="predicted_cluster",
        replace=replace,
        population_size=None if replace else p.n_clusters,
    )


def plan_expected_error(probabilities: pd.Series, *, n: int, seed: Any = None) -> pd.DataFrame:
    """The records to label for an expected-error sample, drawn from the prediction alone.

    Parameters
    ----------
    probabilities : Series
        Each record's draw probability, indexed by record id
        (:func:`ereval.estimators._error_weights.expected_error_probabilities`).
    n : int
        Number of record draws (with replacement).
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    DataFrame
        One row per drawn record: ``record_id, record_draws, record_probability``.
        Label the true cluster of each; the labelled table (every record of each
        true cluster, ``record_draws`` 0 for records not drawn) needs
        ``record_probability`` for every record: recompute it with the same pairs
        and floor.

    Examples
    --------
    >>> q = pd.Series([0.125, 0.5, 0.375], index=["a", "b", "c"])
    >>> plan = plan_expected_error(q, n=4, seed=0)
    >>> int(plan["record_draws"].sum()), plan.columns.tolist()
    (4, ['record_id', 'record_draws', 'record_probability'])
    """
    from ._designs import RECORD_DRAWS_COL

    rng = check_rng(seed)
    if not isinstance(probabilities, pd.Series):
        raise InputTypeError(
            "'probabilities' must be a Series of draw probabilities indexed by record id; "
            f"received {describe(probabilities)}"
        )
    q = probabilities
    values = q.to_numpy(dtype=np.float64)
    if values.shape[0] == 0 or (~np.isfinite(values) | (values <= 0)).any():
        raise InputError("'probabilities' must be finite and > 0 for every record")
    pos = rng.choice(values.shape[0], size=n, replace=True, p=values / values.sum())
    uniq, counts = np.unique(pos, return_counts=True)
    return pd.DataFrame(
        {
            "record_id": np.asarray(q.index, dtype=object)[uniq],
            RECORD_DRAWS_COL: counts,
            RECORD_PROBABILITY_COL: values[uniq],
        }
    )


def plan_predicted_cluster(
    pred: Any,
    *,
    n: int,
    weights: str = "cluster_size",
    replace: bool = True,
    seed: Any = None,
    record_col: Any = "record_id",
    cluster_col: Any = "cluster_id",
) -> pd.DataFrame:
    """The predicted clusters to review: every record of each drawn predicted cluster.

    Returns ``record_id, unit_id, probability, draws`` (``unit_id`` the predicted
    cluster). Drawn without replacement with ``weights="cluster_size"``, the
    clusters come from randomised systematic sampling with inclusion
    probabilities ∝ size, written as ``inclusion_probability`` instead of
    ``probability`` (:mod:`ereval.estimators._inclusion`). The reviewer adds a ``cluster_id`` column: which records inside the
    predicted cluster are the same entity (ids need only be distinct within one
    predicted cluster); ``as_sample(..., design="predicted_cluster")`` reads it.

    Examples
    --------
    >>> plan = plan_predicted_cluster({1: "x", 2: "x", 3: "y"}, n=2, weights="uniform",
    ...                               replace=False, seed=0)
    >>> sorted(plan["unit_id"].unique().tolist()), plan["draws"].tolist()
    (['x', 'y'], [1, 1, 1])
    """
    from ._designs import DRAWS_COL, INCLUSION_COL, PROBABILITY_COL, UNIT_COL, as_sample

    rng = check_rng(seed)
    p = as_sample(
        pred, design="cluster", weights="uniform", record_col=record_col, cluster_col=cluster_col
    )
    if weights not in ("uniform", "cluster_size"):
        raise InputError(
            f"'weights' must be 'uniform' or 'cluster_size'; received {describe(weights)}"
        )
    w = np.ones(p.n_clusters) if weights == "uniform" else p.cluster_sizes.astype(np.float64)
    if not replace and n > p.n_clusters:
        raise InputError(
            f"cannot draw {n} predicted clusters without replacement from {p.n_clusters}"
        )
    column = PROBABILITY_COL
    if not replace and weights != "uniform":
        # unequal probabilities without replacement: exact pi, Horvitz-Thompson (_inclusion.py)
        w = inclusion_probabilities(w, n)
        chosen = systematic_sample(w, seed=rng)
        column = INCLUSION_COL
    else:
        chosen = rng.choice(p.n_clusters, size=n, replace=replace, p=w / w.sum())
    counts = np.bincount(chosen, minlength=p.n_clusters)
    keep = counts[p.cluster_codes] > 0
    return pd.DataFrame(
        {
            "record_id": p.records[keep],
            UNIT_COL: p.clusters[keep],
            column: w[p.cluster_codes[keep]],
            DRAWS_COL: counts[p.cluster_codes[keep]],
        }
    )
