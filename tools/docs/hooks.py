"""mkdocs hooks (mkdocs.yml `hooks:`): pages that say `<!-- support-table -->` get the table
of JAX's names that jaxwg has, generated from the code (support_table.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import support_table  # noqa: E402

MARKER = "<!-- support-table -->"


def on_page_markdown(markdown: str, **kwargs) -> str:
    return markdown.replace(MARKER, support_table.markdown()) if MARKER in markdown else markdown
