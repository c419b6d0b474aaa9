"""What runs, printed as it runs: the `jaxwg_debug` option (environment: `JAXWG_DEBUG`).

Levels add up; everything goes to stderr, one block per flush (an eager realization)
or per run of a jit program:

1. the kernels dispatched, each with its time (at this level every dispatch waits for
   the device, so a time is that kernel's alone, plus the submit);
2. the jaxpr of each jit trace (printed by `jaxwg.frontend.jit`);
3. each kernel's expressions;
4. each kernel's shader (WGSL on webgpu; the CPU backend interprets expressions).

The executor calls `dispatcher(device, what)` once per flush and dispatches through
what it returns: the backend's `dispatch` itself when the option is off and no
profile is being recorded (`jaxwg.profiler`, which installs itself as `profiler`), so
the hot path costs nothing.

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.config.update("jaxwg_debug", 1)
>>> x = jnp.exp(jaxwg.device_put(jnp.arange(3.0), jaxwg.devices("cpu")[0])).block_until_ready()
>>> jaxwg.config.update("jaxwg_debug", 0)

(stderr then holds `jaxwg: flush on cpu:0` and a line per kernel, with its time.)
"""

from __future__ import annotations

import sys
import time

from ..config import config


# The recording `jaxwg.profiler` session, if any: it labels and times each dispatch.
profiler = None


def level() -> int:
    """The current `jaxwg_debug` level (0: quiet)."""
    return config.jaxwg_debug


def watching() -> bool:
    """Whether kernels must be dispatched one by one through `dispatcher` (debugging
    output or a profile), not replayed."""
    return bool(config.jaxwg_debug) or profiler is not None


def emit(text: str) -> None:
    """Print one block of debugging output."""
    print(text, file=sys.stderr, flush=True)


def dispatcher(device, what: str):
    """The function to dispatch this flush's kernels on `device` with (`what` names the
    flush): the backend's `dispatch`, or at level 1 and above one that also prints and
    times each kernel."""
    if profiler is not None:
        return profiler.dispatcher(device, what)
    if not config.jaxwg_debug:
        return device.backend.dispatch
    return _Report(device, what).dispatch


def describe(kernel) -> str:
    """A one-line summary of a kernel: output, inputs, reduction.

    >>> from jaxwg.core import alu, dtypes as dt
    >>> from jaxwg.core.kernel import Kernel, Reduction
    >>> x = alu.load(0, dt.float32, alu.gidx(3) * 4 + alu.ridx(4))
    >>> describe(Kernel(1, 3, x, Reduction(alu.Op.ADD, dt.float32, 4)))
    'float32[3] from 1 input, add over 4'
    """
    text = f"{kernel.dtype}[{kernel.size}] from {kernel.nargs} input{'s' * (kernel.nargs != 1)}"
    if kernel.reduction is not None:
        text += f", {kernel.reduction.op.value} over {kernel.reduction.size}"
    if getattr(kernel, "stages", ()):
        text += f", {len(kernel.stages)} row stage{'s' * (len(kernel.stages) != 1)} over {kernel.rows} rows"
    return text


def shader_sources(executable) -> list[str]:
    """The shader text of each pass of a prepared kernel; ValueError when the backend
    compiles none (the CPU backend interprets kernels with NumPy)."""
    sources = getattr(executable, "shader_sources", None)
    if sources is None:
        raise ValueError(f"{type(executable).__name__} has no shader: only the webgpu backend "
                         "compiles kernels to WGSL")
    return sources()


class _Report:
    """Prints one flush: a header, then each kernel as it is dispatched."""

    def __init__(self, device, what: str):
        self.backend = device.backend
        self.level = config.jaxwg_debug
        self.count = 0
        emit(f"jaxwg: {what} on {device.name}")

    def dispatch(self, executable, inputs, outputs) -> None:
        backend = self.backend
        backend.synchronize()  # earlier work must not count in this kernel's time
        start = time.perf_counter()
        backend.dispatch(executable, inputs, outputs)
        backend.synchronize()
        ms = (time.perf_counter() - start) * 1e3
        kernel = executable.kernel
        lines = [f"  kernel {self.count}: {describe(kernel)}: {ms:.3f} ms"]
        if self.level >= 3:
            lines += [f"    {name} = {exp!r}" for name, exp in _expressions(kernel)]
        if self.level >= 4:
            try:
                lines += [_indent(code, "    | ") for code in shader_sources(executable)]
            except ValueError:
                pass  # nothing compiled: the expressions above are what runs
        emit("\n".join(lines))
        self.count += 1


def _expressions(kernel) -> list[tuple[str, object]]:
    staged = [(f"stage{j} {name}", exp) for j, stage in enumerate(getattr(kernel, "stages", ()))
              for name, exp in _expressions(stage)]
    if kernel.reduction is None:
        return staged + [("out", kernel.exp)]
    return staged + [("term", kernel.exp), ("out", kernel.reduction.epilogue)]


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.rstrip("\n").splitlines())
