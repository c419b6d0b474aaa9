"""Code samples in Markdown: the fenced Python blocks of a page (tests/test_docs.py runs
them) and doctests in docstrings fenced for the API reference (griffe_doctests.py).
Plain Python, so that the tests need no docs tooling."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def python_blocks(markdown: str) -> list[tuple[int, str]]:
    """(line number, source) of each ```python block of `markdown`, in order.

    >>> python_blocks("Text\\n```python\\nx = 1\\n```\\n```bash\\nls\\n```\\n")
    [(2, 'x = 1\\n')]
    """
    return [(markdown.count("\n", 0, m.start()) + 1, m.group(2))
            for m in _FENCE.finditer(markdown) if m.group(1) == "python"]


def fence_doctests(text: str) -> str:
    r"""`text` with each run of doctest lines (a `>>>` line to the next blank one) fenced
    as a ```pycon block: unfenced, Markdown renders `>>>` lines as nested quotes.

    >>> fence_doctests("Sum:\n>>> 1 + 1\n2\n\nMore.").splitlines()
    ['Sum:', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    """
    out, in_example = [], False
    for line in text.splitlines():
        if not in_example and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)
