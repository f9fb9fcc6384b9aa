"""Writers of one file, and names that are not files (issue 25 items 6 and 7).

* Two ``coverfire import-character --into F`` at once lost one character every time: writers
  of an encounter file now take its lock (:func:`engine.files.file_lock`) and re-read under
  it. Real processes, released together, each add a different character; every one is there.
* ``import-map -o FIFO``, ``export -o`` a device or a link to one: every write refuses what is
  not a regular file nor a new name, naming it, and opens nothing (a FIFO opened to write
  would wait for a reader forever: these tests would hang, under their timeout, if it did).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine import clock
from engine.errors import EncounterFileError, FileBusyError, NotAFileError
from engine.files import (atomic_write_bytes, file_lock, load_encounter, lock_path, loads_encounter,
                          save_encounter, writable_target)
from tests.engine.importers.test_chummer_saves import _save

ROOT = Path(__file__).resolve().parents[2]
DATA = {"format": "coverfire.encounter", "version": 2, "name": "Writers",
        "map": {"width": 30.0, "height": 30.0}, "tokens": [{"id": "gm", "name": "Guard", "x": 1.0, "y": 1.0}]}
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
           QT_QPA_PLATFORM="offscreen")
#: The CLI, imported, then held until its standard input closes: processes released together.
GATED = textwrap.dedent("""
    import sys
    from gui.cli import main
    import engine.importers.chummer, engine.importers.detect, engine.importers.images  # (before the gate)
    sys.stdin.read()
    sys.exit(main(sys.argv[1:]))
""")


def _enc(name="Writers"):
    return loads_encounter(json.dumps(dict(DATA, name=name)))


def _character(tmp_path: Path, alias: str) -> Path:
    p = tmp_path / f"{alias}.chum5"
    p.write_text(_save().replace("<alias>Tess</alias>", f"<alias>{alias}</alias>"), encoding="utf-8")
    return p


# -- item 6: one writer at a time ------------------------------------------------------------------
@pytest.mark.timeout(600)
def test_import_characters_at_once_into_one_file_keeps_every_one(tmp_path):
    aliases = ["Ash", "Birch", "Cedar", "Dogwood"]
    saves = [_character(tmp_path, a) for a in aliases]
    target = tmp_path / "fight.json"
    for round_ in range(3):
        save_encounter(_enc(f"round {round_}"), target)
        procs = [subprocess.Popen([sys.executable, "-c", GATED, "import-character", str(s), "--into", str(target)],
                                  cwd=tmp_path, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for s in saves]
        for p in procs:  # all go at once (each already past its imports)
            p.stdin.close()
        outs = [(p.wait(), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        for code, out, err in outs:
            assert code == 0 and "Traceback" not in err, (out, err)
        names = sorted(t.name for t in load_encounter(target).tokens)
        assert names == sorted(["Guard", *aliases]), f"round {round_}: {names}"
        assert sorted(q.name for q in tmp_path.iterdir() if q.name.startswith(".")) == []  # no lock left


HOLDER = textwrap.dedent("""
    import sys
    from engine.files import file_lock
    with file_lock(sys.argv[1]):
        print("held", flush=True)
        sys.stdin.read()
