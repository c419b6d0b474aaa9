"""Fusion and memory: kernels dispatched per computation, and no leaked buffers.

`counters["kernels"]` counts dispatched kernels. Eager code is realized by reads and
`block_until_ready`; jitted code dispatches its program once per call.
"""

import gc

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.frontend.execute import counters

from .helpers import assert_array, jax, jax_numpy, kernels_for


def _softmax(m, x):
    e = m.exp(x - x.max(axis=1, keepdims=True))
    return e / m.sum(e, axis=1, keepdims=True)


X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)


@pytest.mark.parametrize("fn, reference, expected_kernels", [
    (lambda x: jnp.sum(jnp.exp(x) * 2 + 1), lambda x: np.sum(np.exp(x) * 2 + 1), 1),
    (lambda x: jnp.tanh(jnp.sin(x) * jnp.cos(x) + x / 3 - 1) ** 2 + jnp.abs(x),
     lambda x: np.tanh(np.sin(x) * np.cos(x) + x / 3 - 1) ** 2 + np.abs(x), 1),
    (lambda x: jnp.mean(jnp.exp(x), axis=1), lambda x: np.mean(np.exp(x), axis=1), 1),
    (lambda x: jnp.sqrt(jnp.sum(x * x, axis=0)) + 1, lambda x: np.sqrt(np.sum(x * x, axis=0)) + 1, 1),
    (lambda x: jnp.max(x.T[::-1] * 2, axis=1), lambda x: np.max(x.T[::-1] * 2, axis=1), 1),
    # softmax: the max and the sum are row stages of the division's kernel (fusion rule 9)
    (lambda x: _softmax(jnp, x), lambda x: _softmax(np, x), 1),
    # rule 3: a product reading a broadcast `exp` gets it from a kernel of its own; one
    # reading a cheap `relu(x + b)` computes it where it loads it
    (lambda x: jnp.exp(x) @ x.T, lambda x: np.exp(x) @ x.T, 2),
    (lambda x: jnp.maximum(x * 2 + x[0], 0) @ x.T, lambda x: np.maximum(x * 2 + x[0], 0) @ x.T, 1),
    # rule 7: a gather reads a view, an iota or constants at its positions; it copies an
    # operand that costs arithmetic first
    (lambda x: x.T[::-1][jnp.array([4, 0, 2])] + 1, lambda x: x.T[::-1][[4, 0, 2]] + 1, 1),
    (lambda x: x[1:, 2:][jnp.array([2, 0])], lambda x: x[1:, 2:][[2, 0]], 1),
    (lambda x: jnp.arange(4.0)[(x[:, 1:] > 0).astype(int)] + jnp.zeros(4)[(x[:, 1:] < 0).astype(int)],
     lambda x: np.arange(4.0, dtype=np.float32)[(x[:, 1:] > 0).astype(int)], 1),
    (lambda x: jnp.exp(x)[jnp.array([3, 1])], lambda x: np.exp(x)[[3, 1]], 2),
])
def test_kernel_counts(platform, mode, fn, reference, expected_kernels):
    count, out = kernels_for(fn, jnp.asarray(X), mode=mode)
    assert_array(out, reference(X).astype(np.float32), rtol=1e-5)
    assert count == expected_kernels


def test_a_reduction_that_every_element_reads_is_computed_once(platform, mode):
    """Rule 5 makes a reduction the epilogue of a kernel of its own size only: as the
    epilogue of `x - mean(x)` each element summed all of x (100,000 elements: 88 s on
    lavapipe). Rows this long take no row stages (rule 9), so the sum is a kernel."""
    x = np.linspace(-1, 1, 20_000, dtype=np.float32)
    cases = [(lambda v: v - jnp.mean(v), lambda v: v - np.mean(v)),
             (lambda v: jnp.arange(3.0) * jnp.max(v), lambda v: np.arange(3.0, dtype=np.float32) * np.max(v))]
    for fn, reference in cases:
        count, out = kernels_for(fn, jnp.asarray(x), mode=mode)
        assert_array(out, reference(x), rtol=1e-5, atol=1e-6)
        assert count == 2


