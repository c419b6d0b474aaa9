"""Devices: listing, the default backend, device_put, memory stats, JAXWG_PLATFORMS."""

import subprocess
import sys

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import assert_array


def test_devices_and_default_backend(platform):
    (device,) = jaxwg.devices()
    assert device.platform == platform == jaxwg.default_backend()
    assert jaxwg.device_count() == 1 and jaxwg.local_devices() == [device]
    assert jaxwg.devices("cpu")[0].platform == "cpu"
    assert isinstance(device.device_kind, str) and device.device_kind
    assert repr(jaxwg.devices("cpu")[0]) == "CpuDevice(id=0)"
    with pytest.raises(RuntimeError, match="Unknown backend"):
        jaxwg.devices("tpu")


def test_print_environment_info_names_versions_and_devices(capsys):
    import wgpu

    assert jaxwg.print_environment_info() is None
    text = capsys.readouterr().out
    assert text == jaxwg.print_environment_info(return_string=True) + "\n"
    assert f"wgpu:   {wgpu.__version__}" in text and f"numpy:  {np.__version__}" in text
    assert f"default backend: {jaxwg.default_backend()}" in text
    webgpu = jaxwg.devices("webgpu")[0]
    assert f"webgpu device: {webgpu.device_kind}" in text
    assert "webgpu limits: max-buffer-size " in text
    features = webgpu.backend.device.features
    assert all(f in text for f in features)


def test_new_arrays_go_to_the_default_device(platform):
    assert jnp.ones(3).device.platform == platform
    assert jnp.asarray(np.arange(3)).device.platform == platform


def test_device_put_moves_between_devices(platform):
    cpu, here = jaxwg.devices("cpu")[0], jaxwg.devices()[0]
    x = jnp.arange(4.0) * 2
    y = jaxwg.device_put(x, cpu)
    assert y.device is cpu
    assert_array(y, np.arange(4.0, dtype=np.float32) * 2)
    z = jaxwg.device_put(y + 1, here)
    assert z.device is here
    assert_array(z, np.arange(4.0, dtype=np.float32) * 2 + 1)
    tree = jaxwg.device_put({"a": np.ones(2), "b": [1.0]}, cpu)
    assert tree["a"].device is cpu and tree["b"][0].device is cpu
    assert jaxwg.device_put(x) is x  # already there


def test_mixing_devices_is_an_error():
    x = jaxwg.device_put(np.ones(2), jaxwg.devices("cpu")[0])
    try:
        other = jaxwg.devices("webgpu")[0]
        _ = other.backend
    except RuntimeError as e:  # no adapter
        pytest.skip(str(e))
    y = jaxwg.device_put(np.ones(2), other)
    with pytest.raises(ValueError, match="different devices"):
        x + y
    assert_array(x + 1.0, np.full(2, 2.0, np.float32))  # scalars go anywhere


def test_a_jitted_function_runs_on_each_device_with_its_trace_constants(monkeypatch):
    """One trace serves every device's program: constants made while tracing on one
    device (svd's rotation tables, a cond branch's arange) are copied to the other's."""
    try:
        _ = jaxwg.devices("webgpu")[0].backend
    except RuntimeError as e:  # no adapter
        pytest.skip(str(e))
    a = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    branchy = jaxwg.jit(lambda x: jaxwg.lax.cond(x.sum() > 0, lambda y: y + jnp.arange(2.0),
                                                  lambda y: y, x))
    results = {}
    for platform in ("cpu", "webgpu"):
        monkeypatch.setenv("JAXWG_PLATFORMS", platform)
        s = jnp.linalg.svd(a, compute_uv=False)
        stepwise = branchy(jnp.ones(2))
        assert s.device.platform == stepwise.device.platform == platform
        results[platform] = np.asarray(s), np.asarray(stepwise)
    np.testing.assert_allclose(results["webgpu"][0], results["cpu"][0], rtol=1e-5)
    np.testing.assert_array_equal(results["webgpu"][1], [1.0, 2.0])


def test_memory_stats_count_live_arrays(platform):
    import gc

    device = jaxwg.devices()[0]
    gc.collect()
    device.backend.synchronize()
    before = device.memory_stats()
    x = jnp.asarray(np.ones(1000, np.float32))
    stats = device.memory_stats()
    assert stats["bytes_in_use"] == before["bytes_in_use"] + 4000
    assert stats["live_slots"] == before["live_slots"] + 1
    del x
    gc.collect()
    assert device.memory_stats()["bytes_in_use"] == before["bytes_in_use"]


def test_live_arrays_and_block_until_ready(platform):
    x = jnp.arange(3.0) + 1
    assert any(a is x for a in jaxwg.live_arrays())
    assert jaxwg.block_until_ready({"x": x}) == {"x": x}


@pytest.mark.parametrize("name", ["cpu", "webgpu"])
def test_platform_environment_variable(name):
    code = "import jaxwg, jaxwg.numpy as jnp; print(jaxwg.default_backend(), jnp.ones(2).device.platform)"
    env = {"JAXWG_PLATFORMS": name, "PATH": "/usr/bin:/bin"}
    import os

    env.update({k: v for k, v in os.environ.items() if k.startswith(("PYTHON", "HOME", "JAXWG_WEBGPU"))})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=False)
    if name == "webgpu" and out.returncode != 0 and "adapter" in out.stderr:
        pytest.skip("no WebGPU adapter")
    assert out.stdout.split() == [name, name], out.stderr


def test_process_index_and_default_device_as_jax():
    import jax

    assert (jaxwg.process_index(), jaxwg.process_count()) == (jax.process_index(),
                                                              jax.process_count())
    assert jaxwg.default_device.value is None
    cpu = jaxwg.devices("cpu")[0]
    for device in ("cpu", cpu):
        with jaxwg.default_device(device):
            assert jaxwg.default_device.value == device
            assert jnp.ones(2).device == cpu
    assert jaxwg.default_device.value is None
    with jaxwg.default_device(None):
        assert jnp.ones(2).device == jaxwg.devices()[0]
    with pytest.raises(ValueError, match="Device object"):
        jaxwg.default_device(3)
    assert jaxwg.config.jax_default_device is None
    try:
        jaxwg.config.update("jax_default_device", cpu)
        assert jaxwg.config.jax_default_device == cpu == jaxwg.default_device.value
        assert jnp.ones(2).device == cpu
    finally:
        jaxwg.config.update("jax_default_device", None)
    assert jaxwg.default_device.value is None


def test_missing_jax_modules_raise_not_implemented_on_import():
    import importlib

    with pytest.raises(ImportError, match="jax.experimental is not implemented in jaxwg"):
        importlib.import_module("jaxwg.experimental")
    with pytest.raises(jaxwg.errors.ModuleNotImplementedInJaxwg):
        importlib.import_module("jaxwg.experimental.pjit")
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("jaxwg.no_such_module")
    assert not isinstance(info.value, NotImplementedError)


def test_typing_names_as_jax():
    import jax.typing

    import jaxwg.typing

    assert set(jaxwg.typing.__all__) == {n for n in dir(jax.typing) if not n.startswith("_")}
