"""The inputs of an SQL engine as views: the options they are read with, each side's
columns and key, and the checks of what was read (rows, missing and repeated ids).

:class:`SideSpec` names a side's view and columns; :meth:`Database.load
<ereval.engines.Database.load>` makes it the view ``view(r, c, ...)`` by the rules
of :mod:`ereval.io`, with the keys of :func:`key_of`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_choice, examples
from ..io import (
    MISMATCH_POLICIES,
    AlignOptions,
    MismatchPolicy,
    check_link_only,
    check_options,
    column_names,
    kinds_clash,
    missing_columns_error,
)
from . import _dialect as sql

__all__ = [
    "column_of",
    "SideSpec",
    "check_columns",
    "check_scan",
    "check_side",
    "check_unique",
    "hashed_keys",
    "is_link_only",
    "joined_sides",
    "key_of",
    "name_columns",
    "push_table",
    "read_options",
    "second_key",
    "side_specs",
    "size_distribution",
]


def read_options(
    options: AlignOptions,
) -> tuple[MismatchPolicy, str, dict[str, tuple[list[str], list[str]]]]:
    """The mismatch policy, the id type and each side's record and cluster columns
    of the options of :func:`ereval.io.align`, checked.

    Examples
    --------
    >>> policy, id_type, columns = read_options({"pred_cluster_col": "c"})
    >>> policy, id_type, columns["pred"]
    ('error', 'exact', (['record_id'], ['c']))
    """
    check_options(options)
    policy = check_choice("on_mismatch", options.get("on_mismatch", "error"), MISMATCH_POLICIES)
    id_type = check_choice("id_type", options.get("id_type", "exact"), ("exact", "string"))
    rc = options.get("record_col", "record_id")
    cc = options.get("cluster_col", "cluster_id")
    given = {
        "truth": (options.get("truth_record_col"), options.get("truth_cluster_col")),
        "pred": (options.get("pred_record_col"), options.get("pred_cluster_col")),
    }
    columns = {
        side: (
            column_names(records or rc, name=f"{side}_record_col"),
            column_names(clusters or cc, name=f"{side}_cluster_col"),
        )
        for side, (records, clusters) in given.items()
    }
    return policy, id_type, columns


@dataclass(frozen=True)
class SideSpec:
    """One clustering for an SQL engine to load as the view ``view(r, c, ...)``.

    Attributes
    ----------
    view : str
        The name of the view (``t``, ``p``...).
    data : Any
        The input: a file (path, glob or folder of parts), or a relation / DataFrame
        of the engine.
    name : str
        The argument's name, for error messages (``"truth"``, ``"pred"``).
    records, clusters : list of str
        The columns of the record key and of the cluster key.
    extra : tuple of (alias, columns)
        More columns of the view: each alias holds the key of its columns (one
        column as it is, several as the text key of :mod:`ereval.io`), e.g.
        ``(("s", ("first", "last")),)`` for a record's name. They are not checked
        for missing values.
    pair : bool
        Whether the side holds pairs of records rather than a clustering: then
        ``clusters`` names the key of each pair's second record, read as the first
        one is (:func:`second_key`), its missing values counted as missing record ids.
    """

    view: str
    data: Any
    name: str
    records: list[str]
    clusters: list[str]
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extra_option: str = "names"
    allow_empty: bool = False
    pair: bool = False

    @property
    def columns(self) -> list[str]:
        """Every column the side reads, each once."""
        wanted = self.records + self.clusters + [c for _, cols in self.extra for c in cols]
        return list(dict.fromkeys(wanted))

    @property
    def parts(self) -> list[str]:
        """The columns whose values are checked one by one for a missing key: the parts
        of a record key of several columns (and of each pair's second record), since
        the key's text is not empty where one of its parts is."""
        if len(self.records) < 2:
            return []
        return self.records + self.clusters if self.pair else list(self.records)


def key_of(
    cols: list[str], kinds: list[str], *, name: str, as_text: bool = False, dialect: Any = None
) -> tuple[str, tuple[str, ...], bool]:
    """The SQL of the key of ``cols`` (of the given kinds as read), the kinds of its
    parts as compared (integers as text under ``as_text``, as
    :func:`ereval.io._keys.comparable_ids` does), and whether a key of one integer column
    must be cast to text.

    Examples
    --------
    >>> key_of(["s", "id"], ["text", "integer"], name="pred", as_text=True)[1:]
    (('text', 'text'), False)
    >>> key_of(["id"], ["integer"], name="pred", as_text=True)[1:]
    (('text',), True)
    """
    d = sql.DUCKDB if dialect is None else dialect
    if len(cols) > 1:
        for c, kind in zip(cols, kinds, strict=True):
            if kind not in ("text", "integer"):
                raise InputError(
                    f"'{name}': column '{c}' of a key made of several columns must hold "
                    f"integers or text; it holds {kind} values"
                )
        compared = tuple("text" if as_text and k == "integer" else k for k in kinds)
        return sql.key_sql(cols, kinds, as_text=as_text, dialect=d), compared, False
    kind = kinds[0]
    if as_text and kind != "text":
        if kind != "integer":
            raise InputError(
                f"'{name}': only integer and text ids can be compared as text; received {kind} ids"
            )
        return sql.key_sql(cols, kinds, dialect=d), ("text",), True
    return sql.key_sql(cols, kinds, dialect=d), (kind,), False


def second_key(
    spec: SideSpec,
    kinds: list[str],
    first: tuple[str, ...],
    *,
    as_text: bool,
    text_type: str,
    dialect: Any,
) -> tuple[str, str]:
    """The SQL and kind of the second record key of a side of pairs (its columns
    ``spec.clusters`` of the kinds ``kinds`` as read), read as the first one is (its
    kinds as compared: ``first``); an error when the two can never be equal."""
    key, compared, cast = key_of(
        spec.clusters, kinds, name=spec.name, as_text=as_text, dialect=dialect
    )
    if kinds_clash(first, compared):
        raise InputError(
            f"'{spec.name}': the record ids of its first column(s) {spec.records} are of "
            f"kind {'/'.join(first)} but those of {spec.clusters} are of kind "
            f"{'/'.join(compared)}, so no pair can match; give both the same kind, or "
            "id_type='string' to compare integers as their decimal text"
        )
    if cast:
        key = f"CAST({key} AS {text_type})"
    return key, "text" if len(compared) > 1 else compared[0]


def name_columns(columns: list[str]) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], list[str]]:
    """The ``extra`` columns of a :class:`SideSpec` for a record's name held in
    ``columns``: the name's key as ``s``, and with several columns each of them on
    its own as ``s0``, ``s1``... (for their missing values); and the aliases whose
    missing values count (``["s"]`` for one column).

    Examples
    --------
    >>> name_columns(["first", "last"])
    ((('s', ('first', 'last')), ('s0', ('first',)), ('s1', ('last',))), ['s0', 's1'])
    """
    extra = (("s", tuple(columns)),)
    if len(columns) == 1:
        return extra, ["s"]
    each = tuple((f"s{k}", (c,)) for k, c in enumerate(columns))
    return extra + each, [alias for alias, _ in each]


