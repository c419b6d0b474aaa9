"""The package layering of docs/architecture.md ("Packages"), checked on the source:
each package imports only the jaxwg packages below it, so that the kernel IR and the
backends stay usable, and testable, without the frontend."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "jaxwg"

# package -> the jaxwg modules and packages its code may import
ALLOWED = {
    "core": {"core"},
    "backend": {"core", "backend"},
    "frontend": {"core", "backend", "frontend", "config", "errors"},
    "lax": {"core", "frontend", "lax", "config", "errors"},
    "numpy": {"core", "frontend", "lax", "numpy", "transforms", "config", "errors", "dtypes"},
    "transforms": {"core", "frontend", "lax", "transforms", "config", "errors"},
    "nn": {"core", "frontend", "lax", "numpy", "transforms", "random", "nn", "config", "errors"},
    "scipy": {"core", "frontend", "lax", "numpy", "nn", "random", "scipy", "transforms", "config",
              "errors"},
    "example_libraries": {"lax", "numpy", "nn", "random", "tree_util", "example_libraries"},
}


def _imported_packages(path: pathlib.Path) -> set[str]:
    """The top-level jaxwg names (`core`, `frontend`, ...) a module imports, absolute
    or relative, at any depth (imports inside functions count too)."""
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]  # ('jaxwg', 'backend', ...)
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                parts = list(base) + (node.module.split(".") if node.module else [])
                if len(parts) == 1:  # `from .. import errors`
                    names.update(alias.name for alias in node.names)
                    continue
            else:
                parts = (node.module or "").split(".")
            if parts[0] == "jaxwg" and len(parts) > 1:
                names.add(parts[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names
                         if a.name.startswith("jaxwg."))
    return names


# Modules allowed one import from above their package, each with its reason.
EXCEPTIONS = {
    # JAX's lax.linalg signatures over the factorizations written once, in jnp.linalg's
    # module; it imports jaxwg.numpy when first called (jaxwg.numpy imports lax).
    "lax/linalg.py": {"numpy"},
    # bessel_i0e/i1e, betainc, zeta, polygamma and igamma carry their derivative rules
    # as custom_jvp (JAX's are primitives), and betainc uses scipy's betaln, imported
    # when first called. To do: primitives with rules in transforms.
    "lax/special.py": {"scipy", "transforms"},
}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_packages_import_only_the_layers_below(package):
    wrong = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        allowed = ALLOWED[package] | EXCEPTIONS.get(str(path.relative_to(ROOT)), set())
        extra = _imported_packages(path) - allowed
        if extra:
            wrong[str(path.relative_to(ROOT))] = sorted(extra)
    assert not wrong, f"imports outside the layering of docs/architecture.md: {wrong}"
