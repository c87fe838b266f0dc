"""``ereval plan``: how many draws each sampling design needs for a target half-width."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from .._validation import check_beta, check_in_range, check_int
from ..estimators import as_sample
from ..estimators.intervals import DEFAULT_INTERVAL
from ..estimators.ratio import normal_quantile
from ..estimators.strata import check_bounds
from ..io import as_membership
from ..planning import plan, plan_designs
from ..planning._plan import PLAN_COLUMNS, check_metrics
from ._common import (
    FormatOpt,
    LevelOpt,
    QuietOpt,
    dumps_json,
    emit_records,
    examples,
    handle_errors,
    note_written,
)
from ._output import Outputs, check_figure_path, check_table_path, write_figure, write_table
from ._progress import progress
from ._sample import (
    AllocationOpt,
    DesignChoice,
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
from .estimate import IntervalOpt


def _designs(values: list[str]) -> list[str] | str:
    """``--design`` values (repeatable, or ``all``) in the library's spelling."""
    known = [d.replace("_", "-") for d in plan_designs()]
    if not values:
        return ["record"]
    if "all" in values:
        if len(values) > 1:
            raise InputError("'--design all' cannot be combined with other designs")
        return "all"
    for v in values:
        if v not in known:
            raise InputError(
                f"'--design' must be 'all' or one of {', '.join(known)}; received {v!r}"
            )
    return [str(design_value(v)) for v in values]