def check_columns(spec: SideSpec, present: list[str]) -> None:
    """The error of the in-memory path when a column of ``spec`` is not among ``present``:
    the key columns first; a column of ``extra`` only (a record's name) is named as one
    of ``'names'``."""
    keys = spec.records + spec.clusters
    missing = [c for c in keys if c not in present]
    if missing:
        raise missing_columns_error(spec.name, missing, present, "'record_col' / 'cluster_col'")
    absent = [c for c in spec.columns if c not in present]
    if absent:
        raise InputError(
            f"'{spec.extra_option}': '{spec.name}' has no column {absent[0]!r}; its columns "
            f"are {present}"
        )


def _given_view(view: str, name: str, policy: MismatchPolicy) -> str:
    """The view of a side as read: under ``"singletons"`` the prediction is read as
    ``p0`` and completed into ``p`` by :func:`completed_rows`."""
    return view + "0" if policy == "singletons" and name == "pred" else view


def side_specs(
    options: AlignOptions, sides: Sequence[tuple[str, Any, str]]
) -> tuple[MismatchPolicy, str, list[SideSpec]]:
    """The policy, the id type and the :class:`SideSpec` of each ``(view, data, name)``
    (``name`` ``"truth"`` or ``"pred"``) read from the options of
    :func:`ereval.io.align`."""
    policy, id_type, columns = read_options(options)
    source = check_link_only(options.get("link_only", False), options.get("source_col"))
    specs = []
    for view, data, name in sides:
        # an empty prediction predicts no pair: the records it lacks are then the
        # mismatch to settle (on_mismatch="singletons" makes each its own cluster)
        spec = SideSpec(
            _given_view(view, name, policy), data, name, *columns[name], allow_empty=name == "pred"
        )
        if source is not None and name == "truth":  # its data sets, as the view's src
            cols = tuple(column_names(source, name="source_col"))
            spec = replace(spec, extra=(("src", cols),), extra_option="source_col")
        specs.append(spec)
    return policy, id_type, specs


def is_link_only(specs: Sequence[SideSpec]) -> bool:
    """Whether the truth's view carries each record's data set (``src``)."""
    return any(alias == "src" for spec in specs for alias, _ in spec.extra)


def push_table(con: Any, name: str, table: Any) -> None:
    """Make the Arrow table ``table`` the view ``name`` of an engine's connection (DuckDB
    reads it where it is; Spark copies it in)."""
    if hasattr(con, "push"):
        con.push(name, table)
    else:
        con.register(name, table)


