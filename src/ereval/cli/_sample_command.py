"""``ereval sample``: the records to label for a size-stratified sample, from the prediction."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .._validation import check_int
from ..estimators._size_design import plan_size_stratified
from ..estimators._strata import check_bounds
from ..io import read_table
from ._columns import ClusterColOpt, RecordColOpt, split_columns
from ._common import FormatOpt, QuietOpt, emit_records, examples, handle_errors
from ._output import check_table_path, write_table
from ._progress import progress
from ._sample import AllocationOpt, StrataOpt

__all__ = ["register", "sample_command"]


@handle_errors
def sample_command(
    pred: Annotated[
        Path,
        typer.Option("--pred", help="Predicted clustering of the whole population (CSV/Parquet)."),
    ],
    n: Annotated[int, typer.Option("--n", "-n", help="Number of record draws.")],
    strata: StrataOpt = None,
    allocation: AllocationOpt = "neyman",
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
    """Draw the records to label for a size-stratified sample (design size-stratified).

    Records are put in strata by the size of their predicted cluster and drawn
    uniformly within each stratum. Label the true cluster of each drawn record;
    the labelled table (every record of each true cluster, with the columns
    stratum, stratum_records and record_draws, record_draws 0 for the records
    not drawn) is read by ereval estimate --design size-stratified.
    """
    check_int("n", n, minimum=2)
    bounds = None if strata is None else check_bounds(strata)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    if out is not None:
        check_table_path(out, flag="--out")
    key = split_columns(record_col) or "record_id"
    with progress(f"reading {pred.name}", quiet=quiet):
        frame = read_table(pred, name="pred", text_columns="all")
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
    if out is not None:
        write_table(plan, out)
        return
    rows: list[Mapping[str, Any]] = [
        {str(k): v for k, v in row.items()} for row in plan.to_dict(orient="records")
    ]
    title = f"{int(plan['record_draws'].sum())} draws of {len(plan)} records ({allocation})"
    emit_records(rows, [str(c) for c in plan.columns], fmt, title=title)


def register(app: typer.Typer) -> None:
    """Add ``sample`` to the application."""
    app.command(
        "sample",
        epilog=examples(
            "ereval sample --pred pred.csv -n 200 --seed 1 -o to_label.csv",
            "ereval sample --pred pred.csv -n 200 --strata 1,2,3,5,9 \\",
            "    --allocation proportional",
        ),
    )(sample_command)
