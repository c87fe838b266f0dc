"""``ereval monitor``: summary statistics, estimates and change flags across releases."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from .._errors import InputError
from .._monitor import ControlRule, Monitoring, monitor, release_sources
from .._validation import check_int
from ..estimators import as_sample
from ..estimators._intervals import DEFAULT_INTERVAL
from ..estimators._ratio import normal_quantile
from ..io import read_table
from ._columns import ClusterColOpt, RecordColOpt, split_columns
from ._common import (
    FormatOpt,
    LevelOpt,
    MetricsOpt,
    QuietOpt,
    dumps_json,
    emit_records,
    examples,
    handle_errors,
    note_written,
    warn,
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
from ._estimate import IntervalOpt, weights_value
from ._output import Outputs, check_figure_path, check_table_path, write_figure, write_table
from ._progress import progress
from ._sample import DesignChoice, WeightsOpt, design_value
from ._summary import NamesFromOpt, NamesOpt, PlotOpt, check_names_options, names_table

#: Exit code of ``--fail-on-change`` when a change is flagged.
EXIT_CHANGE = 3
_WIDE = (
    "n_records",
    "n_clusters",
    "average_cluster_size",
    "matching_rate",
    "hill_0",
    "hill_1",
    "hill_2",
    "homonymy_rate",
    "name_variation_rate",
)


def _sources(paths: list[str]) -> Any:
    if len(paths) == 1:
        return paths[0]  # a folder or a glob pattern
    return [Path(p) for p in paths]


def long_rows(m: Monitoring) -> list[Mapping[str, Any]]:
    """One row per release, scope and statistic: ``release, scope, statistic, value,
    lower, upper, flags``."""
    flagged: dict[tuple[str, str, str], list[str]] = {}
    for row in m.flags.itertuples(index=False):
        flagged.setdefault((row.release, row.scope, row.statistic), []).append(str(row.rule))
    rows: list[Mapping[str, Any]] = []
    nan = math.nan
    for scope, frame in (("all", m.statistics), ("common", m.common)):
        for release in m.releases:
            if release not in frame.index:
                continue
            for stat, value in frame.astype(object).loc[release].items():
                key = (release, scope, str(stat))
                rows.append(
                    {"release": release, "scope": scope, "statistic": stat, "value": value}
                    | {"lower": nan, "upper": nan, "flags": ",".join(flagged.get(key, []))}
                )
    for scope, estimates in (("estimate", m.estimates), ("common_estimate", m.common_estimates)):
        for release, est in estimates.items():
            for stat, e in est.items():
                key = (release, scope, stat)
                rows.append(
                    {"release": release, "scope": scope, "statistic": stat, "value": e.value}
                    | {"lower": e.lower, "upper": e.upper, "flags": ",".join(flagged.get(key, []))}
                )
    return rows


@handle_errors
def monitor_command(
    releases: Annotated[
        list[str],
        typer.Argument(
            metavar="RELEASES...",
            help="Release files (CSV/Parquet), or one folder or glob pattern; ordered by the "
            "ISO date (YYYY-MM-DD) in their names when every name has one.",
        ),
    ],
    names: NamesOpt = None,
    names_from: NamesFromOpt = None,
    sample: Annotated[
        Path | None,
        typer.Option(
            "--sample", help="Labelled true clusters (CSV/Parquet): estimates per release."
        ),
    ] = None,
    design: Annotated[
        DesignChoice | None,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="How the sample's units were drawn (with --sample): record, cluster, block, single-block, size-stratified, expected-error or predicted-cluster.",
        ),
    ] = None,
    weights: WeightsOpt = None,
    metrics: MetricsOpt = None,
    level: LevelOpt = 0.95,
    interval: IntervalOpt = DEFAULT_INTERVAL,
    population: Annotated[
        str | None,
        typer.Option(
            "--population",
            help="The records the sample's population covers: a release label or a file of "
            "record ids (default: the first release holding every sampled record). Each "
            "release is estimated over its records in it.",
        ),
    ] = None,
    population_until: Annotated[
        str | None,
        typer.Option(
            "--population-until",
            help="Instead of --population: the records dated up to this date (--date-col).",
        ),
    ] = None,
    subset: Annotated[
        str | None,
        typer.Option(
            "--subset",
            help="A fixed subset for the 'common' scope: a release label or a file of record "
            "ids (default: the records in every release); with --sample, estimated too.",
        ),
    ] = None,
    subset_until: Annotated[
        str | None,
        typer.Option(
            "--subset-until",
            help="Instead of --subset: the records dated up to this date (--date-col).",
        ),
    ] = None,
    date_col: Annotated[
        str | None,
        typer.Option("--date-col", help="The column of the releases holding each record's date."),
    ] = None,
    alpha: Annotated[
        float,
        typer.Option("--alpha", help="False-alarm rate per release of the shift rule."),
    ] = 0.0027,
    min_history: Annotated[
        int,
        typer.Option("--min-history", help="Earlier releases needed to judge a shift."),
    ] = 3,
    run_length: Annotated[
        int,
        typer.Option(
            "--run-length", help="Releases in a monotone run flagged as a trend (0: off)."
        ),
    ] = 6,
    fail_on_change: Annotated[
        bool,
        typer.Option(
            "--fail-on-change",
            help=f"Exit with code {EXIT_CHANGE} when a change is flagged (after the output).",
        ),
    ] = False,
    fmt: FormatOpt = "table",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the long table (release, scope, statistic, value, lower, upper, "
            "flags) to this file (.csv, .csv.gz, .parquet or .json).",
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
    """Track summary statistics across releases and flag sudden changes.

    For every release: the summary statistics of all its records and of the
    records present in every release, and with --sample estimates with intervals.
    A statistic is flagged when it leaves the prediction limits of the earlier
    releases (rule 'shift', false-alarm rate --alpha per release), ends a monotone
    run of --run-length releases ('trend'), or, for estimates, when consecutive
    intervals do not overlap ('interval') or the release's own value lies outside
    the interval estimated for the truth ('outside_estimate'). Exit code 3 with
    --fail-on-change when anything is flagged; 2 for bad input. DuckDB and Spark
    compute the statistics where the data is; --names, --sample, --subset and
    dates are monitored in memory (--engine auto then picks numpy).
    """
    rule = ControlRule(
        alpha=alpha, min_history=check_int("min_history", min_history), run_length=run_length
    )
    normal_quantile(level)
    check_names_options(names, names_from)
    if names is not None and names_from is None:
        raise InputError("'--names' needs '--names-from' (the table holding the names)")
    if (sample is None) != (design is None):
        raise InputError("'--sample' and '--design' go together: give both or neither")
    if sample is None and (weights is not None or metrics is not None):
        raise InputError("'--weights' and '--metrics' need '--sample'")
    if sample is None and (population is not None or population_until is not None):
        raise InputError("'--population' and '--population-until' need '--sample'")
    for flag, value, until in (
        ("--population", population, population_until),
        ("--subset", subset, subset_until),
    ):
        if value is not None and until is not None:
            raise InputError(f"give '{flag}' or '{flag}-until', not both")
        if until is not None and date_col is None:
            raise InputError(f"'{flag}-until' needs '--date-col' (the column holding dates)")
    if out is not None:
        check_table_path(out, flag="--out")
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    sources = release_sources(_sources(releases))
    in_memory = [
        flag
        for flag, value in (
            ("--names", names),
            ("--sample", sample),
            ("--subset", subset),
            ("--subset-until", subset_until),
            ("--date-col", date_col),
        )
        if value is not None
    ]
    if in_memory:
        refuse_engine_options(
            engine=engine,
            memory_limit=memory_limit,
            threads=threads,
            temp_dir=temp_dir,
            spark_master=spark_master,
            spark_conf=spark_conf,
            where=f"with '{in_memory[0]}' (monitored in memory)",
        )
    builder = engine_from_options(
        engine="numpy" if in_memory and engine == "auto" else engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        truth=sources[0][1],
        pred=sources[-1][1],
    )
    key = split_columns(record_col) or "record_id"
    with progress("reading the releases", quiet=quiet) as bar:
        mapping = None
        if names is not None and names_from is not None:
            mapping = names_table(names, names_from, record_col)
        s = None
        if sample is not None and design is not None:
            key_cols = [key] if isinstance(key, str) else key
            frame = read_table(sample, name="sample", text_columns=(*key_cols, cluster_col))
            s = as_sample(
                frame,
                design=design_value(design),
                weights=weights_value(weights),
                record_col=key,
                cluster_col=cluster_col,
            )

        def report(text: str) -> None:
            bar.update(description=text)

        result = monitor(
            dict(sources),
            names=mapping,
            sample=s,
            metrics=metrics,
            level=level,
            rule=rule,
            record_col=key,
            cluster_col=cluster_col,
            progress=report,
            interval=interval,
            population=population,
            population_until=population_until,
            subset=subset,
            subset_until=subset_until,
            date_col=date_col,
            engine=builder,
        )
    rows = long_rows(result)
    with Outputs() as outputs:
        if out is not None:
            table = pd.DataFrame(rows)
            outputs.add(out, lambda tmp: write_table(table, tmp))
        if plot is not None:
            from ..plots._monitor import plot_monitoring

            figure = plot_monitoring(result)
            target = plot
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, target))
    if out is not None:
        note_written(out, rows=len(rows), quiet=quiet)
    for note in result.notes:
        warn(note)
    if fmt == "json":
        sys.stdout.write(dumps_json(result.to_dict()) + "\n")
    elif fmt == "csv":
        cols = ["release", "scope", "statistic", "value", "lower", "upper", "flags"]
        emit_records(rows, cols, fmt)
    else:
        _print_tables(result)
    if fail_on_change and result.changed:
        raise typer.Exit(EXIT_CHANGE)


def _print_tables(m: Monitoring) -> None:
    cols = [c for c in _WIDE if c in m.statistics.columns and m.statistics[c].notna().any()]
    for scope, frame, title in (
        ("all", m.statistics, "summary statistics, all records"),
        ("common", m.common, f"summary statistics, {_fixed_title(m)}"),
    ):
        flags = m.flags[m.flags["scope"] == scope]
        rows: list[Mapping[str, Any]] = [
            {"release": r, **frame.loc[r, cols].to_dict()}
            | {
                "flags": ", ".join(
                    f"{f.statistic}:{f.rule}"
                    for f in flags[flags["release"] == r].itertuples(index=False)
                )
            }
            for r in m.releases
        ]
        emit_records(rows, ["release", *cols, "flags"], "table", title=title)
    for scope, estimates, title in (
        ("estimate", m.estimates, f"estimates over {m.population}"),
        ("common_estimate", m.common_estimates, f"estimates over {_fixed_title(m)}"),
    ):
        _print_estimates(m, scope, estimates, title)


def _fixed_title(m: Monitoring) -> str:
    if m.subset == "the records in every release":
        return f"the {m.n_common:,} records in every release"
    return f"the fixed subset ({m.subset}, {m.n_common:,} records in every release)"


def _print_estimates(
    m: Monitoring, scope: str, estimates: Mapping[str, Mapping[str, Any]], title: str
) -> None:
    if estimates:
        keys = list(dict.fromkeys(k for est in estimates.values() for k in est))
        flags = m.flags[m.flags["scope"] == scope]
        est_rows: list[Mapping[str, Any]] = []
        for r, est in estimates.items():
            row: dict[str, Any] = {"release": r}
            for k in keys:
                e = est.get(k)
                row[k] = "-" if e is None else f"{e.value:.4g} [{e.lower:.4g}, {e.upper:.4g}]"
            row["flags"] = ", ".join(
                f"{f.statistic}:{f.rule}" for f in flags[flags["release"] == r].itertuples()
            )
            est_rows.append(row)
        level = next(iter(next(iter(estimates.values())).values())).level
        emit_records(
            est_rows,
            ["release", *keys, "flags"],
            "table",
            title=f"{title} [{level:.0%} interval]",
        )


def register(app: typer.Typer) -> None:
    """Add ``monitor`` to the application."""
    app.command(
        "monitor",
        epilog=examples(
            "ereval monitor releases/",
            "ereval monitor 'releases/*.csv' --names last_name \\",
            "    --names-from names.csv",
            "ereval monitor releases/ --sample sample.csv --design record \\",
            "    --plot monitor.png",
            "ereval monitor old.csv mid.csv new.csv --fail-on-change -f json",
            "ereval monitor 'releases/*.parquet' --engine duckdb --memory-limit 1GB",
        ),
    )(monitor_command)
