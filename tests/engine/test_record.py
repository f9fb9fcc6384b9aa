"""The recorded fight (engine/record.py, issue 31): steps kept in order with their round and
log lines, saved inside the encounter, replayed true, refused when they do not belong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import record
from engine.encounter_text import EncounterText
from engine.files import dumps_encounter, load_encounter, loads_encounter
from engine.rules import MoveTo

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "encounters" / "demo.json"
RECORDED = ROOT / "assets" / "encounters" / "recorded-fight.json"


def _do(enc, data, **kw):
    s = enc.system
    out = s.apply(enc, s.action_from_data(data))
    return record.extend(enc, out.encounter, label=out.label, **kw)


@pytest.fixture(scope="module")
def fight():
    """The SR5 demo: initiative typed in (Sam 20 acts first), Sam moves 2 m east, fires at
    Razor, ends his phase."""
    enc = load_encounter(DEMO)
    assert enc.record is None
    entered = {t.id: (20 if t.id == "sam" else 5) for t in enc.tokens}
    e1 = _do(enc, {"kind": "start_turn", "entered": entered})
    sam = e1.token("sam")
    out = e1.system.on_moves(e1, [MoveTo("sam", (sam.x + 2.0, sam.y))])
    e2 = record.extend(e1, out.encounter, label=out.label)
    e3 = _do(e2, {"kind": "attack", "attacker": "sam", "targets": ["ganger-1"]}, actor="sam", targets=("ganger-1",))
    e4 = _do(e3, {"kind": "end_phase"}, actor="sam")
    return enc, (e1, e2, e3, e4)


def test_steps_in_order_with_round_kind_and_lines(fight):
    start, (e1, e2, e3, e4) = fight
    steps = e4.record.steps
    assert [s.kind for s in steps] == ["action", "move", "action", "action"]
    assert [s.round for s in steps] == [1, 1, 1, 1]
    assert steps[0].turn == "Combat Turn 1, pass 1"
    assert steps[1].actor == "sam" and steps[1].label == "Move Sam"
    assert steps[2].actor == "sam" and steps[2].targets == ("ganger-1",)
    assert steps[2].log[0].startswith("[T1.1] Sam -> Razor with ")
    # the log lines of a step are exactly the ones its action added to the system's log
    sys_ = e4.system
    assert steps[2].log == tuple(ln for e in sys_.log_entries(e3)[len(sys_.log_entries(e2)):]
                                 for ln in sys_.entry_lines(e))
    # a step is added to the record of the value after it: the values before keep theirs
    assert len(e1.record.steps) == 1 and len(e3.record.steps) == 3


def test_replay_gives_each_state_back(fight):
    start, (e1, e2, e3, e4) = fight
    for n, expected in enumerate((start, e1, e2, e3, e4)):
        past = record.encounter_at(e4, n)
        assert past.tokens == expected.tokens, n
        assert past.zones == expected.zones
        assert past.rules == expected.rules
        assert past.record is None
    # Sam stood 2 m further west before his move
    assert record.encounter_at(e4, 1).token("sam").x == pytest.approx(e4.token("sam").x - 2.0)


def test_saved_inside_the_file_and_read_back_equal(fight, tmp_path):
    e4 = fight[1][-1]
    text = dumps_encounter(e4)
    assert EncounterText().text(e4) == text  # the kept-text writer writes the same file
    data = json.loads(text)
    assert data["record"]["format"] == "coverfire.record" and data["record"]["version"] == 1
    assert len(data["record"]["steps"]) == 4
    notes: list[str] = []
    back = loads_encounter(text, notes=notes)
    assert notes == [] and back == e4 and back.record == e4.record
    # and the next step recorded on the value read back continues the same chain
    e5 = _do(back, {"kind": "end_phase"})
    assert len(e5.record.steps) == 5
    again: list[str] = []
    assert loads_encounter(dumps_encounter(e5), notes=again).record == e5.record and again == []


def _refused(text: str) -> tuple:
    notes: list[str] = []
    enc = loads_encounter(text, file="fight.json", notes=notes)
    return enc, notes


@pytest.mark.parametrize("edit, says", [
    (lambda r: r["steps"][2]["log"].__setitem__(0, "Sam misses"), "step 3 (Sam attacks: Razor"),
    (lambda r: r.__setitem__("steps", r["steps"][:2]), "cut short"),
    (lambda r: r.__setitem__("version", 2), "newer Coverfire (record version 2"),
    (lambda r: r["steps"][1]["patch"][0].__setitem__("path", "/tokens/nobody/x"), "step 2"),
    (lambda r: r.__setitem__("map", [10.0, 10.0]), "10 x 10 m map"),
    (lambda r: r.__setitem__("ruleset", "d100"), "'d100' fight"),
    (lambda r: r["steps"][0].__setitem__("round", "1"), "step 1 is damaged"),
])
def test_a_record_that_does_not_match_is_left_out_and_the_encounter_opens(fight, edit, says):
    e4 = fight[1][-1]
    data = json.loads(dumps_encounter(e4))
    edit(data["record"])
    enc, notes = _refused(json.dumps(data))
    assert enc.record is None
    assert enc.tokens == e4.tokens  # the encounter itself opened as saved
    assert len(notes) == 1 and notes[0].startswith("fight.json: the recorded fight was left out: ")
    assert says in notes[0], notes[0]


def test_undo_is_the_value_before_so_an_undone_action_leaves_the_record(fight):
    start, (e1, e2, e3, e4) = fight
    # the window's undo puts e3 back: its record has no "end of phase"; the next action
    # recorded from there replaces it
    redo = _do(e3, {"kind": "end_phase"}, actor="sam")
    assert [s.label for s in redo.record.steps] == [s.label for s in e4.record.steps]
    assert len(e3.record.steps) == 3


def test_edits_between_steps_keep_the_replay_true(fight):
    e4 = fight[1][-1]
    renamed = e4.model_copy(update={"tokens": tuple(t.model_copy(update={"name": "Razor the Great"})
                                                    if t.id == "ganger-1" else t for t in e4.tokens)})
    e5 = record.extend(e4, renamed, label="Rename")
    assert e5.record.steps[-1].kind == "edit"
    assert e5.record.stops == [0, 1, 2, 3]  # an edit is no stop of the timeline
    assert record.encounter_at(e5, len(e5.record.steps)).token("ganger-1").name == "Razor the Great"
    # a change that is no step (the obstacles are not recorded) adds nothing
    same = record.extend(e5, e5.model_copy(update={"obstacles": e5.obstacles[1:]}), label="Delete wall")
    assert len(same.record.steps) == len(e5.record.steps)


def test_nothing_is_recorded_before_the_fight():
    enc = load_encounter(DEMO)
    sam = enc.token("sam")
    moved = enc.model_copy(update={"tokens": tuple(t.model_copy(update={"x": t.x + 1}) if t is sam else t
                                                   for t in enc.tokens)})
    assert record.extend(enc, moved, label="Move Sam") is moved  # outside a round: a plain edit


def test_patches_are_rfc6902_add_remove_replace():
    a = {"tokens": {"sam": {"x": 1.0, "name": "Sam"}}, "rules": {"log": [1, 2]}}
    b = {"tokens": {"sam": {"x": 2.5}, "nyx": {"x": 0.0}}, "rules": {"log": [1, 2, 3]}}
    ops = record.diff(a, b)
    assert sorted(map(json.dumps, ops)) == sorted(map(json.dumps, [
        {"op": "replace", "path": "/tokens/sam/x", "value": 2.5},
        {"op": "remove", "path": "/tokens/sam/name"},
        {"op": "add", "path": "/tokens/nyx", "value": {"x": 0.0}},
        {"op": "add", "path": "/rules/log/-", "value": 3},
    ]))
    assert record.apply(a, ops) == b
    assert a["tokens"]["sam"] == {"x": 1.0, "name": "Sam"}  # applied without changing the original
    with pytest.raises(record.RecordError, match="no such key"):
        record.apply(a, [{"op": "replace", "path": "/tokens/vex/x", "value": 1}])


def test_the_bundled_recorded_demo():
    notes: list[str] = []
    enc = load_encounter(RECORDED, notes=notes)
    assert notes == []
    steps = enc.record.steps
    assert {s.round for s in steps} >= {1, 2}
    assert any(s.kind == "move" for s in steps) and sum(s.kind == "action" for s in steps) > 10
    assert any(t.hidden for t in enc.tokens)  # (the players' report leaves it out)
    assert record.encounter_at(enc, len(steps)).tokens == enc.tokens


def test_the_replay_state_is_the_encounters_own_data_at_every_step(fight):
    """What the recorder keeps by parts (fields that stayed, a log that only grew) is what
    a fresh dump of the encounter gives, after every step."""
    start, values = fight
    for n, enc in enumerate(values, start=1):
        state = record.state_at(values[-1].record, n)
        assert state["rules"] == enc.model_dump(mode="json", include={"rules"}, exclude_none=True)["rules"]
        assert state["tokens"] == {t.id: t.model_dump(mode="json", exclude_none=True) for t in enc.tokens}
        assert state["zones"] == {z.id: z.model_dump(mode="json", exclude_none=True) for z in enc.zones}


def test_a_warmed_writer_writes_a_recorded_fight_from_kept_texts():
    """The window makes the texts ahead in idle turns: then a save takes every step's and
    every log entry's text from what was kept, and writes the ordinary file."""
    enc = load_encounter(RECORDED)
    writer = EncounterText()
    while writer.warm(enc, budget_s=1.0):
        pass
    text = writer.text(enc)
    assert text == dumps_encounter(enc)
    logged = len(enc.system.log_entries(enc))
    assert writer.reused >= len(enc.record.steps) + logged + len(enc.tokens)


