"""Shared fixtures: the backends under test, and the opt-in slow tests.

`backend` runs a test once on the CPU reference backend and once on the WebGPU
backend (on the adapter `JAXWG_WEBGPU_ADAPTER` selects, default: the best one).
"""

import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from jaxwg.backend import get_backend

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.function_scoped_fixture]
# The default run must fit CI's budget; HYPOTHESIS_PROFILE=thorough searches longer.
# 6 examples a test by default: 25 until 2026-12-07, when a fresh clone's suite took
# 950-980 s of its 900 on 2 cores; then 15, and 1,251 s at 27b3719 with about 1,600 new
# tests (printouts, keys, indexing, docstrings); then 10, and 1,050 s at b1319be.
settings.register_profile("jaxwg", deadline=None, max_examples=6, suppress_health_check=_QUIET)
settings.register_profile("thorough", deadline=None, max_examples=300, suppress_health_check=_QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jaxwg"))

# Matrix-product tiles come from the heuristics on every adapter, GPUs included (the
# tests choose tiles themselves); the autotuning tests turn measuring on, with a cache of
# their own, and nothing a test does touches the user's cache directory.
os.environ.setdefault("JAXWG_AUTOTUNE", "0")
os.environ["JAXWG_CACHE_DIR"] = tempfile.mkdtemp(prefix="jaxwg-test-cache-")

# JAX, the oracle, spends about 30% of the suite compiling XLA programs. Flags that make
# those compiles cheaper (`--xla_backend_optimization_level=0`: 1,052 -> 880 s;
# `--xla_cpu_use_fusion_emitters=false`) also change JAX's float results, and the tests
# that check JAX's bits fail (2026-12-07): the oracle runs with its defaults. Tests that
# need only a dtype trace JAX (`helpers.jax_dtype`); repeated comparisons jit JAX's side.


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow")


def _params(item) -> dict:
    return getattr(getattr(item, "callspec", None), "params", {})


def _on_cpu(item) -> bool:
    """Whether a test runs on the CPU reference backend (the `backend` or `platform` fixture)."""
    return "cpu" in (_params(item).get("backend"), _params(item).get("platform"))


def _public_api_on_cpu(item) -> bool:
    """Whether a test of the public API (the `platform` fixture) runs on the CPU backend."""
    return _params(item).get("platform") == "cpu"


def _eager(item) -> bool:
    """Whether a test runs its function op by op (the `mode` fixture)."""
    return _params(item).get("mode") == "eager"


def pytest_collection_modifyitems(config, items):
    for item in items:
        # The default job tests the CPU reference backend through its kernels (the tests
        # parametrized by `backend`) and the smoke tests; the public API's tests (the
        # `platform` fixture) run there in the slow job only, as do the tests marked
        # slow_on_cpu. The frontend those runs test is the WebGPU runs' too, which stay;
        # they took about 730 s of the default suite's 2,300 s of test time (2026-12-07).
        # Likewise the eager half of the tests that run a function both ways (the `mode`
        # fixture; 307 s of 2,145): the default job runs them jitted, and the public API's
        # other tests call it op by op.
        if "smoke" not in item.keywords and (
                _public_api_on_cpu(item) or _eager(item)
                or _on_cpu(item) and "slow_on_cpu" in item.keywords):
            item.add_marker(pytest.mark.slow)
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# A hypothesis test's run on the CPU reference backend draws a third of its examples
# (2 of the default 6) unless HYPOTHESIS_PROFILE says otherwise. The frontend it tests
# (promotion, shapes, transformation rules) is the WebGPU run's too, and that run draws
# them all; the reference lowers each primitive through NumPy.
CPU_EXAMPLES_FRACTION = 3


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    test = getattr(item, "obj", None)
    chosen = getattr(test, "_hypothesis_internal_use_settings", None)
    if chosen is None or not _on_cpu(item) or os.environ.get("HYPOTHESIS_PROFILE"):
        yield
        return
    # Hypothesis reads a test's settings when the test is called, so they can be swapped
    # for this item alone (each worker runs one item at a time).
    test._hypothesis_internal_use_settings = settings(
        chosen, max_examples=max(2, -(-chosen.max_examples // CPU_EXAMPLES_FRACTION)))
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = chosen


@pytest.fixture(scope="session")
def cpu():
    return get_backend("cpu")


@pytest.fixture(scope="session")
def webgpu():
    try:
        return get_backend("webgpu")
    except RuntimeError as e:  # no adapter on this machine
        pytest.skip(str(e))


@pytest.fixture(scope="session", params=["cpu", "webgpu"])
def backend(request):
    return request.getfixturevalue(request.param)
