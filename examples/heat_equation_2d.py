"""The 2-D heat equation u_t = alpha (u_xx + u_yy) on the unit square, u = 0 on the
boundary, by explicit finite differences: a jitted `lax.fori_loop` of 5-point stencil
steps, each one fused kernel of shifted slices.

From u0 = sin(pi x) sin(pi y), one step multiplies the grid by exactly
g = 1 - 8 r sin^2(pi h / 2) (r = alpha dt / h^2, the mode is an eigenvector of the
stencil), so after n steps the grid is g^n u0; the continuous solution decays as
exp(-2 pi^2 alpha t), which the grid approaches as h -> 0.

    python examples/heat_equation_2d.py --grid 128 --steps 2000
"""

import argparse
import functools
import math

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax


def initial_condition(grid: int):
    """sin(pi x) sin(pi y) on a `grid` x `grid` mesh of [0, 1]^2, boundary included."""
    x = jnp.linspace(0.0, 1.0, grid)
    return jnp.sin(jnp.pi * x)[:, None] * jnp.sin(jnp.pi * x)[None, :]


def step(u, r: float):
    """One explicit Euler step: the interior moves by r times the 5-point Laplacian
    (in units of h^2); the boundary stays 0."""
    center = u[1:-1, 1:-1]
    laplacian = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * center
    return jnp.pad(center + r * laplacian, 1)


@functools.partial(jaxwg.jit, static_argnums=(1, 2))
def solve(u0, steps: int, r: float):
    """`steps` steps from `u0`, in one compiled loop."""
    return lax.fori_loop(0, steps, lambda i, u: step(u, r), u0)


def main(grid: int = 64, steps: int = 500, r: float = 0.2, alpha: float = 1.0) -> float:
    """Solve on a `grid`^2 mesh for `steps` steps (stable for r <= 1/4) and check the
    peak against the stencil's exact decay; returns the relative error."""
    h = 1.0 / (grid - 1)
    dt = r * h * h / alpha
    print(f"Heat equation on a {grid}x{grid} grid, {steps} jitted steps of dt = {dt:.2e} "
          f"(t = {steps * dt:.4f})")
    u0 = initial_condition(grid)
    u = np.asarray(solve(u0, steps, r))
    discrete = (1 - 8 * r * math.sin(math.pi * h / 2) ** 2) ** steps
    continuous = math.exp(-2 * math.pi ** 2 * alpha * steps * dt)
    error = float(np.max(np.abs(u - discrete * np.asarray(u0)))) / discrete
    print(f"decay {discrete:.6f} on the grid (continuous solution: {continuous:.6f}); "
          f"largest deviation from it {error:.1e} of the amplitude")
    if not error < 1e-4:  # float32 rounding over the steps; `not <` also catches NaN
        raise RuntimeError(f"the solution deviates by {error:.3g} from the exact decay")
    return error


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()
    main(grid=args.grid, steps=args.steps)
