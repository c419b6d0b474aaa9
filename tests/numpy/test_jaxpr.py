"""Jaxprs: tracing, printing (checked against JAX's own printout), evaluation."""

import re

import jax.ad_checkpoint  # noqa: F401 - j.ad_checkpoint below
import numpy as np
import pytest

import jaxwg
import jaxwg.ad_checkpoint  # noqa: F401
import jaxwg.numpy as jnp
from jaxwg.frontend.jaxpr import eval_jaxpr

from .helpers import assert_array, jax, jax_numpy

# (function of a numpy module, example arguments); run through both JAX and jaxwg.
CASES = {
    "sin_mul": (lambda m: lambda x: m.sin(x) * 2.0, [np.ones(3, np.float32)]),
    "sum_axis": (lambda m: lambda x: m.sum(m.sin(x) * 2.0, axis=0), [np.ones((3, 4), np.float32)]),
    "weak_int_arg": (lambda m: lambda x, y: x * y, [np.ones((2, 3), np.float32), 2]),
    "identity": (lambda m: lambda x: x, [np.ones(3, np.float32)]),
    "repeated_output": (lambda m: lambda x: (x, x), [np.ones(3, np.float32)]),
    "exp_of_int": (lambda m: lambda x: m.exp(x), [np.arange(3, dtype=np.int32)]),
    "compare": (lambda m: lambda x: x > 0, [np.ones(3, np.float32)]),
    "max_axis": (lambda m: lambda x: m.max(x, axis=1), [np.ones((2, 3), np.float32)]),
    "argmax": (lambda m: lambda x: m.argmax(x), [np.ones(3, np.float32)]),
    "astype": (lambda m: lambda x: x.astype(m.int32), [np.ones(3, np.float32)]),
    "neg_abs": (lambda m: lambda x: -abs(x), [np.ones(3, np.float32)]),
    "transpose_reshape": (lambda m: lambda x: x.T.reshape(6), [np.ones((2, 3), np.float32)]),
}


def _long(m):
    def f(x):
        for _ in range(12):  # over 10 equations: JAX prints the jaxpr once, first
            x = m.sin(x)
        return x
    return f


# Calls of jitted functions inside a trace: one `jit` equation each, printed as JAX does.
JIT_CASES = {
    "jit_of_f": (lambda j, m: j.jit(lambda x: m.sin(x) * 2.0), [np.ones(3, np.float32)]),
    "nested": (lambda j, m: j.jit(lambda x: j.jit(m.cos)(x) + 1.0), [np.ones(3, np.float32)]),
    "multiple_outputs": (lambda j, m: lambda x: j.jit(lambda y: (y, y + 1))(x),
                         [np.ones(3, np.float32)]),
    "closed_over_array": (lambda j, m: lambda x: j.jit(lambda y: y * m.arange(3.0))(x),
                          [np.ones(3, np.float32)]),
    "closed_over_tracer": (lambda j, m: lambda x: j.jit(lambda y: y * x)(x + 1),
                           [np.ones(3, np.float32)]),
    "scalar_and_static": (lambda j, m: lambda x: j.jit(lambda y, s, n: y * s + n,
                                                       static_argnums=2)(x, 2.0, 3),
                          [np.ones(3, np.float32)]),
    "same_argument_twice": (lambda j, m: lambda x: j.jit(lambda a, b: a - b)(x, x),
                            [np.ones(3, np.float32)]),
    "called_twice_is_shared": (lambda j, m: (lambda f: lambda x: f(x) + f(x * 2))(j.jit(m.sin)),
                               [np.ones(3, np.float32)]),
    "long_is_shared": (lambda j, m: lambda x: j.jit(_long(m))(x), [np.ones(3, np.float32)]),
    "reduction_inside": (lambda j, m: j.jit(lambda x: x + m.sum(x)), [np.ones((2, 3), np.float32)]),
    "names_after_z": (lambda j, m: lambda *xs: j.jit(lambda *ys: sum(ys))(*xs),
                      [np.ones(3, np.float32)] * 30),
}


def _jax_printout(text: str) -> str:
    """JAX's printout with the one thing jaxwg cannot print alike: NumPy integers that
    JAX's batching rules leave in params (`axes=(np.int64(1),)`) where jaxwg has ints."""
    return re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)


def _without_layout(text: str) -> str:
    """A printout's tokens, whatever its line breaks: separators and indentation as one
    space, none beside brackets."""
    return re.sub(r" ?([\[\](){},]) ?", r"\1", re.sub(r";?\s+", " ", text))


def assert_prints_as_jax(got: str, jax_text: str) -> None:
    """`got` is JAX's printout `jax_text`, layout included; where JAX's text held NumPy
    integers, its line breaks followed their longer text, so there the two compare
    without layout."""
    want = _jax_printout(jax_text)
    if want == jax_text:
        assert got == want
    else:
        assert _without_layout(got) == _without_layout(want), (got, want)


def _jaxwg_args(args):
    return [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_printout_matches_jax(name):
    _case_prints_as_jax(CASES[name], (jnp,), (jax_numpy,))


def _case_prints_as_jax(case, ours: tuple, theirs: tuple):
    """A (make, args) case: the function `make(*ours)` traced by jaxwg prints as
    `make(*theirs)` traced by JAX."""
    make, args = case
    assert_prints_as_jax(str(jaxwg.make_jaxpr(make(*ours))(*_jaxwg_args(args))),
                         str(jax.make_jaxpr(make(*theirs))(*args)))


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(JIT_CASES))
def test_jit_equations_print_as_in_jax(name):
    _case_prints_as_jax(JIT_CASES[name], (jaxwg, jnp), (jax, jax_numpy))


def _sum_sin_times_x(m):
    return lambda x: m.sum(m.sin(x) * x)


def _custom_jvp_sin(j, m):
    @j.custom_jvp
    def sin(x):
        return m.sin(x)

    @sin.defjvp
    def sin_jvp(primals, tangents):
        return sin(primals[0]), m.cos(primals[0]) * tangents[0]
    return sin


def _custom_vjp_sin(j, m):
    @j.custom_vjp
    def sin(x):
        return m.sin(x)

    def sin_fwd(x):
        return m.sin(x), x

    def sin_bwd(x, g):
        return (g * m.cos(x),)
    sin.defvjp(sin_fwd, sin_bwd)
    return sin


_F3 = np.ones(3, np.float32)
_F23 = np.ones((2, 3), np.float32)

