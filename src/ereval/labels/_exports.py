"""Export the labels of a session to the formats other tools read, and import them back.

``benchmark`` (cluster review)
    The sampled true clusters with their design, exactly as ``ereval estimate``
    reads them: ``record_id, cluster_id, unit_id, probability, draws`` (see
    :meth:`ereval.estimators.ClusterSample.to_frame`), and the reviewers' error
    tags of each cluster (comma-separated, for ``ereval errors --tags tags``). Records drawn uniformly
    give ``design="record"`` (``probability`` = cluster size); records drawn by a
    weight column give ``design="cluster"`` with ``probability`` the sum of the
    cluster's record weights. Records drawn within size strata give
    ``design="size_stratified"`` with, for each drawn record, its ``stratum``,
    the stratum's number of records ``stratum_records`` and its ``record_draws``
    (the columns ``as_sample(..., design="size_stratified")`` reads; records not
    drawn have ``record_draws`` 0 and a blank stratum). Records drawn by expected
    error give ``design="expected_error"`` with each record's draw probability
    ``record_probability`` (``q_r``, recomputed from the session's pairs and
    checked against the drawn records' saved values) and ``probability`` the sum
    over the cluster.
``spreadsheet`` (cluster review)
    The add/remove sheet of disambiguation teams: one row per
    ``(sampled_record, record_id, action)`` with action ``remove`` (A_r) or
    ``add`` (B_r), and one row ``(r, r, none)`` for a predicted cluster found correct.
``pairs`` (pair labelling)
    The labels the session's OASIS sampler used, in its order (``pair_id``, the
    two record ids, ``score``, ``probability`` when given, ``prediction``,
    ``label`` 0/1, ``asked``, ``derived`` by transitivity) with the sampler's
    description; ``ereval oasis estimate POOL --labels FILE`` replays them into
    the estimate the session showed (see :mod:`ereval.labels._replay`).
``splink`` (pair labelling)
    Splink's labels table: ``unique_id_l, unique_id_r, clerical_match_score``
    (1 match, 0 non-match) of the pairs people labelled, with
    ``source_dataset_l/_r`` from a source column.
``paula`` (ranked items)
    ``rank, <item column>, label`` as ``ereval paula bounds`` reads it.

Only resolved labels are exported ("unsure" and disputed items wait for an
adjudicator). An import checks everything first -- the reviewer's name, every
row, and that no item is labelled two ways (the rows are named) -- then records
one event per label, and adds the pairs the sampler has not asked yet, all in
one transaction under the importing reviewer with the file's name as
``source``: a refused import leaves the store exactly as it was.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from .._errors import InputError
from .._validation import examples
from ._items import ItemLabelling
from ._pairs import PairLabelling
from ._replay import pairs_export
from ._review import ClusterReview
from ._store import Item, LabelStore, check_reviewer

__all__ = [
    "EXPORT_KINDS",
    "ExportKind",
    "Exported",
    "estimate_flags",
    "export_labels",
    "import_labels",
    "open_session",
]

ExportKind = Literal["benchmark", "spreadsheet", "pairs", "splink", "paula"]
EXPORT_KINDS: tuple[ExportKind, ...] = ("benchmark", "spreadsheet", "pairs", "splink", "paula")
_KIND_OF: dict[str, str] = {
    "benchmark": "cluster",
    "spreadsheet": "cluster",
    "pairs": "pairs",
    "splink": "pairs",
    "paula": "items",
}

Session = ClusterReview | PairLabelling | ItemLabelling


def open_session(store: LabelStore, name: str) -> Session:
    """The session object of the right kind for session ``name``."""
    kind = store.session(name).kind
    if kind == "cluster":
        return ClusterReview(store, name)
    if kind == "pairs":
        return PairLabelling(store, name)
    return ItemLabelling(store, name)


@dataclass(frozen=True)
class Exported:
    """An export: the table, and how to read it back.

    Attributes
    ----------
    frame : pandas.DataFrame
    kind : str
    design : str or None
        For a benchmark, the design to read it with (``as_sample(..., design=...)``;
        :func:`estimate_flags` gives the flags of ``ereval estimate``).
    warnings : list of str
        E.g. drawn records left out because their label is not resolved yet.
    """

    frame: pd.DataFrame
    kind: str
    design: str | None = None
    warnings: list[str] = field(default_factory=list)


def estimate_flags(config: Mapping[str, Any]) -> list[str]:
    """The design flags of ``ereval estimate`` for the benchmark of a cluster review
    with configuration ``config``.

    Examples
    --------
    >>> estimate_flags({"design": "size_stratified", "replace": False})
    ['--design', 'size-stratified', '--without-replacement']
    >>> estimate_flags({"design": "record", "weights_col": "w"})
    ['--design', 'cluster']
    """
    design = config.get("design", "record")
    if design == "size_stratified":
        return ["--design", "size-stratified"] + (
            [] if config.get("replace", True) else ["--without-replacement"]
        )
    if design == "expected_error":
        return ["--design", "expected-error"]
    return ["--design", "cluster" if config.get("weights_col") else "record"]


def _check_kind(store: LabelStore, session: str, kind: str) -> None:
    if kind not in _KIND_OF:
        raise InputError(f"'kind' must be one of {', '.join(EXPORT_KINDS)}; received {kind!r}")
    have = store.session(session).kind
    if _KIND_OF[kind] != have:
        raise InputError(
            f"'kind' {kind!r} exports {_KIND_OF[kind]} sessions; session '{session}' is a "
            f"{have} session"
        )


def export_labels(
    store: LabelStore,
    session: str,
    *,
    kind: ExportKind,
    design: str | None = None,
    source_col: str | None = None,
    reviewer: str | None = None,
) -> Exported:
    """Export the resolved labels of a session in format ``kind`` (see the module docstring).

    ``design``, when given, must be the design the session was created with
    (a benchmark cannot be exported under another design). ``reviewer``, for a
    benchmark: the sample as that reviewer labelled it (their own current
    labels, whatever the other reviewers or an adjudicator said; the drawn
    records they did not label are left out), so that the estimates of two
    reviewers can be compared (Binette et al. 2022, §2.2).
    """
    _check_kind(store, session, kind)
    if reviewer is not None and kind != "benchmark":
        raise InputError(
            f"'reviewer' selects one reviewer's labels for a benchmark; received kind {kind!r}"
        )
    obj = open_session(store, session)
    if isinstance(obj, ClusterReview):
        if design is not None and design != obj.config["design"]:
            raise InputError(
                f"'design' {design!r} is not the design session '{session}' was created with "
                f"({obj.config['design']!r})"
            )
        if kind == "spreadsheet":
            return _spreadsheet(obj)
        if reviewer is None:
            return _benchmark(obj, obj.resolution().resolved, "have no resolved label yet")
        return _benchmark(
            obj, reviewer_labels(store, session, reviewer), f"were not labelled by {reviewer!r}"
        )
    if isinstance(obj, PairLabelling):
        return _pairs(obj, splink=kind == "splink", source_col=source_col)
    return _paula(obj)


def reviewer_labels(store: LabelStore, session: str, reviewer: str) -> dict[str, Any]:
    """Item -> the current label ``reviewer`` gave it (an error if they gave none)."""
    who = check_reviewer(reviewer)
    labels = store.labels(session, reviewer=who)
    if not labels:
        known = ", ".join(store.reviewers(session)) or "none"
        raise InputError(
            f"'reviewer' {who!r} has no label in session '{session}' (its reviewers: {known})"
        )
    return {item: given[who] for item, given in labels.items() if isinstance(given[who], dict)}


def _benchmark(review: ClusterReview, labels: Mapping[str, Any], missing: str) -> Exported:
    from ..estimators._designs import RECORD_DRAWS_COL, STRATUM_COL, STRATUM_RECORDS_COL
    from ..estimators._unequal_designs import RECORD_PROBABILITY_COL

    draws: list[str] = list(review.config["draws"])
    weighted = review.config.get("weights_col") is not None
    stratified = review.config.get("design") == "size_stratified"
    by_error = review.config.get("design") == "expected_error"
    warnings: list[str] = []
    unresolved = sorted({r for r in draws if r not in labels})
    if unresolved:
        warnings.append(
            f"{len(unresolved)} drawn record(s) {missing} and are left out "
            f"(e.g. {examples(unresolved)})"
        )
    cluster_of: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    for r in draws:
        if r not in labels or r in cluster_of:
            continue
        true = [str(x) for x in labels[r]["true_cluster"]]
        clashes = sorted({cluster_of[x] for x in true if x in cluster_of})
        if clashes:
            other = members[clashes[0]]
            raise InputError(
                f"the true clusters of drawn records {r!r} and {clashes[0]!r} overlap but differ "
                f"({len(true)} vs {len(other)} records); correct one of them (or adjudicate)"
            )
        for x in true:
            cluster_of[x] = r
        members[r] = true
    for r in draws:
        if r in labels and r in cluster_of and r not in members:
            own = sorted(str(x) for x in labels[r]["true_cluster"])
            if own != sorted(members[cluster_of[r]]):
                raise InputError(
                    f"drawn record {r!r} lies in the true cluster of {cluster_of[r]!r}, but its "
                    "own label gives another cluster; correct one of them (or adjudicate)"
                )
    rows = []
    weights = None
    if by_error:
        weights = _error_weights(review)
    elif weighted:
        col = review.config["weights_col"]
        frame = review.records.frame
        weights = dict(
            zip(
                frame[review.config["id_col"]].astype(str),
                pd.to_numeric(frame[col]).astype(float),
                strict=True,
            )
        )
    counts: dict[str, int] = {}
    record_draws: dict[str, int] = {}
    tags: dict[str, set[str]] = {}
    for r in draws:
        if r in cluster_of and r in labels:
            counts[cluster_of[r]] = counts.get(cluster_of[r], 0) + 1
            record_draws[r] = record_draws.get(r, 0) + 1
            tags.setdefault(cluster_of[r], set()).update(labels[r].get("tags", ()))
    strata = _drawn_strata(review) if stratified else {}
    for head, true in members.items():
        prob = sum(weights[x] for x in true) if weights is not None else float(len(true))
        for x in true:
            row: dict[str, Any] = {
                "record_id": x,
                "cluster_id": head,
                "unit_id": head,
                "probability": prob,
                "draws": counts[head],
            }
            if by_error and weights is not None:
                row[RECORD_PROBABILITY_COL] = weights[x]
            if stratified:  # a record not drawn plays no part in the strata
                label, size = strata[x] if x in record_draws else (None, None)
                row |= {
                    STRATUM_COL: label,
                    STRATUM_RECORDS_COL: size,
                    RECORD_DRAWS_COL: record_draws.get(x, 0),
                }
            rows.append(row | {"tags": ",".join(sorted(tags.get(head, ())))})
    columns = ["record_id", "cluster_id", "unit_id", "probability", "draws"]
    if stratified:
        columns += [STRATUM_COL, STRATUM_RECORDS_COL, RECORD_DRAWS_COL]
    if by_error:
        columns += [RECORD_PROBABILITY_COL]
    frame = pd.DataFrame(rows, columns=[*columns, "tags"])
    if stratified:
        frame[STRATUM_RECORDS_COL] = frame[STRATUM_RECORDS_COL].astype("Int64")
        return Exported(frame, "benchmark", "size_stratified", warnings)
    if by_error:
        return Exported(frame, "benchmark", "expected_error", warnings)
    if not review.config.get("replace", True):
        warnings.append(
            "records were drawn without replacement; the estimators treat the sample as drawn "
            "with replacement (close when few records are drawn from many)"
        )
    return Exported(frame, "benchmark", "cluster" if weighted else "record", warnings)


def _error_weights(review: ClusterReview) -> dict[str, float]:
    """Each record's ``q_r``, recomputed from the session's prediction and pairs; the
    drawn records' values must be those saved when they were drawn."""
    from ._review import expected_error_q

    c = review.config
    q = expected_error_q(
        c["prediction"],
        c["pairs"],
        score_col=c["score_col"],
        left_col=c["left_col"],
        right_col=c["right_col"],
        floor=c["floor"],
        record_col=c["record_col"],
        cluster_col=c["cluster_col"],
    )
    out = {str(k): float(v) for k, v in q.items()}
    changed = [
        it.key
        for it in review.store.items(review.name)
        if not math.isclose(out.get(it.key, math.nan), float(it.payload["weight"]), rel_tol=1e-12)
    ]
    if changed:
        raise InputError(
            f"the draw probabilities of {len(changed)} drawn record(s) (e.g. {examples(changed)}) "
            f"differ from those of the draws: the prediction '{c['prediction']}' or the pairs "
            f"'{c['pairs']}' changed since session '{review.name}' was created; restore them"
        )
    return out


