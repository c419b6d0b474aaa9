"""`jaxwg.ops` segment reductions against `jax.ops`: values (NaN, inf, -0.0, empty
segments, out-of-range and negative ids, buckets, integer and int8 data), eager and
jitted, and JAX's errors."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import ops

from .helpers import assert_array, jax

NAMES = ["segment_sum", "segment_prod", "segment_max", "segment_min"]
CASES = [  # (data, segment_ids, static keyword arguments)
    (np.array([1.0, np.nan, -0.0, np.inf, 2.0], np.float32), np.array([0, 0, 1, 2, 2]), {}),
    (np.arange(5, dtype=np.int32), np.array([0, 0, 1, 2, 2]), {"num_segments": 4}),
    (np.arange(10.0, dtype=np.float32).reshape(5, 2), np.array([3, 0, -1, 1, 7]),
     {"num_segments": 3}),
    (np.arange(1.0, 6.0, dtype=np.float32), np.array([0, 0, 1, 2, 2]), {"bucket_size": 2}),
    (np.arange(5, dtype=np.int8), np.array([0, 0, 1, 2, 2]), {"num_segments": 3}),
    (np.zeros(0, np.float32), np.zeros(0, np.int32), {"num_segments": 2}),
    (np.arange(4.0, dtype=np.float32), np.array([0, 5, 1, 1]),
     {"num_segments": 3, "indices_are_sorted": True}),
    (np.arange(4.0, dtype=np.float32), np.array([-2, 5, 1, 1]),
     {"num_segments": 3, "mode": "clip"}),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_segment_reductions_match_jax(run, name, case):
    data, ids, static = CASES[case]
    want = getattr(jax.ops, name)(data, ids, **static)
    if run.mode == "jit" and "num_segments" not in static:
        static = dict(static, num_segments=int(ids.max()) + 1)
    got = run(getattr(ops, name), jnp.asarray(data), jnp.asarray(ids), **static)
    assert_array(got, want)


def test_errors_as_jax():
    with pytest.raises(jaxwg.errors.ConcretizationTypeError, match="`num_segments` argument"):
        jaxwg.jit(ops.segment_max)(jnp.ones(3), jnp.array([0, 1, 1]))
    with pytest.raises(ValueError, match="num_segments must be non-negative"):
        ops.segment_sum(jnp.ones(3), jnp.array([0, 1, 1]), -1)
    with pytest.raises(TypeError, match="segment_sum requires ndarray or scalar arguments"):
        ops.segment_sum([1.0, 2.0], jnp.array([0, 1]))
