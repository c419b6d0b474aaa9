"""The Array API standard's namespace pieces: `__array_api_version__`,
`__array_namespace_info__`, `from_dlpack`.
"""

__all__ = []
