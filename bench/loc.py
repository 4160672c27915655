"""Count lines of code: ``python bench/loc.py [DIR] [--top N]``.

A line counts when it holds a token other than a comment, a line break, indentation or part
of a docstring (the string that opens a module, class or function). Prints the total and the
largest modules by that count.
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from pathlib import Path

_LAYOUT = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    owners = [tree, *(node for node in ast.walk(tree) if _has_body(node))]
    for owner in owners:
        body = getattr(owner, "body", [])
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            end = first.end_lineno or first.lineno
            lines.update(range(first.lineno, end + 1))
    return lines


def _has_body(node: ast.AST) -> bool:
    return isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)


def count(source: str) -> int:
    """The lines of ``source`` that carry code."""
    docstrings = _docstring_lines(ast.parse(source))
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _LAYOUT:
            continue
        code.update(range(token.start[0], token.end[0] + 1))
    return len(code - docstrings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default="mymcp")
    parser.add_argument("--top", type=int, default=10)
    options = parser.parse_args()
    root = Path(options.root)
    sizes = {
        str(path.relative_to(root)): count(path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*.py"))
    }
    print(f"{sum(sizes.values())} lines of code in {len(sizes)} modules under {root}")
    for name, lines in sorted(sizes.items(), key=lambda item: -item[1])[: options.top]:
        print(f"{lines:6d}  {name}")


if __name__ == "__main__":
    main()
