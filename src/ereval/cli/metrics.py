"""``ereval metrics`` and ``ereval errors``: exact comparison of two clusterings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import pandas as pd
import typer
from rich.console import Console

from .._errors import InputError
from ..contingency import contingency_table
from ..metrics.pairwise import pairwise_scores_from_pairs
from ..metrics.records import cluster_errors, record_errors
from ..metrics.registry import evaluate, resolve_metrics
from ._columns import (
    ClusterColOpt,
    IdTypeOpt,
    MismatchOpt,
    PredClusterColOpt,
    PredRecordColOpt,
    RecordColOpt,
    TruthClusterColOpt,
    TruthRecordColOpt,
    align_options,
    split_columns,
)
from ._common import OutputFormat, emit_mapping, emit_records, handle_errors

TruthArg = Annotated[
    Path, typer.Argument(help="True clustering: CSV or Parquet with record and cluster id columns.")
]
PredArg = Annotated[
    Path,
    typer.Argument(help="Predicted clustering (or predicted pairs with --pairs), CSV or Parquet."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]


def _progress_printer() -> tuple[Console | None, object]:
    if not sys.stderr.isatty():
        return None, None
    console = Console(stderr=True)
    return console, console.status("computing metrics ...")


@handle_errors
def metrics_command(
    truth: TruthArg,
    pred: PredArg,
    fmt: FormatOpt = "table",
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            "-m",
            help="Comma-separated metric or family names (default: all canonical).",
        ),
    ] = None,
    beta: Annotated[
        float,
        typer.Option("--beta", help="Weight of recall in F-beta (adds *_fbeta keys when not 1)."),
    ] = 1.0,
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    truth_record_col: TruthRecordColOpt = None,
    truth_cluster_col: TruthClusterColOpt = None,
    pred_record_col: PredRecordColOpt = None,
    pred_cluster_col: PredClusterColOpt = None,
    on_mismatch: MismatchOpt = "error",
    id_type: IdTypeOpt = "exact",
    pairs: Annotated[
        bool,
        typer.Option(
            "--pairs", help="PRED lists predicted matching pairs (columns --left-col, --right-col)."
        ),
    ] = False,
    engine: Annotated[
        Literal["numpy", "duckdb"],
        typer.Option(
            "--engine",
            help="Build the contingency table in memory (numpy) or inside DuckDB from the files.",
        ),
    ] = "numpy",
    left_col: Annotated[
        str, typer.Option("--left-col", help="First record id column of a pairs file.")
    ] = "record_id_1",
    right_col: Annotated[
        str, typer.Option("--right-col", help="Second record id column of a pairs file.")
    ] = "record_id_2",
) -> None:
    """Score a predicted clustering against the truth with every clustering metric."""
    options = align_options(
        record_col=record_col,
        cluster_col=cluster_col,
        truth_record_col=truth_record_col,
        truth_cluster_col=truth_cluster_col,
        pred_record_col=pred_record_col,
        pred_cluster_col=pred_cluster_col,
        on_mismatch=on_mismatch,
        id_type=id_type,
    )
    if pairs:
        names = (
            resolve_metrics(metrics)
            if metrics
            else ("pairwise_precision", "pairwise_recall", "pairwise_f1")
        )
        if any(not n.startswith("pairwise_") for n in names):
            raise InputError("'--metrics': with --pairs only the pairwise metrics can be computed")
        scores = pairwise_scores_from_pairs(
            truth,
            pred,
            left_col=split_columns(left_col) or "record_id_1",
            right_col=split_columns(right_col) or "record_id_2",
            beta=beta,
            on_mismatch=on_mismatch,
            record_col=split_columns(truth_record_col or record_col) or "record_id",
            cluster_col=split_columns(truth_cluster_col or cluster_col) or "cluster_id",
            id_type=id_type,
        )
        emit_mapping(
            {k: v for k, v in scores.items() if k in names or k.endswith("_fbeta")},
            fmt,
            title="pairwise metrics",
        )
        return
    resolve_metrics(metrics)  # validate names before reading large files
    _console, status = _progress_printer()
    if status is not None:
        status.start()  # type: ignore[attr-defined]
    try:
        if engine == "duckdb":
            from ..engines import duckdb_contingency_table

            table = duckdb_contingency_table(truth, pred, **options)
        else:
            table = contingency_table(truth, pred, **options)

        def report(family: str) -> None:
            if status is not None:
                status.update(f"computing {family} ...")  # type: ignore[attr-defined]

        scores = evaluate(table, metrics=metrics, beta=beta, progress=report)
    finally:
        if status is not None:
            status.stop()  # type: ignore[attr-defined]
    result: dict[str, float | int] = dict(scores)
    result["n_records"] = table.n_records
    result["n_true_clusters"] = table.n_true_clusters
    result["n_pred_clusters"] = table.n_pred_clusters
    if table.has_twinless:
        result["n_twinless_true"] = table.n_true_records - table.n_common
        result["n_twinless_pred"] = table.n_pred_records - table.n_common
    if beta != 1.0:
        result["beta"] = beta
    emit_mapping(result, fmt, title=f"{truth.name} vs {pred.name}")


def _write(frame: pd.DataFrame, path: Path) -> None:
    suffix = "".join(path.suffixes).lower()
    if not path.parent.exists():
        raise InputError(f"output directory '{path.parent}' does not exist")
    if suffix.endswith((".parquet", ".pq")):
        frame.to_parquet(path, index=False)
    elif suffix.endswith((".csv", ".csv.gz")):
        frame.to_csv(path, index=False)
    else:
        raise InputError(f"output file '{path}' must end in .csv, .csv.gz or .parquet")


@handle_errors
def errors_command(
    truth: TruthArg,
    pred: PredArg,
    records_out: Annotated[
        Path | None,
        typer.Option("--records-out", help="Write the record-wise table here (.csv or .parquet)."),
    ] = None,
    clusters_out: Annotated[
        Path | None,
        typer.Option(
            "--clusters-out", help="Write the cluster-wise table here (.csv or .parquet)."
        ),
    ] = None,
    level: Annotated[
        Literal["cluster", "record"],
        typer.Option("--level", help="Table printed when no output file is given."),
    ] = "cluster",
    fmt: FormatOpt = "csv",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    truth_record_col: TruthRecordColOpt = None,
    truth_cluster_col: TruthClusterColOpt = None,
    pred_record_col: PredRecordColOpt = None,
    pred_cluster_col: PredClusterColOpt = None,
    on_mismatch: MismatchOpt = "error",
    id_type: IdTypeOpt = "exact",
) -> None:
    """Record-wise and cluster-wise error metrics (EI, SDE, OCE, UCE, ROCE, RUCE, H).

    TRUTH may be a sample of true clusters scored against a full PRED with
    --on-mismatch twinless.
    """

    def table(kind: str) -> pd.DataFrame:
        fn = record_errors if kind == "record" else cluster_errors
        return fn(
            truth,
            pred,
            **align_options(
                record_col=record_col,
                cluster_col=cluster_col,
                truth_record_col=truth_record_col,
                truth_cluster_col=truth_cluster_col,
                pred_record_col=pred_record_col,
                pred_cluster_col=pred_cluster_col,
                on_mismatch=on_mismatch,
                id_type=id_type,
            ),
        )

    if records_out is None and clusters_out is None:
        frame = table(level)
        emit_records(
            frame.to_dict("records"), [str(c) for c in frame.columns], fmt, title=f"{level} errors"
        )
        return
    if records_out is not None:
        _write(table("record"), records_out)
    if clusters_out is not None:
        _write(table("cluster"), clusters_out)


def register(app: typer.Typer) -> None:
    """Add ``metrics`` and ``errors`` to the application."""
    app.command("metrics")(metrics_command)
    app.command("errors")(errors_command)
