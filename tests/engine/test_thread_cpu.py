"""engine.clock.thread_cpu: another thread's CPU time, the budget of a picture decoded in a
worker (gui.picture_loader): a thread that works spends it, one that waits does not; a
ManualClock gives every thread its own CPU reading, moved by advance()."""

from __future__ import annotations

import sys
import threading

import pytest

from engine import clock


@pytest.mark.skipif(sys.platform == "win32", reason="no per-thread CPU clock of another thread there")
def test_a_working_thread_spends_cpu_and_a_waiting_one_does_not():
    go, done = threading.Event(), threading.Event()
    idents = {}

    def work():
        idents["work"] = threading.get_ident()
        go.wait()
        n = 0
        while not done.is_set():
            n += 1

    def wait():
        idents["wait"] = threading.get_ident()
        go.wait()
        done.wait()

    threads = [threading.Thread(target=work), threading.Thread(target=wait)]
    for t in threads:
        t.start()
    while len(idents) < 2:
        threading.Event().wait(0.001)
    before = {k: clock.thread_cpu(v) for k, v in idents.items()}
    go.set()
    while clock.thread_cpu(idents["work"]) - before["work"] < 0.05:  # (until it has spent some)
        threading.Event().wait(0.001)
    waited = clock.thread_cpu(idents["wait"]) - before["wait"]
    done.set()
    for t in threads:
        t.join()
    assert waited < 0.05


def test_the_manual_clock_moves_every_threads_cpu(manual_clock):
    start = clock.thread_cpu(threading.get_ident())
    manual_clock.advance(2.5)
    assert clock.thread_cpu(12345) == start + 2.5
    manual_clock.wait(1.0)
    assert clock.thread_cpu(12345) == start + 2.5
