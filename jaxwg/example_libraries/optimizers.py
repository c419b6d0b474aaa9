"""`jaxwg.example_libraries.optimizers`: first-order optimizers as
`(init_fun, update_fun, get_params)` triples, with the interface of
`jax.example_libraries.optimizers`.

`init_fun(params)` makes an `OptimizerState` from a pytree of parameters,
`update_fun(step, grads, opt_state)` returns the next state, and
`get_params(opt_state)` reads the parameters back out. Each optimizer is written for
one array (`init(x0)`, `update(i, g, state)`, `get_params(state)`) and the `optimizer`
decorator lifts it to pytrees: the state keeps, per parameter leaf, the flattened
leaves of that leaf's own state, so the whole state is a pytree of arrays that
`jaxwg.jit` can take and return. A step size is a number or a schedule, a function
of the step index (`exponential_decay`, `piecewise_constant`, ...); under `jit` the
index is traced, so schedules are written with `jaxwg.numpy`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> opt_init, opt_update, get_params = adam(0.1)
>>> step = jaxwg.jit(lambda i, state: opt_update(i, jaxwg.grad(
...     lambda p: jnp.sum((p["w"] - 3.0) ** 2))(get_params(state)), state))
>>> state = opt_init({"w": jnp.zeros(2)})
>>> for i in range(100):
...     state = step(i, state)
>>> [round(w, 1) for w in get_params(state)["w"].tolist()]
[3.0, 3.0]
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import numpy as jnp
from ..tree_util import register_pytree_node, tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["JoinPoint", "Optimizer", "OptimizerState", "adagrad", "adam", "adamax", "adamw",
           "clip_grads", "constant", "exponential_decay", "inverse_time_decay", "l2_norm",
           "make_schedule", "momentum", "nesterov", "optimizer", "pack_optimizer_state",
           "piecewise_constant", "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd", "sm3",
           "unpack_optimizer_state"]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
OptimizerState.__doc__ = """The state of a pytree optimizer: `packed_state` holds, per parameter
leaf, the leaves of that leaf's state; `tree_def` is the parameters' structure and
`subtree_defs` the structure of each leaf's state. Only `packed_state` holds arrays: the
structures are static, so `jit` keys its cache on them instead of tracing them."""
register_pytree_node(OptimizerState,
                     lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
                     lambda structures, children: OptimizerState(children[0], *structures))


class Optimizer(NamedTuple):
    """The `(init_fn, update_fn, params_fn)` triple an optimizer constructor returns."""

    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def _flatten_each(states) -> tuple[tuple, tuple]:
    """Per-leaf states as (their leaf lists, their structures)."""
    flat = [tree_flatten(state) for state in states]
    return tuple(leaves for leaves, _ in flat), tuple(tree for _, tree in flat)


def _unflatten_each(opt_state: OptimizerState) -> list:
    return [tree_unflatten(tree, leaves)
            for tree, leaves in zip(opt_state.subtree_defs, opt_state.packed_state)]


def optimizer(opt_maker: Callable) -> Callable:
    """Decorator: turn a maker of one-array `(init, update, get_params)` triples into
    a maker of triples over pytrees of parameters that pass `OptimizerState`s.

    >>> from jaxwg.example_libraries.optimizers import optimizer
    >>> import jaxwg.numpy as jnp
    >>> @optimizer
    ... def halve():
    ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> opt_init, opt_update, get_params = halve()
    >>> state = opt_update(0, [jnp.ones(1), None], opt_init([jnp.ones(1) * 8, None]))
    >>> get_params(state)[0].tolist()
    [4.0]
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            packed, subtrees = _flatten_each(init(x0) for x0 in x0_flat)
            return OptimizerState(packed, tree, subtrees)

        def tree_update(i, grad_tree, opt_state):
            grad_flat, grad_tree_def = tree_flatten(grad_tree)
            if grad_tree_def != opt_state.tree_def:
                raise TypeError("optimizer update function was passed a gradient tree that did "
                                "not match the parameter tree structure with which it was "
                                f"initialized: parameter tree {opt_state.tree_def} and grad tree "
                                f"{grad_tree_def}.")
            states = _unflatten_each(opt_state)
            packed, subtrees = _flatten_each(update(i, g, s) for g, s in zip(grad_flat, states))
            for before, after in zip(opt_state.subtree_defs, subtrees):
                if before != after:
                    raise TypeError("optimizer update function produced an output structure "
                                    f"that did not match its input structure: input {before} "
                                    f"and output {after}.")
            return OptimizerState(packed, opt_state.tree_def, subtrees)

        def tree_get_params(opt_state):
            params = [get_params(state) for state in _unflatten_each(opt_state)]
            return tree_unflatten(opt_state.tree_def, params)

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _identity(x):
    return x


