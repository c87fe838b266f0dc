"""B-cubed precision and recall, record-weighted and entity-weighted.

Record-weighted (Bagga & Baldwin 1998; the CoNLL scorer), ``b3_*``::

    R = sum_ij n_ij^2 / a_i / sum_i a_i,     P = sum_ij n_ij^2 / b_j / sum_j b_j

Entity-weighted (Binette et al. 2024, eq. 15; er-evaluation's ``b_cubed``),
``b3_entity_*``: every true cluster weighs the same::

    R = (1/K) sum_ij n_ij^2 / a_i^2,         P = (1/K) sum_ij n_ij^2 / (a_i b_j)

The record-weighted scores follow the CoNLL reference scorer v8.01, including
twinless mentions (they count in the denominators and never in the numerators)
and its empty-denominator convention (score 0). The twinless variants of
Cai & Strube (2010) are in :func:`b3_twinless_scores`.
"""

from __future__ import annotations

from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, coref_prf, coref_scores, f_beta, ratio

__all__ = ["b3_entity_scores", "b3_scores", "b3_sums", "b3_twinless_scores"]


def b3_sums(table: ContingencyTable | Statistics) -> tuple[float, int, float, int]:
    """``(recall numerator, recall denominator, precision numerator, precision denominator)``."""
    s = statistics_of(table)
    return s.b3_recall_sum, s.n_true_records, s.b3_precision_sum, s.n_pred_records


def _named(prefix: str, r: float, p: float, f: float, fb: float | None) -> dict[str, float]:
    out = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": f}
    if fb is not None:
        out[f"{prefix}_fbeta"] = fb
    return out


def b3_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """Record-weighted B-cubed precision, recall, F1 (CoNLL v8.01 conventions)."""
    beta = check_beta(beta)
    sums = b3_sums(table)
    r, p, f = coref_prf(*sums)
    return _named("b3", r, p, f, coref_prf(*sums, beta)[2] if beta != 1.0 else None)


def b3_entity_scores(
    table: ContingencyTable | Statistics, *, beta: float = 1.0
) -> dict[str, float]:
    """Entity-weighted B-cubed (Binette et al. 2024, eq. 15): each true cluster weighs 1/K."""
    beta = check_beta(beta)
    s = statistics_of(table)
    k = s.n_true_clusters
    p = ratio(s.b3_entity_precision_sum, k)
    r = ratio(s.b3_entity_recall_sum, k)
    return _named("b3_entity", r, p, f_beta(p, r), f_beta(p, r, beta) if beta != 1.0 else None)


def b3_twinless_scores(
    table: ContingencyTable | Statistics, *, beta: float = 1.0
) -> dict[str, float]:
    """The twinless-mention variants of B-cubed compared by Cai & Strube (2010).

    * ``b3_all`` (Stoyanov et al. 2009): keeps every twinless mention; a twinless
      response mention gets precision ``1/|R_m|``, a twinless key mention recall
      ``1/|K_m|``.
    * ``b3_0`` (Stoyanov et al. 2009): discards twinless response mentions;
      twinless key mentions get recall 0.
    * ``b3_rn`` (Rahman & Ng 2009): discards twinless response mentions that are
      singletons, then scores as usual.
    * ``b3_sys`` (Cai & Strube 2010): twinless key mentions join the response as
      singletons and twinless singleton response mentions are discarded; for
      precision the remaining twinless response mentions join the key as
      singletons, for recall they are discarded.

    Each returns ``<name>_precision``, ``<name>_recall``, ``<name>_f1`` (and
    ``_fbeta``), with the CoNLL empty-denominator convention.

    Every variant is a B-cubed of a rewritten table, and each rewrite adds or removes
    terms known from the clusters' sizes (``a_i``, ``b_j``) and their records on
    both sides (``r_i``, ``c_j``), so the statistics give them all, with ``N_T``,
    ``N_P``, ``N_C`` the records of the truth, the prediction and both, ``s`` the
    predicted clusters of a single twinless record, ``t = sum_i (a_i - r_i) / a_i``
    and ``u = sum_j (b_j - c_j) / b_j``:

    ==========  =================================  ===================================
    variant     recall                             precision
    ==========  =================================  ===================================
    ``b3_all``  ``(sum n^2 / a + t) / N_T``        ``(sum n^2 / b + u) / N_P``
    ``b3_0``    ``sum n^2 / a / N_T``              ``sum n^2 / c / N_C``
    ``b3_rn``   ``sum n^2 / a / N_T``              ``sum n^2 / b / (N_P - s)``
    ``b3_sys``  ``(sum n^2 / a + t) / N_T``        ``(sum n^2 / b + N_T - N_C + u - s)``
                                                   ``/ (N_P - s + N_T - N_C)``
    ==========  =================================  ===================================

    Examples
    --------
    >>> from ereval.contingency import contingency_table
    >>> t = contingency_table([["a", "b", "c"]], [["a", "b", "d"], ["e"]],
    ...                       on_mismatch="twinless")
    >>> s = b3_twinless_scores(t)
    >>> round(s["b3_0_precision"], 4), round(s["b3_rn_precision"], 4)
    (1.0, 0.4444)
    """
    beta = check_beta(beta)
    s = statistics_of(table)
    n_t, n_p, n_c, lone = s.n_true_records, s.n_pred_records, s.n_common, s.twinless_pred_singletons
    rec, prec = s.b3_recall_sum, s.b3_precision_sum
    with_twins = rec + s.b3_twinless_recall_sum
    out: dict[str, float] = {}
    sums = {
        "b3_all": (with_twins, n_t, prec + s.b3_twinless_precision_sum, n_p),
        "b3_0": (rec, n_t, s.b3_common_precision_sum, n_c),
        "b3_rn": (rec, n_t, prec, n_p - lone),
        "b3_sys": (
            with_twins,
            n_t,
            prec + (n_t - n_c) + (s.b3_twinless_precision_sum - lone),
            n_p - lone + n_t - n_c,
        ),
    }
    for prefix, (nr, dr, np_, dp) in sums.items():
        out.update(coref_scores(prefix, nr, dr, np_, dp, beta))
    return out
