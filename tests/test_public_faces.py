"""Public faces instead of reach-ins (issue 27 item 4): no module of ``engine/`` or ``gui/``
imports another's private name (``from engine.files import _dump``), and none reads the
private parts the issue named of another file's objects (``Tactics._cover_memo``, ``_obs``,
``_pos``, ``_xy``; ``Graph._part``; uvtt's ``_short``). A script over the source, as
tests/test_one_door.py is: a new one fails."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the private names the issue found read across files
NAMED = frozenset({"_cover_memo", "_obs", "_pos", "_xy", "_part", "_short"})


def _sources():
    for top in ("engine", "gui"):
        for path in sorted((ROOT / top).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def private_imports() -> list[str]:
    out = []
    for name, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                out += [f"{name}:{node.lineno} {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def named_reach_ins() -> list[str]:
    """Reads of :data:`NAMED` on anything but ``self`` / ``cls`` or a value of the same file's
    own making (``out = copy.copy(self)``, ``previous`` of the same class) in a file that
    does not define that name itself."""
    out = []
    for name, tree in _sources():
        own = {t.attr for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
               if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
        own |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in NAMED and node.attr not in own:
                out.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return out


def test_no_module_imports_another_modules_private_name():
    assert private_imports() == []


def test_no_file_reaches_into_the_private_parts_the_issue_named():
    assert named_reach_ins() == []
