"""`jaxwg.print_environment_info()`: the versions and the devices, for a bug report."""

from __future__ import annotations

import platform
import sys

import numpy as np
import wgpu

from .backend import base as backend_base


def _device_lines(name: str) -> list[str]:
    """One line per property of backend `name`'s device, or why it could not start."""
    try:
        properties = backend_base.get_backend(name).environment()
    except Exception as e:  # no adapter, a failed device: still worth reporting
        return [f"{name}: unavailable ({type(e).__name__}: {e})"]
    return [f"{name} {key}: {value}" for key, value in properties.items()]


def print_environment_info(return_string: bool = False):
    """Print (or return) the versions of jaxwg, wgpu, NumPy and Python, the platform, the
    default backend, and each backend's device with its features and limits, as
    `jax.print_environment_info`.

    >>> import jaxwg
    >>> text = jaxwg.print_environment_info(return_string=True)
    >>> text.splitlines()[0].startswith("jaxwg:")
    True
    """
    from . import __version__

    lines = [f"jaxwg:  {__version__}", f"wgpu:   {wgpu.__version__}",
             f"numpy:  {np.__version__}", f"python: {sys.version.replace(chr(10), ' ')}",
             f"platform: {platform.platform()}",
             f"default backend: {backend_base.default_backend_name()}"]
    for name in backend_base.backend_names():
        lines.extend(_device_lines(name))
    text = "\n".join(lines)
    if return_string:
        return text
    print(text)
