"""Where the time of a jit call + wait goes, step by step, on the default adapter.

    python3 benchmarks/roundtrip.py [--reps 200]

A cached jitted `sum(x * y + 1)` on 1000 float32 is called and waited for, with each
step of the round trip timed on its own (medians over `--reps` round trips, µs):

* call: the jitted function's Python side, up to the dispatch recorded in the open
  compute pass (argument checks, cache lookup, output slot, bind group, record);
* end: ending the compute pass (and the fence copy where the device has no
  `wait_idle`, native.py);
* finish + submit: finishing the encoder and submitting it;
* open the next pass: what the queue does while the GPU runs (see queue.flush);
* wait: `wait_idle`, or mapping the fence word; returns once the GPU has run the work;
* read 4 bytes: `np.asarray` of the (ready) result: copy to staging, submit, map.

Then the floors without a kernel: opening and ending an encoder's compute pass (what
the first call after a wait pays), submitting that encoder and waiting, and the
all-in-one call + `block_until_ready` for comparison. Also a chain of 200 calls each
feeding the next: the Python side of the 200 calls, then the submit and wait. Uses
the queue's private fields (a benchmark of its internals).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jaxwg
import jaxwg.numpy as jnp


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def _fence(queue):
    def copy(encoder):
        if queue._device.wait_idle is None:
            encoder.copy_buffer_to_buffer(queue._fence_source, 0, queue._fence_target, 0, 4)
    return copy


def _wait(queue):
    if queue._device.wait_idle is not None:
        queue._device.wait_idle()
    else:
        queue._device.read_mapped(queue._fence_target, 4, queue._fence_word)


def round_trip_steps(backend, f, args, reps: int) -> dict[str, float]:
    queue, device = backend.queue, backend.device
    steps = {k: [] for k in ("call", "end", "finish + submit", "open the next pass", "wait",
                             "read 4 bytes", "total")}
    for _ in range(reps):
        backend.synchronize()
        t0 = time.perf_counter()
        out = f(*args)
        t1 = time.perf_counter()
        encoder = queue._encoder
        queue._encoding.end(queue._pass)
        _fence(queue)(encoder)
        t2 = time.perf_counter()
        queue._encoding.submit(encoder)
        t3 = time.perf_counter()
        # As the queue's flush does: forget the submitted pass, drop its holds and open
        # the next pass while the GPU runs.
        held, queue._held_slots = queue._held_slots, []
        queue._encoder = queue._pass = queue._pipeline = queue._immediates = None
        queue._pending = queue._held_bytes = 0
        for slot in held:
            backend.slots.release_hold(slot)
        queue._open_pass()
        t_open = time.perf_counter()
        _wait(queue)
        t4 = time.perf_counter()
        np.asarray(out)
        t5 = time.perf_counter()
        for name, seconds in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t_open - t3, t4 - t_open,
                                         t5 - t4, t4 - t0)):
            steps[name].append(seconds)
    return {name: _median_us(s) for name, s in steps.items()}


def floors(backend, f, args, reps: int) -> dict[str, float]:
    queue, device = backend.queue, backend.device
    opening, empty, whole = [], [], []
    for _ in range(reps):
        t = time.perf_counter()
        encoder = queue._encoding.encoder()
        queue._encoding.end(queue._encoding.begin_pass(encoder))
        opening.append(time.perf_counter() - t)
        t0 = time.perf_counter()
        _fence(queue)(encoder)
        queue._encoding.submit(encoder)
        _wait(queue)
        t1 = time.perf_counter()
        f(*args).block_until_ready()
        t2 = time.perf_counter()
        empty.append(t1 - t0)
        whole.append(t2 - t1)
    return {"open an encoder and a pass": _median_us(opening),
            "empty submit + wait": _median_us(empty), "call + block_until_ready": _median_us(whole)}


def chained(backend, reps: int, calls: int = 200) -> dict[str, float]:
    def small10(x):
        for _ in range(5):
            x = jnp.sin(x) * 0.5 + 0.1
        return x

    g = jaxwg.jit(small10)
    x = jnp.asarray(np.linspace(-1, 1, 64, dtype=np.float32))
    g(x).block_until_ready()
    record, wait = [], []
    for _ in range(max(3, reps // 20)):
        t0 = time.perf_counter()
        y = x
        for _ in range(calls):
            y = g(y)
        t1 = time.perf_counter()
        y.block_until_ready()
        t2 = time.perf_counter()
        record.append((t1 - t0) / calls)
        wait.append((t2 - t1) / calls)
    return {f"{calls} chained calls: Python, per call": _median_us(record),
            f"{calls} chained calls: submit + wait, per call": _median_us(wait)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    device = jaxwg.devices()[0]
    backend = device.backend
    print(f"adapter: {device.device_kind}; {time.strftime('%Y-%m-%d')}")
    small = jnp.asarray(np.linspace(-1, 1, 1000, dtype=np.float32)).block_until_ready()
    other = (small * 0.5).block_until_ready()
    f = jaxwg.jit(lambda x, y: jnp.sum(x * y + 1.0))
    f(small, other).block_until_ready()
    rows = {**round_trip_steps(backend, f, (small, other), args.reps),
            **floors(backend, f, (small, other), args.reps), **chained(backend, args.reps)}
    for name, us in rows.items():
        print(f"{name:48} {us:9.1f} us")


if __name__ == "__main__":
    main()
