"""The "for JAX users" page's table of what jaxwg has of JAX's public names, generated
from the code: for each module jaxwg mirrors, every name JAX's module has
(`jaxwg._jax_names`, read from the JAX release the tests follow), whether jaxwg has it,
and the first line of jaxwg's docstring.

    python tools/docs/support_table.py    # prints the Markdown

The docs build inserts it where a page says `<!-- support-table -->` (tools/docs/hooks.py).
"""

from __future__ import annotations

import importlib
import inspect

from jaxwg._jax_names import JAX_NAMES


def _summary(obj) -> str:
    """The first sentence of `obj`'s own docstring, escaped for a table cell."""
    doc = inspect.getdoc(obj) if callable(obj) or inspect.ismodule(obj) else None
    paragraph = (doc or "").strip().split("\n\n")[0].replace("\n", " ")
    sentence = paragraph.split(". ")[0].rstrip(".")
    return (sentence + ".").replace("|", "\\|") if sentence else ""


def _documented_here(obj) -> bool:
    """Whether the API reference shows `obj` under its jaxwg name (functions and classes
    jaxwg defines; NumPy's dtype classes and other re-exports are not rendered)."""
    module = getattr(obj, "__module__", None) or ""
    return (inspect.isfunction(obj) or inspect.isclass(obj)) and module.startswith("jaxwg")


def module_rows(module_name: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, Markdown summary) for each JAX name `module_name` has, and the names it lacks."""
    module = importlib.import_module(module_name)
    present, missing = [], []
    for name in sorted(JAX_NAMES[module_name], key=str.lower):
        if name not in vars(module):
            missing.append(name)
            continue
        obj = vars(module)[name]
        label = f"[`{name}`][{module_name}.{name}]" if _documented_here(obj) else f"`{name}`"
        present.append((label, _summary(obj)))
    return present, missing


def markdown() -> str:
    """The whole table, one section per module."""
    parts = []
    for module_name in JAX_NAMES:
        present, missing = module_rows(module_name)
        total = len(present) + len(missing)
        jax_name = module_name.replace("jaxwg", "jax", 1)
        parts.append(f"### `{module_name}`\n\n{len(present)} of the {total} public names of "
                     f"`{jax_name}`.\n")
        parts.append("| name | summary |\n|---|---|")
        parts.extend(f"| {label} | {summary} |" for label, summary in present)
        parts.append(f"\nNot yet in jaxwg (using one raises `NotImplementedInJaxwg`): "
                     + ", ".join(f"`{n}`" for n in missing) + ".\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(markdown())
