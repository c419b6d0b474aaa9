"""The documentation's code: every ```python block of README.md and docs/*.md runs (a page's
blocks in order, in one namespace, as a reader would paste them), the support table of
"For JAX users" is generated from the code, and docstring examples are fenced for the
API reference. The site itself is built by `mkdocs build --strict` in CI (.ci/run)."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


def _load_tool(name: str):
    path = ROOT / "tools" / "docs" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"jaxwg_docs_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


samples = _load_tool("samples")


@pytest.fixture
def config_restored():
    """The options as they were before the test: a page may show how to change one
    (`jaxwg_fast_math` in ieee.md), which must not reach the tests after it."""
    from jaxwg import config

    before = config.values()
    yield
    for name, value in before.items():
        if config.read(name) != value:
            config.update(name, value)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_samples_run(page, capsys, config_restored):
    namespace = {"__name__": f"docs_{page.stem}"}
    for line, source in samples.python_blocks(page.read_text()):
        code = compile(source, f"{page.relative_to(ROOT)}:{line}", "exec")
        exec(code, namespace)


def test_samples_found_in_pages():
    """The pages meant to teach by example have runnable samples (a changed fence would
    silently drop them from the test above)."""
    for name in ["index.md", "jax-users.md", "memory-and-dispatch.md", "debugging.md"]:
        assert samples.python_blocks((ROOT / "docs" / name).read_text()), name


def test_support_table_lists_every_jax_name():
    from jaxwg._jax_names import JAX_NAMES

    support_table = _load_tool("support_table")
    present, missing = support_table.module_rows("jaxwg.numpy")
    assert len(present) + len(missing) == len(JAX_NAMES["jaxwg.numpy"])
    assert "[`sum`][jaxwg.numpy.sum] | Sum over `axis`" in "\n".join(
        f"{label} | {summary}" for label, summary in present)
    import jaxwg.numpy as jnp

    for name in missing:
        assert name not in vars(jnp)
    table = support_table.markdown()
    assert all(f"### `{module}`" in table for module in JAX_NAMES)
