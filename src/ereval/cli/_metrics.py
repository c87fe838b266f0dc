"""``ereval metrics`` and ``ereval errors``: exact comparison of two clusterings."""

from __future__ import annotations

import shutil
import sys
from contextlib import nullcontext
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer

from .._errors import InputError
from .._validation import check_beta
from ..io import IdType, MismatchPolicy, as_pairs, check_link_only
from ..metrics._pairwise import pairwise_scores_from_pairs
from ..metrics._records import cluster_errors, record_errors
from ..metrics._records_sql import (
    CopyFormat,
    ErrorFile,
    copy_format,
    engine_cluster_errors,
    engine_record_errors,
)
from ..metrics._registry import cells_wanted, evaluate, resolve_metrics
from ..statistics import compute_statistics, pair_space
from ._columns import (
    ClusterColOpt,
    IdTypeOpt,
    LinkOnlyOpt,
    MismatchOpt,
    PredClusterColOpt,
    PredRecordColOpt,
    RecordColOpt,
    SourceColOpt,
    TruthClusterColOpt,
    TruthRecordColOpt,
    align_options,
    split_columns,
)
from ._common import (
    FormatOpt,
    OutputFormat,
    QuietOpt,
    emit_frame,
    emit_mapping,
    emit_rows_of,
    examples,
    handle_errors,
    note_written,
    positional,
)
from ._engine import (
    EngineOpt,
    MemoryLimitOpt,
    SparkConfOpt,
    SparkMasterOpt,
    TempDirOpt,
    ThreadsOpt,
    engine_from_options,
    refuse_engine_options,
)
from ._output import Outputs, check_table_path, write_table, write_table_chunks
from ._progress import progress

if TYPE_CHECKING:
    import pandas as pd

TargetChoice = Literal["over", "under", "error", "ROCE", "RUCE"]
BaseChoice = Literal["errors", "tagged", "all"]

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


#: Characters copied to stdout at a time from a table the engine wrote.
COPY_BLOCK = 1 << 20


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
    link_only: LinkOnlyOpt = False,
    source_col: SourceColOpt = None,
    pairs: Annotated[
        bool,
        typer.Option(
            "--pairs", help="PRED lists predicted matching pairs (columns --left-col, --right-col)."
        ),
    ] = False,
    score_col: Annotated[
        str | None,
        typer.Option(
            "--score-col",
            help="With --pairs: the score column of PRED; with --threshold, the pairs scored at "
            "least T are accepted and every clustering metric of their connected components "
            "is given.",
            show_default=False,
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            "--threshold",
            help="With --pairs and --score-col: accept the pairs scored at least this.",
            show_default=False,
        ),
    ] = None,
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
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
    options = align_options(
        record_col=record_col,
        cluster_col=cluster_col,
        truth_record_col=truth_record_col,
        truth_cluster_col=truth_cluster_col,
        pred_record_col=pred_record_col,
        pred_cluster_col=pred_cluster_col,
        on_mismatch=on_mismatch,
        id_type=id_type,
        link_only=link_only,
        source_col=source_col,
    )
    check_link_only(link_only, options.get("source_col"))
    if not pairs and (score_col is not None or threshold is not None):
        flag = "--score-col" if score_col is not None else "--threshold"
        raise InputError(f"'{flag}' is for scored pairs: give --pairs too")
    if threshold is not None and score_col is None:
        raise InputError("'--threshold' needs the score column: give --score-col")
    if pairs:
        refuse_engine_options(
            engine=engine,
            memory_limit=memory_limit,
            threads=threads,
            temp_dir=temp_dir,
            spark_master=spark_master,
            spark_conf=spark_conf,
            where="with '--pairs'",
        )
        left = split_columns(left_col) or "record_id_1"
        right = split_columns(right_col) or "record_id_2"
        truth_cols = {
            "record_col": split_columns(truth_record_col or record_col) or "record_id",
            "cluster_col": split_columns(truth_cluster_col or cluster_col) or "cluster_id",
        }
        if score_col is not None:
            _scored_pairs(
                truth,
                pred,
                left=left,
                right=right,
                truth_cols=truth_cols,
                score_col=score_col,
                threshold=threshold,
                on_mismatch=on_mismatch,
                id_type=id_type,
                metrics=metrics,
                beta=beta,
                link_only=link_only,
                source_col=source_col,
                fmt=fmt,
                quiet=quiet,
            )
            return
        names = (
            resolve_metrics(metrics)
            if metrics
            else ("pairwise_precision", "pairwise_recall", "pairwise_f1")
        )
        if any(not n.startswith("pairwise_") for n in names):
            raise InputError(
                "'--metrics': with --pairs only the pairwise metrics of the pairs as given can "
                "be computed; give --score-col (and --threshold) for every metric of their "
                "connected components"
            )
        with progress("scoring pairs", quiet=quiet):
            pair_list = as_pairs(pred, name="pred", left_col=left, right_col=right)
            scores = pairwise_scores_from_pairs(
                truth,
                pair_list,
                beta=beta,
                on_mismatch=on_mismatch,
                id_type=id_type,
                link_only=link_only,
                source_col=options.get("source_col"),
                **truth_cols,
            )
        emit_mapping(
            {
                k: v
                for k, v in scores.items()
                if k in names or k.endswith(("_fbeta", "_tp", "_fp", "_fn"))
            },
            fmt,
            title="pairwise metrics",
        )
        return
    names = resolve_metrics(metrics)  # validate names before reading large files
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=truth,
        pred=pred,
    )
    with progress(f"reading the clusterings ({builder.name})", quiet=quiet) as bar:

        def report(what: str) -> None:
            bar.update(description=what)

        stats = compute_statistics(
            builder,
            truth,
            pred,
            cells=cells_wanted(names),
            progress=report,
            **options,
        )
        scores = evaluate(
            stats, metrics=metrics, beta=beta, progress=lambda f: report(f"computing {f}")
        )
    result: dict[str, float | int] = dict(scores)
    result["n_records"] = stats.n_records
    result["n_true_clusters"] = stats.n_true_clusters
    result["n_pred_clusters"] = stats.n_pred_clusters
    if stats.has_twinless:
        result["n_twinless_true"] = stats.n_true_records - stats.n_common
        result["n_twinless_pred"] = stats.n_pred_records - stats.n_common
    if stats.within_source is not None:
        result["n_sources"] = stats.within_source.n_sources
        result["n_record_pairs"] = pair_space(stats).records
    if beta != 1.0:
        result["beta"] = beta
    emit_mapping(result, fmt, title=f"{truth.name} vs {pred.name}")


