"""Independent dispatches of a jit program joined into one shader (`backend/webgpu/merge.py`).

Joining is on by default on GPUs only; these tests turn it on for the software
adapters too and check that a joined program computes exactly what the same program
computes dispatch by dispatch, for every template (elementwise, vec4, reductions of
each layout, split reductions, products, row kernels), with lifted constants, the
IEEE guards' opaque zero, bool and integer outputs, and calls back to back."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend.webgpu import merge
from jaxwg.backend.webgpu.shader import ShaderSpec


@pytest.fixture
def backend():
    try:
        be = jaxwg.devices("webgpu")[0].backend
    except RuntimeError as e:  # no adapter on this machine
        pytest.skip(str(e))
    before = be.merges_dispatches
    yield be
    be.merges_dispatches = before


def _run(backend, fn, args, joined: bool):
    """Results of a fresh jit of `fn` (a new replay) with joining on or off, and the
    replay's number of dispatches and of passes."""
    backend.merges_dispatches = joined
    f = jaxwg.jit(lambda *a: fn(*a))  # a new function: jit shares programs per function
    out = [np.asarray(x) for x in jaxwg.tree_util.tree_leaves(f(*args))]
    replay = f.lower(*args)._compiled.program._replay
    return out, len(replay._order), sum(len(s.dispatches) for s in replay._steps)


def _same_joined_and_plain(backend, fn, args):
    plain, n_plain, _ = _run(backend, fn, args, joined=False)
    joined, n_joined, passes = _run(backend, fn, args, joined=True)
    assert n_plain == passes
    assert n_joined < passes, "nothing was joined: the test would not exercise joining"
    for a, b in zip(plain, joined):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return joined


def _many_templates(x, m, v, i):
    """Independent kernels of every template, all reading the arguments only."""
    return (x * 2.5 + 1.0,                       # elementwise with lifted constants (vec4)
            jnp.exp(v[:7]) - 0.5,                 # elementwise, odd size
            jnp.sum(m, axis=1),                   # row sums
            jnp.sum(m, axis=0),                   # column sums
            jnp.sum(x),                           # a long sum: split into two passes
            jnp.max(m, axis=1),                   # max reduction
            m @ m.T,                              # a product
            jax_softmax(m),                       # a row kernel with stages
            (v + 1e30) - 1e30,                    # the IEEE guards' opaque zero
            m > 0.25,                             # bool output
            i * 3 + 7,                            # int32
            jnp.argmax(m, axis=1))                # a reduction to int32


def jax_softmax(m):
    e = jnp.exp(m - jnp.max(m, axis=1, keepdims=True))
    return e / jnp.sum(e, axis=1, keepdims=True)


