"""``ereval label``: label stores, sessions, export/import and terminal pair labelling."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from .._errors import InputError
from ._common import (
    App,
    FormatOpt,
    LevelOpt,
    QuietOpt,
    dumps_json,
    emit_mapping,
    emit_records,
    examples,
    format_number,
    handle_errors,
    note,
    print_table,
    warn,
)
from ._label_errors import reviewer_errors_command
from ._sample import AllocationChoice, FloorOpt, StrataOpt, design_value

label_app = App(
    name="label",
    help="Label stores: cluster review, pair labelling (OASIS) and ranked items (PAULA).",
    no_args_is_help=True,
)

DbOpt = Annotated[Path, typer.Option("--db", help="The label store (SQLite file).")]
SessionOpt = Annotated[str, typer.Option("--session", help="Session name.")]
KindChoice = Literal["cluster", "pairs", "items"]
ExportChoice = Literal["benchmark", "spreadsheet", "pairs", "splink", "paula"]


def _open(db: Path, *, readonly: bool = False) -> Any:
    """The store at ``db``; commands that only read open it read-only (nothing written)."""
    from ..labels import LabelStore

    return LabelStore(db, readonly=readonly)


def _only_session(store: Any, session: str | None) -> str:
    if session is not None:
        store.session(session)
        return session
    names = [s.name for s in store.sessions()]
    if len(names) != 1:
        raise InputError(
            f"'session' is needed: label store '{store.path}' has {len(names)} sessions "
            f"({', '.join(names) or 'none'})"
        )
    return str(names[0])


# --------------------------------------------------------------------------- init
@handle_errors
def init_command(
    db: DbOpt,
    kind: Annotated[KindChoice, typer.Option("--kind", help="Kind of session.")] = "cluster",
    session: Annotated[str, typer.Option("--session", help="Session name.")] = "main",
    data: Annotated[
        Path | None,
        typer.Option(
            "--data", help="Records with attributes (cluster, pairs; items: both records shown)."
        ),
    ] = None,
    id_col: Annotated[
        str, typer.Option("--id-col", help="Record id column of --data.")
    ] = "record_id",
    prediction: Annotated[
        Path | None, typer.Option("--pred", help="Predicted clustering (cluster review).")
    ] = None,
    record_col: Annotated[
        str, typer.Option("--record-col", help="Record id column of --pred.")
    ] = "record_id",
    cluster_col: Annotated[
        str, typer.Option("--cluster-col", help="Cluster id column of --pred.")
    ] = "cluster_id",
    n: Annotated[int, typer.Option("--n", help="Records to draw (cluster review).")] = 100,
    design: Annotated[
        Literal["record", "size-stratified", "expected-error"],
        typer.Option(
            "--design",
            help="Sampling design (cluster review): record (uniform, or by --weights-col), "
            "size-stratified (uniform within strata of the predicted cluster sizes) or "
            "expected-error (by the errors the match probabilities of --pairs expect), "
            "drawn as ereval sample draws them.",
        ),
    ] = "record",
    strata: StrataOpt = None,
    allocation: Annotated[
        AllocationChoice | None,
        typer.Option(
            "--allocation",
            help="size-stratified: draws per stratum, neyman (from the prediction alone, each "
            "stratum keeping 90% of its proportional share) or proportional \\[default: neyman].",
            show_default=False,
        ),
    ] = None,
    floor: FloorOpt = None,
    weights_col: Annotated[
        str | None, typer.Option("--weights-col", help="Column of record drawing weights.")
    ] = None,
    without_replacement: Annotated[
        bool, typer.Option("--without-replacement", help="Draw distinct records.")
    ] = False,
    block_col: Annotated[
        str | None, typer.Option("--block-col", help="Blocking column (quality checks).")
    ] = None,
    search_columns: Annotated[
        list[str] | None, typer.Option("--search-col", help="Column to search (repeatable).")
    ] = None,
    show_columns: Annotated[
        list[str] | None,
        typer.Option(
            "--show-col",
            help="Column to show reviewers (repeatable; default: all but the hidden ones).",
        ),
    ] = None,
    hide_columns: Annotated[
        list[str] | None,
        typer.Option(
            "--hide-col",
            help="Column to hide from reviewers (repeatable), besides those that give the "
            "answer away (entity or cluster ids, labels, scores, predictions).",
        ),
    ] = None,
    pairs: Annotated[
        Path | None,
        typer.Option(
            "--pairs",
            help="Scored pairs (pair labelling; cluster review with --design expected-error).",
        ),
    ] = None,
    pair_id_col: Annotated[
        str, typer.Option("--pair-col", help="Pair id column of --pairs.")
    ] = "pair_id",
    left_col: Annotated[
        str,
        typer.Option(
            "--left-col", help="First record id of a pair (of --pairs, or of --ranked with --data)."
        ),
    ] = "record_id_1",
    right_col: Annotated[
        str,
        typer.Option(
            "--right-col",
            help="Second record id of a pair (of --pairs, or of --ranked with --data).",
        ),
    ] = "record_id_2",
    score_col: Annotated[
        str, typer.Option("--score-col", help="Score column of --pairs.")
    ] = "score",
    prediction_col: Annotated[
        str, typer.Option("--prediction-col", help="0/1 prediction column of --pairs.")
    ] = "prediction",
    method: Annotated[
        Literal["oasis", "passive", "stratified", "importance"],
        typer.Option("--method", help="Pair sampler."),
    ] = "oasis",
    alpha: Annotated[float, typer.Option("--alpha", help="F-measure weight.")] = 0.5,
    budget: Annotated[int | None, typer.Option("--budget", help="Pair labels to spend.")] = None,
    target_ci_width: Annotated[
        float | None,
        typer.Option("--target-ci-width", help="Stop when the interval is this narrow."),
    ] = None,
    level: LevelOpt = 0.95,
    ranked: Annotated[Path | None, typer.Option("--ranked", help="Ranked list (items).")] = None,
    item_col: Annotated[
        str, typer.Option("--item-col", help="Item id column of --ranked.")
    ] = "pair_id",
    epsilon: Annotated[float, typer.Option("--epsilon", help="PAULA spacing epsilon.")] = 0.03,
    delta: Annotated[int, typer.Option("--delta", help="PAULA window Delta.")] = 100,
    reveal: Annotated[
        bool, typer.Option("--reveal", help="Show scores and predictions after each decision.")
    ] = False,
    not_blind: Annotated[
        bool, typer.Option("--not-blind", help="Show scores and predictions before deciding.")
    ] = False,
    overlap: Annotated[
        float, typer.Option("--overlap", help="Fraction of items given to two reviewers.")
    ] = 0.0,
    seed: Annotated[int | None, typer.Option("--seed", help="Random seed.")] = None,
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Create a label store (if needed) and a labelling session in it."""
    from .. import labels

    need = {"cluster": ("data", "pred"), "pairs": ("data", "pairs"), "items": ("ranked",)}
    given = {"data": data, "pred": prediction, "pairs": pairs, "ranked": ranked}
    for name in need[kind]:
        if given[name] is None:
            raise InputError(f"'--{name}' is needed for --kind {kind}")
    for name, path in given.items():
        if path is not None and not path.is_file():
            raise InputError(f"'--{name}': file '{path}' does not exist")
    if not 0.0 <= overlap <= 1.0:
        raise InputError(f"'--overlap' must lie in [0, 1]; received {overlap}")
    if n < 1:
        raise InputError(f"'--n' must be at least 1; received {n}")
    if budget is not None and budget < 1:
        raise InputError(f"'--budget' must be at least 1; received {budget}")
    created = not db.exists()
    if db.exists():
        store = labels.LabelStore(db)
        if session in {s.name for s in store.sessions()}:
            old = store.session(session)
            if (
                old.kind == "cluster"
                and kind == "cluster"
                and old.config.get("design") != design_value(design)
            ):
                raise InputError(
                    f"'--design' {design!r}: session '{session}' of '{db}' was created with "
                    f"design {old.config.get('design')!r}"
                )
            raise InputError(f"'--session': '{session}' already exists in '{db}'")
    else:
        if not db.parent.is_dir():
            raise InputError(f"'--db': folder '{db.parent}' does not exist")
        store = labels.LabelStore(db, create=True)
    blind = not not_blind
    try:
        if kind == "cluster":
            obj: Any = labels.create_cluster_review(
                store,
                session,
                data=str(data),
                prediction=str(prediction),
                n=n,
                id_col=id_col,
                record_col=record_col,
                cluster_col=cluster_col,
                design=design_value(design),
                weights_col=weights_col,
                strata=strata,
                allocation=allocation,
                pairs=None if pairs is None else str(pairs),
                score_col=score_col,
                left_col=left_col,
                right_col=right_col,
                floor=floor,
                replace=not without_replacement,
                block_col=block_col,
                search_columns=search_columns or (),
                show_columns=show_columns or (),
                hide_columns=hide_columns or (),
                blind=blind,
                reveal=reveal,
                overlap=overlap,
                seed=seed,
            )
        elif kind == "pairs":
            obj = labels.create_pair_labelling(
                store,
                session,
                data=str(data),
                pairs=str(pairs),
                id_col=id_col,
                pair_id_col=pair_id_col,
                left_col=left_col,
                right_col=right_col,
                score_col=score_col,
                prediction_col=prediction_col,
                method=method,
                alpha=alpha,
                budget=budget,
                target_ci_width=target_ci_width,
                level=level,
                show_columns=show_columns or (),
                hide_columns=hide_columns or (),
                blind=blind,
                reveal=reveal,
                overlap=overlap,
                seed=seed,
            )
        else:
            obj = labels.create_item_labelling(
                store,
                session,
                ranked=str(ranked),
                item_col=item_col,
                epsilon=epsilon,
                delta=delta,
                overlap=overlap,
                seed=0 if seed is None else seed,
                data=None if data is None else str(data),
                id_col=id_col,
                left_col=left_col,
                right_col=right_col,
                show_columns=show_columns or (),
                hide_columns=hide_columns or (),
            )
        info = store.session(session)
        out = {
            "db": str(db),
            "session": session,
            "kind": kind,
            "items": len(store.items(session)),
            "seed": info.config.get("seed"),
        }
    except BaseException:
        store.close()
        if created:  # a store this command created holds nothing: leave no file behind
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        raise
    store.close()
    _ = obj
    emit_mapping(out, fmt, key_header="field")


