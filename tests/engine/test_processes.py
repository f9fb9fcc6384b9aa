"""Whether a process still runs, asked the same way on every platform (engine/processes.py,
issue 29 item 2): psutil, never ``os.kill(pid, 0)``, which on Windows ends the process."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from engine import processes

ROOT = Path(__file__).resolve().parents[2]


def test_a_running_process_is_alive_and_an_ended_one_is_not():
    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert processes.alive(p.pid)
        first = processes.started(p.pid)
        assert first is not None and first == processes.started(p.pid)
        assert first != processes.started(os.getpid()) or first is None
    finally:
        p.communicate(b"")
    assert not processes.alive(p.pid)
    assert processes.started(p.pid) is None
    assert processes.alive(os.getpid())


def test_nonsense_pids_are_not_alive():
    assert not processes.alive(0) and not processes.alive(-5) and not processes.alive(True)
    assert not processes.alive(2**31 - 1)


def test_no_module_asks_os_kill_whether_a_process_lives():
    found = []
    for pkg in ("engine", "geometry", "gui"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.kill" and len(node.args) == 2 \
                        and ast.unparse(node.args[1]) == "0":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found


def test_elsewhere_the_start_is_psutils_creation_time(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    import psutil

    assert processes.started(os.getpid()) == round(psutil.Process(os.getpid()).create_time() * 1000)
