"""``ereval oasis``: estimate F-measure, precision and recall by OASIS sampling."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from ._common import OutputFormat, dumps_json, emit_records, handle_errors

oasis_app = typer.Typer(
    help="Estimate pairwise F-measure, precision and recall from a few labels (OASIS).",
    no_args_is_help=True,
)

_MEASURES = ("f_measure", "precision", "recall")

PoolArg = Annotated[
    Path, typer.Argument(help="Pool of scored pairs: CSV (optionally .gz) or Parquet.")
]
LabelCol = Annotated[
    str, typer.Option("--label-col", help="Column of true 0/1 labels (answers as the oracle).")
]
PairIdCol = Annotated[str, typer.Option("--pair-id-col", help="Column of pair identifiers.")]
ScoreCol = Annotated[str, typer.Option("--score-col", help="Column of similarity scores.")]
PredictionCol = Annotated[str, typer.Option("--prediction-col", help="Column of 0/1 predictions.")]
ProbabilityCol = Annotated[
    str | None,
    typer.Option(
        "--probability-col",
        help="Column of calibrated match probabilities (default: 'probability' when present).",
    ),
]
Threshold = Annotated[
    float | None,
    typer.Option(
        "--threshold", help="Decision threshold of real-valued scores (default: inferred)."
    ),
]
Alpha = Annotated[
    float, typer.Option("--alpha", help="F-measure weight: 1 precision, 0 recall, 0.5 F1.")
]
Strata = Annotated[
    int | None,
    typer.Option("--strata", help="Number of strata aimed at (default 30 up to 200,000 pairs)."),
]
StrataMethod = Annotated[str, typer.Option("--strata-method", help="csf or equal_size.")]
Epsilon = Annotated[float, typer.Option("--epsilon", help="Greediness of OASIS and IS, in (0, 1].")]
Seed = Annotated[int | None, typer.Option("--seed", help="Random seed.")]
Noise = Annotated[
    float, typer.Option("--noise", help="Probability that the oracle flips a label (simulation).")
]
Format = Annotated[str, typer.Option("--format", help="table, json or csv.")]


def _read(
    pool: Path,
    *,
    pair_id_col: str,
    score_col: str,
    prediction_col: str,
    label_col: str,
    probability_col: str | None,
    threshold: float | None,
) -> Any:
    from ..oasis import read_pool

    return read_pool(
        pool,
        pair_id_col=pair_id_col,
        score_col=score_col,
        prediction_col=prediction_col,
        label_col=label_col,
        require_label=True,
        probability_col=probability_col if probability_col is not None else "probability",
        require_probability=probability_col is not None,
        threshold=threshold,
    )


def _format(value: str) -> OutputFormat:
    from .._validation import check_choice

    return check_choice("format", value, ("table", "json", "csv"))


def _oracle(pool: Any, noise: float, seed: int | None) -> Any:
    from ..oasis import LabelOracle, NoisyOracle

    if noise == 0:
        return LabelOracle(pool)
    return NoisyOracle(pool, flip_probability=noise, seed=None if seed is None else seed + 1)


@oasis_app.command("estimate")
@handle_errors
def estimate(
    pool: PoolArg,
    label_col: LabelCol = "label",
    budget: Annotated[
        int | None, typer.Option("--budget", help="Distinct labels to spend.")
    ] = None,
    target_ci_width: Annotated[
        float | None,
        typer.Option("--target-ci-width", help="Stop when the interval is this narrow."),
    ] = None,
    alpha: Alpha = 0.5,
    strata: Strata = None,
    strata_method: StrataMethod = "csf",
    method: Annotated[
        str, typer.Option("--method", help="oasis, passive, stratified or importance.")
    ] = "oasis",
    epsilon: Epsilon = 1e-3,
    prior_strength: Annotated[
        float | None,
        typer.Option("--prior-strength", help="OASIS prior pseudo-labels in total (default 2K)."),
    ] = None,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    seed: Seed = None,
    noise: Noise = 0.0,
    pair_id_col: PairIdCol = "pair_id",
    score_col: ScoreCol = "score",
    prediction_col: PredictionCol = "prediction",
    probability_col: ProbabilityCol = None,
    threshold: Threshold = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Save the sampler state here (.npz).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a saved sampler state.")
    ] = None,
    fmt: Format = "table",
) -> None:
    """Estimate F-alpha, precision and recall of the pool's predictions by sampling labels."""
    from .._validation import check_choice
    from ..oasis import Method, load_sampler, make_sampler

    out_fmt = _format(fmt)
    p = _read(
        pool,
        pair_id_col=pair_id_col,
        score_col=score_col,
        prediction_col=prediction_col,
        label_col=label_col,
        probability_col=probability_col,
        threshold=threshold,
    )
    if budget is None and target_ci_width is None:
        raise InputError("give --budget, --target-ci-width or both")
    if save is not None and not save.parent.exists():
        raise InputError(f"output directory '{save.parent}' does not exist")
    if resume is not None:
        sampler = load_sampler(resume, p)
    else:
        name: Method = check_choice(
            "method", method, ("oasis", "passive", "stratified", "importance")
        )
        options: dict[str, Any] = {"alpha": alpha, "seed": seed}
        if name in ("oasis", "stratified"):
            options["n_strata"] = strata
            options["strata_method"] = check_choice(
                "strata-method", strata_method, ("csf", "equal_size")
            )
        if name in ("oasis", "importance"):
            options["epsilon"] = epsilon
        if name == "oasis":
            options["prior_strength"] = prior_strength
        sampler = make_sampler(name, p, **options)
    est = sampler.run(
        _oracle(p, noise, seed),
        budget=budget,
        target_ci_width=target_ci_width,
        confidence=confidence,
    )
    if save is not None:
        sampler.save(save)
    result = est.to_dict()
    result.update(
        n_pairs=p.size,
        n_strata=sampler.strata.n_strata,
        stop_reason=sampler.stop_reason,
    )
    if out_fmt == "json":
        sys.stdout.write(dumps_json(result) + "\n")
        return
    rows: list[Mapping[str, Any]] = [{"measure": m, **result[m]} for m in _MEASURES]
    emit_records(
        rows,
        ["measure", "estimate", "std", "ci_low", "ci_high"],
        out_fmt,
        title=(
            f"{est.method}: {est.labels_used} labels, {est.iterations} draws, "
            f"alpha = {est.alpha:g}, {est.confidence:.0%} intervals, stopped by {sampler.stop_reason}"
        ),
    )


