"""``coverfire analyze`` says what it is doing when every token is analysed in turn."""

from __future__ import annotations

import io
import json

from engine.files import loads_encounter
from engine.report import analyze, stderr_progress


def test_progress_is_called_after_each_attacker_and_printed_only_for_long_runs(manual_clock):
    data = {"format": "coverfire.encounter", "version": 2, "map": {"width": 30, "height": 30},
            "tokens": [{"id": f"t{i}", "x": 1 + i, "y": 2.0} for i in range(5)]}
    enc = loads_encounter(json.dumps(data))
    calls = []
    reports = analyze(enc, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)] and len(reports) == 5
    quick = io.StringIO()
    analyze(enc, progress=stderr_progress(quick, every=60.0))
    assert quick.getvalue() == ""  # a quick run prints nothing (no time passed on the test's clock)
    slow = io.StringIO()
    p = stderr_progress(slow, every=2.0)  # started at 0 s
    for done, took in zip(range(1, 6), [2.5, 0.1, 2.5, 0.1, 0.1]):  # (done at 2.5, 2.6, 5.1, 5.2 and 5.3 s)
        manual_clock.advance(took)
        p(done, 5)
    lines = slow.getvalue().splitlines()
    assert lines == [
        "coverfire: analysed 1 of 5 attackers, every other token's cover, range and charge (2 s)",
        "coverfire: analysed 3 of 5 attackers, every other token's cover, range and charge (5 s)",
        "coverfire: analysed 5 of 5 attackers, every other token's cover, range and charge (5 s)",
    ]
