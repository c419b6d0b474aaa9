"""Functions of every primitive, for the transformation tests (test_ad, test_vmap)."""

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy

# Each case: a function of (lax module, numpy module, *args), the shapes of its float
# arguments and the interval their values are drawn from (away from the points where
# the function is not differentiable).
CASES = {
    "neg": (lambda L, N, x: L.neg(x), [(5,)], (-2, 2)),
    "abs": (lambda L, N, x: L.abs(x), [(5,)], (0.5, 2)),
    "square": (lambda L, N, x: L.square(x), [(5,)], (-2, 2)),
    "exp": (lambda L, N, x: L.exp(x), [(5,)], (-2, 2)),
    "exp2": (lambda L, N, x: L.exp2(x), [(5,)], (-2, 2)),
    "log": (lambda L, N, x: L.log(x), [(5,)], (0.5, 3)),
    "log1p": (lambda L, N, x: L.log1p(x), [(5,)], (-0.5, 2)),
    "expm1": (lambda L, N, x: L.expm1(x), [(5,)], (-2, 2)),
    "tanh": (lambda L, N, x: L.tanh(x), [(5,)], (-2, 2)),
    "logistic": (lambda L, N, x: L.logistic(x), [(5,)], (-3, 3)),
    "sin": (lambda L, N, x: L.sin(x), [(5,)], (-3, 3)),
    "cos": (lambda L, N, x: L.cos(x), [(5,)], (-3, 3)),
    "tan": (lambda L, N, x: L.tan(x), [(5,)], (-1.2, 1.2)),
    "asin": (lambda L, N, x: L.asin(x), [(5,)], (-0.8, 0.8)),
    "acos": (lambda L, N, x: L.acos(x), [(5,)], (-0.8, 0.8)),
    "atan": (lambda L, N, x: L.atan(x), [(5,)], (-3, 3)),
    "sinh": (lambda L, N, x: L.sinh(x), [(5,)], (-2, 2)),
    "cosh": (lambda L, N, x: L.cosh(x), [(5,)], (-2, 2)),
    "asinh": (lambda L, N, x: L.asinh(x), [(5,)], (-2, 2)),
    "acosh": (lambda L, N, x: L.acosh(x), [(5,)], (1.2, 3)),
    "atanh": (lambda L, N, x: L.atanh(x), [(5,)], (-0.8, 0.8)),
    "sqrt": (lambda L, N, x: L.sqrt(x), [(5,)], (0.5, 3)),
    "rsqrt": (lambda L, N, x: L.rsqrt(x), [(5,)], (0.5, 3)),
    "cbrt": (lambda L, N, x: L.cbrt(x), [(5,)], (0.5, 3)),
    "erf": (lambda L, N, x: L.erf(x), [(5,)], (-2, 2)),
    "erfc": (lambda L, N, x: L.erfc(x), [(5,)], (-2, 2)),
    "erf_inv": (lambda L, N, x: L.erf_inv(x), [(5,)], (-0.9, 0.9)),
    "integer_pow 3": (lambda L, N, x: L.integer_pow(x, 3), [(5,)], (-2, 2)),
    "integer_pow -2": (lambda L, N, x: L.integer_pow(x, -2), [(5,)], (0.5, 2)),
    "add": (lambda L, N, x, y: L.add(x, y), [(4,), (4,)], (-2, 2)),
    "add rank 0": (lambda L, N, x, y: L.add(x, y), [(4,), ()], (-2, 2)),
    "sub": (lambda L, N, x, y: L.sub(x, y), [(4,), (4,)], (-2, 2)),
    "mul": (lambda L, N, x, y: L.mul(x, y), [(4,), (4,)], (-2, 2)),
    "mul rank 0": (lambda L, N, x, y: L.mul(x, y), [(), (4,)], (-2, 2)),
    "div": (lambda L, N, x, y: L.div(x, y), [(4,), (4,)], (0.5, 2)),
    # x / y stays in (2.1, 2.5), away from the jumps of rem (central differences)
    "rem": (lambda L, N, x, y: L.rem(x + 3.0, y + 1.1), [(4,), (4,)], (0.3, 0.45)),
    "pow": (lambda L, N, x, y: L.pow(x, y), [(4,), (4,)], (0.5, 2)),
    "max": (lambda L, N, x, y: L.max(x, y), [(4,), (4,)], (-2, 2)),
    "min": (lambda L, N, x, y: L.min(x, y), [(4,), (4,)], (-2, 2)),
    "atan2": (lambda L, N, x, y: L.atan2(x, y), [(4,), (4,)], (0.5, 2)),
    "clamp": (lambda L, N, x: L.clamp(-0.5, x, 0.5), [(6,)], (-1, 1)),
    # a predicate of neither argument: one that reads x jumps where central differences
    # may straddle it
    "select_n": (lambda L, N, x, y: L.select_n(N.arange(6) % 3 == 0, x * y, y), [(6,), (6,)], (-1, 1)),
    "convert": (lambda L, N, x: L.convert_element_type(x, N.float16).astype(N.float32) * 1.0,
                [(4,)], (-1, 1)),
    "broadcast_in_dim": (lambda L, N, x: L.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
                         [(2, 4)], (-1, 1)),
    "broadcast unit axis": (lambda L, N, x: L.broadcast_in_dim(x, (3, 4), (0, 1)),
                            [(1, 4)], (-1, 1)),
    "reshape": (lambda L, N, x: L.reshape(x, (3, 4)), [(2, 6)], (-1, 1)),
    "reshape permuted": (lambda L, N, x: L.reshape(x, (6, 2), (1, 0)), [(3, 4)], (-1, 1)),
    "transpose": (lambda L, N, x: L.transpose(x, (2, 0, 1)), [(2, 3, 4)], (-1, 1)),
    "rev": (lambda L, N, x: L.rev(x, (0, 1)), [(3, 4)], (-1, 1)),
    "pad": (lambda L, N, x, v: L.pad(x, v, [(1, -1, 2), (0, 2, 0)]), [(3, 4), ()], (-1, 1)),
    "slice": (lambda L, N, x: L.slice(x, (1, 0), (6, 4), (2, 3)), [(7, 5)], (-1, 1)),
    "squeeze": (lambda L, N, x: L.squeeze(x, (0, 2)), [(1, 4, 1)], (-1, 1)),
    "concatenate": (lambda L, N, x, y: L.concatenate([x, y, x], 1), [(2, 3), (2, 1)], (-1, 1)),
    # pieces scaled and put back in another order: one output through split's rules
    "split": (lambda L, N, x: L.concatenate(
        [p * (i + 1.0) for i, p in enumerate(L.split(x, (1, 3, 1), 1))][::-1], 1), [(2, 5)], (-1, 1)),
    "reduce_sum": (lambda L, N, x: N.sum(x, axis=(0, 2)), [(2, 3, 4)], (-1, 1)),
    "reduce_prod": (lambda L, N, x: N.prod(x, axis=1), [(3, 4)], (0.5, 1.5)),
    "reduce_max": (lambda L, N, x: N.max(x, axis=0), [(5, 3)], (-1, 1)),
    "reduce_min": (lambda L, N, x: N.min(x), [(5, 3)], (-1, 1)),
    "dot_general": (lambda L, N, x, y: L.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                    [(2, 3, 4), (2, 4, 5)], (-1, 1)),
    "dot_general contract 2": (lambda L, N, x, y: L.dot_general(x, y, (((0, 2), (2, 0)), ((), ()))),
                               [(3, 2, 4), (4, 5, 3)], (-1, 1)),
    "matmul": (lambda L, N, x, y: x @ y, [(3, 4), (4, 2)], (-1, 1)),
    "jit": (lambda L, N, x, y: jitted(L)(x, y), [(4,), (4,)], (-1, 1)),
    "stop_gradient": (lambda L, N, x: x * L.stop_gradient(x), [(4,)], (-1, 1)),
    # to the operand's own precision (fewer bits would make it a step function)
    "reduce_precision": (lambda L, N, x: L.reduce_precision(
        x * x, N.finfo(x.dtype).nexp, N.finfo(x.dtype).nmant) * x, [(4,)], (-1, 1)),
    "copy": (lambda L, N, x: _primitive(L, "copy").bind(x) * x, [(4,)], (-1, 1)),
    "add_any": (lambda L, N, x, y: _primitive(L, "add_any").bind(x, y) * x, [(4,), (4,)], (-1, 1)),
    "gather": (lambda L, N, x: x[:, N.array([2, 0, 2])], [(3, 4)], (-1, 1)),
    "scatter_add_flat": (lambda L, N, x, y: x.at[N.array([0, 2, 0])].add(y * x[1:]),
                         [(4,), (3,)], (-1, 1)),
    "cumsum": (lambda L, N, x: L.cumsum(x, axis=1), [(3, 4)], (-1, 1)),
    "cumsum reverse": (lambda L, N, x: L.cumsum(x * x, axis=0, reverse=True), [(3, 4)], (-1, 1)),
    "sort": (lambda L, N, x: N.sort(x, axis=-1), [(3, 4)], (-1, 1)),
    # Collectives of a named vmap axis, batched by an inner unnamed vmap (their own rules
    # run there; the named level turns them into reductions).
    "psum": (lambda L, N, x: _collective(L, "psum")(x), [(3, 4)], (-1, 1)),
    "pmax": (lambda L, N, x: _collective(L, "pmax")(x), [(3, 4)], (-1, 1)),
    "pmin": (lambda L, N, x: _collective(L, "pmin")(x), [(3, 4)], (-1, 1)),
    "cond": (lambda L, N, x, y: L.cond(x[0] > 0, lambda a, b: L.sin(a) * b, lambda a, b: a - b, x, y),
             [(4,), (4,)], (-2, 2)),
    # A trip count that depends on the values (forward mode only, as in JAX).
    "while": (lambda L, N, x: L.while_loop(lambda c: N.sum(c) < 6.0, lambda c: c * 1.5 + 0.25, x),
              [(3,)], (0.5, 1)),
    "scan": (lambda L, N, x, y: _scan(L, x, y), [(4, 3), (3,)], (-1, 1)),
    "scan with invariants": (lambda L, N, x, w: _scan_with_invariants(L, x, w), [(4, 3), (3,)], (-1, 1)),
    "remat2": (lambda L, N, x, y: _top(L).checkpoint(lambda a, b: L.sin(a) * b)(x, y),
               [(4,), (4,)], (-1, 1)),
    "custom_jvp_call": (lambda L, N, x: _custom(L, "jvp")(x), [(4,)], (-2, 2)),
    "custom_vjp_call": (lambda L, N, x: _custom(L, "vjp")(x), [(4,)], (-2, 2)),
}

