"""Saving when the process is killed mid-save, the disk is full or the folder is read-only:
the file on disk is always the old or the new version, and a message says what happened
(engine/files.py)."""

from __future__ import annotations

import json
import linecache
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import files
from engine.errors import EncounterFileError
from engine.files import load_encounter, loads_encounter, save_encounter

#: kills of a child saving over and over, each at a random moment (beside the kills at every
#: step of one save below, these land inside a system call: a write, an fsync, a rename)
KILLS = 24


def _version(tag: str, tokens: int = 400):
    data = {"format": "coverfire.encounter", "version": 2, "name": tag, "map": {"width": 100.0, "height": 100.0},
            "tokens": [{"id": f"t{i}", "name": f"{tag} {i}", "x": i % 100, "y": i // 100, "notes": tag * 200}
                       for i in range(tokens)]}
    return loads_encounter(json.dumps(data))


def _write_steps(on_step):
    """Calls ``on_step(function, line)`` before each line of engine/files.py that a save runs
    once its bytes are made (``write_encounter_bytes`` and all it calls there: the lock, the
    stale temps, the temp file, its write and fsync, the rename, the folder's fsync, the
    unlock), through ``sys.settrace``; returns the function that undoes it."""
    where = files.__file__
    original = files.write_encounter_bytes

    def local(frame, event, arg):
        if event == "line":
            on_step(frame.f_code.co_name, frame.f_lineno)
        return local

    def traced(*a, **k):
        sys.settrace(lambda frame, event, arg: local if frame.f_code.co_filename == where else None)
        try:
            return original(*a, **k)
        finally:
            sys.settrace(None)

    files.write_encounter_bytes = traced
    return lambda: setattr(files, "write_encounter_bytes", original)


def _folder_state(folder: Path) -> tuple:
    """What a kill leaves in ``folder``: each file's name, inode, mode and size."""
    out = []
    for p in sorted(folder.iterdir()):
        st = p.stat()
        out.append((p.name, st.st_ino, st.st_mode, st.st_size))
    return tuple(out)


@pytest.mark.slow
def test_a_kill_at_each_step_of_a_save_leaves_the_old_file_until_the_rename_and_the_new_after(
        tmp_path, monkeypatch):
    # the child saves "new" over "old" and is killed just before a step of the write: at each
    # step after which the folder holds something it did not before (the lock file made, the
    # temp file made, its mode set, its bytes written, the rename, the lock removed: a kill
    # between two such steps leaves what a kill at the first of them leaves). The file is
    # whole each time, the old version up to the rename, the new one from the step after it
    # on; and the next save removes the temp file and the lock the killed one left
    target = tmp_path / "fight.json"
    versions = {"old": _version("old", 150), "new": _version("new", 150)}
    steps: list[tuple[str, int]] = []
    states: list[tuple] = []
    save_encounter(versions["old"], target)  # (the steps of a save over a file, as below)

    def dry_step(fn, line):
        steps.append((fn, line))
        states.append(_folder_state(tmp_path))

    undo = _write_steps(dry_step)
    try:
        save_encounter(versions["new"], target)
    finally:
        undo()
    states.append(_folder_state(tmp_path))  # (after the last step)
    renames = [i for i, (fn, line) in enumerate(steps) if fn == "atomic_write_bytes"
               and "os.replace(" in linecache.getline(files.__file__, line)]
    assert len(renames) == 1 and 10 < renames[0] < len(steps) - 3, steps  # steps on both sides of it
    # kill before step 0, and before each step that follows one that changed the folder
    kills = [0] + [k for k in range(1, len(steps)) if states[k] != states[k - 1]]
    # the folder changed at least at the lock, the temp file, its bytes, the rename, the unlock
    assert len(kills) >= 6 and renames[0] + 1 in kills, (kills, steps)
    found = []
    real_fsync = os.fsync
    for k in kills:
        monkeypatch.setattr(os, "fsync", lambda fd: None)  # (the parent's own save waits on no disk)
        save_encounter(versions["old"], target)
        monkeypatch.setattr(os, "fsync", real_fsync)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.json"], k
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child saves "new", telling the parent when it reaches step k, and waits there
            try:
                os.close(r)
                hold, _never = os.pipe()  # (never written: the child waits on it until it is killed)
                done = []

                def step(fn, line):
                    if len(done) == k:
                        os.write(w, f"{fn}:{line}".encode())
                        os.read(hold, 1)
                    done.append(line)

                _write_steps(step)
                save_encounter(versions["new"], target)
            finally:
                os._exit(0)
        os.close(w)
        ready, _, _ = select.select([r], [], [], 120.0)  # (a loaded machine may start it late)
        assert ready
        at = os.read(r, 100).decode()
        os.close(r)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert at == "%s:%d" % steps[k]  # the child stopped where the dry run said
        found.append(load_encounter(target).name)  # never half of each: always loads, whole
    assert found == ["old" if k <= renames[0] else "new" for k in kills]
    assert found.count("old") >= 4 and found.count("new") >= 2, list(zip(kills, found))


@pytest.mark.slow
def test_kills_at_random_moments_never_leave_a_half_written_file(tmp_path):
    target = tmp_path / "fight.json"
    versions = {"old": _version("old", 150), "new": _version("new", 150)}
    save_encounter(versions["old"], target)
    size = target.stat().st_size
    assert size > 100_000  # big enough that a kill often lands inside the write
    rng = random.Random(15)
    seen = {"old": 0, "new": 0}
    for k in range(KILLS):
        first, second = ("new", "old") if k % 2 else ("old", "new")
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child saves the two versions in turn until it is killed
            try:
                os.close(r)
                save_encounter(versions[first], target)
                os.write(w, b"1")  # one whole save done: from now on the kill may land anywhere
                while True:
                    save_encounter(versions[second], target)
                    save_encounter(versions[first], target)
            finally:
                os._exit(0)
        os.close(w)
        ready, _, _ = select.select([r], [], [], 120.0)  # (a loaded machine may start it late)
        assert ready and os.read(r, 1) == b"1"
        os.close(r)
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        name = load_encounter(target).name  # never half of each: always loads, whole
        assert name in seen
        seen[name] += 1
    assert seen["old"] and seen["new"]  # the kills did land at different moments
    # the next save removes the temp files killed saves left behind
    save_encounter(versions["new"], target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.json"]


def _mount_tmpfs(where: Path, size: str, *extra: str) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join([f"size={size}", *extra]), "tmpfs", str(where)],
                          capture_output=True)
    return done.returncode == 0


