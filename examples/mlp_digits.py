"""A multilayer perceptron trained to read handwritten digits: scikit-learn's bundled
8x8 digits (1797 images, no download), or, without scikit-learn, a synthetic
stand-in of ten noisy 8x8 prototypes. Built with `jaxwg.example_libraries.stax`,
trained with `optimizers.adam` in a jitted step (minibatches drawn on the device with
`jaxwg.random`), then checked for a test accuracy well above chance.

Optional extras: scikit-learn (the real digits), tqdm (a progress bar) and matplotlib
(`--plot curves.png` saves the loss and accuracy curves):

    pip install scikit-learn tqdm matplotlib
    python examples/mlp_digits.py --steps 1000 --plot curves.png
"""

import argparse
import importlib.util

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import random
from jaxwg.example_libraries import optimizers, stax

CLASSES = 10


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def synthetic_digits(seed: int, samples: int = 1800):
    """Ten random 8x8 "digit" prototypes in [0, 1] with Gaussian noise (std 0.8) added:
    (images as (samples, 64) float32, labels)."""
    rng = np.random.default_rng(seed)
    prototypes = rng.uniform(size=(CLASSES, 64))
    labels = rng.integers(0, CLASSES, samples)
    images = prototypes[labels] + 0.8 * rng.normal(size=(samples, 64))
    return images.astype(np.float32), labels


def load_data(seed: int, synthetic: bool | None = None):
    """(train images, train labels, test images, test labels, name): an 80/20 split of
    the digits, or of `synthetic_digits` when asked for or without scikit-learn."""
    if synthetic is None:
        synthetic = not _installed("sklearn")
        if synthetic:
            print("scikit-learn is not installed: training on a synthetic 10-class stand-in "
                  "for the digits (pip install scikit-learn for the real ones)")
    if synthetic:
        images, labels, name = *synthetic_digits(seed), "synthetic digits"
    else:
        from sklearn.datasets import load_digits

        digits = load_digits()
        images, labels, name = (digits.data / 16.0).astype(np.float32), digits.target, "digits"
    order = np.random.default_rng(seed).permutation(len(labels))
    train, test = order[: len(order) * 4 // 5], order[len(order) * 4 // 5:]
    return images[train], labels[train], images[test], labels[test], name


init_network, apply_network = stax.serial(stax.Dense(64), stax.Relu, stax.Dense(CLASSES),
                                          stax.LogSoftmax)


def loss(params, images, labels):
    """Mean cross-entropy of the network's predictions."""
    log_probs = apply_network(params, images)
    return -jnp.mean(jnp.sum(log_probs * jaxwg.nn.one_hot(labels, CLASSES), axis=1))


@jaxwg.jit
def accuracy(params, images, labels):
    return jnp.mean(jnp.argmax(apply_network(params, images), axis=1) == labels)


def make_step(opt_update, get_params, batch_size: int):
    """The jitted training step: draw a minibatch with `key`, take one Adam step;
    returns (loss, new state)."""
    @jaxwg.jit
    def step(i, state, key, images, labels):
        batch = random.randint(key, (batch_size,), 0, images.shape[0])
        value, grads = jaxwg.value_and_grad(loss)(get_params(state), images[batch], labels[batch])
        return value, opt_update(i, grads, state)
    return step


def _progress(steps: int, show: bool):
    """The step indices, through a tqdm bar when `show`."""
    if show:
        from tqdm import trange

        return trange(steps, desc="training")
    return range(steps)


def save_plot(path: str, losses, accuracies, every: int):
    """The loss and test-accuracy curves as an image at `path` (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(losses)
    left.set(xlabel="step", ylabel="training loss", yscale="log")
    right.plot(np.arange(len(accuracies)) * every, accuracies)
    right.set(xlabel="step", ylabel="test accuracy")
    fig.tight_layout()
    fig.savefig(path)
    print(f"saved the curves to {path}")


def train(data, steps, batch_size, step_size, seed, progress):
    """Train from a fresh network; returns (params, losses, test accuracies every steps // 10)."""
    x_train, y_train, x_test, y_test = (jnp.asarray(a) for a in data)
    opt_init, opt_update, get_params = optimizers.adam(step_size)
    key, init_key = random.split(random.PRNGKey(seed))
    state = opt_init(init_network(init_key, (-1, x_train.shape[1]))[1])
    step = make_step(opt_update, get_params, batch_size)
    every = max(1, steps // 10)
    losses, accuracies = [], []
    for i in _progress(steps, progress):
        key, batch_key = random.split(key)
        value, state = step(i, state, batch_key, x_train, y_train)
        losses.append(float(value))
        if i % every == 0 or i == steps - 1:
            accuracies.append(float(accuracy(get_params(state), x_test, y_test)))
            if not progress:
                print(f"step {i:5d}: loss {losses[-1]:.4f}, test accuracy {accuracies[-1]:.3f}")
    return get_params(state), losses, accuracies


def main(steps: int = 300, batch_size: int = 128, step_size: float = 3e-3, seed: int = 0,
         synthetic: bool | None = None, plot: str | None = None, progress: bool = True) -> float:
    """Train for `steps` steps and check the test accuracy is above 3x chance; returns it."""
    *data, name = load_data(seed, synthetic)
    print(f"Training a 64-64-10 MLP on {name} ({len(data[1])} train, {len(data[3])} test "
          f"images) for {steps} steps of Adam on {jaxwg.devices()[0].device_kind}")
    progress = progress and _installed("tqdm")  # else progress lines every steps // 10
    params, losses, accuracies = train(data, steps, batch_size, step_size, seed, progress)
    final = accuracies[-1]
    print(f"final loss {losses[-1]:.4f}, test accuracy {final:.3f} (chance: {1 / CLASSES:.2f})")
    if plot and _installed("matplotlib"):
        save_plot(plot, losses, accuracies, max(1, steps // 10))
    elif plot:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
    if not final > 3 / CLASSES:
        raise RuntimeError(f"test accuracy {final} is not well above chance")
    return final


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--synthetic", action="store_true", help="use the synthetic stand-in")
    parser.add_argument("--plot", help="save the loss and accuracy curves to this image file")
    args = parser.parse_args()
    main(steps=args.steps, synthetic=args.synthetic or None, plot=args.plot)