# ------------------------------------------------------------------------- status
def _session_status(store: Any, name: str) -> dict[str, Any]:
    from ..labels import open_session, session_agreement

    obj = open_session(store, name)
    info = store.session(name)
    progress = obj.progress()
    counts: dict[str, int] = {}
    for item_labels in store.labels(name).values():
        for who in item_labels:
            counts[who] = counts.get(who, 0) + 1
    agreement = session_agreement(store, name).to_dict()
    return {
        "session": name,
        "kind": info.kind,
        "items": len(store.items(name)),
        "progress": progress,
        "reviewers": counts,
        "agreement": agreement,
        "events": len(store.events(name)),
    }


@handle_errors
def status_command(
    db: DbOpt,
    session: Annotated[
        str | None, typer.Option("--session", help="One session (default: all).")
    ] = None,
    fmt: FormatOpt = "table",
) -> None:
    """Counts per session and reviewer, progress, queues and agreement (the store is only read)."""
    with _open(db, readonly=True) as store:
        names = [session] if session is not None else [s.name for s in store.sessions()]
        for name in names:
            store.session(name)
        statuses = [_session_status(store, n) for n in names]
        server = store.server()
    if fmt == "json":
        sys.stdout.write(dumps_json({"sessions": statuses, "server": server}) + "\n")
        return
    rows: list[Mapping[str, Any]] = []
    for s in statuses:
        p, a = s["progress"], s["agreement"]
        rows.append(
            {
                "session": s["session"],
                "kind": s["kind"],
                "items": s["items"],
                "resolved": p.get("resolved"),
                "pending": p.get("pending"),
                "queue": p.get("queue"),
                "reviewers": ", ".join(f"{k}:{v}" for k, v in s["reviewers"].items()),
                "double_reviewed": a["units"],
                "cohen_kappa": a["cohen_kappa"],
                "krippendorff_alpha": a["krippendorff_alpha"],
                "done": p.get("done"),
            }
        )
    emit_records(rows, list(rows[0]) if rows else ["session"], fmt, title=str(db))


