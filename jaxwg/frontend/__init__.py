"""The tracing frontend: avals and promotion, primitives and their rule tables, the trace
stack, jaxprs and `jit`, `Array` and devices, and the lazy graph that eager code and jit
programs share (lowering, fusion, execute). Built on the kernel IR in `jaxwg.core`."""
