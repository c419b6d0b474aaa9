"""A tour of jaxwg: NumPy-style code, eager and jitted, fused into kernels on the device.

`python -m jaxwg.demo` runs on the default device (WebGPU; `JAXWG_PLATFORMS=cpu` picks
the NumPy reference backend; `JAXWG_WEBGPU_ADAPTER=opengl`, `vulkan` or part of an
adapter's name chooses the WebGPU adapter) and checks every result against NumPy:

* an eager expression, `jnp.sum(jnp.exp(x) * 2 + 1)` over 1M float32: the operations
  build a lazy graph and run as one kernel when the result is read;
* a row-wise softmax: three kernels (max, sum, divide), eagerly and under `jit`;
* logistic regression trained by a jitted step whose gradient is `jaxwg.grad` of the
  loss (checked against the gradient written out in NumPy): the step is traced and
  compiled once, then each call replays its kernels; then 300 more steps behind a
  progress bar that shows the loss;
* the jaxpr of a small function, printed as JAX prints it.

It prints the device with its optional features, one line per check ("ok" or "MISMATCH" with the largest error,
the kernels dispatched and wall times), and exits with status 1 on any mismatch.
"""

from __future__ import annotations

import sys
import time

import numpy as np


class Checker:
    """Runs a computation, counts its kernels, compares it with NumPy, prints a line."""

    def __init__(self):
        from jaxwg.frontend.execute import counters

        self.counters = counters
        self.ok = True

    def __call__(self, label: str, compute, expected, rtol=1e-5, atol=1e-6, repeats=3):
        times, kernels, result = [], None, None
        for _ in range(repeats):
            before = self.counters["kernels"]
            t0 = time.perf_counter()
            result = np.asarray(compute())
            times.append(time.perf_counter() - t0)
            kernels = self.counters["kernels"] - before
        expected = np.asarray(expected)
        ok = result.shape == expected.shape and np.allclose(result, expected, rtol=rtol,
                                                            atol=atol)
        err = float(np.max(np.abs(result.astype(np.float64) - expected), initial=0.0))
        self.ok &= ok
        print(f"  {label:<44} {'ok' if ok else 'MISMATCH':<8} max err {err:.1e}  "
              f"{kernels} kernel(s)  first {times[0] * 1e3:7.1f} ms  best "
              f"{min(times) * 1e3:7.1f} ms")


def _progress(done: int, total: int, text: str, width: int = 30) -> None:
    """Draw `[#####.....] done/total text`: in place on a terminal, else at each quarter."""
    filled = width * done // total
    line = f"  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text}"
    if sys.stdout.isatty():
        print("\r" + line, end="\n" if done == total else "", flush=True)
    elif done * 4 % total == 0:
        print(line)


def _softmax(m, x):
    e = m.exp(x - x.max(axis=1, keepdims=True))
    return e / m.sum(e, axis=1, keepdims=True)


def _train(step, w, features, labels, steps):
    for _ in range(steps):
        w = step(w, features, labels)
    return w


def _logistic_loss(w, features, labels):
    """Binary cross-entropy of logits, log(1 + e^z) - y z, through `logaddexp` (stable, and
    smooth at z = 0, where training starts: the form max(z, 0) + log(1 + e^-|z|) has kinks
    there, whose derivatives by JAX's rules, 1/2 for the max and 1 for |z|, do not add
    up to the sigmoid's 1/2)."""
    import jaxwg.numpy as jnp

    z = features @ w
    return jnp.mean(jnp.logaddexp(0.0, z) - labels * z)


def _logistic_step_numpy(w, features, labels):
    """The same step with the gradient written out: X^T (sigmoid(z) - y) / n."""
    p = 1 / (1 + np.exp(-(features @ w)))
    return w - 0.5 * features.T @ (p - labels) / features.shape[0]


def _train_with_progress(step, features, labels, steps: int) -> None:
    """Train from zeros, reading the loss back every 25 steps for the progress bar."""
    import jaxwg
    import jaxwg.numpy as jnp

    loss = jaxwg.jit(_logistic_loss)
    w = jnp.zeros(features.shape[1])
    start = time.perf_counter()
    for i in range(1, steps + 1):
        w = step(w, features, labels)
        if i % 25 == 0:
            _progress(i, steps, f"loss {float(loss(w, features, labels)):.4f}")
    print(f"  {steps} steps in {time.perf_counter() - start:.2f} s")


def main() -> int:
    import jaxwg
    import jaxwg.numpy as jnp

    try:
        device = jaxwg.devices()[0]
        kind = device.device_kind
    except RuntimeError as e:  # no WebGPU adapter at all
        print(f"jaxwg demo: {e}\nTry JAXWG_PLATFORMS=cpu for the NumPy reference backend.")
        return 2
    print(f"device: {device.platform}   {kind}")
    features = jaxwg.print_environment_info(return_string=True).splitlines()
    print("\n".join("  " + line for line in features if line.startswith(f"{device.platform} features")))
    check = Checker()
    rng = np.random.default_rng(0)

    # 1. Eager code is lazy: three ops and a sum become one kernel when read.
    x_host = rng.standard_normal(1 << 20, dtype=np.float32)
    x = jnp.asarray(x_host)
    check("eager sum(exp(x) * 2 + 1), 1M float32", lambda: jnp.sum(jnp.exp(x) * 2 + 1),
          np.sum(np.exp(x_host.astype(np.float64)) * 2 + 1), rtol=1e-4)

    # 2. Softmax over rows: reductions take their producers and consumers along.
    logits_host = rng.standard_normal((1000, 256), dtype=np.float32)
    logits = jnp.asarray(logits_host)
    want = _softmax(np, logits_host.astype(np.float64))
    check("eager softmax, 1000x256", lambda: _softmax(jnp, logits), want)
    softmax = jaxwg.jit(lambda v: _softmax(jnp, v))
    check("jit softmax, 1000x256", lambda: softmax(logits), want)

    # 3. A jitted training step: traced once, then replayed.
    features_host = rng.standard_normal((2048, 32), dtype=np.float32)
    true_w = rng.standard_normal(32, dtype=np.float32)
    labels_host = (features_host @ true_w > 0).astype(np.float32)
    step = jaxwg.jit(lambda w, f, y: w - 0.5 * jaxwg.grad(_logistic_loss)(w, f, y))
    features, labels = jnp.asarray(features_host), jnp.asarray(labels_host)
    w0 = np.zeros(32, np.float32)
    want_w = _train(_logistic_step_numpy, w0.astype(np.float64), features_host, labels_host, 20)
    check("jit grad logistic regression, 20 steps", lambda: _train(
        step, jnp.asarray(w0), features, labels, 20), want_w, rtol=1e-4, atol=1e-5)
    accuracy = float(jnp.mean((features @ jnp.asarray(want_w) > 0) == (labels > 0.5)))
    per_step = len(step.lower(jnp.asarray(w0), features, labels).kernels)
    print(f"  training accuracy {accuracy:.3f}; {per_step} kernels per step")
    _train_with_progress(step, features, labels, steps=300)

    # 4. What jit sees.
    print("jaxpr of lambda x: jnp.sum(jnp.sin(x) * 2.0, axis=0):")
    print(jaxwg.make_jaxpr(lambda v: jnp.sum(jnp.sin(v) * 2.0, axis=0))(jnp.ones((3, 4))))

    if check.ok:
        print("all results match NumPy")
        return 0
    print("some results differ from NumPy")
    return 1


if __name__ == "__main__":
    sys.exit(main())
