"""Control flow (`lax.cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map`,
`associative_scan`) against JAX: values eagerly and under jit, gradients, vmap, JVPs,
read-backs, and JAX's errors."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy


def _close(got, want, rtol=1e-5, atol=1e-6):
    got_leaves = jaxwg.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for a, b in zip(got_leaves, want_leaves):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def _rnn(L, N):
    def loss(w, h0, xs):
        def step(h, x):
            h = N.tanh(h @ w + x)
            return h, N.sum(h * h)
        h, ys = L.scan(step, h0, xs)
        return N.sum(h) + N.sum(ys)
    return loss


def _rnn_inputs(seed=0, steps=6, width=4):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((width, width)).astype(np.float32) * 0.5,
            rng.standard_normal(width).astype(np.float32),
            rng.standard_normal((steps, width)).astype(np.float32))


PROGRAMS = {
    "cond": (lambda L, N: lambda x: L.cond(N.sum(x) > 0, lambda v: N.sin(v) * v,
                                           lambda v: v ** 3, x), [(3,)]),
    "switch": (lambda L, N: lambda x: L.switch(N.argmax(x), [lambda v: v + 1.0, lambda v: v * v,
                                                             lambda v: -v], x), [(3,)]),
    "cond with closure": (lambda L, N: lambda x, y: L.cond(x[0] > y[0], lambda: x * y,
                                                           lambda: x - y), [(2,), (2,)]),
    "fori static": (lambda L, N: lambda x: L.fori_loop(0, 4, lambda i, v: N.sin(v) * 1.5 + i, x),
                    [(3,)]),
    "scan pytree reverse": (lambda L, N: lambda x, y: L.scan(
        lambda c, xy: ((c[0] * xy[0] + 1.0, c[1] + xy[1]), c[0] - xy[1]), (1.0, x[0]), (x, y),
        reverse=True), [(5,), (5,)]),
    "scan rnn": (lambda L, N: _rnn(L, N), None),
    # a branch chosen by each step's x: the cond stays inside the loop
    "cond inside scan": (lambda L, N: lambda x, w: L.scan(
        lambda c, v: (L.cond(v > 0, lambda c: c * w[0], lambda c: N.sin(c) + w[1], c), c * v),
        1.0, x), [(5,), (2,)]),
    "map": (lambda L, N: lambda x: L.map(lambda r: N.sum(N.exp(r)), x), [(4, 3)]),
    "map in batches": (lambda L, N: lambda x: L.map(lambda r: N.sin(r) * r, x, batch_size=3), [(7, 2)]),
    # the composition of affine maps v -> a v + b (associative), over a pytree
    "associative_scan": (lambda L, N: lambda a, b: L.associative_scan(
        lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b)), [(7,), (7,)]),
}


def _program_inputs(name, seed):
    shapes = PROGRAMS[name][1]
    if shapes is None:
        return _rnn_inputs(seed)
    rng = np.random.default_rng(seed)
    return tuple(rng.uniform(-1, 1, s).astype(np.float32) for s in shapes)


def _loss(f, N):
    return lambda *a: sum(N.sum(leaf) for leaf in jax.tree_util.tree_leaves(f(*a)))


@functools.cache
def _jax_program_and_gradient(name: str, nargs: int):
    """JAX's program `name` and the gradient of its sum, jitted once for every example:
    run eagerly, JAX retraces and compiles each loop and branch at every call (214 XLA
    programs, 20 s of the suite, until 2026-12-07)."""
    theirs = PROGRAMS[name][0](jax.lax, jax_numpy)
    return jax.jit(theirs), jax.jit(jax.grad(_loss(theirs, jax_numpy), tuple(range(nargs))))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=5)
@given(seed=st.integers(0, 1000))
def test_programs_and_their_gradients_match_jax(name, seed):
    args = _program_inputs(name, seed)
    ours = PROGRAMS[name][0](lax, jnp)
    theirs, their_gradient = _jax_program_and_gradient(name, len(args))
    want = theirs(*args)
    _close(ours(*[jnp.asarray(a) for a in args]), want)
    _close(jaxwg.jit(ours)(*[jnp.asarray(a) for a in args]), want)

    argnums = tuple(range(len(args)))
    want_g = their_gradient(*args)
    _close(jaxwg.grad(_loss(ours, jnp), argnums)(*[jnp.asarray(a) for a in args]), want_g,
           rtol=2e-5, atol=2e-6)
    _close(jaxwg.jit(jaxwg.grad(_loss(ours, jnp), argnums))(*[jnp.asarray(a) for a in args]),
           want_g, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_vmap_and_jvp_of_programs_match_jax(platform, name):
    make = PROGRAMS[name][0]
    batch = [_program_inputs(name, s) for s in range(3)]
    stacked = tuple(np.stack(a) for a in zip(*batch))
    ours, theirs = make(lax, jnp), make(jax.lax, jax_numpy)
    # JAX's side jitted: one XLA program each, not one per primitive and loop
    _close(jaxwg.vmap(ours)(*[jnp.asarray(a) for a in stacked]), jax.jit(jax.vmap(theirs))(*stacked))
    args = batch[0]
    tangents = tuple(np.ones_like(a) for a in args)
    got = jaxwg.jvp(ours, tuple(jnp.asarray(a) for a in args),
                    tuple(jnp.asarray(t) for t in tangents))
    _close(got, jax.jit(lambda a, t: jax.jvp(theirs, a, t))(args, tangents), rtol=2e-5, atol=2e-6)


def _dynamic_loop(L, N):
    def f(n, x):
        return L.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, N.sin(c[1]) * 2.0), (0, x))[1]
    return f


def test_while_loops_with_batched_predicates_and_jvps_match_jax():
    ns, xs = np.array([0, 2, 5], np.int32), np.array([0.5, -0.3, 1.2], np.float32)
    ours, theirs = _dynamic_loop(lax, jnp), _dynamic_loop(jax.lax, jax_numpy)
    _close(jaxwg.vmap(ours)(jnp.asarray(ns), jnp.asarray(xs)), jax.vmap(theirs)(ns, xs))
    _close(jaxwg.jit(jaxwg.vmap(ours))(jnp.asarray(ns), jnp.asarray(xs)), jax.vmap(theirs)(ns, xs))
    _close(jaxwg.jvp(lambda x: ours(4, x), (jnp.asarray(xs),), (jnp.ones(3),)),
           jax.jvp(lambda x: theirs(4, x), (xs,), (np.ones(3, np.float32),)))
    fori = lambda L: lambda n, x: L.fori_loop(0, n, lambda i, v: v * 0.5 + i, x)  # noqa: E731
    _close(jaxwg.jit(fori(lax))(jnp.array(5), jnp.asarray(xs)), fori(jax.lax)(5, xs))


def _stepping_by(L, N):
    """Adds its second carry (unchanged by the body: a loop constant) until past 5."""
    def f(x, step):
        return L.while_loop(lambda c: N.sum(c[0]) < 5.0, lambda c: (c[0] + c[1], c[1]), (x, step))[0]
    return f


def test_nested_and_partly_batched_while_loops_match_jax():
    """Predicates batched by two vmaps (members stop at different steps), at axis 1,
    per row; a predicate batched by an inner vmap only, with the outer vmap batching
    the carries (JAX puts their batch axis after the predicate's); a JVP."""
    ours, theirs = _stepping_by(lax, jnp), _stepping_by(jax.lax, jax_numpy)
    loop, jax_loop = _dynamic_loop(lax, jnp), _dynamic_loop(jax.lax, jax_numpy)
    xs = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5
    steps = np.linspace(0.25, 2.0, 12, dtype=np.float32).reshape(3, 4)
    ns = np.array([1, 4, 2], np.int32)
    cases = [
        (lambda m, f, g: m.vmap(m.vmap(f)), (xs, steps)),
        (lambda m, f, g: m.vmap(m.vmap(f), in_axes=1), (xs, steps)),
        (lambda m, f, g: m.jit(m.vmap(f, in_axes=(0, None))), (xs, np.float32(0.75))),
        (lambda m, f, g: m.vmap(g, in_axes=(None, 0)), (np.int32(3), xs[0])),
        (lambda m, f, g: m.vmap(m.vmap(g, in_axes=(0, None)), in_axes=(None, 1)), (ns, xs[:2])),
    ]
    for make, args in cases:
        got = make(jaxwg, ours, loop)(*[jnp.asarray(a) for a in args])
        _close(got, make(jax, theirs, jax_loop)(*args))
    tangents = (np.ones_like(xs[:, 0]), np.full_like(steps[:, 0], 0.5))
    got = jaxwg.jvp(jaxwg.vmap(ours), (jnp.asarray(xs[:, 0]), jnp.asarray(steps[:, 0])),
                    tuple(jnp.asarray(t) for t in tangents))
    _close(got, jax.jvp(jax.vmap(theirs), (xs[:, 0], steps[:, 0]), tangents))


def test_reverse_mode_through_a_dynamic_loop_is_jaxs_error():
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop"):
        jaxwg.grad(lambda x: _dynamic_loop(lax, jnp)(3, x))(1.0)


def test_a_static_loop_records_its_steps_without_reading_back(monkeypatch):
    backend = jaxwg.devices()[0].backend
    reads = []
    real = backend.read
    monkeypatch.setattr(backend, "read", lambda *a, **k: reads.append(a) or real(*a, **k))
    f = jaxwg.jit(lambda x: lax.fori_loop(0, 200, lambda i, v: jnp.tanh(v * 1.01 + 0.1), x))
    x = jnp.ones(1000)
    f(x).block_until_ready()
    assert reads == []  # 200 steps, not one read-back
    program = f.lower(x)
    assert 0 < len(program.kernels) < 200  # steps fuse
    reads.clear()
    loop = _dynamic_loop(lax, jnp)
    out = jaxwg.jit(loop)(jnp.array(7), jnp.array(0.3)).block_until_ready()
    # one read per test of the loop condition, of the predicate only (one word)
    assert len(reads) == 8 and all(r[1:] == (0, 4) for r in reads), reads
    want = _dynamic_loop(jax.lax, jax_numpy)(7, np.float32(0.3))
    np.testing.assert_allclose(float(out), float(want), rtol=1e-6)


def test_cond_under_vmap_selects_and_keeps_untaken_branches_harmless():
    f = lambda L, N: lambda x: L.cond(x > 0, lambda v: N.log(v), lambda v: v * 0.0, x)  # noqa: E731
    x = np.array([-1.0, 2.0, 0.0], np.float32)
    _close(jaxwg.vmap(f(lax, jnp))(jnp.asarray(x)), jax.vmap(f(jax.lax, jax_numpy))(x))


def test_grad_of_cond_under_vmap_sees_no_untaken_branch():
    """Each branch gets stopped gradients of the members that do not take it (JAX's
    rule): sqrt's derivative at -1 (NaN) times a zero cotangent gave NaN before."""
    f = lambda L, N: lambda x: L.cond(x > 0, N.sqrt, lambda v: v * 0.0, x)  # noqa: E731
    x = np.array([-1.0, 4.0, 0.0, 2.0], np.float32)
    got = jaxwg.grad(lambda v: jnp.sum(jaxwg.vmap(f(lax, jnp))(v)))(jnp.asarray(x))
    want = jax.grad(lambda v: jax_numpy.sum(jax.vmap(f(jax.lax, jax_numpy))(v)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # [0, 0.25, 0, 0.35...]


def test_long_scans_under_jit_and_eagerly():
    step = lambda i, v: jnp.tanh(v * 1.01 + 0.1)  # noqa: E731
    x = np.linspace(-1, 1, 1000).astype(np.float32)
    want = x.astype(np.float64)
    for _ in range(1000):
        want = np.tanh(want * 1.01 + 0.1)
    for run in (jaxwg.jit(lambda v: lax.fori_loop(0, 1000, step, v)),
                lambda v: lax.fori_loop(0, 1000, step, v)):
        np.testing.assert_allclose(np.asarray(run(jnp.asarray(x))), want, rtol=1e-5, atol=1e-6)


def _same(x, y):
    return x


def _to_int(x, y):
    return (x.astype("int32"), y)


def _first(x, y):
    return (x, y[:1])


def _pair(x, y):
    return (x, y)


def _dict(x, y):
    return {"a": x, "b": y[0]}


def _dict_one(x, y):
    return {"a": x}


# (true_fun, false_fun) or a list of switch branches whose outputs differ.
BRANCH_MISMATCHES = [(_same, _to_int), (_to_int, _first), (_pair, _same), (_pair, _dict),
                     (_dict, _dict_one), (_dict_one, lambda x, y: {"a": y[:1]}),
                     [_pair, _pair, _first], [_same, _pair]]


@pytest.mark.parametrize("branches", BRANCH_MISMATCHES)
def test_branch_mismatch_errors_as_jax(branches):
    """The TypeError names the branches and each difference (path, types, why) as JAX's."""
    def call(L, N):
        x, y = N.ones(2), N.ones(3)
        if isinstance(branches, list):
            return L.switch(1, branches, x, y)
        return L.cond(True, *branches, x, y)

    with pytest.raises(TypeError) as want:
        call(jax.lax, jax_numpy)
    with pytest.raises(TypeError) as got:
        call(lax, jnp)
    assert str(got.value) == str(want.value)


# Loops whose carry output differs from the carry input: (library, numpy) -> the call.
CARRY_MISMATCHES = [
    lambda L, N: L.scan(lambda c, x: (c + x[None], x), N.zeros(()), N.ones(3)),
    lambda L, N: L.scan(lambda c, x: ((c[0].astype("int32"), c[1][:1]), x),
                        (N.zeros(()), N.ones(2)), N.ones(3)),
    lambda L, N: L.scan(lambda c, x: ({"a": c["a"], "b": 1.0}, x), {"a": N.zeros(())}, N.ones(3)),
    lambda L, N: L.while_loop(lambda c: c < 3, lambda c: c * N.ones(2), 1.0),
    lambda L, N: L.while_loop(lambda c: c[0] < 3, lambda c: [c[0]], (1.0,)),
    lambda L, N: L.while_loop(lambda c: c, lambda c: c - 1, 5),
    lambda L, N: L.fori_loop(0, 3, lambda i, c: c * N.ones(2), 1.0),
]


@pytest.mark.parametrize("case", range(len(CARRY_MISMATCHES)))
def test_carry_mismatch_errors_as_jax(case):
    """scan, while_loop and fori_loop name each differing carry component as JAX does."""
    with pytest.raises(TypeError) as want:
        CARRY_MISMATCHES[case](jax.lax, jax_numpy)
    with pytest.raises(TypeError) as got:
        CARRY_MISMATCHES[case](lax, jnp)
    assert str(got.value) == str(want.value)


def test_errors():
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output"):
        lax.while_loop(lambda c: c < 3, lambda c: c * jnp.ones(2), 1.0)
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c, 1.0)
    with pytest.raises(ValueError, match="inconsistent lengths"):
        lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))
    with pytest.raises(TypeError, match="carry input and carry output must have equal types"):
        lax.scan(lambda c, x: (jnp.ones(2), x), 0.0, jnp.ones(3))
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        lax.cond(jnp.ones(2) > 0, lambda: 1.0, lambda: 2.0)