def _umount(where: Path) -> None:
    subprocess.run(["umount", str(where)], capture_output=True)


def test_a_really_full_disk_names_the_fault_and_keeps_the_old_file(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "256k"):
        pytest.skip("cannot mount a small tmpfs here (not root, or not allowed)")
    try:
        target = disk / "fight.json"
        small = _version("old", tokens=20)
        save_encounter(small, target)
        before = target.read_bytes()
        with pytest.raises(EncounterFileError) as err:
            save_encounter(_version("new"), target)  # ~350 KB on a 256 KB disk
        assert "the disk is full" in str(err.value) and str(target) in str(err.value)
        assert "unchanged" in str(err.value)
        assert target.read_bytes() == before
        assert [p.name for p in disk.iterdir()] == ["fight.json"]  # the partial temp file is gone
    finally:
        _umount(disk)


def test_a_read_only_folder_names_the_fault_and_keeps_the_old_file(tmp_path):
    disk = tmp_path / "ro"
    if not _mount_tmpfs(disk, "1m"):
        pytest.skip("cannot mount a small tmpfs here (not root, or not allowed)")
    try:
        target = disk / "fight.json"
        save_encounter(_version("old", tokens=5), target)
        before = target.read_bytes()
        assert subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True).returncode == 0
        with pytest.raises(EncounterFileError, match="the folder cannot be written"):
            save_encounter(_version("new", tokens=5), target)
        assert target.read_bytes() == before
    finally:
        _umount(disk)