# Transformed functions (of the top module, its lax and numpy), printed exactly as JAX
# prints them: layout, names, params and literals. Programs left out trace to other
# equations than JAX's (the printing is alike): JAX wraps cumsum, pad and where in jit
# calls.
TRANSFORM_CASES = {
    "grad": (lambda j, L, m: j.grad(_sum_sin_times_x(m)), [_F3]),
    "vmap": (lambda j, L, m: j.vmap(lambda x: m.sin(x) + 1.0), [_F23]),
    "vmap_of_sum": (lambda j, L, m: j.vmap(m.sum), [_F23]),
    "jvp": (lambda j, L, m: lambda x, t: j.jvp(m.sin, (x,), (t,)), [_F3, _F3]),
    "jit_of_grad": (lambda j, L, m: j.jit(j.grad(_sum_sin_times_x(m))), [_F3]),
    "cond": (lambda j, L, m: lambda p, x: L.cond(p, m.sin, m.cos, x), [np.bool_(True), _F3]),
    "cond_of_int": (lambda j, L, m: lambda p, x: L.cond(p, m.sin, m.cos, x), [np.int32(1), _F3]),
    "jvp_of_cond": (lambda j, L, m: lambda x: j.jvp(
        lambda y: L.cond(y > 0, m.sin, m.cos, y), (x,), (x,)), [np.float32(1.0)]),
    "switch": (lambda j, L, m: lambda i, x: L.switch(i, [m.sin, m.cos, m.exp], x),
               [np.int32(1), _F3]),
    "scan": (lambda j, L, m: lambda x: L.scan(lambda c, a: (c + a, c * a), 0.0, x), [_F3]),
    "grad_of_scan": (lambda j, L, m: j.grad(lambda x: m.sum(L.scan(
        lambda c, a: (m.sin(c) * a, c), 1.0, x)[1])), [_F3]),
    "grad_of_scan_carry": (lambda j, L, m: j.grad(lambda x: L.scan(lambda c, a: (c * a, c), 1.0, x)[0]),
                           [_F3]),
    "grad_of_reversed_scan": (lambda j, L, m: j.grad(lambda xs: m.sum(L.scan(
        lambda c, x: (c * x, m.cos(c)), 1.0, xs, reverse=True)[1])), [_F3]),
    "grad_of_scan_rnn": (lambda j, L, m: j.grad(lambda w, h, xs: m.sum(L.scan(
        lambda c, x: (m.tanh(c @ w + x), c), h, xs)[1]), argnums=(0, 1)),
        [np.ones((2, 2), np.float32), np.ones(2, np.float32), np.ones((3, 2), np.float32)]),
    "grad_of_scan_hoisting": (lambda j, L, m: j.grad(lambda w, xs: m.sum(L.scan(
        lambda c, x: (c * m.sin(w) + x, c), 1.0, xs)[0])), [np.float32(0.5), _F3]),
    "jit_of_grad_of_scan": (lambda j, L, m: j.jit(j.grad(
        lambda x: L.scan(lambda c, a: (c * a, c), 1.0, x)[0])), [_F3]),
    "vmap_of_grad_of_scan": (lambda j, L, m: j.vmap(j.grad(
        lambda x: L.scan(lambda c, a: (c * a, c), 1.0, x)[0])), [_F23]),
    "keepdims": (lambda j, L, m: lambda x: m.sum(x, axis=1, keepdims=True), [_F23]),
    "while": (lambda j, L, m: lambda x: L.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x),
              [np.float32(1.0)]),
    "fori": (lambda j, L, m: lambda x: L.fori_loop(0, 3, lambda i, c: c * 2.0, x), [_F3]),
    "select_n": (lambda j, L, m: L.select_n, [np.ones(3, bool), _F3, _F3]),
    "broadcast": (lambda j, L, m: lambda x: m.broadcast_to(x, (3,)), [np.float32(1.0)]),
    "matmul": (lambda j, L, m: lambda a, b: a @ b, [_F23, np.ones((3, 4), np.float32)]),
    "matvec": (lambda j, L, m: lambda a, b: a @ b, [_F23, _F3]),
    "grad_of_matmul": (lambda j, L, m: j.grad(lambda a, b: m.sum(a @ b)),
                       [_F23, np.ones((3, 4), np.float32)]),
    "batched_einsum": (lambda j, L, m: lambda a, b: m.einsum("bij,bjk->bik", a, b),
                       [np.ones((2, 2, 3), np.float32), np.ones((2, 3, 4), np.float32)]),
    "vmap_of_matmul": (lambda j, L, m: j.vmap(lambda a, b: a @ b, in_axes=(0, None)),
                       [np.ones((2, 2, 3), np.float32), np.ones((3, 4), np.float32)]),
    "grad_with_stop_gradient": (lambda j, L, m: j.grad(lambda x: m.sum(x * L.stop_gradient(x))),
                                [_F3]),
    "custom_jvp": (lambda j, L, m: _custom_jvp_sin(j, m), [_F3]),
    "grad_of_custom_jvp": (lambda j, L, m: j.grad(lambda x: m.sum(_custom_jvp_sin(j, m)(x))),
                           [_F3]),
    "custom_vjp": (lambda j, L, m: _custom_vjp_sin(j, m), [_F3]),
    "grad_of_tanh_squared": (lambda j, L, m: j.grad(lambda x: m.sum(m.tanh(x) ** 2)), [_F3]),
    "grad_of_cube": (lambda j, L, m: j.grad(lambda x: m.sum(x ** 3 + x ** 1)), [_F3]),
    "grad_of_indexing": (lambda j, L, m: j.grad(lambda x: x[0] * x[2]), [_F3]),
    "vmap_of_indexing": (lambda j, L, m: j.vmap(lambda x: x[1] + x[0, 2]), [np.ones((2, 2, 3), np.float32)]),
    "grad_of_jit": (lambda j, L, m: j.grad(j.jit(lambda x: m.sum(m.sin(x)))), [_F3]),
    "grad_of_jit_saving_its_input": (lambda j, L, m: j.grad(j.jit(lambda x: m.sum(x * x))), [_F3]),
    "rank_broadcast": (lambda j, L, m: lambda a, b: a * b - b, [_F23, _F3]),
    "grad_of_rank_broadcast": (lambda j, L, m: j.grad(lambda a, b: m.sum(a * b), argnums=(0, 1)),
                               [_F23, _F3]),
    "vmap_with_unbatched": (lambda j, L, m: j.vmap(lambda a, b: a * b, in_axes=(0, None)),
                            [_F23, _F3]),
    "vmap_at_axis_1": (lambda j, L, m: j.vmap(lambda a: m.sin(a) + 1.0, in_axes=1), [_F23]),
    "vmap_of_new_axis": (lambda j, L, m: j.vmap(lambda a: a[None] + a[:, None]), [_F23]),
    "jacfwd_of_jacrev": (lambda j, L, m: j.jacfwd(j.jacrev(lambda x: m.sum(m.sin(x) * x))), [_F3]),
    "jacrev": (lambda j, L, m: j.jacrev(lambda x, y: (m.sin(x) * y, m.sum(x)), argnums=(0, 1)),
               [_F3, np.float32(2.0)]),
    "jacfwd": (lambda j, L, m: j.jacfwd(lambda x: {"a": x[:2] * 2.0, "b": m.cos(x)}), [_F3]),
    "split": (lambda j, L, m: lambda x: m.split(x, [1, 2], axis=1), [_F23]),
    "grad_of_checkpoint": (lambda j, L, m: j.grad(lambda x: m.sum(j.checkpoint(
        lambda y: m.sin(m.sin(y)))(x) * 2.0)), [_F3]),
    "grad_of_checkpoint_saving_all": (lambda j, L, m: j.grad(lambda x: m.sum(j.checkpoint(
        lambda y: m.sin(m.sin(y)), policy=j.checkpoint_policies.everything_saveable)(x))), [_F3]),
    "grad_of_checkpoint_saving_dots": (lambda j, L, m: j.grad(lambda x, w: m.sum(j.checkpoint(
        lambda y: m.tanh(y @ w) @ w, policy=j.checkpoint_policies.dots_saveable)(x)), argnums=(0, 1)),
        [_F23, np.ones((3, 3), np.float32)]),
    "grad_of_checkpoint_saving_names": (lambda j, L, m: j.grad(lambda x, w: m.sum(j.checkpoint(
        lambda y: m.sin(j.ad_checkpoint.checkpoint_name(y @ w, "h")) * 2.0,
        policy=j.checkpoint_policies.save_only_these_names("h"))(x))), [_F23, np.ones((3, 3), np.float32)]),
    "vmap_of_psum": (lambda j, L, m: j.vmap(lambda x: x / L.psum(x, "i"), axis_name="i"), [_F3]),
    "vmap_of_psum_of_unbatched": (lambda j, L, m: j.vmap(lambda x, y: x * L.psum(y, "i"),
                                                         in_axes=(0, None), axis_name="i"),
                                  [_F3, np.float32(2.0)]),
    "vmap_of_psum_of_pytree": (lambda j, L, m: j.vmap(lambda x: L.psum((x, x * 2.0), "i"), axis_name="i"),
                               [_F3]),
    "vmap_of_pmin_at_axis_1": (lambda j, L, m: j.vmap(lambda x: x - L.pmin(x, "i"), in_axes=1,
                                                      axis_name="i"), [_F23]),
    "vmap_of_pmean_of_bools": (lambda j, L, m: j.vmap(lambda x: L.pmean(x > 0, "i"), axis_name="i"),
                               [_F3]),
    "vmap_of_vmap_of_psum_of_both": (lambda j, L, m: j.vmap(j.vmap(
        lambda x: L.psum(x, ("i", "j")), axis_name="j"), axis_name="i"), [_F23]),
    "vmap_of_vmap_of_pmax_of_outer": (lambda j, L, m: j.vmap(j.vmap(
        lambda x: L.pmax(x, "i"), axis_name="j"), axis_name="i"), [_F23]),
    "grad_of_vmap_of_psum": (lambda j, L, m: j.grad(lambda x: m.sum(j.vmap(
        lambda v: v * L.psum(v, "i"), axis_name="i")(x))), [_F3]),
    "vmap_of_grad_of_psum": (lambda j, L, m: j.vmap(j.grad(lambda v: v * L.psum(v, "i")),
                                                    axis_name="i"), [_F3]),
    "vmap_of_grad": (lambda j, L, m: j.vmap(j.grad(lambda x: m.sum(m.sin(x) * x))), [_F23]),
    "vmap_of_cond": (lambda j, L, m: j.vmap(lambda p, x: L.cond(p, m.sin, m.cos, x)),
                     [np.array([True, False]), _F23]),
    "vmap_of_switch": (lambda j, L, m: j.vmap(lambda i, x: L.switch(i, [m.sin, m.cos, m.exp], x)),
                       [np.array([2, 0], np.int32), _F23]),
    "while_with_invariant_carry": (lambda j, L, m: _while_stepping(L, lambda c: c[0] < 5.0),
                                   [np.float32(1.0)]),
    "while_whose_cond_reads_all": (lambda j, L, m: _while_stepping(L, lambda c: c[0] < c[1]),
                                   [np.float32(1.0)]),
    "vmap_of_while": (lambda j, L, m: j.vmap(_while_stepping(L, lambda c: m.sum(c[0]) < 5.0)), [_F23]),
    "vmap_of_while_unbatched_pred": (lambda j, L, m: j.vmap(
        lambda x, n: L.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0)),
        in_axes=(0, None)), [_F23, np.int32(3)]),
    "vmap_of_vmap_of_while": (lambda j, L, m: j.vmap(j.vmap(_while_stepping(L, lambda c: c[0] < 5.0))),
                              [_F23]),
    "jvp_of_vmap_of_while": (lambda j, L, m: lambda x: j.jvp(
        j.vmap(_while_stepping(L, lambda c: c[0] < 5.0)), (x,), (x,)), [_F3]),
}


