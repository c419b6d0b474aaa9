"""Adapter ranking and selection, and the device opened on each adapter kind."""

from types import SimpleNamespace

import pytest
import wgpu

from jaxwg.backend.webgpu import device as device_module
from jaxwg.backend.webgpu.device import (
    ADAPTER_ENV_VAR,
    OPTIONAL_FEATURES,
    WebGPUDevice,
    get_device,
    rank_adapters,
    select_adapter,
)

from . import ADAPTER_KINDS, open_device


def fake_adapter(device, backend, kind):
    return SimpleNamespace(
        info={"device": device, "backend_type": backend, "adapter_type": kind}
    )


FAKES = [
    fake_adapter("llvmpipe", "OpenGL", "CPU"),
    fake_adapter("Intel Iris", "Vulkan", "IntegratedGPU"),
    fake_adapter("llvmpipe", "Vulkan", "CPU"),
    fake_adapter("RTX", "D3D12", "DiscreteGPU"),
    fake_adapter("Basic", "D3D12", "Unknown"),
    fake_adapter("RTX", "Vulkan", "DiscreteGPU"),
]


def labels(adapters):
    return [(a.info["backend_type"], a.info["adapter_type"]) for a in adapters]


def test_rank_adapters():
    assert labels(rank_adapters(FAKES)) == [
        ("Vulkan", "DiscreteGPU"),
        ("D3D12", "DiscreteGPU"),
        ("Vulkan", "IntegratedGPU"),
        ("Vulkan", "CPU"),
        ("D3D12", "Unknown"),
        ("OpenGL", "CPU"),
    ]


@pytest.fixture
def fake_adapters(monkeypatch):
    """Make `select_adapter` see the list this fixture returns, without the variable."""
    adapters = list(FAKES)
    monkeypatch.setattr(
        device_module.wgpu.gpu, "enumerate_adapters_sync", lambda: adapters
    )
    monkeypatch.delenv(ADAPTER_ENV_VAR, raising=False)
    return adapters


def test_select_prefers_best(fake_adapters):
    assert labels([select_adapter()]) == [("Vulkan", "DiscreteGPU")]


@pytest.mark.parametrize(
    "wanted, expected",
    [
        ("opengl", ("OpenGL", "CPU")),
        ("VULKAN cpu", ("Vulkan", "CPU")),
        ("iris", ("Vulkan", "IntegratedGPU")),
        ("d3d12", ("D3D12", "DiscreteGPU")),
    ],
)
def test_select_honours_environment(fake_adapters, monkeypatch, wanted, expected):
    monkeypatch.setenv(ADAPTER_ENV_VAR, wanted)
    assert labels([select_adapter()]) == [expected]


def test_select_unmatched_lists_adapters(fake_adapters, monkeypatch):
    monkeypatch.setenv(ADAPTER_ENV_VAR, "metal")
    with pytest.raises(RuntimeError, match="'metal'.*llvmpipe OpenGL CPU"):
        select_adapter()


def test_select_without_adapters(fake_adapters):
    fake_adapters.clear()
    with pytest.raises(RuntimeError, match="no adapter"):
        select_adapter()


COMPUTE_LIMITS = (
    "max-buffer-size",
    "max-storage-buffer-binding-size",
    "max-storage-buffers-per-shader-stage",
    "max-compute-workgroups-per-dimension",
    "max-compute-invocations-per-workgroup",
    "max-compute-workgroup-storage-size",
    "max-immediate-size",
)


@pytest.mark.parametrize("kind", ADAPTER_KINDS)
def test_device_asks_for_maximal_limits_and_features(kind):
    device = open_device(kind)
    adapter = device.adapter
    assert device.features == {f for f in OPTIONAL_FEATURES if f in adapter.features}
    assert device.features <= set(device.device.features)
    # Limits of features not enabled (binding arrays, multiview) read back differently.
    for name in COMPUTE_LIMITS:
        assert device.limits[name] == adapter.limits[name], name
    assert device.max_binding_bytes == adapter.limits["max-storage-buffer-binding-size"]
    assert device.max_buffer_bytes == adapter.limits["max-buffer-size"]
    assert device.max_workgroups_per_dim == 65535
    assert device.max_storage_buffers >= 8
    assert device.binding_alignment in (32, 64, 128, 256)
    assert device.is_software == (adapter.info["adapter_type"] == "CPU")
    info = adapter.info
    described = f"{info['device']} [{info['backend_type']}, {info['adapter_type']}]"
    assert device.describe() == described
    assert described in repr(device)
    assert kind in described.lower()


def test_get_device_is_cached():
    assert isinstance(get_device(), WebGPUDevice)
    assert get_device() is get_device()
    assert get_device().queue is get_device().device.queue
    assert isinstance(get_device().device, wgpu.GPUDevice)


def test_elementwise_constants_share_one_pipeline():
    """Eager `x * c` for many c compiles one shader: constants travel as immediates."""
    import numpy as np

    from jaxwg.backend import get_backend
    from jaxwg.core import alu
    from jaxwg.core import dtypes as dt
    from jaxwg.core.kernel import Kernel

    be = get_backend("webgpu")
    if "immediates" not in be.device.features:
        pytest.skip("the adapter has no immediates")
    x = be.upload(np.arange(8, dtype=np.float32))
    out = be.malloc(32)
    before = be.pipelines_compiled
    xi = alu.load(0, dt.float32, alu.gidx(8))
    for c in (0.5, 0.25, -3.0):
        be.dispatch(be.prepare(Kernel(1, 8, xi * c + 1.0)), [x], [out])
        np.testing.assert_array_equal(be.download(out, dt.float32, 8),
                                      np.arange(8, dtype=np.float32) * np.float32(c) + 1)
    assert be.pipelines_compiled - before <= 1
    be.decref(x)
    be.decref(out)



@pytest.mark.parametrize("reduce", [
    lambda xp, x, c: xp.sum(x * c),               # a constant in the reduced body
    lambda xp, x, c: xp.mean(x + c, axis=1),      # in the body, and 1/n in the epilogue
    lambda xp, x, c: xp.max(x, axis=0) * c,       # in the epilogue only
])
def test_reductions_share_pipelines_across_constants(reduce):
    """The issue's `sum(x * c)` for 20 values of c compiled 21 pipelines."""
    import numpy as np

    import jaxwg.numpy as jnp
    from jaxwg.backend import get_backend

    be = get_backend("webgpu")
    if "immediates" not in be.device.features:
        pytest.skip("the adapter has no immediates")
    values = np.random.default_rng(0).random((64, 300), dtype=np.float32)
    x = jnp.asarray(values)
    reduce(jnp, x, 0.5).block_until_ready()  # compile once
    before = be.pipelines_compiled
    for c in np.linspace(-2, 2, 20, dtype=np.float32):
        got = np.asarray(reduce(jnp, x, float(c)))
        np.testing.assert_allclose(got, reduce(np, values, c), rtol=1e-5, atol=1e-5)
    assert be.pipelines_compiled == before
