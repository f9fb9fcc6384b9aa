"""macOS: Finder opens a file with Coverfire (a double-click on an encounter, a map dropped
on the Dock icon, Open With) by sending the running program a ``QFileOpenEvent``, not by
passing the file on the command line. :class:`FileOpenFilter`, installed on the
``QApplication``, opens each such file as ``coverfire FILE`` would (:func:`gui.launch.open_target`:
an encounter opened, a map imported, a character placed); one that comes before the window
is made is kept until :meth:`FileOpenFilter.attach` gives it the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject


class FileOpenFilter(QObject):
    """An event filter for the application: takes its ``FileOpen`` events."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = None
        self.demo: Path | None = None
        self.pending: list[Path] = []
        self.opened: list[Path] = []

    def attach(self, window, demo: Path) -> None:
        """From now on open files in ``window`` (``demo``: what to show when one cannot be
        opened); the files that came before are opened now, in order."""
        self.window, self.demo = window, demo
        pending, self.pending = self.pending, []
        for path in pending:
            self._open(path)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FileOpen:
            name = event.file() or event.url().toLocalFile()
            if name:
                path = Path(name)
                if self.window is None:
                    self.pending.append(path)
                else:
                    self._open(path)
                return True
        return super().eventFilter(obj, event)

    def _open(self, path: Path) -> None:
        from gui.launch import open_target

        open_target(self.window, path, self.demo or path)
        self.opened.append(path)
        try:
            self.window.raise_()
            self.window.activateWindow()
        except RuntimeError:  # (the window is gone)
            pass
