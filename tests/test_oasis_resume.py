"""Saving and resuming a sampler changes nothing: same state, same estimates.

A resumed run is compared with an uninterrupted run of the same seed, through
the API (the whole saved state, byte for byte) and through the CLI, with a
noisy oracle too: its flips are fixed per pair by the seed, so a new oracle of
the same seed answers the resumed run as the first one would have.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.oasis import NoisyOracle, load_sampler, make_sampler, synthetic_pool

POOL = synthetic_pool(3000, imbalance=30, seed=11)
METHODS = [
    ("oasis", {"n_strata": 20}),
    ("passive", {}),
    ("passive", {"replace": False}),
    ("stratified", {"n_strata": 20}),
    ("importance", {}),
]


def _saved(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return json.loads(str(arrays.pop("__meta__"))), arrays


@pytest.mark.parametrize(("method", "options"), METHODS)
@pytest.mark.parametrize("noise", [0.0, 0.1])
def test_resumed_state_and_estimates_equal_an_uninterrupted_run(
    tmp_path: Path, method: str, options: dict[str, Any], noise: float
) -> None:
    def oracle() -> Any:
        return NoisyOracle(POOL, flip_probability=noise, seed=5) if noise else None

    straight = make_sampler(method, POOL, seed=3, **options)  # type: ignore[arg-type]
    want = straight.run(oracle(), budget=400)
    straight.save(tmp_path / "straight.npz")

    part = make_sampler(method, POOL, seed=3, **options)  # type: ignore[arg-type]
    part.run(oracle(), budget=150)
    part.save(tmp_path / "part.npz")
    resumed = load_sampler(tmp_path / "part.npz", POOL)
    got = resumed.run(oracle(), budget=400)
    resumed.save(tmp_path / "resumed.npz")

    assert got == want
    meta_a, arrays_a = _saved(tmp_path / "straight.npz")
    meta_b, arrays_b = _saved(tmp_path / "resumed.npz")
    assert meta_a == meta_b
    assert arrays_a.keys() == arrays_b.keys()
    for key in arrays_a:
        np.testing.assert_array_equal(arrays_a[key], arrays_b[key], err_msg=key)


@pytest.fixture(scope="module")
def pool_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("resume") / "pool.csv"
    pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(POOL.size)],
            "score": POOL.scores,
            "prediction": POOL.predictions,
            "label": POOL.labels,
        }
    ).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("noise", ["0", "0.1"])
def test_cli_resume_equals_an_uninterrupted_run(pool_csv: Path, tmp_path: Path, noise: str) -> None:
    runner = CliRunner()
    base = ["oasis", "estimate", str(pool_csv), "--seed", "4", "--noise", noise, "--format", "json"]
    state = tmp_path / "state.npz"
    first = runner.invoke(app, [*base, "--budget", "100", "--state", str(state)])
    assert first.exit_code == 0, first.output
    resumed = runner.invoke(app, [*base, "--budget", "300", "--state", str(state)])
    straight = runner.invoke(app, [*base, "--budget", "300"])
    assert resumed.exit_code == 0 and straight.exit_code == 0
    assert json.loads(resumed.stdout) == json.loads(straight.stdout)
    note = f"continuing the oasis sampler saved in '{state}'\n"
    assert resumed.stderr == note + straight.stderr  # the same warnings, after the note


def test_a_state_saved_by_an_earlier_version_still_resumes(tmp_path: Path) -> None:
    # earlier versions saved the sums of 1 / v_t (not of v_t), the cross products of the
    # draws and a 'variance_prior' option; the sums of v_t are then bounded from them
    sampler = make_sampler("oasis", POOL, seed=4, n_strata=20)
    sampler.run(budget=150)
    path = tmp_path / "new.npz"
    sampler.save(path)
    meta, arrays = _saved(path)
    inv_v = 1.0 / np.where(arrays["oasis_v_sums"] > 0, arrays["oasis_v_sums"], np.inf)
    arrays["oasis_inv_v_sums"] = sampler.iterations**2 * inv_v
    del arrays["oasis_v_sums"]
    meta["options"]["variance_prior"] = 20.0
    meta["cross"] = [0.0] * 6
    old = tmp_path / "old.npz"
    with open(old, "wb") as fh:
        np.savez_compressed(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    resumed = load_sampler(old, POOL)
    # T^2 / (T^2 / m) gives back the sums exactly here, so the estimates agree
    assert resumed.estimate().f_measure == sampler.estimate().f_measure
    resumed.run(budget=200)
    assert resumed.labels_used == 200
