"""The lazy kernel graph: array values that are not computed yet.

Eager operations and jit programs both lower primitives (`jaxwg.frontend.lowering`) into
`LazyNode`s instead of running them. A node is one of:

* `BUFFER`: a realized value, a contiguous row-major `Buffer` on a backend (or, while
  jit compiles a program, a placeholder for one);
* `CONST`: a scalar known at trace time (Python scalars, `zeros`, `full`); `arg` is
  the value;
* `IOTA`: the index along one axis (`arg`: `Iota`);
* `ELEMENTWISE`: an AluExp built from its sources' values at the same index by a
  rule (`arg`: `Elementwise`); rank-0 sources broadcast;
* `MOVE`: a movement op (reshape, transpose, broadcast, slice, pad, flip) given by a
  `ShapeTracker` from this node's shape to its source's flat index, and the value
  read where the tracker says "padding" (`arg`: `Move`);
* `REDUCE`: a reduction op over some axes (`arg`: `Reduce`);
* `CONCAT`: its sources side by side along one axis (`arg`: `Concat`);
* `GATHER`: slices of its first source at positions read from its second
  (`arg`: `Gather`, the primitive's parameters; see `gather.py`);
* `ROUTINE`: the output of a routine (`arg`: a `core.routine.Routine`) run on its
  sources, which it reads as contiguous buffers.

`jaxwg.frontend.fusion` schedules a set of nodes into kernels: elementwise chains and
movement ops fuse into one expression, a reduction absorbs its producers and its
single-use elementwise consumers, and nodes used by more than one kernel are written
to buffers. Realizing a node turns it into a `BUFFER` in place, so every other pending
node that reads it reads the buffer from then on.

Nodes count their live consumers (`users`), so a realization can tell whether a
value it is about to fuse away is still wanted by pending work elsewhere.

Threads share this graph: building nodes from existing ones (eager lowering) and
realizing nodes hold `GRAPH_LOCK`, since realization rewrites a node in place.

>>> from jaxwg.core import dtypes as dt
>>> two = LazyNode.const(2.0, dt.float32)
>>> two.kind, two.shape
('const', ())
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..core.dtypes import DType
from ..core.routine import Routine

BUFFER = "buffer"
CONST = "const"
IOTA = "iota"
ELEMENTWISE = "elementwise"
MOVE = "move"
REDUCE = "reduce"
CONCAT = "concat"
GATHER = "gather"
ROUTINE = "routine"


@dataclass(frozen=True)
class Elementwise:
    """The element rule of an ELEMENTWISE node: `fn(*source expressions, **dict(params))`."""

    fn: Callable
    params: tuple = ()


@dataclass(frozen=True)
class Move:
    """A MOVE node reads its source through `tracker`; padding reads `fill` (None where
    padding is never read); `broadcast` says the tracker repeats source elements."""

    tracker: object  # view.ShapeTracker
    fill: object = None
    broadcast: bool = False


@dataclass(frozen=True)
class Reduce:
    """A REDUCE node combines its source's elements along `axes` with `op` (alu.Op)."""

    op: object
    axes: tuple[int, ...]


@dataclass(frozen=True)
class Iota:
    """An IOTA node holds each element's index along `axis`."""

    axis: int


@dataclass(frozen=True)
class Concat:
    """A CONCAT node joins its sources along `axis`."""

    axis: int


@dataclass(frozen=True)
class Gather:
    """A GATHER node's parameters: `gather.GatherDimensionNumbers`, slice sizes, and
    the fill value where the mode fills out-of-bounds slices (None: clamp)."""

    dimension_numbers: object
    slice_sizes: tuple[int, ...]
    fill: object = None


_ARG_TYPES = {IOTA: Iota, ELEMENTWISE: Elementwise, MOVE: Move, REDUCE: Reduce, CONCAT: Concat,
              GATHER: Gather, ROUTINE: Routine}

# A node's `cost` counts the arithmetic nodes a kernel computing it would inline
# (reductions and routines below it become their own kernels; movement ops are index
# arithmetic).
_COMPUTING = (ELEMENTWISE, CONCAT, REDUCE, GATHER, ROUTINE)
OWN_KERNEL = (BUFFER, REDUCE, ROUTINE)
# An eager value whose pending expression grows past this cost, or whose chain of
# pending nodes grows past this depth, is realized, so that loops building long chains
# make neither ever larger kernels nor deep recursion.
MAX_PENDING_COST = 160
MAX_PENDING_DEPTH = 256