BRANCH_SELECTORS = {  # JAX's pred and index checks, and float preds true where nonzero
    "float_preds": lambda L: [L.cond(np.float32(p), lambda: 1, lambda: 2)
                              for p in (0.0, -0.0, 0.5, np.nan)],
    "complex_pred": lambda L: L.cond(1j, lambda: 1, lambda: 2),
    "bool_index": lambda L: L.switch(True, [lambda: 1.0, lambda: 2.0]),
    "float_index": lambda L: L.switch(1.0, [lambda: 1.0, lambda: 2.0]),
    "index_of_rank_1": lambda L: L.switch(np.array([1, 2]), [lambda: 1.0, lambda: 2.0]),
    "one_branch": lambda L: L.switch(5, [lambda x: x * 2], 3.0),
}


@pytest.mark.parametrize("case", sorted(BRANCH_SELECTORS))
def test_cond_preds_and_switch_indices_match_jax(case):
    def run(L):
        try:
            return [int(v) for v in np.ravel(BRANCH_SELECTORS[case](L))]
        except TypeError as e:
            return str(e)

    assert run(lax) == run(jax.lax)


def test_gradients_of_conds_with_complex_residuals_match_jax():
    """A branch's residual the other branch does not fill is an empty value (JAX's
    empty2), complex here."""
    z = np.array([0.5 + 2j, -1.2 + 1j], np.complex64)

    def grads(m):
        f = lambda v: m.lax.cond(v.real > 0, lambda: v * v, lambda: v * 2)  # noqa: E731
        return m.vmap(m.grad(f, holomorphic=True))(z)

    np.testing.assert_allclose(np.asarray(grads(jaxwg)), np.asarray(grads(jax)), rtol=1e-6)