def _drawn_strata(review: ClusterReview) -> dict[str, tuple[str, int]]:
    """Each drawn record's stratum label and the stratum's number of records."""
    return {
        item.key: (str(item.payload["stratum"]), int(item.payload["stratum_records"]))
        for item in review.store.items(review.name)
    }


def _spreadsheet(review: ClusterReview) -> Exported:
    res = review.resolution()
    rows = []
    for item in review.store.items(review.name):
        value = res.resolved.get(item.key)
        if value is None:
            continue
        tags = ",".join(value.get("tags", ()))
        changes = [(x, "remove") for x in value.get("remove", ())] + [
            (x, "add") for x in value.get("add", ())
        ]
        for x, action in changes or [(item.key, "none")]:
            rows.append(
                {"sampled_record": item.key, "record_id": x, "action": action, "tags": tags}
            )
    frame = pd.DataFrame(rows, columns=["sampled_record", "record_id", "action", "tags"])
    return Exported(frame, "spreadsheet")


def _pairs(labelling: PairLabelling, *, splink: bool, source_col: str | None) -> Exported:
    if not splink:
        frame, warnings = pairs_export(labelling)
        return Exported(frame, "pairs", warnings=warnings)
    res = labelling.resolution()
    cfg = labelling.config
    source: dict[str, Any] = {}
    if source_col is not None:
        records = labelling.records.frame
        if source_col not in records.columns:
            raise InputError(f"'source_col': the data file has no column '{source_col}'")
        source = dict(zip(records[cfg["id_col"]].astype(str), records[source_col], strict=True))
    rows = []
    for item in labelling.store.items(labelling.name):
        value = res.resolved.get(item.key)
        if value not in ("match", "non-match"):
            continue
        left, right = labelling.ends[item.key]
        row: dict[str, Any] = {
            "unique_id_l": left,
            "unique_id_r": right,
            "clerical_match_score": 1.0 if value == "match" else 0.0,
        }
        if source_col is not None:
            row["source_dataset_l"] = source[left]
            row["source_dataset_r"] = source[right]
        rows.append(row)
    return Exported(pd.DataFrame(rows), "splink")