def _scan_of_tanh(L, m):
    """A scan whose ys are the sine of its carry, which steps through tanh of the xs."""
    return lambda x: L.scan(lambda c, a: (c * m.tanh(a) + 1.0, m.sin(c)), x[0], x)[1]


def _cond_of_sum(L, m):
    """A cond on the sum of its operand, whose branches need different residuals."""
    return lambda x: L.cond(m.sum(x) > 0, lambda v: m.sin(v) * 2.0, lambda v: m.cos(v), x)


def _fori_of_sin(L, m):
    return lambda x: L.fori_loop(0, 3, lambda i, c: m.sin(c) * 2.0, x)


def _cond_of_three(L, m):
    """A cond with three outputs whose branches need residuals of two avals."""
    return lambda x: L.cond(m.sum(x) > 0, lambda v: (m.sin(v) * 2.0, m.exp(v), m.sum(m.sin(v))),
                            lambda v: (m.cos(v), v * v, m.sum(m.tanh(v))), x)


# The compositions the transformations issue lists, of a function `body` of one array
# (its loss: the sum of its values), and the argument each takes.
COMPOSITIONS = {
    "jit_of_grad": (lambda j, m, body: j.jit(j.grad(lambda x: m.sum(body(x)))), _F3),
    "grad_of_jit": (lambda j, m, body: j.grad(j.jit(lambda x: m.sum(body(x)))), _F3),
    "vmap_of_grad": (lambda j, m, body: j.vmap(j.grad(lambda x: m.sum(body(x)))), _F23),
    "grad_of_vmap": (lambda j, m, body: j.grad(lambda x: m.sum(j.vmap(body)(x))), _F23),
    "jacfwd_of_jacrev": (lambda j, m, body: j.jacfwd(j.jacrev(lambda x: m.sum(body(x)))), _F3),
    "hessian": (lambda j, m, body: j.hessian(lambda x: m.sum(body(x))), _F3),
    "vmap_of_vmap": (lambda j, m, body: j.vmap(j.vmap(body)), np.ones((2, 2, 3), np.float32)),
    "linearize": (lambda j, m, body: lambda x: j.linearize(lambda v: m.sum(body(v)), x)[1](x), _F3),
}
BODIES = {"cond": _cond_of_sum, "scan": _scan_of_tanh, "fori": _fori_of_sin}
TRANSFORM_CASES.update({
    f"{name}_of_{body_name}": (lambda j, L, m, c=compose, b=body: c(j, m, b(L, m)), [arg])
    for name, (compose, arg) in COMPOSITIONS.items() for body_name, body in BODIES.items()})
TRANSFORM_CASES.update({
    "grad_of_cond": (lambda j, L, m: j.grad(lambda x: L.cond(x > 0, m.sin, m.cos, x)), [np.float32(1.0)]),
    "grad_of_cond_sharing_residual_slots": (lambda j, L, m: j.grad(
        lambda x: m.sum(sum(_cond_of_three(L, m)(x)))), [_F3]),
    "grad_of_switch": (lambda j, L, m: j.grad(
        lambda x, i: m.sum(L.switch(i, [m.sin, m.cos, lambda v: -v], x))), [_F3, np.int32(1)]),
    "vmap_of_sum_at_axis_1": (lambda j, L, m: j.vmap(lambda x: m.sum(x, axis=0), in_axes=1),
                              [np.ones((2, 3, 4), np.float32)]),
    "vmap_of_argmax_at_axis_1": (lambda j, L, m: j.vmap(lambda x: m.argmax(x, axis=1), in_axes=1),
                                 [np.ones((2, 3, 4), np.float32)]),
    "vmap_of_cumsum_at_axis_1": (lambda j, L, m: j.vmap(lambda x: L.cumsum(x, axis=1), in_axes=1),
                                 [np.ones((2, 3, 4), np.float32)]),
    "vmap_of_slices_at_axis_1": (lambda j, L, m: j.vmap(lambda x: L.rev(x[1:, ::2].T, (0,)), in_axes=1),
                                 [np.ones((2, 3, 4), np.float32)]),
})


# Sorting: JAX's sort and top_k primitives, and jnp's sorts as JAX's jit calls.
TRANSFORM_CASES.update({
    "lax_sort_along_0": (lambda j, L, m: lambda x: L.sort(x, dimension=0), [_F23]),
    "lax_sort_of_three_by_two_keys": (lambda j, L, m: lambda x, y: L.sort((x, y, x), num_keys=2),
                                      [_F3, np.ones(3, np.int32)]),
    "sort_key_val": (lambda j, L, m: lambda x, y: L.sort_key_val(x, y, 0), [_F23, np.ones((2, 3), np.int32)]),
    "top_k": (lambda j, L, m: lambda x: L.top_k(x, 2), [_F23]),
    "sort": (lambda j, L, m: m.sort, [_F3]),
    "sort_flattened_descending": (lambda j, L, m: lambda x: m.sort(x, axis=None, descending=True), [_F23]),
    "sort_of_complex": (lambda j, L, m: m.sort, [np.ones(3, np.complex64)]),
    "argsort_along_0": (lambda j, L, m: lambda x: m.argsort(x, axis=0), [_F23]),
    "argsort_descending": (lambda j, L, m: lambda x: m.argsort(x, descending=True), [_F3]),
    "lexsort": (lambda j, L, m: lambda x, y: m.lexsort((x, y)), [_F3, np.ones(3, np.int32)]),
    "vmap_of_sort": (lambda j, L, m: j.vmap(m.sort), [_F23]),
    "vmap_of_sort_at_axis_1": (lambda j, L, m: j.vmap(lambda x: L.sort(x, dimension=0), in_axes=1), [_F23]),
    "vmap_of_sort_key_val_of_unbatched": (lambda j, L, m: j.vmap(L.sort_key_val, in_axes=(1, None)),
                                          [_F23, np.ones(2, np.float32)]),
    "vmap_of_top_k_at_axis_1": (lambda j, L, m: j.vmap(lambda x: L.top_k(x, 1), in_axes=1), [_F23]),
    "jvp_of_top_k": (lambda j, L, m: lambda x: j.jvp(lambda y: L.top_k(y, 2)[0], (x,), (x,)), [_F23]),
})


