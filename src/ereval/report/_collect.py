"""The report verb: read a report's inputs once and compute every result it shows.

:func:`collect_results` decides which results the inputs allow and computes them
with the package's own verbs (``evaluate``, ``estimate``, ``summarize``,
``cluster_errors``, ``sample_errors``, ``threshold_curve``, ``monitor``,
``compare``, OASIS's :func:`~ereval.oasis.convergence`, PAULA); the warnings
each computation gives are kept beside its result. :func:`ereval.report.build_report`
then shows them and computes nothing.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .._compare import compare
from .._errors import InputError
from .._monitor import monitor, release_sources
from .._optional import require
from .._validation import check_choice, check_in_range, check_int
from ..analysis import disparities, error_tree, sample_errors, tag_frequencies
from ..curves import threshold_curve
from ..engines import Engine, EngineName, NumpyEngine, get_engine
from ..estimators import ClusterSample, as_sample, estimate, prepare_prediction
from ..io import (
    MISMATCH_POLICIES,
    Columns,
    Membership,
    MismatchPolicy,
    as_membership,
    check_link_only,
    read_membership,
    read_table,
)
from ..labels import LabelStore, session_agreement
from ..metrics import evaluate
from ..metrics._registry import cells_wanted, resolve_metrics
from ..oasis import convergence, make_sampler, pool_from_frame
from ..paula import paula_bounds, paula_plan
from ..results import Estimate
from ..statistics import compute_statistics, pair_space
from ..summary import summarize
from ._bundles import (
    MOVED_SHOWN,
    RANKED,
    ExactScores,
    LabelCount,
    LabelSources,
    ReleaseComparison,
    SampleAnalysis,
    SampleEstimates,
    StoreSession,
    Summaries,
    WorstClusters,
)
from ._misplaced import misplaced_records
from ._registry import Part
from ._sample import recommended
from ._worst import worst_ranking

__all__ = ["ReportResults", "caught", "collect_results"]

T = TypeVar("T")

#: Points of the threshold curve.
CURVE_POINTS = 200
#: Columns that name who gave a label, tried in this order.
REVIEWER_COLUMNS = ("reviewer", "labeller", "labeler", "annotator", "user", "reviewed_by")


@dataclass(frozen=True, eq=False)
class ReportResults:
    """The computed results of a report, in the order of its sections.

    Attributes
    ----------
    parts : tuple of Part
        Each result with the warnings its computation gave.
    inputs : dict of str to str
        What the report was computed from, by name (shown at its top).
    """

    parts: tuple[Part, ...]
    inputs: Mapping[str, str]


def _frame(data: Any, *, name: str, text: Sequence[str] | str = ()) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, str | os.PathLike):
        cols: Any = "all" if text == "all" else tuple(text)
        return read_table(data, name=name, text_columns=cols)
    if hasattr(data, "to_pandas"):
        out: pd.DataFrame = data.to_pandas()
        return out
    raise InputError(
        f"'{name}' must be a table (pandas, polars, pyarrow) or a CSV/Parquet path; "
        f"received {type(data).__name__}"
    )


def _namer(sources: Mapping[str, str] | None) -> Any:
    def name_of(key: str, data: Any) -> str:
        if sources is not None and key in sources:
            return sources[key]
        if isinstance(data, str | os.PathLike):
            return os.path.basename(os.fspath(data))
        return "a table"

    return name_of


def _named(preds: Any) -> dict[str, Any]:
    if preds is None:
        return {}
    if isinstance(preds, Mapping):
        return {str(k): v for k, v in preds.items()}
    if isinstance(preds, str | os.PathLike | pd.DataFrame | Membership):
        preds = [preds]
    out: dict[str, Any] = {}
    for k, p in enumerate(preds, start=1):
        name = (
            os.path.splitext(os.path.basename(p))[0]
            if isinstance(p, str | os.PathLike)
            else f"pred_{k}"
        )
        if name in out:
            raise InputError(
                f"'preds' has two predictions named {name!r}; name them (a mapping, or "
                "NAME=PATH on the command line)"
            )
        out[name] = p
    return out


def collect_results(
    *,
    truth: Any = None,
    preds: Any = None,
    sample: Any = None,
    design: str | None = None,
    weights: Any = None,
    draws: Any = None,
    records: Any = None,
    group: str | None = None,
    tags: str | None = None,
    feature_columns: Sequence[str] | None = None,
    shares: Sequence[str] = (),
    releases: Any = None,
    pairs: Any = None,
    score_col: str = "score",
    pair_cols: tuple[Columns, Columns] = ("record_id_1", "record_id_2"),
    pool: Any = None,
    oasis_budget: int = 500,
    ranked: Any = None,
    labels: Any = None,
    epsilon: float = 0.1,
    delta: int = 10,
    level: float = 0.95,
    seed: int = 0,
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    sources: Mapping[str, str] | None = None,
    worst: bool = True,
    labels_db: str | os.PathLike[str] | None = None,
    link_only: bool = False,
    source_col: Columns | None = None,
    engine: EngineName | Engine = "numpy",
    columns: tuple[Columns, Columns, Columns, Columns] | None = None,
    on_mismatch: MismatchPolicy = "error",
) -> ReportResults:
    """Read the inputs once and compute every result a report of them shows.

    Parameters
    ----------
    truth : clustering, optional
        The true clustering (any form of :func:`ereval.io.as_membership`).
    preds : clustering, list or mapping, optional
        Predicted clusterings; a mapping names them (a list is named by file
        stem, or ``pred_1``, ...).
    sample : table, path or ClusterSample, optional
        A labelled sample of true clusters, with ``design`` (and ``weights``,
        ``draws`` as for :func:`ereval.estimators.as_sample`).
    records : table or path, optional
        Record attributes keyed by ``record_col``: features of the error
        analysis and the columns shown beside the worst clusters.
    group : str, optional
        A feature to estimate performance per subgroup (needs ``sample`` and ``records``
        or a column of the sample).
    tags : str, optional
        A column of reviewers' error tags (in the sample or ``records``).
    feature_columns, shares
        As for :func:`ereval.analysis.sample_errors`.
    releases : mapping, folder, glob or list of paths, optional
        Releases in order (:func:`ereval.release_sources`), at least two.
    pairs : table or path, optional
        Scored pairs (``record_id_1, record_id_2`` and ``score_col``) for the
        metrics against the threshold (needs ``truth``).
    pair_cols : (column, column), default ("record_id_1", "record_id_2")
        The two record id columns of ``pairs`` (each a column or a list of columns
        making one key, as the truth's ``record_col``).
    pool : table or path, optional
        Candidate pairs with ``score``, ``prediction`` and ``label`` for OASIS
        (the label column is the oracle), spending ``oasis_budget`` labels.
    ranked : int, table or path, optional
        A ranked list (or its length) and ``labels`` (columns ``rank, label``) of the
        ranks a PAULA plan with ``epsilon`` and ``delta`` asked for.
    level : float, default 0.95
        Confidence level of every interval.
    seed : int, default 0
        Seed of OASIS's sampling.
    record_col, cluster_col : str
        Column names of the clusterings, the sample and ``records``.
    sources : mapping, optional
        How to name inputs in the report, by parameter name (``{"sample":
        "sample.csv"}``); file inputs are named by their file name otherwise.
    labels_db : path, optional
        A label store (:class:`ereval.labels.LabelStore`): its sessions, reviewers,
        label counts and agreement join the provenance of the labels.
    worst : bool, default True
        Include the true clusters with the most errors (needs ``truth``), ranked by
        misplaced records (:mod:`ereval.report._worst`); their cluster-wise errors
        (:func:`ereval.cluster_errors`) cost several times the metrics on large data.
    link_only, source_col
        A two-file linkage (:mod:`ereval.contingency`): ``source_col`` names the
        truth's column of each record's data set, and every pair-based number (the
        pairwise metrics, Rand, BLANC, the threshold curve) counts the pairs across
        data sets only. A pool then needs the columns ``<source_col>_l`` and
        ``<source_col>_r`` and no pair within one data set.
    engine : {"numpy", "duckdb", "spark", "auto"} or Engine, default "numpy"
        Who computes the exact metrics, the summaries, the worst clusters, the
        threshold curve and the monitoring and comparison of ``releases``. With
        DuckDB or Spark, ``truth``, ``preds``, ``pairs`` and ``releases`` are read
        where they are (files, or what the engine reads) and only the results come
        back (for the worst clusters, the first 100 ranked and the records around
        them): the clusterings are read in memory only for a sample's estimates and
        error analysis, and the monitoring with a sample stays in memory; the
        records that changed cluster between the last two releases come back to be
        shown. Every engine gives the same report.
    columns : (column, column, column, column), optional
        The record and cluster columns of the truth, then of the predictions, when
        they differ (each a column or a list of columns making one key); default
        ``record_col`` and ``cluster_col`` for both.
    on_mismatch : {"error", "intersection", "twinless", "singletons"}, default "error"
        When the truth and a prediction cover different records, as for
        :func:`ereval.io.align`: the exact metrics and the worst clusters follow it.
        The worst clusters need every true record in the prediction: under
        ``"twinless"`` a prediction that lacks some has its worst clusters ranked
        over the records of both sides, with a note saying so.

    Returns
    -------
    ReportResults
        The results in the order of the report's sections, and the inputs by name;
        :func:`ereval.report.build_report` shows them.

    Examples
    --------
    >>> from ereval import example
    >>> results = collect_results(truth=example.load("truth.csv"),
    ...                           preds={"good": example.load("pred_good.csv")})
    >>> [type(p.result).__name__ for p in results.parts]
    ['ExactScores', 'Summaries', 'WorstClusters']
    """
    check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    policy = check_choice("on_mismatch", on_mismatch, MISMATCH_POLICIES)
    check_int("oasis_budget", oasis_budget, minimum=1)
    named = _named(preds)
    if sample is not None and design is None and not isinstance(sample, ClusterSample):
        raise InputError("'sample' needs 'design' (record, cluster, block or single_block)")
    if pairs is not None and truth is None:
        raise InputError("'pairs' (scored pairs) needs 'truth' to score them against")
    if (ranked is None) != (labels is None):
        raise InputError("'ranked' and 'labels' go together (PAULA needs both)")
    if (group is not None or tags is not None) and sample is None:
        raise InputError("'group' and 'tags' need 'sample' (they analyse a labelled sample)")
    if sample is not None and not named:
        raise InputError(
            "'sample' needs at least one prediction in 'preds' to estimate its performance"
        )
    if labels_db is not None and not os.path.isfile(labels_db):
        raise InputError(f"'labels_db': label store '{os.fspath(labels_db)}' does not exist")
    if (
        all(x is None for x in (truth, sample, releases, pairs, pool, ranked, labels_db))
        and not named
    ):
        raise InputError(
            "nothing to report: give 'truth' and 'preds', 'sample', 'releases', 'pool' or 'ranked'"
        )
    if truth is not None and not named and pairs is None:
        raise InputError("'truth' needs 'preds' (or 'pairs') to be compared with")

    source = check_link_only(link_only, source_col)
    name_of = _namer(sources)
    inputs: dict[str, str] = {}
    builder = get_engine(engine)
    cols = columns or (record_col, cluster_col, record_col, cluster_col)
    where = _Where(builder, cols)
    # in memory, the clusterings are read once; on another engine, only for a
    # sample's sections
    held = where.in_memory or sample is not None
    truth_m = None
    if truth is not None:
        if held:
            truth_m = read_membership(
                truth, name="truth", record_col=cols[0], cluster_col=cols[1], source_col=source
            )[0]
        inputs["truth"] = name_of("truth", truth)
    pred_m = (
        {
            n: as_membership(p, name="preds", record_col=cols[2], cluster_col=cols[3])
            for n, p in named.items()
        }
        if held
        else {}
    )
    # what the verbs of the exact sections read: the memberships, or the sources
    truth_in = truth_m if where.in_memory else truth
    preds_in = pred_m if where.in_memory else dict(named)
    for n, p in named.items():
        inputs[f"prediction {n}"] = name_of(n, p)
    records_f = None
    if records is not None:
        records_f = _frame(records, name="records", text="all")
        inputs["records"] = name_of("records", records)
    provenance: dict[str, tuple[pd.DataFrame, str, str]] = {}
    smp = None
    sample_f = None
    if sample is not None:
        if isinstance(sample, ClusterSample):
            smp = sample
        else:
            sample_f = _frame(sample, name="sample", text=(record_col, cluster_col))
            smp = as_sample(
                sample_f,
                design=design,  # type: ignore[arg-type]
                weights=weights,
                draws=draws,
                record_col=record_col,
                cluster_col=cluster_col,
            )
            provenance[f"labelled sample ({name_of('sample', sample)})"] = (
                sample_f,
                cluster_col,
                "",
            )
        inputs["sample"] = f"{name_of('sample', sample)} ({smp.design} design)"

    parts: list[Part] = []
    exact = None
    if policy != "error" and truth is not None and named:
        inputs["records of one side only"] = _POLICY_NOTES[policy]
    if truth is not None and named:
        scores = _exact_scores(where, truth_in, preds_in, source_col=source, policy=policy)
        exact = {n: dict(v) for n, v in scores.scores.items()}
        parts.append(Part(scores))
    if smp is not None:
        parts.append(_sample_estimates(smp, pred_m, level=level, exact=exact))
    if named:
        parts.append(_summaries(where, preds_in, truth_in))
    if smp is not None and smp.design != "predicted_cluster":
        # predicted clusters reviewed alone show no splits: no error analysis from them
        first = next(iter(pred_m))
        features = records_f
        wanted = [c for c in (group, tags) if c is not None]
        if sample_f is not None and wanted:
            # a group or tag column of the sample itself joins the record features
            own = [c for c in wanted if c in sample_f.columns]
            if features is None:
                features = sample_f if own else None
            elif own and any(c not in features.columns for c in own):
                extra = [c for c in own if c not in features.columns]
                features = features.merge(sample_f[[record_col, *extra]], on=record_col, how="left")
        parts.append(
            _sample_analysis(
                smp,
                first,
                pred_m[first],
                records=features,
                feature_columns=feature_columns,
                shares=shares,
                group=group,
                tags=tags,
                level=level,
                record_col=record_col,
            )
        )
    if truth is not None and named and worst:
        rankings: dict[str, Any] = {}
        notes: list[str] = []
        for name, pred in preds_in.items():
            matched: MismatchPolicy = policy
            if policy == "twinless" and exact is not None and exact[name]["n_twinless_true"]:
                # cluster-wise errors need a predicted cluster for every true record
                matched = "intersection"
                notes.append(
                    f"{name} lacks {int(exact[name]['n_twinless_true']):,} true record(s): its "
                    "worst clusters are ranked over the records of both sides only"
                )
            rankings[name] = worst_ranking(
                where.engine, truth_in, pred, rank=RANKED, on_mismatch=matched, **where.sides()
            )
        parts.append(Part(WorstClusters(rankings, records_f, record_col), tuple(notes)))
    if pairs is not None and truth is not None:
        curve, found = caught(
            lambda: threshold_curve(
                truth_in,
                pairs,
                score_col=score_col,
                left_col=pair_cols[0],
                right_col=pair_cols[1],
                thresholds=CURVE_POINTS,
                link_only=source is not None,
                source_col=source,
                engine=builder,
                **where.side(0),
            )
        )
        parts.append(Part(curve, tuple(found)))
        inputs["scored pairs"] = name_of("pairs", pairs)
    if releases is not None and builder.name != "numpy":
        release_list = release_sources(releases)
        inputs["releases"] = ", ".join(label for label, _ in release_list)
        if len(release_list) >= 2:
            by = builder if smp is None else NumpyEngine()
            m, found = caught(
                lambda: monitor(
                    dict(release_list),
                    sample=smp,
                    level=level,
                    engine=by,
                    record_col=record_col,
                    cluster_col=cluster_col,
                )
            )
            parts.append(Part(m, tuple(found)))
            (old, old_src), (new, new_src) = release_list[-2:]
            c = compare(
                old_src, new_src, engine=builder, record_col=record_col, cluster_col=cluster_col
            )
            parts.append(Part(ReleaseComparison(old, new, c, *c.moved(first=MOVED_SHOWN))))
            releases = None
    if releases is not None:
        release_list = release_sources(releases)
        rel = {
            label: as_membership(
                src, name="releases", record_col=record_col, cluster_col=cluster_col
            )
            for label, src in release_list
        }
        inputs["releases"] = ", ".join(rel)
        if len(rel) >= 2:
            m, found = caught(lambda: monitor(dict(rel), sample=smp, level=level))
            parts.append(Part(m, tuple(found)))
            old, new = list(rel)[-2:]
            c = compare(rel[old], rel[new])
            parts.append(Part(ReleaseComparison(old, new, c, *c.moved(first=MOVED_SHOWN))))
        else:
            only = next(iter(rel))
            parts.append(_summaries(_Where(NumpyEngine(), cols), {f"release {only}": rel[only]}))
    if pool is not None:
        pool_f = _frame(pool, name="pool", text=("pair_id",))
        across = None
        if source is not None:
            col = source if isinstance(source, str) else "+".join(source)
            across = (f"{col}_l", f"{col}_r")
        oasis = _oasis(pool_f, budget=oasis_budget, level=level, seed=seed, source_cols=across)
        parts.append(oasis)
        # the labels OASIS spent, not the whole label column it could draw from
        provenance[f"labelled pairs ({name_of('pool', pool)}, drawn by OASIS)"] = (
            pool_f.iloc[list(oasis.context["labelled_rows"])],
            "pair_id" if "pair_id" in pool_f.columns else pool_f.columns[0],
            "label",
        )
        inputs["pool"] = name_of("pool", pool)
    if ranked is not None:
        n_items: int
        if isinstance(ranked, int):
            n_items = ranked
        elif isinstance(ranked, str | os.PathLike):
            from ..io import count_rows

            n_items = count_rows(ranked, name="ranked")
        else:
            n_items = len(_frame(ranked, name="ranked"))
        labels_f = _frame(labels, name="labels")
        for col in ("rank", "label"):
            if col not in labels_f.columns:
                raise InputError(
                    f"'labels' needs columns 'rank' and 'label'; found {[str(c) for c in labels_f.columns]}"
                )
        plan = paula_plan(n_items, epsilon=epsilon, delta=delta)
        ranks, marks = labels_f["rank"].to_numpy(), labels_f["label"].to_numpy()
        bounds, found = caught(lambda: paula_bounds(plan, ranks, marks))
        parts.append(Part(bounds, tuple(found), {"epsilon": epsilon, "delta": delta}))
        provenance[f"ranked-list labels ({name_of('labels', labels)})"] = (
            labels_f,
            "rank",
            "label",
        )
        inputs["ranked list"] = f"{name_of('ranked', ranked)} ({n_items:,} items)"
        inputs["PAULA labels"] = name_of("labels", labels)
    if labels_db is not None:
        inputs["label store"] = name_of("labels_db", labels_db)
    if provenance or labels_db is not None:
        parts.append(Part(_label_sources(provenance, labels_db)))
    return ReportResults(tuple(parts), inputs)


def caught(func: Callable[[], T]) -> tuple[T, list[str]]:
    """Call ``func``; return its result and the messages of the warnings it emitted."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        out = func()
    return out, list(dict.fromkeys(str(r.message) for r in records))


@dataclass(frozen=True)
class _Where:
    """Where the exact sections are computed: the report's engine, and the columns
    the clusterings are read by when the engine reads them itself (the memberships
    in memory need none)."""

    engine: Engine
    columns: tuple[Columns, Columns, Columns, Columns]

    @property
    def in_memory(self) -> bool:
        return self.engine.name == "numpy"

    def side(self, k: int) -> dict[str, Any]:
        """The record and cluster columns of the truth (``k = 0``) or of the
        predictions (``k = 1``) for a verb reading one clustering."""
        if self.in_memory:
            return {}
        return {"record_col": self.columns[2 * k], "cluster_col": self.columns[2 * k + 1]}

    def sides(self) -> dict[str, Any]:
        """The columns of both sides, for a verb reading the two clusterings."""
        if self.in_memory:
            return {}
        names = ("truth_record_col", "truth_cluster_col", "pred_record_col", "pred_cluster_col")
        return dict(zip(names, self.columns, strict=True))


#: How the report names each policy for the records of one side only.
_POLICY_NOTES = {
    "intersection": "left out: the records on both sides are scored",
    "twinless": "scored as coreference scorers do (each is an error on its side)",
    "singletons": "each true record the prediction lacks is a predicted cluster of its own",
}


def _exact_scores(
    where: _Where,
    truth: Any,
    preds: Mapping[str, Any],
    *,
    source_col: Columns | None,
    policy: MismatchPolicy,
) -> ExactScores:
    """The default metrics of each prediction, from the statistics its engine computes
    (with the counts of records and clusters), its records matched by ``policy``."""
    scores: dict[str, dict[str, float]] = {}
    stats = None
    cells = cells_wanted(resolve_metrics(None))
    for name, pred in preds.items():
        stats = compute_statistics(
            where.engine,
            truth,
            pred,
            cells=cells,
            link_only=source_col is not None,
            source_col=source_col,
            on_mismatch=policy,
            **where.sides(),
        )
        scores[name] = evaluate(stats)
    across = pair_space(stats).records if source_col is not None and stats is not None else None
    return ExactScores(scores, across)


def _summaries(where: _Where, preds: Mapping[str, Any], truth: Any = None) -> Part:
    summaries = {}
    if truth is not None:
        summaries["truth"] = summarize(truth, engine=where.engine, **where.side(0))
    for name, pred in preds.items():
        summaries[name] = summarize(pred, engine=where.engine, **where.side(1))
    return Part(Summaries(summaries, with_truth=truth is not None))


def _sample_estimates(
    sample: ClusterSample,
    preds: Mapping[str, Membership],
    *,
    level: float,
    exact: Mapping[str, Mapping[str, float]] | None,
) -> Part:
    results: dict[str, dict[str, Estimate]] = {}
    notes: list[str] = []
    for name, pred in preds.items():
        prepared = prepare_prediction(pred)
        res, found = caught(partial(estimate, prepared, sample, level=level, naive=False))
        results[name] = res
        shown = recommended(res)
        hidden = [k for k in res if k not in shown]
        for w in [*found, *(w for k in shown for w in res[k].warnings)]:
            if not any(f"'{k}'" in w for k in hidden):
                notes.append(f"{name}: {w}")
    result = SampleEstimates(results, sample.design, sample.weights, level, exact)
    return Part(result, tuple(notes))


def _sample_analysis(
    sample: ClusterSample,
    name: str,
    pred: Membership,
    *,
    records: pd.DataFrame | None,
    feature_columns: Sequence[str] | None,
    shares: Sequence[str],
    group: str | None,
    tags: str | None,
    level: float,
    record_col: str,
) -> Part:
    """The error analysis of ``pred``: the weighted shares of over- and under-clustered
    sampled clusters, ``sum_i w_i [OCE_i > 0] / sum_i w_i`` (``w``: inverse sampling
    probability), the disparities by ``group``, the error tree and the tags."""
    errs, found = caught(
        lambda: sample_errors(
            pred,
            sample,
            features=records,
            feature_columns=feature_columns if records is not None else None,
            shares=shares if records is not None else (),
            record_col=record_col,
        )
    )
    notes = [f"{name}: {w}" for w in found]
    table = errs.table
    w = table["weight"].to_numpy(dtype=np.float64)
    over = float(np.sum(w * (table["OCE"].to_numpy() > 0)) / np.sum(w))
    under = float(np.sum(w * (table["UCE"].to_numpy() > 0)) / np.sum(w))
    d = None
    if group is not None:
        d, found = caught(lambda: disparities(errs, group, level=level, versus="overall"))
        notes += [f"{name}: {m}" for m in found]
    tree = None
    if errs.features:
        try:
            require("sklearn", feature="the error tree of a report")
        except ImportError as exc:
            notes.append(str(exc))
        else:
            tree, found = caught(lambda: error_tree(errs, target="error", max_depth=2))
            notes += [f"{name}: {m}" for m in found]
    freq = None
    if tags is not None:
        freq, found = caught(lambda: tag_frequencies(errs, tags, level=level))
        notes += [f"{name}: {m}" for m in found]
    # misplaced records of each sampled true cluster: its records outside its largest
    # predicted piece, and the other records of those predicted clusters
    where = pd.Series(np.asarray(pred.clusters), index=np.asarray(pred.records))
    drawn = pd.DataFrame({"t": sample.clusters, "p": where.reindex(sample.records).to_numpy()})
    drawn = drawn[drawn["p"].notna()]
    pred_sizes = pd.Series(np.asarray(pred.clusters)).value_counts()
    misplaced = misplaced_records(drawn["t"], drawn["p"], pred_sizes)
    result = SampleAnalysis(
        name,
        errs,
        over,
        under,
        level,
        misplaced.set_index("cluster_id")["misplaced"],
        group,
        d,
        tree,
        freq,
    )
    return Part(result, tuple(notes))


def _oasis(
    pool: pd.DataFrame,
    *,
    budget: int,
    level: float,
    seed: int,
    source_cols: tuple[str, str] | None,
) -> Part:
    """OASIS on the pool (its label column the oracle), its estimates kept at 25 budgets
    up to ``budget`` labels (:func:`ereval.oasis.convergence`)."""
    p = pool_from_frame(
        pool, label_col="label", score_col="score", require_label=True, source_cols=source_cols
    )
    sampler = make_sampler("oasis", p, alpha=0.5, seed=seed)
    run, found = caught(lambda: convergence(sampler, min(budget, p.size), confidence=level))
    rows = [int(i) for i in sampler.labelled[0]]
    return Part(run, tuple(found), {"labelled_rows": rows})


def _reviewer_column(frame: pd.DataFrame) -> str | None:
    lower = {str(c).lower(): str(c) for c in frame.columns}
    for name in REVIEWER_COLUMNS:
        if name in lower:
            return lower[name]
    return None


def _label_count(what: str, frame: pd.DataFrame, item_col: str, label_col: str) -> LabelCount:
    """The labels of one input: ``label_col`` ``""`` means every row is a labelled record
    of a true cluster (``item_col``)."""
    reviewer = _reviewer_column(frame)
    labelled = frame if not label_col else frame[frame[label_col].notna()]
    n_labels = len(labelled)
    n_items = int(labelled[item_col].nunique()) if item_col in labelled.columns else n_labels
    positives: int | None = None
    if label_col:
        positives = int(pd.to_numeric(labelled[label_col], errors="coerce").fillna(0).sum())
    per = None
    if reviewer is not None:
        per = {str(k): int(v) for k, v in labelled[reviewer].value_counts().items()}
    agreement: float | None = None
    repeated = 0
    if label_col and item_col in labelled.columns:
        by_item = labelled.groupby(item_col)[label_col]
        sizes = by_item.size()
        repeated = int((sizes > 1).sum())
        if repeated:
            unanimous = by_item.nunique()[sizes > 1] == 1
            agreement = float(unanimous.mean())
    return LabelCount(what, n_labels, n_items, not label_col, positives, per, repeated, agreement)


def _store_sessions(path: str | os.PathLike[str]) -> tuple[StoreSession, ...]:
    """Per session of the label store at ``path``: items, labels per reviewer, agreement
    (:func:`ereval.labels.session_agreement`, over the items labelled by two reviewers
    or more; adjudications and labels implied by transitivity left out) and
    adjudications."""
    out = []
    with LabelStore(path, readonly=True) as store:
        for info in store.sessions():
            labels = store.labels(info.name)
            per = Counter(who for by in labels.values() for who in by)
            adjudications = store.adjudications(info.name)
            out.append(
                StoreSession(
                    info.name,
                    info.kind,
                    info.created_at,
                    len(store.items(info.name)),
                    len(labels),
                    sum(per.values()),
                    dict(per),
                    session_agreement(store, info.name),
                    len(adjudications),
                    _disagreements(labels, adjudications),
                )
            )
    return tuple(out)


def _disagreements(
    labels: Mapping[str, Mapping[str, Any]], adjudications: Mapping[str, Any]
) -> int:
    """Adjudicated items whose reviewers' labels differ ("unsure" aside); the others
    were sent to adjudication by an "unsure" label.

    >>> _disagreements({"a": {"x": "match", "y": "non-match"}, "b": {"x": "unsure"}},
    ...                {"a": ("lead", "match"), "b": ("lead", "match")})
    1
    """
    return sum(
        len({str(v) for v in labels.get(item, {}).values() if str(v) != "unsure"}) > 1
        for item in adjudications
    )


def _label_sources(
    sources: Mapping[str, tuple[pd.DataFrame, str, str]],
    store: str | os.PathLike[str] | None,
) -> LabelSources:
    counts = tuple(_label_count(what, *source) for what, source in sources.items())
    if store is None:
        return LabelSources(counts)
    return LabelSources(counts, os.path.basename(os.fspath(store)), _store_sessions(store))
