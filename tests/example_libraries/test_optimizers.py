"""`jaxwg.example_libraries.optimizers` against `jax.example_libraries.optimizers`: the
same gradients fed to both give the same parameter trajectories, eagerly and under
`jit`; AdamW, which JAX lacks, against a NumPy transcription of its formula."""

import jax
import jax.example_libraries.optimizers as jax_opt
import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.example_libraries import optimizers as opt
from jaxwg.tree_util import tree_leaves, tree_map

jax.config.update("jax_platforms", "cpu")

# Float32 steps: a few ulp of rounding per step (division, sqrt) that may compound
# over the steps of a trajectory.
RTOL, ATOL = 1e-5, 1e-6
STEPS = 5

OPTIMIZERS = {
    "sgd": (0.1,),
    "momentum": (0.1, 0.9),
    "nesterov": (0.1, 0.9),
    "adagrad": (0.1,),
    "rmsprop": (0.01,),
    "rmsprop_momentum": (0.01,),
    "adam": (0.01,),
    "adamax": (0.01,),
    "sm3": (0.1,),
}


def _params():
    rng = np.random.default_rng(0)
    return {"w": rng.normal(size=(3, 2)).astype(np.float32),
            "layers": [rng.normal(size=(2,)).astype(np.float32), np.float32(0.5)]}


def _grads(steps=STEPS):
    """A fixed sequence of gradient pytrees shaped like `_params()`."""
    rng = np.random.default_rng(1)
    return [tree_map(lambda p: rng.normal(size=np.shape(p)).astype(np.float32), _params())
            for _ in range(steps)]


def _trajectory(module, make, args, jit, grads, device_put):
    """The parameters after each update of optimizer `make(*args)` from `module`."""
    opt_init, opt_update, get_params = getattr(module, make)(*args)
    update = jit(opt_update) if jit else opt_update
    state = opt_init(tree_map(device_put, _params()))
    params = []
    for i, g in enumerate(grads):
        state = update(i, tree_map(device_put, g), state)
        params.append([np.asarray(leaf) for leaf in tree_leaves(get_params(state))])
    return params


def _assert_trajectories_close(ours, theirs, rtol=RTOL, atol=ATOL):
    for step, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"step {step}")


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_trajectory_matches_jax(name, jit):
    grads = _grads()
    ours = _trajectory(opt, name, OPTIMIZERS[name], jit and jaxwg.jit, grads, jnp.asarray)
    theirs = _trajectory(jax_opt, name, OPTIMIZERS[name], jit and jax.jit, grads, jax.numpy.asarray)
    _assert_trajectories_close(ours, theirs)