def _while_stepping(L, cond):
    """A while loop adding its second carry (fixed) to its first until `cond` fails."""
    return lambda x: L.while_loop(cond, lambda c: (c[0] + c[1], c[1]), (x, x * 0.0 + 1.0))[0]


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(TRANSFORM_CASES))
def test_transformed_functions_print_as_in_jax(name):
    _case_prints_as_jax(TRANSFORM_CASES[name], (jaxwg, jaxwg.lax, jnp), (jax, jax.lax, jax_numpy))


def test_jit_equation_layout():
    closed = jaxwg.make_jaxpr(lambda x: jaxwg.jit(lambda y: (y, y + 1))(x) [1] * 2.0)(jnp.ones(3))
    assert str(closed) == (
        "{ lambda ; a:f32[3]. let\n"
        "    _:f32[3] b:f32[3] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = add a 1.0:f32[] in (a, b) }\n"
        "    ] a\n"
        "    c:f32[3] = mul b 2.0:f32[]\n"
        "  in (c,) }")


def test_one_line_and_multi_line_forms():
    one = jaxwg.make_jaxpr(lambda x: jnp.sin(x))(jnp.ones(3))
    assert str(one) == "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }"
    empty = jaxwg.make_jaxpr(lambda x: x)(jnp.ones(3))
    assert str(empty) == "{ lambda ; a:f32[3]. let  in (a,) }"
    many = jaxwg.make_jaxpr(lambda x: jnp.cos(jnp.sin(jnp.exp(x))))(jnp.ones((2, 3)))
    assert str(many) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[2,3] = exp a\n"
        "    c:f32[2,3] = sin b\n"
        "    d:f32[2,3] = cos c\n"
        "  in (d,) }")


def test_closed_over_arrays_become_constvars():
    c = jnp.arange(3.0)
    closed = jaxwg.make_jaxpr(lambda x: x * c + 1)(jnp.ones(3))
    assert str(closed) == ("{ lambda a:f32[3]; b:f32[3]. let\n"
                           "    c:f32[3] = mul b a\n"
                           "    d:f32[3] = add c 1.0:f32[]\n"
                           "  in (d,) }")
    assert closed.consts[0] is c


def test_pytree_arguments_and_static_argnums():
    closed = jaxwg.make_jaxpr(lambda d, n: d["a"] * n + d["b"], static_argnums=1)(
        {"a": jnp.ones(2), "b": jnp.zeros(2)}, 3)
    assert str(closed) == ("{ lambda ; a:f32[2] b:f32[2]. let\n"
                           "    c:f32[2] = mul a 3.0:f32[]\n"
                           "    d:f32[2] = add c b\n"
                           "  in (d,) }")


def test_eval_jaxpr_reproduces_the_function(platform):
    fn = lambda x: jnp.sum(jnp.exp(x) * 2.0, axis=1)
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    closed = jaxwg.make_jaxpr(fn)(x)
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, [x])
    assert_array(out, np.sum(np.exp(np.arange(6.0).reshape(2, 3)) * 2, axis=1).astype(np.float32),
                 rtol=1e-6)
    assert [a.shape for a in closed.in_avals] == [(2, 3)]
    assert [a.shape for a in closed.out_avals] == [(2,)]


def test_bad_shapes_raise_at_trace_time():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                        r"\(3,\), \(4,\)"):
        jaxwg.make_jaxpr(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))


def _documented(x):
    """Sums the sines."""
    return (x * 0.5).sum()


def _undocumented(x):
    return (x * 0.5).sum()


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vmap", "jacfwd", "jacrev",
                                       "hessian", "jit", "checkpoint", "remat"])
@pytest.mark.parametrize("fun", [_documented, _undocumented], ids=lambda f: f.__name__)
def test_transformed_functions_keep_name_and_doc_as_jax(transform, fun):
    ours, theirs = getattr(jaxwg, transform)(fun), getattr(jax, transform)(fun)
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert (getattr(ours, "__wrapped__", None) is fun) == (getattr(theirs, "__wrapped__", None) is fun)


INNER_CALLS = {
    "jit_of_grad": lambda m, f: m.jit(m.grad(f)),
    "jit_of_vmap": lambda m, f: m.jit(m.vmap(f)),
    "grad_of_jit": lambda m, f: m.grad(m.jit(f)),
    "vmap_of_jit": lambda m, f: m.vmap(m.jit(f)),
}


@pytest.mark.parametrize("name", sorted(INNER_CALLS))
def test_inner_jit_names_match_jax(name):
    x = np.ones((2, 3), np.float32) if "vmap" in name else np.float32(1.0)
    names = [re.findall(r"\bname=(\S+)", str(m.make_jaxpr(INNER_CALLS[name](m, _documented))(x)))
             for m in (jaxwg, jax)]
    assert names[0] == names[1] != []


# Library functions JAX wraps in `jit` (its `_where`, `clip`, `_pad`, ...): one `jit`
# equation each, named and with arguments as JAX's (`staged_jit`); others as JAX traces them.
def _nn(j):
    return j.nn


