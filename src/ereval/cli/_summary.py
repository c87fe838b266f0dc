"""``ereval summary``: summary statistics of one clustering (Binette et al. 2024, §3.1)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from .._errors import InputError
from ..io import Membership, column_names, key_ids, read_membership, read_table
from ..summary import DEFAULT_HILL_ORDERS, Summary, summarize
from ..summary._sql import engine_summary
from ._columns import ClusterColOpt, RecordColOpt, split_columns
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
from ._output import Outputs, check_figure_path, check_table_path, write_figure, write_table
from ._progress import progress

NamesOpt = Annotated[
    str | None,
    typer.Option(
        "--names",
        help="Column(s) with a name per record, comma-separated to take several together "
        "(homonymy and name-variation rates); read from the clustering, or from --names-from.",
    ),
]
NamesFromOpt = Annotated[
    Path | None,
    typer.Option(
        "--names-from",
        help="Table (CSV/Parquet) holding the --names column(s) and the record id column; "
        "it may list more records than the clustering.",
    ),
]
PlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", help="Write a figure to this file (.png, .pdf, .svg, ...)."),
]


def parse_orders(text: str) -> tuple[float, ...]:
    """``"0,1,2,inf"`` -> ``(0.0, 1.0, 2.0, inf)``; a bad value names ``--hill``."""
    out = []
    for part in text.split(","):
        try:
            q = float(part.strip())
        except ValueError:
            raise InputError(f"'--hill' must list numbers >= 0 or inf; received {part!r}") from None
        if math.isnan(q) or q < 0:
            raise InputError(f"'--hill' must list numbers >= 0 or inf; received {part!r}")
        out.append(q)
    return tuple(out)


def check_names_options(names: str | None, names_from: Path | None) -> None:
    """``--names-from`` needs ``--names``."""
    if names_from is not None and names is None:
        raise InputError("'--names-from' needs '--names' (the column(s) to read from it)")


def names_table(names: str, names_from: Path, record_col: str) -> pd.Series:
    """Record id -> name, from the ``--names-from`` table."""
    frame = read_table(names_from, name="--names-from", text_columns="all")
    keys = column_names(split_columns(record_col) or "record_id", name="record_col")
    cols = column_names(split_columns(names) or names, name="names")
    missing = [c for c in [*keys, *cols] if c not in frame.columns]
    if missing:
        raise InputError(
            f"'--names-from': '{names_from}' has no column {missing[0]!r}; its columns are "
            f"{[str(c) for c in frame.columns]}"
        )
    for c in cols:
        if frame[c].isna().any():
            raise InputError(f"'--names': column {c!r} of '{names_from}' has missing values")
    index = pd.Index(pd.Series(key_ids(frame, keys, name="--names-from")).to_numpy(dtype=object))
    values = pd.Series(key_ids(frame, cols, name="--names")).to_numpy(dtype=object)
    series = pd.Series(values, index=index, dtype=object)
    if not series.index.is_unique:
        raise InputError(f"'--names-from': '{names_from}' repeats record ids")
    return series


def restrict(series: pd.Series, m: Membership) -> pd.Series:
    """The names of the records of ``m`` only (every record must have one)."""
    return series[series.index.isin(m.records)]


def summary_values(s: Summary, orders: tuple[float, ...]) -> dict[str, Any]:
    """The statistics of ``s`` (without the names' rates when there are no names)."""
    values = s.statistics(orders)
    if not s.has_names:
        values.pop("homonymy_rate")
        values.pop("name_variation_rate")
    return values


@handle_errors
def summary_command(
    clustering: Annotated[
        Path,
        typer.Argument(
            metavar="CLUSTERING", help="A clustering: CSV or Parquet, record and cluster ids."
        ),
    ],
    names: NamesOpt = None,
    names_from: NamesFromOpt = None,
    hill: Annotated[
        str,
        typer.Option("--hill", help="Orders q of the Hill numbers reported, comma-separated."),
    ] = "0,1,2,inf",
    fmt: FormatOpt = "table",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Also write the cluster-size distribution (size, clusters) to this file "
            "(.csv, .csv.gz, .parquet or .json).",
        ),
    ] = None,
    plot: PlotOpt = None,
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Summary statistics of a clustering: sizes, matching rate, Hill numbers, names.

    Average cluster size, matching rate (share of records in clusters of at least
    two), Hill numbers of the cluster-size distribution, and with --names the
    homonymy and name-variation rates (Binette et al. 2024, §3.1). JSON output is
    one object with every statistic and the size distribution.
    """
    orders = parse_orders(hill) if hill.strip() else DEFAULT_HILL_ORDERS
    check_names_options(names, names_from)
    if out is not None:
        check_table_path(out, flag="--out")
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=clustering,
    )
    rc = split_columns(record_col) or "record_id"
    cc = split_columns(cluster_col) or "cluster_id"
    with progress(f"reading the clustering ({builder.name})", quiet=quiet) as bar:

        def report(what: str) -> None:
            bar.update(description=what)

        def in_memory() -> Summary:
            if names is not None and names_from is not None:
                m, _ = read_membership(clustering, name="clustering", record_col=rc, cluster_col=cc)
                mapping = restrict(names_table(names, names_from, record_col), m)
                return summarize(m, names=mapping, engine=builder)
            return summarize(
                clustering,
                names=split_columns(names),
                record_col=rc,
                cluster_col=cc,
                engine=builder,
            )

        s = engine_summary(
            builder,
            clustering,
            names=split_columns(names),
            names_from=names_from,
            record_col=rc,
            cluster_col=cc,
            progress=report,
            in_memory=in_memory,
        )
    values = summary_values(s, orders)
    distribution = pd.DataFrame({"size": s.sizes, "clusters": s.counts})
    with Outputs() as outputs:
        if out is not None:
            outputs.add(out, lambda tmp: write_table(distribution, tmp))
        if plot is not None:
            from ..plots._monitor import plot_summary

            figure = plot_summary(s)
            target = plot
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, target))
    if out is not None:
        note_written(out, rows=len(distribution), quiet=quiet)
    if fmt == "json":
        sizes = {str(k): int(v) for k, v in zip(s.sizes, s.counts, strict=True)}
        sys.stdout.write(dumps_json({**values, "size_distribution": sizes}) + "\n")
    else:
        emit_mapping(values, fmt, title=f"{clustering.name}", key_header="statistic")


def register(app: typer.Typer) -> None:
    """Add ``summary`` to the application."""
    app.command(
        "summary",
        epilog=examples(
            "ereval summary pred.csv",
            "ereval summary pred.csv --names first_name,last_name --names-from names.csv",
            "ereval summary pred.csv --hill 0,0.5,1,2,inf -f json",
            "ereval summary pred.csv -o sizes.csv --plot summary.png",
        ),
    )(summary_command)
