"""Error messages name only what exists: every `jnp.x`, `lax.x`, `jax.x`, `jaxwg.x`,
`random.x` or `nn.x` quoted in a `raise` statement of jaxwg resolves in jaxwg (JAX's
names map to jaxwg's), and every `.at[...]` quoted is an Array method."""

import ast
import importlib
import pathlib
import re

import jaxwg

ROOTS = {"jnp": "jaxwg.numpy", "lax": "jaxwg.lax", "jax": "jaxwg", "jaxwg": "jaxwg",
         "random": "jaxwg.random", "nn": "jaxwg.nn"}
NAME = re.compile(r"(?<![\w.])(jnp|lax|jax|jaxwg|random|nn)\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
SOURCES = pathlib.Path(jaxwg.__file__).parent


def raised_texts(source: str):
    """(line, text) of the string literals in each `raise` statement of `source`.

    >>> list(raised_texts("raise TypeError(f'use jnp.where, not {x}')"))
    [(1, 'use jnp.where, not ')]
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            parts = [n.value for n in ast.walk(node.exc)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            yield node.lineno, " ".join(parts)


def resolves(root: str, dotted: str) -> bool:
    """Whether `root.dotted` names something in jaxwg (a file name such as lax.py counts).

    >>> resolves("lax", "cond"), resolves("jnp", "no_such_function"), resolves("lax", "py")
    (True, False, True)
    """
    obj = importlib.import_module(ROOTS[root])
    for part in dotted.split("."):
        if part == "py":
            return True
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def test_every_name_in_an_error_message_exists():
    missing = []
    for path in sorted(SOURCES.rglob("*.py")):
        for line, text in raised_texts(path.read_text()):
            missing += [f"{path.relative_to(SOURCES)}:{line}: {root}.{dotted}"
                        for root, dotted in NAME.findall(text) if not resolves(root, dotted)]
            if ".at[" in text:
                assert hasattr(jaxwg.Array, "at"), f"{path}:{line} suggests .at[]"
    assert not missing