F23 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
_W23 = np.array([[True, False, True], [True, True, False]])
LIBRARY_CASES = {
    "where": (lambda j, m: lambda x: m.where(x > 0, x, 0.0), [F23]),
    "where_scalar_condition": (lambda j, m: lambda x: m.where(True, x, 1), [F23]),
    "clip": (lambda j, m: lambda x: m.clip(x, 0.0, 1.0), [F23]),
    "clip_max_only": (lambda j, m: lambda x: m.clip(x, max=np.float32(0.5)), [F23]),
    "pad": (lambda j, m: lambda x: m.pad(x, 1), [F23]),
    "cumsum": (lambda j, m: lambda x: m.cumsum(x, axis=1), [F23]),
    "cumsum_flat": (lambda j, m: m.cumsum, [F23]),
    "linspace_no_endpoint": (lambda j, m: lambda: m.linspace(0.0, 2.0, 4, endpoint=False), []),
    "take": (lambda j, m: lambda x: m.take(x, np.array([0, -1]), axis=1), [F23]),
    "take_along_axis": (lambda j, m: lambda x, i: m.take_along_axis(x, i, axis=1),
                        [F23, np.array([[0], [-1]], np.int32)]),
    "take_along_axis_broadcast": (lambda j, m: lambda x, i: m.take_along_axis(x, i, axis=0),
                                  [F23[:1], np.array([[0], [-1]], np.int32)]),
    "take_along_axis_flat_clip": (lambda j, m: lambda x, i: m.take_along_axis(x, i, axis=None, mode="clip"),
                                  [F23, np.array([5, -1], np.int32)]),
    "grad_take_along_axis": (lambda j, m: j.grad(lambda x, i: m.take_along_axis(x, i, axis=1).sum()),
                             [F23, np.array([[2, 0], [1, 1]], np.int32)]),
    "linspace": (lambda j, m: lambda: m.linspace(0.0, 1.0, 5), []),
    "sum_of_python_scalar": (lambda j, m: lambda: m.sum(2.0), []),
    "softmax": (lambda j, m: lambda x: _nn(j).softmax(x), [F23]),
    "log_softmax": (lambda j, m: lambda x: _nn(j).log_softmax(x, axis=0), [F23]),
    "logsumexp": (lambda j, m: lambda x: _nn(j).logsumexp(x), [F23]),
    "logsumexp_keepdims": (lambda j, m: lambda x: _nn(j).logsumexp(x, axis=1, keepdims=True),
                           [F23]),
    "relu": (lambda j, m: lambda x: _nn(j).relu(x), [F23]),
    "grad_relu": (lambda j, m: j.grad(lambda x: m.sum(_nn(j).relu(x))), [F23]),
    "grad_softmax": (lambda j, m: j.grad(lambda x: m.sum(_nn(j).softmax(x)[0])), [F23]),
    "grad_logsumexp": (lambda j, m: j.grad(lambda x: _nn(j).logsumexp(x)), [F23]),
    "grad_softplus": (lambda j, m: j.grad(lambda x: m.sum(_nn(j).softplus(x))), [F23]),
    "grad_abs": (lambda j, m: j.grad(lambda x: m.sum(m.abs(x))), [F23]),
    "grad_of_div_and_maximum": (lambda j, m: j.grad(lambda x, y: m.sum(m.maximum(x, y) / y),
                                                    argnums=(0, 1)), [F23, F23]),
    "var": (lambda j, m: m.var, [F23]),
    "var_along_1_ddof_keepdims": (lambda j, m: lambda x: m.var(x, axis=1, ddof=1, keepdims=True), [F23]),
    "var_of_ints": (lambda j, m: m.var, [np.arange(6, dtype=np.int32)]),
    "var_of_complex": (lambda j, m: lambda x: m.var(x, axis=0), [F23.astype(np.complex64)]),
    "var_given_mean": (lambda j, m: lambda x: m.var(x, axis=1, mean=m.mean(x, axis=1, keepdims=True)),
                       [F23]),
    "std_correction": (lambda j, m: lambda x: m.std(x, axis=0, correction=1.5), [F23]),
    # where= masks through JAX's `_where` of the identity, counts as sums of the mask
    "sum_where": (lambda j, m: lambda x, w: m.sum(x, axis=1, where=w), [F23, _W23]),
    "sum_where_broadcast_initial": (lambda j, m: lambda x, w: m.sum(x, axis=0, where=w, initial=2.0),
                                    [F23, _W23[0]]),
    "all_where": (lambda j, m: lambda x, w: m.all(x, axis=1, where=w), [F23, _W23]),
    "sum_and_prod_of_bools_as_bool": (lambda j, m: lambda w: (m.sum(w, dtype=bool), m.prod(w, 0, bool)),
                                      [_W23]),
    "sum_of_bools_as_float": (lambda j, m: lambda w: m.sum(w, dtype=m.float32), [_W23]),
    "mean_where": (lambda j, m: lambda x, w: m.mean(x, where=w), [F23, _W23]),
    "mean_where_keepdims": (lambda j, m: lambda x, w: m.mean(x, axis=1, keepdims=True, where=w), [F23, _W23]),
    "mean_of_ints_where": (lambda j, m: lambda x, w: m.mean(x, where=w),
                           [np.arange(6, dtype=np.int32).reshape(2, 3), _W23[1]]),
    "var_where": (lambda j, m: lambda x, w: m.var(x, axis=0, ddof=1, where=w), [F23, _W23]),
    "var_of_complex_where": (lambda j, m: lambda x, w: m.var(x, where=w), [F23.astype(np.complex64), _W23]),
    "std_where": (lambda j, m: lambda x, w: m.std(x, axis=1, where=w), [F23, _W23]),
    "nansum": (lambda j, m: lambda x: m.nansum(x, axis=1), [F23]),
    "nanmax_and_nanmin_where": (lambda j, m: lambda x, w: (m.nanmax(x, where=w, initial=0.0),
                                                           m.nanmin(x, axis=0, keepdims=True)),
                                [F23, _W23]),
    "nanprod_of_ints": (lambda j, m: m.nanprod, [np.arange(6, dtype=np.int32)]),
    "nanmean_where": (lambda j, m: lambda x, w: m.nanmean(x, where=w), [F23, _W23]),
    "nanvar_along_1_ddof": (lambda j, m: lambda x: m.nanvar(x, axis=1, ddof=1), [F23]),
    "nanvar_of_complex_where": (lambda j, m: lambda x, w: m.nanvar(x, where=w),
                                [F23.astype(np.complex64), _W23]),
    "nanstd_given_mean": (lambda j, m: lambda x: m.nanstd(x, axis=1, mean=m.nanmean(x, axis=1, keepdims=True)),
                          [F23]),
    "vmap_clip": (lambda j, m: j.vmap(lambda x: m.clip(x, -0.5, 0.5)), [F23]),
    "one_hot": (lambda j, m: lambda x: _nn(j).one_hot(x, 3), [np.array([0, 2], np.int32)]),
    "one_hot_axis0": (lambda j, m: lambda x: _nn(j).one_hot(x, 3, axis=0),
                      [np.array([0, 2], np.int32)]),
}


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(LIBRARY_CASES))
def test_library_functions_print_as_in_jax(name):
    _case_prints_as_jax(LIBRARY_CASES[name], (jaxwg, jnp), (jax, jax_numpy))


_I32 = np.array([2, 0], np.int32)
# `.at[]` updates and their transformations: one scatter primitive each, with the index
# folded as JAX folds it (static integers as constants, NumPy arrays normalized while
# tracing).
UPDATE_CASES = {
    "set_int": (lambda j, m: lambda x: x.at[1].set(2.0), [_F3]),
    "add_numpy_array": (lambda j, m: lambda x: x.at[np.array([0, 1])].add(2.0), [_F3]),
    "set_ints_2d": (lambda j, m: lambda x: x.at[1, -1].set(2.0), [F23]),
    "set_column": (lambda j, m: lambda x: x.at[:, 1].set(2.0), [F23]),
    "add_rows": (lambda j, m: lambda x: x.at[..., np.array([[0, 2]])].add(1.0), [F23]),
    "two_adds_share_update_jaxpr": (lambda j, m: lambda x: x.at[0].add(1.0).at[1].add(2.0), [_F3]),
    "multiply_min_max": (lambda j, m: lambda x: x.at[0].multiply(3.0).at[1].min(0.0).at[2].max(1.0),
                         [_F3]),
    "traced_index": (lambda j, m: lambda x, i: x.at[i].set(x[0], mode="clip"), [_F3, _I32]),
    "jvp_set_repeated": (lambda j, m: lambda x, t: j.jvp(lambda y: y.at[np.array([1, 1])].set(y[0]), (x,), (t,)),
                         [_F3, _F3]),
    "grad_set": (lambda j, m: j.grad(lambda x: m.sum(x.at[1].set(x[0] * 2.0))), [_F3]),
    "grad_add": (lambda j, m: j.grad(lambda x, v: m.sum(x.at[_I32].add(v) ** 2), argnums=1),
                 [_F3, np.ones(2, np.float32)]),
    "jvp_multiply_unique": (lambda j, m: lambda x, v: j.jvp(
        lambda x, v: x.at[_I32].multiply(v, unique_indices=True), (x, v), (x, v)), [_F3, np.ones(2, np.float32)]),
    "grad_multiply_unique": (lambda j, m: j.grad(lambda x, v: m.sum(x.at[_I32].multiply(v, unique_indices=True)),
                                                 argnums=(0, 1)), [_F3, np.ones(2, np.float32)]),
    "vmap_add": (lambda j, m: j.vmap(lambda x: x.at[1].add(2.0)), [F23]),
    "vmap_batched_index": (lambda j, m: j.vmap(lambda x, i: x.at[i].add(2.0), in_axes=(None, 0)),
                           [_F3, np.array([[0], [2]], np.int32)]),
    "set_traced_array": (lambda j, m: lambda x, i: x.at[i].set(1.0), [F23, _I32]),
    "add_to_column_of_traced_array": (lambda j, m: lambda x, i: x.at[:, i].add(1.0), [F23, _I32]),
    "multiply_array_and_slice": (lambda j, m: lambda x, i: x.at[i, 1:].multiply(2.0), [F23, _I32 % 2]),
    "subtract": (lambda j, m: lambda x, i: x.at[i].subtract(2.0), [F23, _I32 % 2]),
    "divide": (lambda j, m: lambda x, i: x.at[i].divide(2.0), [F23, _I32 % 2]),
    "divide_ints": (lambda j, m: lambda x, i: x.at[i].divide(2), [np.arange(6, dtype=np.int32), _I32]),
    "add_float_to_ints": (lambda j, m: lambda x, i: x.at[i].add(2.5), [np.arange(6, dtype=np.int32), _I32]),
    "set_slice": (lambda j, m: lambda x: x.at[1:].set(1.0), [F23]),
    "set_step": (lambda j, m: lambda x: x.at[:, ::-2].set(1.0), [F23]),
    "set_mask": (lambda j, m: lambda x: x.at[F23 > 0].set(1.0), [F23]),
    "set_none_and_traced_int": (lambda j, m: lambda x, i: x.at[None, i].set(1.0), [F23, np.int32(1)]),
    "set_true": (lambda j, m: lambda x: x.at[True, 1].set(0.0), [F23]),
    "set_without_wrapping": (lambda j, m: lambda x, i: x.at[i].set(0.0, wrap_negative_indices=False),
                             [_F3, _I32]),
    "get_fill": (lambda j, m: lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), [F23, _I32]),
    "get_fill_of_int": (lambda j, m: lambda x: x.at[1, ::-1].get(mode="fill"), [F23]),
    "get_clip": (lambda j, m: lambda x, i: x.at[i, 1].get(mode="clip"), [F23, _I32]),
    "grad_set_traced_array": (lambda j, m: j.grad(lambda x, v, i: m.sum(x.at[i].set(v)), argnums=(0, 1)),
                              [F23, np.ones(3, np.float32), _I32 % 2]),
    "grad_subtract": (lambda j, m: j.grad(lambda x, v, i: m.sum(x.at[i].subtract(v) ** 2), argnums=(0, 1)),
                      [F23, np.ones(3, np.float32), _I32 % 2]),
    "grad_get_fill": (lambda j, m: j.grad(lambda x: m.sum(x.at[1].get(mode="fill"))), [F23]),
    "vmap_subtract": (lambda j, m: j.vmap(lambda x, i: x.at[i].subtract(1.0)),
                      [F23, np.array([0, 2], np.int32)]),
    "vmap_add_to_batched_operand": (lambda j, m: j.vmap(lambda x, i: x.at[i].add(1.0), in_axes=(0, None)),
                                    [F23, _I32]),
}


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")  # add_float_to_ints
@pytest.mark.parametrize("name", sorted(UPDATE_CASES))
def test_index_updates_print_as_in_jax(name):
    _case_prints_as_jax(UPDATE_CASES[name], (jaxwg, jnp), (jax, jax_numpy))


