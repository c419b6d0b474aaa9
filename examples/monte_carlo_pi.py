"""Estimate pi by throwing random points at the unit square with `jaxwg.random`.

The fraction of points (x, y) uniform on [0, 1)^2 with x^2 + y^2 < 1 is pi / 4. The
points come in batches, each drawn from its own key (`random.split`), so one seed
gives one estimate; each batch is counted by one jitted function.

    python examples/monte_carlo_pi.py --samples 4000000
"""

import argparse
import functools
import math

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import random


@functools.partial(jaxwg.jit, static_argnums=1)
def count_inside(key, batch_size: int):
    """How many of `batch_size` uniform points of the unit square fall in the unit circle."""
    points = random.uniform(key, (batch_size, 2))
    return jnp.sum(jnp.sum(points * points, axis=1) < 1.0)


def estimate_pi(samples: int, batch_size: int, seed: int) -> float:
    """4 x the fraction of `samples` points inside the circle (rounded down to whole batches)."""
    batches = max(1, samples // batch_size)
    keys = random.split(random.PRNGKey(seed), batches)
    inside = sum(int(count_inside(key, batch_size)) for key in keys)
    return 4.0 * inside / (batches * batch_size)


def tolerance(samples: int, sigmas: float = 5.0) -> float:
    """`sigmas` standard deviations of the estimate: 4 sqrt(p (1 - p) / samples), p = pi / 4."""
    p = math.pi / 4
    return sigmas * 4 * math.sqrt(p * (1 - p) / samples)


def main(samples: int = 1_000_000, batch_size: int = 250_000, seed: int = 0) -> float:
    """Estimate pi from `samples` points and check it is within 5 standard deviations."""
    print(f"Estimating pi from {samples:,} random points in batches of {batch_size:,} "
          f"on {jaxwg.devices()[0].device_kind}")
    estimate = estimate_pi(samples, batch_size, seed)
    error, allowed = abs(estimate - math.pi), tolerance(samples)
    print(f"pi ~ {estimate:.6f} (error {error:.2e}, 5 sigma = {allowed:.2e})")
    if error > allowed:
        raise RuntimeError(f"estimate {estimate} is further than {allowed:.3g} from pi")
    return estimate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(samples=args.samples, seed=args.seed)
