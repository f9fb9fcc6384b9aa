"""What ``coverfire FILE`` opens, by the file's kind: the desktop entry passes whatever the
file manager was asked to open with Coverfire (``Exec=coverfire %f``).

* an encounter (``.json``, ``.coverfire.json``, anything else): opened as it is;
* a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``): imported as a new, unsaved
  encounter, at the remembered scale (File > Import Map asks it);
* a Chummer save (``.chum5``): the demo opens and the character waits for a click on the map.
"""

from __future__ import annotations

from pathlib import Path

MAP_SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")
CHARACTER_SUFFIXES = (".chum5",)


def open_target(win, target: Path, demo: Path) -> None:
    """Open ``target`` in the main window ``win``, falling back to ``demo`` when it cannot
    be opened (the window then shows why)."""
    suffix = target.suffix.lower()
    importing = getattr(win, "importing", None)
    if importing is not None and suffix in MAP_SUFFIXES + CHARACTER_SUFFIXES:
        win.open_file(demo, ask=False)
        if suffix in MAP_SUFFIXES:
            importing.import_map(target)
        else:
            importing.import_character(target, click=True)
        return
    if not win.open_file(target, ask=False) and target != demo:
        win.open_file(demo, ask=False)