_F45, _I = np.arange(20, dtype=np.float32).reshape(4, 5), np.int32(1)
# Dynamic slices and updates (primitives, as JAX's, with its normalization of negative
# starts), stack and unstack, and indexing with scalars, which JAX rewrites to slices
# or dynamic slices; and their transformations.
SLICING_CASES = {
    "dynamic_slice": (lambda j, L, m: lambda x, i: L.dynamic_slice(x, (i, 2), (2, 2)), [_F45, _I]),
    "dynamic_slice_of_int16s": (lambda j, L, m: lambda x: L.dynamic_slice(x, (np.int16(1), np.int16(-1)), (2, 2)),
                                [_F45]),
    "dynamic_slice_of_uint8": (lambda j, L, m: lambda x, i: L.dynamic_slice(x, (i, i), (2, 2)), [_F45, np.uint8(1)]),
    "dynamic_update_slice": (lambda j, L, m: lambda x, u, i: L.dynamic_update_slice(x, u, (i, 2)),
                             [_F45, F23[:, :2], _I]),
    "dynamic_index_in_dim": (lambda j, L, m: lambda x: L.dynamic_index_in_dim(x, -1, 1), [_F45]),
    "dynamic_slice_in_dim": (lambda j, L, m: lambda x, i: L.dynamic_slice_in_dim(x, i, 2, allow_negative_indices=False),
                             [_F45, _I]),
    "dynamic_update_index_in_dim": (lambda j, L, m: lambda x, u, i: L.dynamic_update_index_in_dim(x, u, i, 0),
                                    [_F45, _F45[0], _I]),
    "jvp_dynamic_slice": (lambda j, L, m: lambda x, i: j.jvp(lambda y: L.dynamic_slice(y, (i, 2), (2, 2)), (x,), (x,)),
                          [_F45, _I]),
    "jvp_dynamic_update_slice": (lambda j, L, m: lambda x, u, i: j.jvp(
        lambda y: L.dynamic_update_slice(y, u, (i, 1)), (x,), (x,)), [_F45, F23[:, :2], _I]),
    "grad_dynamic_update_slice": (lambda j, L, m: j.grad(lambda x, u, i: m.sum(L.dynamic_update_slice(x, u, (i, 1)) ** 2),
                                                         argnums=(0, 1)), [_F45, F23[:, :2], _I]),
    "vmap_dynamic_slice_starts": (lambda j, L, m: lambda x: j.vmap(lambda k: L.dynamic_slice(x, (k, 1), (2, 3)))(
        m.arange(3)), [_F45]),
    "vmap_dynamic_slice_operand": (lambda j, L, m: lambda x, i: j.vmap(lambda r: L.dynamic_slice(r, (i,), (3,)))(x),
                                   [_F45, _I]),
    "vmap_dynamic_slice_both": (lambda j, L, m: lambda x: j.vmap(lambda r, k: L.dynamic_slice(r, (k,), (3,)))(
        x, m.arange(4)), [_F45]),
    "vmap_dynamic_update_slice": (lambda j, L, m: lambda x: j.vmap(
        lambda r, k: L.dynamic_update_slice(r, m.ones(2), (k,)))(x, m.arange(4)), [_F45]),
    "vmap_dynamic_update_slice_update": (lambda j, L, m: lambda x, u, i: j.vmap(
        lambda v: L.dynamic_update_slice(x, v, (i, 0)))(u), [_F45, np.ones((3, 1, 5), np.float32), _I]),
    "stack": (lambda j, L, m: lambda x: m.stack([x, x * 2], axis=1), [F23]),
    "stack_promoting": (lambda j, L, m: lambda x, y: m.stack([x, y]), [_F3, np.arange(3, dtype=np.int32)]),
    "grad_stack": (lambda j, L, m: j.grad(lambda x: m.sum(m.stack([x, x * 2]) ** 2)), [F23]),
    "vmap_stack": (lambda j, L, m: j.vmap(lambda a, b: m.stack([a, b], axis=1), in_axes=(0, None)),
                   [_F45, _F45[0]]),
    "unstack": (lambda j, L, m: lambda x: m.unstack(x, axis=1), [F23]),
    "grad_unstack": (lambda j, L, m: j.grad(lambda x: m.unstack(x)[1].sum()), [F23]),
    "vmap_unstack": (lambda j, L, m: j.vmap(lambda x: L.unstack(x)), [F23]),
    "index_traced": (lambda j, L, m: lambda x, i: x[i], [_F45, _I]),
    "index_traced_1d": (lambda j, L, m: lambda x, i: x[i], [_F3, _I]),
    "index_traced_column": (lambda j, L, m: lambda x, i: x[:, i], [_F45, _I]),
    "index_traced_and_slice": (lambda j, L, m: lambda x, i: x[i, 2:4], [_F45, _I]),
    "index_traced_reversed_none": (lambda j, L, m: lambda x, i: x[None, 3:0:-1, ..., i], [_F45, _I]),
    "index_uint8": (lambda j, L, m: lambda x, i: x[i], [_F45, np.uint8(1)]),
    "index_array_scalar": (lambda j, L, m: lambda x: x[np.array(1)], [_F45]),
    "index_int": (lambda j, L, m: lambda x: x[-1], [_F45]),
    "index_slice": (lambda j, L, m: lambda x: x[1:3], [_F45]),
    "grad_index_traced": (lambda j, L, m: j.grad(lambda x, i: m.sum(x[i] ** 2)), [_F45, _I]),
    "vmap_index_traced": (lambda j, L, m: lambda x: j.vmap(lambda k: x[k])(m.arange(3)), [_F45]),
}


_MASK = np.array([[True, False, True, False, True], [False, False, True, True, False],
                  [True, True, False, False, False], [False, True, False, True, True]])
