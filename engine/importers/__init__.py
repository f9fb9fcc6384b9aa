"""Importers for files GMs already have: Universal VTT maps, Foundry VTT scenes and Chummer5a
characters.

- :func:`engine.importers.detect.import_file` (path, ...) -> Imported: the one entry point;
  :func:`engine.importers.detect.sniff` says what any file is
- :func:`engine.importers.uvtt.import_uvtt` (path, cell size) -> (Encounter, ImportReport)
- :func:`engine.importers.foundry.import_foundry` (path, cell size, scene) -> (Encounter, ImportReport)
- :func:`engine.importers.chummer.import_chummer` (path, side, at) -> (Token, ImportReport)
- :func:`engine.importers.chummer.add_character` puts an imported token into an encounter
- :func:`engine.importers.images.save_with_images` saves an encounter and writes its
  in-memory images (map background, portraits) beside it

Each returns an :class:`~engine.importers.report.ImportReport` saying what was imported,
what went wrong and what the file holds that Coverfire does not model. See docs/importing.md.
"""

from engine.importers.report import ImportIssue, ImportReport

__all__ = ["ImportIssue", "ImportReport"]
