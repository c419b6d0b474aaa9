"""Global configuration, as `jax.config`: named options read and set at run time.

Options are declared once in `_OPTIONS` with a default and, optionally, the
environment variable that overrides the default at import. They are read as
attributes (`config.jax_enable_x64`) or with `read`, and changed with `update`,
which checks the name and the value's type. Code that depends on an option reads
it when it runs, so an update takes effect for the next operation (and the next
jit cache key, which must include it).

>>> from jaxwg import config
>>> config.jax_enable_x64
False
>>> config.update("jax_enable_x64", True); config.jax_enable_x64
True
>>> config.update("jax_enable_x64", False)
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class _Option:
    default: object
    env: str | None = None
    help: str = ""
    shapes_programs: bool = True  # whether traced programs depend on it (jit keys on it)


_OPTIONS = {
    "jax_enable_x64": _Option(False, "JAX_ENABLE_X64",
                              "64-bit types (int64, float64) instead of their 32-bit defaults"),
    "jax_debug_nans": _Option(False, "JAX_DEBUG_NANS",
                              "raise FloatingPointError naming the operation that made a NaN "
                              "(a jitted function that returns one runs again op by op)",
                              shapes_programs=False),
    "jax_debug_infs": _Option(False, "JAX_DEBUG_INFS", "as jax_debug_nans, for infinities",
                              shapes_programs=False),
    "jax_disable_jit": _Option(False, "JAX_DISABLE_JIT",
                               "run jitted functions op by op (also `jaxwg.disable_jit()`)",
                               shapes_programs=False),
    "jaxwg_debug": _Option(0, "JAXWG_DEBUG",
                           "print what runs: 1 kernels and times, 2 jit jaxprs, 3 kernel "
                           "expressions, 4 WGSL (see jaxwg.frontend.debug)", shapes_programs=False),
    "jaxwg_fast_math": _Option(False, "JAXWG_FAST_MATH",
                               "drop the WebGPU guards that keep inf, NaN and -0.0 as NumPy has "
                               "them where shader compilers assume finite math (docs/ieee.md)"),
}


def _from_env(option: _Option):
    raw = os.environ.get(option.env) if option.env else None
    if raw is None:
        return option.default
    if isinstance(option.default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    return type(option.default)(raw)


_UNSET = object()

# JAX's options whose state another module holds (`jax_default_device`: jaxwg.placement),
# each an object with `.value` and `.set_global(value)`, registered by that module.
_CONFIG_HOLDERS: dict[str, object] = {}


class Config:
    """The option values; `jaxwg.config` is the one instance."""

    def __init__(self):
        object.__setattr__(self, "_values", {name: _from_env(o) for name, o in _OPTIONS.items()})
        object.__setattr__(self, "_local", threading.local())  # this thread's `override`s
        # Options some thread overrides now, with how many overrides: those are read
        # through `__getattr__`; the others are plain attributes (a jit call reads four).
        object.__setattr__(self, "_overridden", {})
        object.__setattr__(self, "_override_lock", threading.Lock())
        self.__dict__.update(self._values)
        self._update_key()

    def __getattr__(self, name: str):
        overrides = getattr(self._local, "values", None)
        if overrides and name in overrides:
            return overrides[name]
        try:
            return self._values[name]
        except KeyError:
            if name in _ACCEPTED_ONLY or name in _CONFIG_HOLDERS:
                return self.read(name)
            raise AttributeError(f"'Config' object has no attribute {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"use config.update({name!r}, value) to change an option")

    def read(self, name: str):
        """The current value of option `name`."""
        if name in _ACCEPTED_ONLY:
            return _ACCEPTED_ONLY[name].accepted[0]
        if name in _CONFIG_HOLDERS:
            return _CONFIG_HOLDERS[name].value
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        return getattr(self, name)

    def update(self, name: str, value) -> None:
        """Set option `name` (an AttributeError for unknown names, as in JAX). An option of
        JAX's that jaxwg honours with one value (`_State`) takes only that value.

        >>> config.update("jax_debug_key_reuse", False); config.jax_debug_key_reuse
        False
        """
        if name in _ACCEPTED_ONLY:
            _ACCEPTED_ONLY[name].check(value)
            return
        if name in _CONFIG_HOLDERS:
            _CONFIG_HOLDERS[name].set_global(value)
            return
        self._check(name, value)
        with self._override_lock:
            self._values[name] = value
            if name not in self._overridden:
                self.__dict__[name] = value
        self._update_key()

    @staticmethod
    def _check(name: str, value) -> None:
        if name not in _OPTIONS:
            raise AttributeError(f"Unrecognized config option: {name}")
        kind = type(_OPTIONS[name].default)
        if not isinstance(value, kind):
            raise TypeError(f"config option {name} takes a {kind.__name__}, got {value!r}")

    @contextlib.contextmanager
    def override(self, name: str, value):
        """Option `name` set to `value` in this thread until the block ends (JAX's context
        managers, such as `disable_jit`, are per thread too). Only options that traced
        programs do not depend on: the jit key is shared by all threads.

        >>> with config.override("jax_disable_jit", True):
        ...     config.jax_disable_jit
        True
        >>> config.jax_disable_jit
        False
        """
        self._check(name, value)
        if _OPTIONS[name].shapes_programs:
            raise ValueError(f"config option {name} changes traced programs: use config.update")
        overrides = self._local.__dict__.setdefault("values", {})
        saved = overrides.get(name, _UNSET)
        with self._override_lock:
            self._overridden[name] = self._overridden.get(name, 0) + 1
            self.__dict__.pop(name, None)
        overrides[name] = value
        try:
            yield
        finally:
            if saved is _UNSET:
                del overrides[name]
            else:
                overrides[name] = saved
            with self._override_lock:
                self._overridden[name] -= 1
                if not self._overridden[name]:
                    del self._overridden[name]
                    self.__dict__[name] = self._values[name]

    def values(self) -> dict:
        """All options and their values (with this thread's overrides)."""
        return {name: getattr(self, name) for name in self._values}

    def program_key(self) -> tuple:
        """The values programs depend on, as part of jit cache keys (kept ready: jit reads
        it on every call).

        >>> ("jax_enable_x64", False) in config.program_key()
        True
        """
        return self._key

    def _update_key(self) -> None:
        key = tuple(sorted((n, v) for n, v in self._values.items() if _OPTIONS[n].shapes_programs))
        object.__setattr__(self, "_key", key)


config = Config()


class _State:
    """A context manager factory for one option, as JAX's top-level ones (`jax.enable_x64`,
    `jax.debug_nans`, ...): `with jaxwg.debug_nans(True): ...`; `.value` reads it. An
    option jaxwg's config lacks takes only the values jaxwg honours (`accepted`, the first
    its value) and raises NotImplementedError for the others JAX takes (`known`), ValueError
    for the rest.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> with jaxwg.enable_x64(True):
    ...     jnp.ones(1).dtype
    dtype('float64')
    >>> jaxwg.enable_x64.value
    False
    """

    def __init__(self, name: str, accepted=None, known=None, default_arg=True, why=""):
        self.name, self.accepted, self.known, self._default_arg = name, accepted, known, default_arg
        self.why = why  # what JAX does with the values jaxwg does not honour

    @property
    def value(self):
        return config.read(self.name) if self.name in _OPTIONS else self.accepted[0]

    def __call__(self, new_val=_UNSET):
        new_val = self._default_arg if new_val is _UNSET else new_val
        if self.name in _OPTIONS:
            if isinstance(_OPTIONS[self.name].default, bool):
                new_val = bool(new_val)
            if _OPTIONS[self.name].shapes_programs:
                return self._updated(new_val)
            return config.override(self.name, new_val)
        self.check(new_val)
        return contextlib.nullcontext()

    def check(self, new_val) -> None:
        """Raise unless jaxwg honours `new_val` (an option jaxwg's config lacks)."""
        if new_val not in self.accepted:
            if new_val in self.known:
                from .errors import NotImplementedInJaxwg

                raise NotImplementedInJaxwg(f"{self.name}={new_val!r}: {self.why}jaxwg honours "
                                            f"only {', '.join(map(repr, self.accepted))}")
            raise ValueError(f"new enum value must be in {list(self.known)}, got {new_val!r}.")

    @contextlib.contextmanager
    def _updated(self, new_val):
        # Traced programs depend on it, so it is set for all threads (JAX's is per thread).
        saved = config.read(self.name)
        config.update(self.name, new_val)
        try:
            yield
        finally:
            config.update(self.name, saved)


_PRECISIONS = (None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
               "bfloat16_3x")
enable_x64 = _State("jax_enable_x64")
debug_nans = _State("jax_debug_nans")
debug_infs = _State("jax_debug_infs")
# jaxwg multiplies float32 in float32: the precisions that ask for that.
default_matmul_precision = _State("jax_default_matmul_precision",
                                  (None, "default", "highest", "float32"), _PRECISIONS, None)
numpy_dtype_promotion = _State("jax_numpy_dtype_promotion", ("standard",), ("standard", "strict"),
                               "standard")
numpy_rank_promotion = _State("jax_numpy_rank_promotion", ("allow",), ("allow", "warn", "raise"),
                              "allow")
log_compiles = _State("jax_log_compiles", (False, 0), (False, True, 0, 1))
enable_checks = _State("jax_enable_checks", (False, 0), (False, True, 0, 1))
debug_key_reuse = _State("jax_debug_key_reuse", (False, 0), (False, True, 0, 1),
                         why="JAX then raises KeyReuseError when a PRNG key is consumed twice, "
                         "which jaxwg does not check; ")
default_prng_impl = _State("jax_default_prng_impl", ("threefry2x32",),
                           ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32",
                            "philox4x32"), "threefry2x32")

# JAX's options that jaxwg honours with one value only: `config.update` checks the value.
_ACCEPTED_ONLY = {state.name: state for state in globals().values()
                  if isinstance(state, _State) and state.name not in _OPTIONS}