def test_dense_layers_compute_their_activations_where_the_next_product_loads_them(platform, mode):
    """A layer's `relu(h @ w + b)` is not a kernel of its own when `h @ w + b` is needed
    too (as the relu mask of a backward pass needs it): the next product recomputes it
    where it loads it. float64 (emulated on WebGPU) and transcendental activations are
    still written once."""
    rng = np.random.default_rng(0)
    h, w1, w2 = (rng.standard_normal(s).astype(np.float32) for s in [(8, 5), (5, 6), (6, 3)])
    b = rng.standard_normal(6).astype(np.float32)

    def mlp(m, act, h, w1, b, w2):
        z = h @ w1 + b
        return z, act(m, z) @ w2

    relu = lambda m, v: m.maximum(v, 0)  # noqa: E731
    args = [jnp.asarray(a) for a in (h, w1, b, w2)]
    count, out = kernels_for(lambda *a: mlp(jnp, relu, *a), *args, mode=mode)
    for got, want in zip(out, mlp(np, relu, h, w1, b, w2)):
        assert_array(got, want, rtol=1e-5, atol=1e-6)
    assert count == 2
    count, _ = kernels_for(lambda *a: mlp(jnp, lambda m, v: m.tanh(v), *a), *args, mode=mode)
    assert count == 3
    # Where nothing else reads `h @ w + b`, the relu stays its product's epilogue, and
    # the next product loads it as it is.
    forward = jaxwg.jit(lambda *a: mlp(jnp, relu, *a)[1]).lower(*args).as_text()
    assert forward.count("\nkernel") == 2 and "epilogue=max(" in forward, forward
    jaxwg.config.update("jax_enable_x64", True)
    try:
        args64 = [jnp.asarray(a.astype(np.float64)) for a in (h, w1, b, w2)]
        count, out = kernels_for(lambda *a: mlp(jnp, relu, *a), *args64, mode=mode)
    finally:
        jaxwg.config.update("jax_enable_x64", False)
    for got, want in zip(out, mlp(np, relu, h, w1, b, w2)):
        assert_array(got, want.astype(np.float64), rtol=1e-5, atol=1e-6)
    assert count == 3


def test_softmax_cross_entropy_gradient_is_one_kernel(platform, mode):
    """The gradient of a softmax cross-entropy with respect to its logits reads the
    softmax once per output and once in a row sum (rule 4's exception), the row max, its
    tie count and the sums are stages of one kernel (rule 9), and `-1 / n` folds into it
    (rule 3: a node of constants is never a kernel of its own)."""
    rng = np.random.default_rng(1)
    z = rng.standard_normal((64, 10)).astype(np.float32)
    z[:, 3] = z[:, 7] = z.max(axis=1) + 1  # ties at the max: their share of its gradient
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]

    def loss(m, z, y):
        zmax = m.max(z, axis=-1, keepdims=True)
        lse = m.log(m.sum(m.exp(z - zmax), axis=-1)) + zmax[..., 0]
        return -m.mean(m.sum(z * y, axis=-1) - lse)

    count, got = kernels_for(jaxwg.grad(lambda *a: loss(jnp, *a)), jnp.asarray(z), jnp.asarray(y), mode=mode)
    want = jax.grad(lambda *a: loss(jax_numpy, *a))(z, y)
    assert_array(got, np.asarray(want), rtol=1e-5, atol=1e-7)
    assert count == 1