# Held while eager code lowers primitives onto existing nodes and while `realize`
# schedules and rewrites them (see the module docstring). Re-entrant: realization can
# start inside a lowering (a node grown too big).
GRAPH_LOCK = threading.RLock()


class Buffer:
    """One reference to device memory holding an array's elements, dropped when the
    Buffer is collected (every node and program that reads it has let go).

    `backend` is None for the placeholders that jit uses while it plans a program.
    """

    __slots__ = ("__weakref__", "backend", "slot")

    def __init__(self, backend, slot):
        self.backend = backend
        self.slot = slot

    def __del__(self, _finalizing=sys.is_finalizing):  # bound now: at exit `sys` may be None
        if self.backend is None or _finalizing():
            return  # a placeholder, or the device may already be gone
        try:
            self.backend.decref(self.slot)
        except Exception:  # never raise from a finalizer
            pass


class LazyNode:
    """One value of the lazy graph (see the module docstring for the kinds)."""

    __slots__ = (
        "__weakref__",
        "arg",
        "arrays",
        "buffer",
        "cost",
        "depth",
        "device",
        "dtype",
        "kind",
        "shape",
        "srcs",
        "users",
    )

    def __init__(self, kind: str, shape, dtype: DType, srcs=(), arg=None, buffer=None,
                 device=None):
        if kind in _ARG_TYPES and not isinstance(arg, _ARG_TYPES[kind]):
            raise TypeError(f"a {kind} node takes a {_ARG_TYPES[kind].__name__}, got {arg!r}")
        self.kind = kind
        self.shape = tuple(shape)
        self.dtype = dtype
        self.srcs = tuple(srcs)
        self.arg = arg
        self.buffer = buffer
        self.users = 0
        self.arrays = 0  # live Arrays holding this node (Array.__init__ / __del__)
        self.cost = 1 if kind in _COMPUTING else 0
        self.depth = 1
        self.device = device
        for s in self.srcs:
            s.users += 1
            if s.kind not in OWN_KERNEL:
                self.cost += s.cost
            if s.kind != BUFFER:
                self.depth = max(self.depth, s.depth + 1)
            if self.device is None:
                self.device = s.device
            elif s.device is not None and s.device is not self.device:
                raise ValueError(
                    f"cannot combine arrays on different devices ({self.device.name} and "
                    f"{s.device.name}); move one with jaxwg.device_put")

    def __del__(self):
        for s in self.srcs:
            s.users -= 1

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def is_realized(self) -> bool:
        return self.kind == BUFFER

    @property
    def too_big(self) -> bool:
        """Whether eager mode should realize this node now (see MAX_PENDING_COST)."""
        return self.cost > MAX_PENDING_COST or self.depth > MAX_PENDING_DEPTH

    def set_buffer(self, buffer: Buffer) -> None:
        """Turn this node into a realized BUFFER (in place: users now read the buffer)."""
        self.recompute_as(BUFFER, (), None)
        self.buffer = buffer

    def recompute_as(self, kind: str, srcs, arg) -> None:
        """Compute this node's value another way, from `srcs` (in place: its users now
        read the new form)."""
        srcs = tuple(srcs)
        for s in srcs:
            s.users += 1
        for s in self.srcs:
            s.users -= 1
        self.kind, self.srcs, self.arg = kind, srcs, arg
        self.cost = (1 if kind in _COMPUTING else 0) + sum(s.cost for s in srcs if s.kind not in OWN_KERNEL)
        self.depth = 1 + max((s.depth for s in srcs if s.kind != BUFFER), default=0)

    # -- constructors --------------------------------------------------------------------
    @staticmethod
    def from_buffer(buffer: Buffer, shape, dtype: DType, device=None) -> LazyNode:
        return LazyNode(BUFFER, shape, dtype, (), None, buffer, device)  # positional: every jit result

    @staticmethod
    def const(value, dtype: DType, shape=(), device=None) -> LazyNode:
        """A scalar constant; with no `device` it goes wherever its users are."""
        return LazyNode(CONST, shape, dtype, arg=value, device=device)

    def __repr__(self) -> str:
        return f"LazyNode({self.kind}, {self.dtype.name}{list(self.shape)})"
