"""Fixtures for tests of the public API: the platform, and eager or jit execution.

`platform` runs a test with `JAXWG_PLATFORMS` set to "cpu" and to "webgpu", so arrays
made inside the test live on that device. `run` calls a function either eagerly or
through `jaxwg.jit` (the `mode` parameter), so one test covers both paths.
"""

import os

import pytest

import jaxwg


@pytest.fixture(params=["cpu", "webgpu"])
def platform(request):
    old = os.environ.get("JAXWG_PLATFORMS")
    os.environ["JAXWG_PLATFORMS"] = request.param
    if request.param == "webgpu":
        try:
            _ = jaxwg.devices("webgpu")[0].backend
        except RuntimeError as e:  # no adapter on this machine
            pytest.skip(str(e))
    try:
        yield request.param
    finally:
        if old is None:
            del os.environ["JAXWG_PLATFORMS"]
        else:
            os.environ["JAXWG_PLATFORMS"] = old


@pytest.fixture(params=["eager", "jit"])
def mode(request):
    return request.param


@pytest.fixture
def run(platform, mode):
    """`run(fn, *args, **static)`: fn(*args) eagerly or jitted (keyword args static)."""

    def call(fn, *args, **static):
        if mode == "eager":
            return fn(*args, **static)
        return jaxwg.jit(lambda *a: fn(*a, **static))(*args)

    call.platform = platform
    call.mode = mode
    return call
