"""The campaign: cases spread over worker processes, each case under a time limit counted
from when its input is made (a worker that does not answer in time is killed: "hung") and a memory limit (RLIMIT_AS in the worker:
a ``MemoryError``, or a worker that dies, is "memory"/"crashed"), and the counts table."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.kinds import GOOD, KIND_LABELS, LABELS, OUTCOMES, REPO

#: CPU seconds a case may take before it counts as hung (the issue's 10 s). CPU time, not
#: wall time: on a machine shared by several engineers a case's wall time can triple.
TIMEOUT = 10.0
#: Wall seconds after which a case that is not computing counts as hung (blocked on
#: something: neither its worker nor any process of the worker's group was runnable over the
#: last third of it), as a multiple of :data:`TIMEOUT`. (A case that computes slowly on a
#: loaded machine is not hung: a 15 MB encounter of 1,250,000 pairs, 7 s of CPU, met a plain
#: 30 s backstop under load 16; and a niced worker starved of CPU by busier processes is
#: runnable, not blocked, though its CPU time hardly grows.)
WALL_FACTOR = 3.0
#: Wall seconds after which a case counts as hung whatever it does, as a multiple of :data:`TIMEOUT`.
MAX_WALL_FACTOR = 10.0
#: Address space of a worker (the issue's 1 GiB).
MEMORY = 1 << 30
#: Seconds a worker may take to start (imports, Qt) before the campaign gives up.
START_TIMEOUT = 120.0


@dataclass
class Campaign:
    """The counts of a campaign, by kind and outcome, and the cases that went wrong."""

    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    failures: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    #: kind -> CPU seconds of its cases (as the workers measured them: the cases' own work)
    cpu: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    #: kind -> the largest CPU seconds of one case
    cpu_max: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    #: kind -> the largest peak resident memory of one case, in bytes
    rss: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    #: the 1-minute load averages seen while the campaign ran (sampled every 10 s)
    loads: list[float] = field(default_factory=list)
    #: (case, outcome, CPU seconds) of every case, in the order they were answered
    answers: list[tuple[str, str, float | None]] = field(default_factory=list)

    def add(self, kind: str, answer: dict) -> None:
        self.counts[kind][answer["outcome"]] += 1
        self.answers.append((answer["case"], answer["outcome"], answer.get("cpu")))
        if answer.get("cpu") is not None:
            self.cpu[kind] += answer["cpu"]
            self.cpu_max[kind] = max(self.cpu_max[kind], answer["cpu"])
        if answer.get("rss"):
            self.rss[kind] = max(self.rss[kind], answer["rss"])
        if answer["outcome"] not in GOOD:
            self.failures.append(answer)

    def sample_load(self) -> None:
        try:
            self.loads.append(float(Path("/proc/loadavg").read_text().split()[0]))
        except (OSError, ValueError, IndexError):
            pass

    def load(self) -> str:
        """The load seen, ``min-max`` (1-minute averages), or ``?``."""
        return f"{min(self.loads):.1f}-{max(self.loads):.1f}" if self.loads else "?"

    def bad(self) -> int:
        return sum(n for c in self.counts.values() for o, n in c.items() if o not in GOOD)

    def table(self) -> str:
        """The counts as a Markdown table (the issue's columns), with each kind's CPU time
        (total and the largest case) and largest peak resident memory."""
        head = (["input", "tried"] + [LABELS[o] for o in OUTCOMES]
                + ["CPU s (largest case)", "peak RSS MiB"])
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for kind, c in self.counts.items():
            cells = [KIND_LABELS.get(kind, kind), f"{sum(c.values()):,}"] + [f"{c.get(o, 0):,}" for o in OUTCOMES]
            cells += [f"{self.cpu.get(kind, 0):,.0f} ({self.cpu_max.get(kind, 0):.1f})",
                      f"{self.rss.get(kind, 0) / 2**20:,.0f}"]
            rows.append("| " + " | ".join(cells) + " |")
        return "\n".join(rows)


class _Worker:
    def __init__(self, memory: int, nice: int, light: bool = False):
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   QT_QPA_PLATFORM="offscreen", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MALLOC_ARENA_MAX="2")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.worker", "--memory", str(memory), "--nice", str(nice)]
            + (["--light"] if light else []),
            cwd=str(REPO), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, start_new_session=True)
        self.buf = b""
        self.case: str | None = None
        self.started = time.monotonic()
        self.ready = False
        self.handled = 0  # cases sent to it
        self.work: str | None = None  # the worker's scratch folder, removed when it is retired

    def cpu(self) -> float:
        """CPU seconds the worker has used (Linux /proc; 0 elsewhere)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            # (utime, stime, and those of the children it waited for: a case's writers)
            return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def send(self, case: str) -> None:
        self.handled += 1
        self.case = case
        self.started = time.monotonic()
        self.cpu_start = self.cpu()
        self.running = self.started  # when it (or a process of its group) was last seen runnable
        self.proc.stdin.write((case + "\n").encode())
        self.proc.stdin.flush()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()
        if self.work:  # a killed worker cannot clean up after itself
            shutil.rmtree(self.work, ignore_errors=True)
            Path(self.work + ".stderr").unlink(missing_ok=True)


def _last_words(w: _Worker, limit: int = 1500) -> str:
    """The end of what a dead worker's case wrote on standard error (its traceback, if
    Python's), on one line; "" when there is none."""
    if not w.work:
        return ""
    try:
        with open(w.work + ".stderr", "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


def _runnable(pgid: int) -> bool:
    """Whether a process of process group ``pgid`` (a worker and the children of its case) is
    running or waiting for a CPU (Linux /proc; True where unknown: never "blocked" then)."""
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] in (b"R", b"D"):  # (D: waiting on the disk, busy too)
            return True
    return False


def run_cases(names: list[str], jobs: int = 2, **kw) -> Campaign:
    """:func:`run` on the given case names (to replay a campaign's failures)."""
    return run([], 0, cases_=names, jobs=jobs, **kw)


def cases(kinds: list[str], count: int, seed: int) -> list[str]:
    """The case names of a campaign, kinds interleaved."""
    return [f"{seed}:{k}:{i}" for i in range(count) for k in kinds]


def run(kinds: list[str], count: int, seed: int = 1, jobs: int = 2, *, timeout: float = TIMEOUT,
        memory: int = MEMORY, nice: int = 0, progress=None, cases_: list[str] | None = None,
        light: bool = False, recycle: int = 0, recheck: bool = True) -> Campaign:
    """Run ``count`` cases of each kind over ``jobs`` workers; ``progress(done, total,
    campaign)`` is called after each case. ``light`` workers load nothing before their
    memory limit (the runner's self-test: they start in a fraction of the time); a worker is
    replaced after ``recycle`` cases (0: only when it dies or is killed).

    Workers are long-lived, so what one case leaves behind (a leak, a cache) weighs on the
    next: with ``recheck``, a case that ran out of memory after others in its worker runs
    again alone in a fresh one, and when it passes there it counts as ``accumulated``
    (memory held from earlier cases: a leak, not this input), not ``memory``."""
    todo = list(cases_) if cases_ is not None else cases(kinds, count, seed)
    todo.reverse()
    total = len(todo)
    result = Campaign()
    t0 = time.monotonic()
    sel = selectors.DefaultSelector()
    workers: list[_Worker] = []

    def spawn() -> _Worker:
        w = _Worker(memory, nice, light)
        sel.register(w.proc.stdout, selectors.EVENT_READ, w)
        workers.append(w)
        return w

    def retire(w: _Worker) -> None:
        sel.unregister(w.proc.stdout)
        w.kill()
        workers.remove(w)

    def finish(w: _Worker, answer: dict) -> None:
        answer["nth"] = w.handled
        result.add(answer["case"].split(":")[1], answer)
        w.case = None
        if progress:
            progress(total - len(todo) - sum(1 for x in workers if x.case), total, result)

    for _ in range(min(jobs, total)):
        spawn()
    result.sample_load()
    sampled = time.monotonic()
    try:
        while todo or any(w.case for w in workers):
            for w in list(workers):
                if recycle and w.ready and w.case is None and w.handled >= recycle:
                    retire(w)
                    spawn()
                elif w.ready and w.case is None and todo:
                    w.send(todo.pop())
            for key, _ in sel.select(timeout=0.2):
                w = key.data
                chunk = os.read(w.proc.stdout.fileno(), 1 << 16)
                if not chunk:  # the worker died: a crash of the process (a signal) or out of memory
                    code = w.proc.wait()
                    case = w.case
                    said = _last_words(w)  # (before retire removes the case's standard error)
                    retire(w)
                    if case is not None:
                        kind = "memory" if code in (-signal.SIGKILL, -signal.SIGABRT) else "crashed"
                        finish(w, {"case": case, "outcome": kind, "seconds": None,
                                   "detail": f"the worker process died (exit {code}) after {w.handled} cases"
                                             + (f"; its standard error ended: {said}" if said else "")})
                    elif not w.ready:
                        raise RuntimeError(f"a fuzz worker failed to start (exit {code})")
                    spawn()
                    continue
                w.buf += chunk
                while b"\n" in w.buf:
                    line, w.buf = w.buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if "ready" in msg:
                        w.ready = True
                        w.work = msg.get("work")
                    elif "made" in msg:  # the input is made: Coverfire's part starts now
                        w.started = time.monotonic()
                        w.cpu_start = w.cpu()
                        w.running = w.started
                    else:
                        finish(w, msg)
            now = time.monotonic()
            if now - sampled > 10:
                result.sample_load()
                sampled = now
            for w in list(workers):
                if w.case is None:
                    continue
                cpu, wall = w.cpu() - w.cpu_start, now - w.started
                window = WALL_FACTOR * timeout / 3
                if wall > WALL_FACTOR * timeout - window and _runnable(w.proc.pid):
                    w.running = now
                idle = wall > WALL_FACTOR * timeout and now - max(w.running, w.started) > window
                if cpu > timeout or idle or wall > MAX_WALL_FACTOR * timeout:
                    case = w.case
                    retire(w)
                    why = ("blocked: not runnable in the last " f"{window:g} s, " if idle and cpu <= timeout else "")
                    finish(w, {"case": case, "outcome": "hung",
                               "detail": f"no answer after {cpu:.1f} s of CPU ({why}{wall:.1f} s wall)",
                               "seconds": None})
                    spawn()
                elif not w.ready and now - w.started > START_TIMEOUT:
                    raise RuntimeError("a fuzz worker did not start in time")
    finally:
        for w in list(workers):
            w.proc.stdin.close()
            retire(w)
    if recheck:
        _recheck_memory(result, timeout=timeout, memory=memory, nice=nice, light=light)
    result.seconds = time.monotonic() - t0
    return result


def _recheck_memory(result: Campaign, **kw) -> None:
    """Run alone, each in a fresh worker, the cases that ran out of memory after others in
    their worker; those that pass alone become ``accumulated``."""
    again = [f for f in result.failures if f["outcome"] == "memory" and (f.get("nth") or 1) > 1]
    if not again:
        return
    alone = run_cases([f["case"] for f in again], 2, recycle=1, recheck=False, **kw)
    answers = {case: outcome for case, outcome, _cpu in alone.answers}
    for f in again:
        if answers.get(f["case"]) in GOOD:
            kind = f["case"].split(":")[1]
            result.counts[kind]["memory"] -= 1
            if not result.counts[kind]["memory"]:
                del result.counts[kind]["memory"]
            result.counts[kind]["accumulated"] += 1
            f["outcome"] = "accumulated"
            f["detail"] = (f"{f['detail']}; alone in a fresh worker: {answers[f['case']]} (memory held from "
                           f"the {f['nth'] - 1} cases before it in its worker)")
