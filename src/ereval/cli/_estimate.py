"""``ereval estimate``: performance estimates from a weighted sample of labelled true clusters."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from .._errors import InputError
from .._validation import check_beta
from ..estimators import (
    OVERALL,
    ReviewerSensitivity,
    as_sample,
    estimate,
    estimate_by_group,
    estimate_differences,
    reviewer_sensitivity,
)
from ..estimators._intervals import DEFAULT_INTERVAL, IntervalMethod
from ..estimators._ratio import normal_quantile
from ..estimators._sql import prediction_for_sample
from ..io import read_table
from ..results import Estimate
from ._columns import (
    ClusterColOpt,
    PredClusterColOpt,
    PredRecordColOpt,
    RecordColOpt,
    split_columns,
)
from ._common import (
    FormatOpt,
    LevelOpt,
    MetricsOpt,
    QuietOpt,
    check_key_column,
    dumps_json,
    emit_records,
    examples,
    handle_errors,
)
from ._engine import (
    EngineOpt,
    MemoryLimitOpt,
    SparkConfOpt,
    SparkMasterOpt,
    TempDirOpt,
    ThreadsOpt,
    engine_from_options,
)
from ._progress import progress
from ._sample import (
    DesignChoice,
    FloorOpt,
    LeftColOpt,
    PairsOpt,
    PresetOpt,
    RightColOpt,
    ScoreColOpt,
    WeightKindOpt,
    WeightsOpt,
    check_pair_options,
    design_value,
    record_probabilities,
    weight_kind_value,
)
from ._warnings import capture_warnings, estimate_warnings, print_warnings

ESTIMATE_FIELDS = ("value", "std", "lower", "upper", "n")

IntervalOpt = Annotated[
    IntervalMethod,
    typer.Option(
        "--interval",
        help="Intervals: skew_beta (a beta interval with the design's effective sample size, "
        "widened on the long side of a skewed estimate, which holds its level near 0 and 1), "
        "wilson (the equal-tailed Wilson score interval with that sample size) or normal "
        "(estimate +- z std, clamped to the range).",
    ),
]

LeavingChoice = Literal["half", "full"]

RepeatsOpt = Annotated[
    int,
    typer.Option("--repeats", help="Seeded repeats of the reviewer-error simulation."),
]
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed of the reviewer-error simulation.", show_default=False),
]
RateOpt = Annotated[float | None, typer.Option(show_default=False)]
SHIFT_FIELDS = ("estimate", "perturbed", "shift_mean", "shift_std", "shift_lower", "shift_upper")


def sensitivity_rows(table: ReviewerSensitivity) -> list[dict[str, Any]]:
    """One row per estimator of a sensitivity table."""
    frame = table.to_frame()
    return [dict(zip(frame.columns, row, strict=True)) for row in frame.itertuples(index=False)]


SampleRecordColOpt = Annotated[
    str | None,
    typer.Option(
        "--sample-record-col",
        "--truth-record-col",
        help="Record id column(s) of the sample only.",
        show_default=False,
    ),
]
SampleClusterColOpt = Annotated[
    str | None,
    typer.Option(
        "--sample-cluster-col",
        "--truth-cluster-col",
        help="Cluster id column of the sample only.",
        show_default=False,
    ),
]


def weights_value(text: str | None) -> str | None:
    """Map the CLI spelling of a weights scheme to the API's (other text is a column name)."""
    if text is None:
        return None
    return {"cluster-size": "cluster_size", "uniform": "uniform"}.get(text, text)


def estimate_row(key: str, est: Estimate) -> dict[str, Any]:
    """One row of a table or CSV: the estimator key, value, std, interval ends and n."""
    return {"estimator": key, **{f: getattr(est, f) for f in ESTIMATE_FIELDS}}


def estimate_mapping(results: dict[str, Estimate]) -> dict[str, dict[str, Any]]:
    """``{key: Estimate.to_dict()}`` (NaN becomes null in JSON)."""
    return {k: e.to_dict() for k, e in results.items()}


