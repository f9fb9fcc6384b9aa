"""Saving whatever the file on disk is: a link, read-only, a long name, a full disk, leftovers
of a killed save (engine/files.py)."""

from __future__ import annotations

import errno
import json
import os
import time

import pytest

from engine.errors import EncounterFileError, ReadOnlyFileError
from engine.files import FileStamp, clean_stale_temps, load_encounter, loads_encounter, save_encounter

DATA = {"format": "coverfire.encounter", "version": 1, "name": "Saving",
        "map": {"width": 20.0, "height": 10.0}, "tokens": [{"id": "a", "x": 1.0, "y": 2.0}]}


def _enc(name="Saving"):
    return loads_encounter(json.dumps(dict(DATA, name=name)))


def test_saving_through_a_symlink_writes_the_real_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "real" / "enc.json"
    real.parent.mkdir()
    save_encounter(_enc("old"), real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_encounter(_enc("new"), link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_encounter(real).name == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["enc.json"]  # no temp left


def test_a_read_only_file_is_not_overwritten_without_a_word(tmp_path):
    p = tmp_path / "enc.json"
    save_encounter(_enc("old"), p)
    p.chmod(0o444)
    with pytest.raises(ReadOnlyFileError, match="read-only.*Save As"):
        save_encounter(_enc("new"), p)
    assert load_encounter(p).name == "old"
    save_encounter(_enc("new"), p, overwrite_read_only=True)  # the GM said yes
    assert load_encounter(p).name == "new"
    assert p.stat().st_mode & 0o777 == 0o444  # and it stays read-only


def test_a_name_of_250_characters_saves(tmp_path):
    p = tmp_path / ("n" * 250 + ".json")
    save_encounter(_enc(), p)
    assert load_encounter(p).name == "Saving"
    assert [q.name for q in tmp_path.iterdir()] == [p.name]


def test_leftover_temp_files_of_a_killed_save_are_removed_on_the_next_save(tmp_path):
    p = tmp_path / "enc.json"
    save_encounter(_enc("old"), p)
    # what a save killed between writing and renaming leaves: a temp of a pid now gone ...
    from engine.files import _temp_prefix

    dead = tmp_path / f"{_temp_prefix(p)}999999999-abcd1234.tmp"
    dead.write_text("half")
    legacy = tmp_path / ".enc.json.k3j4h5g6.tmp"  # ... and the older pid-less form
    legacy.write_text("half")
    old = time.time() - 120
    os.utime(legacy, (old, old))
    other = tmp_path / ".other.json.k3j4h5g6.tmp"  # another file's temp is not touched
    other.write_text("x")
    os.utime(other, (old, old))
    save_encounter(_enc("new"), p)
    assert sorted(q.name for q in tmp_path.iterdir()) == [".other.json.k3j4h5g6.tmp", "enc.json"]
    assert clean_stale_temps(p) == []


def test_a_temp_file_of_a_live_writer_is_kept(tmp_path):
    from engine.files import _temp_prefix

    p = tmp_path / "enc.json"
    live = tmp_path / f"{_temp_prefix(p)}1-abcd1234.tmp"  # pid 1 is running
    live.write_text("being written")
    assert clean_stale_temps(p) == []
    assert clean_stale_temps(p, now=time.time() + 7200) == [live]  # unless an hour old


@pytest.mark.parametrize("where", ["write", "replace"])
def test_a_full_disk_says_so_and_keeps_the_old_file(tmp_path, monkeypatch, where):
    p = tmp_path / "enc.json"
    save_encounter(_enc("old"), p)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "write":
        monkeypatch.setattr(os, "fsync", full)
    else:
        monkeypatch.setattr(os, "replace", full)
    with pytest.raises(EncounterFileError, match="the disk is full"):
        save_encounter(_enc("new"), p)
    monkeypatch.undo()
    assert load_encounter(p).name == "old"
    assert [q.name for q in tmp_path.iterdir()] == ["enc.json"]


def test_a_lone_surrogate_that_slipped_past_the_model_is_an_error_not_a_traceback(tmp_path):
    enc = _enc().model_copy(update={"name": "half \ud83d"})  # model_copy skips validation
    p = tmp_path / "enc.json"
    with pytest.raises(EncounterFileError, match="broken character"):
        save_encounter(enc, p)
    assert not p.exists() and list(tmp_path.iterdir()) == []


def test_a_file_stamp_tells_a_changed_file(tmp_path):
    p = tmp_path / "enc.json"
    save_encounter(_enc("old"), p)
    stamp = FileStamp.of(p)
    assert stamp is not None and stamp.same_content(FileStamp.of(p))
    save_encounter(_enc("changed"), p)
    assert not stamp.same_content(FileStamp.of(p))
    assert FileStamp.of(tmp_path / "missing.json") is None


def test_opening_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    from tests.opens import OpenWatch

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with OpenWatch(fifo) as watch:
        with pytest.raises(EncounterFileError, match="not a regular file"):
            load_encounter(fifo)  # (reading it would wait for a writer forever)
        assert watch.opens() == 0  # refused from its type, never opened (the kernel says)
    with pytest.raises(EncounterFileError, match="not a regular file"):
        load_encounter("/dev/null")
    with pytest.raises(EncounterFileError, match="folder"):
        load_encounter(tmp_path)


def test_a_long_name_saves_with_its_inline_images_beside_it(tmp_path):
    """A 240-character encounter name and a 900-character token id: the image files written
    beside the encounter get short names (cut, with a hash) and the whole reloads."""
    import base64

    from engine.importers.images import save_with_images
    from tests.fuzz.mutate import png

    uri = "data:image/png;base64," + base64.b64encode(png(4, 3)).decode()
    long_id = "é" * 900
    data = dict(DATA, map={"width": 20.0, "height": 10.0,
                           "background": {"image": uri, "width": 20.0, "height": 10.0}},
                tokens=[{"id": long_id, "x": 1.0, "y": 2.0, "portrait": uri},
                        {"id": long_id[:-1] + "a", "x": 3.0, "y": 2.0, "portrait": uri}])
    enc = loads_encounter(json.dumps(data))
    target = tmp_path / ("n" * 240 + ".json")
    saved, written = save_with_images(enc, target)
    assert len(written) == 3 and len(set(written)) == 3  # two portraits cut alike still differ
    assert all(len(os.fsencode(w)) <= 255 for w in written)
    back = load_encounter(target)
    assert back == saved and (tmp_path / back.map.background.image).read_bytes() == png(4, 3)
