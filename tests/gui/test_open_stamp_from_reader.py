"""The file an encounter is opened from is stamped by its reader from the bytes it read
(``load_encounter(stamps=...)``; the reader process sends the stamp with the encounter): the
window no longer reads a big file a second time to hash it in the open's turn. The stamp is
the file's as read, so a change made after the read is still told at the next save."""

from __future__ import annotations

import hashlib
import json

from engine.files import FileStamp, load_encounter
from gui import load_process

DATA = {"format": "coverfire.encounter", "version": 1, "name": "Stamped",
        "map": {"width": 20.0, "height": 10.0}, "tokens": [{"id": "a", "x": 1.0, "y": 2.0}]}


def test_the_stamp_of_the_bytes_read_is_the_files(tmp_path):
    p = tmp_path / "enc.json"
    text = json.dumps(DATA)
    p.write_text(text, encoding="utf-8")
    stamps: list = []
    enc = load_encounter(p, stamps=stamps)
    assert enc.name == "Stamped" and len(stamps) == 1
    (stamp,) = stamps
    assert stamp.size == len(text.encode()) and stamp.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert stamp.same_content(FileStamp.of(p))
    # the reader's request answers with it, as the process sends it
    got, extras = load_process.perform("open", str(p))
    assert got.name == "Stamped" and extras["stamp"].same_content(stamp)


def test_a_window_opening_a_file_keeps_the_readers_stamp_and_reads_it_once(window, tmp_path, monkeypatch):
    from engine.files import save_encounter

    p = tmp_path / "opened.coverfire.json"
    save_encounter(window.document.encounter, p)
    stamped = []
    real = FileStamp.of
    monkeypatch.setattr(FileStamp, "of", classmethod(lambda cls, path: stamped.append(path) or real(path)))
    assert window.document.open(p)
    assert stamped == []  # (stamped by the reader: not read again here)
    assert not window.document.changed_on_disk()
    # another program changes the file after it was read: told (the stamp is of the read)
    p.write_text(p.read_text(encoding="utf-8").replace('"name"', '"name" ', 1), encoding="utf-8")
    assert window.document.changed_on_disk()
