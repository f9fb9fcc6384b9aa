"""The fuzz campaign's seeded CI budget (issues 15 and 25): every case is refused cleanly or
accepted and round-trips; none crashes, hangs, blows up memory, pulls in a local file,
changes a value in silence or leaves work that cannot be saved or reopened.

CI keeps a small budget (a few seconds: one pool of two workers runs one case of each kind
and the cases that once failed; the runner's own checks use light workers). The large
campaign runs by hand: ``python -m tests.fuzz --count 10000 --kind KIND`` (README,
"Reliability")."""

from __future__ import annotations

import re

import pytest

from tests.fuzz import runner
from tests.fuzz.kinds import GOOD, KINDS

CI_SEED = 15
#: One case of each kind, seed 15 (each under 0.5 s of CPU; together refused and accepted).
CI_CASES = {"encounter": 7, "uvtt": 7, "chummer": 6, "foundry": 1, "image": 3, "localpath": 5, "tinymap": 0,
            "coerce": 0, "picture": 2, "attributes": 1, "bomb": 5, "concurrent": 7}

#: Cases that once failed, each with what it found (they replay in workers, as in a campaign).
#: (4020:uvtt:2853, 985,000 points read one by one, is checked by
#: tests/engine/importers/test_uvtt_bounds.py: making its 54 MB input costs the fuzzer 5 s.)
REGRESSIONS = {
    "2:uvtt:13": "a 100,000-point UVTT wall segfaulted in GEOS simplify",
    "3:encounter:394": "a polygon's repeated points: the saved footprint reloaded different",
    "2026:chummer:59": "a Chummer AP of 1e20 was saved and then refused on reopen",
    "2026:chummer:847": "a Chummer AP of 1e308, likewise",
    "2026:uvtt:518": "a mutation of 3.6 GB blew the fuzzer's own memory",
    "3002:uvtt:1542": "a wall repeated 6,000 times: import, save and reload took over 10 s of CPU",
    "4016:chummer:1600": "a weapon name of 100,000 characters was imported and then could not be saved",
    "4016:chummer:4459": "an Agility 0 refusal did not name the file",
    "4019:encounter:71": "a token name holding NUL: the exported SVG did not parse (gui/portable_svg.py ParseError)",
    "4019:encounter:3840": "an encounter name holding NUL or ESC, likewise",
    "3:localpath:5": "a Foundry scene outside a data folder naming outside/secret.png found it by walking up",
    "3:localpath:7": "likewise, the path written C:\\outside\\secret.png",
    "2606:bomb:347": "1,250,000 pairs (15 MB) under a field Coverfire does not read: 7 s of CPU to open, save and "
                     "reopen alone, over 10 s in a long-lived worker (hung); now refused at the field's bound",
    "2606:bomb:340": "a chum5lz of 1,000,000 elements: the 500,000 its refused parse built waited for a full garbage "
                     "collection (memory from earlier cases); now refused by its start tags, unparsed",
}


def _why(campaign) -> str:
    return "\n" + campaign.table() + "\n" + "\n".join(
        f"{f['case']} ({REGRESSIONS.get(f['case'], 'budget')}): {f['outcome']}: {f['detail']}"
        for f in campaign.failures)


@pytest.mark.slow
def test_the_seeded_budget_and_the_cases_that_once_failed_pass():
    budget = [f"{CI_SEED}:{k}:{i}" for k, i in CI_CASES.items()]
    campaign = runner.run_cases(budget + list(REGRESSIONS), jobs=2)
    assert sorted(CI_CASES) == sorted(KINDS)  # (a new kind gets its case here)
    assert campaign.bad() == 0, _why(campaign)
    outcomes = {case: outcome for case, outcome, _cpu in campaign.answers}
    assert sorted(outcomes) == sorted(budget + list(REGRESSIONS))
    # both good outcomes occur: the mutations neither always break the files nor never do
    assert {outcomes[c] for c in budget} == {"refused", "accepted"}, _why(campaign)
    assert outcomes["4016:chummer:4459"] == "refused" and outcomes["3:localpath:5"] == "accepted"
    assert outcomes["2606:bomb:347"] == outcomes["2606:bomb:340"] == "refused"


def test_each_failing_outcome_is_caught_by_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the workers' scratch folders go here
    monkeypatch.setenv("COVERFIRE_FUZZ_RSS_LIMIT", str(200 << 20))  # (selftest-rss touches 300 MiB)
    kinds = ["selftest-hang", "selftest-blocked", "selftest-memory", "selftest-crash", "selftest-segfault",
             "selftest-stderr", "selftest-rss", "selftest-exit"]
    campaign = runner.run(kinds, 1, 1, jobs=2, timeout=1.0, light=True)
    outcomes = {k: next(iter(c)) for k, c in campaign.counts.items()}
    assert outcomes == {"selftest-hang": "hung", "selftest-blocked": "hung", "selftest-memory": "memory",
                        "selftest-crash": "crashed", "selftest-segfault": "crashed", "selftest-stderr": "crashed",
                        "selftest-rss": "memory", "selftest-exit": "crashed"}
    detail = {f["case"].split(":")[1]: f["detail"] for f in campaign.failures}
    assert "EncounterFileError" in detail["selftest-crash"] and "engine/files.py" in detail["selftest-crash"]
    assert detail["selftest-stderr"].startswith("accepted, then on standard error: ValueError: a stray child's error")
    assert "blocked: not runnable" in detail["selftest-blocked"]
    # a worker killed by what its case raised says so: its exit, and the traceback it left
    assert re.match(r"the worker process died \(exit 1\) after \d cases; its standard error ended: Traceback",
                    detail["selftest-exit"]), detail["selftest-exit"]
    assert "_Escape: the worker's own end" in detail["selftest-exit"]
    assert detail["selftest-rss"].startswith("accepted, at a peak of 0.3")  # (300 MiB and the worker's own)
    assert campaign.rss["selftest-rss"] >= 300 << 20
    assert campaign.bad() == len(kinds)
    assert "| 1 |" in campaign.table()
    # killed and crashed workers leave no scratch folder behind (563 were left in /tmp once)
    assert sorted(p.name for p in tmp_path.glob("coverfire-fuzz-*")) == []