@oasis_app.command("experiment")
@handle_errors
def experiment(
    pool: PoolArg,
    label_col: LabelCol = "label",
    methods: Annotated[str, typer.Option("--methods", help="Comma-separated methods.")] = (
        "oasis,passive,stratified,importance"
    ),
    budgets: Annotated[
        str, typer.Option("--budgets", help="Comma-separated label budgets.")
    ] = "500,1000,2000,5000",
    repeats: Annotated[int, typer.Option("--repeats", help="Runs per method.")] = 100,
    alpha: Alpha = 0.5,
    strata: Strata = None,
    strata_method: StrataMethod = "csf",
    epsilon: Epsilon = 1e-3,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    noise: Noise = 0.0,
    pair_id_col: PairIdCol = "pair_id",
    score_col: ScoreCol = "score",
    prediction_col: PredictionCol = "prediction",
    probability_col: ProbabilityCol = None,
    threshold: Threshold = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write the error-vs-budget figure here.")
    ] = None,
    fmt: Format = "table",
) -> None:
    """Repeat each method and report mean absolute error and std of F-alpha against the budget."""
    from .._validation import check_choice
    from ..oasis import plot_experiment, run_experiment

    out_fmt = _format(fmt)
    p = _read(
        pool,
        pair_id_col=pair_id_col,
        score_col=score_col,
        prediction_col=prediction_col,
        label_col=label_col,
        probability_col=probability_col,
        threshold=threshold,
    )
    budget_list: list[int] = []
    for item in budgets.split(","):
        try:
            budget_list.append(int(item))
        except ValueError:
            raise InputError(
                f"'budgets' must be comma-separated integers; received {item!r}"
            ) from None
    if plot is not None and not plot.parent.exists():
        raise InputError(f"output directory '{plot.parent}' does not exist")
    method_list = [m.strip() for m in methods.split(",") if m.strip()]
    res = run_experiment(
        p,
        methods=method_list,  # type: ignore[arg-type]  # validated inside
        budgets=budget_list,
        repeats=repeats,
        alpha=alpha,
        seed=seed,
        n_strata=strata,
        strata_method=check_choice("strata-method", strata_method, ("csf", "equal_size")),
        epsilon=epsilon,
        flip_probability=noise,
    )
    if plot is not None:
        plot_experiment(res, path=plot)
    columns = [
        "method",
        "budget",
        "mae",
        "std",
        "bias",
        "rmse",
        "coverage",
        "mean_std_estimate",
        "defined",
        "mean_iterations",
        "true_value",
    ]
    records: list[Mapping[str, Any]] = list(res.to_records())
    emit_records(
        records,
        columns,
        out_fmt,
        title=f"{res.repeats} runs per method; true F(alpha = {res.alpha:g}) = {res.true_value:.6g}",
    )


def register(app: typer.Typer) -> None:
    """Add the ``oasis`` command group to ``app``."""
    app.add_typer(oasis_app, name="oasis")
