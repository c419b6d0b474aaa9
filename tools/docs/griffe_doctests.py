"""A griffe extension for the API reference (mkdocs.yml): jaxwg's docstrings are prose
with doctests (they run under pytest); this fences the doctests as ```pycon blocks."""

import os
import sys

import griffe

sys.path.insert(0, os.path.dirname(__file__))

from samples import fence_doctests  # noqa: E402


class FenceDoctests(griffe.Extension):
    """Applies `fence_doctests` to each object's docstring as griffe loads it."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
