"""How a subgroup counts the predicted links that leave its true clusters (Remark 3).

Binette et al. (2024, Remark 3) estimate a subgroup's pairwise precision as the
number of true links within the subgroup's entities ``C'`` over "the number of
links in Ĉ that intersect ``C'``". Per sampled true cluster ``c`` the
denominator is made of

* ``|P_c| = sum_j C(n_j, 2)``, the predicted links inside ``c``, and
* ``|P_c^-| = sum_j n_j (b_j - n_j)``, the predicted links from ``c`` to records
  outside ``c``.

``leaving="half"`` (the default, and the only choice for the whole population)
counts each leaving link 1/2: ``|P_c| + |P_c^-| / 2 = sum_j n_j (b_j - 1) / 2``.
A link joins two true clusters, so over the whole population each link counts
once in all and the sum is exactly ``|P|`` (Binette et al. 2022, eq. 14). In a
subgroup, a link from ``C'`` to a record outside ``C'`` then counts 1/2: the
subgroup is charged half of each link it shares with the rest.

``leaving="full"`` follows the remark's wording: every predicted link that
touches the entity counts 1, ``|P_c| + |P_c^-|``. A link from ``C'`` to a record
outside ``C'`` counts 1, which is the remark's "links intersecting ``C'``"; a
link between two *different* entities of ``C'`` is counted once from each (the
sample cannot tell the true cluster of an unsampled record, so the two cases
cannot be separated). The target is then the precision of the subgroup's
entities each charged with all of its predicted links: lower than the
``"half"`` value whenever links leave the subgroup, and the two agree when no
predicted link leaves ``c``.

The same choice applies to the forms built on the same denominator: the pairwise
F-score (Binette et al. 2024, Lemma 2, where ``|P_c^-|`` enters through
``SDE``) and the block forms of cluster precision and cluster F-score, whose
denominator counts each predicted cluster meeting ``c`` as ``n_cj / b_j``
(``"half"``: shared among the true clusters it meets) or as 1 (``"full"``).
Recall, B-cubed and the summary statistics share nothing and do not change.
"""

from __future__ import annotations

from typing import Literal

from .._errors import InputError
from .._validation import describe
from ._registry import EstimatorSpec, TermFunction

__all__ = ["LEAVING", "Leaving", "check_leaving", "spec_terms"]

Leaving = Literal["half", "full"]
LEAVING: tuple[Leaving, ...] = ("half", "full")


def check_leaving(leaving: object) -> Leaving:
    """``leaving`` itself when it is ``"half"`` or ``"full"``, else an error naming it."""
    if leaving == "half":
        return "half"
    if leaving == "full":
        return "full"
    raise InputError(f"'leaving' must be one of half, full; received {describe(leaving)}")


def spec_terms(spec: EstimatorSpec, leaving: Leaving) -> TermFunction:
    """The term function of ``spec`` under the weighting ``leaving``."""
    if leaving == "full" and spec.full is not None:
        return spec.full
    return spec.terms