""")


def _hold_lock(path: Path) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], env=ENV, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "held\n"
    return p


def _let_go(p: subprocess.Popen) -> None:
    p.stdin.close()
    assert p.wait() == 0
    p.stdout.close()


def test_a_save_waits_for_another_writers_lock_then_gives_up_with_a_message(tmp_path):
    target = tmp_path / "fight.json"
    save_encounter(_enc("old"), target)
    holder = _hold_lock(target)
    try:
        with clock.using(clock.ManualClock(step=1.0)):  # each look at the lock: a second
            with pytest.raises(FileBusyError) as err:
                save_encounter(_enc("new"), target)
        assert str(target) in str(err.value) and "another Coverfire" in str(err.value)
        assert "nothing was written" in str(err.value)
        assert load_encounter(target).name == "old"
    finally:
        _let_go(holder)
    save_encounter(_enc("new"), target)  # let go: the save goes through, and leaves no lock file
    assert load_encounter(target).name == "new"
    assert [q.name for q in tmp_path.iterdir()] == ["fight.json"]


def test_the_lock_is_one_for_a_link_and_its_target_and_reentrant(tmp_path):
    real = tmp_path / "real.json"
    save_encounter(_enc(), real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert lock_path(link) == lock_path(real)
    with file_lock(link):
        assert lock_path(real).exists()
        with file_lock(real):  # (a save inside a read-modify-write)
            save_encounter(_enc("inner"), link)
        assert lock_path(real).exists()
    assert not lock_path(real).exists()
    assert load_encounter(real).name == "inner"


def test_a_lock_left_by_a_killed_writer_is_no_obstacle(tmp_path):
    target = tmp_path / "fight.json"
    save_encounter(_enc("old"), target)
    holder = _hold_lock(target)
    holder.kill()
    holder.wait()
    holder.stdout.close()
    holder.stdin.close()
    assert lock_path(target).exists()  # (its file stays; the system let its lock go)
    save_encounter(_enc("new"), target)
    assert load_encounter(target).name == "new"
    assert [q.name for q in tmp_path.iterdir()] == ["fight.json"]


def test_where_the_file_system_has_no_locks_the_save_goes_ahead(tmp_path, monkeypatch):
    import errno
    import fcntl

    def no_locks(fd, how):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    target = tmp_path / "fight.json"
    save_encounter(_enc("on a share"), target)
    assert load_encounter(target).name == "on a share"
    assert [q.name for q in tmp_path.iterdir()] == ["fight.json"]


def test_where_no_lock_file_can_be_made_the_write_says_why_it_cannot_write(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes a read-only folder anyway (tests/engine/test_save_under_stress.py mounts one)")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(EncounterFileError, match="the folder cannot be written"):
            save_encounter(_enc(), folder / "fight.json")
    finally:
        folder.chmod(0o755)


# -- item 7: only regular files and new names are written ------------------------------------------
def _device(tmp_path: Path) -> Path:
    """A character device: a private one (as /dev/null) where this may make one (root), else
    /dev/null itself, which a user who is not root cannot replace even if a write tried."""
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        return dev
    except (PermissionError, OSError):
        return Path(os.devnull)


@pytest.fixture
def odd_names(tmp_path):
    """(label, path) of names that are not regular files: a FIFO, a device, links to each, a folder."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    dev = _device(tmp_path)
    to_fifo = tmp_path / "to-pipe.png"
    to_fifo.symlink_to(fifo)
    to_dev = tmp_path / "to-null.json"
    to_dev.symlink_to(dev)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return [("pipe (FIFO)", fifo), ("device", dev), ("link to a pipe", to_fifo), ("link to a device", to_dev),
            ("folder", folder)]


def _unchanged(path: Path) -> None:
    st = os.stat(path)
    assert not stat.S_ISREG(st.st_mode)


@pytest.mark.timeout(60)
def test_every_writer_refuses_a_pipe_a_device_a_folder_and_links_to_them(odd_names, tmp_path):
    for label, path in odd_names:
        for write in (lambda p: atomic_write_bytes(p, b"x"), lambda p: save_encounter(_enc(), p),
                      writable_target):
            with pytest.raises(NotAFileError) as err:
                write(path)
            msg = str(err.value)
            assert msg.startswith(f"{path}: this is ") and "did not write" in msg, (label, msg)
            _unchanged(path)
    fifo = dict(odd_names)["pipe (FIFO)"]
    assert "a pipe (FIFO), not a regular file" in str(pytest.raises(NotAFileError, writable_target, fifo).value)
    link = dict(odd_names)["link to a device"]
    assert f"a link to {os.path.realpath(link)}, a device" in str(pytest.raises(NotAFileError, writable_target, link).value)
    assert not [q for q in tmp_path.iterdir() if q.name.endswith((".tmp", ".lock"))]


def test_a_new_name_and_a_dangling_link_are_written(tmp_path):
    assert writable_target(tmp_path / "new.json") == tmp_path / "new.json"
    dangling = tmp_path / "later.json"
    dangling.symlink_to(tmp_path / "made-later.json")
    save_encounter(_enc("through"), dangling)
    assert dangling.is_symlink() and load_encounter(tmp_path / "made-later.json").name == "through"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gui.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.timeout(300)
def test_the_commands_refuse_such_outputs_with_a_message_naming_them(odd_names, tmp_path):
    src = tmp_path / "src.json"
    save_encounter(_enc(), src)
    ch = _character(tmp_path, "Elm")
    uvtt = tmp_path / "map.dd2vtt"
    uvtt.write_text(json.dumps({"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0},
                                                              "map_size": {"x": 4, "y": 4}, "pixels_per_grid": 70},
                                "line_of_sight": [], "portals": [], "lights": []}))
    by = dict(odd_names)
    for args, out in [(["export", str(src), "-o"], by["link to a pipe"]),
                      (["export", str(src), "-o"], by["device"]),
                      (["import-map", str(uvtt), "-o"], by["pipe (FIFO)"]),
                      (["import-map", str(uvtt), "-o"], by["link to a device"]),
                      (["import-character", str(ch), "--into"], by["pipe (FIFO)"])]:
        r = _cli(*args, str(out), cwd=tmp_path)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith(f"coverfire: {out}: this is ") and "did not write" in r.stderr, r.stderr
        _unchanged(out)
