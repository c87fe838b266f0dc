"""``ereval label reviewer-errors``: the reviewers' error rate and what it does to the estimates."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from ._common import (
    FormatOpt,
    LevelOpt,
    MetricsOpt,
    dumps_json,
    emit_records,
    handle_errors,
)
from ._estimate import RepeatsOpt, SeedOpt, sensitivity_rows

RATE_FIELDS = ("value", "lower", "upper", "n")


@handle_errors
def reviewer_errors_command(
    db: Annotated[Path, typer.Option("--db", help="The label store (SQLite file).")],
    session: Annotated[str | None, typer.Option("--session", help="Session name.")] = None,
    metrics: MetricsOpt = None,
    level: LevelOpt = 0.95,
    repeats: RepeatsOpt = 200,
    seed: SeedOpt = None,
    fmt: FormatOpt = "table",
) -> None:
    """Estimate a cluster review's reviewer error rate from its double-reviewed items, and
    the shift of every estimate at that rate and at its interval's upper end.

    A decision is whether a candidate record (of the drawn record's predicted
    cluster, or added by a reviewer) belongs with the drawn record. Two reviewers
    who each err with probability eps disagree with probability 2 eps (1 - eps);
    over and under are the chances that a "belongs" / "does not belong" label is
    wrong. The estimates are recomputed on the session's benchmark perturbed at
    those rates (--repeats seeded repeats). CSV output holds the two shift tables
    (column rates: estimated, upper); JSON holds the rates with their intervals too.
    """
    from ..estimators._ratio import normal_quantile
    from ._label import _only_session, _open

    normal_quantile(level)
    if repeats < 1:
        raise InputError(f"'--repeats' must be at least 1; received {repeats}")
    if seed is not None and seed < 0:
        raise InputError(f"'--seed' must be at least 0; received {seed}")
    from ..labels import reviewer_error_study

    with _open(db, readonly=True) as store:
        name = _only_session(store, session)
        study = reviewer_error_study(
            store, name, level=level, repeats=repeats, seed=seed, metrics=metrics
        )
    if fmt == "json":
        sys.stdout.write(dumps_json({"session": name, **study.to_dict()}) + "\n")
        return
    if fmt == "csv":
        both = [
            {"rates": label, "over": t.over, "under": t.under, **row}
            for label, t in (("estimated", study.at_estimate), ("upper", study.at_upper))
            for row in sensitivity_rows(t)
        ]
        emit_records(both, list(both[0]), fmt)
        return
    rate = study.rate
    rows: list[Mapping[str, Any]] = [
        {"rate": k, **{f: getattr(e, f) for f in RATE_FIELDS}} for k, e in rate.rows().items()
    ]
    emit_records(
        rows,
        ["rate", *RATE_FIELDS],
        fmt,
        title=f"{name}: reviewer error rates from {rate.items} double-reviewed items "
        f"({rate.decisions} decisions)",
    )
    for label, table in (("estimated", study.at_estimate), ("upper", study.at_upper)):
        emit_records(
            sensitivity_rows(table),
            list(sensitivity_rows(table)[0]),
            fmt,
            title=f"shifts at the {label} rates (over {table.over:.3g}, under {table.under:.3g})",
        )
