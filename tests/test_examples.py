"""The scripts of examples/, each run in its short form: every `main` checks its own
result (and raises if it is wrong); these tests also check what it returns. The
optional extras (scikit-learn, tqdm, matplotlib) are used where installed and the
parts that need them are skipped where not."""

import importlib.util
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _load(name: str):
    """The example script `name`.py as a module (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_monte_carlo_pi():
    example = _load("monte_carlo_pi")
    estimate = example.main(samples=200_000, batch_size=100_000)
    assert abs(estimate - math.pi) < example.tolerance(200_000)


def test_heat_equation_2d():
    assert _load("heat_equation_2d").main(grid=32, steps=100) < 1e-4


def test_per_example_gradients():
    assert _load("per_example_gradients").main(batch_size=8) < 1e-5


def test_kmeans():
    centers = _load("kmeans").main(points=2000, clusters=4, iterations=5)
    assert centers.shape == (4, 2)


def test_mlp_digits_trains_on_the_synthetic_stand_in():
    assert _load("mlp_digits").main(steps=60, synthetic=True, progress=False) > 0.5


def test_mlp_digits_falls_back_to_synthetic_data_without_sklearn(monkeypatch, capsys):
    example = _load("mlp_digits")
    monkeypatch.setattr(example, "_installed", lambda name: False)
    x_train, y_train, x_test, y_test, name = example.load_data(seed=0)
    assert name == "synthetic digits" and "scikit-learn is not installed" in capsys.readouterr().out
    assert x_train.shape[1] == x_test.shape[1] == 64 and set(np.unique(y_train)) == set(range(10))


def test_mlp_digits_on_the_digits():
    pytest.importorskip("sklearn")
    assert _load("mlp_digits").main(steps=100, synthetic=False) > 0.8


def test_mlp_digits_plots_its_curves(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "curves.png"
    _load("mlp_digits").main(steps=60, synthetic=True, plot=str(path), progress=False)
    assert path.stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize("script, args", [
    ("monte_carlo_pi", ["--samples", "100000"]),
    ("heat_equation_2d", ["--grid", "16", "--steps", "20"]),
    ("per_example_gradients", ["--batch-size", "4"]),
    ("kmeans", ["--points", "1000", "--clusters", "3"]),
    ("mlp_digits", ["--steps", "40", "--synthetic"]),
])
def test_script_runs_from_the_command_line(script, args):
    subprocess.run([sys.executable, str(EXAMPLES / f"{script}.py"), *args], check=True, timeout=120)
