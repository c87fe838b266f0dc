"""Regenerate ereval's bundled example data set (seeded; run from anywhere).

The records are simulated people from the sample data shipped with pseudopeople
(BSD-3-Clause, Copyright (c) 2023 Institute for Health Metrics and Evaluation),
noised by pseudopeople's own generators: three decennial censuses, the American
Community Survey, the Current Population Survey and WIC.  A random set of
households is kept, and every record of their members is pooled into one file
to deduplicate; the true entity of a record is its pseudopeople ``simulant_id``.

The predictions come from a small linker written here: blocking on a few keys,
a weighted string similarity per candidate pair, and the connected components
of the pairs at or above a threshold.

Generation needs packages that ereval itself never uses::

    pip install "pseudopeople==1.3.1" "rapidfuzz>=3"

and writes into ``src/ereval/data/example/`` (or the directory given as the
only argument).  ereval, for the labelled sample and the PAULA plan, is imported
from this repository's ``src``.  Every step is seeded, so a rerun with the same
package versions rewrites the same files.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
from rapidfuzz.distance import JaroWinkler

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from ereval.estimators import draw_sample  # noqa: E402
from ereval.paula import paula_plan  # noqa: E402

PSEUDOPEOPLE_VERSION = "1.3.1"
SEED = 20240101
#: Households drawn from all the households of the simulated population.
N_HOUSEHOLDS = 900
#: Threshold of the good linker (and of the predictions in the pair pool) and the poor one.
GOOD_THRESHOLD = 0.80
POOR_THRESHOLD = 0.65
#: Releases of the linker over time: (date, threshold or "exact").
RELEASES: tuple[tuple[str, float | str], ...] = (
    ("2024-01-01", "exact"),
    ("2024-04-01", 0.90),
    ("2024-07-01", GOOD_THRESHOLD),
    ("2024-10-01", 0.68),
)
#: Labelled sample of true clusters: records drawn uniformly (design "record").
SAMPLE_DRAWS = 200
#: PAULA plan of the ranked pairs.
PAULA_EPSILON = 0.1
PAULA_DELTA = 10
#: Pairs whose labels calibrate the match probability of the pool.
CALIBRATION_PAIRS = 400
#: Blocks larger than this are skipped (they would only add clear non-matches).
MAX_BLOCK = 60

ATTRIBUTES = [
    "first_name",
    "middle_initial",
    "last_name",
    "date_of_birth",
    "sex",
    "street_number",
    "street_name",
    "unit_number",
    "city",
    "state",
    "zipcode",
]
SOURCES = {
    "census": "generate_decennial_census",
    "acs": "generate_american_community_survey",
    "cps": "generate_current_population_survey",
    "wic": "generate_women_infants_and_children",
}


# --------------------------------------------------------------------------- records


def load_sources(seed: int) -> pd.DataFrame:
    """Every noised record of the four pseudopeople sample data sets, as strings."""
    import pseudopeople as psp

    if psp.__version__ != PSEUDOPEOPLE_VERSION:
        raise SystemExit(
            f"pseudopeople {PSEUDOPEOPLE_VERSION} is needed to reproduce the files; "
            f"found {psp.__version__}"
        )
    frames = []
    for offset, (source, function) in enumerate(SOURCES.items()):
        frame = getattr(psp, function)(seed=seed + offset, year=None, verbose=False)
        if "year" in frame.columns:
            year = frame["year"].astype(int).astype(str)
        else:
            year = pd.to_datetime(frame["survey_date"]).dt.year.astype(str)
        out = pd.DataFrame({"source": source, "year": year.to_numpy()})
        for col in [*ATTRIBUTES, "simulant_id", "household_id"]:
            out[col] = frame[col].astype("string").fillna("").to_numpy()
        frames.append(out)
    return pd.concat(frames, ignore_index=True)


def choose_records(allrec: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """All records of the members of N_HOUSEHOLDS random households, with fresh ids."""
    households = np.sort(allrec["household_id"].unique())
    chosen = rng.choice(households, size=N_HOUSEHOLDS, replace=False)
    people = allrec.loc[allrec["household_id"].isin(chosen), "simulant_id"].unique()
    rec = allrec[allrec["simulant_id"].isin(people)].reset_index(drop=True)
    # ids say which source a record comes from and nothing about its entity
    order = rng.permutation(len(rec))
    rec = rec.iloc[order].reset_index(drop=True)
    numbers = rec.groupby("source").cumcount() + 1
    rec.insert(
        0, "record_id", [f"{s}-{n:05d}" for s, n in zip(rec["source"], numbers, strict=True)]
    )
    rec = rec.sort_values("record_id", kind="stable").reset_index(drop=True)
    rec = rec.rename(columns={"simulant_id": "entity_id"}).drop(columns="household_id")
    return rec[["record_id", "source", "year", *ATTRIBUTES, "entity_id"]]


# --------------------------------------------------------------------------- linker


def norm(values: pd.Series) -> list[str]:
    return [v.strip().lower() for v in values]


def blocking_pairs(rec: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Candidate pairs (i < j): records sharing any blocking key."""
    first = norm(rec["first_name"])
    last = norm(rec["last_name"])
    dob = ["".join(p) if (p := _dob_parts(d)) else "" for d in rec["date_of_birth"]]
    number = list(rec["street_number"])
    street = norm(rec["street_name"])
    keys: list[list[str]] = [
        [f"L{ln[:4]}|{d[-4:]}" if ln and d else "" for ln, d in zip(last, dob, strict=True)],
        [f"D{d}" if d else "" for d in dob],
        [f"F{fn[:3]}|{ln[:1]}" if fn and ln else "" for fn, ln in zip(first, last, strict=True)],
        [f"A{n}|{s[:5]}" if n and s else "" for n, s in zip(number, street, strict=True)],
    ]
    pairs: set[tuple[int, int]] = set()
    for column in keys:
        groups: dict[str, list[int]] = {}
        for i, key in enumerate(column):
            if key:
                groups.setdefault(key, []).append(i)
        for members in groups.values():
            if 1 < len(members) <= MAX_BLOCK:
                for a in range(len(members)):
                    for b in range(a + 1, len(members)):
                        pairs.add((members[a], members[b]))
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _dob_parts(value: str) -> tuple[str, str, str] | None:
    """Month, day and year of a date of birth written MM/DD/YYYY or MMDDYYYY."""
    digits = "".join(ch for ch in value if ch.isdigit())
    if len(digits) != 8:
        return None
    return digits[:2], digits[2:4], digits[4:]


