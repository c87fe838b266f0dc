"""``ereval analyze``: the errors of a labelled sample against the whole prediction.

The sampled true clusters' errors with their sampling weights and features (``-o``
writes this table); ``--group`` estimates performance per subgroup, ``--tree`` fits
a weighted error tree, ``--tags`` estimates reviewer tag frequencies. The errors of
two whole clusterings are ``ereval errors``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .._errors import InputError
from ._columns import ClusterColOpt, RecordColOpt
from ._common import FormatOpt, LevelOpt, QuietOpt, examples, handle_errors
from ._engine import (
    EngineOpt,
    MemoryLimitOpt,
    SparkConfOpt,
    SparkMasterOpt,
    TempDirOpt,
    ThreadsOpt,
)
from ._metrics import BaseChoice, TargetChoice
from ._sample import DesignChoice, WeightKindOpt, WeightsOpt


@handle_errors
def analyze_command(
    pred: Annotated[
        Path | None,
        typer.Option(
            "--pred",
            help="The prediction of the whole population (CSV or Parquet). Required.",
            show_default=False,
        ),
    ] = None,
    sample: Annotated[
        Path | None,
        typer.Option(
            "--sample",
            help="The labelled true clusters, one row per record (CSV or Parquet). Required.",
            show_default=False,
        ),
    ] = None,
    design: Annotated[
        DesignChoice | None,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="How the sampled units were drawn: record, cluster, block, single-block, size-stratified, expected-error or predicted-cluster. Required.",
        ),
    ] = None,
    weights: WeightsOpt = None,
    weight_kind: WeightKindOpt = "probability",
    blocks: Annotated[
        str | None, typer.Option("--blocks", help="Column of the sample holding each block id.")
    ] = None,
    draws: Annotated[
        str | None,
        typer.Option("--draws", help="Column of the sample holding each unit's number of draws."),
    ] = None,
    without_replacement: Annotated[
        bool, typer.Option("--without-replacement", help="Units were drawn without replacement.")
    ] = False,
    population_size: Annotated[
        int | None,
        typer.Option(
            "--population-size",
            help="Number of units in the population (with --without-replacement).",
        ),
    ] = None,
    features: Annotated[
        Path | None,
        typer.Option(
            "--features",
            help="Features keyed by record (aggregated per cluster: mean or most frequent "
            "value) or by cluster (CSV/Parquet).",
            show_default=False,
        ),
    ] = None,
    feature_cols: Annotated[
        str | None,
        typer.Option("--feature-cols", help="Comma-separated feature columns (default: all)."),
    ] = None,
    shares: Annotated[
        str | None,
        typer.Option(
            "--shares",
            help="Comma-separated column=value: each cluster's share of records with that value.",
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            "--group", help="Estimate per subgroup of entities: a feature or sample column."
        ),
    ] = None,
    bins: Annotated[
        int | None,
        typer.Option(
            "--bins", help="Cut a numeric --group feature into this many quantile groups."
        ),
    ] = None,
    versus: Annotated[
        str | None,
        typer.Option(
            "--versus",
            help="With --group: also each group's estimate minus the overall estimate "
            "('overall') or minus the group named here, with the difference's interval.",
            show_default=False,
        ),
    ] = None,
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            "-m",
            help="Estimators per --group (default: pairwise precision, recall and F1).",
        ),
    ] = None,
    tree: Annotated[
        bool, typer.Option("--tree", help="Fit a weighted decision tree of errors on the features.")
    ] = False,
    target: Annotated[
        TargetChoice,
        typer.Option(
            "--target",
            help="What the tree explains: over-, under-clustering, any error, ROCE or RUCE.",
        ),
    ] = "over",
    max_depth: Annotated[int, typer.Option("--max-depth", help="Depth of the tree.")] = 3,
    tags: Annotated[
        str | None,
        typer.Option("--tags", help="Column of comma-separated reviewer tags per cluster."),
    ] = None,
    among: Annotated[
        BaseChoice,
        typer.Option("--among", help="Tag frequencies among clusters in error, tagged, or all."),
    ] = "errors",
    level: LevelOpt = 0.95,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the table to this file (.csv, .csv.gz, .parquet or .json) instead "
            "of printing it.",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Draw the --group estimates and --tags frequencies (.png, .pdf, "
            ".svg, ...; needs the extra ereval\\[plot]).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOpt = "table",
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
    """Errors of a labelled sample of true clusters against the whole prediction.

    One row per sampled true cluster with its errors (EI, SDE, OCE, UCE, ROCE,
    RUCE, H), sampling weight and features (-o writes this table); --group
    estimates performance per subgroup, --tree fits a weighted error tree,
    --tags estimates reviewer tag frequencies.
    """
    if pred is None or sample is None or design is None:
        flag = "--pred" if pred is None else "--sample" if sample is None else "--design"
        raise InputError(
            f"'{flag}' is required: ereval analyze --pred PRED --sample SAMPLE --design "
            "DESIGN (record, cluster, block, single-block, size-stratified, expected-error "
            "or predicted-cluster)"
        )
    from ._sample_errors import SampleMode, run_sample_mode

    run_sample_mode(
        SampleMode(
            pred=pred,
            sample=sample,
            design=design,
            weights=weights,
            weight_kind=weight_kind,
            blocks=blocks,
            draws=draws,
            without_replacement=without_replacement,
            population_size=population_size,
            features=features,
            feature_cols=feature_cols,
            shares=shares,
            group=group,
            bins=bins,
            versus=versus,
            metrics=metrics,
            tree=tree,
            target=target,
            max_depth=max_depth,
            tags=tags,
            among=among,
            level=level,
            record_col=record_col,
            cluster_col=cluster_col,
            out=out,
            plot=plot,
            fmt=fmt,
            quiet=quiet,
            engine=engine,
            memory_limit=memory_limit,
            threads=threads,
            temp_dir=temp_dir,
            spark_master=spark_master,
            spark_conf=spark_conf,
        )
    )


def register(app: typer.Typer) -> None:
    """Add ``analyze`` to the application."""
    app.command(
        "analyze",
        epilog=examples(
            "ereval analyze --pred pred.csv --sample sample.csv --design record \\",
            "    --features records.csv --group sex --tree -o sample_errors.csv",
            "ereval analyze --pred pred.csv --sample reviewed.csv --design record \\",
            "    --tags tags --plot tags.png",
        ),
    )(analyze_command)