def test_a_weight_update_is_its_gradient_products_epilogue(platform, mode):
    """`grad` gives a weight gradient as `(dy.T @ x).T`; computed in the order the SGD
    update reads it, the update is the product's epilogue: one kernel a layer's weights
    and one its bias, as many as the gradient alone."""
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in [(16, 6), (6, 5), (5,)])

    def loss(m, w, b, x):
        return m.sum(m.tanh(x @ w + b) ** 2)

    def step(m, w, b, x, grad):
        gw, gb = grad(lambda w, b: loss(m, w, b, x), argnums=(0, 1))(w, b)
        return w - 0.1 * gw, b - 0.1 * gb

    args = [jnp.asarray(a) for a in (w, b, x)]
    count, got = kernels_for(lambda *a: step(jnp, *a, jaxwg.grad), *args, mode=mode)
    want = step(jax_numpy, w, b, x, jax.grad)
    for g, v in zip(got, want):
        assert_array(g, np.asarray(v), rtol=2e-5, atol=1e-6)
    grads_alone, _ = kernels_for(lambda w, b, x: jaxwg.grad(lambda w, b: loss(jnp, w, b, x), argnums=(0, 1))(w, b),
                                 *args, mode=mode)
    assert count == grads_alone == 3  # forward + tanh' chain, the weight and the bias gradient