def _scored_pairs(
    truth: Path,
    pred: Path,
    *,
    left: str | list[str],
    right: str | list[str],
    truth_cols: dict[str, str | list[str]],
    score_col: str,
    threshold: float | None,
    on_mismatch: MismatchPolicy,
    id_type: IdType,
    metrics: str | None,
    beta: float,
    link_only: bool,
    source_col: str | None,
    fmt: OutputFormat,
    quiet: bool,
) -> None:
    """``metrics --pairs --score-col S [--threshold T]``: the accepted pairs scored as
    links and every metric of their connected components
    (:func:`ereval.curves.evaluate_pairs`)."""
    from ..curves import evaluate_pairs

    if on_mismatch not in ("error", "intersection"):
        raise InputError(
            f"'--on-mismatch' {on_mismatch} does not apply to scored pairs: pairs naming records "
            "absent from TRUTH are an error, or dropped with --on-mismatch intersection"
        )
    with progress("scoring pairs", quiet=quiet):
        row = evaluate_pairs(
            truth,
            pred,
            threshold=threshold,
            score_col=score_col,
            left_col=left,
            right_col=right,
            on_mismatch=on_mismatch,
            id_type=id_type,
            metrics=metrics,
            beta=beta,
            link_only=link_only,
            source_col=split_columns(source_col),
            **truth_cols,
        )
    emit_mapping(row, fmt, title=f"{pred.name} against {truth.name}")


OptPath = Annotated[Path | None, typer.Option(show_default=False)]


