"""Special functions and bit counts: `lgamma`, `digamma`, `igamma`, `igammac`,
`population_count`, `clz`, built from primitives.
"""

__all__ = []
