"""A first pass over the public API on both platforms, eagerly and under jit."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg.numpy as jnp

from .helpers import assert_array


@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                  elements=st.floats(-10, 10, width=32)))
def test_fused_chain_matches_numpy(run, x):
    out = run(lambda a: jnp.sum(jnp.exp(a) * 2 + 1), jnp.asarray(x))
    assert_array(out, np.sum(np.exp(x) * 2 + 1, dtype=np.float32), rtol=1e-5)
