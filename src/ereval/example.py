"""The bundled example data set: simulated people, a true clustering and linkers' outputs.

4,546 records of 2,165 simulated people (names, dates of birth, addresses)
pooled from three censuses and three surveys of the fictional population of
pseudopeople, with the noise of real records, to be deduplicated. The files
(see ``README.md`` beside them, :data:`FILES` and ``ereval example --help``):

``records.csv``
    ``record_id``, ``source``, ``year``, the attributes and ``entity_id``, the true entity.
``truth.csv``
    The true clustering (``record_id``, ``cluster_id``).
``pred_good.csv``, ``pred_poor.csv``
    Two predicted clusterings: a linker at a strict and at a loose threshold.
``releases/YYYY-MM-DD.csv``
    Four releases of the linker over a year.
``pairs.csv``
    Scored candidate pairs, best first: the pool of ``ereval oasis`` and the
    ranked list of ``ereval paula``.
``paula_labels.csv``
    The labels of the ranks a PAULA plan (``--epsilon 0.1 --delta 10``) asks for.
``sample.csv``
    A labelled sample of true clusters for ``ereval estimate`` (200 records drawn
    uniformly; ``--design record --draws draws``).
``NOTICE``
    Source, licence and copyright of the data.

Examples
--------
>>> from ereval import evaluate, example
>>> scores = evaluate(example.load("truth.csv"), example.load("pred_good.csv"))
>>> round(scores["pairwise_f1"], 3)
0.951
"""

from __future__ import annotations

import os
import shutil
import tempfile
from importlib.resources import files as _package_files
from importlib.resources.abc import Traversable
from pathlib import Path

import pandas as pd

from ._errors import InputError

__all__ = ["FILES", "existing", "files", "load", "write"]

#: Every file of the example, as a relative path with ``/`` separators.
FILES: tuple[str, ...] = (
    "NOTICE",
    "README.md",
    "records.csv",
    "truth.csv",
    "pred_good.csv",
    "pred_poor.csv",
    "releases/2024-01-01.csv",
    "releases/2024-04-01.csv",
    "releases/2024-07-01.csv",
    "releases/2024-10-01.csv",
    "pairs.csv",
    "paula_labels.csv",
    "sample.csv",
)

#: Numeric columns of each table; every other column is text, read exactly as written.
_NUMERIC: dict[str, dict[str, str]] = {
    "pairs.csv": {
        "score": "float64",
        "probability": "float64",
        "prediction": "int8",
        "label": "int8",
    },
    "paula_labels.csv": {"rank": "int64", "label": "int8"},
    "sample.csv": {"probability": "float64", "draws": "int64"},
}


def _root() -> Traversable:
    return _package_files("ereval").joinpath("data", "example")


def _check_name(name: str) -> str:
    if name not in FILES:
        raise InputError(f"'name' must be one of {', '.join(FILES)}; received {name!r}")
    return name


def _resource(name: str) -> Traversable:
    node = _root()
    for part in name.split("/"):
        node = node.joinpath(part)
    return node


def files() -> dict[str, Traversable]:
    """Each file of the example, by its relative name, as an importlib resource.

    Open one with ``.open()`` or ``.read_text()``;
    :func:`importlib.resources.as_file` gives a real path when one is needed.
    """
    return {name: _resource(name) for name in FILES}


def load(name: str) -> pd.DataFrame:
    """Read one CSV file of the example into a pandas DataFrame.

    Ids, names, dates and codes stay text exactly as written (``"00000"`` keeps
    its zeros, an empty cell is ``""``); only the scores, labels, ranks,
    probabilities and draw counts of ``pairs.csv``, ``paula_labels.csv`` and
    ``sample.csv`` are numbers.

    Parameters
    ----------
    name : str
        A CSV file of :data:`FILES`, e.g. ``"truth.csv"`` or ``"releases/2024-01-01.csv"``.
    """
    if not _check_name(name).endswith(".csv"):
        raise InputError(f"'name' must be a CSV file of the example; received {name!r}")
    with _resource(name).open("rb") as fh:
        frame = pd.read_csv(fh, dtype=str, encoding="utf-8", keep_default_na=False, na_filter=False)
    for column, dtype in _NUMERIC.get(name, {}).items():
        frame[column] = frame[column].astype(dtype)
    return frame


def existing(directory: str | os.PathLike[str]) -> list[str]:
    """The example files (relative names) under ``directory`` that differ from the
    bundled ones (a file already identical to its bundled copy loses nothing when
    written again, so writing the example twice is not an error)."""
    target = Path(directory)
    bundled = files()
    out = []
    for name in FILES:
        path = target / name
        if not path.exists():
            continue
        if path.is_dir() or path.read_bytes() != bundled[name].read_bytes():
            out.append(name)
    return out


def write(directory: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
    """Write every file of the example into ``directory`` (created if needed).

    The files are first written to a temporary directory beside ``directory``
    and then moved into place, so an error leaves no partial copy behind.

    Parameters
    ----------
    directory : path
        Where to write; may already exist and hold other files.
    force : bool, default False
        Replace example files that already exist there with other content;
        without it their presence is an error and nothing is written (files
        identical to the bundled ones are no obstacle).

    Returns
    -------
    list of pathlib.Path
        The written files, in the order of :data:`FILES`.
    """
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise InputError(f"'directory': '{target}' exists and is not a directory")
    clash = existing(target)
    if clash and not force:
        shown = ", ".join(clash[:3]) + (", ..." if len(clash) > 3 else "")
        raise InputError(
            f"'directory': '{target}' already holds {len(clash)} of the example files with other content "
            f"({shown}); nothing was written (overwrite them with force=True)"
        )
    for name in clash:
        if (target / name).is_dir():
            raise InputError(f"'directory': '{target / name}' is a directory")
    parent = target.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".ereval-example-", dir=parent))
    try:
        for name, resource in files().items():
            dest = staging / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            with resource.open("rb") as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
        if not target.exists():
            os.replace(staging, target)
        else:
            for name in FILES:
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / name, target / name)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return [target / name for name in FILES]