_I22 = np.array([[1, 0], [0, -3]], np.int32)
# Advanced indexing: one gather with JAX's dimension numbers, its index arrays counted
# from the end (select_n), broadcast and concatenated as JAX's `_index_to_gather` does;
# and the gradients (a scatter-add of the gather's mode) and vmaps of these.
INDEXING_CASES = {
    "array": (lambda j, m: lambda x, i: x[i], [_F45, _I32]),
    "numpy_array": (lambda j, m: lambda x: x[np.array([2, -1])], [_F45]),
    "array_of_rank_2": (lambda j, m: lambda x, i: x[i], [_F45, _I22]),
    "array_then_whole_slice": (lambda j, m: lambda x, i: x[i, :], [_F45, _I32]),
    "whole_slice_then_array": (lambda j, m: lambda x, i: x[:, i], [_F45, _I32]),
    "two_arrays": (lambda j, m: lambda x, i, k: x[i, k], [_F45, _I32, _I22]),
    "array_and_slice": (lambda j, m: lambda x, i: x[i, 1:3], [_F45, _I32]),
    "array_and_step": (lambda j, m: lambda x, i: x[i, ::2], [_F45, _I32]),
    "array_and_reversed": (lambda j, m: lambda x, i: x[i, ::-1], [_F45, _I32]),
    "array_and_int": (lambda j, m: lambda x, i: x[i, -1], [_F45, _I32]),
    "none_and_array": (lambda j, m: lambda x, i: x[None, i], [_F45, _I32]),
    "ellipsis_and_array": (lambda j, m: lambda x, i: x[..., i], [_F45, _I32]),
    "arrays_apart": (lambda j, m: lambda x, i: x[i, :, i], [np.ones((3, 4, 3), np.float32), _I32]),
    "int_and_array_apart": (lambda j, m: lambda x, i: x[1, :, i], [np.ones((3, 4, 3), np.float32), _I32]),
    "uint8_array": (lambda j, m: lambda x, i: x[i], [_F45, _I32.astype(np.uint8)]),
    "int16_array": (lambda j, m: lambda x, i: x[i], [_F45, _I32.astype(np.int16)]),
    "mask": (lambda j, m: lambda x: x[_MASK], [_F45]),
    "mask_of_rows": (lambda j, m: lambda x: x[_MASK[:, 0]], [_F45]),
    "true": (lambda j, m: lambda x: x[True], [_F45]),
    "false": (lambda j, m: lambda x: x[False], [_F45]),
    "true_and_array": (lambda j, m: lambda x, i: x[True, i], [_F45, _I32[:1]]),
    "out_of_bounds_int": (lambda j, m: lambda x: x[5], [_F45]),
    "traced_int_and_step": (lambda j, m: lambda x, i: x[i, ::2], [_F45, _I]),
    "grad_of_array": (lambda j, m: j.grad(lambda x, i: m.sum(x[i] ** 2)), [_F45, _I32]),
    "grad_of_two_arrays": (lambda j, m: j.grad(lambda x, i: m.sum(x[i, i])), [_F45, _I32]),
    "grad_of_reversed_step": (lambda j, m: j.grad(lambda x, i: m.sum(x[None, i, 4:0:-2])), [_F45, _I32]),
    "grad_of_mask": (lambda j, m: j.grad(lambda x: m.sum(x[_MASK])), [_F45]),
    "grad_of_true": (lambda j, m: j.grad(lambda x: m.sum(x[True, 1])), [_F45]),
    "jvp_of_array": (lambda j, m: lambda x, i: j.jvp(lambda y: y[i], (x,), (x,)), [_F45, _I32]),
    "vmap_of_array": (lambda j, m: j.vmap(lambda x, i: x[i]),
                      [_F45, np.array([[0, 1], [1, 2], [2, 3], [3, 4]], np.int32)]),
    "vmap_of_operand": (lambda j, m: j.vmap(lambda x, i: x[i], in_axes=(0, None)), [_F45, _I32]),
    "vmap_of_array_and_step": (lambda j, m: j.vmap(lambda x, i: x[i, ::2]),
                               [np.ones((3, 4, 5), np.float32), np.array([[0, 1], [1, 2], [2, 0]])]),
}


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(INDEXING_CASES))
def test_advanced_indexing_prints_as_in_jax(name):
    _case_prints_as_jax(INDEXING_CASES[name], (jaxwg, jnp), (jax, jax_numpy))


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(SLICING_CASES))
def test_slicing_prints_as_in_jax(name):
    _case_prints_as_jax(SLICING_CASES[name], (jaxwg, jaxwg.lax, jnp), (jax, jax.lax, jax_numpy))


def test_staged_library_calls_run_op_by_op_when_eager():
    """An eager `where` or `clip` compiles no program of its own: it fuses with its
    neighbours into one kernel, as before it was wrapped."""
    from jaxwg.frontend.execute import counters

    x = jnp.asarray(F23)
    programs, kernels = counters["compiled_programs"], counters["kernels"]
    y = jnp.clip(jnp.where(x > 0, x, 0.0), 0.1, 0.5) * 2
    y.block_until_ready()
    assert counters["compiled_programs"] == programs
    assert counters["kernels"] - kernels == 1
    np.testing.assert_allclose(np.asarray(y), np.clip(np.where(F23 > 0, F23, 0), 0.1, 0.5) * 2)


# PRNG keys: typed keys are `key<fry>` values and the key primitives are JAX's
# (random_seed, random_wrap, random_unwrap, random_bits, random_split, random_fold_in);
# legacy uint32 keys are wrapped on the way in and unwrapped on the way out. Each case
# makes its function and arguments from the library (keys are the library's own).
def _typed(j, *num):
    return j.random.split(j.random.key(3), *num) if num else j.random.key(3)


def _legacy(j):
    return j.random.PRNGKey(3)


KEY_CASES = {
    "split_typed": lambda j: (lambda k: j.random.split(k, (2, 3)), [_typed(j)]),
    "split_legacy": lambda j: (lambda k: j.random.split(k), [_legacy(j)]),
    "fold_in_typed": lambda j: (lambda k: j.random.fold_in(k, 7), [_typed(j)]),
    "fold_in_legacy_traced_data": lambda j: (lambda k, d: j.random.fold_in(k, d), [_legacy(j), np.int32(5)]),
    "bits_typed": lambda j: (lambda k: j.random.bits(k, (2, 3)), [_typed(j)]),
    "bits_uint8_legacy": lambda j: (lambda k: j.random.bits(k, (4,), np.uint8), [_legacy(j)]),
    "key_of_traced_seed": lambda j: (j.random.key, [np.int32(5)]),
    "key_of_constant_seed": lambda j: (lambda: j.random.key(2**31), []),
    "prng_key_of_traced_seed": lambda j: (j.random.PRNGKey, [np.int32(5)]),
    "key_data_and_wrap": lambda j: (lambda k: j.random.wrap_key_data(j.random.key_data(k) + np.uint32(1)),
                                    [_typed(j, 2)]),
    "iterate_keys": lambda j: (lambda k: [j.random.bits(s) for s in k], [_typed(j, 2)]),
    "index_keys": lambda j: (lambda k: k[1], [_typed(j, (2, 3))]),
    "jit_of_split": lambda j: (j.jit(lambda k: j.random.split(k, 3)), [_typed(j)]),
    "vmap_of_split": lambda j: (j.vmap(lambda k: j.random.split(k, 3), out_axes=1), [_typed(j, 2)]),
    "vmap_of_bits": lambda j: (j.vmap(lambda k: j.random.bits(k, (2,))), [_typed(j, 4)]),
    "vmap_of_key_data": lambda j: (j.vmap(j.random.key_data), [_typed(j, 4)]),
    "vmap_of_wrap_at_axis_1": lambda j: (j.vmap(j.random.wrap_key_data, in_axes=1),
                                         [np.zeros((2, 3), np.uint32)]),
    "vmap_of_fold_in_over_data": lambda j: (j.vmap(j.random.fold_in, in_axes=(None, 0)),
                                            [_typed(j), np.arange(3, dtype=np.int32)]),
    "vmap_of_fold_in_over_keys": lambda j: (j.vmap(j.random.fold_in, in_axes=(0, None)), [_typed(j, 3), 4]),
    "vmap_of_key_of_seeds": lambda j: (j.vmap(j.random.PRNGKey), [np.arange(3, dtype=np.int32)]),
    "scan_over_keys": lambda j: (lambda k: j.lax.scan(lambda c, s: (c + j.random.bits(s), None),
                                                      np.uint32(0), k)[0], [_typed(j, 3)]),
}


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(KEY_CASES))
def test_key_primitives_print_as_in_jax(name):
    fn, args = KEY_CASES[name](jaxwg)
    jax_fn, jax_args = KEY_CASES[name](jax)
    assert_prints_as_jax(str(jaxwg.make_jaxpr(fn)(*args)), str(jax.make_jaxpr(jax_fn)(*jax_args)))


