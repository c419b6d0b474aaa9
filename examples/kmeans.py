"""k-means clustering (Lloyd's algorithm) with greedy k-means++ seeding, on points drawn
around random centers with `jaxwg.random`.

Each iteration assigns every point to its nearest center (an (n, k) matrix of squared
distances and an `argmin`) and moves each center to the mean of its points (a one-hot
matrix product); `lax.fori_loop` runs the iterations inside one jitted function. The
script checks that every true center has a found center near it.

    python examples/kmeans.py --points 20000 --clusters 8
"""

import argparse
import functools

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax, nn, random


def make_blobs(key, points: int, clusters: int, spread: float = 0.3):
    """`points` 2-D points around `clusters` centers on a ring of radius 4, standard
    deviation `spread`; returns (points, centers)."""
    k_phase, k_assign, k_noise = random.split(key, 3)
    angles = (jnp.arange(clusters) + random.uniform(k_phase)) * (2 * jnp.pi / clusters)
    centers = 4.0 * jnp.stack([jnp.cos(angles), jnp.sin(angles)], axis=1)
    labels = random.randint(k_assign, (points,), 0, clusters)
    return centers[labels] + spread * random.normal(k_noise, (points, 2)), centers


def squared_distances(xs, centers):
    """|x - c|^2 for every point and center: an (n, k) matrix."""
    return (jnp.sum(xs ** 2, axis=1)[:, None] - 2.0 * xs @ centers.T
            + jnp.sum(centers ** 2, axis=1)[None, :])


def kmeans_plus_plus(key, xs, clusters: int, candidates: int = 4):
    """Greedy k-means++ seeding: the first center uniform among the points; then, each
    time, `candidates` points drawn with probability proportional to their squared
    distance to the nearest center so far, keeping the one that lowers the inertia most
    (plain k-means++ often puts two seeds in one cluster when clusters are large, as
    its draws favour a cluster's outliers)."""
    keys = random.split(key, clusters)
    centers = xs[random.randint(keys[0], (1,), 0, xs.shape[0])]
    for k in keys[1:]:
        # Rounding can make the distance of a chosen point slightly negative.
        nearest = jnp.maximum(jnp.min(squared_distances(xs, centers), axis=1), 0.0)
        picks = xs[random.categorical(k, jnp.log(nearest), shape=(candidates,))]
        inertias = jnp.sum(jnp.minimum(nearest[:, None], squared_distances(xs, picks)), axis=0)
        centers = jnp.concatenate([centers, picks[jnp.argmin(inertias)][None]], axis=0)
    return centers


def lloyd_step(xs, centers):
    """Assign points to their nearest centers, then move each center to its points'
    mean (a center left without points stays where it was)."""
    assignment = nn.one_hot(jnp.argmin(squared_distances(xs, centers), axis=1), centers.shape[0])
    counts = jnp.sum(assignment, axis=0)
    sums = assignment.T @ xs
    return jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1.0)[:, None], centers)


@functools.partial(jaxwg.jit, static_argnums=2)
def kmeans(xs, centers, iterations: int):
    """`iterations` Lloyd steps from `centers`; returns the centers and the inertia
    (the sum of squared distances of the points to their centers)."""
    centers = lax.fori_loop(0, iterations, lambda i, c: lloyd_step(xs, c), centers)
    return centers, jnp.sum(jnp.min(squared_distances(xs, centers), axis=1))


def main(points: int = 5000, clusters: int = 5, iterations: int = 10, seed: int = 0):
    """Cluster `points` points into `clusters` clusters and check each true center was
    found (within 0.2); returns the found centers."""
    print(f"k-means: {points} points, {clusters} clusters, {iterations} jitted Lloyd iterations")
    k_data, k_seed = random.split(random.PRNGKey(seed))
    xs, true_centers = make_blobs(k_data, points, clusters)
    centers, inertia = kmeans(xs, kmeans_plus_plus(k_seed, xs, clusters), iterations)
    gaps = np.min(np.linalg.norm(np.asarray(true_centers)[:, None] - np.asarray(centers)[None],
                                 axis=2), axis=1)
    print(f"inertia per point {float(inertia) / points:.4f} (0.18 expected: 2 x 0.3^2); "
          f"distance of each true center to the nearest found one: {np.round(gaps, 3)}")
    if not np.all(gaps < 0.2):
        raise RuntimeError(f"true centers not found: distances {gaps}")
    return centers


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=5000)
    parser.add_argument("--clusters", type=int, default=5)
    args = parser.parse_args()
    main(points=args.points, clusters=args.clusters)