@handle_errors
def errors_command(
    truth_file: Annotated[
        Path | None,
        typer.Argument(
            metavar="TRUTH",
            help="True clustering (CSV or Parquet).",
            show_default=False,
        ),
    ] = None,
    pred_file: Annotated[
        Path | None,
        typer.Argument(
            metavar="PRED", help="Predicted clustering (CSV or Parquet).", show_default=False
        ),
    ] = None,
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
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Record-wise or cluster-wise error metrics (EI, SDE, OCE, UCE, ROCE, RUCE, H).

    One row per true cluster (or record, --by record). TRUTH may be a sample of
    true clusters scored against a full PRED with --on-mismatch twinless. The
    errors of a labelled sample against the whole prediction, with its weights,
    subgroups, error tree and tags, are 'ereval analyze'.
    """
    if truth_file is None or pred_file is None:
        raise InputError(
            "give TRUTH PRED (two clusterings); the errors of a labelled sample are "
            "'ereval analyze --pred PRED --sample SAMPLE --design DESIGN'"
        )
    positional("pred")  # errors name PRED, the argument
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
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=truth_file,
        pred=pred_file,
    )
    if out is not None:
        check_table_path(out, flag="--out")
    # on stdout, or to a file of a format it does not write (JSON), through an engine
    # that writes files: a file written by the engine within its memory limit in its
    # temporary directory, then read back a part at a time
    kind = copy_format(out) if out is not None and builder.writes_files else None
    spooled = builder.writes_files and kind is None
    with TemporaryDirectory(dir=temp_dir) if spooled else nullcontext(None) as folder:
        with progress(f"computing {by} errors ({builder.name})", quiet=quiet) as bar:

            def report(what: str) -> None:
                bar.update(description=what)

            fn = record_errors if by == "record" else cluster_errors
            in_sql = engine_record_errors if by == "record" else engine_cluster_errors
            rows = 0

            def write(tmp: Path, kind: CopyFormat) -> None:
                # the engine writes the file itself: the rows never pass through Python
                nonlocal rows
                got = in_sql(
                    builder,
                    truth_file,
                    pred_file,
                    out=tmp,
                    out_format=kind,
                    progress=report,
                    **options,
                )
                rows = cast("int", got)

            if out is not None and kind is not None:
                with Outputs() as outputs:
                    outputs.add(out, lambda tmp: write(tmp, kind))
                note_written(out, rows=rows, quiet=quiet)
                return
            if folder is not None:
                # CSV on stdout: the text of -o FILE.csv; the others read from Parquet
                copied = out is None and fmt == "csv"
                spool = Path(folder) / ("errors.csv" if copied else "errors.parquet")
                write(spool, "csv" if copied else "parquet")
            else:
                frame = cast(
                    "pd.DataFrame",
                    in_sql(
                        builder,
                        truth_file,
                        pred_file,
                        progress=report,
                        in_memory=lambda: fn(truth_file, pred_file, engine=builder, **options),
                        **options,
                    ),
                )
        if folder is not None and out is not None:  # -o FILE.json
            with ErrorFile(spool, by) as table, Outputs() as outputs:  # written, then closed
                outputs.add(out, lambda tmp: write_table_chunks(table.frames(), tmp))
            note_written(out, rows=rows, quiet=quiet)
            return
        if folder is not None:
            _print_spooled(spool, fmt, by)
            return
    if out is not None:
        with Outputs() as outputs:
            outputs.add(out, lambda tmp: write_table(frame, tmp))
        note_written(out, rows=len(frame), quiet=quiet)
        return
    emit_frame(frame, fmt, title=f"{by} errors")


def _print_spooled(path: Path, fmt: OutputFormat, by: Literal["record", "cluster"]) -> None:
    """Print an error table the engine wrote to ``path`` (CSV for ``-f csv``, else
    Parquet) as ``fmt``, holding a block of it in memory at a time."""
    if fmt == "csv":
        with path.open(encoding="utf-8", newline="") as text:
            shutil.copyfileobj(text, sys.stdout, COPY_BLOCK)
        return
    with ErrorFile(path, by) as table:
        if fmt == "json":
            from ._json_text import write_json_chunks

            write_json_chunks(table.frames(), sys.stdout)
        else:
            emit_rows_of(len(table), table.rows, table.columns, title=f"{by} errors")


def register(app: typer.Typer) -> None:
    """Add ``metrics`` and ``errors`` to the application."""
    app.command(
        "metrics",
        epilog=examples(
            "ereval metrics truth.csv pred.csv",
            "ereval metrics truth.csv pred.csv -m muc,b3,ceafe --beta 2 -f json",
            "ereval metrics truth.csv pairs.csv --pairs",
            "ereval metrics truth.csv pairs.csv --pairs --score-col score --threshold 0.8",
            "ereval metrics truth.csv pred.csv --link-only --source-col source_dataset",
            "ereval metrics truth.csv links.csv --pred-cluster-col cluster_id",
        ),
    )(metrics_command)
    app.command(
        "errors",
        epilog=examples(
            "ereval errors truth.csv pred.csv",
            "ereval errors truth.csv pred.csv --by record -o record_errors.parquet",
            "ereval errors sample_clusters.csv pred.csv --on-mismatch twinless",
        ),
    )(errors_command)
