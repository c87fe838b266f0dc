"""``ereval compare``: which clusters a new release kept, split or merged, record by record."""

from __future__ import annotations

import sys
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Annotated, Any

import typer

from .._compare import compare
from .._errors import InputError
from ..metrics._records_sql import copy_format
from ..metrics._registry import resolve_metrics
from ._columns import ClusterColOpt, IdTypeOpt, RecordColOpt, split_columns
from ._common import (
    FormatOpt,
    QuietOpt,
    dumps_json,
    emit_mapping,
    examples,
    handle_errors,
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
from ._output import Outputs, check_table_path, parquet_frames, write_table, write_table_chunks
from ._progress import progress


@handle_errors
def compare_command(
    old: Annotated[
        Path, typer.Argument(metavar="OLD", help="The old release: CSV or Parquet clustering.")
    ],
    new: Annotated[
        Path, typer.Argument(metavar="NEW", help="The new release: CSV or Parquet clustering.")
    ],
    metrics: Annotated[
        str,
        typer.Option(
            "--metrics",
            "-m",
            help="Metrics or families of the agreement on the common records, OLD as truth.",
        ),
    ] = "pairwise,cluster,b3",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write one row per record (record_id, old_cluster, new_cluster, category), "
            "in the order of the record ids, to this file (.csv, .csv.gz, .parquet or .json).",
        ),
    ] = None,
    changed_only: Annotated[
        bool,
        typer.Option("--changed-only", help="With --out, only records not in a kept cluster."),
    ] = False,
    fmt: FormatOpt = "table",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    id_type: IdTypeOpt = "exact",
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Compare two releases: old clusters kept, split, merged or split and merged.

    Clusters are matched by their records, never by their ids. A record of one
    release only is added or removed. The agreement of the releases on their
    common records uses the metrics with OLD as the truth. JSON output is one
    object with the record counts, the categories and the agreement.
    DuckDB and Spark join the releases by record id where the data is and
    bring back only the counts; DuckDB writes --out itself.
    """
    resolve_metrics(metrics)
    if changed_only and out is None:
        raise InputError("'--changed-only' selects the records written by '--out'; give '--out'")
    if out is not None:
        check_table_path(out, flag="--out")
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=old,
        pred=new,
    )
    rows: int | None = None
    with progress(f"comparing the releases ({builder.name})", quiet=quiet):
        result = compare(
            old,
            new,
            metrics=metrics,
            record_col=split_columns(record_col) or "record_id",
            cluster_col=cluster_col,
            id_type=id_type,
            engine=builder,
        )
        if out is not None:
            with Outputs() as outputs:
                if builder.writes_files and copy_format(out) is not None:
                    # the engine writes the file itself: the rows never pass through Python

                    def write(tmp: Path) -> None:
                        nonlocal rows
                        rows = result.write_records(tmp, changed_only=changed_only)

                    outputs.add(out, write)
                elif builder.writes_files:  # JSON: from a Parquet file the engine writes

                    def spooled(tmp: Path) -> None:
                        nonlocal rows
                        with TemporaryDirectory(dir=temp_dir) as folder:
                            parquet = Path(folder) / "records.parquet"
                            rows = result.write_records(parquet, changed_only=changed_only)
                            write_table_chunks(parquet_frames(parquet), tmp)

                    outputs.add(out, spooled)
                else:
                    frame = result.records(changed_only=changed_only)
                    rows = len(frame)
                    outputs.add(out, lambda tmp: write_table(frame, tmp))
    if out is not None:
        note_written(out, rows=rows, quiet=quiet)
    summary = result.to_dict()
    if fmt == "json":
        sys.stdout.write(dumps_json(summary) + "\n")
        return
    flat: dict[str, Any] = {k: v for k, v in summary.items() if not isinstance(v, dict)}
    flat.update({f"clusters_{k}": v for k, v in summary["categories"].items()})
    flat.update(summary["agreement"])
    emit_mapping(flat, fmt, title=f"{old.name} -> {new.name}", key_header="quantity")


def register(app: typer.Typer) -> None:
    """Add ``compare`` to the application."""
    app.command(
        "compare",
        epilog=examples(
            "ereval compare releases/2024-01-01.csv releases/2024-04-01.csv",
            "ereval compare old.csv new.csv -o records.csv --changed-only",
            "ereval compare old.parquet new.parquet -m pairwise -f json",
            "ereval compare old.parquet new.parquet --engine duckdb --memory-limit 1GB",
        ),
    )(compare_command)
