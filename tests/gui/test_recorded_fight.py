"""The recorded fight in the window (issue 31): actions and moves landed in the window are
recorded in the same undo step (undo takes them out), the replay shows each step without
changing the encounter, and the after-action report holds every round and log line."""

from __future__ import annotations

import io
import json
import unicodedata

import pypdf
import pytest

from assets import recorded_fight_path
from engine.files import load_encounter
from engine.rules import MoveTo
from tests.gui.conftest import discard_on_close, open_window


def _text(pdf_bytes: bytes) -> tuple[int, str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf_bytes))
    text = " ".join(p.extract_text() for p in reader.pages)
    return len(reader.pages), " ".join(unicodedata.normalize("NFKC", text).split())


def _flat(s: str) -> str:
    return " ".join(s.split())


def test_the_window_records_actions_and_moves_and_undo_takes_them_out(qtbot, demo_path, tmp_path, monkeypatch):
    discard_on_close(monkeypatch)
    win = open_window(qtbot, demo_path, tmp_path, size=(1366, 768))
    doc = win.document
    system = doc.committed.system
    # initiative, as the SR5 panel lands it: one commit of the rule system's outcome
    enc = doc.committed
    start = system.apply(enc, system.action_from_data(
        {"kind": "start_turn", "entered": {t.id: (20 if t.id == "sam" else 5) for t in enc.tokens}}))
    doc.commit(start.encounter, start.label)
    assert [s.kind for s in doc.committed.record.steps] == ["action"]
    # a drag of Sam during the round: the document's moves hook charges it, the recorder keeps it
    sam = doc.committed.token("sam")
    moved = doc.committed.model_copy(update={"tokens": tuple(
        t.model_copy(update={"x": t.x + 2.0}) if t.id == "sam" else t for t in doc.committed.tokens)})
    doc.commit(moved, "Move Sam")
    steps = doc.committed.record.steps
    assert [s.kind for s in steps] == ["action", "move"]
    assert steps[1].actor == "sam" and steps[1].round == 1
    # Sam attacks Razor, the attacker picked on the map and Razor targeted
    win.selection.select(["sam"], doc.committed)
    win.selection.set_targets(["ganger-1"])
    out = system.apply(doc.committed, system.action_from_data(
        {"kind": "attack", "attacker": "sam", "targets": ["ganger-1"]}))
    doc.commit(out.encounter, out.label)
    last = doc.committed.record.steps[-1]
    assert last.kind == "action" and last.actor == "sam" and last.targets == ("ganger-1",)
    assert last.log[0].startswith("[T1.1] Sam -> Razor")
    # one Ctrl+Z: the attack leaves the record with everything else it did
    doc.undo_stack.undo()
    assert [s.kind for s in doc.committed.record.steps] == ["action", "move"]
    doc.undo_stack.redo()
    assert len(doc.committed.record.steps) == 3
    # saved with the encounter, read back with it
    path = tmp_path / "fight.coverfire.json"
    doc.save(path)
    assert load_encounter(path).record == doc.committed.record
    assert sam.x + 2.0 == pytest.approx(doc.committed.token("sam").x)