@pytest.mark.parametrize("read", ["transposed", "transposed and as it is", "moved axes"])
def test_a_reduction_read_through_a_transpose_is_right(platform, mode, read):
    """A reduction read only through a transpose is computed in that order; read also as it
    is (or through another view) it is computed once, in its own order."""
    x = np.linspace(-2, 2, 2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    reads = {"transposed": lambda m, s: m.transpose(s, (2, 0, 1)) * 2,
             "transposed and as it is": lambda m, s: (m.transpose(s, (2, 0, 1)) * 2, s + 1),
             "moved axes": lambda m, s: m.sum(m.moveaxis(s, 0, -1)[:, ::-1], axis=1) + m.transpose(s, (1, 0, 2))[..., 0]}

    def f(m, x):
        return reads[read](m, m.sum(m.exp(x / 4), axis=2))

    count, got = kernels_for(lambda v: f(jnp, v), jnp.asarray(x), mode=mode)
    for g, v in zip(*((got, f(np, x)) if isinstance(got, tuple) else ((got,), (f(np, x),)))):
        assert_array(g, v.astype(np.float32), rtol=2e-5)


@pytest.mark.parametrize("read", ["rows", "transposed", "reversed rows"])
def test_a_value_read_by_its_row_sums_and_one_kernel_is_right_however_that_kernel_reads_it(
        platform, mode, read):
    """Rule 4's row exception recomputes `e` in the row sums and in the one kernel of its
    shape that reads it, which may read it at other positions than its own row: the sums
    are still read at its own row, so they are its stages, and the values stay right."""
    x = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
    views = {"rows": lambda m, e: e, "transposed": lambda m, e: e.T, "reversed rows": lambda m, e: e[::-1]}
    view = views[read]

    def f(m, x):
        e = m.exp(m.sin(x) * 3 + m.cos(x))
        return view(m, e) * 2 + m.sum(e, axis=1, keepdims=True) / m.max(e, axis=1, keepdims=True)

    count, got = kernels_for(lambda v: f(jnp, v), jnp.asarray(x), mode=mode)
    assert_array(got, f(np, x.astype(np.float64)).astype(np.float32), rtol=2e-5)
    assert count == 1


def test_shared_value_is_computed_once(platform, mode):
    def fn(x):
        y = jnp.exp(jnp.sin(x) * 3 + jnp.cos(x))  # used by two reductions
        return jnp.sum(y), jnp.max(y)

    count, (s, m) = kernels_for(fn, jnp.asarray(X), mode=mode)
    y = np.exp(np.sin(X) * 3 + np.cos(X))
    assert_array(s, y.sum(), rtol=1e-5)
    assert_array(m, y.max(), rtol=1e-6)
    assert count == 3  # y once, then one kernel per reduction


def test_reading_one_array_does_not_recompute_shared_work(platform):
    x = jnp.asarray(X)
    total = jnp.sum(jnp.exp(x))
    a, b = total + 1, total * 2
    before = counters["kernels"]
    a.block_until_ready()
    b.block_until_ready()
    # The reduction is materialized once (b still needed it when a was read).
    assert counters["kernels"] - before == 3
    assert_array(b, np.float32(np.exp(X).sum() * 2), rtol=1e-5)


def test_long_eager_chains_are_bounded(platform):
    x = jnp.asarray(X)
    y = x
    for _ in range(400):
        y = y * 0.5 + 0.25
    want = X.copy()
    for _ in range(400):
        want = want * np.float32(0.5) + np.float32(0.25)
    assert_array(y, want, rtol=1e-5)


def test_long_eager_movement_chains_are_bounded(platform):
    x = jnp.arange(6.0)
    for _ in range(2000):
        x = x.reshape(2, 3).T.reshape(6)
    want = np.arange(6.0, dtype=np.float32)
    for _ in range(2000):
        want = want.reshape(2, 3).T.reshape(6)
    assert_array(x, want)


def _live_slots():
    gc.collect()
    backend = jaxwg.devices()[0].backend
    backend.synchronize()
    return backend.memory_stats()["live_slots"]


@pytest.mark.slow_on_cpu
def test_no_leaks_over_eager_steps(platform):
    x = jnp.asarray(X)
    x.block_until_ready()
    w = jnp.ones(6)
    w.block_until_ready()
    baseline = _live_slots()
    for step in range(1000):
        w = w - 0.01 * jnp.mean(x * w, axis=0)
        if step % 10 == 0:
            w.block_until_ready()
    w.block_until_ready()
    assert _live_slots() == baseline


def test_values_arrays_hold_are_realized_with_their_users(platform):
    """`v = tanh(v); total += sum(v)`: realizing `total` also writes `v`, which the
    program holds, so each step's kernels read the last `v` instead of recomputing
    every earlier one (the same kernels every step, compiled once)."""
    from jaxwg.frontend import execute

    v = jnp.asarray(np.linspace(-1, 1, 64, dtype=np.float32))
    total = jnp.zeros(())
    want_v, want_total, kernels = np.linspace(-1, 1, 64), 0.0, []
    for _ in range(6):
        before = execute.counters["kernels"]
        v = jnp.tanh(v * 0.9 + 0.1)
        total = total + jnp.sum(v)
        total.block_until_ready()
        kernels.append(execute.counters["kernels"] - before)
        assert v.node.is_realized
        want_v = np.tanh(want_v * 0.9 + 0.1)
        want_total += want_v.sum()
    assert len(set(kernels[1:])) == 1, kernels
    np.testing.assert_allclose(np.asarray(v), want_v, rtol=1e-5)
    np.testing.assert_allclose(float(total), want_total, rtol=1e-5)
    w = jnp.exp(jnp.asarray(X))  # held and read through a view: computed, so written too
    (w.T + 1.0).block_until_ready()
    assert w.node.is_realized


@pytest.mark.slow_on_cpu
def test_no_leaks_over_jit_calls(platform):
    step = jaxwg.jit(lambda w, x: w - 0.01 * jnp.mean(x * w, axis=0))
    x = jnp.asarray(X)
    w = jnp.ones(6)
    w = step(w, x)
    w.block_until_ready()
    baseline = _live_slots()
    for _ in range(1000):
        w = step(w, x)
    w.block_until_ready()
    assert _live_slots() == baseline


def test_while_loop_steps_run_compiled_programs_without_leaks(platform, monkeypatch):
    """A jitted while_loop compiles its predicate and body once (programs, as jit's)
    and runs them each step: later calls and more steps fuse and compile nothing (each
    step fused the lowered body afresh: milliseconds), and every step's buffers are
    freed."""
    from jaxwg.frontend import execute

    loop = jaxwg.jit(lambda w, n: jaxwg.lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.tanh(c[1] @ c[1].T @ c[1] * 0.5)), (0, w))[1])
    w = jnp.asarray(X)
    loop(w, 2).block_until_ready()
    baseline, compiled = _live_slots(), counters["compiled_programs"]
    fused = []  # fusion runs (the initial carries' constants), the same for any steps
    schedule_for = execute.schedule_for
    monkeypatch.setattr(execute, "schedule_for", lambda *a: fused.append(1) or schedule_for(*a))
    loop(w, 3).block_until_ready()
    few = len(fused)
    got = loop(w, 30)
    assert len(fused) == 2 * few
    want = X.astype(np.float64)
    for _ in range(30):
        want = np.tanh(want @ want.T @ want * 0.5)
    assert_array(got, want.astype(np.float32), rtol=1e-5)
    del got
    assert counters["compiled_programs"] == compiled
    assert _live_slots() == baseline