def _params(state):
    """`get_params` of a per-leaf state whose first entry is the parameters."""
    return state[0]


def _params_and_zeros(count: int) -> Callable:
    """An `init` that keeps the parameters and `count` zero arrays shaped like them."""
    def init(x0):
        return (x0, *(jnp.zeros_like(x0) for _ in range(count)))
    return init


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: x <- x - step_size(i) g.

    >>> from jaxwg.example_libraries.optimizers import sgd
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = sgd(0.5)
    >>> get_params(opt_update(0, jnp.ones(2), opt_init(jnp.zeros(2)))).tolist()
    [-0.5, -0.5]
    """
    step_size = make_schedule(step_size)

    def update(i, g, x):
        return x - step_size(i) * g
    return _identity, update, _identity


def _heavy_ball(step_size, mass, lookahead: bool) -> Callable:
    """The momentum update: v <- mass v + g, then a step along v, or along the
    velocity one step ahead (mass v + g) for Nesterov's variant."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        direction = mass * velocity + g if lookahead else velocity
        return x - step_size(i) * direction, velocity
    return update


@optimizer
def momentum(step_size, mass: float):
    """SGD with momentum `mass`: v <- mass v + g; x <- x - step_size(i) v.

    >>> from jaxwg.example_libraries.optimizers import momentum
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = momentum(0.5, mass=0.5)
    >>> state = opt_init(jnp.zeros(1))
    >>> for i in range(2):
    ...     state = opt_update(i, jnp.ones(1), state)
    >>> get_params(state).tolist()  # -0.5, then -0.5 - 0.5 * 1.5
    [-1.25]
    """
    return _params_and_zeros(1), _heavy_ball(step_size, mass, lookahead=False), _params


@optimizer
def nesterov(step_size, mass: float):
    """SGD with Nesterov momentum: v <- mass v + g; x <- x - step_size(i) (mass v + g).

    >>> from jaxwg.example_libraries.optimizers import nesterov
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = nesterov(0.5, mass=0.5)
    >>> get_params(opt_update(0, jnp.ones(1), opt_init(jnp.zeros(1)))).tolist()
    [-0.75]
    """
    return _params_and_zeros(1), _heavy_ball(step_size, mass, lookahead=True), _params


def _scaled_with_momentum(g, accumulator, m, momentum):
    """m <- (1 - momentum) g / sqrt(accumulator) + momentum m, taking 1/sqrt(0) as 0
    (a coordinate that has seen only zero gradients does not move)."""
    inv_sqrt = jnp.where(accumulator > 0, 1.0 / jnp.sqrt(accumulator), 0.0)
    return (1.0 - momentum) * (g * inv_sqrt) + momentum * m


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011) with momentum: steps scaled by the root of the sum
    of all squared gradients so far.

    >>> from jaxwg.example_libraries.optimizers import adagrad
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = adagrad(1.0, momentum=0.0)
    >>> get_params(opt_update(0, jnp.array([4.0]), opt_init(jnp.zeros(1)))).tolist()
    [-1.0]
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        m = _scaled_with_momentum(g, g_sq, m, momentum)
        return x - step_size(i) * m, g_sq, m
    return _params_and_zeros(2), update, _params


def _rms_scaled(g, avg_sq_grad, gamma, eps):
    """RMSProp's running mean of g^2 (decay `gamma`) and g divided by its root."""
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
    return g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: x <- x - step_size(i) g / sqrt(mean(g^2) + eps), the mean decaying by `gamma`.

    >>> from jaxwg.example_libraries.optimizers import rmsprop
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = rmsprop(0.1, gamma=0.75, eps=0.0)
    >>> get_params(opt_update(0, jnp.array([2.0]), opt_init(jnp.zeros(1)))).tolist()
    [-0.20000000298023224]
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        direction, avg_sq_grad = _rms_scaled(g, avg_sq_grad, gamma, eps)
        return x - step_size(i) * direction, avg_sq_grad
    return _params_and_zeros(1), update, _params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum: mom <- momentum mom + step_size(i) g / sqrt(mean(g^2) + eps);
    x <- x - mom.

    >>> from jaxwg.example_libraries.optimizers import rmsprop_momentum
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = rmsprop_momentum(0.1, gamma=0.75, eps=0.0)
    >>> get_params(opt_update(0, jnp.array([2.0]), opt_init(jnp.zeros(1)))).tolist()
    [-0.20000000298023224]
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        direction, avg_sq_grad = _rms_scaled(g, avg_sq_grad, gamma, eps)
        mom = momentum * mom + step_size(i) * direction
        return x - mom, avg_sq_grad, mom
    return _params_and_zeros(2), update, _params