def joined_sides(
    con: Any, views: tuple[str, str], dialect: sql.Dialect = sql.DUCKDB
) -> tuple[str, str]:
    """The two sides ``views`` as they are joined on their record key: each as
    ``(SELECT rk AS r, c FROM view)`` when both hold the parts of keys of several
    columns (:data:`ereval.engines._dialect.PARTS`, DuckDB only), which join without
    the keys' text; the views themselves otherwise. What is shown of a record (an
    error, an output) is read from the views' own ``r``."""
    if dialect is not sql.DUCKDB:
        return views
    for view in views:
        described = con.execute(f"DESCRIBE SELECT * FROM {view}").fetchall()
        if sql.PARTS not in (str(row[0]) for row in described):
            return views
    t, p = (f"(SELECT {sql.PARTS} AS r, c FROM {view})" for view in views)
    return t, p


#: DuckDB's integer types, the types of the parts of a key that hash as their values.
_INTEGERS = "U?(?:TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)"
#: A key of text, or of parts of text and integers (:data:`ereval.engines._dialect.PARTS`).
_HASHED_KEY = re.compile(rf"VARCHAR|STRUCT\((?:\w+ (?:VARCHAR|{_INTEGERS})(?:, |\)$))+")


def hashed_keys(con: Any, side: str) -> bool:
    """Whether the record keys ``r`` of ``side`` (one of :func:`joined_sides`) are text,
    or the parts of keys of several columns, texts and integers: keys that group more
    cheaply by a 64-bit hash of them (:data:`ereval.engines._dialect.HASHED_ALONE_KEY`)
    than by themselves, and hash as they compare."""
    described = con.execute(f"DESCRIBE SELECT r FROM {side}").fetchall()
    return _HASHED_KEY.fullmatch(str(described[0][1])) is not None


def column_of(con: Any, query: str) -> list[Any]:
    """The first column of the rows of ``query``."""
    return [r[0] for r in con.execute(query).fetchall()]


def check_decimals(
    first: tuple[int, int] | None, other: tuple[int, int] | None, *, truth: str, name: str
) -> None:
    """Record ids of two decimal columns, of the (precision, scale) ``first`` and
    ``other``, are compared in one decimal type that holds both exactly; an error when
    it would need more than the 38 digits SQL engines have (where they would round)."""
    if first is None or other is None:
        return
    scale = max(first[1], other[1])
    if max(first[0] - first[1], other[0] - other[1]) + scale > 38:
        a, b = (f"DECIMAL({p},{s})" for p, s in (first, other))
        raise InputError(
            f"record ids of '{truth}' are {a} and those of '{name}' {b}: no decimal of 38 "
            "digits holds both exactly, so they cannot be compared; give both sides the same "
            "decimal type"
        )


def check_scan(spec: SideSpec, counts: Sequence[int], *, by_parts: bool) -> None:
    """:func:`check_side` on the counts of ``spec``'s view
    (:func:`ereval.engines._dialect.nulls_sql`), the first part holding a missing
    value named, as in memory, when the parts were counted (``by_parts``); for
    pairs, the missing keys of both records are missing record ids."""
    n, n_null_r, n_null_c, *per_part = (int(v) for v in counts)
    if by_parts and n_null_r:
        column, missing = next((c, k) for c, k in zip(spec.parts, per_part, strict=True) if k)
        raise InputError(
            f"'{spec.name}' has {missing} missing values in key column '{column}' "
            "(empty, null or NaN)"
        )
    if spec.pair:
        n_null_r, n_null_c = n_null_r + n_null_c, 0
    check_side(spec.name, n, n_null_r, n_null_c, allow_empty=spec.allow_empty)


def check_side(
    name: str, n: int, n_null_records: int, n_null_clusters: int, *, allow_empty: bool = False
) -> None:
    """The counts of one side's scan (:func:`ereval.engines._dialect.nulls_sql`): it has rows
    (unless ``allow_empty``) and no missing id."""
    if n == 0 and not allow_empty:
        raise InputError(f"'{name}' is empty; expected at least one record")
    if n_null_records:
        raise InputError(f"'{name}' has {n_null_records} missing record ids (empty, null or NaN)")
    if n_null_clusters:
        raise InputError(f"'{name}' has {n_null_clusters} missing cluster ids (empty, null or NaN)")


def size_distribution(con: Any, view: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct cluster sizes of ``view`` in increasing order and the number of
    clusters of each (as :func:`ereval.summary.size_distribution`)."""
    got = con.execute(sql.size_distribution_sql(view)).fetchnumpy()
    sizes = np.asarray(got["size"], dtype=np.int64)
    counts = np.asarray(got["clusters"], dtype=np.int64)
    order = np.argsort(sizes)
    return sizes[order], counts[order]


def check_unique(con: Any, view: str, name: str) -> None:
    """An error naming the repeated record ids of ``view``, if any."""
    surplus, repeated = con.execute(sql.duplicates_sql(view)).fetchall()[0]
    if surplus:
        ex = examples(column_of(con, sql.repeated_sql(view)), total=int(repeated))
        raise InputError(
            f"'{name}' has {surplus} duplicate record ids (e.g. {ex}); "
            "each record must belong to exactly one cluster"
        )
