"""`jaxwg.profiler`: what each kernel cost, as a Chrome / Perfetto trace.

Between `start_trace(log_dir)` and `stop_trace()` (or inside `with trace(log_dir):`)
every kernel is dispatched on its own (jit programs are not replayed) and timed:

* on the device, where the backend can stamp each dispatch (WebGPU adapters with
  "timestamp-query-inside-passes": backend/webgpu/timing.py). The kernels still run
  back to back; the times are the GPU's own, but the stamps cost time too: on an H100
  through Vulkan every stamped kernel took at least 23 µs, so a trace ranks kernels and
  times large ones, not small ones (docs/performance.md).
* otherwise (the CPU backend, adapters without the feature) by waiting for each
  kernel on the CPU, as `jaxwg_debug` does: the times then include a submit and a wait.

Each kernel event names the kernel (its output, inputs and reduction), what issued it
(`jit <function>` with the function's file and line, or an eager flush) and the line
of the caller's code that ran it; `TraceAnnotation` adds named spans of Python time.
`stop_trace` writes `<log_dir>/jaxwg-<time>.trace.json` (open it in
https://ui.perfetto.dev or chrome://tracing) and returns its path.

>>> import tempfile, jaxwg, jaxwg.numpy as jnp
>>> with tempfile.TemporaryDirectory() as d:
...     with jaxwg.profiler.trace(d):
...         _ = jnp.sum(jnp.arange(1000.0) * 2.0).block_until_ready()
...     events = jaxwg.profiler.last_trace()["traceEvents"]
>>> any(e["cat"] == "kernel" for e in events)
True
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading
import time

from .frontend import debug

_JAXWG_DIR = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_last: dict | None = None


def start_trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False) -> None:
    """Start recording kernel times; `stop_trace` writes them under `log_dir`.
    (`create_perfetto_link` and `create_perfetto_trace` are accepted for JAX's
    signature: the trace written is already Perfetto's JSON.)

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> start_trace(d); path = stop_trace(); path.endswith(".trace.json")
    True
    """
    with _lock:
        if debug.profiler is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run at a time.")
        debug.profiler = _Session(os.fspath(log_dir))


def stop_trace() -> str:
    """Stop recording, write the trace file and return its path."""
    global _last
    with _lock:
        session = debug.profiler
        if session is None:
            raise RuntimeError("No profile started")
        debug.profiler = None
    _last = session.finish()
    path = os.path.join(session.log_dir, f"jaxwg-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.trace.json")
    os.makedirs(session.log_dir, exist_ok=True)
    with open(path, "w") as f:
        json.dump(_last, f)
    return path


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False):
    """`start_trace(log_dir)` ... `stop_trace()` around a block.

    >>> import tempfile, jaxwg.numpy as jnp
    >>> with trace(tempfile.mkdtemp()):
    ...     _ = (jnp.ones(8) + 1).block_until_ready()
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace)
    try:
        yield
    finally:
        stop_trace()


def last_trace() -> dict | None:
    """The trace `stop_trace` wrote last, as a dict ({"traceEvents": [...]})."""
    return _last


class TraceAnnotation:
    """A named span of Python time in the trace (a no-op when no trace is recording).

    >>> with TraceAnnotation("my step"):
    ...     pass
    """

    def __init__(self, name: str, **kwargs):
        self.name, self.args = name, kwargs

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        session = debug.profiler
        if session is not None:
            session.span(self.name, self._start, time.perf_counter(), self.args)
        return False


def annotate_function(func=None, name: str | None = None, **kwargs):
    """Decorator: every call of the function is a `TraceAnnotation` span.

    >>> @annotate_function
    ... def step(x):
    ...     return x + 1
    >>> step(1)
    2
    """
    if func is None:
        return functools.partial(annotate_function, name=name, **kwargs)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        with TraceAnnotation(name or func.__qualname__, **kwargs):
            return func(*args, **kw)

    return wrapper


def _caller() -> str:
    """file:line of the innermost frame outside jaxwg (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_JAXWG_DIR):
        frame = frame.f_back
    return "?" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


class _Session:
    """One recording: the device-timed backends, and the events timed on the CPU."""

    def __init__(self, log_dir: str):
        self.log_dir = log_dir
        self._origin = time.perf_counter()
        self._device_timed: dict = {}  # backend -> whether it stamps dispatches itself
        self._events: list[dict] = []

    def dispatcher(self, device, what: str):
        """How the executor dispatches one flush's (or one program run's) kernels."""
        backend = device.backend
        if backend not in self._device_timed:
            self._device_timed[backend] = backend.start_timing()
        origin = {"issued by": what, "source": _caller(), "device": device.name}
        if self._device_timed[backend]:
            def dispatch(executable, inputs, outputs):
                backend.timing_label({"kernel": debug.describe(executable.kernel), **origin})
                backend.dispatch(executable, inputs, outputs)
        else:
            def dispatch(executable, inputs, outputs):
                backend.synchronize()  # earlier work must not count in this kernel's time
                start = time.perf_counter()
                backend.dispatch(executable, inputs, outputs)
                backend.synchronize()
                args = {"kernel": debug.describe(executable.kernel), **origin}
                self._events.append(self._event(args, start, time.perf_counter(), "kernels (CPU-timed)"))
        return dispatch

    def span(self, name: str, start: float, end: float, args: dict) -> None:
        self._events.append({**self._event({"name": name, **args}, start, end, "Python"), "cat": "annotation"})

    def _event(self, args: dict, start: float, end: float, track: str) -> dict:
        return {"name": args.get("kernel", args.get("name")), "cat": "kernel", "ph": "X",
                "ts": (start - self._origin) * 1e6, "dur": (end - start) * 1e6,
                "pid": args.get("device", "host"), "tid": track, "args": args}

    def finish(self) -> dict:
        """Stop every backend's timing and gather the events, device time first at 0."""
        events = list(self._events)
        for backend, device_timed in self._device_timed.items():
            timed = backend.stop_timing()
            if not device_timed or not timed:
                continue
            zero = timed[0].start_ns
            for t in timed:
                label = t.label or {"kernel": "?", "device": backend.describe()}
                events.append({"name": label["kernel"], "cat": "kernel", "ph": "X",
                               "ts": (t.start_ns - zero) / 1e3, "dur": (t.end_ns - t.start_ns) / 1e3,
                               "pid": label["device"], "tid": "kernels (device clock)", "args": label})
        return {"traceEvents": events, "displayTimeUnit": "ns"}
