"""Per-example gradients with `vmap(grad(...))`: the gradient of the loss of every
example of a batch at once, as differentially private SGD needs them (each example's
gradient is clipped to a norm before they are averaged).

`grad(loss)` differentiates the loss of one example; `vmap` maps it over the batch
axis of the inputs and labels (`in_axes=(None, 0, 0)`: the parameters are shared), in
one jitted computation instead of a Python loop of `batch_size` gradient calls. The
script checks the result against that loop, and checks that their mean is the
gradient of the batch's mean loss.

    python examples/per_example_gradients.py --batch-size 64
"""

import argparse

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import random
from jaxwg.tree_util import tree_leaves, tree_map


def loss(params, x, y):
    """Logistic loss of one example: features `x`, label `y` in {0, 1}."""
    logit = jnp.dot(x, params["w"]) + params["b"]
    return jnp.logaddexp(0.0, logit) - y * logit


per_example_grads = jaxwg.jit(jaxwg.vmap(jaxwg.grad(loss), in_axes=(None, 0, 0)))


@jaxwg.jit
def batch_grad(params, xs, ys):
    """The gradient of the mean loss over the batch."""
    return jaxwg.grad(lambda p: jnp.mean(jaxwg.vmap(loss, (None, 0, 0))(p, xs, ys)))(params)


def clipped_mean(grads, max_norm: float):
    """The mean of per-example gradients, each first scaled to norm <= `max_norm` (DP-SGD)."""
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in tree_leaves(grads)))
    scale = jnp.minimum(1.0, max_norm / norms)
    return tree_map(lambda g: jnp.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), axis=0), grads)


def make_batch(key, batch_size: int, features: int):
    """Random parameters, inputs and labels."""
    kw, kx, ky = random.split(key, 3)
    params = {"w": random.normal(kw, (features,)), "b": jnp.zeros(())}
    xs = random.normal(kx, (batch_size, features))
    ys = random.bernoulli(ky, 0.5, (batch_size,)).astype(jnp.float32)
    return params, xs, ys


def max_difference(a, b) -> float:
    return max(float(np.max(np.abs(np.asarray(x) - np.asarray(y))))
               for x, y in zip(tree_leaves(a), tree_leaves(b), strict=True))


def main(batch_size: int = 32, features: int = 5, max_norm: float = 1.0, seed: int = 0) -> float:
    """Compute per-example gradients three ways and check they agree; returns the
    largest difference from the loop."""
    print(f"Per-example gradients of a logistic loss: batch of {batch_size}, {features} features")
    params, xs, ys = make_batch(random.PRNGKey(seed), batch_size, features)
    grads = per_example_grads(params, xs, ys)
    looped = [jaxwg.grad(loss)(params, xs[i], ys[i]) for i in range(batch_size)]
    stacked = tree_map(lambda *gs: jnp.stack(gs), *looped)
    difference = max_difference(grads, stacked)
    mean_difference = max_difference(tree_map(lambda g: g.mean(axis=0), grads),
                                     batch_grad(params, xs, ys))
    print(f"shapes {tree_map(lambda g: g.shape, grads)}; vmap vs loop: {difference:.1e}; "
          f"mean vs batch gradient: {mean_difference:.1e}")
    clipped = clipped_mean(grads, max_norm)
    print(f"clipped (norm <= {max_norm}) mean gradient: w = {np.round(np.asarray(clipped['w']), 4)}")
    if not (difference < 1e-5 and mean_difference < 1e-5):
        raise RuntimeError(f"per-example gradients disagree: {difference}, {mean_difference}")
    # A mean of vectors of norm <= max_norm has norm <= max_norm.
    clipped_norm = float(jnp.sqrt(sum(jnp.sum(g ** 2) for g in tree_leaves(clipped))))
    if not clipped_norm <= max_norm * (1 + 1e-6):
        raise RuntimeError(f"the clipped mean has norm {clipped_norm} > {max_norm}")
    return difference


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    main(batch_size=args.batch_size)
