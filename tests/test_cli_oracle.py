"""The console oracle of the command-line layer: a person answers y or n."""

from __future__ import annotations

import io

import pytest

from ereval import InputError
from ereval.cli._oracle import ConsoleOracle
from ereval.oasis import OASISSampler, synthetic_pool

SMALL = synthetic_pool(3000, imbalance=30, seed=11)


def test_console_oracle_reads_answers() -> None:
    out = io.StringIO()
    oracle = ConsoleOracle(
        SMALL, stdin=io.StringIO("maybe\ny\nn\n"), stdout=out, describe=lambda i: f"record {i}"
    )
    assert oracle(0) == 1
    assert oracle(1) == 0
    text = out.getvalue()
    assert "please answer y or n" in text and "record 0" in text
    with pytest.raises(InputError, match="the input ended"):
        oracle(2)


def test_console_oracle_drives_a_sampler() -> None:
    answers = io.StringIO("".join("y\n" if i % 2 else "n\n" for i in range(20)))
    oracle = ConsoleOracle(SMALL, stdin=answers, stdout=io.StringIO())
    est = OASISSampler(SMALL, seed=0).run(oracle, budget=20)
    assert est.labels_used == 20
