"""Tests of the WebGPU device layer, run once per adapter kind this machine has.

Each test module opens its own device per adapter through `open_device`, which
selects the adapter the same way users do, with `JAXWG_WEBGPU_ADAPTER`.
"""

import pytest
import wgpu

from jaxwg.backend.webgpu.device import ADAPTER_ENV_VAR, WebGPUDevice, select_adapter

# Values of JAXWG_WEBGPU_ADAPTER; one absent on this machine is skipped.
ADAPTER_KINDS = ("vulkan", "opengl")


def open_device(kind: str) -> WebGPUDevice:
    """A device on the best adapter whose label contains `kind`, or a pytest skip."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ADAPTER_ENV_VAR, kind)
        try:
            adapter = select_adapter()
        except RuntimeError:
            pytest.skip(f"no {kind} WebGPU adapter here")
    try:
        device = WebGPUDevice(adapter)
    except RuntimeError as e:  # the H200 machine's OpenGL adapter, at times
        pytest.skip(f"the {kind} adapter here opens no device: {e}")
    if not _runs_compute(device):
        pytest.skip(f"the {kind} adapter here cannot build compute pipelines")
    return device


_PROBE = "@compute @workgroup_size(1) fn main() {}"


def _runs_compute(device: WebGPUDevice) -> bool:
    """Whether the device builds a trivial compute pipeline (the H200 machine's OpenGL
    adapter opens a device but has no compute shaders)."""
    try:
        module = device.device.create_shader_module(code=_PROBE)
        device.device.create_compute_pipeline(layout="auto",
                                              compute={"module": module, "entry_point": "main"})
    except Exception:  # noqa: BLE001 - any failure means: no compute here
        return False
    return True


def is_destroyed(device: WebGPUDevice, buffer: wgpu.GPUBuffer) -> bool:
    """Whether `buffer` was destroyed (writing to it is then a validation error)."""
    try:
        device.queue.write_buffer(buffer, 0, bytes(4))
    except wgpu.GPUValidationError:
        return True
    return False