def _bias_corrected(moment, beta, i):
    """moment / (1 - beta^(i+1)): the correction for a running mean that started at zero."""
    return moment / (1 - jnp.asarray(beta, moment.dtype) ** (i + 1))


def _adam(step_size, b1, b2, eps, weight_decay):
    """Adam's triple; a nonzero `weight_decay` adds the decoupled decay of AdamW to the
    step, weight_decay x, instead of adding it to the gradient (where Adam's scaling
    would shrink it for parameters with large gradients)."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        direction = _bias_corrected(m, b1, i) / (jnp.sqrt(_bias_corrected(v, b2, i)) + eps)
        if weight_decay:
            direction = direction + weight_decay * x
        return x - step_size(i) * direction, m, v
    return _params_and_zeros(2), update, _params


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba 2015): steps along the bias-corrected running mean of the
    gradients (decay `b1`) over the root of that of their squares (decay `b2`).

    >>> from jaxwg.example_libraries.optimizers import adam
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = adam(0.5)
    >>> x = get_params(opt_update(0, jnp.array([3.0, -2.0]), opt_init(jnp.zeros(2))))
    >>> [round(v, 4) for v in x.tolist()]  # the first step is step_size * sign(g)
    [-0.5, 0.5]
    """
    return _adam(step_size, b1, b2, eps, weight_decay=0.0)


@optimizer
def adamw(step_size, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-2):
    """AdamW (Loshchilov and Hutter 2019): Adam with decoupled weight decay,
    x <- x - step_size(i) (m_hat / (sqrt(v_hat) + eps) + weight_decay x), as
    PyTorch's `AdamW` and `optax.adamw`. JAX's example library has no AdamW.

    >>> from jaxwg.example_libraries.optimizers import adamw
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = adamw(0.5, weight_decay=0.5)
    >>> x = get_params(opt_update(0, jnp.array([3.0]), opt_init(jnp.array([2.0]))))
    >>> round(x.item(), 4)  # 2 - 0.5 (1 + 0.5 * 2)
    1.0
    """
    return _adam(step_size, b1, b2, eps, weight_decay)


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the root mean square replaced by a decaying infinity norm,
    u <- max(b2 u, |g|).

    >>> from jaxwg.example_libraries.optimizers import adamax
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = adamax(0.5, eps=0.0)
    >>> x = get_params(opt_update(0, jnp.array([3.0, -2.0]), opt_init(jnp.zeros(2))))
    >>> [round(v, 4) for v in x.tolist()]
    [-0.5, 0.5]
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        return x - step_size(i) * _bias_corrected(m, b1, i) / (u + eps), m, u
    return _params_and_zeros(2), update, _params


def _along_axis(v, axis: int, ndim: int):
    """The 1-D `v` reshaped to broadcast along `axis` of an `ndim`-dimensional array."""
    return v.reshape(tuple(-1 if k == axis else 1 for k in range(ndim)))


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): Adagrad whose accumulator is kept as one vector per
    axis (memory: the sum of the dimensions, not their product); each element uses the
    smallest of its axes' entries.

    The per-leaf state is `(x, m, vs)` with `x` and `m` in the parameters' shape
    (JAX's keeps `x` at least 1-D and its shape as a fourth entry); the parameters
    follow the same trajectory.

    >>> from jaxwg.example_libraries.optimizers import sm3
    >>> import jaxwg.numpy as jnp
    >>> opt_init, opt_update, get_params = sm3(1.0, momentum=0.0)
    >>> get_params(opt_update(0, jnp.full((2, 2), 4.0), opt_init(jnp.zeros((2, 2))))).tolist()
    [[-1.0, -1.0], [-1.0, -1.0]]
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, x0.dtype) for n in jnp.atleast_1d(x0).shape]

    def update(i, g, state):
        x, m, vs = state
        g = jnp.atleast_1d(g)
        axes = range(g.ndim)
        accumulator = functools.reduce(jnp.minimum, [_along_axis(v, k, g.ndim)
                                                     for k, v in zip(axes, vs)]) + jnp.square(g)
        m = _scaled_with_momentum(g, accumulator, jnp.atleast_1d(m), momentum).reshape(x.shape)
        vs = [accumulator.max(axis=tuple(j for j in axes if j != k)) for k in axes]
        return x - step_size(i) * m, m, vs
    return init, update, _params


