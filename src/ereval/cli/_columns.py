"""The options that say how two clusterings are read: columns, id type, mismatches.

``--record-col`` / ``--cluster-col`` name the columns of both files; the
``--truth-*`` and ``--pred-*`` variants name one side's only. A comma-separated
list (``--record-col source_dataset,unique_id``) makes a key of several columns.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..io import AlignOptions, IdType, MismatchPolicy

__all__ = [
    "ClusterColOpt",
    "IdTypeOpt",
    "LinkOnlyOpt",
    "MismatchOpt",
    "PredClusterColOpt",
    "PredRecordColOpt",
    "RecordColOpt",
    "SourceColOpt",
    "TruthClusterColOpt",
    "TruthRecordColOpt",
    "align_options",
    "split_columns",
]

RecordColOpt = Annotated[
    str,
    typer.Option(
        "--record-col",
        help="Record id column of both files (several, comma-separated, make one key).",
    ),
]
ClusterColOpt = Annotated[
    str, typer.Option("--cluster-col", help="Cluster id column of both files.")
]


def _side(flag: str, what: str) -> Any:
    return Annotated[str | None, typer.Option(flag, help=what, show_default=False)]


TruthRecordColOpt = _side("--truth-record-col", "Record id column(s) of TRUTH only.")
TruthClusterColOpt = _side("--truth-cluster-col", "Cluster id column of TRUTH only.")
PredRecordColOpt = _side("--pred-record-col", "Record id column(s) of PRED only.")
PredClusterColOpt = _side("--pred-cluster-col", "Cluster id column of PRED only.")

MismatchOpt = Annotated[
    MismatchPolicy,
    typer.Option(
        "--on-mismatch",
        help="When the files cover different records: error; score the intersection; score "
        "twinless records as coreference scorers do; or singletons: each record of TRUTH "
        "missing from PRED is a predicted cluster of its own.",
    ),
]
IdTypeOpt = Annotated[
    IdType,
    typer.Option(
        "--id-type",
        help="exact: compare record ids as typed (integers in Parquet, text in CSV); "
        "string: compare integer ids as their decimal text.",
    ),
]


LinkOnlyOpt = Annotated[
    bool,
    typer.Option(
        "--link-only",
        help="Two-file linkage: count only pairs of records from different data sets "
        "(--source-col) in every pair-based number.",
    ),
]
SourceColOpt = Annotated[
    str | None,
    typer.Option(
        "--source-col",
        help="Column of TRUTH naming each record's data set (with --link-only).",
        show_default=False,
    ),
]


def split_columns(value: str | None) -> str | list[str] | None:
    """A column option's value: one name, or a list for a comma-separated key."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    return parts[0] if len(parts) == 1 else parts


def align_options(
    *,
    record_col: str,
    cluster_col: str,
    truth_record_col: str | None,
    truth_cluster_col: str | None,
    pred_record_col: str | None,
    pred_cluster_col: str | None,
    on_mismatch: MismatchPolicy,
    id_type: IdType,
    link_only: bool = False,
    source_col: str | None = None,
) -> AlignOptions:
    """The options of :func:`ereval.io.align` from a command's flags."""
    return AlignOptions(
        record_col=split_columns(record_col) or "record_id",
        cluster_col=split_columns(cluster_col) or "cluster_id",
        truth_record_col=split_columns(truth_record_col),
        truth_cluster_col=split_columns(truth_cluster_col),
        pred_record_col=split_columns(pred_record_col),
        pred_cluster_col=split_columns(pred_cluster_col),
        on_mismatch=on_mismatch,
        id_type=id_type,
        link_only=link_only,
        source_col=split_columns(source_col),
    )