@handle_errors
def estimate_command(
    pred: Annotated[
        Path,
        typer.Option("--pred", help="Predicted clustering of the whole population (CSV/Parquet)."),
    ],
    sample: Annotated[
        Path,
        typer.Option("--sample", help="Labelled true clusters (CSV/Parquet), one row per record."),
    ],
    design: Annotated[
        DesignChoice,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="How the sampled units were drawn: record, cluster, block, single-block, "
            "size-stratified, expected-error or predicted-cluster. size-stratified: records drawn within "
            "strata of their predicted cluster's size; the sample carries the columns "
            "stratum, stratum_records and record_draws (as written by ereval sample). "
            "expected-error: records drawn with probabilities from match probabilities "
            "(give --pairs, or a record_probability column). predicted-cluster: predicted "
            "clusters drawn and the entities inside each labelled (unit_id column; pairwise "
            "and B-cubed precision only).",
        ),
    ],
    weights: WeightsOpt = None,
    weight_kind: WeightKindOpt = "probability",
    blocks: Annotated[
        str | None,
        typer.Option(
            "--blocks",
            help="Column of the sample holding each block id (default: 'unit_id', if any).",
        ),
    ] = None,
    draws: Annotated[
        str | None,
        typer.Option(
            "--draws",
            help="Column of the sample holding each unit's number of draws (default: 'draws', "
            "if any).",
        ),
    ] = None,
    without_replacement: Annotated[
        bool,
        typer.Option("--without-replacement", help="Units were drawn without replacement."),
    ] = False,
    population_size: Annotated[
        int | None,
        typer.Option(
            "--population-size",
            help="Number of units in the population (finite-population correction; "
            "needs --without-replacement; records for --design record).",
        ),
    ] = None,
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
            help="Apply the finite-population correction to a sample drawn without "
            "replacement (default); --no-fpc forces it off.",
        ),
    ] = True,
    names: Annotated[
        str | None,
        typer.Option(
            "--names", help="Column of PRED with a name per record (homonymy, name variation)."
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option("--group", help="Column of the sample: estimate per subgroup of clusters."),
    ] = None,
    versus: Annotated[
        str | None,
        typer.Option(
            "--versus",
            help="With --group: report each group's estimate minus the overall estimate "
            "('overall') or minus that of the group named here, with the difference's "
            "interval (its covariance with the other estimate included).",
            show_default=False,
        ),
    ] = None,
    leaving: Annotated[
        LeavingChoice,
        typer.Option(
            "--leaving",
            help="With --group: a predicted link from a group's entity to a record outside it "
            "counts half (shared with the other entity, so groups add up to the whole) or "
            "full (Binette et al. 2024, Remark 3's wording) in precision and F.",
        ),
    ] = "half",
    metrics: MetricsOpt = None,
    beta: Annotated[
        float, typer.Option("--beta", help="Weight of recall in F-beta (adds *_fbeta keys).")
    ] = 1.0,
    level: LevelOpt = 0.95,
    interval: IntervalOpt = DEFAULT_INTERVAL,
    naive: Annotated[
        bool, typer.Option("--naive/--no-naive", help="Include the naive (benchmark-only) values.")
    ] = True,
    over_rate: Annotated[
        float | None,
        typer.Option(
            "--over-rate",
            help="Reviewer-error sensitivity: the assumed chance that a record reviewers put in "
            "a sampled cluster does not belong there (over-clustering). Reports each "
            "estimate's shift over --repeats perturbed samples instead of the estimates.",
            show_default=False,
        ),
    ] = None,
    under_rate: Annotated[
        float | None,
        typer.Option(
            "--under-rate",
            help="Reviewer-error sensitivity: the assumed chance that a record of a predicted "
            "cluster meeting a sampled cluster, left out of it, belongs (under-clustering).",
            show_default=False,
        ),
    ] = None,
    repeats: RepeatsOpt = 200,
    seed: SeedOpt = None,
    fmt: FormatOpt = "table",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    sample_record_col: SampleRecordColOpt = None,
    sample_cluster_col: SampleClusterColOpt = None,
    pred_record_col: PredRecordColOpt = None,
    pred_cluster_col: PredClusterColOpt = None,
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Estimate PRED's performance from a weighted sample of labelled true clusters.

    JSON output is one object keyed by estimator (the recommended form of each
    metric under its canonical name, other forms suffixed _cluster, _record,
    _naive), each with value, std, interval, level, n, method and warnings.
    Each warning is also printed on stderr, one line each.

    With --engine duckdb or spark, PRED is read where it is (a file, a glob or a
    folder of parts) and only the clusters the sample touches come back.
    """
    chosen = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        pred=pred,
    )
    check_beta(beta)
    normal_quantile(level)
    if group is None and versus is not None:
        raise InputError("'--versus' compares groups: give '--group' too")
    if group is None and leaving != "half":
        raise InputError("'--leaving' counts the links leaving a group: give '--group' too")
    sensitivity = over_rate is not None or under_rate is not None
    for flag, rate in (("--over-rate", over_rate), ("--under-rate", under_rate)):
        if rate is not None and not 0.0 <= rate <= 1.0:
            raise InputError(f"'{flag}' must lie in [0, 1]; received {rate}")
    if sensitivity:
        if group is not None:
            raise InputError("'--over-rate' and '--under-rate' do not combine with '--group'")
        if engine not in ("auto", "numpy"):
            raise InputError(
                f"'--engine' {engine}: the reviewer-error simulation (--over-rate, --under-rate) "
                "reads PRED in memory; use --engine numpy"
            )
    if repeats < 1:
        raise InputError(f"'--repeats' must be at least 1; received {repeats}")
    if seed is not None and seed < 0:
        raise InputError(f"'--seed' must be at least 0; received {seed}")
    key = split_columns(sample_record_col or record_col) or "record_id"
    pred_key = split_columns(pred_record_col or record_col) or "record_id"
    sample_cluster = sample_cluster_col or cluster_col
    pred_cluster = pred_cluster_col or cluster_col
    with progress("reading the sample and the prediction", quiet=quiet) as bar:
        key_cols = [key] if isinstance(key, str) else key
        pred_cols = [pred_key] if isinstance(pred_key, str) else pred_key
        if len(pred_cols) != len(key_cols):
            raise InputError(
                f"the record key of the sample has {len(key_cols)} column(s) ({', '.join(key_cols)}) "
                f"but that of PRED {len(pred_cols)} ({', '.join(pred_cols)}); give both sides "
                "keys of the same columns (--sample-record-col, --pred-record-col)"
            )
        chosen_design = design_value(design)
        check_pair_options(
            chosen_design,
            pairs=pairs,
            floor=floor,
            score_col=score_col,
            left_col=left_col,
            right_col=right_col,
            preset=None if preset == "none" else preset,
        )
        if pairs is not None and weights is not None:
            raise InputError(
                "give either '--pairs' (the draw probabilities are computed from them) or "
                "'--weights' (a column of the sample holding them), not both"
            )
        sample_frame = read_table(sample, name="sample", text_columns=(*key_cols, sample_cluster))
        pred_frame = None
        record_weights: Any = weights_value(weights)
        if pairs is not None:
            pred_frame = read_table(pred, name="pred", text_columns="all")
            record_weights = record_probabilities(
                pred_frame,
                pairs,
                preset=preset,
                left_col=left_col,
                right_col=right_col,
                score_col=score_col,
                floor=floor,
                record_col=pred_key,
                cluster_col=pred_cluster,
            )
        s = as_sample(
            sample_frame,
            design=chosen_design,
            weights=record_weights,
            weight_kind=weight_kind_value(weight_kind),
            blocks=blocks,
            draws=draws,
            replace=not without_replacement,
            population_size=population_size,
            record_col=key,
            cluster_col=sample_cluster,
        )
        if sensitivity:
            bar.update(description="simulating reviewer errors")
            full = (
                read_table(pred, name="pred", text_columns="all")
                if pred_frame is None
                else pred_frame
            )
            table, caught = capture_warnings(
                lambda: reviewer_sensitivity(
                    full,
                    s,
                    over=over_rate or 0.0,
                    under=under_rate or 0.0,
                    repeats=repeats,
                    seed=seed,
                    metrics=metrics,
                    beta=beta,
                    level=level,
                    names=names,
                    record_col=pred_key,
                    cluster_col=pred_cluster,
                )
            )
    if sensitivity:
        print_warnings(caught)
        if fmt == "json":
            sys.stdout.write(dumps_json(table.to_dict()) + "\n")
        else:
            shift_rows = sensitivity_rows(table)
            title = (
                f"{pred.name}: shifts under reviewer errors (over {table.over:g}, under "
                f"{table.under:g}; {table.repeats} repeats, central {table.level:g} range)"
            )
            emit_records(shift_rows, ["estimator", *SHIFT_FIELDS], fmt, title=title)
        return
    with progress("reading the prediction", quiet=quiet) as bar:
        prepared = prediction_for_sample(
            str(pred),
            s.records,
            names=names,
            record_col=pred_key,
            cluster_col=pred_cluster,
            engine=chosen,
            progress=lambda phase: bar.update(description=phase),
            read=pred_frame,
        )
        bar.update(description="estimating")
        if group is not None and versus is not None:
            groups = _groups(sample_frame, group, sample_cluster)
            baseline = _baseline(versus, groups)
            by_group, caught = capture_warnings(
                lambda: estimate_differences(
                    prepared,
                    s,
                    groups,
                    baseline=baseline,
                    metrics=metrics,
                    beta=beta,
                    level=level,
                    interval=interval,
                    leaving=leaving,
                )
            )
        elif group is not None:
            groups = _groups(sample_frame, group, sample_cluster)
            by_group, caught = capture_warnings(
                lambda: estimate_by_group(
                    prepared,
                    s,
                    groups,
                    metrics=metrics,
                    beta=beta,
                    level=level,
                    interval=interval,
                    leaving=leaving,
                    naive=naive,
                )
            )
        else:
            results, caught = capture_warnings(
                lambda: estimate(
                    prepared,
                    s,
                    metrics=metrics,
                    beta=beta,
                    level=level,
                    interval=interval,
                    fpc=fpc,
                    naive=naive,
                )
            )
    if group is not None:
        carried = {w for r in by_group.values() for e in r.values() for w in e.warnings}
        print_warnings(
            [
                *(w for w in caught if w not in carried),
                *(
                    w
                    for g, r in by_group.items()
                    for w in estimate_warnings(r, prefix=f"group {g!r}: ")
                ),
            ]
        )
        if fmt == "json":
            sys.stdout.write(
                dumps_json({str(g): estimate_mapping(r) for g, r in by_group.items()}) + "\n"
            )
        else:
            rows: list[Mapping[str, Any]] = [
                {"group": g, **estimate_row(k, e)}
                for g, r in by_group.items()
                for k, e in r.items()
            ]
            what = "estimates" if versus is None else f"differences to {versus}"
            emit_records(
                rows, ["group", "estimator", *ESTIMATE_FIELDS], fmt, title=f"{what} by {group}"
            )
        return
    print_warnings(estimate_warnings(results, caught=caught))
    if fmt == "json":
        sys.stdout.write(dumps_json(estimate_mapping(results)) + "\n")
    else:
        flat: list[Mapping[str, Any]] = [estimate_row(k, e) for k, e in results.items()]
        title = f"{pred.name}: estimates from {s.n_draws} draws ({s.design}, {s.weights})"
        emit_records(flat, ["estimator", *ESTIMATE_FIELDS], fmt, title=title)


def _baseline(versus: str, groups: Mapping[Any, Any]) -> Any:
    """The group label ``--versus`` names (compared as text), or ``"overall"``."""
    if versus == OVERALL:
        return OVERALL
    labels = list(dict.fromkeys(groups.values()))
    for label in labels:
        if str(label) == versus:
            return label
    shown = ", ".join(str(g) for g in labels[:5])
    raise InputError(
        f"'--versus' must be 'overall' or a group of '--group' ({shown}"
        f"{', ...' if len(labels) > 5 else ''}); received {versus!r}"
    )


def _groups(frame: Any, column: str, cluster_col: str) -> dict[Any, Any]:
    """Cluster id -> group label from a column of the sample (checked constant per cluster)."""
    check_key_column(frame, column, cluster_col, option="--group", source="the sample")
    per = frame.groupby(cluster_col, sort=False)[column]
    counts = per.nunique()
    if (counts > 1).any():
        bad = counts.index[counts.to_numpy() > 1][0]
        raise InputError(
            f"'--group' must be constant within each cluster; cluster {bad!r} has several groups"
        )
    return dict(per.first().items())


def register(app: typer.Typer) -> None:
    """Add ``estimate`` to the application."""
    app.command(
        "estimate",
        epilog=examples(
            "ereval estimate --pred pred.csv --sample sample.csv --design record",
            "ereval estimate --pred pred.csv --sample sample.csv --design cluster \\",
            "    --weights uniform -m pairwise_f1,b3_f1 -f json",
            "ereval estimate --pred pred.csv --sample sample.csv --design record \\",
            "    --group region --versus overall",
            "ereval estimate --pred pred.csv --sample sample.csv --design record \\",
            "    --over-rate 0.05 --under-rate 0.05 --seed 1",
        ),
    )(estimate_command)
