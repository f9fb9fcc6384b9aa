"""One fuzz worker: reads case names on stdin, answers ``{"case", "outcome", "detail",
"seconds", "cpu", "rss"}`` JSON lines on stdout, under an address-space limit (``--memory``
bytes). A long-lived process: it handles case after case (the runner starts a new one when it
dies or is killed), each parsed in this process.

Per case it measures what the issue's checks need:

* ``cpu``: CPU seconds of the case, this process and the processes it waited for;
* ``rss``: the case's peak resident memory in bytes (Linux: the peak is reset before each
  case through ``/proc/self/clear_refs``; the largest child's peak counts too);
* its standard error (this process's and its children's, fd 2 redirected to a file): a
  Python traceback or a fatal error written there makes a case that was otherwise accepted
  or refused "crashed" (a stray child process printing a traceback after the work is done).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

#: What on standard error means a crash, though the case itself answered.
CRASH_MARKS = ("Traceback (most recent call last)", "Fatal Python error", "Segmentation fault")


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak() -> int:
    """This process's peak resident memory since :func:`_reset_peak`, in bytes."""
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _status() -> tuple[int, int]:
    """(resident, address space) of this process now, in bytes (0, 0 where unknown)."""
    got = {}
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith((b"VmRSS:", b"VmSize:")):
                    got[line.split(b":")[0]] = int(line.split()[1]) * 1024
    except OSError:
        pass
    return got.get(b"VmRSS", 0), got.get(b"VmSize", 0)


def crash_in(text: str) -> str | None:
    """The line that says a crash in a case's standard error (the traceback's last line), or None."""
    for mark in CRASH_MARKS:
        at = text.find(mark)
        if at >= 0:
            tail = [ln for ln in text[at:].splitlines() if ln.strip() and not ln.startswith((" ", "\t"))]
            return (tail[-1] if len(tail) > 1 else mark)[:300]
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory", type=int, default=1 << 30)
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--light", action="store_true", help="load nothing before the limit (the runner's self-test)")
    args = ap.parse_args()
    if args.nice:
        os.nice(args.nice)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out = sys.stdout
    sys.stdout = sys.stderr  # a case's own prints must not garble the answers
    from tests.fuzz import kinds

    if args.light:
        import engine.files  # noqa: F401 - (what the crash self-test raises from)
    else:
        for warm in (kinds._demos, kinds._uvtt, kinds._chummer, kinds._foundry, kinds._app):
            warm()
        import engine.analysis  # noqa: F401 - loaded before the limit, as the program would be
        import gui.snapshot  # noqa: F401
        import engine.importers.uvtt  # noqa: F401
        import engine.importers.chummer  # noqa: F401
        import engine.importers.detect  # noqa: F401
        import engine.importers.foundry  # noqa: F401

    resource.setrlimit(resource.RLIMIT_AS, (args.memory, args.memory))
    work = Path(tempfile.mkdtemp(prefix="coverfire-fuzz-"))
    out.write(json.dumps({"ready": os.getpid(), "work": str(work)}) + "\n")
    out.flush()

    def made() -> None:  # the runner times the case from here
        out.write(json.dumps({"made": True}) + "\n")
        out.flush()

    kinds.ON_INPUT_MADE.append(made)
    err_path = work.parent / (work.name + ".stderr")
    saved_err = os.dup(2)
    handled = 0
    for line in sys.stdin:
        case = line.strip()
        if not case:
            continue
        sys.stderr.flush()
        err = os.open(err_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        os.close(err)
        held = _status()  # (what earlier cases left: a memory outcome says it)
        handled += 1
        _reset_peak()
        t0, c0 = time.monotonic(), time.process_time()
        k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        outcome, detail = kinds.run_case(case, work / "case")
        k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = time.process_time() - c0 + (k1.ru_utime - k0.ru_utime) + (k1.ru_stime - k0.ru_stime)
        rss = max(_peak(), k1.ru_maxrss * 1024 if k1.ru_maxrss > k0.ru_maxrss else 0)
        sys.stderr.flush()
        os.dup2(saved_err, 2)
        try:
            text = err_path.read_text("utf-8", "replace")
        except OSError:
            text = ""
        crash = crash_in(text)
        if crash and outcome in kinds.GOOD:
            outcome, detail = "crashed", f"{outcome}, then on standard error: {crash} [{detail}]"
        if rss > kinds.MEMORY_LIMIT and outcome in kinds.GOOD:
            outcome, detail = "memory", f"{outcome}, at a peak of {rss / 2**30:.2f} GiB resident [{detail}]"
        if outcome == "memory":
            detail += (f" (case {handled} of this worker, which held {held[0] >> 20} MiB resident and "
                       f"{held[1] >> 20} MiB of address space before it)")
        out.write(json.dumps({"case": case, "outcome": outcome, "detail": detail,
                              "seconds": round(time.monotonic() - t0, 3), "cpu": round(cpu, 4), "rss": rss}) + "\n")
        out.flush()
    err_path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
