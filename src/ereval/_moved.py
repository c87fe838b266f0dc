"""Which records changed cluster between two releases, whatever the cluster ids.

Of the records of the old clusters a comparison did not keep
(:meth:`ereval.Comparison.records` with ``changed_only``), a record moved when it
is not in the largest part its old cluster became, or its new cluster holds more
records of another old cluster than of its own (ties to the smallest id as text),
unless it keeps its cluster's id; the others stayed in a cluster that gained or
lost records. Added and removed records moved. :func:`moved_records` applies the
rule in memory, :func:`moved_sql` where the records are.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from .engines import _dialect as sql

__all__ = ["moved_records", "moved_sql"]


def moved_records(changed: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Which records of the changed clusters of two releases (``old_cluster,
    new_cluster``, as :meth:`ereval.Comparison.records` gives them) changed
    cluster (the rule of the module's docstring).

    >>> f = pd.DataFrame({"old_cluster": ["a", "a", "b"], "new_cluster": ["x", "x", "x"]})
    >>> moved_records(f).tolist()
    [False, False, True]
    """
    old = changed["old_cluster"].astype(object)
    new = changed["new_cluster"].astype(object)
    missing = (old.isna() | new.isna()).to_numpy()
    pairs = pd.DataFrame({"old": old.astype(str), "new": new.astype(str)})
    counts = pairs[~missing].groupby(["old", "new"]).size().rename("n").reset_index()
    ranked = counts.sort_values(["n", "old", "new"], ascending=[False, True, True])
    main_new = ranked.drop_duplicates("old").set_index("old")["new"]
    main_old = ranked.drop_duplicates("new").set_index("new")["old"]
    stays = (pairs["old"].map(main_new) == pairs["new"]) & (
        pairs["new"].map(main_old) == pairs["old"]
    )
    stays |= pairs["old"] == pairs["new"]  # a record that keeps its cluster's id stays
    out: npt.NDArray[np.bool_] = (~stays.to_numpy(dtype=bool)) | missing
    return out


def moved_sql(changed: str, dialect: sql.Dialect = sql.DUCKDB) -> str:
    """The rows of the table ``changed`` (``record_id, old_cluster, new_cluster,
    category``: the records of the changed clusters) whose record moved, by the rule
    of :func:`moved_records`: the largest part of each old cluster and of each new
    cluster found by two ``GROUP BY`` each (the most records, then the smallest id as
    text), never a window."""
    text = dialect.text_type
    old, new = (f"CAST(c.{k}_cluster AS {text})" for k in ("old", "new"))
    parts = (
        f"SELECT CAST(old_cluster AS {text}) AS o, CAST(new_cluster AS {text}) AS w, "
        f"count(*) AS n FROM {changed} "
        "WHERE old_cluster IS NOT NULL AND new_cluster IS NOT NULL GROUP BY 1, 2"
    )

    def main(key: str, other: str) -> str:  # each key's part of the most records
        return (
            f"SELECT p.{key}, min(p.{other}) AS {other} FROM ({parts}) AS p JOIN "
            f"(SELECT {key}, max(n) AS m FROM ({parts}) AS q GROUP BY {key}) AS t "
            f"ON p.{key} = t.{key} AND p.n = t.m GROUP BY p.{key}"
        )

    stays = f"(a.w = {new} AND b.o = {old}) OR {old} = {new}"
    return (
        f"SELECT c.* FROM {changed} AS c "
        f"LEFT JOIN ({main('o', 'w')}) AS a ON a.o = {old} "
        f"LEFT JOIN ({main('w', 'o')}) AS b ON b.w = {new} "
        "WHERE c.old_cluster IS NULL OR c.new_cluster IS NULL "
        f"OR NOT coalesce({stays}, false)"
    )
