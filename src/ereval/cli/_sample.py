"""The options that describe a labelled sample's design, shared by the commands that
read one (``estimate``, ``errors`` in sample mode, ``monitor``)."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

__all__ = ["DesignChoice", "WeightKindChoice", "WeightKindOpt", "WeightsOpt"]

DesignChoice = Literal["record", "cluster", "block", "single-block"]
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