# Cases with one mode of differentiation only, as in JAX: no reverse mode through a
# while loop, no forward mode through a custom_vjp function.
FORWARD_ONLY = {"while"}
REVERSE_ONLY = {"custom_vjp_call"}


def _top(L):
    """The library whose lax module `L` is: jaxwg or JAX."""
    return jaxwg if L is lax else jax


def jitted(L):
    return _top(L).jit(lambda x, y: L.sin(x) * y + x)


def _primitive(L, name):
    """A primitive no public function binds alone (JAX's `add_any` is `add_jaxvals_p`)."""
    if L is lax:
        from jaxwg.frontend import primitives as P
        return {"copy": P.copy_p, "add_any": P.add_any_p}[name]
    from jax._src import ad_util
    return {"copy": jax.lax.copy_p, "add_any": ad_util.add_jaxvals_p}[name]


def _collective(L, name):
    top = _top(L)
    reduce = getattr(L, name)
    return top.vmap(lambda row: top.vmap(lambda e: reduce(e * e, "i"))(row), axis_name="i")


def _scan(L, xs, c0):
    carry, ys = L.scan(lambda c, a: (c * L.sin(a) + a, c * a), c0, xs)
    return ys * carry


def _scan_with_invariants(L, xs, w):
    """A reversed scan reading values of its const only (sin w, exp w): reverse mode
    computes them once, before the loop, and forwards the xs it saves."""
    carry, ys = L.scan(lambda c, a: (c * L.sin(w) + a * L.exp(w), L.cos(c) * a), w * 0.5, xs,
                       reverse=True)
    return ys * carry


