"""``ereval metrics`` and ``ereval errors``: exact comparison of two clusterings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from .._errors import InputError
from .._validation import check_beta
from ..contingency import contingency_table
from ..io import as_pairs
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
from ._common import FormatOpt, QuietOpt, emit_mapping, emit_records, examples, handle_errors
from ._output import Outputs, check_table_path, write_table
from ._progress import progress

TruthArg = Annotated[
    Path,
    typer.Argument(
        metavar="TRUTH",
        help="True clustering: CSV or Parquet with record and cluster id columns.",
    ),
]
PredArg = Annotated[
    Path,
    typer.Argument(
        metavar="PRED",
        help="Predicted clustering (or predicted pairs with --pairs), CSV or Parquet.",
    ),
]


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
    quiet: QuietOpt = False,
) -> None:
    """Score a predicted clustering against the truth with every clustering metric."""
    check_beta(beta)
    options = align_options(**locals())
    if pairs:
        names = (
            resolve_metrics(metrics)
            if metrics
            else ("pairwise_precision", "pairwise_recall", "pairwise_f1")
        )
        if any(not n.startswith("pairwise_") for n in names):
            raise InputError("'--metrics': with --pairs only the pairwise metrics can be computed")
        with progress("scoring pairs", quiet=quiet):
            pair_list = as_pairs(
                pred,
                name="pred",
                left_col=split_columns(left_col) or "record_id_1",
                right_col=split_columns(right_col) or "record_id_2",
            )
            scores = pairwise_scores_from_pairs(
                truth,
                pair_list,
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
    with progress("reading the clusterings", quiet=quiet) as bar:
        if engine == "duckdb":
            from ..engines import duckdb_contingency_table

            table = duckdb_contingency_table(truth, pred, **options)
        else:
            table = contingency_table(truth, pred, **options)

        def report(family: str) -> None:
            bar.update(description=f"computing {family}")

        scores = evaluate(table, metrics=metrics, beta=beta, progress=report)
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


@handle_errors
def errors_command(
    truth: TruthArg,
    pred: PredArg,
    by: Annotated[
        Literal["cluster", "record"],
        typer.Option("--by", help="One row per true cluster or per record."),
    ] = "cluster",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the table to this file (.csv, .csv.gz, .parquet or .json) instead "
            "of printing it.",
        ),
    ] = None,
    fmt: FormatOpt = "table",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    truth_record_col: TruthRecordColOpt = None,
    truth_cluster_col: TruthClusterColOpt = None,
    pred_record_col: PredRecordColOpt = None,
    pred_cluster_col: PredClusterColOpt = None,
    on_mismatch: MismatchOpt = "error",
    id_type: IdTypeOpt = "exact",
    quiet: QuietOpt = False,
) -> None:
    """Record-wise or cluster-wise error metrics (EI, SDE, OCE, UCE, ROCE, RUCE, H).

    TRUTH may be a sample of true clusters scored against a full PRED with
    --on-mismatch twinless.
    """
    options = align_options(**locals())
    if out is not None:
        check_table_path(out, flag="--out")
    fn = record_errors if by == "record" else cluster_errors
    with progress(f"computing {by} errors", quiet=quiet):
        frame = fn(truth, pred, **options)
    if out is not None:
        with Outputs() as outputs:
            outputs.add(out, lambda tmp: write_table(frame, tmp))
        return
    emit_records(
        frame.to_dict("records"), [str(c) for c in frame.columns], fmt, title=f"{by} errors"
    )


def register(app: typer.Typer) -> None:
    """Add ``metrics`` and ``errors`` to the application."""
    app.command(
        "metrics",
        epilog=examples(
            "ereval metrics truth.csv pred.csv",
            "ereval metrics truth.csv pred.csv -m muc,b3,ceafe --beta 2 -f json",
            "ereval metrics truth.csv pairs.csv --pairs",
            "ereval metrics truth.csv links.csv --pred-cluster-col cluster_id",
        ),
    )(metrics_command)
    app.command(
        "errors",
        epilog=examples(
            "ereval errors truth.csv pred.csv",
            "ereval errors truth.csv pred.csv --by record -o record_errors.parquet",
        ),
    )(errors_command)
