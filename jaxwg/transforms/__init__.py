"""Transformations: differentiation (`ad`, `reverse`, `jacobians`, `custom`) and
vectorization (`batching`), with their rule tables (`ad_rules`, `batch_rules`) and the
jaxpr passes they use (`partial_eval`, `transpose`). They are written with `jaxwg.lax`,
so they sit above it; `jaxwg` imports the rule modules, which fill the tables of
`jaxwg.frontend.primitives`.
"""
