"""The fuzz campaign's seeded CI budget (issue 15): every case is refused cleanly or accepted
and round-trips; none crashes, hangs, blows up memory or leaves work that cannot be saved or
reopened. ``python -m tests.fuzz --count 10000`` runs the large campaign by hand."""

from __future__ import annotations

import pytest

from tests.fuzz import runner
from tests.fuzz.kinds import GOOD, KINDS

#: Cases of each kind in CI (about 25 s on two quiet cores).
CI_COUNT = 15
CI_SEED = 15


@pytest.mark.slow
def test_the_seeded_budget_has_no_crash_hang_blow_up_or_unsavable_file():
    campaign = runner.run(list(KINDS), CI_COUNT, CI_SEED, jobs=2)
    tried = {k: sum(c.values()) for k, c in campaign.counts.items()}
    assert tried == {k: CI_COUNT for k in KINDS}
    assert all(campaign.counts[k]["refused"] + campaign.counts[k]["accepted"] == CI_COUNT for k in KINDS), (
        "\n" + campaign.table() + "\n" + "\n".join(f"{f['case']}: {f['outcome']}: {f['detail']}" for f in campaign.failures))
    # both good outcomes occur: the mutations neither always break the files nor never do
    # (an importer that reads what it can, warning about the rest, may accept all of a kind)
    assert sum(c["accepted"] for c in campaign.counts.values()) >= CI_COUNT, campaign.table()
    assert sum(c["refused"] for c in campaign.counts.values()) >= CI_COUNT, campaign.table()


@pytest.mark.slow
def test_each_failing_outcome_is_caught_by_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the workers' scratch folders go here
    campaign = runner.run(["selftest-hang", "selftest-memory", "selftest-crash", "selftest-segfault"], 1, 1,
                          jobs=2, timeout=4.0)
    outcomes = {k: next(iter(c)) for k, c in campaign.counts.items()}
    assert outcomes == {"selftest-hang": "hung", "selftest-memory": "memory",
                        "selftest-crash": "crashed", "selftest-segfault": "crashed"}
    crash = next(f for f in campaign.failures if f["case"].endswith("selftest-crash:0"))
    assert "EncounterFileError" in crash["detail"] and "engine/files.py" in crash["detail"]
    assert not any(o in GOOD for o in outcomes.values())
    assert campaign.bad() == 4
    assert "| 1 |" in campaign.table()
    # killed and crashed workers leave no scratch folder behind (563 were left in /tmp once)
    assert sorted(p.name for p in tmp_path.glob("coverfire-fuzz-*")) == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_case_makes_the_same_input_from_its_seed(kind, tmp_path):
    # (the pipelines themselves run in workers: in this process an export would start a
    # QApplication on another platform than the GUI tests' own)
    from tests.fuzz.kinds import make_input

    a, what_a = make_input(f"7:{kind}:3", tmp_path / "a")
    b, what_b = make_input(f"7:{kind}:3", tmp_path / "b")
    assert a.name == b.name and what_a == what_b and a.read_bytes() == b.read_bytes()
    c, _ = make_input(f"7:{kind}:4", tmp_path / "c")
    assert c.read_bytes() != a.read_bytes()


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
}


@pytest.mark.slow
def test_cases_that_once_failed_now_pass():
    campaign = runner.run_cases(list(REGRESSIONS), jobs=2)
    assert campaign.bad() == 0, "\n".join(f"{f['case']} ({REGRESSIONS[f['case']]}): {f['outcome']}: {f['detail']}"
                                          for f in campaign.failures)
    assert sum(sum(c.values()) for c in campaign.counts.values()) == len(REGRESSIONS)
