"""The kernel IR: dtypes, AluExp and its NumPy semantics, simplify, views, kernels.

It imports nothing else from jaxwg: the frontend lowers to it, the backends run it."""
