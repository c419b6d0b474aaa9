"""The WebGPU backend's caches stay within their bounds and still compute correctly
after evicting (a long-running process compiles an unbounded number of kernels)."""

import numpy as np

from jaxwg.backend.webgpu import backend as webgpu_backend
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel

from .helpers import run_kernel

# One pipeline (distinct WGSL) each.
_OPS = {Op.EXP: np.exp, Op.SIN: np.sin, Op.COS: np.cos, Op.ABS: np.abs, Op.SQRT: np.sqrt,
        Op.FLOOR: np.floor, Op.CEIL: np.ceil, Op.NEG: np.negative}


def test_caches_are_bounded_and_evicted_kernels_recompile(webgpu, monkeypatch):
    for name in ("_PIPELINE_CACHE_SIZE", "_BIND_GROUP_CACHE_SIZE", "_EXECUTABLE_CACHE_SIZE"):
        monkeypatch.setattr(webgpu_backend, name, 3)
    be = webgpu_backend.WebGPUBackend(webgpu.device)
    x = np.linspace(0.5, 2.0, 64, dtype=np.float32)
    for _ in range(2):  # the second round runs kernels whose cache entries were evicted
        for op, want in _OPS.items():
            k = Kernel(1, 64, alu.unary(op, alu.load(0, dt.float32, alu.gidx(64))))
            np.testing.assert_allclose(run_kernel(be, k, [x]), want(x), rtol=1e-5)
            stats = be.memory_stats()
            assert stats["pipelines"] <= 3 and stats["bind_groups_cached"] <= 3
    assert be.pipelines_compiled == 2 * len(_OPS)
