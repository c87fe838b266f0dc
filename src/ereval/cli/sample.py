"""``ereval sample``: the records (or predicted clusters) to label, from the prediction alone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from .._validation import check_in_range, check_int
from ..estimators.size_design import plan_size_stratified
from ..estimators.strata import check_bounds
from ..estimators.unequal_designs import plan_expected_error, plan_predicted_cluster
from ..io import read_table
from ._columns import ClusterColOpt, RecordColOpt, split_columns
from ._common import FormatOpt, QuietOpt, emit_records, examples, handle_errors
from ._output import check_table_path, write_table
from ._progress import progress
from ._sample import (
    AllocationChoice,
    FloorOpt,
    LeftColOpt,
    PairsOpt,
    PresetOpt,
    RightColOpt,
    SampleDesignChoice,
    ScoreColOpt,
    StrataOpt,
    check_pair_options,
    design_value,
    record_probabilities,
)

__all__ = ["register", "sample_command"]


@handle_errors
def sample_command(
    pred: Annotated[
        Path,
        typer.Option("--pred", help="Predicted clustering of the whole population (CSV/Parquet)."),
    ],
    n: Annotated[
        int,
        typer.Option(
            "--n", "-n", help="Number of draws (records; predicted clusters for predicted-cluster)."
        ),
    ],
    design: Annotated[
        SampleDesignChoice,
        typer.Option(
            "--design",
            help="size-stratified: records drawn within strata of their predicted cluster's "
            "size. expected-error: records drawn with probability growing with their expected "
            "errors under the match probabilities of --pairs. predicted-cluster: predicted "
            "clusters drawn (with --weights), each reviewed whole.",
        ),
    ] = "size-stratified",
    strata: StrataOpt = None,
    allocation: Annotated[
        AllocationChoice | None,
        typer.Option(
            "--allocation",
            help="size-stratified: draws per stratum, neyman (default; proportional to records "
            "times mean predicted cluster size, each stratum keeping 90% of its proportional "
            "share) or proportional.",
        ),
    ] = None,
    pairs: PairsOpt = None,
    score_col: ScoreColOpt = None,
    left_col: LeftColOpt = None,
    right_col: RightColOpt = None,
    preset: PresetOpt = "none",
    floor: FloorOpt = None,
    weights: Annotated[
        str | None,
        typer.Option(
            "--weights",
            help="predicted-cluster: draw clusters uniform or cluster-size (proportional to "
            "their number of records) \\[default: cluster-size].",
            show_default=False,
        ),
    ] = None,
    without_replacement: Annotated[
        bool,
        typer.Option("--without-replacement", help="Draw records without replacement."),
    ] = False,
    seed: Annotated[int | None, typer.Option("--seed", help="Random seed.")] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the records to label here (CSV/Parquet/JSON)."),
    ] = None,
    fmt: FormatOpt = "table",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    quiet: QuietOpt = False,
) -> None:
    """Draw the records (or predicted clusters) to label, from the prediction alone.

    size-stratified (default): records are put in strata by the size of their
    predicted cluster and drawn uniformly within each stratum. Label the true
    cluster of each drawn record; the labelled table (every record of each true
    cluster, with the columns stratum, stratum_records and record_draws,
    record_draws 0 for the records not drawn) is read by ereval estimate --design
    size-stratified.

    expected-error: records are drawn with replacement with probability growing
    with their expected over- and under-clustering errors under the match
    probabilities of --pairs (the output gives record_draws and
    record_probability). Label the true cluster of each; ereval estimate --design
    expected-error --pairs recomputes every labelled record's probability.

    predicted-cluster: predicted clusters are drawn and every record of each is
    listed (unit_id, probability, draws); add a cluster_id column telling which
    records inside each predicted cluster are the same entity. Only pairwise and
    B-cubed precision can be estimated from such a sample.
    """
    check_int("n", n, minimum=2)
    chosen = design_value(design)
    check_pair_options(
        chosen,
        pairs=pairs,
        floor=floor,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        preset=None if preset == "none" else preset,
    )
    if chosen != "size_stratified" and (strata is not None or allocation is not None):
        raise InputError(
            f"'--strata' and '--allocation' are options of --design size-stratified; design "
            f"is '{design}'"
        )
    if chosen != "predicted_cluster" and weights is not None:
        raise InputError(
            f"'--weights' is an option of --design predicted-cluster; design is '{design}'"
        )
    if chosen == "expected_error":
        if pairs is None:
            raise InputError(
                "--design expected-error needs '--pairs': the scored pairs whose match "
                "probabilities give each record's expected errors"
            )
        if without_replacement:
            raise InputError(
                "'--without-replacement' does not apply to --design expected-error, which "
                "draws records with replacement with unequal probabilities"
            )
        if floor is not None:
            check_in_range("floor", floor, low=0.0, high=1.0)
    scheme = {"uniform": "uniform", "cluster-size": "cluster_size", None: "cluster_size"}.get(
        weights
    )
    if scheme is None:
        raise InputError(f"'--weights' must be uniform or cluster-size; received {weights!r}")
    bounds = None if strata is None else check_bounds(strata)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    if out is not None:
        check_table_path(out, flag="--out")
    key = split_columns(record_col) or "record_id"
    with progress(f"reading {pred.name}", quiet=quiet):
        frame = read_table(pred, name="pred", text_columns="all")
        if chosen == "expected_error" and pairs is not None:
            plan = plan_expected_error(
                record_probabilities(
                    frame,
                    pairs,
                    preset=preset,
                    left_col=left_col,
                    right_col=right_col,
                    score_col=score_col,
                    floor=floor,
                    record_col=key,
                    cluster_col=cluster_col,
                ),
                n=n,
                seed=seed,
            )
            title = f"{n} draws of {len(plan)} records (expected-error)"
        elif chosen == "predicted_cluster":
            plan = plan_predicted_cluster(
                frame,
                n=n,
                weights=scheme,
                replace=not without_replacement,
                seed=seed,
                record_col=key,
                cluster_col=cluster_col,
            )
            units = plan["unit_id"].nunique()
            title = f"{n} draws of {units} predicted clusters ({weights or 'cluster-size'})"
        else:
            plan = plan_size_stratified(
                frame,
                n=n,
                strata=bounds,
                allocation=allocation,
                replace=not without_replacement,
                seed=seed,
                record_col=key,
                cluster_col=cluster_col,
            )
            title = (
                f"{int(plan['record_draws'].sum())} draws of {len(plan)} records "
                f"({allocation or 'neyman'})"
            )
    if out is not None:
        write_table(plan, out)
        return
    rows: list[Mapping[str, Any]] = [
        {str(k): v for k, v in row.items()} for row in plan.to_dict(orient="records")
    ]
    emit_records(rows, [str(c) for c in plan.columns], fmt, title=title)


def register(app: typer.Typer) -> None:
    """Add ``sample`` to the application."""
    app.command(
        "sample",
        epilog=examples(
            "ereval sample --pred pred.csv -n 200 --seed 1 -o to_label.csv",
            "ereval sample --pred pred.csv -n 200 --strata 1,2,3,5,9 \\",
            "    --allocation proportional",
            "ereval sample --pred pred.csv -n 200 --design expected-error \\",
            "    --pairs splink_predictions.parquet --preset splink",
            "ereval sample --pred pred.csv -n 50 --design predicted-cluster \\",
            "    --weights uniform",
        ),
    )(sample_command)