def test_replay_steps_through_the_fight_without_changing_the_encounter(qtbot, tmp_path, monkeypatch):
    discard_on_close(monkeypatch)
    path = recorded_fight_path()
    win = open_window(qtbot, path, tmp_path, size=(1366, 768))
    before = win.document.committed
    undo_count = win.document.undo_stack.count()
    from gui.recorder import open_replay

    replay = open_replay(win)
    qtbot.addWidget(replay)
    record = before.record
    stops = record.stops
    assert replay.position == len(stops)  # it opens at the end of the fight
    # the first attack that hit: the map shows the state before it, with its line of fire
    k = next(i for i, s in enumerate(record.steps) if s.kind == "action" and s.targets and s.actor)
    pos = stops.index(k) + 1
    replay.go(pos)
    step = record.steps[k]
    from engine.record import encounter_at

    was = encounter_at(before, k)
    shown = replay.document.encounter
    assert shown.tokens == encounter_at(before, k + 1).tokens
    shooter, target = was.token(step.actor), was.token(step.targets[0])
    (line,) = replay.fire_lines
    assert (line.x1(), line.y1(), line.x2(), line.y2()) == pytest.approx((shooter.x, shooter.y, target.x, target.y))
    assert [replay.lines.item(i).text() for i in range(replay.lines.count())] == list(step.log)
    # round buttons: the end of round 1 is the last stop of round 1
    replay.go(0)
    replay.next_round()
    assert record.steps[stops[replay.position - 1]].round == 1
    assert record.steps[stops[replay.position]].round == 2
    replay.next_round()
    assert record.steps[stops[replay.position - 1]].round == 2
    replay.previous_round()
    assert record.steps[stops[replay.position - 1]].round == 1
    # pass buttons: from the start, the end of pass 1 of Combat Turn 1
    replay.go(0)
    replay.next_pass()
    assert record.steps[stops[replay.position - 1]].turn == "Combat Turn 1, pass 1"
    assert record.steps[stops[replay.position]].turn != "Combat Turn 1, pass 1"
    # the players' view: the hidden ganger is not on their map, nor named in the lines
    replay.set_players(True)
    vex = next(t for t in before.tokens if t.hidden)
    naming = [p for p in range(1, len(stops) + 1) if any(vex.name in ln for ln in record.steps[stops[p - 1]].log)]
    assert len(naming) >= 3  # (the GM's lines name Vex at these steps)
    for p in naming[:6]:
        replay.go(p)
        assert replay.lines.count() == len(record.steps[stops[p - 1]].log)
        assert all(vex.name not in replay.lines.item(i).text() for i in range(replay.lines.count()))
    assert vex.id not in {t.id for t in replay.shown_document.encounter.tokens}
    replay.close()
    # the encounter was never changed: the same value, no undo step, still saved
    assert win.document.committed is before and win.document.encounter is before
    assert win.document.undo_stack.count() == undo_count and not win.document.dirty


@pytest.fixture(scope="module")
def recorded():
    return load_encounter(recorded_fight_path())


def test_report_pdf_has_every_round_and_every_action_line(qapp, recorded, tmp_path):
    from gui.cli import main

    out = tmp_path / "report.pdf"
    assert main(["report", str(recorded_fight_path()), "--out", str(out)]) == 0
    pages, text = _text(out.read_bytes())
    assert pages >= 3
    assert "Round 1" in text and "Round 2" in text and "Round 3" in text
    missing = [s.log[0] for s in recorded.record.steps if s.log and _flat(s.log[0]) not in text]
    assert missing == []
    assert "Summary" in text and "Rounds survived" in text


def test_players_report_names_no_hidden_token(qapp, recorded, tmp_path):
    from gui.cli import main

    hidden = [t for t in recorded.tokens if t.hidden]
    assert hidden
    out = tmp_path / "players.pdf"
    assert main(["report", str(recorded_fight_path()), "--out", str(out), "--players"]) == 0
    _, text = _text(out.read_bytes())
    for t in hidden:
        assert t.name not in text and t.id not in text
    assert "Round 1" in text and "someone unseen" in text
    html_out = tmp_path / "players.html"
    assert main(["report", str(recorded_fight_path()), "-o", str(html_out), "--players"]) == 0
    page = html_out.read_text(encoding="utf-8")
    assert "<h2>Round 2</h2>" in page and "<svg" in page
    assert all(t.name not in page for t in hidden)


def test_report_of_an_encounter_without_a_record_says_so(qapp, demo_path, tmp_path, capsys):
    from gui.cli import main

    assert main(["report", str(demo_path), "--out", str(tmp_path / "r.pdf")]) == 2
    assert "has no recorded fight" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()


def test_a_record_that_does_not_belong_is_said_and_the_file_opens(qtbot, tmp_path, monkeypatch):
    discard_on_close(monkeypatch)
    data = json.loads(recorded_fight_path().read_text(encoding="utf-8"))
    data["record"]["steps"][5]["label"] = "edited by hand"
    path = tmp_path / "edited.coverfire.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    win = open_window(qtbot, path, tmp_path, size=(1366, 768))
    win.document.open_notes = []
    assert win.open_file(path, ask=False)
    assert win.document.committed.record is None
    assert len(win.document.committed.tokens) == len(data["tokens"])
    assert "the recorded fight was left out: step 6" in win.statusBar().currentMessage()
