"""What ``coverfire FILE`` opens, by the file's kind (:func:`gui.drop.kind_of_file`, as a
file dropped on the window): the desktop entry passes whatever the file manager was asked to
open with Coverfire (``Exec=coverfire %f``).

* an encounter (``.json``, ``.coverfire.json``, anything else): opened as it is;
* a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``) or a Foundry scene: imported as a
  new, unsaved encounter, at the remembered scale (File > Import Map asks it);
* a Chummer save (``.chum5``, ``.chum5lz``): the demo opens and the character waits for a
  click on the map.
"""

from __future__ import annotations

from pathlib import Path


def open_target(win, target: Path, demo: Path) -> None:
    """Open ``target`` in the main window ``win``, falling back to ``demo`` when it cannot
    be opened (the window then shows why)."""
    from gui.drop import kind_of_file

    kind = kind_of_file(target) if target.is_file() else None
    importing = getattr(win, "importing", None)
    if importing is not None and kind in ("map", "foundry", "character"):
        win.open_file(demo, ask=False)
        if kind == "character":
            importing.import_character(target, click=True)
        else:
            importing.import_map(target)
        return
    if not win.open_file(target, ask=False) and target != demo:
        win.open_file(demo, ask=False)
