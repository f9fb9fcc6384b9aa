"""The window's writes and other writers (issue 25 items 6 and 7): Save holds the file's lock
while it checks and writes (a ``coverfire import-character --into`` at the same moment waits,
then re-reads); Save As, export and a snapshot bundle refuse a pipe, a device or a link to
one with a message naming it, and open nothing (a FIFO opened to write would hang the test)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine import clock
from engine.errors import CoverfireError
from engine.files import load_encounter, lock_path, save_encounter
from gui import document as document_module

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
HOLDER = textwrap.dedent("""
    import sys
    from engine.files import file_lock
    with file_lock(sys.argv[1]):
        print("held", flush=True)
        sys.stdin.read()
""")


@pytest.fixture
def own_file(window, tmp_path):
    p = tmp_path / "fight.coverfire.json"
    save_encounter(window.document.encounter, p)
    assert window.open_file(p, ask=False)
    return p


def _rename(window, name):
    window.document.commit(window.document.encounter.model_copy(update={"name": name}), "rename")


def _warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    return shown


def test_save_holds_the_files_lock_while_it_writes(window, own_file, monkeypatch):
    seen = []
    real = document_module.save_encounter

    def spy(value, target, **kw):
        seen.append(lock_path(target).exists())
        return real(value, target, **kw)

    monkeypatch.setattr(document_module, "save_encounter", spy)
    _rename(window, "locked")
    assert window.save()
    assert seen == [True] and not lock_path(own_file).exists()
    assert load_encounter(own_file).name == "locked"


def test_save_waits_for_another_writer_then_says_it_is_busy(window, own_file, monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(own_file)], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        shown = _warnings(monkeypatch)
        _rename(window, "mine")
        with clock.using(clock.ManualClock(step=1.0)):  # (each look at the lock: a second)
            assert not window.save()
        title, text = shown[0]
        assert title == "Cannot save" and str(own_file) in text and "another Coverfire" in text
        assert window.document.dirty and load_encounter(own_file).name != "mine"
    finally:
        holder.stdin.close()
        holder.wait()
        holder.stdout.close()
    assert window.save() and load_encounter(own_file).name == "mine"


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe.coverfire.json"
    os.mkfifo(p)
    return p


@pytest.mark.timeout(120)
def test_save_as_a_fifo_or_a_link_to_a_device_is_refused_naming_it(window, own_file, fifo, tmp_path, monkeypatch):
    link = tmp_path / "null.coverfire.json"
    link.symlink_to(os.devnull)
    _rename(window, "kept")
    for target, what in ((fifo, "a pipe (FIFO)"), (link, f"a link to {os.devnull}, a device")):
        shown = _warnings(monkeypatch)
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, t=target, **k: (str(t), "")))
        assert not window.save_as()
        title, text = shown[0]
        assert title == "Cannot save" and text.startswith(f"{target}: this is {what}"), text
        assert window.document.dirty and window.document.path == own_file
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)
    assert not fifo.is_file() and load_encounter(own_file).name != "kept"


@pytest.mark.timeout(120)
def test_a_snapshot_bundle_or_an_export_into_a_fifo_is_refused_before_any_work(window, fifo, tmp_path):
    from gui.export import save_bundle
    from gui.snapshot import Snapshot, SnapshotSpec

    png = tmp_path / "shot.png"
    os.mkfifo(png)
    with pytest.raises(CoverfireError, match=f"^{png}: this is a pipe"):
        save_bundle(window.document.committed, png)
    with pytest.raises(CoverfireError, match=f"^{png}: this is a pipe"):
        with Snapshot(window.document.committed, SnapshotSpec()) as snap:
            snap.write(png)
    assert not png.is_file() and not (tmp_path / "shot.json").exists()