def constant(step_size) -> Callable:
    """The schedule that is `step_size` at every step.

    >>> from jaxwg.example_libraries.optimizers import constant
    >>> constant(0.1)(1000)
    0.1
    """
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate) -> Callable:
    """step_size * decay_rate^(i / decay_steps).

    >>> from jaxwg.example_libraries.optimizers import exponential_decay
    >>> exponential_decay(1.0, 2, 0.25)(4)
    0.0625
    """
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Callable:
    """step_size / (1 + decay_rate * i / decay_steps), with i / decay_steps rounded
    down when `staircase`.

    >>> from jaxwg.example_libraries.optimizers import inverse_time_decay
    >>> inverse_time_decay(1.0, 2, 1.0)(3), float(inverse_time_decay(1.0, 2, 1.0, True)(3))
    (0.4, 0.5)
    """
    def schedule(i):
        progress = jnp.floor(i / decay_steps) if staircase else i / decay_steps
        return step_size / (1 + decay_rate * progress)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Callable:
    """From `step_size` to `final_step_size` along (1 - i / decay_steps)^power over
    `decay_steps` steps, then constant.

    >>> from jaxwg.example_libraries.optimizers import polynomial_decay
    >>> [float(polynomial_decay(1.0, 4, 0.5)(i)) for i in (0, 2, 4, 8)]
    [1.0, 0.75, 0.5, 0.5]
    """
    def schedule(i):
        fraction_left = 1 - jnp.minimum(i, decay_steps) / decay_steps
        return fraction_left ** power * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries, values) -> Callable:
    """`values[k]` for steps i with boundaries[k-1] < i <= boundaries[k].

    >>> from jaxwg.example_libraries.optimizers import piecewise_constant
    >>> schedule = piecewise_constant([2, 5], [1.0, 0.5, 0.25])
    >>> [float(schedule(i)) for i in (0, 2, 3, 6)]
    [1.0, 1.0, 0.5, 0.25]
    """
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule) -> Callable:
    """A schedule unchanged, a scalar as a `constant` schedule.

    >>> from jaxwg.example_libraries.optimizers import make_schedule
    >>> make_schedule(0.5)(7), make_schedule(lambda i: i / 2)(7)
    (0.5, 3.5)
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


def l2_norm(tree):
    """The Euclidean norm of all the leaves of a pytree together.

    >>> from jaxwg.example_libraries.optimizers import l2_norm
    >>> import jaxwg.numpy as jnp
    >>> l2_norm({"a": jnp.array([3.0]), "b": [jnp.array([[4.0]])]}).item()
    5.0
    """
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in tree_leaves(tree)))


def clip_grads(grad_tree, max_norm):
    """The gradients scaled down together so that their `l2_norm` is at most `max_norm`.

    >>> from jaxwg.example_libraries.optimizers import clip_grads
    >>> import jaxwg.numpy as jnp
    >>> clip_grads([jnp.array([3.0, 4.0])], 1.0)[0].tolist()
    [0.6000000238418579, 0.800000011920929]
    """
    norm = l2_norm(grad_tree)
    return tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """A leaf of `unpack_optimizer_state`'s result that holds one parameter's state.

    Iterable (yielding that state), so serializers that walk nested containers see into it.
    """

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """The state as the parameters' pytree with a `JoinPoint` per leaf holding that
    leaf's state (e.g. for saving it; `pack_optimizer_state` inverts it).

    >>> from jaxwg.example_libraries.optimizers import momentum, unpack_optimizer_state
    >>> import jaxwg.numpy as jnp
    >>> opt_init, _, _ = momentum(0.1, 0.9)
    >>> marked = unpack_optimizer_state(opt_init({"w": jnp.ones(2)}))
    >>> [a.tolist() for a in marked["w"].subtree]
    [[1.0, 1.0], [0.0, 0.0]]
    """
    return tree_unflatten(opt_state.tree_def, [JoinPoint(s) for s in _unflatten_each(opt_state)])


def pack_optimizer_state(marked_pytree) -> OptimizerState:
    """The `OptimizerState` of a pytree of `JoinPoint`s (`unpack_optimizer_state`'s inverse).

    >>> from jaxwg.example_libraries.optimizers import momentum, pack_optimizer_state, unpack_optimizer_state
    >>> import jaxwg.numpy as jnp
    >>> opt_init, _, get_params = momentum(0.1, 0.9)
    >>> state = pack_optimizer_state(unpack_optimizer_state(opt_init({"w": jnp.ones(2)})))
    >>> get_params(state)["w"].tolist()
    [1.0, 1.0]
    """
    # JoinPoints are leaves to tree_flatten (they are not registered), so the outer
    # structure stops at them.
    join_points, tree = tree_flatten(marked_pytree)
    if not all(isinstance(p, JoinPoint) for p in join_points):
        raise TypeError("pack_optimizer_state expects a pytree whose leaves are JoinPoints")
    packed, subtrees = _flatten_each(p.subtree for p in join_points)
    return OptimizerState(packed, tree, subtrees)
