"""``ereval simulate``: check the estimators by repeated sampling on data like your own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
import typer

from .._errors import InputError
from .._simulate import SUMMARY_COLUMNS, check_simulation_memory, simulate
from .._validation import check_beta, check_in_range, check_int
from ..estimators._intervals import DEFAULT_INTERVAL
from ..estimators._ratio import normal_quantile
from ..estimators._strata import check_bounds
from ..io import as_membership, keyed_frame, read_table
from ._columns import split_columns
from ._common import (
    FormatOpt,
    LevelOpt,
    MetricsOpt,
    QuietOpt,
    check_key_column,
    emit_records,
    examples,
    handle_errors,
)
from ._estimate import IntervalOpt
from ._progress import progress
from ._sample import (
    AllocationOpt,
    FloorOpt,
    LeftColOpt,
    PairsOpt,
    PresetOpt,
    RightColOpt,
    ScoreColOpt,
    StrataOpt,
    check_pair_options,
    design_value,
    record_probabilities,
)
from ._warnings import run_with_warnings

SimDesignChoice = Literal[
    "record", "cluster", "block", "size-stratified", "expected-error", "predicted-cluster"
]
SchemeChoice = Literal["uniform", "cluster-size"]


def _blocks_of_clusters(frame: pd.DataFrame, column: str, cluster_col: str) -> pd.Series:
    """Cluster id -> block id (a block must hold whole clusters)."""
    check_key_column(frame, column, cluster_col, option="--blocks", source="TRUTH")
    per = frame.groupby(cluster_col, sort=False)[column]
    if (per.nunique() > 1).any():
        raise InputError("'--blocks' cuts a true cluster: every cluster must lie in one block")
    return per.first()


def _names_of_records(frame: pd.DataFrame, column: str, record_col: str) -> pd.Series:
    """Record id -> name."""
    check_key_column(frame, column, record_col, option="--names", source="TRUTH")
    return pd.Series(frame[column].to_numpy(), index=frame[record_col].to_numpy())


@handle_errors
def simulate_command(
    truth: Annotated[
        Path, typer.Option("--truth", help="Clustering taken as the truth (CSV/Parquet).")
    ],
    pred: Annotated[
        Path | None,
        typer.Option("--pred", help="A prediction of the same records (or use --error-rate)."),
    ] = None,
    error_rate: Annotated[
        float | None,
        typer.Option("--error-rate", help="Build the prediction by moving this share of records."),
    ] = None,
    sample_size: Annotated[
        int, typer.Option("--sample-size", "-n", help="Draws per sample.")
    ] = 400,
    repeats: Annotated[int, typer.Option("--repeats", "-r", help="Number of samples.")] = 200,
    design: Annotated[
        SimDesignChoice,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="Sampling design: record, cluster, block, size-stratified, expected-error "
            "(with --pred and --pairs) or predicted-cluster.",
        ),
    ] = "record",
    weights: Annotated[
        SchemeChoice | None,
        typer.Option(
            "--weights",
            help="Cluster/block probabilities (cluster, block and predicted-cluster designs).",
        ),
    ] = None,
    blocks: Annotated[
        str | None, typer.Option("--blocks", help="Column of TRUTH holding each block id.")
    ] = None,
    without_replacement: Annotated[
        bool, typer.Option("--without-replacement", help="Draw units without replacement.")
    ] = False,
    strata: StrataOpt = None,
    allocation: AllocationOpt = "neyman",
    pairs: PairsOpt = None,
    score_col: ScoreColOpt = None,
    left_col: LeftColOpt = None,
    right_col: RightColOpt = None,
    preset: PresetOpt = "none",
    floor: FloorOpt = None,
    fpc: Annotated[
        bool,
        typer.Option(
            "--fpc/--no-fpc",
            help="Apply the finite-population correction without replacement (default).",
        ),
    ] = True,
    names: Annotated[
        str | None, typer.Option("--names", help="Column of TRUTH with a name per record.")
    ] = None,
    metrics: MetricsOpt = None,
    beta: Annotated[float, typer.Option("--beta", help="Weight of recall in F-beta.")] = 1.0,
    level: LevelOpt = 0.95,
    interval: IntervalOpt = DEFAULT_INTERVAL,
    naive: Annotated[
        bool, typer.Option("--naive/--no-naive", help="Include the naive estimates.")
    ] = True,
    seed: Annotated[int | None, typer.Option("--seed", help="Random seed.")] = None,
    fmt: FormatOpt = "table",
    record_col: Annotated[
        str, typer.Option("--record-col", help="Record id column.")
    ] = "record_id",
    cluster_col: Annotated[
        str, typer.Option("--cluster-col", help="Cluster id column.")
    ] = "cluster_id",
    quiet: QuietOpt = False,
) -> None:
    """Repeat sampling and estimation: bias, RMSE and CI coverage of every estimator.

    Takes TRUTH as the population, a prediction (PRED, or TRUTH with a share of
    records moved), draws REPEATS samples and compares each estimator with the
    exact value of its metric. Runs in memory (NumPy) and takes no engine
    options: it draws and estimates REPEATS times from the same population, which is
    random access to the clusters that a database would turn into REPEATS joins; a
    study of the estimators needs a population of thousands of clusters, not all
    of them (take a sample of clusters of a large clustering as TRUTH).
    """
    if (pred is None) == (error_rate is None):
        raise InputError("give exactly one of '--pred' and '--error-rate'")
    if error_rate is not None:
        check_in_range("error_rate", error_rate, low=0.0, high=1.0)
    check_int("sample_size", sample_size, minimum=2)
    check_int("repeats", repeats, minimum=1)
    if design != "size-stratified" and strata is not None:
        raise InputError(f"'--strata' applies to --design size-stratified; design is '{design}'")
    check_pair_options(
        design_value(design),
        pairs=pairs,
        floor=floor,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        preset=None if preset == "none" else preset,
    )
    if design == "expected-error" and (pairs is None or pred is None):
        raise InputError(
            "--design expected-error needs '--pred' and '--pairs': the draw probabilities come "
            "from the match probabilities of the pairs that made the prediction"
        )
    if design == "expected-error" and weights is not None:
        raise InputError("'--weights' does not apply to --design expected-error (see --pairs)")
    if floor is not None:
        check_in_range("floor", floor, low=0.0, high=1.0)
    bounds = None if strata is None else check_bounds(strata)
    check_beta(beta)
    normal_quantile(level)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    check_simulation_memory(sample_size, repeats, 1)
    with progress(f"reading {truth.name}", quiet=quiet) as bar:
        key = split_columns(record_col) or "record_id"
        frame, key_col = keyed_frame(
            read_table(truth, name="truth", text_columns="all"), key, name="truth"
        )
        membership = as_membership(frame, name="truth", record_col=key_col, cluster_col=cluster_col)
        kwargs: dict[str, Any] = {}
        if blocks is not None:
            kwargs["blocks"] = _blocks_of_clusters(frame, blocks, cluster_col)
        if names is not None:
            kwargs["names"] = _names_of_records(frame, names, key_col)
        if design == "size-stratified":
            kwargs.update(strata=bounds, allocation=allocation)
        pred_m = None
        if pred is not None:
            pred_m = as_membership(pred, name="pred", record_col=key, cluster_col=cluster_col)
        kwargs["weights"] = None if weights is None else weights.replace("-", "_")
        if pairs is not None and pred_m is not None:
            kwargs["weights"] = record_probabilities(
                pred_m,
                pairs,
                preset=preset,
                left_col=left_col,
                right_col=right_col,
                score_col=score_col,
                floor=floor,
                record_col=key,
                cluster_col=cluster_col,
            )
        bar.update(description="simulating")

        def report(done: int, total: int) -> None:
            bar.update(completed=done, total=total)

        result = run_with_warnings(
            lambda: simulate(
                membership,
                pred_m,
                error_rate=error_rate,
                sample_size=sample_size,
                repeats=repeats,
                design=design_value(design),
                replace=not without_replacement,
                fpc=fpc,
                estimators=metrics,
                beta=beta,
                level=level,
                interval=interval,
                naive=naive,
                seed=seed,
                progress=report,
                **kwargs,
            )
        )
    rows: list[Mapping[str, Any]] = [
        {str(k): v for k, v in row.items()} for row in result.summary.to_dict(orient="records")
    ]
    settings = result.settings
    title = (
        f"{settings['repeats']} samples of {settings['sample_size']} ({settings['design']}, "
        f"{settings['weights']})"
    )
    emit_records(rows, list(SUMMARY_COLUMNS), fmt, title=title)


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to the application."""
    app.command(
        "simulate",
        epilog=examples(
            "ereval simulate --truth truth.csv --error-rate 0.1 -n 400 -r 1000",
            "ereval simulate --truth truth.csv --pred pred.csv --design cluster \\",
            "    --weights uniform -m pairwise_f1,b3_f1",
            "ereval simulate --truth truth.csv --pred pred.csv -n 200 \\",
            "    --design size-stratified",
        ),
    )(simulate_command)