def _custom(L, kind):
    """x sin x with its derivative given by a custom rule (the same for both libraries)."""
    top = _top(L)

    def f(x):
        return x * L.sin(x)

    def df(x):
        return L.sin(x) + x * L.cos(x)

    if kind == "jvp":
        fun = top.custom_jvp(f)
        fun.defjvp(lambda primals, tangents: (f(primals[0]), df(primals[0]) * tangents[0]))
    else:
        fun = top.custom_vjp(f)
        fun.defvjp(lambda x: (f(x), x), lambda x, g: (g * df(x),))
    return fun


def inputs(case, seed, dtype=np.float32):
    _, shapes, (lo, hi) = CASES[case]
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, s).astype(dtype) for s in shapes]


def ours(case):
    fn = CASES[case][0]
    return lambda *args: fn(lax, jnp, *args)


def theirs(case):
    fn = CASES[case][0]
    return lambda *args: fn(jax.lax, jax_numpy, *args)


# Integer and boolean results (no derivatives; for vmap): function, argument shapes,
# argument dtype, value range.
INT_CASES = {
    "argmax": (lambda L, N, x: N.argmax(x, axis=1), [(3, 4)], np.float32, (-2, 2)),
    "argmin": (lambda L, N, x: N.argmin(x, axis=0), [(3, 4)], np.float32, (-2, 2)),
    "comparisons": (lambda L, N, x, y: (x < y) ^ (x >= y) | (x == y), [(5,), (5,)], np.int32, (0, 3)),
    "shifts": (lambda L, N, x, y: L.shift_left(x, y) + L.shift_right_arithmetic(x, y)
               + L.shift_right_logical(x, y), [(4,), (4,)], np.int32, (0, 8)),
    "bitwise": (lambda L, N, x, y: L.bitwise_and(x, y) - L.bitwise_or(x, y) + L.bitwise_not(x),
                [(4,), (4,)], np.int32, (-9, 9)),
    "reduce_and_or": (lambda L, N, x: N.all(x > 0, axis=0) & N.any(x > 1, axis=0),
                      [(3, 4)], np.int32, (0, 3)),
    "rounding": (lambda L, N, x: L.floor(x) + L.ceil(x) + L.round(x) + L.sign(x),
                 [(6,)], np.float32, (-3, 3)),
    "is_finite": (lambda L, N, x: L.is_finite(L.log(x)), [(6,)], np.float32, (-1, 1)),
    "integer rem and mul": (lambda L, N, x, y: L.rem(x, y) * x, [(4,), (4,)], np.int32, (1, 9)),
    "bitcast": (lambda L, N, x: L.bitcast_convert_type(x, N.int32), [(4,)], np.float32, (-2, 2)),
    "iota": (lambda L, N, x: x + L.broadcasted_iota(N.int32, (3, 4), 1), [(3, 4)], np.int32, (0, 5)),
    "reduce_max int": (lambda L, N, x: N.max(x, axis=1) + N.min(x), [(3, 4)], np.int32, (-9, 9)),
    "sort_permutation": (lambda L, N, x: N.argsort(x, axis=-1), [(3, 4)], np.float32, (-2, 2)),
    "threefry2x32": (lambda L, N, k0, k1, x0, x1: _xor(L.threefry2x32(k0, k1, x0, x1)),
                     [(4,), (4,), (4,), (4,)], np.uint32, (0, 2 ** 32 - 1)),
}


def _xor(words):
    return words[0] ^ words[1]


def int_inputs(case, seed):
    _, shapes, dtype, (lo, hi) = INT_CASES[case]
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, s).astype(dtype) for s in shapes]
