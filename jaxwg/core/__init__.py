"""The kernel IR (dtypes, AluExp, views, kernels) and, later, primitives and traces."""
