"""jit: caching, static and donated arguments, closures, pytrees, nesting, lowering."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import jit as jit_module

from .helpers import assert_array


def test_cache_hits_and_misses(platform):
    traces = []

    @jaxwg.jit
    def f(x):
        traces.append(1)
        return x * 2 + 1

    x = jnp.arange(3.0)
    assert_array(f(x), np.arange(3.0, dtype=np.float32) * 2 + 1)
    f(x)
    f(jnp.arange(3.0) + 1)  # same signature, new values
    assert f._cache_info() == {"hits": 2, "misses": 1, "size": 1}
    f(jnp.arange(4.0))  # new shape
    f(jnp.arange(3))  # new dtype
    f(jnp.asarray(np.float32(3.0)))  # strong scalar
    f(3.0)  # weak scalar: a new weak type
    assert f._cache_info()["misses"] == 5
    assert len(traces) == 5


def test_weak_type_is_part_of_the_key(platform):
    f = jaxwg.jit(lambda x: x)
    assert f(2.0).weak_type and not f(jnp.asarray(np.float32(2.0))).weak_type
    assert f._cache_info()["misses"] == 2


def test_static_argnums_and_argnames(platform):
    calls = []

    def f(x, n, *, mode="add"):
        calls.append((n, mode))
        return x + n if mode == "add" else x * n

    g = jaxwg.jit(f, static_argnums=1, static_argnames="mode")
    x = jnp.ones(2)
    assert g(x, 2).tolist() == [3.0, 3.0]
    assert g(x, 2).tolist() == [3.0, 3.0]
    assert g(x, 3, mode="mul").tolist() == [3.0, 3.0]
    assert g(x, n=2).tolist() == [3.0, 3.0]  # static by name implies the position's name
    assert calls == [(2, "add"), (3, "mul"), (2, "add")]
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        g(x, [1])


def test_static_argnames_imply_argnums(platform):
    g = jaxwg.jit(lambda x, shape: jnp.reshape(x, shape), static_argnames="shape")
    assert g(jnp.arange(6), (2, 3)).shape == (2, 3)
    assert g(jnp.arange(6), shape=(3, 2)).shape == (3, 2)


def test_closure_captures_arrays_as_constants(platform):
    c = jnp.arange(3.0)
    f = jaxwg.jit(lambda x: x * c)
    assert_array(f(jnp.ones(3)), np.arange(3.0, dtype=np.float32))
    closed = f.lower(jnp.ones(3)).jaxpr
    assert len(closed.consts) == 1


def test_pytree_inputs_and_outputs(platform):
    @jaxwg.jit
    def f(tree):
        return {"sum": tree["a"] + tree["b"][0], "pair": (tree["b"][1], None)}

    out = f({"a": jnp.ones(2), "b": [jnp.full(2, 2.0), jnp.zeros(2)]})
    assert sorted(out) == ["pair", "sum"]
    assert_array(out["sum"], np.full(2, 3.0, np.float32))
    assert out["pair"][1] is None


def test_outputs_that_are_inputs_or_repeated(platform):
    f = jaxwg.jit(lambda x, y: (x, y * 2, y * 2, x))
    x, y = jnp.arange(3.0), jnp.ones(3)
    a, b, c, d = f(x, y)
    del x
    assert_array(a, np.arange(3.0, dtype=np.float32))
    assert_array(d, np.arange(3.0, dtype=np.float32))
    assert_array(b, np.full(3, 2.0, np.float32))
    assert_array(c, np.full(3, 2.0, np.float32))


def test_nested_jit_is_inlined(platform):
    inner = jaxwg.jit(lambda x: x + 1)
    outer = jaxwg.jit(lambda x: inner(x) * 2)
    assert_array(outer(jnp.ones(2)), np.full(2, 4.0, np.float32))
    text = str(outer.lower(jnp.ones(2)).jaxpr)
    assert "add" in text and "mul" in text


def test_donated_arguments_are_deleted(platform):
    f = jaxwg.jit(lambda x, y: x + y, donate_argnums=0)
    x, y = jnp.ones(3), jnp.ones(3)
    x.block_until_ready()
    out = f(x, y)
    assert x.is_deleted() and not y.is_deleted()
    assert_array(out, np.full(3, 2.0, np.float32))
    with pytest.raises(RuntimeError, match="deleted"):
        f(x, y)


def test_lower_shows_jaxpr_and_kernels(platform):
    f = jaxwg.jit(lambda x: jnp.sum(jnp.exp(x) * 2 + 1))
    text = f.lower(jnp.ones(4)).as_text()
    assert text.startswith("{ lambda ; a:f32[4]. let")
    assert text.count("kernel ") == 1


def test_cache_is_bounded(platform, monkeypatch):
    monkeypatch.setattr(jit_module, "CACHE_SIZE", 3)
    f = jaxwg.jit(lambda x: x + 1)
    for n in range(1, 7):
        f(jnp.ones(n))
    assert f._cache_info()["size"] == 3
    f(jnp.ones(6))
    assert f._cache_info()["hits"] == 1


def test_config_change_retraces(platform):
    f = jaxwg.jit(lambda x: x + 1)
    f(jnp.ones(2))
    jaxwg.config.update("jax_enable_x64", True)
    try:
        f(jnp.ones(2, jnp.float32))
    finally:
        jaxwg.config.update("jax_enable_x64", False)
    assert f._cache_info()["misses"] == 2


def test_jit_of_bad_callable_and_keywords():
    with pytest.raises(TypeError, match="callable"):
        jaxwg.jit(3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        jaxwg.jit(lambda x: x, bogus=1)


def test_decorator_with_options(platform):
    @jaxwg.jit(static_argnums=(1,))
    def f(x, k):
        return x * k

    assert f(jnp.ones(2), 3).tolist() == [3.0, 3.0]


def test_method_decoration(platform):
    class Model:
        scale = 2.0

        @jaxwg.jit(static_argnums=0)
        def apply(self, x):
            return x * self.scale

        def __hash__(self):
            return 0

    assert Model().apply(jnp.ones(2)).tolist() == [2.0, 2.0]
