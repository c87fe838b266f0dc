"""``ereval curve``: every metric of scored pairs at every threshold."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from .._errors import InputError
from .._validation import check_beta
from ..io import check_link_only, file_spec, header
from ._columns import IdTypeOpt, LinkOnlyOpt, split_columns
from ._common import (
    FormatOpt,
    QuietOpt,
    emit_chunks,
    emit_mapping,
    emit_rows_of,
    examples,
    handle_errors,
    note,
    note_written,
)
from ._engine import (
    EngineOpt,
    MemoryLimitOpt,
    SparkConfOpt,
    SparkMasterOpt,
    TempDirOpt,
    ThreadsOpt,
    engine_from_options,
)
from ._output import (
    Outputs,
    check_figure_path,
    check_table_path,
    write_figure,
    write_table_chunks,
)
from ._progress import progress

Preset = Literal["none", "splink"]

#: Column names of a linker's scored pairs: (left, right, score candidates in order).
PRESETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "none": ("record_id_1", "record_id_2", ("score",)),
    "splink": ("unique_id_l", "unique_id_r", ("match_weight", "match_probability")),
}

#: Columns shown by the table format (every column goes to -f csv/json and --out).
_TABLE_COLUMNS = (
    "threshold",
    "n_accepted",
    "links_precision",
    "links_recall",
    "links_f1",
    "n_pred_clusters",
    "pairwise_f1",
    "b3_f1",
    "cluster_f1",
)


def _columns(
    pairs: Path, preset: str, left_col: str | None, right_col: str | None, score_col: str | None
) -> tuple[str | list[str], str | list[str], str]:
    """The pair columns: given options first, then the preset's names.

    A Splink link job (its predictions have ``source_dataset_l`` and
    ``source_dataset_r``) identifies a record by its source and its id: the
    preset then reads keys of both columns.
    """
    default_left, default_right, scores = PRESETS[preset]
    present = header(file_spec(pairs, name="pairs"), name="pairs")
    left: str | list[str] = split_columns(left_col) or default_left
    right: str | list[str] = split_columns(right_col) or default_right
    if preset == "splink" and {"source_dataset_l", "source_dataset_r"} <= set(present):
        if left_col is None:
            left = ["source_dataset_l", default_left]
        if right_col is None:
            right = ["source_dataset_r", default_right]
    if score_col is not None:
        return left, right, score_col
    for candidate in scores:
        if candidate in present:
            return left, right, candidate
    raise InputError(
        f"'--score-col': PAIRS has none of the columns {list(scores)!r} of --preset {preset}; "
        f"its columns are {present[:10]!r}; name the score column with --score-col"
    )


@handle_errors
def curve_command(
    truth: Annotated[
        Path,
        typer.Argument(
            metavar="TRUTH",
            help="True clustering: CSV or Parquet with record and cluster id columns. Its "
            "records in no pair are singletons of the prediction.",
        ),
    ],
    pairs: Annotated[
        Path,
        typer.Argument(
            metavar="PAIRS",
            help="Scored pairs: CSV or Parquet with two record id columns and a score "
            "(pairs with score >= t are accepted at threshold t).",
        ),
    ],
    score_col: Annotated[
        str | None,
        typer.Option(
            "--score-col",
            help="Score column of PAIRS \\[default: score, or the preset's].",
            show_default=False,
        ),
    ] = None,
    left_col: Annotated[
        str | None,
        typer.Option(
            "--left-col",
            help="First record id column of PAIRS \\[default: record_id_1, or the preset's].",
            show_default=False,
        ),
    ] = None,
    right_col: Annotated[
        str | None,
        typer.Option(
            "--right-col",
            help="Second record id column of PAIRS \\[default: record_id_2, or the preset's].",
            show_default=False,
        ),
    ] = None,
    preset: Annotated[
        Preset,
        typer.Option(
            "--preset",
            help="Column names of a linker's output. splink: unique_id_l, unique_id_r (with "
            "source_dataset_l, source_dataset_r in a link job: give --record-col "
            "source_dataset,unique_id) and match_weight (else match_probability).",
        ),
    ] = "none",
    grid: Annotated[
        int | None,
        typer.Option(
            "--grid",
            help="Report at N of the distinct scores, evenly spaced in rank \\[default: every "
            "distinct score; 100 when a metric without an incremental form is asked for].",
            show_default=False,
        ),
    ] = None,
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            "-m",
            help="Comma-separated metric or family names of the clustering \\[default: every "
            "metric with an incremental form; 'canonical' adds CEAF, BLANC, LEA, "
            "closest-cluster and merge distances on the grid].",
            show_default=False,
        ),
    ] = None,
    beta: Annotated[
        float,
        typer.Option(
            "--beta", help="Weight of recall in F-beta (adds *_fbeta columns when not 1)."
        ),
    ] = 1.0,
    maximize: Annotated[
        str,
        typer.Option("--maximize", help="Report the threshold where this column is largest."),
    ] = "pairwise_f1",
    precision_target: Annotated[
        float | None,
        typer.Option(
            "--precision-target",
            help="Report the lowest threshold whose links precision is at least this.",
        ),
    ] = None,
    record_col: Annotated[
        str,
        typer.Option(
            "--record-col",
            help="Record id column of TRUTH (several, comma-separated, make one key, as in "
            "--left-col and --right-col).",
        ),
    ] = "record_id",
    cluster_col: Annotated[
        str, typer.Option("--cluster-col", help="Cluster id column of TRUTH.")
    ] = "cluster_id",
    on_mismatch: Annotated[
        Literal["error", "intersection"],
        typer.Option(
            "--on-mismatch",
            help="Pairs naming records absent from TRUTH: error, or drop those pairs.",
        ),
    ] = "error",
    id_type: IdTypeOpt = "exact",
    link_only: LinkOnlyOpt = False,
    source_col: Annotated[
        str | None,
        typer.Option(
            "--source-col",
            help="Column of TRUTH naming each record's data set, with --link-only "
            "\\[default with --preset splink: source_dataset].",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the whole curve to this file (.csv, .csv.gz, .parquet or .json); "
            "the table format then prints its summary only.",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Write a figure: metrics against threshold, PR and ROC (.png, .pdf, .svg, "
            "...; needs the extra ereval\\[plot]).",
        ),
    ] = None,
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Score scored pairs at every threshold: the links as scored and the clustering by
    connected components.

    JSON output is an array with one object per threshold (ascending): threshold,
    n_accepted, links_* (precision, recall, F1 and the counts; true pairs never scored
    count as false negatives), n_pred_clusters and the clustering metrics under their
    canonical names. The table format shows the main columns (the first and last
    rows of a curve longer than a screenful) and a summary (pairs completeness,
    reduction ratio, ROC AUC and average precision over the scored pairs, the best
    threshold); with --out, the summary only.

    With --engine duckdb (or spark) the pairs are never held in memory: the link
    counts are computed in SQL and the clustering from the pairs streamed in order of
    score into a union-find over the records, so memory grows with the records and the
    distinct scores (the rows of the curve), not with the pairs.
    """
    from ..curves import threshold_curve
    from ..metrics._registry import resolve_metrics

    check_beta(beta)
    if grid is not None and grid < 1:
        raise InputError(f"'--grid' must be at least 1; received {grid}")
    if metrics is not None:
        resolve_metrics(metrics)
    if precision_target is not None and not math.isfinite(precision_target):
        raise InputError(f"'--precision-target' must be finite; received {precision_target}")
    if out is not None:
        check_table_path(out, flag="--out")
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    left, right, score = _columns(pairs, preset, left_col, right_col, score_col)
    if link_only and source_col is None and preset == "splink":
        source_col = "source_dataset"
    check_link_only(link_only, split_columns(source_col))
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=truth,
        pred=pairs,
    )
    with progress(f"computing the curve ({builder.name})", quiet=quiet) as bar:

        def report(step: str) -> None:
            bar.update(description=step)

        curve = threshold_curve(
            truth,
            pairs,
            score_col=score,
            left_col=left,
            right_col=right,
            record_col=split_columns(record_col) or "record_id",
            cluster_col=split_columns(cluster_col) or "cluster_id",
            on_mismatch=on_mismatch,
            id_type=id_type,
            thresholds=grid,
            metrics=metrics,
            beta=beta,
            progress=report,
            link_only=link_only,
            source_col=split_columns(source_col),
            engine=builder,
        )
    if maximize not in curve.columns or maximize == "threshold":
        raise InputError(
            f"'--maximize': {maximize!r} is not a column of the curve; choose one of "
            f"{[c for c in curve.columns if c != 'threshold']}"
        )
    summary: dict[str, Any] = dict(curve.summary)
    try:
        best: dict[str, Any] | None = curve.best(maximize)
    except InputError:  # the metric is undefined (NaN) at every threshold
        best = None
    if best is not None:
        summary[f"best_{maximize}"] = best[maximize]
        summary[f"best_{maximize}_threshold"] = best["threshold"]
    if precision_target is not None:
        hit = curve.threshold_for(precision_target)
        summary["precision_target"] = precision_target
        summary["precision_target_threshold"] = None if hit is None else hit["threshold"]
        summary["precision_target_links_recall"] = None if hit is None else hit["links_recall"]
    # the rows are made a block at a time: a curve of 10^7 distinct scores is some 2.5 GB
    with Outputs() as outputs:
        if out is not None:
            outputs.add(out, lambda tmp: write_table_chunks(curve.chunks(), tmp))
        if plot is not None:
            from ..plots._curves import plot_threshold_curve

            figure = plot_threshold_curve(curve)
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, plot))
    if out is not None:
        note_written(out, rows=len(curve), quiet=quiet)
    if fmt == "table":
        # with --out the file holds the curve: the terminal gets its summary only
        if out is None:
            shown = [c for c in _TABLE_COLUMNS if c in curve.columns]
            emit_rows_of(len(curve), curve.rows, shown, title=f"{pairs.name} against {truth.name}")
        emit_mapping(summary, "table", title="summary", key_header="quantity")
        return
    emit_chunks(curve.chunks(), fmt)
    if not quiet:
        best_key = f"best_{maximize}_threshold"
        if best_key in summary:
            note(
                f"best {maximize} {summary[f'best_{maximize}']:.6g} at threshold "
                f"{summary[best_key]:.6g}; ROC AUC {summary['roc_auc']:.6g} over the scored "
                f"pairs; pairs completeness {summary['pairs_completeness']:.6g}"
            )


def register(app: typer.Typer) -> None:
    """Add ``curve`` to the application."""
    app.command(
        "curve",
        epilog=examples(
            "ereval curve truth.csv pairs.csv --score-col score",
            "ereval curve truth.csv pairs.csv --score-col probability -f json",
            "ereval curve truth.csv predictions.parquet --preset splink \\",
            "    --record-col unique_id --cluster-col cluster -o curve.csv --plot curve.png",
            "ereval curve truth.csv predictions.parquet --preset splink --link-only \\",
            "    --record-col source_dataset,unique_id",
            "ereval curve truth.csv pairs.csv -m canonical --grid 50 \\",
            "    --precision-target 0.95",
            "ereval curve truth.parquet pairs.parquet --engine duckdb --memory-limit 2GB \\",
            "    --grid 200 -o curve.parquet",
        ),
    )(curve_command)