def test_the_next_save_adds_only_the_new_step_and_log_entry():
    """A save after one more action writes the grown log and record from the last save's
    text plus the new items: still exactly the ordinary file."""
    enc = load_encounter(RECORDED)
    writer = EncounterText()
    assert writer.text(enc) == dumps_encounter(enc)
    system = enc.system
    start = system.apply(enc, system.action_from_data(
        {"kind": "start_turn", "entered": {t.id: 10 for t in enc.tokens}}))
    grown = record.extend(enc, start.encounter, label=start.label)
    nxt = system.apply(grown, system.action_from_data({"kind": "end_phase"}))
    grown2 = record.extend(grown, nxt.encounter, label=nxt.label)
    for value in (grown, grown2):
        assert writer.text(value) == dumps_encounter(value)
    assert writer.reused >= len(enc.record.steps) + len(system.log_entries(enc))


def test_prepared_ahead_the_next_step_dumps_only_what_it_changed(monkeypatch):
    """After prepare (a file just read), the next step reuses the encounter's values' data:
    a move of one token dumps that token only (without it: every token), and the step is the
    same either way."""
    enc = load_encounter(RECORDED)
    system = enc.system
    start = system.apply(enc, system.action_from_data(
        {"kind": "start_turn", "entered": {t.id: 10 for t in enc.tokens}}))
    text = dumps_encounter(record.extend(enc, start.encounter, label=start.label))
    dumped = []
    real = record._dump
    monkeypatch.setattr(record, "_dump", lambda v: dumped.append(v) or real(v))
    steps = []
    for prepared in (False, True):
        read_back = loads_encounter(text)
        record._LAST.clear()
        if prepared:
            record.prepare(read_back)
        actor = system.settings(read_back).acting
        me = read_back.token(actor)
        out = system.on_moves(read_back, [MoveTo(actor, (me.x + 1.0, me.y))])
        dumped.clear()
        steps.append(record.extend(read_back, out.encounter, label=out.label).record.steps[-1])
        tokens_dumped = [v for v in dumped if type(v).__name__ == "Token"]
        assert len(tokens_dumped) == (1 if prepared else len(enc.tokens))
    assert steps[0].kind == steps[1].kind == "move"
    assert steps[0].patch == steps[1].patch