def test_joined_program_matches_dispatch_by_dispatch(backend):
    rng = np.random.default_rng(0)
    args = [jnp.asarray(rng.standard_normal(100_003).astype(np.float32)),
            jnp.asarray(rng.standard_normal((37, 45)).astype(np.float32)),
            jnp.asarray(np.array([1.0, -2.0, 3.0, 1e-30, -0.0, 5.0, 7.0, 8.0], np.float32)),
            jnp.asarray(rng.integers(-1000, 1000, 999).astype(np.int32))]
    out = _same_joined_and_plain(backend, _many_templates, args)
    x, m, v, i = (np.asarray(a) for a in args)
    # GPUs may fuse the multiply-add (one rounding): within an ulp of 2.5 * x (|x| < 6)
    np.testing.assert_allclose(out[0], x.astype(np.float64) * 2.5 + 1.0, rtol=1e-6, atol=2e-6)
    np.testing.assert_allclose(out[2], m.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[3], m.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[4], x.astype(np.float64).sum(), rtol=1e-4)
    np.testing.assert_allclose(out[6], m @ m.T, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(out[8], (v.astype(np.float32) + np.float32(1e30)) - np.float32(1e30))
    np.testing.assert_array_equal(out[9], m > 0.25)
    np.testing.assert_array_equal(out[10], i * 3 + 7)
    np.testing.assert_array_equal(out[11], m.argmax(axis=1))


def test_joined_training_step_matches_and_calls_back_to_back(backend):
    rng = np.random.default_rng(1)
    w1, w2 = (jnp.asarray(rng.standard_normal(s).astype(np.float32) * 0.1) for s in ((30, 20), (20, 5)))
    b1, b2 = jnp.zeros(20), jnp.zeros(5)
    xs = [jnp.asarray(rng.standard_normal((16, 30)).astype(np.float32)) for _ in range(3)]
    onehot = jnp.asarray(np.eye(5, dtype=np.float32)[rng.integers(0, 5, 16)])

    def loss(params, x):
        (w1, b1), (w2, b2) = params
        logits = jnp.maximum(x @ w1 + b1, 0.0) @ w2 + b2
        return -jnp.mean(jnp.sum(jax_log_softmax(logits) * onehot, axis=1))

    def step(w1, b1, w2, b2, x):
        grads = jaxwg.grad(loss)(((w1, b1), (w2, b2)), x)
        return [p - 0.1 * g for p, g in zip((w1, b1, w2, b2), jaxwg.tree_util.tree_leaves(grads))]

    _same_joined_and_plain(backend, step, [w1, b1, w2, b2, xs[0]])
    results = {}
    for joined in (False, True):
        backend.merges_dispatches = joined
        f = jaxwg.jit(lambda *a: step(*a))
        params = [w1, b1, w2, b2]
        for _ in range(4):  # calls queued back to back, new parameter buffers each call
            for x in xs:
                params = f(*params, x)
        results[joined] = [np.asarray(p) for p in params]
    for a, b in zip(results[False], results[True]):
        np.testing.assert_array_equal(a, b)


def jax_log_softmax(z):
    shifted = z - jnp.max(z, axis=1, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))


def test_groups_respect_the_limits(backend, monkeypatch):
    """With room for only four bindings a shader, eight one-input kernels join in pairs."""
    monkeypatch.setattr(backend, "merge_limits", merge.Limits(4, 1 << 14, 128))
    x = jnp.arange(64.0)
    fn = lambda x: tuple(x * float(k) for k in range(1, 9))  # noqa: E731
    _, n_joined, passes = _run(backend, fn, [x], joined=True)
    assert (passes, n_joined) == (8, 4)
    out, _, _ = _run(backend, fn, [x], joined=True)
    for k, o in enumerate(out, 1):
        np.testing.assert_array_equal(o, np.arange(64.0, dtype=np.float32) * k)


def _spec(workgroup_size, bindings=2, workgroup_array=None):
    lines = ["@group(0) @binding(0) var<storage, read> in0: array<f32>;",
             "@group(0) @binding(1) var<storage, read_write> result: array<f32>;"]
    if workgroup_array:
        lines.append(f"var<workgroup> partials: array<{workgroup_array[0]}, {workgroup_array[1]}>;")
    return ShaderSpec("", ((0, 0),) * (bindings - 1), (), workgroup_size, 1, lines=tuple(lines))


def test_groups_by_level_and_workgroup_size():
    specs = [_spec(64), _spec(256), _spec(64), _spec(64), _spec(256, workgroup_array=("vec4<f32>", 256))]
    level_of = [0, 0, 0, 1, 0]
    limits = merge.Limits(8, 1 << 14, 0)
    assert merge.groups(specs, level_of, limits) == [[0, 2], [1, 4], [3]]
    # 4 KiB of workgroup memory each: two do not fit in 6 KiB
    limits = merge.Limits(8, 6 << 10, 0)
    specs[1] = _spec(256, workgroup_array=("vec4<f32>", 256))
    assert merge.groups(specs, level_of, limits) == [[0, 2], [1], [4], [3]]
    # a workgroup array of a type the size table lacks is never joined
    specs[1] = _spec(256, workgroup_array=("mat4x4<f32>", 4))
    assert merge.groups(specs, level_of, merge.Limits(8, 1 << 14, 0)) == [[0, 2], [1], [4], [3]]


