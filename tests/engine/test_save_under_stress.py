"""Saving when the process is killed mid-save, the disk is full or the folder is read-only:
the file on disk is always the old or the new version, and a message says what happened
(engine/files.py)."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from engine.errors import EncounterFileError
from engine.files import load_encounter, loads_encounter, save_encounter

KILLS = 200


def _version(tag: str, tokens: int = 400):
    data = {"format": "coverfire.encounter", "version": 2, "name": tag, "map": {"width": 100.0, "height": 100.0},
            "tokens": [{"id": f"t{i}", "name": f"{tag} {i}", "x": i % 100, "y": i // 100, "notes": tag * 200}
                       for i in range(tokens)]}
    return loads_encounter(json.dumps(data))


@pytest.mark.slow
def test_200_kills_at_random_moments_never_leave_a_half_written_file(tmp_path):
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