def test_memory_held_from_earlier_cases_is_told_from_an_input_s_own(tmp_path, monkeypatch):
    # (a worker handles many cases: the tinymap kind's 11 "memory" cases of seed 2602 each
    # passed alone; what they met was what earlier exports had left in the worker)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    campaign = runner.run(["selftest-leak"], 3, 1, jobs=1, light=True)
    outcomes = [outcome for _case, outcome, _cpu in campaign.answers]
    assert outcomes[0] == "accepted" and campaign.counts["selftest-leak"] == {"accepted": 1, "accumulated": 2}
    assert all("alone in a fresh worker: accepted" in f["detail"] for f in campaign.failures)
    assert campaign.bad() == 2  # (a leak is a fault, only not this input's)


def test_a_traceback_on_standard_error_is_found():
    from tests.fuzz.worker import crash_in

    text = ("Qt warning\nTraceback (most recent call last):\n  File \"gui/charge_process.py\", line 46\n"
            "    x()\nEOFError: Ran out of input\n")
    assert crash_in(text) == "EOFError: Ran out of input"
    assert crash_in("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n") \
        == "Current thread 0x1 (most recent call first):"
    assert crash_in("QPainter::begin: Paint device returned engine == 0\n") is None


def _made(case: str, folder):
    """(the input's path, what was done, every file made: name -> bytes), the folder's own
    path left out (a local path kind names the secret by its absolute path)."""
    from tests.fuzz.kinds import make_input

    path, what = make_input(case, folder)
    mark = folder.name.encode()  # (however the path is written: backslashes, URL-encoded, JSON-escaped)
    files = {p.relative_to(folder).as_posix(): p.read_bytes().replace(mark, b"FOLDER")
             for p in folder.rglob("*") if p.is_file()}
    return path.relative_to(folder), what.replace(folder.name, "FOLDER"), files


#: The two cases each determinism check makes, where not the budget's and the next (cheap
#: ones: the budget's UVTT case is a 21 MB map, a bomb of 1,666,676 values is 10 MB).
PAIRS = {"uvtt": (0, 4), "bomb": (7, 9), "image": (3, 5)}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_case_makes_the_same_input_from_its_seed(kind, tmp_path):
    # (the pipelines themselves run in workers: in this process an export would start a
    # QApplication on another platform than the GUI tests' own)
    i, j = PAIRS.get(kind, (CI_CASES[kind], CI_CASES[kind] + 1))
    a, b = _made(f"{CI_SEED}:{kind}:{i}", tmp_path / "made-first"), _made(f"{CI_SEED}:{kind}:{i}", tmp_path / "made-again")
    assert a == b
    c = _made(f"{CI_SEED}:{kind}:{j}", tmp_path / "made-other")
    assert c[2] != a[2]


def test_a_lost_write_of_concurrent_writers_is_a_silent_change(tmp_path, monkeypatch):
    # (in this process: the writers are forked from it; each "adds" a character and writes nothing)
    import os

    import engine.importers.detect as detect
    from tests.fuzz.kinds import run_case

    def says_added_writes_nothing(args):
        print(f"Added 'Ghost' as 'ghost-{os.getpid()}' at (1, 1) to {args.into}")
        return 0

    monkeypatch.setattr(detect, "run_import_character", says_added_writes_nothing)
    outcome, detail = run_case(f"{CI_SEED}:concurrent:{CI_CASES['concurrent']}", tmp_path / "case")
    assert outcome == "silent", detail
    assert "writers said they added ['ghost-" in detail and "lost ['ghost-" in detail


def test_a_picture_qt_cannot_copy_is_memory_not_a_crash_of_the_fuzzer(qapp, monkeypatch):
    """Seed 2901's worker died at case 3,629: Qt, out of address space, handed back a null
    copy of the picture drawn and the red check read its bits as None (a TypeError, a dead
    worker, counted "crashed"). A copy that cannot be made is a MemoryError, which the
    runner counts as memory and runs again alone."""
    from PySide6.QtGui import QColor, QImage

    from tests.fuzz import kinds

    red = QImage(4, 3, QImage.Format.Format_ARGB32)
    red.fill(QColor(255, 0, 0))
    assert kinds._has_red(red) is True
    red.fill(QColor(0, 0, 255))
    assert kinds._has_red(red) is False
    monkeypatch.setattr(QImage, "convertToFormat", lambda self, fmt: QImage())
    with pytest.raises(MemoryError, match="4x3 copy"):
        kinds._has_red(red)
    with pytest.raises(kinds.Outcome) as caught:
        kinds._step("look for the secret in what was drawn", lambda: kinds._has_red(red), refusal_ok=False)
    assert caught.value.outcome == "memory"
    assert "look for the secret" in caught.value.detail
