"""Build a :class:`~ereval.report.Report` from whatever inputs are at hand.

Each section is computed by the existing maths APIs (``evaluate``,
``estimate``, ``summarize``, ``monitor``, ``compare``, ``sample_errors``,
``threshold_curve``, OASIS, PAULA); this module only decides which sections the
inputs allow and reads the inputs once.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._errors import InputError
from .._validation import check_in_range, check_int
from ..estimators import ClusterSample, as_sample
from ..io import Columns, Membership, as_membership, read_table
from ..io._align import check_link_only
from ..io._memberships import read_membership
from ..monitor import release_sources
from ._exact import metrics_section, summary_section, worst_clusters_section
from ._pairs import oasis_section, paula_section, threshold_section
from ._releases import comparison_section, monitoring_section
from ._sample import analysis_section, estimates_section, provenance_section
from .model import Report, Section

__all__ = ["build_report"]


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


def build_report(
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
    pool: Any = None,
    oasis_budget: int = 500,
    ranked: Any = None,
    labels: Any = None,
    epsilon: float = 0.1,
    delta: int = 10,
    title: str = "Entity resolution evaluation",
    level: float = 0.95,
    seed: int = 0,
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    sources: Mapping[str, str] | None = None,
    worst: bool = True,
    labels_db: str | os.PathLike[str] | None = None,
    link_only: bool = False,
    source_col: Columns | None = None,
) -> Report:
    """An evaluation report with every section its inputs allow.

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
        Releases in order (:func:`ereval.monitor.release_sources`), at least two.
    pairs : table or path, optional
        Scored pairs (``record_id_1, record_id_2`` and ``score_col``) for the
        metrics against the threshold (needs ``truth``).
    pool : table or path, optional
        Candidate pairs with ``score``, ``prediction`` and ``label`` for OASIS
        (the label column is the oracle), spending ``oasis_budget`` labels.
    ranked : int, table or path, optional
        A ranked list (or its length) and ``labels`` (columns ``rank, label``) of the
        ranks a PAULA plan with ``epsilon`` and ``delta`` asked for.
    title : str
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
        Include the true clusters with the most errors (needs ``truth``); their
        cluster-wise errors (:func:`ereval.cluster_errors`) cost several times the
        metrics on large data.
    link_only, source_col
        A two-file linkage (:mod:`ereval.contingency._link_only`): ``source_col`` names the
        truth's column of each record's data set, and every pair-based number (the
        pairwise metrics, Rand, BLANC, the threshold curve) counts the pairs across
        data sets only. A pool then needs the columns ``<source_col>_l`` and
        ``<source_col>_r`` and no pair within one data set.

    Returns
    -------
    Report

    Examples
    --------
    >>> from ereval import example
    >>> r = build_report(truth=example.load("truth.csv"),
    ...                  preds={"good": example.load("pred_good.csv")})
    >>> [s.key for s in r.sections]
    ['metrics', 'summary', 'worst']
    """
    check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
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
    truth_m = None
    if truth is not None:
        truth_m = read_membership(
            truth, name="truth", record_col=record_col, cluster_col=cluster_col, source_col=source
        )[0]
        inputs["truth"] = name_of("truth", truth)
    pred_m = {
        n: as_membership(p, name="preds", record_col=record_col, cluster_col=cluster_col)
        for n, p in named.items()
    }
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

    sections: list[Section] = []
    exact = None
    if truth_m is not None and pred_m:
        metrics = metrics_section(truth_m, pred_m, source_col=source)
        exact = metrics.numbers["metrics"]
        sections.append(metrics)
    if smp is not None:
        sections.append(estimates_section(smp, pred_m, level=level, exact=exact))
    if pred_m or truth_m is not None:
        if pred_m:
            sections.append(summary_section(pred_m, truth_m))
    if smp is not None:
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
        sections.append(
            analysis_section(
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
    if truth_m is not None and pred_m and worst:
        sections.append(
            worst_clusters_section(truth_m, pred_m, records=records_f, record_col=record_col)
        )
    if pairs is not None and truth_m is not None:
        pairs_f = _frame(pairs, name="pairs", text=("record_id_1", "record_id_2"))
        sections.append(threshold_section(truth_m, pairs_f, score_col=score_col, source_col=source))
        inputs["scored pairs"] = name_of("pairs", pairs)
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
            monitoring, _ = monitoring_section(rel, sample=smp, level=level)
            sections.append(monitoring)
            labels_ = list(rel)
            sections.append(
                comparison_section(labels_[-2], rel[labels_[-2]], labels_[-1], rel[labels_[-1]])
            )
        else:
            only = next(iter(rel))
            sections.append(summary_section({f"release {only}": rel[only]}))
    if pool is not None:
        pool_f = _frame(pool, name="pool", text=("pair_id",))
        across = None
        if source is not None:
            col = source if isinstance(source, str) else "+".join(source)
            across = (f"{col}_l", f"{col}_r")
        sections.append(
            oasis_section(pool_f, budget=oasis_budget, level=level, seed=seed, source_cols=across)
        )
        provenance[f"labelled pairs ({name_of('pool', pool)}, the oracle of OASIS)"] = (
            pool_f,
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
        sections.append(
            paula_section(
                n_items,
                labels_f["rank"].to_numpy(),
                labels_f["label"].to_numpy(),
                epsilon=epsilon,
                delta=delta,
            )
        )
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
        sections.append(provenance_section(provenance, store=labels_db))
    # a release-only report has a summary already; make sure keys stay unique
    seen: dict[str, int] = {}
    unique: list[Section] = []
    for s in sections:
        seen[s.key] = seen.get(s.key, 0) + 1
        if seen[s.key] > 1:
            s = Section(
                f"{s.key}-{seen[s.key]}",
                s.title,
                s.reading,
                s.tables,
                s.charts,
                s.warnings,
                s.numbers,
            )
        unique.append(s)
    from .. import __version__

    created = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Report(title, tuple(unique), inputs, created, __version__)
