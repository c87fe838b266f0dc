"""Fuzzy, typo-tolerant search over the text columns of a record file.

The index is built once: every record's searchable text (its chosen columns,
lower-cased, joined by spaces) is cut into character trigrams, and the
(trigram, record) pairs are kept sorted in one integer array. A query is cut
the same way; the records sharing the most trigrams with it are the
candidates, and RapidFuzz's ``WRatio`` ranks them. Trigrams survive typos
(one wrong letter spoils at most three of them), so ``"jonh smiht"`` finds
``"John Smith"``; a query equal to a record id finds that record first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._optional import require
from .._validation import check_int

__all__ = ["SearchHit", "SearchIndex", "record_texts"]

_WIDTH = 64  # bytes of text indexed per record
_CHUNK = 200_000


@dataclass(frozen=True)
class SearchHit:
    """One search result: the record's position in the data, its id, text and score (0-100)."""

    position: int
    record_id: str
    text: str
    score: float


def record_texts(frame: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The searchable text of each row: the ``columns`` joined by spaces (missing -> empty)."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:10])
        raise InputError(
            f"'search_columns' names {', '.join(repr(m) for m in missing)}, not a column of the "
            f"data; columns are {shown}"
        )
    if not columns:
        return [""] * len(frame)
    parts = [frame[c].astype("string").fillna("") for c in columns]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + " " + part
    return [str(s) for s in joined.str.strip().tolist()]


def _encode(texts: Sequence[str]) -> npt.NDArray[np.uint8]:
    raw = np.array(
        [(" " + t.lower() + " ").encode("utf-8")[:_WIDTH] for t in texts], dtype=f"S{_WIDTH}"
    )
    return raw.view(np.uint8).reshape(len(texts), _WIDTH)


def _trigram_codes(block: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    b = block.astype(np.int64)
    codes = (b[:, :-2] << 16) | (b[:, 1:-1] << 8) | b[:, 2:]
    codes[block[:, 2:] == 0] = -1  # windows running past the end of the text
    return codes


class SearchIndex:
    """A trigram index over record texts, queried with :meth:`search`.

    Parameters
    ----------
    record_ids : sequence
        The id of each record (kept as text).
    texts : sequence of str
        The searchable text of each record.

    Examples
    --------
    >>> index = SearchIndex(["r1", "r2", "r3"], ["John Smith Boston", "Jane Smyth Austin",
    ...                                          "Joan Smithers Denver"])
    >>> [h.record_id for h in index.search("jonh smith", limit=2)]
    ['r1', 'r3']
    >>> index.search("r2")[0].record_id
    'r2'
    """

    def __init__(self, record_ids: Sequence[Any], texts: Sequence[str]) -> None:
        self.record_ids = [str(r) for r in record_ids]
        self.texts = [str(t) for t in texts]
        if len(self.record_ids) != len(self.texts):
            raise InputError(
                f"'texts' has {len(self.texts)} entries for {len(self.record_ids)} record ids"
            )
        self._position = {rid: i for i, rid in enumerate(self.record_ids)}
        keys = []
        for start in range(0, len(self.texts), _CHUNK):
            codes = _trigram_codes(_encode(self.texts[start : start + _CHUNK]))
            rows = np.broadcast_to(
                np.arange(start, start + codes.shape[0], dtype=np.int64)[:, None], codes.shape
            )
            valid = codes >= 0
            keys.append((codes[valid] << 32) | rows[valid])
        self._keys = np.sort(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, id_col: str, columns: Sequence[str]) -> SearchIndex:
        """Index the ``columns`` of a table whose ids are in ``id_col``."""
        return cls(frame[id_col].astype("string").tolist(), record_texts(frame, columns))

    def __len__(self) -> int:
        return len(self.record_ids)

    def position(self, record_id: Any) -> int | None:
        """The position of a record id in the data (``None`` if unknown)."""
        return self._position.get(str(record_id))

    def search(self, query: str, *, limit: int = 20, candidates: int = 400) -> list[SearchHit]:
        """The ``limit`` records most similar to ``query``, best first."""
        limit = check_int("limit", limit, minimum=1)
        fuzz = require("rapidfuzz.fuzz", feature="fuzzy search")
        utils = require("rapidfuzz.utils", feature="fuzzy search")
        query = str(query).strip()
        hits: list[SearchHit] = []
        exact = self._position.get(query)
        if exact is not None:
            hits.append(SearchHit(exact, query, self.texts[exact], 100.0))
        if not query:
            return hits
        codes = np.unique(_trigram_codes(_encode([query]))[0])
        codes = codes[codes >= 0]
        lo = np.searchsorted(self._keys, codes << 32)
        hi = np.searchsorted(self._keys, (codes + 1) << 32)
        if (hi > lo).any():
            rows = np.concatenate([self._keys[a:b] for a, b in zip(lo, hi, strict=True)])
            rows = rows & 0xFFFFFFFF
            found, counts = np.unique(rows, return_counts=True)
            if found.shape[0] > candidates:
                keep = np.argpartition(-counts, candidates - 1)[:candidates]
                found = found[keep]
            processed = utils.default_process(query)
            scored = []
            for pos in found.tolist():
                if pos == exact:
                    continue
                score = fuzz.WRatio(processed, utils.default_process(self.texts[pos]))
                scored.append((-score, pos))
            scored.sort()
            for neg, pos in scored[: limit - len(hits)]:
                hits.append(SearchHit(pos, self.record_ids[pos], self.texts[pos], float(-neg)))
        return hits[:limit]
