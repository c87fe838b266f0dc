"""``ereval analyze``: error analysis of a labelled sample.

``ereval analyze --pred P --sample S --design D`` writes the error table of the
sampled true clusters (errors against the whole prediction, weights, features)
and prints the analyses asked for: subgroup estimates (``--group``), an error
tree (``--tree``) and reviewer tag frequencies (``--tags``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .._errors import InputError
from ..analysis import (
    Disparities,
    ErrorTree,
    SampleErrors,
    Target,
    disparities,
    error_tree,
    sample_errors,
    tag_frequencies,
)
from ..engines import Engine, EngineName
from ..estimators import as_sample
from ..estimators._ratio import normal_quantile
from ..io import read_table
from ..results import Estimate
from ._columns import split_columns
from ._common import OutputFormat, dumps_json, emit_frame, emit_records, note_written
from ._engine import engine_from_options
from ._output import Outputs, check_figure_path, check_table_path, write_figure, write_table
from ._progress import progress
from ._sample import design_value, weight_kind_value
from ._warnings import capture_warnings, estimate_warnings, print_warnings

__all__ = ["SampleMode", "run_sample_mode"]

_FIELDS = ("value", "std", "lower", "upper", "n")


@dataclass(frozen=True)
class SampleMode:
    """The options of `ereval analyze`, as given on the command line."""

    pred: Path
    sample: Path
    design: str
    weights: str | None
    weight_kind: str
    blocks: str | None
    draws: str | None
    without_replacement: bool
    population_size: int | None
    features: Path | None
    feature_cols: str | None
    shares: str | None
    group: str | None
    bins: int | None
    versus: str | None
    metrics: str | None
    tree: bool
    target: Target
    max_depth: int
    tags: str | None
    among: str
    level: float
    record_col: str
    cluster_col: str
    out: Path | None
    plot: Path | None
    fmt: OutputFormat
    quiet: bool
    engine: EngineName = "auto"
    memory_limit: str | None = None
    threads: int | None = None
    temp_dir: Path | None = None
    spark_master: str | None = None
    spark_conf: list[str] | None = None


def _check(opts: SampleMode) -> Engine:
    """Everything that can be checked before reading a file; the engine reading PRED."""
    chosen = engine_from_options(
        engine=opts.engine,
        memory_limit=opts.memory_limit,
        threads=opts.threads,
        temp_dir=opts.temp_dir,
        spark_master=opts.spark_master,
        spark_conf=opts.spark_conf,
        pred=opts.pred,
    )
    normal_quantile(opts.level)
    if opts.versus is not None and opts.group is None:
        raise InputError("'--versus' compares groups: give '--group' too")
    if opts.max_depth < 1:
        raise InputError(f"'--max-depth' must be at least 1; received {opts.max_depth}")
    asked = [
        f
        for f, on in (
            ("--group", opts.group),
            ("--versus", opts.versus),
            ("--tree", opts.tree),
            ("--tags", opts.tags),
        )
        if on
    ]
    if opts.fmt == "csv" and len(asked) > 1:
        raise InputError(
            f"'--format' csv prints one table; ask for one of {', '.join(asked)} or use json"
        )
    if opts.plot is not None:
        if not (opts.group or opts.tags):
            raise InputError(
                "'--plot' draws the --group estimates or the --tags frequencies; give one"
            )
        check_figure_path(opts.plot, flag="--plot")
    if opts.out is not None:
        check_table_path(opts.out, flag="--out")
    if opts.bins is not None and not opts.group:
        raise InputError("'--bins' cuts the --group feature; give '--group'")
    if (opts.feature_cols or opts.shares) and opts.features is None:
        raise InputError("'--feature-cols' and '--shares' need '--features'")
    return chosen


def _per_cluster(frame: pd.DataFrame, column: str, cluster_col: str, flag: str) -> dict[Any, Any]:
    """Cluster id -> value of a column of the sample, checked constant per cluster."""
    per = frame.groupby(cluster_col, sort=False)[column]
    counts = per.nunique(dropna=False)
    if (counts > 1).any():
        bad = counts.index[counts.to_numpy() > 1][0]
        raise InputError(
            f"'{flag}' must be constant within each cluster; cluster {bad!r} has several values"
        )
    return dict(per.first().items())


def _column(
    errors: SampleErrors, sample: pd.DataFrame, column: str, cluster_col: str, flag: str
) -> str | Mapping[Any, Any]:
    """A feature of the error table, or else a per-cluster column of the sample."""
    if column in errors.table.columns and column in errors.features:
        return column
    if column in sample.columns:
        values = _per_cluster(sample, column, cluster_col, flag)
        return pd.Series(values, name=column, dtype=object) if flag == "--group" else values
    raise InputError(
        f"'{flag}': no feature or sample column '{column}'; the features are "
        f"{list(errors.features)} and the sample's columns are {[str(c) for c in sample.columns]}"
    )


def _rows(ests: Mapping[str, Estimate]) -> list[Mapping[str, Any]]:
    return [{"tag": k, **{f: getattr(e, f) for f in _FIELDS}} for k, e in ests.items()]


def _group_rows(d: Disparities) -> list[Mapping[str, Any]]:
    rows: list[Mapping[str, Any]] = []
    for label, ests in [*d.groups.items(), ("(all)", d.overall)]:
        clusters = d.clusters.get(label, sum(d.clusters.values()))
        for key, e in ests.items():
            row = {"group": label, "estimator": key, **{f: getattr(e, f) for f in _FIELDS}}
            rows.append({**row, "clusters": clusters})
    return rows


def _tree_rows(tree: ErrorTree) -> list[Mapping[str, Any]]:
    return [
        {
            "rule": " and ".join(r.conditions) or "all clusters",
            "value": r.value,
            "clusters": r.clusters,
            "share": r.share,
        }
        for r in tree.rules
    ]


def _as_group_errors(func: Callable[[], Disparities]) -> tuple[Disparities, list[str]]:
    """Run the subgroup estimates; their errors name ``'by'``, which is ``--group`` here."""
    try:
        return capture_warnings(func)
    except InputError as exc:
        raise InputError(str(exc).replace("'by'", "'--group'")) from None


def run_sample_mode(opts: SampleMode) -> None:
    """Read the files, run the analyses asked for, print and write the results."""
    chosen = _check(opts)
    key = split_columns(opts.record_col) or "record_id"
    key_cols = [key] if isinstance(key, str) else key
    with progress("reading the sample and the prediction", quiet=opts.quiet) as bar:
        sample_frame = read_table(
            opts.sample, name="sample", text_columns=(*key_cols, opts.cluster_col)
        )
        feats = (
            None
            if opts.features is None
            else read_table(
                opts.features, name="features", text_columns=(*key_cols, opts.cluster_col)
            )
        )
        s = as_sample(
            sample_frame,
            design=design_value(opts.design),
            weights={"cluster-size": "cluster_size"}.get(opts.weights or "", opts.weights),
            weight_kind=weight_kind_value(opts.weight_kind),
            blocks=opts.blocks,
            draws=opts.draws,
            replace=not opts.without_replacement,
            population_size=opts.population_size,
            record_col=key,
            cluster_col=opts.cluster_col,
        )
        bar.update(description="computing the errors of the sampled clusters")
        cols = split_columns(opts.feature_cols)
        shares = split_columns(opts.shares)
        errors = sample_errors(
            str(opts.pred),
            s,
            features=feats,
            feature_columns=[cols] if isinstance(cols, str) else cols,
            shares=[shares] if isinstance(shares, str) else (shares or ()),
            record_col=key,
            cluster_col=opts.cluster_col,
            engine=chosen,
        )
        results: dict[str, Any] = {}
        warnings_out: list[str] = []
        by = None
        if opts.group:
            bar.update(description="estimating per subgroup")
            groups = _column(errors, sample_frame, opts.group, opts.cluster_col, "--group")
            by, caught = _as_group_errors(
                lambda: disparities(
                    errors,
                    groups,
                    metrics=opts.metrics or "pairwise_precision,pairwise_recall,pairwise_f1",
                    level=opts.level,
                    bins=opts.bins,
                    versus=opts.versus,
                )
            )
            carried = {w for r in by.groups.values() for e in r.values() for w in e.warnings}
            warnings_out += [w for w in caught if w not in carried]
            for g, r in by.groups.items():
                warnings_out += estimate_warnings(r, prefix=f"group {g!r}: ")
            results["groups"] = by
        if opts.tree:
            bar.update(description="fitting the error tree")
            results["tree"] = error_tree(errors, target=opts.target, max_depth=opts.max_depth)
        freqs = None
        if opts.tags:
            tags = _column(errors, sample_frame, opts.tags, opts.cluster_col, "--tags")
            freqs, caught = capture_warnings(
                lambda: tag_frequencies(errors, tags, among=opts.among, level=opts.level)  # type: ignore[arg-type]
            )
            warnings_out += estimate_warnings(freqs, caught=caught)
            results["tags"] = freqs
    print_warnings(warnings_out)
    with Outputs() as outputs:
        if opts.out is not None:
            outputs.add(opts.out, lambda tmp: write_table(errors.table, tmp))
        if opts.plot is not None:
            from ..plots import plot_analysis

            figure = plot_analysis(by, freqs)
            plot = opts.plot
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, plot))
    if opts.out is not None:
        note_written(opts.out, rows=len(errors.table), quiet=opts.quiet)
    _print(opts, errors, results)


def _print(opts: SampleMode, errors: SampleErrors, results: dict[str, Any]) -> None:
    if not results:
        if opts.out is None:
            frame = errors.table
            emit_frame(frame, opts.fmt, title=f"errors of {len(frame)} sampled clusters")
        return
    if opts.fmt == "json":
        payload: dict[str, Any] = {}
        if "groups" in results:
            d: Disparities = results["groups"]
            payload["groups"] = {
                "by": d.by,
                "estimates": {
                    str(g): {k: e.to_dict() for k, e in r.items()} for g, r in d.groups.items()
                },
                "overall": {k: e.to_dict() for k, e in d.overall.items()},
                "clusters": {str(g): n for g, n in d.clusters.items()},
            }
            if d.differences is not None:
                payload["groups"]["versus"] = d.versus
                payload["groups"]["differences"] = {
                    str(g): {k: e.to_dict() for k, e in r.items()} for g, r in d.differences.items()
                }
        if "tree" in results:
            t: ErrorTree = results["tree"]
            payload["tree"] = {
                "target": t.target,
                "overall": t.overall,
                "first_split": t.first_split,
                "importances": t.importances,
                "rules": _tree_rows(t),
                "text": t.text(),
            }
        if "tags" in results:
            payload["tags"] = {k: e.to_dict() for k, e in results["tags"].items()}
        sys.stdout.write(dumps_json(payload) + "\n")
        return
    if "groups" in results:
        d = results["groups"]
        emit_records(
            _group_rows(d),
            ["group", "estimator", *_FIELDS, "clusters"],
            opts.fmt,
            title=f"estimates by {d.by}",
        )
        if d.differences is not None:
            emit_records(
                [
                    {"group": g, "estimator": k, **{f: getattr(e, f) for f in _FIELDS}}
                    for g, r in d.differences.items()
                    for k, e in r.items()
                ],
                ["group", "estimator", *_FIELDS],
                opts.fmt,
                title=f"differences to {d.versus} by {d.by}",
            )
    if "tree" in results:
        t = results["tree"]
        if opts.fmt == "csv":
            emit_records(_tree_rows(t), ["rule", "value", "clusters", "share"], "csv")
        else:
            sys.stdout.write(f"error tree ({t.target}; overall {t.overall:.1%} weighted):\n")
            sys.stdout.write(t.text() + "\n")
    if "tags" in results:
        emit_records(
            _rows(results["tags"]),
            ["tag", *_FIELDS],
            opts.fmt,
            title=f"reviewer tags among {opts.among}",
        )