def _paula(labelling: ItemLabelling) -> Exported:
    ranks, labels = labelling.labelled_ranks()
    by_rank = {it.position: it.key for it in labelling.store.items(labelling.name)}
    frame = pd.DataFrame(
        {
            "rank": ranks,
            labelling.config["item_col"]: [by_rank[r] for r in ranks],
            "label": labels,
        }
    )
    return Exported(frame, "paula")


# ------------------------------------------------------------------------ import
#: (item, label, data row of the file it comes from, 1-based)
Entry = tuple[str, Any, int]


def import_labels(
    store: LabelStore,
    session: str,
    path: str | os.PathLike[str],
    *,
    kind: ExportKind,
    reviewer: str = "import",
) -> int:
    """Import a file of format ``kind`` into a session as labels of ``reviewer``.

    Everything is checked first: the reviewer's name, every row (items must be in
    the session, pair labels 1/0, cluster labels pass the quality checks), and
    that no item is labelled two ways (the error names the item and its rows; the
    same label twice counts once). Then all labels are recorded in one
    transaction, with the file's name as their source. A refused import leaves
    the store unchanged. Returns the number of labels recorded.
    """
    from ..io import read_table

    reviewer = check_reviewer(reviewer)
    _check_kind(store, session, kind)
    obj = open_session(store, session)
    frame = read_table(path, name="labels", text_columns="all")
    source = Path(path).name
    entries: list[Entry]
    if isinstance(obj, ClusterReview):
        entries = _cluster_entries(obj, frame, kind)
    elif isinstance(obj, PairLabelling):
        entries = _pair_entries(obj, frame, kind)
    else:
        entries = _item_entries(obj, frame)
    labels = _one_label_each(entries, "pair" if isinstance(obj, PairLabelling) else "item")
    new: list[Item] = []
    for item, _ in labels:
        if not store.has_item(session, item):
            if kind in ("pairs", "splink"):
                new.append(Item(item, 10**9, {}))
            else:
                raise InputError(f"'labels': {item!r} is not an item of session '{session}'")
    return store.import_labels(session, labels, reviewer=reviewer, source=source, new_items=new)


