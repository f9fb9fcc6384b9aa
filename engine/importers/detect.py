"""One entry point for every file a GM may hand Coverfire: what is it, and import it.

:func:`sniff` looks at a file (its first bytes, its JSON keys, the folder it sits in) and
says what it is: a Universal VTT map, a Foundry scene or scenes.db, a Chummer save -- or,
for everything else, what it looks like ("this is a Foundry actor, not a scene", "this is a
Coverfire encounter: open it with File > Open"). :func:`import_file` imports a map or a
character by what :func:`sniff` found; the window's drag-and-drop and File > Import call it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import limits
from engine.errors import ImportFileError
from engine.importers import uvtt
from engine.importers.report import ImportReport
from engine.model import Encounter, Token

#: Bytes read to tell what a file is (JSON files are parsed whole only once it is known).
HEAD_BYTES = 1 << 20
#: Names of the files in a Foundry v11+ world's LevelDB folders.
LEVELDB_NAMES = ("CURRENT", "LOCK", "LOG", "LOG.old")

MAP_KINDS = ("uvtt", "foundry")
CHARACTER_KINDS = ("chummer",)


@dataclass(frozen=True)
class FileKind:
    """What a file is: ``kind`` one of ``uvtt``, ``foundry``, ``chummer`` (importable) or
    ``other``; ``what`` says so in a sentence (for ``other``: what it looks like and what to
    do instead)."""

    kind: str
    what: str

    @property
    def importable(self) -> bool:
        return self.kind in MAP_KINDS + CHARACTER_KINDS

    @property
    def is_map(self) -> bool:
        return self.kind in MAP_KINDS


@dataclass(frozen=True)
class Imported:
    """What :func:`import_file` made: a map (``encounter``) or a character (``token``), with
    the import report and the :class:`FileKind` it was read as."""

    kind: FileKind
    report: ImportReport
    encounter: Encounter | None = None
    token: Token | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _is_leveldb(p: Path) -> bool:
    folder = p if p.is_dir() else p.parent
    try:
        names = {q.name for q in folder.iterdir()} if folder.is_dir() else set()
    except OSError:
        return False
    return "CURRENT" in names and any(n.startswith("MANIFEST-") for n in names)


def sniff(path: str | Path) -> FileKind:
    """What the file at ``path`` is (never raises for a readable file; a missing one is
    ``other`` with the reason)."""
    p = Path(path)
    if _is_leveldb(p):
        return FileKind("other", "this is a Foundry VTT v11+ world database (LevelDB), which Coverfire cannot read: "
                                 "in Foundry, right-click the scene, choose Export Data and import that .json file")
    if p.is_dir():
        if (p / "world.json").is_file():
            return FileKind("other", "this is a Foundry world folder: import its data/scenes.db (Foundry up to v10) or "
                                     "a scene exported as JSON (Export Data)")
        return FileKind("other", "this is a folder, not a file")
    if p.exists() and not p.is_file():  # never block on a FIFO, a device or /dev/stdin
        return FileKind("other", "this is not a regular file (a pipe, socket or device)")
    try:
        with p.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        return FileKind("other", f"cannot be read: {exc.strerror or exc}")
    if not head:
        return FileKind("other", "the file is empty")
    return _by_content(p, head)


def _by_content(p: Path, head: bytes) -> FileKind:
    suffix = p.suffix.lower()
    text_head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:4] in (b"\x89PNG", b"GIF8") or head[:3] == b"\xff\xd8\xff" or (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
        return FileKind("other", "this is a picture, not a map with walls: open an encounter and set it as the "
                                 "map's background, or export the map from its program as Universal VTT (.dd2vtt)")
    if head[:4] == b"PK\x03\x04":
        return FileKind("other", "this is a ZIP archive: unpack it and import the map or scene inside")
    if suffix == ".chum5lz" or (text_head.startswith(b"<") and b"<character" in head[:65536]):
        return FileKind("chummer", "a Chummer5a character save")
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            decoded = head.decode("utf-16")
        except UnicodeDecodeError:
            decoded = ""
        if "<character" in decoded[:65536]:
            return FileKind("chummer", "a Chummer5a character save")
    if text_head.startswith(b"<"):
        if b"<svg" in head[:4096]:
            return FileKind("other", "this is an SVG picture, not a map with walls")
        return FileKind("other", "this is an XML file but not a Chummer character save (no <character>)")
    if suffix == ".chum5":
        return FileKind("chummer", "a Chummer5a character save")
    if not text_head.startswith((b"{", b"[")):
        try:
            json.loads(head.decode("utf-8-sig"))
            return FileKind("other", "this JSON holds a single value, not a map")
        except (ValueError, RecursionError):
            pass
        if suffix in (".ldb", ".log") or p.name in LEVELDB_NAMES or p.name.startswith("MANIFEST-"):
            return FileKind("other", "this is part of a Foundry v11+ world database (LevelDB): export the scene as "
                                     "JSON from Foundry (Export Data) and import that file")
        return FileKind("other", "this is neither a map (Universal VTT, Foundry scene) nor a Chummer save: "
                                 "it is not JSON or XML")
    return _by_json(p, head)


def _first_doc(p: Path, head: bytes) -> tuple[Any, bool]:
    """(the parsed JSON, whether the file is line-delimited), parsing only what is needed."""
    try:
        raw = p.read_bytes() if len(head) >= HEAD_BYTES else head
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None, False
    limits.check_json_items(text, file=str(p), error=ImportFileError)  # (bounded before parsing)
    try:
        return limits.parse_json(text), False
    except (ValueError, RecursionError):
        pass
    # NeDB: the first document line; index lines ($$indexCreated) and deletions are none.
    first = None
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError):
            return (first, True) if first is not None else (None, False)
        if isinstance(doc, dict) and (doc.get("$$deleted") is True or "$$indexCreated" in doc
                                      or "$$indexRemoved" in doc):
            first = doc if first is None else first
            continue
        return doc, True
    return (first, True) if first is not None else (None, False)


def _by_json(p: Path, head: bytes) -> FileKind:
    from engine.importers.foundry import is_scene

    doc, lines = _first_doc(p, head)
    if doc is None:
        return FileKind("uvtt", "a Universal VTT map") if p.suffix.lower() in (".dd2vtt", ".uvtt", ".df2vtt") else \
            FileKind("other", "the JSON cannot be parsed (import it as a map to see where it breaks)")
    if lines:
        if is_scene(doc):
            return FileKind("foundry", "a Foundry VTT scenes.db (one scene a line)")
        return FileKind("other", f"this is a Foundry database of {_what_doc(doc, plural=True)}, not scenes: "
                                 "import the world's data/scenes.db")
    if isinstance(doc, list):
        if any(is_scene(d) for d in doc[:100]):
            return FileKind("foundry", "a Foundry scene list")
        return FileKind("other", "this is a JSON list, not a map")
    if not isinstance(doc, dict):
        return FileKind("other", "this JSON holds a single value, not a map")
    if "resolution" in doc and ("line_of_sight" in doc or "image" in doc or "portals" in doc):
        return FileKind("uvtt", "a Universal VTT map")
    if is_scene(doc):
        return FileKind("foundry", "a Foundry VTT scene (Export Data)")
    if doc.get("format") == "coverfire.encounter":
        return FileKind("other", "this is a Coverfire encounter already: open it with File > Open")
    if "walls" in doc and not ("width" in doc and "height" in doc):
        return FileKind("other", "this is a walls-only file (a Dungeon Alchemist walls file or a Foundry module's "
                                 "walls export), not supported: it has no map size or grid; export the map as "
                                 "Universal VTT (.dd2vtt) or as a Foundry scene instead")
    what = _what_doc(doc)
    if what:
        return FileKind("other", f"this is {what}, not a scene or map")
    if "resolution" in doc:
        return FileKind("uvtt", "a Universal VTT map")
    if p.suffix.lower() in (".dd2vtt", ".uvtt", ".df2vtt"):
        return FileKind("uvtt", "a Universal VTT map")
    return FileKind("other", "this JSON is neither a Universal VTT map (no \"resolution\") nor a Foundry scene "
                             "(no walls, size and grid)")


def _what_doc(doc: Any, plural: bool = False) -> str:
    """What a Foundry-ish JSON document is, in words ("" when it is none of those)."""
    if not isinstance(doc, dict):
        return ""
    if "prototypeToken" in doc or ("token" in doc and "items" in doc and "type" in doc):
        return "actors" if plural else "a Foundry actor (a character sheet)"
    if "coreVersion" in doc or ("compatibility" in doc and "system" in doc and "title" in doc):
        return "worlds" if plural else "a Foundry world's world.json (its scenes are in data/scenes.db)"
    if "esmodules" in doc or "scripts" in doc and "title" in doc:
        return "packages" if plural else "a Foundry module or system manifest"
    if "pages" in doc or ("content" in doc and "name" in doc and "folder" in doc):
        return "journal entries" if plural else "a Foundry journal entry"
    if "results" in doc and "formula" in doc:
        return "roll tables" if plural else "a Foundry roll table"
    if "type" in doc and ("system" in doc or "data" in doc) and "name" in doc:
        return "items" if plural else "a Foundry item"
    if "playing" in doc and "sounds" in doc:
        return "playlists" if plural else "a Foundry playlist"
    return "documents" if plural else ""


def import_file(path: str | Path, *, cell_size: float = uvtt.DEFAULT_CELL_SIZE,
                object_height: float = uvtt.OBJECT_HEIGHT, window_sill: float = uvtt.WINDOW_SILL,
                scene: str | int | None = None, side: str = "runner",
                expect: str | None = None) -> Imported:
    """Import whatever ``path`` is: a Universal VTT map or a Foundry scene (an encounter,
    ``cell_size`` metres a cell where the file does not say), or a Chummer save (a token,
    placed later with :func:`engine.importers.placing.add_character`). ``expect`` "map" or
    "character" refuses the other kind with a message that says what the file is. Raises
    :class:`ImportFileError` for a file that is neither, saying what it looks like."""
    p = Path(path)
    if not p.exists() and not _is_leveldb(p):
        raise ImportFileError("no such file", file=str(p))
    k = sniff(p)
    if not k.importable:
        raise ImportFileError(k.what, file=str(p))
    if expect == "map" and not k.is_map:
        raise ImportFileError(f"this is {k.what}, not a map: use Import Character (import-character)", file=str(p))
    if expect == "character" and k.is_map:
        raise ImportFileError(f"this is {k.what}, not a character: use Import Map (import-map)", file=str(p))
    if k.kind == "uvtt":
        enc, rep = uvtt.import_uvtt(p, cell_size, object_height=object_height, window_sill=window_sill)
        return Imported(k, rep, encounter=enc)
    if k.kind == "foundry":
        from engine.importers.foundry import import_foundry

        enc, rep = import_foundry(p, cell_size, scene=scene, window_sill=window_sill)
        return Imported(k, rep, encounter=enc)
    from engine.importers.chummer import import_chummer

    token, rep = import_chummer(p, side=side)
    return Imported(k, rep, token=token)


# -- command line -------------------------------------------------------------------------------


def run_import_map(args) -> int:
    """``coverfire import-map FILE -o ENCOUNTER.json [--cell-size METRES] [--scene NAME]
    [--window-sill METRES]``: import a Universal VTT map or a Foundry scene, write the
    encounter and its background beside it, print the report."""
    from engine.importers import images

    cell = args.cell_size if getattr(args, "cell_size", None) is not None else uvtt.DEFAULT_CELL_SIZE
    sill = args.window_sill if getattr(args, "window_sill", None) is not None else uvtt.WINDOW_SILL
    result = import_file(args.file, cell_size=cell, window_sill=sill, scene=getattr(args, "scene", None), expect="map")
    _saved, written = images.save_with_images(result.encounter, args.output)
    for line in result.report.lines():
        print(line)
    print(f"Wrote {args.output}" + (" and " + ", ".join(written) if written else ""))
    return 0


def run_import_character(args) -> int:
    """``coverfire import-character FILE.chum5 --into ENCOUNTER.json [--side S] [--at X Y]``:
    add the character to the encounter and save it (atomically, portrait beside it), holding
    the file's lock from reading it again to writing it (:func:`engine.files.file_lock`)."""
    from engine.files import file_lock, load_encounter
    from engine.importers import images
    from engine.importers.chummer import import_chummer
    from engine.importers.placing import add_character, placement_problem

    kind = sniff(args.file)
    if kind.kind != "chummer" and Path(args.file).exists():
        what = kind.what if kind.kind == "other" else f"this is {kind.what}, not a character: use import-map"
        raise ImportFileError(what, file=str(args.file))
    load_encounter(args.into)  # (a bad --into is said before the character is read)
    at = tuple(args.at) if getattr(args, "at", None) else None
    token, report = import_chummer(args.file, side=args.side or "runner", at=at)
    with file_lock(args.into):  # one writer at a time; re-read under the lock: no import lost
        encounter, placed = add_character(load_encounter(args.into), token, at=at)
        problem = placement_problem(encounter, placed.x, placed.y, placed.radius, ignore=placed.id) if at else None
        _saved, written = images.save_with_images(encounter, args.into)
    for line in report.lines():
        print(line)
    if problem:
        print(f"Warning: {problem}; move it on the map (or give another --at)")
    print(f"Added {placed.name!r} as {placed.id!r} at ({placed.x:g}, {placed.y:g}) to {args.into}"
          + (" and wrote " + ", ".join(written) if written else ""))
    return 0
