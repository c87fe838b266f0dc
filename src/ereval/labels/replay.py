"""The pairs export of a pair session, and reading it back into the session's estimate.

OASIS estimates F, precision and recall from *weighted* draws: the label of each
drawn pair counts with its importance weight ``N p(z) / q_t(z)``, which depends
on the whole pool and on the order of the draws. A table of labelled pairs
alone cannot give that estimate -- scored as a pool it gives the F-measure of
the labelled pairs themselves, with no uncertainty, which is not the pool's.

So the export of a pair session (:func:`pairs_export`) lists the labels in the
order the session's sampler used them (``asked``), marks those derived by
transitivity (``derived``), and names the sampler and its pool (``pool_size``,
``pool_fingerprint``, ``sampler``, ``alpha``, ``strata``, ``seed``).
:func:`estimate_from_export` rebuilds that sampler over the same pool, replays
the labels in that order -- checking at every step that the sampler asks for
the pair the file names next -- and returns the sampler's own estimate, the one
the session showed (``ereval oasis estimate POOL --labels FILE``). A file that
does not follow the sampler on the pool, and an export given as a pool, are
refused.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._errors import InputError

if TYPE_CHECKING:
    from .pairs import PairLabelling

__all__ = ["EXPORT_MARKERS", "estimate_from_export", "is_pairs_export", "pairs_export"]

#: The columns that make a file a pairs export (with the pair id and ``label``).
EXPORT_MARKERS: tuple[str, ...] = (
    "asked",
    "derived",
    "pool_size",
    "pool_fingerprint",
    "sampler",
    "alpha",
    "strata",
    "seed",
)


def is_pairs_export(columns: Collection[str]) -> bool:
    """Whether a file with these columns is a pairs export (not a pool)."""
    return all(c in columns for c in ("asked", "pool_size", "pool_fingerprint"))


def pairs_export(labelling: PairLabelling) -> tuple[pd.DataFrame, list[str]]:
    """The labels a pair session's sampler used, in its order, and warnings.

    One row per pair told to the sampler: the session's pair id, record id
    columns, ``score``, ``prediction`` (and ``probability`` when the pool has
    one), ``label`` (1 match, 0 non-match), ``asked`` (1, 2, ...: the order of
    use), ``derived`` (1 when implied by transitivity), and the sampler's
    description, the same on every row.
    """
    labelling.advance()
    pool = labelling.pool
    cfg = labelling.config
    index = labelling.index_of
    told = labelling.told
    probability = pool.probabilities is not None and bool(cfg.get("probability_col"))
    described = {
        "pool_size": int(pool.size),
        "pool_fingerprint": pool.fingerprint(),
        "sampler": cfg["method"],
        "alpha": float(cfg["alpha"]),
        "strata": cfg.get("n_strata"),
        "seed": int(cfg["seed"]),
    }
    columns = [cfg["pair_id_col"], cfg["left_col"], cfg["right_col"], "score", "prediction"]
    columns += ["probability"] * probability + ["label", *EXPORT_MARKERS]
    rows: list[dict[str, Any]] = []
    for k, (key, label, derived) in enumerate(told, start=1):
        i = index[key]
        left, right = labelling.ends[key]
        row: dict[str, Any] = {
            cfg["pair_id_col"]: key,
            cfg["left_col"]: left,
            cfg["right_col"]: right,
            "score": float(pool.scores[i]),
            "prediction": int(pool.predictions[i]),
            "label": int(label),
            "asked": k,
            "derived": int(derived),
            **described,
        }
        if probability:
            row["probability"] = float(pool.probabilities[i])
        rows.append(row)
    frame = pd.DataFrame(rows, columns=columns)
    warnings: list[str] = []
    used = {key for key, _, _ in told}
    res = labelling.resolution()
    unused = sorted(
        k for k, v in res.resolved.items() if v in ("match", "non-match") and k not in used
    )
    if unused:
        warnings.append(
            f"{len(unused)} labelled pair(s) are no longer among the sampler's draws (an earlier "
            f"label changed what it asks) and are left out (e.g. {unused[0]!r}); they stay in "
            "the store"
        )
    return frame, warnings


def _constant(frame: pd.DataFrame, column: str, source: str) -> Any:
    values = frame[column].drop_duplicates().tolist()
    if len(values) != 1:
        raise InputError(
            f"'labels': column '{column}' of '{source}' must hold one value on every row "
            f"(it describes the session's sampler); found {values[:3]!r}"
        )
    return values[0]


def estimate_from_export(
    pool: Any,
    labels: str | os.PathLike[str] | pd.DataFrame,
    *,
    id_col: str = "pair_id",
    confidence: float = 0.95,
) -> tuple[Any, Any]:
    """Replay a pairs export over its pool: the session's sampler and its estimates.

    Parameters
    ----------
    pool : ereval.oasis.Pool
        The pool the session was created with (checked by size and fingerprint).
    labels : path or DataFrame
        A file written by ``ereval label export --kind pairs`` (see the module
        docstring).
    id_col : str, default "pair_id"
        The pair id column of the export.
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    (sampler, ereval.oasis.Estimates)
        The sampler after the replay (for a saved state or a curve) and its
        estimates: those the session showed after these labels.

    Raises
    ------
    InputError
        If the file is not a pairs export, was exported from another pool, or
        does not follow the sampler (a label changed, a row left out or added).
    """
    from ..io import read_table
    from .pairs import session_sampler

    if isinstance(labels, pd.DataFrame):
        frame, source = labels, "the labels"
    else:
        source = str(labels)
        frame = read_table(labels, name="labels", text_columns=(id_col,))
    needed = [id_col, "label", *EXPORT_MARKERS]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InputError(
            f"'labels': '{source}' is not a pairs export of a labelling session (no column "
            f"{', '.join(map(repr, missing))}); write one with 'ereval label export --kind pairs'"
        )
    if frame.empty:
        raise InputError(f"'labels': '{source}' holds no label to estimate from")
    size = int(_constant(frame, "pool_size", source))
    fingerprint = str(_constant(frame, "pool_fingerprint", source))
    if size != pool.size or fingerprint != pool.fingerprint():
        raise InputError(
            f"'labels': '{source}' was exported from a pool of {size:,} pairs with other scores "
            f"or predictions than this pool ({pool.size:,} pairs); give the pool the session "
            "was created with"
        )
    strata = _constant(frame, "strata", source)
    config: Mapping[str, Any] = {
        "method": str(_constant(frame, "sampler", source)),
        "alpha": float(_constant(frame, "alpha", source)),
        "seed": int(_constant(frame, "seed", source)),
        "n_strata": None
        if strata is None or (isinstance(strata, float) and math.isnan(strata))
        else int(strata),
    }
    order = pd.to_numeric(frame["asked"], errors="coerce")
    if order.isna().any() or sorted(order.astype(int).tolist()) != list(range(1, len(frame) + 1)):
        raise InputError(
            f"'labels': column 'asked' of '{source}' must number the rows 1 to {len(frame)} "
            "(the order the session's sampler used the labels); rows were added or left out"
        )
    frame = frame.assign(_order=order.astype(int)).sort_values("_order")
    sampler = session_sampler(pool, config)
    for step, (pair, raw) in enumerate(zip(frame[id_col], frame["label"], strict=True), start=1):
        text = str(raw).strip()
        if text not in ("0", "1", "0.0", "1.0"):
            raise InputError(
                f"'labels': the label of pair {str(pair)!r} in '{source}' must be 0 or 1; "
                f"received {raw!r}"
            )
        query = sampler.ask()
        if query is None:
            raise InputError(
                f"'labels': the session's sampler stops ({sampler.stop_reason}) after "
                f"{step - 1} labels, but '{source}' has {len(frame)}"
            )
        if str(query.pair_id) != str(pair):
            raise InputError(
                f"'labels': '{source}' does not follow the session's sampler on this pool: at "
                f"step {step} it asks for pair {str(query.pair_id)!r}, the file has "
                f"{str(pair)!r} (a label was changed, or rows left out)"
            )
        sampler.tell(int(float(text)), index=query.index)
    return sampler, sampler.estimate(confidence=confidence)