def _one_label_each(entries: list[Entry], noun: str) -> list[tuple[str, Any]]:
    """The labels of ``entries``, each item once; an item labelled two ways is refused."""
    first: dict[str, tuple[Any, int]] = {}
    out: list[tuple[str, Any]] = []
    for item, value, row in entries:
        if item in first:
            seen, at = first[item]
            if seen != value:
                raise InputError(
                    f"'labels': {noun} {item!r} is labelled two ways, {_said(seen)} and "
                    f"{_said(value)} (rows {at} and {row}); keep one of them"
                )
            continue
        first[item] = (value, row)
        out.append((item, value))
    return out


def _said(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a true cluster of " + ", ".join(map(str, value.get("true_cluster", ())))
    return str(value)


def _need(frame: pd.DataFrame, cols: list[str]) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        shown = ", ".join(repr(str(c)) for c in frame.columns)
        raise InputError(
            f"'labels' has no column {', '.join(map(repr, missing))}; columns are {shown}"
        )


def _cluster_entries(review: ClusterReview, frame: pd.DataFrame, kind: str) -> list[Entry]:
    changes: dict[str, tuple[list[str], list[str]]] = {}
    tags: dict[str, list[str]] = {}
    first_row: dict[str, int] = {}
    if kind == "spreadsheet":
        _need(frame, ["sampled_record", "record_id", "action"])
        acted: dict[tuple[str, str], tuple[str, int]] = {}
        for row_number, row in enumerate(frame.itertuples(index=False), start=1):
            r, x, action = str(row.sampled_record), str(row.record_id), str(row.action).strip()
            if action not in ("add", "remove", "none"):
                raise InputError(
                    f"'labels': action must be add, remove or none; received {action!r} "
                    f"for sampled record {r!r} (row {row_number})"
                )
            before = acted.get((r, x))
            if before is not None and before[0] != action:
                raise InputError(
                    f"'labels': record {x!r} is both {before[0]} and {action} for sampled record "
                    f"{r!r} (rows {before[1]} and {row_number}); keep one of them"
                )
            acted[(r, x)] = (action, row_number)
            first_row.setdefault(r, row_number)
            remove, add = changes.setdefault(r, ([], []))
            if action == "remove":
                remove.append(x)
            elif action == "add":
                add.append(x)
            if "tags" in frame.columns and isinstance(row.tags, str) and row.tags:
                tags[r] = [t.strip() for t in row.tags.split(",") if t.strip()]
    else:
        _need(frame, ["record_id", "cluster_id"])
        clusters: dict[str, list[str]] = {}
        cluster_of: dict[str, tuple[str, int]] = {}
        for row_number, (rid, cid) in enumerate(
            zip(frame["record_id"].astype(str), frame["cluster_id"].astype(str), strict=True),
            start=1,
        ):
            before = cluster_of.get(rid)
            if before is not None and before[0] != cid:
                raise InputError(
                    f"'labels': record {rid!r} is in two clusters, {before[0]!r} and {cid!r} "
                    f"(rows {before[1]} and {row_number}); keep one of them"
                )
            if before is None:
                clusters.setdefault(cid, []).append(rid)
                cluster_of[rid] = (cid, row_number)
        for item in review.store.items(review.name):
            if item.key not in cluster_of:
                continue
            cid, row_number = cluster_of[item.key]
            true = set(clusters[cid])
            pred = set(review.predicted_cluster(item.key))
            changes[item.key] = (sorted(pred - true), sorted(true - pred))
            first_row[item.key] = row_number
    entries: list[Entry] = []
    for r, (remove, add) in changes.items():
        if not review.store.has_item(review.name, r):
            raise InputError(f"'labels': {r!r} is not a drawn record of session '{review.name}'")
        report = review.check(r, remove=remove, add=add)
        if not report.ok:
            raise InputError(
                f"'labels': the review of record {r!r} fails its checks: "
                + "; ".join(report.errors)
            )
        predicted = review.predicted_cluster(r)
        value = {
            "remove": sorted(set(remove)),
            "add": sorted(set(add)),
            "true_cluster": sorted((set(predicted) - set(remove)) | set(add)),
            "tags": sorted(set(tags.get(r, []))),
            "note": "",
            "warnings": report.warnings,
        }
        entries.append((r, value, first_row[r]))
    return entries


def _pair_label(value: Any, row: int) -> str:
    text = str(value).strip().lower()
    mapping: Mapping[str, str] = {
        "1": "match",
        "1.0": "match",
        "true": "match",
        "match": "match",
        "0": "non-match",
        "0.0": "non-match",
        "false": "non-match",
        "non-match": "non-match",
        "0.5": "unsure",
        "unsure": "unsure",
    }
    if text not in mapping:
        raise InputError(
            f"'labels': a pair label must be 1/0 (or match/non-match); received {value!r} "
            f"(row {row})"
        )
    return mapping[text]


def _pair_entries(labelling: PairLabelling, frame: pd.DataFrame, kind: str) -> list[Entry]:
    cfg = labelling.config
    if kind == "pairs":
        _need(frame, [cfg["pair_id_col"], "label"])
        ids = frame[cfg["pair_id_col"]].astype(str).tolist()
        values = frame["label"].tolist()
    else:
        _need(frame, ["unique_id_l", "unique_id_r", "clerical_match_score"])
        by_ends: dict[frozenset[str], str] = {frozenset(e): p for p, e in labelling.ends.items()}
        ids = []
        for row, (a, b) in enumerate(
            zip(frame["unique_id_l"].astype(str), frame["unique_id_r"].astype(str), strict=True),
            start=1,
        ):
            pid = by_ends.get(frozenset((a, b)))
            if pid is None:
                raise InputError(
                    f"'labels': the pair ({a!r}, {b!r}) is not in the session's pool (row {row})"
                )
            ids.append(pid)
        values = frame["clerical_match_score"].tolist()
    unknown = [p for p in ids if p not in labelling.ends]
    if unknown:
        raise InputError(
            f"'labels': {len(unknown)} pair(s) are not in the session's pool "
            f"(e.g. {examples(unknown)})"
        )
    return [
        (p, _pair_label(v, row), row)
        for row, (p, v) in enumerate(zip(ids, values, strict=True), start=1)
    ]


def _item_entries(labelling: ItemLabelling, frame: pd.DataFrame) -> list[Entry]:
    col = labelling.config["item_col"]
    _need(frame, [col, "label"])
    return [
        (str(i), _pair_label(v, row), row)
        for row, (i, v) in enumerate(zip(frame[col].astype(str), frame["label"], strict=True), 1)
    ]