def test_kernels_split_at_the_binding_limit(platform, monkeypatch):
    from jaxwg.frontend import execute

    # WebGPU guarantees 8 storage buffers per shader stage: 7 inputs and the output.
    monkeypatch.setattr(execute, "max_inputs", lambda backend: 7)
    hosts = [np.full(5, k, np.float32) for k in range(12)]
    arrays = [jnp.asarray(h) for h in hosts]
    total = arrays[0]
    for a in arrays[1:]:
        total = total * 1.5 + jnp.sin(a)
    want = hosts[0]
    for h in hosts[1:]:
        want = want * np.float32(1.5) + np.sin(h)
    before = counters["kernels"]
    assert_array(total, want, rtol=1e-5)
    assert counters["kernels"] - before >= 2  # twelve inputs, at most seven per kernel
    concatenated = jnp.concatenate(arrays)  # a tree of concatenations, split as needed
    assert_array(concatenated, np.concatenate(hosts))


def test_row_fusion_of_an_unrolled_loop_takes_time_linear_in_its_steps(platform, monkeypatch):
    """A scan unrolls into a chain of small kernels, each a product of one row that row
    fusion asks about. It decides a kernel's stages from the latest candidate back and
    stops past `MAX_STAGES`, so a chain twice as long asks about its candidates twice as
    often: walking every kernel above each one made 1000 steps take 20 s."""
    from jaxwg.frontend import rows

    asked = []
    may_be_stage = rows._may_be_stage
    monkeypatch.setattr(rows, "_may_be_stage", lambda *a: asked.append(a) or may_be_stage(*a))
    w, xs = np.eye(8, dtype=np.float32) * 0.5, np.linspace(-1, 1, 8 * 40, dtype=np.float32).reshape(40, 8)

    def loop(m, lax, n):
        def body(c, x):
            return m.tanh(c @ m.asarray(w) + x), None
        return lax.scan(body, m.ones(8, np.float32), m.asarray(xs[:n]))[0]

    counts = []
    for n in (20, 40):
        asked.clear()
        got = jaxwg.jit(lambda: loop(jnp, jaxwg.lax, n))()
        counts.append(len(asked))
    assert_array(got, np.asarray(loop(jax_numpy, jax.lax, 40)), rtol=1e-5, atol=1e-6)
    assert 0 < counts[1] <= 2 * counts[0] + rows.MAX_STAGES, counts


def test_a_scan_with_per_step_row_sums_compiles_the_same_kernels_at_every_step(platform):
    """Rule 4's row exception recomputes a value in its row sums only where they become
    stages of the one kernel that reads it: a scan's carry read by the next step and by
    its sum in `ys` is written once a step, so every step runs the same two kernels
    (before, each step's sum recomputed the carry from the first step: one more tanh,
    and one more shader to compile, a step)."""
    def f(m, lax, h, n):
        return lax.scan(lambda c, _: (m.tanh(c * 0.5 + 1), c.sum()), h, None, length=n)

    h = np.linspace(-1, 1, 8, dtype=np.float32)
    kernels = []
    for n in (16, 32):  # past rows.MAX_STAGES: the sums are not stages of the stacking kernel
        program = jaxwg.jit(lambda v: f(jnp, jaxwg.lax, v, n))
        lines = [line[line.index("Kernel("):] for line in program.lower(jnp.asarray(h)).as_text().splitlines()
                 if line.startswith("kernel ")]
        kernels.append({k for k in lines if "where((gidx" not in k})  # less those stacking the sums
        for got, want in zip(program(jnp.asarray(h)), f(jax_numpy, jax.lax, h, n)):
            assert_array(got, np.asarray(want), rtol=1e-5, atol=1e-6)
    assert kernels[0] == kernels[1] and len(kernels[0]) <= 4, kernels