def _dob_similarity(a: str, b: str) -> float:
    pa, pb = _dob_parts(a), _dob_parts(b)
    if pa is None or pb is None:
        return 0.5  # missing or unreadable: no evidence either way
    if pa == pb:
        return 1.0
    if (pa[0], pa[1], pa[2]) == (pb[1], pb[0], pb[2]):
        return 0.6  # day and month swapped
    same = sum(x == y for x, y in zip(pa, pb, strict=True))
    return {0: 0.0, 1: 0.1, 2: 0.6}[same]


def _name_similarity(a: str, b: str) -> float:
    if not a or not b:
        return 0.5
    return float(JaroWinkler.normalized_similarity(a, b))


def pair_scores(rec: pd.DataFrame, pairs: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Weighted similarity in [0, 1] of each candidate pair."""
    first = norm(rec["first_name"])
    middle = norm(rec["middle_initial"])
    last = norm(rec["last_name"])
    dob = list(rec["date_of_birth"])
    sex = list(rec["sex"])
    address = [
        f"{n} {s}".strip().lower()
        for n, s in zip(rec["street_number"], rec["street_name"], strict=True)
    ]
    scores = np.empty(len(pairs))
    for k, (i, j) in enumerate(pairs):
        s_first = _name_similarity(first[i], first[j])
        s_last = _name_similarity(last[i], last[j])
        s_middle = 0.5 if not middle[i] or not middle[j] else float(middle[i] == middle[j])
        s_dob = _dob_similarity(dob[i], dob[j])
        s_sex = 0.5 if not sex[i] or not sex[j] else float(sex[i] == sex[j])
        s_address = _name_similarity(address[i], address[j])
        scores[k] = (
            0.25 * s_first
            + 0.20 * s_last
            + 0.05 * s_middle
            + 0.30 * s_dob
            + 0.05 * s_sex
            + 0.15 * s_address
        )
    return np.round(scores, 4)


def components(n: int, pairs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Connected components (union-find) of ``n`` records linked by ``pairs``."""
    parent = np.arange(n)

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return int(root)

    for i, j in pairs:
        ri, rj = find(int(i)), find(int(j))
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    return np.array([find(i) for i in range(n)], dtype=np.int64)


def clustering(rec: pd.DataFrame, roots: Iterable[int]) -> pd.DataFrame:
    """Membership table with cluster ids C00001.. numbered by first record."""
    codes: dict[int, str] = {}
    ids = [codes.setdefault(r, f"C{len(codes) + 1:05d}") for r in roots]
    return pd.DataFrame({"record_id": rec["record_id"], "cluster_id": ids})


def exact_rule(rec: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Components of the records equal on first name, last name and date of birth."""
    key = [
        f"{f}|{ln}|{d}"
        for f, ln, d in zip(
            norm(rec["first_name"]), norm(rec["last_name"]), rec["date_of_birth"], strict=True
        )
    ]
    first_of: dict[str, int] = {}
    return np.array([first_of.setdefault(k, i) for i, k in enumerate(key)], dtype=np.int64)


def calibrate(
    scores: npt.NDArray[np.float64], labels: npt.NDArray[np.int8], rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """Logistic fit of label on score over a small labelled subset spread over the scores.

    The subset is CALIBRATION_PAIRS pairs drawn uniformly within ten equal-width
    score bins, as a linker would be calibrated on a small training set.
    """
    bins = np.minimum((scores * 10).astype(int), 9)
    per_bin = CALIBRATION_PAIRS // 10
    chosen: list[int] = []
    for b in range(10):
        members = np.flatnonzero(bins == b)
        if members.size:
            chosen.extend(rng.choice(members, size=min(per_bin, members.size), replace=False))
    x = scores[chosen]
    y = labels[chosen].astype(float)
    design = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(50):  # Newton steps with a small ridge for separable data
        p = 1.0 / (1.0 + np.exp(-design @ beta))
        grad = design.T @ (y - p) - 1e-3 * beta
        hess = design.T @ (design * (p * (1 - p))[:, None]) + 1e-3 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    out: npt.NDArray[np.float64] = np.round(1.0 / (1.0 + np.exp(-(beta[0] + beta[1] * scores))), 4)
    return out


# --------------------------------------------------------------------------- files


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n")


def build(out: Path) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(SEED)
    rec = choose_records(load_sources(SEED), rng)
    n = len(rec)
    truth = pd.DataFrame({"record_id": rec["record_id"], "cluster_id": rec["entity_id"]})

    pairs = blocking_pairs(rec)
    scores = pair_scores(rec, pairs)
    entity = rec["entity_id"].to_numpy()
    labels = (entity[pairs[:, 0]] == entity[pairs[:, 1]]).astype(np.int8)

    def linked(threshold: float) -> pd.DataFrame:
        return clustering(rec, components(n, pairs[scores >= threshold]))

    files: dict[str, pd.DataFrame] = {
        "records.csv": rec,
        "truth.csv": truth,
        "pred_good.csv": linked(GOOD_THRESHOLD),
        "pred_poor.csv": linked(POOR_THRESHOLD),
    }
    for date, rule in RELEASES:
        release = clustering(rec, exact_rule(rec)) if rule == "exact" else linked(float(rule))
        files[f"releases/{date}.csv"] = release

    # the pool of scored candidate pairs, best first (so it is also PAULA's ranked list)
    order = np.lexsort((pairs[:, 1], pairs[:, 0], -scores))
    pairs, scores, labels = pairs[order], scores[order], labels[order]
    ids = rec["record_id"].to_numpy()
    pool = pd.DataFrame(
        {
            "pair_id": [f"P{k + 1:05d}" for k in range(len(pairs))],
            "record_id_1": ids[pairs[:, 0]],
            "record_id_2": ids[pairs[:, 1]],
            "score": scores,
            "probability": calibrate(scores, labels, rng),
            "prediction": (scores >= GOOD_THRESHOLD).astype(np.int8),
            "label": labels,
        }
    )
    files["pairs.csv"] = pool

    plan = paula_plan(len(pool), epsilon=PAULA_EPSILON, delta=PAULA_DELTA)
    ranks = plan.ranks()
    files["paula_labels.csv"] = pd.DataFrame(
        {
            "rank": ranks,
            "pair_id": pool["pair_id"].to_numpy()[ranks - 1],
            "label": labels[ranks - 1],
        }
    )

    sample = draw_sample(truth, n=SAMPLE_DRAWS, design="record", seed=rng)
    files["sample.csv"] = sample.to_frame()

    if out.exists():
        for old in out.rglob("*.csv"):
            old.unlink()
    for name, frame in files.items():
        write_csv(frame, out / name)
    return files


def main(argv: Sequence[str]) -> None:
    out = Path(argv[0]) if argv else REPO / "src" / "ereval" / "data" / "example"
    files = build(out)
    for name in files:
        size = (out / name).stat().st_size
        print(f"{name:28s} {len(files[name]):7d} rows {size / 1024:8.1f} KiB")


if __name__ == "__main__":
    main(sys.argv[1:])