# ------------------------------------------------------------------------- export
@handle_errors
def export_command(
    db: DbOpt,
    kind: Annotated[ExportChoice, typer.Option("--kind", help="Export format.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="File to write (CSV or Parquet).")],
    session: Annotated[str | None, typer.Option("--session", help="Session name.")] = None,
    design: Annotated[
        str | None, typer.Option("--design", help="Check the session's design (benchmark).")
    ] = None,
    source_col: Annotated[
        str | None, typer.Option("--source-col", help="Source data set column (splink).")
    ] = None,
    reviewer: Annotated[
        str | None,
        typer.Option(
            "--reviewer",
            help="Benchmark: the sample as this reviewer labelled it (their own labels, not "
            "the resolved ones), to compare reviewers' estimates.",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Export resolved labels: a benchmark for estimate, pairs for oasis or Splink, paula labels,
    or the add/remove spreadsheet."""
    from ..labels import export_labels
    from ..labels._exports import estimate_flags
    from ._output import Outputs, check_table_path, write_table

    check_table_path(out, flag="--out")
    if reviewer is not None and kind != "benchmark":
        raise InputError(f"'--reviewer' selects one reviewer's benchmark; received --kind {kind}")
    with _open(db, readonly=True) as store:
        name = _only_session(store, session)
        exported = export_labels(
            store,
            name,
            kind=kind,
            design=design_value(design),
            source_col=source_col,
            reviewer=reviewer,
        )
        config = store.session(name).config
        pool = config.get("pairs")
    for message in exported.warnings:
        warn(message)
    with Outputs() as outputs:
        outputs.add(out, lambda p: write_table(exported.frame, p))
    summary: dict[str, Any] = {
        "session": name,
        "kind": kind,
        "rows": len(exported.frame),
        "out": str(out),
    }
    if exported.design is not None:
        flags = estimate_flags(config)
        summary["design"] = flags[1]
        if not quiet:
            note(f"read it with: ereval estimate --pred PRED --sample {out} {' '.join(flags)}")
    if kind == "pairs" and not quiet:
        note(f"estimate from it with: ereval oasis estimate {pool} --labels {out}")
    emit_mapping(summary, fmt, key_header="field")


# ------------------------------------------------------------------------- import
@handle_errors
def import_command(
    db: DbOpt,
    file: Annotated[Path, typer.Argument(help="The labels to import (CSV or Parquet).")],
    kind: Annotated[ExportChoice, typer.Option("--kind", help="Format of FILE.")],
    session: Annotated[str | None, typer.Option("--session", help="Session name.")] = None,
    reviewer: Annotated[
        str, typer.Option("--reviewer", help="Record the labels as this reviewer.")
    ] = "import",
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Import labels into a session (all or none, each noted with the file it came from)."""
    from ..labels import import_labels

    if not file.is_file():
        raise InputError(f"'FILE': '{file}' does not exist")
    with _open(db) as store:
        name = _only_session(store, session)
        count = import_labels(store, name, file, kind=kind, reviewer=reviewer)
    emit_mapping(
        {"session": name, "kind": kind, "imported": count, "source": file.name},
        fmt,
        key_header="field",
    )


# -------------------------------------------------------------------------- pairs
_KEYS = {"m": "match", "n": "non-match", "u": "unsure"}
#: Every key the terminal labeller accepts: an answer, undo, redo or quit.
_COMMANDS = (*_KEYS, "z", "y", "q")


def read_key(line: str) -> str | None:
    """The key typed on ``line``: exactly one of the accepted keys (any case), else ``None``.

    Examples
    --------
    >>> read_key("m\\n"), read_key(" N "), read_key("mm"), read_key("maybe"), read_key("yes")
    ('m', 'n', None, None, None)
    """
    key = line.strip().lower()
    return key if key in _COMMANDS else None


def _show_pair(task: Any, progress: dict[str, Any]) -> None:
    table = Table(title=f"pair {task.pair_id}", show_header=True, header_style="bold")
    table.add_column("")
    table.add_column("left")
    table.add_column("right")
    for col in task.left:
        mark = "*" if col in task.differs else ""
        table.add_row(
            f"{mark}{col}", format_number(task.left[col]), format_number(task.right.get(col))
        )
    print_table(table)
    est = progress.get("estimate")
    line = f"labels: {progress['labels_used']}"
    if progress.get("budget"):
        line += f" of {progress['budget']}"
    if est is not None:
        f = est["f_measure"]
        lo, hi = f["interval"]
        line += f"   F = {f['value']:.3f} [{lo:.3f}, {hi:.3f}]"
    typer.echo(line)
    if est is not None:
        for measure in ("f_measure", "precision", "recall"):
            for message in est[measure].get("warnings", ()):
                warn(message)
    typer.echo("[m] match  [n] non-match  [u] unsure  [z] undo  [y] redo  [q] quit")


@handle_errors
def pairs_command(
    db: DbOpt,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Your name (labels are yours).")],
    session: Annotated[str | None, typer.Option("--session", help="Session name.")] = None,
    fmt: FormatOpt = "table",
) -> None:
    """Label pairs at the terminal: the two records side by side, keys m/n/u, z undo, y redo, q quit.

    Each answer is exactly one key and Enter; anything else is asked again.
    """
    from ..labels import PairLabelling, StaleAnswer, check_reviewer

    reviewer = check_reviewer(reviewer)
    with _open(db) as store:
        name = _only_session(store, session)
        labelling = PairLabelling(store, name)
        given = 0
        while True:
            task = labelling.next(reviewer=reviewer)
            if task is None:
                reason = labelling.stop_reason
                typer.echo(f"no pair to label ({reason or 'done'})")
                break
            _show_pair(task, labelling.progress())
            version = store.item_version(name, task.pair_id, reviewer=reviewer)
            line = sys.stdin.readline()
            if not line:
                store.release_claims(name, reviewer=reviewer)
                break
            key = read_key(line)
            if key is None:
                typer.echo(f"not an answer: {line.strip()!r}; type one of m, n, u, z, y, q")
                continue
            if key == "q":
                store.release_claims(name, reviewer=reviewer)
                break
            if key == "z":
                if store.undo(name, reviewer=reviewer) is None:
                    typer.echo("nothing to undo")
                continue
            if key == "y":
                if store.redo(name, reviewer=reviewer) is None:
                    typer.echo("nothing to redo")
                continue
            try:
                labelling.label(
                    task.pair_id,
                    _KEYS[key],
                    reviewer=reviewer,
                    shown=task.to_dict(),
                    expected_version=version,
                )
            except StaleAnswer as stale:  # answered elsewhere (the app) while it was shown
                typer.echo(
                    f"pair {task.pair_id} changed since it was shown (your answer now: "
                    f"{stale.current or 'none'}); nothing was written"
                )
                continue
            given += 1
            if labelling.config.get("reveal"):
                score, prediction = labelling.reveal(task.pair_id)
                typer.echo(f"model: score {score:.4g}, prediction {prediction}")
        progress = labelling.progress()
    est = progress.get("estimate") or {}
    summary = {
        "session": name,
        "reviewer": reviewer,
        "labelled_now": given,
        "labels_used": progress["labels_used"],
        "stop_reason": progress["stop_reason"],
        "f_measure": (est.get("f_measure") or {}).get("value", math.nan),
    }
    emit_mapping(summary, fmt, key_header="field")


def register(app: typer.Typer) -> None:
    """Add the ``label`` command group to the application."""
    label_app.command(
        "init",
        epilog=examples(
            "ereval label init --db labels.db --data records.csv --pred pred.csv \\",
            "    --n 200 --search-col first_name --search-col last_name --seed 1",
            "ereval label init --db labels.db --kind pairs --session p --data records.csv \\",
            "    --pairs pairs.csv --budget 300 --seed 1",
            "ereval label init --db labels.db --kind items --session r --ranked pairs.csv \\",
            "    --data records.csv --epsilon 0.1 --delta 10",
        ),
    )(init_command)
    label_app.command(
        "status",
        epilog=examples(
            "ereval label status --db labels.db", "ereval label status --db labels.db -f json"
        ),
    )(status_command)
    label_app.command(
        "export",
        epilog=examples(
            "ereval label export --db labels.db --kind benchmark -o sample.csv",
            "ereval label export --db labels.db --kind benchmark --reviewer ana -o ana.csv",
            "ereval label export --db labels.db --session p --kind pairs -o labels.csv",
            "ereval label export --db labels.db --session p --kind splink -o labels.csv",
        ),
    )(export_command)
    label_app.command(
        "import",
        epilog=examples("ereval label import --db labels.db sheet.csv --kind spreadsheet"),
    )(import_command)
    label_app.command(
        "reviewer-errors",
        epilog=examples(
            "ereval label reviewer-errors --db labels.db --seed 1",
            "ereval label reviewer-errors --db labels.db -m pairwise_precision -f json",
        ),
    )(reviewer_errors_command)
    label_app.command(
        "pairs",
        epilog=examples("ereval label pairs --db labels.db --session p --reviewer ana"),
    )(pairs_command)
    app.add_typer(label_app, name="label")