def test_large_dispatches_join_only_their_own_kind():
    specs = [_spec(64) for _ in range(5)]
    kinds = ["tile", "reduction", None, "tile", None]
    groups = merge.groups(specs, [0] * 5, merge.Limits(16, 1 << 14, 0), kinds)
    assert groups == [[0, 3], [1, 2, 4]]


@st.composite
def _programs(draw):
    """Dispatches as (registers read, register written) in recording order: each reads
    some of the arguments (0-2) and earlier results (3 on)."""
    n = draw(st.integers(1, 12))
    out = []
    for k in range(n):
        reads = draw(st.lists(st.integers(0, 2 + k), max_size=3))
        out.append((tuple(reads), 3 + k))
    return out


@given(_programs())
def test_levels_put_dependent_dispatches_in_later_levels(program):
    level_of = merge.levels(program)
    writer = {w: k for k, (_, w) in enumerate(program)}
    for k, (reads, _) in enumerate(program):
        producers = [writer[r] for r in reads if r in writer and writer[r] < k]
        assert level_of[k] == max((level_of[p] + 1 for p in producers), default=0)


def test_kernels_beside_a_product_take_its_workgroup_size(backend):
    """A product's tile fixes its workgroup size (16 threads for a large product on the
    software adapters, 64 or 256 on GPUs); an elementwise kernel and a reduction beside
    it are recompiled at that size and join it."""
    rng = np.random.default_rng(2)
    a, b = (jnp.asarray(rng.standard_normal((512, 512)).astype(np.float32)) for _ in range(2))
    v = jnp.asarray(rng.standard_normal(1000).astype(np.float32))
    fn = lambda a, b, v: (a @ b, v * 3.0, jnp.sum(v.reshape(10, 100), axis=1))  # noqa: E731
    out = _same_joined_and_plain(backend, fn, [a, b, v])
    _, n_joined, passes = _run(backend, fn, [a, b, v], joined=True)
    assert n_joined == 1, f"{passes} passes joined into {n_joined} dispatches"
    np.testing.assert_allclose(out[0], np.asarray(a) @ np.asarray(b), rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(out[1], np.asarray(v) * 3.0)


def test_a_shader_takes_at_most_max_parts():
    specs = [_spec(64) for _ in range(merge.MAX_PARTS + 4)]
    groups = merge.groups(specs, [0] * len(specs), merge.Limits(1 << 20, 1 << 14, 0))
    assert [len(g) for g in groups] == [merge.MAX_PARTS, 4]


def test_a_rejected_join_runs_the_parts_and_is_not_compiled_again(backend, monkeypatch):
    """Where the adapter rejects a joined shader, the program runs its dispatches one by
    one, and the next program with the same parts does not try to compile it again."""
    from jaxwg.backend.webgpu.codegen import UnsupportedError
    compile_ = type(backend)._compile
    tried = []

    def reject_joined(self, spec):
        if "fn p0_main(" in spec.code:
            tried.append(spec.code)
            raise UnsupportedError("rejected for the test")
        return compile_(self, spec)

    monkeypatch.setattr(type(backend), "_compile", reject_joined)
    x = np.arange(40.0, dtype=np.float32)
    fn = lambda x: (x * 2.0, x + 1.0)  # noqa: E731
    for _ in range(2):
        out, n_joined, passes = _run(backend, fn, [jnp.asarray(x)], joined=True)
        assert n_joined == passes == 2
        np.testing.assert_array_equal(out[0], x * 2.0)
        np.testing.assert_array_equal(out[1], x + 1.0)
    assert len(tried) == 1