def _outline(jaxpr, skipped: set, depth: int = 0) -> list[str]:
    """A jaxpr's equations as `primitive -> result types`, the jaxprs of `jit` calls
    nested under them except those named in `skipped`."""
    lines = []
    for eqn in jaxpr.eqns:
        outs = " ".join(f"{v.aval.dtype.name}{list(v.aval.shape)}"
                        for v in getattr(eqn, "out_binders", None) or eqn.outvars)
        name = eqn.primitive.name + (f" {eqn.params['name']}" if eqn.primitive.name == "jit" else "")
        lines.append(f"{'  ' * depth}{name} -> {outs}")
        if eqn.primitive.name == "jit" and eqn.params["name"] not in skipped:
            lines += _outline(eqn.params["jaxpr"].jaxpr, skipped, depth + 1)
    return lines


# The bodies that differ from JAX's: `_uniform` makes [0, 1) from its mantissa bits as
# `mantissa * 2^-23` (JAX's `bitcast(mantissa | 1.0) - 1`, the same values, has its -1
# folded into minval's constants by NVIDIA's compiler); `_randint` leaves out the check
# of a maxval past the dtype's range where it cannot be (same dtype), which would cost
# a kernel; jnp.clip converts weakly typed operands inside its body.
_SKIPPED_BODIES = {"_uniform", "_randint", "clip"}

SAMPLER_CASES = {
    "uniform_typed": lambda j: (lambda k: j.random.uniform(k, (2, 3), minval=-1.0, maxval=2.0), [_typed(j)]),
    "uniform_scalar_legacy": lambda j: (lambda k: j.random.uniform(k), [_legacy(j)]),
    "normal": lambda j: (lambda k: j.random.normal(k, (3,)), [_typed(j)]),
    "normal_float16_legacy": lambda j: (lambda k: j.random.normal(k, (3,), np.float16), [_legacy(j)]),
    "bernoulli": lambda j: (lambda k: j.random.bernoulli(k, 0.3, (4,)), [_typed(j)]),
    "bernoulli_of_array_high": lambda j: (lambda k, p: j.random.bernoulli(k, p, mode="high"),
                                          [_typed(j), np.full(3, 0.25, np.float32)]),
    "randint": lambda j: (lambda k: j.random.randint(k, (3,), 0, 10), [_typed(j)]),
    "randint_traced_bounds": lambda j: (lambda k, a, b: j.random.randint(k, (2, 2), a, b),
                                        [_legacy(j), np.int32(-3), np.int32(4)]),
    "randint_uint8": lambda j: (lambda k: j.random.randint(k, (3,), 0, 256, np.uint8), [_typed(j)]),
    "exponential": lambda j: (lambda k: j.random.exponential(k, (2,)), [_typed(j)]),
    "laplace": lambda j: (lambda k: j.random.laplace(k, (2,)), [_typed(j)]),
    "logistic": lambda j: (lambda k: j.random.logistic(k, (2,)), [_typed(j)]),
    "cauchy": lambda j: (lambda k: j.random.cauchy(k, (2,)), [_typed(j)]),
    "gumbel": lambda j: (lambda k: j.random.gumbel(k, (2,)), [_typed(j)]),
    "rademacher": lambda j: (lambda k: j.random.rademacher(k, (2,)), [_typed(j)]),
    "truncated_normal": lambda j: (lambda k: j.random.truncated_normal(k, -1.0, 2.0, (2,)), [_typed(j)]),
    "permutation_of_int": lambda j: (lambda k: j.random.permutation(k, 5), [_typed(j)]),
    "permutation_along_1": lambda j: (lambda k, x: j.random.permutation(k, x, axis=1), [_typed(j), _F23]),
    "permutation_independent": lambda j: (lambda k, x: j.random.permutation(k, x, independent=True),
                                          [_legacy(j), _F23]),
    "categorical": lambda j: (lambda k, x: j.random.categorical(k, x), [_typed(j), _F23]),
    "choice_without_replacement": lambda j: (lambda k: j.random.choice(k, 5, (2,), replace=False), [_typed(j)]),
    "weibull_min": lambda j: (lambda k: j.random.weibull_min(k, 2.0, 1.5, (2,)), [_typed(j)]),
    "pareto": lambda j: (lambda k: j.random.pareto(k, 3.0, (2,)), [_typed(j)]),
    "rayleigh": lambda j: (lambda k: j.random.rayleigh(k, 2.0, (2,)), [_typed(j)]),
    "geometric": lambda j: (lambda k: j.random.geometric(k, 0.5, (2,)), [_typed(j)]),
    "lognormal": lambda j: (lambda k: j.random.lognormal(k, 0.5, (2,)), [_typed(j)]),
    "triangular": lambda j: (lambda k: j.random.triangular(k, -1.0, 0.0, 2.0, (2,)), [_typed(j)]),
    "gamma": lambda j: (lambda k: j.random.gamma(k, 2.0, (3,)), [_typed(j)]),
    "loggamma_of_array_float16": lambda j: (lambda k, a: j.random.loggamma(k, a, (2, 3), np.float16),
                                            [_legacy(j), np.full(3, 0.5, np.float32)]),
    "chisquare": lambda j: (lambda k: j.random.chisquare(k, 3.0, (2,)), [_typed(j)]),
    "t": lambda j: (lambda k: j.random.t(k, 3.0, (2,)), [_typed(j)]),
    "beta": lambda j: (lambda k, b: j.random.beta(k, 2.0, b), [_typed(j), np.full(3, 0.5, np.float32)]),
    "dirichlet": lambda j: (lambda k, a: j.random.dirichlet(k, a, (2,)), [_typed(j), np.ones(3, np.float32)]),
    "f": lambda j: (lambda k: j.random.f(k, 2.0, 3.0, (2,)), [_typed(j)]),
    "generalized_normal": lambda j: (lambda k: j.random.generalized_normal(k, 1.5, (2,)), [_typed(j)]),
    "vmap_of_gamma_over_keys": lambda j: (j.vmap(lambda k: j.random.gamma(k, 2.0, (2,))), [_typed(j, 3)]),
    "vmap_of_gamma_over_parameters": lambda j: (lambda k, a: j.vmap(lambda a: j.random.gamma(k, a))(a),
                                                [_typed(j), np.ones((3, 2), np.float32)]),
    "jit_of_normal": lambda j: (j.jit(lambda k: j.random.normal(k, (3,))), [_typed(j)]),
    "vmap_of_uniform": lambda j: (j.vmap(lambda k: j.random.uniform(k, (2,))), [_typed(j, 3)]),
    "vmap_of_randint": lambda j: (j.vmap(lambda k: j.random.randint(k, (2,), 0, 5)), [_typed(j, 3)]),
    "grad_of_normal_sample": lambda j: (j.grad(lambda x, k: (x * j.random.normal(k, (3,))).sum()),
                                        [np.float32(2.0), _typed(j)]),
    "grad_through_split_and_uniform": lambda j: (
        j.grad(lambda x, k: (x * j.random.uniform(j.random.split(k)[1], (2,))).sum()),
        [np.float32(2.0), _legacy(j)]),
}


@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", sorted(SAMPLER_CASES))
def test_samplers_stage_as_in_jax(name):
    """The samplers are JAX's named `jit` calls, nested alike, with the same primitives
    and types (but for the bodies `_SKIPPED_BODIES` names)."""
    fn, args = SAMPLER_CASES[name](jaxwg)
    jax_fn, jax_args = SAMPLER_CASES[name](jax)
    ours, theirs = jaxwg.make_jaxpr(fn)(*args), jax.make_jaxpr(jax_fn)(*jax_args)
    assert _outline(ours.jaxpr, _SKIPPED_BODIES) == _outline(theirs.jaxpr, _SKIPPED_BODIES)