@handle_errors
def plan_command(
    pred: Annotated[
        Path,
        typer.Option("--pred", help="Predicted clustering of the whole population (CSV/Parquet)."),
    ],
    half_width: Annotated[
        float,
        typer.Option("--half-width", help="Target half-width of the intervals, in (0, 1)."),
    ],
    design: Annotated[
        list[str] | None,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="Design to plan (repeatable): "
            + ", ".join(d.replace("_", "-") for d in plan_designs())
            + ", or all (default record).",
        ),
    ] = None,
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            "-m",
            help="Comma-separated estimator keys (default: pairwise_precision,pairwise_recall,"
            "pairwise_f1).",
        ),
    ] = None,
    sample: Annotated[
        Path | None,
        typer.Option(
            "--sample",
            help="A labelled pilot sample (CSV/Parquet, as written by ereval sample): the "
            "error rate of the working population, whose variances are raised to the pilot's "
            "own where those are larger.",
        ),
    ] = None,
    sample_design: Annotated[
        DesignChoice,
        typer.Option(
            "--sample-design",
            metavar="DESIGN",
            help="How the pilot sample was drawn: record, cluster, block, single-block, "
            "size-stratified, expected-error or predicted-cluster (as for ereval estimate "
            "--design).",
        ),
    ] = "record",
    truth: Annotated[
        Path | None,
        typer.Option(
            "--truth", help="A known true clustering to plan on (instead of an error model)."
        ),
    ] = None,
    error_rate: Annotated[
        float | None,
        typer.Option(
            "--error-rate",
            help="Without --sample or --truth: the assumed share of misplaced records "
            "(default 0.1; the plan takes the worse of it and twice it).",
        ),
    ] = None,
    weights: Annotated[
        str | None,
        typer.Option(
            "--weights",
            help="Cluster and predicted-cluster designs' probabilities: uniform or cluster-size.",
        ),
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
    level: LevelOpt = 0.95,
    assurance: Annotated[
        float,
        typer.Option(
            "--assurance", help="Probability that the planned n meets the target, in [0.5, 1)."
        ),
    ] = 0.9,
    interval: IntervalOpt = DEFAULT_INTERVAL,
    beta: Annotated[float, typer.Option("--beta", help="Weight of recall in F-beta.")] = 1.0,
    repeats: Annotated[
        int, typer.Option("--repeats", "-r", help="Samples drawn to measure the variance.")
    ] = 400,
    seed: Annotated[int | None, typer.Option("--seed", help="Random seed.")] = None,
    fmt: FormatOpt = "table",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Also write the half-width at a grid of n (design, metric, n, "
            "expected_half_width, assured_half_width) to this file (.csv, .csv.gz, .parquet "
            "or .json).",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Write a figure to this file (.png, .pdf, .svg, ...)."),
    ] = None,
    record_col: Annotated[
        str, typer.Option("--record-col", help="Record id column.")
    ] = "record_id",
    cluster_col: Annotated[
        str, typer.Option("--cluster-col", help="Cluster id column.")
    ] = "cluster_id",
    quiet: QuietOpt = False,
) -> None:
    """Draws each sampling design needs to reach a target interval half-width.

    For each design and metric: the per-draw standard deviation, measured on
    samples of a working population (the truth when given; otherwise the
    prediction with a share of records moved, taken from a pilot sample or
    assumed), the planned n — n = ceil((z sigma / h)^2), finite-population
    corrected, raised so that the target is met with probability --assurance —
    and the half-width at a grid of n (-o, --plot). The output says which
    assumption the plan rests on.
    """
    designs = _designs(design or [])
    check_metrics(metrics)
    check_in_range("half_width", half_width, low=0.0, high=1.0)
    if not 0 < half_width < 1:
        raise InputError(f"'--half-width' must be in (0, 1); received {half_width!r}")
    normal_quantile(level)
    check_in_range("assurance", assurance, low=0.5, high=0.999)
    check_beta(beta)
    check_int("repeats", repeats, minimum=20)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    if error_rate is not None:
        if sample is not None or truth is not None:
            raise InputError("'--error-rate' is the assumption used without --sample or --truth")
        check_in_range("error_rate", error_rate, low=0.0, high=0.5)
    if sample is not None and truth is not None:
        raise InputError("give at most one of '--sample' and '--truth'")
    if weights not in (None, "uniform", "cluster-size"):
        raise InputError(f"'--weights' must be uniform or cluster-size; received {weights!r}")
    bounds = None if strata is None else check_bounds(strata)
    with_pairs = designs == "all" or "expected_error" in designs
    check_pair_options(
        "expected_error" if with_pairs else designs[0],
        pairs=pairs,
        floor=floor,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        preset=None if preset == "none" else preset,
    )
    if designs != "all" and "expected_error" in designs and pairs is None:
        raise InputError(
            "--design expected-error needs '--pairs': the draw probabilities come from the "
            "match probabilities of the pairs that made the prediction"
        )
    if floor is not None:
        check_in_range("floor", floor, low=0.0, high=1.0)
    if out is not None:
        check_table_path(out, flag="--out")
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    options: dict[str, dict[str, Any]] = {}
    if weights is not None:
        options["cluster"] = {"weights": weights.replace("-", "_")}
        options["predicted_cluster"] = {"weights": weights.replace("-", "_")}
    if strata is not None or allocation != "neyman":
        options["size_stratified"] = {"strata": bounds, "allocation": allocation}
    with progress(f"reading {pred.name}", quiet=quiet) as bar:
        pred_m = as_membership(pred, name="pred", record_col=record_col, cluster_col=cluster_col)
        truth_m = None
        if truth is not None:
            truth_m = as_membership(
                truth, name="truth", record_col=record_col, cluster_col=cluster_col
            )
        if pairs is not None:
            options["expected_error"] = {
                "weights": record_probabilities(
                    pred_m,
                    pairs,
                    preset=preset,
                    left_col=left_col,
                    right_col=right_col,
                    score_col=score_col,
                    floor=floor,
                    record_col=record_col,
                    cluster_col=cluster_col,
                )
            }
        pilot = None
        if sample is not None:
            pilot = as_sample(
                sample,
                design=design_value(sample_design),
                replace=True,
                record_col=record_col,
                cluster_col=cluster_col,
            )
        bar.update(description="planning")
        result = run_with_warnings(
            lambda: plan(
                pred_m,
                half_width=half_width,
                design=designs,
                metrics=metrics,
                truth=truth_m,
                pilot=pilot,
                error_rate=error_rate,
                replace=not without_replacement,
                design_options=options,
                level=level,
                assurance=assurance,
                interval=interval,
                beta=beta,
                repeats=repeats,
                seed=seed,
            )
        )
    with Outputs() as outputs:
        if out is not None:
            outputs.add(out, lambda tmp: write_table(result.curve, tmp))
        if plot is not None:
            from ..plots.plan import plot_plan

            figure = plot_plan(result)
            target = plot
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, target))
    if out is not None:
        note_written(out, rows=len(result.curve), quiet=quiet)
    if fmt == "json":
        sys.stdout.write(dumps_json(result.to_dict()) + "\n")
        return
    rows: list[Mapping[str, Any]] = [
        {str(k): v for k, v in row.items()} for row in result.table.to_dict(orient="records")
    ]
    title = None
    if fmt == "table":
        title = (
            f"draws for half-width {half_width:g} at level {level:g} "
            f"(assurance {assurance:g}); " + "; ".join(result.notes)
        )
    emit_records(rows, list(PLAN_COLUMNS), fmt, title=title)


def register(app: typer.Typer) -> None:
    """Add ``plan`` to the application."""
    app.command(
        "plan",
        epilog=examples(
            "ereval plan --pred pred.csv --half-width 0.02 --design all",
            "ereval plan --pred pred.csv --sample pilot.csv --half-width 0.03 \\",
            "    --design record --design size-stratified -m pairwise_precision",
            "ereval plan --pred pred.csv --half-width 0.02 -f json \\",
            "    -o curve.csv --plot plan.png",
        ),
    )(plan_command)
