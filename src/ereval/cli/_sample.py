"""The options that describe a labelled sample's design, shared by the commands that
read one (``estimate``, ``analyze``, ``monitor``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from .._errors import InputError

__all__ = [
    "DesignChoice",
    "FloorOpt",
    "LeftColOpt",
    "PairsOpt",
    "PresetOpt",
    "RightColOpt",
    "SampleDesignChoice",
    "ScoreColOpt",
    "WeightKindChoice",
    "WeightKindOpt",
    "weight_kind_value",
    "WeightsOpt",
    "check_pair_options",
    "design_value",
    "record_probabilities",
]

DesignChoice = Literal[
    "record",
    "cluster",
    "block",
    "single-block",
    "size-stratified",
    "expected-error",
    "predicted-cluster",
]
WeightKindChoice = Literal["probability", "inverse-probability", "inclusion-probability"]

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
    typer.Option(
        "--weight-kind",
        help="Whether a weights column holds p or 1/p (up to a constant), or the exact "
        "inclusion probabilities of a draw without replacement (read from the sample's "
        "'inclusion_probability' column when --weights is not given).",
    ),
]


def weight_kind_value(kind: str) -> Any:
    """The library's ``weight_kind`` for the CLI's ``--weight-kind``."""
    return kind.replace("-", "_")


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


SampleDesignChoice = Literal["size-stratified", "expected-error", "predicted-cluster"]

PairsOpt = Annotated[
    Path | None,
    typer.Option(
        "--pairs",
        help="expected-error: scored pairs (CSV/Parquet) with match probabilities in [0, 1], "
        "e.g. Splink's predictions; each record's draw probability is computed from them.",
    ),
]
ScoreColOpt = Annotated[
    str | None,
    typer.Option(
        "--score-col",
        help="expected-error: match probability column of --pairs \\[default: "
        "match_probability with --preset splink, else score].",
        show_default=False,
    ),
]
LeftColOpt = Annotated[
    str | None,
    typer.Option(
        "--left-col",
        help="First record id column of --pairs \\[default: record_id_1, or the preset's].",
        show_default=False,
    ),
]
RightColOpt = Annotated[
    str | None,
    typer.Option(
        "--right-col",
        help="Second record id column of --pairs \\[default: record_id_2, or the preset's].",
        show_default=False,
    ),
]
PresetOpt = Annotated[
    Literal["none", "splink"],
    typer.Option(
        "--preset",
        help="Column names of --pairs: splink reads unique_id_l, unique_id_r and "
        "match_probability.",
    ),
]
FloorOpt = Annotated[
    float | None,
    typer.Option(
        "--floor",
        help="expected-error: share of uniform sampling mixed into the record probabilities, "
        "so that every record keeps at least floor/N \\[default: 0.2].",
        show_default=False,
    ),
]


def record_probabilities(
    pred: Any,
    pairs: Path,
    *,
    preset: str,
    left_col: str | None,
    right_col: str | None,
    score_col: str | None,
    floor: float | None,
    record_col: Any,
    cluster_col: Any,
) -> Any:
    """Each record's expected-error draw probability (a Series by record id), from the
    command's pair options."""
    from ..estimators._error_weights import DEFAULT_FLOOR, expected_error_probabilities
    from ._curve import _columns

    score = score_col or ("match_probability" if preset == "splink" else None)
    left, right, chosen = _columns(pairs, preset, left_col, right_col, score)
    return expected_error_probabilities(
        pred,
        pairs,
        score_col=chosen,
        left_col=left,
        right_col=right,
        floor=DEFAULT_FLOOR if floor is None else floor,
        record_col=record_col,
        cluster_col=cluster_col,
    )


def check_pair_options(design: str, *, pairs: Any, floor: Any, **columns: Any) -> None:
    """The pair options belong to the expected-error design; it needs ``--pairs``."""
    given = [k for k, v in {"pairs": pairs, "floor": floor, **columns}.items() if v is not None]
    if design != "expected_error" and given:
        raise InputError(
            f"'--{given[0].replace('_', '-')}' is an option of --design expected-error; "
            f"design is '{design.replace('_', '-')}'"
        )
