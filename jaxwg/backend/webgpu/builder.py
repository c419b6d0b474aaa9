"""WgslBuilder: assembles a WGSL shader line by line.

Templates emit lines into a builder; it keeps the indentation and collects the
helper functions (from `builtins`) that the emitted code asked for, so that the
preamble of a shader holds exactly the helpers it uses, each once, in dependency
order. The finished text is the pipeline cache key, so it must be deterministic.

>>> b = WgslBuilder()
>>> b.emit("fn main() {")
>>> with b.indent():
...     b.emit("let x = 1;")
>>> b.emit("}")
>>> print(b.source())
fn main() {
  let x = 1;
}
"""

from __future__ import annotations

from contextlib import contextmanager

from . import builtins


class WgslBuilder:
    """Lines of WGSL with indentation, plus the set of helpers they need."""

    def __init__(self):
        self.lines: list[str] = []
        self.enables: set[str] = set()
        self.helpers: list[str] = []
        self._indent = 0
        self._names = 0

    def emit(self, *lines: str) -> None:
        for line in lines:
            self.lines.append("  " * self._indent + line if line else "")

    @contextmanager
    def indent(self):
        self._indent += 1
        try:
            yield
        finally:
            self._indent -= 1

    def fresh(self, prefix: str) -> str:
        """A new name, unique in this shader: every codegen emitting into it shares one
        count, so two of them never `let` the same temporary in one scope."""
        self._names += 1
        return f"{prefix}{self._names - 1}"

    def need(self, helper: str) -> None:
        """Ask for a helper function (a key of `builtins.HELPERS`), and its dependencies."""
        if helper in self.helpers:
            return
        for dep in builtins.HELPERS[helper].deps:
            self.need(dep)
        self.helpers.append(helper)

    def enable(self, extension: str) -> None:
        """Add an `enable` directive (e.g. "f16")."""
        self.enables.add(extension)

    def source(self) -> str:
        return assemble(self.enables, self.helpers, self.lines)


def assemble(enables, helpers, lines) -> str:
    """A shader's text: its `enable` directives, the code of its helpers (names in
    `builtins.HELPERS`, dependencies first), then its own lines."""
    head = [f"enable {e};" for e in sorted(enables)]
    return "\n".join([*head, *(builtins.HELPERS[h].code for h in helpers), *lines])