FORI_BOUNDS = [(0.0, 3), (0, np.int32(3)), (np.uint32(0), 3), (0, 3.0), (0.0, 3.0),
               (np.int32(0), np.int32(3)), (np.uint32(0), np.int32(3))]


@pytest.mark.parametrize("bounds", FORI_BOUNDS, ids=str)
def test_fori_loop_bound_types_match_jax(bounds):
    def run(L):
        try:
            return float(L.fori_loop(*bounds, lambda i, x: x + 1.0, 0.0))
        except TypeError as e:
            return str(e)

    assert run(lax) == run(jax.lax)


def test_jitted_loops_over_closed_over_arrays():
    """A scan body that closes over a concrete array (its constant) under jit: the
    unrolled body's constants are the program's too (a KeyError at compile before)."""
    table = jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    loop = lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0 + jnp.take(table, i, axis=0), x)  # noqa: E731
    scan = lambda x: lax.scan(lambda c, a: (c + table[0] * a, c), x, jnp.arange(3.0))[0]  # noqa: E731
    for f in (loop, scan):
        np.testing.assert_array_equal(np.asarray(jaxwg.jit(f)(jnp.zeros(2))), np.asarray(f(jnp.zeros(2))))


# Loops whose carry starts as a Python scalar (weakly typed): the loop index of a
# fori_loop with static bounds is one too, and an init the body makes another type is
# promoted first, as in JAX (the carries out take the body's types). Each case: the
# loop of (lax, numpy, lo, hi), and lo, hi (static under jit when Python ints).
WEAK_CARRY_LOOPS = {
    "fori_static": (lambda L, N, lo, hi: L.fori_loop(lo, hi, lambda i, acc: acc + i, 0), 1, 4),
    "fori_int16_bounds": (lambda L, N, lo, hi: L.fori_loop(lo, hi, lambda i, acc: acc + i, 0),
                          np.int16(1), np.int16(4)),
    "scan_int16_xs": (lambda L, N, lo, hi: L.scan(lambda c, x: (c + x, c), 0,
                                                  N.arange(lo, hi, dtype=N.int16))[0], 1, 4),
    "while_float_step": (lambda L, N, lo, hi: L.while_loop(lambda c: c < hi, lambda c: c + N.float32(1), lo),
                         1, 4),
    "scan_float_carry": (lambda L, N, lo, hi: L.scan(lambda c, x: (c * x, c), 1, N.arange(lo, hi) * 1.5)[0],
                         1, 4),
}


@pytest.mark.parametrize("name", sorted(WEAK_CARRY_LOOPS))
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_weakly_typed_carries_promote_as_in_jax(name, jitted):
    fn, lo, hi = WEAK_CARRY_LOOPS[name]
    static = (0, 1) if isinstance(lo, int) else ()

    def run(top, L, N):
        f = lambda a, b: fn(L, N, a, b)  # noqa: E731
        return (top.jit(f, static_argnums=static) if jitted else f)(lo, hi)

    ours, theirs = run(jaxwg, lax, jnp), run(jax, jax.lax, jax_numpy)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
