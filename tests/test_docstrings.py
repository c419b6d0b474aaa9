"""Every public function has a docstring with a short example (a doctest)."""

import inspect

import pytest

import jaxwg
import jaxwg.example_libraries.optimizers
import jaxwg.example_libraries.stax
import jaxwg.lax
import jaxwg.numpy
import jaxwg.nn
import jaxwg.nn.initializers
import jaxwg.random
import jaxwg.lax.linalg
import jaxwg.numpy.linalg
import jaxwg.scipy.linalg
import jaxwg.scipy.sparse.linalg
import jaxwg.scipy.special
import jaxwg.scipy.stats


def _public(module):
    for name in sorted(getattr(module, "__all__", dir(module))):
        obj = getattr(module, name)
        if name.startswith("_") or not callable(obj) or inspect.isclass(obj):
            continue
        if getattr(obj, "__module__", "").startswith("jaxwg"):
            yield f"{module.__name__}.{name}", obj


_STATS = [getattr(jaxwg.scipy.stats, n) for n in jaxwg.scipy.stats.__all__
          if inspect.ismodule(getattr(jaxwg.scipy.stats, n))]
FUNCTIONS = dict(f for m in (jaxwg, jaxwg.lax, jaxwg.lax.linalg, jaxwg.numpy, jaxwg.numpy.linalg,
                             jaxwg.random, jaxwg.nn, jaxwg.nn.initializers, jaxwg.scipy.special,
                             jaxwg.scipy.linalg, jaxwg.scipy.stats, *_STATS,
                             jaxwg.scipy.fft, jaxwg.scipy.integrate, jaxwg.scipy.signal,
                             jaxwg.image, jaxwg.scipy.ndimage, jaxwg.scipy.cluster.vq,
                             jaxwg.scipy.sparse.linalg,
                             jaxwg.example_libraries.optimizers, jaxwg.example_libraries.stax)
                 for f in _public(m))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_has_docstring_with_example(name):
    doc = inspect.getdoc(FUNCTIONS[name]) or ""
    assert ">>>" in doc, f"{name} needs a docstring with an example"
