"""The Array API namespace of jaxwg.numpy against the standard and JAX: version, inspection
(`__array_namespace_info__`), `__array_namespace__`, devices (`to_device`, `device=`),
DLPack both ways."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    yield
    jaxwg.config.update("jax_enable_x64", False)


def test_namespace_version_and_method():
    assert jnp.__array_api_version__ == "2023.12"
    x = jnp.ones(2)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2023.12") is jnp
    with pytest.raises(ValueError, match="2022.12"):
        x.__array_namespace__(api_version="2022.12")
    tracer_namespace = []
    jaxwg.jit(lambda v: tracer_namespace.append(v.__array_namespace__()) or v)(x)
    assert tracer_namespace == [jnp]


def test_inspection_matches_jax_for_the_dtypes_jaxwg_has():
    info, jax_info = jnp.__array_namespace_info__(), jax_numpy.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is False
    assert info.capabilities()["data-dependent shapes"] is False
    assert info.default_device() in info.devices()
    assert jaxwg.devices("cpu")[0] in info.devices()
    has = {"bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float32", "float64",
           "complex64", "complex128"}
    for kind in [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("bool", "real floating")]:
        want = {n: d for n, d in jax_info.dtypes(kind=kind).items() if n in has}
        assert info.dtypes(kind=kind) == want, kind
    assert info.default_dtypes() == {"real floating": np.dtype("float32"),
                                     "complex floating": np.dtype("complex64"),
                                     "integral": np.dtype("int32"),
                                     "indexing": np.dtype("int32")}
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")


def test_inspection_with_x64(x64):
    info = jnp.__array_namespace_info__()
    assert "float64" in info.dtypes(kind="real floating")
    assert info.default_dtypes()["real floating"] == np.float64
    assert info.default_dtypes()["complex floating"] == np.complex128
    assert info.default_dtypes()["integral"] == np.int32  # jaxwg has no int64


def test_to_device_and_device_arguments():
    cpu = jaxwg.devices("cpu")[0]
    x = jnp.arange(3.0)
    y = x.to_device(cpu)
    assert y.device is cpu and y.tolist() == [0.0, 1.0, 2.0] and y.dtype == x.dtype
    assert y.to_device(cpu) is y
    assert jnp.asarray(2.5).to_device(cpu).weak_type
    for made in [jnp.zeros((2, 0), device=cpu), jnp.arange(4, device=cpu),
                 jnp.full((2,), 7, device=cpu), jnp.eye(2, device="cpu"),
                 jnp.ones_like(x, device=cpu), jnp.asarray(np.ones(3), device=cpu),
                 jnp.linspace(0, 1, 3, device=cpu)]:
        assert made.device is cpu
    with pytest.raises(NotImplementedError, match="stream"):
        x.to_device(cpu, stream=1)
    assert jaxwg.jit(lambda v: v.to_device(cpu) * 2)(x).tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32", "bool", "float16", "uint8", "int16"])
def test_dlpack_round_trips_through_numpy_and_jax(platform, dtype):
    host = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
    x = jnp.asarray(host)
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x), host)
    np.testing.assert_array_equal(np.asarray(jax_numpy.from_dlpack(x)), host)
    for source in (host, jax_numpy.asarray(host), x):
        y = jnp.from_dlpack(source)
        assert isinstance(y, jaxwg.Array) and y.dtype == host.dtype
        np.testing.assert_array_equal(np.asarray(y), host)
    x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))


def test_dlpack_refuses_what_it_cannot_do():
    with pytest.raises(TypeError, match="__dlpack__"):
        jnp.from_dlpack([1, 2])
    with pytest.raises(ValueError, match="copy=False"):
        jnp.from_dlpack(np.ones(2), copy=False)
    with pytest.raises(BufferError):
        jnp.ones(2).__dlpack__(copy=False)


def test_from_dlpack_of_a_jaxwg_array_needs_no_copy():
    x = jnp.arange(3)
    assert jnp.from_dlpack(x) is x and jnp.from_dlpack(x, copy=False, device=x.device) is x
    y = jnp.from_dlpack(x, copy=True)
    assert y is not x and y.tolist() == [0, 1, 2]
    other = [d for d in jnp.__array_namespace_info__().devices() if d is not x.device]
    for device in other:
        assert jnp.from_dlpack(x, device=device).device is device
        with pytest.raises(ValueError, match="copy=False"):
            jnp.from_dlpack(x, device=device, copy=False)


def test_from_dlpack_of_a_torch_tensor_if_present():
    torch = pytest.importorskip("torch")
    got = jnp.from_dlpack(torch.arange(4, dtype=torch.float32))
    assert got.tolist() == [0.0, 1.0, 2.0, 3.0] and got.dtype == np.float32


def test_jax_reads_jaxwg_arrays_by_dlpack():
    x = jnp.linspace(0, 1, 5)
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(x)), np.asarray(x))