SCHEDULES = {
    "constant": (0.1,),
    "exponential_decay": (0.1, 3, 0.5),
    "inverse_time_decay": (0.1, 2, 0.5),
    "polynomial_decay": (0.1, 3, 0.01, 2.0),
    "piecewise_constant": ([1, 3], [0.1, 0.05, 0.01]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_values_match_jax(name):
    ours, theirs = getattr(opt, name)(*SCHEDULES[name]), getattr(jax_opt, name)(*SCHEDULES[name])
    steps = range(6)
    traced = jaxwg.jit(ours)
    for i in steps:
        np.testing.assert_allclose(np.asarray(ours(i)), np.asarray(theirs(i)), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(traced(i)), np.asarray(theirs(i)), rtol=1e-6)


def test_inverse_time_decay_staircase_matches_jax():
    ours = opt.inverse_time_decay(0.1, 2, 0.5, staircase=True)
    theirs = jax_opt.inverse_time_decay(0.1, 2, 0.5, staircase=True)
    for i in range(6):
        np.testing.assert_allclose(np.asarray(ours(i)), np.asarray(theirs(i)), rtol=1e-6)


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_schedule_drives_a_jitted_optimizer_as_in_jax(name):
    grads = _grads()
    ours = _trajectory(opt, name, (opt.piecewise_constant([1, 3], [0.1, 0.05, 0.01]),),
                       jaxwg.jit, grads, jnp.asarray)
    theirs = _trajectory(jax_opt, name, (jax_opt.piecewise_constant([1, 3], [0.1, 0.05, 0.01]),),
                         jax.jit, grads, jax.numpy.asarray)
    _assert_trajectories_close(ours, theirs)


def test_piecewise_constant_checks_its_lengths():
    with pytest.raises(ValueError, match="one shorter"):
        opt.piecewise_constant([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="sequences"):
        opt.piecewise_constant(1, [0.1, 0.2])


def test_make_schedule():
    assert opt.make_schedule(0.3)(10) == 0.3
    schedule = opt.exponential_decay(1.0, 1, 0.5)
    assert opt.make_schedule(schedule) is schedule
    with pytest.raises(TypeError):
        opt.make_schedule([0.1, 0.2])


def _adamw_numpy(params, grads, step_size, b1, b2, eps, weight_decay):
    """AdamW (Loshchilov and Hutter, Algorithm 2, with the schedule multiplier equal to
    the step size) transcribed in float32 NumPy: the trajectory of one array."""
    x, m, v = params.copy(), np.zeros_like(params), np.zeros_like(params)
    out = []
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - np.float32(b1) ** t), v / (1 - np.float32(b2) ** t)
        x = x - step_size(t - 1) * (m_hat / (np.sqrt(v_hat) + eps) + weight_decay * x)
        out.append(x.astype(np.float32))
    return out


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_adamw_matches_a_numpy_reference(jit):
    step_size = opt.exponential_decay(0.05, 2, 0.5)
    hyper = dict(b1=0.8, b2=0.99, eps=1e-6, weight_decay=0.1)
    grads = _grads()
    ours = _trajectory(opt, "adamw", (step_size, *hyper.values()), jit and jaxwg.jit, grads,
                       jnp.asarray)
    for leaf in range(len(ours[0])):
        x0 = np.asarray(tree_leaves(_params())[leaf], np.float32)
        expected = _adamw_numpy(x0, [np.float32(tree_leaves(g)[leaf]) for g in grads],
                                step_size, **hyper)
        for step in range(STEPS):
            np.testing.assert_allclose(ours[step][leaf], expected[step], rtol=RTOL, atol=ATOL)


def test_adamw_decays_weights_without_gradient():
    opt_init, opt_update, get_params = opt.adamw(0.1, weight_decay=0.5)
    state = opt_update(0, jnp.zeros(2), opt_init(jnp.array([2.0, -4.0])))
    np.testing.assert_allclose(np.asarray(get_params(state)), [1.9, -3.8], rtol=1e-6)


def test_adamw_without_decay_is_adam():
    grads = _grads()
    adamw = _trajectory(opt, "adamw", (0.01, 0.9, 0.999, 1e-8, 0.0), None, grads, jnp.asarray)
    adam = _trajectory(opt, "adam", (0.01,), None, grads, jnp.asarray)
    _assert_trajectories_close(adamw, adam, rtol=0, atol=0)


def test_jitted_training_converges():
    opt_init, opt_update, get_params = opt.adam(0.1)

    def loss(params, x):
        return jnp.sum((x @ params["w"] + params["b"] - 1.0) ** 2)

    @jaxwg.jit
    def step(i, state, x):
        return opt_update(i, jaxwg.grad(loss)(get_params(state), x), state)

    x = jnp.asarray(np.random.default_rng(2).normal(size=(8, 3)).astype(np.float32))
    state = opt_init({"w": jnp.zeros((3, 1)), "b": jnp.zeros(1)})
    start = float(loss(get_params(state), x))
    for i in range(60):
        state = step(i, state, x)
    assert float(loss(get_params(state), x)) < 1e-2 * start


def test_state_is_a_pytree_of_arrays_with_static_structure():
    opt_init, _, _ = opt.momentum(0.1, 0.9)
    state = opt_init(tree_map(jnp.asarray, _params()))
    leaves = tree_leaves(state)
    assert len(leaves) == 2 * len(tree_leaves(_params()))
    assert all(isinstance(leaf, jaxwg.Array) for leaf in leaves)
    assert jaxwg.tree_util.tree_structure(state) == jaxwg.tree_util.tree_structure(
        opt_init(tree_map(jnp.asarray, _params())))


def test_update_rejects_a_gradient_tree_of_another_structure():
    opt_init, opt_update, _ = opt.sgd(0.1)
    state = opt_init({"w": jnp.ones(2)})
    with pytest.raises(TypeError, match="did not match the parameter tree"):
        opt_update(0, [jnp.ones(2)], state)


def test_optimizer_decorator_rejects_an_update_that_changes_the_state_structure():
    @opt.optimizer
    def broken():
        return (lambda x: (x,)), (lambda i, g, s: (s[0], s[0])), (lambda s: s[0])

    opt_init, opt_update, _ = broken()
    with pytest.raises(TypeError, match="did not match its input structure"):
        opt_update(0, jnp.ones(1), opt_init(jnp.ones(1)))


def test_optimizer_decorator_lifts_a_one_array_optimizer_to_pytrees():
    @opt.optimizer
    def scale(factor):
        return (lambda x: x), (lambda i, g, x: x * factor + g), (lambda x: x)

    opt_init, opt_update, get_params = scale(2.0)
    params = {"a": jnp.ones(2), "b": (jnp.zeros(1),)}
    result = get_params(opt_update(0, tree_map(jnp.ones_like, params), opt_init(params)))
    assert result["a"].tolist() == [3.0, 3.0] and result["b"][0].tolist() == [1.0]
    assert isinstance(opt.sgd(0.1), opt.Optimizer)


def test_l2_norm_and_clip_grads_match_jax():
    grads = _grads(1)[0]
    ours = tree_map(jnp.asarray, grads)
    theirs = tree_map(jax.numpy.asarray, grads)
    norm = float(jax_opt.l2_norm(theirs))
    np.testing.assert_allclose(float(opt.l2_norm(ours)), norm, rtol=1e-6)
    for max_norm in (norm / 2, 2 * norm):
        for a, b in zip(tree_leaves(opt.clip_grads(ours, max_norm)),
                        tree_leaves(jax_opt.clip_grads(theirs, max_norm))):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_unpack_and_pack_round_trip_as_jax():
    opt_init, opt_update, get_params = opt.adam(0.01)
    state = opt_update(0, tree_map(jnp.asarray, _grads(1)[0]), opt_init(tree_map(jnp.asarray, _params())))
    marked = opt.unpack_optimizer_state(state)
    jax_init = jax_opt.adam(0.01)[0]
    jax_marked = jax_opt.unpack_optimizer_state(jax_init(tree_map(jax.numpy.asarray, _params())))
    assert isinstance(marked["w"], opt.JoinPoint) and len(list(marked["w"])[0]) == 3
    assert jax.tree.structure(jax_marked).num_leaves == len(tree_leaves(marked))
    repacked = opt.pack_optimizer_state(marked)
    assert repacked.tree_def == state.tree_def and repacked.subtree_defs == state.subtree_defs
    for a, b in zip(tree_leaves(repacked), tree_leaves(state)):
        assert a is b
    with pytest.raises(TypeError, match="JoinPoint"):
        opt.pack_optimizer_state({"w": jnp.ones(1)})


def test_jitted_update_traces_once_for_all_steps():
    """The state's structures are static data of the pytree, so `jit` reuses one trace."""
    traces = []
    opt_init, opt_update, get_params = opt.adam(opt.piecewise_constant([2], [0.1, 0.01]))

    @jaxwg.jit
    def step(i, state):
        traces.append(i)
        return opt_update(i, tree_map(jnp.ones_like, get_params(state)), state)

    state = opt_init(tree_map(jnp.asarray, _params()))
    for i in range(4):
        state = step(i, state)
    assert len(traces) == 1
