"""The options that describe a labelled sample's design, shared by the commands that
read one (``estimate``, ``errors`` in sample mode, ``monitor``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer

__all__ = ["DesignChoice", "WeightKindChoice", "WeightKindOpt", "WeightsOpt", "design_value"]

DesignChoice = Literal["record", "cluster", "block", "single-block", "size-stratified"]
WeightKindChoice = Literal["probability", "inverse-probability"]

WeightsOpt = Annotated[
    str | None,
    typer.Option(
        "--weights",
        help="Sampling probabilities: uniform, cluster-size, or a column of the sample "
        "(constant per cluster, or per block with --design block); default: the sample's "
        "'probability' column, if any.",
    ),
]
WeightKindOpt = Annotated[
    WeightKindChoice,
    typer.Option("--weight-kind", help="Whether a weights column holds p or 1/p."),
]


def design_value(design: Any) -> Any:
    """The Python spelling of a ``--design`` choice (``single-block`` -> ``single_block``)."""
    return design.replace("-", "_") if isinstance(design, str) else design


AllocationChoice = Literal["proportional", "neyman"]

StrataOpt = Annotated[
    str | None,
    typer.Option(
        "--strata",
        help="size-stratified: lower predicted cluster sizes of the strata, comma-separated, "
        "starting at 1 (default 1,2,3,5,9,17,...: sizes 1, 2, 3-4, 5-8, ...).",
    ),
]
AllocationOpt = Annotated[
    AllocationChoice,
    typer.Option(
        "--allocation",
        help="size-stratified: draws per stratum, neyman (proportional to records times mean "
        "predicted cluster size, each stratum keeping 90% of its proportional share) or "
        "proportional.",
    ),
]
