"""The one launcher of the program's child processes (engine/child.py, issue 29 item 1): the
same command from source and from the frozen bundle, which runs them too."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine import child

ROOT = Path(__file__).resolve().parents[2]


def frozen_executable(folder: Path) -> Path:
    """A stand-in for the bundle's executable: runs the bundle's entry script
    (packaging/coverfire_entry.py) with its arguments, as PyInstaller's bootloader does
    (the bundle has no ``python`` to start; a frozen child gets no ``-m``)."""
    exe = folder / "coverfire-frozen"
    exe.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} {ROOT / "packaging" / "coverfire_entry.py"} "$@"\n')
    exe.chmod(0o755)
    return exe


def test_from_source_a_child_is_python_running_the_launcher(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert child.command("gui.load_process", "open", "x.json") == [
        sys.executable, "-m", "engine.child", "gui.load_process", "open", "x.json"]
    env = child.environment({"PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"] == os.pathsep.join([str(ROOT), "/elsewhere"])


def test_frozen_a_child_is_the_bundles_own_executable_with_the_worker_argument(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/coverfire/coverfire")
    assert child.command("gui.charge_process", "/tmp/sock", 42) == [
        "/opt/coverfire/coverfire", "--coverfire-child", "gui.charge_process", "/tmp/sock", "42"]
    assert "PYTHONPATH" not in child.environment({})  # (the bundle carries its own modules)


def test_only_the_programs_own_children_can_be_started(capsys):
    with pytest.raises(ValueError, match="os"):
        child.command("os")
    assert child.run(["os", "system"]) == 2
    assert "'os' is not a child process of Coverfire" in capsys.readouterr().err


def test_the_key_goes_in_the_environment_and_is_taken_once(monkeypatch):
    env = child.environment({"COVERFIRE_CHILD_KEY": "stale"}, key=b"\x01\xab")
    assert env["COVERFIRE_CHILD_KEY"] == "01ab"
    assert "COVERFIRE_CHILD_KEY" not in child.environment({"COVERFIRE_CHILD_KEY": "stale"})
    monkeypatch.setenv("COVERFIRE_CHILD_KEY", "01ab")
    assert child.take_key() == b"\x01\xab"
    assert "COVERFIRE_CHILD_KEY" not in os.environ and child.take_key() is None


def test_windows_children_open_no_console_window(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    assert child.popen_options()["creationflags"] == 0x08000000  # CREATE_NO_WINDOW
    monkeypatch.setattr(sys, "platform", "linux")
    assert "creationflags" not in child.popen_options()


@pytest.mark.parametrize("frozen", [False, True])
def test_the_file_reader_runs_from_source_and_frozen(tmp_path, monkeypatch, frozen):
    from engine.files import load_encounter
    from gui.load_process import argv, split_frames

    if frozen:
        monkeypatch.setattr(sys, "frozen", True, raising=False)
        monkeypatch.setattr(sys, "executable", str(frozen_executable(tmp_path)))
    demo = ROOT / "assets" / "encounters" / "demo.json"
    done = subprocess.run(child.command("gui.load_process", *argv("open", str(demo))), env=child.environment(),
                          capture_output=True, timeout=60, **child.popen_options())
    assert done.returncode == 0, done.stderr
    import pickle

    frames = [pickle.loads(f) for f in split_frames(done.stdout)]
    assert frames[0][0] == "header" and frames[-1][0] == "rest"
    assert frames[-1][1].tokens == load_encounter(demo).tokens


def test_the_frozen_bundle_starts_the_charge_planner(tmp_path, monkeypatch):
    from gui import charge_worker

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(frozen_executable(tmp_path)))
    charge_worker.stop_planner()
    try:
        server = charge_worker.planner()
        assert server.ready.wait(50), "the planner did not connect"  # (no wait on speed: a generous limit)
        assert not server.failed
        assert server.proc.args[:3] == [str(tmp_path / "coverfire-frozen"), "--coverfire-child", "gui.charge_process"]
        box: list = []
        got = threading.Event()

        class Walker:
            def deliver(self, number, answer):
                box.append(answer)
                got.set()

        server.walkers[1] = Walker()
        server.send(("reset", (0.0, 0.0, 10.0, 10.0), [], [], []))
        server.send(("walk", 1, (1.0, 1.0), (9.0, 9.0), 0.4, "test"))
        assert got.wait(50)  # (the test's timeout bounds the wait)
        assert box and box[0][0] == "path" and box[0][2] == pytest.approx(8 * 2 ** 0.5)
    finally:
        charge_worker.stop_planner()


def test_an_installed_coverfire_does_not_put_site_packages_first(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setattr(child, "ROOT", Path("/venv/lib/python3.11/site-packages"))
    assert child.environment({"PYTHONPATH": "/x"})["PYTHONPATH"] == "/x"
    assert "PYTHONPATH" not in child.environment({})
