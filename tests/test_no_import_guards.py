"""Dead code out (issue 27 item 5): no ``try: import X / except ImportError`` in ``engine/`` or
``gui/``: a module the program needs is there, and a missing one fails loudly (a platform's
own absence is said by ``sys.platform``, not by catching the import)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def import_guards() -> list[str]:
    out = []
    for path in sorted([*(ROOT / "engine").rglob("*.py"), *(ROOT / "gui").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Try) and any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in node.body):
                caught = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
                if caught & {"ImportError", "ModuleNotFoundError"}:
                    out.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    return out


def test_no_import_is_guarded():
    assert import_guards() == []
